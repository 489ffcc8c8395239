"""The dataset library on the Overview: nothing is kept until the user presses "Keep"; a kept
upload is listed in the sidebar and opened by ``?dataset=<id>`` in a new session (a reload or a
colleague's link); the owner deletes it (files and catalogue row). The library folder is the
temporary one beside ``HLV_REVIEW_DB`` (tests/conftest.py)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from hlv_core.library import Library

from .conftest import APP

CSV = b"item_id,annotator_id,label\nk1,a1,yes\nk1,a2,no\nk2,a1,yes\nk2,a2,yes\nk3,a1,no\n"


@pytest.fixture
def library(tmp_path, monkeypatch) -> Library:
    monkeypatch.setenv("HLV_LIBRARY_DIR", str(tmp_path / "library"))
    return Library(tmp_path / "library")


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _upload(at: AppTest) -> None:
    at.file_uploader(key="home.upload").set_value(("team_data.csv", CSV, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]


def test_upload_is_not_kept_until_asked_then_a_new_session_opens_it(library):
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    _upload(at)
    assert library.entries() == []  # nothing kept without the user asking
    notes = " ".join(c.value for c in at.caption)
    assert "Keep in the library" in notes and "data folder on this computer" in notes
    _button(at, "Keep in the library").click().run()
    assert not at.exception
    [entry] = library.entries()
    assert entry.name == "team_data" and entry.source_file == "team_data.csv"
    assert at.session_state["hlv.in_use_source"] == f"library:{entry.id}"
    assert at.session_state["hlv.dataset"].content_hash == entry.dataset_hash
    assert any("kept in the library" in s.value for s in at.success)

    fresh = AppTest.from_file(str(APP), default_timeout=120)  # a reload / a colleague
    fresh.query_params["dataset"] = entry.id
    fresh.query_params["item"] = "k1"
    fresh.run()
    assert not fresh.exception
    assert fresh.session_state["hlv.dataset"].content_hash == entry.dataset_hash
    box = fresh.sidebar.selectbox(key="app.source")
    assert box.value == f"library:{entry.id}" and box.options[0] == "Library: team_data"


def test_owner_renames_and_deletes_from_the_panel(library):
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    _upload(at)
    _button(at, "Keep in the library").click().run()
    [entry] = library.entries()
    at.text_input(key=f"library.name.{entry.id}").set_value("Renamed set").run()
    assert library.get(entry.id).name == "Renamed set"
    assert at.session_state["hlv.dataset"].name == "Renamed set"
    assert _button(at, "Delete").disabled  # needs the confirmation first
    at.checkbox(key=f"library.confirm.{entry.id}").check().run()
    _button(at, "Delete").click().run()
    assert not at.exception
    assert library.entries() == [] and not (library.objects / entry.address).exists()


def test_quota_message_is_shown(library, monkeypatch):
    monkeypatch.setenv("HLV_LIBRARY_DIR", str(library.root.parent / "small"))
    monkeypatch.setenv("HLV_LIBRARY_USER_MB", "0.0001")
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    _upload(at)
    _button(at, "Keep in the library").click().run()
    assert any("your library quota" in e.value and "HLV_LIBRARY_USER_MB" in e.value
               for e in at.error)
    assert Library(library.root.parent / "small").entries() == []
