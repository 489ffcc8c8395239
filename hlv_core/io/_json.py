"""Shared helpers of the JSON importers (private to :mod:`hlv_core.io`): format detection, the JSON
Lines reader, label / trait text, soft labels and the checks every JSON reader applies.

Every JSON reader turns its layout into the canonical long table ``item_id, annotator_id, label``
(one row per single label), an items table and an annotators table, and hands them to
:func:`hlv_core.io.build_dataset`, which validates them. What a reader drops (and why) goes into
the :class:`~hlv_core.io.ImportReport`; everything it cannot make sense of raises
:class:`~hlv_core.io.DataError` naming the file, the record (``row`` = 1-based record number for
JSON, line number for JSON Lines), the field (``column``) and a fix.

Source soft labels (LeWiDi ``soft_label``, ChaosNLI ``label_dist``) are kept for comparison in
``dataset.extra["soft_label"]`` (items x labels DataFrame indexed by ``item_id``); the report
notes how many items' recomputed proportions differ from them by more than
:data:`SOFT_LABEL_TOLERANCE`.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from ._read import Source, decode_text, parse_json, read_json
from .dataset import Dataset
from .errors import DataError, ImportReport

__all__ = ["CHAOS_LABEL_ORDER", "GROUP_KEYS", "OTHER_ANN_KEYS", "PRODIGY_KEYS", "SOFT_LABEL_TOLERANCE", "check_single_label", "column_name", "compare_soft", "detect_json", "detect_jsonl", "drop_duplicate_rows", "is_scalar", "items_frame", "jsonl_records", "label_for_key", "label_text", "missing_label_kind", "norm_key", "record_error", "require_object", "sample_values", "soft_frame", "source_name", "split_list", "trait_text"]


#: Largest |P - soft_label| that still counts as "equal" when comparing with the source's soft
#: labels (LeWiDi rounds some values to 3 decimals, e.g. VariErrNLI 0.667).
SOFT_LABEL_TOLERANCE = 0.01

PRODIGY_KEYS = ("_input_hash", "_annotator_id", "answer")
CHAOS_LABEL_ORDER = ("e", "n", "c")



# --------------------------------------------------------------------------- detection
def sample_values(data: dict, n: int = 20) -> list:
    """The first ``n`` values of a dict (what layout detection looks at).

    Parameters
    ----------
    data : dict
        A parsed JSON object.
    n : int, default 20
        Values to take.

    Returns
    -------
    list
        Up to ``n`` values, in order.

    Examples
    --------
    >>> sample_values({"a": 1, "b": 2, "c": 3}, n=2)
    [1, 2]
    """
    return [v for _, v in zip(range(n), data.values(), strict=False)]


def detect_json(data) -> str | None:
    """Name the layout of a parsed ``.json`` document, or ``None`` when unknown.

    * ``"lewidi2023"``: object of records whose ``annotations`` is a comma-separated string;
    * ``"lewidi2025"``: object of records whose ``annotations`` is an object {annotator: label};
    * ``"labelstudio"``: array of tasks with ``data`` and ``annotations``/``predictions``;
    * ``"prodigy"`` / ``"chaosnli"``: a JSON *array* of Prodigy or ChaosNLI records (the usual
      files are JSON Lines, see :func:`detect_jsonl`).

    Parameters
    ----------
    data : object
        A parsed ``.json`` document.

    Returns
    -------
    str or None
        The layout name.

    Examples
    --------
    >>> detect_json({"1": {"text": "hi", "annotations": "0,1"}})
    'lewidi2023'
    >>> detect_json({"1": {"text": "hi", "annotations": {"Ann1": "1"}}})
    'lewidi2025'
    >>> detect_json([{"data": {"text": "hi"}, "annotations": []}])
    'labelstudio'
    """
    if isinstance(data, dict) and data:
        records = [v for v in sample_values(data) if isinstance(v, dict)]
        if not records or len(records) < len(sample_values(data)):
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
    ``label_counter``; otherwise ``None``.

    Parameters
    ----------
    records : list
        Parsed JSON Lines records (the first 20 are looked at).

    Returns
    -------
    str or None
        ``"prodigy"``, ``"chaosnli"`` or None.

    Examples
    --------
    >>> detect_jsonl([{"uid": "1", "label_counter": {"e": 3}}])
    'chaosnli'
    >>> detect_jsonl([{"_input_hash": 1, "answer": "accept", "_annotator_id": "ann"}])
    'prodigy'
    """
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
def source_name(source: Source) -> str:
    """The file's name without folder and extension (the default dataset name).

    Parameters
    ----------
    source : Source
        The input.

    Returns
    -------
    str
        The stem.

    Examples
    --------
    >>> from hlv_core.io import Source
    >>> source_name(Source(b"", "data/MP_test.json"))
    'MP_test'
    """
    return PurePosixPath(source.name).stem


