"""Benchmark of hlv_core.soft_metrics and hlv_core.simulate against straightforward loops.

    python bench/bench_soft_metrics.py [--naive-pairs 50] [--full-naive]

1. Table 2 simulator, default run (K=10, alpha=beta=10, B=500, 1000 rows, seed 0): end-to-end
   time of ``simulate()``; then the metric part alone, vectorised vs a per-pair / per-row Python
   implementation on the same pre-sampled matrices (first ``--naive-pairs`` pairs, or all with
   ``--full-naive``), with a value check.
2. ``evaluate()`` on MD-Agreement-size input (real judgements from ../shared/data/md_agreement,
   N = 10753 items, K = 2; synthetic model output, seed 0) vs a per-item loop implementation.
3. ``bootstrap_ci()`` (vectorised over resamples) vs a loop calling ``evaluate()`` per resample.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core import soft_metrics as sm  # noqa: E402
from hlv_core.simulate import pair_metrics, simulate  # noqa: E402


def timed(fn, *args, repeat: int = 1, **kwargs):
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best, out


# ----------------------------------------------------------------- naive reference versions
def naive_pair(P: np.ndarray, Q: np.ndarray) -> tuple[float, float, float, float]:
    """A, J, E, S of one pair with Python loops over rows and classes."""
    n, k = P.shape
    hits = soft = jsd = 0.0
    hp, hq = [], []
    for i in range(n):
        p, q = P[i].tolist(), Q[i].tolist()
        hits += p.index(max(p)) == q.index(max(q))
        soft += sum(min(a, b) for a, b in zip(p, q, strict=True))
        d = 0.0
        for a, b in zip(p, q, strict=True):
            m = (a + b) / 2
            if a > 0:
                d += 0.5 * a * math.log2(a / m)
            if b > 0:
                d += 0.5 * b * math.log2(b / m)
        jsd += d
        hp.append(-sum(a * math.log(a) for a in p if a >= 1e-8) / math.log(k))
        hq.append(-sum(b * math.log(b) for b in q if b >= 1e-8) / math.log(k))
    mp, mq = sum(hp) / n, sum(hq) / n
    sxy = sum((x - mp) * (y - mq) for x, y in zip(hp, hq, strict=True))
    sxx = sum((x - mp) ** 2 for x in hp)
    syy = sum((y - mq) ** 2 for y in hq)
    return hits / n, 1 - jsd / n, sxy / math.sqrt(sxx * syy), soft / n


def naive_evaluate(P: np.ndarray, Q: np.ndarray) -> dict[str, float]:
    """Multiclass evaluate() written as per-item / per-class loops."""
    n, k = P.shape
    rows = [(P[i].tolist(), Q[i].tolist()) for i in range(n)]
    tp, fp, fn = [0] * k, [0] * k, [0] * k
    m, qs, ps = [0.0] * k, [0.0] * k, [0.0] * k
    hits = soft = jsd = 0.0
    hp, hq = [], []
    for p, q in rows:
        t, r = p.index(max(p)), q.index(max(q))
        hits += t == r
        if t == r:
            tp[t] += 1
        else:
            fp[r] += 1
            fn[t] += 1
        for c in range(k):
            mn = min(p[c], q[c])
            m[c] += mn
            qs[c] += q[c]
            ps[c] += p[c]
            soft += mn
            mid = (p[c] + q[c]) / 2
            if p[c] > 0:
                jsd += 0.5 * p[c] * math.log2(p[c] / mid)
            if q[c] > 0:
                jsd += 0.5 * q[c] * math.log2(q[c] / mid)
        hp.append(-sum(a * math.log(a) for a in p if a >= 1e-8) / math.log(k))
        hq.append(-sum(b * math.log(b) for b in q if b >= 1e-8) / math.log(k))
    f1 = [2 * tp[c] / (2 * tp[c] + fp[c] + fn[c]) if 2 * tp[c] + fp[c] + fn[c] else 1.0
          for c in range(k)]
    mp, mq = sum(hp) / n, sum(hq) / n
    sxy = sum((x - mp) * (y - mq) for x, y in zip(hp, hq, strict=True))
    sxx = sum((x - mp) ** 2 for x in hp)
    syy = sum((y - mq) ** 2 for y in hq)
    return {
        "hard_accuracy": hits / n,
        "hard_macro_f1": sum(f1) / k,
        "soft_accuracy": soft / n,
        "soft_micro_f1": 2 * sum(m) / (sum(ps) + sum(qs)),
        "soft_macro_f1": sum(2 * m[c] / (ps[c] + qs[c]) for c in range(k)) / k,
        "po_jsd": 1 - jsd / n,
        "entropy_correlation": sxy / math.sqrt(sxx * syy),
    }


def md_agreement_pq() -> tuple[np.ndarray, np.ndarray]:
    from hlv_core.io import load

    path = ROOT.parent / "shared" / "data" / "md_agreement" / "annotations.csv"
    dataset = load(path)
    P = dataset.judgements_array()
    rng = np.random.default_rng(0)
    gamma = rng.standard_gamma(1.0 + 8.0 * P)  # Dirichlet(1 + 8 P_i) rows: a model that
    return P, gamma / gamma.sum(axis=1, keepdims=True)  # roughly follows the humans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--naive-pairs", type=int, default=50)
    parser.add_argument("--full-naive", action="store_true")
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--boot-loop", type=int, default=100)
    args = parser.parse_args()

    print("== 1. Table 2 simulator, default run (K=10, alpha=beta=10, B=500, rows=1000)")
    t_sim, res = timed(simulate, repeat=3)
    print(f"simulate() end to end (sampling + metrics, best of 3): {t_sim:.3f} s; "
          f"J-S = {res.pairs()['J-S']:.4f}")
    rng = np.random.default_rng(0)
    a10 = np.full(10, 10.0)
    B = 500
    P = np.empty((B, 1000, 10))
    Q = np.empty((B, 1000, 10))
    t0 = time.perf_counter()
    for j in range(B):
        P[j] = rng.dirichlet(a10, size=1000)
        Q[j] = rng.dirichlet(a10, size=1000)
    t_sample = time.perf_counter() - t0
    t_vec, vec = timed(lambda: np.concatenate([pair_metrics(P[s:s + 100], Q[s:s + 100])
                                               for s in range(0, B, 100)]), repeat=3)
    n_naive = B if args.full_naive else min(args.naive_pairs, B)
    t_naive, naive = timed(lambda: np.array([naive_pair(P[j], Q[j]) for j in range(n_naive)]))
    diff = np.abs(naive - vec[:n_naive]).max()
    per_pair_naive = t_naive / n_naive
    print(f"sampling only: {t_sample:.3f} s")
    print(f"metrics, vectorised (500 pairs): {t_vec:.3f} s = {1e3 * t_vec / B:.2f} ms/pair")
    print(f"metrics, per-pair/per-row Python ({n_naive} pairs measured): {t_naive:.2f} s = "
          f"{1e3 * per_pair_naive:.1f} ms/pair -> {per_pair_naive * B:.1f} s for 500 pairs"
          f"{'' if n_naive == B else ' (extrapolated)'}")
    print(f"speed-up of the metric part: {per_pair_naive * B / t_vec:.0f}x; end-to-end naive "
          f"(sampling + naive metrics) / simulate(): "
          f"{(t_sample + per_pair_naive * B) / t_sim:.0f}x; max |diff| = {diff:.1e}")

    print("\n== 2. evaluate() on MD-Agreement-size input")
    P2, Q2 = md_agreement_pq()
    print(f"N = {P2.shape[0]}, K = {P2.shape[1]}")
    t_eval, ev = timed(sm.evaluate, P2, Q2, repeat=5)
    t_loop, lp = timed(naive_evaluate, P2, Q2)
    diff2 = max(abs(ev[k] - lp[k]) for k in lp)
    print(f"evaluate() vectorised (best of 5): {1e3 * t_eval:.1f} ms")
    print(f"per-item loop implementation: {1e3 * t_loop:.0f} ms")
    print(f"ratio loop / vectorised: {t_loop / t_eval:.0f}x; max |diff| = {diff2:.1e}")

    print(f"\n== 3. bootstrap_ci() with {args.boot} resamples vs a loop of evaluate()")
    t_boot, _ = timed(sm.bootstrap_ci, P2, Q2, n_boot=args.boot, seed=0)
    draws = np.random.default_rng(0).integers(0, P2.shape[0], size=(args.boot_loop, P2.shape[0]))
    t_bl, _ = timed(lambda: [sm.evaluate(P2[d], Q2[d]) for d in draws])
    per = t_bl / args.boot_loop
    print(f"bootstrap_ci vectorised: {t_boot:.2f} s for {args.boot} resamples")
    print(f"loop of evaluate(): {t_bl:.2f} s for {args.boot_loop} resamples -> "
          f"{per * args.boot:.1f} s for {args.boot} (extrapolated); ratio {per * args.boot / t_boot:.1f}x")


if __name__ == "__main__":
    main()
