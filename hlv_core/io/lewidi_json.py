"""LeWiDi 2023 and LeWiDi 2025 JSON (+ the 2025 ``*_annotators_meta.json``) into a
:class:`~hlv_core.io.Dataset` (conventions of every JSON reader: :mod:`hlv_core.io._json`).
"""

from __future__ import annotations

import ast
import json
import re

import numpy as np
import pandas as pd

from ._json import (
    GROUP_KEYS,
    OTHER_ANN_KEYS,
    check_single_label,
    column_name,
    compare_soft,
    drop_duplicate_rows,
    is_scalar,
    items_frame,
    label_text,
    missing_label_kind,
    norm_key,
    record_error,
    soft_frame,
    source_name,
    split_list,
    trait_text,
)
from ._read import Source, as_source, decode_text, parse_json, read_json
from .dataset import Dataset, build_dataset, echo, order_labels
from .errors import DataError, ImportReport
from .spelling import respell_unique

__all__ = ["read_annotator_meta", "read_lewidi2023", "read_lewidi2025"]


def _parse_conversation(text: str):
    """ConvAbuse ``text`` is a JSON-ish string of four turns (JSON or a Python dict repr)."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    for parser in (json.loads, ast.literal_eval):
        try:
            value = parser(stripped)
        except (ValueError, SyntaxError, TypeError):
            continue
        if isinstance(value, dict):
            return value
    return None


def read_lewidi2023(
    source: Source,
    *,
    task: str | None = None,
    level: str | None = None,
    view: str | None = None,
) -> Dataset:
    """LeWiDi 2023 JSON: ``{key: {text, annotators "Ann1,Ann2", annotations "0,1", hard_label,
    soft_label, split, lang, other_info}}``.

    Quirks handled: comma strings (annotations in the order of
    ``annotators``); ConvAbuse's ``text`` is a JSON-ish string of four turns -> ``text`` (the user
    turn), ``prev_agent``, ``prev_user``, ``agent``; ConvAbuse severities -3..1 are kept as
    labels while its ``soft_label`` is binary (kept in ``extra["soft_label"]`` and not compared);
    ``other_info`` ``annotators group`` (HS-Brexit, ArMIS) -> annotator trait ``group``;
    ``other_info["other annotations"]`` (HS-Brexit aggressive/offensive) -> long tables in
    ``extra["other_annotations"][task name]``, or the main annotations with ``view=<task name>``;
    other scalar ``other_info`` fields -> items columns, nested ones -> ``extra["other_info"]``.
    A repeated (annotator, label) pair in one record is dropped and reported (MD-Agreement
    ``test_2038``); a repeated annotator with a different label is an error.

    Parameters
    ----------
    source : Source
        The ``<Dataset>_<split>.json`` file.
    task, level : str, optional
        Override the inferred task and level of measurement.
    view : str, optional
        Read an ``other annotations`` task (HS-Brexit) as the main annotations.

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
    .. [1] E. Leonardelli et al. (2023), "SemEval-2023 Task 11: Learning with Disagreements
       (LeWiDi)", Proc. SemEval-2023 (datasets and their JSON format).

    Examples
    --------
    >>> import json
    >>> from hlv_core.io import as_source
    >>> record = {"text": "hi", "annotators": "Ann1,Ann2,Ann3", "annotations": "0,1,1",
    ...           "hard_label": "1", "soft_label": {"0": 0.333, "1": 0.667}, "split": "test",
    ...           "lang": "en", "other_info": {}}
    >>> dataset = read_lewidi2023(as_source(json.dumps({"1": record}).encode(), "HS-Brexit.json"))
    >>> dataset.annotations.to_numpy().tolist()
    [['1', 'Ann1', '0'], ['1', 'Ann2', '1'], ['1', 'Ann3', '1']]
    """
    data = read_json(source)
    if not isinstance(data, dict) or not data:
        raise DataError(
            "not a LeWiDi 2023 file: expected a JSON object {item key: record}.",
            source=source.name,
            fix="load the <DS>_{train,dev,test}.json file of LeWiDi 2023, or choose another "
            "format.",
        )
    _refuse_two_spellings(data, source)
    report = ImportReport(source.name, "lewidi2023", rows_read=len(data))
    long_items: list[str] = []
    long_annotators: list[str] = []
    long_labels: list[str] = []
    item_rows: list[dict] = []
    record_of: dict[str, int] = {}
    soft: dict[str, dict] = {}
    group_of: dict[str, str] = {}
    group_conflicts: set[str] = set()
    other_ann: dict[str, list[tuple[str, str, str]]] = {}
    other_info_extra: dict[str, dict] = {}
    empty_records = 0
    field = "annotations" if view is None else f"other_info.other annotations.{view}"
    for number, (key, rec) in enumerate(data.items(), 1):
        item_id = str(key)
        if not isinstance(rec, dict):
            raise record_error(
                source,
                f"is a {type(rec).__name__}, not an object.",
                row=number,
                key=item_id,
                field=None,
                fix="every value of the top-level object must be a LeWiDi record {text, "
                "annotators, annotations, ...}.",
            )
        for required in ("annotators", "annotations"):
            if required not in rec:
                raise record_error(
                    source,
                    f"has no '{required}' field (fields: {sorted(rec)}).",
                    row=number,
                    key=item_id,
                    field=required,
                    fix="LeWiDi 2023 records need 'annotators' and 'annotations' as comma "
                    "strings; for LeWiDi 2025 files choose the lewidi2025 format.",
                )
        info = rec.get("other_info") or {}
        if not isinstance(info, dict):
            info = {"other_info": info}
        annotators = split_list(
            rec["annotators"], source=source, row=number, key=item_id, field="annotators"
        )
        if view is None:
            raw_labels = rec["annotations"]
        else:
            others = next((v for k, v in info.items() if norm_key(k) in OTHER_ANN_KEYS), None)
            if not isinstance(others, dict) or view not in others:
                raise record_error(
                    source,
                    f"has no other annotation view {view!r} in other_info.",
                    row=number,
                    key=item_id,
                    field="other_info",
                    fix="leave 'view' empty to load the main annotations, or use one of the "
                    f"views of the file ({sorted(others) if isinstance(others, dict) else []}).",
                )
            raw_labels = others[view]
        labels = split_list(raw_labels, source=source, row=number, key=item_id, field=field)
        if len(labels) != len(annotators):
            raise record_error(
                source,
                f"{len(annotators)} annotators but {len(labels)} annotations.",
                row=number,
                key=item_id,
                field=field,
                fix="give exactly one annotation per annotator, in the order of 'annotators'.",
            )
        if not labels:
            empty_records += 1
            continue
        record_of[item_id] = number
        long_items.extend([item_id] * len(labels))
        long_annotators.extend(annotators)
        long_labels.extend(labels)
        row: dict = {"item_id": item_id}
        for src_field in ("split", "lang", "hard_label"):
            if src_field in rec and is_scalar(rec[src_field]):
                row[src_field] = label_text(rec[src_field])
        if "annotation task" in rec:
            row["annotation_task"] = rec["annotation task"]
        text = rec.get("text")
        conversation = _parse_conversation(text) if isinstance(text, str) else None
        if conversation is not None:
            turns = {str(k): v for k, v in conversation.items()}
            row["text"] = label_text(turns.pop("user", text))
            for turn, value in turns.items():
                row[column_name(turn)] = (
                    label_text(value) if is_scalar(value) else json.dumps(value)
                )
        elif isinstance(text, dict):
            row.update({column_name(k): v for k, v in text.items() if is_scalar(v)})
        else:
            row["text"] = text
        for info_key, value in info.items():
            norm = norm_key(info_key)
            if norm in GROUP_KEYS:
                groups = split_list(
                    value, source=source, row=number, key=item_id, field=f"other_info.{info_key}"
                )
                if len(groups) != len(annotators):
                    raise record_error(
                        source,
                        f"{len(annotators)} annotators but {len(groups)} groups.",
                        row=number,
                        key=item_id,
                        field=f"other_info.{info_key}",
                        fix="give one group per annotator, in the order of 'annotators'.",
                    )
                for annotator, group in zip(annotators, groups, strict=True):
                    if group_of.setdefault(annotator, group) != group:
                        group_conflicts.add(annotator)
            elif (
                norm in OTHER_ANN_KEYS
                and isinstance(value, dict)
                and all(isinstance(v, str) for v in value.values())
            ):  # HS-Brexit: {task: "0,1,..."}; ConvAbuse's {annotator: {flag: ...}} is kept raw
                for other_task, other_labels in value.items():
                    if isinstance(other_labels, str):
                        parts = [p.strip() for p in other_labels.split(",")]
                        if len(parts) == len(annotators):
                            other_ann.setdefault(other_task, []).extend(
                                (item_id, a, lab)
                                for a, lab in zip(annotators, parts, strict=True)
                                if lab != ""
                            )
                            continue
                    other_info_extra.setdefault(f"other annotations.{other_task}", {})[item_id] = (
                        other_labels
                    )
            elif is_scalar(value):
                row[column_name(info_key)] = value
            elif isinstance(value, list) and all(is_scalar(v) for v in value):
                row[column_name(info_key)] = "|".join("" if v is None else str(v) for v in value)
            else:
                other_info_extra.setdefault(str(info_key), {})[item_id] = value
        item_rows.append(row)
        dist = rec.get("soft_label")
        if isinstance(dist, dict) and all(isinstance(v, (int, float)) for v in dist.values()):
            soft[item_id] = {str(k): float(v) for k, v in dist.items()}
    if empty_records:
        report.drop("records without annotations", empty_records)
    if not long_labels:
        raise DataError(
            "no record has annotations (is this an unlabelled test file?).",
            source=source.name,
            column=field,
            fix="load a file with disaggregated annotations.",
        )
    long = pd.DataFrame(
        {"item_id": long_items, "annotator_id": long_annotators, "label": long_labels}
    )
    report.rows_read = len(long)
    long = drop_duplicate_rows(long, report, "annotator listed twice with the same label")
    check_single_label(long, source, record_of, field=field)
    annotators_table = None
    if group_of:
        annotators_table = pd.DataFrame(
            {"annotator_id": list(group_of), "group": list(group_of.values())}
        )
        report.note("annotator groups from other_info stored as the annotator trait 'group'.")
    if group_conflicts:
        report.note(
            f"{len(group_conflicts)} annotator(s) have different groups in different records "
            f"(first: {sorted(group_conflicts)[0]!r}); the first group seen is kept."
        )
    extra: dict = {}
    if other_ann:
        extra["other_annotations"] = {
            name: pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
            for name, rows in other_ann.items()
        }
        report.note(
            f"other annotation tasks kept in extra['other_annotations']: {sorted(other_ann)} "
            "(load one with the option view=<task name>)."
        )
    if other_info_extra:
        extra["other_info"] = other_info_extra
    if view is not None:
        report.note(f"annotations loaded from other_info view {view!r}.")
    dataset = build_dataset(
        long,
        source=source.name,
        format="lewidi2023",
        report=report,
        items=items_frame(item_rows),
        annotators=annotators_table,
        task=task,
        level=level,
        name=source_name(source),
        extra=extra,
    )
    if soft:
        frame, _ = soft_frame(soft, set(dataset.labels))
        compare_soft(dataset, frame)
    return dataset


# --------------------------------------------------------------------------- LeWiDi 2025
#: text sub-field -> items column, per LeWiDi 2025 dataset (the target utterance is ``text``).
_TEXT_FIELDS = {
    "response": "text",  # CSC
    "reply": "text",  # MP
    "statement": "text",  # VariErrNLI
    "question1": "text",  # Paraphrase
    "question2": "text_b",
    "context": "context",
    "post": "context",
}


def _refuse_two_spellings(data: dict, source: Source) -> None:
    """Two record keys that are one item id in its one spelling (``café`` in NFC and NFD, a
    zero-width character, a doubled space): two records for one item, refused naming both
    (the loader would otherwise merge them into one item)."""

    def line_of(key: str) -> int | None:
        text = source.raw.decode("utf-8", "replace")
        for quoted in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
            at = text.find(quoted)
            if at >= 0:
                return text.count("\n", 0, at) + 1
        return None

    respell_unique([str(k) for k in data], what="item id (record key)", source=source.name,
                   rows=line_of)


def _flatten_text(text, row: dict) -> None:
    if isinstance(text, dict):
        mapped = {k: _TEXT_FIELDS.get(str(k).lower(), column_name(k)) for k in text}
        for key, value in text.items():
            row[mapped[key]] = value if is_scalar(value) else json.dumps(value, ensure_ascii=False)
        if "text" not in row and text:
            # unknown layout: the last sub-field is the one being labelled in every known set
            row["text"] = row[mapped[list(text)[-1]]]
    elif text is not None:
        row["text"] = text


def read_annotator_meta(meta, *, annotator_ids, report: ImportReport) -> pd.DataFrame:
    """``*_annotators_meta.json`` ({annotator: {trait: value}}) -> annotators table.

    ``meta`` is a path, bytes, a binary file or an already parsed dict. Trait names are
    normalised (``"Ethnicity simplified"`` -> ``ethnicity_simplified``); bare numeric keys
    (MP: ``"0"``) are matched to annotation ids ``Ann0``; trailing commas (Paraphrase's meta file
    is not strict JSON) are tolerated and noted.

    Parameters
    ----------
    meta : str, pathlib.Path, bytes, file-like, Source or dict
        The ``*_annotators_meta.json`` file or its parsed content.
    annotator_ids : sequence of str
        The annotation ids (``Ann0``, ...).
    report : ImportReport
        Receives the notes.

    Returns
    -------
    pandas.DataFrame
        ``annotator_id`` + one column per (normalised) trait.

    Raises
    ------
    DataError
        Unreadable JSON, or not an object ``{annotator id: {trait: value}}``.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task" (datasets and their JSON format).

    Examples
    --------
    >>> from hlv_core.io import ImportReport
    >>> table = read_annotator_meta({"0": {"Ethnicity simplified": "White"}},
    ...                             annotator_ids=["Ann0"], report=ImportReport("m", "lewidi2025"))
    >>> table.to_dict("records")
    [{'annotator_id': 'Ann0', 'ethnicity_simplified': 'White'}]
    """
    if isinstance(meta, dict):
        data, meta_name = meta, "annotators_meta"
    else:
        meta_source = meta if isinstance(meta, Source) else as_source(meta)
        meta_name = meta_source.name
        text = decode_text(meta_source)
        try:
            data = parse_json(text, meta_name)
        except DataError as first:
            cleaned = re.sub(r",(\s*[}\]])", r"\1", text)
            if cleaned == text or not getattr(first, "syntax", False):
                raise
            data = parse_json(cleaned, meta_name)
            report.note(f"{meta_name}: trailing commas removed before parsing (not strict JSON).")
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise DataError(
            "annotator meta must be an object {annotator id: {trait: value}}.",
            source=meta_name,
            fix='use the LeWiDi layout {"Ann1": {"Gender": "Female", "Age": 30}, ...}.',
        )
    known = {str(a) for a in annotator_ids}
    rows = []
    for key, traits in data.items():
        annotator = str(key)
        if annotator not in known and f"Ann{annotator}" in known:
            annotator = f"Ann{annotator}"
        row = {"annotator_id": annotator}
        for trait, value in traits.items():
            row[column_name(trait)] = trait_text(value)
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame({"annotator_id": []})
    table = table.astype(object).where(table.notna(), None)
    listed = set(table["annotator_id"])
    without = sorted(known - listed)
    unused = len(listed - known)
    if without:
        report.note(
            f"{len(without)} annotator(s) are not in {meta_name} (first: {without[0]!r}); their "
            "traits are missing."
        )
    if unused:
        report.note(f"{unused} annotator(s) of {meta_name} have no annotation in this file.")
    return table


def read_lewidi2025(
    source: Source,
    *,
    task: str | None = None,
    level: str | None = None,
    meta=None,
) -> Dataset:
    """LeWiDi 2025 JSON: ``{key: {text {sub-fields}, annotators, annotations {annotator: label},
    soft_label, split, lang, other_info}}`` (+ ``meta=`` the ``*_annotators_meta.json``).

    Quirks handled: VariErrNLI multi-label values are comma-joined
    (``"entailment,neutral"`` -> one row per label; the ``annotators`` string repeats the id once
    per label and is checked as a set); VariErrNLI ``soft_label`` is per label a binary
    distribution ({label: {"0": p0, "1": p1}} -> P(label) = p1, task ``multilabel``); MP
    ``soft_label`` keys ``"0.0"``/``"1.0"`` are matched to labels ``"0"``/``"1"``; the
    soft-label keys also complete the label inventory (CSC 1-6, Paraphrase -5..5 keep unused
    scale points). Text sub-fields become items columns: the labelled utterance is ``text``
    (CSC response, MP reply, VariErrNLI statement, Paraphrase Question1), ``context``
    (CSC/VariErrNLI context, MP post), ``text_b`` (Paraphrase Question2). Scalar ``other_info``
    fields become items columns, lists/objects (explanations) go to ``extra["other_info"]``.

    Parameters
    ----------
    source : Source
        The ``<Dataset>_<split>.json`` file.
    task, level : str, optional
        Override the inferred task and level of measurement.
    meta : str, pathlib.Path, bytes or dict, optional
        The ``*_annotators_meta.json`` (annotator traits).

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
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task" (datasets and their JSON format).

    Examples
    --------
    MP: soft-label keys ``"0.0"``/``"1.0"`` match labels ``"0"``/``"1"``; meta key ``"0"`` is
    annotator ``Ann0``:

    >>> import json
    >>> from hlv_core.io import as_source
    >>> record = {"text": {"post": "p", "reply": "r"}, "annotators": "Ann0,Ann3",
    ...           "annotations": {"Ann0": "1", "Ann3": "0"}, "soft_label": {"0.0": 0.5, "1.0": 0.5},
    ...           "split": "dev", "lang": "en", "other_info": {}}
    >>> dataset = read_lewidi2025(as_source(json.dumps({"7": record}).encode(), "MP_dev.json"),
    ...                           meta={"0": {"Age": "30"}, "3": {"Age": "41"}})
    >>> dataset.labels, dataset.annotators.to_dict("records")
    (('0', '1'), [{'annotator_id': 'Ann0', 'age': '30'}, {'annotator_id': 'Ann3', 'age': '41'}])
    """
    data = read_json(source)
    if not isinstance(data, dict) or not data:
        raise DataError(
            "not a LeWiDi 2025 file: expected a JSON object {item key: record}.",
            source=source.name,
            fix="load <DS>_{train,dev,test}.json of LeWiDi 2025, or choose another format.",
        )
    _refuse_two_spellings(data, source)
    report = ImportReport(source.name, "lewidi2025", rows_read=len(data))
    long_items: list[str] = []
    long_annotators: list[str] = []
    long_labels: list[str] = []
    item_rows: list[dict] = []
    soft: dict[str, dict] = {}
    binary_soft = False
    multi_values = 0
    empty_records = 0
    other_info_extra: dict[str, dict] = {}
    for number, (key, rec) in enumerate(data.items(), 1):
        item_id = str(key)
        if not isinstance(rec, dict):
            raise record_error(
                source,
                f"is a {type(rec).__name__}, not an object.",
                row=number,
                key=item_id,
                field=None,
                fix="every value of the top-level object must be a LeWiDi record.",
            )
        annotations = rec.get("annotations")
        if annotations is None or annotations == {}:
            empty_records += 1
            continue
        if not isinstance(annotations, dict):
            raise record_error(
                source,
                f"'annotations' is a {type(annotations).__name__}, not an object "
                "{annotator: label}.",
                row=number,
                key=item_id,
                field="annotations",
                fix='LeWiDi 2025 writes annotations as {"Ann1": "0", ...}; for comma '
                "strings choose the lewidi2023 format.",
            )
        for annotator, value in annotations.items():
            text_value = label_text(value)
            if text_value is None or text_value == "":
                raise record_error(
                    source,
                    f"annotator {echo(annotator)} has {missing_label_kind(value)}.",
                    row=number,
                    key=item_id,
                    field="annotations",
                    fix="remove the annotator from the record (a missing annotation is a missing "
                    "entry) or give a label.",
                )
            labels = split_list(
                text_value, source=source, row=number, key=item_id, field="annotations"
            )
            if len(labels) > 1:
                multi_values += 1
            long_items.extend([item_id] * len(labels))
            long_annotators.extend([str(annotator)] * len(labels))
            long_labels.extend(labels)
        if "annotators" in rec:
            listed = set(
                split_list(
                    rec["annotators"], source=source, row=number, key=item_id, field="annotators"
                )
            )
            if listed != {str(a) for a in annotations}:
                diff = sorted(listed ^ {str(a) for a in annotations})
                raise record_error(
                    source,
                    f"'annotators' and the keys of 'annotations' differ ({diff}).",
                    row=number,
                    key=item_id,
                    field="annotators",
                    fix="list the same annotators in both fields.",
                )
        row: dict = {"item_id": item_id}
        for src_field in ("split", "lang"):
            if src_field in rec and is_scalar(rec[src_field]):
                row[src_field] = rec[src_field]
        if "annotation task" in rec:
            row["annotation_task"] = rec["annotation task"]
        _flatten_text(rec.get("text"), row)
        info = rec.get("other_info") or {}
        if not isinstance(info, dict):
            info = {"other_info": info}
        for info_key, value in info.items():
            if is_scalar(value):
                row[column_name(info_key)] = value
            else:
                other_info_extra.setdefault(str(info_key), {})[item_id] = value
        item_rows.append(row)
        dist = rec.get("soft_label")
        if isinstance(dist, dict) and dist:
            if all(isinstance(v, dict) for v in dist.values()):
                binary_soft = True
                soft[item_id] = {
                    str(k): float(v.get("1", v.get("1.0", np.nan))) for k, v in dist.items()
                }
            elif all(isinstance(v, (int, float)) for v in dist.values()):
                soft[item_id] = {str(k): float(v) for k, v in dist.items()}
    if empty_records:
        report.drop("records without annotations", empty_records)
    if not long_labels:
        raise DataError(
            "no record has annotations (is this an unlabelled test file?).",
            source=source.name,
            column="annotations",
            fix="load a file with disaggregated annotations.",
        )
    if multi_values:
        report.note(
            f"{multi_values} comma-joined multi-label value(s) split into one row per label."
        )
    long = pd.DataFrame(
        {"item_id": long_items, "annotator_id": long_annotators, "label": long_labels}
    )
    report.rows_read = len(long)
    long = drop_duplicate_rows(long, report, "label repeated in one annotator's value")
    observed = set(long["label"])
    inventory = None
    soft_table = None
    if soft:
        soft_table, mapping = soft_frame(soft, observed)
        mapped = set(mapping.values())
        if observed <= mapped:
            inventory = order_labels(list(mapped))
        else:
            report.note(
                f"soft_label keys {sorted(mapping)} do not cover the labels "
                f"{sorted(observed - mapped)}; the inventory is taken from the annotations."
            )
    if task is None and (binary_soft or multi_values):
        task = "multilabel"
    annotators_table = None
    if meta is not None:
        annotators_table = read_annotator_meta(
            meta, annotator_ids=pd.unique(long["annotator_id"]), report=report
        )
    extra: dict = {}
    if other_info_extra:
        extra["other_info"] = other_info_extra
    dataset = build_dataset(
        long,
        source=source.name,
        format="lewidi2025",
        report=report,
        items=items_frame(item_rows),
        annotators=annotators_table,
        labels=inventory,
        task=task,
        level=level,
        name=source_name(source),
        extra=extra,
    )
    compare_soft(dataset, soft_table)
    return dataset
