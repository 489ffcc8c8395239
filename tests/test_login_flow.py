"""The login checks against a real OpenID Connect provider on 127.0.0.1 (``oidc-provider-mock``
requiring registered clients): a registered client passes; a wrong secret, an unreachable
provider and a redirect URI that does not point at the app each give a problem with what to
check. Also: every page of ``app.py`` answers with the login for a visitor."""

from __future__ import annotations

import json
import re
import socket
import urllib.request
from pathlib import Path

import pytest

from hlv_ui.login_flow import APP_PATHS, check_login_config

from .e2e.conftest import oidc_provider

APP = Path(__file__).resolve().parents[1] / "app.py"
APP_URL = "http://127.0.0.1:8501/"


@pytest.fixture(scope="module")
def provider():
    pytest.importorskip("oidc_provider_mock")
    with oidc_provider({"alice@example.org": "Alice"}, require_client_registration=True) as url:
        meta = json.load(urllib.request.urlopen(f"{url}/.well-known/openid-configuration"))
        body = json.dumps({"redirect_uris": [f"{APP_URL}oauth2callback"]}).encode()
        request = urllib.request.Request(meta["registration_endpoint"], data=body,
                                         headers={"Content-Type": "application/json"})
        client = json.load(urllib.request.urlopen(request))
        yield url, client["client_id"], client["client_secret"]


def _auth(issuer: str, client_id: str, secret: str, redirect: str = f"{APP_URL}oauth2callback"):
    return {"redirect_uri": redirect, "cookie_secret": "x" * 32, "client_id": client_id,
            "client_secret": secret,
            "server_metadata_url": f"{issuer}/.well-known/openid-configuration"}


def test_a_registered_client_passes(provider):
    issuer, client_id, secret = provider
    assert check_login_config(_auth(issuer, client_id, secret), None, APP_URL) is None
    # a named provider section is read the same way
    named = {"redirect_uri": f"{APP_URL}oauth2callback", "cookie_secret": "x" * 32,
             "corp": {k: v for k, v in _auth(issuer, client_id, secret).items()
                      if k not in ("redirect_uri", "cookie_secret")}}
    assert check_login_config(named, "corp", APP_URL) is None


def test_wrong_secret(provider):
    issuer, client_id, _ = provider
    problem = check_login_config(_auth(issuer, client_id, "rotated-away"), None, APP_URL)
    assert problem is not None and problem.title == "The identity provider refused this app"
    assert any("client_secret" in line for line in problem.check)
    assert "invalid_client" in problem.cause and "rotated-away" not in problem.cause


def test_provider_down():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once closed
    problem = check_login_config(_auth(f"http://127.0.0.1:{port}", "id", "s"), None, APP_URL)
    assert problem is not None and problem.title == "The identity provider cannot be reached"
    assert any("server_metadata_url" in line for line in problem.check)
    assert f"127.0.0.1:{port}" in problem.cause


@pytest.mark.parametrize("redirect", ["http://127.0.0.1:9999/oauth2callback",
                                      "http://127.0.0.1:8501/callback",
                                      "https://127.0.0.1:8501/oauth2callback"])
def test_redirect_uri_not_pointing_at_the_app(provider, redirect):
    issuer, client_id, secret = provider
    problem = check_login_config(_auth(issuer, client_id, secret, redirect), None, APP_URL)
    assert problem is not None and problem.title == "The login is misconfigured"
    assert any("/oauth2callback" in line for line in problem.check)


def test_every_page_of_the_app_answers_with_the_login():
    paths = re.findall(r'url_path="([^"]+)"', APP.read_text())
    assert sorted(paths) == sorted(APP_PATHS)
