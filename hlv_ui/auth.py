"""Who is using the app.

* **Team mode** (``[auth]`` in ``.streamlit/secrets.toml``): Streamlit's own OpenID Connect
  login (``st.login`` / ``st.user`` / ``st.logout``, Authlib). :func:`require_login` in
  ``app.py`` keeps every page behind the login; the reviewer is the provider's verified
  ``st.user.email``, never a text box (and never an address the provider says it has not
  verified: ``email_verified`` false). Admins are the e-mail addresses listed in
  ``[hlv_lens] admins = [...]`` of the same secrets file. Team mode refuses to start (an
  error page, nothing else) unless ``[auth] cookie_secret`` is long and random enough: whoever
  knows the secret can sign a login cookie and be anyone (:func:`cookie_secret_problem`).
* **Desk mode** (no ``[auth]``): one person on their own machine. The reviewer name is asked
  once and fixed for the browser session; the review page says the store is not shared
  safely. The desk user administers their own store (may export all and import).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import streamlit as st

from hlv_core.review import Access
from hlv_core.text import md

from .login_flow import login_navigation, start_login

__all__ = [
    "DESK_KEY",
    "MIN_SECRET_BYTES",
    "SECRET_HOWTO",
    "Identity",
    "admin_emails",
    "auth_configured",
    "cookie_secret_problem",
    "current_identity",
    "desk_name_form",
    "email_unverified",
    "logout_button",
    "require_login",
]

DESK_KEY = "hlv.desk_reviewer"  # the desk-mode reviewer name, fixed once set
MIN_SECRET_BYTES = 32  # the cookie secret signs every login cookie: at least 256 bits
SECRET_HOWTO = 'python -c "import secrets; print(secrets.token_hex(32))"'
# Texts a secret must not contain: the README's placeholder and the usual stand-ins.
_PLACEHOLDERS = ("a long random string", "changeme", "change me", "change-me", "replace",
                 "placeholder", "your secret", "your-secret", "cookie_secret", "cookie secret",
                 "example", "password", "secret here")


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


def cookie_secret_problem(secret: object) -> str | None:
    """Why ``secret`` cannot sign team-mode login cookies, or None when it can.

    Refused: a missing or non-text value; fewer than :data:`MIN_SECRET_BYTES` bytes (UTF-8);
    a text containing a known placeholder (the README's ``"a long random string"``,
    ``changeme``, ...); fewer than 10 distinct characters or under 128 bits of empirical
    character entropy (``len * H(character frequencies)``, which a 32-byte random secret in hex
    or base64 exceeds by far, and ``"x" * 32`` or a short word repeated does not)."""
    if not isinstance(secret, str) or not secret.strip():
        return "no `cookie_secret` is set in `[auth]`"
    size = len(secret.encode("utf-8"))
    if size < MIN_SECRET_BYTES:
        return (f"`cookie_secret` is {size} bytes long; at least {MIN_SECRET_BYTES} bytes of "
                "random text are needed")
    lowered = secret.lower()
    for placeholder in _PLACEHOLDERS:
        if placeholder in lowered:
            return (f"`cookie_secret` contains the placeholder text {placeholder!r}; replace "
                    "it with a random secret of your own")
    counts = {c: secret.count(c) for c in set(secret)}
    total = len(secret)
    bits = -sum(n * math.log2(n / total) for n in counts.values())
    if len(counts) < 10 or bits < 128:
        return ("`cookie_secret` is not random enough (too few distinct characters or too "
                "much repetition)")
    return None


def _secret_problem() -> str | None:
    """The cookie-secret refusal for this deployment (team mode only), else None."""
    if not auth_configured():
        return None
    return cookie_secret_problem(_secrets().get("auth", {}).get("cookie_secret"))


def email_unverified() -> bool:
    """True when the signed-in visitor's provider says the e-mail is *not* verified
    (``email_verified`` false, as a boolean or the text ``"false"``). A provider that sends no
    such claim is trusted for its ``email``, as Streamlit's own login does."""
    if not auth_configured() or not st.user.is_logged_in:
        return False
    flag = st.user.get("email_verified")
    if flag is None:
        return False
    if isinstance(flag, str):
        return flag.strip().lower() not in ("true", "1", "yes")
    return not bool(flag)


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


def _weak_secret_view() -> None:
    st.title("HLV Lens")
    st.error(
        "**Team mode cannot start: the login secret is unsafe.** "
        f"{_secret_problem()}. Whoever knows or guesses `cookie_secret` can sign a login "
        "cookie and be any reviewer or admin without the identity provider.\n\n"
        f"Make one with `{SECRET_HOWTO}` and put it in `[auth] cookie_secret` of "
        "`.streamlit/secrets.toml`, then restart the server.", icon=":material/lock:")


def _unverified_view() -> None:
    st.title("HLV Lens")
    st.error("**Your identity provider has not verified your e-mail address**, so HLV Lens "
             "cannot tell that it is yours. Verify it with the provider, then log in again.",
             icon=":material/error:")
    st.button("Log out", key="auth.unverified_logout", on_click=st.logout,
              icon=":material/logout:")


def _only(view, title: str, url_path: str) -> None:
    """Show ``view`` as the only page of a hidden navigation and stop the script (so Streamlit
    never falls back to listing, and running, the scripts in ``pages/``)."""
    st.navigation([st.Page(view, title=title, url_path=url_path, default=True)],
                  position="hidden").run()
    st.stop()


def require_login() -> None:
    """In team mode, show only the login (and stop the script) until the visitor has signed
    in with the identity provider. Call in ``app.py`` before the navigation runs. Team mode
    with an unsafe ``cookie_secret`` shows only an error page (to everyone, signed in or not:
    a cookie signed with a guessable secret proves nothing); a sign-in whose e-mail the
    provider has not verified shows only an error page with a log-out button."""
    if not auth_configured():
        return
    if _secret_problem() is not None:
        _only(_weak_secret_view, "Setup error", "setup")
    if not st.user.is_logged_in:
        login_navigation(_login_view)  # every page's address answers with the login
        st.stop()
    if email_unverified():
        _only(_unverified_view, "Log in", "login")


def current_identity() -> Identity | None:
    """The signed-in reviewer (team mode), the desk-mode reviewer once named, else None."""
    if auth_configured():
        if _secret_problem() is not None or not st.user.is_logged_in or email_unverified():
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
