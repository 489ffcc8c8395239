"""A shared link with ``?dataset=<sample>`` opens that sample in a new session; it never
overrides a choice the user makes later in the session."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from .conftest import APP


def _in_use(at: AppTest) -> str:
    return at.session_state["hlv.dataset"].name


def test_link_selects_its_sample_in_a_new_session_only():
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["dataset"] = "ratings"
    at.query_params["item"] = "x"
    at.run()
    assert not at.exception
    assert _in_use(at) == "ratings"
    at.sidebar.selectbox(key="app.source").set_value("case_review").run()
    assert _in_use(at) == "case_review"
    at.run()  # the link's parameter is still there: the user's choice stands
    assert _in_use(at) == "case_review"


def test_unknown_or_upload_names_in_a_link_change_nothing():
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["dataset"] = "my_upload<b>"
    at.run()
    assert not at.exception
    assert _in_use(at) == "case_review"

