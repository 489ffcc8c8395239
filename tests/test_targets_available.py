"""hlv_core.targets.available_targets: the Soft vs hard metrics page's ``all_targets`` loop as one
engine call (every method's examples, or why it cannot run)."""

from __future__ import annotations

import pandas as pd
import pytest

from hlv_core import training
from hlv_core.io import DataError
from hlv_core.samples import load_sample
from hlv_core.targets import METHODS, available_targets


def _page_all_targets(dataset):
    """Copy of ``all_targets`` in pages/soft_metrics.py (commit 06b6ab3)."""
    out = {}
    for method in training.METHODS:
        try:
            out[method] = training.method_targets(dataset, method)
        except (DataError, ValueError) as error:
            out[method] = str(error)
    return out


@pytest.mark.parametrize("name", ["case_review", "legal_areas"])
def test_available_targets_equals_the_page(name):
    dataset = load_sample(name)
    new, old = available_targets(dataset), _page_all_targets(dataset)
    assert list(new) == list(old) == list(METHODS)
    for method in METHODS:
        if isinstance(old[method], str):
            assert new[method] == old[method]
        else:
            pd.testing.assert_frame_equal(new[method], old[method])
    if name == "legal_areas":  # AL is multiclass only: a reason, not a table
        assert isinstance(new["AL"], str) and new["AL"]
