"""``load``: one entry point for every input format, with auto-detection and an override."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import pandas as pd

from ._read import (
    READABLE_BINARY,
    Source,
    as_source,
    header_columns,
    read_file,
    read_json,
    read_jsonl,
    read_table,
    refuse_binary,
    refuse_spreadsheet,
)
from .cifar10h import looks_like_cifar10h_raw, read_cifar10h_raw
from .dataset import Dataset, echo
from .errors import DataError
from .opinions import ranked_json_layout, read_opinions
from .rankings import read_lines, read_selectors
from .tabular import (
    check_companion_ids,
    read_canonical,
    read_canonical_files,
    read_canonical_zip,
    read_counts,
    read_crowdkit,
    read_wide,
)

__all__ = [
    "COMPANION_OPTIONS",
    "FORMATS",
    "companion_option",
    "detect_format",
    "load",
    "load_table",
    "load_traits",
    "route_companions",
]

#: Format names accepted by ``load(format=...)``, with a one-line description for the UI.
FORMATS: dict[str, str] = {
    "auto": "detect from the file name and contents",
    "canonical": "long CSV/TSV/Parquet: item_id, annotator_id, label [, rank]",
    "canonical_zip": "zip of annotations.csv + items.csv + annotators.csv + labels.csv/schema.json",
    "crowdkit": "crowd-kit long table: task, worker (or performer), label",
    "wide_items": "wide matrix, rows = items, one column per annotator",
    "wide_annotators": "wide matrix, rows = annotators, one column per item",
    "counts": "item_id, label, count (or an items x classes .npy matrix)",
    "cifar10h_raw": "CIFAR-10H raw per-annotator CSV (cifar10h-raw.csv)",
    "lewidi2023": "LeWiDi 2023 JSON",
    "lewidi2025": "LeWiDi 2025 JSON (+ *_annotators_meta.json)",
    "chaosnli": "ChaosNLI JSON Lines (counts only)",
    "selectors": "DeepMind selectors JSON: partial rankings with ties",
    "opinions": "DeepMind opinions JSON: per case a readers x classes confidence matrix",
    "labelstudio": "Label Studio JSON export",
    "prodigy": "Prodigy JSONL (db-out)",
}

_JSON_FORMATS = ("lewidi2023", "lewidi2025", "chaosnli", "labelstudio", "prodigy")

#: The options each non-JSON reader reads (the JSON formats' are ``json_formats._OPTIONS``).
_FORMAT_OPTIONS = {"canonical": ("items", "annotators", "labels"), "counts": ("labels",),
                   "selectors": ("conditions", "risks"), "opinions": ("conditions", "risks"),
                   "cifar10h_raw": ("labels",)}
#: Every option name :func:`load` knows.
LOAD_OPTIONS = ("annotators", "conditions", "control", "items", "labels", "meta", "risks",
                "view")


def _json_module():
    from . import json_formats

    return json_formats


def detect_format(source: Source) -> str:
    r"""Guess the format of an input from its extension and its header / JSON structure.

    Parameters
    ----------
    source : Source
        The raw input (:func:`~hlv_core.io.as_source`).

    Returns
    -------
    str
        A key of :data:`FORMATS` (never ``"auto"``).

    Raises
    ------
    DataError
        A JSON file of an unknown layout, or an unreadable header.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> detect_format(as_source(b"item_id,annotator_id,label\n", "annotations.csv"))
    'canonical'
    >>> detect_format(as_source(b"PK\x03\x04", "bundle.zip"))
    'canonical_zip'
    """
    suffix = source.suffix
    if suffix == ".zip" or source.raw[:4] == b"PK\x03\x04":
        return "canonical_zip"
    if suffix == ".npy":
        return "counts"
    if suffix in (".json", ".jsonl", ".ndjson"):
        if suffix == ".json":
            data = read_json(source)
            layout = ranked_json_layout(data)  # opinions (depth 3) vs selectors (depth 4)
            if layout is not None:
                return layout
            found = _json_module().detect_json(data)
        else:
            found = _json_module().detect_jsonl(read_jsonl(source))
        if found is None:
            raise DataError(
                "JSON file of an unknown layout (not LeWiDi 2023/2025, selectors, opinions, "
                "Label Studio, Prodigy or ChaosNLI).",
                source=source.name,
                fix="choose the format explicitly in the format override, or convert to the "
                "canonical CSV (item_id, annotator_id, label).",
            )
        return found
    header = header_columns(source)  # a big plain CSV: its header line, not the whole table
    names = header if header is not None else list(read_table(source).columns)
    columns = set(names)
    if looks_like_cifar10h_raw(columns):
        return "cifar10h_raw"
    if {"item_id", "annotator_id", "label"} <= columns:
        return "canonical"
    if {"task", "label"} <= columns and columns & {"worker", "performer"}:
        return "crowdkit"
    if {"item_id", "label", "count"} <= columns:
        return "counts"
    if "label" in columns:
        # a long table whose id column is misnamed must not be read as a wide matrix
        missing = [c for c in ("item_id", "annotator_id") if c not in columns]
        raise DataError(
            f"the file has a 'label' column but no {' / '.join(missing)} column (found "
            f"{_columns_text(columns)}).",
            source=source.name,
            row=1,
            column=missing[0],
            fix="name the columns item_id, annotator_id, label (canonical long format), or "
            "choose the format in the override.",
        )
    first = names[0].lower()
    _refuse_misnamed_long(source, names)
    if first in ("item_id", "item", "unit", "unit_id", "text_id", "id"):
        return "wide_items"
    if first in ("annotator_id", "annotator", "worker", "coder", "rater"):
        return "wide_annotators"
    raise DataError(
        f"cannot recognise the columns {_columns_text(columns)}.",
        source=source.name,
        row=1,
        fix="use item_id, annotator_id, label (canonical long format), or choose the format "
        "in the override (wide matrix, counts, crowd-kit, ...).",
    )


_LONG_ITEM = ("item", "unit", "unit_id", "text_id", "id", "task", "item_id")
_LONG_ANNOTATOR = ("annotator", "worker", "worker_id", "coder", "rater", "rater_id", "user",
                   "user_id", "annotator_id", "judge", "participant")


def _columns_text(columns, limit: int = 12) -> str:
    """The header cells for a message: at most ``limit`` names, each truncated."""
    names = sorted(str(c) for c in columns)
    shown = [repr(c if len(c) <= 40 else c[:39] + "…") for c in names[:limit]]
    more = f", … ({len(names) - limit} more)" if len(names) > limit else ""
    return "[" + ", ".join(shown) + more + "]"


def _refuse_misnamed_long(source: Source, columns: list[str]) -> None:
    """A long table with other column names (``id, rater, answer``) is not a wide matrix."""
    lowered = [c.lower() for c in columns]
    item = next((c for c, low in zip(columns, lowered, strict=True) if low in _LONG_ITEM), None)
    annotator = next(
        (c for c, low in zip(columns, lowered, strict=True) if low in _LONG_ANNOTATOR), None
    )
    if item is None or annotator is None or len(columns) > 4:
        return
    rest = [c for c in columns if c not in (item, annotator)]
    mapping = f"{item!r} -> item_id, {annotator!r} -> annotator_id"
    if rest:
        mapping += f", {rest[0]!r} -> label"
    raise DataError(
        f"the columns {_columns_text(columns)} look like a long table (one row per label) with "
        "non-standard names, not a wide matrix.",
        source=source.name,
        row=1,
        column=rest[0] if rest else annotator,
        fix=f"rename the header to item_id, annotator_id, label ({mapping}), or choose the "
        "format wide_items / wide_annotators in the override if it really is a matrix.",
    )


def load(
    path_or_buffer: str | Path | bytes | IO[bytes],
    format: str = "auto",
    *,
    name: str | None = None,
    task: str | None = None,
    level: str | None = None,
    **options,
) -> Dataset:
    r"""Load a dataset in any supported format (see :data:`FORMATS`) into one validated :class:`Dataset`.

    Every reader ends in the canonical long table ``item_id, annotator_id, label`` (+ ``rank``
    for rankings) with the label inventory, items, annotator traits and an import report (what
    was read, dropped and why). Nothing is coerced silently: labels stay strings as written,
    duplicates and malformed rows are errors naming file, row, column and the fix.

    Parameters
    ----------
    path_or_buffer : str, pathlib.Path, bytes or binary file-like
        The file or folder (an upload's bytes need ``name`` so the extension is known).
    format : str, default "auto"
        ``"auto"`` or a key of :data:`FORMATS`.
    name : str, optional
        Display / file name used in messages.
    task : str, optional
        Override the inferred task: ``"multiclass"``, ``"multilabel"``, ``"ranking"`` or
        ``"rating"``.
    level : str, optional
        Override the level of measurement: ``"nominal"``, ``"ordinal"``, ``"interval"`` or
        ``"ratio"``.
    **options
        Format specific: ``meta`` (LeWiDi 2025 annotator metadata, path/bytes),
        ``conditions``/``risks`` (selectors and opinions; lists of strings or paths), ``labels``
        (class names by index of a ``.npy`` counts matrix or of ``cifar10h_raw``; a list or a
        one-name-per-line file), ``control`` (Label Studio control tag name), and the companion
        files of :data:`COMPANION_OPTIONS`.

    Returns
    -------
    Dataset
        ``.annotations`` (long DataFrame), ``.labels`` (ordered inventory), ``.items``,
        ``.annotators``, ``.task``, ``.level``, ``.report``.

    Raises
    ------
    DataError
        For every problem with the input; the message names file, row, column and a fix.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> csv = b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\ni2,a,pos\n"
    >>> dataset = load(csv, name="toy.csv")
    >>> dataset.task, dataset.labels, dataset.n_items
    ('multiclass', ('neg', 'pos'), 2)
    >>> dataset.judgements_array()
    array([[0.5, 0.5],
           [0. , 1. ]])
    >>> load(b"item_id,annotator_id,label\ni1,a,pos\ni1,a,pos\n", name="dup.csv")
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'dup.csv', row 3, column 'label': duplicate annotation ('i1', 'a', 'pos'); the file has 1 repeated row(s), the first repeat is shown. How to fix: keep one row per (item_id, annotator_id, label); remove the repeated rows.
    """
    unknown = sorted(set(options) - set(LOAD_OPTIONS))
    if unknown:  # a misspelt option would otherwise be dropped without a word
        raise TypeError(f"load() got unknown option(s) {unknown}; the options are "
                        f"{list(LOAD_OPTIONS)}.")
    if isinstance(path_or_buffer, (str, Path)) and Path(path_or_buffer).is_dir():
        given = sorted(k for k, v in options.items() if v is not None)
        if given:  # the folder's own items.csv / annotators.csv / labels.csv say otherwise?
            raise DataError(
                f"options {given} were given with a folder, which brings its own companion "
                "files; it is not clear which should win.",
                source=str(path_or_buffer),
                fix="put the companion file in the folder under its canonical name "
                    "(annotators.csv, items.csv, labels.csv), or load the annotations file "
                    "with the option.",
            )
        try:
            return _load_folder(Path(path_or_buffer), task=task, level=level, name=name)
        except DataError:
            raise
        except (RecursionError, ValueError, OverflowError) as exc:
            raise DataError(
                f"the folder could not be read ({type(exc).__name__}: {str(exc)[:200]}).",
                source=str(path_or_buffer),
                fix="check the files are a supported format and not corrupted.",
            ) from exc
    source = as_source(path_or_buffer, name)
    try:
        return _load_source(source, format, task=task, level=level, **options)
    except DataError:
        raise
    except (RecursionError, ValueError, OverflowError) as exc:
        # A reader met input it has no specific message for: still one clear DataError.
        kind = "nested too deeply" if isinstance(exc, RecursionError) else "not readable"
        raise DataError(
            f"the file is {kind} ({type(exc).__name__}: {str(exc)[:200]}).",
            source=source.name,
            fix="check the file is a supported format (see the format list) and not corrupted.",
        ) from exc


def _load_source(
    source: Source, format: str, *, task: str | None, level: str | None, **options
) -> Dataset:
    if format not in FORMATS:
        raise DataError(
            f"unknown format {format!r}.", source=source.name, fix=f"use one of {list(FORMATS)}."
        )
    refuse_spreadsheet(source)
    refuse_binary(source, readable=READABLE_BINARY)
    chosen = detect_format(source) if format == "auto" else format
    if chosen == "canonical":
        dataset = read_canonical(source, task=task, level=level, **_companions(options))
    elif chosen == "canonical_zip":
        dataset = read_canonical_zip(source, task=task, level=level)
    elif chosen == "crowdkit":
        dataset = read_crowdkit(source, task=task, level=level)
    elif chosen in ("wide_items", "wide_annotators"):
        dataset = read_wide(source, orientation=chosen.split("_")[1], task=task, level=level)
    elif chosen == "counts":
        dataset = read_counts(source, labels=options.get("labels"))
    elif chosen == "selectors":
        dataset = read_selectors(
            source,
            conditions=_lines_option(options.get("conditions")),
            risks=_lines_option(options.get("risks")),
        )
    elif chosen == "opinions":
        dataset = read_opinions(
            source,
            conditions=_lines_option(options.get("conditions")),
            risks=_lines_option(options.get("risks")),
        )
    elif chosen == "cifar10h_raw":
        dataset = read_cifar10h_raw(source, labels=_lines_option(options.get("labels")))
    elif chosen in _JSON_FORMATS:
        dataset = _json_module().read(chosen, source, task=task, level=level, **options)
    else:  # pragma: no cover - FORMATS and the branches are kept in sync by a test
        raise DataError(f"format {chosen!r} has no reader.", source=source.name)
    dataset.report.format = chosen
    if chosen not in _JSON_FORMATS:  # the JSON readers note their own
        read = _FORMAT_OPTIONS.get(chosen, ())
        dataset.report.ignore_options(
            sorted(k for k, v in options.items() if k not in read and v is not None))
    return dataset


def _load_folder(folder: Path, *, task: str | None, level: str | None,
                 name: str | None = None) -> Dataset:
    """A folder of canonical files (annotations.csv or label_counts.csv, items.csv,
    annotators.csv, labels.csv / schema.json, predictions.csv), read by the same
    :func:`~hlv_core.io.tabular.read_canonical_files` as the zip format."""
    wanted = ("annotations", "label_counts", "items", "annotators", "labels", "schema",
              "predictions")
    files = {
        path.name: Source(read_file(path), str(path))
        for path in sorted(folder.iterdir())
        if path.is_file() and path.stem in wanted
        and path.suffix in (".csv", ".tsv", ".parquet", ".json")
    }
    if not any(Path(f).stem in ("annotations", "label_counts") for f in files):
        raise DataError(
            "the folder has no annotations.csv or label_counts.csv"
            + (f" (found {echo(sorted(files), 200)})." if files else "."),
            source=str(folder), fix=_folder_hint(folder),
        )
    dataset = read_canonical_files(files, source=str(folder), task=task, level=level,
                                   name=name or folder.name)
    dataset.report.format = "canonical folder"
    return dataset


def _folder_hint(folder: Path, shown: int = 8) -> str:
    """How to fix a folder without annotations: the subfolders that hold a dataset and the
    files that can be loaded on their own (a folder of datasets or a folder of JSON exports),
    else where annotations.csv goes. Names are listed as data (``repr``), at most ``shown``."""
    def listed(names: list[str]) -> str:
        more = f" and {len(names) - shown} more" if len(names) > shown else ""
        return ", ".join(repr(n) for n in names[:shown]) + more

    entries = sorted(folder.iterdir())
    datasets = [p.name for p in entries if p.is_dir() and any(
        (p / f"{stem}{ext}").is_file() for stem in ("annotations", "label_counts")
        for ext in (".csv", ".tsv", ".parquet"))]
    readable = [p.name for p in entries if p.is_file() and p.suffix.lower() in (
        ".csv", ".tsv", ".parquet", ".json", ".jsonl", ".npy", ".zip")]
    hints = []
    if datasets:
        hints.append(f"load one of its subfolders, which hold a dataset: {listed(datasets)}")
    if readable:
        hints.append(f"load one of its files on its own: {listed(readable)}")
    if not hints:
        subfolders = [p.name for p in entries if p.is_dir()]
        if subfolders:
            hints.append(f"load a file inside one of its subfolders ({listed(subfolders)})")
    put = "put annotations.csv (item_id, annotator_id, label) at the top of the folder"
    return "; ".join([*hints, f"or {put}"]) + "." if hints else put + "."


def _companions(options: dict) -> dict:
    """Optional companion tables of a canonical CSV: ``items=``, ``annotators=`` (CSV path or
    bytes) and ``labels=`` (labels.csv path/bytes or a schema.json path, the inventory in
    order)."""
    from .tabular import read_schema

    out: dict = {}
    for key in ("items", "annotators"):
        value = options.get(key)
        if value is None:
            continue
        table = value if hasattr(value, "columns") else read_table(
            as_source(value, f"{key}.csv" if isinstance(value, bytes) else None)
        )
        id_column = "item_id" if key == "items" else "annotator_id"
        if id_column not in table.columns:
            raise DataError(
                f"the {key} table has no '{id_column}' column (found {list(table.columns)}).",
                source=f"{key}.csv",
                row=1,
                column=id_column,
                fix=f"add an '{id_column}' column matching the annotations.",
            )
        check_companion_ids(table, id_column,
                            str(value) if isinstance(value, (str, Path)) else f"{key}.csv")
        out[key] = table
    if options.get("labels") is not None:
        value = options["labels"]
        labels_source = as_source(value, "labels.csv" if isinstance(value, bytes) else None)
        parsed = (read_json(labels_source) if labels_source.suffix == ".json"  # schema.json
                  else read_table(labels_source))
        out["schema"] = read_schema(parsed, source=labels_source.name)
    return out


def _lines_option(value) -> list[str] | None:
    if value is None or isinstance(value, list):
        return value
    return read_lines(as_source(value))


def load_table(path_or_buffer: str | Path | bytes | IO[bytes], name: str | None = None
               ) -> pd.DataFrame:
    r"""A plain table file (CSV/TSV/Parquet, detected as :func:`load` does) as a DataFrame of strings.

    For example a per-(user, text) predictions file for the PERSEVAL evaluation.

    Parameters
    ----------
    path_or_buffer : str, pathlib.Path, bytes or binary file-like
        The file.
    name : str, optional
        File name (needed for bytes, to know the extension).

    Returns
    -------
    pandas.DataFrame
        Every column as strings.

    Raises
    ------
    DataError
        A missing or unreadable file.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> load_table(b"user,text,label\nu1,t1,1\n", name="predictions.csv")
      user text label
    0   u1   t1     1
    """
    return read_table(as_source(path_or_buffer, name))


def load_traits(path_or_buffer: str | Path | bytes | IO[bytes], name: str | None = None
                ) -> pd.DataFrame:
    r"""An annotator traits table, ready to replace a dataset's ``annotators``.

    ``annotator_id`` plus one column per trait, every value a string and empty cells missing
    (``isna()`` true), for ``dataclasses.replace(dataset, annotators=...)``.

    Parameters
    ----------
    path_or_buffer : str, pathlib.Path, bytes or binary file-like
        The file.
    name : str, optional
        File name (needed for bytes).

    Returns
    -------
    pandas.DataFrame
        ``annotator_id`` + trait columns.

    Raises
    ------
    DataError
        No ``annotator_id`` column (row 1), or an unreadable file.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> traits = load_traits(b"annotator_id,age\na,30\nb,\n", name="traits.csv")
    >>> traits["age"].iloc[0], bool(traits["age"].isna().iloc[1])
    ('30', True)
    """
    source = as_source(path_or_buffer, name)
    table = read_table(source)
    if "annotator_id" not in table.columns:
        raise DataError(
            f"traits file needs an annotator_id column; found {list(table.columns)}.",
            source=source.name, row=1, column="annotator_id",
            fix="one row per annotator: annotator_id, then one column per trait.",
        )
    return table.astype(str).where(table.notna(), None)


#: Companion files of an upload (annotator traits, item texts, label order, LeWiDi 2025 annotator
#: metadata, selectors' conditions and risks): the ``load`` option each feeds, told by its name.
#: The Overview page routes its companion uploads with :func:`companion_option`; the command line
#: names each companion with its own flag instead.
COMPANION_OPTIONS = {"meta": "meta", "annotators": "annotator", "items": "item",
                     "labels": "label", "conditions": "condition", "risks": "risk"}


def companion_option(file_name: str) -> str | None:
    """The :func:`load` option fed by a companion file, told by its name (case ignored).

    ``"meta"`` for a ``.json`` whose name contains ``meta`` (LeWiDi 2025 annotator metadata),
    then the first of ``annotators, items, labels, conditions, risks`` whose word (singular)
    the name contains.

    Parameters
    ----------
    file_name : str
        The companion file's name.

    Returns
    -------
    str or None
        A key of :data:`COMPANION_OPTIONS`, or None when the name says none of them.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> companion_option("MP_annotators_meta.json"), companion_option("Annotators.csv")
    ('meta', 'annotators')
    >>> companion_option("data.csv") is None
    True
    """
    name = file_name.lower()
    for option, word in COMPANION_OPTIONS.items():
        if word in name and (option != "meta" or name.endswith(".json")):
            return option
    return None


def route_companions(files) -> tuple[dict, list[str]]:
    """Companion files as :func:`load` options, each told by its name (:func:`companion_option`):
    the rules the Overview page's uploads and the command line's ``--with`` share.

    Parameters
    ----------
    files : iterable of (str, object)
        ``(file name, value)``: the value (bytes or a path) becomes the option's value.

    Returns
    -------
    tuple of (dict, list of str)
        The options, and the names that say no option (the caller warns or refuses).

    Raises
    ------
    DataError
        Two files read as the same option: which one should win is not clear.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task" (the ``*_annotators_meta.json`` companion).

    Examples
    --------
    >>> route_companions([("annotators.csv", b"..."), ("notes.csv", b"...")])
    ({'annotators': b'...'}, ['notes.csv'])
    """
    options: dict = {}
    names: dict[str, str] = {}
    unnamed: list[str] = []
    for name, value in files:
        option = companion_option(name)
        if option is None:
            unnamed.append(name)
        elif option in options:
            raise DataError(
                f"two companion files are read as {option}: {names[option]!r} and {name!r}; "
                "only one can be used and they may differ.",
                source=name, fix=f"keep one of {names[option]} and {name}.")
        else:
            options[option], names[option] = value, name
    return options, unnamed
