"""Tests of hlv_core.errors: error scores, tie-aware ranking metrics, VariErr reproduction."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from hlv_core import errors as E
from tests.conftest import shared_path

#: VariErr's results/results.tsv (Weber-Genzel et al. 2024, Table 4), AP in points.
PAPER_AP = {"label_count": 40.8, "peer_ratio_per": 41.8, "peer_ratio_all": 41.9,
            "peer_sum_all": 46.5, "peer_sum_per": 42.2}


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


@pytest.fixture(scope="module")
def varierr():
    def read(name):
        return pd.read_csv(shared_path("data", "varierrnli", name), dtype=str,
                           keep_default_na=False)
    return read("annotations.csv"), read("errors.csv"), read("validity.csv")


def ap_of(scores, gold):
    return 100 * E.evaluate_error_ranking(scores, gold, n_boot=0).loc["all", "ap"]


# ------------------------------------------------------------------------------- hand examples
TOY = [("i1", "a", "x"), ("i1", "b", "x"), ("i1", "c", "y"),
       ("i2", "a", "y"), ("i2", "b", "y"), ("i2", "a", "z"),
       ("i3", "a", "x"), ("i3", "c", "x")]


def test_label_only_scores_by_hand():
    lc = E.error_scores(frame(TOY), method="label_count").set_index(["item_id", "label"])
    assert lc.loc[("i1", "y"), "score"] == -1 and lc.loc[("i1", "x"), "score"] == -2
    assert lc.loc[("i2", "z"), "n_annotators"] == 2
    share = E.error_scores(frame(TOY), method="share_others_not_choosing")
    share = share.set_index(["item_id", "label"])["score"]
    assert share[("i1", "y")] == pytest.approx(2 / 2) and share[("i1", "x")] == pytest.approx(1 / 2)
    assert share[("i2", "z")] == pytest.approx(1.0)
    prop = E.error_scores(frame(TOY), method="label_proportion").set_index(["item_id", "label"])
    assert prop.loc[("i2", "z"), "score"] == pytest.approx(-1 / 2)
    # singleton rates: a chose x,y,z,x -> z singleton on i2 (i2: a y, b y, a z) -> 1/4;
    # c chose y (i1, singleton), x (i3, shared with a) -> 1/2
    sing = E.error_scores(frame(TOY), method="annotator_singleton").set_index(["item_id", "label"])
    assert sing.loc[("i1", "y"), "score"] == pytest.approx(-1 + 0.5 * 0.5)
    assert sing.loc[("i2", "z"), "score"] == pytest.approx(-1 + 0.5 * 0.25)
    assert sing.loc[("i3", "x"), "score"] == pytest.approx(-2 + 0.5 * (0.25 + 0.5) / 2)


def test_empty_label_cell_is_refused_not_counted_as_an_annotator():
    # missing = no row, never a NaN cell (an empty cell is an error, not a label). Before,
    # b's empty row on i3 still counted b among i3's annotators (n_annotators 3 instead of 2, so
    # share_others_not_choosing of (i3, x) was 1/2 instead of 0); competence fits already refused it
    rows = frame(TOY)
    bad = pd.concat([rows, frame([("i3", "b", None)])], ignore_index=True)
    for method in ("label_count", "share_others_not_choosing", "label_proportion"):
        with pytest.raises(ValueError, match="empty"):
            E.error_scores(bad, method=method)
    with pytest.raises(ValueError, match="empty"):
        E.units(bad.assign(annotator_id=bad["annotator_id"].where(bad.index != 0)))
    # the same data with the row dropped: i3 has 2 annotators (a, c), both chose x
    ok = E.error_scores(rows, method="share_others_not_choosing").set_index(["item_id", "label"])
    assert ok.loc[("i3", "x"), "n_annotators"] == 2 and ok.loc[("i3", "x"), "score"] == 0.0


def test_output_sorted_with_ranks_and_rerank():
    out = E.error_scores(frame(TOY), method="label_count")
    assert list(out.columns) == ["item_id", "label", "n_chose", "n_annotators", "score", "rank"]
    assert out["score"].is_monotonic_decreasing
    assert out.loc[out["score"] == -1, "rank"].eq(1).all()
    rr = E.error_scores(frame(TOY), method="label_proportion", rerank_by_count=True)
    assert rr["n_chose"].is_monotonic_increasing


def test_posterior_scores_single_label_use_multiclass_fit():
    rows = [(f"i{i}", a, "x" if (i + ord(a)) % 4 else "y") for i in range(12) for a in "abc"]
    out = E.error_scores(frame(rows), method="ds_posterior")
    assert out["score"].between(0, 1).all()


def test_validity_methods_by_hand_and_self_refused():
    validity = pd.DataFrame(
        [("i1", "c", "y", 1, "a", "peer", 1), ("i1", "c", "y", 1, "b", "peer", 0),
         ("i1", "c", "y", 1, "c", "self", 0),
         ("i1", "a", "x", 1, "c", "peer", 1), ("i1", "b", "x", 1, "c", "peer", 1),
         ("i1", "b", "x", 1, "a", "peer", 1)],
        columns=["item_id", "annotator_id", "label", "explanation_index", "judge", "judge_type",
                 "valid"])
    s = {m: E.error_scores(frame(TOY), method=m, validity=validity).set_index(
        ["item_id", "label"])["score"] for m in E.VALIDITY_METHODS}
    assert s["peer_sum_all"][("i1", "x")] == -3 and s["peer_sum_all"][("i1", "y")] == -1
    assert s["peer_sum_per"][("i1", "x")] == -1.5
    assert s["peer_ratio_all"][("i1", "y")] == pytest.approx(-0.5)
    assert s["peer_ratio_per"][("i1", "x")] == pytest.approx(-1.0)
    only_self = validity[validity["judge_type"] == "self"]
    with pytest.raises(ValueError, match="self judgments"):
        E.error_scores(frame(TOY), method="peer_sum_all", validity=only_self)
    # a row labelled "peer" whose judge is the author is a self judgment too
    disguised = only_self.assign(judge_type="peer")
    with pytest.raises(ValueError, match="self judgments"):
        E.error_scores(frame(TOY), method="peer_sum_all", validity=disguised)
    for judges in ("self", "all"):
        with pytest.raises(ValueError, match="leaks the answer"):
            E.error_scores(frame(TOY), method="peer_sum_all", validity=validity, judges=judges)
    mixed = E.error_scores(frame(TOY), method="peer_sum_all", validity=validity, judges="self",
                           allow_self=True).set_index(["item_id", "label"])["score"]
    assert mixed[("i1", "y")] == 0           # c's own judgment of its explanation: not valid
    ok = E.error_scores(frame(TOY), method="peer_sum_all", validity=only_self, allow_self=True)
    assert len(ok) == 5 and "only self judgments were given" in ok.attrs["notes"][0]
    # judges="peer" means peers only: allow_self does not mix the self judgments back in, and
    # the left-out self judgments are said (Weber-Genzel et al. 2024, section 5)
    peers = E.error_scores(frame(TOY), method="peer_sum_all", validity=validity)
    lenient = E.error_scores(frame(TOY), method="peer_sum_all", validity=validity,
                             allow_self=True)
    pd.testing.assert_frame_equal(peers, lenient)
    n_self = int((validity["judge_type"] == "self").sum())
    assert peers.attrs["notes"] == [f"validity: {n_self} self judgment(s) (judge = author) left "
                                    "out; the scores use the peer judgments only."]
    with pytest.raises(ValueError, match="needs validity"):
        E.error_scores(frame(TOY), method="peer_sum_all")
    with pytest.raises(ValueError, match="method="):
        E.error_scores(frame(TOY), method="nope")


# ------------------------------------------------------------------------------------ metrics
def test_average_precision_matches_sklearn_with_ties():
    rng = np.random.default_rng(3)
    for _ in range(20):
        y = rng.integers(0, 2, 60)
        y[0] = 1
        s = rng.integers(0, 6, 60).astype(float)
        assert E.average_precision(y, s) == pytest.approx(average_precision_score(y, s))


def test_tie_aware_precision_and_recall_by_hand():
    y = [1, 0, 1, 0, 0, 1]
    s = [5, 4, 4, 4, 4, 1]
    # top-3: the 5 (hit) + 2 of the four tied 4s (1 positive among 4) -> 1 + 2 * 1/4 = 1.5
    assert E.precision_at_k(y, s, 3) == pytest.approx(1.5 / 3)
    assert E.recall_at_k(y, s, 3) == pytest.approx(1.5 / 3)
    assert E.precision_at_k(y, s, 1) == 1.0
    assert E.precision_at_k(y, s, 5) == pytest.approx(2 / 5)
    assert E.precision_at_k(y, s, 3, ties="argsort") in (1 / 3, 2 / 3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3)), min_size=2, max_size=6),
       st.integers(1, 6))
def test_tie_aware_precision_is_the_mean_over_all_tie_orders(pairs, k):
    y = np.array([p[0] for p in pairs], float)
    s = np.array([p[1] for p in pairs], float)
    k = min(k, len(y))
    hits = []
    for perm in itertools.permutations(range(len(y))):
        order = np.lexsort((np.asarray(perm), -s))     # score first, the permutation breaks ties
        hits.append(y[order[:k]].sum())
    expected = float(np.mean(hits))
    assert E.precision_at_k(y, s, k) == pytest.approx(expected / k, abs=1e-12)
    if y.sum() > 0:
        assert E.recall_at_k(y, s, k) == pytest.approx(expected / y.sum(), abs=1e-12)


def test_random_method_is_the_paper_random_baseline(varierr):
    df, gold, _ = varierr
    r = E.evaluate_error_ranking(E.error_scores(df, method="random"), gold, n_boot=0).loc["all"]
    base = E.random_baseline(129, 878)
    assert round(r["ap"], 4) == round(129 / 878, 4) == round(base["ap"], 4)
    assert r["p@50"] == pytest.approx(129 / 878) and r["r@100"] == pytest.approx(100 / 878)


# --------------------------------------------------------------------------- section 9D VariErr
def test_varierr_label_only_methods(varierr):
    df, gold, _ = varierr
    ap = {m: ap_of(E.error_scores(df, method=m), gold)
          for m in ("label_count", "share_others_not_choosing", "label_proportion",
                    "annotator_singleton", "ds_posterior")}
    assert abs(ap["label_count"] - PAPER_AP["label_count"]) < 0.1
    assert ap["share_others_not_choosing"] >= ap["label_count"]
    assert ap["label_proportion"] >= ap["label_count"]
    assert ap["annotator_singleton"] >= ap["label_count"] + 3
    assert ap["ds_posterior"] >= ap["label_count"] + 3
    assert ap["ds_posterior"] >= max(v for k, v in PAPER_AP.items() if k.startswith("peer"))


def test_varierr_peer_heuristics_match_the_paper(varierr):
    df, gold, validity = varierr
    for method in E.VALIDITY_METHODS:
        ap = ap_of(E.error_scores(df, method=method, validity=validity), gold)
        assert abs(ap - PAPER_AP[method]) <= 1.0, method
    self_rows = validity[validity["judge_type"] == "self"]
    with pytest.raises(ValueError, match="self"):
        E.error_scores(df, method="peer_ratio_per", validity=self_rows)


def test_row_order_keeps_posterior_ties_and_the_ranking(varierr):
    # permuting the rows changes no output beyond 1e-12 (any row order is the same data): items
    # with the same answers must stay exactly tied. Before, MACE summed rows in input order, so a
    # shuffle split ties by 1e-16 (126 -> 129 distinct scores) and moved AP by 0.17 points
    df, gold, _ = varierr
    shuffled = df.sample(frac=1.0, random_state=4).reset_index(drop=True)
    for method in ("mace_posterior", "ds_posterior"):
        a = E.error_scores(df, method=method)
        b = E.error_scores(shuffled, method=method)
        assert a["score"].nunique() == b["score"].nunique(), method
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=1e-12)
        assert ap_of(a, gold) == pytest.approx(ap_of(b, gold), abs=1e-10)


def test_evaluate_reports_missing_single_label_and_cis(varierr):
    df, gold, _ = varierr
    scores = E.error_scores(df, method="label_count")
    drop = scores.iloc[5:]
    res = E.evaluate_error_ranking(drop, gold, n_boot=50, seed=1)
    assert res.loc["all", "n_missing"] == 5 and res.loc["all", "n_ranked"] == 873
    assert res.loc["single_label", "n_ranked"] < res.loc["all", "n_ranked"]
    assert res.loc["all", "ap_lo"] <= res.loc["all", "ap"] <= res.loc["all", "ap_hi"]
    again = E.evaluate_error_ranking(drop, gold, n_boot=50, seed=1)
    pd.testing.assert_frame_equal(res, again)
    with pytest.raises(ValueError, match="is_error"):
        E.evaluate_error_ranking(scores, gold.drop(columns="is_error"))


def test_single_label_annotators_get_a_note_not_a_silent_ranking():
    """Label counts read as one pseudo-annotator per vote: Dawid-Skene learns nothing about
    anyone (the posterior is the class prior on every item, so the score of a label is the same
    on every item); the scores say so in their notes, the count methods need no note."""
    rows = [(f"i{i}", f"p{i}_{v}", "a" if v < 2 + i % 3 else "b")
            for i in range(12) for v in range(5)]
    df = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    scores = E.error_scores(df, method="ds_posterior")
    assert "every annotator gave a single label" in scores.attrs["notes"][0]
    per_label = scores.groupby("label")["score"].nunique()
    assert (per_label == 1).all()  # one score per label, whatever the item
    assert "notes" not in E.error_scores(df, method="label_count").attrs
