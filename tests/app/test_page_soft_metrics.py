"""AppTest of pages/soft_metrics.py on the bundled samples."""

from __future__ import annotations

import base64
import dataclasses
import json

import numpy as np
import pytest

from hlv_core import soft_metrics as sm
from hlv_core.glossary import metric_label
from hlv_core.io import prediction_matrix
from hlv_core.samples import load_sample

from .conftest import open_page

PAGE = "soft_metrics"


def _plot_types(at) -> list[str]:
    return [json.loads(chart.proto.spec)["data"][0]["type"] for chart in at.get("plotly_chart")]


def _array(value) -> np.ndarray:
    """Plotly JSON arrays may be binary-encoded ({"dtype", "bdata", "shape"})."""
    if isinstance(value, dict) and "bdata" in value:
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = tuple(int(x) for x in shape.split(","))
        return raw.reshape(shape) if shape else raw
    return np.array(value, dtype=float)


def _open_tab(at, name: str):
    """Open a tab of the page (hidden tabs do not run)."""
    at.session_state["soft_metrics.tab"] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [i.value for i in at.info] + [w.value for w in at.warning]
    parts += [s.value for s in at.success] + [e.value for e in at.error]
    return "\n".join(parts)


@pytest.mark.parametrize("sample", ["case_review", "legal_areas", "ratings"])
def test_page_on_samples(app, sample):
    at = open_page(app, PAGE, sample)
    assert not at.exception
    table = at.dataframe[0].value
    dataset = load_sample(sample)
    models = list(dict.fromkeys(dataset.predictions["model"]))
    assert list(table.columns) == ["group", *models]
    # human metric names, never snake_case keys
    assert "Soft micro F1" in table.index and metric_label("po_jsd") in table.index
    assert not [name for name in table.index if "_" in name]
    # the soft micro F1 cell starts with the engine's value
    ids, Q = prediction_matrix(dataset.predictions, dataset, models[0])
    P = dataset.judgements_array()[dataset.item_ids.get_indexer(ids)]
    expected = sm.soft_micro_f1(P, Q)
    assert table.loc["Soft micro F1", models[0]].startswith(f"{expected:.3f} [")
    types = _plot_types(at)  # rank plot
    n_downloads = len(at.get("download_button"))
    types += _plot_types(_open_tab(at, "Classes"))  # class bars
    n_downloads += len(at.get("download_button"))
    types += _plot_types(_open_tab(at, "Items"))  # item scatter
    n_downloads += len(at.get("download_button"))
    assert "scatter" in types and "bar" in types
    assert n_downloads >= 3


def test_item_drilldown_and_classes(app):
    at = _open_tab(open_page(app, PAGE, "case_review"), "Items")
    at.selectbox(key="soft_metrics.item_model").set_value("overconfident").run()
    assert not at.exception
    item = at.selectbox(key="soft_metrics.item").options[3]
    at.selectbox(key="soft_metrics.item").set_value(item).run()
    assert not at.exception
    frames = [df.value for df in at.dataframe]
    assert any("annotator_id" in f.columns and set(f["item_id"]) == {item} for f in frames)
    _open_tab(at, "Classes")
    at.radio(key="soft_metrics.class_kind").set_value("hard").run()
    assert not at.exception


def test_reference_nan_note_and_skip_option(app):
    at = open_page(app, PAGE, "legal_areas")
    at.number_input(key="soft_metrics.n_boot").set_value(100).run()
    assert not at.exception
    at.toggle(key="soft_metrics.skip_undefined").set_value(True).run()
    assert not at.exception
    assert "skip undefined classes" in _texts(at)
    at.number_input(key="soft_metrics.n_boot").set_value(0).run()  # no CIs: plain values
    assert not at.exception
    cell = at.dataframe[0].value.iloc[0, 1]
    assert "[" not in cell


def test_ranking_sample_is_graceful(app):
    at = open_page(app, PAGE, "dermatology")
    assert not at.exception
    assert "ranking" in _texts(at)
    # explainer still works without data
    assert "scatter" in _plot_types(_open_tab(at, "Figure 1 explainer"))


