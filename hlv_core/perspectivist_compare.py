"""Comparing models on a PERSEVAL split (Lo, Casola et al., sections 3 and 5): the headline
table shown by the Perspectives page and the ``perspectives`` command, and item-level predictions
turned into per-(user, text) predictions so they can be compared with the baselines.

Input of :func:`headline_table`: the tidy table of :func:`hlv_core.perspectivist.compare_models`
(``model, level, label, metric, value, n_groups``; one :meth:`PerspectivistReport.summary` per
model with a ``model`` column).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .io import item_level_predictions

__all__ = ["headline_label", "headline_table", "item_predictions_per_user", "worst_groups"]

_LEVELS = ("global", "user", "text")


def headline_label(labels: Sequence[str]) -> str:
    """The class the headline F1 is about: the positive class (the second label of the inventory)
    for binary tasks, ``"macro"`` otherwise (Lo, Casola et al. report the positive class for binary tasks;
    ``docs/conventions.md``)."""
    return str(labels[1]) if len(labels) == 2 else "macro"


def headline_table(summary: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """One row per model (order of first appearance): ``model``, ``global/user/text F1 (<h>)``
    with ``h`` = :func:`headline_label`, ``global macro F1`` (binary tasks only), ``global
    accuracy`` and ``user accuracy``.

    F1 at a level is the unweighted mean of the per-group F1 over the groups where the class
    occurs (users, texts; the global level pools every instance), as in
    :meth:`PerspectivistReport.summary`. Missing values are NaN."""
    head = headline_label(labels)
    binary = head != "macro"
    s = summary[summary["level"].isin(_LEVELS)]
    models = list(pd.unique(summary["model"]))

    def pick(metric: str, label: str, level: str) -> pd.Series:
        rows = s[(s["metric"] == metric) & (s["label"] == label) & (s["level"] == level)]
        return rows.drop_duplicates("model").set_index("model")["value"].reindex(models)

    out = pd.DataFrame({"model": models})
    for level in _LEVELS:
        out[f"{level} F1 ({head})"] = pick("f1", head, level).to_numpy(dtype=float)
    if binary:
        out["global macro F1"] = pick("f1", "macro", "global").to_numpy(dtype=float)
    out["global accuracy"] = pick("accuracy", "macro", "global").to_numpy(dtype=float)
    out["user accuracy"] = pick("accuracy", "macro", "user").to_numpy(dtype=float)
    return out


def item_predictions_per_user(
    predictions: pd.DataFrame | None,
    test: pd.DataFrame,
    labels: Sequence[str],
) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Item-level models as per-(user, text) predictions on the test pairs.

    Each model's label for a text is the argmax of its summed probabilities over ``labels``
    (ties: lowest inventory index, ``docs/conventions.md``) and is given to every test user of the
    text. Models are named ``"<model> (item-level)"``, in sorted order; a model that does not
    predict every test text is left out with a note. ``test``: the split's test pairs
    (``annotator_id, item_id, ...``); returns ``({name: annotator_id, item_id, label}, notes)``."""
    rows = item_level_predictions(predictions)
    if rows is None:
        return {}, []
    names = np.array(list(labels), dtype=object)
    test_items = set(test["item_id"])
    models: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
    for model, group in rows.groupby("model", sort=True):
        table = group.pivot_table(index="item_id", columns="label", values="prob",
                                  aggfunc="sum").reindex(columns=list(labels),
                                                         fill_value=0.0).fillna(0.0)
        if not test_items <= set(table.index):
            notes.append(f"Model {model} does not cover every test text; left out.")
            continue
        best = pd.Series(names[np.argmax(table.to_numpy(), axis=1)], index=table.index)
        models[f"{model} (item-level)"] = test[["annotator_id", "item_id"]].assign(
            label=test["item_id"].map(best).to_numpy())
    return models, notes


def worst_groups(table: pd.DataFrame, column: str, n: int = 10) -> pd.DataFrame:
    """The ``n`` worst-served groups of a per-user or per-text table of
    :class:`~hlv_core.perspectivist.PerspectivistReport` (``per_user`` / ``per_text``): rows
    where ``column`` (e.g. ``"f1:macro"``, ``"accuracy"``) is defined, lowest value first, ties
    broken by more instances (``n``) first. Columns ``n`` and ``column``."""
    defined = table[["n", column]].dropna()
    return defined.sort_values([column, "n"], ascending=[True, False]).head(n)
