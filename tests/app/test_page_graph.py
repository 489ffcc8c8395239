"""Annotator graph page: sigma metrics, offline escaped pyvis graph, camps vs traits, samples."""

from __future__ import annotations

import json
import re

import pytest

from hlv_core import samples

from .conftest import open_page


def srcdoc(at) -> str:
    frames = at.get("iframe")
    assert len(frames) == 1
    return frames[0].proto.srcdoc


def test_case_review_graph(app):
    at = open_page(app, "graph", "case_review")
    metrics = {m.label: m.value for m in at.metric}
    assert set(metrics) >= {"α (nominal)", "σ (systematicity)", "σ_rnd (mean)", "Triangles", "Edges"}
    assert 0 <= float(metrics["σ (systematicity)"]) <= 1
    assert float(metrics["σ_rnd (mean)"]) <= 1
    doc = srcdoc(at)
    dataset = at.session_state["hlv.dataset"]
    for annotator in dataset.annotator_ids:  # every annotator is a node
        assert f'"label": "{annotator}"' in doc
    assert '"dashes": true' in doc and '"dashes": false' in doc  # - and + edges
    assert "pairwise \\u03b1" in doc and "shared items" in doc  # hover text
    # fully offline: no external script or stylesheet
    assert not re.search(r"<script[^>]*\bsrc=", doc)
    assert not re.search(r"<link[^>]*href=[\"']?https?:", doc)
    assert "new vis.Network" in doc
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    types = {c["data"][0]["type"] for c in charts}
    assert {"histogram", "heatmap"} <= types
    hist = next(c for c in charts if c["data"][0]["type"] == "histogram")
    assert len(hist["data"][0]["x"]) == 10  # 10 replicates by default
    assert any(shape.get("type") == "line" for shape in hist["layout"]["shapes"])  # sigma marked
    # counts of 10 replicates: whole-number ticks, titled axes
    assert hist["layout"]["yaxis"]["dtick"] == 1
    assert hist["layout"]["yaxis"]["title"]["text"] == "random matrices (count)"
    heat = next(c for c in charts if c["data"][0]["type"] == "heatmap")
    assert heat["layout"]["xaxis"]["title"]["text"] == "annotator"
    # the two camps are the two groups of the sample (claimant-side / defence-side)
    crosstab = at.dataframe[0].value
    assert sorted(crosstab.max(axis=1).tolist()) == [6, 6]
    assert "Cramér's V = 1.00" in " ".join(c.value for c in at.caption)
    captions = " ".join(c.value for c in at.caption)
    assert "dropped for sharing fewer than 1 items" in captions  # the paper's min_shared
    assert "min_shared 1 (paper)" in captions and "composed" in captions
    assert not at.info  # paper conventions: no deviation notice
    labels = {b.label for b in at.get("download_button")}
    assert {"Edges CSV", "Camps CSV", "GraphML"} <= labels


def test_controls_change_the_result(app):
    at = open_page(app, "graph", "case_review")
    before = {m.label: m.value for m in at.metric}
    at.number_input(key="graph.repeats").set_value(4).run()
    at.number_input(key="graph.seed").set_value(5).run()
    assert not at.exception
    hist = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                if json.loads(c.proto.spec)["data"][0]["type"] == "histogram")
    assert len(hist["data"][0]["x"]) <= 4
    at.number_input(key="graph.min_shared").set_value(30).run()
    assert not at.exception
    after = {m.label: m.value for m in at.metric}
    assert after["α (nominal)"] == before["α (nominal)"]
    assert "30 items" in " ".join(c.value for c in at.caption)
    assert "deviation from the paper" in at.info[0].value
    at.selectbox(key="graph.procedure").set_value("one_step").run()
    assert not at.exception
    assert "sigma_rnd one_step (deviation" in at.info[0].value


@pytest.mark.parametrize("name", list(samples.SAMPLES))
def test_every_sample_opens(app, name):
    at = open_page(app, "graph", name)
    assert not at.error
    dataset = at.session_state["hlv.dataset"]
    if dataset.task == "ranking":
        assert at.warning  # explained, not computed
    else:
        assert len(at.get("iframe")) == 1


def test_annotator_names_are_shown_verbatim_and_stay_text(app):
    evil = "<img src=x onerror=alert(1) href=y>"
    rows = ["item_id,annotator_id,label"]
    for item in range(6):
        for j, name in enumerate([evil, "b", "c", "d"]):
            rows.append(f'{item},"{name}",{(item + (j // 2)) % 2}')
    raw = ("\n".join(rows) + "\n").encode()
    app.file_uploader(key="home.upload").set_value(("xss.csv", raw, "text/csv")).run()
    assert not app.exception
    at = open_page(app, "graph")
    doc = srcdoc(at)
    assert "<img" not in doc
    # passed verbatim (never HTML-escaped, which would show "&lt;img" on the canvas), JSON-encoded
    # by pyvis' tojson so it cannot close the <script>; vis-network draws it as text
    assert "\\u003cimg src=x onerror=alert(1) href=y\\u003e" in doc
    assert "\\u0026lt;" not in doc and "&lt;img" not in doc
    # a title containing "href" must not switch pyvis to its innerHTML tooltip template
    assert "popup.innerHTML" not in doc
    for markdown in at.markdown:
        assert "<img" not in markdown.value


