"""Benchmark: the training lab on md_agreement (14 methods x seeds) in one process
(``run_lab_full``, what the CLI runs by default) against the same run on worker processes
(``run_lab_pool`` + ``combine_lab_results``, what the Training lab page runs), and against
what the page ran before (one ``run_lab_full`` per method, AEh training its own ensemble).

Every side runs in this process tree one after the other; the tables are asserted equal
(results, predictions, fits without their seconds). Wall time is what a user waits; CPU time
is this process plus its finished children (``RUSAGE_CHILDREN``), with the load average beside
each side. The workers start with ``spawn`` here (the page and CLI use ``forkserver``, whose
workers are the fork server's children, not this process's, so their CPU would go uncounted);
each spawned worker's imports are counted in its CPU.

    python bench/bench_lab_pool.py                       # 14 methods x seeds 0 1 2, 2 workers
    python bench/bench_lab_pool.py --seeds 0 --jobs 2 --methods MV SL JSD   # quicker
    python bench/bench_lab_pool.py --per-method          # also the page's former loop
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core import lab, lab_pool  # noqa: E402
from hlv_core.io import load  # noqa: E402
from hlv_core.training import METHODS  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "md_agreement"


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(label: str, run):
    load_before = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), _cpu()
    out = run()
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    print(f"{label:58s} {wall:8.1f} s wall {cpu:8.1f} s CPU   load {load_before:.1f} -> "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    return out, wall, cpu


def _same(a: lab.LabResult, b: lab.LabResult) -> None:
    pd.testing.assert_frame_equal(a.results, b.results)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    pd.testing.assert_frame_equal(a.fits.drop(columns="seconds", errors="ignore"),
                                  b.fits.drop(columns="seconds", errors="ignore"))
    assert a.protocol == b.protocol


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--per-method", action="store_true",
                        help="also time the page's former loop (one run per method)")
    args = parser.parse_args()
    lab_pool._START_METHOD = "spawn"  # workers are this process's children: CPU counted
    dataset = load(DATA)
    methods = [m for m in METHODS if m in set(args.methods) | {"MV"}]
    print(f"md_agreement: {dataset.n_items} items; {len(methods)} methods x seeds {args.seeds}; "
          f"{os.cpu_count()} cores", flush=True)
    one, wall_one, cpu_one = _timed(
        "one process (run_lab_full)",
        lambda: lab.run_lab_full(dataset, methods=methods, seeds=args.seeds))
    lab.clear_feature_cache()
    pooled, wall_pool, cpu_pool = _timed(
        f"{args.jobs} worker processes (run_lab_pool)",
        lambda: lab_pool.combine_lab_results(lab_pool.run_lab_pool(
            dataset, methods, seeds=args.seeds, n_jobs=args.jobs)))
    _same(one, pooled)
    print(f"tables equal; wall {wall_one / wall_pool:.2f}x less with {args.jobs} processes, "
          f"CPU {cpu_pool / cpu_one:.2f}x of one process")
    if args.per_method:
        lab.clear_feature_cache()

        def loop():
            return {m: lab.run_lab_full(dataset, methods=[m], seeds=args.seeds, reference=False)
                    for m in methods}

        parts, wall_loop, cpu_loop = _timed("the page before: one run per method", loop)
        _same(lab_pool.combine_lab_results(parts), pooled)
        print(f"tables equal; the page now waits {wall_loop / wall_pool:.2f}x less, "
              f"{cpu_loop / cpu_pool:.2f}x less CPU")


if __name__ == "__main__":
    main()
