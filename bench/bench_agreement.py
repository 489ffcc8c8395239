"""Benchmark of hlv_core.agreement. Run: ``python bench/bench_agreement.py``.

Prints times and ratios against reference implementations computed in the same run:

1. overall alpha: ours (long -> value counts) vs the ``krippendorff`` package (its value-counts route
   and its dense reliability-matrix route);
2. all-pairs alpha: ours (sparse closed forms) vs a per-pair loop calling the package on the two
   rows restricted to the shared items (md_agreement: every overlapping pair; MHS-like: a random
   sample of pairs, extrapolated);
3. bootstrap CI of alpha (1,000 replicates): vectorised vs a loop over replicates;
4. boot-match and friends with 1,000 replicates on 884 items vs a plain Python loop (sampled
   replicates, extrapolated);
5. all-pairs Cohen's kappa (md_agreement): ours (sparse float64 products) vs a loop over pairs
   calling scikit-learn's ``cohen_kappa_score`` on each pair's shared items.

Every ratio is best-of-N on both sides (``--repeat``, default 3; the kappa loop best of 2) and
every fast path's result is asserted equal to its reference in the same run.

``krippendorff`` is GPL and used here only as the reference; it is not a dependency of hlv_core.
"""

from __future__ import annotations

import random
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core._alpha import bootstrap_alpha_from_counts, prepare_alpha_input  # noqa: E402
from hlv_core.agreement import (  # noqa: E402
    alpha_and_pairwise,
    alpha_and_pairwise_codes,
    alpha_from_counts,
    krippendorff_alpha,
    multilabel_agreement,
    pairwise_alpha,
    pairwise_alpha_arrays,
    pairwise_cohen_kappa,
    simulate_multilabel,
)

try:
    import krippendorff
except ImportError:  # pragma: no cover
    sys.exit("the benchmark needs the krippendorff package (reference only): pip install krippendorff")

DATA = ROOT.parent / "shared" / "data"


REPEAT = 3


