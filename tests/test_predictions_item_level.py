"""hlv_core.io.item_level_predictions: the one item-level filter (three copies today)."""

from __future__ import annotations

import pandas as pd
import pytest

from hlv_core.io import item_level_predictions, model_matrices
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


@pytest.mark.parametrize("name", ["case_review", "ratings"])
def test_model_matrices_complete_skips_partial_models_with_a_note(name):
    """complete=True: a model that misses one item is left out with a note saying how many
    items it predicts; the others keep their (N, K) matrices, rows in the dataset's item order."""
    dataset = load_sample(name)
    preds = dataset.predictions
    first = preds.loc[preds["model"] == "weak", "item_id"].iloc[0]
    partial = preds[~((preds["model"] == "weak") & (preds["item_id"] == first))]
    new, notes = model_matrices(partial, dataset, complete=True)
    assert list(new) == ["calibrated", "overconfident"]
    assert notes == [f"weak: predicts {dataset.n_items - 1} of {dataset.n_items} items "
                     "(skipped)."]
    for model, (ids, q) in new.items():
        assert list(ids) == list(dataset.item_ids)
        assert q.shape == (dataset.n_items, dataset.n_labels)
        rows = partial[partial["model"] == model]
        item, label, prob = rows[["item_id", "label", "prob"]].iloc[0]
        assert q[list(dataset.item_ids).index(item), list(dataset.labels).index(label)] == prob


def test_model_matrices_mixed_frames_keep_the_item_level_models():
    """Deliberate change for the Certainty page: a per-annotator upload no longer hides the
    bundled item-level models (the page dropped every model when any row had an annotator)."""
    dataset = load_sample("case_review")
    new, notes = model_matrices(_mixed(dataset), dataset, complete=True)
    assert list(new) == ["calibrated", "overconfident", "weak"]
    assert notes == []
    assert model_matrices(None, dataset) == ({}, [])
    one, _ = model_matrices(dataset.predictions, dataset, models=["weak"])
    ids, Q = one["weak"]
    assert Q.shape == (len(ids), dataset.n_labels)
    bad, bad_notes = model_matrices(dataset.predictions, dataset, models=["nobody"])
    assert bad == {} and "nobody" in bad_notes[0]
