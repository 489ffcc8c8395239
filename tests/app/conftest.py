"""AppTest fixtures: a fresh app per test with every Streamlit cache cleared.

Note (streamlit 1.67): after the first ``run()`` AppTest re-runs only the current page, not the
entry point, so every page is self-sufficient (``hlv_ui.state.require_dataset`` loads the sample
named in ``st.session_state["app.source"]`` when no dataset is loaded yet)."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app.py"


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def app() -> AppTest:
    """The app, run once on its default sample (Overview page)."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def open_page(at: AppTest, page: str, sample: str | None = None) -> AppTest:
    """Load bundled ``sample`` (optional) and show ``pages/<page>.py``."""
    if sample is not None:
        at.session_state["app.source"] = sample
        if "hlv.dataset" in at.session_state:
            del at.session_state["hlv.dataset"]
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at
