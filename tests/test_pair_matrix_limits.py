"""Pairwise structures are estimated before they are allocated: a wide file with thousands of
annotators is refused early with the estimate (naming HLV_MAX_PAIRS), never a memory error,
in the annotator views, the camps, the report and the pair matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import agreement, annotators, balance, report
from hlv_core.io import DataError, load
from hlv_core.pair_matrix import estimate_pairs, pairwise_matrix


def _wide(n_annotators: int, n_items: int = 6, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    header = "item_id," + ",".join(f"a{j}" for j in range(n_annotators))
    rows = [header]
    for i in range(n_items):
        cells = rng.choice(["x", "y", ""], n_annotators, p=[0.4, 0.4, 0.2])
        rows.append(f"i{i}," + ",".join(cells))
    return ("\n".join(rows) + "\n").encode()


def test_estimate_by_hand():
    ann = pd.DataFrame({"item_id": ["i1"] * 3 + ["i2"] * 2 + ["i3"],
                        "annotator_id": ["a", "b", "c", "a", "b", "a"],
                        "label": list("xyxxyx")})
    est = estimate_pairs(ann)
    # i1: 3 pairs, i2: 1 pair, i3: none -> 4 instances; at most 3 distinct pairs of 3 annotators
    assert (est.n_annotators, est.pair_instances, est.pairs) == (3, 4, 3)
    assert est.pairs >= len(agreement.pairwise_alpha(ann, min_shared=1))


def test_estimate_bounds_the_pair_table():
    ds = load(_wide(60), name="w.csv")
    est = estimate_pairs(ds.annotations)
    pairs = agreement.pairwise_alpha(ds.annotations, min_shared=1)
    assert len(pairs) <= est.pairs <= 60 * 59 // 2


def test_annotator_views_refuse_early_with_the_estimate(monkeypatch):
    ds = load(_wide(300), name="w.csv")
    monkeypatch.setenv("HLV_MAX_PAIRS", "1000")
    monkeypatch.setattr(agreement, "pairwise_alpha", lambda *a, **k: pytest.fail("built"))
    monkeypatch.setattr(balance, "sigma", lambda *a, **k: pytest.fail("built"))
    with pytest.raises(DataError, match="HLV_MAX_PAIRS") as err:
        annotators.annotator_pairs(ds)
    assert "44,850 pairs" in str(err.value) and "300 annotators" in str(err.value)
    with pytest.raises(DataError, match="HLV_MAX_PAIRS"):
        annotators.annotator_camps(ds)


def test_report_says_the_pairs_section_does_not_apply(monkeypatch):
    ds = load(_wide(300), name="w.csv")
    monkeypatch.setenv("HLV_MAX_PAIRS", "1000")
    monkeypatch.setattr(report, "pairwise_alpha", lambda *a, **k: pytest.fail("built"))
    html = report.build_report(ds)
    assert "HLV_MAX_PAIRS" in html


def test_dense_matrix_over_the_limit_is_refused(monkeypatch):
    monkeypatch.setenv("HLV_MAX_PAIRS", "10")
    pairs = pd.DataFrame({"annotator_a": ["a0"], "annotator_b": ["a1"], "alpha": [0.5]})
    with pytest.raises(DataError, match="HLV_MAX_PAIRS"):
        pairwise_matrix(pairs, [f"a{i}" for i in range(6)])
    assert pairwise_matrix(pairs, ["a0", "a1", "a2"]).matrix.shape == (3, 3)


@pytest.mark.slow
def test_cli_annotator_on_thousands_of_annotators_is_one_line(tmp_path, capsys):
    from hlv_core.cli import main

    path = tmp_path / "wide.csv"
    path.write_bytes(_wide(3500, n_items=4))  # ~6 M possible pairs, over the default limit
    assert main(["annotator", str(path), "--id", "a1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "HLV_MAX_PAIRS" in err
