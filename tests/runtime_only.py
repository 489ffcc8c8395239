"""Run Python with only the runtime requirements importable.

``python tests/runtime_only.py REQUIREMENTS [python args...]`` (e.g. ``requirements.txt -m
streamlit run app.py``) works like ``python [python args...]`` in the test environment, except
that importing a module installed by a distribution that ``REQUIREMENTS`` does not bring
(walked transitively through each distribution's declared requirements, extras and markers
honoured) raises ``ModuleNotFoundError``, as it would in a fresh ``pip install -r
requirements.txt`` environment. Modules of the standard library and of this repository are
not distributions and stay importable.

What it proves: the code that ran (the server, a login round trip) imports nothing that only
the dev or oracle requirements install (pytest, playwright, the OIDC provider mock, ...). What
it does not prove: that pip resolves the pins (tested by installing them in CI), or that a
distribution present here with a different version would behave the same (the pins are the
versions installed here; ``tests/test_requirements.py`` checks that).
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.metadata as metadata
import os
import re
import runpy
import sys
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement

__all__ = ["allowed_distributions", "install", "normalise"]


def normalise(name: str) -> str:
    """A distribution name in its canonical form (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_lines(path: Path) -> list[str]:
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ")):
            lines += _requirement_lines(path.parent / line.split(None, 1)[1])
        elif not line.startswith("-"):
            lines.append(line)
    return lines


def _applies(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    environment = dict(default_environment())
    return any(req.marker.evaluate({**environment, "extra": extra})
               for extra in (extras or {""}))


def allowed_distributions(requirements: Path | str | list[str]) -> set[str]:
    """Canonical names of every distribution ``requirements`` (a file, or its lines) brings:
    the listed ones and, transitively, what each declares (``Requires-Dist``) for the extras
    asked for and this interpreter's markers."""
    lines = requirements if isinstance(requirements, list) else _requirement_lines(
        Path(requirements))
    todo: list[tuple[str, frozenset[str]]] = []
    for line in lines:
        req = Requirement(line)
        if _applies(req, set()):
            todo.append((req.name, frozenset(req.extras)))
    seen: set[tuple[str, frozenset[str]]] = set()
    allowed: set[str] = set()
    while todo:
        name, extras = todo.pop()
        if (normalise(name), extras) in seen:
            continue
        seen.add((normalise(name), extras))
        allowed.add(normalise(name))
        try:
            declared = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # not installed here: nothing it could bring is importable either
        for text in declared:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if _applies(req, set(extras)):
                todo.append((req.name, frozenset(req.extras)))
    return allowed


class _RuntimeOnly(importlib.abc.MetaPathFinder):
    """Refuses top-level modules whose distributions are all outside ``allowed``."""

    def __init__(self, allowed: set[str], source: str) -> None:
        self.allowed = allowed
        self.source = source
        self.owners = {top: {normalise(d) for d in dists}
                       for top, dists in metadata.packages_distributions().items()}
        self.refused: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        owners = self.owners.get(top)
        if not owners or owners & self.allowed:
            return None  # standard library, this repository, or a runtime distribution
        self.refused.append(fullname)
        raise ModuleNotFoundError(
            f"No module named {fullname!r} (installed by {', '.join(sorted(owners))}, which "
            f"{self.source} does not bring: runtime-only check)", name=fullname)


def install(requirements: Path | str) -> _RuntimeOnly:
    """Put the runtime-only finder first on ``sys.meta_path``; returns it. With the
    environment variable ``HLV_RUNTIME_ONLY_LOG`` set, the refused imports are written to that
    file (a first line when the guard is installed, then one line per refused import at exit;
    optional imports that fall back are normal)."""
    finder = _RuntimeOnly(allowed_distributions(requirements), Path(requirements).name)
    sys.meta_path.insert(0, finder)
    log = os.environ.get("HLV_RUNTIME_ONLY_LOG")
    if log:
        Path(log).write_text(f"runtime-only: {len(finder.allowed)} distributions allowed\n",
                             encoding="utf-8")

        def _write_refused() -> None:
            with Path(log).open("a", encoding="utf-8") as handle:
                handle.writelines(f"refused {name}\n" for name in finder.refused)

        atexit.register(_write_refused)
    return finder


def _main(argv: list[str]) -> None:
    requirements, *args = argv
    root = str(Path(__file__).resolve().parents[1])
    sys.path[0] = root  # as ``python -m`` from the repository root, not from tests/
    install(requirements)
    if args[:1] == ["-m"]:
        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    elif args[:1] == ["-c"]:
        sys.argv = ["-c", *args[2:]]
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = args
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    _main(sys.argv[1:])
