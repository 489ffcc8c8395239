"""Benchmark: sigma's compiled kernels (``hlv_core._kernels``, numba) against the numpy
reference paths they replace, same process, on the big crowd file.

    python bench/bench_sigma_kernels.py [--rows 10000000] [--pool 100000] [--repeat 3]

The file is ``bench_sigma_big.py``'s crowd file (``/tmp/hlv_sigma_crowd<pool>_<rows>.csv``,
written once by it if missing). Timed with ``time.process_time``, best of N, alternating:

* all-pairs statistics: ``_pair_counts_compiled`` (one sort of the codes, then the per-annotator
  kernel) against ``_pair_counts_instances`` (packed instance keys, their sort, run counts);
* the triangle count: ``balance.count_triangles`` with the kernel against the same function
  under ``reference_only()`` (the numpy wedge blocks);
* the cost estimate: ``balance.estimate_sigma_cost`` both ways.

Every output array is asserted equal (values and dtypes). The first call of each kernel in the
process (loading the cached machine code, or compiling it when the cache is cold) is timed
separately and printed. The load average is printed beside every figure.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import cpu, load_avg  # noqa: E402  (bench/ is on sys.path when run as a script)
from _timing import race as timed_race  # noqa: E402

from hlv_core import _alpha, balance  # noqa: E402
from hlv_core._compiled import kernels, reference_only  # noqa: E402
from hlv_core.io import load  # noqa: E402


def same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


def race(name, new, ref, repeat):
    """Best of ``repeat`` CPU seconds of both sides, alternating; results asserted equal."""
    def equal(a, b) -> bool:
        fields = a if isinstance(a, tuple) else [getattr(a, f) for f in a.__dataclass_fields__]
        ref_fields = b if isinstance(b, tuple) else [getattr(b, f) for f in b.__dataclass_fields__]
        return all(same(x, y) for x, y in zip(fields, ref_fields, strict=True))

    best = timed_race(name, new, ref, repeat, same=equal)
    print(f"{name}: kernel {best['kernel']:.2f} s, numpy {best['numpy']:.2f} s CPU (best of "
          f"{repeat}): {best['numpy'] / best['kernel']:.1f}x; equal", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--pool", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    t, compiled = cpu(kernels)
    if compiled is None:
        sys.exit("numba is not installed: nothing to compare")
    small = balance.signed_adjacency(3, np.array([0, 0, 1]), np.array([1, 2, 2]),
                                     np.array([1, 1, 1]))
    t2, _ = cpu(lambda: balance.count_triangles(small, dense=False))
    print(f"numba's import {t:.2f} s CPU; first kernel call (cached machine code loaded, or "
          f"compiled when the cache is cold) {t2:.2f} s CPU (load average {load_avg()})")
    path = Path(f"/tmp/hlv_sigma_crowd{args.pool}_{args.rows}.csv")
    if not path.exists():
        sys.path.insert(0, str(ROOT / "bench"))
        from bench_sigma_big import generate

        generate(path, args.rows, "crowd", args.pool)
    dataset = load(path)
    data = balance._prepare(dataset.annotations, "nominal", None, True)
    alpha, pairs = _alpha.alpha_and_pairwise_codes(data, min_shared=1)
    keep = np.isfinite(pairs.alpha)
    S = balance.signed_adjacency(data.n_annotators, pairs.a[keep], pairs.b[keep],
                                 np.where(pairs.alpha[keep] >= alpha, 1, -1))
    print(f"{path.name}: {len(data.item):,} rows, {data.n_annotators:,} annotators, "
          f"{len(pairs):,} pairs, {S.nnz // 2:,} edges (load average {load_avg()})")
    race("pair statistics", lambda: _alpha._pair_counts_compiled(data, "nominal", compiled),
         lambda: _alpha._pair_counts_instances(data, "nominal"), args.repeat)

    def reference(fn):
        def run():
            with reference_only():
                return fn()
        return run

    race("triangles", lambda: balance.count_triangles(S),
         reference(lambda: balance.count_triangles(S)), args.repeat)
    race("cost estimate", lambda: balance.estimate_sigma_cost(dataset),
         reference(lambda: balance.estimate_sigma_cost(dataset)), args.repeat)


if __name__ == "__main__":
    main()
