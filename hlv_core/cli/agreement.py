"""``python -m hlv_core agreement FILE [--level L] [--pairs] [--multilabel] [--json]``.

Default output: overall Krippendorff's alpha with its bootstrap CI, a plain-words explanation and
the kappas of :func:`hlv_core.agreement.kappa_summary` (Fleiss, plus Cohen for two annotators or
Light for more), as on the Agreement page; levels from :func:`hlv_core.levels.level_options`.
``--pairs``: the all-pairs alpha table. ``--multilabel``: Marchal et al.'s multi-label agreement
table (default for multi-label data). Counts-only data (no annotator ids): the overall nominal
alpha from the label counts.
"""

from __future__ import annotations

import argparse

from ..agreement import (
    ALPHA_LEVELS,
    alpha_from_counts,
    alpha_report,
    kappa_summary,
    multilabel_agreement,
    pairwise_alpha,
)
from ..io import FORMATS, DataError, load
from ..levels import level_options
from ._common import add_companion_argument, companions_from_args, print_result
from ._dask import add_dask_argument, run_dask_agreement

__all__ = ["add_cli", "run_agreement"]


def run_agreement(args: argparse.Namespace) -> int:
    """Handler of the ``agreement`` subcommand (errors go up to :func:`hlv_core.cli.main`)."""
    if getattr(args, "dask", None):
        return run_dask_agreement(args)
    dataset = load(args.file, format=args.format, **companions_from_args(args))
    if dataset.task == "ranking":
        raise DataError(
            "ranking data has no single label per annotator and item.", source=dataset.name,
            fix="use a multiclass, multilabel or rating dataset.",
        )
    if not dataset.annotator_ids_known:
        if args.pairs or args.multilabel:
            raise DataError(
                "pairwise and multi-label agreement need annotator ids linked across items.",
                source=dataset.name,
                fix="use a file with an annotator_id column (counts-only data has none).",
            )
        # counts only: the overall nominal alpha from the label counts (as the Agreement page)
        print_result({"alpha": alpha_from_counts(dataset.counts_array(), level="nominal"),
                      "level": "nominal", "n_items": dataset.n_items,
                      "note": "counts only (no annotator ids): overall nominal alpha from the "
                              "label counts; pairs and kappas need annotator ids."}, args.json)
        return 0
    opts = level_options(dataset)
    level = opts.resolve(args.level)
    multilabel_mode = opts.multilabel
    values = opts.values(level)
    annotations = dataset.annotations
    if args.multilabel or (dataset.task == "multilabel" and not args.pairs):
        table = multilabel_agreement(annotations, n_boot=args.n_boot, seed=args.seed).reset_index()
        table.insert(0, "seed", args.seed)
        print_result(table, args.json)
        return 0
    if args.pairs:
        pairs = pairwise_alpha(
            annotations, level=level, min_shared=args.min_shared, values=values,
            multilabel=multilabel_mode,
        )
        pairs.insert(0, "level", level)
        print_result(pairs, args.json)
        return 0
    rep = alpha_report(
        annotations, level=level, n_boot=args.n_boot, seed=args.seed, values=values,
        multilabel=multilabel_mode,
    )
    result = {k: v for k, v in rep.as_dict().items() if k != "value_shares"}
    if dataset.task != "multilabel":  # the kappas the Agreement page shows beside alpha
        result.update({f"{name}_kappa": value
                       for name, value in kappa_summary(annotations).items()})
    print_result(result, args.json)
    return 0


def add_cli(subparsers) -> None:
    """Register the ``agreement`` subcommand."""
    parser = subparsers.add_parser(
        "agreement", help="Krippendorff's alpha (overall, pairs), kappas, multi-label agreement"
    )
    parser.add_argument("file", help="annotations file (any supported format)")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    add_companion_argument(parser)
    parser.add_argument(
        "--level", choices=ALPHA_LEVELS, default=None,
        help="level of measurement (default: the dataset's level; nominal for categories)",
    )
    parser.add_argument("--pairs", action="store_true", help="alpha of every annotator pair")
    parser.add_argument("--min-shared", type=int, default=2, help="pairs: minimum shared items")
    parser.add_argument(
        "--multilabel", action="store_true",
        help="multi-label agreement table (Marchal et al.)"
    )
    parser.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_dask_argument(parser)
    parser.set_defaults(handler=run_agreement)
