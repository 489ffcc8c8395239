"""The sidebar's disagreement report button (hlv_ui.report_button): nothing is built until the
user asks; then a download of the report of exactly the current data is offered."""

from __future__ import annotations

import dataclasses

from streamlit.testing.v1 import AppTest

from hlv_core.samples import load_sample
from hlv_ui import report_button


def _script():
    import streamlit as st

    from hlv_core.samples import load_sample
    from hlv_ui.report_button import report_download

    dataset = load_sample(st.session_state.get("sample", "case_review"))
    with st.sidebar:
        report_download(dataset, dataset.predictions)


def _downloads(at: AppTest) -> list:
    return list(at.get("download_button"))


def test_report_is_built_on_click_and_offered_for_download(monkeypatch):
    calls = []
    real = report_button.build_report

    def counting(dataset, predictions=None, **kwargs):
        calls.append(dataset.name)
        return real(dataset, predictions, **kwargs)

    monkeypatch.setattr(report_button, "build_report", counting)
    at = AppTest.from_function(_script, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert [b.label for b in at.sidebar.button] == ["Build disagreement report"]
    assert _downloads(at) == [] and calls == []  # lazy: nothing built before the click
    at.sidebar.button(key="report.build").click().run()
    assert not at.exception, at.exception
    assert calls == ["case_review"]
    assert [b.label for b in at.sidebar.button] == []  # the build button makes way at once
    (download,) = _downloads(at)
    assert download.proto.label == "Download disagreement report (HTML)"
    assert download.proto.url.endswith(".html")
    dataset = load_sample("case_review")
    assert at.session_state[report_button.READY_KEY].startswith(dataset.content_hash)
    at.run()  # a later rerun keeps the download (cached: not built again)
    assert len(_downloads(at)) == 1 and calls == ["case_review"]
    assert [b.label for b in at.sidebar.button] == []


def test_other_data_brings_the_build_button_back():
    at = AppTest.from_function(_script, default_timeout=120)
    at.run()
    at.sidebar.button(key="report.build").click().run()
    assert len(_downloads(at)) == 1
    at.session_state["sample"] = "ratings"
    at.run()
    assert not at.exception, at.exception
    assert _downloads(at) == []
    assert [b.label for b in at.sidebar.button] == ["Build disagreement report"]


def test_the_app_sidebar_offers_the_report(app):
    assert "Build disagreement report" in [b.label for b in app.sidebar.button]


def test_file_name_is_safe():
    dataset = load_sample("ratings")
    evil = dataclasses.replace(dataset, name="../<script>x</script> data.csv")
    assert (report_button.report_file_name(evil)
            == "disagreement_report_script_x_script_data.csv.html")
    assert report_button.report_file_name(dataset) == "disagreement_report_ratings.html"
