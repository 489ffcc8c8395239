"""``python -m hlv_core review export|import|rank DB ...``: the expert-review database on the
command line (:mod:`hlv_core.review`).

* ``review export DB OUT.csv [--dataset HASH] [--reviewer NAME]``: judgements as CSV (uuid and
  audit columns included; cells a spreadsheet would run as formulas get a leading ``'``).
* ``review import DB IN.csv``: add judgements; rows already present (same uuid) are skipped;
  every new row records who imported it (``cli:<login name>``), from which file and when.
  The command line is the operator's (admin) tool: whoever can run it can read the file.
* ``review rank DB [--models a,b,c] [--dataset HASH] [--regularize EPS] [--json]``: rank
  centrality scores of the models with both tie conventions (Kurniawan et al.)
  and the judgements-per-pair table.
"""

from __future__ import annotations

import argparse
import getpass
import warnings

from ..io import DataError
from ..review import ReviewStore, human_scores, judgement_sufficiency, pair_table
from ._output import write_json

__all__ = ["add_cli", "run_review"]


def _rank(args: argparse.Namespace) -> int:
    store = ReviewStore(args.db)
    frame = store.judgements(dataset=args.dataset, latest_only=True)
    if args.models:
        models = [m.strip() for m in args.models.split(",") if m.strip()]
    else:
        models = sorted(set(frame["model_a"]) | set(frame["model_b"]))
    if len(models) < 2:
        raise DataError("need judgements of at least two models.", source=str(args.db),
                        fix="add judgements, or name the models with --models a,b.")
    wins, comps = store.pair_counts(models, dataset=args.dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, notes = human_scores(wins, comps, models, regularize=args.regularize)
    pairs = pair_table(frame, models)
    need = judgement_sufficiency(frame, models)
    if not need.enough:  # the same rule as the Case review page
        notes = [f"{need.needed} more judgements needed: {need.rule}; scores below are "
                 "preliminary.", *notes]
    if args.json:
        write_json({"scores": scores, "pairs": pairs, "notes": notes,
                    "n_judgements": int(len(frame)), "enough_judgements": need.enough,
                    "more_judgements_needed": need.needed}, null_reasons=notes)
        return 0
    print(f"{len(frame)} judgements (latest per reviewer, item and pair)")
    for note in notes:
        print(f"note: {note}")
    print("\nRank centrality (higher = better)")
    print(scores.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    print("\nJudgements per pair")
    print(pairs.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


def _operator() -> str:
    """Who runs the import, for the audit columns (``cli:<login name>``)."""
    try:
        return f"cli:{getpass.getuser()}"
    except (OSError, KeyError):  # no login name (e.g. a container without a passwd entry)
        return "cli"


def run_review(args: argparse.Namespace) -> int:
    """Handler of ``review`` (errors go up to :func:`hlv_core.cli.main`)."""
    if args.action == "export":
        n = ReviewStore(args.db).export_csv(args.csv, dataset=args.dataset,
                                            reviewer=args.reviewer)
        print(f"exported {n} judgements to {args.csv}")
        return 0
    if args.action == "import":
        n = ReviewStore(args.db).import_csv(args.csv, imported_by=_operator())
        print(f"imported {n} new judgements into {args.db}")
        return 0
    return _rank(args)


def add_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``review`` on the ``python -m hlv_core`` sub-parsers."""
    parser = subparsers.add_parser(
        "review", help="expert pairwise judgements: export, import, rank (Kurniawan et al. sec. 6)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export", help="write every judgement to CSV")
    export.add_argument("db", help="review database (SQLite file)")
    export.add_argument("csv", help="output CSV path")
    export.add_argument("--dataset", default=None, help="only judgements of this dataset hash")
    export.add_argument("--reviewer", default=None, help="only judgements of this reviewer")
    imp = actions.add_parser("import", help="add judgements from CSV (no duplicates)")
    imp.add_argument("db", help="review database (SQLite file; created if missing)")
    imp.add_argument("csv", help="input CSV path")
    rank = actions.add_parser("rank", help="rank centrality scores of the models")
    rank.add_argument("db", help="review database (SQLite file)")
    rank.add_argument("--models", default="", help="comma-separated models (default: all)")
    rank.add_argument("--dataset", default=None, help="only judgements of this dataset hash")
    rank.add_argument("--regularize", type=float, default=0.0,
                      help="pseudo-judgements each way for every pair (default 0; applied "
                           "automatically when the comparison graph is disconnected)")
    rank.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(handler=run_review)
    return parser

