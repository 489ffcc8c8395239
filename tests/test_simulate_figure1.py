"""hlv_core.simulate.figure1_curves / figure1_point / PAPER_TABLE2: the Figure 1 explainer and the
Table 2 reference row of the Soft vs hard metrics page, as engine functions."""

from __future__ import annotations

import numpy as np
import pytest

from hlv_core import soft_metrics as sm
from hlv_core.simulate import PAPER_TABLE2, figure1_curves, figure1_point


@pytest.mark.parametrize(("p", "q"), [(0.5, 0.2), (0.9, 0.9), (0.0, 1.0), (0.5, 0.5)])
def test_figure1_equals_the_page(p, q):
    # copy of figure1_tab in pages/soft_metrics.py (commit 06b6ab3)
    grid = np.linspace(0, 1, 201)
    P = np.column_stack([np.full_like(grid, p), 1 - np.full_like(grid, p)])
    Q = np.column_stack([grid, 1 - grid])
    curves = sm.per_item(P, Q)
    one = sm.per_item(np.array([[p, 1 - p]]), np.array([[q, 1 - q]]))
    hard = sm.hard_accuracy(np.array([[p, 1 - p]]), np.array([[q, 1 - q]]))
    new = figure1_curves(p)
    np.testing.assert_array_equal(new["q"].to_numpy(), grid)
    np.testing.assert_array_equal(new["soft_overlap"].to_numpy(), curves["soft_overlap"].to_numpy())
    np.testing.assert_array_equal(new["po_jsd"].to_numpy(), curves["po_jsd"].to_numpy())
    point = figure1_point(p, q)
    assert point == {"soft_accuracy": float(one["soft_overlap"].iloc[0]),
                     "po_jsd": float(one["po_jsd"].iloc[0]), "hard_accuracy": float(hard)}


def test_figure1_formula_and_theorem1():
    curves = figure1_curves(0.3, n_points=11)
    q = curves["q"].to_numpy()
    expected = np.minimum(0.3, q) + np.minimum(0.7, 1 - q)
    np.testing.assert_allclose(curves["soft_overlap"].to_numpy(), expected, atol=1e-12)
    assert (curves["soft_overlap"] <= curves["po_jsd"] + 1e-12).all()  # Theorem 1
    assert figure1_point(0.5, 0.5)["hard_accuracy"] == 1.0  # tie to the first class


def test_paper_table2_rows():
    assert set(PAPER_TABLE2) == {(10, 10.0, 10.0), (10, 0.1, 0.1), (100, 10.0, 0.1)}
    assert all(len(v) == 6 for v in PAPER_TABLE2.values())
    assert all(v[4] > 0.9 for v in PAPER_TABLE2.values())  # J-S above 0.9: the paper's claim
