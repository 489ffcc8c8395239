"""Leave-one-reader-out agreement (Stutz et al., App. D): a tie for the others' top IRN class
goes to the lowest class index (Stutz et al. 2023, section 2.3 and Appendix D), also
when the leave-one-out subtraction leaves the tied IRN weights a rounding error apart."""

from __future__ import annotations

import pytest

from hlv_core import certainty as ce


@pytest.mark.parametrize("ids", [(0, 1, 2, 3), (61, 216, 284, 342)])
def test_tied_top_of_the_others_goes_to_the_lowest_index(ids):
    a, b, c, d = ids
    # reader 1 ties a, b, c in block 1; reader 2 ties b, d in block 1 (dermatology case 998).
    sel = [[[[a, b, c]], [[b, d]]]]
    case, per_reader = ce.reader_agreement(sel, 419)
    # without reader 1: the others' paper IRN gives b and d 1/4 each -> top b (lower index);
    #   reader 1 ranked b -> 1.
    # without reader 2: a, b, c get 1/3 each -> top a; reader 2 did not rank a -> 0.
    assert per_reader.tolist() == [1.0, 0.0]
    assert case[0] == 0.5
    # released-code IRN (no split): weights 1 each, the same tops and the same agreement
    case_ref, per_reader_ref = ce.reader_agreement(sel, 419, tie_split=False)
    assert per_reader_ref.tolist() == [1.0, 0.0] and case_ref[0] == 0.5
