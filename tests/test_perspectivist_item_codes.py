"""Item-level models as per-user predictions, computed on integer codes, equal the plain
pivot-table formulation (PERSEVAL, Lo, Casola et al.: an item-level model's label for a text
goes to every test user of the text) on awkward inputs: missing probabilities, labels outside
the inventory, texts outside the test split, repeated rows (summed), a model missing a text,
exact ties (lowest inventory index), unsorted model names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core.perspectivist import item_predictions_per_user

from .test_perspectivist_compare import _page_item_models


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
    old, old_notes = _page_item_models(frame, test, labels)
    new, notes = item_predictions_per_user(frame, test, labels)
    assert list(new) == list(old) == ["alpha (item-level)", "zeta (item-level)"]
    for name in old:
        pd.testing.assert_frame_equal(new[name], old[name])
    assert old_notes == ["mid"] and len(notes) == 1 and "mid" in notes[0]
