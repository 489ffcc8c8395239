"""``python -m hlv_core lab FILE_OR_FOLDER [--methods ...] [--seeds 0 1 2] [--jobs N] [--json]``.

Trains the training lab's fast linear text model with each of Kurniawan et al.'s HLV training methods
(:func:`hlv_core.lab.run_lab`) and prints the mean of every metric over seeds and its delta
against MV (or, with ``--json``, the long result table as JSON records). ``--predictions
FILE.csv`` writes each method's test predictions averaged over seeds (``model, item_id,
label, prob``) for ``python -m hlv_core metrics``.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from ..io import FORMATS, load
from ..lab import (
    DEFAULT_L2_GRID,
    cap_notes,
    predictions_as_models,
    run_lab_full,
    summary_table,
)
from ..progress import ProgressClock
from ..training import METHODS
from ._common import add_companion_argument, companions_from_args
from ._output import write_json

__all__ = ["add_cli", "run_lab_cli"]


def run_lab_cli(args: argparse.Namespace) -> int:
    """Handler of the ``lab`` sub-command; returns the exit status."""
    dataset = load(args.file, format=args.format, **companions_from_args(args))

    clock = ProgressClock(total=1.0)

    def progress(fraction: float, message: str) -> None:
        clock.update(fraction)
        if not args.json and not args.quiet:
            print(f"[{fraction:5.1%}] {clock.text(message)}", file=sys.stderr)

    options = {"n_folds": args.folds, "l2_grid": tuple(args.l2_grid)}
    if args.jobs == 1:
        result = run_lab_full(dataset, methods=args.methods, seeds=args.seeds,
                              progress=progress, **options)
    else:  # the same numbers, trained on several processes
        from ..lab_pool import combine_lab_results, run_lab_pool

        methods = list(METHODS) if args.methods is None else list(dict.fromkeys(args.methods))
        added = "MV" not in methods
        result = combine_lab_results(
            run_lab_pool(dataset, (["MV"] if added else []) + methods, seeds=args.seeds,
                         n_jobs=args.jobs, progress=progress, **options),
            reference_added=added)
    if args.predictions:
        predictions_as_models(result.predictions).to_csv(args.predictions, index=False)
    if args.json:
        write_json({"protocol": result.protocol, "seeds": list(args.seeds),
                    "results": result.results, "capped": cap_notes(result.fits)},
                   null_reasons=["null = undefined; the row's note says why."])
        return 0
    print(f"protocol: {result.protocol}; seeds: {' '.join(map(str, args.seeds))}")
    with pd.option_context("display.max_columns", 40, "display.width", 200):
        print(summary_table(result.results).to_string(float_format=lambda x: f"{x:.4f}"))
    for line in cap_notes(result.fits):
        print(f"\nwarning: {line}")
    print("\nseconds per method: " + ", ".join(f"{m} {s:.1f}" for m, s in result.timings.items()))
    return 0


def add_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``lab`` on the ``python -m hlv_core`` sub-parsers."""
    parser = subparsers.add_parser(
        "lab",
        help="train a fast linear text model with each HLV training method (Kurniawan et al.)",
        description=__doc__,
    )
    parser.add_argument("file", help="annotations file or dataset folder with items.csv texts")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    add_companion_argument(parser)
    parser.add_argument("--methods", nargs="+", choices=list(METHODS), default=None,
                        help="methods to train (default: all 14; MV is always added)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0], help="seeds (default 0)")
    parser.add_argument("--folds", type=int, default=5,
                        help="cross-validation folds when the data has no split (default 5)")
    parser.add_argument("--l2-grid", nargs="+", type=float, default=list(DEFAULT_L2_GRID),
                        help="L2 strengths as multiples of 1/n_train (default 0.1 1 10)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="train on N processes side by side (-1: every core, at most 8); "
                             "the numbers are the same (default 1)")
    parser.add_argument("--predictions", metavar="CSV",
                        help="write the test predictions (mean over seeds) to this CSV")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(handler=run_lab_cli)
    return parser

