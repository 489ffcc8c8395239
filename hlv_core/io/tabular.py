"""Importers for tabular formats: canonical long files, zipped canonical folders, crowd-kit,
wide matrices and counts (layouts listed in ``README.md``, Input formats)."""

from __future__ import annotations

import ast
import dataclasses
import zipfile
from collections.abc import Mapping
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from ._read import (
    InflateBudget,
    Source,
    header_columns,
    open_zip,
    read_coded,
    read_json,
    read_member,
    read_npy,
    read_table,
)
from .dataset import (
    Dataset,
    build_dataset,
    echo,
    is_missing_spelling,
    order_labels,
    strip_categorical,
)
from .errors import DataError, ImportReport
from .limits import check_limit
from .spelling import spelling_changes

__all__ = [
    "check_companion_ids",
    "expand_counts",
    "read_canonical",
    "read_canonical_files",
    "read_canonical_zip",
    "read_crowdkit",
    "read_wide",
    "read_counts",
    "read_schema",
]

_ITEM_ALIASES = ("item_id", "item", "unit", "unit_id", "text_id", "task", "id")
_ANNOTATOR_ALIASES = ("annotator_id", "annotator", "worker", "worker_id", "coder", "rater", "user_id")


def _strip_cells(frame: pd.DataFrame, report: ImportReport | None = None) -> pd.DataFrame:
    """Strip surrounding whitespace from every text cell (``" x"`` and ``"x"`` are one label);
    the number of changed cells is noted in the report."""
    out = frame.copy(deep=False)  # copy-on-write: columns are replaced, never mutated
    changed = 0
    for column in out.columns:
        values = out[column]
        if isinstance(values.dtype, pd.CategoricalDtype):  # over the dictionary, not the rows
            out[column], count = strip_categorical(values)
            changed += count
        elif pd.api.types.is_string_dtype(values.dtype):
            stripped = values.str.strip()
            # an empty (missing) cell is not a stripped one: NaN != NaN must not count
            changed += int(((stripped != values) & values.notna()).fillna(False).sum())
            out[column] = stripped
    if changed and report is not None:
        report.note(f"surrounding whitespace removed from {changed} cell(s).")
    return out


def read_schema(frame_or_json, *, source: str) -> dict:
    """Label inventory and measurement facts from ``labels.csv`` (a ``label`` column in order,
    optional ``value``) or ``schema.json`` (``labels``, ``level_of_measurement``, ``task_type``,
    optional ``values``).

    Parameters
    ----------
    frame_or_json : pandas.DataFrame or dict
        ``labels.csv`` as a table, or ``schema.json`` parsed.
    source : str
        File name for messages.

    Returns
    -------
    dict
        ``labels`` (inventory order) and, when given, ``label_values``, ``level``, ``task``.

    Raises
    ------
    DataError
        No ``label`` column, a non-numeric ``value``, or a ``schema.json`` without a
        ``labels`` list.

    References
    ----------
    .. [1] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> import pandas as pd
    >>> read_schema(pd.DataFrame({"label": ["low", "mid", "high"], "value": ["1", "2", "3"]}),
    ...             source="labels.csv")
    {'labels': ['low', 'mid', 'high'], 'label_values': {'low': 1.0, 'mid': 2.0, 'high': 3.0}}
    >>> read_schema({"labels": ["a", "b"], "level_of_measurement": "nominal"}, source="schema.json")
    {'labels': ['a', 'b'], 'level': 'nominal'}
    """
    if isinstance(frame_or_json, pd.DataFrame):
        frame = frame_or_json
        if "label" not in frame.columns:
            raise DataError(
                "labels table has no 'label' column.",
                source=source,
                row=1,
                fix="write the label inventory one label per row under a 'label' header.",
            )
        empty = frame["label"].isna() | (frame["label"].astype(str).str.strip() == "")
        if empty.any():  # an empty cell is no label name (never the text 'nan')
            bad = int(np.flatnonzero(empty.to_numpy())[0])
            raise DataError(
                f"empty label cell ({int(empty.sum())} in the table); the first is shown.",
                source=source,
                row=bad + 2,
                column="label",
                fix="write a name in every label cell, or delete the row; an explicit "
                "'no label' choice needs a reserved name such as __none__.",
            )
        schema: dict = {"labels": frame["label"].astype(str).tolist()}
        if "value" in frame.columns:
            values = pd.to_numeric(frame["value"], errors="coerce")
            values = values.where(np.isfinite(values))  # inf is no value on a scale
            if values.isna().any():
                bad = int(np.flatnonzero(values.isna().to_numpy())[0])
                raise DataError(
                    f"label value {frame['value'].iloc[bad]!r} is not a finite number.",
                    source=source,
                    row=bad + 2,
                    column="value",
                    fix="give a numeric value for every label or drop the value column.",
                )
            schema["label_values"] = dict(zip(schema["labels"], values.astype(float), strict=True))
        return schema
    data = frame_or_json
    if not isinstance(data, dict) or "labels" not in data:
        raise DataError(
            "schema.json must be an object with a 'labels' list.",
            source=source,
            fix='write {"labels": [...], "level_of_measurement": "nominal", "task_type": ...}.',
        )
    listed = data["labels"]
    names_ok = isinstance(listed, list) and all(
        isinstance(x, (str, int, float)) and not isinstance(x, bool) and str(x).strip() != ""
        and x == x for x in listed)
    if not names_ok:  # a string would be read letter by letter, a dict as its repr
        raise DataError(
            f"'labels' must be a list of label names, got {echo(listed, 80)}.",
            source=source,
            column="labels",
            fix='write the inventory in order as a JSON list of strings, e.g. '
            '{"labels": ["neg", "neu", "pos"]}.',
        )
    schema = {"labels": [str(x) for x in listed]}
    if "level_of_measurement" in data:
        schema["level"] = data["level_of_measurement"]
    if "task_type" in data:
        schema["task"] = data["task_type"]
    if "values" in data:
        values = data["values"]
        bad = ([k for k, v in values.items() if not _finite_number(v)]
               if isinstance(values, dict) else None)
        if bad is None or bad:
            shown = echo(values, 80) if bad is None else f"{bad[0]!r}: {echo(values[bad[0]])}"
            raise DataError(
                f"'values' must map each label to a finite number, got {shown}.",
                source=source,
                column="values",
                fix='write {"values": {"low": 1, "mid": 2, "high": 3}} (one number per label), '
                "or drop 'values'.",
            )
        schema["label_values"] = {str(k): float(v) for k, v in values.items()}
    return schema


