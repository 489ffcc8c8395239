"""One PrIRN / Dirichlet prior default, set in the engine and used by the sampler, the sweep,
the CLI, the Certainty page and docs/conventions.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from hlv_core import aggregation, certainty
from hlv_core.aggregation import DEFAULT_PRIOR, default_prior

ROOT = Path(__file__).resolve().parents[1]
# three cases, four classes: reader blocks of class ids (ties within a block)
SELECTORS = [[[[0], [1, 2]], [[1], [0]]], [[[2], [3]], [[2]]], [[[3, 1]], [[0], [3]]]]


def test_defaults_reproduce_the_public_code():
    assert DEFAULT_PRIOR["prirn"] == 0.01 and DEFAULT_PRIOR["dirichlet"] == 0.1
    assert default_prior("prirn") == 0.01


def test_sampler_and_sweep_use_the_model_default():
    kw = dict(reliability=1.0, n_samples=20, seed=3, n_classes=4)
    default = aggregation.sample_plausibilities("prirn", SELECTORS, **kw)
    np.testing.assert_array_equal(
        default, aggregation.sample_plausibilities("prirn", SELECTORS, prior=0.01, **kw))
    assert not np.allclose(
        default, aggregation.sample_plausibilities("prirn", SELECTORS, prior=0.1, **kw))
    counts = np.array([[3, 1, 0], [0, 2, 2]])
    np.testing.assert_array_equal(
        aggregation.sample_plausibilities("dirichlet", counts, reliability=1.0, n_samples=5),
        aggregation.sample_plausibilities("dirichlet", counts, reliability=1.0, n_samples=5,
                                          prior=0.1))
    swept = certainty.sweep("prirn", SELECTORS, [1.0], n_samples=20, seed=3, n_classes=4)
    explicit = certainty.sweep("prirn", SELECTORS, [1.0], n_samples=20, seed=3, n_classes=4,
                               prior=0.01)
    assert swept.certainty.equals(explicit.certainty)


def test_cli_page_and_conventions_name_the_engine_default(tmp_path, capsys):
    from hlv_core.cli import main

    path = tmp_path / "selectors.json"
    path.write_text(json.dumps(SELECTORS))
    assert main(["certainty", str(path), "--format", "selectors", "--model", "prirn",
                 "--reliability", "1", "--samples", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["prior"] == DEFAULT_PRIOR["prirn"]
    page = (ROOT / "pages" / "certainty" / "page.py").read_text()
    assert "default_prior(" in page and not re.search(r"value=0\.0?1\b", page)
    conventions = (ROOT / "docs" / "conventions.md").read_text()
    row = next(line for line in conventions.splitlines() if "PrIRN prior" in line)
    assert f"{DEFAULT_PRIOR['prirn']} for PrIRN" in row
    assert f"{DEFAULT_PRIOR['dirichlet']} for Dirichlet" in row


def test_compact_sampler_uses_the_model_default():
    """sample_top_classes (the compact path, public in hlv_core.certainty) takes the same
    default a0 as sample_plausibilities: 0.01 for PrIRN (before: 0.1 for every model, so its
    PrIRN top classes were not distributed as the dense sampler's with default arguments)."""
    kw = dict(reliability=1.0, n_samples=50, seed=3, n_classes=4, depth=2)
    default = certainty.sample_top_classes("prirn", SELECTORS, **kw)
    np.testing.assert_array_equal(
        default, certainty.sample_top_classes("prirn", SELECTORS, prior=0.01, **kw))
    assert not np.array_equal(
        default, certainty.sample_top_classes("prirn", SELECTORS, prior=0.1, **kw))
    counts = np.array([[3, 1, 0], [0, 2, 2]])
    kw = dict(reliability=1.0, n_samples=50, seed=3, depth=2)
    np.testing.assert_array_equal(
        certainty.sample_top_classes("dirichlet", counts, **kw),
        certainty.sample_top_classes("dirichlet", counts, prior=0.1, **kw))
