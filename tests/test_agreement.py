"""Krippendorff's alpha (overall, bootstrap, all pairs), kappas and explanations.

Oracle: the ``krippendorff`` package (GPL; used here only, never shipped)."""

from __future__ import annotations

import re
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core._alpha import bootstrap_alpha_from_counts, prepare_alpha_input
from hlv_core.agreement import (
    alpha_and_pairwise,
    alpha_and_pairwise_codes,
    alpha_from_counts,
    alpha_of_input,
    alpha_report,
    annotator_mean_agreement,
    bootstrap_alpha,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    pair_disagreements,
    pairwise_alpha,
    pairwise_alpha_arrays,
    pairwise_cohen_kappa,
)
from tests.conftest import shared_path

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _read(*parts: str) -> pd.DataFrame:
    return pd.read_csv(shared_path("data", *parts), dtype=str, keep_default_na=False)


def _readme_alphas(folder: str) -> dict[str, float]:
    """Alpha values stated in a dataset README (``nominal = 0.435``, ``alpha (nominal) = 0.359``)."""
    text = shared_path("data", folder, "README.md").read_text()
    out = {}
    for level in LEVELS:
        m = re.search(rf"{level}\)? = (-?\d\.\d+)", text)
        if m:
            out[level] = float(m.group(1))
    return out


def _long(matrix: np.ndarray) -> pd.DataFrame:
    """Annotators x items matrix (NaN = missing) -> long annotations."""
    a, i = np.nonzero(~np.isnan(matrix))
    return pd.DataFrame(
        {
            "item_id": [f"i{j:03d}" for j in i],
            "annotator_id": [f"a{k:03d}" for k in a],
            "label": [str(int(v)) for v in matrix[a, i]],
        }
    )


# --- overall alpha vs the krippendorff package on every shared dataset ---------------------------

DATASETS = [
    ("hs_brexit", "annotations.csv", ("nominal",)),
    ("hs_brexit", "annotations_offensive.csv", ("nominal",)),
    ("hs_brexit", "annotations_aggressive.csv", ("nominal",)),
    ("md_agreement", "annotations.csv", ("nominal",)),
    ("armis", "annotations.csv", ("nominal",)),
    ("convabuse", "annotations.csv", LEVELS),
    ("convabuse", "annotations_binary.csv", ("nominal",)),
    ("csc", "annotations.csv", LEVELS),
    ("multipico", "annotations.csv", ("nominal",)),
    ("paraphrase", "annotations.csv", LEVELS),
]


@pytest.mark.parametrize(("folder", "file", "levels"), DATASETS)
def test_alpha_matches_krippendorff_package(folder, file, levels):
    annotations = _read(folder, file)
    for level in levels:
        data = prepare_alpha_input(annotations, level=level)
        ref = krippendorff.alpha(
            value_counts=data.counts().toarray(), value_domain=data.numbers,
            level_of_measurement=level,
        )
        assert krippendorff_alpha(annotations, level=level) == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize(
    "folder", ["hs_brexit", "md_agreement", "armis", "convabuse", "csc", "multipico", "paraphrase"]
)
def test_alpha_matches_readme_column(folder):
    annotations = _read(folder, "annotations.csv")
    stated = _readme_alphas(folder)
    assert stated, "README states no alpha"
    for level, value in stated.items():
        assert round(krippendorff_alpha(annotations, level=level), 3) == pytest.approx(value, abs=1e-12)


def test_alpha_varierrnli_label_sets():
    annotations = _read("varierrnli", "annotations.csv")
    with pytest.raises(ValueError, match="several labels"):
        krippendorff_alpha(annotations)
    ours = krippendorff_alpha(annotations, multilabel="set")
    assert round(ours, 3) == 0.330
    # oracle on the same label-set values
    sets = (
        annotations.sort_values("label").groupby(["item_id", "annotator_id"])["label"]
        .agg(";".join).reset_index()
    )
    data = prepare_alpha_input(sets)
    ref = krippendorff.alpha(value_counts=data.counts().toarray(), level_of_measurement="nominal")
    assert ours == pytest.approx(ref, abs=1e-9)


