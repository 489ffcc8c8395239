"""Browser-measured page opens for ``bench_pages.py --browser``: a real ``streamlit run`` server
and Debian's chromium through Playwright, md_agreement kept in a temporary dataset library and
opened by its link ``/graph?dataset=<id>`` (the way a colleague's link opens it).

Measured per open: wall time from the navigation (or the sidebar click) until the page has
finished its run (Streamlit's script state ``notRunning``) and its content is drawn (the
Annotator graph: a canvas inside the network iframe), and the server process's CPU seconds
over the same span (``/proc/<pid>/stat`` user + system; the browser's own CPU is not
counted). Opens:

* ``app first open``: a fresh server, the first visit of the app (Overview, default sample);
* ``graph first open``: then ``/graph?dataset=<id>`` in a new tab (a new session: md_agreement
  loaded and every graph computation done for the first time; the app's modules imported);
* ``graph revisit``: Overview and back to the graph through the sidebar, caches warm;
* ``graph by link on a fresh server``: the link as the very first request (imports included).

Each is repeated ``repeat`` times (a fresh server per first open) and the best is reported,
with the load average of the box when the run started."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("HLV_CHROMIUM", "/usr/bin/chromium")
TIMEOUT_MS = 180_000
_IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app !== null && app.getAttribute('data-test-script-state') === 'notRunning';
}"""


def _cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _server(env: dict[str, str]):
    """(url, pid) of a fresh ``streamlit run app.py``; stopped on exit."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         f"--server.port={port}", "--server.address=127.0.0.1",
         "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                    if answer.read().decode().strip() == "ok":
                        break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("the streamlit server did not start in 120 s")
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _graph_drawn(page) -> None:
    """Wait for the page's run to end and the network canvas to be drawn."""
    page.wait_for_function(_IDLE_JS, timeout=TIMEOUT_MS)
    frame = page.frame_locator('[data-testid="stIFrame"]').first
    frame.locator("canvas").first.wait_for(state="attached", timeout=TIMEOUT_MS)
    page.wait_for_function(_IDLE_JS, timeout=TIMEOUT_MS)


def _overview_drawn(page) -> None:
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function(_IDLE_JS, timeout=TIMEOUT_MS)


def _timed(pid: int, action, done) -> tuple[float, float]:
    cpu, wall = _cpu(pid), time.perf_counter()
    action()
    done()
    return _cpu(pid) - cpu, time.perf_counter() - wall


def measure(data: Path, repeat: int = 3) -> list[tuple[str, float, float]]:
    """``[(open, best CPU s, best wall s)]`` for the three opens of the module doc."""
    from playwright.sync_api import sync_playwright

    from hlv_core.io import load
    from hlv_core.library import Library

    folder = Path(tempfile.mkdtemp(prefix="hlv_bench_"))
    env = {"HLV_REVIEW_DB": str(folder / "reviews.sqlite3"),
           "HLV_LIBRARY_DIR": str(folder / "library")}
    entry = Library(folder / "library").keep(load(data, name="md_agreement"), owner="bench")
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, value: tuple[float, float]) -> None:
        old = best.get(name)
        best[name] = value if old is None else (min(old[0], value[0]), min(old[1], value[1]))

    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            for _ in range(repeat):
                with _server(env) as (url, pid):
                    page = browser.new_page(viewport={"width": 1200, "height": 1000})
                    keep("app first open (fresh server, Overview)",
                         _timed(pid, lambda p=page, u=url: p.goto(u),
                                lambda p=page: _overview_drawn(p)))
                    page.close()
                    page = browser.new_page(viewport={"width": 1200, "height": 1000})
                    link = f"{url}/graph?dataset={entry.id}"
                    keep("graph first open (link to md_agreement, app running)",
                         _timed(pid, lambda p=page, u=link: p.goto(u),
                                lambda p=page: _graph_drawn(p)))
                    nav = page.get_by_test_id("stSidebarNavLink")
                    for _ in range(2):
                        nav.get_by_text("Overview", exact=True).click()
                        page.locator('[data-testid="stIFrame"]').first.wait_for(
                            state="detached", timeout=TIMEOUT_MS)
                        _overview_drawn(page)
                        keep("graph revisit (sidebar, caches warm)",
                             _timed(pid, lambda n=nav: n.get_by_text("Annotator graph",
                                                                    exact=True).click(),
                                    lambda p=page: _graph_drawn(p)))
                    page.close()
                with _server(env) as (url, pid):
                    page = browser.new_page(viewport={"width": 1200, "height": 1000})
                    link = f"{url}/graph?dataset={entry.id}"
                    keep("graph by link on a fresh server (the app's first open included)",
                         _timed(pid, lambda p=page, u=link: p.goto(u),
                                lambda p=page: _graph_drawn(p)))
                    page.close()
        finally:
            browser.close()
    return [(name, cpu, wall) for name, (cpu, wall) in best.items()]
