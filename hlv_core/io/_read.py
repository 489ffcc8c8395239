"""Low-level readers shared by the importers: bytes in, strict string tables out."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
import zlib
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from .errors import DataError
from .limits import check_limit, limit
from .spelling import normalise_spelling

__all__ = [
    "COLUMNAR_MIN_BYTES",
    "Source",
    "InflateBudget",
    "check_parse_memory",
    "header_columns",
    "open_zip",
    "read_file",
    "read_member",
    "as_source",
    "parse_json",
    "decode_text",
    "read_coded",
    "read_table",
    "stream_label_counts",
    "read_json",
    "read_npy",
]

#: CSV/TSV files at least this big are parsed by pyarrow's multi-threaded columnar reader (and
#: the id/label columns integer-coded straight from it, see :func:`read_coded`); smaller files,
#: and any file the columnar reader does not read exactly as pandas would (odd headers, ragged
#: rows, non-UTF-8, NUL bytes, ...), by ``pandas.read_csv``. Both give the same table (tested).
COLUMNAR_MIN_BYTES = 4 << 20

_UNKNOWN = object()  # a memo not yet worked out


class Source:
    r"""Raw bytes plus the name the user knows the file by.

    Every reader takes a ``Source`` (:func:`as_source` makes one from a path, bytes or an
    upload); the parsed table is memoised on it (``table``) so detection and reading parse once.

    Parameters
    ----------
    raw : bytes
        The file's bytes.
    name : str
        The file name shown in messages (its extension picks the parser).

    Attributes
    ----------
    suffix : str
        Lower-case extension of ``name`` (``".csv"``).

    Examples
    --------
    >>> source = Source(b"item_id,annotator_id,label\n", "Annotations.CSV")
    >>> source.name, source.suffix, len(source.raw)
    ('Annotations.CSV', '.csv', 27)
    """

    def __init__(self, raw: bytes, name: str) -> None:
        self.raw = raw
        self.name = name
        self.table: pd.DataFrame | None = None  # parsed once, reused by detection and readers
        self.arrow = None  # columnar parse (pyarrow Table of strings) of a big CSV, or False
        self._layout = _UNKNOWN  # memo of _columnar_layout (bytes and name never change)

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()


def as_source(path_or_buffer: str | Path | bytes | IO[bytes], name: str | None = None) -> Source:
    r"""A :class:`Source` from a path, raw bytes or a binary file-like object (e.g. a Streamlit upload).

    Paths are read through :func:`read_file` (the file-size limit holds before reading).

    Parameters
    ----------
    path_or_buffer : str, pathlib.Path, bytes or binary file-like
        The input.
    name : str, optional
        File name (default: the path, the upload's ``name``, or ``"<upload>"``).

    Returns
    -------
    Source
        Bytes and name.

    Raises
    ------
    DataError
        A missing file, a folder, or a file over the size limit.

    Examples
    --------
    >>> source = as_source(b"item_id,annotator_id,label\ni1,a,pos\n", "toy.csv")
    >>> source.name, source.raw[:7]
    ('toy.csv', b'item_id')
    """
    if isinstance(path_or_buffer, (str, Path)):
        path = Path(path_or_buffer)
        if not path.exists():
            raise DataError(
                "file not found.", source=str(path), fix="check the path and the file name."
            )
        if path.is_dir():
            raise DataError(
                "this is a folder, not a file.",
                source=str(path),
                fix="zip the folder (annotations.csv, items.csv, ...) or pass annotations.csv.",
            )
        return Source(read_file(path), name or str(path))
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        label = name or "<upload>"
        check_limit("file", len(path_or_buffer), what="the file is", source=label,
                    fix=_SPLIT)
        return Source(bytes(path_or_buffer), label)
    if hasattr(path_or_buffer, "read"):
        guessed = getattr(path_or_buffer, "name", None)
        label = name or (str(guessed) if guessed else "<upload>")
        size = getattr(path_or_buffer, "size", None)  # a Streamlit upload knows its size
        if isinstance(size, int):
            check_limit("file", size, what="the file is", source=label, fix=_SPLIT)
        raw = path_or_buffer.read(limit("file") + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        check_limit("file", len(raw), what="the file is more than", source=label, fix=_SPLIT)
        return Source(raw, label)
    raise DataError(
        f"cannot read an object of type {type(path_or_buffer).__name__}.",
        fix="pass a file path, bytes or an open binary file.",
    )


_SPLIT = "load a smaller file (e.g. one split of the dataset)."


def read_file(path: Path) -> bytes:
    r"""The bytes of a file, refused before reading when it is over the file-size limit.

    The limit is ``HLV_MAX_FILE_MB`` (:mod:`hlv_core.io.limits`); a file that grows while read
    is cut at the limit.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    bytes
        Its content.

    Raises
    ------
    DataError
        Unreadable, or over the limit (the message says how to raise it).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = path.write_text("item_id,label\ni1,pos\n")
    >>> read_file(path)
    b'item_id,label\ni1,pos\n'
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DataError(f"cannot read this file ({exc.strerror or exc}).", source=str(path),
                        fix="check the path and its permissions.") from None
    check_limit("file", size, what="the file is", source=str(path), fix=_SPLIT)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit("file") + 1)
    except OSError as exc:
        raise DataError(f"cannot read this file ({exc.strerror or exc}).", source=str(path),
                        fix="check the path and its permissions.") from None
    check_limit("file", len(raw), what="the file is more than", source=str(path), fix=_SPLIT)
    return raw


