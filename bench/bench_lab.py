"""Benchmark of the training lab: all 14 HLV training methods on md_agreement
(10,753 texts, 819 annotators) with 3 seeds, and the vectorised losses vs a naive per-item /
per-annotation Python loop on a subset (same values and gradients, computed in this run).

    python bench/bench_lab.py                 # full run (a few minutes on 2 cores)
    python bench/bench_lab.py --seeds 0 --methods MV SL   # quicker
    python bench/bench_lab.py --before-after --seeds 0 --methods MV ReL SmF1  # old vs new code
    python bench/bench_lab.py --full-before-after     # 14 x 3 as before this round, then now
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core import _linear as L  # noqa: E402
from hlv_core import lab  # noqa: E402
from hlv_core.io import load  # noqa: E402
from hlv_core.training import METHODS  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "md_agreement"


# ----------------------------------------------------------------------------- naive losses
def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def naive_ce(Z, T, w):
    """Weighted CE, one row at a time."""
    value, G = 0.0, np.zeros_like(Z)
    for r in range(len(Z)):
        q = _softmax(Z[r])
        value += w[r] * -sum(T[r, k] * np.log(q[k]) for k in range(Z.shape[1]))
        G[r] = w[r] * (q * T[r].sum() - T[r])
    return value / w.sum(), G / w.sum()


def naive_jsd(Z, T):
    value, G = 0.0, np.zeros_like(Z)
    for r in range(len(Z)):
        q = _softmax(Z[r])
        m = (T[r] + q) / 2
        for k in range(Z.shape[1]):
            if T[r, k] > 0:
                value += 0.5 * T[r, k] * np.log2(T[r, k] / m[k])
            value += 0.5 * q[k] * np.log2(q[k] / m[k])
        g = 0.5 * np.log2(q / m)
        G[r] = q * (g - g @ q)
    return value / len(Z), G / len(Z)


def naive_soft_micro_f1(Z, T):
    Q = np.array([_softmax(z) for z in Z])
    M = D = 0.0
    for r in range(len(Z)):
        for k in range(Z.shape[1]):
            M += min(T[r, k], Q[r, k])
            D += T[r, k] + Q[r, k]
    G = np.zeros_like(Z)
    for r in range(len(Z)):
        a = (Q[r] < T[r]) + 0.5 * (Q[r] == T[r])
        gq = -2 * (a * D - M) / D**2
        G[r] = Q[r] * (gq - gq @ Q[r])
    return 1 - 2 * M / D, G


def naive_la(Z, T, rows, mode):
    items = {}
    for r in range(len(Z)):
        q = _softmax(Z[r])
        loss = -np.log(q[T[r].argmax()])
        best = items.get(rows[r])
        if best is None or (loss < best[0] if mode == "min" else loss > best[0]):
            items[rows[r]] = (loss, r)
    G = np.zeros_like(Z)
    value = 0.0
    for loss, r in items.values():
        value += loss
        G[r] = _softmax(Z[r]) - T[r]
    return value / len(items), G / len(items)


def compare_losses(d, n_items: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Vectorised vs naive loops on the first ``n_items`` items' annotations (ReL-style rows)."""
    from hlv_core.training import annotation_matrix

    items, _, Y = annotation_matrix(d)
    keep = items < n_items
    rows, Y = items[keep], Y[keep]
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=Y.shape)
    P = d.judgements_array()[:n_items]
    Zi = rng.normal(size=P.shape)
    w = rng.uniform(0.5, 2, len(Y))
    cases = [
        ("ce (ReL rows, weighted)", lambda: L.loss_value_grad("ce", Z, Y, weights=w),
         lambda: naive_ce(Z, Y, w)),
        ("jsd (SL items)", lambda: L.loss_value_grad("jsd", Zi, P), lambda: naive_jsd(Zi, P)),
        ("soft_micro_f1 (SL items)", lambda: L.loss_value_grad("soft_micro_f1", Zi, P),
         lambda: naive_soft_micro_f1(Zi, P)),
        ("la_min (annotation rows)", lambda: L.loss_value_grad("la_min", Z, Y, rows=rows),
         lambda: naive_la(Z, Y, rows, "min")),
        ("la_max (annotation rows)", lambda: L.loss_value_grad("la_max", Z, Y, rows=rows),
         lambda: naive_la(Z, Y, rows, "max")),
    ]
    out = []
    for name, fast, slow in cases:
        t_fast = min(_timed(fast)[1] for _ in range(5))
        (vf, gf), _ = _timed(fast)
        (vs, gs), t_slow = _timed(slow)
        out.append({"loss": name, "rows": len(gf), "vectorised_ms": 1e3 * t_fast,
                    "naive_ms": 1e3 * t_slow, "speed-up": t_slow / t_fast,
                    "max |value diff|": abs(vf - vs), "max |grad diff|": np.abs(gf - gs).max()})
    return pd.DataFrame(out)


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def before_after(d, methods: list[str], seed: int) -> None:
    """One seed of ``methods`` three times in this process: the reference (TF-IDF recomputed,
    scipy's plain CSR products: the code before the feature cache and the product paths), then
    the current code with a cold and with a warm feature cache; CPU seconds of each, and the
    results, predictions and iteration counts asserted equal."""
    import os

    runs = {}
    for name, fast, clear in (("reference (no cache, plain products)", False, True),
                              ("current, feature cache cold", True, True),
                              ("current, feature cache warm", True, False)):
        L._FAST_PRODUCTS = fast
        if clear:
            lab.clear_feature_cache()
        c0 = time.process_time()
        res = lab.run_lab_full(d, methods=methods, seeds=[seed])
        runs[name] = (time.process_time() - c0, res)
        print(f"  {name}: {runs[name][0]:.1f} s CPU (load {os.getloadavg()[0]:.1f})", flush=True)
    L._FAST_PRODUCTS = True
    (t_ref, ref), *rest = runs.values()
    cols = ["method", "seed", "l2", "dev_score", "n_iter", "stop", "path_iters"]
    for _, res in rest:
        pd.testing.assert_frame_equal(res.results, ref.results)
        pd.testing.assert_frame_equal(res.predictions, ref.predictions)
        pd.testing.assert_frame_equal(res.fits[cols], ref.fits[cols])
    print("  results, predictions and iteration counts equal in all three runs")
    for name, (t, _) in list(runs.items())[1:]:
        print(f"  reference / {name}: {t_ref / t:.2f}x")
    print(ref.fits[cols + ["seconds"]].to_string(index=False))


