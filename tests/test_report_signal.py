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
    assert "report --subset COLUMN=VALUE" in section.body
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


def test_a_subset_turns_the_camp_rule_on_with_the_engines_verdicts():
    """``ReportSettings(signal_subset=..., signal_camps=...)``: the report's verdicts are
    ``annotator_report``'s with the same subset and camps (rule (b); camps after Basile,
    section 3), and the section says which items and which camps."""
    folder = shared_path("data", "planted_camps")
    dataset = load(folder)
    settings = ReportSettings(signal_subset=("topic", "T0"), signal_camps="role")
    section = _signal(dataset, settings)
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    subset = competence.subset_items(dataset.items, "topic", "T0")
    want = competence.annotator_report(
        annotations, camps=competence.trait_camps(dataset.annotators, "role"), subset=subset,
        mace_restarts=0, max_iter=settings.signal_max_iter)
    without = competence.annotator_report(annotations, mace_restarts=0,
                                          max_iter=settings.signal_max_iter)
    # the rule adds systematic annotators on this topic, and the section counts the engine's
    assert (want["kind"] == "systematic").sum() > (without["kind"] == "systematic").sum()
    n_systematic = int((want["kind"] == "systematic").sum())
    assert f'systematic</div><div class="value">{n_systematic}</div>' in section.body
    assert f"on the {len(subset):,} items where topic = &#x27;T0&#x27;" in section.body
    assert "annotator trait &#x27;role&#x27;" in section.body and "is off here" not in section.body
    assert "<th>camp_agreement_in</th>" in section.body
    for annotator in want.index[want["reason"].str.contains("own camp")]:
        assert f'<td class="">{annotator}</td><td class="">systematic</td>' in section.body
    # camps of the signed agreement graph when no trait is named
    graph = _signal(dataset, ReportSettings(signal_subset=("topic", "T0")))
    assert "Basile&#x27;s signed agreement graph" in graph.body


def test_camp_rule_settings_are_refused_clearly_and_escaped(tmp_path):
    from hlv_core.report import signal_camp_rule

    dataset = load(shared_path("data", "planted_camps"))
    for settings, words in ((ReportSettings(signal_camps="role"), "needs a subset"),
                            (ReportSettings(signal_subset=("colour", "red")), "no column"),
                            (ReportSettings(signal_subset=("topic", "T9")), "no item has"),
                            (ReportSettings(signal_subset=("topic", "T0"), signal_camps="x"),
                             "no trait 'x'")):
        try:
            signal_camp_rule(dataset, settings, check_only=True)
        except ValueError as error:
            assert words in str(error)
        else:
            raise AssertionError(f"{settings} was accepted")
    # a subset value with markup is text in the section
    rows = [(f"i{i}", f"a{a}", "yes" if (i * (a + 1)) % 4 else "no")
            for i in range(40) for a in range(5)]
    pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]).to_csv(
        tmp_path / "annotations.csv", index=False)
    pd.DataFrame({"item_id": [f"i{i}" for i in range(40)],
                  "topic": ["<b>t</b>" if i % 2 else "plain" for i in range(40)]}).to_csv(
        tmp_path / "items.csv", index=False)
    section = _signal(load(tmp_path), ReportSettings(signal_subset=("topic", "<b>t</b>")))
    assert "<b>t</b>" not in section.body and "&lt;b&gt;t&lt;/b&gt;" in section.body
