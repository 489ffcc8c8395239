"""Perspectives page (PERSEVAL): split sizes, model comparison, per-user/text/trait views."""

from __future__ import annotations

import base64
import dataclasses
import json

import numpy as np
import pytest

from hlv_core import perspectivist as P
from hlv_core import samples

from .conftest import open_page


def charts(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def metrics(at):
    return {m.label: m.value for m in at.metric}


def _open_tab(at, name: str):
    """Open a detail tab (hidden tabs do not run)."""
    at.session_state["perspectives.tab"] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_case_review_split_and_models(app):
    at = open_page(app, "perspectives", "case_review")
    dataset = at.session_state["hlv.dataset"]
    splits = P.make_splits(dataset, seed=0, train_only_text_share="auto", stratify="group")
    sizes = splits.sizes().set_index("split")
    m = metrics(at)
    assert m["Task"] == "named"
    assert m["Test instances"] == f"{sizes.loc['test', 'instances']:,}"
    assert m["Train instances"] == f"{sizes.loc['train', 'instances']:,}"
    comparison = at.dataframe[1].value
    assert "majority vote" in set(comparison["model"])
    assert "trait majority (group)" in set(comparison["model"])
    # the numbers shown are the engine's
    models, _ = P.run_baselines(splits)
    expected = P.evaluate(models["majority vote"], splits.test, traits=splits.traits,
                          labels=dataset.labels).summary()
    value = expected[(expected.level == "user") & (expected.label == "macro")
                     & (expected.metric == "f1")]["value"].iloc[0]
    shown = comparison.set_index("model").loc["majority vote", "user F1 (macro)"]
    assert shown == pytest.approx(value)
    labels = {b.label for b in at.get("download_button")}
    types = [c["data"][0]["type"] for c in charts(at)]  # comparison bars, user histogram
    types += [c["data"][0]["type"] for c in charts(_open_tab(at, "Per text"))]
    assert types.count("histogram") == 2
    types += [c["data"][0]["type"] for c in charts(_open_tab(at, "Per trait"))]
    assert types.count("bar") >= 2
    trait_chart = charts(at)[-1]
    assert trait_chart["data"][0]["error_y"]["type"] == "data"
    assert labels >= {
        "Download split (CSV)", "Download test pairs to predict (CSV)", "Download CSV"}


def test_adaptation_adds_user_majority_and_sizes_change(app):
    at = open_page(app, "perspectives", "case_review")
    at.radio(key="perspectives.adaptation").set_value("test").run()
    assert not at.exception, at.exception
    m = metrics(at)
    assert int(m["Adaptation instances"].replace(",", "")) > 0
    assert "user majority" in set(at.dataframe[1].value["model"])


def test_upload_predictions_and_bad_upload(app):
    at = open_page(app, "perspectives", "case_review")
    dataset = at.session_state["hlv.dataset"]
    splits = P.make_splits(dataset, seed=0, train_only_text_share="auto", stratify="group")
    good = splits.test.rename(columns={"annotator_id": "user_id", "item_id": "text_id"})
    at.file_uploader(key="perspectives.upload").set_value(
        ("mine.csv", good.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, at.exception
    comparison = at.dataframe[1].value.set_index("model")
    assert comparison.loc["upload: mine.csv", "global accuracy"] == pytest.approx(1.0)
    bad = splits.test.iloc[1:]  # one test pair missing
    at.file_uploader(key="perspectives.upload").set_value(
        ("bad.csv", bad.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, at.exception
    assert at.error and "have no prediction" in at.error[0].value
    first = splits.test.iloc[0]
    assert f"({first['annotator_id']}, {first['item_id']})" in at.error[0].value


def test_unnamed_without_adaptation_is_explained(app):
    at = open_page(app, "perspectives", "case_review")
    dataset = at.session_state["hlv.dataset"]
    unnamed = dataclasses.replace(dataset, annotators=dataset.annotators[["annotator_id"]])
    at.session_state["hlv.dataset"] = unnamed
    at.radio(key="perspectives.adaptation").set_value("none").run()
    assert not at.exception, at.exception
    assert at.error and "would know nothing about the test users" in at.error[0].value
    at.radio(key="perspectives.adaptation").set_value("test").run()
    assert not at.exception and not at.error
    assert metrics(at)["Task"] == "unnamed"
    assert "user majority" in set(at.dataframe[1].value["model"])


@pytest.mark.parametrize("sample", list(samples.SAMPLES))
def test_every_sample_renders(app, sample):
    at = open_page(app, "perspectives", sample)
    assert not at.exception, at.exception
    dataset = at.session_state["hlv.dataset"]
    if dataset.task in ("multiclass", "rating") and dataset.annotator_ids_known:
        assert "Test instances" in metrics(at)
    else:
        assert at.warning  # the page explains why it does not apply


def test_detail_controls(app):
    at = _open_tab(open_page(app, "perspectives", "case_review"), "Per trait")
    models = at.selectbox(key="perspectives.model").options
    assert any(m.endswith("(item-level)") for m in models)  # the sample's models, per user
    item_model = next(m for m in models if m.endswith("(item-level)"))
    at.selectbox(key="perspectives.model").set_value(item_model).run()
    at.radio(key="perspectives.metric").set_value("accuracy").run()
    assert not at.exception, at.exception
    bars = charts(at)[-1]
    assert "accuracy" in bars["layout"]["title"]["text"]
    y = bars["data"][0]["y"]
    if isinstance(y, dict):  # plotly's typed-array encoding
        y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    assert len(y) >= 1 and all(0 <= v <= 1 for v in y)
    assert any("LeWiDi 2025" in c.value for c in at.caption)
