"""Team mode on a README install: the server runs with only the runtime requirements
importable (``tests/runtime_only.py``: every distribution that ``requirements.txt`` does not
bring, transitively, is refused at import) and a visitor logs in through the OpenID Connect
provider mock and back. Without ``httpx`` in ``requirements.txt`` the login callback fails
(Internal Server Error) and this test with it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from .conftest import APP_TIMEOUT_MS, ROOT, auth_secrets, oidc_provider, running_app, wait_for_app

USER = "carol@example.org"


@pytest.mark.slow
def test_login_round_trip_with_only_the_runtime_requirements(browser: Browser,
                                                               tmp_path, artifacts):
    refused = tmp_path / "refused.txt"
    with oidc_provider({USER: "Carol"}) as issuer:
        secrets = auth_secrets(tmp_path / "secrets.toml", issuer, admins=[])
        env = {"HLV_REVIEW_DB": str(tmp_path / "r.sqlite3"), "AUTHLIB_INSECURE_TRANSPORT": "1",
               "HLV_RUNTIME_ONLY_LOG": str(refused)}
        launcher = (str(ROOT / "tests" / "runtime_only.py"), str(ROOT / "requirements.txt"))
        with running_app(env, "server_runtime_only.log", launcher=launcher,
                         extra_args=(f"--secrets.files={secrets}",)) as url:
            page = browser.new_context().new_page()
            page.set_default_timeout(APP_TIMEOUT_MS)
            page.goto(url)
            login = page.get_by_role("button", name="Log in")
            expect(login).to_be_visible()
            login.click()
            chooser = page.get_by_role("button", name=USER, exact=True)  # at the provider
            failed = page.get_by_text("Internal Server Error")
            expect(chooser.or_(failed)).to_be_visible()  # a missing package: the error page
            assert failed.count() == 0, "Log in answered Internal Server Error"
            chooser.click()
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar.get_by_text(f"Signed in as {USER}").first).to_be_visible()
            expect(page.get_by_test_id("stMetricValue").first).to_be_visible()  # pages work
            wait_for_app(page)
            page.screenshot(path=str(artifacts / "runtime_only_login.png"))
            assert "Internal Server Error" not in page.content()
            page.context.close()
    log = (artifacts / "server_runtime_only.log").read_text()
    assert "Traceback" not in log, log[-3000:]
    # the guard was on in the server process
    assert refused.read_text().startswith("runtime-only:")
