"""``python -m hlv_core perspectives FILE [--traits F] [--test-share S] [--seed N] [--json]``
and ``python -m hlv_core split FILE --out DIR``.

``perspectives`` builds a PERSEVAL split (Lo, Casola et al.), runs the baselines (majority
vote of the training annotators, per-trait-group majority, per-user majority from adaptation
labels) and, with ``--predictions P``, scores a model's per-(user, text) predictions too. Default
output: the headline table of the Perspectives page (``headline_table``): one row per model with
global, user-level and text-level F1 (positive class for binary data, macro otherwise), global
macro F1 (binary data) and global / user accuracy; ``--json``: the split settings and sizes plus the full tidy summary of
every model. ``split`` writes the split as CSV files (train, adaptation, test, test traits) and
``split.json`` with the settings that reproduce it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pandas as pd

from ..io import FORMATS, Dataset, load, load_table, load_traits
from ..perspectivist import (
    PerspectivistSplits,
    compare_models,
    evaluate,
    gold_for_pairs,
    headline_label,
    headline_table,
    make_splits,
    run_baselines,
)
from ._common import add_companion_argument, companions_from_args
from ._output import jsonable, write_json

__all__ = ["add_cli", "run_perspectives", "run_split"]


def _with_traits(dataset: Dataset, path: str | None) -> Dataset:
    if path is None:
        return dataset
    return dataclasses.replace(dataset, annotators=load_traits(path))


def _split_from_args(args: argparse.Namespace) -> tuple[Dataset, PerspectivistSplits]:
    companions = companions_from_args(args)
    if args.traits and {"annotators", "meta"} & set(companions):
        raise ValueError("--traits and a --with annotators / meta file both give the annotator "
                         "traits; pass one of them.")
    dataset = _with_traits(load(args.file, format=args.format, **companions), args.traits)
    adaptation = {"none": False, "train": "train", "test": "test"}[args.adaptation]
    reserve = args.reserve if args.reserve == "auto" else float(args.reserve)
    splits = make_splits(
        dataset, test_user_share=args.test_share, adaptation=adaptation,
        extended=args.extended, seed=args.seed, baseline=args.baseline,
        adaptation_share=args.adaptation_share, train_only_text_share=reserve,
        stratify=args.stratify,
    )
    return dataset, splits


def run_perspectives(args: argparse.Namespace) -> int:
    """Handler of ``perspectives``: split, baselines, optional predictions, metrics."""
    dataset, splits = _split_from_args(args)
    models, skipped = run_baselines(splits)
    table = compare_models(models, splits.test, traits=splits.test_traits(),
                           labels=dataset.labels)
    if args.predictions:
        preds = load_table(args.predictions)
        gold = gold_for_pairs(preds, dataset) if args.own_pairs else splits.test
        traits = splits.traits if splits.traits is not None else None
        report = evaluate(preds, gold, traits=traits, labels=dataset.labels)
        name = Path(args.predictions).stem
        table = pd.concat([table, report.summary().assign(model=name)], ignore_index=True)
    positive = headline_label(dataset.labels)
    if args.json:
        out = {
            "settings": splits.settings(),
            "sizes": splits.sizes().to_dict(orient="records"),
            "notes": list(splits.notes),
            "skipped_baselines": skipped,
            "headline_label": positive,
            "summary": table,
        }
        write_json(out)
        return 0
    print("split:", ", ".join(f"{k}={v}" for k, v in splits.settings().items()))
    print(splits.sizes().to_string(index=False))
    for note in splits.notes:
        print("note:", note)
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}")
    print()
    with pd.option_context("display.width", 160, "display.float_format", "{:.3f}".format):
        print(headline_table(table, dataset.labels).to_string(index=False))
    return 0


def run_split(args: argparse.Namespace) -> int:
    """Handler of ``split``: write the split CSVs and ``split.json``."""
    _, splits = _split_from_args(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    splits.train.to_csv(out / "train.csv", index=False)
    splits.adaptation.to_csv(out / "adaptation.csv", index=False)
    splits.test.to_csv(out / "test.csv", index=False)
    traits = splits.test_traits()
    if traits is not None:
        traits.to_csv(out / "test_traits.csv")
    meta = {"settings": splits.settings(), "sizes": splits.sizes().to_dict(orient="records"),
            "notes": list(splits.notes), "source": str(args.file)}
    (out / "split.json").write_text(json.dumps(jsonable(meta), indent=2))
    result = splits.sizes()
    if args.json:
        write_json(meta)
    else:
        print(result.to_string(index=False))
        print(f"written to {out}")
    return 0


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="annotations file (any supported format)")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    add_companion_argument(parser)
    parser.add_argument("--traits", default=None,
                        help="annotator traits CSV (annotator_id + one column per trait)")
    parser.add_argument("--test-share", type=float, default=0.2,
                        help="share of annotators that become test users (default 0.2)")
    parser.add_argument("--adaptation", choices=["none", "train", "test"], default="none",
                        help="a few labels of each test user: none, added to training, or a "
                        "separate adaptation split")
    parser.add_argument("--extended", action="store_true",
                        help="keep test texts in training when labelled by training annotators")
    parser.add_argument("--adaptation-share", type=float, default=0.05,
                        help="share of test users' annotations whose texts become adaptation "
                        "texts (default 0.05)")
    parser.add_argument("--reserve", default="auto",
                        help="share of texts reserved for training only, or 'auto' (default)")
    parser.add_argument("--baseline", action="store_true",
                        help="allow the unnamed task without adaptation (user-agnostic baseline)")
    parser.add_argument("--stratify", default=None, metavar="TRAIT",
                        help="draw test users within every value of this trait column")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def add_cli(subparsers) -> None:
    """Register the ``perspectives`` and ``split`` subcommands."""
    parser = subparsers.add_parser(
        "perspectives", help="PERSEVAL split + baselines (+ predictions): per-user/text/trait "
        "metrics",
    )
    _common(parser)
    parser.add_argument("--predictions", default=None,
                        help="per-(user, text) predictions CSV: annotator_id/user_id, "
                        "item_id/text_id, label; must cover exactly the test split")
    parser.add_argument("--own-pairs", action="store_true",
                        help="score --predictions on the pairs in the file (gold from the "
                        "dataset) instead of this split's test set")
    parser.set_defaults(handler=run_perspectives)
    split = subparsers.add_parser("split", help="write a PERSEVAL user-disjoint split as CSV")
    _common(split)
    split.add_argument("--out", required=True, help="output folder")
    split.set_defaults(handler=run_split)
