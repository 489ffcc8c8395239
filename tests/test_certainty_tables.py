"""hlv_core.certainty: the Certainty screen's small computations (allowed PL reliabilities,
model ranks, the case view's summary and set coverage, mean ESS), checked on hand-made inputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from hlv_core import certainty as ce
from hlv_core.certainty import (
    case_summary,
    pl_reliability_allowed,
    rank_predictors,
    set_coverage,
)
from hlv_core.io import prediction_matrix
from hlv_core.samples import load_sample


@pytest.fixture(scope="module")
def sweep_result():
    dataset = load_sample("case_review")
    preds = {m: prediction_matrix(dataset.predictions, dataset, m)[1]
             for m in ("calibrated", "overconfident", "weak")}
    res = ce.sweep("dirichlet", ce.model_data(dataset, "dirichlet"), [0.1, 1.0, math.inf],
                   n_samples=60, seed=2, prior=0.1, n_classes=dataset.n_labels,
                   predictions=preds, item_ids=list(dataset.item_ids))
    return dataset, preds, res


#: Plackett-Luce repeats each reader r times: whole r up to 10 and r = inf only.
PL_ALLOWED = {0.01: False, 0.5: False, 1: True, 2: True, 2.5: False, 3.5: False, 10: True,
              11: False, 100: False, math.inf: True}


def test_pl_reliability_allowed_by_hand():
    for r, allowed in PL_ALLOWED.items():
        assert pl_reliability_allowed("pl", r) is allowed, r
        assert pl_reliability_allowed("dirichlet", r) and pl_reliability_allowed("prirn", r)


def test_rank_predictors_by_hand():
    """Ranks per (model, finite reliability), 1 = best, ties share the smaller rank; other
    metrics, other k and r = inf left out."""
    rows = [("dirichlet", 1.0, "a", 1, "ua_accuracy", 0.8),
            ("dirichlet", 1.0, "b", 1, "ua_accuracy", 0.9),
            ("dirichlet", 1.0, "c", 1, "ua_accuracy", 0.8),
            ("dirichlet", 3.0, "a", 1, "ua_accuracy", 0.7),
            ("dirichlet", 3.0, "b", 1, "ua_accuracy", 0.6),
            ("dirichlet", math.inf, "a", 1, "ua_accuracy", 0.1),
            ("dirichlet", 1.0, "a", 2, "ua_accuracy", 0.0),
            ("dirichlet", 1.0, "a", 1, "ua_set_accuracy", 0.0),
            ("prirn", 1.0, "a", 1, "ua_accuracy", 0.5)]
    acc = pd.DataFrame(rows, columns=["model", "reliability", "predictor", "k", "metric",
                                      "mean"])
    ranked = rank_predictors(acc, metric="ua_accuracy", k=1)
    got = {(m, r, p): rank for m, r, p, rank in
           ranked[["model", "reliability", "predictor", "rank"]].itertuples(index=False)}
    assert got == {("dirichlet", 1.0, "a"): 2.0, ("dirichlet", 1.0, "b"): 1.0,
                   ("dirichlet", 1.0, "c"): 2.0, ("dirichlet", 3.0, "a"): 1.0,
                   ("dirichlet", 3.0, "b"): 2.0, ("prirn", 1.0, "a"): 1.0}


def test_rank_predictors_on_a_sweep(sweep_result):
    _, _, res = sweep_result
    new = rank_predictors(res.accuracy, metric="ua_set_accuracy", k=2)
    assert set(new["rank"]) <= {1.0, 2.0, 3.0} and not new.empty
    assert np.isfinite(new["reliability"]).all()


def test_page_histogram_statistics_are_the_sweep_certainty_table(sweep_result):
    """The page recomputes mean / median / share below 0.5 of top-1 certainty from per_case;
    SweepResult.certainty already holds them (no new function needed: read that row)."""
    _, _, res = sweep_result
    for r in (0.1, 1.0):
        c = res.per_case.loc[res.per_case["reliability"] == r, "certainty_top1"]
        row = res.certainty[(res.certainty["reliability"] == r) & (res.certainty["k"] == 1)]
        assert row["mean_certainty"].iloc[0] == pytest.approx(c.mean(), abs=1e-12)
        assert row["median"].iloc[0] == pytest.approx(c.median(), abs=1e-12)
        assert row["share_below_0.5"].iloc[0] == pytest.approx((c < 0.5).mean(), abs=1e-12)


def test_case_summary_statistics_by_hand():
    """Two samples of three classes: mean, population sd and numpy's linear quantiles."""
    samples = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
    table = case_summary(samples, np.array([0.5, 0.3, 0.2]), ["a", "b", "c"])
    # order by point + mean: a 0.5 + 0.4, b 0.3 + 0.4, c 0.2 + 0.2
    assert list(table["class"]) == ["a", "b", "c"]
    assert list(table["class_index"]) == [0, 1, 2]
    np.testing.assert_allclose(table["point_estimate"], [0.5, 0.3, 0.2])
    np.testing.assert_allclose(table["mean"], [0.4, 0.4, 0.2])
    np.testing.assert_allclose(table["sd"], [0.2, 0.1, 0.1])  # half the spread of two values
    # linear quantile of two values v0 < v1: v0 + q (v1 - v0)
    np.testing.assert_allclose(table["p05"], [0.2 + 0.05 * 0.4, 0.3 + 0.05 * 0.2,
                                              0.1 + 0.05 * 0.2])
    np.testing.assert_allclose(table["p95"], [0.2 + 0.95 * 0.4, 0.3 + 0.95 * 0.2,
                                              0.1 + 0.95 * 0.2])


