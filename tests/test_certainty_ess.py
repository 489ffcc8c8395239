"""SweepResult.mean_ess: the PL sampler's effective sample size averaged over cases, per reliability."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from hlv_core.certainty import SweepResult, sweep


def _result(info: list) -> SweepResult:
    empty = pd.DataFrame()
    return SweepResult(certainty=empty, accuracy=empty, per_case=empty, info=info)


def test_mean_over_cases_ignores_nan_cases():
    out = _result([{"ess": np.array([10.0, 30.0, np.nan])}, {"ess": [4.0]}]).mean_ess()
    assert out == [20.0, 4.0]


def test_samplers_without_ess_give_nan():
    counts = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    res = sweep("dirichlet", counts, [1.0, 10.0], n_samples=20, seed=0, n_classes=3)
    out = res.mean_ess()
    assert len(out) == 2 and all(math.isnan(x) for x in out)
    assert all(math.isnan(x) for x in _result([{"ess": [np.nan]}, {}]).mean_ess())
