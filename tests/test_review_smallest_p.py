"""review.smallest_p: the floor of the exact permutation test's p-value with n models."""

from __future__ import annotations

import numpy as np
import pytest

from hlv_core.review import permutation_pvalue, smallest_p


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_floor_is_reached_by_a_perfect_correlation(alternative):
    x = np.arange(5.0)
    _, p, _ = permutation_pvalue(x, 2 * x + 1, alternative=alternative)
    assert p == pytest.approx(smallest_p(5, alternative))


def test_values():
    assert smallest_p(4, "greater") == pytest.approx(1 / 24)
    assert smallest_p(4) == pytest.approx(2 / 24)
