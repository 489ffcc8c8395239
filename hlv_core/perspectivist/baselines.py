"""PERSEVAL baselines (Lo, Casola et al., section 5): majority vote of the training annotators,
per-trait-group majority, per-user majority from adaptation labels; and item-level model
predictions given to every test user of a text, so they compare with the baselines.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..io import item_level_predictions
from .evaluation import _label_codes, is_unknown_trait
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


def _majority_on_codes(voters: pd.DataFrame, test: pd.DataFrame, key: str,
                       splits: PerspectivistSplits) -> np.ndarray:
    """The label strings of :func:`_argmax_labels` over ``voters`` grouped by ``key``, looked
    up for every test row, the training majority where the key has no voter: on integer codes
    (test and voter keys coded together, labels through their distinct values), one bincount
    of (key, label) votes. A key whose votes all use labels outside the inventory gets the
    first label, as the reindexed count table's argmax does."""
    names = np.array([str(x) for x in splits.labels], dtype=object)
    k = len(names)
    n = len(test)
    codes, ids = pd.factorize(pd.concat([test[key], voters[key]], ignore_index=True))
    test_code, voter_code = codes[:n], codes[n:]
    label_codes, label_ids = pd.factorize(voters["label"])
    at = np.append(pd.Index(list(splits.labels)).get_indexer(label_ids), -1)
    lab = at[label_codes]
    ok = (lab >= 0) & (voter_code >= 0)
    votes = np.bincount(voter_code[ok] * k + lab[ok], minlength=len(ids) * k).reshape(-1, k)
    has = np.bincount(voter_code[voter_code >= 0], minlength=len(ids)) > 0
    choice = np.where(has, np.argmax(votes, axis=1), -1)[test_code]
    fallback = str(_global_majority(splits))
    out = names[np.maximum(choice, 0)]
    out[(choice < 0) | (test_code < 0)] = fallback
    return out


def _fill(test: pd.DataFrame, *choices: pd.Series) -> pd.Series:
    out = pd.Series(np.full(len(test), None, dtype=object), index=test.index)
    for choice in choices:
        out = out.where(out.notna(), choice)
    return out


def majority_baseline(splits: PerspectivistSplits) -> pd.DataFrame:
    r"""Majority vote of the training annotators on each test text.

    .. math:: \hat y_{ut} = \arg\max_c \#\{a \in A_{\mathrm{train}} : y_{at} = c\}

    (texts without training labels get the training majority). An HLV Lens reference point on
    PERSEVAL's user-disjoint splits (section 3.1); PERSEVAL's own baselines (section 6) are
    trained models without user information.

    Parameters
    ----------
    splits : PerspectivistSplits

    Returns
    -------
    pandas.DataFrame
        ``annotator_id, item_id, label`` for every test pair.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Sections 3.1 and 6.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> from hlv_core.perspectivist import make_splits
    >>> dataset = load_sample("case_review")
    >>> splits = make_splits(dataset, seed=0, baseline=True)
    >>> len(majority_baseline(splits)) == len(splits.test)
    True
    """
    test = splits.test[PAIR_KEYS]
    return test.assign(label=_majority_on_codes(splits.train, test, "item_id", splits))


