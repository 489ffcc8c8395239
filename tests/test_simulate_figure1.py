"""hlv_core.simulate.figure1_curves / figure1_point / PAPER_TABLE2: the Figure 1 explainer and the
Table 2 reference row of the Soft vs hard metrics screen (Kurniawan et al.), checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from hlv_core.simulate import PAPER_TABLE2, figure1_curves, figure1_point


@pytest.mark.parametrize(("p", "q", "hard"), [(0.5, 0.2, 0.0), (0.9, 0.9, 1.0), (0.0, 1.0, 0.0),
                                             (0.5, 0.5, 1.0), (0.8, 0.6, 1.0)])
def test_figure1_point_by_hand(p, q, hard):
    """One binary item, humans p : 1 - p, model q : 1 - q: soft accuracy is the overlap
    min(p, q) + min(1 - p, 1 - q); hard accuracy is 1 when both put their larger share on the
    same class (ties to the first class); PO-JSD is the curve's value at q."""
    point = figure1_point(p, q)
    assert point["soft_accuracy"] == pytest.approx(min(p, q) + min(1 - p, 1 - q), abs=1e-12)
    assert point["hard_accuracy"] == hard
    curves = figure1_curves(p, n_points=11)
    at_q = curves.loc[np.isclose(curves["q"], q)]
    assert point["po_jsd"] == pytest.approx(float(at_q["po_jsd"].iloc[0]), abs=1e-12)
    assert point["soft_accuracy"] <= point["po_jsd"] + 1e-12  # Theorem 1


def test_figure1_curves_grid():
    curves = figure1_curves(0.5)
    np.testing.assert_array_equal(curves["q"].to_numpy(), np.linspace(0, 1, 201))


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