def test_alpha_cifar10h_from_counts():
    counts = pd.read_csv(shared_path("data", "cifar10h", "label_counts.csv"))
    wide = counts.pivot_table(index="item_id", columns="label", values="count", fill_value=0)
    vc = wide.to_numpy(dtype=float)
    ours = alpha_from_counts(vc, level="nominal")
    ref = krippendorff.alpha(value_counts=vc, level_of_measurement="nominal")
    assert ours == pytest.approx(ref, abs=1e-9)
    assert round(ours, 3) == 0.915


def test_alpha_reliability_route_on_dense_data():
    """Our long-format route equals the package's own reliability-matrix route (hs_brexit, dense)."""
    annotations = _read("hs_brexit", "annotations.csv")
    wide = annotations.pivot(index="annotator_id", columns="item_id", values="label").astype(float)
    ref = krippendorff.alpha(reliability_data=wide.to_numpy(), level_of_measurement="nominal")
    assert krippendorff_alpha(annotations) == pytest.approx(ref, abs=1e-9)


def test_krippendorff_textbook_example():
    """Krippendorff's 4 coders x 12 units example: nominal .743, interval .849."""
    nan = np.nan
    data = np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ])
    ann = _long(data)
    assert krippendorff_alpha(ann) == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(ann, level="interval") == pytest.approx(0.849, abs=5e-4)
    for level in LEVELS:
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert krippendorff_alpha(ann, level=level) == pytest.approx(ref, abs=1e-9)


def test_values_mapping_and_order():
    ann = pd.DataFrame({
        "item_id": ["1", "1", "2", "2", "3", "3", "4", "4"],
        "annotator_id": ["a", "b"] * 4,
        "label": ["low", "mid", "high", "high", "mid", "mid", "low", "high"],
    })
    order = ["low", "mid", "high"]
    numeric = ann.assign(label=ann["label"].map({"low": "0", "mid": "1", "high": "2"}))
    for level in ("ordinal", "interval"):
        assert krippendorff_alpha(ann, level=level, values=order) == pytest.approx(
            krippendorff_alpha(numeric, level=level), abs=1e-12
        )
        assert krippendorff_alpha(
            ann, level=level, values={"low": 0, "mid": 1, "high": 2}
        ) == pytest.approx(krippendorff_alpha(numeric, level=level), abs=1e-12)
    with pytest.raises(ValueError, match="numeric labels"):
        krippendorff_alpha(ann, level="ordinal")
    # ordinal order is numeric, not lexicographic ("10" after "9")
    nums = ann.assign(label=ann["label"].map({"low": "9", "mid": "10", "high": "11"}))
    assert krippendorff_alpha(nums, level="ordinal") == pytest.approx(
        krippendorff_alpha(numeric, level="ordinal"), abs=1e-12
    )


# --- all-pairs alpha -----------------------------------------------------------------------------


def _random_sparse(rng: np.random.Generator) -> np.ndarray:
    n_ann, n_items, k = rng.integers(2, 9), rng.integers(2, 16), rng.integers(2, 6)
    mask = rng.random((n_ann, n_items)) < rng.uniform(0.15, 0.95)
    values = rng.integers(0, k, (n_ann, n_items)).astype(float)
    if rng.random() < 0.3:  # low-variation data: many undefined pairs
        values = np.where(rng.random((n_ann, n_items)) < 0.85, 0.0, values)
    return np.where(mask, values, np.nan)


