"""PERSEVAL evaluation (Lo, Casola et al., sections 3 and 5): per-(user, text) metrics at the
global, user, text and trait levels, user bootstrap, soft (LeWiDi 2025) scores, model comparison
and the headline table the Perspectives page and the ``perspectives`` command show.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from ..io import DataError, Dataset, order_labels
from .splits import PAIR_KEYS, SPLIT_COLUMNS, UNKNOWN_TRAIT_VALUES, long_annotations

__all__ = [
    "METRICS",
    "PerspectivistReport",
    "bootstrap_users",
    "compare_models",
    "evaluate",
    "gold_for_pairs",
    "headline_label",
    "headline_table",
    "is_unknown_trait",
    "lewidi_scores",
    "soft_user_scores",
    "trait_gaps",
    "worst_groups",
]

METRICS = ("precision", "recall", "f1")


# ----------------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class _Prepared:
    """Validated instances as integer codes (one row per (user, text) pair)."""

    users: pd.Index
    texts: pd.Index
    labels: tuple[str, ...]
    user_code: np.ndarray
    text_code: np.ndarray
    y: np.ndarray
    p: np.ndarray
    frame: pd.DataFrame  # annotator_id, item_id, gold, pred


_ALIASES = {"user_id": "annotator_id", "text_id": "item_id", "prediction": "label",
            "predictions": "label"}


def _standardise(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"{what} must be a DataFrame with columns annotator_id, item_id, label.",
                        source=what)
    renamed = [_ALIASES.get(c, c) if isinstance(c, str) else c for c in frame.columns]
    source = {c: i for i, c in enumerate(renamed)}
    if (len(source) == len(renamed) and all(c in source for c in SPLIT_COLUMNS)
            and frame.columns.is_unique):
        # the usual case, without renaming and copying the frame first: every column cleaned
        # once, the new frame built from the cleaned arrays (same values, dtypes and index)
        data = {}
        for column in SPLIT_COLUMNS:
            values = frame.iloc[:, source[column]]
            empty = values.isna()
            if empty.any():
                raise DataError(f"{what} has {int(empty.sum())} empty {column} cell(s).",
                                source=what, row=int(np.flatnonzero(empty.to_numpy())[0]) + 2,
                                column=column, fix="fill or drop those rows.")
            data[column] = values.astype(str).str.strip().array
        if "prob" in source:
            data["prob"] = frame.iloc[:, source["prob"]].array
        return pd.DataFrame(data, index=frame.index)
    out = frame.rename(columns=_ALIASES)
    missing = [c for c in SPLIT_COLUMNS if c not in out.columns]
    if missing:
        raise DataError(
            f"{what} lacks column(s) {missing}; found {list(frame.columns)}.",
            source=what,
            row=1,
            column=missing[0],
            fix="use columns annotator_id (or user_id), item_id (or text_id), label.",
        )
    out = out[SPLIT_COLUMNS + [c for c in ("prob",) if c in out.columns]].copy()
    for column in SPLIT_COLUMNS:
        empty = out[column].isna()
        if empty.any():
            raise DataError(f"{what} has {int(empty.sum())} empty {column} cell(s).",
                            source=what, row=int(np.flatnonzero(empty.to_numpy())[0]) + 2,
                            column=column, fix="fill or drop those rows.")
        out[column] = out[column].astype(str).str.strip()
    return out


def _pairs_text(frame: pd.DataFrame, limit: int = 5) -> str:
    shown = [f"({u}, {t})" for u, t in frame[PAIR_KEYS].head(limit).itertuples(index=False)]
    more = f" and {len(frame) - limit} more" if len(frame) > limit else ""
    return ", ".join(shown) + more


def _check_pairs(pred: pd.DataFrame, true: pd.DataFrame) -> pd.DataFrame:
    """Outer-join predictions and gold on (user, text); missing or extra pairs raise a
    :class:`DataError` that names them (``docs/conventions.md``, PERSEVAL)."""
    merged = true.merge(pred[[c for c in SPLIT_COLUMNS if c in pred.columns]], on=PAIR_KEYS,
                        how="outer", suffixes=("_gold", "_pred"), indicator=True)
    missing = merged[merged["_merge"] == "left_only"]
    extra = merged[merged["_merge"] == "right_only"]
    if len(missing) or len(extra):
        parts = []
        if len(missing):
            parts.append(f"{len(missing)} test (user, text) pair(s) have no prediction: "
                         f"{_pairs_text(missing)}")
        if len(extra):
            parts.append(f"{len(extra)} predicted pair(s) are not in the test set: "
                         f"{_pairs_text(extra)}")
        raise DataError(
            "; ".join(parts) + ".",
            source="predictions",
            column="annotator_id, item_id",
            fix="predict exactly one label for every (user, text) pair of the test split.",
        )
    return merged


def _match_on_codes(pred: pd.DataFrame, true: pd.DataFrame):
    """Gold and predictions matched on integer (user, text) codes, in the order of the outer
    merge of :func:`_check_pairs` (pairs sorted by user id, then text id). ``None`` when the
    pairs are not the same unique pairs on both sides: the caller then takes the checking path,
    which names the problem."""
    if len(pred) != len(true):
        return None
    n = len(true)
    same = _same_ids(pred, true)
    if same:  # the predictions name the gold's pairs row for row (every baseline and
        # item-level model of the page): the gold's codes serve both sides
        u_code, u_ids = pd.factorize(true["annotator_id"])
        t_code, t_ids = pd.factorize(true["item_id"])
        n_u, n_t = len(u_ids), len(t_ids)
    else:
        # gold and predicted ids coded together (Arrow's dictionary encoding, no Python string
        # per row); codes below the gold's count of distinct ids are the gold's
        u_all, u_ids = pd.factorize(pd.concat([true["annotator_id"], pred["annotator_id"]],
                                              ignore_index=True))
        t_all, t_ids = pd.factorize(pd.concat([true["item_id"], pred["item_id"]],
                                              ignore_index=True))
        u_code, pu = u_all[:n], u_all[n:]
        t_code, pt = t_all[:n], t_all[n:]
        n_u, n_t = int(u_code.max(initial=-1)) + 1, int(t_code.max(initial=-1)) + 1
    if len(u_ids) > n_u or len(t_ids) > n_t or (u_code < 0).any() or (t_code < 0).any():
        return None  # an id only the predictions have (or a missing id): the checking path
    u_ids, t_ids = u_ids[:n_u], t_ids[:n_t]
    # sorted as Arrow sorts strings (UTF-8 bytes: the order of Python's sorted)
    u_sorted = np.asarray(u_ids.argsort(), dtype=np.int64)
    t_sorted = np.asarray(t_ids.argsort(), dtype=np.int64)
    u_rank = np.empty(len(u_ids), dtype=np.int64)
    u_rank[u_sorted] = np.arange(len(u_ids))
    t_rank = np.empty(len(t_ids), dtype=np.int64)
    t_rank[t_sorted] = np.arange(len(t_ids))
    ur, tr = u_rank[u_code], t_rank[t_code]
    order = np.lexsort((tr, ur))
    if same:  # unique pairs: no two neighbours in the sorted order are the same pair
        us, ts = ur[order], tr[order]
        if ((us[1:] == us[:-1]) & (ts[1:] == ts[:-1])).any():
            return None
        at = np.arange(n)
    else:
        nt = max(n_t, 1)
        gold_key = u_code.astype(np.int64) * nt + t_code
        pred_key = pu.astype(np.int64) * nt + pt
        # the same unique pairs on both sides: the sorted keys are strictly increasing and
        # equal; then the k-th smallest gold key's row matches the k-th smallest prediction
        # key's row
        g_order = np.argsort(gold_key, kind="stable")
        p_order = np.argsort(pred_key, kind="stable")
        g_sorted = gold_key[g_order]
        if (g_sorted[1:] == g_sorted[:-1]).any() or not np.array_equal(g_sorted,
                                                                       pred_key[p_order]):
            return None
        at = np.empty(n, dtype=np.int64)  # prediction row of every gold row
        at[g_order] = p_order
    # columns taken in the merge's order as they are stored (no round trip through Python
    # strings); the codes of the sorted user / text indexes come along
    merged = pd.DataFrame({
        "annotator_id": true["annotator_id"].array.take(order),
        "item_id": true["item_id"].array.take(order),
        "label_gold": true["label"].array.take(order),
        "label_pred": pred["label"].array.take(at[order]),
    })
    users = u_ids.take(u_sorted).rename("annotator_id")
    texts = t_ids.take(t_sorted).rename("item_id")
    return merged, users, texts, (ur[order], tr[order])


def _same_ids(pred: pd.DataFrame, true: pd.DataFrame) -> bool:
    """Whether both tables hold the same (user, text) ids row for row (cleaned, no missing
    values; one vectorised comparison per column)."""
    for column in PAIR_KEYS:
        a, b = pred[column].array, true[column].array
        if a.dtype != b.dtype or not bool(np.asarray(a == b, dtype=bool).all()):
            return False
    return True


def _prepared(labels, true, merged, users, texts, pair_codes=None) -> _Prepared:
    """:class:`_Prepared` of matched pairs (labels checked as in :func:`_prepare`)."""
    if labels is None:
        labels = order_labels(true["label"].unique())
    labels = tuple(str(x) for x in labels)
    index = pd.Index(labels)
    y, p = (_label_codes(index, merged[c]) for c in ("label_gold", "label_pred"))
    for codes, column, what in ((y, "label_gold", "gold"), (p, "label_pred", "predictions")):
        bad = codes < 0
        if bad.any():
            unknown = sorted(pd.unique(merged.loc[bad, column]))[:5]
            raise DataError(
                f"{what} use label(s) {unknown} outside the label inventory {list(labels)} "
                f"({int(bad.sum())} row(s)).",
                source=what, column="label",
                fix="use the dataset's label strings exactly.",
            )
    return _finish(labels, users, texts, merged, y, p, pair_codes)


def _label_codes(index: pd.Index, values: pd.Series) -> np.ndarray:
    """``index.get_indexer(values)`` through the distinct values (-1 = not in the index)."""
    codes, uniques = pd.factorize(values)
    at = np.append(index.get_indexer(uniques), -1)  # a missing value (code -1) maps to -1
    return at[codes]


def _prepare(predictions: pd.DataFrame, gold: pd.DataFrame,
             labels: tuple[str, ...] | list[str] | None) -> _Prepared:
    pred = _standardise(predictions, "predictions")
    true = _standardise(gold, "gold")
    matched = _match_on_codes(pred, true)
    if matched is not None:  # the usual case: the same unique pairs on both sides
        return _prepared(labels, true, *matched)
    for frame, what in ((true, "gold"), (pred, "predictions")):
        dup = frame.duplicated(PAIR_KEYS)
        if dup.any():
            raise DataError(
                f"{what} has {int(dup.sum())} duplicate (user, text) pair(s): "
                f"{_pairs_text(frame[dup])}.",
                source=what, row=int(np.flatnonzero(dup.to_numpy())[0]) + 2, column="label",
                fix="keep one label per (user, text).",
            )
    merged = _check_pairs(pred, true)
    if labels is None:
        labels = order_labels(true["label"].unique())
    labels = tuple(str(x) for x in labels)
    index = pd.Index(labels)
    y = index.get_indexer(merged["label_gold"])
    p = index.get_indexer(merged["label_pred"])
    for codes, column, what in ((y, "label_gold", "gold"), (p, "label_pred", "predictions")):
        bad = codes < 0
        if bad.any():
            unknown = sorted(pd.unique(merged.loc[bad, column]))[:5]
            raise DataError(
                f"{what} use label(s) {unknown} outside the label inventory {list(labels)} "
                f"({int(bad.sum())} row(s)).",
                source=what, column="label",
                fix="use the dataset's label strings exactly.",
            )
    users = pd.Index(sorted(pd.unique(merged["annotator_id"])), name="annotator_id")
    texts = pd.Index(sorted(pd.unique(merged["item_id"])), name="item_id")
    return _finish(labels, users, texts, merged, y, p)


def _finish(labels, users, texts, merged, y, p, codes=None) -> _Prepared:
    """``codes``: (user codes, text codes) of the merged rows when known (else looked up)."""
    if codes is None:
        frame = pd.DataFrame({
            "annotator_id": merged["annotator_id"].to_numpy(),
            "item_id": merged["item_id"].to_numpy(),
            "gold": merged["label_gold"].to_numpy(),
            "pred": merged["label_pred"].to_numpy(),
        })
        codes = (users.get_indexer(merged["annotator_id"]), texts.get_indexer(merged["item_id"]))
    else:  # the columns are already stored as the frame stores them
        frame = pd.DataFrame({
            "annotator_id": merged["annotator_id"].array,
            "item_id": merged["item_id"].array,
            "gold": merged["label_gold"].array,
            "pred": merged["label_pred"].array,
        })
    return _Prepared(
        users=users, texts=texts, labels=labels,
        user_code=codes[0], text_code=codes[1],
        y=y, p=p, frame=frame,
    )


def _group_counts(group: np.ndarray, y: np.ndarray, p: np.ndarray, n_groups: int,
                  k: int) -> np.ndarray:
    """(G, 3, K) confusion counts per group and class: true positives, gold count, predicted
    count. Rows with group < 0 are ignored."""
    keep = group >= 0
    g, yy, pp = group[keep], y[keep], p[keep]
    size = n_groups * k
    tp = np.bincount(g[yy == pp] * k + yy[yy == pp], minlength=size)
    gold = np.bincount(g * k + yy, minlength=size)
    pred = np.bincount(g * k + pp, minlength=size)
    return np.stack([tp, gold, pred], axis=0).reshape(3, n_groups, k).transpose(1, 0, 2)


def _scores(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Per-class P/R/F1 (zero_division 0; NaN where the class is absent from gold and
    predictions) and accuracy from (..., 3, K) counts.

    precision = TP / #pred, recall = TP / #gold, F1 = 2 TP / (#gold + #pred), accuracy =
    sum TP / n (scikit-learn ``classification_report`` with ``zero_division=0``)."""
    tp, gold, pred = (counts[..., i, :].astype(float) for i in range(3))
    present = (gold + pred) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(pred > 0, tp / pred, 0.0)
        recall = np.where(gold > 0, tp / gold, 0.0)
        f1 = np.where(present, 2 * tp / (gold + pred), 0.0)
        n = gold.sum(axis=-1)
        accuracy = np.where(n > 0, tp.sum(axis=-1) / n, np.nan)
    out = {}
    for name, values in (("precision", precision), ("recall", recall), ("f1", f1)):
        values = np.where(present, values, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            macro = np.nanmean(values, axis=-1)
        out[name] = values
        out[f"{name}_macro"] = macro
    out["accuracy"] = accuracy
    out["n"] = n
    return out


def _level_frame(counts: np.ndarray, index: pd.Index, labels: tuple[str, ...]) -> pd.DataFrame:
    """``n``, ``accuracy`` and ``<metric>:<label>`` columns per group: the float columns built
    as one (columns, groups) block (one array for pandas to take, not one per column)."""
    s = _scores(counts)
    k = len(labels)
    block = np.empty((1 + len(METRICS) * (k + 1), len(index)))
    block[0] = s["accuracy"]
    columns = ["accuracy"]
    for i, metric in enumerate(METRICS):
        at = 1 + i * (k + 1)
        block[at:at + k] = s[metric].T
        block[at + k] = s[f"{metric}_macro"]
        columns += [f"{metric}:{label}" for label in labels] + [f"{metric}:macro"]
    frame = pd.DataFrame(block.T, index=index, columns=columns, copy=False)
    frame.insert(0, "n", s["n"].astype(int))
    return frame


def is_unknown_trait(values: pd.Series) -> np.ndarray:
    r"""Which trait values count as unknown (skipped by the trait-level means).

    .. math:: \mathrm{unknown}(v) \iff v \text{ missing or } v \in \mathrm{UNKNOWN\_TRAIT\_VALUES}

    PERSEVAL, section 5 (trait-level metrics skip the "UNK" values).

    Parameters
    ----------
    values : pandas.Series

    Returns
    -------
    ndarray of bool, shape (len(values),)

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> is_unknown_trait(pd.Series(["GenX", "UNK", None])).tolist()
    [False, True, True]
    """
    return (values.isna() | values.astype(str).isin(list(UNKNOWN_TRAIT_VALUES))).to_numpy()


@dataclass(frozen=True)
class PerspectivistReport:
    r"""Result of :func:`evaluate`: PERSEVAL scores at four levels.

    .. math:: F_{1,c}(g) = \frac{2\,TP_c(g)}{2\,TP_c(g) + FP_c(g) + FN_c(g)}, \quad
       F_{1,c}^{\mathrm{user}} = \frac{1}{|U_c|} \sum_{u \in U_c} F_{1,c}(u)

    PERSEVAL, section 5: global (all instances pooled), user-level and text-level (per group,
    then the unweighted mean over the groups where the class occurs), trait-level (instances of
    the users with a value pooled, then the mean over the dimension's known values).

    Attributes
    ----------
    global_ : pandas.DataFrame
        One row ``"all"``; columns ``n``, ``accuracy`` and ``<metric>:<label>`` for metric in
        precision/recall/f1 and label in the inventory plus ``macro``.
    per_user, per_text : pandas.DataFrame
        Indexed by ``annotator_id`` / ``item_id``, the same columns (NaN = class absent).
    per_trait : pandas.DataFrame
        Indexed by (``dimension``, ``value``), with ``n_users``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> report = evaluate(predictions, gold, traits=traits)
    >>> print(report.per_user["accuracy"].round(3).tolist())
    [0.5, 0.5, 1.0]
    """

    global_: pd.DataFrame
    per_user: pd.DataFrame
    per_text: pd.DataFrame
    per_trait: pd.DataFrame
    labels: tuple[str, ...]
    positive: str | None
    absent: str = "skip"
    instances: pd.DataFrame = field(default=None, repr=False)  # type: ignore[assignment]

    def _levels(self) -> list[tuple[str, pd.DataFrame]]:
        levels = [("global", self.global_), ("user", self.per_user), ("text", self.per_text)]
        if len(self.per_trait):
            for dim, frame in self.per_trait.groupby(level="dimension", sort=False):
                levels.append((f"trait:{dim}", frame))
        return levels

    def summary(self) -> pd.DataFrame:
        """Tidy table: ``level, label, metric, value, n_groups``.

        ``value`` is the unweighted mean over the level's groups where the class occurs
        (``n_groups`` of them; 1 for global); with ``absent="zero"`` absent classes count as 0
        and ``n_groups`` is every group. Accuracy is reported once per level under label
        ``"macro"`` (it is not per class)."""
        columns = [f"{m}:{lab}" for m in METRICS for lab in (*self.labels, "macro")]
        levels, means, counts = [], [], []
        for level, frame in self._levels():
            # (columns, groups), each column contiguous: the mean of the values present is
            # summed as pandas sums one column (pairwise), so the numbers are the same
            values = np.ascontiguousarray(frame[["accuracy", *columns]].to_numpy(dtype=float).T)
            if self.absent == "zero":
                values = np.where(np.isnan(values), 0.0, values)
            present = ~np.isnan(values)
            n = present.sum(axis=1)
            total = np.where(present, values, 0.0).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                means.append(np.where(n > 0, total / np.maximum(n, 1), np.nan))
            counts.append(n)
            levels.append(level)
        metric = ["accuracy"] + [c.split(":", 1)[0] for c in columns]
        label = ["macro"] + [c.split(":", 1)[1] for c in columns]
        width = len(metric)
        return pd.DataFrame({
            "level": np.repeat(np.asarray(levels, dtype=object), width),
            "label": label * len(levels),
            "metric": metric * len(levels),
            "value": np.concatenate(means) if means else np.empty(0),
            "n_groups": np.concatenate(counts).astype(np.int64) if counts
            else np.empty(0, dtype=np.int64),
        })

    def headline(self) -> dict[str, float]:
        """The paper's headline: positive-class P/R/F1 for binary tasks, macro otherwise, plus
        user- and text-level F1 of the same kind."""
        label = self.positive if self.positive is not None else "macro"
        s = self.summary().set_index(["level", "label", "metric"])["value"]
        return {
            "label": label,
            "precision": s[("global", label, "precision")],
            "recall": s[("global", label, "recall")],
            "f1": s[("global", label, "f1")],
            "user_f1": s[("user", label, "f1")],
            "text_f1": s[("text", label, "f1")],
        }

    def trait_gaps(self, metric: str = "f1", label: str = "macro") -> pd.DataFrame:
        """Best- minus worst-served trait value per dimension (see :func:`trait_gaps`)."""
        return trait_gaps(self, metric=metric, label=label)


def evaluate(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    traits: pd.DataFrame | None = None,
    labels: tuple[str, ...] | list[str] | None = None,
    positive: str | None = None,
    absent: Literal["skip", "zero"] = "skip",
) -> PerspectivistReport:
    r"""PERSEVAL metrics of per-(user, text) predictions.

    .. math:: F_{1,c}(g) = \frac{2\,TP_c(g)}{2\,TP_c(g) + FP_c(g) + FN_c(g)}, \quad
       F_{1,c}^{\mathrm{user}} = \frac{1}{|U_c|} \sum_{u \in U_c} F_{1,c}(u)

    Lo, Casola et al. (2025), section 5: precision, recall and F1 per class and macro, and
    accuracy, globally and per user, text and trait value (zero_division = 0; a class absent from
    a group's gold and predictions is left out of that group, so its mean runs over the groups
    where it occurs, reported as ``n_groups``; ``absent="zero"`` counts it as 0). Binary tasks
    report the positive class. The Perspectives screen's F1.

    Parameters
    ----------
    predictions, gold : pandas.DataFrame
        Long tables ``annotator_id, item_id, label`` with exactly the same (user, text) pairs.
        Missing, extra or duplicate pairs and unknown labels raise :class:`~hlv_core.io.DataError`.
    traits : pandas.DataFrame, optional
        Indexed by ``annotator_id``, one column per trait dimension.
    labels : sequence of str, optional
        Label inventory (default: sorted gold labels).
    positive : str, optional
        Positive class of a binary task (default: the second label).
    absent : {"skip", "zero"}, default "skip"

    Returns
    -------
    PerspectivistReport
        ``.summary()`` is the tidy table ``level, label, metric, value, n_groups``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5; Section 7 (the library).

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> s = evaluate(predictions, gold, traits=traits).summary()
    >>> f1 = s[(s.metric == "f1") & (s.label == "1")]
    >>> print(f1[["level", "value", "n_groups"]].round(3).to_string(index=False))
               level  value  n_groups
              global   0.50         1
                user   0.50         2
                text   0.25         4
        trait:Gender   0.50         2
    trait:Generation   0.50         2
    """
    if absent not in ("skip", "zero"):
        raise ValueError(f"absent must be 'skip' or 'zero'; got {absent!r}.")
    for name, frame in (("predictions", predictions), ("gold", gold)):
        if not isinstance(frame, pd.DataFrame) or len(frame) == 0:
            raise DataError(
                f"the {name} table has 0 rows; there is nothing to score.",
                source=name,
                fix="pass per-(user, text) rows with columns annotator_id, item_id, label.",
            )
    prep = _prepare(predictions, gold, labels)
    k = len(prep.labels)
    if positive is None and k == 2:
        positive = prep.labels[1]
    if positive is not None and positive not in prep.labels:
        raise ValueError(f"positive class {positive!r} is not in {list(prep.labels)}.")
    n = len(prep.y)
    global_ = _level_frame(_group_counts(np.zeros(n, dtype=np.int64), prep.y, prep.p, 1, k),
                           pd.Index(["all"], name="group"), prep.labels)
    per_user = _level_frame(
        _group_counts(prep.user_code, prep.y, prep.p, len(prep.users), k), prep.users,
        prep.labels)
    per_text = _level_frame(
        _group_counts(prep.text_code, prep.y, prep.p, len(prep.texts), k), prep.texts,
        prep.labels)
    per_trait = _trait_frames(prep, traits)
    instances = prep.frame
    return PerspectivistReport(
        global_=global_, per_user=per_user, per_text=per_text, per_trait=per_trait,
        labels=prep.labels, positive=positive, absent=absent, instances=instances,
    )


def _traits_frame(traits: pd.DataFrame | None) -> pd.DataFrame | None:
    if traits is None:
        return None
    frame = traits
    if "annotator_id" in frame.columns:
        frame = frame.set_index("annotator_id")
    frame = frame.copy()
    frame.index = frame.index.astype(str)
    return frame


def _trait_codes(prep: _Prepared, traits: pd.DataFrame | None):
    """Yield (dimension, value index, (U,) value code per user, -1 = unknown)."""
    frame = _traits_frame(traits)
    if frame is None:
        return
    frame = frame.reindex(prep.users)
    for dim in frame.columns:
        column = frame[dim]
        unknown = is_unknown_trait(column)
        values = column.astype(object).where(~unknown, None)
        known = values.dropna().astype(str)
        if known.empty:
            continue
        index = pd.Index(sorted(known.unique()), name="value")
        codes = np.full(len(prep.users), -1, dtype=np.int64)
        codes[~unknown] = index.get_indexer(values[~unknown].astype(str))
        yield str(dim), index, codes


def _trait_frames(prep: _Prepared, traits: pd.DataFrame | None) -> pd.DataFrame:
    k = len(prep.labels)
    frames = []
    for dim, index, codes in _trait_codes(prep, traits):
        group = codes[prep.user_code]
        frame = _level_frame(_group_counts(group, prep.y, prep.p, len(index), k), index,
                             prep.labels)
        frame.insert(1, "n_users", np.bincount(codes[codes >= 0], minlength=len(index)))
        frame = frame[frame["n"] > 0]
        frame.index = pd.MultiIndex.from_product([[dim], frame.index],
                                                 names=["dimension", "value"])
        frames.append(frame)
    if not frames:
        columns = ["n", "n_users", "accuracy"] + [
            f"{m}:{lab}" for m in METRICS for lab in (*prep.labels, "macro")]
        return pd.DataFrame(columns=columns, index=pd.MultiIndex.from_arrays(
            [[], []], names=["dimension", "value"]))
    return pd.concat(frames)


def trait_gaps(report: PerspectivistReport, *, metric: str = "f1",
               label: str = "macro") -> pd.DataFrame:
    r"""Gap between the best- and worst-served trait value of each dimension.

    .. math:: \mathrm{gap}_d = \max_v m_{d,v} - \min_v m_{d,v}

    over the dimension's known values with a defined score :math:`m` (the trait-level scores of
    PERSEVAL, section 5).

    Parameters
    ----------
    report : PerspectivistReport
    metric : str, default "f1"
        ``precision``, ``recall``, ``f1`` or ``accuracy``.
    label : str, default "macro"

    Returns
    -------
    pandas.DataFrame
        ``dimension, best_value, best, worst_value, worst, gap, n_values``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> gaps = trait_gaps(evaluate(predictions, gold, traits=traits))
    >>> first = gaps.iloc[0]
    >>> print(first["dimension"], first["best_value"], first["worst_value"], round(first["gap"], 2))
    Gender F M 0.15
    """
    column = "accuracy" if metric == "accuracy" else f"{metric}:{label}"
    if column not in report.per_trait.columns:
        raise ValueError(f"unknown metric/label {metric!r}/{label!r}.")
    rows = []
    for dim, frame in report.per_trait.groupby(level="dimension", sort=False):
        scores = frame[column].droplevel("dimension").dropna()
        if scores.empty:
            continue
        best, worst = scores.idxmax(), scores.idxmin()
        rows.append({"dimension": dim, "best_value": best, "best": float(scores[best]),
                     "worst_value": worst, "worst": float(scores[worst]),
                     "gap": float(scores[best] - scores[worst]), "n_values": len(scores)})
    return pd.DataFrame(rows, columns=["dimension", "best_value", "best", "worst_value",
                                       "worst", "gap", "n_values"])


# ----------------------------------------------------------------------------------- bootstrap
def bootstrap_users(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    traits: pd.DataFrame | None = None,
    labels: tuple[str, ...] | list[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> pd.DataFrame:
    r"""Percentile bootstrap confidence intervals over test users (cluster bootstrap).

    .. math:: W \sim \mathrm{Multinomial}(U, \mathbf{1}/U), \quad \hat m^*_b = m(W_b C)

    every PERSEVAL score (section 5) recomputed from the per-user confusion counts C weighted by
    the resampled users (Field and Welsh 2007 for the cluster bootstrap; percentile interval).

    Parameters
    ----------
    predictions, gold : pandas.DataFrame
        Long tables ``annotator_id, item_id, label`` with exactly the same (user, text) pairs.
    traits : pandas.DataFrame, optional
    labels : sequence of str, optional
    n_boot : int, default 1000
    seed : int, default 0
    ci : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        ``level, group, label, metric, estimate, low, high, sd, n_boot, seed``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.
    .. [2] Field and Welsh (2007). "Bootstrapping clustered data". JRSS B 69(3).

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> boot = bootstrap_users(predictions, gold, n_boot=200, seed=0)
    >>> first = boot.iloc[0]
    >>> print(first["level"], first["metric"], round(float(first["estimate"]), 3), first["low"],
    ...       first["high"])
    global accuracy 0.636 0.5 1.0
    """
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1.")
    if not 0 < ci < 1:
        raise ValueError("ci must be in (0, 1).")
    prep = _prepare(predictions, gold, labels)
    k = len(prep.labels)
    n_users = len(prep.users)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n_users, np.full(n_users, 1.0 / n_users), size=n_boot).astype(float)
    counts_u = _group_counts(prep.user_code, prep.y, prep.p, n_users, k)  # (U, 3, K)
    flat = counts_u.reshape(n_users, -1).astype(float)
    rows: list[dict] = []
    alpha = (1 - ci) / 2

    def add(level: str, group: str, point: dict, reps: dict) -> None:
        for metric in ("accuracy", *METRICS):
            if metric == "accuracy":
                items = [("macro", point["accuracy"], reps["accuracy"])]
            else:
                items = [(lab, point[metric][..., j], reps[metric][..., j])
                         for j, lab in enumerate(prep.labels)]
                items.append(("macro", point[f"{metric}_macro"], reps[f"{metric}_macro"]))
            for lab, est, rep in items:
                rep = np.asarray(rep, dtype=float)
                finite = rep[np.isfinite(rep)]
                low, high = (np.quantile(finite, [alpha, 1 - alpha]) if finite.size
                             else (np.nan, np.nan))
                rows.append({"level": level, "group": group, "label": lab, "metric": metric,
                             "estimate": float(np.asarray(est).ravel()[0]) if np.size(est)
                             else float("nan"),
                             "low": float(low), "high": float(high),
                             "sd": float(finite.std(ddof=1)) if finite.size > 1 else float("nan"),
                             "n_boot": int(n_boot), "seed": int(seed)})

    # global: pooled counts
    point = _scores(counts_u.sum(axis=0)[None])
    reps = _scores((weights @ flat).reshape(n_boot, 3, k))
    add("global", "all", {m: v[0] for m, v in point.items()}, reps)
    # user level: weighted means of per-user scores
    per_user = _scores(counts_u)
    user_point, user_reps = {}, {}
    for name, values in per_user.items():
        if name == "n":
            continue
        vals = values if values.ndim == 2 else values[:, None]
        present = np.isfinite(vals).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            user_point[name] = np.nansum(vals, axis=0) / present.sum(axis=0)
            user_reps[name] = (weights @ np.nan_to_num(vals)) / (weights @ present)
        if values.ndim == 1:
            user_point[name] = user_point[name][0]
            user_reps[name] = user_reps[name][:, 0]
    add("user", "all", user_point, user_reps)
    # traits
    for dim, index, codes in _trait_codes(prep, traits):
        onehot = np.zeros((n_users, len(index)))
        known = codes >= 0
        onehot[np.flatnonzero(known), codes[known]] = 1.0
        point_v = _scores(np.einsum("uv,uk->vk", onehot, flat).reshape(len(index), 3, k))
        reps_v = _scores(np.einsum("bu,uv,uk->bvk", weights, onehot, flat)
                         .reshape(n_boot, len(index), 3, k))
        for j, value in enumerate(index):
            if point_v["n"][j] == 0:
                continue
            add(f"trait:{dim}", str(value), {m: v[j] for m, v in point_v.items()},
                {m: v[:, j] for m, v in reps_v.items()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean_point = {m: np.nanmean(np.where(point_v["n"][(...,) + (None,) * (v.ndim - 1)]
                                                 > 0, v, np.nan), axis=0)
                          for m, v in point_v.items()}
            mean_reps = {m: np.nanmean(v, axis=1) for m, v in reps_v.items()}
        add(f"trait:{dim}", "mean", mean_point, mean_reps)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------- soft / LeWiDi
def _values(labels: tuple[str, ...], values: dict[str, float] | None) -> np.ndarray:
    if values is not None:
        return np.array([float(values[x]) for x in labels])
    try:
        return np.array([float(x) for x in labels])
    except ValueError:
        return np.arange(len(labels), dtype=float)


def soft_user_scores(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    labels: tuple[str, ...] | list[str],
    values: dict[str, float] | None = None,
) -> pd.DataFrame:
    r"""Per-user soft accuracy and expected absolute error of per-(user, text) outputs.

    .. math:: \mathrm{soft\,acc}_i = q_i[y_i], \quad \mathrm{abs\,err}_i = \sum_k q_{ik}\,|v_k - v_{y_i}|

    per pair i, averaged per user (the user-level reading of PERSEVAL, section 5, for
    distributions over labels; soft accuracy as Kurniawan et al. 2025, section 3.1, on a one-hot
    target).

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``annotator_id, item_id, label, prob`` (hard labels without ``prob`` count as 1).
    gold : pandas.DataFrame
    labels : sequence of str
    values : dict of str to float, optional
        Numeric label values (ordinal outputs).

    Returns
    -------
    pandas.DataFrame
        One row per user: ``n, soft_accuracy, abs_error``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.
    .. [2] Kurniawan et al. (2025), arXiv:2502.01891. Section 3.1.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> scores = soft_user_scores(predictions.assign(prob=1.0), gold, labels=["0", "1"])
    >>> print(scores["soft_accuracy"].tolist())
    [0.5, 0.5, 1.0]
    """
    labels = tuple(str(x) for x in labels)
    pred = _standardise(predictions, "predictions")
    if "prob" not in pred.columns:
        pred["prob"] = 1.0
    pred["prob"] = pd.to_numeric(pred["prob"], errors="coerce")
    if pred["prob"].isna().any() or (pred["prob"] < 0).any() or (pred["prob"] > 1).any():
        raise DataError("predictions have probabilities outside [0, 1] or empty.",
                        source="predictions", column="prob")
    bad = ~pred["label"].isin(labels)
    if bad.any():
        raise DataError(f"predictions use label(s) {sorted(pred.loc[bad, 'label'].unique())[:5]}"
                        f" outside {list(labels)}.", source="predictions", column="label")
    true = _standardise(gold, "gold")
    q = (pred.pivot_table(index=PAIR_KEYS, columns="label", values="prob", aggfunc="sum")
         .reindex(columns=list(labels)).fillna(0.0))
    sums = q.sum(axis=1)
    off = (sums - 1.0).abs() > 1e-6
    if off.any():
        u, t = off[off].index[0]
        raise DataError(f"probabilities for ({u}, {t}) sum to {sums[(u, t)]:.6g}, not 1 "
                        f"({int(off.sum())} pair(s)).", source="predictions", column="prob",
                        fix="give a distribution over labels for every (user, text) pair.")
    _check_pairs(pd.DataFrame(q.index.to_frame(index=False)), true)
    rows = q.index.get_indexer(pd.MultiIndex.from_frame(true[PAIR_KEYS]))
    y = pd.Index(labels).get_indexer(true["label"])
    if (y < 0).any():
        raise DataError("gold uses labels outside the inventory.", source="gold", column="label")
    qm = q.to_numpy()[rows]
    v = _values(labels, values)
    soft_acc = qm[np.arange(len(y)), y]
    abs_err = (qm * np.abs(v[None, :] - v[y][:, None])).sum(axis=1)
    frame = pd.DataFrame({"annotator_id": true["annotator_id"].to_numpy(),
                          "soft_accuracy": soft_acc, "abs_error": abs_err})
    out = frame.groupby("annotator_id").agg(n=("soft_accuracy", "size"),
                                            soft_accuracy=("soft_accuracy", "mean"),
                                            abs_error=("abs_error", "mean"))
    return out


def lewidi_scores(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    labels: tuple[str, ...] | list[str] | None = None,
    values: dict[str, float] | None = None,
    scale: float | None = None,
    decimals: int | None = None,
) -> dict[str, float]:
    r"""LeWiDi 2025 Task B (perspectivist) scores, lower is better.

    .. math:: \mathrm{ER} = \frac{1}{N} \sum_i \frac{1}{a_i} \sum_a [t_{ia} \ne p_{ia}], \quad
       \mathrm{NAD} = \frac{1}{N} \sum_i \frac{1}{a_i} \sum_a \frac{|v(t_{ia}) - v(p_{ia})|}{s}

    error rate (MP) and normalised absolute distance (CSC, Par; ``s`` = number of labels by
    default), as in the organisers' evaluation notebook; ``decimals`` rounds like it.

    Parameters
    ----------
    predictions, gold : pandas.DataFrame
        Long tables ``annotator_id, item_id, label`` with exactly the same (user, text) pairs.
    labels : sequence of str, optional
    values : dict of str to float, optional
    scale : float, optional
    decimals : int, optional

    Returns
    -------
    dict of str to float
        ``error_rate, normalised_absolute_distance, scale, n_texts``.

    References
    ----------
    .. [1] LeWiDi 2025, the third Learning With Disagreements shared task (NLPerspectives at
       EMNLP 2025). Task B evaluation, as in the organisers' evaluation notebook.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> lewidi_scores(predictions, gold)["error_rate"]
    0.375
    """
    prep = _prepare(predictions, gold, labels)
    v = _values(prep.labels, values)
    s = float(scale) if scale is not None else float(len(prep.labels))
    wrong = (prep.y != prep.p).astype(float)
    dist = np.abs(v[prep.y] - v[prep.p]) / s
    n_per = np.bincount(prep.text_code, minlength=len(prep.texts)).astype(float)
    er = np.bincount(prep.text_code, weights=wrong, minlength=len(prep.texts)) / n_per
    nad = np.bincount(prep.text_code, weights=dist, minlength=len(prep.texts)) / n_per
    if decimals is not None:
        er, nad = np.round(er, decimals), np.round(nad, decimals)
    out = {"error_rate": float(er.mean()), "normalised_absolute_distance": float(nad.mean()),
           "scale": s, "n_texts": len(prep.texts)}
    if decimals is not None:
        out["error_rate"] = round(out["error_rate"], decimals)
        out["normalised_absolute_distance"] = round(out["normalised_absolute_distance"], decimals)
    return out


def compare_models(
    models: dict[str, pd.DataFrame],
    gold: pd.DataFrame,
    *,
    traits: pd.DataFrame | None = None,
    labels: tuple[str, ...] | list[str] | None = None,
) -> pd.DataFrame:
    r"""Evaluate every model with :func:`evaluate`; the summaries stacked (tidy).

    .. math:: F_{1,c}(g) = \frac{2\,TP_c(g)}{2\,TP_c(g) + FP_c(g) + FN_c(g)}, \quad
       F_{1,c}^{\mathrm{user}} = \frac{1}{|U_c|} \sum_{u \in U_c} F_{1,c}(u)

    PERSEVAL, section 5, per model.

    Parameters
    ----------
    models : dict of str to pandas.DataFrame
        Name -> predictions.
    gold : pandas.DataFrame
    traits : pandas.DataFrame, optional
    labels : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        ``model, level, label, metric, value, n_groups``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> table = compare_models({"m": predictions}, gold)
    >>> print(table.iloc[0][["model", "level", "metric"]].tolist())
    ['m', 'global', 'accuracy']
    """
    frames = []
    for name, preds in models.items():
        summary = evaluate(preds, gold, traits=traits, labels=labels).summary()
        frames.append(summary.assign(model=name))
    if not frames:
        return pd.DataFrame(columns=["model", "level", "label", "metric", "value", "n_groups"])
    out = pd.concat(frames, ignore_index=True)
    return out[["model", "level", "label", "metric", "value", "n_groups"]]


def gold_for_pairs(predictions: pd.DataFrame, dataset: Dataset) -> pd.DataFrame:
    r"""The dataset's labels for the (user, text) pairs of ``predictions``.

    .. math:: \mathrm{gold} = \{(u, t, y_{ut}) : (u, t) \in \mathrm{predictions}\}

    (evaluation at the annotation level, PERSEVAL section 5); pairs without a label raise a
    :class:`~hlv_core.io.DataError` that names them.

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``annotator_id, item_id, ...``.
    dataset : hlv_core.io.Dataset

    Returns
    -------
    pandas.DataFrame
        ``annotator_id, item_id, label``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.samples import load_sample
    >>> pairs = pd.DataFrame({"annotator_id": ["lawyer_08"], "item_id": ["case_002"],
    ...                       "label": ["liable"]})
    >>> gold_for_pairs(pairs, load_sample("case_review"))["label"].tolist()
    ['unclear']
    """
    pred = _standardise(predictions, "predictions")
    ann = long_annotations(dataset)
    merged = pred[PAIR_KEYS].drop_duplicates().merge(ann, on=PAIR_KEYS, how="left", indicator=True)
    unknown = merged[merged["_merge"] == "left_only"]
    if len(unknown):
        raise DataError(
            f"{len(unknown)} predicted (user, text) pair(s) have no label in the dataset: "
            f"{_pairs_text(unknown)}.",
            source="predictions",
            column="annotator_id, item_id",
            fix="predict only pairs that the dataset's annotators labelled (check id formats).",
        )
    return merged[SPLIT_COLUMNS].reset_index(drop=True)


_HEADLINE_LEVELS = ("global", "user", "text")


def headline_label(labels: Sequence[str]) -> str:
    r"""The class the headline F1 is about: the positive class of a binary task, else "macro".

    .. math:: h = \begin{cases} \text{labels}[1] & K = 2 \\ \text{macro} & K > 2 \end{cases}

    PERSEVAL, section 6 (positive-class F1 for the binary datasets, macro for DICES, Table 3).

    Parameters
    ----------
    labels : sequence of str

    Returns
    -------
    str

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Sections 5-6, Table 3.

    Examples
    --------
    >>> headline_label(["0", "1"]), headline_label(["no", "unsure", "yes"])
    ('1', 'macro')
    """
    return str(labels[1]) if len(labels) == 2 else "macro"


def headline_table(summary: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    r"""One row per model: the headline F1 at the global, user and text levels, and accuracy.

    .. math:: F_{1,c}(g) = \frac{2\,TP_c(g)}{2\,TP_c(g) + FP_c(g) + FN_c(g)}, \quad
       F_{1,c}^{\mathrm{user}} = \frac{1}{|U_c|} \sum_{u \in U_c} F_{1,c}(u)

    with the class of :func:`headline_label` (PERSEVAL, section 5; Tables 2-5).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`compare_models` output.
    labels : sequence of str

    Returns
    -------
    pandas.DataFrame
        ``model``, ``global/user/text F1 (<h>)``, ``global macro F1`` (binary only),
        ``global accuracy``, ``user accuracy``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5; Tables 2-5.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> row = headline_table(compare_models({"m": predictions}, gold), ["0", "1"]).iloc[0]
    >>> print(row["user F1 (1)"], row["text F1 (1)"], round(row["global macro F1"], 3))
    0.5 0.25 0.607
    """
    head = headline_label(labels)
    binary = head != "macro"
    models = list(pd.unique(summary["model"]))
    wanted = {f"{level} F1 ({head})": ("f1", head, level) for level in _HEADLINE_LEVELS}
    if binary:
        wanted["global macro F1"] = ("f1", "macro", "global")
    wanted["global accuracy"] = ("accuracy", "macro", "global")
    wanted["user accuracy"] = ("accuracy", "macro", "user")
    # every (metric, label, level, model) cell: the first row of each key
    keys = ["metric", "label", "level", "model"]
    columns = [summary[k].to_numpy(dtype=object) for k in keys]
    if all(isinstance(x, str) for c in columns for x in c):  # a few hundred rows: a dict
        first: dict = {}
        levels = set(_HEADLINE_LEVELS)
        for key, v in zip(zip(*columns, strict=True), summary["value"].to_numpy(dtype=float),
                          strict=True):
            if key[2] in levels:
                first.setdefault(key, v)
        values = np.array([[first.get((*wanted[column], model), np.nan) for model in models]
                           for column in wanted], dtype=float).reshape(len(wanted), len(models))
    else:  # other key types (or missing keys): pandas' own matching
        first = summary[summary["level"].isin(_HEADLINE_LEVELS)].drop_duplicates(keys)
        cells = first.set_index(keys)["value"].reindex(pd.MultiIndex.from_tuples(
            [(*wanted[column], model) for column in wanted for model in models], names=keys))
        values = cells.to_numpy(dtype=float).reshape(len(wanted), len(models))
    return pd.DataFrame({"model": models, **{column: values[j]
                                             for j, column in enumerate(wanted)}})


def worst_groups(table: pd.DataFrame, column: str, n: int = 10) -> pd.DataFrame:
    r"""The ``n`` worst-served groups of a per-user or per-text table.

    .. math:: \text{order by } (m_g \uparrow, n_g \downarrow)

    of a PERSEVAL user- or text-level score (section 5).

    Parameters
    ----------
    table : pandas.DataFrame
        ``PerspectivistReport.per_user`` or ``.per_text``.
    column : str
        e.g. ``"f1:macro"``, ``"accuracy"``.
    n : int, default 10

    Returns
    -------
    pandas.DataFrame
        Columns ``n`` and ``column``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 5.

    Examples
    --------
    The PERSEVAL library's toy case: 3 test users, 4 texts, 11 (user, text) instances:

    >>> import pandas as pd
    >>> pairs = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"),
    ...          ("u2", "t2"), ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
    >>> gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"]).assign(
    ...     label=list("00011011000"))
    >>> predictions = gold.assign(label=list("01110001000"))
    >>> traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
    ...                       index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    >>> worst_groups(evaluate(predictions, gold).per_user, "accuracy", 2).index.tolist()
    ['u1', 'u2']
    """
    defined = table[["n", column]].dropna()
    return defined.sort_values([column, "n"], ascending=[True, False]).head(n)
