"""The runtime requirements alone import the whole engine, every UI module and what Streamlit's
login needs (the check that would have caught the missing ``httpx``): a subprocess whose import
system refuses every distribution that ``requirements.txt`` does not bring, transitively
(``tests/runtime_only.py``). The browser login round trip under the same guard:
``tests/e2e/test_runtime_login_e2e.py``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ROOT
from .runtime_only import allowed_distributions

GUARD = [sys.executable, str(ROOT / "tests" / "runtime_only.py")]

LOGIN = """
# what Streamlit's /auth/login and /oauth2callback import when a visitor logs in
import streamlit.web.server.starlette.starlette_auth_routes
import authlib.integrations.starlette_client
from authlib.integrations.httpx_client import AsyncOAuth2Client
"""
IMPORT_ALL = LOGIN + """
import importlib, pkgutil
import hlv_core, hlv_ui
for package in (hlv_core, hlv_ui):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
print("ok")
"""


def _run(requirements, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([*GUARD, str(requirements), "-c", code], cwd=ROOT, text=True,
                          capture_output=True, timeout=120)


def test_the_closure_follows_declared_requirements_and_extras():
    allowed = allowed_distributions(ROOT / "requirements.txt")
    assert {"streamlit", "httpx", "authlib", "dask", "pandas"} <= allowed
    assert "pytest" not in allowed and "playwright" not in allowed
    assert "oidc-provider-mock" not in allowed
    # httpx is there only because it is pinned: nothing else at runtime brings it
    lines = [line for line in (ROOT / "requirements.txt").read_text().splitlines()
             if not line.startswith("httpx")]
    assert "httpx" not in allowed_distributions(
        [x.split("#")[0].strip() for x in lines if x.split("#")[0].strip()])


@pytest.mark.slow
def test_runtime_requirements_import_the_engine_the_ui_and_the_login(tmp_path):
    done = _run(ROOT / "requirements.txt", IMPORT_ALL)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_without_httpx_the_login_imports_fail_and_say_why(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("".join(
        line + "\n" for line in (ROOT / "requirements.txt").read_text().splitlines()
        if not line.startswith("httpx")))
    done = _run(requirements, LOGIN)
    assert done.returncode != 0
    assert "No module named 'httpx'" in done.stderr and "runtime-only check" in done.stderr


def test_a_dev_only_package_is_refused():
    done = _run(ROOT / "requirements.txt", "import pytest")
    assert done.returncode != 0 and "No module named 'pytest'" in done.stderr