def _two_row_reference(matrix: np.ndarray, domain: np.ndarray, level: str) -> dict:
    out = {}
    for a in range(matrix.shape[0]):
        for b in range(a + 1, matrix.shape[0]):
            sub = matrix[[a, b]]
            n_shared = int((~np.isnan(sub)).all(axis=0).sum())
            if n_shared == 0:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ref = krippendorff.alpha(
                    reliability_data=sub, value_domain=domain, level_of_measurement=level
                )
            out[(f"a{a:03d}", f"a{b:03d}")] = (n_shared, ref)
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_pairwise_alpha_equals_two_row_package(level):
    rng = np.random.default_rng({"nominal": 1, "ordinal": 2, "interval": 3, "ratio": 4}[level])
    checked = nan_pairs = 0
    for _ in range(40):
        matrix = _random_sparse(rng)
        ann = _long(matrix)
        if ann["label"].nunique() < 2:
            continue
        domain = np.unique(matrix[~np.isnan(matrix)])
        ref = _two_row_reference(matrix, domain, level)
        got = pairwise_alpha(ann, level=level, min_shared=1)
        assert set(zip(got["annotator_a"], got["annotator_b"], strict=True)) == set(ref)
        for row in got.itertuples():
            n_shared, expected = ref[(row.annotator_a, row.annotator_b)]
            assert row.n_shared == n_shared
            assert np.isnan(row.alpha) == np.isnan(expected), (row, expected)
            if not np.isnan(expected):
                assert row.alpha == pytest.approx(expected, abs=1e-9)
            checked += 1
            nan_pairs += int(np.isnan(expected))
    assert checked > 300 and nan_pairs > 10


def test_pairwise_min_shared_and_counts():
    matrix = np.array([
        [0, 1, 0, 1, np.nan],
        [0, 1, 1, np.nan, 1],
        [np.nan, np.nan, np.nan, np.nan, 0],
        [0, 0, 0, 0, np.nan],
    ])
    ann = _long(matrix)
    pairs = pairwise_alpha(ann, min_shared=2)
    row = pairs.set_index(["annotator_a", "annotator_b"]).loc[("a001", "a002")]
    assert row["n_shared"] == 1 and np.isnan(row["alpha"])
    one = pairwise_alpha(ann, min_shared=1).set_index(["annotator_a", "annotator_b"])
    assert one.loc[("a001", "a002"), "alpha"] == 0.0  # one shared item, values differ -> 0
    assert pairs.attrs["n_pairs_below_min_shared"] == int((pairs["n_shared"] < 2).sum())
    assert (pairs["annotator_a"] < pairs["annotator_b"]).all()
    assert pairs["alpha"].dtype == float


def test_pairwise_md_agreement_sample_pairs():
    ann = _read("md_agreement", "annotations.csv")
    pairs = pairwise_alpha(ann, level="nominal")
    assert len(pairs) > 10_000
    wide = ann.assign(label=ann["label"].astype(float)).pivot(
        index="annotator_id", columns="item_id", values="label"
    )
    rng = np.random.default_rng(0)
    defined = pairs.dropna(subset=["alpha"])
    sample = defined.iloc[rng.choice(len(defined), 40, replace=False)]
    undefined = pairs[(pairs["n_shared"] >= 2) & pairs["alpha"].isna()].head(10)
    for row in pd.concat([sample, undefined]).itertuples():
        sub = wide.loc[[row.annotator_a, row.annotator_b]].to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ref = krippendorff.alpha(
                reliability_data=sub, value_domain=[0.0, 1.0], level_of_measurement="nominal"
            )
        if np.isnan(ref):
            assert np.isnan(row.alpha)
        else:
            assert row.alpha == pytest.approx(ref, abs=1e-9)


# --- hypothesis properties -----------------------------------------------------------------------

_matrices = st.integers(0, 2**32 - 1).map(lambda s: _random_sparse(np.random.default_rng(s)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 5), st.sampled_from(LEVELS))
def test_identical_coders_give_alpha_one(seed, n_coders, level):
    rng = np.random.default_rng(seed)
    row = rng.integers(0, 4, rng.integers(2, 20)).astype(float)
    if len(np.unique(row)) < 2:
        row[0], row[1] = 0.0, 1.0
    matrix = np.tile(row, (n_coders, 1))
    assert krippendorff_alpha(_long(matrix), level=level) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(_matrices, st.integers(0, 2**32 - 1))