def test_figure1_sliders(app):
    at = _open_tab(open_page(app, PAGE, "case_review"), "Figure 1 explainer")
    at.slider(key="soft_metrics.fig1_p").set_value(0.5).run()
    at.slider(key="soft_metrics.fig1_q").set_value(0.2).run()
    values = {m.label: m.value for m in at.metric}
    assert values["Soft accuracy"] == "0.7000"
    assert values["JS similarity (PO-JSD)"] == f"{0.9268959920681902:.4f}"
    assert "(paper 0.7)" in " ".join(c.value for c in at.caption)


def test_simulator_runs(app):
    at = _open_tab(open_page(app, PAGE, "case_review"), "Table 2 simulator")
    at.number_input(key="soft_metrics.sim_B").set_value(60).run()
    at.number_input(key="soft_metrics.sim_rows").set_value(200).run()
    at.button(key="soft_metrics.sim_run").click().run()
    assert not at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = [s for s in specs if s["data"][0]["type"] == "heatmap"]
    assert heat
    z = _array(heat[0]["data"][0]["z"])
    assert z.shape == (4, 4) and np.allclose(np.diag(z), 1.0)
    assert z[1, 3] > 0.8  # J-S
    metric = next(m for m in at.metric if m.label == "J-S correlation, this run")
    assert float(metric.value) == pytest.approx(z[1, 3], abs=1e-3)
    captions = " ".join(c.value for c in at.caption)
    assert "paper" in captions and "adds little" not in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"item_id,label,prob\ncase_001,liable,0.7\ncase_001,not_liable,0.7\n"
         b"case_001,unclear,0.1\n", "sum to"),
        (b"item_id,label,prob\ncase_001,guilty,1.0\n", "guilty"),
        (b"item_id,label,prob\nno_such_case,liable,1.0\n", "no_such_case"),
    ],
    ids=["rows_not_summing", "unknown_label", "unknown_item"],
)
def test_bad_upload_shows_error(app, content, needle):
    at = open_page(app, PAGE, "case_review")
    at.file_uploader(key="soft_metrics.upload").set_value(("bad.csv", content, "text/csv")).run()
    assert not at.exception
    assert at.error and needle in at.error[0].value


def test_good_upload_adds_model(app):
    dataset = load_sample("case_review")
    rows = ["item_id,label,prob,model"]
    for item in dataset.item_ids[:50]:
        rows += [f"{item},liable,0.5,uniformish", f"{item},not_liable,0.3,uniformish",
                 f"{item},unclear,0.2,uniformish"]
    at = open_page(app, PAGE, "case_review")
    at.file_uploader(key="soft_metrics.upload").set_value(
        ("extra.csv", "\n".join(rows).encode(), "text/csv")).run()
    assert not at.exception
    assert "uniformish" in at.dataframe[0].value.columns


def test_costly_bootstrap_waits_for_the_toggle(app):
    """Above the bootstrap budget the point values show first; the CIs come with the toggle."""
    at = open_page(app, PAGE, "case_review")
    at.number_input(key="soft_metrics.n_boot").set_value(5000).run()  # 240 x 5000 x 3 models
    assert not at.exception
    assert "[" not in at.dataframe[0].value.iloc[0, 1]
    at.toggle(key="soft_metrics.ci").set_value(True).run()
    assert not at.exception
    assert "[" in at.dataframe[0].value.iloc[0, 1]


def _spec(at, key: str) -> dict:
    """The plotly spec of the chart whose element id contains ``key``."""
    return json.loads(next(c for c in at.get("plotly_chart") if key in c.proto.id).proto.spec)


