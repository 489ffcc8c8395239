"""Browser tests: start the real app on a free localhost port and drive Debian's chromium
through Playwright (no browser download; ``executable_path=/usr/bin/chromium``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
#: Every ``expect`` waits up to this long on the app's own state (a heading, a metric, a
#: marker): a machine at load 15-25 draws a page in tens of seconds, never assume 5 s.
APP_TIMEOUT_MS = 180_000
expect.set_options(timeout=APP_TIMEOUT_MS)
CHROMIUM = os.environ.get("HLV_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "tests" / "artifacts"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)
            if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
                item.add_marker(pytest.mark.skip(reason=f"{CHROMIUM} not installed"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ],
    }


def wait_for_app(page, timeout: int = APP_TIMEOUT_MS) -> None:
    """Wait until the app has finished its current run: Streamlit's root element reports the
    script state ``notRunning`` (not ``running``, ``rerunRequested`` or ``initial``), i.e. the
    running indicator is gone. Use it instead of a fixed ``wait_for_timeout``.

    It does NOT wait for the run of an action just taken: a widget change, a tab or a sidebar
    link does not mark the browser's state (Streamlit 1.67 sends the rerun request and stays
    ``notRunning`` until the server starts the run, seconds later on a busy machine). Call it
    after seeing something the action's run draws, or use :func:`rerun` for the action."""
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app !== null && app.getAttribute('data-test-script-state') === 'notRunning';
        }""",
        timeout=timeout,
    )


#: Installs (once per document) a count of the runs the page has started, i.e. of the times the
#: script state left ``notRunning``; returns the count so far.
_RUNS_STARTED = """() => {
    if (window.__hlvRunsStarted === undefined) {
        window.__hlvRunsStarted = 0;
        new MutationObserver(records => {
            window.__hlvRunsStarted += records.filter(r => r.oldValue === 'notRunning').length;
        }).observe(document.body, {attributes: true, subtree: true, attributeOldValue: true,
                                   attributeFilter: ['data-test-script-state']});
    }
    return window.__hlvRunsStarted;
}"""


def runs_started(page) -> int:
    """How many runs this document has started (counted from the first call on it)."""
    return page.evaluate(_RUNS_STARTED)


#: The number of the app's last run drawn in this document (``hlv_ui.widgets.run_marker``; 0
#: before the first), as a JavaScript expression.
_RUN_NUMBER = "Number(document.querySelector('[data-hlv-run]')?.getAttribute('data-hlv-run') ?? 0)"


def app_run_number(page) -> int:
    """The number of the app's last run drawn in this document (0 before the first)."""
    return page.evaluate(f"() => {_RUN_NUMBER}")


def rerun(page, action, timeout: int = APP_TIMEOUT_MS) -> None:
    """Do ``action`` (a callable: a click, key press or upload that reruns the script: a
    widget, a lazily run tab, a sidebar link) once the app is idle, then wait until a run has
    started after it and finished. A run has started when the app drew a higher run number
    (:func:`app_run_number`, drawn after the run's "running" status; a page switch may clear
    the old number first, hence higher, not different) or the script state was
    seen to leave ``notRunning`` (a fragment's run, which draws no number). Not the address: a
    sidebar link's page sends its address before its status, so a wait on the address can end
    before the page's run has begun. Only for actions that surely start a run in this document
    (not a full page load): otherwise this waits out ``timeout``."""
    wait_for_app(page, timeout)
    started = runs_started(page)
    number = app_run_number(page)
    action()
    page.wait_for_function(
        f"""([n, number]) => (window.__hlvRunsStarted > n || {_RUN_NUMBER} > number)
            && document.querySelector('[data-testid="stApp"]')
                ?.getAttribute('data-test-script-state') === 'notRunning'""",
        arg=[started, number], timeout=timeout)


def wait_for_drawn(page, timeout: int = APP_TIMEOUT_MS) -> None:
    """Wait until the app is idle and the browser has drawn what its last run sent: no loading
    placeholder (``stSkeleton``) shown, every Plotly chart and table grid shown drawn (those in
    a closed expander or a hidden tab are not drawn until opened). These load and draw after
    the run has ended and move what is below them, which closes an open dropdown or moves a
    click target: call this before such an interaction."""
    wait_for_app(page, timeout)
    page.wait_for_function(
        """() => {
            const shown = id => [...document.querySelectorAll(`[data-testid="${id}"]`)]
                .filter(e => e.checkVisibility());
            return shown('stSkeleton').length === 0
                && shown('stPlotlyChart').every(c => c.querySelector('.main-svg') !== null)
                && shown('stDataFrame').every(d => d.querySelector('canvas') !== null);
        }""",
        timeout=timeout)


