"""Benchmark: vectorised certainty samplers vs a straightforward per-case loop (seed 001).

Run: ``python bench/bench_certainty.py [--samples S] [--loop-cases M]``. Uses the 1,947-case
dermatology partial rankings (../shared/data/dermatology_ddx). Prints wall times and the per-sample
cost ratio against per-case / per-reader loop implementations of the same samplers, run in the
same process (the loop PL sampler runs on the first M cases only; its cost is per case-sample).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core import certainty as ce  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "dermatology_ddx"


def loop_prirn(selectors, K, r, S, a0, rng, depth=3):
    """Per case: IRN by loops over readers and blocks, rng.dirichlet, then the top classes of
    every sample (argsort) and the top-1 certainty: the straightforward implementation."""
    cert = np.empty(len(selectors))
    for i, case in enumerate(selectors):
        w = np.zeros(K)
        for reader in case:
            for b, block in enumerate(reader):
                for c in block:
                    w[c] += 1.0 / ((b + 1) * len(block))
        w /= w.sum()
        x = rng.dirichlet(r * w + a0, size=S)
        top = np.argsort(-x, axis=1, kind="stable")[:, :depth]
        cert[i] = np.bincount(top[:, 0]).max() / S
    return cert


def loop_pl_case(case, K, reps, S, burn_in, rng):
    """Reference-style Gibbs for one case: readers one by one, block orderings by enumerating
    permutations, unranked classes ordered by PL sampling; super-class for unranked classes."""
    ranked = sorted({c for reader in case for block in reader for c in block})
    idx = {c: j for j, c in enumerate(ranked)}
    L = len(ranked) + 1
    readers = [[[idx[c] for c in block] for block in reader] for reader in case] * reps
    lam = rng.gamma(1.0, size=L)
    keep = []
    for it in range(burn_in + S):
        tau = np.zeros(L)
        for reader in readers:
            order = []
            for block in reader:
                perms = list(itertools.permutations(block))
                logp = []
                for perm in perms:
                    pool = lam.sum() - lam[order].sum()
                    lp = 0.0
                    for c in perm:
                        lp += np.log(lam[c]) - np.log(pool)
                        pool -= lam[c]
                    logp.append(lp)
                logp = np.array(logp)
                p = np.exp(logp - logp.max())
                order += list(perms[rng.choice(len(perms), p=p / p.sum())])
            rest = [c for c in range(L) if c not in order]
            while rest:
                p = lam[rest] / lam[rest].sum()
                c = rest.pop(rng.choice(len(rest), p=p))
                order.append(c)
            rates = lam.sum() - np.concatenate([[0.0], np.cumsum(lam[order])[:-1]])
            arrival = np.cumsum(rng.exponential(size=L) / np.maximum(rates, 1e-12))
            tau[order] += arrival
        lam = rng.gamma(1.0 + len(readers), size=L) / (1.0 + tau)
        if it >= burn_in:
            keep.append(lam / lam.sum())
    return np.array(keep)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--pl-samples", type=int, default=100)
    parser.add_argument("--loop-cases", type=int, default=20)
    parser.add_argument("--loop-cases-prirn", type=int, default=100)
    args = parser.parse_args()
    selectors = json.loads((DATA / "dermatology_selectors.json").read_text())
    K = 419
    rels = [1, 3, 5, 10, 20]
    N = len(selectors)
    print(f"dermatology: {N} cases, {K} classes; reliabilities {rels}")

    # PrIRN: whole sweep with the compact sampler (top classes only), summaries included
    risk = np.loadtxt(DATA / "dermatology_risks.txt", dtype=int) if (
        DATA / "dermatology_risks.txt").exists() else None
    rng = np.random.default_rng(0)
    preds = {f"random_{j}": rng.random((N, K)) for j in range(3)}
    t = time.perf_counter()
    res = ce.sweep("prirn", selectors, rels, n_samples=args.samples, seed=0, n_classes=K,
                   risk=risk)
    t_prirn = time.perf_counter() - t
    t = time.perf_counter()
    ce.sweep("prirn", selectors, rels, n_samples=args.samples, seed=0, n_classes=K, risk=risk,
             predictions=preds, ao_depth=5)
    t_prirn_pred = time.perf_counter() - t
    print(f"PrIRN compact sweep, {args.samples} samples x {len(rels)} reliabilities, top-1/2/3 "
          f"certainty + risk: {t_prirn:.2f} s; with 3 models' UA top-k (set) accuracy and UA "
          f"average overlap@5 (depth 5): {t_prirn_pred:.2f} s")
    M = args.loop_cases_prirn
    sub = selectors[:M]
    t = time.perf_counter()
    for r in rels:
        x = ce.sample_plausibilities("prirn", sub, reliability=r, n_samples=args.samples,
                                     seed=0, n_classes=K)
        ce.certainty_from_top(ce.topk_sets(x, 3))
        del x
    t_dense = (time.perf_counter() - t) * N / M
    t = time.perf_counter()
    for r in rels:
        cert_loop = loop_prirn(sub, K, r, args.samples, 0.1, rng)
    t_loop = (time.perf_counter() - t) * N / M
    print(f"  dense vectorised (N, S, K) sampler + certainty (extrapolated from {M} cases): "
          f"{t_dense:.1f} s -> compact is {t_dense / t_prirn:.0f}x faster")
    print(f"  per-case loop (rng.dirichlet + argsort, extrapolated from {M} cases): "
          f"{t_loop:.1f} s -> compact is {t_loop / t_prirn:.0f}x faster")
    top = ce.sample_top_classes("prirn", sub, reliability=rels[-1], n_samples=args.samples,
                                seed=1, n_classes=K)
    print(f"  check r={rels[-1]}, first {M} cases: mean top-1 certainty compact "
          f"{ce.certainty_from_top(top).mean():.4f} vs loop {cert_loop.mean():.4f}; whole "
          f"sweep r={rels[-1]}: {res.certainty.query('k == 1')['mean_certainty'].iloc[-1]:.4f}")

    # PL: vectorised Gibbs (compact, before densifying) vs per-case loop
    S = args.pl_samples
    for reps in (1, 5):
        t = time.perf_counter()
        _, local, info = ce.pl_gibbs(selectors, K, repetitions=reps, n_samples=S, seed=0,
                                     burn_in=100, n_chains=10)
        t_vec = time.perf_counter() - t
        iters = info["burn_in"] + info["iterations_per_chain"]
        per_iter_vec = t_vec / (iters * info["n_chains"] * N)  # per case-chain-iteration
        M = args.loop_cases
        rng = np.random.default_rng(0)
        t = time.perf_counter()
        for case in selectors[:M]:
            loop_pl_case(case, K, reps, 20, 10, rng)
        t_loop = time.perf_counter() - t
        per_iter_loop = t_loop / (30 * M)
        t_dense = time.perf_counter()
        ce.sample_plausibilities("pl", selectors, reliability=reps, n_samples=S, seed=0,
                                 n_classes=K)
        t_dense = time.perf_counter() - t_dense
        t_top = time.perf_counter()
        ce.sample_top_classes("pl", selectors, reliability=reps, n_samples=S, seed=0,
                              n_classes=K, depth=3)
        t_top = time.perf_counter() - t_top
        print(f"PL r={reps}: vectorised Gibbs {t_vec:.1f} s for {N} cases x {S} samples "
              f"({iters} iterations x {info['n_chains']} chains; mean ESS "
              f"{np.nanmean(info['ess']):.0f}); with dense (N,S,K) output {t_dense:.1f} s; "
              f"with top-3 output (chunked split) {t_top:.1f} s. "
              f"Per case-iteration: vectorised {per_iter_vec * 1e6:.1f} us, loop "
              f"{per_iter_loop * 1e6:.0f} us (first {M} cases) -> {per_iter_loop / per_iter_vec:.0f}x")


if __name__ == "__main__":
    main()
