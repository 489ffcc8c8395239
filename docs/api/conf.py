"""Sphinx configuration of the HLV Lens API reference (built from the engine's docstrings).

Build: ``python -m sphinx -W --keep-going -b html docs/api docs/api/_build`` (README, Testing).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

project = "HLV Lens"
author = "HLV Lens contributors"
release = version = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
]

# The reference documents the public names; every page stays in the one index file.
root_doc = "index"
exclude_patterns = ["_build"]
autodoc_typehints = "none"  # numpydoc's Parameters section carries the types and shapes
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_use_plots = False
html_theme = "alabaster"
html_static_path: list[str] = []
