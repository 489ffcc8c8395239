"""The report's "Possible errors and annotators" section: the engine's numbers, escaped, and a
clear "not applicable" where the data cannot support it."""

from __future__ import annotations

import pandas as pd

from hlv_core import competence
from hlv_core.io import build_dataset, load
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
    # rule (b) needs a subset the report does not choose: it says the rule is off and where
    assert "camp rule" in section.body and "is off here" in section.body
    assert "camp on the subset" not in section.body


def test_signal_section_not_applicable_to_rankings_and_escapes_names(tmp_path):
    derm = load_sample("dermatology")
    assert not _signal(derm, ReportSettings()).applies
    rows = [(f"i{i}", "<b>x</b>" if a == 0 else f"a{a}", "yes" if (i * a) % 3 else "no")
            for i in range(30) for a in range(4)]
    pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]).to_csv(
        tmp_path / "a.csv", index=False)
    section = _signal(load(tmp_path / "a.csv"), ReportSettings())
    assert "<b>x</b>" not in section.body


def test_possible_errors_show_who_chose_them():
    """Beside each possible error its choosers and their verdict (Weber-Genzel et al. 2024,
    section 5): the report's rows are the engine's ``label_choosers`` of the same fits."""
    from hlv_core import errors

    rows = [(f"i{i}", f"a{a}", "yes" if (i * (a + 1)) % 4 else "no")
            for i in range(30) for a in range(4)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    settings = ReportSettings(signal_top_errors=5)
    dataset = build_dataset(frame, source="x", format="x")
    section = _signal(dataset, settings)
    assert "<th>choosers</th>" in section.body
    report = competence.annotator_report(dataset.annotations, seed=settings.seed,
                                         max_iter=settings.signal_max_iter,
                                         mace_restarts=settings.signal_mace_restarts)
    scores = errors.error_scores(dataset.annotations, method="ds_posterior",
                                 seed=settings.seed, max_iter=settings.signal_max_iter)
    choosers = errors.label_choosers(dataset.annotations, report).set_index(["item_id", "label"])
    for item, label in scores.head(5)[["item_id", "label"]].itertuples(index=False):
        assert f'<td class="">{choosers.at[(item, label), "choosers"]}</td>' in section.body
