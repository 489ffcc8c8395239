"""Item-level models as per-user predictions, computed on integer codes, equal the plain
pivot-table formulation (PERSEVAL, Lo, Casola et al.: an item-level model's label for a text
goes to every test user of the text) on awkward inputs: missing probabilities, labels outside
the inventory, texts outside the test split, repeated rows (summed), a model missing a text,
exact ties (lowest inventory index), unsorted model names. The majority baselines on codes
equal the count-table rule likewise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core.perspectivist import (
    PerspectivistSplits,
    item_predictions_per_user,
    majority_baseline,
    user_majority_baseline,
)


def _pivot_rule(item_preds: pd.DataFrame, test: pd.DataFrame, labels: tuple):
    """The rule stated in the module docstring, one model at a time with a pivot table:
    probabilities summed per (text, label) over repeated rows (missing = 0, labels outside the
    inventory dropped), the argmax label (first in inventory order on ties) given to every test
    user of the text; a model that misses a test text is named in the notes instead."""
    models, notes = {}, []
    for model, rows in item_preds.groupby("model", sort=True):
        table = (rows.pivot_table(index="item_id", columns="label", values="prob", aggfunc="sum")
                 .reindex(columns=list(labels)).fillna(0.0))
        if not set(test["item_id"]) <= set(table.index):
            notes.append(str(model))
            continue
        best = table.idxmax(axis=1)  # first maximum in column (inventory) order
        models[f"{model} (item-level)"] = test[["annotator_id", "item_id"]].assign(
            label=test["item_id"].map(best).to_numpy())
    return models, notes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_codes_equal_the_pivot_formulation(seed):
    rng = np.random.default_rng(seed)
    labels = ("a", "b", "c")
    texts = [f"t{i}" for i in range(30)]
    test = pd.DataFrame({
        "annotator_id": [f"u{i}" for i in rng.integers(0, 8, 60)],
        "item_id": [texts[i] for i in rng.integers(0, 20, 60)],
        "label": [labels[i] for i in rng.integers(0, 3, 60)],
    })
    rows = []
    for model in ("zeta", "alpha", "mid"):
        for t in texts:  # texts 20..29 are not in the test split
            for lab in (*labels, "other"):
                p = float(rng.choice([0.0, 0.25, 0.5, rng.random()]))
                rows.append({"model": model, "item_id": t, "label": lab, "prob": p})
    frame = pd.DataFrame(rows)
    frame.loc[rng.random(len(frame)) < 0.1, "prob"] = np.nan
    frame = pd.concat([frame, frame.sample(20, random_state=seed)], ignore_index=True)  # repeats
    gone = test["item_id"].iloc[0]
    frame = frame[~((frame["model"] == "mid") & (frame["item_id"] == gone))]
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    old, old_notes = _pivot_rule(frame, test, labels)
    new, notes = item_predictions_per_user(frame, test, labels)
    assert list(new) == list(old) == ["alpha (item-level)", "zeta (item-level)"]
    for name in old:
        pd.testing.assert_frame_equal(new[name], old[name])
    assert old_notes == ["mid"] and len(notes) == 1 and "mid" in notes[0]


# ------------------------------------------------------------ majority baselines on codes
def _groupby_majority(voters: pd.DataFrame, test: pd.DataFrame, key: str, labels: tuple):
    """The majority rule with a count table per key (labels outside the inventory dropped
    from the columns, ties to the first label in inventory order), the training majority
    for keys without voters."""
    counts = (voters.groupby([key, "label"]).size().unstack("label", fill_value=0)
              .reindex(columns=list(labels), fill_value=0))
    best = pd.Series(np.array(labels, dtype=object)[np.argmax(counts.to_numpy(), axis=1)],
                     index=counts.index)
    return test[key].map(best)


@pytest.mark.parametrize("seed", [0, 1])
def test_majority_baselines_equal_the_count_table_rule(seed):
    """Majority vote per text and per test user (adaptation labels) on integer codes equal
    the count-table rule: ties, texts and users without voters (training majority), a text
    whose only votes use a label outside the inventory (the first label)."""
    rng = np.random.default_rng(seed)
    labels = ("a", "b", "c")

    def table(n, users, texts, extra=()):
        return pd.DataFrame({
            "annotator_id": [f"u{i}" for i in rng.integers(0, users, n)],
            "item_id": [f"t{i}" for i in rng.integers(0, texts, n)],
            "label": rng.choice(list(labels) + list(extra), n),
        }).drop_duplicates(["annotator_id", "item_id"]).reset_index(drop=True)

    train = table(300, 30, 40, extra=("zz",))
    train.loc[len(train)] = ("u99", "t_odd", "zz")  # only votes outside the inventory
    test = table(80, 8, 45)
    test.loc[len(test)] = ("u1", "t_odd", "a")
    adapt = table(40, 6, 50).assign(annotator_id=lambda f: "u" + f["annotator_id"].str[1:])
    splits = PerspectivistSplits(
        train=train, adaptation=adapt, test=test, train_users=(), test_users=(),
        labels=labels, traits=None, adaptation_mode="test", extended=True, named=False,
        seed=0, test_user_share=0.2, adaptation_share=0.05, train_only_text_share=0.0,
        _adaptation_pool=adapt)
    overall = labels[int(np.argmax(train["label"].value_counts()
                                   .reindex(list(labels), fill_value=0).to_numpy()))]
    for got, voters, key in ((majority_baseline(splits), train, "item_id"),
                             (user_majority_baseline(splits), adapt, "annotator_id")):
        want = _groupby_majority(voters, test, key, labels).fillna(overall)
        assert got["label"].tolist() == want.tolist()
        assert got[["annotator_id", "item_id"]].equals(test[["annotator_id", "item_id"]])
    assert majority_baseline(splits)["label"].iloc[-1] == "a"  # t_odd: the first label
