"""A team's workspace against a real OpenID Connect provider on 127.0.0.1: Alice keeps an
upload in the library, a reload keeps it, Bob opens Alice's link to one of its items after
logging in, a visitor's link survives the login round trip (no "Page not found"), Alice
deletes the dataset (files and catalogue row gone). Login failures (a wrong client secret, an
unreachable provider) give an error page in the app's layout with a way back, and the server
log has the cause."""

from __future__ import annotations

import json
import re
import socket
import urllib.request

import pytest
from playwright.sync_api import Browser, Page, expect

from hlv_core.library import Library

from .conftest import (
    ARTIFACTS,
    annotations_input,
    auth_secrets,
    oidc_provider,
    rerun,
    running_app,
    wait_for_app,
    wait_for_drawn,
)

pytestmark = pytest.mark.slow

ALICE, BOB = "alice@example.org", "bob@example.org"
VIEWPORT = {"viewport": {"width": 1200, "height": 1600}}
CSV = (b"item_id,annotator_id,label\nk1,a1,yes\nk1,a2,no\nk1,a3,no\nk2,a1,yes\nk2,a2,yes\n"
       b"k2,a3,yes\nk3,a1,no\nk3,a2,no\nk3,a3,yes\n")
WAIT = 120_000


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    folder = tmp_path_factory.mktemp("workspace")
    with oidc_provider({ALICE: "Alice", BOB: "Bob"}) as issuer:
        secrets = auth_secrets(folder / "secrets.toml", issuer, admins=[])
        env = {"HLV_REVIEW_DB": str(folder / "reviews.sqlite3"),
               "AUTHLIB_INSECURE_TRANSPORT": "1"}
        with running_app(env, "server_workspace.log",
                         extra_args=(f"--secrets.files={secrets}",)) as url:
            yield url, Library(folder / "library")


def _box(page: Page):
    return page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.locator("input")


def _sign_in(page: Page, email: str) -> None:
    """On the login page: log in at the provider as ``email``."""
    login = page.get_by_role("button", name="Log in")
    expect(login).to_be_visible(timeout=WAIT)
    login.click()
    chooser = page.get_by_role("button", name=email, exact=True)
    expect(chooser).to_be_visible(timeout=WAIT)
    chooser.click()
    expect(page.get_by_test_id("stSidebar").get_by_text(f"Signed in as {email}").first
           ).to_be_visible(timeout=WAIT)


def _login(browser: Browser, url: str, email: str) -> Page:
    page = browser.new_context(**VIEWPORT).new_page()
    page.goto(url)
    _sign_in(page, email)
    return page


