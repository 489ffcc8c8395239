"""``python -m hlv_core judge alt-test|ceiling|calibration DATA PREDICTIONS [...]``.

Models against the human pool, computed by :mod:`hlv_core.judging` (the Soft vs hard metrics
page calls the same functions):

* ``alt-test``: can the model replace an annotator? The Alternative Annotator Test (Calderon,
  Reichart & Dror, ACL 2025, section 3) for every model and the constant-majority baseline;
* ``ceiling``: every annotator scored against the others (the human ceiling) on the metrics of
  Kurniawan et al., with bootstrap CIs and the model on the same targets;
* ``calibration``: calibration to the human label distribution (Baan et al., EMNLP 2022).

Model labels come from any predictions file ``hlv_core.io.load_predictions`` reads (hard
labels, or the argmax of probabilities; per-annotator labels for the alt-test). For the alt-test
a hard label outside the dataset's labels (an LLM's "None-of-the-above") is kept with a note:
it never matches a human label (Calderon et al., section 3); the other commands refuse it.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from ..io import DataError, ImportReport, load, load_predictions
from ..judging import (
    alt_test_summary,
    ceiling_table,
    run_alt_tests,
    run_calibration,
    run_ceiling,
)
from ._common import add_companion_argument, column_value, companions_from_args
from ._output import write_csv, write_json

__all__ = ["add_cli"]


def _load(args: argparse.Namespace, unknown_labels: str = "refuse"):
    dataset = load(args.data, **companions_from_args(args))
    predictions = None
    if getattr(args, "predictions", None):
        report = ImportReport(str(args.predictions), "predictions")
        predictions = load_predictions(args.predictions, dataset, report=report,
                                       unknown_labels=unknown_labels)
        for note in getattr(report, "notes", []):
            print(f"note: {note}", file=sys.stderr)
        if args.model:
            if args.model not in set(predictions["model"].astype(str)):
                raise DataError(f"no model {args.model!r} in the predictions.",
                                source=str(args.predictions), column="model",
                                fix=f"choose one of {sorted(predictions['model'].unique())}.")
            predictions = predictions[predictions["model"].astype(str) == args.model]
    return dataset, predictions


def _emit(args, table: pd.DataFrame, extra: dict, lines: list[str]) -> None:
    if args.out:
        write_csv(table, args.out)
    if args.json:
        write_json({**extra, "table": table})
        return
    with pd.option_context("display.max_rows", 500, "display.width", 200):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    for line in lines:
        print(line)


def _run_alt_test(args: argparse.Namespace) -> int:
    dataset, predictions = _load(args, unknown_labels="keep")  # never match (section 3)
    results, notes = run_alt_tests(dataset, predictions, epsilon=args.epsilon, q_fdr=args.q,
                                   scoring=args.scoring,
                                   min_items_per_annotator=args.min_items, test=args.test,
                                   min_humans_per_item=args.min_humans)
    summary = alt_test_summary(results)
    per = [res.per_annotator.assign(model=name) for name, res in results.items()
           if not isinstance(res, str)]
    if all(isinstance(r, str) for r in results.values()):
        raise ValueError(next(iter(results.values())))
    lines = [f"note: {n}" for n in notes]
    for name, res in results.items():
        if isinstance(res, str):
            lines.append(f"not tested: {name}: {res}")
            continue
        verdict = "PASSES" if res.passed else "does not pass"
        lines.append(f"{name}: winning rate {res.winning_rate:.3f} -> {verdict} (omega >= 0.5); "
                     f"advantage probability rho {res.rho:.3f}; {res.n_tested} annotator(s) "
                     f"tested at epsilon {res.epsilon:g}")
        lines += [f"warning: {name}: {w}" for w in res.warnings]
        lines += [f"skipped: {name}: annotator {a!r}: {why}" for a, why in res.skipped.items()]
    table = pd.concat(per, ignore_index=True) if per else pd.DataFrame()
    if args.out:
        write_csv(table, args.out)
    if args.json:
        write_json({"summary": summary, "per_annotator": table, "notes": notes,
                    "skipped": {n: r.skipped for n, r in results.items()
                                if not isinstance(r, str)}})
        return 0
    with pd.option_context("display.max_rows", 500, "display.width", 200):
        print(summary.drop(columns=["note"]).to_string(index=False,
                                                       float_format=lambda x: f"{x:.4f}"))
    for line in lines:
        print(line)
    return 0


def _run_ceiling(args: argparse.Namespace) -> int:
    dataset, predictions = _load(args)
    model = args.model
    if predictions is not None and model is None:
        model = str(pd.unique(predictions["model"])[0])
    res, notes = run_ceiling(dataset, predictions, model, n_boot=args.n_boot, seed=args.seed,
                             min_items=args.min_items, min_others=args.min_others,
                             level=args.level)
    table = ceiling_table(res)
    lines = [f"note: {n}" for n in [*notes, *res.notes]]
    lines.append(f"bootstrap: {res.n_boot} replicates, seed {res.seed}, level {res.level:g}")
    if model is not None:
        lines.append(f"model: {model}")
    unscored = res.annotators[~res.annotators["scored"]]
    lines += [f"not scored: {a}: {r}" for a, r in zip(unscored["annotator"], unscored["reason"],
                                                       strict=True)]
    _emit(args, table, {"per_annotator": res.per_annotator, "notes": lines}, lines)
    return 0


def _run_calibration(args: argparse.Namespace) -> int:
    dataset, predictions = _load(args)
    subset = None
    if args.subset:
        column, value = column_value(args.subset, "source=snli")
        subset = {column: value}
    order = args.label_order.split(",") if args.label_order else None
    table = run_calibration(dataset, predictions, temperature=args.temperature,
                            n_bins=args.bins, label_order=order, subset=subset)
    lines = [f"temperature {args.temperature:g} (fixed, applied to the probabilities), "
             f"{args.bins} ECE bins; ECE is measured against the human majority, so even the "
             "oracle row (Q = human distribution) has ECE > 0 on ambiguous items.",
             f"class order: {', '.join(order or [str(x) for x in dataset.labels])}; ties in "
             "RankCS and top-k accuracy go to the later class (stable ascending ranks, as in "
             "Baan et al.'s code), ties in ECE and macro F1 to the earlier class (argmax)."]
    if not args.subset:
        lines += [f"coverage: model {name!r} is scored on only {int(n)} of the "
                  f"{dataset.n_items} items (the others have no prediction)."
                  for name, n in zip(table["model"], table["n_items"], strict=True)
                  if n < dataset.n_items and not str(name).startswith("oracle")]
    _emit(args, table, {"notes": lines}, lines)
    return 0


def add_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``judge`` (with ``alt-test``, ``ceiling``, ``calibration``)."""
    parser = subparsers.add_parser(
        "judge", help="models against the human pool: alt-test, human ceiling, calibration",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="judge_command", required=True)

    def common(p: argparse.ArgumentParser, predictions_required: bool = True) -> None:
        p.add_argument("data", help="annotations (any format hlv_core.io reads)")
        add_companion_argument(p)
        if predictions_required:
            p.add_argument("predictions", help="predictions file (hard labels or probabilities)")
        else:
            p.add_argument("predictions", nargs="?", default=None,
                           help="predictions file (optional)")
        p.add_argument("--model", default=None, help="only this model of the predictions")
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        p.add_argument("--out", default=None, metavar="CSV", help="also write the table as CSV")

    alt = sub.add_parser("alt-test", help="can the model replace an annotator? (Calderon et "
                         "al., ACL 2025)")
    common(alt)
    alt.add_argument("--epsilon", type=float, default=0.2,
                     help="cost-benefit allowance (paper: 0.2 experts, 0.15 skilled, 0.1 crowd)")
    alt.add_argument("--q", type=float, default=0.05, help="FDR level of Benjamini-Yekutieli")
    alt.add_argument("--scoring", default=None, choices=["accuracy", "neg_rmse", "jaccard"],
                     help="alignment score (default: neg_rmse for ratings, else accuracy)")
    alt.add_argument("--min-items", type=int, default=30,
                     help="items an annotator needs to be tested (default 30)")
    alt.add_argument("--min-humans", type=int, default=2,
                     help="annotators an item needs to be used (default 2)")
    alt.add_argument("--test", default="ttest", choices=["ttest", "wilcoxon"],
                     help="one-sided test (wilcoxon: HLV Lens extension, not in the paper)")
    alt.set_defaults(handler=_run_alt_test)

    ceil = sub.add_parser("ceiling", help="every annotator against the others, the model "
                          "beside them")
    common(ceil, predictions_required=False)
    ceil.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates")
    ceil.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    ceil.add_argument("--min-items", type=int, default=30, help="items an annotator needs")
    ceil.add_argument("--min-others", type=int, default=2,
                      help="other annotators an item needs (default 2)")
    ceil.add_argument("--level", type=float, default=0.95,
                      help="bootstrap confidence level (default 0.95)")
    ceil.set_defaults(handler=_run_ceiling)

    calib = sub.add_parser("calibration", help="calibration to the human label distribution "
                           "(Baan et al., EMNLP 2022)")
    common(calib)
    calib.add_argument("--temperature", type=float, default=1.0,
                       help="fixed temperature applied to the probabilities (paper's TS: 2)")
    calib.add_argument("--bins", type=int, default=10, help="ECE bins (default 10)")
    calib.add_argument("--label-order", default=None, metavar="A,B,C",
                       help="class order (the rank tie rule depends on it; default: the "
                       "dataset's inventory)")
    calib.add_argument("--subset", default=None, metavar="COLUMN=VALUE",
                       help="only items whose items-table COLUMN equals VALUE (e.g. "
                       "source=snli)")
    calib.set_defaults(handler=_run_calibration)
    return parser
