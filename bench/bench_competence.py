"""Benchmark of hlv_core.competence against crowd-kit 1.4.2 on md_agreement.

Run: ``python bench/bench_competence.py [--repeat 3] [--iters 20] [--mace-iters 10]``.

md_agreement: 53,764 rows, 10,753 items, 819 annotators, 2 labels. Every comparison runs both
implementations in the same process, best of ``--repeat`` on each side, and asserts that they
agree before printing a ratio:

1. Dawid-Skene and one-coin DS with crowd-kit's default stopping rule (``n_iter=100, tol=1e-5``;
   ours with ``stop="crowdkit"``): posteriors equal to 1e-8.
2. The same with a fixed number of EM iterations (``--iters``; crowd-kit ``tol=-inf``, ours
   ``tol=0``): posteriors equal to 1e-8: the per-iteration speed at identical work.
3. Convergence: our fixed point (tol 1e-10 on T and pi) against crowd-kit's default stop
   (posterior distance and differing labels), and the time ours needs to get there.
4. MACE (VB, one restart of ``--mace-iters`` iterations from crowd-kit's own start values,
   ``random_state=0``): posteriors equal to 1e-6, competences to 1e-6.

crowd-kit (Apache-2.0) is a test/benchmark-only reference, not a dependency of hlv_core.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import best_of  # noqa: E402

from hlv_core import competence as C  # noqa: E402

try:
    import scipy.stats as sps
    from crowdkit.aggregation import MACE, DawidSkene, OneCoinDawidSkene
except ImportError:  # pragma: no cover
    sys.exit("the benchmark needs crowd-kit 1.4.2 (reference only): pip install --no-deps "
             "crowd-kit==1.4.2 tqdm nltk")

DATA = ROOT.parent / "shared" / "data" / "md_agreement" / "annotations.csv"


def timed(fn, repeat):
    out = {}

    def run():
        out["value"] = fn()
    return best_of(run, repeat), out["value"]


def aligned(theirs: pd.DataFrame, ours: C.CompetenceResult) -> np.ndarray:
    theirs = theirs.copy()
    theirs.columns = theirs.columns.astype(str)
    return theirs.reindex(index=ours.posteriors.index, columns=ours.posteriors.columns).to_numpy()


def row(name, t_ours, t_ref, note=""):
    print(f"| {name} | {t_ours * 1000:.0f} ms | {t_ref * 1000:.0f} ms | {t_ref / t_ours:.1f}x | "
          f"{note} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--mace-iters", type=int, default=10)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    df = pd.read_csv(DATA, dtype=str, keep_default_na=False)
    ck = df.rename(columns={"item_id": "task", "annotator_id": "worker"})
    print(f"md_agreement: {len(df)} rows; best of {args.repeat}")
    print("| step | hlv_core | crowd-kit 1.4.2 | ratio | check |")
    print("|---|---|---|---|---|")
    for label, ours_fn, cls in (("DS", C.dawid_skene, DawidSkene),
                                ("one-coin DS", C.one_coin_dawid_skene, OneCoinDawidSkene)):
        t_o, ours = timed(lambda f=ours_fn: f(df, stop="crowdkit", tol=1e-5, max_iter=100),
                          args.repeat)
        t_r, ref = timed(lambda c=cls: c(n_iter=100, tol=1e-5).fit(ck), args.repeat)
        d = np.abs(aligned(ref.probas_, ours) - ours.posteriors.to_numpy()).max()
        assert d < 1e-8, d
        row(f"{label}, crowd-kit stopping rule ({ours.n_iter} iterations)", t_o, t_r,
            f"max posterior diff {d:.1e}")
        n = args.iters
        t_o, ours = timed(lambda f=ours_fn, n=n: f(df, tol=0.0, max_iter=n), args.repeat)
        t_r, ref = timed(lambda c=cls, n=n: c(n_iter=n, tol=-np.inf).fit(ck), args.repeat)
        # both loops run n E-steps (crowd-kit's first M-step comes before its loop)
        d = np.abs(aligned(ref.probas_, ours) - ours.posteriors.to_numpy()).max()
        assert d < 1e-8, d
        row(f"{label}, {n} EM iterations", t_o, t_r, f"max posterior diff {d:.1e}")
        t_fix = time.perf_counter()
        fixed = ours_fn(df, max_iter=3000)
        t_fix = time.perf_counter() - t_fix
        ref = cls().fit(ck)
        gap = np.abs(aligned(ref.probas_, fixed) - fixed.posteriors.to_numpy()).max()
        lab = (ref.labels_.astype(str).reindex(fixed.labels.index) != fixed.labels).mean()
        print(f"| {label}: ours to the fixed point ({fixed.n_iter} iterations, converged "
              f"{fixed.converged}) | {t_fix * 1000:.0f} ms | | | crowd-kit default stops "
              f"{gap:.3f} away in posterior, {100 * lab:.2f}% labels differ |")
    # MACE from crowd-kit's start values
    n_iter = args.mace_iters
    enc = C._encode(df)
    A, K = len(enc.annotators), len(enc.labels)

    # crowd-kit's MACE indexes its strategy counts by sorted worker (groupby) but its parameters
    # by first appearance (factorize): rows sorted by worker, then label, make both orders agree
    ck_sorted = ck.sort_values(["worker", "label", "task"]).reset_index(drop=True)

    def ck_mace():
        return MACE(n_restarts=1, n_iter=n_iter, random_state=0).fit(ck_sorted)

    t_r, ref = timed(ck_mace, 1)
    workers = pd.Index(pd.factorize(ck_sorted["worker"])[1])
    labels_ck = pd.Index(pd.factorize(ck_sorted["label"])[1]).astype(str)
    spam0 = sps.uniform(1, 1.5).rvs(size=(A, 2), random_state=0)
    theta0 = sps.uniform(1, 1.5).rvs(size=(A, K), random_state=0)
    spam0 /= spam0.sum(axis=1, keepdims=True)
    theta0 /= theta0.sum(axis=1, keepdims=True)
    order = workers.get_indexer(pd.Index(enc.annotators))
    lab_order = labels_ck.get_indexer(pd.Index(enc.labels))
    spam0, theta0 = spam0[order], theta0[order][:, lab_order]

    def ours_mace():
        return C._mace_run(enc, np.log(np.full(K, 1.0 / K)), spam0.copy(), theta0.copy(), n_iter,
                           method="vb", alpha=0.5, beta=0.5, strategy_prior=10.0,
                           smoothing=0.01 / K)

    t_o, (spam, theta, ll, _) = timed(ours_mace, args.repeat)
    comp_ref = pd.Series(ref.spamming_[:, 1], index=workers).reindex(enc.annotators).to_numpy()
    dc = np.abs(comp_ref - spam[:, 1]).max()
    T, *_ = C._mace_e_step(enc, np.log(np.full(K, 1.0 / K)), spam, theta)
    post_ref = ref.probas_.copy()
    post_ref.columns = post_ref.columns.astype(str)
    post_ref = post_ref.reindex(index=enc.items, columns=list(enc.labels)).to_numpy()
    dp = np.abs(post_ref - T).max()
    assert dc < 1e-6 and dp < 1e-6, (dc, dp)
    row(f"MACE VB, 1 restart x {n_iter} iterations (same start)", t_o, t_r,
        f"competence diff {dc:.1e}, posterior diff {dp:.1e}")
    t_full = time.perf_counter()
    C.mace(df)
    t_full = time.perf_counter() - t_full
    print(f"| MACE VB, 10 restarts x 50 iterations (ours, seed 0) | {t_full * 1000:.0f} ms | | | |")


if __name__ == "__main__":
    main()
