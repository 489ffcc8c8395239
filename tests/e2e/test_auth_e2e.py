"""Team mode against a real OpenID Connect provider: an OIDC provider runs on
127.0.0.1 for the test run, the app is configured against it through a temporary
``secrets.toml`` (``streamlit run --secrets.files=...``), and chromium logs in as different
people. Alice judges with a comment; Bob sees the shared ranking but not Alice's comment and
cannot export everything; an admin can; a visitor who is not logged in sees only the login.

Also (desk mode, shared ``offline_page`` server): an item id written as a markdown image is
shown as text and the browser requests nothing outside the app."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from hlv_core.review import ReviewStore

from .conftest import (
    annotations_input,
    auth_secrets,
    oidc_provider,
    rerun,
    running_app,
    wait_for_app,
)

ALICE, BOB, ADMIN = "alice@example.org", "bob@example.org", "admin@example.org"
SECRET_NOTE = "Alice-private-note-7351"
VIEWPORT = {"viewport": {"width": 1400, "height": 1800}}


@pytest.fixture(scope="module")
def team_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("team")
    db = folder / "reviews.sqlite3"
    with oidc_provider({ALICE: "Alice", BOB: "Bob", ADMIN: "Admin"}) as issuer:
        secrets = auth_secrets(folder / "secrets.toml", issuer, admins=[ADMIN])
        env = {"HLV_REVIEW_DB": str(db), "AUTHLIB_INSECURE_TRANSPORT": "1"}
        with running_app(env, "server_auth.log",
                         extra_args=(f"--secrets.files={secrets}",)) as url:
            yield url, db


def _login(browser: Browser, url: str, email: str) -> Page:
    """A fresh browser context that signs in as ``email`` at the provider; returns its page
    on the review page."""
    page = browser.new_context(**VIEWPORT).new_page()
    page.goto(url)
    login = page.get_by_role("button", name="Log in")
    expect(login).to_be_visible()
    login.click()
    # the provider's authorization page: one-click predefined users
    chooser = page.get_by_role("button", name=email, exact=True)
    expect(chooser).to_be_visible()
    chooser.click()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text(f"Signed in as {email}").first).to_be_visible()
    page.goto(f"{url}/review")  # a full load: the login lives in the cookie, not the session
    expect(page.get_by_test_id("stMain").get_by_text(f"Reviewer {email}").first
           ).to_be_visible()
    return page


def _download_text(page: Page, label: str) -> str:
    with page.expect_download() as info:
        page.get_by_role("button", name=label).first.click()
    return open(info.value.path(), encoding="utf-8").read()


def test_alice_bob_admin_then_a_visitor(browser: Browser, team_server, artifacts):
    url, db = team_server
    alice = _login(browser, url, ALICE)
    main = alice.get_by_test_id("stMain")
    assert main.get_by_label("Your name (fixed for this browser session)").count() == 0
    skip = main.get_by_role("button", name="Skip")
    expect(skip.first).to_be_visible()
    skip.first.click()
    expect(main.get_by_text("Output A", exact=True).first).to_be_visible()
    wait_for_app(alice)  # the skip's run ended: one comment box on the page, not two
    comment = main.get_by_label("Comment on this case (optional)")
    comment.fill(SECRET_NOTE)
    rerun(alice, lambda: comment.press("Control+Enter"))  # its run done before the answers
    for question in ("Output A or output B?", "Output A or output C?", "Output B or output C?"):
        group = main.get_by_test_id("stRadio").filter(has_text=question)
        group.get_by_text("Both acceptable", exact=True).click()
        expect(group.get_by_role("radio", name="Both acceptable")).to_be_checked()
    main.get_by_role("button", name="Save judgements for this case").click()
    expect(main.get_by_test_id("stMetricValue").first).to_have_text("1 of 20")
    rows = ReviewStore(db).judgements()
    assert rows["reviewer"].tolist() == [ALICE] * 3  # the verified e-mail, never a typed name
    assert rows["comment"].tolist() == [SECRET_NOTE] * 3
    # the save's run redraws the download button: one left from the run before would hand
    # out the judgements as they were before the save
    wait_for_app(alice)
    alice.get_by_role("tab", name="Meta-evaluation").click()
    assert SECRET_NOTE in _download_text(alice, "Download my judgements (CSV)")
    assert alice.get_by_role("button", name="Download all judgements (CSV, admin)").count() == 0
    alice.context.close()

    bob = _login(browser, url, BOB)
    bob.get_by_role("tab", name="Meta-evaluation").click()
    main = bob.get_by_test_id("stMain")
    expect(main.get_by_text("by 1 reviewer.")).to_be_visible()
    expect(main.get_by_text("7 more judgements needed")).to_be_visible()
    mine = _download_text(bob, "Download my judgements (CSV)")
    assert SECRET_NOTE not in mine and ALICE not in mine
    assert bob.get_by_role("button", name="Download all judgements (CSV, admin)").count() == 0
    assert main.get_by_text("Import judgements (admin)").count() == 0
    assert SECRET_NOTE not in bob.content()
    bob.screenshot(path=str(artifacts / "auth_bob_meta.png"), full_page=False)
    bob.context.close()

    admin = _login(browser, url, ADMIN)
    admin.get_by_role("tab", name="Meta-evaluation").click()
    everything = _download_text(admin, "Download all judgements (CSV, admin)")
    assert SECRET_NOTE in everything and ALICE in everything
    expect(admin.get_by_text("Import judgements (admin)")).to_be_visible()
    admin.get_by_test_id("stSidebar").get_by_role("button", name="Log out").click()
    # Streamlit sends the browser to the provider's end-session endpoint, which returns here
    end = admin.get_by_role("button", name="End session")
    expect(end).to_be_visible()
    end.click()
    expect(admin.get_by_role("button", name="Log in")).to_be_visible()
    # signed out, this browser is a visitor: every address shows only the login
    for path in ("", "/review", "/agreement"):
        admin.goto(f"{url}{path}")
        expect(admin.get_by_role("button", name="Log in")).to_be_visible()
        wait_for_app(admin)
        assert admin.get_by_test_id("stSidebarNavLink").count() == 0
        assert admin.get_by_role("combobox", name="Dataset").count() == 0
        assert admin.get_by_role("tab", name="Meta-evaluation").count() == 0
    admin.context.close()


HOSTILE_ID = "![x](http://tracker.invalid/pixel.png)"


def test_markdown_image_in_an_item_id_requests_nothing(offline_page, app_url):
    page, outside = offline_page
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    page.get_by_text("Load your own data").click()
    # the hostile item is the only contested one, so the Overview shows it first
    csv = (f'"{HOSTILE_ID}",a1,yes\n"{HOSTILE_ID}",a2,no\nq2,a1,yes\nq2,a2,yes\n'
           "q3,a1,no\nq3,a2,no\n")
    annotations_input(page).set_input_files(
        files=[{"name": "tracked.csv", "mimeType": "text/csv",
                "buffer": ("item_id,annotator_id,label\n" + csv).encode()}])
    expect(page.get_by_text("Loaded tracked.csv").first).to_be_visible()
    heading = page.get_by_text(f"Item {HOSTILE_ID}", exact=True).first
    expect(heading).to_be_visible()  # shown as text
    wait_for_app(page)
    assert page.locator("img[src*='tracker']").count() == 0
    assert outside == []
