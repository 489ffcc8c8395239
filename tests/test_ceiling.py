"""The human ceiling: every annotator against the others on the metrics of Kurniawan et al.

Oracle: the :mod:`hlv_core.soft_metrics` functions (``evaluate``, ``hard_prfs``, ``soft_prfs``)
applied annotator by annotator to (P^{-j}, one-hot of j's labels), built with plain loops.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import judge
from hlv_core import soft_metrics as sm
from hlv_core.ceiling import CEILING_METRICS, CEILING_METRICS_MULTILABEL, ENTROPY_REASON
from hlv_core.io import load
from tests.conftest import shared_path


def _oracle(frame: pd.DataFrame, labels, *, min_others=2, min_items=30, model=None,
            multilabel=False):
    """{annotator: {metric: value}} (and the model's) by loops and soft_metrics."""
    K = len(labels)
    sets: dict = {}
    for i, a, lab in frame[["item_id", "annotator_id", "label"]].itertuples(index=False):
        sets.setdefault(str(i), {}).setdefault(str(a), set()).add(str(lab))
    human, mod = {}, {}
    items_of: dict = {}
    for i, anns in sets.items():
        for a in anns:
            items_of.setdefault(a, []).append(i)
    for a in dict.fromkeys(frame["annotator_id"].astype(str)):
        P, Q, M = [], [], []
        for i in items_of[a]:
            anns = sets[i]
            if len(anns) - 1 < min_others:
                continue
            others = [anns[o] for o in anns if o != a]
            P.append([sum(lab in s for s in others) / len(others) for lab in labels])
            Q.append([float(lab in anns[a]) for lab in labels])
            if model is not None:
                M.append(model[i])
        if len(P) < min_items:
            continue
        human[a] = _twelve(np.array(P), np.array(Q), multilabel)
        if model is not None:
            mod[a] = _twelve(np.array(P), np.array(M), multilabel)
    assert K
    return human, mod


def _twelve(P, Q, multilabel):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
        out = dict(sm.evaluate(P, Q, multilabel=multilabel))
        hard = sm.hard_prfs(P, Q, multilabel=multilabel)
        soft = sm.soft_prfs(P, Q)
    out.update(hard_macro_precision=hard["macro_precision"],
               hard_macro_recall=hard["macro_recall"],
               soft_macro_precision=soft["macro_precision"],
               soft_macro_recall=soft["macro_recall"])
    return out


def _check(res, human, metrics):
    table = res.per_annotator.set_index(["annotator", "metric"])
    assert sorted(table.index.get_level_values(0).unique()) == sorted(human)
    for a, values in human.items():
        for metric in metrics:
            got = table.at[(a, metric), "value"]
            want = values[metric]
            if np.isnan(want):
                assert np.isnan(got), (a, metric)
            else:
                assert got == pytest.approx(want, abs=1e-9), (a, metric)
    for metric in metrics:
        vals = np.array([human[a][metric] for a in human])
        ok = ~np.isnan(vals)
        if ok.any():
            assert res.summary.at[metric, "value"] == pytest.approx(vals[ok].mean(), abs=1e-9)
        assert res.summary.at[metric, "n_defined"] == ok.sum()


@st.composite
def _data(draw):
    n_items = draw(st.integers(6, 14))
    n_ann = draw(st.integers(3, 5))
    labels = ["a", "b", "c"]
    rows = []
    for i in range(n_items):
        for a in range(n_ann):
            if a < 3 or draw(st.booleans()):
                rows.append((f"i{i}", f"r{a}", draw(st.sampled_from(labels))))
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), labels


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(_data())
def test_per_annotator_values_equal_soft_metrics(data):
    frame, _ = data
    labels = sorted(frame["label"].unique())  # a table's inventory = the labels it holds
    res = judge.human_ceiling(frame, min_items=3, n_boot=20)
    human, _ = _oracle(frame, labels, min_items=3)
    _check(res, human, CEILING_METRICS)
    assert res.per_annotator.query("metric == 'entropy_correlation'")["value"].isna().all()
    assert res.reasons["entropy_correlation"] == ENTROPY_REASON


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hs_brexit", "md_agreement"])
def test_lewidi_sets_with_the_prior_model(name):
    folder = shared_path("data", name)
    dataset = load(folder)
    items = pd.read_csv(folder / "items.csv", dtype=str)
    frame = dataset.annotations.astype(str)
    train = set(items.loc[items["split"] == "train", "item_id"])
    tr = frame[frame["item_id"].isin(train)]
    prior = tr["label"].value_counts(normalize=True).reindex(list(dataset.labels)).to_numpy()
    Q = np.tile(prior, (dataset.n_items, 1))
    res = judge.human_ceiling(dataset, model=Q, n_boot=200)
    model = dict(zip(map(str, dataset.item_ids), Q, strict=True))
    human, mod = _oracle(frame, list(dataset.labels), model=model)
    _check(res, human, CEILING_METRICS)
    n_unscored = int((~res.annotators["scored"]).sum())
    assert n_unscored == dataset.n_annotators - len(human)
    for metric in CEILING_METRICS:
        vals = np.array([mod[a][metric] for a in mod])
        ok = ~np.isnan(vals)
        want = vals[ok].mean() if ok.any() else np.nan
        got = res.model_same_targets.at[metric, "model"]
        assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-9)
    # CIs bracket the point value (percentile bootstrap)
    s = res.summary.dropna()
    assert ((s["lower"] <= s["value"] + 1e-12) & (s["value"] <= s["upper"] + 1e-12)).all()
    assert res.model_full["hard_accuracy"] == pytest.approx(
        sm.hard_accuracy(dataset.judgements_array(), Q))


