"""Benchmark: the EM commands (``competence``, ``competence --report``, ``errors``) of this tree
against a reference commit's, on one dataset.

Run: ``python bench/bench_em_cli.py [--reference 82c1ef6] [--repeat 2] [--data md_agreement]``.

Each command runs with ``--json`` in a fresh interpreter, once with this tree's ``hlv_core`` and
once with the reference commit's (extracted with ``git archive``), alternating, best of
``--repeat`` CPU seconds (user + system of the child) a side. The default reference, 82c1ef6, is
the tree before SQUAREM (plain EM iterations to the same fixed point). Asserted before any ratio
is printed: both fits converged; every annotator's accuracy / skill and every report column
within 1e-6 and the same verdicts; the error ranking's scores within 1e-6 (sorted, since labels
whose scores differ by less than that may trade places).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "competence (DS)": ["competence", "{data}", "--json"],
    "competence --report": ["competence", "{data}", "--report", "--json"],
    "errors (ds_posterior)": ["errors", "{data}", "--json", "--top", "100000"],
}


def run(cwd: Path, argv: list[str]) -> tuple[float, float, dict]:
    """(CPU seconds, wall seconds, parsed JSON) of one run with ``cwd`` on the path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "hlv_core", *argv], cwd=cwd, check=True,
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(cwd)}).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, json.loads(out)


def check_same(name: str, new: dict, old: dict) -> str:
    """Assert the two outputs agree (see the module docstring); returns a one-line summary."""
    if name.startswith("competence (DS)"):
        assert new["converged"] and old["converged"], name
        a = np.array([r["accuracy"] for r in new["annotators"]])
        b = np.array([r["accuracy"] for r in old["annotators"]])
        gap = float(np.abs(a - b).max())
        assert gap < 1e-6, (name, gap)
        return (f"iterations {new['n_iter']:,} vs {old['n_iter']:,}; accuracy max difference "
                f"{gap:.1e}")
    if name.startswith("competence --report"):
        new_rows = {r["annotator_id"]: r for r in new["annotators"]}
        old_rows = {r["annotator_id"]: r for r in old["annotators"]}
        assert new_rows.keys() == old_rows.keys(), name
        gap = 0.0
        for key, row in new_rows.items():
            assert row["kind"] == old_rows[key]["kind"], (name, key)
            for column in ("skill", "ds_accuracy", "cell_ratio", "majority_agreement"):
                x, y = row[column], old_rows[key][column]
                if x is None or y is None:
                    assert x is None and y is None, (name, key, column)
                    continue
                gap = max(gap, abs(float(x) - float(y)))
        assert gap < 1e-6, (name, gap)
        return f"verdicts identical; skill, accuracy and ratios within {gap:.1e}"
    new_scores = np.sort([r["score"] for r in new["ranking"]])
    old_scores = np.sort([r["score"] for r in old["ranking"]])
    gap = float(np.abs(new_scores - old_scores).max())
    assert len(new_scores) == len(old_scores) and gap < 1e-6, (name, gap)
    return f"{len(new_scores):,} scores within {gap:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default="82c1ef6")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--data", default="md_agreement")
    args = parser.parse_args()
    data = str(ROOT.parent / "shared" / "data" / args.data)
    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp)
        archive = subprocess.run(["git", "archive", args.reference, "hlv_core"], cwd=ROOT,
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(ref)], input=archive, check=True)
        for name, template in COMMANDS.items():
            argv = [a.format(data=data) for a in template]
            best = {"this tree": float("inf"), "reference": float("inf")}
            outs = {}
            for _ in range(args.repeat):
                for side, cwd in (("reference", ref), ("this tree", ROOT)):
                    load = os.getloadavg()[0]
                    cpu, wall, outs[side] = run(cwd, argv)
                    best[side] = min(best[side], cpu)
                    print(f"  {name:22s} {side:9s} {cpu:6.2f} s CPU, {wall:6.2f} s wall "
                          f"(load {load:.1f})", flush=True)
            summary = check_same(name, outs["this tree"], outs["reference"])
            print(f"{name}: reference {args.reference} {best['reference']:.2f} s CPU, this tree "
                  f"{best['this tree']:.2f} s CPU, {best['reference'] / best['this tree']:.1f}x "
                  f"less; {summary}", flush=True)


if __name__ == "__main__":
    main()
