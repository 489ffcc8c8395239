"""hlv_core.perspectivist: the PERSEVAL headline table, item-level models as per-user predictions
and the worst-served groups (Lo, Casola et al.), on hand-made tables."""

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


@pytest.mark.parametrize(("name", "adaptation"), [("case_review", False), ("ratings", "test")])
def test_headline_equals_the_cli_table(name, adaptation):
    dataset = load_sample(name)
    splits = P.make_splits(dataset, adaptation=adaptation, seed=1)
    models, _ = P.run_baselines(splits)
    labels = tuple(dataset.labels)
    reports = {m: P.evaluate(p, splits.test, traits=splits.traits, labels=labels)
               for m, p in models.items()}
    summary = pd.concat([r.summary().assign(model=m) for m, r in reports.items()],
                        ignore_index=True)
    new = headline_table(summary, labels)
    assert list(new["model"]) == list(reports)
    table = P.compare_models(models, splits.test, traits=splits.test_traits(), labels=labels)
    # the rule the CLI prints: per model, the F1 of the positive class (the second of two
    # labels, else the macro average) at the global, user and text levels
    positive = labels[1] if len(labels) == 2 else "macro"
    from_cli_table = headline_table(table, labels).set_index("model")
    assert list(from_cli_table.index) == list(models)
    for model in models:
        for level in ("global", "user", "text"):
            row = table[(table["model"] == model) & (table["level"] == level)
                        & (table["label"] == positive) & (table["metric"] == "f1")]
            assert len(row) == 1
            shown = from_cli_table.at[model, f"{level} F1 ({positive})"]
            assert shown == pytest.approx(float(row["value"].iloc[0]), nan_ok=True)


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


def test_headline_takes_the_first_row_of_a_key_whatever_the_key_types():
    """String keys are matched in a dict, other key types by pandas: the same table, the
    first row of a repeated key, rows of other levels ignored."""
    labels = ("no", "yes")
    summary = pd.DataFrame([
        ("m", "global", "yes", "f1", 0.5), ("m", "global", "yes", "f1", 0.9),
        ("m", "trait:age", "yes", "f1", 0.1), ("k", "user", "macro", "accuracy", 0.3),
        ("k", "global", "yes", "f1", 0.2)], columns=["model", "level", "label", "metric", "value"])
    table = headline_table(summary, labels)
    assert list(table["model"]) == ["m", "k"]
    assert table.loc[0, "global F1 (yes)"] == 0.5 and table.loc[1, "user accuracy"] == 0.3
    assert table.drop(columns=["model", "global F1 (yes)", "user accuracy"]).iloc[0].isna().all()
    coded = headline_table(summary.assign(model=summary["model"].map({"m": 1, "k": 2})), labels)
    pd.testing.assert_frame_equal(coded.drop(columns="model"), table.drop(columns="model"))


def test_item_predictions_per_user_by_hand():
    """Every test pair gets its item's most probable label (ties to the first label); a model
    that misses a test item is left out with a note."""
    test = pd.DataFrame({"annotator_id": ["u1", "u2", "u1", "u2"],
                         "item_id": ["i1", "i1", "i2", "i2"]})
    preds = pd.DataFrame({
        "model": ["m"] * 4 + ["half"] * 2,
        "item_id": ["i1", "i1", "i2", "i2", "i1", "i1"],
        "label": ["a", "b", "a", "b", "a", "b"],
        "prob": [0.3, 0.7, 0.5, 0.5, 0.9, 0.1]})
    models, notes = item_predictions_per_user(preds, test, ("a", "b"))
    assert list(models) == ["m (item-level)"]
    pd.testing.assert_frame_equal(models["m (item-level)"].reset_index(drop=True),
                                  test.assign(label=["b", "b", "a", "a"]))
    assert len(notes) == 1 and "half" in notes[0]


def test_item_predictions_per_user_on_a_split():
    dataset = load_sample("case_review")
    splits = P.make_splits(dataset, seed=0)
    preds = dataset.predictions
    gone = splits.test["item_id"].iloc[0]
    preds = preds[~((preds["model"] == "weak") & (preds["item_id"] == gone))]
    new, notes = item_predictions_per_user(preds, splits.test, dataset.labels)
    assert list(new) == ["calibrated (item-level)", "overconfident (item-level)"]
    for frame in new.values():
        assert len(frame) == len(splits.test) and set(frame["label"]) <= set(dataset.labels)
    assert "weak" in notes[0]
    assert item_predictions_per_user(None, splits.test, dataset.labels) == ({}, [])


def test_worst_groups_by_hand():
    """The ten lowest values first (ties: more instances first), rows without a value left
    out."""
    from hlv_core.perspectivist import worst_groups

    table = pd.DataFrame({"n": [5, 9, 3, 7] + [1] * 10,
                          "accuracy": [0.2, 0.2, np.nan, 0.1] + [0.9] * 10},
                         index=["u5", "u9", "u3", "u7"] + [f"x{i}" for i in range(10)])
    worst = worst_groups(table, "accuracy")
    assert list(worst.index[:3]) == ["u7", "u9", "u5"] and len(worst) == 10
    assert "u3" not in worst.index and list(worst.columns) == ["n", "accuracy"]