def test_multilabel_ceiling():
    rng = np.random.default_rng(4)
    rows = []
    for i in range(12):
        for a in range(4):
            for lab in ("x", "y"):
                if rng.random() < 0.5:
                    rows.append((f"i{i}", f"r{a}", lab))
            rows.append((f"i{i}", f"r{a}", "z"))
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    res = judge.human_ceiling(frame, multilabel=True, min_items=5, n_boot=10)
    human, _ = _oracle(frame, ["x", "y", "z"], min_items=5, multilabel=True)
    _check(res, human, CEILING_METRICS_MULTILABEL)


def test_bootstrap_is_seeded_and_counts_undefined():
    frame = pd.DataFrame([(f"i{i}", f"r{a}", "ab"[(i * a) % 2]) for i in range(30)
                          for a in range(4)], columns=["item_id", "annotator_id", "label"])
    a = judge.human_ceiling(frame, min_items=10, n_boot=50, seed=3)
    b = judge.human_ceiling(frame, min_items=10, n_boot=50, seed=3)
    pd.testing.assert_frame_equal(a.per_annotator, b.per_annotator)
    pd.testing.assert_frame_equal(a.summary, b.summary)
    assert (a.per_annotator["n_valid"] <= 50).all()
    assert a.summary.at["entropy_correlation", "n_defined"] == 0


def test_unscored_annotators_and_errors():
    frame = pd.DataFrame([(f"i{i}", f"r{a}", "ab"[(i + a) % 2]) for i in range(12)
                          for a in range(3)], columns=["item_id", "annotator_id", "label"])
    with pytest.raises(ValueError, match="no annotator can be scored"):
        judge.human_ceiling(frame)
    res = judge.human_ceiling(frame, min_items=5, n_boot=0)
    assert res.annotators["scored"].all() and res.summary["lower"].isna().all()
    with pytest.raises(ValueError, match="shape"):
        judge.human_ceiling(frame, min_items=5, n_boot=0, model=np.ones((3, 2)))
    with pytest.raises(ValueError, match="sum"):
        judge.human_ceiling(frame, min_items=5, n_boot=0, model=np.full((12, 2), 0.7))
