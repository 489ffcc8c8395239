"""AppTest of the Agreement page."""

from __future__ import annotations

import json

import pytest

from hlv_core.agreement import krippendorff_alpha
from hlv_core.samples import load_sample

from .conftest import open_page


def _metric(at, prefix: str) -> str:
    for metric in at.metric:
        if metric.label.startswith(prefix):
            return metric.value
    raise AssertionError(f"no metric {prefix!r}: {[m.label for m in at.metric]}")


def _open_tab(at, name: str):
    """Open a tab of the page (hidden tabs do not run)."""
    at.session_state["agreement.tab"] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_case_review_alpha_heatmap_and_pairs(app):
    at = open_page(app, "agreement", "case_review")
    expected = krippendorff_alpha(load_sample("case_review").annotations, level="nominal")
    assert _metric(at, "Krippendorff's α (nominal)") == f"{expected:.3f}"
    assert _metric(at, "95% bootstrap CI").startswith("[")
    overall_specs = _specs(at)
    overall_keys = {b.proto.id for b in at.get("download_button")}
    specs = _specs(_open_tab(at, "Pairs"))
    heat = [s for s in specs if s["data"] and s["data"][0]["type"] == "heatmap"]
    assert heat, [s["data"][0]["type"] for s in specs]
    z = heat[0]["data"][0]["z"]
    shape = z["shape"].replace(" ", "") if isinstance(z, dict) else f"{len(z)},{len(z[0])}"
    assert shape == "12,12" and len(heat[0]["data"][0]["x"]) == 12
    assert any(s["data"][0]["type"] == "histogram" for s in overall_specs)
    # the disagreement list of the default (lowest-alpha) pair is shown and downloadable
    assert any("disagree on" in m.value for m in at.markdown)
    keys = overall_keys | {b.proto.id for b in at.get("download_button")}
    assert len(keys) >= 5
    assert "Seed **0**" in " ".join(c.value for c in at.caption)


def test_choosing_a_pair_lists_its_disagreements(app):
    at = _open_tab(open_page(app, "agreement", "case_review"), "Pairs")
    box_a = next(s for s in at.selectbox if s.label == "Annotator A")
    box_b = next(s for s in at.selectbox if s.label == "Annotator B")
    ids = sorted(load_sample("case_review").annotations["annotator_id"].unique())
    box_a.set_value(ids[0])
    box_b.set_value(ids[1]).run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert f"**{ids[0]}** and **{ids[1]}**" in text


@pytest.mark.parametrize("level", ["ordinal", "interval", "nominal"])
def test_level_selector_on_ratings(app, level):
    at = open_page(app, "agreement", "ratings")
    at.selectbox(key="agreement.level").set_value(level).run()
    assert not at.exception
    expected = krippendorff_alpha(load_sample("ratings").annotations, level=level)
    assert _metric(at, f"Krippendorff's α ({level})") == f"{expected:.3f}"


def test_multilabel_tab(app):
    at = open_page(app, "agreement", "legal_areas")
    at.number_input(key="agreement.n_boot").set_value(100).run()
    assert not at.exception
    assert "heatmap" in [s["data"][0]["type"] for s in _specs(_open_tab(at, "Pairs")) if s["data"]]
    _open_tab(at, "Multi-label")
    frames = [d.value for d in at.dataframe]
    ml = [f for f in frames if "measure" in f.columns]
    assert ml and len(ml[0]) == 8
    assert set(ml[0]["measure"]) >= {"boot_match", "augmented_kappa", "boot_f1"}
    assert (ml[0]["adjusted"] <= ml[0]["observed"] + 1e-9).all()
    types = [s["data"][0]["type"] for s in _specs(at) if s["data"]]
    assert "bar" in types
    at.radio(key="agreement.ml_view").set_value("Per coder pair").run()
    assert not at.exception
    per_pair = [d.value for d in at.dataframe if "coder_1" in d.value.columns]
    assert per_pair and len(per_pair[0]) == 15 * 8  # 6 coders -> 15 pairs


def test_simulator_plot(app):
    at = _open_tab(open_page(app, "agreement", "case_review"), "Simulator")
    at.number_input(key="agreement.sim_sets").set_value(2).run()
    assert not at.exception
    sims = [s for s in _specs(at) if s["data"] and s["data"][0]["type"] == "scatter"
            and s["data"][0].get("mode") == "lines+markers"]
    assert sims and len(sims[0]["data"]) >= 3 * 4  # 3 statistics x 4 measures (x facets)
    # the paper's simulation values stand beside this run's, not as fixed text
    versus = next(d.value for d in at.dataframe if "this_run" in d.value.columns)
    assert {"paper", "this_run"} <= set(versus.columns) and len(versus) >= 5
    assert versus["this_run"].notna().all()


def test_ranking_sample_gets_a_note(app):
    at = open_page(app, "agreement", "dermatology")
    assert not at.exception
    assert at.warning and "ranking" in at.warning[0].value