def test_compare_datasets_scatter(app):
    """Figure 2: the bundled samples with annotator ids + the current upload, labelled points."""
    rows = ["item_id,annotator_id,label"]
    for item in range(8):
        for j, name in enumerate(["<b>x</b>", "b", "c", "d"]):
            rows.append(f'{item},"{name}",{(item + (j // 2)) % 2}')
    raw = ("\n".join(rows) + "\n").encode()
    app.file_uploader(key="home.upload").set_value(("mine<i>.csv", raw, "text/csv")).run()
    at = open_page(app, "graph")
    assert not at.get("plotly_chart") or all(
        json.loads(c.proto.spec)["data"][0]["type"] != "scatter" for c in at.get("plotly_chart"))
    at.toggle(key="graph.compare").set_value(True).run()
    assert not at.exception
    scatter = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    # the Figure 2 scatter (the clickable heatmap carries a scatter layer too)
    scatter = next(c for c in scatter if any(t.get("name") == "σ" for t in c["data"]))
    sigma_trace = next(t for t in scatter["data"] if t.get("name") == "σ")
    names = sigma_trace["text"]
    usable = [n for n, info in samples.SAMPLES.items() if info["task"] != "ranking"]
    assert set(usable) <= set(names)
    current = [n for n in names if n.endswith("(current)")]
    assert len(current) == 1 and "&lt;i&gt;" in current[0]  # upload name escaped
    table = at.dataframe[-1].value
    got = table.set_index("dataset").loc["case_review"]
    from hlv_core import balance

    ref = balance.sigma(samples.load_sample("case_review").annotations)  # paper conventions
    assert got["alpha"] == pytest.approx(ref.alpha) and got["sigma"] == pytest.approx(ref.sigma)
    assert "the paper's conventions" in " ".join(c.value for c in at.caption)
    assert "min_shared 1 (paper)" in scatter["layout"]["title"]["text"]
    paper = next(t for t in scatter["data"] if "paper" in (t.get("name") or ""))
    assert "MD-Agreement" in paper["text"]
    assert "Comparison CSV" in {b.label for b in at.get("download_button")}


def test_bad_upload_shows_error(app):
    raw = b"item_id,annotator_id,label\n1,a,x\n1,a,x\n2,b,y\n"
    app.file_uploader(key="home.upload").set_value(("dup.csv", raw, "text/csv")).run()
    assert not app.exception
    assert app.error and "dup.csv" in app.error[0].value


@pytest.mark.slow
def test_large_graph_is_laid_out_and_filtered(app, data_dir):
    """md_agreement (819 annotators, 8,000 edges): positions precomputed, physics off, filter."""
    raw = (data_dir / "md_agreement" / "annotations.csv").read_bytes()
    app.file_uploader(key="home.upload").set_value(("md.csv", raw, "text/csv")).run()
    at = open_page(app, "graph")
    doc = srcdoc(at)
    assert doc.count('"physics": false') >= 819
    assert {m.label: m.value for m in at.metric}["σ_rnd (mean)"] == "—"  # runs on demand
    at.toggle(key="graph.rnd").set_value(True).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}  # Basile's MD-Agreement .359 / .494 / .283
    assert (metrics["α (nominal)"], metrics["σ (systematicity)"]) == ("0.359", "0.494")
    assert abs(float(metrics["σ_rnd (mean)"]) - 0.283) <= 0.006  # 3 Monte Carlo sd of the gap
    assert "1,500 of 10,013 edges drawn" in " ".join(c.value for c in at.caption)  # min_shared 1
    at.number_input(key="graph.max_edges").set_value(300).run()
    at.radio(key="graph.signs").set_value("− only").run()
    assert not at.exception
    assert "300 of 10,013 edges drawn" in " ".join(c.value for c in at.caption)
    assert srcdoc(at).count('"dashes": false') == 0  # only - edges drawn
    camps_doc = srcdoc(at)
    at.toggle(key="graph.spring").set_value(True).run()  # the spring layout on demand
    assert not at.exception
    spring_doc = srcdoc(at)
    assert spring_doc != camps_doc and spring_doc.count('"physics": false') >= 819


def test_ordinal_level_on_text_labels_uses_inventory_order_and_interval_is_refused(app):
    at = open_page(app, "graph", "case_review")
    at.selectbox(key="graph.level").set_value("ordinal").run()
    assert not at.exception and not at.error
    at.selectbox(key="graph.level").set_value("interval").run()
    assert not at.exception
    assert "needs numeric labels" in at.error[0].value


def test_an_annotator_opens_in_the_explorer(app):
    at = open_page(app, "graph", "case_review")
    assert not [p for p in at.get("page_link") if p.proto.page == "explorer"]
    at.selectbox(key="graph.open_annotator").set_value("lawyer_03").run()
    links = [p.proto for p in at.get("page_link") if p.proto.page == "explorer"]
    assert [link.query_string for link in links] == ["annotator=lawyer_03"]
    assert any("sigma" in c.value.lower() or "systematicity" in c.value.lower()
               for c in at.caption)  # plain words for sigma (hlv_ui.explain)


def test_refusal_past_the_pair_limit_states_the_estimate(app, monkeypatch):
    # past the pair-instance limit the page refuses before any pairwise work, stating the
    # estimate (pair instances, working memory); the limit is read at each run
    from hlv_core import balance

    monkeypatch.setattr(balance, "SIGMA_MAX_PAIR_INSTANCES", 10)
    at = open_page(app, "graph", "case_review")
    text = " ".join(e.value for e in at.error)
    assert "more than the limit of 10 " in text
    assert "(item, annotator pair) instances" in text and "GiB working memory" in text
    assert not at.metric  # nothing computed
