"""``python -m hlv_core item FILE [--id ITEM]`` and ``python -m hlv_core annotator FILE [--id
ANNOTATOR]``: the "Items and annotators" page on the command line
(:mod:`hlv_core.annotators`). Without ``--id``: the table of every item (with per-item
agreement, most contested first) or of every annotator (agreement with the majority, mean
pairwise alpha with its support, camp, traits); with ``--id``: one item with every annotation,
or one annotator's profile."""

from __future__ import annotations

import argparse

from .. import annotators
from ._common import add_dataset_arguments, load_from_args, print_result
from ._output import records

__all__ = ["add_cli", "run_annotator", "run_item"]


def run_item(args: argparse.Namespace) -> int:
    """Handler of the ``item`` subcommand."""
    dataset = load_from_args(args)
    if args.id is None:
        print_result(annotators.item_overview(dataset), args.json)
        return 0
    view = annotators.item_view(dataset, args.id)
    result = {"item_id": view.item_id, "text": view.text, "n_annotators": view.n_annotators,
              "majority": view.majority, "pair_agreement": view.agreement,
              "entropy": view.entropy}
    if args.json:
        print_result({**result, "soft_label": records(view.soft_label),
                      "annotations": records(view.annotations)}, True)
        return 0
    print_result({**result, "text": "(no text)" if view.text is None else view.text}, False)
    print("\nSoft label")
    print_result(view.soft_label, False)
    print("\nAnnotations")
    print_result(view.annotations, False)
    return 0


def run_annotator(args: argparse.Namespace) -> int:
    """Handler of the ``annotator`` subcommand."""
    dataset = load_from_args(args)
    if not dataset.annotator_ids_known:
        raise ValueError("this dataset has no annotator identities linked across items")
    pairs = annotators.annotator_pairs(dataset, level=args.level, min_shared=args.min_shared)
    try:
        camps = annotators.annotator_camps(dataset)
    except ValueError:  # sigma refuses the data (too large, several labels per cell)
        camps = None
    if args.id is None:
        print_result(annotators.annotator_table(dataset, pairs=pairs, camps=camps), args.json)
        return 0
    p = annotators.annotator_profile(dataset, args.id, pairs=pairs, camps=camps)
    result = {"annotator_id": p.annotator_id, "n_items": p.n_items,
              "n_compared": p.n_compared, "n_agree": p.n_agree,
              "majority_agreement": p.majority_agreement, "mean_alpha": p.mean_alpha,
              "n_pairs_defined": p.n_pairs_defined, "n_shared_total": p.n_shared_total,
              "camp": p.camp, **{f"trait:{k}": v for k, v in p.traits.items()}}
    confusion = p.confusion.reset_index()
    if args.json:
        print_result({**result, "confusion_vs_majority": records(confusion),
                      "label_shares": records(p.label_shares),
                      "disagreements": records(p.disagreements),
                      "pairs": records(p.pairs)}, True)
        return 0
    print_result(result, False)
    print("\nConfusion against the majority (items)")
    print_result(confusion, False)
    print("\nLabel shares")
    print_result(p.label_shares, False)
    return 0


def add_cli(subparsers) -> None:
    """Register the ``item`` and ``annotator`` subcommands."""
    item = subparsers.add_parser("item", help="items with per-item agreement, or one item")
    add_dataset_arguments(item)
    item.add_argument("--id", default=None, help="show this item with every annotation")
    item.set_defaults(handler=run_item)
    annotator = subparsers.add_parser(
        "annotator", help="annotators against the majority and each other, or one profile")
    add_dataset_arguments(annotator)
    annotator.add_argument("--id", default=None, help="show this annotator's profile")
    annotator.add_argument("--level", default=None,
                           help="level of measurement of pairwise alpha (default: the "
                           "dataset's)")
    annotator.add_argument("--min-shared", type=int, default=2,
                           help="pairs sharing fewer items get no alpha (default 2)")
    annotator.set_defaults(handler=run_annotator)
