"""PERSEVAL baselines (Lo, Casola et al., section 5): majority vote of the training annotators,
per-trait-group majority, per-user majority from adaptation labels; and item-level model
predictions given to every test user of a text, so they compare with the baselines.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..io import item_level_predictions
from .evaluation import is_unknown_trait
from .splits import PAIR_KEYS, PerspectivistSplits

__all__ = [
    "item_predictions_per_user",
    "majority_baseline",
    "run_baselines",
    "trait_majority_baseline",
    "user_majority_baseline",
]

# ----------------------------------------------------------------------------------- baselines
def _argmax_labels(counts: pd.DataFrame, labels: tuple[str, ...]) -> pd.Series:
    """Majority label per row of a (rows x labels) count table; ties -> lowest inventory
    index (``docs/conventions.md``, tie-break)."""
    table = counts.reindex(columns=list(labels), fill_value=0)
    return pd.Series(np.array(labels, dtype=object)[np.argmax(table.to_numpy(), axis=1)],
                     index=table.index)


def _counts(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return frame.groupby([*keys, "label"]).size().unstack("label", fill_value=0)


def _global_majority(splits: PerspectivistSplits) -> str:
    counts = splits.train["label"].value_counts().reindex(list(splits.labels), fill_value=0)
    return splits.labels[int(np.argmax(counts.to_numpy()))]


def _fill(test: pd.DataFrame, *choices: pd.Series) -> pd.Series:
    out = pd.Series(np.full(len(test), None, dtype=object), index=test.index)
    for choice in choices:
        out = out.where(out.notna(), choice)
    return out


def majority_baseline(splits: PerspectivistSplits) -> pd.DataFrame:
    """Majority vote of the training annotators on each test text; texts without training labels
    (every text in a strict split) get the majority label of the whole training split.

    Returns predictions ``annotator_id, item_id, label`` for every test pair."""
    test = splits.test[PAIR_KEYS]
    per_text = _argmax_labels(_counts(splits.train, ["item_id"]), splits.labels)
    label = _fill(test, test["item_id"].map(per_text),
                  pd.Series(_global_majority(splits), index=test.index))
    return test.assign(label=label.astype(str).to_numpy())


def trait_majority_baseline(splits: PerspectivistSplits, dimension: str) -> pd.DataFrame:
    """Per-trait-group majority (named task): each test user gets the majority label of the
    training annotators sharing their value of ``dimension`` on that text; fallbacks in order:
    the text's majority over all training annotators, the trait group's majority over all its
    training labels, the training majority."""
    if splits.traits is None or dimension not in splits.traits.columns:
        raise ValueError(f"trait {dimension!r} is not available (named splits with that "
                         "trait are needed).")
    column = splits.traits[dimension]
    known = column[~is_unknown_trait(column)].astype(str)
    train = splits.train.assign(value=splits.train["annotator_id"].map(known))
    test = splits.test[PAIR_KEYS].assign(value=splits.test["annotator_id"].map(known))
    train_known = train.dropna(subset=["value"])
    by_value_text = _argmax_labels(_counts(train_known, ["value", "item_id"]), splits.labels)
    by_text = _argmax_labels(_counts(train, ["item_id"]), splits.labels)
    by_value = _argmax_labels(_counts(train_known, ["value"]), splits.labels)
    keys = pd.MultiIndex.from_frame(test[["value", "item_id"]].astype(object))
    first = pd.Series(by_value_text.reindex(keys).to_numpy(), index=test.index)
    label = _fill(test, first, test["item_id"].map(by_text), test["value"].map(by_value),
                  pd.Series(_global_majority(splits), index=test.index))
    return test[PAIR_KEYS].assign(label=label.astype(str).to_numpy())


def user_majority_baseline(splits: PerspectivistSplits) -> pd.DataFrame:
    """Per-user majority of each test user's adaptation labels (unnamed task); users without
    adaptation labels get the training majority. Needs ``adaptation`` "train" or "test"."""
    if splits.adaptation_mode is False:
        raise ValueError("the per-user majority baseline needs adaptation labels "
                         "(adaptation='train' or 'test').")
    test = splits.test[PAIR_KEYS]
    per_user = _argmax_labels(_counts(splits.adaptation_labels(), ["annotator_id"]),
                              splits.labels)
    label = _fill(test, test["annotator_id"].map(per_user),
                  pd.Series(_global_majority(splits), index=test.index))
    return test.assign(label=label.astype(str).to_numpy())


def run_baselines(
    splits: PerspectivistSplits, *, dimensions: list[str] | None = None
) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """Every applicable baseline: ``({name: predictions}, {name: reason skipped})``.

    ``majority vote``; ``trait majority (<dimension>)`` for each trait dimension of a named
    split (``dimensions`` to restrict); ``user majority`` when adaptation labels exist."""
    models = {"majority vote": majority_baseline(splits)}
    skipped: dict[str, str] = {}
    if splits.traits is not None:
        for dim in dimensions if dimensions is not None else list(splits.traits.columns):
            models[f"trait majority ({dim})"] = trait_majority_baseline(splits, dim)
    else:
        skipped["trait majority"] = "unnamed split: no annotator traits."
    if splits.adaptation_mode is False:
        skipped["user majority"] = "needs adaptation labels (adaptation 'train' or 'test')."
    else:
        models["user majority"] = user_majority_baseline(splits)
    return models, skipped



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
    K = len(names)
    # integer codes once for every model: test texts, the rows' texts among them, labels
    t_code, t_ids = pd.factorize(test["item_id"])
    n_t = len(t_ids)
    item = pd.Index(t_ids).get_indexer(rows["item_id"])  # -1: a text outside the test
    lab = pd.Index(list(labels)).get_indexer(rows["label"])  # -1: a label outside them
    m_code, m_ids = pd.factorize(rows["model"], sort=True)  # groupby order; NaN model: -1
    M = len(m_ids)
    use = (m_code >= 0) & (item >= 0)
    cell = m_code[use].astype(np.int64) * n_t + item[use]
    seen = np.bincount(cell, minlength=M * n_t).reshape(M, n_t) > 0  # rows of any label
    ok = lab[use] >= 0
    prob = np.nan_to_num(pd.to_numeric(rows["prob"]).to_numpy(dtype=float)[use][ok], nan=0.0)
    sums = np.bincount(cell[ok] * K + lab[use][ok], weights=prob,
                       minlength=M * n_t * K).reshape(M, n_t, K)  # summed probabilities
    pairs = test[["annotator_id", "item_id"]]
    models: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
    for m, model in enumerate(m_ids):
        if not seen[m].all():
            notes.append(f"Model {model} does not cover every test text; left out.")
            continue
        best = names[np.argmax(sums[m], axis=1)]  # ties: lowest inventory index
        models[f"{model} (item-level)"] = pairs.assign(label=best[t_code])
    return models, notes
