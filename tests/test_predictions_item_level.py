"""hlv_core.io.item_level_predictions: the one item-level filter (three copies today)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import item_level_predictions, model_matrices, prediction_matrix
from hlv_core.samples import load_sample


def _mixed(dataset):
    """Bundled item-level predictions plus per-annotator rows of a model ``persp``."""
    item = dataset.predictions
    ann = dataset.annotations.head(30)
    per_user = pd.DataFrame({"model": "persp", "item_id": ann["item_id"].to_numpy(),
                             "label": ann["label"].to_numpy(), "prob": 1.0,
                             "annotator_id": ann["annotator_id"].to_numpy()})
    return pd.concat([item, per_user], ignore_index=True)


def test_item_level_filter_keeps_only_item_rows():
    dataset = load_sample("case_review")
    assert item_level_predictions(None) is None
    assert item_level_predictions(_mixed(dataset).query("model == 'persp'")) is None
    pd.testing.assert_frame_equal(item_level_predictions(dataset.predictions), dataset.predictions)
    mixed = item_level_predictions(_mixed(dataset))
    assert mixed["annotator_id"].isna().all() and len(mixed) == len(dataset.predictions)
    assert set(item_level_predictions(_mixed(dataset))["model"]) == {
        "calibrated", "overconfident", "weak"}


def _certainty_page(preds, dataset):
    """Copy of ``prediction_arrays`` in pages/certainty.py (commit 06b6ab3)."""
    out, notes = {}, []
    if preds is None or "annotator_id" in preds.columns and preds["annotator_id"].notna().any():
        return out, notes
    for name in sorted(preds["model"].unique()):
        ids, q = prediction_matrix(preds, dataset, name)
        if len(ids) != dataset.n_items:
            notes.append(f"{name}: predicts {len(ids)} of {dataset.n_items} items (skipped).")
            continue
        out[str(name)] = q
    return out, notes


@pytest.mark.parametrize("name", ["case_review", "ratings"])
def test_model_matrices_complete_equals_the_certainty_page(name):
    dataset = load_sample(name)
    preds = dataset.predictions
    first = preds.loc[preds["model"] == "weak", "item_id"].iloc[0]
    partial = preds[~((preds["model"] == "weak") & (preds["item_id"] == first))]
    old, old_notes = _certainty_page(partial, dataset)
    new, notes = model_matrices(partial, dataset, complete=True)
    assert list(new) == list(old) == ["calibrated", "overconfident"]
    for model in old:
        np.testing.assert_array_equal(new[model][1], old[model])
    assert notes == old_notes


def test_model_matrices_mixed_frames_keep_the_item_level_models():
    """Deliberate change for the Certainty page: a per-annotator upload no longer hides the
    bundled item-level models (the page dropped every model when any row had an annotator)."""
    dataset = load_sample("case_review")
    new, notes = model_matrices(_mixed(dataset), dataset, complete=True)
    assert list(new) == ["calibrated", "overconfident", "weak"]
    assert notes == []
    assert _certainty_page(_mixed(dataset), dataset) == ({}, [])
    assert model_matrices(None, dataset) == ({}, [])
    one, _ = model_matrices(dataset.predictions, dataset, models=["weak"])
    ids, Q = one["weak"]
    assert Q.shape == (len(ids), dataset.n_labels)
    bad, bad_notes = model_matrices(dataset.predictions, dataset, models=["nobody"])
    assert bad == {} and "nobody" in bad_notes[0]
