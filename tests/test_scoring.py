"""hlv_core.scoring: one door for scoring models (page, review page and CLI give the same numbers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import review
from hlv_core import soft_metrics as sm
from hlv_core.cli.metrics import metrics_table
from hlv_core.io import DataError, load, prediction_matrix
from hlv_core.samples import load_sample, sample_path
from hlv_core.scoring import (
    SCORE_COLUMNS,
    item_verdicts,
    metric_matrix,
    metric_ranks,
    metric_winners,
    score_model,
    score_models,
)

SAMPLES = ["case_review", "legal_areas", "ratings"]


def _partial(preds: pd.DataFrame, model: str, drop: int) -> pd.DataFrame:
    """Predictions where ``model`` misses its first ``drop`` items (partial coverage)."""
    first = list(pd.unique(preds.loc[preds["model"] == model, "item_id"]))[:drop]
    return preds[~((preds["model"] == model) & preds["item_id"].isin(first))]


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("n_boot", [0, 50])
def test_score_model_on_the_items_a_model_predicts(name, n_boot):
    """P: the human distributions of the model's items, Q: its probabilities; soft accuracy is
    mean_i sum_k min(P_ik, Q_ik) (Kurniawan et al., section 3); one per-item row per item;
    settings stamped on every row."""
    dataset = load_sample(name)
    preds = _partial(dataset.predictions, "weak", 7)
    position = {item: i for i, item in enumerate(dataset.item_ids)}
    for model in pd.unique(preds["model"]):
        new = score_model(dataset, preds, model, n_boot=n_boot, seed=3)
        ids, q = prediction_matrix(preds, dataset, model)
        assert new.item_ids == list(ids)
        np.testing.assert_array_equal(new.Q, q)
        np.testing.assert_array_equal(
            new.P, dataset.judgements_array()[[position[i] for i in ids]])
        table = new.table.set_index("metric")
        if dataset.task != "multilabel":
            assert table.at["soft_accuracy", "value"] == pytest.approx(
                np.minimum(new.P, new.Q).sum(axis=1).mean(), abs=1e-12)
        assert (table["n_items"] == len(ids)).all() and (table["seed"] == 3).all()
        assert (table["model"] == model).all()
        if n_boot:
            ok = table.dropna(subset=["lower", "upper", "value"])
            assert not ok.empty
            assert (ok["lower"] <= ok["upper"]).all() and (ok["n_boot"] == n_boot).all()
        assert len(new.items) == len(ids) and (new.items["model"] == model).all()
        assert (new.classwise["model"] == model).all()
    assert score_model(dataset, preds, "weak").table["n_items"].iloc[0] == dataset.n_items - 7


# Four coders, three items; model "m" predicts every item, model "h" only i3.
# P (neg, pos): i1 (0.5, 0.5), i2 (0.75, 0.25), i3 (0, 1).
TOY = ("item_id,annotator_id,label\n"
       "i1,a,pos\ni1,b,pos\ni1,c,neg\ni1,d,neg\n"
       "i2,a,neg\ni2,b,neg\ni2,c,neg\ni2,d,pos\n"
       "i3,a,pos\ni3,b,pos\ni3,c,pos\ni3,d,pos\n")
TOY_PREDS = pd.DataFrame({
    "model": ["m"] * 6 + ["h"] * 2,
    "item_id": ["i1", "i1", "i2", "i2", "i3", "i3", "i3", "i3"],
    "label": ["neg", "pos"] * 4,
    "prob": [0.5, 0.5, 0.9, 0.1, 0.2, 0.8, 0.0, 1.0],  # Q of m: (.5,.5), (.9,.1), (.2,.8)
})


@pytest.mark.parametrize("n_boot", [0, 30])
def test_score_models_by_hand(n_boot):
    """Hand-computed values on a three-item toy; one row per (model, metric), models in order of
    appearance, each row stamped with the model's coverage, the dataset size and the settings."""
    dataset = load(TOY.encode(), name="toy.csv")
    table = score_models(dataset, TOY_PREDS, n_boot=n_boot, seed=5)
    assert list(table.columns) == SCORE_COLUMNS
    assert list(pd.unique(table["model"])) == ["m", "h"]
    got = table.set_index(["model", "metric"])
    # soft accuracy = mean_i sum_k min(P_ik, Q_ik): m (1 + 0.85 + 0.8) / 3, h 1 (i3 only)
    assert got.at[("m", "soft_accuracy"), "value"] == pytest.approx(2.65 / 3, abs=1e-12)
    assert got.at[("h", "soft_accuracy"), "value"] == pytest.approx(1.0, abs=1e-12)
    # LeWiDi Manhattan = mean_i sum_k |P_ik - Q_ik|: m (0 + 0.3 + 0.4) / 3, h 0
    assert got.at[("m", "lewidi_manhattan"), "value"] == pytest.approx(0.7 / 3, abs=1e-12)
    assert got.at[("h", "lewidi_manhattan"), "value"] == pytest.approx(0.0, abs=1e-12)
    # h sees one item: entropy correlation is undefined, and says why
    assert np.isnan(got.at[("h", "entropy_correlation"), "value"])
    assert "2 items" in got.at[("h", "entropy_correlation"), "note"]
    assert got.at[("m", "soft_accuracy"), "note"] == ""
    for model, n_items in (("m", 3), ("h", 1)):
        rows = table[table["model"] == model]
        assert list(rows["metric"]) == list(table.loc[table["model"] == "m", "metric"])
        assert (rows["n_items"] == n_items).all() and (rows["n_items_total"] == 3).all()
        assert (rows["seed"] == 5).all() and (rows["n_boot"] == n_boot).all()
        assert not rows["multilabel"].any()
        for metric, group, higher in rows[["metric", "group", "higher_is_better"]].itertuples(
                index=False):
            assert (group, higher) == sm.METRIC_INFO[metric][:2]
    if n_boot:
        row = got.loc[("m", "soft_accuracy")]
        assert row["lower"] <= row["value"] <= row["upper"]
    else:
        assert table[["lower", "upper"]].isna().all().all()


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("n_boot", [0, 40])
def test_score_models_equals_the_metrics_cli(name, n_boot):
    """The metrics command is score_models on the loaded files: same table, every column."""
    folder = sample_path(name)
    dataset = load_sample(name)
    new = score_models(dataset, dataset.predictions, n_boot=n_boot, seed=5)
    assert list(new.columns) == SCORE_COLUMNS
    cli = metrics_table(str(folder), str(folder / "predictions.csv"), n_boot=n_boot, seed=5)
    pd.testing.assert_frame_equal(cli, new)


