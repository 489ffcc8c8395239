"""Safeguards for every test item, the engine's doctests included.

``pytest --doctest-modules hlv_core`` collects nothing under ``tests/``, so ``tests/conftest.py``
does not apply to the docstring examples; this file, at the repository root, applies to both.
No test and no docstring example may read or write the user's real data folder (the review
database and the dataset library, ``~/.local/share/hlv-lens`` by default).
"""

from __future__ import annotations

import os
import tempfile

import pytest

# The environment that decides where the review database and the library live
# (hlv_core.review_store.default_db_path, hlv_core.library.default_library_dir).
_USER_DATA_VARIABLES = ("HLV_REVIEW_DB", "HLV_LIBRARY_DIR", "XDG_DATA_HOME")


@pytest.fixture(autouse=True, scope="session")
def _user_data_never_touched(tmp_path_factory):
    """Point the default review database (and with it the library beside it) into a temporary
    folder for the whole session, even when the user's shell sets these variables to the real
    ones; restored afterwards."""
    saved = {name: os.environ.get(name) for name in _USER_DATA_VARIABLES}
    root = tmp_path_factory.mktemp("user_data")
    os.environ["XDG_DATA_HOME"] = str(root / "xdg")
    os.environ["HLV_REVIEW_DB"] = str(root / "reviews.sqlite3")
    os.environ.pop("HLV_LIBRARY_DIR", None)  # the library goes beside the database
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def _doctests_run_in_a_temporary_folder(request, tmp_path, monkeypatch):
    """A docstring example runs in its own temporary folder: relative paths land there, and
    ``tempfile.mkdtemp()`` folders go under pytest's temporary root (cleaned by pytest) rather
    than piling up in the system's temporary folder."""
    if not hasattr(request.node, "dtest"):  # only doctest items carry their DocTest
        yield
        return
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield


# --- Scheduling on several workers (test.sh: ``-n auto --dist loadgroup --no-loadscope-reorder``)
_FILE_SCOPES = ("module", "class", "package")


def _file_must_stay_whole(item: pytest.Item) -> bool:
    """A browser test (its file's servers and its order) or a test using a fixture built once
    per module or class: its whole file runs on one worker, so the fixture is built once."""
    if "tests/e2e/" in item.nodeid:
        return True
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(defs and defs[-1].scope in _FILE_SCOPES for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Longest work first, so that both workers finish together: browser test files, then files
    with a slow test, then everything else; files whose tests share a module fixture (and every
    browser test file) are one unit of work, every other test is a unit of its own. Stable (the
    same order on every worker, as pytest-xdist requires); nothing is skipped or changed."""
    def file_of(item):
        return item.nodeid.split("::", 1)[0]

    whole: set[str] = {file_of(item) for item in items if _file_must_stay_whole(item)}
    rank: dict[str, int] = {}
    for item in items:
        path = file_of(item)
        here = 0 if "tests/e2e/" in path else 1 if item.get_closest_marker("slow") else 2
        rank[path] = min(rank.get(path, 2), here)
    items.sort(key=lambda item: rank[file_of(item)])
    if not config.pluginmanager.hasplugin("xdist"):  # -p no:xdist: one process, no groups
        return
    for item in items:
        if file_of(item) in whole:
            item.add_marker(pytest.mark.xdist_group(file_of(item)))
