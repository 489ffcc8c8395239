"""Reference formats (Stutz et al., ``formats.py``): a reader whose opinions row is all zeros
ranked nothing and is left out of the selectors, as in the rankings/groups conversion (the
three formats' example in the reference module docstring: the same cases in each format)."""

from __future__ import annotations

import numpy as np

from hlv_core import certainty as ce

OPINIONS = [
    np.array([[5, 0, 3, 5], [1, 2, 0, 0]]),
    np.array([[0, 0, 0, 0], [2, 2, 3, 0]]),
    np.array([[0, 0, 0, 0], [0, 0, 0, 0]]),
]
RANKINGS = np.array([
    [[0, 3, 2, 1], [1, 0, 2, 3]],
    [[0, 1, 2, 3], [2, 0, 1, 3]],
    [[0, 1, 2, 3], [0, 1, 2, 3]],
])
GROUPS = np.array([
    [[0, 0, 1, -1], [0, 1, -1, -1]],
    [[-1, -1, -1, -1], [0, 1, 1, -1]],
    [[-1, -1, -1, -1], [-1, -1, -1, -1]],
])
SELECTORS = [
    [[[0, 3], [2]], [[1], [0]]],
    [[[2], [0, 1]]],
    [],
]


def test_empty_readers_are_dropped_in_every_format():
    assert ce.selectors_from_opinions(OPINIONS) == SELECTORS
    assert ce.selectors_from_rankings_groups(RANKINGS, GROUPS) == SELECTORS
