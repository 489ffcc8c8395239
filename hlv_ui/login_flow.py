"""The way through the login in team mode (Streamlit's OpenID Connect login, ``st.login``):

* **Links survive the login.** A visitor who opens a link (``/explorer?dataset=...&item=...``)
  sees the login on that very address (every page of the app answers with the login, so no
  "Page not found" dialog); the browser remembers the address in its session storage (this tab
  only) and, once the provider sends the visitor back signed in, the app opens the remembered
  address. Only a path on this app is followed (never another site).
* **Login failures explain themselves.** Before the browser is sent to the provider the
  configuration is checked: the provider answers (its discovery document), the redirect URI
  points at this app's ``/oauth2callback``, and the provider accepts the client id and secret
  (a token request with a dummy code is refused as ``invalid_grant`` for a known client and
  as ``invalid_client`` for a wrong secret). A failure shows an error page in the app's layout
  with what to check and a way back; the server log gets the cause.
"""

from __future__ import annotations

import base64
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import NamedTuple

import streamlit as st

__all__ = [
    "APP_PATHS",
    "LOGIN_ERROR_KEY",
    "LoginProblem",
    "check_login_config",
    "entry_point_only",
    "login_navigation",
    "return_after_login",
    "start_login",
]

#: ``url_path`` of every page in ``app.py`` (a test keeps the two in step).
APP_PATHS: tuple[str, ...] = ("home", "soft-metrics", "certainty", "agreement", "perspectives",
                              "graph", "explorer", "errors", "review", "training-lab", "lewidi",
                              "glossary")
LOGIN_ERROR_KEY = "hlv.login_error"
_RETURN_KEY = "hlv.return_to"  # the browser's sessionStorage key
_RETURNED_KEY = "hlv.login_returned"  # the return script is sent once per session
_TIMEOUT_S = 6.0
_CHECKED: dict[str, float] = {}  # configuration fingerprint -> time of the last passed check
_CHECK_TTL_S = 300.0

LOG = logging.getLogger("hlv_lens.login")


class LoginProblem(NamedTuple):
    """Why the login cannot start: a ``title``, what happened (``detail``, safe to show), the
    things to ``check`` and the full ``cause`` for the server log."""

    title: str
    detail: str
    check: tuple[str, ...]
    cause: str


# ----------------------------------------------------------------------------- checks


def _provider_section(auth: Mapping, provider: str | None) -> Mapping:
    """The settings of ``provider`` merged over the shared ``[auth]`` keys."""
    shared = {k: v for k, v in auth.items() if not isinstance(v, Mapping)}
    if provider and isinstance(auth.get(provider), Mapping):
        return {**shared, **auth[provider]}
    return shared


#: The most bytes read from an identity provider's answer (a discovery document or a token
#: error is a few KiB; a provider answering more is not read whole).
_MAX_ANSWER = 1 << 20


def _get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as answer:
        return json.loads(answer.read(_MAX_ANSWER).decode("utf-8"))


def _probe_client(token_endpoint: str, settings: Mapping, redirect_uri: str) -> str | None:
    """Ask the token endpoint to redeem a dummy code with the configured client credentials;
    returns the provider's error code (``invalid_grant`` for a known client) or None."""
    client_id = str(settings.get("client_id", ""))
    secret = str(settings.get("client_secret", ""))
    form = {"grant_type": "authorization_code", "code": "hlv-lens-login-check",
            "redirect_uri": redirect_uri}
    headers = {"Content-Type": "application/x-www-form-urlencoded",
               "Accept": "application/json"}
    method = str(dict(settings.get("client_kwargs", {}) or {}).get(
        "token_endpoint_auth_method", "client_secret_basic"))
    if method == "client_secret_post":
        form.update(client_id=client_id, client_secret=secret)
    else:
        pair = f"{urllib.parse.quote(client_id, safe='')}:{urllib.parse.quote(secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    request = urllib.request.Request(token_endpoint, data=urllib.parse.urlencode(form).encode(),
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as answer:
            body = answer.read(_MAX_ANSWER)
            status = answer.status
    except urllib.error.HTTPError as error:
        body, status = error.read(_MAX_ANSWER), error.code
    try:
        code = json.loads(body.decode("utf-8")).get("error")
    except (ValueError, AttributeError):
        code = None
    if status == 401 and code is None:
        code = "invalid_client"
    return None if code is None else str(code)