#: run_lab_full options and _linear switches of the code before the last speed round: every
#: seed trains every method, numpy's own row reductions, LA's sort
BEFORE = {"options": {"convex_once": False}, "switches": {"_FAST_REDUCTIONS": False}}


def _run_side(d, methods, seeds, before: bool):
    import os

    now = {name: getattr(L, name) for name in BEFORE["switches"]}
    if before:
        for name, value in BEFORE["switches"].items():
            setattr(L, name, value)
    lab.clear_feature_cache()  # both sides compute the TF-IDF features once
    load0 = os.getloadavg()[0]
    c0, t0 = time.process_time(), time.perf_counter()
    res = lab.run_lab_full(d, methods=methods, seeds=seeds,
                           **(BEFORE["options"] if before else {}))
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    for name, value in now.items():
        setattr(L, name, value)
    return res, cpu, wall, (load0, os.getloadavg()[0])


def metric_differences(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Largest |after - before| of every metric per method: over (seed) rows and of the means
    over seeds; both tables of :func:`hlv_core.lab.run_lab` rows."""
    key = ["method", "seed", "metric"]
    b = before[before["metric"] != "skipped"].set_index(key)["value"]
    a = after[after["metric"] != "skipped"].set_index(key)["value"].reindex(b.index)
    diff = (a - b).abs().groupby(level=["method", "metric"], sort=False).max()
    mean_b = b.groupby(level=["method", "metric"], sort=False).mean()
    mean_a = a.groupby(level=["method", "metric"], sort=False).mean()
    spread = b.groupby(level=["method", "metric"], sort=False).agg(lambda v: v.max() - v.min())
    out = pd.DataFrame({"max |diff| per seed": diff, "|diff| of seed mean": (mean_a - mean_b).abs(),
                        "seed spread before": spread})
    return out.unstack("metric")


def full_before_after(d, methods: list[str], seeds: list[int]) -> None:
    """The whole lab twice in this process: as before the last speed round (:data:`BEFORE`),
    then as now; CPU and wall seconds with the load average at the start and end of each, time
    per method, iteration paths and every metric's largest difference."""
    sides = {}
    for name, before in (("before", True), ("after", False)):
        print(f"  running {name} ...", flush=True)
        sides[name] = _run_side(d, methods, seeds, before)
        res, cpu, wall, (l0, l1) = sides[name]
        print(f"  {name}: {cpu:.1f} s CPU, {wall:.1f} s wall (load average {l0:.1f} -> {l1:.1f})",
              flush=True)
    (rb, cb, _, _), (ra, ca, _, _) = sides["before"], sides["after"]
    print(f"\n  CPU before / after: {cb / ca:.2f}x ({cb:.1f} -> {ca:.1f} s; goal < 200 s)")
    per = pd.DataFrame({name: side[0].fits.groupby("method", sort=False)["seconds"].sum()
                        for name, side in sides.items()})
    paths = pd.DataFrame({name: side[0].fits.groupby("method", sort=False)["path_iters"]
                          .agg(" ".join) for name, side in sides.items()})
    with pd.option_context("display.width", 250, "display.max_colwidth", 60):
        print("\n  seconds per method (wall, all seeds) and L-BFGS iterations of every L2 fit:")
        print(per.join(paths.add_suffix(" iterations")).to_string(float_format=lambda x: f"{x:.1f}"))
        diffs = metric_differences(rb.results, ra.results)
        for what in ("max |diff| per seed", "|diff| of seed mean", "seed spread before"):
            print(f"\n  {what}:")
            print(diffs[what].to_string(float_format=lambda x: f"{x:.4f}"))
    print("\n  largest |diff| per seed over all metrics, by method:")
    print(diffs["max |diff| per seed"].max(axis=1).to_string(float_format=lambda x: f"{x:.2e}"))
    for name, side in sides.items():
        notes = lab.cap_notes(side[0].fits)
        print(f"\n  {name}: {len(notes)} methods with capped fits" + "".join(
            f"\n    {n}" for n in notes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--skip-lab", action="store_true", help="only the loss comparison")
    parser.add_argument("--before-after", action="store_true",
                        help="one seed (the first of --seeds) of --methods: reference vs current "
                        "code in this process, results asserted equal")
    parser.add_argument("--full-before-after", action="store_true",
                        help="--methods x --seeds as before the last speed round, then as now, "
                        "in this process: CPU of each and every metric's largest difference")
    args = parser.parse_args()
    t0 = time.perf_counter()
    d = load(DATA)
    print(f"md_agreement: {d.n_items} items, {len(d.annotations)} annotations, "
          f"{d.n_annotators} annotators; load {time.perf_counter() - t0:.1f} s")

    print("\nVectorised losses vs naive per-row / per-item Python loops (first 2000 items):")
    cmp = compare_losses(d)
    with pd.option_context("display.width", 200):
        print(cmp.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    if args.skip_lab:
        return
    if args.full_before_after:
        print(f"\nFull lab before / after: {len(args.methods)} methods x seeds {args.seeds}")
        full_before_after(d, args.methods, args.seeds)
        return
    if args.before_after:
        print(f"\nBefore / after, seed {args.seeds[0]}, methods {' '.join(args.methods)}:")
        before_after(d, args.methods, args.seeds[0])
        return

    print(f"\nLab: {len(args.methods)} methods x seeds {args.seeds} ...", flush=True)
    last = [time.perf_counter()]

    def progress(fraction, message):
        now = time.perf_counter()
        print(f"  [{fraction:5.1%}] {now - t_lab:6.1f} s  {message}", flush=True)
        last[0] = now

    t_lab = time.perf_counter()
    c_lab = time.process_time()
    res = lab.run_lab_full(d, methods=args.methods, seeds=args.seeds, progress=progress)
    total = time.perf_counter() - t_lab
    cpu = time.process_time() - c_lab
    fits = res.fits.groupby("method", sort=False).agg(
        seconds=("seconds", "sum"), per_seed=("seconds", "mean"), l2=("l2", "first"),
        n_iter=("n_iter", "mean"), converged=("converged", "mean"),
        stops=("stop", lambda s: "/".join(sorted(set(map(str, s))))),
        path_iters=("path_iters", lambda s: " ".join(s)),
        all_converged=("path_converged", "all"))
    print("\nTime per method (all seeds; AE and AEh share one model, AEh only predicts); "
          "n_iter / stops of the chosen fits, path_iters: every L2 fit (seed by seed):")
    with pd.option_context("display.width", 250, "display.max_colwidth", 80):
        print(fits.to_string(float_format=lambda x: f"{x:.4g}"))
    print(f"\nWhole run: {total:.1f} s wall ({total / 60:.2f} min), {cpu:.1f} s CPU, for "
          f"{len(args.methods)} methods x {len(args.seeds)} seeds; target < 600 s")
    summary = lab.summarise(res.results)
    wide = summary.pivot(index="method", columns="metric", values="delta")
    wide = wide.reindex(lab.mean_rank(res.results, metrics=lab.PAPER_METRICS[False]).index)
    print("\nMean delta vs MV (paper metrics; methods by mean rank):")
    print(wide[list(lab.PAPER_METRICS[False])].to_string(float_format=lambda x: f"{x:+.4f}"))
    mv = summary[summary["method"] == "MV"].set_index("metric")["mean"]
    print("\nMV scores: " + ", ".join(f"{k} {v:.4f}" for k, v in mv.items()))


if __name__ == "__main__":
    main()