def _finite_number(value) -> bool:
    """A JSON number (not a boolean, not NaN or infinite) for a label's value on a scale."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:  # an integer too large for a float
        return False


def read_canonical(
    source: Source,
    *,
    items: pd.DataFrame | None = None,
    annotators: pd.DataFrame | None = None,
    schema: dict | None = None,
    task: str | None = None,
    level: str | None = None,
    format_name: str = "canonical",
) -> Dataset:
    r"""Canonical long table ``item_id, annotator_id, label[, rank]`` (CSV/TSV/Parquet).

    A table with ``item_id, label, count`` and no ``annotator_id`` is read as counts
    (:func:`read_counts`); big plain CSVs take the columnar (integer-coded) path.

    Parameters
    ----------
    source : Source
        The table.
    items, annotators : pandas.DataFrame, optional
        Companion tables.
    schema : dict, optional
        :func:`read_schema` output.
    task, level : str, optional
        Override the inferred task and level of measurement.
    format_name : str, default "canonical"
        Format key for the report.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, row, column and fix for every problem.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> dataset = read_canonical(as_source(b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\n",
    ...                                    "annotations.csv"))
    >>> dataset.labels, dataset.n_annotators
    (('neg', 'pos'), 2)
    """
    columns = header_columns(source)  # a big plain CSV: no string table before the coded read
    frame = read_table(source) if columns is None else None
    columns = list(frame.columns) if frame is not None else columns
    if {"item_id", "label", "count"} <= set(columns) and "annotator_id" not in columns:
        return read_counts(source, frame=frame)
    coded = read_coded(source, ("item_id", "annotator_id", "label"))  # big files: integer codes
    frame = coded if coded is not None else frame if frame is not None else read_table(source)
    report = ImportReport(source.name, format_name, rows_read=len(frame))
    frame, evidence, origin = _explode_label_lists(frame, report, source.name)
    frame = _strip_cells(frame, report)
    schema = schema or {}
    return _in_file_rows(origin, source.name, lambda: build_dataset(
        frame,
        source=source.name,
        format=format_name,
        report=report,
        items=items,
        annotators=annotators,
        labels=schema.get("labels"),
        task=task or schema.get("task"),
        level=level or schema.get("level"),
        label_values=schema.get("label_values"),
        name=PurePosixPath(source.name).stem,
        multilabel_evidence=evidence,
    ))


def _in_file_rows(origin: np.ndarray | None, name: str, build, offset: int = 2):
    """Run ``build`` (a :func:`build_dataset` call on label lists exploded into one row per
    label) so that a row named by its error is the row of the file, not of the exploded table:
    ``origin[j]`` is the 0-based file row of exploded row ``j`` (None: nothing exploded)."""
    try:
        return build()
    except DataError as error:
        position = None if error.row is None else error.row - offset
        if (origin is None or error.source != name or position is None
                or not 0 <= position < len(origin)):
            raise
        raise DataError(error.problem, source=error.source,
                        row=int(origin[position]) + offset, column=error.column,
                        fix=error.fix) from error


def _explode_label_lists(frame: pd.DataFrame, report: ImportReport, name: str
                         ) -> tuple[pd.DataFrame, str | None, np.ndarray | None]:
    """A Parquet ``label`` column of lists (label sets): one row per label (multi-label
    evidence when a set holds several labels); empty sets and missing labels are refused as
    any missing label is (a missing annotation is a missing row)."""
    labels = frame["label"] if "label" in frame.columns else None
    if labels is None or labels.dtype != object or not labels.map(
            lambda v: isinstance(v, list)).any():
        return frame, None, None
    sizes = labels.map(lambda v: len(v) if isinstance(v, list) else 1)
    empty = sizes == 0
    if empty.any():
        row = int(np.flatnonzero(empty.to_numpy())[0])
        raise DataError(
            f"{int(empty.sum())} row(s) hold an empty label list; the first is shown.",
            source=name, row=row + 1, column="label",
            fix="drop the rows without labels (a missing annotation is a missing row).",
        )
    exploded = frame.reset_index(drop=True).explode("label")
    origin = exploded.index.to_numpy()  # the file row of each exploded row
    exploded = exploded.reset_index(drop=True)
    report.note(f"Parquet label lists read as label sets: {len(frame)} row(s) -> "
                f"{len(exploded)} (item, annotator, label) row(s).")
    several = int((sizes > 1).sum())
    evidence = f"{several} Parquet label list(s) with several labels" if several else None
    return exploded, evidence, origin


def read_canonical_zip(source: Source, *, task: str | None = None, level: str | None = None):
    r"""A zip of the canonical files: ``annotations.csv`` (required; or ``label_counts.csv``),
    optional ``items.csv``, ``annotators.csv``, ``labels.csv``/``schema.json``,
    ``predictions.csv``. Files may sit in one sub-folder.

    Parameters
    ----------
    source : Source
        The zip.
    task, level : str, optional
        Override the inferred task and level of measurement.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, row, column and fix for every problem.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    ``labels.csv`` fixes the inventory order (``mid`` is a label nobody chose):

    >>> import io, zipfile
    >>> from hlv_core.io import as_source
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("toy/annotations.csv", "item_id,annotator_id,label\ni1,a,low\ni1,b,high\n")
    ...     z.writestr("toy/labels.csv", "label\nlow\nmid\nhigh\n")
    >>> read_canonical_zip(as_source(buffer.getvalue(), "toy.zip")).labels
    ('low', 'mid', 'high')
    """
    archive = open_zip(source, fix="zip only the dataset files (annotations.csv, items.csv, "
                       "annotators.csv, labels.csv).")
    infos = [
        info for info in archive.infolist()
        if not info.is_dir() and not PurePosixPath(info.filename).name.startswith(".")
        and "__MACOSX" not in PurePosixPath(info.filename).parts
    ]
    members: dict[str, str] = {}
    for info in infos:
        base = PurePosixPath(info.filename).name
        if base in members and base in _ZIP_WANTED:
            raise DataError(
                f"the zip holds two files named {base!r}: {members[base]!r} and "
                f"{info.filename!r}; only one can be read.",
                source=source.name,
                fix="zip one dataset at a time (remove or rename one of the two files).",
            )
        members.setdefault(base, info.filename)
    _refuse_companions_elsewhere(members, source.name)
    files = _ZipMembers(archive, members, source.name)
    return read_canonical_files(files, source=source.name, task=task, level=level,
                                name=PurePosixPath(source.name).stem, container="zip")


def _refuse_companions_elsewhere(members: dict[str, str], name: str) -> None:
    """Every dataset file of a zip must sit in the folder of its annotations: an items.csv in
    another folder belongs to another dataset (refused naming both paths)."""
    anchor = next((members[b] for b in sorted(members) if b in _ZIP_WANTED
                   and b.split(".")[0] in ("annotations", "label_counts")), None)
    if anchor is None:
        return
    folder = PurePosixPath(anchor).parent
    for base in sorted(members):
        path = members[base]
        if base in _ZIP_WANTED and PurePosixPath(path).parent != folder:
            raise DataError(
                f"{path!r} is in another folder of the zip than {anchor!r}; a companion file "
                "from another folder may belong to another dataset.",
                source=name,
                fix=f"put {base} beside {PurePosixPath(anchor).name} (one dataset per folder), "
                "or remove it.",
            )


class _ZipMembers(Mapping):
    """The members of a zip by base name, inflated on first access (within the inflated-size
    limit in total, :mod:`hlv_core.io.limits`)."""

    def __init__(self, archive: zipfile.ZipFile, members: dict[str, str], name: str) -> None:
        self._archive, self._members, self._name = archive, members, name
        self._budget = InflateBudget()
        self._inflated: dict[str, Source] = {}

    def __getitem__(self, base: str) -> Source:
        if base not in self._inflated:
            raw = read_member(self._archive, self._members[base], self._budget, self._name)
            self._inflated[base] = Source(raw, f"{self._name}/{base}")
        return self._inflated[base]

    def __iter__(self):
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)


def read_canonical_files(
    files: Mapping[str, Source],
    *,
    source: str,
    task: str | None = None,
    level: str | None = None,
    name: str | None = None,
    container: str = "folder",
) -> Dataset:
    r"""The canonical files of one dataset, by file name: ``annotations.csv`` (required; or
    ``label_counts.csv``; ``.tsv`` / ``.parquet`` also), optional ``items.csv``,
    ``annotators.csv``, ``labels.csv`` / ``schema.json`` and ``predictions.csv``. The zip reader
    and the folder reader (:func:`hlv_core.io.load` on a folder) both build ``files``; the
    dataset is built whole (predictions and ``name`` included).

    Parameters
    ----------
    files : mapping of str to Source
        File name -> file.
    source : str
        Zip or folder name for messages.
    task, level : str, optional
        Override the inferred task and level of measurement.
    name : str, optional
        Dataset name (default: the stem of ``source``).
    container : str, default "folder"
        ``"folder"`` or ``"zip"`` (for messages).

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, row, column and fix for every problem.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> files = {"annotations.csv": as_source(b"item_id,annotator_id,label\ni1,a,low\ni1,b,high\n",
    ...                                       "annotations.csv"),
    ...          "labels.csv": as_source(b"label\nlow\nmid\nhigh\n", "labels.csv")}
    >>> dataset = read_canonical_files(files, source="toy")
    >>> dataset.name, dataset.labels
    ('toy', ('low', 'mid', 'high'))
    """
    dataset_name = name or PurePosixPath(source).stem

    def member(base: str) -> Source | None:
        stem = base.rsplit(".", 1)[0]
        found = [f"{stem}{ext}" for ext in (".csv", ".tsv", ".parquet", ".json")
                 if f"{stem}{ext}" in files and (stem == "schema") == (ext == ".json")]
        if len(found) > 1:  # the same table twice, in two formats: which one is meant?
            raise DataError(
                f"the {container} holds {stem} twice, as {found[0]!r} and {found[1]!r}; only "
                "one can be read and they may differ.",
                source=source,
                fix=f"keep one of {found[0]} and {found[1]} (delete or rename the other).",
            )
        return files[found[0]] if found else None

    if (member("annotations.csv") is not None) and (member("label_counts.csv") is not None):
        raise DataError(
            f"the {container} holds both annotations and label_counts; only one can be read.",
            source=source,
            fix="keep annotations.csv (with annotator ids) or label_counts.csv, not both.",
        )

    ann_src = member("annotations.csv") or member("label_counts.csv")
    if ann_src is None:
        raise DataError(
            f"the {container} has no annotations.csv (found {echo(sorted(files), 200)}).",
            source=source,
            fix=f"put annotations.csv (item_id, annotator_id, label) at the top of the "
            f"{container}.",
        )
    items = read_table(member("items.csv")) if member("items.csv") else None
    annotators = read_table(member("annotators.csv")) if member("annotators.csv") else None
    for table, name in ((items, "items.csv"), (annotators, "annotators.csv")):
        key = "item_id" if name == "items.csv" else "annotator_id"
        if table is not None and key not in table.columns:
            raise DataError(
                f"{name} has no '{key}' column.",
                source=f"{source}/{name}",
                row=1,
                column=key,
                fix=f"add a '{key}' column matching annotations.csv.",
            )
        if table is not None:
            check_companion_ids(table, key, member(name).name)
    schema = None
    if member("schema.json"):
        src = member("schema.json")
        schema = read_schema(read_json(src), source=src.name)
    if member("labels.csv"):
        src = member("labels.csv")
        listed = read_schema(read_table(src), source=src.name)
        if schema is not None:
            _refuse_disagreeing_schemas(schema, listed, member("schema.json").name, src.name)
        else:
            schema = listed
    if PurePosixPath(ann_src.name).name.startswith("label_counts"):
        dataset = read_counts(ann_src, items=items, schema=schema)
    else:
        dataset = read_canonical(
            ann_src,
            items=items,
            annotators=annotators,
            schema=schema,
            task=task,
            level=level,
            format_name="canonical zip",
        )
    pred_src = member("predictions.csv")
    if pred_src is not None:
        from .predictions import load_predictions

        preds = load_predictions(pred_src.raw, dataset, name=pred_src.name)
        dataset = dataclasses.replace(dataset, predictions=preds)
        dataset.report.note(f"predictions loaded for {preds['model'].nunique()} model(s).")
    return dataclasses.replace(dataset, name=dataset_name)


def check_companion_ids(table: pd.DataFrame, key: str, name: str) -> None:
    """An items or annotators table names each id once, in a non-empty cell: a second row for
    an id (its text or traits would silently replace the first's) or an empty id (a row that
    belongs to no one) is refused naming the companion file and its row.

    Parameters
    ----------
    table : pandas.DataFrame
        The companion table as read (strings, empty cells missing).
    key : str
        ``"item_id"`` or ``"annotator_id"``.
    name : str
        The companion file's name for the message.

    Returns
    -------
    None
        Nothing when every id is on one row.

    Raises
    ------
    DataError
        An empty id cell, or an id on two rows (look-alike spellings are one id,
        :func:`~hlv_core.io.spelling.normalise_spelling`).

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    >>> import pandas as pd
    >>> check_companion_ids(pd.DataFrame({"annotator_id": ["a", "b ", "b"]}), "annotator_id",
    ...                     "annotators.csv")
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'annotators.csv', row 4, column 'annotator_id': annotator_id 'b' is on two rows (rows 3 and 4). How to fix: keep one row per annotator_id (merge the two rows).
    """
    ids = table[key].astype(object)
    text = ids.where(ids.notna(), "").astype(str)
    changes = spelling_changes(pd.Index(text.unique(), dtype=str))  # look-alikes are one id
    if changes:
        text = text.map(lambda v: changes.get(v, v))
    empty = (text == "").to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise DataError(
            f"empty {key} in {int(empty.sum())} row(s); the first is shown.",
            source=name,
            row=row + 2,
            column=key,
            fix=f"give every row its {key}, or delete the rows without one.",
        )
    repeated = text.duplicated().to_numpy()
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        first = int(np.flatnonzero((text == text.iloc[row]).to_numpy())[0])
        raise DataError(
            f"{key} {echo(text.iloc[row])} is on two rows (rows {first + 2} and {row + 2}).",
            source=name,
            row=row + 2,
            column=key,
            fix=f"keep one row per {key} (merge the two rows).",
        )


def _refuse_disagreeing_schemas(schema: dict, listed: dict, schema_name: str,
                                labels_name: str) -> None:
    """``schema.json`` and ``labels.csv`` both give the label inventory (and maybe values):
    they must agree, or the dataset says two things."""
    if list(schema["labels"]) != list(listed["labels"]):
        raise DataError(
            f"{schema_name} lists the labels {echo(schema['labels'], 120)} but {labels_name} "
            f"lists {echo(listed['labels'], 120)}; the label order fixes every tie-break, so "
            "the two must agree.",
            source=labels_name,
            column="label",
            fix="keep one of the two files, or write the same labels in the same order in both.",
        )
    both = set(schema.get("label_values", {})) & set(listed.get("label_values", {}))
    differ = [x for x in sorted(both)
              if schema["label_values"][x] != listed["label_values"][x]]
    if differ:
        raise DataError(
            f"{schema_name} and {labels_name} give label {differ[0]!r} different values "
            f"({schema['label_values'][differ[0]]:g} and {listed['label_values'][differ[0]]:g}).",
            source=labels_name,
            column="value",
            fix="keep one of the two files, or give every label the same value in both.",
        )


#: Base names of the dataset files a zip may hold (one of each; all beside the annotations).
_ZIP_WANTED = {
    f"{stem}{ext}"
    for stem in ("annotations", "label_counts", "items", "annotators", "labels", "schema",
                 "predictions")
    for ext in (".csv", ".tsv", ".parquet", ".json")
}


def _parse_list_label(text: str):
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError):
            return None
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value]
    return None


def read_crowdkit(source: Source, *, task: str | None = None, level: str | None = None):
    r"""crowd-kit long table ``task, worker, label`` (legacy ``performer``); list-valued labels
    (``['a', 'b']``) are exploded into one row per label (multi-label).

    Parameters
    ----------
    source : Source
        The table.
    task, level : str, optional
        Override the inferred task and level of measurement.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, row, column and fix for every problem.

    References
    ----------
    .. [1] D. Ustalov, N. Pavlichenko and B. Tseitlin (2024), "Learning from crowds with
       Crowd-Kit", Journal of Open Source Software (the long ``task, worker, label`` layout).

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> raw = b"task,worker,label\nt1,w1,\"['a', 'b']\"\nt1,w2,a\n"
    >>> dataset = read_crowdkit(as_source(raw, "crowdkit.csv"))
    >>> dataset.task, dataset.annotations.to_numpy().tolist()
    ('multilabel', [['t1', 'w1', 'a'], ['t1', 'w1', 'b'], ['t1', 'w2', 'a']])
    """
    frame = _strip_cells(read_table(source))
    worker = "worker" if "worker" in frame.columns else "performer"
    missing = [c for c in ("task", worker, "label") if c not in frame.columns]
    if missing:
        raise DataError(
            f"crowd-kit format needs columns task, worker, label; missing {missing}.",
            source=source.name,
            row=1,
            column=missing[0],
            fix="rename the columns or choose another format.",
        )
    report = ImportReport(source.name, "crowd-kit", rows_read=len(frame))
    rows = frame.rename(columns={"task": "item_id", worker: "annotator_id"})
    parsed = rows["label"].map(lambda v: _parse_list_label(v) if isinstance(v, str)
                               else v if isinstance(v, list) else None)  # Parquet lists
    evidence = None
    if parsed.map(lambda v: v is not None and len(v) > 1).any():
        evidence = "crowd-kit list-valued labels with several entries"
    if parsed.notna().any():
        empty = parsed.map(lambda v: v is not None and len(v) == 0)
        if empty.any():
            report.drop("empty label lists", int(empty.sum()))
        rows = rows.assign(label=parsed.where(parsed.notna(), rows["label"].map(lambda v: [v])))
        rows = rows.explode("label").dropna(subset=["label"])
        report.note("list-valued labels exploded into one row per label (multi-label).")
    origin = rows.index.to_numpy()  # the file row of each (exploded) row
    return _in_file_rows(origin, source.name, lambda: build_dataset(
        rows[["item_id", "annotator_id", "label"]].reset_index(drop=True),
        source=source.name,
        format="crowd-kit",
        report=report,
        task=task,
        multilabel_evidence=evidence,
        level=level,
        name=PurePosixPath(source.name).stem,
    ))


def read_wide(
    source: Source,
    *,
    orientation: str | None = None,
    task: str | None = None,
    level: str | None = None,
):
    r"""Wide matrix. ``orientation="items"``: rows = items (first column the item id), one column
    per annotator. ``orientation="annotators"``: rows = annotators (krippendorff
    ``reliability_data`` layout), one column per item. Empty cells = missing annotation.

    When ``orientation`` is None it is inferred from the first header cell
    (``item_id``/``item`` -> items, ``annotator_id``/``annotator``/``coder`` -> annotators);
    otherwise a :class:`DataError` asks the user to choose.

    Parameters
    ----------
    source : Source
        The table.
    orientation : {"items", "annotators"}, optional
        What a row is (default: from the first header cell).
    task, level : str, optional
        Override the inferred task and level of measurement.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, row, column and fix for every problem.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> dataset = read_wide(as_source(b"item_id,ann1,ann2\ni1,pos,neg\ni2,pos,\n", "wide.csv"))
    >>> dataset.annotations.to_numpy().tolist()
    [['i1', 'ann1', 'pos'], ['i2', 'ann1', 'pos'], ['i1', 'ann2', 'neg']]
    """
    frame = read_table(source)  # cells stripped after the melt: one column, not one per annotator
    first = frame.columns[0]
    if orientation is None:
        if first.lower() in _ITEM_ALIASES:
            orientation = "items"
        elif first.lower() in _ANNOTATOR_ALIASES:
            orientation = "annotators"
        else:
            raise DataError(
                f"cannot tell whether rows are items or annotators (first header {first!r}).",
                source=source.name,
                row=1,
                column=first,
                fix="name the first column item_id (rows = items) or annotator_id (rows = "
                "annotators), or pick the orientation in the format override.",
            )
    if orientation not in ("items", "annotators"):
        raise DataError(
            f"unknown orientation {orientation!r}.",
            source=source.name,
            fix="use 'items' or 'annotators'.",
        )
    ids = frame[first].str.strip()
    if ids.isna().any():
        bad = int(np.flatnonzero(ids.isna().to_numpy())[0])
        raise DataError(
            "empty id in the first column.",
            source=source.name,
            row=bad + 2,
            column=first,
            fix="give every row an id.",
        )
    if ids.duplicated().any():
        bad = int(np.flatnonzero(ids.duplicated().to_numpy())[0])
        raise DataError(
            f"id {ids.iloc[bad]!r} appears twice in the first column.",
            source=source.name,
            row=bad + 2,
            column=first,
            fix="merge the duplicated rows.",
        )
    # melt by hand (column after column, as DataFrame.melt orders it): one 2-D array, no
    # per-column pandas work, so a file with 10,000 annotator columns stays fast
    others = [c for c in frame.columns if c != first]
    cells = frame[others].to_numpy(dtype=object, na_value=None)
    long = pd.DataFrame({
        first: np.tile(ids.to_numpy(dtype=object), len(others)),
        "other": np.repeat(np.asarray(others, dtype=object), len(frame)),
        "label": pd.Series(cells.T.ravel(), dtype=str),
    })
    report = ImportReport(source.name, f"wide ({orientation} x ...)", rows_read=len(frame))
    long = _strip_cells(long, report)
    missing = is_missing_spelling(long["label"])
    if missing.any():
        # a matrix has no row to leave out: every spelling on the one list is a missing cell
        spelled = long.loc[missing, "label"].fillna("").map(
            lambda v: "empty" if v == "" else repr(v)
        )
        found = ", ".join(f"{k}: {v}" for k, v in spelled.value_counts(sort=False).items())
        report.note(
            f"{int(missing.sum())} cell(s) read as missing annotations ({found}); the list of "
            "missing-value spellings is hlv_core.io.MISSING_SPELLINGS."
        )
    long = long[~missing]
    if orientation == "items":
        long = long.rename(columns={first: "item_id", "other": "annotator_id"})
    else:
        long = long.rename(columns={first: "annotator_id", "other": "item_id"})
    return build_dataset(
        long[["item_id", "annotator_id", "label"]].reset_index(drop=True),
        source=source.name,
        format=report.format,
        report=report,
        task=task,
        level=level,
        name=PurePosixPath(source.name).stem,
    )


#: Bytes one expanded anonymous annotation row needs (three object cells and the integer work
#: arrays), for the parse-memory limit before the rows are made.
_EXPANDED_ROW_BYTES = 200


def expand_counts(counts: np.ndarray, item_ids, labels, *, source: str = "counts"
                  ) -> pd.DataFrame:
    """One anonymous annotation row per count. Anonymous ids are unique per item
    (``<item>#<j>``) so they never link annotators across items.

    Parameters
    ----------
    counts : numpy.ndarray
        (N, K) non-negative integer counts.
    item_ids : sequence of str
        The N items.
    labels : sequence of str
        The K labels.
    source : str, default "counts"
        File name for the message when the rows would not fit the parse-memory limit.

    Returns
    -------
    pandas.DataFrame
        ``item_id, annotator_id, label``, one row per count.

    Raises
    ------
    DataError
        The counts add up to more rows than the parse-memory limit allows
        (:mod:`hlv_core.io.limits`).

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    >>> import numpy as np
    >>> expand_counts(np.array([[2, 1], [0, 1]]), ["i1", "i2"], ["pos", "neg"])
      item_id annotator_id label
    0      i1         i1#1   pos
    1      i1         i1#2   pos
    2      i1         i1#3   neg
    3      i2         i2#1   neg
    """
    n, k = counts.shape
    total = int(counts.sum(dtype=np.float64))  # float: a sum past int64 must not wrap
    check_limit("parse", total * _EXPANDED_ROW_BYTES,
                what=f"the counts add up to {total:,} annotation rows, which would need about",
                source=source, fix="check the count column (counts are numbers of annotators).")
    reps = counts.ravel()
    item_idx = np.repeat(np.repeat(np.arange(n), k), reps)
    label_idx = np.repeat(np.tile(np.arange(k), n), reps)
    # position of each row within its item -> anonymous annotator number
    starts = np.concatenate([[0], np.cumsum(counts.sum(axis=1))[:-1]])
    within = np.arange(len(item_idx)) - np.repeat(starts, counts.sum(axis=1))
    items_arr = np.asarray(item_ids, dtype=object)
    return pd.DataFrame(
        {
            "item_id": items_arr[item_idx],
            "annotator_id": pd.Series(items_arr[item_idx]).astype(str).to_numpy()
            + "#"
            + (within + 1).astype(str),
            "label": np.asarray(labels, dtype=object)[label_idx],
        }
    )


def read_counts(
    source: Source,
    *,
    frame: pd.DataFrame | None = None,
    items: pd.DataFrame | None = None,
    schema: dict | None = None,
    labels: list[str] | None = None,
):
    r"""Counts without annotator ids: long ``item_id, label, count`` (our ``label_counts.csv``),
    or a NumPy ``.npy`` items x classes matrix (CIFAR-10H ``cifar10h-counts.npy``; pass
    ``labels`` for class names, default ``0..K-1``).

    Each count becomes an anonymous annotation (:func:`expand_counts`,
    ``annotator_ids_known=False``).

    Parameters
    ----------
    source : Source
        The counts table or ``.npy`` matrix.
    frame : pandas.DataFrame, optional
        The table, when already read.
    items : pandas.DataFrame, optional
        Item table.
    schema : dict, optional
        :func:`read_schema` output.
    labels : list of str, optional
        Class names of a ``.npy`` matrix.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, row, column and fix for every problem.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> dataset = read_counts(as_source(b"item_id,label,count\ni1,pos,2\ni1,neg,1\n",
    ...                                 "label_counts.csv"))
    >>> dataset.labels, dataset.counts_array().tolist(), dataset.annotator_ids_known
    (('neg', 'pos'), [[1, 2]], False)
    """
    report = ImportReport(source.name, "counts")
    if source.suffix == ".npy":
        matrix = read_npy(source)
        if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.number):
            raise DataError(
                f"expected a 2-D numeric items x classes array, got shape {matrix.shape}.",
                source=source.name,
                fix="save the counts as an (N, K) integer array.",
            )
        if not np.all(np.isfinite(matrix)):
            raise DataError(
                "the counts matrix holds NaN or infinite values.",
                source=source.name,
                fix="save the counts as an (N, K) array of whole numbers >= 0.",
            )
        if np.any(matrix < 0) or np.any(matrix != np.round(matrix)):
            raise DataError(
                "counts must be whole numbers >= 0 (this looks like probabilities).",
                source=source.name,
                fix="load the counts file (cifar10h-counts.npy), not the probabilities.",
            )
        if labels is not None and len(labels) != matrix.shape[1]:
            raise DataError(
                f"{len(labels)} class name(s) given for a matrix of {matrix.shape[1]} "
                "column(s); the names are matched to the columns by position.",
                source=source.name,
                fix="give exactly one class name per column of the counts matrix, in column "
                "order.",
            )
        inventory = labels or [str(j) for j in range(matrix.shape[1])]
        counts = matrix.astype(np.int64)
        item_ids = [str(i) for i in range(matrix.shape[0])]
        report.rows_read = matrix.shape[0]
    else:
        frame = _strip_cells(frame if frame is not None else read_table(source))
        missing = [c for c in ("item_id", "label", "count") if c not in frame.columns]
        if missing:
            raise DataError(
                f"counts format needs columns item_id, label, count; missing {missing}.",
                source=source.name,
                row=1,
                column=missing[0],
                fix="write one row per (item, label) with its count.",
            )
        report.rows_read = len(frame)
        values = pd.to_numeric(frame["count"], errors="coerce")
        bad = values.isna() | (values < 0) | (values % 1 != 0) | (values >= 2**53)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(
                f"count {frame['count'].iloc[row]!r} is not a whole number >= 0.",
                source=source.name,
                row=row + 2,
                column="count",
                fix="counts are numbers of annotators (0, 1, 2, ...).",
            )
        for column in ("item_id", "label"):
            empty = frame[column].isna()
            if empty.any():
                row = int(np.flatnonzero(empty.to_numpy())[0])
                raise DataError(
                    f"empty {column}.", source=source.name, row=row + 2, column=column,
                    fix="fill the cell or drop the row.",
                )
        dup = frame.duplicated(["item_id", "label"])
        if dup.any():
            row = int(np.flatnonzero(dup.to_numpy())[0])
            raise DataError(
                f"({frame['item_id'].iloc[row]!r}, {frame['label'].iloc[row]!r}) is listed twice.",
                source=source.name,
                row=row + 2,
                column="label",
                fix="keep one row per (item_id, label).",
            )
        schema = schema or {}
        inventory = schema.get("labels") or list(order_labels(frame["label"].unique()))
        unknown = ~frame["label"].isin(set(inventory))
        if unknown.any():  # the pivot below would drop these counts without a word
            row = int(np.flatnonzero(unknown.to_numpy())[0])
            raise DataError(
                f"label {echo(frame['label'].iloc[row])} is not in the label schema "
                f"{echo(list(inventory), 120)} ({int(unknown.sum())} row(s)).",
                source=source.name,
                row=row + 2,
                column="label",
                fix="add the label to labels.csv / schema.json or correct the counts.",
            )
        item_ids = list(pd.unique(frame["item_id"]))
        table = (
            frame.assign(count=values.astype(np.int64))
            .pivot(index="item_id", columns="label", values="count")
            .reindex(index=item_ids, columns=inventory)
            .fillna(0)
        )
        counts = table.to_numpy(dtype=np.int64)
    zero = counts.sum(axis=1) == 0
    if zero.any():
        report.drop("items with zero counts", int(zero.sum()))
        counts = counts[~zero]
        item_ids = [x for x, z in zip(item_ids, zero, strict=True) if not z]
    annotations = expand_counts(counts, item_ids, inventory, source=source.name)
    report.note(
        f"counts expanded to {len(annotations)} anonymous annotations (ids unique per item)."
    )
    return build_dataset(
        annotations,
        source=source.name,
        format="counts",
        report=report,
        items=items,
        labels=inventory,
        task="multiclass",
        level="nominal",
        annotator_ids_known=False,
        name=PurePosixPath(source.name).stem,
        row_offset=2,
    )