def check_login_config(auth: Mapping, provider: str | None, app_url: str | None
                       ) -> LoginProblem | None:
    """None when the login can start; otherwise what is wrong. ``auth``: the ``[auth]``
    secrets; ``app_url``: the address the browser uses (``st.context.url``), None if
    unknown."""
    settings = _provider_section(auth, provider)
    redirect_uri = str(settings.get("redirect_uri", ""))
    if "{port}" in redirect_uri:  # Streamlit's placeholder for the server's port
        redirect_uri = redirect_uri.replace("{port}", str(st.get_option("server.port")))
    metadata_url = str(settings.get("server_metadata_url", ""))
    if app_url:
        parsed, here = urllib.parse.urlsplit(redirect_uri), urllib.parse.urlsplit(app_url)
        try:
            ports_differ = (parsed.port or 0) != (here.port or 0)
        except ValueError:  # not a number
            ports_differ = True
        if (not parsed.path.endswith("/oauth2callback") or parsed.hostname != here.hostname
                or ports_differ or parsed.scheme != here.scheme):
            return LoginProblem(
                "The login is misconfigured",
                "The redirect URI in the app's secrets does not point at this app, so the "
                "provider would send you somewhere else after the login.",
                ("`redirect_uri` in `[auth]` of `.streamlit/secrets.toml` must be this app's "
                 "address followed by `/oauth2callback` (scheme, host and port included)",
                 "the same URI must be registered with the identity provider"),
                f"redirect_uri {redirect_uri!r} does not match the app's address {app_url!r} "
                "+ /oauth2callback")
    try:
        metadata = _get_json(metadata_url)
        token_endpoint = str(metadata["token_endpoint"])
    except (OSError, ValueError, KeyError, urllib.error.URLError) as error:
        return LoginProblem(
            "The identity provider cannot be reached",
            "HLV Lens could not read the identity provider's configuration, so the login "
            "cannot start. The provider may be down or its address may be wrong.",
            ("the provider is running and reachable from the HLV Lens server (network, "
             "firewall, proxy)",
             "`server_metadata_url` in `[auth]` of `.streamlit/secrets.toml` is the provider's "
             "`/.well-known/openid-configuration` address"),
            f"GET {metadata_url!r} failed: {type(error).__name__}: {error}")
    try:
        code = _probe_client(token_endpoint, settings, redirect_uri)
    except (OSError, urllib.error.URLError) as error:
        return LoginProblem(
            "The identity provider cannot be reached",
            "The provider's token endpoint did not answer, so a login could not complete.",
            ("the provider is running and its token endpoint is reachable from the HLV Lens "
             "server",),
            f"POST {token_endpoint!r} failed: {type(error).__name__}: {error}")
    if code in ("invalid_client", "unauthorized_client"):
        return LoginProblem(
            "The identity provider refused this app",
            "The provider does not accept the app's client id and secret, so every login "
            "would fail after you sign in.",
            ("`client_id` and `client_secret` in `[auth]` of `.streamlit/secrets.toml` match "
             "the app registered with the provider (a secret may have been rotated)",
             "the app's registration at the provider is enabled"),
            f"token endpoint {token_endpoint!r} answered {code!r} for client "
            f"{settings.get('client_id')!r}")
    return None


# ----------------------------------------------------------------------------- server mode


