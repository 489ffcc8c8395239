"""The labels of one case's outputs line up: the same rows in inventory order for every output
(``hlv_core.review.case_labels``)."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from hlv_core import review

LABELS = ["liable", "not_liable", "unclear", "other"]


def test_union_above_threshold_in_inventory_order():
    case = pd.DataFrame([[0.0, 0.7, 0.3, 0.0], [0.6, 0.05, 0.35, 0.0]], columns=LABELS)
    assert review.case_labels(case, threshold=0.1) == ["liable", "not_liable", "unclear"]
    assert review.case_labels(case) == ["liable", "not_liable", "unclear"]
    # the cap keeps the labels with the highest largest probability, still in inventory order
    assert review.case_labels(case, threshold=0.1, max_labels=2) == ["liable", "not_liable"]
    assert review.case_labels(case, threshold=0.9) == []


def test_ties_at_the_cap_keep_the_earlier_label():
    case = pd.DataFrame([[0.5, 0.5, 0.0, 0.0]], columns=LABELS)
    assert review.case_labels(case, max_labels=1) == ["liable"]


@settings(max_examples=60, deadline=None)
@given(arrays(float, (3, 4), elements=st.floats(0, 1)), st.floats(0, 1),
       st.integers(1, 4))
def test_properties(values, threshold, cap):
    case = pd.DataFrame(values, columns=LABELS)
    shown = review.case_labels(case, threshold=threshold, max_labels=cap)
    assert shown == [x for x in LABELS if x in shown]  # inventory order
    assert len(shown) <= cap
    every = review.case_labels(case, threshold=threshold)
    assert set(shown) <= set(every)
    assert every == [x for x in LABELS if case[x].max() > threshold]
