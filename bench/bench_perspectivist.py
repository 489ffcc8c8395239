"""Benchmark of hlv_core.perspectivist.evaluate / bootstrap_users against naive per-group loops.

Run: ``python bench/bench_perspectivist.py``. Data: the real MD-Agreement and MultiPICo
annotations from ../shared/data (random per-(user, text) predictions, 80% agreeing with gold) and
an MHS-like synthetic set (8,000 users, ~135k instances). The naive reference computes the same
per-user / per-text scores with a Python loop over groups (boolean masks per group, the way the
reference library builds one classification report per annotator); results are checked equal.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core import perspectivist as P  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def naive_level(gold: pd.DataFrame, pred: pd.DataFrame, key: str, labels) -> pd.DataFrame:
    """Per-group macro F1 and accuracy with a loop over groups (reference style)."""
    y_all = gold["label"].to_numpy()
    p_all = pred["label"].to_numpy()
    keys = gold[key].to_numpy()
    rows = {}
    for g in np.unique(keys):
        mask = keys == g
        y, p = y_all[mask], p_all[mask]
        f1s = []
        for c in labels:
            tp = np.sum((y == c) & (p == c))
            ng, npred = np.sum(y == c), np.sum(p == c)
            if ng + npred == 0:
                continue
            f1s.append(2 * tp / (ng + npred))
        rows[g] = (np.mean(f1s), np.mean(y == p))
    return pd.DataFrame.from_dict(rows, orient="index", columns=["f1:macro", "accuracy"])


def pandas_level(gold: pd.DataFrame, pred: pd.DataFrame, key: str, labels) -> pd.DataFrame:
    """The same per-group macro F1 and accuracy as a pandas user writes it: one groupby sum of
    per-class indicator columns (loop over the labels only)."""
    y, p = gold["label"].to_numpy(), pred["label"].to_numpy()
    cols = {"hit": (y == p).astype(float)}
    for j, c in enumerate(labels):
        yc, pc = y == c, p == c
        cols[f"tp{j}"] = (yc & pc).astype(float)
        cols[f"n{j}"] = yc.astype(float) + pc.astype(float)
    sums = pd.DataFrame(cols).groupby(gold[key].to_numpy()).sum()
    counts = gold.groupby(key).size().reindex(sums.index)
    f1 = pd.concat([2 * sums[f"tp{j}"] / sums[f"n{j}"].where(sums[f"n{j}"] > 0)
                    for j in range(len(labels))], axis=1)
    return pd.DataFrame({"f1:macro": f1.mean(axis=1), "accuracy": sums["hit"] / counts})


def naive_bootstrap(gold, pred, n_boot, seed):
    """Global macro F1 per replicate by concatenating resampled users' rows."""
    users = np.array(sorted(gold["annotator_id"].unique()))
    rng = np.random.default_rng(seed)
    by_user = {u: idx for u, idx in gold.groupby("annotator_id").indices.items()}
    y_all, p_all = gold["label"].to_numpy(), pred["label"].to_numpy()
    labels = sorted(gold["label"].unique())
    out = []
    for _ in range(n_boot):
        pick = rng.choice(users, size=users.size, replace=True)
        idx = np.concatenate([by_user[u] for u in pick])
        y, p = y_all[idx], p_all[idx]
        f1s = [2 * np.sum((y == c) & (p == c)) / (np.sum(y == c) + np.sum(p == c))
               for c in labels if np.sum(y == c) + np.sum(p == c)]
        out.append(np.mean(f1s))
    return np.array(out)


def timed(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def datasets():
    rng = np.random.default_rng(0)
    for name in ("md_agreement", "multipico"):
        path = DATA / name / "annotations.csv"
        if path.exists():
            yield name, pd.read_csv(path, dtype=str)[["annotator_id", "item_id", "label"]]
    n_users, n_items, n = 8000, 40_000, 135_000
    pairs = pd.DataFrame({"annotator_id": rng.integers(n_users, size=n).astype(str),
                          "item_id": rng.integers(n_items, size=n).astype(str)})
    pairs = pairs.drop_duplicates().reset_index(drop=True)
    pairs["label"] = rng.choice(["0", "1"], len(pairs), p=[0.7, 0.3])
    yield "MHS-like synthetic", pairs


N_BOOT, N_NAIVE = 1000, 50


def main() -> None:
    n_boot, n_naive = N_BOOT, N_NAIVE
    print("perspectivist.evaluate vs pandas groupby and per-group loops (best of 3; 2-core machine)")
    rng = np.random.default_rng(1)
    for name, gold in datasets():
        gold = gold.reset_index(drop=True)
        labels = sorted(gold["label"].unique())
        flip = rng.random(len(gold)) > 0.8
        pred = gold.copy()
        pred.loc[flip, "label"] = rng.choice(labels, int(flip.sum()))
        t_fast, report = timed(lambda g=gold, p=pred, lab=labels: P.evaluate(p, g, labels=lab))
        t_naive, (nu, nt) = timed(lambda g=gold, p=pred, lab=labels: (
            naive_level(g, p, "annotator_id", lab), naive_level(g, p, "item_id", lab)), repeat=1)
        t_pd, (pu, pt) = timed(lambda g=gold, p=pred, lab=labels: (
            pandas_level(g, p, "annotator_id", lab), pandas_level(g, p, "item_id", lab)))
        for ours, ref, col in ((report.per_user, nu, "f1:macro"), (report.per_text, nt, "accuracy"),
                               (report.per_user, pu, "f1:macro"), (report.per_text, pt, "accuracy")):
            np.testing.assert_allclose(ours.loc[ref.index, col], ref[col], rtol=0, atol=1e-12)
        print(f"{name}: {len(gold):,} instances, {gold['annotator_id'].nunique():,} users, "
              f"{gold['item_id'].nunique():,} texts")
        print(f"  evaluate (global+user+text levels): {t_fast:.3f} s; pandas groupby user+text "
              f"levels (best of 3) {t_pd:.3f} s: ratio {t_pd / t_fast:.1f}x; per-group loops (one "
              f"run) {t_naive:.3f} s: {t_naive / t_fast:.1f}x; results asserted equal")
        t_boot, boot = timed(lambda g=gold, p=pred, lab=labels: P.bootstrap_users(
            p, g, labels=lab, n_boot=N_BOOT, seed=0), repeat=1)
        t_nb, _ = timed(lambda g=gold, p=pred: naive_bootstrap(g, p, N_NAIVE, 0), repeat=1)
        per_rep_naive = t_nb / n_naive
        print(f"  bootstrap_users B={n_boot}: {t_boot:.3f} s; naive resampling loop "
              f"{per_rep_naive * 1000:.1f} ms/replicate (x{n_boot} = {per_rep_naive * n_boot:.1f}"
              f" s, measured on {n_naive}); ratio {per_rep_naive * n_boot / t_boot:.1f}x")


if __name__ == "__main__":
    main()
