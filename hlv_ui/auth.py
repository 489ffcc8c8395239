"""Who is using the app.

* **Team mode** (``[auth]`` in ``.streamlit/secrets.toml``): Streamlit's own OpenID Connect
  login (``st.login`` / ``st.user`` / ``st.logout``, Authlib). :func:`require_login` in
  ``app.py`` keeps every page behind the login; the reviewer is the provider's verified
  ``st.user.email``, never a text box. Admins are the e-mail addresses listed in
  ``[hlv_lens] admins = [...]`` of the same secrets file.
* **Desk mode** (no ``[auth]``): one person on their own machine. The reviewer name is asked
  once and fixed for the browser session; the review page says the store is not shared
  safely. The desk user administers their own store (may export all and import).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import streamlit as st

from hlv_core.review import Access
from hlv_core.text import md

from .login_flow import login_navigation, start_login

__all__ = [
    "DESK_KEY",
    "Identity",
    "admin_emails",
    "auth_configured",
    "current_identity",
    "desk_name_form",
    "logout_button",
    "require_login",
]

DESK_KEY = "hlv.desk_reviewer"  # the desk-mode reviewer name, fixed once set


class Identity(NamedTuple):
    """The person using this browser session: ``name`` (an e-mail in team mode), whether they
    are an admin, and the ``mode`` (``"team"`` or ``"desk"``)."""

    name: str
    is_admin: bool
    mode: str

    @property
    def access(self) -> Access:
        return Access(self.name, self.is_admin)


def _secrets() -> Mapping:
    try:
        return st.secrets.to_dict()
    except Exception:  # no or unreadable secrets.toml: not configured
        return {}


def auth_configured() -> bool:
    """True when the deployment configured Streamlit's OIDC login (``[auth]`` in secrets)."""
    section = _secrets().get("auth")
    return isinstance(section, Mapping) and bool(section)


def admin_emails() -> frozenset[str]:
    """Admin e-mail addresses (``[hlv_lens] admins``), lower-cased."""
    admins = _secrets().get("hlv_lens", {}).get("admins", [])
    if isinstance(admins, str):
        admins = [admins]
    return frozenset(str(a).strip().lower() for a in admins if str(a).strip())


def _provider() -> str | None:
    """The provider to log in with: ``[hlv_lens] provider``, else the only named provider
    section of ``[auth]``, else None (the default provider: ``client_id`` in ``[auth]``)."""
    settings = _secrets()
    chosen = settings.get("hlv_lens", {}).get("provider")
    if chosen:
        return str(chosen)
    auth = settings.get("auth", {})
    if auth.get("client_id"):
        return None
    named = [k for k, v in auth.items() if isinstance(v, Mapping)]
    return named[0] if len(named) == 1 else None


def _login_view() -> None:
    st.title("HLV Lens")
    st.markdown("This HLV Lens server is shared by a review team. **Log in** with your "
                "organisation's account to continue; your reviews are stored under your "
                "verified e-mail address.")
    provider = _provider()
    st.button("Log in", type="primary", key="auth.login", icon=":material/login:",
              on_click=start_login, args=(provider, _secrets().get("auth", {})))


def require_login() -> None:
    """In team mode, show only the login (and stop the script) until the visitor has signed
    in with the identity provider. Call in ``app.py`` before the navigation runs. The login
    is itself the only page of a navigation, so Streamlit never falls back to listing (and
    running) the scripts in ``pages/``."""
    if not auth_configured() or st.user.is_logged_in:
        return
    login_navigation(_login_view)  # every page's address answers with the login
    st.stop()


def current_identity() -> Identity | None:
    """The signed-in reviewer (team mode), the desk-mode reviewer once named, else None."""
    if auth_configured():
        if not st.user.is_logged_in:
            return None
        email = st.user.get("email")
        if not email:
            return None
        email = str(email).strip().lower()
        return Identity(email, email in admin_emails(), "team")
    name = st.session_state.get(DESK_KEY)
    return Identity(name, True, "desk") if name else None


def desk_name_form(key: str) -> Identity | None:
    """Desk mode: ask the reviewer's name once; after that it is fixed for this browser
    session (no widget to change it). Returns the identity once named."""
    identity = current_identity()
    if identity is not None:
        return identity
    with st.form(f"{key}.desk_form", border=True):
        name = st.text_input("Your name (fixed for this browser session)", max_chars=100,
                             key=f"{key}.desk_name")
        start = st.form_submit_button("Start reviewing", type="primary")
    if start and name.strip():
        st.session_state[DESK_KEY] = name.strip()
        st.rerun()
    return None


def logout_button(key: str = "auth.logout") -> None:
    """Sidebar caption of who is signed in, with a log-out button (team mode only)."""
    identity = current_identity()
    if identity is None or identity.mode != "team":
        return
    role = " (admin)" if identity.is_admin else ""
    st.caption(f"Signed in as {md(identity.name)}{role}")
    st.button("Log out", key=key, on_click=st.logout, icon=":material/logout:")
