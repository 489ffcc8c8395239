"""ChaosNLI JSON Lines (``label_counter`` counts per item, no annotator ids) into a
:class:`~hlv_core.io.Dataset` (conventions of every JSON reader: :mod:`hlv_core.io._json`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._json import (
    CHAOS_LABEL_ORDER,
    column_name,
    compare_soft,
    is_scalar,
    items_frame,
    jsonl_records,
    require_object,
    source_name,
)
from ._read import Source
from .dataset import build_dataset, order_labels
from .errors import DataError, ImportReport
from .tabular import expand_counts

__all__ = ["read_chaosnli"]


# --------------------------------------------------------------------------- ChaosNLI
def read_chaosnli(source: Source, *, task: str | None = None, level: str | None = None):
    r"""ChaosNLI JSON Lines: ``uid``, ``label_counter`` {"e": 20, "n": 70, "c": 10},
    ``label_dist``, ``majority_label``, ``example`` {premise, hypothesis, ...}.

    Counts only (100 anonymous annotators per item): each count becomes an anonymous annotation
    (ids unique per item, ``annotator_ids_known=False``). Label order ``e, n, c`` when the labels
    are NLI letters (ChaosNLI's ``label_dist`` order), otherwise sorted. ``label_dist`` is kept in
    ``extra["soft_label"]``; ``example`` fields become items columns (``premise`` -> ``context``,
    ``hypothesis`` -> ``text``).

    Parameters
    ----------
    source : Source
        The JSON Lines file.
    task, level : str, optional
        Override the inferred task and level of measurement.

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
    .. [1] Y. Nie, X. Zhou and M. Bansal (2020), "What can we learn from collective human
       opinions on natural language inference data?", EMNLP 2020 (ChaosNLI).

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> line = (b'{"uid": "p1", "label_counter": {"e": 3, "n": 1}, '
    ...         b'"example": {"premise": "A dog runs.", "hypothesis": "An animal moves."}}\n')
    >>> dataset = read_chaosnli(as_source(line, "chaosnli.jsonl"))
    >>> dataset.labels, dataset.counts_array().tolist(), dataset.annotator_ids_known
    (('e', 'n', 'c'), [[3, 1, 0]], False)
    """
    records = jsonl_records(source)
    report = ImportReport(source.name, "chaosnli", rows_read=len(records))
    uids: list[str] = []
    counters: list[dict] = []
    item_rows: list[dict] = []
    dists: dict[str, list] = {}
    seen: dict[str, int] = {}
    for line, raw in records:
        rec = require_object(source, line, raw)
        for required in ("uid", "label_counter"):
            if required not in rec:
                raise DataError(
                    f"record has no '{required}' field.",
                    source=source.name,
                    row=line,
                    column=required,
                    fix="ChaosNLI records need uid and label_counter {label: count}.",
                )
        uid = str(rec["uid"])
        if uid in seen:
            raise DataError(
                f"uid {uid!r} appears twice (first on line {seen[uid]}).",
                source=source.name,
                row=line,
                column="uid",
                fix="keep one record per item.",
            )
        seen[uid] = line
        counter = rec["label_counter"]
        if not isinstance(counter, dict):
            raise DataError(
                "label_counter is not an object {label: count}.",
                source=source.name,
                row=line,
                column="label_counter",
                fix='write e.g. {"e": 20, "n": 70, "c": 10}.',
            )
        for label, count in counter.items():
            if (
                isinstance(count, bool)
                or not isinstance(count, (int, float))
                or count < 0
                or not float(count).is_integer()
            ):
                raise DataError(
                    f"count {count!r} for label {label!r} is not a whole number >= 0.",
                    source=source.name,
                    row=line,
                    column="label_counter",
                    fix="counts are numbers of annotators (0, 1, 2, ...).",
                )
        uids.append(uid)
        counters.append({str(k): int(v) for k, v in counter.items()})
        row: dict = {"item_id": uid}
        example = rec.get("example")
        if isinstance(example, dict):
            for k, v in example.items():
                if k == "uid" or not is_scalar(v):
                    continue
                row[{"premise": "context", "hypothesis": "text"}.get(k, column_name(k))] = v
        for k in ("majority_label", "old_label", "source"):
            if k in rec and is_scalar(rec[k]):
                row[k] = rec[k]
        item_rows.append(row)
        if isinstance(rec.get("label_dist"), list):
            dists[uid] = rec["label_dist"]
    counts_frame = pd.DataFrame.from_records(counters).fillna(0).astype(np.int64)
    found = list(counts_frame.columns)
    if set(found) <= set(CHAOS_LABEL_ORDER):
        inventory = list(CHAOS_LABEL_ORDER)
    else:
        inventory = list(order_labels(found))
    counts = counts_frame.reindex(columns=inventory, fill_value=0).to_numpy(dtype=np.int64)
    zero = counts.sum(axis=1) == 0
    if zero.any():
        report.drop("items with zero counts", int(zero.sum()))
    keep = ~zero
    item_ids = np.asarray(uids, dtype=object)[keep]
    annotations = expand_counts(counts[keep], item_ids, inventory, source=source.name)
    report.note(
        f"counts expanded to {len(annotations)} anonymous annotations (ids unique per item)."
    )
    items = items_frame(item_rows)
    items = items[items["item_id"].isin(set(item_ids))]
    dataset = build_dataset(
        annotations,
        source=source.name,
        format="chaosnli",
        report=report,
        items=items,
        labels=inventory,
        task=task or "multiclass",
        level=level or "nominal",
        annotator_ids_known=False,
        name=source_name(source),
    )
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                  for d in dists.values() for v in d)
    if dists and not numbers:  # a supplementary field: noted, never a reason to refuse
        dataset.report.note("label_dist holds values that are not numbers: not compared with "
                            "the proportions of the counts.")
    elif dists and all(len(d) == len(inventory) for d in dists.values()):
        soft = pd.DataFrame.from_dict(dists, orient="index", columns=inventory, dtype=float)
        soft.index.name = "item_id"
        compare_soft(dataset, soft)
    return dataset
