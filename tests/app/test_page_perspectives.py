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
        "Download split (CSV)", "Download test pairs to predict (CSV)",
        "Download model comparison (CSV)", "Download scores per user (CSV)"}
    assert "Download CSV" not in labels  # every download says what it holds


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
    at.run()  # the page shows the new data first (its data-bound settings start afresh)
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


# ------------------------------------------------------------- plain words, charts
def _rare_positive(tmp_path, n_users=24, n_texts=30):
    """Binary 0/1 data with a rare positive class and one trait: every baseline predicts 0, so
    the headline F1 (class '1') is 0 for every model at every level."""
    from hlv_core.io import load

    rng = np.random.default_rng(7)
    folder = tmp_path / "rare"
    folder.mkdir()
    rows = ["item_id,annotator_id,label"] + [
        f"t{t:02d},u{u:02d},{int(rng.random() < 0.08)}"
        for t in range(n_texts) for u in range(n_users)]
    (folder / "annotations.csv").write_text("\n".join(rows) + "\n")
    (folder / "annotators.csv").write_text("annotator_id,group\n" + "".join(
        f"u{u:02d},{'A' if u % 2 else 'B'}\n" for u in range(n_users)))
    (folder / "labels.csv").write_text("label\n0\n1\n")
    return load(folder)


def _layout_title(layout: dict, axis: str) -> str:
    title = layout.get(axis, {}).get("title", {})
    return title.get("text", "") if isinstance(title, dict) else str(title)


def test_zero_f1_charts_are_not_blank_and_say_why(app, tmp_path):
    at = app
    at.session_state["hlv.dataset"] = _rare_positive(tmp_path)
    at.switch_page("pages/perspectives/page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Every model scores F1 = 0" in i.value for i in at.info)
    cmp_chart = charts(at)[0]
    assert cmp_chart["layout"]["yaxis"]["range"] == [0, 1.08]
    texts = [t for trace in cmp_chart["data"] for t in trace["text"]]
    assert texts and set(texts) == {"0.00"}  # the zero bars carry their value
    for chart in charts(at):  # every plot has axis titles
        assert _layout_title(chart["layout"], "xaxis") and _layout_title(chart["layout"], "yaxis")
    user_hist = charts(at)[1]
    assert user_hist["layout"]["yaxis"]["tickformat"] == ",d"  # counts: whole numbers
    assert any("scores F1 (1) = 0" in i.value or "defined F1 (1)" in i.value for i in at.info)
    _open_tab(at, "Per trait")
    bars = charts(at)[-1]
    assert bars["layout"]["xaxis"]["type"] == "category"  # trait values are names
    assert bars["data"][0]["text"] and _layout_title(bars["layout"], "xaxis") == "group"


def test_plain_words_colours_and_verbatim_model_names(app):
    """Adaptation modes in plain words; each model keeps the session's colour; an uploaded
    file name with HTML tags is shown as typed in the chart."""
    at = open_page(app, "perspectives", "case_review")
    assert list(at.radio(key="perspectives.adaptation").options) == [
        "None", "Added to training", "Separate step"]
    assert "What do these mean?" in [e.label for e in at.expander]
    assert at.metric[0].help and "traits" in at.metric[0].help
    dataset = at.session_state["hlv.dataset"]
    splits = P.make_splits(dataset, seed=0, train_only_text_share="auto", stratify="group")
    at.file_uploader(key="perspectives.upload").set_value(
        ("<b>mine</b>.csv", splits.test.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, at.exception
    traces = charts(at)[0]["data"]
    by_name = {t["name"]: t["marker"]["color"] for t in traces}
    colours = at.session_state["hlv.model_colours"]
    assert by_name["upload: &lt;b&gt;mine&lt;/b&gt;.csv"] == colours["upload: <b>mine</b>.csv"]
    assert by_name["majority vote"] == colours["majority vote"]
    assert len(set(by_name.values())) == len(by_name)


def test_without_predictions_the_page_says_how_to_get_them(app):
    at = open_page(app, "perspectives", "case_review")
    dataset = at.session_state["hlv.dataset"]
    at.session_state["hlv.dataset"] = dataclasses.replace(dataset, predictions=None)
    at.run()
    assert not at.exception, at.exception
    assert any("needs model predictions" in i.value for i in at.info)
    links = {link.proto.label for link in at.get("page_link")}
    assert {"Upload predictions on the Overview", "Train models in the Training lab"} <= links
