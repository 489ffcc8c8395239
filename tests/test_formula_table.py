"""The "Every number on screen" table of docs/architecture.md: every number a screen shows
reaches its formula in two hops (screen -> the engine function it calls -> that function's
docstring with the formula and a References section)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Every number on screen"

def _rows() -> list[tuple[str, str, str]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert HEADING in text, f"docs/architecture.md has no '{HEADING}' section"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or cells[0] in ("Screen", "---") or set(cells[0]) <= {"-"}:
            continue
        assert len(cells) == 4, f"a row needs 4 cells: {line}"
        match = re.fullmatch(r"`(hlv_core(?:\.\w+)+)`", cells[2])
        assert match, f"the function cell must be one `hlv_core....` path: {line}"
        rows.append((cells[0], cells[1], match.group(1)))
    return rows


def _resolve(path: str):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def has_formula(doc: str) -> bool:
    """A ``.. math::`` block, a ``:math:`` role, an equation in double backquotes, or a line of
    text with an equation (``DistCE = mean TVD(Q_i, H_i)``: an ``=`` between spaces). The
    Examples section does not count (its code assigns variables)."""
    doc = re.split(r"^\s*Examples\n\s*-{8}\s*$", doc, maxsplit=1, flags=re.MULTILINE)[0]
    doc = "\n".join(line for line in doc.splitlines()
                    if not line.lstrip().startswith((">>>", "...")))
    return (".. math::" in doc or ":math:`" in doc
            or re.search(r"``[^`\n]* = [^`\n]*``", doc) is not None
            or re.search(r"\S \= \S", doc) is not None)


def has_reference(doc: str) -> bool:
    return re.search(r"^\s*References\n\s*-{10}\s*$", doc, flags=re.MULTILINE) is not None


ROWS = _rows()


def test_the_table_lists_every_screen_with_numbers():
    screens = {screen for screen, _, _ in ROWS}
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    titles = set(re.findall(r'st\.Page\([^\n]*?\btitle="([^"]+)"', app))
    assert screens <= titles, f"screens not in the app's navigation: {screens - titles}"
    # Every screen that shows computed numbers is in the table (the Glossary shows none).
    assert titles - screens <= {"Glossary"}, titles - screens
    assert len(ROWS) >= 30


def test_the_checks_can_fail():
    assert not has_formula("Mean of the values.\n\nReferences\n----------\nA paper.")
    assert has_formula("``alpha = 1 - D_o / D_e``")
    assert has_formula("DistCE = mean TVD(Q_i, H_i) over items")
    assert not has_formula("The default, ``level=\"nominal\"``, is explicit.")
    assert not has_formula("Counts.\n\nExamples\n--------\n>>> x = count(data)\n")
    assert not has_reference("Formula ``a = b`` (paper, section 3).")


@pytest.mark.parametrize(
    ("screen", "number", "path"), ROWS, ids=[f"{screen}: {path}" for screen, _, path in ROWS],
)
def test_each_number_reaches_its_formula_in_two_hops(screen, number, path):
    obj = _resolve(path)
    assert callable(obj), path
    doc = inspect.getdoc(obj) or ""
    assert has_formula(doc), f"{path} ({screen}: {number}) has no formula in its docstring"
    assert has_reference(doc), f"{path} ({screen}: {number}) has no References section"
