"""Desk mode (no login): the reviewer name is remembered by this browser across reloads, in a
cookie of this app (``hlv_desk_reviewer``, one year, this site only). It is a convenience, not
an identity: the page keeps its warning that anyone who can open the server can enter any
name. Team mode never reads or writes the cookie (the name is the provider's e-mail)."""

from __future__ import annotations

import json
from urllib.parse import unquote

import streamlit as st

from hlv_ui.auth import DESK_KEY, auth_configured

__all__ = ["COOKIE", "forget_button", "remember", "restore"]

COOKIE = "hlv_desk_reviewer"
_WRITTEN_KEY = "hlv.desk_cookie_written"  # the name this session already wrote to the cookie
_FORGET_KEY = "hlv.desk_cookie_forget"
_MAX_CHARS = 100


def _script(value: str, max_age: int) -> str:
    literal = json.dumps(value).replace("<", "\\u003c")  # cannot end the script element
    return (f"<script>document.cookie = {json.dumps(COOKIE)} + '=' + "
            f"encodeURIComponent({literal}) + '; max-age={max_age}; path=/; "
            "SameSite=Strict';</script>")


def restore() -> None:
    """Desk mode, new browser session: take the reviewer name this browser remembered."""
    if auth_configured() or DESK_KEY in st.session_state:
        return
    if st.session_state.pop(_FORGET_KEY, False):
        st.html(_script("", 0), unsafe_allow_javascript=True)
        return
    try:
        raw = st.context.cookies.get(COOKIE)
    except Exception:  # no browser context (tests, bare mode)
        raw = None
    name = " ".join(unquote(raw or "").split())[:_MAX_CHARS]
    if name:
        st.session_state[DESK_KEY] = name
        st.session_state[_WRITTEN_KEY] = name


def remember(name: str) -> None:
    """Desk mode: let this browser remember ``name`` (written once per session)."""
    if auth_configured() or st.session_state.get(_WRITTEN_KEY) == name:
        return
    st.session_state[_WRITTEN_KEY] = name
    st.html(_script(name, 365 * 24 * 3600), unsafe_allow_javascript=True)


def _forget() -> None:
    st.session_state.pop(DESK_KEY, None)
    st.session_state.pop(_WRITTEN_KEY, None)
    st.session_state[_FORGET_KEY] = True


def forget_button(key: str) -> None:
    """"Not you?": forget the remembered name in this browser and ask again."""
    st.button("Not you? Forget this name in this browser", key=key, on_click=_forget,
              icon=":material/person_remove:")