def test_keep_share_reload_visitor_link_and_delete(browser: Browser, team, artifacts):
    url, library = team
    alice = _login(browser, url, ALICE)
    main = alice.get_by_test_id("stMain")
    main.get_by_text("Load your own data").click()
    expect(main.get_by_text("Kept datasets are stored on this HLV Lens server").first
           ).to_be_visible(timeout=WAIT)
    annotations_input(alice).set_input_files(
        files=[{"name": "team_data.csv", "mimeType": "text/csv", "buffer": CSV}])
    keep = main.get_by_role("button", name="Keep in the library")
    expect(keep).to_be_visible(timeout=WAIT)
    assert library.entries() == []  # nothing kept before the user asks
    keep.click()
    expect(main.get_by_text("is kept in the library as").first).to_be_visible(timeout=WAIT)
    [entry] = library.entries()
    assert entry.owner == ALICE and entry.source_file == "team_data.csv"
    expect(_box(alice)).to_have_value("Library: team_data", timeout=WAIT)
    expect(alice).to_have_url(re.compile(rf"dataset={entry.id}"), timeout=WAIT)
    wait_for_app(alice)  # the keep's run (it drew the note) finished: the expander stays put
    main.get_by_text("Dataset library (1 kept)").click()
    expect(main.get_by_role("checkbox", name="Really delete")).to_be_visible(timeout=WAIT)
    main.screenshot(path=str(artifacts / "workspace_overview_library_1200.png"))

    alice.reload()  # a new session: the library and the dataset in use stay
    expect(_box(alice)).to_have_value("Library: team_data", timeout=WAIT)
    expect(alice.get_by_test_id("stSidebar").get_by_text(re.compile(r"^In use: team_data"))
           ).to_be_visible(timeout=WAIT)

    rerun(alice, main.get_by_text("Open in Items and annotators").first.click)
    expect(alice).to_have_url(re.compile(r"/explorer\?"), timeout=WAIT)
    code = main.get_by_test_id("stCode").first
    expect(code).to_contain_text(f"dataset={entry.id}", timeout=WAIT)  # the explorer's link
    link = code.inner_text().strip()
    assert f"dataset={entry.id}" in link and "item=" in link
    item = re.search(r"item=([^&]+)", link).group(1)

    bob = _login(browser, url, BOB)
    bob.goto(link)
    bob_main = bob.get_by_test_id("stMain")
    expect(bob_main.get_by_text(f"Item {item}").first).to_be_visible(timeout=WAIT)
    expect(_box(bob)).to_have_value("Library: team_data", timeout=WAIT)
    bob_main.screenshot(path=str(artifacts / "workspace_bob_link_1200.png"))
    bob.get_by_test_id("stSidebarNavLink").get_by_text("Overview", exact=True).click()
    bob_main.get_by_text("Dataset library (1 kept)").click()
    expect(bob_main.get_by_text(f"Only {ALICE} or an admin may rename or delete it.")
           ).to_be_visible(timeout=WAIT)
    assert bob_main.get_by_role("button", name="Delete").count() == 0
    bob.context.close()

    visitor = browser.new_context(**VIEWPORT).new_page()
    visitor.goto(link)  # not signed in: the login answers on the link's own address
    expect(visitor.get_by_role("button", name="Log in")).to_be_visible(timeout=WAIT)
    assert visitor.get_by_text("Page not found").count() == 0
    _sign_in(visitor, BOB)
    expect(visitor).to_have_url(re.compile(rf"/explorer\?.*item={item}"), timeout=WAIT)
    expect(visitor.get_by_test_id("stMain").get_by_text(f"Item {item}").first
           ).to_be_visible(timeout=WAIT)
    assert visitor.get_by_text("Page not found").count() == 0
    visitor.context.close()

    # the sidebar link and the confirmation box each start a run: wait for that run to end
    # (a click on the box while the Overview's run still draws can be lost on a busy machine)
    rerun(alice, alice.get_by_test_id("stSidebarNavLink").get_by_text("Overview",
                                                                       exact=True).click)
    main.get_by_text("Dataset library (1 kept)").click()
    wait_for_drawn(alice)
    confirm = main.get_by_role("checkbox", name="Really delete")
    rerun(alice, main.get_by_text("Really delete", exact=True).click)
    expect(confirm).to_be_checked(timeout=WAIT)
    delete = main.get_by_role("button", name="Delete")
    expect(delete).to_be_enabled(timeout=WAIT)
    delete.click()
    expect(main.get_by_text("Dataset library (0 kept)")).to_be_visible(timeout=WAIT)
    assert library.entries() == []
    assert not (library.objects / entry.address).exists()
    alice.context.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _error_page(browser: Browser, url: str, title: str, shot: str, artifacts) -> None:
    page = browser.new_context(**VIEWPORT).new_page()
    page.goto(f"{url}/agreement?item=k1")
    login = page.get_by_role("button", name="Log in")
    expect(login).to_be_visible(timeout=WAIT)
    login.click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(title).first).to_be_visible(timeout=WAIT)
    expect(main.get_by_text("What to check")).to_be_visible(timeout=WAIT)
    main.screenshot(path=str(artifacts / shot))
    main.get_by_role("button", name="Back to the login").click()
    expect(page.get_by_role("button", name="Log in")).to_be_visible(timeout=WAIT)
    page.context.close()


def test_wrong_secret_and_provider_down_pages(browser: Browser, tmp_path, artifacts):
    with oidc_provider({ALICE: "Alice"}, require_client_registration=True) as issuer:
        meta = json.load(urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration"))
        request = urllib.request.Request(
            meta["registration_endpoint"], headers={"Content-Type": "application/json"},
            data=json.dumps({"redirect_uris": ["http://127.0.0.1:1/oauth2callback"]}).encode())
        client = json.load(urllib.request.urlopen(request))
        secrets = auth_secrets(tmp_path / "wrong.toml", issuer, admins=[])
        secrets.write_text(secrets.read_text()
                           .replace('client_id = "hlv-lens-test"',
                                    f'client_id = "{client["client_id"]}"')
                           .replace('client_secret = "test-secret"',
                                    'client_secret = "rotated-away"'))
        env = {"HLV_REVIEW_DB": str(tmp_path / "r.sqlite3"), "AUTHLIB_INSECURE_TRANSPORT": "1"}
        with running_app(env, "server_wrong_secret.log",
                         extra_args=(f"--secrets.files={secrets}",)) as url:
            _error_page(browser, url, "The identity provider refused this app",
                        "workspace_login_wrong_secret_1200.png", artifacts)
    log = (ARTIFACTS / "server_wrong_secret.log").read_text()
    assert "HLV Lens login cannot start" in log and "invalid_client" in log

    down = f"http://127.0.0.1:{_free_port()}"
    secrets = auth_secrets(tmp_path / "down.toml", down, admins=[])
    with running_app(env, "server_provider_down.log",
                     extra_args=(f"--secrets.files={secrets}",)) as url:
        _error_page(browser, url, "The identity provider cannot be reached",
                    "workspace_login_provider_down_1200.png", artifacts)
    log = (ARTIFACTS / "server_provider_down.log").read_text()
    assert "HLV Lens login cannot start" in log and down in log