def test_rank_plot_human_names_axis_titles_and_legend(app):
    at = open_page(app, PAGE, "case_review")
    spec = _spec(at, "rank_plot")
    metrics_on_x = {x for trace in spec["data"] for x in trace["x"]}
    assert "Soft accuracy" in metrics_on_x and "hard_accuracy" not in metrics_on_x
    layout = spec["layout"]
    assert layout["yaxis"]["title"]["text"] == "rank (1 = best)"
    assert layout["xaxis"]["tickangle"] == -30  # metric names slanted, the legend below them
    assert layout["yaxis"]["dtick"] == 1  # integer ranks
    assert layout["legend"]["orientation"] == "h"  # below the plot, never clipped
    # plain-words explanations where the concepts appear
    texts = _texts(at)
    for title in ("Soft metric", "Hard metric", "Entropy correlation", "Coverage"):
        assert title in texts, title
    labels = [b.label for b in at.get("download_button")]
    assert "Download per-model scores (CSV)" in labels
    assert "Download CSV" not in labels


def test_one_colour_per_model_across_figures(app):
    at = open_page(app, PAGE, "case_review")
    rank = {t["name"]: t["line"]["color"] for t in _spec(at, "rank_plot")["data"]}
    assert len(set(rank.values())) == len(rank) == 3
    at = _open_tab(at, "Items")
    for model in ("overconfident", "weak"):
        at.selectbox(key="soft_metrics.item_model").set_value(model).run()
        dist = _spec(at, "soft_metrics.item_dist")["data"]
        bar = next(t for t in dist if t["name"] == model)
        assert bar["marker"]["color"] == rank[model]
        humans = next(t for t in dist if t["name"] == "humans")
        assert humans["marker"]["color"] not in rank.values()


def test_user_strings_verbatim_in_plotly(app):
    dataset = load_sample("case_review")
    rows = ["item_id,label,prob,model"]
    for item in dataset.item_ids[:30]:
        rows += [f"{item},liable,0.5,<b>x</b>", f"{item},not_liable,0.3,<b>x</b>",
                 f"{item},unclear,0.2,<b>x</b>"]
    at = open_page(app, PAGE, "case_review")
    at.file_uploader(key="soft_metrics.upload").set_value(
        ("bold.csv", "\n".join(rows).encode(), "text/csv")).run()
    assert not at.exception
    names = [t["name"] for t in _spec(at, "rank_plot")["data"]]
    # escaped once: plotly shows "<b>x</b>" as typed (not bold, not "&lt;b&gt;")
    assert "&lt;b&gt;x&lt;/b&gt;" in names and "<b>x</b>" not in names
    assert "<b>x</b>" in at.dataframe[0].value.columns  # tables show the raw string


def test_no_predictions_says_how_to_get_them(app):
    at = open_page(app, PAGE, "case_review")
    at.session_state["hlv.dataset"] = dataclasses.replace(load_sample("case_review"),
                                                          predictions=None)
    at.run()
    assert not at.exception
    assert "no model predictions" in _texts(at)
    links = [link.proto.label for link in at.get("page_link")]
    assert any(label.startswith("Overview") for label in links)
    assert any(label.startswith("Training lab") for label in links)



def _choice_app() -> None:
    import streamlit as st

    from pages.soft_metrics.predictions_views import choose_models

    if st.session_state.pop("lose_the_widget_value", False):
        del st.session_state["models"]  # as when the browser did not report the widget
    choose_models(st.session_state.get("available", ["a", "b", "c"]), key="models")


def test_the_model_choice_survives_a_lost_widget_value():
    """Streamlit forgets a widget's value the browser did not report (a tab clicked before the
    multiselect was drawn): the user's last choice comes back, not an empty selection."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_choice_app).run()
    assert at.multiselect(key="models").value == ["a", "b", "c"]  # all at first
    at.multiselect(key="models").set_value(["a", "c"]).run()
    at.session_state["lose_the_widget_value"] = True
    at.run()
    assert not at.exception
    assert at.multiselect(key="models").value == ["a", "c"]
    at.session_state["available"] = ["a", "b", "c", "d"]  # a model added: selected too
    at.run()
    assert at.multiselect(key="models").value == ["a", "c", "d"]
    at.multiselect(key="models").set_value([]).run()  # cleared by the user: stays cleared
    at.run()
    assert at.multiselect(key="models").value == []
