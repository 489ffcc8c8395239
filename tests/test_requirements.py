"""The runtime requirements alone run team mode: Streamlit's OpenID Connect login imports
every package of Streamlit's ``auth`` extra, and a README install has only requirements.txt."""

from __future__ import annotations

import importlib.metadata as metadata
import re
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _pins(path: Path) -> dict[str, str]:
    """``name -> version`` of the ``name==version`` lines of a requirements file (not its
    ``-r`` includes)."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            req = Requirement(line)
            pins[re.sub(r"[-_.]+", "-", req.name).lower()] = str(req.specifier)
    return pins


def test_streamlit_auth_extra_is_pinned_in_the_runtime_requirements():
    runtime = _pins(ROOT / "requirements.txt")
    needed = [Requirement(r) for r in metadata.requires("streamlit") or []
              if 'extra == "auth"' in r]
    assert needed, "streamlit declares no auth extra any more: revisit this test"
    for req in needed:
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        assert name in runtime, f"{req.name} (Streamlit's login needs it) is not in requirements.txt"
        pinned = runtime[name].removeprefix("==")
        assert runtime[name].startswith("=="), f"{req.name} is not pinned exactly"
        assert req.specifier.contains(pinned), f"{req.name}=={pinned} does not satisfy {req}"
        assert metadata.version(req.name) == pinned, f"installed {req.name} differs from the pin"
