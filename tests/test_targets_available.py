"""hlv_core.targets.available_targets: every training method's examples, or why it cannot run,
in one engine call (the Soft vs hard metrics screen's item drill-down)."""

from __future__ import annotations

import pandas as pd
import pytest

from hlv_core import training
from hlv_core.io import DataError
from hlv_core.samples import load_sample
from hlv_core.targets import METHODS, available_targets


@pytest.mark.parametrize("name", ["case_review", "legal_areas"])
def test_available_targets_are_each_methods_targets_or_its_refusal(name):
    """Every method in order: the frame ``training.method_targets`` builds, or, where that
    refuses the data, its message."""
    dataset = load_sample(name)
    new = available_targets(dataset)
    assert list(new) == list(METHODS) == list(training.METHODS)
    for method in METHODS:
        if isinstance(new[method], str):
            with pytest.raises((DataError, ValueError)) as refused:
                training.method_targets(dataset, method)
            assert new[method] == str(refused.value)
        else:
            pd.testing.assert_frame_equal(new[method], training.method_targets(dataset, method))
    if name == "legal_areas":  # AL is multiclass only: a reason, not a table
        assert isinstance(new["AL"], str) and new["AL"]
