"""hlv_core.annotators: per-item agreement, agreement with the majority, confusion against the
majority, annotator profiles and item views, checked by hand and against plain loops."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import agreement
from hlv_core import annotators as A
from hlv_core.io import load
from hlv_core.samples import load_sample

SMALL = (
    b"item_id,annotator_id,label\n"
    b"i1,ann1,a\ni1,ann2,a\ni1,ann3,b\n"  # majority a; agreement 2/6
    b"i2,ann1,b\ni2,ann2,b\ni2,ann3,b\n"  # all agree
    b"i3,ann1,a\n"  # one annotator: not compared, agreement undefined
    b"i4,ann2,a\ni4,ann3,b\n"  # tie: majority a (lowest label); agreement 0
)


@pytest.fixture(scope="module")
def small():
    return load(SMALL, name="small")


def test_item_agreement_by_hand(small):
    agree = A.item_agreement(small)
    assert list(agree.index) == ["i1", "i2", "i3", "i4"]
    assert agree["i1"] == pytest.approx(2 / 6)
    assert agree["i2"] == 1.0
    assert np.isnan(agree["i3"])
    assert agree["i4"] == 0.0


def test_item_agreement_is_fleiss_per_item_term():
    """Mean P_i over items with >= 2 annotators gives back Fleiss' kappa with pooled shares."""
    data = load_sample("case_review")
    p_i = A.item_agreement(data).dropna()
    counts = data.counts_array()
    n = counts.sum(axis=1)
    counts = counts[n >= 2]
    p_c = counts.sum(axis=0) / counts.sum()
    p_e = float(p_c @ p_c)
    kappa = (p_i.mean() - p_e) / (1 - p_e)
    assert kappa == pytest.approx(agreement.fleiss_kappa(data.annotations), abs=1e-12)


def test_majority_agreement_by_hand(small):
    table = A.majority_agreement(small).set_index("annotator_id")
    # ann1: i1 a (agrees), i2 b (agrees), i3 not compared
    assert table.loc["ann1", ["n_items", "n_compared", "n_agree"]].tolist() == [3, 2, 2]
    # ann3: i1 b (no), i2 b (yes), i4 b (no: the tie goes to a)
    assert table.loc["ann3", ["n_items", "n_compared", "n_agree"]].tolist() == [3, 3, 1]
    assert table.loc["ann3", "majority_agreement"] == pytest.approx(1 / 3)
    assert table.loc["ann2", "majority_agreement"] == 1.0


@pytest.mark.parametrize("sample", ["case_review", "ratings", "legal_areas"])
def test_majority_agreement_equals_a_loop(sample):
    data = load_sample(sample)
    majority = data.majority_label()
    expected = {}
    for annotator in data.annotator_ids:
        rows = data.annotations[data.annotations["annotator_id"] == annotator]
        n_cmp = n_agree = 0
        for item, group in rows.groupby("item_id"):
            if data.annotations["item_id"].eq(item).groupby(
                    data.annotations["annotator_id"]).any().sum() < 2:
                continue
            order = {lab: k for k, lab in enumerate(data.labels)}
            answer = "|".join(sorted(group["label"], key=order.get))
            n_cmp += 1
            n_agree += answer == majority[item]
        expected[annotator] = (n_cmp, n_agree)
    table = A.majority_agreement(data).set_index("annotator_id")
    got = {a: (int(r.n_compared), int(r.n_agree)) for a, r in table.iterrows()}
    assert got == expected


def test_confusion_vs_majority_counts_every_compared_item():
    data = load_sample("case_review")
    table = A.majority_agreement(data).set_index("annotator_id")
    for annotator in data.annotator_ids[:4]:
        conf = A.confusion_vs_majority(data, annotator)
        assert list(conf.index) == list(data.labels)
        assert int(conf.to_numpy().sum()) == table.loc[annotator, "n_compared"]
        assert int(np.trace(conf.to_numpy())) == table.loc[annotator, "n_agree"]


