"""Benchmark: the sparse triangle count of sigma's signed graph on a big synthetic crowd file,
the current edge iterator against the previous one (kept below as the reference), same process.

    python bench/bench_triangles_big.py [--rows 3000000] [--repeat 2]

The file is ``bench_bigfile.py``'s seeded generator, written once by a separate process
(``/tmp/hlv_sigma_<rows>.csv``, shared with ``bench_sigma_big.py``). The signed graph is built
once (alpha, pairwise alpha, signs: not timed); then ``balance._edge_triangle_sums`` and the
reference are timed with ``time.process_time``, alternating, best of N, per-edge counts
asserted equal.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core import balance  # noqa: E402
from hlv_core.agreement import alpha_and_pairwise_codes, prepare_alpha_input  # noqa: E402
from hlv_core.io import load  # noqa: E402


def reference_edge_triangle_sums(n, rows, cols, signs):
    """The edge iterator before this change: six full-length bincounts per wedge block."""
    E = len(rows)
    ex = np.zeros(E, dtype=np.int64)
    ey = np.zeros(E, dtype=np.int64)
    if E < 3:
        return ex, ey
    deg = np.bincount(rows, minlength=n) + np.bincount(cols, minlength=n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), deg))] = np.arange(n)
    low_first = rank[rows] < rank[cols]
    src = np.where(low_first, rows, cols)
    dst = np.where(low_first, cols, rows)
    order = np.lexsort((rank[dst], src))
    src, dst, sgn = src[order], dst[order], signs[order]
    lookup = pd.Index(src * n + dst)
    out_deg = np.bincount(src, minlength=n)
    start = np.cumsum(out_deg) - out_deg
    later = out_deg[src] - 1 - (np.arange(E) - start[src])
    cum = np.cumsum(later)
    first_edge = 0
    while first_edge < E:
        base = cum[first_edge - 1] if first_edge else 0
        last = int(np.searchsorted(cum, base + balance._WEDGE_BLOCK, side="right"))
        last = min(max(last, first_edge + 1), E)
        ids = np.arange(first_edge, last)
        cnt = later[ids]
        e1 = np.repeat(ids, cnt)
        offset = np.arange(len(e1)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        e2 = e1 + offset + 1
        e3 = lookup.get_indexer(dst[e1] * n + dst[e2])
        hit = e3 >= 0
        e1, e2, e3 = e1[hit], e2[hit], e3[hit]
        product = (sgn[e1] * sgn[e2] * sgn[e3]).astype(float)
        for e in (e1, e2, e3):
            ex += np.bincount(e, minlength=E)
            ey += np.rint(np.bincount(e, weights=product, minlength=E)).astype(np.int64)
        first_edge = last
    back = np.empty(E, dtype=np.int64)
    back[order] = np.arange(E)
    return ex[back], ey[back]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    path = Path(f"/tmp/hlv_sigma_{args.rows}.csv")
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "bench_bigfile.py"), "--generate",
                        str(path), "--rows", str(args.rows)], check=True)
    data = prepare_alpha_input(load(path).annotations, level="nominal")
    alpha, pairs = alpha_and_pairwise_codes(data, min_shared=1)
    keep = np.isfinite(pairs.alpha)
    rows, cols = pairs.a[keep].astype(np.int64), pairs.b[keep].astype(np.int64)
    signs = np.where(pairs.alpha[keep] >= alpha, 1, -1).astype(np.int64)
    lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    n = data.n_annotators
    print(f"{args.rows:,} rows: {n:,} annotators, {len(lo):,} edges; load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    best = {"reference": np.inf, "current": np.inf}
    results = {}
    for _ in range(args.repeat):
        for name, fn in (("reference", reference_edge_triangle_sums),
                         ("current", balance._edge_triangle_sums)):
            t = time.process_time()
            results[name] = fn(n, lo, hi, signs)
            best[name] = min(best[name], time.process_time() - t)
            print(f"  {name}: {time.process_time() - t:.2f} s CPU (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    for a, b in zip(results["reference"], results["current"], strict=True):
        assert np.array_equal(a, b)
    ex = results["current"][0]
    print(f"{int(ex.sum()) // 3:,} triangles; best of {args.repeat}: reference "
          f"{best['reference']:.2f} s, current {best['current']:.2f} s CPU: "
          f"{best['reference'] / best['current']:.1f}x; per-edge counts equal")


if __name__ == "__main__":
    main()
