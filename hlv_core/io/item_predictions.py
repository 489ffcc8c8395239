"""Item-level views of a predictions table: the one filter that the Soft vs hard metrics,
Case review, Certainty and Perspectives pages and the ``metrics`` / ``certainty`` commands share.

A predictions table (:func:`~hlv_core.io.load_predictions`) may mix item-level rows (one
distribution per item) with per-annotator rows (``annotator_id`` set: PERSEVAL predictions for a
(user, text) pair). Item-level analyses use only the rows whose ``annotator_id`` is missing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .dataset import Dataset
from .errors import DataError
from .predictions import prediction_matrix

__all__ = ["item_level_predictions", "model_matrices"]


def item_level_predictions(predictions: pd.DataFrame | None) -> pd.DataFrame | None:
    """The rows of ``predictions`` without an ``annotator_id`` (all rows when the column is
    absent); None when there are none (or ``predictions`` is None)."""
    if predictions is None:
        return None
    if "annotator_id" in predictions.columns:
        predictions = predictions[predictions["annotator_id"].isna()]
    return predictions if not predictions.empty else None


def model_matrices(
    predictions: pd.DataFrame | None,
    dataset: Dataset,
    *,
    models: Sequence[str] | None = None,
    complete: bool = False,
) -> tuple[dict[str, tuple[pd.Index, np.ndarray]], list[str]]:
    """``({model: (item_ids, Q)}, notes)`` for the item-level predictions of every model.

    ``Q`` is the (M, K) matrix of :func:`~hlv_core.io.prediction_matrix` over the M items the
    model predicted (dataset item order). Models in sorted order unless ``models`` is given.
    ``complete=True`` keeps only models that predict every item (UA accuracy of Stutz et al.
    needs one prediction per case) and says which were left out and why in ``notes``; a model
    whose rows cannot be read is left out with the error's message."""
    rows = item_level_predictions(predictions)
    if rows is None:
        return {}, []
    names = sorted(map(str, pd.unique(rows["model"]))) if models is None else list(models)
    out: dict[str, tuple[pd.Index, np.ndarray]] = {}
    notes: list[str] = []
    for name in names:
        try:
            ids, Q = prediction_matrix(rows, dataset, name)
        except DataError as error:
            notes.append(str(error))
            continue
        if complete and len(ids) != dataset.n_items:
            notes.append(f"{name}: predicts {len(ids)} of {dataset.n_items} items (skipped).")
            continue
        out[str(name)] = (ids, Q)
    return out, notes
