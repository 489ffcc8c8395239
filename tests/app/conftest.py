"""AppTest fixtures: a fresh app per test with every Streamlit cache cleared.

Note (streamlit 1.67): after the first ``run()`` AppTest re-runs only the current page, not the
entry point, so every page is self-sufficient (``hlv_ui.state.require_dataset`` loads the sample
named in ``st.session_state["app.source"]`` when no dataset is loaded yet).

Why: AppTest starts every run in Streamlit's old ``pages/`` mode (the app has a ``pages``
folder), which lists the scripts ``pages/*.py`` and runs the requested one alone. The screens
live in folders (``pages/<screen>/page.py``), which that mode does not list, so
:func:`_screens_in_pages_mode` lists them the same way, each under its ``url_path`` in
``app.py``; the tests keep driving one page at a time, as they were written to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.runtime.scriptrunner import script_runner
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app.py"


def _screens_in_pages_mode(main_script_path: str) -> None:
    """Streamlit's old ``pages/`` mode (``script_runner._mpa_v1``) over the screen folders:
    the entry point as the default page, then every ``pages/<screen>/page.py`` under the
    ``url_path`` app.py gives it (the same page ids as app.py's navigation)."""
    from streamlit.commands.navigation import _navigation
    from streamlit.navigation.page import StreamlitPage

    main = Path(main_script_path).resolve()
    source = main.read_text(encoding="utf-8")
    pages = [StreamlitPage(main, default=True)]
    for match in re.finditer(r'st\.Page\(\s*"(pages/[a-z_]+/page\.py)"(.*?)\)', source, re.S):
        url = re.search(r'url_path="([^"]+)"', match.group(2))
        pages.append(StreamlitPage(main.parent / match.group(1),
                                   url_path=url.group(1) if url else None))
    _navigation(pages, position="sidebar", expanded=False).run()


@pytest.fixture(autouse=True, scope="session")
def _pages_mode_lists_the_screens():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(script_runner, "_mpa_v1", _screens_in_pages_mode)
        yield


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
    at.switch_page(f"pages/{page}/page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at
