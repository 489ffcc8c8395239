"""``python -m hlv_core report DATA -o report.html [--predictions FILE] [--format F] [--task T]
[--seed N] [--n-boot B] [--top-items K] [--subset COLUMN=VALUE [--camps TRAIT]] [--progress]``:
the disagreement report.

Writes one self-contained HTML file (works offline, no outside request) built by
:func:`hlv_core.report.build_report`, the function behind the app's "Disagreement report"
button. ``DATA`` is an annotations file or dataset folder, or the name of a bundled sample
(``case_review``, ``dermatology``, ...) when no such path exists. ``--predictions`` adds model
predictions (a model named like one of the dataset's bundled models replaces it).
``--subset COLUMN=VALUE`` turns on the annotator verdicts' camp rule on the items whose column
equals the value (camps from the signed agreement graph, or from an annotator trait with
``--camps TRAIT``), as ``competence --report`` does. Prints the output path, the time it took
and the sections that do not apply.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import pandas as pd

from ..io import FORMATS, TASKS, Dataset, load, load_predictions
from ..report import ReportSettings, render_report, report_sections, signal_camp_rule
from ..samples import SAMPLES, load_sample
from ._common import add_companion_argument, column_value, companions_from_args

__all__ = ["add_cli", "run_report"]


def _dataset(args: argparse.Namespace) -> Dataset:
    path = Path(args.data)
    if not path.exists() and args.data in SAMPLES:
        return load_sample(args.data)
    return load(path, format=args.format, task=args.task, **companions_from_args(args))


def _predictions(args: argparse.Namespace, dataset: Dataset) -> pd.DataFrame | None:
    bundled = dataset.predictions
    if not args.predictions:
        return bundled
    extra = load_predictions(args.predictions, dataset)
    if bundled is None:
        return extra
    kept = bundled[~bundled["model"].isin(set(extra["model"]))]
    return pd.concat([kept, extra], ignore_index=True)


def run_report(args: argparse.Namespace) -> int:
    """Handler of the ``report`` subcommand (errors go up to :func:`hlv_core.cli.main`)."""
    start = time.perf_counter()
    if args.top_items < 1 or args.n_boot < 0:
        raise ValueError("--top-items must be at least 1 and --n-boot at least 0.")
    dataset = _dataset(args)
    predictions = _predictions(args, dataset)
    settings = dataclasses.replace(
        ReportSettings(), seed=args.seed, n_boot=args.n_boot, top_items=args.top_items,
        signal_subset=column_value(args.subset, "topic=T1") if args.subset else None,
        signal_camps=args.camps)
    signal_camp_rule(dataset, settings, check_only=True)  # bad settings: refused before any work
    show = args.progress or sys.stderr.isatty()

    def progress(fraction: float, text: str) -> None:
        if show:
            print(f"report: {fraction:4.0%} {text}", file=sys.stderr, flush=True)

    sections = report_sections(dataset, predictions, settings=settings, progress=progress)
    html = render_report(dataset, sections)
    out = Path(args.output)
    out.write_text(html, encoding="utf-8")
    print(f"report written to {out} ({len(html.encode('utf-8')) / 2**20:.1f} MB, "
          f"{time.perf_counter() - start:.1f} s)")
    for section in sections:
        if not section.applies:
            print(f"not applicable: {section.title}")
    return 0


def add_cli(subparsers) -> argparse.ArgumentParser:
    """Register ``report`` on the ``python -m hlv_core`` sub-parsers."""
    parser = subparsers.add_parser(
        "report", help="self-contained HTML disagreement report of a dataset (works offline)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", help="annotations file, dataset folder or bundled sample name")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.html",
                        help="where to write the HTML report")
    parser.add_argument("--predictions", default=None, help="model predictions file (optional)")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    add_companion_argument(parser)
    parser.add_argument("--task", default=None, choices=list(TASKS),
                        help="declare the task (default: inferred)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw (0)")
    parser.add_argument("--n-boot", type=int, default=ReportSettings.n_boot,
                        help="bootstrap replicates of alpha's CI (1000)")
    parser.add_argument("--top-items", type=int, default=ReportSettings.top_items,
                        help="most contested items listed (15)")
    parser.add_argument("--subset", default=None, metavar="COLUMN=VALUE",
                        help="turn on the annotator verdicts' camp rule on the items whose "
                             "items-table COLUMN equals VALUE (e.g. topic=T1)")
    parser.add_argument("--camps", default=None, metavar="TRAIT",
                        help="with --subset: camps from this annotator trait instead of the "
                             "signed agreement graph")
    parser.add_argument("--progress", action="store_true",
                        help="print progress on stderr (default: only on a terminal)")
    parser.set_defaults(handler=run_report)
    return parser
