"""Benchmark of hlv_core.balance: trace-identity triangle counts and sigma / sigma_rnd.

Run: ``python bench/bench_balance.py [--quick]``. Every timing is printed next to a naive
reference computed in the same run:

1. signed triangle counts by trace identities vs networkx-based enumeration of every triangle,
   on random signed graphs of growing size and on complete graphs (n = 2,000 included; where
   enumeration would take minutes its time is extrapolated from the per-triangle rate measured
   on the largest enumerated graph and marked ``est.``);
2. sigma on real md_agreement (819 annotators) and MHS-like synthetic data (8,000 annotators x
   40,000 items, ~135,000 labels) vs a per-pair loop calling the ``krippendorff`` package plus
   triangle enumeration (same sigma checked); sigma_rnd x 10 on both.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hlv_core import balance

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def timed(fn, *args, repeat: int = 1, **kwargs):
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, out


def random_signed(n: int, density: float, rng) -> sp.csr_matrix:
    upper = sp.random(n, n, density=density, random_state=rng, format="coo")
    upper = sp.triu(upper, 1).tocoo()
    signs = np.where(rng.random(upper.nnz) < 0.5, 1, -1)
    S = sp.coo_matrix((signs, (upper.row, upper.col)), shape=(n, n))
    return (S + S.T).tocsr()


def enumerate_signed(S: sp.csr_matrix) -> tuple[int, int]:
    """Naive: networkx graph, every triangle visited once (u < v < w), sign product checked."""
    graph = nx.Graph()
    coo = sp.triu(S, 1).tocoo()
    graph.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(),
                                      strict=True))
    bal = unb = 0
    adj = graph.adj
    for u in adj:
        nu = adj[u]
        for v in nu:
            if v <= u:
                continue
            suv = nu[v]["weight"]
            for w in nu.keys() & adj[v].keys():
                if w <= v:
                    continue
                if suv * nu[w]["weight"] * adj[v][w]["weight"] > 0:
                    bal += 1
                else:
                    unb += 1
    return bal, unb


def mhs_like(rng, n_ann=8000, n_items=40000, batch=8, trio_share=0.12, n_busy=1000,
             busy_extra=15) -> pd.DataFrame:
    """Sparse crowd data shaped like MHS (8,000 x 40,000, ~135,000 labels, most
    overlapping pairs share one item): 3 random annotators per item, except that 12% of the
    batches of 8 items are labelled entirely by one trio, and 1,000 items get 15 more
    annotators. Binary labels from item score + a two-camp annotator bias."""
    n_batches = n_items // batch
    trio_batch = rng.random(n_batches) < trio_share
    trios = np.stack([rng.choice(n_ann, 3, replace=False) for _ in range(n_batches)])
    random3 = np.stack([rng.choice(n_ann, 3, replace=False) for _ in range(n_items)])
    item_batch = np.arange(n_items) // batch
    base = np.where(trio_batch[item_batch][:, None], trios[item_batch], random3)
    items = np.repeat(np.arange(n_items), 3)
    anns = base.ravel()
    busy = rng.choice(n_items, n_busy, replace=False)
    extra_items = np.repeat(busy, busy_extra)
    extra_anns = rng.integers(0, n_ann, len(extra_items))
    frame = pd.DataFrame({"item": np.concatenate([items, extra_items]),
                          "ann": np.concatenate([anns, extra_anns])}).drop_duplicates()
    camp_bias = np.where(rng.random(n_ann) < 0.5, -0.8, 0.8)
    score = rng.normal(0, 1.5, n_items)[frame["item"]] + camp_bias[frame["ann"]]
    label = (rng.random(len(score)) < 1 / (1 + np.exp(-score))).astype(int)
    return pd.DataFrame({"item_id": frame["item"].astype(str).to_numpy(),
                         "annotator_id": frame["ann"].astype(str).to_numpy(),
                         "label": label.astype(str)})


def naive_sigma(frame: pd.DataFrame, min_shared: int = 1) -> tuple[float, int, int]:
    """Per-pair loop: krippendorff on each 2-row sub-matrix, then enumeration of triangles."""
    import krippendorff

    codes = {lab: k for k, lab in enumerate(sorted(frame["label"].unique()))}
    wide = frame.assign(v=frame["label"].map(codes).astype(float))
    by_ann = {a: dict(zip(g["item_id"], g["v"], strict=True))
              for a, g in wide.groupby("annotator_id")}
    items = wide.groupby("item_id")["annotator_id"].apply(list)
    overall = krippendorff.alpha(
        value_counts=pd.crosstab(wide["item_id"], wide["v"]).to_numpy(),
        level_of_measurement="nominal",
    )
    pairs = set()
    for anns in items:
        pairs.update(itertools.combinations(sorted(anns), 2))
    ids = {a: i for i, a in enumerate(sorted(by_ann))}
    rows, cols, signs = [], [], []
    domain = sorted(codes.values())
    for a, b in pairs:
        da, db = by_ann[a], by_ann[b]
        shared = da.keys() & db.keys()
        if len(shared) < min_shared:
            continue
        mat = np.array([[da[i] for i in shared], [db[i] for i in shared]])
        if len(np.unique(mat)) < 2:
            continue
        aij = krippendorff.alpha(reliability_data=mat, level_of_measurement="nominal",
                                 value_domain=domain)
        rows.append(ids[a])
        cols.append(ids[b])
        signs.append(1 if aij >= overall else -1)
    S = balance.signed_adjacency(len(ids), np.array(rows), np.array(cols), np.array(signs))
    bal, unb = enumerate_signed(S)
    return (bal / (bal + unb) if bal + unb else float("nan")), bal, unb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller graphs, no MHS-like naive")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    lines = []

    def report(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    report("## 1. Signed triangle counts: trace identities vs enumeration")
    report("| graph | nodes | edges | triangles | trace identities (s) | enumeration (s) | ratio |")
    report("|---|---|---|---|---|---|---|")
    per_triangle = None
    cases = [("random sparse", 1000, 0.01), ("random sparse", 4000, 0.003),
             ("random sparse", 8000, 0.002), ("complete", 100, 1.0), ("complete", 250, 1.0),
             ("complete", 500, 1.0), ("complete", 2000, 1.0)]
    if args.quick:
        cases = [c for c in cases if c[1] <= 1000]
    for kind, n, density in cases:
        if kind == "complete":
            upper = np.triu(np.where(rng.random((n, n)) < 0.5, 1, -1), 1)
            S = sp.csr_matrix(upper + upper.T)
        else:
            S = random_signed(n, density, rng)
        t_fast, counts = timed(balance.count_triangles, S, repeat=3)
        n_tri = counts.n_triangles
        if n_tri <= 3_000_000:
            t_naive, (bal, unb) = timed(enumerate_signed, S)
            assert (bal, unb) == (counts.n_balanced, counts.n_unbalanced), (kind, n)
            if n_tri:
                per_triangle = t_naive / n_tri
            naive = f"{t_naive:.3f}"
        else:
            t_naive = per_triangle * n_tri
            naive = f"{t_naive:.0f} (est.)"
        report(f"| {kind} | {n:,} | {S.nnz // 2:,} | {n_tri:,} | {t_fast:.4f} | {naive} | "
               f"{t_naive / t_fast:,.0f}x |")

    report("\n## 2. sigma and sigma_rnd (all-pairs alpha + signed graph + triangles)")
    report("Defaults (the paper's): min_shared=1, sigma_rnd = 10 matrices A_rnd of 10 composed "
           "split-and-shuffle steps each; 'one step' = the other reading (10 single steps).")
    report("| data | annotators | labels | sigma | sigma (s) | sigma_rnd x10 composed (s) | "
           "sigma_rnd x10 one step (s) | naive loop + enumeration (s) | ratio |")
    report("|---|---|---|---|---|---|---|---|---|")
    datasets = {}
    md = SHARED / "md_agreement" / "annotations.csv"
    if md.exists():
        datasets["md_agreement"] = pd.read_csv(md, dtype=str, keep_default_na=False)
    datasets["MHS-like synthetic"] = mhs_like(np.random.default_rng(1))
    for name, frame in datasets.items():
        t_sigma, res = timed(balance.sigma, frame, repeat=3)
        t_rnd, rnd = timed(balance.sigma_random, frame, n_repeats=10, seed=0)
        assert np.allclose(rnd.alphas, res.alpha, atol=1e-12)
        t_one, one = timed(balance.sigma_random, frame, n_repeats=10, seed=0,
                           procedure="one_step")
        assert np.allclose(one.alphas, res.alpha, atol=1e-12)
        if args.quick and name != "md_agreement":
            naive, ratio = "skipped", ""
        else:
            t_naive, (s_naive, bal, unb) = timed(naive_sigma, frame)
            assert (bal, unb) == (res.n_balanced, res.n_unbalanced), name
            naive, ratio = f"{t_naive:.2f}", f"{t_naive / t_sigma:,.0f}x"
        report(f"| {name} | {frame['annotator_id'].nunique():,} | {len(frame):,} | "
               f"{res.sigma:.3f} (sigma_rnd {rnd.mean:.3f}, one step {one.mean:.3f}; "
               f"{res.n_triangles:,} triangles, {len(res.edges):,} edges) | {t_sigma:.3f} | "
               f"{t_rnd:.3f} | {t_one:.3f} | {naive} | {ratio} |")


if __name__ == "__main__":
    main()