# ------------------------------------------------------------------------ zips, bounded
def open_zip(source: Source, *, fix: str) -> zipfile.ZipFile:
    r"""A source as a zip archive, checked against the limits before anything is inflated.

    The member count (``HLV_MAX_ZIP_MEMBERS``) and the declared inflated size
    (``HLV_MAX_INFLATED_MB``) are checked from the central directory.

    Parameters
    ----------
    source : Source
        The zip.
    fix : str
        What to zip instead, for the message.

    Returns
    -------
    zipfile.ZipFile
        The open archive.

    Raises
    ------
    DataError
        Not a readable zip, or over a limit.

    Examples
    --------
    >>> import io, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("annotations.csv", "item_id,annotator_id,label\n")
    >>> archive = open_zip(as_source(buffer.getvalue(), "bundle.zip"), fix="zip the CSV files.")
    >>> archive.namelist()
    ['annotations.csv']
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(source.raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise DataError("not a readable zip archive.", source=source.name,
                        fix="re-create the zip file.") from None
    infos = archive.infolist()
    check_limit("zip_members", len(infos), what="the zip has", source=source.name, fix=fix)
    check_limit("inflated", sum(info.file_size for info in infos),
                what="the zip would inflate to", source=source.name,
                fix="upload a smaller dataset, or the CSV files themselves.")
    return archive


class InflateBudget:
    """The bytes a zip may still inflate to (the sizes in a zip header can lie).

    Starts at the ``HLV_MAX_INFLATED_MB`` limit; :func:`read_member` spends it chunk by chunk.

    Attributes
    ----------
    left : int
        Bytes still allowed.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HLV_MAX_INFLATED_MB": "1"}):
    ...     print(InflateBudget().left)
    1048576
    """

    def __init__(self) -> None:
        self.left = limit("inflated")


def read_member(archive: zipfile.ZipFile, member: str, budget: InflateBudget, name: str
                ) -> bytes:
    r"""Inflate one zip member in chunks, stopping once the remaining size budget is exceeded.

    Parameters
    ----------
    archive : zipfile.ZipFile
        The archive (:func:`open_zip`).
    member : str
        Member name.
    budget : InflateBudget
        Shared budget of the whole archive.
    name : str
        Archive name for messages.

    Returns
    -------
    bytes
        The member's content.

    Raises
    ------
    DataError
        An unreadable or encrypted member, or the budget exceeded (a zip bomb).

    Examples
    --------
    >>> import io, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("annotations.csv", "item_id,annotator_id,label\n")
    >>> archive = open_zip(as_source(buffer.getvalue(), "bundle.zip"), fix="zip the CSV files.")
    >>> read_member(archive, "annotations.csv", InflateBudget(), "bundle.zip")
    b'item_id,annotator_id,label\n'
    """
    out = bytearray()
    try:
        handle = archive.open(member)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as exc:
        raise DataError(
            f"cannot open {member!r} in the zip ({exc}).",
            source=name,
            fix="re-create the zip without encryption and with standard (deflate) compression.",
        ) from None
    with handle:
        while True:
            try:
                chunk = handle.read(1 << 20)
            except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
                raise DataError(
                    f"{member!r} in the zip is corrupted ({exc}).",
                    source=name,
                    fix="re-create the zip file.",
                ) from None
            if not chunk:
                break
            budget.left -= len(chunk)
            if budget.left < 0:
                check_limit("inflated", limit("inflated") + 1,
                            what=f"(while reading {member!r}) the zip inflates to more than",
                            source=name,
                            fix="upload a smaller dataset, or the CSV files themselves.")
            out += chunk
    return bytes(out)


# ------------------------------------------------------------------ memory a parse will need
#: Bytes per parsed cell: a Python ``str`` object and its pointer (pandas), an int32 code and
#: its share of the dictionary (the columnar reader), a parsed JSON value.
_CELL_BYTES = {"pandas": 64, "columnar": 12, "json": 80}


def check_parse_memory(source: Source, kind: str, *, columns: int = 1) -> None:
    """Refuse before parsing when the memory the parse will need is over ``HLV_MAX_PARSE_MB``.

    The need is estimated from the bytes: ``2 x bytes`` for the text and its decoded copy, plus
    ``cells x bytes per cell``, cells counted as lines x ``columns`` for tables and as
    ``, : [ {`` for JSON.

    Parameters
    ----------
    source : Source
        The input.
    kind : str
        ``"json"``, ``"pandas"`` or ``"columnar"`` (bytes per cell of that parser).
    columns : int, default 1
        Columns of a table.

    Returns
    -------
    None
        Nothing when within the limit.

    Raises
    ------
    DataError
        Over the limit (the message says how to raise it).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> source = as_source(b"[" + b"1," * 1000 + b"1]", "big.json")
    >>> check_parse_memory(source, "json")
    >>> with mock.patch.dict(os.environ, {"HLV_MAX_PARSE_MB": "0.01"}):
    ...     check_parse_memory(source, "json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'big.json': reading it would need about (1,002 cells) ...
    """
    raw = source.raw
    if kind == "json":
        cells = sum(raw.count(c) for c in (b",", b":", b"[", b"{")) + 1
    else:
        cells = (raw.count(b"\n") + 1) * max(columns, 1)
    need = 2 * len(raw) + cells * _CELL_BYTES[kind]
    check_limit("parse", need, what=f"reading it would need about ({cells:,} cells)",
                source=source.name, fix=_SPLIT)


#: Leading bytes of binary files people pick by mistake (a screenshot renamed .csv, ...).
BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"BM", "a BMP image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "a program (ELF)"),
    (b"PAR1", "a Parquet file"),
    (b"\x93NUMPY", "a NumPy array (.npy)"),
    (b"PK\x03\x04", "a zip archive"),
)


def binary_kind(raw: bytes) -> str | None:
    """What a known binary file format looks like from its first bytes (``"a PNG image"``), or
    None for anything else. ``RIFF....WEBP`` is recognised as a WebP image."""
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "a WebP image"
    for signature, kind in BINARY_SIGNATURES:
        if raw.startswith(signature) and not (signature == b"BM" and not _bmp_header(raw)):
            return kind
    return None


def _bmp_header(raw: bytes) -> bool:
    """``BM`` followed by the file size: a BMP, not a header cell starting with 'BM'."""
    return len(raw) >= 14 and int.from_bytes(raw[2:6], "little") == len(raw)


#: Binary formats HLV Lens reads (passed by ``refuse_binary(..., readable=True)``).
READABLE_BINARY = ("a Parquet file", "a NumPy array (.npy)", "a zip archive")


def refuse_binary(source: Source, *, readable: tuple[str, ...] = ()) -> None:
    """A known binary format where text was expected is named ("looks like a PNG image"),
    never answered with "re-save as UTF-8". Kinds in ``readable`` (e.g. Parquet) pass."""
    kind = binary_kind(source.raw)
    if kind is None or kind in readable:
        return
    raise DataError(
        f"this is not a text/CSV file (looks like {kind}).",
        source=source.name,
        fix="upload the annotations as CSV/TSV/JSON text (or a Parquet or zip file with that "
        "extension); check you picked the right file.",
    )


EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".xlsb", ".ods", ".numbers")
"""Spreadsheet workbooks: refused with "export as CSV"."""


def refuse_spreadsheet(source: Source) -> None:
    """Excel/ODS workbooks are zips (xlsx, ods) or OLE files (xls): say so, never 'no
    annotations.csv in the zip'."""
    raw = source.raw
    is_ole = raw[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    is_workbook_zip = raw[:4] == b"PK\x03\x04" and (
        b"[Content_Types].xml" in raw[:4096] or b"xl/" in raw[:4096]
        or b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet" in raw[:200]
    )
    if source.suffix in EXCEL_SUFFIXES or is_ole or is_workbook_zip:
        raise DataError(
            "this is a spreadsheet workbook (Excel / OpenDocument); HLV Lens does not read "
            "workbooks.",
            source=source.name,
            fix="export the sheet as CSV (File > Save as / Download > CSV, UTF-8) in your "
            "spreadsheet program and upload the CSV.",
        )


def decode_text(source: Source) -> str:
    r"""UTF-8 text of a source, an optional BOM removed; non-UTF-8 is a clear error, never guessed.

    A known binary format is named instead (a PNG, a workbook, ...).

    Parameters
    ----------
    source : Source
        The input.

    Returns
    -------
    str
        The text.

    Raises
    ------
    DataError
        Empty, binary, or not UTF-8 (byte, offset and line named).

    Examples
    --------
    >>> decode_text(as_source(b"\xef\xbb\xbfhello", "x.txt"))
    'hello'
    >>> decode_text(as_source(b"caf\xe9\n", "latin.csv"))
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'latin.csv', row 1: the file is not UTF-8 (byte 0xe9 at offset 3). How to fix: re-save the file as UTF-8 (e.g. in a spreadsheet: 'CSV UTF-8').
    """
    raw = source.raw
    refuse_binary(source)
    if not raw.strip():
        raise DataError("the file is empty.", source=source.name, fix="upload a file with data.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(
            f"the file is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}).",
            source=source.name,
            row=line,
            fix="re-save the file as UTF-8 (e.g. in a spreadsheet: 'CSV UTF-8').",
        ) from None
    if "\x00" in text:
        raise DataError(
            "the file contains NUL bytes; it is probably binary, not text.",
            source=source.name,
            fix="upload a CSV/TSV/JSON text file or a Parquet/zip file with the right extension.",
        )
    return text


_PARSER_LINE = re.compile(r"line (\d+)")


def read_table(source: Source, *, sep: str | None = None) -> pd.DataFrame:
    r"""Read CSV/TSV (all cells as ``str``, empty cells as NA) or Parquet.

    Every cell stays a string: ``0``, ``1.0`` and ``-3`` are kept as written. The parsed table
    is memoised on the source (callers get a copy). Big plain files use pyarrow's columnar
    parser (:data:`COLUMNAR_MIN_BYTES`).

    Parameters
    ----------
    source : Source
        The input.
    sep : str, optional
        Separator (default: sniffed from the header).

    Returns
    -------
    pandas.DataFrame
        The table.

    Raises
    ------
    DataError
        Binary, not UTF-8, ragged rows or over the parse-memory limit.

    Examples
    --------
    >>> read_table(as_source(b"item_id,label\ni1,1.0\ni2,-3\n", "t.csv"))["label"].tolist()
    ['1.0', '-3']
    """
    if source.table is not None and sep is None:
        return source.table.copy()
    frame = _parse_table(source, sep)
    if sep is None:
        source.table = frame
    return frame.copy()


def _parse_table(source: Source, sep: str | None) -> pd.DataFrame:
    if source.suffix == ".parquet" or source.raw[:4] == b"PAR1":
        _check_parquet_memory(source)
    else:
        first = source.raw[:1 << 16].split(b"\n", 1)[0]
        columns = max(first.count(b","), first.count(b"\t"), first.count(b";")) + 1
        check_parse_memory(source, "pandas" if _columnar_layout(source) is None
                           else "columnar", columns=columns)
    if sep is None and _arrow_table(source) is not None:
        return source.arrow.to_pandas()
    if source.suffix == ".parquet" or source.raw[:4] == b"PAR1":
        try:
            frame = pd.read_parquet(io.BytesIO(source.raw))
        except Exception as exc:  # pyarrow raises many types
            raise DataError(
                f"not a readable Parquet file ({exc}).",
                source=source.name,
                fix="re-export the table as Parquet or CSV.",
            ) from None
        return _parquet_strings(frame, source.name)
    text = decode_text(source)
    if sep is None:
        first = text.splitlines()[0] if text.splitlines() else ""
        if source.suffix in (".tsv", ".tab") or first.count("\t") > first.count(","):
            sep = "\t"
        elif first.count(";") > first.count(",") and "," not in first:
            sep = ";"
        else:
            sep = ","
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            skipinitialspace=False,
            quoting=csv.QUOTE_MINIMAL,
        )
    except pd.errors.EmptyDataError:
        raise DataError(
            "the file has no header row.", source=source.name, row=1, fix="add a header row."
        ) from None
    except pd.errors.ParserError as exc:
        match = _PARSER_LINE.findall(str(exc))
        row = int(match[-1]) if match else None
        if row is None:  # "EOF inside string starting at row N" (0-based line index)
            quoted = re.findall(r"starting at row (\d+)", str(exc))
            row = int(quoted[-1]) + 1 if quoted else None
        raise DataError(
            f"malformed CSV: {str(exc).strip()}",
            source=source.name,
            row=row,
            fix="check that every row has the same number of fields and that quotes are closed.",
        ) from None
    header = _raw_header(text, sep)
    if header is not None and len(header) == len(frame.columns):
        refuse_repeated_columns(header, source.name)
        # pandas renames a repeated name ("label.1"); the header as written, one spelling each
        frame.columns = [normalise_spelling(c) or str(m).strip()
                         for c, m in zip(header, frame.columns, strict=True)]
    else:
        frame.columns = [normalise_spelling(str(c)) for c in frame.columns]
    unnamed = [c for c in frame.columns if c.startswith("Unnamed:") or c == ""]
    if unnamed:
        raise DataError(
            "a header cell is empty.",
            source=source.name,
            row=1,
            column=unnamed[0],
            fix="give every column a name in the header row.",
        )
    return frame


class _RepeatedKey(ValueError):
    """A JSON object names one key twice (raised by :func:`_unique_keys`)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list) -> dict:
    """``object_pairs_hook`` of every JSON parse: a key given twice in one object is refused
    (``json`` would silently keep the last value: a LeWiDi gold naming one item twice would
    change the score)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out


def parse_json(text: str, name: str, *, line: int | None = None):
    """``json.loads`` with every failure one :class:`DataError` naming the file and line.

    Syntax errors, a key repeated in one object (both lines named: JSON would silently keep
    the last), nesting too deep for the parser, integers with thousands of digits.

    Parameters
    ----------
    text : str
        JSON text.
    name : str
        File name for messages.
    line : int, optional
        The file line of ``text`` (JSON Lines).

    Returns
    -------
    object
        The parsed value.

    Raises
    ------
    DataError
        Any parse failure.

    Examples
    --------
    >>> parse_json('{"a": [1, 2]}', "x.json")
    {'a': [1, 2]}
    >>> parse_json('{"a": 1, "a": 2}', "x.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'x.json', row 1: the key "a" appears twice ...
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        if line is None:
            error = DataError(
                f"invalid JSON ({exc.msg}, character {exc.colno}).",
                source=name,
                row=exc.lineno,
                fix="check the file is valid JSON (a JSON Lines file needs the .jsonl "
                "extension).",
            )
        else:
            error = DataError(f"line is not valid JSON ({exc.msg}).", source=name, row=line,
                              fix="JSON Lines needs one complete JSON object per line.")
        error.syntax = True  # a syntax error (callers may try a laxer reading)
        raise error from None
    except _RepeatedKey as exc:
        raise _repeated_key_error(text, exc.key, name, line) from None
    except (RecursionError, ValueError) as exc:
        raise _json_limit_error(exc, name, line, text) from None


def _repeated_key_error(text: str, key: str, name: str, line: int | None) -> DataError:
    quoted = json.dumps(key)
    lines = [text.count("\n", 0, m.start()) + 1
             for m in re.finditer(re.escape(quoted) + r"\s*:", text)][:2]
    both = line is None and len(lines) == 2
    where = f"lines {lines[0]} and {lines[1]}" if both else "one object"
    return DataError(
        f"the key {quoted[:80]} appears twice in {where}; JSON keeps only the last, so one of "
        "the two entries would be dropped silently.",
        source=name,
        row=line if line is not None else (lines[1] if len(lines) == 2 else None),
        fix="keep one entry per key (merge or rename the repeated one).",
    )


#: Nesting depth reported as "too deep" when Python's parser gives up (its recursion limit).
_DEPTH_SHOWN = 500


def _deep_line(text: str) -> int | None:
    """The line where ``[``/``{`` nesting first passes :data:`_DEPTH_SHOWN` (brackets inside
    strings counted too: a pointer for the message, not a parse)."""
    raw = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    step = (np.isin(raw, (ord("["), ord("{"))).astype(np.int32)
            - np.isin(raw, (ord("]"), ord("}"))).astype(np.int32))
    deep = np.flatnonzero(np.cumsum(step) > _DEPTH_SHOWN)
    if not len(deep):
        return None
    return int(np.count_nonzero(raw[: deep[0]] == ord("\n"))) + 1


def _json_limit_error(exc: BaseException, name: str, row: int | None,
                      text: str = "") -> DataError:
    """JSON that parses in principle but exceeds a limit: nesting depth or number length."""
    if isinstance(exc, RecursionError):
        return DataError(
            "the JSON is nested too deeply to read (hundreds of levels of [ or {).",
            source=name,
            row=row if row is not None else _deep_line(text),
            fix="export the data flat (one record per item), as the supported formats are.",
        )
    long_number = re.search(r"\d{1000,}", text)
    if row is None and long_number is not None:
        row = text.count("\n", 0, long_number.start()) + 1
    return DataError(
        "the JSON holds a number too long to read (thousands of digits).",
        source=name,
        row=row,
        fix="write numbers with at most a few dozen digits (labels and counts are short).",
    )


def _is_list(value) -> bool:
    return isinstance(value, (list, tuple, np.ndarray))


def _parquet_strings(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """A Parquet table as strings (None for missing). A column of list type is never turned
    into text like ``['a' 'b']``: a ``label`` column of lists stays a column of Python lists
    of strings (one label set per row: multi-label, exploded by the reader); any other list
    column is refused."""
    refuse_repeated_columns([str(c) for c in frame.columns], name)
    out = {}
    for column in frame.columns:
        values = frame[column].astype(object)
        lists = values.map(_is_list)
        if lists.any():
            if str(column).strip() != "label":
                row = int(np.flatnonzero(lists.to_numpy())[0])
                raise DataError(
                    f"column {str(column)!r} holds lists (e.g. {echo_list(values.iloc[row])}); "
                    "only the label column may hold a list (a set of labels per row).",
                    source=name, row=row + 1, column=str(column),
                    fix="write one value per cell in this column (one row per value), or "
                    "export it as text.",
                )
            out[column] = values.map(
                lambda v: [None if _missing(x) else str(x) for x in v] if _is_list(v)
                else None if _missing(v) else [str(v)])
        else:
            out[column] = values.where(frame[column].notna(), None).map(
                lambda v: None if v is None else str(v))
    return pd.DataFrame(out, index=frame.index)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def echo_list(value) -> str:
    text = repr([getattr(x, "item", lambda x=x: x)() for x in value]) if _is_list(value) \
        else repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _check_parquet_memory(source: Source) -> None:
    try:
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(io.BytesIO(source.raw)).metadata
        cells = meta.num_rows * meta.num_columns
    except Exception:  # unreadable: the reader names the problem
        return
    check_limit("parse", 2 * len(source.raw) + cells * _CELL_BYTES["pandas"],
                what=f"reading it would need about ({cells:,} cells)", source=source.name,
                fix=_SPLIT)


def _raw_header(text: str, sep: str) -> list[str] | None:
    """The header cells as written (pandas renames repeated names), or None if unreadable."""
    try:
        return next(csv.reader(io.StringIO(text[: 1 << 20]), delimiter=sep))
    except (csv.Error, StopIteration):
        return None


def refuse_repeated_columns(names: list[str], source: str) -> None:
    """Two header cells naming one column (after the spelling rule, see
    :func:`hlv_core.io.spelling.normalise_spelling`): a table that says two things (two
    ``label`` columns; a wide file naming one annotator twice) is refused, naming both."""
    seen: dict[str, int] = {}
    for position, name in enumerate(names, 1):
        key = normalise_spelling(str(name))
        if not key:
            continue
        if key in seen:
            raise DataError(
                f"the header names the column {key[:80]!r} twice (column {seen[key]} and column "
                f"{position}); only one of the two could be read.",
                source=source,
                row=1,
                column=key,
                fix="rename or delete one of the two columns (in a wide file: one column per "
                "annotator or item).",
            )
        seen[key] = position


def read_json(source: Source):
    """Parse a JSON document from a source (memory checked first; errors as :func:`parse_json`).

    Parameters
    ----------
    source : Source
        The input.

    Returns
    -------
    object
        The parsed value.

    Raises
    ------
    DataError
        Over the parse-memory limit, not UTF-8, or invalid JSON.

    Examples
    --------
    >>> read_json(as_source(b'{"i1": {"label": "pos"}}', "x.json"))
    {'i1': {'label': 'pos'}}
    """
    check_parse_memory(source, "json")
    return parse_json(decode_text(source), source.name)


def read_jsonl(source: Source) -> list:
    """Parse JSON Lines: one JSON object per non-empty line."""
    check_parse_memory(source, "json")
    records = []
    for number, line in enumerate(decode_text(source).splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line, object_pairs_hook=_unique_keys))
        except json.JSONDecodeError as exc:
            raise DataError(
                f"line is not valid JSON ({exc.msg}).",
                source=source.name,
                row=number,
                fix="JSON Lines needs one complete JSON object per line.",
            ) from None
        except _RepeatedKey as exc:
            raise _repeated_key_error(line, exc.key, source.name, number) from None
        except (RecursionError, ValueError) as exc:
            raise _json_limit_error(exc, source.name, number) from None
    if not records:
        raise DataError("the file has no records.", source=source.name)
    return records


def _header_line(raw: bytes) -> str | None:
    """The decoded first line of a CSV (BOM removed), or None when it is not plain."""
    end = raw.find(b"\n")
    first = raw[: end if end >= 0 else len(raw)]
    if first.startswith(b"\xef\xbb\xbf"):
        first = first[3:]
    try:
        text = first.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return None
    if len(text.splitlines()) != 1 or text.count('"') % 2:
        return None
    return text


def _columnar_layout(source: Source) -> tuple[list[str], str] | None:
    """Column names (from the header line) and separator of a CSV/TSV the columnar reader
    takes, or None where the pandas reader must be used (small file, Parquet, anything unusual:
    NUL bytes, an unclosed quote, an odd or duplicated header cell). Worked out once per
    source (detection, the header and the coded read all ask; each answer scans the bytes)."""
    if getattr(source, "_layout", _UNKNOWN) is _UNKNOWN:
        source._layout = _find_columnar_layout(source)
    layout = source._layout
    return None if layout is None else (list(layout[0]), layout[1])  # callers own the list


def _find_columnar_layout(source: Source) -> tuple[list[str], str] | None:
    raw = source.raw
    if len(raw) < COLUMNAR_MIN_BYTES or source.suffix == ".parquet" or raw[:4] == b"PAR1":
        return None
    if b"\x00" in raw or raw.count(b'"') % 2:  # NUL bytes, an unclosed quote: pandas says so
        return None
    first = _header_line(raw)
    if not first:
        return None
    if source.suffix in (".tsv", ".tab") or first.count("\t") > first.count(","):
        sep = "\t"
    elif first.count(";") > first.count(",") and "," not in first:
        sep = ";"
    else:
        sep = ","
    names = [normalise_spelling(c) for c in next(csv.reader([first], delimiter=sep))]
    if any(not c or c.startswith("Unnamed:") for c in names) or len(set(names)) != len(names):
        return None
    return names, sep


def header_columns(source: Source) -> list[str] | None:
    r"""The column names of a big plain CSV/TSV read from its header line alone.

    The columns :func:`read_table` would give, or None where the whole table must be read to
    know them (small files, Parquet, unusual headers: use ``read_table(source).columns``).

    Parameters
    ----------
    source : Source
        The input.

    Returns
    -------
    list of str or None
        The columns.

    Examples
    --------
    A small file is read whole, so the header alone gives nothing:

    >>> source = as_source(b"item_id,annotator_id,label\ni1,a,pos\n", "toy.csv")
    >>> header_columns(source) is None
    True
    """
    layout = _columnar_layout(source)
    return None if layout is None else layout[0]


def _parse_arrow(source: Source, names: list[str], sep: str, dictionary=()):
    """pyarrow's multi-threaded CSV parse of ``source`` (every cell a string, empty = null);
    the ``dictionary`` columns come dictionary-encoded per block (no string column at all).
    None when pyarrow refuses the file (the pandas reader then names the problem)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    coded = pa.dictionary(pa.int32(), pa.large_string())
    try:
        return pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(source.raw)),
            read_options=pacsv.ReadOptions(
                column_names=names, skip_rows=1, use_threads=True, block_size=1 << 24
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=sep, quote_char='"', double_quote=True, escape_char=False,
                newlines_in_values=True, ignore_empty_lines=True,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={  # large_string: pandas' str layout
                    c: coded if c in dictionary else pa.large_string() for c in names
                },
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
                null_values=[""],
                check_utf8=True,
            ),
        )
    except (pa.ArrowException, ValueError):
        return None


def _arrow_table(source: Source):
    """A big CSV/TSV as a pyarrow Table of string columns (memoised on the source), or None
    where the pandas reader must be used (small file, Parquet, anything unusual: the pandas
    reader then gives the same table or the precise error)."""
    if source.arrow is not None:
        return source.arrow or None
    source.arrow = False
    layout = _columnar_layout(source)
    if layout is None:
        return None
    table = _parse_arrow(source, *layout)
    if table is None:
        return None
    source.arrow = table
    return table


#: Strings up to this many UTF-8 bytes are ranked through 64-bit integer words (hash and sort
#: of integers); longer ones through pyarrow's string hash and sort.
_MAX_WORD_BYTES = 64


def _string_word(arrays, word: int) -> np.ndarray:
    """Bytes ``8 word .. 8 word + 7`` of every string of pyarrow (large_)string ``arrays``
    (no nulls; chunks in order), zero-padded, as one big-endian 64-bit integer each: comparing
    the word tuples of two strings compares them byte-wise, i.e. in code-point (Python) order.
    (The padding cannot tie two strings: cells never hold NUL bytes on this path.)"""
    import pyarrow as pa

    out = np.empty(sum(len(a) for a in arrays), dtype=np.uint64)
    columns = np.arange(8 * word, 8 * word + 8)
    row, step = 0, 1 << 16
    for strings in arrays:
        bufs = strings.buffers()
        kind = np.int64 if pa.types.is_large_string(strings.type) else np.int32
        offsets = np.frombuffer(bufs[1], dtype=kind)[strings.offset:strings.offset + len(strings) + 1]
        data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
        for start in range(0, len(strings), step):
            bounds = offsets[start:start + step + 1].astype(np.int64)
            first, length = bounds[:-1], np.diff(bounds)
            block = np.zeros((len(first), 8), dtype=np.uint8)
            inside = columns[None, :] < length[:, None]
            block[inside] = data[(first[:, None] + columns[None, :])[inside]]
            out[row:row + len(first)] = block.view(">u8")[:, 0]
            row += len(first)
    return out


def _dense_rank(values: np.ndarray, bound: int | None = None) -> tuple[np.ndarray, int]:
    """Rank of every value among the distinct values (0 = smallest) and their number: one
    hash pass (``pandas.factorize``) and a sort of the distinct values only; for values known
    to lie in ``0..bound-1`` with a bound of the order of their number, a presence table and
    its running count instead (no hashing, no sort)."""
    if bound is not None and bound <= 4 * len(values) + (1 << 20):
        present = np.zeros(bound, dtype=bool)
        present[values] = True
        rank_of = np.cumsum(present, dtype=np.int64)
        rank_of -= 1
        return rank_of[values], int(rank_of[-1]) + 1 if bound else 0
    codes, uniques = pd.factorize(values)
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[np.argsort(uniques, kind="stable")] = np.arange(len(uniques), dtype=np.int64)
    return rank[codes], len(uniques)


def _string_ranks(arrays) -> tuple[np.ndarray, int]:
    """Rank of every string of pyarrow (large_)string ``arrays`` (no nulls; the chunks taken in
    order) among the distinct strings in code-point order, and the number of distinct strings:
    the exact sorted factorisation, without one Python object or string hash table per row.
    Strings up to :data:`_MAX_WORD_BYTES` bytes are ranked 8 bytes at a time: ``key <- rank of
    (key, next word)``, integers only, one word alive at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arrays = [a for a in arrays if len(a)]
    if not arrays:
        return np.zeros(0, dtype=np.int64), 0
    longest = max(pc.max(pc.binary_length(a)).as_py() or 0 for a in arrays)
    if longest > _MAX_WORD_BYTES:
        encoded = pc.dictionary_encode(
            pa.concat_arrays([a.cast(pa.large_string()) for a in arrays])
        )
        order = pc.array_sort_indices(encoded.dictionary).to_numpy()  # byte order
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order), dtype=np.int64)
        return rank[encoded.indices.to_numpy()], len(order)
    key, n_distinct = _dense_rank(_string_word(arrays, 0))
    for word in range(1, -(-longest // 8)):
        if n_distinct == len(key):  # all distinct: later bytes cannot change the order
            break
        rank, n_word = _dense_rank(_string_word(arrays, word))
        key *= n_word  # lexicographic (key, word) as one int64 (< n^2), ranked again
        key += rank
        del rank
        key, n_distinct = _dense_rank(key, n_distinct * n_word)
    return key, n_distinct


def _encode_chunks(chunks) -> pd.Categorical:
    """One dictionary-encoded pyarrow column (chunks with their own dictionaries, as the CSV
    reader gives them) as a pandas Categorical: sorted unique ``str`` categories and int32
    codes (NA = -1). The block dictionaries are ranked together (:func:`_string_ranks`)."""
    import pyarrow as pa

    dictionaries = [chunk.dictionary for chunk in chunks]
    rank, n_distinct = _string_ranks(dictionaries)
    some_entry = np.empty(n_distinct, dtype=np.int64)
    some_entry[rank] = np.arange(len(rank), dtype=np.int64)
    entries = pa.chunked_array(dictionaries, type=pa.large_string())
    categories = pd.Index(entries.take(some_entry).to_pandas(), dtype=str)
    del entries, some_entry
    codes = np.empty(sum(len(chunk) for chunk in chunks), dtype=np.int32)
    row = entry = 0
    for chunk, dictionary in zip(chunks, dictionaries, strict=True):
        lookup = np.append(rank[entry:entry + len(dictionary)], -1).astype(np.int32)
        local = chunk.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        codes[row:row + len(chunk)] = lookup[local]
        row, entry = row + len(chunk), entry + len(dictionary)
    from .dataset import _remember_sorted, coded_categorical

    return coded_categorical(codes, _remember_sorted(categories))


def read_coded(source: Source, columns: tuple[str, ...]) -> pd.DataFrame | None:
    r"""A big CSV/TSV with some columns integer-coded, straight from pyarrow's dictionary parse.

    ``columns`` become pandas Categoricals with sorted ``str`` categories and int32 codes, other
    columns ``str``; the same cells as :func:`read_table`. The coded columns are parsed into
    per-block dictionaries (no string column is built) and the block dictionaries ranked
    together.

    Parameters
    ----------
    source : Source
        The input.
    columns : tuple of str
        Columns to code.

    Returns
    -------
    pandas.DataFrame or None
        The table; None when the columnar reader does not apply (small files: use
        :func:`read_table`).

    Raises
    ------
    DataError
        Over the parse-memory limit.

    Examples
    --------
    >>> source = as_source(b"item_id,annotator_id,label\ni1,a,pos\n", "toy.csv")
    >>> read_coded(source, ("item_id",)) is None  # below COLUMNAR_MIN_BYTES
    True
    """
    layout = _columnar_layout(source)
    if layout is None or not set(columns) <= set(layout[0]):
        return None
    check_parse_memory(source, "columnar", columns=len(layout[0]))
    source.arrow = False  # a string table parsed earlier is not needed: free it
    source.table = None
    table = _parse_arrow(source, *layout, dictionary=columns)
    if table is None:
        return None
    names = table.column_names
    rest = [c for c in names if c not in columns]
    frame = table.select(rest).to_pandas() if rest else pd.DataFrame(index=range(table.num_rows))
    table = table.select(list(columns))
    for name in columns:
        chunks = table.column(name).chunks
        table = table.drop_columns([name])
        frame[name] = _encode_chunks(chunks)
        del chunks
    del table
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    return frame[names]


def _grow(dictionary, values):
    """Codes of ``values`` in a growing global ``dictionary`` (pyarrow arrays): unseen values
    are appended, so codes stay stable across blocks (the global index a scale-out needs)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    codes = pc.index_in(values, value_set=dictionary)
    missing = pc.is_null(codes)
    if pc.any(missing).as_py():
        new = pc.unique(pc.filter(values, missing))
        dictionary = pa.concat_arrays([dictionary, new])
        codes = pc.index_in(values, value_set=dictionary)
    return dictionary, codes.to_numpy(zero_copy_only=False).astype(np.int64)


def stream_label_counts(path, *, block_size: int = 1 << 24, sep: str = ","):
    r"""Per-item label counts of a long CSV read block by block (memory O(items x labels)).

    Each block's (item, label) counts ``C_b`` are summed, ``C = sum_b C_b``; nominal
    Krippendorff's alpha follows from ``C`` alone, equal to the one-shot result. A prototype:
    it does not run the loader's checks (duplicates, missing-value and number spellings).

    Parameters
    ----------
    path : str or pathlib.Path
        Long CSV with ``item_id, label`` columns.
    block_size : int, default 16 MiB
        Bytes per block.
    sep : str, default ","
        Separator.

    Returns
    -------
    item_ids : list of str
        Items in order of first appearance.
    labels : list of str
        Labels in order of first appearance.
    counts : scipy.sparse.csr_matrix
        (N, K) int64 counts.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = path.write_text("item_id,label\ni1,pos\ni1,neg\ni2,pos\n")
    >>> item_ids, labels, counts = stream_label_counts(path)
    >>> list(item_ids), list(labels), counts.toarray().tolist()
    (['i1', 'i2'], ['pos', 'neg'], [[1, 1], [1, 0]])
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    from scipy import sparse

    reader = pacsv.open_csv(
        str(path),
        read_options=pacsv.ReadOptions(block_size=block_size),
        parse_options=pacsv.ParseOptions(delimiter=sep),
        convert_options=pacsv.ConvertOptions(
            include_columns=["item_id", "label"],
            column_types={"item_id": pa.string(), "label": pa.string()},
        ),
    )
    items, labels = pa.array([], pa.string()), pa.array([], pa.string())
    blocks = []
    for batch in reader:
        items, item_code = _grow(items, batch.column("item_id"))
        labels, label_code = _grow(labels, batch.column("label"))
        blocks.append((item_code, label_code))
        # per-block counts, kept sparse: (item, label) -> count
        key, count = np.unique(item_code * (1 << 20) + label_code, return_counts=True)
        blocks[-1] = (key >> 20, key & ((1 << 20) - 1), count)
    rows = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros(0, np.int64)
    cols = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, np.int64)
    data = np.concatenate([b[2] for b in blocks]) if blocks else np.zeros(0, np.int64)
    counts = sparse.csr_matrix((data, (rows, cols)), shape=(len(items), len(labels)))
    counts.sum_duplicates()  # C = sum over blocks of C_b
    return items.to_pylist(), labels.to_pylist(), counts


def read_npy(source: Source) -> np.ndarray:
    """A NumPy ``.npy`` array (never pickled objects), refused with one :class:`DataError` when
    the bytes are not a ``.npy`` file (an ``.npz`` zip or anything renamed ``.npy``) or the
    memory the array and its integer copy need is over the parse limit.

    Parameters
    ----------
    source : Source
        The file's bytes and name.

    Returns
    -------
    numpy.ndarray
        The array as saved by :func:`numpy.save`.

    Raises
    ------
    DataError
        Not a ``.npy`` file, pickled objects, or over the parse limit.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> buffer = io.BytesIO()
    >>> np.save(buffer, np.array([[3, 1], [0, 4]]))
    >>> read_npy(Source(buffer.getvalue(), "counts.npy")).tolist()
    [[3, 1], [0, 4]]
    """
    if not source.raw.startswith(b"\x93NUMPY"):
        kind = binary_kind(source.raw)
        raise DataError(
            "not a NumPy .npy array" + (f" (looks like {kind})." if kind else "."),
            source=source.name,
            fix="save the (N, K) counts with numpy.save (one array, .npy), or as CSV.",
        )
    check_limit("parse", 3 * len(source.raw), what="reading it would need about",
                source=source.name, fix=_SPLIT)
    try:
        return np.load(io.BytesIO(source.raw), allow_pickle=False)
    except Exception as exc:  # numpy raises many types for a damaged header
        raise DataError(
            f"not a readable .npy array ({exc}).", source=source.name,
            fix="save with numpy.save.",
        ) from None