def test_set_coverage_on_a_case(sweep_result):
    """The share of samples whose top-1 class is in the model's top-k set lies in [0, 1]; the
    full label set covers every sample."""
    dataset, preds, _ = sweep_result
    counts = dataset.counts_array()[7][None, :]
    x_case = ce.sample_plausibilities("dirichlet", counts, reliability=1.0, n_samples=80,
                                      seed=1, prior=0.1, n_classes=dataset.n_labels)[0]
    for q in preds.values():
        pset, share = set_coverage(x_case, q[7], 1)
        assert len(pset) == 1 and 0.0 <= share <= 1.0
        assert set_coverage(x_case, q[7], dataset.n_labels)[1] == 1.0


def test_set_coverage_by_hand():
    samples = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    pset, share = set_coverage(samples, np.array([0.4, 0.35, 0.25]), 2)
    assert list(pset) == [0, 1]
    assert share == 0.75  # top-1 classes 0, 1, 2, 0 (tie to the lower index)
    table = case_summary(samples, np.array([0.0, 0.0, 1.0]), ["a", "b", "c"], top=2)
    assert list(table["class"]) == ["c", "b"]  # 1 + 0.275, then 0 + 0.375 > 0 + 0.35


def test_mean_ess_by_hand():
    """SweepResult.mean_ess: the mean of the finite ESS values per reliability, NaN where the
    sampler reports none."""
    empty = pd.DataFrame()
    res = ce.SweepResult(empty, empty, empty,
                         [{"ess": [10.0, 20.0, np.nan]}, {}, {"ess": [np.inf, 4.0]}])
    got = res.mean_ess()
    assert got[0] == 15.0 and math.isnan(got[1]) and got[2] == 4.0


def test_mean_ess_of_a_plackett_luce_sweep():
    dataset = load_sample("dermatology")
    sub = dataset.selectors()[:12]
    res = ce.sweep("pl", sub, [1, math.inf], n_samples=8, seed=1, n_classes=dataset.n_labels,
                   burn_in=5)
    assert np.isfinite(res.mean_ess()[0]) and res.mean_ess()[0] > 0
    _, _, dirichlet = _dirichlet_result()
    assert all(math.isnan(e) for e in dirichlet.mean_ess())


def _dirichlet_result():
    dataset = load_sample("case_review")
    res = ce.sweep("dirichlet", ce.model_data(dataset, "dirichlet"), [1.0], n_samples=5, seed=0,
                   n_classes=dataset.n_labels)
    return dataset, None, res


def test_sweep_keeps_every_draw_and_every_case_of_the_ua_metrics():
    """Stutz et al., Figure 7: the sweep's per-draw dataset values are the ones its accuracy
    rows summarise (mean, sd, min, max), and its per-case values are the UA accuracy of each
    case over the same draws (checked against the dense samples of the same seed)."""
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 5, size=(12, 4))
    counts[:, 0] += 1
    preds = {"a": rng.random((12, 4)), "<b>b</b>": rng.random((12, 4))}
    ids = [f"item{i}" for i in range(12)]
    res = ce.sweep("dirichlet", counts, [0.5, 3.0, math.inf], n_samples=40, seed=2, ks=(1, 2),
                   predictions=preds, item_ids=ids, ao_depth=3, method="dense")
    keys = ["model", "reliability", "predictor", "k", "metric"]
    ua = res.accuracy[res.accuracy["metric"].str.startswith("ua_")]
    summary = res.per_sample.groupby(keys)["value"].agg(["mean", "std", "min", "max"])
    joined = ua.set_index(keys).join(summary.rename(columns=lambda c: f"{c}_draws"))
    assert len(joined) == len(ua) == len(summary) and (
        res.per_sample.groupby(keys).size() == 40).all()
    assert np.allclose(joined["mean"], joined["mean_draws"], rtol=0, atol=1e-12)
    assert np.allclose(joined["sd"], joined["std_draws"], rtol=0, atol=1e-12)
    assert (joined["min"] == joined["min_draws"]).all()
    assert (joined["max"] == joined["max_draws"]).all()
    by_case = res.per_case_accuracy
    assert (by_case.groupby(keys).size() == 12).all()
    assert list(by_case["item_id"][:12]) == ids
    x = ce.sample_plausibilities("dirichlet", counts, reliability=3.0, n_samples=40, seed=2,
                                 prior=ce.default_prior("dirichlet"))
    for k in (1, 2):
        for name, p in preds.items():
            pick = ((by_case["reliability"] == 3.0) & (by_case["predictor"] == name)
                    & (by_case["k"] == k) & (by_case["metric"] == "ua_accuracy"))
            got = by_case.loc[pick, "value"].to_numpy()
            assert np.allclose(got, ce.ua_accuracy_per_case(x, p, k=k), rtol=0, atol=1e-12)
    mean_of_cases = by_case.groupby(keys)["value"].mean()
    assert np.allclose(mean_of_cases.loc[summary.index], summary["mean"], rtol=0, atol=1e-12)
