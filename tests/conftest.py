"""Shared fixtures: paths to the shared datasets and the spec vectors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HLV_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"
VECTORS = SHARED / "spec" / "vectors"


def shared_path(*parts: str) -> Path:
    """Path inside ../shared; skips the test when the shared folder is not next to the repo."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


@pytest.fixture
def data_dir() -> Path:
    return shared_path("data")


@pytest.fixture
def vectors_dir() -> Path:
    return shared_path("spec", "vectors")


@pytest.fixture(autouse=True, scope="session")
def _review_db_never_in_home(tmp_path_factory):
    """No test may write the user's real review database (~/.local/share/hlv-lens)."""
    os.environ.setdefault(
        "HLV_REVIEW_DB", str(tmp_path_factory.mktemp("reviewdb") / "reviews.sqlite3")
    )


@pytest.fixture(autouse=True, scope="session")
def _hidden_character_class_built():
    """Build ``hlv_core.text``'s class of hidden characters once, before any test: it is built
    lazily on the first long non-ASCII text (~0.2 s), which would otherwise land inside
    whichever timed hypothesis example meets such a text first."""
    from hlv_core.text import _hidden_pattern

    _hidden_pattern()
