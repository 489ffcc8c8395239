"""Files -> a ``dask.dataframe`` of canonical long annotations, one partition per file.

Input: a folder of Parquet files, a folder of CSV/TSV files, a glob (``data/part-*.csv``) or one
file; columns ``item_id, annotator_id, label`` (an item may be split across files). Files are
read in sorted name order, so "row r of file f" means the same line a user sees in that file.
CSV/TSV files go through the in-memory loader's own table reader
(:func:`hlv_core.io.load_table`: the same cells, the same parse errors); Parquet files are read
column by column with pyarrow, every value turned into ``str`` as that reader does.
"""

from __future__ import annotations

import glob
import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import DataError, load_table
from ..io.dataset import echo

__all__ = ["COLUMNS", "fingerprint", "list_files", "read_annotations", "read_file"]

#: The canonical long columns every file must have.
COLUMNS = ("item_id", "annotator_id", "label")

_TABLE_SUFFIXES = (".parquet", ".csv", ".tsv", ".tab", ".txt")


def list_files(path: str | Path) -> list[str]:
    r"""The files behind ``path`` in sorted name order: a folder (its Parquet files, else its
    CSV/TSV files), a glob pattern or one file. A :class:`~hlv_core.io.DataError` when none.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder, glob pattern or file.

    Returns
    -------
    list of str
        The files, sorted by name.

    Raises
    ------
    DataError
        No file matches.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] Apache Parquet documentation, "File Format" (the columnar file layout).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.csv", "a.csv"):
    ...     _ = (folder / name).write_text("item_id,annotator_id,label\n")
    >>> [pathlib.Path(f).name for f in list_files(folder)]
    ['a.csv', 'b.csv']
    """
    text = str(path)
    folder = Path(text)
    if folder.is_dir():
        files = sorted(str(p) for p in folder.iterdir() if p.suffix == ".parquet")
        if not files:
            files = sorted(str(p) for p in folder.iterdir()
                           if p.suffix.lower() in _TABLE_SUFFIXES and p.is_file())
    elif any(ch in text for ch in "*?["):
        files = sorted(p for p in glob.glob(text) if Path(p).is_file())
    elif folder.is_file():
        files = [text]
    else:
        raise DataError("file or folder not found.", source=text,
                        fix="give a folder of Parquet/CSV files, a glob such as "
                        "'data/part-*.csv', or one file.")
    if not files:
        raise DataError("no Parquet or CSV files found.", source=text,
                        fix="put the annotation files (item_id, annotator_id, label) in the "
                        "folder, or give a glob that matches them.")
    return files


def fingerprint(path: str | Path) -> str:
    r"""A cheap content fingerprint of the files behind ``path``: a hash of every file's name,
    size in bytes and modification time (nanoseconds), in :func:`list_files` order; no file is
    opened. A file added, removed, renamed, rewritten or touched changes it.

    ``fingerprint = sha256(name_1 \0 size_1 \0 mtime_1 \n ... name_n \0 size_n \0 mtime_n \n)``
    (the first 16 hex digits). A rewrite that keeps a file's size and restores its modification
    time is not seen (the streamed content hash of :func:`hlv_core.scale.summary` reads every
    row and sees it).

    Parameters
    ----------
    path : str or pathlib.Path
        Folder, glob pattern or file (:func:`list_files`).

    Returns
    -------
    str
        16 hex digits.

    Raises
    ------
    DataError
        No file matches.

    References
    ----------
    .. [1] IEEE Std 1003.1 (POSIX), ``stat``: the ``st_size`` and ``st_mtim`` fields a file
       system keeps per file.
    .. [2] NIST FIPS 180-4 (2015), "Secure Hash Standard", section 6.2 (SHA-256).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.csv").write_text("item_id,annotator_id,label\n")
    >>> before = fingerprint(folder)
    >>> _ = (folder / "a.csv").write_text("item_id,annotator_id,label\ni1,a,pos\n")
    >>> len(before), fingerprint(folder) != before
    (16, True)
    """
    digest = hashlib.sha256()
    for name in list_files(path):
        stat = os.stat(name)
        digest.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _as_text(values: pd.Series) -> pd.Series:
    """A Parquet column as ``str`` cells (NA kept): string columns as they are (a dictionary
    column as a categorical of its strings: no per-row string work), other types through
    ``str`` of each distinct value (as the in-memory reader turns every cell into text)."""
    if isinstance(values.dtype, pd.CategoricalDtype) and pd.api.types.is_string_dtype(
            values.cat.categories.dtype):
        return values
    if pd.api.types.is_string_dtype(values.dtype) and values.dtype != object:
        return values
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    names = np.array([str(v) for v in uniques.tolist()] + [None], dtype=object)
    return pd.Series(names[codes], index=values.index, dtype="str")


def _is_text_dictionary(kind) -> bool:
    import pyarrow as pa

    return pa.types.is_dictionary(kind) and (pa.types.is_string(kind.value_type)
                                             or pa.types.is_large_string(kind.value_type))