@pytest.fixture
def outside_requests(page) -> list[str]:
    """Requests the test's page sent to anything but this machine (blocked, recorded): the app
    must work fully offline, so every browser test runs with this guard (see ``_page_guards``)."""
    outside: list[str] = []

    def guard(route):
        url = route.request.url
        if (url.startswith(("data:", "blob:", "about:"))
                or urlsplit(url).hostname in ("127.0.0.1", "localhost")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.context.route("**/*", guard)
    return outside


@pytest.fixture(autouse=True)
def _page_guards(request):
    """Every test on the ``page`` fixture: actions wait on a busy machine (not Playwright's
    30 s), nothing is requested from outside this machine, and no uncaught exception is left on
    the page at the end (checked after the test, whatever page it ended on)."""
    if "page" not in request.fixturenames:
        yield
        return
    page = request.getfixturevalue("page")
    page.set_default_timeout(APP_TIMEOUT_MS)
    outside = request.getfixturevalue("outside_requests")
    yield
    assert outside == [], f"requests left this machine: {outside[:5]}"
    if not page.is_closed():
        assert page.get_by_test_id("stException").count() == 0, "an exception is on the page"


@pytest.fixture(autouse=True, scope="session")
def _contexts_wait_on_a_busy_machine():
    """Contexts a test opens itself (``browser.new_context()``: two reviewers, a visitor) wait
    as long as the ``page`` fixture's (APP_TIMEOUT_MS), not Playwright's 30 s."""
    from playwright.sync_api import Browser

    original = Browser.new_context

    def new_context(self, *args, **kwargs):
        context = original(self, *args, **kwargs)
        context.set_default_timeout(APP_TIMEOUT_MS)
        return context

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Browser, "new_context", new_context)
        yield


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1800}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(env_overrides: dict[str, str], log_name: str = "server.log",
                extra_args: tuple[str, ...] = (), launcher: tuple[str, ...] = ()):
    """Start ``streamlit run app.py`` on a free localhost port; yield its URL; stop it.
    ``extra_args`` go to ``streamlit run`` (e.g. ``--secrets.files=PATH``); ``launcher`` goes
    between the interpreter and ``-m streamlit`` (e.g. ``tests/runtime_only.py
    requirements.txt``: only the runtime requirements importable)."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **env_overrides}
    with (ARTIFACTS / log_name).open("w") as log:
        process = subprocess.Popen(
            [sys.executable, *launcher, "-m", "streamlit", "run", "app.py",
             "--server.headless=true",
             f"--server.port={port}", "--server.address=127.0.0.1",
             "--browser.gatherUsageStats=false", "--server.fileWatcherType=none",
             *extra_args],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                        if answer.read().decode().strip() == "ok":
                            break
                except OSError:
                    time.sleep(0.3)
            else:
                pytest.fail(f"streamlit server did not become healthy in 60 s ({log_name})")
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """The app, with the review database in a temporary folder (never the user's data dir)."""
    db = tmp_path_factory.mktemp("review") / "r.sqlite3"
    # one server per pytest-xdist worker, each with its own log
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with running_app({"HLV_REVIEW_DB": str(db)}, f"server_{worker}.log") as url:
        yield url


@pytest.fixture
def offline_page(page, outside_requests):
    """(page, outside): the page and the requests it sent outside this machine (blocked and
    recorded; every browser test is guarded the same way, this gives a test the list to check
    mid-way)."""
    return page, outside_requests


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@contextlib.contextmanager
def oidc_provider(users: dict[str, str], **options):
    """An OpenID Connect provider on 127.0.0.1 for the test run (``oidc-provider-mock``, a
    Flask app served by werkzeug in a thread). ``users``: e-mail -> display name; each is a
    one-click user on its authorization page (subject = e-mail, claims ``email``, ``name``).
    Yields the issuer URL. ``options`` go to ``oidc_provider_mock.app`` (e.g.
    ``require_client_registration=True``: only registered clients with their secret)."""
    import threading

    import oidc_provider_mock
    import werkzeug.serving

    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # plain http on localhost (test only)
    claims = [oidc_provider_mock.User(sub=email, claims={"email": email, "name": name,
                                                         "email_verified": True})
              for email, name in users.items()]
    server = werkzeug.serving.make_server(
        "127.0.0.1", _free_port(), oidc_provider_mock.app(user_claims=claims, **options), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def auth_secrets(path: Path, issuer: str, admins: list[str]) -> Path:
    """A ``secrets.toml`` that configures Streamlit's OIDC login against ``issuer`` (redirect
    URI with Streamlit's ``{port}`` placeholder) and the HLV Lens admin list."""
    import secrets as _secrets

    admin_list = ", ".join(f'"{a}"' for a in admins)
    path.write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{_secrets.token_hex(32)}"\n'
        'client_id = "hlv-lens-test"\n'
        'client_secret = "test-secret"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n'
        "\n[hlv_lens]\n"
        f"admins = [{admin_list}]\n"
    )
    return path


def annotations_input(page):
    """The Overview's annotations file input (not the companion or predictions uploader): found
    by its label, so a rerun that has not drawn every uploader yet cannot misdirect the file."""
    return (page.get_by_test_id("stFileUploader").filter(has_text="Annotations (max")
            .get_by_test_id("stFileUploaderDropzoneInput"))


def open_screen(page, app_url: str, path: str, **params: str):
    """Open one screen directly by its address (``/agreement``, ``/certainty?dataset=ratings``), as
    a bookmark or a colleague's link does, and wait until its first run has finished; returns
    the main area. Cheaper than opening the Overview and clicking through (the Overview's charts
    are never drawn); the click-throughs themselves have their own tests."""
    from urllib.parse import urlencode

    query = f"?{urlencode(params)}" if params else ""
    page.goto(f"{app_url}/{path}{query}")
    main = page.get_by_test_id("stMain")
    expect(main).to_be_visible()
    wait_for_app(page)
    return main
