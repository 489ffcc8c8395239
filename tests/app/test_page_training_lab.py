"""Training lab page: a small run (2 methods, 1 seed), the delta plot, tables, sending the
predictions to the other pages as models, and the samples the page cannot use."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from hlv_core import lab
from hlv_core.glossary import method_label, metric_label
from hlv_core.progress import ProgressClock
from hlv_ui.palette import method_colours

from .conftest import open_page


def charts(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _train(at, methods, metrics=None):
    at.multiselect(key="lab.methods").set_value(methods)
    if metrics is not None:
        at.multiselect(key="lab.metrics").set_value(metrics)
    [b for b in at.button if b.label == "Train"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_case_review_small_run_and_send_models(app):
    at = open_page(app, "training_lab", "case_review")
    assert any("fast linear text model" in i.value for i in at.info)
    assert not at.get("plotly_chart")  # nothing trained before pressing Train
    _train(at, ["SL", "LA-min"])
    spec = charts(at)[0]
    assert len(spec["data"]) == 6  # one bar trace per paper metric
    assert all(t["type"] == "bar" for t in spec["data"])
    # methods sorted by mean rank, the same order in every panel
    dataset = at.session_state["hlv.dataset"]
    results = at.session_state["lab.run"]["results"]
    order = list(lab.mean_rank(results[results["metric"].isin(lab.PAPER_METRICS[False])]).index)
    assert spec["data"][0]["x"] == order
    assert set(order) == {"MV", "SL", "LA-min"}
    # the plotted deltas are the engine's
    expected = lab.run_lab(dataset, methods=["SL"], metrics=["po_jsd"])
    sl = expected[(expected.method == "SL") & (expected.metric == "po_jsd")]["delta_vs_mv"]
    panel = [t for t in spec["data"] if t["name"] == metric_label("po_jsd")][0]
    y = dict(zip(panel["x"], np.asarray(panel["y"], dtype=float), strict=True))
    assert y["SL"] == pytest.approx(float(sl.iloc[0]), abs=1e-6)
    assert y["MV"] == pytest.approx(0.0, abs=1e-12)
    wide = at.dataframe[1].value  # after the table of methods
    assert set(wide.index) == {method_label(m) for m in ("MV", "SL", "LA-min")}
    assert metric_label("po_jsd") in wide.columns
    labels = {b.label for b in at.get("download_button")}
    assert "Download CSV" not in labels
    assert "Download the trained models' test predictions (CSV)" in labels
    # send the predictions to the other pages
    at.button(key="lab.send").click().run()
    assert not at.exception
    sent = at.session_state["hlv.predictions"]
    assert set(sent["model"]) == {"lab MV", "lab SL", "lab LA-min"}
    assert list(sent.columns[:4]) == ["model", "item_id", "label", "prob"]
    test_items = set(dataset.items.loc[dataset.items["split"] == "test", "item_id"])
    assert set(sent["item_id"]) == test_items
    assert any("Added 3 models" in s.value for s in at.success)


def test_legal_areas_multilabel_skips_al(app):
    at = open_page(app, "training_lab", "legal_areas")
    assert any("AL" in c.value and "single-label" in c.value for c in at.caption)
    assert "AL" not in at.multiselect(key="lab.methods").options
    _train(at, ["SL"], metrics=["soft_micro_f1", "po_jsd"])
    spec = charts(at)[0]
    assert [t["name"] for t in spec["data"]] == [metric_label("soft_micro_f1"),
                                                  metric_label("po_jsd")]


def test_dataset_without_texts_and_ranking_sample(app):
    at = open_page(app, "training_lab", "case_review")
    dataset = at.session_state["hlv.dataset"]
    at.session_state["hlv.dataset"] = dataclasses.replace(
        dataset, items=dataset.items.drop(columns="text"))
    at.run()
    assert not at.exception
    assert any("no item texts" in i.value for i in at.info)
    at = open_page(app, "training_lab", "dermatology")
    assert any("multiclass" in w.value for w in at.warning)
    assert not at.get("plotly_chart")


def test_plain_names_colours_axis_titles_and_eta(app, monkeypatch):
    """Method names in words, one fixed colour per method, axis titles, and a progress line
    with the time elapsed and the time left (estimated from the completed fits)."""
    texts: list[str] = []
    original = ProgressClock.text

    def record(self, label):
        out = original(self, label)
        texts.append(out)
        return out

    monkeypatch.setattr(ProgressClock, "text", record)
    at = open_page(app, "training_lab", "case_review")
    methods_frame = at.dataframe[0].value
    assert "Soft labelling" in set(methods_frame["method"]) and len(methods_frame) == 14
    assert "Seed 000" not in " ".join(c.value for c in at.caption)
    assert "Kurniawan et al." in " ".join(c.value for c in at.caption)
    _train(at, ["SL", "JSD"], metrics=["soft_accuracy", "po_jsd"])
    spec = charts(at)[0]
    colours = method_colours()
    for trace in spec["data"]:
        assert trace["marker"]["color"] == [colours[m] for m in trace["x"]]
        assert "Soft labelling (SL)" in trace["customdata"]
    layout = spec["layout"]
    assert layout["xaxis"]["title"]["text"] == "training method"
    assert layout["yaxis"]["title"]["text"] == "difference to MV"
    assert any("Soft labelling (SL)" in t for t in texts)
    assert any("Jensen-Shannon loss (JSD)" in t for t in texts)
    assert all(" elapsed · " in t for t in texts)
    # an estimate once fits are complete ("about 3 s left" or, on fast runs, "less than ...")
    assert any(t.endswith(" left") and "estimating" not in t for t in texts)
    assert texts[0].endswith("estimating time left")
    assert "Training runs here" not in " ".join(c.value for c in at.caption)  # gone when done


def test_iteration_cap_warning(app, monkeypatch):
    """A fit stopped by the iteration cap says so on the page."""
    import functools

    monkeypatch.setattr(lab, "run_lab_full", functools.partial(lab.run_lab_full, maxiter=1))
    at = open_page(app, "training_lab", "case_review")
    at.number_input(key="lab.jobs").set_value(1)  # the patch reaches this process only
    _train(at, ["SL"])
    warnings = [w.value for w in at.warning if "iteration cap" in w.value]
    assert any(w.startswith("SL stopped at the iteration cap (1 L-BFGS") for w in warnings)
    assert any(w.startswith("MV stopped") for w in warnings)
