"""Model predictions, validated against a :class:`~hlv_core.io.dataset.Dataset`.

Canonical long layout returned by :func:`load_predictions`: ``model, item_id, label, prob``
(+ ``annotator_id`` for per-(annotator, item) predictions, + ``rank`` for ranked lists).
Accepted inputs (CSV/TSV/Parquet, auto-detected from the header):

* long probabilities ``item_id, label, prob[, model]``;
* wide probabilities ``item_id[, model], <label 1>, <label 2>, ...`` (one column per label);
* hard labels ``item_id, label[, model]`` (prob = 1);
* ranked lists ``item_id, label, rank[, model]`` (prob = 1 for every listed label);
* per-(annotator, item) labels ``annotator_id, item_id, label[, model]``, also PERSEVAL's
  ``user_id, text_id, label``;
* headerless LeWiDi submission TSVs (2023 ``hard_label<TAB>p0<TAB>p1``, 2025
  ``<item id><TAB>[...]``), recognised from the first line and handed to
  :func:`~hlv_core.io.lewidi_submission.load_lewidi_submission`.

Item-level views (:func:`item_level_predictions`, :func:`model_matrices`): a predictions table
may mix item-level rows with per-annotator rows (``annotator_id`` set: PERSEVAL predictions for a
(user, text) pair); item-level analyses use only the rows whose ``annotator_id`` is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from ._read import as_source, decode_text, read_table, refuse_binary, refuse_spreadsheet
from .dataset import Dataset, _as_number, echo
from .errors import DataError, ImportReport
from .spelling import describe_change, spelling_changes

__all__ = [
    "load_predictions",
    "prediction_matrix",
    "item_level_predictions",
    "model_matrices",
    "SUM_TOLERANCE",
    "RENORMALISE_TOLERANCE",
]

SUM_TOLERANCE = 1e-6
"""Multiclass probabilities of one (model, item) summing to 1 within this are taken as they are."""

RENORMALISE_TOLERANCE = 1e-3
"""Sums within this of 1 (rounding: 0.333 + 0.333 + 0.333 = 0.999) are divided by their sum
so they sum to 1 exactly, with a note in the import report; further off is refused. The
analysis functions themselves (``hlv_core.soft_metrics``) never renormalise."""


def _refuse_label_lists(frame: pd.DataFrame, name: str) -> None:
    """A Parquet ``label`` column of lists (label sets) is annotations, not predictions: never
    read as the text ``"['a', 'b']"``."""
    if "label" not in frame.columns or frame["label"].dtype != object:
        return
    lists = frame["label"].map(lambda v: isinstance(v, list)).to_numpy(dtype=bool)
    if lists.any():
        row = int(np.flatnonzero(lists)[0])
        raise DataError(
            f"column 'label' holds lists (e.g. {frame['label'].iloc[row]!r:.60}); predictions "
            "give one label per row with its probability.",
            source=name, row=row + 1, column="label",
            fix="write one row per (item, label) with prob (a multi-label model: the "
            "probability that the label applies), not a list of labels.",
        )


def _first_row(mask: pd.Series) -> int:
    return int(np.flatnonzero(mask.to_numpy())[0])


def load_predictions(
    path_or_buffer: str | Path | bytes | IO[bytes],
    dataset: Dataset,
    *,
    name: str | None = None,
    default_model: str | None = None,
    report: ImportReport | None = None,
    unknown_labels: str = "refuse",
) -> pd.DataFrame:
    r"""Read and validate model predictions for a dataset (see the module notes for the layouts).

    Long or wide probabilities, hard labels, ranked lists, per-(annotator, item) labels and
    headerless LeWiDi submission TSVs are recognised from the header. Sums off by more than
    :data:`SUM_TOLERANCE` but within :data:`RENORMALISE_TOLERANCE` (rounded outputs) are
    renormalised, with a note in ``report``.

    Parameters
    ----------
    path_or_buffer : str, pathlib.Path, bytes or binary file-like
        The predictions file.
    dataset : Dataset
        The dataset the predictions are for (items and labels are checked against it).
    name : str, optional
        File name (needed for bytes); its stem is the default model name.
    default_model : str, optional
        Model name when the file has no ``model`` column.
    report : ImportReport, optional
        Receives rows read / kept and the renormalisation note.
    unknown_labels : {"refuse", "keep"}, default "refuse"
        ``"keep"``: hard labels (a file without probabilities) outside the dataset's label
        inventory are kept, with a note in ``report``: the alternative annotator test allows
        them, and they never match a human label (Calderon et al. 2025, section 3; e.g. an LLM
        answering "None-of-the-above"). Probabilities for unknown labels are always refused.

    Returns
    -------
    pandas.DataFrame
        Canonical long ``model, item_id, label, prob`` (+ ``annotator_id``, + ``rank``).

    Raises
    ------
    DataError
        Unknown labels or items, probabilities outside [0, 1] or empty, and multiclass rows
        whose sum is further than :data:`RENORMALISE_TOLERANCE` from 1 (file, row, column
        named).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core.io import load
    >>> dataset = load(b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\ni2,a,pos\n",
    ...                name="toy.csv")
    >>> preds = load_predictions(b"item_id,neg,pos\ni1,0.25,0.75\ni2,0.1,0.9\n", dataset,
    ...                          name="roberta.csv")
    >>> preds
         model item_id label  prob
    0  roberta      i1   neg  0.25
    1  roberta      i2   neg  0.10
    2  roberta      i1   pos  0.75
    3  roberta      i2   pos  0.90
    >>> load_predictions(b"item_id,label,prob\ni9,pos,1\n", dataset, name="bad.csv")
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'bad.csv', row 2, column 'item_id': item 'i9' is not in the annotations (1 unknown item(s)). How to fix: predict only items of the loaded dataset (check the id column and its format).
    """
    if unknown_labels not in ("refuse", "keep"):
        raise ValueError(f"unknown_labels must be 'refuse' or 'keep', got {unknown_labels!r}")
    source = as_source(path_or_buffer, name)
    refuse_binary(source, readable=("a Parquet file",))
    refuse_spreadsheet(source)
    if source.suffix != ".parquet" and source.raw[:4] != b"PAR1":
        from .lewidi_submission import load_lewidi_submission, sniff_lewidi_submission

        first_line = decode_text(source).splitlines()[0]
        if sniff_lewidi_submission(first_line):
            return load_lewidi_submission(source.raw, dataset, name=source.name,
                                          model=default_model, report=report)
    frame = read_table(source)
    _refuse_label_lists(frame, source.name)
    frame = frame.rename(columns={"user_id": "annotator_id", "text_id": "item_id"})
    model_default = default_model or Path(source.name).stem
    labels = set(dataset.labels)
    if "item_id" not in frame.columns:
        raise DataError(
            f"predictions need an item_id column; found {list(frame.columns)}.",
            source=source.name,
            row=1,
            column="item_id",
            fix="add item_id (and label, prob) columns, or one column per label.",
        )
    label_columns = [c for c in frame.columns if c in labels]
    if "label" not in frame.columns and label_columns:
        id_vars = [c for c in ("model", "item_id") if c in frame.columns]
        others = [c for c in frame.columns if c not in id_vars and c not in labels]
        if others:
            raise DataError(
                f"column {others[0]!r} is neither an id nor a label of the dataset "
                f"{list(dataset.labels)}.",
                source=source.name,
                row=1,
                column=others[0],
                fix="rename the column to a dataset label or remove it.",
            )
        frame = frame.reset_index(names="_row").melt(
            id_vars=["_row", *id_vars], var_name="label", value_name="prob"
        )
        frame["_row"] = frame["_row"] + 2
    else:
        frame = frame.reset_index(names="_row")
        frame["_row"] = frame["_row"] + 2
    if "label" not in frame.columns:
        raise DataError(
            "predictions need a label column (or one column per label).",
            source=source.name,
            row=1,
            column="label",
            fix=f"use item_id, label, prob with labels from {list(dataset.labels)}.",
        )
    if "model" not in frame.columns:
        frame["model"] = model_default
    for column in ("model", "item_id", "label"):
        empty = frame[column].isna()
        if empty.any():
            row = frame["_row"].iloc[_first_row(empty)]
            raise DataError(
                f"empty {column}.",
                source=source.name,
                row=int(row),
                column=column,
                fix="fill the cell or drop the row.",
            )
        frame[column] = frame[column].astype(str).str.strip()
        changes = spelling_changes(pd.Index(frame[column].unique(), dtype=str))
        if changes:  # the dataset's spelling rule: NFC, no invisible characters, one space
            frame[column] = frame[column].map(lambda v, c=changes: c.get(v, v))
            if report is not None:
                shown = "; ".join(f"{b!r} ({describe_change(b, a)}) -> {a!r}"
                                  for b, a in list(changes.items())[:5])
                report.note(f"look-alike spellings of {column} made one ({len(changes)} "
                            f"spelling(s); rule: Unicode NFC, invisible format characters "
                            f"removed, whitespace runs as one space): {shown}.")
    unknown = ~frame["label"].isin(labels)
    if unknown.any() and unknown_labels == "keep" and "prob" not in frame.columns:
        outside = pd.unique(frame.loc[unknown, "label"])
        if report is not None:
            report.note(f"{int(unknown.sum())} hard label(s) outside the dataset's labels kept "
                        f"({len(outside)} distinct: {echo(list(outside[:5]), 200)}): in the "
                        "alternative annotator test they never match a human label "
                        "(Calderon et al. 2025, section 3).")
        unknown = pd.Series(False, index=frame.index)
    if unknown.any():
        i = _first_row(unknown)
        bad = frame["label"].iloc[i]
        same_number = [x for x in dataset.labels
                       if _as_number(x) is not None and _as_number(x) == _as_number(bad)]
        hint = (f" ({echo(bad)} is the number of the label {echo(same_number[0])}; write it "
                "that way)") if same_number else ""
        raise DataError(
            f"label {echo(bad)} is not a label of the dataset {echo(list(dataset.labels), 200)}.",
            source=source.name,
            row=int(frame["_row"].iloc[i]),
            column="label",
            fix="use the dataset's label strings exactly (case and spelling)" + hint + ".",
        )
    known_items = set(dataset.item_ids)
    missing_items = ~frame["item_id"].isin(known_items)
    if missing_items.any():
        i = _first_row(missing_items)
        n_bad = frame.loc[missing_items, "item_id"].nunique()
        raise DataError(
            f"item {frame['item_id'].iloc[i]!r} is not in the annotations ({n_bad} unknown "
            "item(s)).",
            source=source.name,
            row=int(frame["_row"].iloc[i]),
            column="item_id",
            fix="predict only items of the loaded dataset (check the id column and its format).",
        )
    if "prob" in frame.columns:
        probs = pd.to_numeric(frame["prob"], errors="coerce")
        bad = probs.isna() | (probs < 0) | (probs > 1)
        if bad.any():
            i = _first_row(bad)
            raise DataError(
                f"probability {frame['prob'].iloc[i]!r} is not a number in [0, 1].",
                source=source.name,
                row=int(frame["_row"].iloc[i]),
                column="prob",
                fix="write probabilities between 0 and 1 (no empty cells, no NaN).",
            )
        frame["prob"] = probs.astype(float)
    else:
        frame["prob"] = 1.0
    keys = ["model", "item_id", "label"] + (
        ["annotator_id"] if "annotator_id" in frame.columns else []
    )
    dup = frame.duplicated(keys)
    if dup.any():
        i = _first_row(dup)
        raise DataError(
            f"prediction for ({', '.join(repr(frame[k].iloc[i]) for k in keys)}) appears twice.",
            source=source.name,
            row=int(frame["_row"].iloc[i]),
            column="label",
            fix="keep one row per model, item and label.",
        )
    if "rank" in frame.columns:
        ranks = pd.to_numeric(frame["rank"], errors="coerce")
        bad = ranks.isna() | (ranks < 1) | (ranks % 1 != 0)
        if bad.any():
            i = _first_row(bad)
            raise DataError(
                f"rank {frame['rank'].iloc[i]!r} is not a whole number >= 1.",
                source=source.name,
                row=int(frame["_row"].iloc[i]),
                column="rank",
                fix="rank 1 is the model's first choice.",
            )
        frame["rank"] = ranks.astype(int)
    elif dataset.task in ("multiclass", "rating") and "annotator_id" not in frame.columns:
        frame = _renormalise(frame, source.name, report)
    columns = ["model", "item_id", "label", "prob"] + [
        c for c in ("annotator_id", "rank") if c in frame.columns
    ]
    if report is not None:
        report.rows_read = report.rows_kept = int(frame["_row"].nunique())
        report.n_items = int(frame["item_id"].nunique())
        report.labels = tuple(dataset.labels)
    return frame[columns].reset_index(drop=True)


def _renormalise(frame: pd.DataFrame, source: str, report: ImportReport | None) -> pd.DataFrame:
    """Multiclass distributions: refuse sums further than :data:`RENORMALISE_TOLERANCE` from 1,
    divide sums off by more than :data:`SUM_TOLERANCE` (rounding) by their sum, with a note."""
    sums = frame.groupby(["model", "item_id"], sort=False)["prob"].transform("sum")
    deviation = (sums - 1.0).abs()
    off = deviation > RENORMALISE_TOLERANCE + 1e-12  # 0.333 + 0.666 is 0.999 in print only
    if off.any():
        i = _first_row(off)
        model, item = frame["model"].iloc[i], frame["item_id"].iloc[i]
        n_off = frame.loc[off, ["model", "item_id"]].drop_duplicates().shape[0]
        raise DataError(
            f"probabilities of model {model!r} for item {item!r} sum to {sums.iloc[i]:.6g}, "
            f"not 1 ({n_off} item(s) affected); multiclass predictions are distributions "
            f"(sums within {RENORMALISE_TOLERANCE:g} of 1 are accepted as rounding and "
            "renormalised).",
            source=source,
            row=int(frame["_row"].iloc[i]),
            column="prob",
            fix="normalise each item's probabilities to sum to 1 (softmax outputs), or "
            "declare the dataset multilabel.",
        )
    fixed = deviation > SUM_TOLERANCE
    if not fixed.any():
        return frame
    frame = frame.copy()
    frame.loc[fixed, "prob"] = frame.loc[fixed, "prob"] / sums[fixed]
    n_items = frame.loc[fixed, ["model", "item_id"]].drop_duplicates().shape[0]
    n_rows = int(frame.loc[fixed, "_row"].nunique())
    note = (f"{n_items} prediction(s) (model, item; {n_rows} file rows) summed to within "
            f"{RENORMALISE_TOLERANCE:g} of 1 but not to 1 (largest deviation "
            f"{float(deviation[fixed].max()):.2g}, e.g. rounding); each was divided by its sum so "
            "it sums to 1.")
    if report is not None:
        report.note(note)
    return frame


def prediction_matrix(
    predictions: pd.DataFrame, dataset: Dataset, model: str
) -> tuple[pd.Index, np.ndarray]:
    r"""One model's item-level probabilities as an (M, K) matrix in dataset item order.

    Only the M items the model predicted are returned (a model may cover a test split only);
    labels the model gave no probability get 0; columns in the dataset's label inventory order.
    This is the ``Q`` of every soft metric (Kurniawan et al., section 3).

    Parameters
    ----------
    predictions : pandas.DataFrame
        Long predictions (:func:`load_predictions`).
    dataset : Dataset
        The dataset.
    model : str
        The model.

    Returns
    -------
    item_ids : pandas.Index
        The M items, in dataset order.
    Q : numpy.ndarray
        (M, K) probabilities.

    Raises
    ------
    DataError
        No rows for the model, or repeated (item, label) rows (never summed).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core.io import load
    >>> dataset = load(b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\ni2,a,pos\n",
    ...                name="toy.csv")
    >>> preds = load_predictions(b"item_id,neg,pos\ni1,0.25,0.75\ni2,0.1,0.9\n", dataset,
    ...                          name="roberta.csv")
    >>> item_ids, Q = prediction_matrix(preds, dataset, "roberta")
    >>> item_ids.tolist(), Q.tolist()
    (['i1', 'i2'], [[0.25, 0.75], [0.1, 0.9]])
    """
    rows = predictions[predictions["model"] == model]
    if rows.empty:
        raise DataError(
            f"no predictions for model {model!r}.",
            source="predictions",
            column="model",
            fix=f"choose one of {sorted(predictions['model'].unique())}.",
        )
    dup = rows.duplicated(["item_id", "label"])
    if dup.any():
        first = rows[dup].iloc[0]
        per_annotator = "annotator_id" in rows.columns and rows["annotator_id"].notna().any()
        raise DataError(
            f"model {echo(model)} has {int(dup.sum())} repeated (item, label) prediction(s), "
            f"the first ({echo(first['item_id'])}, {echo(first['label'])}); summing them would "
            "give impossible probabilities.",
            source="predictions",
            column="model",
            fix="per-annotator predictions belong to the Perspectives page / perspectives "
            "command." if per_annotator else "give each model a distinct name (two uploads "
            "with one model name are two models) and one row per item and label.",
        )
    item_index = pd.Index(dataset.item_ids)
    label_index = pd.Index(dataset.labels)
    item_code = item_index.get_indexer(rows["item_id"].to_numpy(dtype=object))
    label_code = label_index.get_indexer(rows["label"].to_numpy(dtype=object))
    present = np.unique(item_code)  # dataset item order
    dense = np.zeros((len(item_index), len(label_index)))
    np.add.at(dense, (item_code, label_code), rows["prob"].to_numpy(dtype=float))
    return pd.Index(item_index[present], name="item_id"), dense[present]

def item_level_predictions(predictions: pd.DataFrame | None) -> pd.DataFrame | None:
    """The item-level rows of a predictions table.

    Rows without an ``annotator_id`` (all rows when the column is absent); per-annotator rows
    (PERSEVAL predictions for a (user, text) pair) are left out.

    Parameters
    ----------
    predictions : pandas.DataFrame or None
        Long predictions.

    Returns
    -------
    pandas.DataFrame or None
        The item-level rows; None when there are none (or ``predictions`` is None).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> import pandas as pd
    >>> mixed = pd.DataFrame({"model": ["m", "p"], "item_id": ["i1", "i1"], "label": ["pos", "neg"],
    ...                       "prob": [1.0, 1.0], "annotator_id": [None, "a"]})
    >>> item_level_predictions(mixed)["model"].tolist()
    ['m']
    """
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
    r"""The (item ids, Q) of :func:`prediction_matrix` for every model with item-level predictions.

    Models in sorted order unless ``models`` is given. ``complete=True`` keeps only models that
    predict every item (UA accuracy of Stutz et al. needs one prediction per case) and says
    which were left out and why in ``notes``; a model whose rows cannot be read is left out
    with the error's message.

    Parameters
    ----------
    predictions : pandas.DataFrame or None
        Long predictions.
    dataset : Dataset
        The dataset.
    models : sequence of str, optional
        Models, in this order.
    complete : bool, default False
        Keep only models covering every item.

    Returns
    -------
    matrices : dict
        ``{model: (item_ids, Q)}``.
    notes : list of str
        Models left out and why.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core.io import load
    >>> dataset = load(b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\ni2,a,pos\n",
    ...                name="toy.csv")
    >>> preds = load_predictions(b"item_id,neg,pos\ni1,0.25,0.75\ni2,0.1,0.9\n", dataset,
    ...                          name="roberta.csv")
    >>> hard = load_predictions(b"item_id,label\ni1,pos\n", dataset, name="hard.csv")
    >>> import pandas as pd
    >>> matrices, notes = model_matrices(pd.concat([preds, hard]), dataset, complete=True)
    >>> list(matrices), notes
    (['roberta'], ['hard: predicts 1 of 2 items (skipped).'])
    """
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
