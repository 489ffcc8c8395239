"""hlv_core.levels: one answer for the levels of measurement of a dataset."""

from __future__ import annotations

import pytest

from hlv_core import agreement, balance
from hlv_core.io import LEVELS as IO_LEVELS
from hlv_core.io import DataError
from hlv_core.levels import LEVELS, level_options
from hlv_core.samples import load_sample

#: sample -> (levels offered, default level, multi-label mode), read off the rule: every level
#: but nominal only for multi-label data (a label set is one nominal value), the dataset's own
#: level as the default.
EXPECTED = {"case_review": (LEVELS, "nominal", "error"),
            "legal_areas": (("nominal",), "nominal", "set"),
            "ratings": (LEVELS, "ordinal", "error")}


def test_one_levels_tuple():
    assert LEVELS == IO_LEVELS == agreement.ALPHA_LEVELS == balance.LEVELS
    # one object, not four equal copies
    assert LEVELS is IO_LEVELS is agreement.ALPHA_LEVELS is balance.LEVELS


@pytest.mark.parametrize("name", ["case_review", "legal_areas", "ratings"])
def test_level_options_by_hand_and_agreement_cli(name):
    dataset = load_sample(name)
    opts = level_options(dataset)
    assert (tuple(opts.levels), opts.default, opts.multilabel) == EXPECTED[name]
    # cli/agreement.py: level = args.level or ("nominal" if multilabel else dataset.level)
    assert opts.resolve(None) == ("nominal" if dataset.task == "multilabel" else dataset.level)
    for level in opts.levels:
        try:
            expected = dataset.numeric_label_map(level)
        except DataError:
            with pytest.raises(DataError):
                opts.values(level)
        else:
            assert opts.values(level) == expected


def test_resolve_refuses_levels_the_data_does_not_admit():
    ml = level_options(load_sample("legal_areas"))
    with pytest.raises(ValueError, match="nominal"):
        ml.resolve("ordinal")
    nominal = level_options(load_sample("case_review"))
    assert nominal.resolve("ordinal") == "ordinal"
    with pytest.raises(ValueError, match="choose one of"):
        nominal.resolve("cardinal")
    with pytest.raises(DataError, match="numeric"):  # text labels have no interval scale
        nominal.values("interval")
    assert level_options(load_sample("ratings")).default == "ordinal"
