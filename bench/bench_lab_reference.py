"""Benchmark: the whole Training lab (14 methods x 3 seeds on md_agreement), this tree against the
code of a reference commit, each in fresh child processes on the same box.

    python bench/bench_lab_reference.py                      # reference 70236f6, one round
    python bench/bench_lab_reference.py --repeat 2           # best of 2 per side (~25 min)
    python bench/bench_lab_reference.py --methods MV SmF1 --seeds 0   # quick

The default reference, 70236f6, is the lab as it was when its speed goal (14 x 3 under 200 s
CPU) was set; every later change is in this tree. The reference's ``hlv_core`` is extracted
with ``git archive``; the two sides run alternately (reference first in odd rounds, this tree
first in even ones), each a fresh interpreter that loads the data, runs
``lab.run_lab_full`` and reports its CPU seconds (``time.process_time``, all threads),
wall seconds and peak memory; best of ``--repeat`` per side.

Equality: every non-convex method (JSD, SmF1, SMF1, LA-min, LA-max, AE, AEh) must give the same
metrics bit for bit; the convex ones (ReL, MV, AR, ARh, AL, SL, SLMV), which this tree trains
once per fold and shares across seeds, must lie within :data:`CONVEX_ONCE_TOLERANCE` of the
reference's (the tolerance the lab's tests state). The largest difference per method is
printed beside the reference's own seed-to-seed spread.
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

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "md_agreement"
#: the lab's code when its speed goal was set
GOAL_COMMIT = "70236f6"
#: how far training the convex methods once per fold may move their metrics (the tolerance
#: ``tests/test_lab.py`` states and tests for ``run_lab_full(convex_once=True)``)
CONVEX_ONCE_TOLERANCE = 2e-3


def child(root: str, out: str, methods: list[str], seeds: list[int]) -> None:
    """One measured run with ``root``'s ``hlv_core``: writes the results table to ``out`` and
    prints one JSON line (CPU, wall, load average, peak memory). ``root`` is first on the path
    (``main`` puts it there)."""
    from hlv_core import lab
    from hlv_core.io import load

    dataset = load(DATA)
    load0 = os.getloadavg()[0]
    c0, t0 = time.process_time(), time.perf_counter()
    res = lab.run_lab_full(dataset, methods=methods, seeds=seeds)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    res.results.to_csv(out, index=False)
    print(json.dumps({"cpu": cpu, "wall": wall, "load": [load0, os.getloadavg()[0]],
                      "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))


def run_side(root: Path, out: Path, methods: list[str], seeds: list[int]) -> dict:
    cmd = [sys.executable, __file__, "--child", str(root), str(out), "--methods", *methods,
           "--seeds", *map(str, seeds)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(root)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(reference: pd.DataFrame, new: pd.DataFrame, convex: set[str], tolerance: float
            ) -> pd.DataFrame:
    """Largest |new - reference| per method and the reference's seed spread; asserts the
    non-convex methods equal and the convex ones within ``tolerance``."""
    key = ["method", "seed", "metric"]
    ref = reference[reference["metric"] != "skipped"].set_index(key)["value"]
    cur = new[new["metric"] != "skipped"].set_index(key)["value"]
    assert ref.index.sort_values().equals(cur.index.sort_values()), "different result rows"
    aligned = cur.reindex(ref.index)
    diff = (aligned - ref).abs()
    diff[aligned.isna() & ref.isna()] = 0.0  # undefined on both sides: equal
    diff[aligned.isna() != ref.isna()] = float("inf")  # undefined on one side only
    table = pd.DataFrame({
        "max |this tree - reference|": diff.groupby(level="method").max(),
        "reference seed spread": ref.groupby(level=["method", "metric"])
        .agg(lambda v: v.max() - v.min()).groupby(level="method").max(),
    })
    for method, largest in table["max |this tree - reference|"].items():
        base = method.removesuffix("-soft")
        limit = tolerance if base in convex else 0.0
        assert largest <= limit, f"{method}: metrics moved by {largest:.2e} (allowed {limit:.0e})"
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", default=GOAL_COMMIT)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--child", nargs=2, metavar=("ROOT", "OUT"))
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, args.child[0])
        from hlv_core.training import METHODS

        child(args.child[0], args.child[1], args.methods or list(METHODS), args.seeds)
        return

    sys.path.insert(0, str(ROOT))
    from hlv_core import lab
    from hlv_core.training import METHODS

    methods = args.methods or list(METHODS)
    best = {"reference": None, "this tree": None}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        ref_root = Path(tmp) / "reference"
        ref_root.mkdir()
        archive = subprocess.run(["git", "archive", args.reference, "hlv_core"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(ref_root)], input=archive, check=True)
        sides = [("reference", ref_root), ("this tree", ROOT)]
        print(f"Training lab, {len(methods)} methods x seeds {args.seeds}, md_agreement; "
              f"reference {args.reference}", flush=True)
        for i in range(args.repeat):
            for name, root in (sides if i % 2 == 0 else sides[::-1]):
                out = Path(tmp) / f"{name.replace(' ', '_')}_{i}.csv"
                got = run_side(root, out, methods, args.seeds)
                results[name] = pd.read_csv(out)
                if best[name] is None or got["cpu"] < best[name]["cpu"]:
                    best[name] = got
                print(f"round {i + 1} {name:9s}: {got['cpu']:7.1f} s CPU, {got['wall']:7.1f} s "
                      f"wall, peak {got['peak_gib']:.2f} GiB (load average {got['load'][0]:.1f}"
                      f" -> {got['load'][1]:.1f})", flush=True)
    table = compare(results["reference"], results["this tree"], set(lab.CONVEX_METHODS),
                    CONVEX_ONCE_TOLERANCE)
    with pd.option_context("display.width", 200):
        print(table.to_string(float_format=lambda x: f"{x:.2e}"))
    ref, new = best["reference"]["cpu"], best["this tree"]["cpu"]
    print(f"best of {args.repeat}: reference {ref:.1f} s CPU, this tree {new:.1f} s CPU: "
          f"{ref / new:.2f}x less CPU; non-convex methods' metrics identical, convex ones within "
          f"{CONVEX_ONCE_TOLERANCE:g}")


if __name__ == "__main__":
    main()