def _sorted_categorical(column) -> pd.Series:
    """A dictionary-encoded Parquet text column as the categorical the loader works on: the
    distinct strings that occur, sorted (byte order of UTF-8 = code point order, as Python
    sorts ``str``), as ``str`` categories; null cells code -1. All work is over the dictionary
    and integer codes (no per-row string), so the loader's ``as_categorical`` keeps it as is."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io.dataset import coded_categorical

    if column.num_chunks == 0:
        return pd.Series(pd.Categorical([], categories=pd.Index([], dtype="str")))
    chunks = column.chunks
    dictionary = chunks[0].dictionary
    if all(chunk.dictionary.equals(dictionary) for chunk in chunks[1:]):
        # one dictionary for the whole column (the usual Parquet file): no unification
        indices = [chunk.indices for chunk in chunks]
    else:
        whole = pa.Table.from_arrays([column], ["c"]).unify_dictionaries().column(0)
        array = whole.combine_chunks() if whole.num_chunks > 1 else whole.chunk(0)
        dictionary, indices = array.dictionary, [array.indices]
    codes = np.concatenate([
        (pc.fill_null(x, -1) if x.null_count else x).to_numpy(zero_copy_only=False)
        for x in indices]).astype(np.int64, copy=False)
    present = codes if column.null_count == 0 else codes[codes >= 0]
    used = np.flatnonzero(np.bincount(present, minlength=len(dictionary)))
    values = dictionary.take(pa.array(used))
    order = pc.array_sort_indices(values).to_numpy(zero_copy_only=False)
    new = np.full(len(dictionary) + 1, -1, dtype=np.int32)  # the last entry: null -> -1
    new[used[order]] = np.arange(len(used), dtype=np.int32)
    categories = pd.Index(values.take(pa.array(order)).to_numpy(zero_copy_only=False),
                          dtype="str")
    return pd.Series(coded_categorical(new[codes], categories))


def _refuse_lists(path: str, schema, present: list[str]) -> None:
    """A Parquet column of list type (``["i1"]`` per cell) is refused as the in-memory reader
    refuses it, naming the file, the first row holding a list and the column; a ``label`` column
    of lists (label sets: multi-label data) is refused as multi-label data."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    nested = (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list)
    for column in present:
        kind = schema.field(column).type
        if not any(test(kind) for test in nested):
            continue
        values = pq.read_table(path, columns=[column])[column]
        valid = values.is_valid().to_numpy(zero_copy_only=False)
        row = int(np.argmax(valid)) if valid.any() else 0
        if column == "label":
            raise DataError(
                "column 'label' holds lists (a set of labels per row): multi-label data is not "
                "supported on the distributed engine.",
                source=path, row=row + 1, column=column,
                fix="load multi-label data without --dask (in memory).")
        raise DataError(
            f"column {column!r} holds lists (e.g. {echo(values[row].as_py())}); only the label "
            "column may hold a list (a set of labels per row).",
            source=path, row=row + 1, column=column,
            fix="write one value per cell in this column (one row per value), or export it as "
            "text.")


def read_file(path: str) -> pd.DataFrame:
    r"""One file as a DataFrame ``item_id, annotator_id, label`` of ``str`` cells (NA where a
    cell is empty; Parquet string columns as categoricals of their dictionary), index = 0-based
    row. Bad files raise :class:`~hlv_core.io.DataError` naming
    the file (and the row, for CSV parse errors).

    Parameters
    ----------
    path : str
        A CSV/TSV or Parquet file.

    Returns
    -------
    pandas.DataFrame
        ``item_id, annotator_id, label``.

    Raises
    ------
    DataError
        Unreadable file or missing columns.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] Apache Parquet documentation, "File Format" (the columnar file layout).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = path.write_text("item_id,annotator_id,label\ni1,a,pos\ni1,b,\n")
    >>> frame = read_file(str(path))
    >>> frame["label"].iloc[0], bool(frame["label"].isna().iloc[1])
    ('pos', True)
    """
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"not a readable Parquet file ({exc}).", source=path,
                            fix="re-export the table as Parquet or CSV.") from None
        names = schema.names
        present = [c for c in COLUMNS if c in names]
        _refuse_lists(path, schema, present)
        try:
            table = pq.read_table(path, columns=present, read_dictionary=present)
        except (OSError, ValueError) as exc:
            raise DataError(f"not a readable Parquet file ({exc}).", source=path,
                            fix="re-export the table as Parquet or CSV.") from None
        frame = pd.DataFrame({c: _sorted_categorical(table.column(c))
                              if _is_text_dictionary(table.column(c).type)
                              else _as_text(table.column(c).to_pandas()) for c in present})
        columns = names
    else:
        frame = load_table(path)
        columns = list(frame.columns)
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise DataError(
            f"missing required column(s) {missing}; found {list(columns)}.",
            source=path, row=1, column=missing[0],
            fix="name the columns item_id, annotator_id, label (one row per single label).",
        )
    if "rank" in columns:
        raise DataError(
            "ranking data (a rank column) is not supported on the distributed engine.",
            source=path, row=1, column="rank",
            fix="load ranking data without --dask (in memory).",
        )
    frame = frame[list(COLUMNS)]
    frame = frame.astype({c: "str" for c in COLUMNS
                          if not isinstance(frame[c].dtype, pd.CategoricalDtype)})
    frame.index = pd.RangeIndex(len(frame))
    return frame


def _meta() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype="str") for c in COLUMNS})


def read_annotations(path: str | Path):
    """``(ddf, files)``: a ``dask.dataframe.DataFrame`` with one partition per file (columns
    :data:`COLUMNS`, ``str``) and the file names in partition order. Lazy: nothing is read until
    a computation runs.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder, glob pattern or file (:func:`list_files`).

    Returns
    -------
    ddf : dask.dataframe.DataFrame
        One partition per file.
    files : list of str
        File names in partition order.

    Raises
    ------
    DataError
        No file matches.

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] Apache Parquet documentation, "File Format" (the columnar file layout).

    Examples
    --------
    >>> frame, files = read_annotations("annotations/*.csv")  # doctest: +SKIP
    >>> frame.npartitions == len(files)  # doctest: +SKIP
    True
    """
    import dask.dataframe as dd

    files = list_files(path)
    ddf = dd.from_map(read_file, files, meta=_meta(), enforce_metadata=False)
    return ddf, files
