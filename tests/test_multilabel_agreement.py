"""Multi-label agreement (seed 002): Table 1 vector, bootstrap vs exact expectation, multi-coder
averaging, and the section-5 simulator claims."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from hlv_core.agreement import (
    MULTILABEL_MEASURES,
    multilabel_agreement,
    multilabel_agreement_pairs,
    simulate_multilabel,
    simulation_curves,
    soft_match_reduction,
)
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def table1():
    vector = json.loads(shared_path("spec", "vectors", "multilabel_table1.json").read_text())
    rows = [
        (f"item{i + 1}", coder, label)
        for i, item in enumerate(vector["items"])
        for coder in ("coder1", "coder2")
        for label in item[coder]
    ]
    return vector, pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


def test_table1_observed_and_analytic_expected(table1):
    vector, ann = table1
    tab = multilabel_agreement(ann, n_boot=0)
    assert list(tab.index) == list(MULTILABEL_MEASURES)
    obs = vector["observed"]
    assert tab.loc["boot_match", "observed"] == pytest.approx(obs["soft_match"], abs=1e-12)
    assert tab.loc["soft_match_kappa", "observed"] == pytest.approx(obs["soft_match"], abs=1e-12)
    for ours, theirs in [("boot_augmented", "augmented"), ("boot_precision", "precision"),
                         ("boot_recall", "recall"), ("boot_f1", "f1"), ("augmented_kappa", "augmented")]:
        assert tab.loc[ours, "observed"] == pytest.approx(obs[theirs], abs=1e-12)
    exp = vector["expected"]
    assert tab.loc["augmented_kappa", "expected"] == pytest.approx(exp["augmented_rosenberg_binkowski"], abs=1e-12)
    assert round(tab.loc["augmented_kappa", "expected"], 2) == vector["paper_table1"]["augmented_expected"]
    # default: the paper's reduction (section 3.1): item 1 -> A, item 2 -> B (single
    # intersecting labels), item 3 -> A or B sampled (weight 1/2 each) for both coders, so
    # both marginals are (A .5, B .5, C 0) and P_e = .5
    assert tab.attrs["soft_match_expected"] == "reduced"
    assert tab.loc["soft_match_kappa", "expected"] == pytest.approx(0.5, abs=1e-12)
    assert tab.loc["soft_match_pi", "expected"] == pytest.approx(0.5, abs=1e-12)
    adj = vector["adjusted"]
    assert tab.loc["augmented_kappa", "adjusted"] == pytest.approx(adj["augmented_kappa_rb"], abs=1e-12)
    # the raw label-share reading stays available by name and matches the vector
    raw = multilabel_agreement(ann, n_boot=0, soft_match_expected="label_shares")
    assert raw.loc["soft_match_kappa", "expected"] == pytest.approx(exp["marginal_product_label_share_cohen"], abs=1e-12)
    assert raw.loc["soft_match_pi", "expected"] == pytest.approx(exp["marginal_product_label_share_pooled_scott"], abs=1e-12)
    assert raw.loc["soft_match_kappa", "adjusted"] == pytest.approx(adj["soft_match_kappa_cohen_label_share"], abs=1e-12)
    pd.testing.assert_frame_equal(raw.drop(index=["soft_match_kappa", "soft_match_pi"]),
                                  tab.drop(index=["soft_match_kappa", "soft_match_pi"]))
    with pytest.raises(ValueError, match="soft_match_expected"):
        multilabel_agreement(ann, n_boot=0, soft_match_expected="shares")


def test_soft_match_reduction_cases():
    """One intersecting label: both coders get it; none or several: 1/|S_c| over own labels."""
    s1 = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0]], dtype=bool)
    s2 = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0], [1, 1, 0, 1]], dtype=bool)
    r1, r2 = soft_match_reduction(s1, s2)
    np.testing.assert_allclose(r1, [[1, 0, 0, 0], [.5, .5, 0, 0], [.5, .5, 0, 0], [1 / 3] * 3 + [0]])
    np.testing.assert_allclose(r2, [[1, 0, 0, 0], [0, 0, .5, .5], [.5, .5, 0, 0], [1 / 3, 1 / 3, 0, 1 / 3]])
    np.testing.assert_allclose(r1.sum(axis=1), 1.0)


def test_soft_match_expected_above_augmented_at_low_entropy():
    """Seed 002 section 5: at low entropy the soft-match expected agreement is 'much higher'
    than augmented kappa's, because it is computed after the reduction. With the reduction
    (default) it is higher with doubles; with raw label shares it is not."""
    curves = {
        variant: simulation_curves(agreements=(0.75,), double_shares=(0.0, 0.5, 1.0),
                                   n_datasets=6, n_boot=0, label_skew=2.5, seed=3,
                                   soft_match_expected=variant)
        for variant in ("reduced", "label_shares")
    }
    for variant, table in curves.items():
        e = table.pivot(index="double_share", columns="measure", values="expected")
        gap = e["soft_match_kappa"] - e["augmented_kappa"]
        assert gap.loc[0.0] == pytest.approx(0.0, abs=1e-12)  # no doubles: identical
        if variant == "reduced":
            assert (gap.loc[[0.5, 1.0]] > 0.05).all()
            assert e.loc[1.0, "soft_match_kappa"] < e.loc[0.0, "soft_match_kappa"]  # decreases
        else:
            assert (gap.loc[[0.5, 1.0]] < 0.02).all()


def test_table1_per_item_values(table1):
    """Per-item observed measures (paper Table 1) through one-item data sets."""
    vector, ann = table1
    measure_of = {"soft_match": "boot_match", "augmented": "boot_augmented", "recall": "boot_recall",
                  "precision": "boot_precision", "f1": "boot_f1"}
    for i in range(3):
        tab = multilabel_agreement(ann[ann["item_id"] == f"item{i + 1}"], n_boot=0)
        for name, row in measure_of.items():
            assert tab.loc[row, "observed"] == pytest.approx(vector["per_item"][name][i], abs=1e-12)
            assert round(tab.loc[row, "observed"], 2) == pytest.approx(vector["paper_table1"][name][i])


def _exact_bootstrap_expectation(q1, sizes1, q2, sizes2):
    """Exact expected per-item measures under the bootstrap model (enumerate sequential draws)."""
    def set_dist(q, sizes):
        out = {}
        for k in set(sizes):
            pk = sizes.count(k) / len(sizes)
            for perm in itertools.permutations([lab for lab in q if q[lab] > 0], k):
                p, rem = pk, 1.0
                for lab in perm:
                    p *= q[lab] / rem
                    rem -= q[lab]
                out[frozenset(perm)] = out.get(frozenset(perm), 0.0) + p
        return out
    d1, d2 = set_dist(q1, sizes1), set_dist(q2, sizes2)
    e = dict.fromkeys(["soft_match", "augmented", "precision", "recall", "f1"], 0.0)
    for s1, p1 in d1.items():
        for s2, p2 in d2.items():
            i, w = len(s1 & s2), p1 * p2
            e["soft_match"] += w * (i > 0)
            e["augmented"] += w * i / (len(s1) * len(s2))
            e["precision"] += w * i / len(s2)
            e["recall"] += w * i / len(s1)
            e["f1"] += w * 2 * i / (len(s1) + len(s2))
    return e


def test_table1_bootstrap_matches_exact_expectation(table1):
    vector, ann = table1
    shares = vector["expected"]["label_share"]
    exact = _exact_bootstrap_expectation(shares["coder1"], [1, 2, 2], shares["coder2"], [2, 2, 2])
    tab = multilabel_agreement(ann, n_boot=100_000, seed=0)
    row_of = {"soft_match": "boot_match", "augmented": "boot_augmented", "precision": "boot_precision",
              "recall": "boot_recall", "f1": "boot_f1"}
    for name, row in row_of.items():
        # sd of the mean of 100,000 replicates is < 0.0006
        assert tab.loc[row, "expected"] == pytest.approx(exact[name], abs=0.003)
        assert tab.loc[row, "expected"] == pytest.approx(
            vector["expected"]["bootstrap_B20000_seed0"][name], abs=0.006)
        assert tab.loc[row, "sd"] == pytest.approx(
            vector["expected"]["bootstrap_sd_of_replicates"][name], abs=0.01)
    again = multilabel_agreement(ann, n_boot=100_000, seed=0)
    pd.testing.assert_frame_equal(tab, again)
    assert tab.attrs["seed"] == 0 and tab.attrs["n_boot"] == 100_000


def test_multi_coder_mean_over_pairs():
    ann = pd.read_csv(shared_path("data", "varierrnli", "annotations.csv"), dtype=str, keep_default_na=False)
    pairs = multilabel_agreement_pairs(ann, n_boot=200, seed=1)
    tab = multilabel_agreement(ann, n_boot=200, seed=1)
    n_coders = ann["annotator_id"].nunique()
    assert tab.attrs["n_pairs"] == n_coders * (n_coders - 1) // 2
    for measure in ("boot_match", "augmented_kappa", "boot_f1", "soft_match_kappa"):
        sub = pairs[pairs["measure"] == measure]
        for col in ("observed", "expected", "adjusted"):
            assert tab.loc[measure, col] == pytest.approx(sub[col].mean(), abs=1e-12)
    # precision/recall averaged over both orientations -> they coincide
    assert tab.loc["boot_precision", "observed"] == pytest.approx(tab.loc["boot_recall", "observed"])
    pr = pairs[pairs["measure"].isin(["boot_precision", "boot_recall"])]
    assert tab.loc["boot_precision", "observed"] == pytest.approx(pr["observed"].mean(), abs=1e-12)
    # each pair only on items both labelled
    shared = ann.groupby("annotator_id")["item_id"].apply(set)
    first = pairs.iloc[0]
    assert first["n_items"] == len(shared[first["coder_1"]] & shared[first["coder_2"]])
    assert (tab["adjusted"] < tab["observed"]).all()


def test_empty_sets_and_single_coder():
    ann = pd.DataFrame({
        "item_id": ["1", "1", "2", "2", "3", "3", "4"],
        "annotator_id": ["a", "b", "a", "b", "a", "b", "a"],
        "label": ["x", "x", "y", "", "x", "y", "x"],
    })
    pairs = multilabel_agreement_pairs(ann, n_boot=10)
    assert pairs["n_items"].iloc[0] == 2  # item 2 has an empty set, item 4 one coder
    with pytest.raises(ValueError, match="two coders"):
        multilabel_agreement(ann[ann["annotator_id"] == "a"], n_boot=10)
    with pytest.raises(ValueError, match="column"):
        multilabel_agreement(ann.drop(columns="label"))


def test_orientation_of_precision_recall(table1):
    _, ann = table1
    flipped = multilabel_agreement(ann, n_boot=0, coders=["coder2", "coder1"])
    base = multilabel_agreement(ann, n_boot=0)
    assert flipped.loc["boot_precision", "observed"] == pytest.approx(base.loc["boot_recall", "observed"])


# --- simulator (seed 002 section 5) ----------------------------------------------------------


def test_simulator_hits_its_parameters():
    data = simulate_multilabel(n_items=200, n_categories=5, double_share=0.5, agreement=0.75, seed=3)
    sets = data.groupby(["item_id", "annotator_id"])["label"].apply(frozenset).unstack()
    assert (sets.map(len) == 2).mean().tolist() == [0.5, 0.5]
    inter = [len(a & b) > 0 for a, b in zip(sets["c1"], sets["c2"], strict=True)]
    assert np.mean(inter) == 0.75
    tab = multilabel_agreement(data, n_boot=0)
    assert tab.loc["boot_match", "observed"] == 0.75


def test_simulation_reproduces_paper_claims():
    five = simulation_curves(n_categories=5, n_datasets=10, n_boot=100, seed=0)
    bm = five[five["measure"] == "boot_match"].set_index(["agreement", "double_share"])
    # no doubles: adjusted .50 / .69 / .87 (identical for every boot measure)
    for agreement, target in ((0.6, 0.50), (0.75, 0.69), (0.9, 0.87)):
        assert bm.loc[(agreement, 0.0), "adjusted"] == pytest.approx(target, abs=0.015)
        no_doubles = five[(five["agreement"] == agreement) & (five["double_share"] == 0.0)
                          & five["measure"].str.startswith("boot")]
        assert np.ptp(no_doubles["adjusted"]) < 1e-12
    # expected boot-match .20 -> .70; 75% agreement with all doubles -> .17
    assert bm.loc[(0.75, 0.0), "expected"] == pytest.approx(0.20, abs=0.015)
    assert bm.loc[(0.75, 1.0), "expected"] == pytest.approx(0.70, abs=0.015)
    assert bm.loc[(0.75, 0.5), "expected"] == pytest.approx(0.425, abs=0.015)  # analytic .425
    assert bm.loc[(0.75, 1.0), "adjusted"] == pytest.approx(0.17, abs=0.03)
    assert bm.loc[(0.6, 1.0), "adjusted"] < 0
    soft = five[five["measure"] == "soft_match_kappa"]
    assert soft["expected"].between(0.18, 0.23).all()  # paper: ~.21 everywhere
    ten = simulation_curves(n_categories=10, agreements=(0.75,), double_shares=(0.0, 1.0),
                            n_datasets=10, n_boot=100, seed=1)
    bm10 = ten[ten["measure"] == "boot_match"].set_index("double_share")
    assert bm10.loc[0.0, "expected"] == pytest.approx(0.105, abs=0.015)  # paper ~.11, analytic .100
    assert bm10.loc[1.0, "expected"] == pytest.approx(0.378, abs=0.015)  # paper ~.38
    assert bm10.loc[1.0, "adjusted"] == pytest.approx(0.60, abs=0.03)    # paper .60


def test_simulation_lower_entropy_raises_expected_agreement():
    flat = simulation_curves(agreements=(0.75,), double_shares=(0.0,), n_datasets=5, n_boot=50)
    skew = simulation_curves(agreements=(0.75,), double_shares=(0.0,), n_datasets=5, n_boot=50,
                             label_skew=2.0)
    assert skew["entropy"].iloc[0] < flat["entropy"].iloc[0]
    e_flat = flat.set_index("measure").loc["boot_match", "expected"]
    e_skew = skew.set_index("measure").loc["boot_match", "expected"]
    assert e_skew > e_flat + 0.1


def test_zero_items_is_a_clear_error():
    empty = pd.DataFrame({"item_id": [], "annotator_id": [], "label": []}, dtype=str)
    with pytest.raises(ValueError, match="0 rows"):
        multilabel_agreement(empty)


def test_items_dropped_for_an_empty_set_are_counted():
    """Items where either coder of a pair gave an empty set are excluded and counted. By hand:
    (a, b) share items 1-3, b's set on 2 is empty -> 1; (a, c) share 1-2, c's set on 1 is
    empty -> 1; (b, c) share 1-2, each has one empty set -> 2 (no item left). Total 4."""
    ann = pd.DataFrame({
        "item_id": ["1", "2", "3", "1", "2", "3", "1", "2"],
        "annotator_id": ["a", "a", "a", "b", "b", "b", "c", "c"],
        "label": ["x", "y", "x", "x", "", "y", "", "y"],
    })
    pairs = multilabel_agreement_pairs(ann, n_boot=0)
    assert pairs.attrs["n_items_empty_set"] == 4
    assert multilabel_agreement(ann, n_boot=0).attrs["n_items_empty_set"] == 4
    two = ann[ann["annotator_id"] != "c"]
    assert multilabel_agreement(two, n_boot=0).attrs["n_items_empty_set"] == 1


def test_mean_over_pairs_reports_the_pairs_behind_the_adjusted_mean():
    """A pair whose expected agreement is 1 has no adjusted agreement (0/0); the mean over pairs
    leaves it out and says so. By hand: a and b both always say {x} on items 1-2 -> P_e = 1 for
    augmented kappa (undefined); (a, c) and (b, c) share items 1-2 with c = {x, y} then {y}:
    augmented observed (1/2 + 0) / 2 = 1/4, p_a = (x 1), p_c = (x 1/4, y 3/4), P_e = 1/4,
    adjusted 0 for both. Mean adjusted 0 over 2 of the 3 pairs."""
    ann = pd.DataFrame({
        "item_id": ["1", "2", "1", "2", "1", "1", "2"],
        "annotator_id": ["a", "a", "b", "b", "c", "c", "c"],
        "label": ["x", "x", "x", "x", "x", "y", "y"],
    })
    tab = multilabel_agreement(ann, n_boot=0)
    row = tab.loc["augmented_kappa"]
    assert row["observed"] == pytest.approx((1.0 + 0.25 + 0.25) / 3)
    assert row["adjusted"] == pytest.approx(0.0, abs=1e-12)
    assert (row["n_pairs"], row["n_pairs_defined"]) == (3, 2)
    assert tab.loc["boot_match", "n_pairs_defined"] == 0  # n_boot=0: no expected agreement
    one = multilabel_agreement(ann[ann["annotator_id"] != "c"], n_boot=0)
    assert (one.loc["augmented_kappa", "n_pairs"], one.loc["augmented_kappa", "n_pairs_defined"]) == (1, 0)
