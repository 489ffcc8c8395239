"""CIFAR-10H raw per-annotator CSV (``cifar10h-raw.csv``, Peterson et al. 2019).

Columns used: ``annotator_id``, ``chosen_label``, ``cifar10_test_test_idx``, ``is_attn_check``
(optional ``true_label``, ``image_filename``); every other column (``reaction_time``,
``chosen_category``, ...) is ignored. Canonical rows: ``item_id = cifar10_test_test_idx``,
``annotator_id`` as written (ids are linked across images), ``label = chosen_label``.
Attention-check rows (``is_attn_check == 1``; their image index is the ``-99999`` sentinel) are
dropped and counted in the report.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from ._read import Source, read_table
from .dataset import Dataset, build_dataset, order_labels
from .errors import DataError, ImportReport

__all__ = ["CIFAR10H_COLUMNS", "looks_like_cifar10h_raw", "read_cifar10h_raw"]

#: Header columns that identify the raw CIFAR-10H file (auto-detection).
CIFAR10H_COLUMNS = ("annotator_id", "chosen_label", "cifar10_test_test_idx", "is_attn_check")


def looks_like_cifar10h_raw(columns) -> bool:
    """Whether a header is the raw CIFAR-10H file's (auto-detection).

    Parameters
    ----------
    columns : iterable of str
        Header columns.

    Returns
    -------
    bool
        True when every column of :data:`CIFAR10H_COLUMNS` is present.

    References
    ----------
    .. [1] J. C. Peterson, R. M. Battleday, T. L. Griffiths and O. Russakovsky (2019), "Human
       uncertainty makes classification more robust", ICCV 2019 (CIFAR-10H).

    Examples
    --------
    >>> looks_like_cifar10h_raw(["annotator_id", "chosen_label", "cifar10_test_test_idx",
    ...                          "is_attn_check", "reaction_time"])
    True
    """
    return set(CIFAR10H_COLUMNS) <= set(columns)


def _first(mask: pd.Series) -> int:
    return int(np.flatnonzero(mask.to_numpy())[0])


def read_cifar10h_raw(source: Source, *, labels: list[str] | None = None) -> Dataset:
    r"""Read ``cifar10h-raw.csv``.

    ``labels``: class names in class-index order (e.g. airplane, automobile, ...). When the
    ``chosen_label`` cells are integers and ``labels`` is given, index ``i`` becomes
    ``labels[i]``; without it the integers are kept as label strings (``"0".."9"``). When the
    cells are already names, ``labels`` only fixes the inventory order. ``true_label`` (mapped
    the same way) is kept as an item column.

    Attention-check rows (``is_attn_check = 1``) are dropped and reported.

    Parameters
    ----------
    source : Source
        The ``cifar10h-raw.csv`` file.
    labels : list of str, optional
        Class names in class-index order.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, record and fix for every problem.

    References
    ----------
    .. [1] J. C. Peterson, R. M. Battleday, T. L. Griffiths and O. Russakovsky (2019), "Human
       uncertainty makes classification more robust", ICCV 2019 (CIFAR-10H).

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> raw = (b"annotator_id,chosen_label,cifar10_test_test_idx,is_attn_check,true_label\n"
    ...        b"0,3,7,0,3\n1,5,7,0,3\n2,3,7,1,3\n")
    >>> names = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
    ...          "truck"]
    >>> dataset = read_cifar10h_raw(as_source(raw, "cifar10h-raw.csv"), labels=names)
    >>> dataset.annotations["label"].tolist(), dataset.report.dropped
    (['cat', 'dog'], {'attention-check rows (is_attn_check = 1)': 1})
    """
    frame = read_table(source)
    missing = [c for c in CIFAR10H_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(
            f"CIFAR-10H raw format needs columns {list(CIFAR10H_COLUMNS)}; missing {missing}.",
            source=source.name,
            row=1,
            column=missing[0],
            fix="load the original cifar10h-raw.csv, or choose another format.",
        )
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column].dtype):
            frame[column] = frame[column].str.strip()
    report = ImportReport(source.name, "cifar10h_raw", rows_read=len(frame))
    rows = pd.Series(np.arange(len(frame)) + 2, index=frame.index)
    attn = frame["is_attn_check"].fillna("")
    bad = ~attn.isin(["0", "1", "0.0", "1.0", "True", "False", "true", "false"])
    if bad.any():
        i = _first(bad)
        raise DataError(
            f"is_attn_check {attn.iloc[i]!r} is not 0 or 1.",
            source=source.name,
            row=int(rows.iloc[i]),
            column="is_attn_check",
            fix="mark attention-check trials with 1 and real trials with 0.",
        )
    is_attn = attn.isin(["1", "1.0", "True", "true"])
    attn_rows = frame[is_attn]
    report.drop("attention-check rows (is_attn_check = 1)", int(is_attn.sum()))
    if "true_label" in frame.columns and len(attn_rows):
        failed = attn_rows["chosen_label"] != attn_rows["true_label"]
        n_bad = attn_rows.loc[failed, "annotator_id"].nunique()
        report.note(
            f"{len(attn_rows)} attention checks dropped; {n_bad} annotator(s) failed at least one."
        )
    frame, rows = frame[~is_attn], rows[~is_attn]
    for column in ("annotator_id", "chosen_label", "cifar10_test_test_idx"):
        empty = frame[column].isna() | (frame[column] == "")
        if empty.any():
            i = _first(empty)
            raise DataError(
                f"empty {column} in a trial that is not an attention check.",
                source=source.name,
                row=int(rows.iloc[i]),
                column=column,
                fix="fill the cell or drop the row.",
            )
    index = pd.to_numeric(frame["cifar10_test_test_idx"], errors="coerce")
    bad = index.isna() | (index % 1 != 0) | (index < 0)
    if bad.any():
        i = _first(bad)
        raise DataError(
            f"image index {frame['cifar10_test_test_idx'].iloc[i]!r} is not a whole number "
            ">= 0 in a trial that is not an attention check.",
            source=source.name,
            row=int(rows.iloc[i]),
            column="cifar10_test_test_idx",
            fix="only attention checks (is_attn_check = 1) may carry the -99999 sentinel.",
        )
    item_ids = index.astype(np.int64).astype(str)
    chosen = _map_labels(frame["chosen_label"], labels, source, rows, "chosen_label")
    annotations = pd.DataFrame(
        {
            "item_id": item_ids.to_numpy(dtype=object),
            "annotator_id": frame["annotator_id"].to_numpy(dtype=object),
            "label": chosen.to_numpy(dtype=object),
        }
    )
    order = np.unique(index.astype(np.int64).to_numpy())
    items = pd.DataFrame({"item_id": order.astype(str)})
    inventory_source = list(chosen.unique())
    for extra_column in ("true_label", "image_filename"):
        if extra_column not in frame.columns:
            continue
        values = frame[extra_column]
        if extra_column == "true_label":
            values = _map_labels(values.fillna(""), labels, source, rows, "true_label",
                                 allow_empty=True)
            inventory_source += [v for v in values.unique() if v]
        per_item = pd.DataFrame({"item_id": item_ids.to_numpy(), "v": values.to_numpy()})
        n_distinct = per_item.groupby("item_id")["v"].nunique()
        if extra_column == "true_label" and (n_distinct > 1).any():
            item = n_distinct[n_distinct > 1].index[0]
            i = _first(item_ids == item)
            raise DataError(
                f"image {item} has more than one true_label.",
                source=source.name,
                row=int(rows.iloc[i]),
                column="true_label",
                fix="each CIFAR-10 test image has one true label; check the file.",
            )
        first = per_item.drop_duplicates("item_id").set_index("item_id")["v"]
        items[extra_column] = first.reindex(items["item_id"]).to_numpy()
    inventory = list(labels) if labels is not None else list(order_labels(inventory_source))
    report.note(
        f"{annotations['annotator_id'].nunique()} annotators linked across "
        f"{len(items)} images; label = chosen_label"
        + ("" if labels is not None else " (class index as written; pass labels= for names)")
        + "."
    )
    return build_dataset(
        annotations,
        source=source.name,
        format="cifar10h_raw",
        report=report,
        items=items,
        labels=inventory,
        task="multiclass",
        level="nominal",
        annotator_ids_known=True,
        name=PurePosixPath(source.name).stem,
    )


def _map_labels(
    values: pd.Series,
    labels: list[str] | None,
    source: Source,
    rows: pd.Series,
    column: str,
    *,
    allow_empty: bool = False,
) -> pd.Series:
    """Integer class indices -> ``labels[i]`` when names are given; names pass through."""
    values = values.astype(str)
    if labels is None:
        return values
    if len(set(labels)) != len(labels):
        raise DataError(
            "the labels list has duplicate names.", source="labels", fix="one name per class."
        )
    present = values != "" if allow_empty else pd.Series(True, index=values.index)
    numeric = pd.to_numeric(values, errors="coerce")
    is_index = numeric.notna() & (numeric % 1 == 0)
    if (is_index | ~present).all():
        out_of_range = present & ((numeric < 0) | (numeric >= len(labels)))
        if out_of_range.any():
            i = _first(out_of_range)
            raise DataError(
                f"class index {values.iloc[i]!r} has no name: labels has {len(labels)} entries.",
                source=source.name,
                row=int(rows.iloc[i]),
                column=column,
                fix="pass one class name per class index (0-based).",
            )
        names = np.asarray(labels, dtype=object)
        mapped = np.where(present, names[numeric.fillna(0).astype(np.int64)], "")
        return pd.Series(mapped, index=values.index, dtype=object)
    unknown = present & ~values.isin(labels)
    if unknown.any():
        i = _first(unknown)
        raise DataError(
            f"{column} {values.iloc[i]!r} is not one of the labels {list(labels)}.",
            source=source.name,
            row=int(rows.iloc[i]),
            column=column,
            fix="pass the complete class list in labels=, spelled as in the file.",
        )
    return values
