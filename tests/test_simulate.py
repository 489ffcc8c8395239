"""hlv_core.simulate reproduces Table 2 (Kurniawan et al., Table 2; the shared reference vectors)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hlv_core import soft_metrics as sm
from hlv_core.simulate import SETTINGS, pair_metrics, simulate, table2
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def reference():
    return json.loads(shared_path("spec", "vectors", "softmetrics_table2.json").read_text())


def test_default_run_reproduces_seed0_first_setting(reference):
    calls = []
    res = simulate(progress=calls.append, block_bytes=20_000_000)  # K=10, a=b=10, B=500, seed 0
    ref = reference["runs"][0]["results"]["K=10,alpha=10,beta=10"]
    for pair, value in res.pairs().items():
        assert value == pytest.approx(ref["corr"][pair], abs=1e-9), pair
    for metric, summary in ref["metric_summary"].items():
        assert res.values[metric].mean() == pytest.approx(summary["mean"], abs=1e-9)
    assert calls and calls[-1] == 1.0 and calls == sorted(calls)
    assert res.corr.shape == (4, 4) and np.allclose(np.diag(res.corr), 1.0)


def test_pair_metrics_agree_with_soft_metrics():
    rng = np.random.default_rng(11)
    P = rng.dirichlet(np.full(5, 0.3), size=(3, 40))
    Q = rng.dirichlet(np.full(5, 0.3), size=(3, 40))
    got = pair_metrics(P, Q)
    for b in range(3):
        expected = [sm.hard_accuracy(P[b], Q[b]), sm.po_jsd(P[b], Q[b]),
                    sm.entropy_correlation(P[b], Q[b]), sm.soft_accuracy(P[b], Q[b])]
        np.testing.assert_allclose(got[b], expected, atol=1e-12)


def test_key_claim_small_run():
    res = simulate(K=10, alpha=0.1, beta=0.1, B=60, rows=300, seed=3)
    assert res.pairs()["J-S"] > 0.9
    assert res.seed == 3 and len(res.values) == 60


def test_bad_arguments():
    with pytest.raises(ValueError, match="K"):
        simulate(K=1)
    with pytest.raises(ValueError, match="positive"):
        simulate(alpha=0)
    with pytest.raises(ValueError, match="B >= 3"):
        simulate(B=2)


@pytest.mark.slow
def test_full_table2_seed0(reference):
    """All eight settings on one generator (about 15 s on 2 cores)."""
    table = table2(0)
    ref = reference["runs"][0]["results"]
    assert len(table) == len(SETTINGS)
    for _, row in table.iterrows():
        key = f"K={int(row['K'])},alpha={row['alpha']:g},beta={row['beta']:g}"
        for pair, value in ref[key]["corr"].items():
            assert row[pair] == pytest.approx(value, abs=1e-7), (key, pair)
