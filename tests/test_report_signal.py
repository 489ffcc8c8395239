"""The report's "Possible errors and annotators" section: the engine's numbers, escaped, and a
clear "not applicable" where the data cannot support it."""

from __future__ import annotations

import pandas as pd

from hlv_core import competence
from hlv_core.io import load
from hlv_core.report import ReportSettings, _signal
from hlv_core.samples import load_sample

from .conftest import shared_path


def test_signal_section_on_planted_camps_names_the_spammers():
    folder = shared_path("data", "planted_camps")
    dataset = load(folder)
    section = _signal(dataset, ReportSettings())
    assert section.applies
    roles = pd.read_csv(folder / "annotators.csv", dtype=str)
    rep = competence.annotator_report(dataset.annotations, max_iter=100, mace_restarts=0)
    for spammer in roles.loc[roles["role"] == "spammer", "annotator_id"]:
        assert rep.loc[spammer, "kind"] == "unreliable"
        assert spammer in section.body
    assert "not a verdict" in section.body and "perspective" in section.body


def test_signal_section_not_applicable_to_rankings_and_escapes_names(tmp_path):
    derm = load_sample("dermatology")
    assert not _signal(derm, ReportSettings()).applies
    rows = [(f"i{i}", "<b>x</b>" if a == 0 else f"a{a}", "yes" if (i * a) % 3 else "no")
            for i in range(30) for a in range(4)]
    pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]).to_csv(
        tmp_path / "a.csv", index=False)
    section = _signal(load(tmp_path / "a.csv"), ReportSettings())
    assert "<b>x</b>" not in section.body
