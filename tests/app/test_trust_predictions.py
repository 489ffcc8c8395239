"""Predictions on the pages: caches keyed on content, never on model names, and
uploads colliding with a bundled model's name renamed with a note, never summed."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest
import streamlit as st

from hlv_core import perspectivist as P
from hlv_core import samples

from .conftest import open_page

PREDS = "hlv.predictions"


def _constant_predictions(dataset, label: str, model: str = "mine") -> pd.DataFrame:
    """Item-level predictions giving every item probability 1 for ``label``."""
    items = list(dataset.item_ids)
    labels = list(dataset.labels)
    return pd.DataFrame({
        "model": model,
        "item_id": np.repeat(items, len(labels)),
        "label": np.tile(labels, len(items)),
        "prob": np.tile([1.0 if x == label else 0.0 for x in labels], len(items)),
    })


def _y(trace) -> np.ndarray:
    value = trace["y"]
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value, dtype=float)


def _comparison(at) -> pd.DataFrame:
    return next(df.value for df in at.dataframe if "model" in df.value.columns
                and "global accuracy" in df.value.columns).set_index("model")


# --------------------------------------------------------------------------- item 6
def test_perspectives_shows_new_numbers_after_predictions_are_replaced(app):
    at = open_page(app, "perspectives", "case_review")
    dataset = at.session_state["hlv.dataset"]
    splits = P.make_splits(dataset, seed=0, train_only_text_share="auto", stratify="group")
    shown = {}
    for label in ("liable", "not_liable"):  # same model name, other predictions
        at.session_state[PREDS] = _constant_predictions(dataset, label)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        shown[label] = _comparison(at).loc["mine (item-level)", "global accuracy"]
        expected = float((splits.test["label"] == label).mean())
        assert shown[label] == pytest.approx(expected)
    assert shown["liable"] != pytest.approx(shown["not_liable"])


@pytest.mark.slow
def test_certainty_shows_new_numbers_after_predictions_are_replaced(app):
    at = open_page(app, "certainty", "case_review")
    at.session_state["certainty.samples"] = 50
    at.session_state["certainty.tab"] = "Model accuracy"  # hidden tabs do not run
    dataset = at.session_state["hlv.dataset"]

    def ua_curve() -> np.ndarray:
        chart = next(json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")
                     if any(t.get("name", "").startswith("mine ·") for t in
                            json.loads(c.proto.spec)["data"]))
        return np.concatenate([_y(t) for t in chart if t["name"].startswith("mine ·")])

    curves = {}
    for label in ("liable", "not_liable", "liable"):
        at.session_state[PREDS] = _constant_predictions(dataset, label)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        curves.setdefault(label, []).append(ua_curve())
    assert not np.allclose(curves["liable"][0], curves["not_liable"][0])
    np.testing.assert_allclose(curves["liable"][0], curves["liable"][1])
    # the numbers after the change equal a run from empty caches
    st.cache_data.clear()
    at.session_state[PREDS] = _constant_predictions(dataset, "not_liable")
    at.run()
    np.testing.assert_allclose(ua_curve(), curves["not_liable"][0])


# --------------------------------------------------------------------------- item 7
def test_upload_with_a_bundled_model_name_is_renamed_not_summed(app):
    dataset = samples.load_sample("case_review")
    bundled = dataset.predictions
    name = str(bundled["model"].iloc[0])
    upload = _constant_predictions(dataset, "unclear", model=name)
    app.file_uploader(key="home.predictions").set_value(
        ("p.csv", upload.to_csv(index=False).encode(), "text/csv")).run()
    assert not app.exception, [e.value for e in app.exception]
    warnings = " ".join(w.value for w in app.warning)
    assert f"'{name}'" in warnings and f"'{name} (uploaded)'" in warnings
    extra = app.session_state[PREDS]
    assert set(extra["model"]) == {f"{name} (uploaded)"}
    # both models on the Soft metrics page, each with its own (possible) numbers
    at = open_page(app, "soft_metrics")
    at.session_state["soft_metrics.n_boot"] = 0
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert {name, f"{name} (uploaded)"} <= set(table.columns)
    from hlv_core import soft_metrics as sm
    from hlv_core.io import prediction_matrix

    for model, frame in ((name, bundled), (f"{name} (uploaded)", upload.assign(
            model=f"{name} (uploaded)"))):
        ids, Q = prediction_matrix(frame, dataset, model)
        P_ = dataset.judgements_array()[dataset.item_ids.get_indexer(ids)]
        assert table.loc["Soft accuracy", model] == f"{sm.soft_accuracy(P_, Q):.3f}"  # human name
