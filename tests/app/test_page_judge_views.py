"""AppTest of the "Against the human pool" tab of pages/soft_metrics.py: the human ceiling, the
alternative annotator test and calibration to humans, on the bundled samples and on counts-only
data; every number shown is the engine's (hlv_core.judging)."""

from __future__ import annotations

import numpy as np
import pytest

from hlv_core.io import load
from hlv_core.judging import (
    alt_test_summary,
    ceiling_table,
    run_alt_tests,
    run_calibration,
    run_ceiling,
)
from hlv_core.samples import load_sample
from pages.soft_metrics.judge_views import CEILING_COLUMNS, COUNTS_ONLY, VIEWS
from tests.conftest import shared_path

from .conftest import open_page

PAGE = "soft_metrics"
TAB = "Against the human pool"


def _open(app, sample, view, **state):
    at = open_page(app, PAGE, sample)
    at.session_state["soft_metrics.tab"] = TAB
    at.session_state["soft_metrics.pool_view"] = view
    for k, v in state.items():
        at.session_state[f"soft_metrics.{k}"] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [i.value for i in at.info] + [w.value for w in at.warning]
    return "\n".join(parts + [s.value for s in at.success])


def _shown_ceiling(at, want):
    """The ceiling table the page shows, in the engine's column names, checked against the
    engine's ``want`` on the ceiling column."""
    shown = next(d.value for d in at.dataframe
                 if CEILING_COLUMNS["ceiling"] in d.value.columns).rename(
        columns={v: k for k, v in CEILING_COLUMNS.items()})
    assert np.allclose(shown["ceiling"].to_numpy(float), want["ceiling"].to_numpy(float),
                       equal_nan=True)
    return shown


def test_ceiling_view_shows_the_engine_numbers(app):
    at = _open(app, "case_review", VIEWS[0], ceil_boot=100)
    dataset = load_sample("case_review")
    res, _ = run_ceiling(dataset, dataset.predictions, "calibrated", n_boot=100, seed=0)
    want = ceiling_table(res)
    shown = _shown_ceiling(at, want)
    assert np.allclose(shown["model_same_targets"].to_numpy(float),
                       want["model_same_targets"].to_numpy(float), equal_nan=True)
    text = _texts(at)
    assert "zero entropy" in text and "single-annotator ceiling" in text
    assert "random seed 0" in text
    assert len(at.get("plotly_chart")) >= 1
    # the flag compares the model's mean with the ceiling's CI, and says so
    above = want[want["above_ceiling"]]
    assert CEILING_COLUMNS["above_ceiling"] == "model above the ceiling CI"
    if len(above):
        assert "upper end of the human ceiling's 95% confidence interval" in text
    assert bool(shown["above_ceiling"].any()) == bool(len(above))


def test_alt_test_view_with_baseline_and_curve(app):
    at = _open(app, "case_review", VIEWS[1])
    dataset = load_sample("case_review")
    results, _ = run_alt_tests(dataset, dataset.predictions, epsilon=0.2)
    want = alt_test_summary(results)
    shown = next(d.value for d in at.dataframe if "winning_rate" in d.value.columns)
    assert list(shown["model"]) == list(want["model"])
    assert "constant majority (baseline)" in list(shown["model"])
    assert np.allclose(shown["winning_rate"].to_numpy(float), want["winning_rate"].to_numpy(float))
    text = _texts(at)
    assert "winning rate" in text and "ε = 0.2" in text
    assert len(at.get("plotly_chart")) == 1  # the omega-versus-epsilon curve
    # crowd preset: epsilon 0.1
    at.session_state["soft_metrics.alt_preset"] = "crowd"
    at.run()
    assert not at.exception
    assert "ε = 0.1" in _texts(at)