@pytest.mark.parametrize("name", SAMPLES)
def test_metric_matrix_equals_the_review_page(name):
    """pages/review.py ``metrics_per_model``: review.model_metrics per model on its own items,
    without the LeWiDi distances."""
    dataset = load_sample(name)
    preds = _partial(dataset.predictions, "calibrated", 11)
    models = ("calibrated", "overconfident", "weak")
    P_all = pd.DataFrame(dataset.judgements_array(), index=list(dataset.item_ids))
    tables = []
    for model in models:
        item_ids, Q = prediction_matrix(preds, dataset, model)
        P = P_all.loc[list(item_ids)].to_numpy()
        tables.append(review.model_metrics(P, {model: Q},
                                           multilabel=dataset.task == "multilabel"))
    old = pd.concat(tables)
    new = metric_matrix(score_models(dataset, preds, models=models, lewidi=False))
    pd.testing.assert_frame_equal(new, old)


def test_score_models_keeps_the_requested_order_and_refuses_rankings():
    dataset = load_sample("case_review")
    table = score_models(dataset, dataset.predictions, models=["weak", "calibrated"])
    assert list(pd.unique(table["model"])) == ["weak", "calibrated"]
    assert list(metric_matrix(table).index) == ["weak", "calibrated"]
    with pytest.raises(DataError, match="no predictions for model"):
        score_models(dataset, dataset.predictions, models=["nobody"])
    ranked = load_sample("dermatology")
    with pytest.raises(DataError, match="rankings"):
        score_models(ranked, ranked.predictions)


def test_score_model_values_follow_the_formula():
    """Soft accuracy = mean_i sum_k min(P_ik, Q_ik) on the model's own items (hand check)."""
    dataset = load_sample("case_review")
    preds = _partial(dataset.predictions, "overconfident", 5)
    res = score_model(dataset, preds, "overconfident")
    value = res.table.set_index("metric").at["soft_accuracy", "value"]
    assert value == pytest.approx(np.minimum(res.P, res.Q).sum(axis=1).mean(), abs=1e-12)
    assert res.P.shape == res.Q.shape == (dataset.n_items - 5, dataset.n_labels)


def test_metric_ranks_and_winners_by_hand():
    """Soft accuracy: higher is better; LeWiDi Manhattan: lower is better; ties share the smaller
    rank, NaN gets none; winners joined in sorted order."""
    table = pd.DataFrame({
        "model": ["b", "a", "c", "b", "a", "c"],
        "metric": ["soft_accuracy"] * 3 + ["lewidi_manhattan"] * 3,
        "value": [0.7, 0.9, 0.9, 0.2, 0.3, np.nan],
        "higher_is_better": [True] * 3 + [False] * 3,
    })
    ranks = metric_ranks(table)
    got = {(str(m), mo): r for m, mo, r in ranks[["metric", "model", "rank"]].itertuples(
        index=False) if not np.isnan(r)}
    assert got == {("soft_accuracy", "a"): 1.0, ("soft_accuracy", "c"): 1.0,
                   ("soft_accuracy", "b"): 3.0, ("lewidi_manhattan", "b"): 1.0,
                   ("lewidi_manhattan", "a"): 2.0}
    assert np.isnan(ranks.loc[(ranks["metric"] == "lewidi_manhattan") & (ranks["model"] == "c"),
                              "rank"]).all()
    # rows sorted by metric (the metric table's order) then model
    order = [m for m in sm.METRIC_INFO if m in {"soft_accuracy", "lewidi_manhattan"}]
    assert list(dict.fromkeys(map(str, ranks["metric"]))) == order
    winners = metric_winners(ranks)
    assert winners["soft_accuracy"] == "a, c" and winners["lewidi_manhattan"] == "b"


@pytest.mark.parametrize("name", SAMPLES)
def test_metric_ranks_on_a_sample(name):
    dataset = load_sample(name)
    ranks = metric_ranks(score_models(dataset, dataset.predictions))
    best = ranks[ranks["metric"] == "lewidi_manhattan"].sort_values("value")
    assert best["rank"].iloc[0] == 1  # lower-is-better distance: smallest value wins


def test_item_verdicts_follow_the_rule():
    toy = pd.DataFrame({"hard_correct": [True, True, False, False, False],
                        "soft_overlap": [0.9, 0.1, 0.9, 0.1, 0.8]})
    assert list(item_verdicts(toy)) == ["agree", "hard right, soft far",
                                        "hard wrong, soft matches", "agree",
                                        "hard wrong, soft matches"]  # the default 0.8 counts
    assert list(item_verdicts(toy, 0.95)) == ["hard right, soft far", "hard right, soft far",
                                              "agree", "agree", "agree"]
