"""Basile et al.'s numbers on the Annotator graph page: with its defaults the page shows what
the CLI prints for HS-Brexit (lives under ``tests/app`` so the AppTest fixtures of
``tests/app/conftest.py`` apply whichever tests ran before it in the process)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from hlv_core.cli import main
from tests.conftest import shared_path

from .conftest import APP, open_page


@pytest.mark.slow
def test_graph_page_shows_the_cli_numbers_for_brexit(capsys):
    """The graph page, with its defaults, shows the numbers the CLI prints (Basile's)."""
    path = shared_path("data", "hs_brexit", "annotations.csv")
    assert main(["sigma", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.file_uploader(key="home.upload").set_value(
        ("annotations.csv", path.read_bytes(), "text/csv")).run()
    at = open_page(at, "graph")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["α (nominal)"] == f"{out['alpha']:.3f}" == "0.347"
    assert metrics["σ (systematicity)"] == f"{out['sigma']:.3f}" == "1.000"
    assert metrics["σ_rnd (mean)"] == f"{out['sigma_rnd_mean']:.3f}"
    assert not at.info  # paper conventions, no deviation notice
