"""hlv_core.perspectivist: the PERSEVAL headline table and item-level models as per-user
predictions, equal to pages/perspectives.py and cli/perspectives.py today."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import perspectivist as P
from hlv_core.perspectivist import (
    headline_label,
    headline_table,
    item_predictions_per_user,
)
from hlv_core.samples import load_sample


def _page_headline(reports, labels):
    """Copy of the comparison block of pages/perspectives.py (commit 06b6ab3)."""
    positive = labels[1] if len(labels) == 2 else None
    head_label = positive if positive is not None else "macro"
    rows = []
    for name, report in reports.items():
        s = report.summary()
        pick = s[s["level"].isin(["global", "user", "text"])]
        f1 = pick[(pick["metric"] == "f1") & (pick["label"] == head_label)]
        macro = pick[(pick["metric"] == "f1") & (pick["label"] == "macro")]
        acc = pick[pick["metric"] == "accuracy"]
        row = {"model": name}
        for level in ("global", "user", "text"):
            row[f"{level} F1 ({head_label})"] = f1.loc[f1["level"] == level, "value"].iloc[0]
        if positive is not None:
            row["global macro F1"] = macro.loc[macro["level"] == "global", "value"].iloc[0]
        row["global accuracy"] = acc.loc[acc["level"] == "global", "value"].iloc[0]
        row["user accuracy"] = acc.loc[acc["level"] == "user", "value"].iloc[0]
        rows.append(row)
    return pd.DataFrame(rows)


def _cli_headline(table, labels):
    """Copy of the table output of ``run_perspectives`` in cli/perspectives.py (06b6ab3)."""
    positive = labels[1] if len(labels) == 2 else "macro"
    sub = table[(table["label"] == positive) & (table["metric"] == "f1")
                & table["level"].isin(["global", "user", "text"])]
    wide = sub.pivot_table(index="model", columns="level", values="value", sort=False)
    wide = wide.reindex(columns=["global", "user", "text"]).add_suffix(f" F1 ({positive})")
    return wide.reset_index()


@pytest.mark.parametrize(("name", "adaptation"), [("case_review", False), ("ratings", "test")])
def test_headline_equals_page_and_cli(name, adaptation):
    dataset = load_sample(name)
    splits = P.make_splits(dataset, adaptation=adaptation, seed=1)
    models, _ = P.run_baselines(splits)
    labels = tuple(dataset.labels)
    reports = {m: P.evaluate(p, splits.test, traits=splits.traits, labels=labels)
               for m, p in models.items()}
    summary = pd.concat([r.summary().assign(model=m) for m, r in reports.items()],
                        ignore_index=True)
    new = headline_table(summary, labels)
    pd.testing.assert_frame_equal(new, _page_headline(reports, labels), check_dtype=False)
    table = P.compare_models(models, splits.test, traits=splits.test_traits(), labels=labels)
    cli = _cli_headline(table, labels)
    from_cli_table = headline_table(table, labels)[list(cli.columns)]
    pd.testing.assert_frame_equal(from_cli_table, cli, check_dtype=False, check_names=False)


def test_headline_binary_has_positive_class_and_macro():
    labels = ("no", "yes")
    assert headline_label(labels) == "yes"
    assert headline_label(("a", "b", "c")) == "macro"
    summary = pd.DataFrame([
        ("m", "global", "yes", "f1", 0.5), ("m", "user", "yes", "f1", 0.4),
        ("m", "text", "yes", "f1", 0.3), ("m", "global", "macro", "f1", 0.6),
        ("m", "global", "macro", "accuracy", 0.7), ("m", "user", "macro", "accuracy", 0.8),
    ], columns=["model", "level", "label", "metric", "value"])
    row = headline_table(summary, labels).iloc[0]
    assert list(row.index) == ["model", "global F1 (yes)", "user F1 (yes)", "text F1 (yes)",
                               "global macro F1", "global accuracy", "user accuracy"]
    assert row["global macro F1"] == 0.6 and row["user accuracy"] == 0.8
    missing = headline_table(summary[summary["level"] != "text"], labels)
    assert np.isnan(missing.loc[0, "text F1 (yes)"])


def _page_item_models(item_preds, test, labels):
    """Copy of the item-level block of pages/perspectives.py (commit 06b6ab3)."""
    models, notes = {}, []
    test_items = set(test["item_id"])
    for model, rows in item_preds.groupby("model", sort=True):
        table = rows.pivot_table(index="item_id", columns="label", values="prob",
                                 aggfunc="sum").reindex(columns=list(labels),
                                                        fill_value=0.0).fillna(0.0)
        if not test_items <= set(table.index):
            notes.append(str(model))
            continue
        best = pd.Series(np.array(labels, dtype=object)[np.argmax(table.to_numpy(), axis=1)],
                         index=table.index)
        models[f"{model} (item-level)"] = test[["annotator_id", "item_id"]].assign(
            label=test["item_id"].map(best).to_numpy())
    return models, notes


def test_item_predictions_per_user_equals_the_page():
    dataset = load_sample("case_review")
    splits = P.make_splits(dataset, seed=0)
    preds = dataset.predictions
    gone = splits.test["item_id"].iloc[0]
    preds = preds[~((preds["model"] == "weak") & (preds["item_id"] == gone))]
    old, old_notes = _page_item_models(preds, splits.test, dataset.labels)
    new, notes = item_predictions_per_user(preds, splits.test, dataset.labels)
    assert list(new) == list(old) == ["calibrated (item-level)", "overconfident (item-level)"]
    for name in old:
        pd.testing.assert_frame_equal(new[name], old[name])
    assert old_notes == ["weak"] and "weak" in notes[0]
    assert item_predictions_per_user(None, splits.test, dataset.labels) == ({}, [])


def test_worst_groups_equals_the_page():
    from hlv_core.perspectivist import worst_groups

    dataset = load_sample("case_review")
    splits = P.make_splits(dataset, seed=0)
    models, _ = P.run_baselines(splits)
    report = P.evaluate(models["majority vote"], splits.test, traits=splits.traits,
                        labels=tuple(dataset.labels))
    for table in (report.per_user, report.per_text):
        for column in ("accuracy", "f1:macro"):
            # copy of the worst-served users block of pages/perspectives.py (commit 06b6ab3)
            old = table[["n", column]].rename(columns={column: "shown"}).dropna()
            old = old.sort_values(["shown", "n"], ascending=[True, False]).head(10)
            new = worst_groups(table, column)
            pd.testing.assert_frame_equal(new.rename(columns={column: "shown"}), old)
            assert new[column].is_monotonic_increasing