def test_alt_test_only_labels_may_lie_outside_the_inventory(app):
    """An LLM judge's labels uploaded in the test's own uploader: an answer no annotator gave
    is kept with a note and never matches; the numbers are the engine's on the same table."""
    import io

    import pandas as pd

    from hlv_core.io import load_predictions

    dataset = load_sample("case_review")
    items = list(dataset.item_ids)
    majority = dataset.majority_label()
    labels = [str(majority.loc[i]) for i in items]
    labels[:5] = ["<i>None of the above</i>"] * 5
    buffer = io.StringIO()
    pd.DataFrame({"item_id": items, "label": labels, "model": "llm judge"}).to_csv(
        buffer, index=False)
    raw = buffer.getvalue().encode()
    at = _open(app, "case_review", VIEWS[1])
    at.file_uploader(key="soft_metrics.alt_upload").set_value(("llm.csv", raw, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    text = _texts(at)
    assert "5 hard label(s) outside the dataset's labels kept" in text
    assert "<i>None of the above</i>" not in text  # shown escaped, never as markup
    frame = load_predictions(raw, dataset, name="llm.csv", unknown_labels="keep")
    want = alt_test_summary(run_alt_tests(
        dataset, pd.concat([dataset.predictions, frame], ignore_index=True), epsilon=0.2)[0])
    shown = next(d.value for d in at.dataframe if "winning_rate" in d.value.columns)
    assert "llm judge" in list(shown["model"])
    assert list(shown["model"]) == list(want["model"])
    assert np.allclose(shown["rho"].to_numpy(float), want["rho"].to_numpy(float),
                       equal_nan=True)


def test_calibration_view(app):
    at = _open(app, "case_review", VIEWS[2], cal_t=2.0)
    shown = next(d.value for d in at.dataframe if "model" in d.value.columns
                 and any("DistCE" in str(c) for c in d.value.columns))
    assert "oracle (Q = human distribution)" in list(shown["model"])
    assert len(at.get("plotly_chart")) == 2  # reliability diagram + DistCE histogram
    assert "Temperature 2" in _texts(at)
    # class-wise ECE (Baan et al. 2022, section 3) under each class's name, the engine's values
    dataset = load_sample("case_review")
    want = run_calibration(dataset, dataset.predictions, temperature=2.0).set_index("model")
    for k, label in enumerate(dataset.labels):
        column = f"Class-wise ECE: {label}"
        assert np.allclose(shown.set_index("model")[column].to_numpy(float),
                           want[f"classwise_ece_{k}"].to_numpy(float))


def test_multilabel_sample_and_ratings(app):
    at = _open(app, "legal_areas", VIEWS[0], ceil_boot=50)
    assert any(CEILING_COLUMNS["ceiling"] in d.value.columns for d in at.dataframe)
    at = _open(app, "legal_areas", VIEWS[2])
    assert "one label per vote" in _texts(at)
    at = _open(app, "legal_areas", VIEWS[1])  # label sets: exact set equality
    assert "constant majority (baseline)" in _texts(at)
    at = _open(app, "ratings", VIEWS[1])
    assert "constant majority (baseline)" in _texts(at)


@pytest.mark.slow
def test_counts_only_data_says_why(app):
    folder = shared_path("data", "chaosnli_calibration")
    dataset = load(folder)
    assert dataset.predictions is not None  # predictions.csv is read with the folder
    at = open_page(app, PAGE, "case_review")
    at.session_state["hlv.dataset"] = dataset  # as if uploaded (a counts-only dataset)
    at.session_state["soft_metrics.tab"] = TAB
    for view in VIEWS[:2]:
        at.session_state["soft_metrics.pool_view"] = view
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert COUNTS_ONLY in _texts(at)
    at.session_state["soft_metrics.pool_view"] = VIEWS[2]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = next(d.value for d in at.dataframe if any("DistCE" in str(c)
                                                      for c in d.value.columns))
    assert len(shown) == 4  # three RoBERTa runs + the oracle


@pytest.mark.slow
def test_hs_brexit_with_an_uploaded_model(app):
    """hs_brexit (6 annotators on every item) with a model the user adds: all three views."""
    import pandas as pd

    folder = shared_path("data", "hs_brexit")
    dataset = load(folder)
    items = pd.read_csv(folder / "items.csv", dtype=str)
    preds = pd.DataFrame({"model": "my model", "item_id": items["item_id"],
                          "label": items["hard_label"], "prob": 1.0})
    at = open_page(app, PAGE, "case_review")
    at.session_state["hlv.dataset"] = dataset
    at.session_state["hlv.predictions"] = preds
    at.session_state["hlv.predictions_owner"] = dataset.content_hash
    at.session_state["soft_metrics.tab"] = TAB
    at.session_state["soft_metrics.ceil_boot"] = 100
    for view in VIEWS:
        at.session_state["soft_metrics.pool_view"] = view
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        text = _texts(at)
        if view == VIEWS[1]:
            assert "my model" in text and "constant majority (baseline)" in text
        if view == VIEWS[0]:
            assert any(CEILING_COLUMNS["ceiling"] in d.value.columns for d in at.dataframe)
        if view == VIEWS[2]:
            assert any(any("DistCE" in str(c) for c in d.value.columns) for d in at.dataframe)


def test_ceiling_thresholds_are_page_settings(app):
    """Sparse data (case_review with a high bar) cannot be scored at the defaults the engine
    names; the page's two thresholds reach ``run_ceiling`` and its numbers follow them."""
    dataset = load_sample("case_review")
    at = _open(app, "case_review", VIEWS[0], ceil_boot=20, ceil_min_items=100_000)
    assert "no annotator can be scored" in _texts(at)
    assert "Lower min_items or min_others" in _texts(at)
    at = _open(app, "case_review", VIEWS[0], ceil_boot=20, ceil_min_items=150,
               ceil_min_others=1)
    res, _ = run_ceiling(dataset, dataset.predictions, "calibrated", n_boot=20, seed=0,
                         min_items=150, min_others=1)
    assert 0 < int(res.annotators["scored"].sum()) < len(res.annotators)  # some left out
    default, _ = run_ceiling(dataset, dataset.predictions, "calibrated", n_boot=20, seed=0)
    assert f"mean over the {int(res.annotators['scored'].sum())} scored" in _texts(at)
    want = ceiling_table(res)
    _shown_ceiling(at, want)
    assert not np.allclose(want["ceiling"].to_numpy(float),
                           ceiling_table(default)["ceiling"].to_numpy(float), equal_nan=True)
