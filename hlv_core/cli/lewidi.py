"""``python -m hlv_core lewidi GOLD SUBMISSION [SUBMISSION ...] [--task soft|pe|hard] [--json]``.

Official LeWiDi score of a submission TSV or a Codabench ``res.zip`` against the organisers'
gold JSON (2025: CSC, MP, Paraphrase, VariErrNLI, Task A ``soft`` and Task B ``pe``; 2023:
cross-entropy ``soft`` and micro F1 ``hard``), with the organisers' targets and rounding
(:mod:`hlv_core.lewidi`). GOLD may be a folder of gold files. The task comes
from the file name (``_soft`` / ``_pe``) unless ``--task`` is given.

With ``--json`` and one TSV it prints one JSON object (``dataset, task, metric, score,
n_items``, ``warnings``, ...), with a ``res.zip`` a JSON list. ``--bootstrap B`` adds a
percentile CI over items (``ci_lower``, ``ci_upper``); several submissions give a leaderboard
per dataset and task with CIs and a paired bootstrap test between neighbouring ranks.
Any refusal (partial file, unknown id, wrong vector length, ...) exits 2 with one line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from .. import lewidi
from ._output import write_csv, write_json

__all__ = ["add_cli", "run_lewidi"]


def _system_name(path: str, used: set[str]) -> str:
    base = Path(path).stem or "submission"
    name, k = base, 2
    while name in used:
        name, k = f"{base}-{k}", k + 1
    used.add(name)
    return name


def run_lewidi(args: argparse.Namespace) -> int:
    """Handler of the ``lewidi`` sub-command; a refusal goes up to :func:`hlv_core.cli.main`
    (one line, exit 2)."""
    runs = []
    used: set[str] = set()
    for path in args.submission:
        results = lewidi.score_results(args.gold, path, args.task)
        for skipped in getattr(results, "skipped", []):
            print(f"note: {skipped} skipped (no gold file for its dataset)", file=sys.stderr)
        runs.append((_system_name(path, used), path, results))
    if args.items:
        frames = []
        for system, _, results in runs:
            for r in results:
                frames.append(r.items().assign(system=system))
        write_csv(pd.concat(frames, ignore_index=True), args.items)
    if len(runs) > 1:
        board, tests = lewidi.leaderboard([(s, r) for s, _, r in runs],
                                          n_boot=args.bootstrap or 1000, seed=args.seed)
        if args.json:
            write_json({"board": board, "tests": tests})
        else:
            with pd.option_context("display.width", 200, "display.max_rows", 500):
                print(board.drop(columns=["file", "warnings", "n_boot", "seed", "level"])
                      .to_string(index=False))
                if not tests.empty:
                    print("\nPaired bootstrap tests between neighbouring ranks")
                    print(tests.drop(columns=["n_boot", "level"]).to_string(index=False))
        return 0
    results = runs[0][2]
    rows = []
    for r in results:
        row = r.summary()
        if args.bootstrap:
            ci = lewidi.bootstrap_ci(r.values, n_boot=args.bootstrap, seed=args.seed)
            row.update(ci_lower=ci["lower"], ci_upper=ci["upper"], n_boot=args.bootstrap,
                       seed=args.seed)
        rows.append(row)
    is_zip = hasattr(results, "skipped")  # a res.zip gives a list with skipped entries
    if args.json:
        write_json(rows if is_zip else rows[0])
        return 0
    columns = ["dataset", "split", "task", "metric", "score", "n_items"]
    if args.bootstrap:
        columns += ["ci_lower", "ci_upper"]
    table = pd.DataFrame(rows)[columns]
    with pd.option_context("display.width", 200, "display.float_format", "{:.6g}".format):
        print(table.to_string(index=False))
    for row in rows:
        for warning in row["warnings"]:
            print(f"warning ({row['dataset']} {row['task']}): {warning}", file=sys.stderr)
    return 0


def add_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``lewidi`` on the ``python -m hlv_core`` sub-parsers."""
    parser = subparsers.add_parser(
        "lewidi", help="official LeWiDi 2023/2025 score of a submission TSV or res.zip",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("gold", help="gold JSON (<Dataset>_test.json) or a folder of them")
    parser.add_argument("submission", nargs="+",
                        help="submission TSV or Codabench res.zip (several: a leaderboard)")
    parser.add_argument("--task", choices=["soft", "pe", "hard"], default=None,
                        help="task (default: from the file name, _soft / _pe)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="B",
                        help="percentile bootstrap CI over items with B resamples "
                        "(leaderboards default to 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--items", metavar="CSV", default=None,
                        help="write the per-item values to this CSV")
    parser.set_defaults(handler=run_lewidi)
    return parser
