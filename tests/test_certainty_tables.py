"""hlv_core.certainty: the Certainty page's small computations as engine functions, equal
to the page's code today."""

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


def _page_allowed(model, r):
    """Copy of ``allowed`` in pages/certainty.py (commit 06b6ab3)."""
    return model != "pl" or math.isinf(r) or (r == int(r) and r <= 10)


def test_pl_reliability_allowed_equals_the_page():
    for model in ("dirichlet", "prirn", "pl"):
        for r in (0.01, 0.5, 1, 2, 3.5, 10, 11, 100, math.inf):
            assert pl_reliability_allowed(model, r) == _page_allowed(model, r)
    assert not pl_reliability_allowed("pl", 2.5) and pl_reliability_allowed("pl", math.inf)


def test_rank_predictors_equals_the_page(sweep_result):
    _, _, res = sweep_result
    acc = res.accuracy
    for metric, k in (("ua_accuracy", 1), ("ua_set_accuracy", 2)):
        sub = acc[(acc["k"] == k) & (acc["metric"] == metric)]
        old = sub[np.isfinite(sub["reliability"])].copy()
        old["rank"] = old.groupby(["model", "reliability"])["mean"].rank(ascending=False,
                                                                         method="min")
        new = rank_predictors(acc, metric=metric, k=k)
        pd.testing.assert_frame_equal(new, old)
        assert set(new["rank"]) <= {1.0, 2.0, 3.0} and not new.empty


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


def test_case_summary_and_set_coverage_equal_the_page(sweep_result):
    dataset, preds, _ = sweep_result
    case = 7
    counts = dataset.counts_array()[case][None, :]
    x_case = ce.sample_plausibilities("dirichlet", counts, reliability=1.0, n_samples=80,
                                      seed=1, prior=0.1, n_classes=dataset.n_labels)[0]
    base_case = ce.point_estimate("dirichlet", dataset.counts_array(),
                                  n_classes=dataset.n_labels)[case]
    labels = list(dataset.labels)
    # copy of the case view of pages/certainty.py (commit 06b6ab3)
    top_classes = np.argsort(-(base_case + x_case.mean(0)), kind="stable")[:8]
    names = [labels[c] for c in top_classes]
    old = pd.DataFrame({
        "class": names, "point_estimate": base_case[top_classes],
        "mean": x_case[:, top_classes].mean(0), "sd": x_case[:, top_classes].std(0),
        "p05": np.quantile(x_case[:, top_classes], 0.05, axis=0),
        "p95": np.quantile(x_case[:, top_classes], 0.95, axis=0)})
    new = case_summary(x_case, base_case, labels)
    pd.testing.assert_frame_equal(new.drop(columns="class_index"), old)
    top1 = np.argmax(x_case, axis=1)
    for q in preds.values():
        pset_old = ce.topk_sets(q[case], 1)
        pset, share = set_coverage(x_case, q[case], 1)
        np.testing.assert_array_equal(pset, pset_old)
        assert share == float(np.isin(top1, pset_old).mean())


def test_set_coverage_by_hand():
    samples = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    pset, share = set_coverage(samples, np.array([0.4, 0.35, 0.25]), 2)
    assert list(pset) == [0, 1]
    assert share == 0.75  # top-1 classes 0, 1, 2, 0 (tie to the lower index)
    table = case_summary(samples, np.array([0.0, 0.0, 1.0]), ["a", "b", "c"], top=2)
    assert list(table["class"]) == ["c", "b"]  # 1 + 0.275, then 0 + 0.375 > 0 + 0.35


def test_mean_ess_equals_the_page():
    """SweepResult.mean_ess: the page's ``ess`` list (pages/certainty.py, commit b2862bd), NaN for
    reliabilities without a PL sampler."""
    dataset = load_sample("dermatology")
    sub = dataset.selectors()[:12]
    res = ce.sweep("pl", sub, [1, math.inf], n_samples=8, seed=1, n_classes=dataset.n_labels,
                   burn_in=5)
    page = [float(np.nanmean(i["ess"])) if "ess" in i else np.nan for i in res.info]
    np.testing.assert_array_equal(res.mean_ess(), page)
    assert np.isfinite(res.mean_ess()[0]) and res.mean_ess()[0] > 0
    _, _, dirichlet = _dirichlet_result()
    assert all(math.isnan(e) for e in dirichlet.mean_ess())


def _dirichlet_result():
    dataset = load_sample("case_review")
    res = ce.sweep("dirichlet", ce.model_data(dataset, "dirichlet"), [1.0], n_samples=5, seed=0,
                   n_classes=dataset.n_labels)
    return dataset, None, res
