"""Annotation rows as integer codes, shared by the alt-test and the human ceiling
(private to ``hlv_core``): one row per (item, annotator) with its label, annotators in order of
first appearance (the order the alt-test reference visits them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .io import Dataset
from .io.dataset import order_labels

__all__ = ["Long", "label_key", "long_rows"]


def label_key(value) -> str:
    """Categorical comparison key: integral numbers compare equal to their spelling ("3" and 3
    and 3.0 are one label), everything else by its string."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if np.isfinite(value) and float(value).is_integer():
            return str(int(value))
        return str(float(value))
    return str(value)


@dataclass
class Long:
    """Annotation rows as codes: item ``item`` (R,), annotator ``annot`` (R,), label string
    ``label`` (R,) (multilabel: one row per (item, annotator), ``sets`` the frozensets and
    ``bits`` (R, K) 0/1)."""

    item: np.ndarray
    annot: np.ndarray
    label: np.ndarray
    item_ids: pd.Index
    annotator_ids: pd.Index
    labels: tuple[str, ...]
    multilabel: bool = False
    sets: list | None = None
    bits: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


def long_rows(annotations, multilabel: bool | None = None) -> Long:
    """Flatten a Dataset or long DataFrame into coded rows (annotators in order of first
    appearance, the order the reference visits them)."""
    if isinstance(annotations, Dataset):
        frame = annotations.annotations
        labels = tuple(annotations.labels)
        if multilabel is None:
            multilabel = annotations.task == "multilabel"
        if annotations.task == "ranking":
            raise ValueError("the alt-test needs one label per (item, annotator); this dataset "
                             "holds rankings.")
        if not annotations.annotator_ids_known:
            raise ValueError("these data have no annotator ids (counts only): the alt-test and "
                             "the human ceiling leave one annotator out at a time and need "
                             "to know who gave which label.")
    elif isinstance(annotations, pd.DataFrame):
        frame = annotations
        labels = ()
    else:
        raise TypeError("annotations must be a Dataset or a DataFrame with item_id, "
                        "annotator_id, label.")
    missing = [c for c in ("item_id", "annotator_id", "label") if c not in frame.columns]
    if missing:
        raise ValueError(f"annotations need the columns item_id, annotator_id, label; "
                         f"missing {missing}.")
    frame = frame[["item_id", "annotator_id", "label"]]
    if frame[["item_id", "annotator_id", "label"]].isna().any().any():
        raise ValueError("annotations contain empty item_id, annotator_id or label cells.")
    item_str = frame["item_id"].astype(str).to_numpy(dtype=object)
    annot_str = frame["annotator_id"].astype(str).to_numpy(dtype=object)
    if isinstance(frame["label"].dtype, pd.CategoricalDtype):
        label_str = frame["label"].astype(str).to_numpy(dtype=object)
    else:
        codes, uniques = pd.factorize(frame["label"].to_numpy(dtype=object))
        label_str = np.array([label_key(v) for v in uniques] + [""], dtype=object)[codes]
    if not labels:
        labels = order_labels(pd.unique(label_str))
    item_codes, item_ids = pd.factorize(item_str)
    annot_codes, annotator_ids = pd.factorize(annot_str)
    pair = item_codes.astype(np.int64) * len(annotator_ids) + annot_codes
    dup = pd.Series(pair).duplicated().to_numpy()
    if multilabel is None:
        multilabel = False
    if not multilabel:
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise ValueError(
                f"annotator {annot_str[i]!r} labels item {item_str[i]!r} more than once (row "
                f"{i + 1}); the alt-test needs one label per (item, annotator). For multi-label "
                "data pass multilabel=True.")
        return Long(item_codes, annot_codes, label_str, pd.Index(item_ids),
                     pd.Index(annotator_ids), tuple(labels), False)
    # multilabel: one row per (item, annotator) holding the set of its labels
    lab_index = pd.Index(labels)
    lab_code = lab_index.get_indexer(label_str)
    uniq, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # keep first-appearance order of pairs
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    row_of = rank[inverse]
    bits = np.zeros((uniq.size, len(labels)), dtype=np.int8)
    bits[row_of, lab_code] = 1
    pairs = uniq[order]
    item = (pairs // len(annotator_ids)).astype(np.int64)
    annot = (pairs % len(annotator_ids)).astype(np.int64)
    names = np.array(labels, dtype=object)
    sets = [frozenset(names[row.astype(bool)]) for row in bits]
    keys = np.array(["|".join(names[row.astype(bool)]) for row in bits], dtype=object)
    return Long(item, annot, keys, pd.Index(item_ids), pd.Index(annotator_ids), tuple(labels),
                 True, sets, bits)
