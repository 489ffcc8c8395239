"""Overview page as a person uses it: default sample, switching samples, uploads good and bad."""

from __future__ import annotations

import json

import pytest

from hlv_core import samples

from .conftest import open_page


def _figures(at) -> dict[str, dict]:
    """The page's plotly figures by title."""
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return {spec["layout"]["title"]["text"]: spec for spec in specs}


def test_default_sample_shows_overview(app):
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Items"] == "240"
    assert metrics["Annotators"] == "12"
    figures = _figures(app)
    assert {"Label distribution", "Annotators per item", "Per-item normalised entropy"} <= set(
        figures)
    assert len(app.dataframe) >= 2
    labels = [b.label for b in app.get("download_button")]
    assert any("item table" in label for label in labels)
    assert "Download CSV" not in labels  # every download says what it holds
    items = next(df.value for df in app.dataframe if "pair_agreement" in df.value.columns)
    assert items["pair_agreement"].between(0, 1).all()
    assert "Pair agreement" in " ".join(c.value for c in app.caption)


@pytest.mark.parametrize("name", list(samples.SAMPLES))
def test_every_sample_opens_without_error(app, name):
    open_page(app, "home", name)
    assert app.session_state["hlv.dataset"].name == name
    assert not app.error


def test_upload_csv_replaces_the_dataset(app):
    raw = b"item_id,annotator_id,label\n1,ann1,x\n1,ann2,y\n2,ann1,x\n2,ann2,x\n3,ann1,y\n"
    app.file_uploader(key="home.upload").set_value(("mine.csv", raw, "text/csv")).run()
    assert not app.exception
    assert {m.label: m.value for m in app.metric}["Items"] == "3"
    assert "mine.csv" in app.success[0].value


def test_bad_upload_shows_a_clear_error_and_keeps_previous_data(app):
    raw = b"item_id,annotator_id,label\n1,a,x\n1,a,x\n2,b,y\n"
    app.file_uploader(key="home.upload").set_value(("dup.csv", raw, "text/csv")).run()
    assert not app.exception
    message = app.error[0].value
    assert "dup.csv" in message and "row 3" in message and "How to fix" in message
    assert {m.label: m.value for m in app.metric}["Items"] == "240"


def test_non_utf8_upload_is_an_error_not_a_crash(app):
    raw = "item_id,annotator_id,label\n1,Zoë,x\n".encode("latin-1")
    app.file_uploader(key="home.upload").set_value(("latin.csv", raw, "text/csv")).run()
    assert not app.exception
    assert "UTF-8" in app.error[0].value


def test_bad_predictions_upload_shows_error(app):
    raw = b"item_id,label,prob\ncase_001,liable,0.9\ncase_001,not_liable,0.3\n"
    app.file_uploader(key="home.predictions").set_value(("p.csv", raw, "text/csv")).run()
    assert not app.exception
    assert "sum to" in app.error[0].value


def test_html_in_annotator_names_is_shown_as_text(app):
    raw = (b"item_id,annotator_id,label\n1,<script>alert(1)</script>,x\n1,b,y\n"
           b"2,<script>alert(1)</script>,x\n2,b,x\n")
    app.file_uploader(key="home.upload").set_value(("xss.csv", raw, "text/csv")).run()
    assert not app.exception
    for markdown in app.markdown:
        assert "<script>" not in markdown.value


def test_upload_with_companion_traits_file(app):
    raw = b"item_id,annotator_id,label\n1,ann1,x\n1,ann2,y\n2,ann1,x\n2,ann2,x\n"
    app.file_uploader(key="home.companions").set_value(
        [("annotators.csv", b"annotator_id,gender\nann1,f\nann2,m\n", "text/csv")]
    )
    app.file_uploader(key="home.upload").set_value(("mine.csv", raw, "text/csv")).run()
    assert not app.exception
    dataset = app.session_state["hlv.dataset"]
    assert dataset.annotators["gender"].tolist() == ["f", "m"]


def test_task_and_level_override_on_upload(app):
    raw = b"item_id,annotator_id,label\n1,a,1\n1,b,2\n2,a,3\n2,b,3\n3,a,1\n3,b,1\n"
    app.selectbox(key="home.task").set_value("multiclass")
    app.selectbox(key="home.level").set_value("nominal")
    app.file_uploader(key="home.upload").set_value(("r.csv", raw, "text/csv")).run()
    assert not app.exception
    dataset = app.session_state["hlv.dataset"]
    assert (dataset.task, dataset.level) == ("multiclass", "nominal")
    app.selectbox(key="home.level").set_value("interval").run()
    assert app.session_state["hlv.dataset"].level == "interval"
    app.selectbox(key="home.task").set_value("auto")
    app.selectbox(key="home.level").set_value("interval")
    bad = b"item_id,annotator_id,label\n1,a,x\n1,b,y\n"
    app.file_uploader(key="home.upload").set_value(("t.csv", bad, "text/csv")).run()
    assert not app.exception
    assert "needs numeric labels" in app.error[0].value


def test_spreadsheet_companion_is_answered_export_as_csv_and_nothing_loads(app):
    raw = b"item_id,annotator_id,label\n1,ann1,x\n1,ann2,y\n2,ann1,x\n2,ann2,x\n"
    app.file_uploader(key="home.companions").set_value(
        [("annotators.xlsx", b"PK\x03\x04 not really a workbook", "application/vnd.ms-excel")]
    )
    app.file_uploader(key="home.upload").set_value(("mine.csv", raw, "text/csv")).run()
    assert not app.exception
    errors = " ".join(e.value for e in app.error)
    assert "annotators.xlsx" in errors and "export the sheet as CSV" in errors
    assert app.session_state["hlv.dataset"].name == "case_review"  # the upload did not load


def test_two_companions_of_one_kind_are_refused_and_an_unused_one_is_said(app):
    """Two trait files (which would win?) stop the upload with one error naming both; a
    companion the format does not read (LeWiDi meta beside a CSV) loads with a note, never in
    silence."""
    raw = b"item_id,annotator_id,label\n1,ann1,x\n1,ann2,y\n2,ann1,x\n2,ann2,x\n"
    app.file_uploader(key="home.companions").set_value(
        [("annotators.csv", b"annotator_id,gender\nann1,f\nann2,m\n", "text/csv"),
         ("Annotators_v2.csv", b"annotator_id,gender\nann1,m\nann2,f\n", "text/csv")])
    app.file_uploader(key="home.upload").set_value(("mine.csv", raw, "text/csv")).run()
    assert not app.exception
    errors = " ".join(e.value for e in app.error)
    assert "annotators.csv" in errors and "Annotators_v2.csv" in errors
    assert app.session_state["hlv.dataset"].name == "case_review"  # nothing loaded
    app.file_uploader(key="home.companions").set_value(
        [("MP_annotators_meta.json", b'{"0": {"Gender": "Female"}}', "application/json")])
    app.run()
    assert not app.exception
    dataset = app.session_state["hlv.dataset"]
    assert dataset.name == "mine"
    note = "options ['meta'] do not apply to canonical and were ignored."
    assert note in dataset.report.notes
    shown = " ".join(m.value for m in [*app.markdown, *app.caption, *app.info, *app.warning])
    assert "do not apply to canonical" in shown
