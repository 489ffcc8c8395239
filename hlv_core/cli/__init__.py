"""Command line: ``python -m hlv_core SUBCOMMAND ...`` runs the analyses on files and prints a
table or JSON (for pipelines and for people without the UI)."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from ..io import FORMATS, TASKS, DataError, load
from ..text import strip_controls


class _ControlFreeStream:
    """A text stream that drops terminal escape sequences and control characters (not
    newline / tab) from everything written to it: names in the data are printed as text,
    never as terminal commands. JSON output is unaffected (``json.dumps`` escapes controls)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(strip_controls(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def options_as_data_errors(run, args: argparse.Namespace) -> int:
    """Run a subcommand body; a ``ValueError`` from bad options becomes a :class:`DataError`
    naming the input file (so the user sees one clear message, exit code 2)."""
    try:
        return run(args)
    except DataError:
        raise
    except ValueError as error:
        source = str(getattr(args, "file", "<arguments>"))
        raise DataError(str(error), source=source, fix="check the options.") from error


def add_dataset_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every file-reading subcommand shares."""
    parser.add_argument("file", help="annotations file (any supported format)")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--task", default=None, choices=list(TASKS),
                        help="declare the task (default: inferred; e.g. multilabel when a few "
                        "annotators gave an item several labels on purpose)")


def load_from_args(args: argparse.Namespace):
    return load(args.file, format=args.format, task=getattr(args, "task", None))


def print_result(result, as_json: bool) -> None:
    """Print a DataFrame / dict as a plain table or as JSON."""
    if as_json:
        if isinstance(result, pd.DataFrame):
            print(result.to_json(orient="records", indent=2))
        else:
            print(json.dumps(result, indent=2, default=str))
        return
    if isinstance(result, pd.DataFrame):
        with pd.option_context("display.max_rows", 200, "display.width", 160):
            print(result.to_string(index=False))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


def _summary(args: argparse.Namespace) -> int:
    dataset = load_from_args(args)
    summary = dataset.summary()
    if not args.json:
        summary["labels"] = ", ".join(summary["labels"][:20]) + (
            " …" if len(summary["labels"]) > 20 else ""
        )
        summary["label_counts"] = ", ".join(
            f"{k}={v}" for k, v in list(summary["label_counts"].items())[:20]
        )
    print_result(summary, args.json)
    if not args.json:
        print("\nImport report")
        print(dataset.report.to_frame().to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hlv_core", description="HLV Lens analyses on the command line."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="overview of a dataset")
    add_dataset_arguments(summary)
    summary.set_defaults(handler=_summary)
    # Imported here: each command module imports the shared helpers above.
    from . import agreement, certainty, lab, lewidi, metrics, perspectives, review, sigma

    for module in (metrics, agreement, sigma, certainty, perspectives, review, lab, lewidi):
        module.add_cli(sub)
    return parser


def error_line(error: DataError) -> str:
    """The one line the CLI prints for bad input (the same text the app shows)."""
    return "error: " + " ".join(str(error).split())


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand. Bad input of any kind reaches here as one
    :class:`~hlv_core.io.DataError` (loaders convert parser failures into it): it is printed
    as one line on stderr and the exit status is 2. Other exceptions are bugs and propagate."""
    parser = build_parser()
    args = parser.parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _ControlFreeStream(stdout), _ControlFreeStream(stderr)
    try:
        return int(args.handler(args) or 0)
    except DataError as error:
        print(error_line(error), file=sys.stderr)
        return 2
    finally:
        sys.stdout, sys.stderr = stdout, stderr
