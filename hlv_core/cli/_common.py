"""Arguments and helpers every command module shares (imported as ``from ._common import ...``,
never through the package, so no command module imports :mod:`hlv_core.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ..io import FORMATS, TASKS, DataError, load, route_companions
from ._output import write_json

__all__ = ["add_companion_argument", "add_dataset_arguments", "column_value",
           "companions_from_args", "load_from_args", "print_result",
           "require_linked_annotators"]

_COMPANION_HELP = ("companion file, told by its name as on the Overview page: annotators.csv "
                   "(traits), items.csv (texts), labels.csv (label order), "
                   "*_annotators_meta.json (LeWiDi 2025 traits), *conditions* / *risks* .txt "
                   "(selectors); repeat for several")


def add_companion_argument(parser: argparse.ArgumentParser) -> None:
    """``--with FILE`` (repeatable): the Overview page's companion files on the command line."""
    parser.add_argument("--with", dest="companions", action="append", default=[],
                        metavar="FILE", help=_COMPANION_HELP)


def companions_from_args(args: argparse.Namespace) -> dict[str, str]:
    """The ``load`` options of the ``--with`` files, each told by its name
    (:func:`hlv_core.io.companion_option`); a name that says nothing, or two files of one kind,
    is refused naming the file (the same rules as the Overview page's companion uploads)."""
    paths = getattr(args, "companions", None) or []
    options, unnamed = route_companions((path, path) for path in paths)
    if unnamed:
        raise DataError(
            "the file name does not say what this companion file is.", source=unnamed[0],
            fix="name it annotators.csv, items.csv, labels.csv, *_annotators_meta.json, "
                "*conditions*.txt or *risks*.txt.")
    for path in paths:
        if not Path(path).is_file():
            raise DataError("file not found.", source=path, fix="check the path.")
    return options


def add_dataset_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every file-reading subcommand shares."""
    parser.add_argument("file", help="annotations file (any supported format)")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--task", default=None, choices=list(TASKS),
                        help="declare the task (default: inferred; e.g. multilabel when a few "
                        "annotators gave an item several labels on purpose)")
    add_companion_argument(parser)


def column_value(text: str, example: str) -> tuple[str, str]:
    """``COLUMN=VALUE`` of a ``--subset`` option as ``(column, value)``; anything else is refused
    with the form and ``example`` (e.g. ``"topic=T1"``)."""
    column, _, value = text.partition("=")
    if not column or not value:
        raise ValueError(f"--subset takes COLUMN=VALUE, e.g. {example}.")
    return column, value


def require_linked_annotators(dataset, what: str, *, fix: str | None = None) -> None:
    """Refuse (``DataError``, exit 2) a dataset whose annotators are not linked across items
    (label counts, per-case readers) or that holds rankings, for an analysis that models each
    annotator (``what``, e.g. "competence"): on counts every pseudo-annotator has one row, so
    Dawid-Skene's per-annotator confusions are not identified and every item's posterior falls
    back to the class prior. The app's Errors and perspectives page refuses the same data."""
    if dataset.annotator_ids_known and dataset.task != "ranking":
        return
    raise DataError(
        f"{what} needs annotator ids linked across items (one label per item and annotator); "
        "this dataset has " + ("rankings." if dataset.task == "ranking" else
                               "anonymous annotations (label counts or per-case readers)."),
        source=dataset.report.source or dataset.name,
        fix=fix or "use a file whose annotator_id column names the same people across items.",
    )


def load_from_args(args: argparse.Namespace):
    return load(args.file, format=args.format, task=getattr(args, "task", None),
                **companions_from_args(args))


def print_result(result, as_json: bool) -> None:
    """Print a DataFrame / dict as a plain table or as JSON (:func:`~._output.write_json`)."""
    if as_json:
        write_json(result)
        return
    if isinstance(result, pd.DataFrame):
        with pd.option_context("display.max_rows", 200, "display.width", 160):
            print(result.to_string(index=False))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
