"""Training lab models on the other pages: one group that one switch shows or hides on every
page, one coverage warning for the group, a readable rank chart with 15 models."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from hlv_core.samples import load_sample
from hlv_core.training import METHODS

from .conftest import open_page

LAB = [f"lab {m}" for m in METHODS] + ["lab SLMV-soft"]  # the 15 models the lab sends


def _lab_predictions(dataset) -> pd.DataFrame:
    """Soft predictions of 15 lab models on the first 60% of the items (a test split)."""
    rng = np.random.default_rng(1)
    items = list(dataset.item_ids[: int(dataset.n_items * 0.6)])
    frames = []
    for model in LAB:
        q = rng.dirichlet(np.ones(len(dataset.labels)), size=len(items))
        frames.append(pd.DataFrame({
            "model": model, "item_id": np.repeat(items, len(dataset.labels)),
            "label": np.tile(list(dataset.labels), len(items)), "prob": q.ravel()}))
    return pd.concat(frames, ignore_index=True)


def _spec(at, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if key in c.proto.id).proto.spec)


@pytest.mark.slow
def test_lab_group_shown_then_hidden_on_every_page(app):
    dataset = load_sample("case_review")
    at = open_page(app, "soft_metrics", "case_review")
    at.session_state["hlv.predictions"] = _lab_predictions(dataset)
    at.session_state["hlv.predictions_owner"] = dataset.content_hash
    at.session_state["soft_metrics.n_boot"] = 0  # point values are enough here
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    switch = at.toggle(key="soft_metrics.show_lab_models")
    assert switch.label == "Show the 15 training lab models" and switch.value is True
    rank = _spec(at, "rank_plot")["data"][0]
    assert rank["type"] == "heatmap" and len(rank["y"]) == 3 + 15
    lab_warnings = [w.value for w in at.warning if "training lab models" in w.value]
    assert len(lab_warnings) == 1 and f"of {dataset.n_items} items" in lab_warnings[0]
    assert not any("**lab " in w.value for w in at.warning)  # never one per model

    switch.set_value(False).run()
    assert not at.exception
    assert not any(c.startswith("lab ") for c in at.dataframe[0].value.columns)
    traces = _spec(at, "rank_plot")["data"]
    assert {t["type"] for t in traces} == {"scatter"} and len(traces) == 3
    # the choice holds on the next page that lists models
    at.switch_page("pages/review/page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.toggle(key="review.show_lab_models").value is False
    at.toggle(key="review.show_lab_models").set_value(True).run()
    at.switch_page("pages/soft_metrics/page.py").run()
    assert at.toggle(key="soft_metrics.show_lab_models").value is True