def test_nominal_alpha_invariant_to_relabelling(matrix, seed):
    ann = _long(matrix)
    labels = sorted(ann["label"].unique())
    perm = np.random.default_rng(seed).permutation(len(labels))
    renamed = ann.assign(label=ann["label"].map({x: f"L{perm[i]}" for i, x in enumerate(labels)}))
    a, b = krippendorff_alpha(ann), krippendorff_alpha(renamed)
    assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, abs=1e-12)
    pa = pairwise_alpha(ann, min_shared=1)["alpha"].to_numpy()
    pb = pairwise_alpha(renamed, min_shared=1)["alpha"].to_numpy()
    np.testing.assert_allclose(pa, pb, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(_matrices, st.sampled_from(LEVELS))
def test_pairwise_alpha_symmetric(matrix, level):
    """Reversing annotator order (so every pair is listed the other way round) changes nothing."""
    ann = _long(matrix)
    if ann["label"].nunique() < 2:
        return
    flipped = ann.assign(annotator_id="z" + (999 - ann["annotator_id"].str[1:].astype(int)).astype(str))
    back = {f"z{999 - int(a[1:])}": a for a in ann["annotator_id"].unique()}
    pa = pairwise_alpha(ann, level=level, min_shared=1).set_index(["annotator_a", "annotator_b"])
    pb = pairwise_alpha(flipped, level=level, min_shared=1)
    for row in pb.itertuples():
        a, b = sorted((back[row.annotator_a], back[row.annotator_b]))
        other = pa.loc[(a, b)]
        assert other["n_shared"] == row.n_shared
        assert (np.isnan(other["alpha"]) and np.isnan(row.alpha)) or other["alpha"] == pytest.approx(
            row.alpha, abs=1e-12
        )


# --- bootstrap -----------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_bootstrap_equals_loop(level):
    ann = _read("paraphrase", "annotations.csv")
    data = prepare_alpha_input(ann, level=level)
    counts = data.counts()
    n_boot = 50
    fast = bootstrap_alpha_from_counts(counts, data.numbers, level=level, n_boot=n_boot, seed=7, chunk=n_boot)
    rng = np.random.default_rng(7)
    dense = counts.toarray()
    pairable = dense[dense.sum(axis=1) >= 2]
    profiles, freq = np.unique(pairable, axis=0, return_counts=True)
    draws = rng.multinomial(len(pairable), freq / freq.sum(), size=n_boot)
    loop = [alpha_from_counts(np.repeat(profiles, d, axis=0), data.numbers, level=level)
            for d in draws]
    np.testing.assert_allclose(fast, loop, atol=1e-9)


def test_bootstrap_profile_draws_match_item_resampling():
    """Multinomial weights over count profiles = resampling items: same distribution of alpha."""
    ann = _read("armis", "annotations.csv")
    data = prepare_alpha_input(ann)
    dense = data.counts().toarray()
    fast = bootstrap_alpha_from_counts(dense, n_boot=2000, seed=1)
    rng = np.random.default_rng(2)
    loop = np.array([alpha_from_counts(dense[rng.integers(0, len(dense), len(dense))])
                     for _ in range(2000)])
    assert np.mean(fast) == pytest.approx(np.mean(loop), abs=0.003)
    assert np.std(fast) == pytest.approx(np.std(loop), rel=0.1)


def test_bootstrap_seeded_and_ci():
    ann = _read("hs_brexit", "annotations.csv")
    a = bootstrap_alpha(ann, n_boot=200, seed=3)
    b = bootstrap_alpha(ann, n_boot=200, seed=3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, bootstrap_alpha(ann, n_boot=200, seed=4))
    rep = alpha_report(ann, n_boot=300, seed=0)
    assert rep.ci_low < rep.alpha < rep.ci_high
    assert rep.seed == 0 and rep.n_boot == 300 and len(rep.replicates) == 300


# --- explanations and bad input ------------------------------------------------------------------


def test_one_annotator_explained():
    ann = pd.DataFrame({"item_id": ["1", "2", "3"], "annotator_id": "a", "label": ["x", "y", "x"]})
    rep = alpha_report(ann)
    assert np.isnan(rep.alpha) and "only one annotator" in rep.explanation
    assert np.isnan(krippendorff_alpha(ann))
    assert pairwise_alpha(ann).empty


def test_single_label_value_explained():
    ann = pd.DataFrame({"item_id": ["1", "1", "2", "2"], "annotator_id": ["a", "b"] * 2, "label": "x"})
    rep = alpha_report(ann)
    assert np.isnan(rep.alpha) and "same label" in rep.explanation


def test_no_pairable_items_explained():
    ann = pd.DataFrame({"item_id": ["1", "2"], "annotator_id": ["a", "b"], "label": ["x", "y"]})
    rep = alpha_report(ann)
    assert np.isnan(rep.alpha) and "no item was labelled by two" in rep.explanation


def test_negative_and_dominant_label_explained():
    ann = _long(np.array([[0, 1, 0, 1, 0, 0], [1, 0, 1, 0, 0, 0]], dtype=float))
    rep = alpha_report(ann, n_boot=50)
    assert rep.alpha < 0 and "<= 0" in rep.explanation
    skewed = _long(np.array([[0] * 40 + [1, 0], [0] * 40 + [0, 1]], dtype=float))
    rep = alpha_report(skewed, n_boot=50)
    assert "dominates" in rep.explanation


def test_bad_arguments():
    ann = pd.DataFrame({"item_id": ["1"], "annotator_id": ["a"], "label": ["x"]})
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(ann, level="cardinal")
    with pytest.raises(ValueError, match="column"):
        krippendorff_alpha(ann.drop(columns="label"))
    with pytest.raises(ValueError, match="min_shared"):
        pairwise_alpha(ann, min_shared=0)


# --- per-annotator summaries, disagreements, kappas ---------------------------------------------


def test_annotator_mean_and_disagreements():
    ann = _read("hs_brexit", "annotations.csv")
    pairs = pairwise_alpha(ann)
    means = annotator_mean_agreement(pairs)
    assert len(means) == 6 and (means["n_pairs"] == 5).all()
    a1 = pairs[(pairs["annotator_a"] == "Ann1") | (pairs["annotator_b"] == "Ann1")]["alpha"].mean()
    assert means.set_index("annotator_id").loc["Ann1", "mean_alpha"] == pytest.approx(a1)
    diff = pair_disagreements(ann, "Ann1", "Ann4")
    wide = ann.pivot(index="item_id", columns="annotator_id", values="label")
    assert len(diff) == int((wide["Ann1"] != wide["Ann4"]).sum())
    assert (diff["label_a"] != diff["label_b"]).all()


def test_cohen_kappa_textbook():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> kappa 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    ann = pd.DataFrame({
        "item_id": [str(i) for i in range(50)] * 2, "annotator_id": ["A"] * 50 + ["B"] * 50,
        "label": a + b,
    })
    assert cohen_kappa(ann) == pytest.approx(0.4, abs=1e-12)
    assert pairwise_cohen_kappa(ann)["kappa"].iloc[0] == pytest.approx(0.4, abs=1e-12)
    with pytest.raises(ValueError, match="two annotators"):
        cohen_kappa(pd.concat([ann, ann[ann["annotator_id"] == "A"].assign(annotator_id="C")]))


def _sklearn_pair_loop(ann: pd.DataFrame, min_shared: int) -> pd.DataFrame:
    from sklearn.metrics import cohen_kappa_score

    wide = ann.pivot(index="item_id", columns="annotator_id", values="label")
    rows = []
    for i, a in enumerate(wide.columns):
        for b in wide.columns[i + 1:]:
            both = wide[[a, b]].dropna()
            if len(both) < min_shared:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # sklearn warns (and gives NaN) when P_e = 1
                k = cohen_kappa_score(both[a], both[b])
            rows.append((a, b, len(both), k))
    return pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "n_shared", "kappa"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairwise_cohen_kappa_matches_sklearn_loop(seed):
    rng = np.random.default_rng(seed)
    n_items, n_ann = 40, 9
    mask = rng.random((n_items, n_ann)) < 0.5
    mask[:, 3] = False
    mask[:6, 3] = True  # few shared items with the others: some pairs under min_shared
    truth = rng.integers(0, 3, n_items)
    noisy = np.where(rng.random((n_items, n_ann)) < 0.4, rng.integers(0, 3, (n_items, n_ann)),
                     truth[:, None])
    noisy[:, 5] = 1  # one annotator always says "b": P_e = 1 with another constant one
    noisy[:, 7] = 1
    it, an = np.nonzero(mask)
    ann = pd.DataFrame({"item_id": [f"i{i:02d}" for i in it], "annotator_id": [f"A{a}" for a in an],
                        "label": np.array(["a", "b", "c"])[noisy[it, an]]})
    ours = pairwise_cohen_kappa(ann.sample(frac=1.0, random_state=seed), min_shared=3)
    ref = _sklearn_pair_loop(ann, 3)
    assert len(ref) > 20
    pd.testing.assert_frame_equal(ours[["annotator_a", "annotator_b", "n_shared"]],
                                  ref[["annotator_a", "annotator_b", "n_shared"]])
    np.testing.assert_allclose(ours["kappa"], ref["kappa"], rtol=0, atol=1e-12)
    assert ours["kappa"].isna().sum() >= 1  # the two constant annotators


def test_pairwise_cohen_kappa_memory_guard():
    ann = pd.DataFrame({"item_id": ["x"] * 50, "annotator_id": [f"A{i}" for i in range(50)],
                        "label": ["a", "b"] * 25})
    assert len(pairwise_cohen_kappa(ann, min_shared=1)) == 50 * 49 // 2
    with pytest.raises(ValueError, match="would need about .* GiB"):
        pairwise_cohen_kappa(ann, min_shared=1, max_bytes=10_000)


def test_fleiss_kappa_textbook():
    # Fleiss (1971) style example from Wikipedia: 10 items, 14 raters, 5 categories -> 0.210
    table = np.array([
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ])
    rows = []
    for i, counts in enumerate(table):
        labels = np.repeat(np.arange(5), counts)
        rows += [(str(i), f"r{j}", str(lab)) for j, lab in enumerate(labels)]
    ann = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    assert fleiss_kappa(ann) == pytest.approx(0.20993, abs=1e-5)


# --- pre-coded fast path: one preparation, pair instances == sparse products bit for bit --------


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_ann=st.integers(2, 12),
    n_items=st.integers(1, 40),
    fill=st.floats(0.05, 1.0),
    n_labels=st.integers(1, 7),
    level=st.sampled_from(["nominal", "ordinal", "ratio"]),
)
def test_pair_instances_equal_sparse_products_bitwise(seed, n_ann, n_items, fill, n_labels, level):
    rng = np.random.default_rng(seed)
    matrix = np.where(
        rng.random((n_ann, n_items)) < fill, rng.integers(1, n_labels + 1, (n_ann, n_items)), np.nan
    )
    ann = _long(matrix)
    data = prepare_alpha_input(ann, level=level)
    fast = pairwise_alpha_arrays(data, min_shared=1, method="instances")
    slow = pairwise_alpha_arrays(data, min_shared=1, method="sparse")
    for name in ("a", "b", "n_shared", "alpha"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    assert (fast.a < fast.b).all()


def test_pair_instances_many_values_and_empty():
    rng = np.random.default_rng(5)
    matrix = np.where(rng.random((15, 60)) < 0.4, rng.integers(0, 40, (15, 60)), np.nan)
    data = prepare_alpha_input(_long(matrix))
    assert data.n_values > 30
    fast = pairwise_alpha_arrays(data, min_shared=2, method="instances")
    slow = pairwise_alpha_arrays(data, min_shared=2, method="sparse")
    np.testing.assert_array_equal(fast.alpha, slow.alpha)
    np.testing.assert_array_equal(fast.n_shared, slow.n_shared)
    # no item shared by two annotators: no pair at all
    lonely = pd.DataFrame({"item_id": ["1", "2"], "annotator_id": ["a", "b"], "label": ["x", "y"]})
    for method in ("instances", "sparse"):
        empty = pairwise_alpha_arrays(prepare_alpha_input(lonely), method=method)
        assert len(empty) == 0
    with pytest.raises(ValueError, match="method"):
        pairwise_alpha_arrays(data, method="loop")


@pytest.mark.parametrize(("folder", "level"), [
    ("md_agreement", "nominal"), ("convabuse", "nominal"), ("convabuse", "ordinal"),
    ("convabuse", "interval"), ("csc", "ratio"),
])
def test_alpha_and_pairwise_equals_separate_calls(folder, level):
    ann = _read(folder, "annotations.csv")
    alpha, pairs = alpha_and_pairwise(ann, level=level, min_shared=2)
    assert alpha == krippendorff_alpha(ann, level=level)  # bit for bit
    separate = pairwise_alpha(ann, level=level, min_shared=2)
    pd.testing.assert_frame_equal(pairs, separate, check_exact=True)
    assert pairs.attrs == separate.attrs
    if level != "interval":  # the automatic route (pair instances) equals the sparse products
        data = prepare_alpha_input(ann, level=level)
        slow = pairwise_alpha_arrays(data, min_shared=2, method="sparse")
        np.testing.assert_array_equal(pairs["alpha"].to_numpy(), slow.alpha)


def test_with_annotators_keeps_alpha_and_checks_codes():
    rng = np.random.default_rng(11)
    matrix = np.where(rng.random((6, 30)) < 0.7, rng.integers(0, 3, (6, 30)), np.nan)
    data = prepare_alpha_input(_long(matrix))
    perm = rng.permutation(data.n_annotators)
    moved = data.with_annotators(perm[data.annotator])
    alpha, pairs = alpha_and_pairwise_codes(moved, min_shared=1)
    assert alpha == alpha_of_input(data)  # items and values untouched: alpha exactly equal
    # relabelling annotators permutes the pairs: the multiset of pair alphas is unchanged
    before = pairwise_alpha_arrays(data, min_shared=1)
    np.testing.assert_array_equal(np.sort(before.alpha), np.sort(pairs.alpha))
    with pytest.raises(ValueError, match="one entry per rating"):
        data.with_annotators(perm)
    with pytest.raises(ValueError, match="out of range"):
        data.with_annotators(data.annotator + data.n_annotators)


# ------------------------------------------------------------- input validation
def test_interval_alpha_on_huge_values_does_not_overflow():
    """1e308 squared is inf; alpha is scale-invariant, so the values are rescaled exactly."""
    small = pd.DataFrame({"item_id": list("112233"), "annotator_id": list("ababab"),
                          "label": ["1", "-1", "1", "1", "0", "1"]})
    huge = small.assign(label=small["label"].map(lambda x: f"{int(x)}e308"))
    expected = krippendorff_alpha(small, level="interval")
    assert np.isfinite(expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning either
        assert krippendorff_alpha(huge, level="interval") == pytest.approx(expected, abs=1e-12)
        assert krippendorff_alpha(huge, level="ratio") == pytest.approx(
            krippendorff_alpha(small, level="ratio"), abs=1e-12)
        pairs = pairwise_alpha(huge, level="interval")
    assert pairs["alpha"].iloc[0] == pytest.approx(expected, abs=1e-12)


def test_pair_instance_keys_overflow_falls_back_to_products():
    # packed instance keys need 2 * (annotator bits + value bits) <= 62: past that the sparse
    # products give the (same) pair statistics
    from hlv_core._alpha import AlphaInput, _instance_keys_fit

    small = prepare_alpha_input(pd.DataFrame(
        {"item_id": ["1", "1", "2", "2"], "annotator_id": ["a", "b", "a", "b"],
         "label": ["x", "y", "x", "x"]}))
    assert _instance_keys_fit(small)
    huge = AlphaInput(small.item, small.annotator, small.value, small.item_ids,
                      range(2**31), small.domain, small.numbers, "nominal")
    assert not _instance_keys_fit(huge)