def timed(fn, repeat: int | None = None):
    best, out = float("inf"), None
    for _ in range(REPEAT if repeat is None else repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def mhs_like(seed: int = 0) -> pd.DataFrame:
    """8,000 annotators, 40,000 items, ~135,000 binary labels (skewed annotator activity)."""
    rng = np.random.default_rng(seed)
    n_ann, n_items, n_labels = 8000, 40000, 135_000
    activity = rng.pareto(1.5, n_ann) + 1.0
    activity /= activity.sum()
    per_item = rng.multinomial(n_labels - 2 * n_items, np.full(n_items, 1 / n_items)) + 2
    items = np.repeat(np.arange(n_items), per_item)
    anns = rng.choice(n_ann, size=len(items), p=activity)
    frame = pd.DataFrame({"item": items, "ann": anns}).drop_duplicates()
    bias = rng.normal(0, 1, n_ann)
    latent = rng.normal(-0.5, 1.5, n_items)
    p = 1 / (1 + np.exp(-(latent[frame["item"]] + 0.7 * bias[frame["ann"]])))
    return pd.DataFrame({
        "item_id": "i" + frame["item"].astype(str),
        "annotator_id": "a" + frame["ann"].astype(str),
        "label": (rng.random(len(frame)) < p).astype(int).astype(str),
    })


def pair_loop(annotations: pd.DataFrame, pairs: pd.DataFrame, level: str = "nominal") -> np.ndarray:
    """Reference: the package on each pair's two rows over the items both labelled."""
    item_codes, _ = pd.factorize(annotations["item_id"])
    values = annotations.assign(code=item_codes, v=annotations["label"].astype(float))
    by_ann = {
        a: (g["code"].to_numpy(), g["v"].to_numpy())
        for a, g in values.sort_values("code").groupby("annotator_id")
    }
    domain = np.unique(values["v"])
    out = np.empty(len(pairs))
    for k, (a, b) in enumerate(zip(pairs["annotator_a"], pairs["annotator_b"], strict=True)):
        (ia, va), (ib, vb) = by_ann[a], by_ann[b]
        _, pa, pb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        data = np.vstack([va[pa], vb[pb]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                out[k] = krippendorff.alpha(reliability_data=data, value_domain=domain,
                                            level_of_measurement=level)
            except ValueError:
                out[k] = np.nan
    return out


def compare(ours: np.ndarray, ref: np.ndarray) -> str:
    same_nan = bool((np.isnan(ours) == np.isnan(ref)).all())
    both = ~np.isnan(ours) & ~np.isnan(ref)
    diff = float(np.max(np.abs(ours[both] - ref[both]))) if both.any() else 0.0
    return f"max |diff| = {diff:.1e}, NaN pattern identical: {same_nan}"


def bench_dataset(name: str, annotations: pd.DataFrame, *, loop_pairs: int | None) -> None:
    print(f"\n=== {name}: {annotations['annotator_id'].nunique():,} annotators, "
          f"{annotations['item_id'].nunique():,} items, {len(annotations):,} labels")
    t_ours, alpha = timed(lambda: krippendorff_alpha(annotations, level="nominal"))
    data = prepare_alpha_input(annotations)
    vc = data.counts().toarray()
    t_vc, ref = timed(lambda: krippendorff.alpha(value_counts=vc, level_of_measurement="nominal"))
    print(f"overall alpha: ours {t_ours * 1e3:.1f} ms (from the long table) = {alpha:.6f}; "
          f"package value_counts {t_vc * 1e3:.1f} ms (counts prebuilt) = {ref:.6f}")
    if data.n_annotators * data.n_items <= 20_000_000:
        dense = np.full((data.n_annotators, data.n_items), np.nan)
        dense[data.annotator, data.item] = data.numbers[data.value]
        t_dense, ref_dense = timed(
            lambda: krippendorff.alpha(reliability_data=dense, level_of_measurement="nominal"))
        print(f"  package reliability_data (dense {data.n_annotators}x{data.n_items}): "
              f"{t_dense * 1e3:.0f} ms = {ref_dense:.6f}; ratio package/ours = {t_dense / t_ours:.1f}x")
    else:
        print(f"  package reliability_data skipped: the dense matrix would hold "
              f"{data.n_annotators * data.n_items / 1e6:.0f}M cells")

    t_pairs, pairs = timed(lambda: pairwise_alpha(annotations, level="nominal", min_shared=1))
    print(f"all-pairs alpha: ours {t_pairs:.3f} s for {len(pairs):,} overlapping pairs "
          f"({pairs['alpha'].notna().sum():,} defined)")
    sample = pairs
    if loop_pairs is not None and loop_pairs < len(pairs):
        sample = pairs.sample(loop_pairs, random_state=0)
    t_loop, ref_pairs = timed(lambda: pair_loop(annotations, sample))
    per_pair = t_loop / len(sample)
    est = per_pair * len(pairs)
    label = "measured" if len(sample) == len(pairs) else f"extrapolated from {len(sample):,} pairs"
    print(f"  per-pair loop with the package: {per_pair * 1e3:.3f} ms/pair -> {est:.1f} s "
          f"({label}); speed-up {est / t_pairs:.0f}x; {compare(sample['alpha'].to_numpy(), ref_pairs)}")
    t_sep, _ = timed(lambda: (krippendorff_alpha(annotations, level="nominal"),
                              pairwise_alpha(annotations, level="nominal", min_shared=1)))
    t_one, (alpha_one, pairs_one) = timed(
        lambda: alpha_and_pairwise(annotations, level="nominal", min_shared=1))
    assert alpha_one == alpha and pairs_one.equals(pairs)
    t_codes, _ = timed(lambda: alpha_and_pairwise_codes(data, min_shared=1))
    t_inst, t_sparse = float("inf"), float("inf")
    for _ in range(max(REPEAT, 5)):  # interleaved, so that both see the same machine load
        t, fast = timed(lambda: pairwise_alpha_arrays(data, min_shared=1, method="instances"), 1)
        t_inst = min(t_inst, t)
        t, slow = timed(lambda: pairwise_alpha_arrays(data, min_shared=1, method="sparse"), 1)
        t_sparse = min(t_sparse, t)
    assert np.array_equal(fast.alpha, slow.alpha, equal_nan=True)
    print(f"  alpha + all pairs: two calls {t_sep:.3f} s; one call (alpha_and_pairwise) "
          f"{t_one:.3f} s; pre-coded (alpha_and_pairwise_codes, the sigma_rnd route) {t_codes:.3f} s")
    print(f"  all-pairs counts on codes: pair instances {t_inst:.3f} s vs sparse products "
          f"{t_sparse:.3f} s ({t_sparse / t_inst:.1f}x; identical alphas bit for bit)")
    for level in ("interval", "ordinal"):
        t_lvl, _ = timed(lambda level=level: pairwise_alpha(annotations, level=level, min_shared=1))
        print(f"  all-pairs {level}: {t_lvl:.3f} s")

    counts = data.counts()
    t_boot, reps = timed(lambda: bootstrap_alpha_from_counts(counts, level="nominal", n_boot=1000,
                                                             seed=0))
    dense_counts = counts.toarray()
    pairable = dense_counts[dense_counts.sum(axis=1) >= 2]
    n_loop = 100

    def boot_loop():
        rng = np.random.default_rng(0)
        for _ in range(n_loop):
            draw = rng.integers(0, len(pairable), len(pairable))
            alpha_from_counts(pairable[draw])

    t_boot_loop = timed(boot_loop)[0] * 1000 / n_loop
    print(f"bootstrap CI (1,000 replicates): vectorised {t_boot:.2f} s; loop over replicates "
          f"{t_boot_loop:.2f} s (extrapolated from {n_loop}); speed-up {t_boot_loop / t_boot:.1f}x; "
          f"95% CI [{np.nanpercentile(reps, 2.5):.3f}, {np.nanpercentile(reps, 97.5):.3f}]")


def sklearn_kappa_loop(annotations: pd.DataFrame, min_shared: int = 2) -> pd.DataFrame:
    """Reference: scikit-learn's ``cohen_kappa_score`` per annotator pair on the items both
    labelled (per-annotator sorted item codes, shared items by ``np.intersect1d``)."""
    from sklearn.metrics import cohen_kappa_score

    item_codes, _ = pd.factorize(annotations["item_id"])
    frame = annotations.assign(code=item_codes).sort_values("code")
    by_ann = {a: (g["code"].to_numpy(), g["label"].to_numpy())
              for a, g in frame.groupby("annotator_id", sort=True)}
    ids = sorted(by_ann)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns (and returns NaN) when P_e = 1
        for i, a in enumerate(ids):
            ia, la = by_ann[a]
            for b in ids[i + 1:]:
                ib, lb = by_ann[b]
                _, pa, pb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
                if len(pa) >= min_shared:
                    rows.append((a, b, len(pa), cohen_kappa_score(la[pa], lb[pb])))
    return pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "n_shared", "kappa"])


def bench_kappa(name: str, annotations: pd.DataFrame) -> None:
    t_ours, ours = timed(lambda: pairwise_cohen_kappa(annotations))
    t_ref, ref = timed(lambda: sklearn_kappa_loop(annotations), repeat=min(REPEAT, 2))
    pd.testing.assert_frame_equal(ours[["annotator_a", "annotator_b", "n_shared"]],
                                  ref[["annotator_a", "annotator_b", "n_shared"]])
    np.testing.assert_allclose(ours["kappa"], ref["kappa"], rtol=0, atol=1e-12)
    print(f"all-pairs Cohen's kappa ({name}, {len(ours):,} pairs with >= 2 shared items): ours "
          f"{t_ours:.3f} s vs scikit-learn cohen_kappa_score loop {t_ref:.1f} s "
          f"({t_ref / t_ours:.0f}x; {compare(ours['kappa'].to_numpy(), ref['kappa'].to_numpy())})")


def naive_boot_match(s1: list[set], s2: list[set], n_rep: int, seed: int = 0) -> float:
    """Plain Python bootstrap of expected soft-match (sequential weighted draws)."""
    rnd = random.Random(seed)

    def shares(sets):
        counts: dict[str, int] = {}
        for s in sets:
            for lab in s:
                counts[lab] = counts.get(lab, 0) + 1
        return counts

    q1, q2 = shares(s1), shares(s2)
    sizes1, sizes2 = [len(s) for s in s1], [len(s) for s in s2]

    def draw(q, k):
        pool = dict(q)
        out = set()
        for _ in range(min(k, len(pool))):
            lab = rnd.choices(list(pool), weights=list(pool.values()))[0]
            out.add(lab)
            del pool[lab]
        return out

    total = 0.0
    for _ in range(n_rep):
        hits = 0
        for _ in range(len(s1)):
            a = draw(q1, rnd.choice(sizes1))
            b = draw(q2, rnd.choice(sizes2))
            hits += bool(a & b)
        total += hits / len(s1)
    return total / n_rep


def bench_multilabel() -> None:
    data = simulate_multilabel(n_items=884, n_categories=10, double_share=0.3, agreement=0.6,
                               label_skew=1.0, seed=0)
    print(f"\n=== multi-label, 2 coders, 884 items, 10 categories ({len(data):,} labels)")
    t_ours, table = timed(lambda: multilabel_agreement(data, n_boot=1000, seed=0))
    sets = data.groupby(["item_id", "annotator_id"])["label"].apply(set).unstack()
    n_rep = 20
    t = time.perf_counter()
    naive = naive_boot_match(list(sets["c1"]), list(sets["c2"]), n_rep)
    t_naive = (time.perf_counter() - t) * 1000 / n_rep
    print(f"all 5 boot measures, 1,000 replicates: ours {t_ours:.3f} s; plain-Python boot-match "
          f"only {t_naive:.1f} s (extrapolated from {n_rep} replicates); speed-up "
          f"{t_naive / t_ours:.0f}x")
    print(f"  expected boot-match: ours {table.loc['boot_match', 'expected']:.4f} "
          f"(sd {table.loc['boot_match', 'sd']:.4f}), naive {naive:.4f} ({n_rep} replicates)")


def main() -> None:
    global REPEAT
    if "--repeat" in sys.argv:
        REPEAT = int(sys.argv[sys.argv.index("--repeat") + 1])
    print("hlv_core.agreement benchmark (numpy", np.__version__, ", krippendorff",
          getattr(krippendorff, "__version__", "?"), ")")
    md = DATA / "md_agreement" / "annotations.csv"
    if md.exists():
        md_frame = pd.read_csv(md, dtype=str, keep_default_na=False)
        bench_dataset("md_agreement", md_frame, loop_pairs=None)
        bench_kappa("md_agreement", md_frame)
    else:
        print(f"md_agreement not found at {md}; skipped")
    bench_dataset("MHS-like synthetic", mhs_like(), loop_pairs=5000)
    bench_multilabel()


if __name__ == "__main__":
    main()
