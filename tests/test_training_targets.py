"""hlv_core.training target builders (Kurniawan et al., sections 4-5) incl. the AR/ARh worked check."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest

from hlv_core import training as tr
from hlv_core.io import DataError, load
from hlv_core.samples import load_sample

WORKED = (
    b"item_id,annotator_id,label\n"
    b"foo,A,True\nfoo,B,False\nfoo,C,True\nbar,A,False\nbar,C,True\nbaz,D,True\n"
)


def _csv(rows: list[tuple[str, str, str]]) -> bytes:
    return ("item_id,annotator_id,label\n" + "".join(f"{i},{a},{x}\n" for i, a, x in rows)).encode()


def test_methods_in_paper_order():
    assert tr.METHODS == ("ReL", "MV", "AR", "ARh", "AL", "SL", "SLMV", "AE", "AEh", "JSD",
                          "SmF1", "SMF1", "LA-min", "LA-max")
    assert set(tr.METHOD_INFO) == set(tr.METHODS)


def test_worked_check_arh():
    d = load(WORKED, name="worked.csv")
    w = tr.annotator_ranking_weights(d)
    assert w.loc["foo", "arh"] == pytest.approx(1.5)
    assert w.loc["bar", "arh"] == pytest.approx(1.5)
    assert w.loc["baz", "arh"] == pytest.approx(1.0)
    assert w.loc["bar", "mv_label"] == "False"  # 1-1 tie -> first seen
    # AR: A agrees on foo (2/3) and bar (1/2) -> 7/12; C on foo -> 2/3; D on baz -> 1
    assert w.loc["foo", "ar"] == pytest.approx(7 / 12 + 0 + 2 / 3)
    assert w.loc["bar", "ar"] == pytest.approx(7 / 12 + 2 / 3)
    assert w.loc["baz", "ar"] == pytest.approx(1.0)
    arh = tr.method_targets(d, "ARh")
    assert arh["weight"].tolist() == pytest.approx([1.5, 1.5, 1.0])


def test_ar_first_seen_tie_differs_from_mv_target():
    # bar: True seen first, then False -> AR's internal MV = True; MV target = False (inventory)
    d = load(_csv([("bar", "C", "True"), ("bar", "A", "False"), ("foo", "A", "True"),
                   ("foo", "C", "True")]), name="tie.csv")
    w = tr.annotator_ranking_weights(d)
    assert w.loc["bar", "mv_label"] == "True"
    mv = tr.mv_targets(d).set_index("item_id")
    assert mv.loc["bar", "False"] == 1.0 and mv.loc["bar", "True"] == 0.0


def _naive_weights(rows, labels):
    """Straight transcription of the multiclass target definitions with dictionaries."""
    by_item = defaultdict(list)
    for item, ann, lab in rows:
        by_item[item].append((ann, lab))
    mv, mv_prob = {}, {}
    for item, recs in by_item.items():
        counts = Counter(lab for _, lab in recs)
        top = max(counts.values())
        first = next(lab for _, lab in recs if counts[lab] == top)
        mv[item], mv_prob[item] = first, top / len(recs)
    c, g, s = Counter(), Counter(), defaultdict(float)
    for item, recs in by_item.items():
        for ann, lab in recs:
            c[ann] += 1
            if lab == mv[item]:
                g[ann] += 1
                s[ann] += mv_prob[item]
    arh = {i: sum(g[a] / c[a] for a, _ in recs) for i, recs in by_item.items()}
    ar = {i: sum(s[a] / g[a] if g[a] else 0.0 for a, _ in recs) for i, recs in by_item.items()}
    return ar, arh


def test_ar_weights_match_naive_on_random_data():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):
        anns = rng.choice(12, size=rng.integers(1, 6), replace=False)
        rows += [(f"i{i:02d}", f"a{a:02d}", "xyz"[rng.integers(0, 3)]) for a in anns]
    d = load(_csv(rows), name="rand.csv")
    ar, arh = _naive_weights(rows, d.labels)
    w = tr.annotator_ranking_weights(d)
    for item in ar:
        assert w.loc[item, "ar"] == pytest.approx(ar[item], abs=1e-12)
        assert w.loc[item, "arh"] == pytest.approx(arh[item], abs=1e-12)


def test_multilabel_ar_weights_by_hand():
    # K=2 labels {x, y}; item1: A{x}, B{x,y}; item2: A{y}, B{y}
    d = load(
        _csv([("i1", "A", "x"), ("i1", "B", "x"), ("i1", "B", "y"), ("i2", "A", "y"),
              ("i2", "B", "y")]),
        name="ml.csv",
        task="multilabel",
    )
    assert d.task == "multilabel"
    w = tr.annotator_ranking_weights(d)
    # P: i1 x=1, y=.5 -> MV {x}; i2 x=0, y=1 -> MV {y}
    # A: i1 x agree, y agree (unselected & not MV); i2 x agree, y agree -> g_A=(2,2), c_A=2
    # B: i1 x agree, y disagree; i2 x agree, y agree -> g_B=(2,1)
    # ARh w_i1 = (1/2)[(2/2+2/2) + (2/2+1/2)] = 1.75 ; same for i2 (same annotators)
    assert w.loc["i1", "arh"] == pytest.approx(1.75)
    # s: A: x: i1 P=1 (in MV) + i2 1-0=1 -> 2 ; y: i1 1-.5=.5 + i2 1 -> 1.5
    #    B: x: 1 + 1 = 2 ; y: i2 1 -> 1
    # AR = (1/2)[(2/2 + 1.5/2) + (2/2 + 1/1)] = (1.75 + 2) / 2
    assert w.loc["i1", "ar"] == pytest.approx((1.75 + 2) / 2)
    with pytest.raises(ValueError, match="multilabel"):
        tr.al_targets(d)


def test_target_shapes_on_samples():
    d = load_sample("case_review")
    P = d.judgements_array()
    rel = tr.rel_targets(d)
    pairs = d.annotations[["item_id", "annotator_id"]].drop_duplicates()
    assert len(rel) == len(pairs)
    labels = list(d.labels)
    assert (rel[labels].sum(axis=1) == 1).all()
    sl = tr.sl_targets(d)
    np.testing.assert_allclose(sl[labels].to_numpy(), P)
    mv = tr.mv_targets(d)
    assert (mv[labels].to_numpy().argmax(axis=1) == P.argmax(axis=1)).all()
    al = tr.al_targets(d)
    assert len(al) == int((P > 0).sum())
    slmv = tr.slmv_targets(d)
    assert len(slmv) == 2 * d.n_items and set(slmv["head"]) == {"soft", "hard"}
    la = tr.la_targets(d)
    assert la.groupby("example").size().sum() == len(rel)
    for method in tr.METHODS:
        frame = tr.method_targets(d, method)
        assert {"example", "item_id", "weight", *labels} <= set(frame.columns), method
    ml = load_sample("legal_areas")
    mv_ml = tr.mv_targets(ml)
    np.testing.assert_array_equal(mv_ml[list(ml.labels)].to_numpy(),
                                  (ml.judgements_array() > 0.5).astype(float))


def test_ranking_data_is_refused():
    with pytest.raises(DataError, match="ranking"):
        tr.mv_targets(load_sample("dermatology"))
    with pytest.raises(ValueError, match="unknown method"):
        tr.method_targets(load_sample("case_review"), "XYZ")


def test_ensemble_paper_example():
    heads = np.array([[[0.4, 0.6]], [[0.7, 0.3]], [[0.1, 0.9]]])  # 3 heads, 1 item, 2 classes
    assert tr.ensemble(heads)[0, 1] == pytest.approx(0.6)
    assert tr.ensemble(heads, hard=True)[0, 1] == pytest.approx(2 / 3)
    sig = np.array([[[0.6]], [[0.3]], [[0.9]]])
    assert tr.ensemble(sig, hard=True, multilabel=True)[0, 0] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="heads"):
        tr.ensemble(np.ones((2, 2)))


def test_la_selection_min_max():
    d = load(WORKED, name="worked.csv")
    Q = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])  # rows: foo, bar, baz
    low = tr.la_selection(d, Q, mode="min")
    high = tr.la_selection(d, Q, mode="max")
    pick = lambda f, item: f[(f["item_id"] == item) & f["chosen"]]["annotator_id"].tolist()  # noqa: E731
    assert pick(low, "foo") == ["A"]  # first of the two True annotations (loss -ln .8)
    assert pick(high, "foo") == ["B"]
    assert pick(low, "bar") == ["A"] and pick(high, "bar") == ["C"]
    assert low.groupby("item_id")["chosen"].sum().eq(1).all()
    foo_a = low[(low["item_id"] == "foo") & (low["annotator_id"] == "A")]["loss"].iloc[0]
    assert foo_a == pytest.approx(-np.log(0.8))
    with pytest.raises(ValueError, match="shape"):
        tr.la_selection(d, Q[:2])
    assert isinstance(low, pd.DataFrame)
