"""Prodigy JSON Lines (``prodigy db-out``) into a :class:`~hlv_core.io.Dataset` (conventions of
every JSON reader: :mod:`hlv_core.io._json`).
"""

from __future__ import annotations

import pandas as pd

from ._json import (
    column_name,
    drop_duplicate_rows,
    is_scalar,
    jsonl_records,
    label_text,
    require_object,
    source_name,
)
from ._read import Source
from .dataset import build_dataset
from .errors import DataError, ImportReport

__all__ = ["read_prodigy"]


# --------------------------------------------------------------------------- Prodigy
def read_prodigy(source: Source, *, task: str | None = None, level: str | None = None):
    r"""Prodigy JSONL (``prodigy db-out``): one record per answer with ``_input_hash``,
    ``_task_hash``, ``_annotator_id`` (or ``_session_id``), ``answer`` (accept/reject/ignore)
    and either ``accept`` (list of chosen option ids; choice interface, multi-label when an
    annotator chooses several) or ``label`` (binary interfaces).

    Items are grouped by ``_input_hash`` (text from the first record). Kept: ``accept`` lists of
    accepted answers, or ``label`` of accepted binary answers. Dropped and reported: ``ignore``
    answers, ``reject`` answers (a rejected binary label is not a label; a rejected choice task
    is not an answer), accepted answers with an empty selection, and earlier answers of the same
    annotator to the same task (same ``_task_hash``) superseded by a later one.

    Parameters
    ----------
    source : Source
        The JSON Lines export.
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
    .. [1] Prodigy documentation, "Annotation task formats" (the ``db-out`` JSONL records).
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> def record(who, answer, accept):
    ...     return ('{"_input_hash": 1, "_task_hash": 11, "_annotator_id": "%s", "answer": "%s", '
    ...             '"accept": %s, "text": "great"}' % (who, answer, accept))
    >>> lines = "\n".join([record("ann", "accept", '["POS"]'), record("bob", "accept", '["NEG"]'),
    ...                    record("cy", "ignore", "[]")])
    >>> dataset = read_prodigy(as_source(lines.encode(), "db.jsonl"))
    >>> dataset.annotations["label"].tolist(), dataset.report.dropped
    (['POS', 'NEG'], {"answer 'ignore'": 1})
    """
    records = jsonl_records(source)
    report = ImportReport(source.name, "prodigy", rows_read=len(records))
    answers: list[tuple[str, str, str, str, list[str]]] = []
    texts: dict[str, dict] = {}
    multiple_style = False
    for line, raw in records:
        rec = require_object(source, line, raw)
        if "_input_hash" not in rec:
            raise DataError(
                "record has no '_input_hash'.",
                source=source.name,
                row=line,
                column="_input_hash",
                fix="export with 'prodigy db-out <dataset>' (it writes the hashes).",
            )
        annotator = rec.get("_annotator_id") or rec.get("_session_id")
        if annotator in (None, ""):
            raise DataError(
                "record has neither '_annotator_id' nor '_session_id'.",
                source=source.name,
                row=line,
                column="_annotator_id",
                fix="annotate with named sessions (?session=name) so answers carry an annotator.",
            )
        answer = rec.get("answer")
        if answer not in ("accept", "reject", "ignore"):
            raise DataError(
                f"answer {answer!r} is not accept, reject or ignore.",
                source=source.name,
                row=line,
                column="answer",
                fix="export the dataset with 'prodigy db-out'.",
            )
        item_id = str(rec["_input_hash"])
        if item_id not in texts:
            row = {"item_id": item_id}
            if isinstance(rec.get("text"), str):
                row["text"] = rec["text"]
            meta = rec.get("meta")
            if isinstance(meta, dict):
                for k, v in meta.items():
                    if is_scalar(v) and column_name(k) not in row:
                        row[column_name(k)] = v
            texts[item_id] = row
        config = rec.get("config")
        if isinstance(config, dict) and config.get("choice_style") == "multiple":
            multiple_style = True
        labels: list[str] = []
        kind = answer
        if answer == "accept":
            if "accept" in rec:
                chosen = rec["accept"]
                if not isinstance(chosen, list):
                    raise DataError(
                        f"'accept' is a {type(chosen).__name__}, not a list of option ids.",
                        source=source.name,
                        row=line,
                        column="accept",
                        fix='write the chosen options as a list, e.g. "accept": ["POSITIVE"].',
                    )
                labels = [t for t in (label_text(x) for x in chosen) if t not in (None, "")]
                kind = "accept" if labels else "empty"
            elif rec.get("label") not in (None, ""):
                labels = [label_text(rec["label"])]
            else:
                kind = "nolabel"
        answers.append((item_id, str(annotator), str(rec.get("_task_hash", "")), kind, labels))
    frame = pd.DataFrame(
        answers, columns=["item_id", "annotator_id", "task_hash", "kind", "labels"]
    )
    # the last answer of an annotator to a task wins (re-annotation in Prodigy appends a record)
    latest = ~frame.duplicated(["item_id", "annotator_id", "task_hash"], keep="last")
    if (~latest).any():
        report.drop(
            "earlier answers superseded by a later answer to the same task", int((~latest).sum())
        )
    frame = frame[latest]
    reasons = {
        "ignore": "answer 'ignore'",
        "reject": "answer 'reject' (label not chosen / task rejected)",
        "empty": "accepted with no option selected",
        "nolabel": "accepted without 'accept' or 'label' (not a classification task)",
    }
    kinds = frame["kind"].value_counts()
    for kind, reason in reasons.items():
        report.drop(reason, int(kinds.get(kind, 0)))
    frame = frame[frame["kind"] == "accept"].explode("labels")
    if frame.empty:
        raise DataError(
            "no accepted answer with a label.",
            source=source.name,
            column="answer",
            fix="export a classification dataset (choice or binary textcat) with accepted answers.",
        )
    frame = frame.rename(columns={"labels": "label"})
    long = frame[["item_id", "annotator_id", "label"]].reset_index(drop=True)
    report.rows_read = len(long)
    long = drop_duplicate_rows(long, report, "repeated (item, annotator, label) answer")
    if task is None and multiple_style:
        task = "multilabel"
    items = pd.DataFrame(list(texts.values()))
    items = items[items["item_id"].isin(set(long["item_id"]))]
    dataset = build_dataset(
        long,
        source=source.name,
        format="prodigy",
        report=report,
        items=items.astype(object).where(items.notna(), None),
        task=task,
        level=level,
        name=source_name(source),
    )
    return dataset
