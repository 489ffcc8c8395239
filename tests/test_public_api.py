"""The public engine: ``from hlv_core import ...`` finds every concept's main functions, importing
the package stays cheap (no numpy, no Dask), each exported name is in the API reference, the
reference builds with warnings as errors, and the suite runs the docstring examples (the
numpydoc sections themselves: tests/test_docstrings.py)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import hlv_core

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "api"

def test_every_exported_name_resolves():
    for name in hlv_core.__all__:
        assert getattr(hlv_core, name) is not None, name
    assert set(hlv_core.__all__) <= set(dir(hlv_core))


def test_the_public_names_cover_every_concept():
    exported = {getattr(hlv_core, n) for n in hlv_core.__all__ if not n[0].isupper()}
    for concept, names in {
        "agreement": ["krippendorff_alpha", "pairwise_alpha", "cohen_kappa", "fleiss_kappa"],
        "soft_metrics": ["soft_accuracy", "soft_macro_f1", "po_jsd", "entropy_correlation"],
        "balance": ["sigma", "sigma_random"],
        "certainty": ["annotation_certainty", "ua_accuracy", "average_overlap"],
        "perspectivist": ["make_splits"],
        "review": ["rank_centrality"],
        "io": ["load", "load_predictions"],
    }.items():
        module = importlib.import_module(f"hlv_core.{concept}")
        for name in names:
            assert getattr(hlv_core, name) is getattr(module, name), (concept, name)
            assert getattr(module, name) in exported
    assert hlv_core.evaluate_soft is hlv_core.soft_metrics.evaluate
    assert hlv_core.evaluate_perspectives is hlv_core.perspectivist.evaluate


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        hlv_core.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        exec("from hlv_core import no_such_name", {})


def _fresh(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.strip()


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, hlv_core; "
            "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'dask', 'streamlit', "
            "'typing') if m in sys.modules))")
    assert _fresh(code) == "[]"


def test_the_star_import_never_reaches_the_scale_out_engine():
    # Only hlv_core.scale imports Dask (tests/test_architecture.py), so keeping it out of
    # ``__all__`` keeps ``from hlv_core import *`` free of Dask; it still loads on access.
    assert "scale" not in hlv_core.__all__
    assert all(module != "scale" for module, _ in hlv_core._NAMES.values())
    assert "scale" in dir(hlv_core)


def test_every_public_name_is_in_the_reference():
    text = (REFERENCE / "index.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\.\. auto(?:function|class|exception|data):: (\w+)$", text,
                            flags=re.MULTILINE))
    names = {n for n in hlv_core.__all__ if not isinstance(getattr(hlv_core, n), types.ModuleType)}
    assert names - listed == set(), "public names missing from docs/api/index.rst"
    assert listed - names == set(), "docs/api/index.rst documents names that are not public"


@pytest.mark.slow
def test_the_api_reference_builds_without_warnings(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(REFERENCE), str(tmp_path / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    page = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert 'id="hlv_core.krippendorff_alpha"' in page


def test_the_suite_runs_the_docstring_examples():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    options = config["tool"]["pytest"]["ini_options"]
    assert "hlv_core" in options["testpaths"]
    assert "--doctest-modules" in options["addopts"].split()
    # never import the CLI entry point during collection
    assert "--ignore=hlv_core/__main__.py" in options["addopts"].split()
