"""JSON importers: LeWiDi 2023, LeWiDi 2025 (+ ``*_annotators_meta.json``), ChaosNLI JSON Lines,
Label Studio JSON export and Prodigy JSONL (spec ``formats.md`` sections 5.1 and 5.3, items 5, 6
and 8).

Every reader turns its layout into the canonical long table ``item_id, annotator_id, label`` (one
row per single label), an items table and an annotators table, and hands them to
:func:`hlv_core.io.build_dataset`, which validates them. What a reader drops (and why) goes into
the :class:`~hlv_core.io.ImportReport`; everything it cannot make sense of raises
:class:`~hlv_core.io.DataError` naming the file, the record (``row`` = 1-based record number for
JSON, line number for JSON Lines), the field (``column``) and a fix.

Source soft labels (LeWiDi ``soft_label``, ChaosNLI ``label_dist``) are kept for comparison in
``dataset.extra["soft_label"]`` (items x labels DataFrame indexed by ``item_id``); the report
notes how many items' recomputed proportions differ from them by more than 0.01.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from ._read import Source, as_source, decode_text, read_json
from .dataset import Dataset, build_dataset, echo, order_labels
from .errors import DataError, ImportReport
from .tabular import _expand_counts

__all__ = [
    "detect_json",
    "detect_jsonl",
    "read",
    "read_lewidi2023",
    "read_lewidi2025",
    "read_chaosnli",
    "read_labelstudio",
    "read_prodigy",
    "read_annotator_meta",
    "SOFT_LABEL_TOLERANCE",
]

#: Largest |P - soft_label| that still counts as "equal" when comparing with the source's soft
#: labels (LeWiDi rounds some values to 3 decimals, e.g. VariErrNLI 0.667).
SOFT_LABEL_TOLERANCE = 0.01

_PRODIGY_KEYS = ("_input_hash", "_annotator_id", "answer")
_CHAOS_LABEL_ORDER = ("e", "n", "c")


# --------------------------------------------------------------------------- detection
def _sample_values(data: dict, n: int = 20) -> list:
    return [v for _, v in zip(range(n), data.values(), strict=False)]


def detect_json(data) -> str | None:
    """Name the layout of a parsed ``.json`` document, or ``None`` when unknown.

    * ``"lewidi2023"``: object of records whose ``annotations`` is a comma-separated string;
    * ``"lewidi2025"``: object of records whose ``annotations`` is an object {annotator: label};
    * ``"labelstudio"``: array of tasks with ``data`` and ``annotations``/``predictions``;
    * ``"prodigy"`` / ``"chaosnli"``: a JSON *array* of Prodigy or ChaosNLI records (the usual
      files are JSON Lines, see :func:`detect_jsonl`).
    """
    if isinstance(data, dict) and data:
        records = [v for v in _sample_values(data) if isinstance(v, dict)]
        if not records or len(records) < len(_sample_values(data)):
            return None
        kinds = set()
        for rec in records:
            ann = rec.get("annotations")
            if isinstance(ann, str):
                kinds.add("lewidi2023")
            elif isinstance(ann, dict):
                kinds.add("lewidi2025")
        has_lewidi_keys = all(
            ("annotators" in rec or "annotations" in rec) and "text" in rec for rec in records
        )
        if len(kinds) == 1 and has_lewidi_keys:
            return kinds.pop()
        return None
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data[:20]):
        head = data[:20]
        if all("data" in r and ("annotations" in r or "predictions" in r) for r in head):
            return "labelstudio"
        return detect_jsonl(head)
    return None


def detect_jsonl(records: list) -> str | None:
    """``"prodigy"`` when the records carry ``_input_hash`` and ``answer`` (plus
    ``_annotator_id`` or ``_session_id``); ``"chaosnli"`` when they carry ``uid`` and
    ``label_counter``; otherwise ``None``."""
    head = [r for r in records[:20] if isinstance(r, dict)]
    if not head or len(head) < len(records[:20]):
        return None
    if all(
        "_input_hash" in r and "answer" in r and ("_annotator_id" in r or "_session_id" in r)
        for r in head
    ):
        return "prodigy"
    if all("uid" in r and "label_counter" in r for r in head):
        return "chaosnli"
    return None


# --------------------------------------------------------------------------- helpers
def _name(source: Source) -> str:
    return PurePosixPath(source.name).stem


def _record_error(
    source: Source, problem: str, *, row: int | None, key=None, field: str | None, fix: str
) -> DataError:
    where = f"record {key!r}: " if key is not None else ""
    return DataError(where + problem, source=source.name, row=row, column=field, fix=fix)


def _split_list(value, *, source: Source, row: int, key, field: str) -> list[str]:
    """A LeWiDi comma string (``"Ann1,Ann2"``) or a JSON list -> stripped strings.

    An empty string is an empty list; an empty piece (``"0,,1"``) is an error."""
    if isinstance(value, list):
        parts = [_label_text(v) for v in value]
    elif isinstance(value, str):
        if not value.strip():
            return []
        parts = [p.strip() for p in value.split(",")]
    else:
        raise _record_error(
            source,
            f"field '{field}' should be a comma-separated string, got {type(value).__name__}.",
            row=row,
            key=key,
            field=field,
            fix='write it as in LeWiDi 2023, e.g. "Ann1,Ann2,Ann3"'
            + (
                "; annotations given as {annotator: label} are LeWiDi 2025: choose the "
                "lewidi2025 format."
                if isinstance(value, dict)
                else "."
            ),
        )
    if any(p is None or p == "" for p in parts):
        raise _record_error(
            source,
            f"field '{field}' has an empty entry ({value!r}).",
            row=row,
            key=key,
            field=field,
            fix="give one value per annotator, separated by commas, with no empty entries.",
        )
    return parts


def _label_text(value) -> str | None:
    """A label as the string the source wrote: JSON ``1`` -> ``"1"``, ``1.0`` -> ``"1.0"``,
    ``"0"`` -> ``"0"``; ``None`` -> ``None`` (missing). Never rounds or re-formats."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return str(value).strip()


