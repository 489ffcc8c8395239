"""Browser tests wait on the app's own state (its script state ``notRunning``, a heading, a
metric), never on short fixed timeouts: a machine at load 15-25 draws pages in tens of
seconds. A static check over ``tests/e2e`` (it runs without a browser)."""

from __future__ import annotations

import re
from pathlib import Path

E2E = Path(__file__).parent / "e2e"


def test_no_fixed_sleeps_in_browser_tests():
    found = [f"{path.name}:{number}" for path in sorted(E2E.glob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r"wait_for_timeout\(|time\.sleep\(", line)
             and not line.lstrip().startswith(("#", '"', "fixed"))
             and "# observation window:" not in line]  # "nothing more happens in N s" checks
    # the server start-up poll of the health endpoint is the one sleep (not a page wait)
    assert found == ["conftest.py:" + str(_health_poll_line())], found


def _health_poll_line() -> int:
    lines = (E2E / "conftest.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "time.sleep(" in line)


def test_default_waits_are_long_and_on_the_app_state():
    from tests.e2e import conftest

    assert conftest.APP_TIMEOUT_MS >= 60_000
    source = (E2E / "conftest.py").read_text()
    assert "expect.set_options(timeout=APP_TIMEOUT_MS)" in source
    assert "data-test-script-state" in source and "notRunning" in source
    short = [(p.name, m.group(1)) for p in sorted(E2E.glob("test_*.py"))
             for m in re.finditer(r"timeout=([\d_]+)", p.read_text())
             if int(m.group(1).replace("_", "")) < 10_000]
    assert short == [], short


_ACTION = re.compile(r"\.(click|press|fill|check|set_input_files|select_option|type)\(")


def _waits_straight_after_an_action(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.glob("test_*.py")):
        lines = path.read_text().splitlines()
        for number, (line, after) in enumerate(zip(lines, lines[1:], strict=False), 1):
            if _ACTION.search(line) and "rerun(" not in line and "wait_for_app(" in after:
                found.append(f"{path.name}:{number}")
    return found


def test_no_wait_for_app_straight_after_an_action():
    """``wait_for_app`` right after a click, key or upload can return before that action's run
    has begun (the browser's script state stays ``notRunning`` until the server starts the run):
    such an action goes through ``rerun``, or the test first waits for something its run draws."""
    assert _waits_straight_after_an_action(E2E) == []
