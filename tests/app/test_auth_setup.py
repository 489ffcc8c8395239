"""Team mode refuses an unsafe login secret and an e-mail the provider has not verified.

Whoever knows ``[auth] cookie_secret`` can sign Streamlit's login cookie and be any reviewer or
admin without the identity provider; so team mode starts only with a long, random secret, and
shows everyone one error page (how to make a secret) otherwise."""

from __future__ import annotations

import secrets

import pytest
from streamlit.testing.v1 import AppTest

from hlv_ui.auth import MIN_SECRET_BYTES, SECRET_HOWTO, cookie_secret_problem

from .conftest import APP, open_page

README_PLACEHOLDER = "a long random string"


def _team(secret, user=None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.secrets = {
        "auth": {"redirect_uri": "http://localhost:8501/oauth2callback",
                 "cookie_secret": secret, "client_id": "hlv", "client_secret": "s",
                 "server_metadata_url": "https://idp.invalid/.well-known/openid-configuration"},
        "hlv_lens": {"admins": ["admin@example.org"]},
    }
    at.user = user or {"is_logged_in": False}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# Secrets drawn at collection would differ between pytest-xdist workers (which must collect the
# same tests): the random ones are drawn inside the test from their recipe.
RANDOM_SECRETS = {
    "placeholder+hex64": lambda: f"{README_PLACEHOLDER} {secrets.token_hex(32)}",
    "hex8": lambda: secrets.token_hex(8),
    "hex32": lambda: secrets.token_hex(32),
    "urlsafe32": lambda: secrets.token_urlsafe(32),
    "hex_min": lambda: secrets.token_hex(MIN_SECRET_BYTES),
}


@pytest.mark.parametrize("secret", [
    "a", "x" * 32, README_PLACEHOLDER, "placeholder+hex64",
    "changeme" * 8, "ab" * 40, "hex8", "", None, 12345])
def test_unsafe_secret_is_refused(secret):
    secret = RANDOM_SECRETS[secret]() if secret in RANDOM_SECRETS else secret
    assert cookie_secret_problem(secret) is not None


@pytest.mark.parametrize("recipe", ["hex32", "urlsafe32", "hex_min"])
def test_random_secret_is_accepted(recipe):
    secret = RANDOM_SECRETS[recipe]()
    assert cookie_secret_problem(secret) is None


@pytest.mark.parametrize("user", [None, {"is_logged_in": True, "email": "admin@example.org"}])
@pytest.mark.parametrize("secret", ["a", README_PLACEHOLDER, "x" * 32])
def test_team_mode_with_a_weak_secret_shows_only_the_setup_error(secret, user):
    at = _team(secret, user)
    text = " ".join(e.value for e in at.error)
    assert "Team mode cannot start" in text and SECRET_HOWTO in text
    assert not at.button and not at.selectbox and not at.tabs and not at.dataframe
    # a forged cookie (signed in as the admin) reaches no page: none is registered
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/review/page.py")


def test_team_mode_with_a_strong_secret_shows_the_login():
    at = _team(secrets.token_hex(32))
    assert [b.label for b in at.button] == ["Log in"]
    assert not at.error


@pytest.mark.parametrize("flag", [False, "false", "FALSE"])
def test_unverified_email_is_not_an_identity(flag, tmp_path, monkeypatch):
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "r.sqlite3"))
    at = _team(secrets.token_hex(32), {"is_logged_in": True, "email": "admin@example.org",
                                       "email_verified": flag})
    assert any("not verified your e-mail" in e.value for e in at.error)
    assert [b.label for b in at.button] == ["Log out"]
    assert not at.selectbox and not at.tabs
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/review/page.py")


@pytest.mark.parametrize("flag", [True, "true", None])
def test_verified_or_silent_email_is_the_reviewer(flag, tmp_path, monkeypatch):
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "r.sqlite3"))
    user = {"is_logged_in": True, "email": "admin@example.org"}
    if flag is not None:
        user["email_verified"] = flag
    at = _team(secrets.token_hex(32), user)
    assert not at.error
    open_page(at, "review")
    assert at.tabs