def record_error(
    source: Source, problem: str, *, row: int | None, key=None, field: str | None, fix: str
) -> DataError:
    """The :class:`DataError` of a problem in one JSON record (file, record number, key, field, fix).

    Parameters
    ----------
    source : Source
        The file.
    problem : str
        What is wrong.
    row : int or None
        1-based record number (JSON) or line number (JSON Lines).
    key : object, optional
        The record's key, named in the message.
    field : str or None
        The field.
    fix : str
        What to change.

    Returns
    -------
    DataError
        The error (not raised).

    Examples
    --------
    >>> from hlv_core.io import Source
    >>> source = Source(b"", "MP_test.json")
    >>> print(record_error(source, "no label.", row=3, key="i7", field="label", fix="add it."))
    file 'MP_test.json', row 3, column 'label': record 'i7': no label. How to fix: add it.
    """
    where = f"record {key!r}: " if key is not None else ""
    return DataError(where + problem, source=source.name, row=row, column=field, fix=fix)


def split_list(value, *, source: Source, row: int, key, field: str) -> list[str]:
    """A LeWiDi comma string (``"Ann1,Ann2"``) or a JSON list -> stripped strings.

    An empty string is an empty list; an empty piece (``"0,,1"``) is an error.

    Parameters
    ----------
    value : str or list
        The field's value.
    source : Source
        The file (for messages).
    row : int
        Record number.
    key : object
        Record key.
    field : str
        Field name.

    Returns
    -------
    list of str
        The stripped pieces.

    Raises
    ------
    DataError
        An empty piece, or a value that is neither a string nor a list.

    Examples
    --------
    >>> from hlv_core.io import Source
    >>> source = Source(b"", "MP_test.json")
    >>> split_list("Ann1, Ann2", source=source, row=1, key="1", field="annotators")
    ['Ann1', 'Ann2']
    >>> split_list("", source=source, row=1, key="1", field="annotators")
    []
    """
    if isinstance(value, list):
        parts = [label_text(v) for v in value]
    elif isinstance(value, str):
        if not value.strip():
            return []
        parts = [p.strip() for p in value.split(",")]
    else:
        raise record_error(
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
        raise record_error(
            source,
            f"field '{field}' has an empty entry ({value!r}).",
            row=row,
            key=key,
            field=field,
            fix="give one value per annotator, separated by commas, with no empty entries.",
        )
    return parts


def label_text(value) -> str | None:
    """A label as the string the source wrote: JSON ``1`` -> ``"1"``, ``1.0`` -> ``"1.0"``,
    ``"0"`` -> ``"0"``; ``None`` -> ``None`` (missing). Never rounds or re-formats.

    Parameters
    ----------
    value : object
        A JSON label value.

    Returns
    -------
    str or None
        The label text; None for null and non-finite numbers.

    Examples
    --------
    >>> label_text(1), label_text(1.0), label_text("0"), label_text(True), label_text(None)
    ('1', '1.0', '0', 'true', None)
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return str(value).strip()


def missing_label_kind(value) -> str:
    """Why a JSON label value is not a label (for messages): null, NaN, an overflowing number
    (``1e999`` parses to infinity) or an empty string.

    Parameters
    ----------
    value : object
        A JSON value that is not a usable label.

    Returns
    -------
    str
        The reason, in words.

    Examples
    --------
    >>> missing_label_kind(None)
    'an empty label (null)'
    >>> missing_label_kind(float("nan"))
    'a NaN label (NaN is a missing value, not a label)'
    """
    if isinstance(value, float) and np.isnan(value):
        return "a NaN label (NaN is a missing value, not a label)"
    if isinstance(value, float):
        return "a number too large to represent as its label (e.g. 1e999 overflows to infinity)"
    if value is None:
        return "an empty label (null)"
    return "an empty label"


def trait_text(value) -> str | None:
    """Annotator trait value as text; missing (None, NaN, ``"nan"``, empty) -> None.
    Whole floats print as integers (the MP meta file writes ages as ``19.0``).

    Parameters
    ----------
    value : object
        A trait value.

    Returns
    -------
    str or None
        The text (stripped), or None when missing.

    Examples
    --------
    >>> trait_text(19.0), trait_text(2.5), trait_text(" F "), trait_text("nan")
    ('19', '2.5', 'F', None)
    """
    if value is None:
        return None
    if isinstance(value, float):
        if not np.isfinite(value):
            return None
        return str(int(value)) if value.is_integer() else str(value)
    text = str(value).strip()
    return None if text == "" or text.lower() == "nan" else text


def column_name(name: str) -> str:
    """A trait name as a column name: lower case, runs of other characters one ``_``.

    Parameters
    ----------
    name : str
        The trait name as written.

    Returns
    -------
    str
        The column name (``"field"`` when nothing is left).

    Examples
    --------
    >>> column_name("Ethnicity simplified"), column_name("  ")
    ('ethnicity_simplified', 'field')
    """
    return re.sub(r"[^0-9a-z]+", "_", str(name).strip().lower()).strip("_") or "field"


def is_scalar(value) -> bool:
    """Whether a JSON value is a scalar (null, string, number, boolean).

    Parameters
    ----------
    value : object
        A parsed JSON value.

    Returns
    -------
    bool
        True for scalars.

    Examples
    --------
    >>> is_scalar(3), is_scalar(None), is_scalar([1])
    (True, True, False)
    """
    return value is None or isinstance(value, (str, int, float, bool))


def label_for_key(key: str, observed: set[str]) -> str:
    """Map a soft-label key to an annotation label: exact match first, then numeric equality
    (MultiPICo writes soft-label keys ``"0.0"``/``"1.0"`` for labels ``"0"``/``"1"``).

    Parameters
    ----------
    key : str
        A soft-label key.
    observed : set of str
        Labels seen in the annotations.

    Returns
    -------
    str
        The matching label, or ``key`` unchanged.

    Examples
    --------
    >>> label_for_key("1.0", {"0", "1"}), label_for_key("x", {"0", "1"})
    ('1', 'x')
    """
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


def soft_frame(soft: dict[str, dict], observed: set[str]) -> tuple[pd.DataFrame, dict]:
    """Items x labels soft-label table with keys mapped to annotation labels.

    Parameters
    ----------
    soft : dict of str to dict
        Item id -> {soft-label key: probability}.
    observed : set of str
        Labels seen in the annotations.

    Returns
    -------
    frame : pandas.DataFrame
        Items x labels (index ``item_id``).
    mapping : dict of str to str
        Soft-label key -> label.

    Examples
    --------
    >>> frame, mapping = soft_frame({"i1": {"0.0": 0.5, "1.0": 0.5}}, {"0", "1"})
    >>> mapping, frame.loc["i1"].tolist()
    ({'0.0': '0', '1.0': '1'}, [0.5, 0.5])
    """
    keys: list[str] = []
    for dist in soft.values():
        for k in dist:
            if k not in keys:
                keys.append(k)
    mapping = {k: label_for_key(k, observed) for k in keys}
    frame = pd.DataFrame.from_dict(soft, orient="index", dtype=float).rename(columns=mapping)
    frame = frame.T.groupby(level=0).sum(min_count=1).T  # merge keys that map to one label
    frame.index = frame.index.astype(str)
    frame.index.name = "item_id"
    return frame, mapping


def compare_soft(dataset: Dataset, soft: pd.DataFrame | None) -> None:
    r"""Store the source soft labels in ``extra`` and note where they differ from P.

    The comparison uses :data:`SOFT_LABEL_TOLERANCE`; the dataset's own proportions are what
    every analysis uses.

    Parameters
    ----------
    dataset : Dataset
        The built dataset (its ``extra`` and ``report`` are updated).
    soft : pandas.DataFrame or None
        Items x labels source soft labels.

    Returns
    -------
    None
        ``dataset.extra["soft_label"]`` and a report note are set.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> dataset = load(b"item_id,annotator_id,label\ni1,a,0\ni1,b,1\n", name="t.csv")
    >>> compare_soft(dataset, pd.DataFrame({"0": [0.4], "1": [0.6]}, index=["i1"]))
    >>> dataset.report.notes[-1][:60]
    '1 item(s) have proportions that differ from the source soft_'
    """
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


def items_frame(rows: list[dict]) -> pd.DataFrame:
    """An items table from record dicts (missing values as None).

    Parameters
    ----------
    rows : list of dict
        One dict per item (``item_id`` + fields).

    Returns
    -------
    pandas.DataFrame
        The table (``item_id`` only when there are no rows).

    Examples
    --------
    >>> items_frame([{"item_id": "i1", "text": None}, {"item_id": "i2", "text": "hi"}]).shape
    (2, 2)
    """
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame({"item_id": []})
    frame = frame.astype(object).where(frame.notna(), None)
    return frame


def drop_duplicate_rows(long: pd.DataFrame, report: ImportReport, reason: str) -> pd.DataFrame:
    """Drop repeated (item, annotator, label) rows, counted and noted in the report.

    Parameters
    ----------
    long : pandas.DataFrame
        Canonical rows.
    report : ImportReport
        Receives the count and a note naming the first repeat.
    reason : str
        The drop reason.

    Returns
    -------
    pandas.DataFrame
        The rows without repeats.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import ImportReport
    >>> report = ImportReport("x.json", "lewidi2025")
    >>> rows = pd.DataFrame({"item_id": ["i1", "i1"], "annotator_id": ["a", "a"],
    ...                      "label": ["0", "0"]})
    >>> len(drop_duplicate_rows(rows, report, "repeated row")), report.dropped
    (1, {'repeated row': 1})
    """
    dup = long.duplicated(["item_id", "annotator_id", "label"], keep="first")
    if dup.any():
        first = long[dup].iloc[0]
        report.drop(reason, int(dup.sum()))
        report.note(
            f"{int(dup.sum())} repeated (item, annotator, label) row(s) dropped; first: item "
            f"{first['item_id']!r}, annotator {first['annotator_id']!r}, label {first['label']!r}."
        )
    return long[~dup].reset_index(drop=True)


def check_single_label(long: pd.DataFrame, source: Source, record_of: dict, *, field: str) -> None:
    """LeWiDi 2023 is single-label: one annotator with two different labels on an item is an
    error (never silently turned into multi-label).

    Parameters
    ----------
    long : pandas.DataFrame
        Canonical rows.
    source : Source
        The file.
    record_of : dict
        Item id -> record number (for messages).
    field : str
        The field named in the message.

    Returns
    -------
    None
        Nothing when every annotator gave one label per item.

    Raises
    ------
    DataError
        An annotator with two different labels on an item.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import Source
    >>> rows = pd.DataFrame({"item_id": ["i1", "i1"], "annotator_id": ["a", "a"],
    ...                      "label": ["0", "1"]})
    >>> check_single_label(rows, Source(b"", "x.json"), {"i1": 1}, field="annotations")
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'x.json', row 1, column 'annotations': record 'i1': annotator 'a' appears twice with different labels ['0', '1']. How to fix: list each annotator once per item (LeWiDi 2023 tasks are single-label).
    """
    per_pair = long.groupby(["item_id", "annotator_id"], sort=False)["label"].nunique()
    if (per_pair > 1).any():
        item, annotator = per_pair[per_pair > 1].index[0]
        labels = long[(long["item_id"] == item) & (long["annotator_id"] == annotator)]["label"]
        raise record_error(
            source,
            f"annotator {annotator!r} appears twice with different labels {list(labels)}.",
            row=record_of.get(item),
            key=item,
            field=field,
            fix="list each annotator once per item (LeWiDi 2023 tasks are single-label).",
        )


# --------------------------------------------------------------------------- LeWiDi 2023
GROUP_KEYS = {"annotatorsgroup", "annotatorgroup", "annotatorsgroups", "annotatorgroups"}
OTHER_ANN_KEYS = {"otherannotations"}


def norm_key(key: str) -> str:
    """A key reduced to its lower-case letters (matching keys written in different styles).

    Parameters
    ----------
    key : str
        A JSON key.

    Returns
    -------
    str
        Lower-case letters only.

    Examples
    --------
    >>> norm_key("Other Annotations"), norm_key("other_annotations")
    ('otherannotations', 'otherannotations')
    """
    return re.sub(r"[^a-z]", "", str(key).lower())



# --------------------------------------------------------------------------- JSON Lines
def jsonl_records(source: Source) -> list[tuple[int, object]]:
    r"""(line number, parsed value) for every non-empty line; a ``.json`` array is accepted.

    Parameters
    ----------
    source : Source
        The JSON Lines (or JSON array) file.

    Returns
    -------
    list of (int, object)
        ``(line number, record)``.

    Raises
    ------
    DataError
        A line that is not valid JSON (line named).

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> jsonl_records(as_source(b'{"a": 1}\n\n{"b": 2}\n', "x.jsonl"))
    [(1, {'a': 1}), (3, {'b': 2})]
    """
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
        records.append((number, parse_json(line, source.name, line=number)))
    if not records:
        raise DataError("the file has no records.", source=source.name, fix="add records.")
    return records


def require_object(source: Source, line: int, record) -> dict:
    """A JSON Lines record that must be an object.

    Parameters
    ----------
    source : Source
        The file.
    line : int
        Line number.
    record : object
        The parsed record.

    Returns
    -------
    dict
        The record.

    Raises
    ------
    DataError
        The record is not an object.

    Examples
    --------
    >>> from hlv_core.io import Source
    >>> require_object(Source(b"", "x.jsonl"), 1, {"a": 1})
    {'a': 1}
    """
    if not isinstance(record, dict):
        raise DataError(
            f"record is a {type(record).__name__}, not a JSON object.",
            source=source.name,
            row=line,
            fix="write one JSON object per line.",
        )
    return record