def trait_majority_baseline(splits: PerspectivistSplits, dimension: str) -> pd.DataFrame:
    r"""Per-trait-group majority for the named task.

    .. math:: \hat y_{ut} = \arg\max_c \#\{a \in A_{\mathrm{train}} : d(a) = d(u),\; y_{at} = c\}

    with fallbacks (the text's majority, the group's majority, the training majority). An HLV
    Lens reference point using the user traits of PERSEVAL's named task (section 3.2).

    Parameters
    ----------
    splits : PerspectivistSplits
    dimension : str
        Trait column.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 3.2.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> from hlv_core.perspectivist import make_splits
    >>> dataset = load_sample("case_review")
    >>> splits = make_splits(dataset, seed=0, baseline=True)
    >>> len(trait_majority_baseline(splits, "group")) == len(splits.test)
    True
    """
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
    r"""Per-user majority of each test user's adaptation labels (unnamed task).

    .. math:: \hat y_{ut} = \arg\max_c \#\{t' \in \mathrm{adapt}(u) : y_{ut'} = c\}

    PERSEVAL, section 3.1 (adaptation scenarios); users without adaptation labels get the
    training majority. Needs ``adaptation`` "train" or "test".

    Parameters
    ----------
    splits : PerspectivistSplits

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 3.1.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> from hlv_core.perspectivist import make_splits
    >>> splits = make_splits(load_sample("case_review"), seed=0, adaptation="test")
    >>> len(user_majority_baseline(splits)) == len(splits.test)
    True
    """
    if splits.adaptation_mode is False:
        raise ValueError("the per-user majority baseline needs adaptation labels "
                         "(adaptation='train' or 'test').")
    test = splits.test[PAIR_KEYS]
    return test.assign(label=_majority_on_codes(splits.adaptation_labels(), test,
                                                "annotator_id", splits))


def run_baselines(
    splits: PerspectivistSplits, *, dimensions: list[str] | None = None
) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    r"""Every applicable baseline: ``({name: predictions}, {name: reason skipped})``.

    .. math:: \hat y_{ut} = \arg\max_c \#\{\text{votes for } c\} \text{ over the baseline's voters}

    majority vote, trait majority per dimension (named task), user majority (adaptation labels):
    HLV Lens reference points on PERSEVAL's splits (sections 3.1-3.2).

    Parameters
    ----------
    splits : PerspectivistSplits
    dimensions : list of str, optional

    Returns
    -------
    tuple of (dict, dict)

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Sections 3.1-3.2.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> from hlv_core.perspectivist import make_splits
    >>> dataset = load_sample("case_review")
    >>> splits = make_splits(dataset, seed=0, baseline=True)
    >>> predictions, skipped = run_baselines(splits)
    >>> list(predictions)[:2], list(skipped)
    (['majority vote', 'trait majority (group)'], ['user majority'])
    """
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
    r"""Item-level models as per-(user, text) predictions on the test pairs.

    .. math:: \hat y_{ut} = \arg\max_k \sum q_{tk} \text{ (ties: lowest inventory index), for every user } u

    (an item-level model predicts the same label for every user of a text; evaluated at the
    annotation level as PERSEVAL, section 5).

    Parameters
    ----------
    predictions : pandas.DataFrame or None
        Item-level predictions ``model, item_id, label, prob``.
    test : pandas.DataFrame
        The split's test pairs.
    labels : sequence of str

    Returns
    -------
    tuple of (dict of str to pandas.DataFrame, list of str)
        Models named ``"<model> (item-level)"`` and notes on left-out models.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> test = pd.DataFrame({"annotator_id": ["u1", "u2"], "item_id": ["t1", "t1"]})
    >>> preds = pd.DataFrame({"model": "m", "item_id": "t1", "label": ["a", "b"],
    ...                       "prob": [0.3, 0.7]})
    >>> models, notes = item_predictions_per_user(preds, test, ["a", "b"])
    >>> models["m (item-level)"]["label"].tolist()
    ['b', 'b']
    """
    rows = item_level_predictions(predictions)
    if rows is None:
        return {}, []
    names = np.array(list(labels), dtype=object)
    K = len(names)
    # integer codes once for every model: test texts, the rows' texts among them, labels
    # test texts and the rows' texts coded together (test first: its texts are codes
    # 0..n_t-1, in order of first appearance); -1: a text outside the test (or missing)
    n = len(test)
    codes, _ = pd.factorize(pd.concat([test["item_id"], rows["item_id"]], ignore_index=True))
    t_code, item = codes[:n], codes[n:].copy()
    n_t = int(t_code.max(initial=-1)) + 1
    item[item >= n_t] = -1
    lab = _label_codes(pd.Index(list(labels)), rows["label"])  # -1: a label outside them
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
