"""The engine's docstring examples never touch the user's real data folder: the repository's
root ``conftest.py`` points the default review database (and the library beside it) into a
temporary folder and runs every doctest in its own temporary working folder, even when the
user's shell points ``HLV_REVIEW_DB`` / ``HLV_LIBRARY_DIR`` / ``XDG_DATA_HOME`` at real data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A docstring example that writes to the default locations and with a relative path: exactly
# what an example must never do to a real user's folders.
PROBE = '''
def probe():
    """
    >>> import pathlib
    >>> from hlv_core.review_store import ReviewStore, default_db_path
    >>> from hlv_core.library import Library
    >>> ReviewStore(default_db_path()).close()
    >>> _ = Library().root
    >>> _ = pathlib.Path("written-by-a-doctest.txt").write_text("x")
    """
'''


def _user_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "xdg"),
               HLV_REVIEW_DB=str(home / "real" / "reviews.sqlite3"),
               HLV_LIBRARY_DIR=str(home / "real" / "library"))
    return env


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_a_writing_doctest_lands_in_a_temporary_folder(tmp_path):
    home, probe_dir = tmp_path / "home", tmp_path / "probe"
    home.mkdir()
    probe_dir.mkdir()
    (probe_dir / "probe_module.py").write_text(PROBE, encoding="utf-8")
    # the probe lies outside the repository, so load the root conftest by name (-p conftest)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
         "--doctest-modules", "--rootdir", str(probe_dir), str(probe_dir / "probe_module.py")],
        cwd=ROOT, env=_user_env(home), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "1 passed" in out.stdout
    assert _files(home) == []
    assert not (ROOT / "written-by-a-doctest.txt").exists()
    assert not (probe_dir / "written-by-a-doctest.txt").exists()
    assert [p.name for p in _files(probe_dir) if p.suffix != ".pyc"] == ["probe_module.py"]
