"""``python -m hlv_core metrics ANNOTATIONS PREDICTIONS [--multilabel] [--json]``.

Evaluates every model in a predictions file against the human judgement distribution of an
annotations file with the hard and soft metrics of Kurniawan et al. (sections 3.1-3.3), computed
by :func:`hlv_core.scoring.score_models` (the Soft vs hard metrics page calls the same function).
"""

from __future__ import annotations

import argparse

import pandas as pd

from .. import soft_metrics as sm
from ..io import DataError, load, load_predictions
from ..scoring import score_models
from ._output import write_json

__all__ = ["add_cli", "metrics_table", "run_metrics"]


def metrics_table(
    annotations: str,
    predictions: str,
    *,
    multilabel: bool | None = None,
    skip_undefined: bool = False,
    n_boot: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Load both files and score every model with :func:`hlv_core.scoring.score_models` (the
    function the Soft vs hard metrics and Case review pages call): one row per (model, metric),
    columns :data:`~hlv_core.scoring.SCORE_COLUMNS` (``lower``/``upper`` are NaN without
    ``n_boot``; ``note`` says why a NaN value is undefined). ``multilabel=None`` follows the
    dataset's task. Raises :class:`~hlv_core.io.DataError` for unreadable or inconsistent files."""
    dataset = load(annotations)
    if str(predictions).lower().endswith(".zip"):
        raise DataError(
            "a zip of predictions (a Codabench res.zip?) is not a predictions table.",
            source=str(predictions),
            fix="score LeWiDi submissions with 'python -m hlv_core lewidi GOLD res.zip'.",
        )
    if dataset.task == "ranking":
        raise DataError(
            "soft/hard metrics need multiclass, rating or multilabel annotations; this file "
            "holds rankings.",
            source=str(annotations),
            fix="use the certainty command for ranked data.",
        )
    preds = load_predictions(predictions, dataset)
    if "annotator_id" in preds.columns:
        raise DataError(
            "per-annotator predictions (a LeWiDi Task B / perspectivist file) are not item-level "
            "distributions; the soft/hard metrics would be meaningless.",
            source=str(predictions),
            fix="score LeWiDi files with 'python -m hlv_core lewidi GOLD SUBMISSION' (and other "
            "per-annotator predictions with 'perspectives').",
        )
    return score_models(dataset, preds, multilabel=multilabel, skip_undefined=skip_undefined,
                        n_boot=n_boot, seed=seed)


def coverage_lines(table: pd.DataFrame) -> list[str]:
    """One line per model: the number of items its scores cover, out of the dataset's items
    (a score on 6 of 8 items must say so), and why a value is undefined (NaN)."""
    lines = []
    for model, rows in table.groupby("model", sort=False):
        n, total = int(rows["n_items"].iloc[0]), int(rows["n_items_total"].iloc[0])
        share = "all" if n == total else f"only {n} of {total} ({n / total:.0%})"
        lines.append(f"coverage: model {model!r} is scored on {share} items"
                     + ("" if n == total else "; the other items have no prediction") + ".")
    undefined = table[table["value"].isna()]
    for _, row in undefined.iterrows():
        lines.append(f"undefined: {row['metric']} of {row['model']!r}: {row['note']}")
    return lines


def run_metrics(args: argparse.Namespace) -> int:
    """Handler of the ``metrics`` sub-command; returns the exit status."""
    table = metrics_table(  # a DataError reaches main: one line, exit 2
        args.annotations,
        args.predictions,
        multilabel=True if args.multilabel else None,
        skip_undefined=args.skip_undefined,
        n_boot=args.bootstrap,
        seed=args.seed,
    )
    if args.json:
        write_json(table)  # a null value's reason is in its row's "note"
    else:
        wide = table.pivot(index="metric", columns="model", values="value")
        wide = wide.reindex([m for m in sm.METRIC_INFO if m in wide.index])
        print(wide.to_string(float_format=lambda x: f"{x:.4f}"))
        for line in coverage_lines(table):
            print(line)
    return 0


def add_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``metrics`` on the ``python -m hlv_core`` sub-parsers."""
    parser = subparsers.add_parser(
        "metrics",
        help="hard and soft metrics of model predictions against human judgements "
        "(Kurniawan et al.)",
        description=__doc__,
    )
    parser.add_argument("annotations", help="annotations file (any format hlv_core.io reads)")
    parser.add_argument("predictions", help="predictions CSV (long, wide or hard labels)")
    parser.add_argument("--multilabel", action="store_true",
                        help="use the multilabel definitions (default: follow the data)")
    parser.add_argument("--json", action="store_true", help="print JSON records instead of a table")
    parser.add_argument("--skip-undefined", action="store_true",
                        help="average over defined classes instead of returning NaN")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="B",
                        help="add percentile bootstrap CIs over items with B resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.set_defaults(handler=run_metrics)
    return parser