def test_multilabel_confusion_per_label():
    data = load_sample("legal_areas")
    annotator = data.annotator_ids[0]
    conf = A.confusion_vs_majority(data, annotator)
    n_cmp = A.majority_agreement(data).set_index("annotator_id").loc[annotator, "n_compared"]
    assert list(conf.columns) == ["both", "majority only", "annotator only", "neither"]
    assert (conf.sum(axis=1) == n_cmp).all()


def test_ranking_answers_and_top_choice():
    data = load(b"item_id,annotator_id,label,rank\nx,r1,a,1\nx,r1,b,2\nx,r1,c,2\n"
                b"x,r2,b,1\nx,r2,a,2\ny,r1,a,1\ny,r2,a,1\n", name="ranks")
    cells = A.annotator_cells(data).set_index(["item_id", "annotator_id"])
    assert cells.loc[("x", "r1"), "answer"] == "a > b = c"
    assert cells.loc[("x", "r2"), "top"] == "b"
    assert bool(cells.loc[("x", "r1"), "agrees"]) and not bool(cells.loc[("x", "r2"), "agrees"])
    assert A.item_agreement(data).tolist() == [0.0, 1.0]


def test_profile_of_an_annotator():
    data = load_sample("case_review")
    pairs = A.annotator_pairs(data)
    camps = A.annotator_camps(data)
    who = str(data.annotator_ids[0])
    profile = A.annotator_profile(data, who, pairs=pairs, camps=camps)
    means = agreement.annotator_mean_agreement(pairs).set_index("annotator_id").loc[who]
    assert profile.mean_alpha == pytest.approx(means["mean_alpha"])
    assert profile.n_pairs_defined == means["n_pairs_defined"]
    assert profile.camp in (0, 1)
    assert profile.traits and "annotator_id" not in profile.traits
    assert profile.label_shares["annotator"].sum() == pytest.approx(1.0)
    assert len(profile.disagreements) == profile.n_compared - profile.n_agree
    assert set(profile.pairs["other"]) <= set(map(str, data.annotator_ids)) - {who}
    with pytest.raises(ValueError, match="no annotator"):
        A.annotator_profile(data, "nobody")


def test_mean_alpha_support_ranks_well_supported_annotators_first():
    pairs = pd.DataFrame({
        "annotator_a": ["a", "a", "a", "b", "b", "c", "x"],
        "annotator_b": ["b", "c", "d", "c", "d", "d", "y"],
        "n_shared": [10, 10, 10, 10, 10, 10, 2],
        "alpha": [0.5, 0.4, 0.3, 0.6, 0.2, 0.1, -0.9],
    })
    table = A.mean_alpha_with_support(pairs, min_pairs=3)
    assert table["annotator_id"].tolist()[:4] == ["d", "c", "a", "b"]  # means .2, .37, .4, .43
    assert not table.set_index("annotator_id").loc[["x", "y"], "enough_support"].any()
    assert A.mean_alpha_with_support(pairs, min_pairs=1)["annotator_id"].iloc[0] in ("x", "y")


def test_item_view():
    data = load_sample("case_review")
    item = data.item_table()["item_id"].iloc[0]
    view = A.item_view(data, item)
    assert view.n_annotators == len(data.item_annotations(item))
    assert view.soft_label["share"].sum() == pytest.approx(1.0)
    assert view.soft_label["count"].sum() == view.n_annotators
    assert view.agreement == pytest.approx(A.item_agreement(data)[item])
    assert view.text
    with pytest.raises(ValueError, match="no item"):
        A.item_view(data, "no-such-item")


def test_annotator_table_columns():
    data = load_sample("ratings")
    table = A.annotator_table(data, pairs=A.annotator_pairs(data), camps=A.annotator_camps(data))
    assert {"majority_agreement", "mean_alpha", "n_pairs_defined", "camp",
            "age_group"} <= set(table.columns)
    assert len(table) == data.n_annotators