@pytest.mark.parametrize(
    ("rows", "phrase"),
    [
        ("1,a,x\n1,b,x\n2,a,x\n2,b,x\n", "same label"),
        ("1,a,x\n2,b,y\n3,c,x\n", "no item was labelled by two"),
    ],
)
def test_uninformative_uploads_are_explained(app, rows, phrase):
    raw = ("item_id,annotator_id,label\n" + rows).encode()
    app.file_uploader(key="home.upload").set_value(("tiny.csv", raw, "text/csv")).run()
    assert not app.exception
    at = app.switch_page("pages/agreement/page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _metric(at, "Krippendorff's α") == "undefined"
    assert any(phrase in w.value for w in at.warning), [w.value for w in at.warning]


def test_one_annotator_upload_is_rejected_with_a_message(app):
    raw = b"item_id,annotator_id,label\n1,a,x\n2,a,y\n3,a,x\n"
    app.file_uploader(key="home.upload").set_value(("tiny.csv", raw, "text/csv")).run()
    assert not app.exception
    assert app.error and "one annotator" in app.error[0].value
    at = app.switch_page("pages/agreement/page.py").run()
    assert not at.exception


def test_annotator_names_escaped(app):
    evil = "<b>x</b>"
    rows = ["item_id,annotator_id,label"]
    for item in range(6):
        for j, name in enumerate([evil, "b", "c"]):
            rows.append(f'{item},"{name}",{(item + j) % 2}')
    raw = ("\n".join(rows) + "\n").encode()
    app.file_uploader(key="home.upload").set_value(("evil.csv", raw, "text/csv")).run()
    at = _open_tab(app.switch_page("pages/agreement/page.py").run(), "Pairs")
    for markdown in at.markdown:
        assert "<b>x</b>" not in markdown.value
    # plotly renders a few HTML tags in tick labels: the heatmap and bar labels are escaped
    specs = _specs(at)
    assert any(t["type"] == "heatmap" for s in specs for t in s["data"])
    for spec in specs:
        for trace in spec["data"]:
            if trace["type"] in ("heatmap", "bar"):
                labels = trace.get("x") or []
                labels = labels if isinstance(labels, list) else []
                assert "<b>x</b>" not in labels
                if trace["type"] == "heatmap":
                    assert "&lt;b&gt;x&lt;/b&gt;" in labels


def test_interval_level_on_text_labels_is_a_clear_error(app):
    at = open_page(app, "agreement", "case_review")
    at.selectbox(key="agreement.level").set_value("interval").run()
    assert not at.exception
    assert "needs numeric labels" in at.error[0].value


def _support_upload(app):
    """Seven annotators on 8 items (6 pairs each) and one, ``rare``, sharing 3 items with a0."""
    rows = ["item_id,annotator_id,label"]
    for item in range(8):
        for j in range(7):
            rows.append(f"i{item},a{j},{'xy'[(item * (j + 1)) % 3 == 0]}")
    for item in range(8, 11):  # items only a0 and rare labelled
        rows += [f"i{item},a0,{'xy'[item % 2]}", f"i{item},rare,{'xy'[item == 9]}"]
    raw = ("\n".join(rows) + "\n").encode()
    app.file_uploader(key="home.upload").set_value(("support.csv", raw, "text/csv")).run()
    assert not app.exception
    return _open_tab(app.switch_page("pages/agreement/page.py").run(), "Pairs")


def test_mean_alpha_ranks_only_annotators_with_enough_support(app):
    at = _support_upload(app)
    assert at.slider(key="agreement.min_pairs").value == 5
    bars = [t for s in _specs(at) for t in s["data"] if t["type"] == "bar"]
    assert bars and "rare" not in bars[0]["x"] and len(bars[0]["x"]) == 7
    table = next(d.value for d in at.dataframe if "enough_support" in d.value.columns)
    assert table.set_index("annotator_id").loc["rare", "n_pairs_defined"] <= 1
    assert not table.set_index("annotator_id").loc["rare", "enough_support"]
    assert "1 with fewer are listed in the table only" in " ".join(c.value for c in at.caption)
    at.slider(key="agreement.min_pairs").set_value(1).run()
    bars = [t for s in _specs(at) for t in s["data"] if t["type"] == "bar"]
    assert "rare" in bars[0]["x"]


def test_pair_links_open_the_explorer(app):
    at = _open_tab(open_page(app, "agreement", "case_review"), "Pairs")
    text = next(m.value for m in at.markdown if "disagree on" in m.value)
    links = [p.proto for p in at.get("page_link") if p.proto.page == "explorer"]
    assert len(links) == 2
    a, b = (q.split("=")[1] for q in links[0].query_string.split("&"))
    assert a in text.replace("\\", "") and b in text.replace("\\", "")
    assert links[1].query_string == f"annotator={b}&with={a}"
    # the disagreement rows are selectable (a click opens the item; browser-tested)
    table = next(d for d in at.dataframe if "label_a" in d.value.columns)
    assert table.proto.selection_mode
