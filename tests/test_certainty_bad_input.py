"""Bad sampler input is refused with one ValueError (Stutz et al., Dirichlet / PrIRN models):
NaN or infinite vote counts, and a Dirichlet pseudo-count a0 that is negative or NaN. Before,
NaN counts gave NaN samples and a negative a0 silently sampled Dir(r c - |a0|)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hlv_core import certainty as ce
from hlv_core._compact_sampler import compact_engine

SELECTORS = [[[[0], [1, 2]], [[1]]]]
BAD_COUNTS = [np.array([[np.nan, 2.0, 1.0]]), np.array([[np.inf, 2.0, 1.0]])]


@pytest.mark.parametrize("counts", BAD_COUNTS)
def test_non_finite_counts_are_refused(counts):
    with pytest.raises(ValueError, match="finite"):
        ce.proportions(counts)
    for r in (1.0, math.inf):
        with pytest.raises(ValueError, match="finite"):
            ce.sample_plausibilities("dirichlet", counts, reliability=r, n_samples=2)
        with pytest.raises(ValueError, match="finite"):
            ce.sample_top_classes("dirichlet", counts, reliability=r, n_samples=2, depth=1)
    with pytest.raises(ValueError, match="finite"):
        compact_engine("dirichlet", counts, None, 0.1, 2, 1, 0)
    with pytest.raises(ValueError, match="finite"):
        ce.sweep("dirichlet", counts, [1.0], n_samples=2, ks=(1,))


@pytest.mark.parametrize("prior", [-1.0, -0.01, float("nan")])
def test_negative_or_nan_prior_is_refused(prior):
    counts = np.array([[3.0, 1.0, 1.0]])  # every class has evidence: a0 < 0 still "runs"
    with pytest.raises(ValueError, match="prior"):
        ce.sample_plausibilities("dirichlet", counts, reliability=1.0, n_samples=2, prior=prior)
    with pytest.raises(ValueError, match="prior"):
        ce.sample_top_classes("dirichlet", counts, reliability=1.0, n_samples=2, depth=1,
                              prior=prior)
    with pytest.raises(ValueError, match="prior"):
        ce.sweep("dirichlet", counts, [1.0], n_samples=2, ks=(1,), prior=prior)
    with pytest.raises(ValueError, match="prior"):
        ce.sample_plausibilities("prirn", SELECTORS, reliability=1.0, n_samples=2, prior=prior,
                                 n_classes=4)
    with pytest.raises(ValueError, match="prior"):
        ce.sweep("prirn", SELECTORS, [1.0], n_samples=2, ks=(1,), prior=prior, n_classes=4)


def test_valid_edge_values_still_run():
    counts = np.array([[3.0, 1.0, 0.0]])
    # a0 = 0 is allowed when every row has annotations (reference: alpha = 0 is accepted)
    s = ce.sample_plausibilities("dirichlet", counts, reliability=1.0, n_samples=5, prior=0.0)
    assert s.shape == (1, 5, 3) and np.allclose(s.sum(-1), 1.0) and np.all(s[..., 2] == 0)
    assert np.array_equal(ce.proportions(counts), [[0.75, 0.25, 0.0]])


def test_cli_refuses_a_nan_prior(tmp_path, capsys):
    """Before, ``--prior nan`` printed certainty 1.0 at every k (NaN samples, argmax 0)."""
    import json

    from hlv_core.cli import main

    path = tmp_path / "toy_selectors.json"
    path.write_text(json.dumps([[[[0], [1]], [[1]]], [[[2]], [[2], [0]]]]))
    assert main(["certainty", str(path), "--model", "prirn", "--reliability", "1",
                 "--samples", "5", "--prior", "nan"]) == 2
    assert "prior" in capsys.readouterr().err


def test_average_overlap_refuses_class_ids_beyond_n_classes():
    """Before: an IndexError from numpy; now one ValueError naming the id and K."""
    with pytest.raises(ValueError, match="class id 5"):
        ce.average_overlap([0, 5], [1], depth=1, n_classes=3)
    assert ce.average_overlap([0, 2], [0, 2], depth=2, n_classes=3) == 1.0
