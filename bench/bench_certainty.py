"""Benchmark: vectorised certainty samplers vs a straightforward per-case loop (seed 001).

Run: ``python bench/bench_certainty.py [--samples S] [--repeat N] [--skip-pl]``. Uses the
1,947-case dermatology partial rankings (../shared/data/dermatology_ddx). The PrIRN sweep runs at
the Certainty page's 10 finite reliabilities (goal: < 5 s CPU for 1,000 samples); best of
N on both sides of every ratio (the references extrapolated from their first cases); the PL sweep
at the page's PL reliabilities beside it, then the per-case-iteration cost of the Gibbs sampler
against a per-case loop (the loop PL sampler runs on the first M cases only).
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


def best(fn, repeat: int) -> tuple[float, float, object]:
    """Best CPU (process_time) and best wall time of ``repeat`` calls, and the last result."""
    cpu, wall, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
    return cpu, wall, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--pl-samples", type=int, default=100)
    parser.add_argument("--loop-cases", type=int, default=20)
    parser.add_argument("--loop-cases-prirn", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-pl", action="store_true")
    args = parser.parse_args()
    selectors = json.loads((DATA / "dermatology_selectors.json").read_text())
    K = 419
    rels = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200]  # the Certainty page's finite stops
    N = len(selectors)
    print(f"dermatology: {N} cases, {K} classes; PrIRN reliabilities {rels}; best of "
          f"{args.repeat} (CPU = process_time, wall = perf_counter)")

    # PrIRN: whole sweep with the compact sampler (top classes only), summaries included
    risk = np.loadtxt(DATA / "dermatology_risks.txt", dtype=int) if (
        DATA / "dermatology_risks.txt").exists() else None
    rng = np.random.default_rng(0)
    preds = {f"random_{j}": rng.random((N, K)) for j in range(3)}
    c_prirn, w_prirn, res = best(lambda: ce.sweep(
        "prirn", selectors, rels, n_samples=args.samples, seed=0, n_classes=K, risk=risk),
        args.repeat)
    c_pred, w_pred, _ = best(lambda: ce.sweep(
        "prirn", selectors, rels, n_samples=args.samples, seed=0, n_classes=K, risk=risk,
        predictions=preds, ao_depth=5), args.repeat)
    print(f"PrIRN compact sweep, {args.samples} samples x {len(rels)} reliabilities, top-1/2/3 "
          f"certainty + risk: {c_prirn:.2f} s CPU ({w_prirn:.2f} s wall); with 3 models' UA top-k "
          f"(set) accuracy and UA average overlap@5 (depth 5): {c_pred:.2f} s CPU "
          f"({w_pred:.2f} s wall)")
    M = args.loop_cases_prirn
    sub = selectors[:M]

    def dense():
        for r in rels:
            x = ce.sample_plausibilities("prirn", sub, reliability=r, n_samples=args.samples,
                                         seed=0, n_classes=K)
            ce.certainty_from_top(ce.topk_sets(x, 3))
            del x

    def loop():
        loop_rng = np.random.default_rng(0)
        return [loop_prirn(sub, K, r, args.samples, 0.1, loop_rng) for r in rels]

    c_dense = best(dense, min(args.repeat, 2))[0] * N / M
    c_loop, _, cert_loop = best(loop, min(args.repeat, 2))
    c_loop *= N / M
    print(f"  dense vectorised (N, S, K) sampler + certainty (CPU, extrapolated from {M} cases): "
          f"{c_dense:.1f} s -> compact is {c_dense / c_prirn:.0f}x faster")
    print(f"  per-case loop (rng.dirichlet + argsort, CPU, extrapolated from {M} cases): "
          f"{c_loop:.1f} s -> compact is {c_loop / c_prirn:.0f}x faster")
    top = ce.sample_top_classes("prirn", sub, reliability=rels[-1], n_samples=args.samples,
                                seed=1, n_classes=K, prior=0.1)  # the loop's a0
    compact_mean = ce.certainty_from_top(top).mean()
    sd = np.sqrt(0.25 / (args.samples * M))
    print(f"  check r={rels[-1]}, first {M} cases: mean top-1 certainty compact "
          f"{compact_mean:.4f} vs loop {cert_loop[-1].mean():.4f} (MC sd of each <= {sd:.4f}); "
          f"whole sweep r={rels[-1]}: "
          f"{res.certainty.query('k == 1')['mean_certainty'].iloc[-1]:.4f}")
    assert abs(compact_mean - cert_loop[-1].mean()) < 6 * sd * np.sqrt(2)
    if args.skip_pl:
        return

    # PL sweep at the page's PL reliabilities (integers up to 10), compact output
    pl_rels = [1, 2, 3, 5, 10]
    c_pl, w_pl, _ = best(lambda: ce.sweep("pl", selectors, pl_rels, n_samples=args.pl_samples,
                                          seed=0, n_classes=K, risk=risk), 1)
    print(f"PL sweep, {args.pl_samples} samples x reliabilities {pl_rels} (Gibbs, 100 burn-in, "
          f"10 chains; top-1/2/3 certainty + risk; one run): {c_pl:.1f} s CPU ({w_pl:.1f} s wall)")

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
        t_top = time.perf_counter()
        ce.sample_top_classes("pl", selectors, reliability=reps, n_samples=S, seed=0,
                              n_classes=K, depth=3)
        t_top = time.perf_counter() - t_top
        print(f"PL r={reps}: vectorised Gibbs {t_vec:.1f} s for {N} cases x {S} samples "
              f"({iters} iterations x {info['n_chains']} chains; mean ESS "
              f"{np.nanmean(info['ess']):.0f}); with top-3 output (chunked split) {t_top:.1f} s. "
              f"Per case-iteration: vectorised {per_iter_vec * 1e6:.1f} us, loop "
              f"{per_iter_loop * 1e6:.0f} us (first {M} cases) -> {per_iter_loop / per_iter_vec:.0f}x")


if __name__ == "__main__":
    main()