def _missing_label_kind(value) -> str:
    """Why a JSON label value is not a label (for messages): null, NaN, an overflowing number
    (``1e999`` parses to infinity) or an empty string."""
    if isinstance(value, float) and np.isnan(value):
        return "a NaN label (NaN is a missing value, not a label)"
    if isinstance(value, float):
        return "a number too large to represent as its label (e.g. 1e999 overflows to infinity)"
    if value is None:
        return "an empty label (null)"
    return "an empty label"


def _trait_text(value) -> str | None:
    """Annotator trait value as text; missing (None, NaN, ``"nan"``, empty) -> None.
    Whole floats print as integers (the MP meta file writes ages as ``19.0``)."""
    if value is None:
        return None
    if isinstance(value, float):
        if not np.isfinite(value):
            return None
        return str(int(value)) if value.is_integer() else str(value)
    text = str(value).strip()
    return None if text == "" or text.lower() == "nan" else text


def _column_name(name: str) -> str:
    """``"Ethnicity simplified"`` -> ``"ethnicity_simplified"``."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).strip().lower()).strip("_") or "field"


def _scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _label_for_key(key: str, observed: set[str]) -> str:
    """Map a soft-label key to an annotation label: exact match first, then numeric equality
    (MultiPICo writes soft-label keys ``"0.0"``/``"1.0"`` for labels ``"0"``/``"1"``)."""
    if key in observed:
        return key
    try:
        number = float(key)
    except ValueError:
        return key
    for label in observed:
        try:
            if float(label) == number:
                return label
        except ValueError:
            continue
    if number.is_integer() and observed and all(re.fullmatch(r"-?\d+", x) for x in observed):
        return str(int(number))
    return key


def _soft_frame(soft: dict[str, dict], observed: set[str]) -> tuple[pd.DataFrame, dict]:
    """Items x labels soft-label table with keys mapped to annotation labels."""
    keys: list[str] = []
    for dist in soft.values():
        for k in dist:
            if k not in keys:
                keys.append(k)
    mapping = {k: _label_for_key(k, observed) for k in keys}
    frame = pd.DataFrame.from_dict(soft, orient="index", dtype=float).rename(columns=mapping)
    frame = frame.T.groupby(level=0).sum(min_count=1).T  # merge keys that map to one label
    frame.index = frame.index.astype(str)
    frame.index.name = "item_id"
    return frame, mapping


def _compare_soft(dataset: Dataset, soft: pd.DataFrame | None) -> None:
    """Store the source soft labels in ``extra`` and note where they differ from P."""
    if soft is None or soft.empty:
        return
    ordered = [x for x in dataset.labels if x in soft.columns]
    others = [c for c in soft.columns if c not in set(dataset.labels)]
    soft = soft.reindex(columns=ordered + others)
    dataset.extra["soft_label"] = soft
    if others:
        dataset.report.note(
            f"the source soft_label uses categories {others} that are not annotation labels "
            f"(annotation labels {list(dataset.labels)}); it is kept in extra['soft_label'] "
            "but not compared with the annotations."
        )
        return
    used = [
        lab
        for lab, n in zip(dataset.labels, dataset.counts_array().sum(axis=0), strict=True)
        if n > 0
    ]
    uncovered = [lab for lab in used if lab not in set(soft.columns)]
    if uncovered:
        dataset.report.note(
            f"the source soft_label covers only {list(soft.columns)} while the annotations also "
            f"use {uncovered}: it describes another view of the labels (e.g. ConvAbuse's binary "
            "abusive / not abusive); kept in extra['soft_label'], not compared."
        )
        return
    common = soft.reindex(index=dataset.item_ids, columns=list(dataset.labels))
    known = common.notna().any(axis=1).to_numpy()
    if not known.any():
        return
    p = dataset.judgements_array()[known]
    q = common.to_numpy(dtype=float)[known]
    diff = np.nanmax(np.abs(p - np.nan_to_num(q, nan=0.0)), axis=1)
    off = int((diff > SOFT_LABEL_TOLERANCE).sum())
    if off:
        first = np.asarray(dataset.item_ids)[known][np.flatnonzero(diff > SOFT_LABEL_TOLERANCE)[0]]
        dataset.report.note(
            f"{off} item(s) have proportions that differ from the source soft_label by more "
            f"than {SOFT_LABEL_TOLERANCE} (first: {first!r}); the annotations are used."
        )
    else:
        dataset.report.note(
            f"proportions recomputed from the annotations equal the source soft_label on all "
            f"{int(known.sum())} item(s) (tolerance {SOFT_LABEL_TOLERANCE})."
        )


def _items_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame({"item_id": []})
    frame = frame.astype(object).where(frame.notna(), None)
    return frame


def _drop_duplicate_rows(long: pd.DataFrame, report: ImportReport, reason: str) -> pd.DataFrame:
    dup = long.duplicated(["item_id", "annotator_id", "label"], keep="first")
    if dup.any():
        first = long[dup].iloc[0]
        report.drop(reason, int(dup.sum()))
        report.note(
            f"{int(dup.sum())} repeated (item, annotator, label) row(s) dropped; first: item "
            f"{first['item_id']!r}, annotator {first['annotator_id']!r}, label {first['label']!r}."
        )
    return long[~dup].reset_index(drop=True)


def _check_single_label(long: pd.DataFrame, source: Source, record_of: dict, *, field: str) -> None:
    """LeWiDi 2023 is single-label: one annotator with two different labels on an item is an
    error (never silently turned into multi-label)."""
    per_pair = long.groupby(["item_id", "annotator_id"], sort=False)["label"].nunique()
    if (per_pair > 1).any():
        item, annotator = per_pair[per_pair > 1].index[0]
        labels = long[(long["item_id"] == item) & (long["annotator_id"] == annotator)]["label"]
        raise _record_error(
            source,
            f"annotator {annotator!r} appears twice with different labels {list(labels)}.",
            row=record_of.get(item),
            key=item,
            field=field,
            fix="list each annotator once per item (LeWiDi 2023 tasks are single-label).",
        )


# --------------------------------------------------------------------------- LeWiDi 2023
_GROUP_KEYS = {"annotatorsgroup", "annotatorgroup", "annotatorsgroups", "annotatorgroups"}
_OTHER_ANN_KEYS = {"otherannotations"}


def _norm_key(key: str) -> str:
    return re.sub(r"[^a-z]", "", str(key).lower())


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

    Quirks handled (spec ``formats.md`` 5.1): comma strings (annotations in the order of
    ``annotators``); ConvAbuse's ``text`` is a JSON-ish string of four turns -> ``text`` (the user
    turn), ``prev_agent``, ``prev_user``, ``agent``; ConvAbuse severities -3..1 are kept as
    labels while its ``soft_label`` is binary (kept in ``extra["soft_label"]`` and not compared);
    ``other_info`` ``annotators group`` (HS-Brexit, ArMIS) -> annotator trait ``group``;
    ``other_info["other annotations"]`` (HS-Brexit aggressive/offensive) -> long tables in
    ``extra["other_annotations"][task name]``, or the main annotations with ``view=<task name>``;
    other scalar ``other_info`` fields -> items columns, nested ones -> ``extra["other_info"]``.
    A repeated (annotator, label) pair in one record is dropped and reported (MD-Agreement
    ``test_2038``); a repeated annotator with a different label is an error.
    """
    data = read_json(source)
    if not isinstance(data, dict) or not data:
        raise DataError(
            "not a LeWiDi 2023 file: expected a JSON object {item key: record}.",
            source=source.name,
            fix="load the <DS>_{train,dev,test}.json file of LeWiDi 2023, or choose another "
            "format.",
        )
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
            raise _record_error(
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
                raise _record_error(
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
        annotators = _split_list(
            rec["annotators"], source=source, row=number, key=item_id, field="annotators"
        )
        if view is None:
            raw_labels = rec["annotations"]
        else:
            others = next((v for k, v in info.items() if _norm_key(k) in _OTHER_ANN_KEYS), None)
            if not isinstance(others, dict) or view not in others:
                raise _record_error(
                    source,
                    f"has no other annotation view {view!r} in other_info.",
                    row=number,
                    key=item_id,
                    field="other_info",
                    fix="leave 'view' empty to load the main annotations, or use one of the "
                    f"views of the file ({sorted(others) if isinstance(others, dict) else []}).",
                )
            raw_labels = others[view]
        labels = _split_list(raw_labels, source=source, row=number, key=item_id, field=field)
        if len(labels) != len(annotators):
            raise _record_error(
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
            if src_field in rec and _scalar(rec[src_field]):
                row[src_field] = _label_text(rec[src_field])
        if "annotation task" in rec:
            row["annotation_task"] = rec["annotation task"]
        text = rec.get("text")
        conversation = _parse_conversation(text) if isinstance(text, str) else None
        if conversation is not None:
            turns = {str(k): v for k, v in conversation.items()}
            row["text"] = _label_text(turns.pop("user", text))
            for turn, value in turns.items():
                row[_column_name(turn)] = (
                    _label_text(value) if _scalar(value) else json.dumps(value)
                )
        elif isinstance(text, dict):
            row.update({_column_name(k): v for k, v in text.items() if _scalar(v)})
        else:
            row["text"] = text
        for info_key, value in info.items():
            norm = _norm_key(info_key)
            if norm in _GROUP_KEYS:
                groups = _split_list(
                    value, source=source, row=number, key=item_id, field=f"other_info.{info_key}"
                )
                if len(groups) != len(annotators):
                    raise _record_error(
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
                norm in _OTHER_ANN_KEYS
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
            elif _scalar(value):
                row[_column_name(info_key)] = value
            elif isinstance(value, list) and all(_scalar(v) for v in value):
                row[_column_name(info_key)] = "|".join("" if v is None else str(v) for v in value)
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
    long = _drop_duplicate_rows(long, report, "annotator listed twice with the same label")
    _check_single_label(long, source, record_of, field=field)
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
        items=_items_frame(item_rows),
        annotators=annotators_table,
        task=task,
        level=level,
        name=_name(source),
        extra=extra,
    )
    if soft:
        frame, _ = _soft_frame(soft, set(dataset.labels))
        _compare_soft(dataset, frame)
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


def _flatten_text(text, row: dict) -> None:
    if isinstance(text, dict):
        mapped = {k: _TEXT_FIELDS.get(str(k).lower(), _column_name(k)) for k in text}
        for key, value in text.items():
            row[mapped[key]] = value if _scalar(value) else json.dumps(value, ensure_ascii=False)
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
    is not strict JSON) are tolerated and noted."""
    if isinstance(meta, dict):
        data, meta_name = meta, "annotators_meta"
    else:
        meta_source = meta if isinstance(meta, Source) else as_source(meta)
        meta_name = meta_source.name
        text = decode_text(meta_source)
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            cleaned = re.sub(r",(\s*[}\]])", r"\1", text)
            try:
                data = json.loads(cleaned)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"invalid JSON ({exc.msg}, character {exc.colno}).",
                    source=meta_name,
                    row=exc.lineno,
                    fix="check the annotators meta file is valid JSON.",
                ) from None
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
            row[_column_name(trait)] = _trait_text(value)
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

    Quirks handled (spec ``formats.md`` 5.1): VariErrNLI multi-label values are comma-joined
    (``"entailment,neutral"`` -> one row per label; the ``annotators`` string repeats the id once
    per label and is checked as a set); VariErrNLI ``soft_label`` is per label a binary
    distribution ({label: {"0": p0, "1": p1}} -> P(label) = p1, task ``multilabel``); MP
    ``soft_label`` keys ``"0.0"``/``"1.0"`` are matched to labels ``"0"``/``"1"``; the
    soft-label keys also complete the label inventory (CSC 1-6, Paraphrase -5..5 keep unused
    scale points). Text sub-fields become items columns: the labelled utterance is ``text``
    (CSC response, MP reply, VariErrNLI statement, Paraphrase Question1), ``context``
    (CSC/VariErrNLI context, MP post), ``text_b`` (Paraphrase Question2). Scalar ``other_info``
    fields become items columns, lists/objects (explanations) go to ``extra["other_info"]``.
    """
    data = read_json(source)
    if not isinstance(data, dict) or not data:
        raise DataError(
            "not a LeWiDi 2025 file: expected a JSON object {item key: record}.",
            source=source.name,
            fix="load <DS>_{train,dev,test}.json of LeWiDi 2025, or choose another format.",
        )
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
            raise _record_error(
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
            raise _record_error(
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
            text_value = _label_text(value)
            if text_value is None or text_value == "":
                raise _record_error(
                    source,
                    f"annotator {echo(annotator)} has {_missing_label_kind(value)}.",
                    row=number,
                    key=item_id,
                    field="annotations",
                    fix="remove the annotator from the record (a missing annotation is a missing "
                    "entry) or give a label.",
                )
            labels = _split_list(
                text_value, source=source, row=number, key=item_id, field="annotations"
            )
            if len(labels) > 1:
                multi_values += 1
            long_items.extend([item_id] * len(labels))
            long_annotators.extend([str(annotator)] * len(labels))
            long_labels.extend(labels)
        if "annotators" in rec:
            listed = set(
                _split_list(
                    rec["annotators"], source=source, row=number, key=item_id, field="annotators"
                )
            )
            if listed != {str(a) for a in annotations}:
                diff = sorted(listed ^ {str(a) for a in annotations})
                raise _record_error(
                    source,
                    f"'annotators' and the keys of 'annotations' differ ({diff}).",
                    row=number,
                    key=item_id,
                    field="annotators",
                    fix="list the same annotators in both fields.",
                )
        row: dict = {"item_id": item_id}
        for src_field in ("split", "lang"):
            if src_field in rec and _scalar(rec[src_field]):
                row[src_field] = rec[src_field]
        if "annotation task" in rec:
            row["annotation_task"] = rec["annotation task"]
        _flatten_text(rec.get("text"), row)
        info = rec.get("other_info") or {}
        if not isinstance(info, dict):
            info = {"other_info": info}
        for info_key, value in info.items():
            if _scalar(value):
                row[_column_name(info_key)] = value
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
    long = _drop_duplicate_rows(long, report, "label repeated in one annotator's value")
    observed = set(long["label"])
    inventory = None
    soft_table = None
    if soft:
        soft_table, mapping = _soft_frame(soft, observed)
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
        items=_items_frame(item_rows),
        annotators=annotators_table,
        labels=inventory,
        task=task,
        level=level,
        name=_name(source),
        extra=extra,
    )
    _compare_soft(dataset, soft_table)
    return dataset


# --------------------------------------------------------------------------- JSON Lines
def _jsonl_records(source: Source) -> list[tuple[int, object]]:
    """(line number, parsed value) for every non-empty line; a ``.json`` array is accepted."""
    text = decode_text(source)
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = read_json(source)
        if isinstance(data, list):
            return list(enumerate(data, 1))
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DataError(
                f"line is not valid JSON ({exc.msg}).",
                source=source.name,
                row=number,
                fix="JSON Lines needs one complete JSON object per line.",
            ) from None
    if not records:
        raise DataError("the file has no records.", source=source.name, fix="add records.")
    return records


def _require_object(source: Source, line: int, record) -> dict:
    if not isinstance(record, dict):
        raise DataError(
            f"record is a {type(record).__name__}, not a JSON object.",
            source=source.name,
            row=line,
            fix="write one JSON object per line.",
        )
    return record


# --------------------------------------------------------------------------- ChaosNLI
def read_chaosnli(source: Source, *, task: str | None = None, level: str | None = None):
    """ChaosNLI JSON Lines: ``uid``, ``label_counter`` {"e": 20, "n": 70, "c": 10},
    ``label_dist``, ``majority_label``, ``example`` {premise, hypothesis, ...}.

    Counts only (100 anonymous annotators per item): each count becomes an anonymous annotation
    (ids unique per item, ``annotator_ids_known=False``). Label order ``e, n, c`` when the labels
    are NLI letters (ChaosNLI's ``label_dist`` order), otherwise sorted. ``label_dist`` is kept in
    ``extra["soft_label"]``; ``example`` fields become items columns (``premise`` -> ``context``,
    ``hypothesis`` -> ``text``)."""
    records = _jsonl_records(source)
    report = ImportReport(source.name, "chaosnli", rows_read=len(records))
    uids: list[str] = []
    counters: list[dict] = []
    item_rows: list[dict] = []
    dists: dict[str, list] = {}
    seen: dict[str, int] = {}
    for line, raw in records:
        rec = _require_object(source, line, raw)
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
                if k == "uid" or not _scalar(v):
                    continue
                row[{"premise": "context", "hypothesis": "text"}.get(k, _column_name(k))] = v
        for k in ("majority_label", "old_label", "source"):
            if k in rec and _scalar(rec[k]):
                row[k] = rec[k]
        item_rows.append(row)
        if isinstance(rec.get("label_dist"), list):
            dists[uid] = rec["label_dist"]
    counts_frame = pd.DataFrame.from_records(counters).fillna(0).astype(np.int64)
    found = list(counts_frame.columns)
    if set(found) <= set(_CHAOS_LABEL_ORDER):
        inventory = list(_CHAOS_LABEL_ORDER)
    else:
        inventory = list(order_labels(found))
    counts = counts_frame.reindex(columns=inventory, fill_value=0).to_numpy(dtype=np.int64)
    zero = counts.sum(axis=1) == 0
    if zero.any():
        report.drop("items with zero counts", int(zero.sum()))
    keep = ~zero
    item_ids = np.asarray(uids, dtype=object)[keep]
    annotations = _expand_counts(counts[keep], item_ids, inventory)
    report.note(
        f"counts expanded to {len(annotations)} anonymous annotations (ids unique per item)."
    )
    items = _items_frame(item_rows)
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
        name=_name(source),
    )
    if dists and all(len(d) == len(inventory) for d in dists.values()):
        soft = pd.DataFrame.from_dict(dists, orient="index", columns=inventory, dtype=float)
        soft.index.name = "item_id"
        _compare_soft(dataset, soft)
    return dataset


# --------------------------------------------------------------------------- Label Studio
def _ls_values(result: dict) -> tuple[str | None, list[str]]:
    """(kind, labels) of one Label Studio result: choices, *labels (spans/boxes) or rating."""
    value = result.get("value")
    if not isinstance(value, dict):
        return None, []
    if "choices" in value:
        return "choices", [_label_text(v) for v in value["choices"]]
    if "rating" in value:
        return "rating", [_label_text(value["rating"])]
    for key, labels in value.items():
        if key.endswith("labels") and isinstance(labels, list):
            return "labels", [_label_text(v) for v in labels]
    return None, []


def _ls_annotator(completed_by) -> str | None:
    if isinstance(completed_by, dict):
        for key in ("id", "email", "username"):
            if completed_by.get(key) not in (None, ""):
                return str(completed_by[key])
        return None
    if completed_by in (None, ""):
        return None
    return str(completed_by)


def read_labelstudio(
    source: Source,
    *,
    task: str | None = None,
    level: str | None = None,
    control: str | None = None,
) -> Dataset:
    """Label Studio JSON export: a list of tasks ``{id, data{...}, annotations[{completed_by,
    was_cancelled, result[{from_name, type, value{choices|labels|rating}}]}], predictions[
    {model_version, score, result}]}``.

    One row per chosen option (``choices``), per distinct span/box label (``*labels``; the set of
    labels an annotator used on the task) or per rating. When the export has several control
    tags (``from_name``), ``control=`` picks one; otherwise a :class:`DataError` lists them.
    Cancelled annotations, annotations without a result for the control, and earlier
    annotations superseded by a later one of the same annotator on the same task are dropped
    and reported. ``data`` fields become items columns (``text`` kept; without one, the first
    text field is used). ``predictions`` become ``dataset.predictions`` with ``model =
    model_version`` (``"labelstudio"`` when absent); a predicted choice gets probability 1
    (split evenly when a multiclass prediction lists several), the model's overall ``score`` is
    kept in ``extra["prediction_scores"]``."""
    data = read_json(source)
    if not isinstance(data, list) or not data:
        raise DataError(
            "not a Label Studio export: expected a JSON list of tasks.",
            source=source.name,
            fix="export the project from Label Studio as 'JSON' (not JSON-MIN or CSV).",
        )
    report = ImportReport(source.name, "labelstudio", rows_read=len(data))
    controls: dict[str, str] = {}
    tasks: list[tuple[int, str, dict]] = []
    seen_ids: dict[str, int] = {}
    for number, raw in enumerate(data, 1):
        if not isinstance(raw, dict) or "data" not in raw:
            raise DataError(
                "task is not an object with a 'data' field.",
                source=source.name,
                row=number,
                column="data",
                fix="export the project from Label Studio as 'JSON'.",
            )
        item_id = str(raw.get("id", number))
        if item_id in seen_ids:
            raise DataError(
                f"task id {item_id!r} appears twice (first as task {seen_ids[item_id]}).",
                source=source.name,
                row=number,
                column="id",
                fix="export each task once.",
            )
        seen_ids[item_id] = number
        tasks.append((number, item_id, raw))
        for block in ("annotations", "completions", "predictions"):
            for entry in raw.get(block) or []:
                for result in (entry or {}).get("result") or []:
                    kind, _ = _ls_values(result) if isinstance(result, dict) else (None, [])
                    if kind is not None:
                        controls.setdefault(str(result.get("from_name", "")), kind)
    if not controls:
        raise DataError(
            "no choices, labels or rating results found in any annotation.",
            source=source.name,
            column="result",
            fix="export a project whose labelling config has Choices, Labels or Rating tags.",
        )
    if control is None:
        if len(controls) > 1:
            raise DataError(
                f"the export has {len(controls)} control tags {sorted(controls)}; choose one.",
                source=source.name,
                column="from_name",
                fix="pass control=<name> (the format option 'control' in the app).",
            )
        control = next(iter(controls))
    elif control not in controls:
        raise DataError(
            f"control tag {control!r} is not in the export (found {sorted(controls)}).",
            source=source.name,
            column="from_name",
            fix=f"use one of {sorted(controls)}.",
        )
    kind = controls[control]
    rows: list[tuple[str, str, str]] = []
    item_rows: list[dict] = []
    pred_rows: list[tuple[str, str, str, int]] = []
    scores: list[dict] = []
    cancelled = no_result = superseded = 0
    multi_choice = False
    text_source_field = None
    for number, item_id, raw in tasks:
        fields = raw["data"] if isinstance(raw["data"], dict) else {"text": raw["data"]}
        row: dict = {"item_id": item_id}
        for key, value in fields.items():
            column = "item_data_id" if key in ("item_id", "id") else key
            row[column] = value if _scalar(value) else json.dumps(value, ensure_ascii=False)
        if "text" not in row:
            first_text = next((k for k, v in fields.items() if isinstance(v, str)), None)
            if first_text is not None:
                row["text"] = fields[first_text]
                text_source_field = first_text
        item_rows.append(row)
        latest: dict[str, list[str]] = {}
        for entry in (raw.get("annotations") or []) + (raw.get("completions") or []):
            if not isinstance(entry, dict):
                continue
            if entry.get("was_cancelled"):
                cancelled += 1
                continue
            annotator = _ls_annotator(entry.get("completed_by"))
            if annotator is None:
                raise DataError(
                    f"task {item_id!r}: an annotation has no 'completed_by'.",
                    source=source.name,
                    row=number,
                    column="completed_by",
                    fix="export with annotator information (Label Studio includes completed_by "
                    "by default).",
                )
            labels: list[str] = []
            for result in entry.get("result") or []:
                if isinstance(result, dict) and str(result.get("from_name", "")) == control:
                    labels.extend(x for x in _ls_values(result)[1] if x not in (None, ""))
            if not labels:
                no_result += 1
                continue
            if annotator in latest:
                superseded += 1
            latest[annotator] = list(dict.fromkeys(labels))
        for annotator, labels in latest.items():
            rows.extend((item_id, annotator, lab) for lab in labels)
            multi_choice = multi_choice or len(labels) > 1
        for entry in raw.get("predictions") or []:
            if not isinstance(entry, dict):
                continue
            model = str(entry.get("model_version") or "labelstudio")
            labels = []
            for result in entry.get("result") or []:
                if isinstance(result, dict) and str(result.get("from_name", "")) == control:
                    labels.extend(x for x in _ls_values(result)[1] if x not in (None, ""))
            labels = list(dict.fromkeys(labels))
            pred_rows.extend((model, item_id, lab, len(labels)) for lab in labels)
            if "score" in entry:
                scores.append({"model": model, "item_id": item_id, "score": entry["score"]})
    if cancelled:
        report.drop("cancelled (skipped) annotations", cancelled)
    if no_result:
        report.drop(f"annotations without a result for control {control!r}", no_result)
    if superseded:
        report.drop("earlier annotation of the same annotator on the same task", superseded)
    if text_source_field is not None:
        report.note(f"no 'text' data field: the field {text_source_field!r} is shown as text.")
    if not rows:
        raise DataError(
            f"no annotation has a result for control {control!r}.",
            source=source.name,
            column="result",
            fix="export a project with completed annotations.",
        )
    long = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    report.rows_read = len(long)
    if kind == "labels":
        report.note("span/region labels reduced to the set of labels each annotator used per task.")
    if task is None and kind == "rating":
        task = "rating"
    pred_labels = {r[2] for r in pred_rows}
    inventory = order_labels(list(set(long["label"]) | pred_labels))
    dataset = build_dataset(
        long,
        source=source.name,
        format="labelstudio",
        report=report,
        items=_items_frame(item_rows),
        labels=inventory,
        task=task,
        multilabel_evidence="Label Studio results with several choices in one annotation"
        if multi_choice else None,
        level=level,
        name=_name(source),
    )
    dataset.report.note(f"labels from control tag {control!r} ({kind}).")
    if pred_rows:
        preds = pd.DataFrame(pred_rows, columns=["model", "item_id", "label", "n"])
        multiple = dataset.task in ("multiclass", "rating")
        preds["prob"] = 1.0 / preds["n"] if multiple else 1.0
        if multiple and (preds["n"] > 1).any():
            report.note(
                "multiclass predictions listing several choices split their probability evenly."
            )
        known = preds["item_id"].isin(set(dataset.item_ids))
        if (~known).any():
            report.drop("predictions for tasks without annotations", int((~known).sum()))
        preds = preds[known]
        dup = preds.duplicated(["model", "item_id", "label"], keep="first")
        if dup.any():
            report.drop("repeated predictions (same model, task and label)", int(dup.sum()))
        preds = preds[~dup][["model", "item_id", "label", "prob"]].reset_index(drop=True)
        if not preds.empty:
            object.__setattr__(dataset, "predictions", preds)
            report.note(f"predictions loaded for {preds['model'].nunique()} model(s).")
    if scores:
        dataset.extra["prediction_scores"] = pd.DataFrame(scores)
    return dataset


# --------------------------------------------------------------------------- Prodigy
def read_prodigy(source: Source, *, task: str | None = None, level: str | None = None):
    """Prodigy JSONL (``prodigy db-out``): one record per answer with ``_input_hash``,
    ``_task_hash``, ``_annotator_id`` (or ``_session_id``), ``answer`` (accept/reject/ignore)
    and either ``accept`` (list of chosen option ids; choice interface, multi-label when an
    annotator chooses several) or ``label`` (binary interfaces).

    Items are grouped by ``_input_hash`` (text from the first record). Kept: ``accept`` lists of
    accepted answers, or ``label`` of accepted binary answers. Dropped and reported: ``ignore``
    answers, ``reject`` answers (a rejected binary label is not a label; a rejected choice task
    is not an answer), accepted answers with an empty selection, and earlier answers of the same
    annotator to the same task (same ``_task_hash``) superseded by a later one."""
    records = _jsonl_records(source)
    report = ImportReport(source.name, "prodigy", rows_read=len(records))
    answers: list[tuple[str, str, str, str, list[str]]] = []
    texts: dict[str, dict] = {}
    multiple_style = False
    for line, raw in records:
        rec = _require_object(source, line, raw)
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
                    if _scalar(v) and _column_name(k) not in row:
                        row[_column_name(k)] = v
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
                labels = [t for t in (_label_text(x) for x in chosen) if t not in (None, "")]
                kind = "accept" if labels else "empty"
            elif rec.get("label") not in (None, ""):
                labels = [_label_text(rec["label"])]
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
    long = _drop_duplicate_rows(long, report, "repeated (item, annotator, label) answer")
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
        name=_name(source),
    )
    return dataset


# --------------------------------------------------------------------------- dispatch
_OPTIONS = {
    "lewidi2023": ("view",),
    "lewidi2025": ("meta",),
    "chaosnli": (),
    "labelstudio": ("control",),
    "prodigy": (),
}


def read(
    format_name: str,
    source: Source,
    *,
    task: str | None = None,
    level: str | None = None,
    **options,
) -> Dataset:
    """Read ``source`` (:class:`~hlv_core.io._read.Source`) in one of the JSON formats.

    ``format_name``: ``lewidi2023`` (option ``view``), ``lewidi2025`` (option ``meta``: path,
    bytes or dict of ``*_annotators_meta.json``), ``chaosnli``, ``labelstudio`` (option
    ``control``), ``prodigy``. Options that do not apply to the format and are not ``None``
    are noted in the report (they are ignored, so a generic UI can pass every option)."""
    if format_name not in _OPTIONS:
        raise DataError(
            f"{format_name!r} is not a JSON format.",
            source=source.name,
            fix=f"use one of {sorted(_OPTIONS)}.",
        )
    allowed = _OPTIONS[format_name]
    used = {k: v for k, v in options.items() if k in allowed and v is not None}
    ignored = sorted(k for k, v in options.items() if k not in allowed and v is not None)
    if format_name == "lewidi2023":
        dataset = read_lewidi2023(source, task=task, level=level, **used)
    elif format_name == "lewidi2025":
        dataset = read_lewidi2025(source, task=task, level=level, **used)
    elif format_name == "chaosnli":
        dataset = read_chaosnli(source, task=task, level=level)
    elif format_name == "labelstudio":
        dataset = read_labelstudio(source, task=task, level=level, **used)
    else:
        dataset = read_prodigy(source, task=task, level=level)
    if ignored:
        dataset.report.note(f"options {ignored} do not apply to {format_name} and were ignored.")
    return dataset
