"""The Overview (AppTest): uploads are named datasets of the session,
selectable beside the samples, with their predictions; charts use categorical label axes and
whole-number count ticks and show user strings verbatim; rough-edge uploads get clear answers."""

from __future__ import annotations

import json
import re

import numpy as np

from .conftest import open_page

CSV = b"item_id,annotator_id,label\n1,ann1,x\n1,ann2,y\n2,ann1,x\n2,ann2,x\n3,ann1,y\n"


def _upload(at, name: str, raw: bytes = CSV):
    at.file_uploader(key="home.upload").set_value((name, raw, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _use(at, source: str):
    """What the sidebar selector does: select ``source`` (AppTest reruns only the page)."""
    at.session_state["app.source"] = source
    del at.session_state["hlv.dataset"]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _figure(at, title: str) -> dict:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if spec["layout"]["title"]["text"].startswith(title):
            return spec
    raise AssertionError(f"no figure {title!r}")


def _uploads(at) -> dict:
    return {k: d for k, (_, d) in at.session_state["hlv.uploads"].items()}


def test_upload_is_named_after_its_file_and_listed_in_the_selector(app):
    _upload(app, "my_annotations.csv")
    dataset = app.session_state["hlv.dataset"]
    assert dataset.name == "my_annotations"
    (upload_id, kept), = _uploads(app).items()
    assert kept is dataset
    assert app.session_state["hlv.pending_source"] == f"upload:{upload_id}"
    assert app.text_input(key=f"home.upload_name.{upload_id}").value == "my_annotations"
    assert "my_annotations" in app.success[0].value and "in use" in app.success[0].value


def test_two_uploads_of_annotations_csv_get_distinct_names(app):
    _upload(app, "annotations.csv")
    _upload(app, "annotations.csv", CSV + b"4,ann1,x\n")
    names = sorted(d.name for d in _uploads(app).values())
    assert names == ["annotations", "annotations (2)"]


def test_upload_survives_switching_to_a_sample_and_back(app):
    _upload(app, "mine.csv")
    (upload_id, _), = _uploads(app).items()
    _use(app, "legal_areas")
    assert {m.label: m.value for m in app.metric}["Items"] == "180"
    assert upload_id in _uploads(app)  # picking a sample never discards the upload
    assert "kept as 'Uploaded: mine'" in app.info[0].value
    _use(app, f"upload:{upload_id}")
    assert {m.label: m.value for m in app.metric}["Items"] == "3"
    assert app.session_state["hlv.dataset"].name == "mine"


def test_use_button_switches_back_to_the_upload(app):
    _upload(app, "mine.csv")
    _use(app, "legal_areas")
    app.button(key="home.use_upload").click().run()
    assert not app.exception
    assert app.session_state["hlv.dataset"].name == "mine"
    assert app.session_state["app.source"].startswith("upload:")


def test_renaming_an_upload_renames_the_dataset_in_use(app):
    _upload(app, "mine.csv")
    (upload_id, kept), = _uploads(app).items()
    content = kept.content_hash
    app.text_input(key=f"home.upload_name.{upload_id}").set_value("Ward 3 triage").run()
    assert not app.exception
    dataset = app.session_state["hlv.dataset"]
    assert dataset.name == "Ward 3 triage" and dataset.content_hash == content
    assert "Ward 3 triage" in [h.value for h in app.subheader][0]


def test_sidebar_lists_uploads_beside_the_samples_and_names_the_dataset_in_use():
    """A fresh run of the entry point (the sidebar) with one upload kept in the session."""
    from collections import OrderedDict

    from streamlit.testing.v1 import AppTest

    from hlv_core.io import load
    from hlv_core.samples import SAMPLES

    from .conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["hlv.uploads"] = OrderedDict(
        {"abc": (len(CSV), load(CSV, name="mine.csv"))})
    at.session_state["hlv.pending_source"] = "upload:abc"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    selector = at.sidebar.selectbox(key="app.source")
    assert selector.label == "Dataset"
    assert selector.options == ["Uploaded: mine", *(v["title"] for v in SAMPLES.values())]
    assert selector.value == "upload:abc"
    in_use = at.sidebar.caption[0].value  # the name cut cleanly, whole on hover (title)
    assert in_use.startswith("In use: <span") and '>**mine**</span> · multiclass' in in_use
    assert 'title="mine"' in in_use
    assert {m.label: m.value for m in at.metric}["Items"] == "3"


def test_predictions_stay_attached_to_their_dataset(app):
    _upload(app, "mine.csv")
    preds = b"item_id,label,prob\n1,x,0.5\n1,y,0.5\n2,x,1\n2,y,0\n3,x,0.2\n3,y,0.8\n"
    app.file_uploader(key="home.predictions").set_value(("m.csv", preds, "text/csv")).run()
    assert not app.exception
    assert set(app.session_state["hlv.predictions"]["model"]) == {"m"}
    (upload_id, _), = _uploads(app).items()
    app.file_uploader(key="home.predictions").set_value(None)
    _use(app, "case_review")
    assert "hlv.predictions" not in app.session_state
    _use(app, f"upload:{upload_id}")
    assert set(app.session_state["hlv.predictions"]["model"]) == {"m"}


def test_rounded_predictions_are_renormalised_with_a_note(app):
    dataset = app.session_state["hlv.dataset"]
    rows = ["item_id,label,prob"] + [
        f"{item},{label},0.333" for item in dataset.item_ids[:3] for label in dataset.labels]
    app.file_uploader(key="home.predictions").set_value(
        ("rounded.csv", "\n".join(rows).encode(), "text/csv")).run()
    assert not app.exception and not app.error
    assert "divided by its sum" in app.info[0].value and "3 prediction(s)" in app.info[0].value
    sums = app.session_state["hlv.predictions"].groupby("item_id")["prob"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0)
    reports = [df.value for df in app.dataframe if "field" in df.value.columns]
    assert any(r["value"].astype(str).str.contains("divided by its sum").any() for r in reports)


def test_png_renamed_csv_and_workbooks_get_clear_answers(app):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    _upload(app, "photo.csv", png)
    assert "not a text/CSV file (looks like a PNG image)" in app.error[0].value
    _upload(app, "sheet.xlsx", b"PK\x03\x04[Content_Types].xml" + bytes(64))
    assert "export the sheet as CSV" in app.error[0].value
    assert {m.label: m.value for m in app.metric}["Items"] == "240"


def test_labels_are_categories_and_counts_whole_numbers(app):
    raw = b"item_id,annotator_id,label\n1,a,0\n1,b,1\n2,a,1\n2,b,1\n"
    _upload(app, "binary.csv", raw)
    labels = _figure(app, "Label distribution")
    assert labels["layout"]["xaxis"]["type"] == "category"
    assert labels["data"][0]["x"] == ["0", "1"]
    assert labels["layout"]["yaxis"]["dtick"] == 1
    assert labels["layout"]["yaxis"]["tickformat"] == ",d"
    per_item = _figure(app, "Annotators per item")
    assert per_item["layout"]["xaxis"]["dtick"] == 1
    assert per_item["layout"]["yaxis"]["dtick"] == 1
    assert _figure(app, "Per-item normalised entropy")["layout"]["yaxis"]["tickformat"] == ",d"
    item = _figure(app, "Judgement distribution")
    assert item["layout"]["xaxis"]["type"] == "category"


def test_user_strings_in_charts_are_escaped_once(app):
    raw = b"item_id,annotator_id,label\n1,a,<b>x</b>\n1,b,y&z\n2,a,<b>x</b>\n2,b,<b>x</b>\n"
    _upload(app, "tags.csv", raw)
    x = _figure(app, "Label distribution")["data"][0]["x"]
    assert x == ["&lt;b&gt;x&lt;/b&gt;", "y&amp;z"]  # plotly decodes this once: shown as typed
    assert not any("&amp;lt;" in v for v in x)


def test_sample_pages_still_open_after_an_upload(app):
    _upload(app, "mine.csv")
    open_page(app, "agreement", "case_review")
    assert app.session_state["hlv.dataset"].name == "case_review"
    assert len(app.session_state["hlv.uploads"]) == 1


def test_predictions_file_left_in_the_uploader_is_not_added_to_the_next_dataset(app):
    dataset = app.session_state["hlv.dataset"]
    rows = ["item_id,label,prob"] + [
        f"{item},{label},{1 if label == dataset.labels[0] else 0}"
        for item in dataset.item_ids[:4] for label in dataset.labels]
    app.file_uploader(key="home.predictions").set_value(
        ("p.csv", "\n".join(rows).encode(), "text/csv")).run()
    assert set(app.session_state["hlv.predictions"]["model"]) == {"p"}
    _upload(app, "mine.csv")  # the predictions file is still in its uploader
    assert "hlv.predictions" not in app.session_state
    assert any("was added to another dataset" in i.value for i in app.info)
    assert not app.error
    _use(app, "case_review")  # back: the predictions are there again
    assert set(app.session_state["hlv.predictions"]["model"]) == {"p"}


def test_the_session_keeps_a_bounded_number_of_uploads(app):
    from hlv_ui.state import MAX_UPLOADED_DATASETS

    for i in range(MAX_UPLOADED_DATASETS + 1):
        _upload(app, f"batch{i}.csv", CSV + f"{10 + i},ann1,x\n".encode())
    names = [d.name for d in _uploads(app).values()]
    assert len(names) == MAX_UPLOADED_DATASETS
    assert "batch0" not in names and names[-1] == f"batch{MAX_UPLOADED_DATASETS}"
    assert app.session_state["hlv.dataset"].name == names[-1]


def test_markup_in_an_upload_name_is_shown_as_text(app):
    _upload(app, "<img src=x onerror=alert(1)>.csv")
    _use(app, "legal_areas")
    (upload_id, kept), = _uploads(app).items()
    assert kept.name == "<img src=x onerror=alert(1)>"
    shown = [m.value for m in app.markdown] + [i.value for i in app.info] + [
        b.label for b in app.button]
    assert any("img src" in value for value in shown)
    raw = re.compile(r"(?<!\\)<img")  # markdown shows "\\<img" as the text "<img"
    assert not any(raw.search(value) for value in shown), shown
