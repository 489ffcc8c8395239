"""``python -m hlv_core summary FILE [--format F] [--task T] [--json] [--items]``: overview of a
dataset (:meth:`hlv_core.io.Dataset.summary` and the import report); ``--items``: the per-item
table instead (:func:`hlv_core.annotators.item_overview`: majority, majority share, pair agreement,
normalised entropy; most contested first), as on the Overview page."""

from __future__ import annotations

import argparse

from ..annotators import item_overview
from ._common import add_dataset_arguments, load_from_args, print_result
from ._dask import add_dask_argument, run_dask_summary

__all__ = ["add_cli", "run_summary"]


def run_summary(args: argparse.Namespace) -> int:
    """Handler of the ``summary`` subcommand."""
    if getattr(args, "dask", None):
        return run_dask_summary(args)
    dataset = load_from_args(args)
    if getattr(args, "items", False):
        print_result(item_overview(dataset), args.json)
        return 0
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


def add_cli(subparsers) -> None:
    """Register the ``summary`` subcommand."""
    summary = subparsers.add_parser("summary", help="overview of a dataset")
    add_dataset_arguments(summary)
    summary.add_argument("--items", action="store_true",
                         help="print the per-item table (majority share, pair agreement, "
                         "entropy; most contested first) instead of the summary")
    add_dask_argument(summary)
    summary.set_defaults(handler=run_summary)
