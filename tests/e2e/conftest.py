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

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1800}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(env_overrides: dict[str, str], log_name: str = "server.log"):
    """Start ``streamlit run app.py`` on a free localhost port; yield its URL; stop it."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **env_overrides}
    with (ARTIFACTS / log_name).open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
             f"--server.port={port}", "--server.address=127.0.0.1",
             "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
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
    with running_app({"HLV_REVIEW_DB": str(db)}) as url:
        yield url


@pytest.fixture
def offline_page(page, app_url: str):
    """(page, outside): a page whose requests outside the app's own origin are blocked and
    recorded in ``outside`` (the app must work fully offline)."""
    outside: list[str] = []

    def guard(route):
        url = route.request.url
        if url.startswith(app_url) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.context.route("**/*", guard)
    yield page, outside


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
