"""Case review: rank centrality (vectorised transition matrix + one scipy linear solve) against a
naive Python implementation (loops to build P, then power iteration pi <- pi P), and the
insert throughput of the SQLite review store (one transaction per judgement vs one batch),
plus the exact permutation test (M! pairings) used for Table 5.

Run: python bench/bench_review.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import best_of  # noqa: E402  (bench/ is on sys.path when run as a script)

from hlv_core.review import (  # noqa: E402
    ReviewStore,
    metric_correlations,
    rank_centrality,
)


def random_counts(m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Complete comparison graph, 8 judgements per pair (as in seed 000), BT-like outcomes."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=m)
    comps = np.triu(np.full((m, m), 8), 1)
    comps = comps + comps.T
    p_col = 1 / (1 + np.exp(strength[:, None] - strength[None, :]))  # column beats row
    decisive = np.triu(rng.binomial(comps, 0.85), 1)
    col_wins = rng.binomial(decisive, np.triu(p_col, 1))
    wins = col_wins + (decisive - col_wins).T
    return wins, comps


def naive_rank_centrality(wins, comps, tol: float = 1e-13, max_iter: int = 1_000_000):
    m = len(wins)
    A = [[0.0] * m for _ in range(m)]
    degree = [0] * m
    for i in range(m):
        for j in range(m):
            if i != j and comps[i][j] > 0:
                A[i][j] = wins[i][j] / comps[i][j]
                degree[i] += 1
    d_max = max(degree)
    P = [[A[i][j] / d_max for j in range(m)] for i in range(m)]
    for i in range(m):
        P[i][i] = 1.0 - sum(P[i][j] for j in range(m) if j != i)
    pi = [1.0 / m] * m
    for _ in range(max_iter):
        new = [sum(pi[i] * P[i][j] for i in range(m)) for j in range(m)]
        if sum(abs(a - b) for a, b in zip(new, pi, strict=True)) < tol:
            pi = new
            break
        pi = new
    s = sum(pi)
    return np.array([x / s for x in pi])


def main() -> None:
    print("Rank centrality: vectorised (numpy + scipy.linalg.solve) vs naive loops + power "
          "iteration")
    print(f"{'M':>5} {'vectorised':>12} {'naive':>12} {'ratio':>8} {'max |diff|':>11}")
    for m in (14, 50, 100):
        wins, comps = random_counts(m)
        wl, cl = wins.tolist(), comps.tolist()
        t_fast = best_of(lambda w=wins, c=comps: rank_centrality(w, c), 5)
        start = time.perf_counter()
        slow = naive_rank_centrality(wl, cl)
        t_slow = time.perf_counter() - start
        diff = np.abs(rank_centrality(wins, comps) - slow).max()
        print(f"{m:>5} {t_fast * 1e3:>10.2f}ms {t_slow * 1e3:>10.1f}ms "
              f"{t_slow / t_fast:>7.0f}x {diff:>11.1e}")

    print("\nExact permutation test (all M! pairings), 8 metrics")
    import pandas as pd

    for m in (6, 8, 9):
        rng = np.random.default_rng(m)
        models = [f"m{i}" for i in range(m)]
        scores = pd.Series(rng.dirichlet(np.ones(m)), index=models)
        metrics = pd.DataFrame(rng.normal(size=(m, 8)), index=models)
        t = best_of(lambda mt=metrics, s=scores: metric_correlations(mt, s), 1)
        print(f"  M={m} ({np.prod(range(1, m + 1)):,} pairings): {t:.2f} s")

    print("\nReview store inserts (WAL, synchronous=FULL)")
    n = 300
    with tempfile.TemporaryDirectory() as tmp:
        store = ReviewStore(Path(tmp) / "bench.sqlite3")
        start = time.perf_counter()
        for i in range(n):
            store.add("bench", f"item_{i}", "m1", "m2", "A", comment="x")
        t_single = time.perf_counter() - start
        rows = [dict(reviewer="bench", item_id=f"item_{i}", model_a="m1", model_b="m2",
                     choice="B") for i in range(20 * n)]
        start = time.perf_counter()
        store.add_many(rows)
        t_batch = time.perf_counter() - start
        start = time.perf_counter()
        frame = store.judgements()
        t_read = time.perf_counter() - start
        assert len(frame) == 21 * n
    print(f"  add(): {n} judgements, one transaction each: {t_single:.2f} s "
          f"({n / t_single:,.0f} / s)")
    print(f"  add_many(): {20 * n} judgements, one transaction: {t_batch:.3f} s "
          f"({20 * n / t_batch:,.0f} / s); per-row speed-up "
          f"{(t_single / n) / (t_batch / (20 * n)):.0f}x")
    print(f"  judgements(): read {len(frame)} rows into a DataFrame: {t_read * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