def entry_point_only() -> None:
    """Make every run go through ``app.py`` (and so through its login).

    Because the app has a ``pages/`` folder, Streamlit starts a fresh server in its old
    multipage mode, in which a request for a page's address runs a script listed in ``pages/``
    directly, skipping ``app.py``, until some run of ``app.py`` has called ``st.navigation``
    (the screens now live in folders, which that mode does not list; this stays as a guard). A visitor whose first request after a server start is a link
    would see the page without logging in. Called when ``hlv_ui`` is first imported (every
    page imports it): in that mode it switches the old mode off for the server and reruns,
    so the run starts again from ``app.py``. Outside a script run it does nothing."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if PagesManager.uses_pages_directory and get_script_run_ctx() is not None:
        PagesManager.uses_pages_directory = False
        st.rerun()


# ----------------------------------------------------------------------------- flow


def start_login(provider: str | None, auth: Mapping) -> None:
    """The "Log in" button's callback: check the configuration (at most every 5 minutes once it
    passed), then hand over to ``st.login``; a problem is logged and kept for the error page."""
    fingerprint = json.dumps([provider, {k: str(v) for k, v in auth.items()}], sort_keys=True)
    if time.monotonic() - _CHECKED.get(fingerprint, -1e9) > _CHECK_TTL_S:
        problem = check_login_config(auth, provider, st.context.url)
        if problem is not None:
            LOG.error("HLV Lens login cannot start: %s (%s)", problem.title, problem.cause)
            st.session_state[LOGIN_ERROR_KEY] = problem
            return
        _CHECKED[fingerprint] = time.monotonic()
    st.session_state.pop(LOGIN_ERROR_KEY, None)
    if provider:
        st.login(provider)
    else:
        st.login()


def _error_view(problem: LoginProblem) -> None:
    st.title("HLV Lens")
    st.error(f"**{problem.title}.** {problem.detail}", icon=":material/error:")
    st.markdown("**What to check** (or ask the person who runs this server to check):")
    st.markdown("\n".join(f"- {line}" for line in problem.check))
    st.caption("The server's log has the technical cause.")
    st.button("Back to the login", key="auth.back", icon=":material/arrow_back:",
              on_click=lambda: st.session_state.pop(LOGIN_ERROR_KEY, None))


_REMEMBER_JS = """<script>
(function () {
  var here = window.location.pathname + window.location.search;
  if (/^\\/(?![\\/\\\\])/.test(here) && here !== "/" && here.indexOf("/login") !== 0) {
    window.sessionStorage.setItem("RETURN_KEY", here);
  }
})();
</script>""".replace("RETURN_KEY", _RETURN_KEY)

_RETURN_JS = """<script>
(function () {
  var target = window.sessionStorage.getItem("RETURN_KEY");
  window.sessionStorage.removeItem("RETURN_KEY");
  var here = window.location.pathname + window.location.search;
  if (target && /^\\/(?![\\/\\\\])/.test(target) && target !== here) {
    window.location.replace(target);
  }
})();
</script>""".replace("RETURN_KEY", _RETURN_KEY)


def login_navigation(login_view: Callable[[], None]) -> None:
    """The visitor's navigation: the login (or the error page after a failed check) answers
    on every page's address, and the address is remembered for after the login. Runs the page
    (the caller stops the script afterwards)."""
    problem = st.session_state.get(LOGIN_ERROR_KEY)

    def view() -> None:
        if problem is not None:
            _error_view(problem)
            return
        st.html(_REMEMBER_JS, unsafe_allow_javascript=True)
        login_view()

    pages = [st.Page(view, title="Log in", url_path="login", default=True)]
    pages += [st.Page(view, title="Log in", url_path=path) for path in APP_PATHS]
    st.navigation(pages, position="hidden").run()


def return_after_login() -> None:
    """Signed in: once per browser session, open the address remembered before the login (if
    any). Call in ``app.py`` right after the login check."""
    if st.session_state.get(_RETURNED_KEY):
        return
    st.session_state[_RETURNED_KEY] = True
    st.html(_RETURN_JS, unsafe_allow_javascript=True)
