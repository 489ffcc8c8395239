"""IRN ties (Stutz et al. 2023, Appendix B.2; argmax ties to the lowest class index):
classes whose IRN weights are equal as fractions are equal in the returned array, so the
argmax / top-k tie rule (lowest class index) applies whatever the order of the readers."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from hlv_core import certainty as ce

# Class 1 collects 1/2 + 1/6 + 1 and class 2 collects 1 + 1/2 + 1/6 (reader order): both 5/3;
# class 3 gets 1, class 0 gets 1/6; total 1/6 + 5/3 + 5/3 + 1 = 9/2.
TIED_TOP = [[[[2]], [[1, 2]], [[3], [1, 2, 0]], [[1]]]]
# Class 1: 1/2 + 1/6 + 1/2, class 2: 1/2 + 1/2 + 1/6 (both 7/6), class 0: 3, class 3: 1/6.
TIED_SECOND = [[[[0], [2]], [[1, 2]], [[0], [1, 2, 3]], [[0], [1]]]]


def exact_irn(case, K, split=True):
    w = [Fraction(0)] * K
    for reader in case:
        for b, block in enumerate(reader, start=1):
            for c in block:
                w[c] += Fraction(1, b * (len(block) if split else 1))
    total = sum(w)
    return [x / total for x in w]


def test_tied_weights_are_equal_and_ties_go_to_the_lowest_index():
    p = ce.irn(TIED_TOP, 4)
    assert p[0, 1] == p[0, 2]
    np.testing.assert_allclose(p[0], [1 / 27, 10 / 27, 10 / 27, 6 / 27], rtol=0, atol=1e-15)
    assert ce.topk_sets(p, 4)[0].tolist() == [1, 2, 3, 0]
    q = ce.irn(TIED_SECOND, 4)
    assert q[0, 1] == q[0, 2]
    assert ce.topk_sets(q, 4)[0].tolist() == [0, 1, 2, 3]
    # the point estimate at infinite reliability has the same top class
    s = ce.sample_plausibilities("prirn", TIED_TOP, reliability=float("inf"), n_samples=2,
                                 n_classes=4)
    assert ce.rank_k_certainties(s)[0].tolist() == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("split", [True, False])
def test_order_of_readers_does_not_change_the_ranking(split):
    for case in (TIED_TOP[0], TIED_SECOND[0]):
        exact = exact_irn(case, 4, split)
        want = sorted(range(4), key=lambda c: (-exact[c], c))
        for perm in itertools.permutations(case):
            p = ce.irn([list(perm)], 4, tie_split=split)[0]
            np.testing.assert_allclose(p, [float(x) for x in exact], rtol=0, atol=1e-15)
            assert ce.topk_sets(p, 4).tolist() == want
