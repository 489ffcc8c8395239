"""Benchmark: the sparse triangle count of sigma's signed graph on a big synthetic crowd file,
``balance.count_triangles`` against the previous edge iterator and edge ordering (kept below as
the reference), same process.

    python bench/bench_triangles_big.py [--rows 3000000] [--repeat 2]

The file is ``bench_bigfile.py``'s seeded generator, written once by a separate process
(``/tmp/hlv_sigma_<rows>.csv``, shared with ``bench_sigma_big.py``). The signed graph is built
once (alpha, pairwise alpha, signs, adjacency: not timed); then ``count_triangles`` and the
reference are timed with ``time.process_time``, alternating, best of N, every count (totals,
per node, per edge and the edge order) asserted equal.
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
from scipy import sparse as sp

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


def reference_count_triangles(S):
    """``balance.count_triangles`` (sparse path) with the reference iterator and the final
    ``np.lexsort`` of the edges, as before this change."""
    S = balance._check_signed(S)
    n = S.shape[0]
    upper = sp.triu(S, 1).tocoo()
    rows, cols = upper.row.astype(np.int64), upper.col.astype(np.int64)
    ex, ey = reference_edge_triangle_sums(n, rows, cols, upper.data.astype(np.int64))
    node_x = np.rint(np.bincount(rows, weights=ex, minlength=n)
                     + np.bincount(cols, weights=ex, minlength=n)).astype(np.int64)
    node_y = np.rint(np.bincount(rows, weights=ey, minlength=n)
                     + np.bincount(cols, weights=ey, minlength=n)).astype(np.int64)
    order = np.lexsort((cols, rows))
    rows, cols, ex, ey = rows[order], cols[order], ex[order], ey[order]
    tr_a3, tr_s3 = int(node_x.sum()), int(node_y.sum())
    return balance.TriangleCounts(
        n_triangles=tr_a3 // 6, n_balanced=(tr_a3 + tr_s3) // 12,
        n_unbalanced=(tr_a3 - tr_s3) // 12, node_balanced=(node_x + node_y) // 4,
        node_unbalanced=(node_x - node_y) // 4, edge_rows=rows, edge_cols=cols,
        edge_balanced=(ex + ey) // 2, edge_unbalanced=(ex - ey) // 2)


FIELDS = ("n_triangles", "n_balanced", "n_unbalanced", "node_balanced", "node_unbalanced",
          "edge_rows", "edge_cols", "edge_balanced", "edge_unbalanced")


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
    S = balance.signed_adjacency(n, lo, hi, signs)
    best = {"reference": np.inf, "current": np.inf}
    results = {}
    for _ in range(args.repeat):
        for name, fn in (("reference", reference_count_triangles),
                         ("current", lambda S: balance.count_triangles(S, dense=False))):
            t = time.process_time()
            results[name] = fn(S)
            best[name] = min(best[name], time.process_time() - t)
            print(f"  {name}: {time.process_time() - t:.2f} s CPU (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    for field in FIELDS:
        assert np.array_equal(getattr(results["reference"], field),
                              getattr(results["current"], field)), field
    got = results["current"]
    print(f"{got.n_triangles:,} triangles ({got.n_balanced:,} balanced); best of "
          f"{args.repeat}: reference {best['reference']:.2f} s, current {best['current']:.2f} s "
          f"CPU: {best['reference'] / best['current']:.1f}x; every count equal")

if __name__ == "__main__":
    main()
