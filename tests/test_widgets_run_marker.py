"""The app's hidden run number, which the browser tests wait on: one more on every run of the
whole app, drawn first, in a container its own style hides."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _app() -> None:
    import streamlit as st

    from hlv_ui.widgets import run_marker

    run_marker()
    st.button("again")


def test_every_run_draws_the_next_number_hidden():
    app = AppTest.from_function(_app).run()
    assert not app.exception
    first = app.get("html")[0].proto.body
    assert '<span data-hlv-run="1"></span>' in first
    assert ".st-key-hlv_run_marker{display:none}" in first
    app.button[0].click().run()
    assert '<span data-hlv-run="2"></span>' in app.get("html")[0].proto.body

