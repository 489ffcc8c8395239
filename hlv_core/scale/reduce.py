"""The distributed load: global dictionaries, the loader's rules, per-partition reductions.

:func:`hlv_core.scale.partial.reduce_dataset` without ``keep_rows`` runs the load without a
shuffle (:mod:`hlv_core.scale.partial`: each file read once, partial sums per bucket of global
item codes), which uses this module's scans, label rules and checks. With ``keep_rows`` (the
rows kept on the workers, partitioned by item, for the pairwise analyses) it runs the shuffled
load below (:func:`reduce_shuffled`). Two passes over the partitions (one file each), both plain ``dask`` tasks:

1. **Scan** (per partition, :func:`scan_partition`): surrounding whitespace stripped from the
   ids and labels (counted), empty ids (count, first row), the partition's label dictionary
   (each distinct label with its rows and first row) and its distinct annotator ids. On the
   client these make the **global dictionaries**: the label dictionary, on which the loader's
   label rules (:func:`hlv_core.io.dataset.apply_label_rules`: missing-value spellings, infinite
   numbers, spellings of one number, case variants) run exactly as in memory, and the annotator
   index (sorted distinct ids).
2. **Code, shuffle by item, reduce** (:func:`code_partition`, then dask's shuffle on
   ``item_id`` so that every item's rows meet in one partition however the files split it, then
   :func:`reduce_partition`): duplicates and (item, annotator) cells with several labels are
   found across files with the file and row of their first occurrence; each partition returns
   its block of the sparse item x label count matrix ``C_b``, the annotators per item and, for
   at most :data:`PAIR_STATS_MAX_ANNOTATORS` annotators, the pair tables of the kappas.

Only the reduced objects reach the client: O(items x labels) for the counts, O(distinct labels)
and O(distinct annotators) for the dictionaries; the label rules read one int32 label code per
row, gathered from the label dictionary (4 bytes a row on the client).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from ..io import DataError, ImportReport, order_labels
from ..io.dataset import (
    LEVELS,
    MULTILABEL_MIN_CELLS,
    _compiled_strings_hash,
    apply_label_rules,
    as_categorical,
    echo,
    respelling_note,
    strip_categorical,
)
from ..io.spelling import spelling_changes

__all__ = [
    "PAIR_STATS_MAX_ANNOTATORS",
    "ReducedDataset",
    "code_partition",
    "reduce_shuffled",
    "reduce_partition",
    "first_rows",
    "scan_labels",
    "scan_partition",
]

#: The kappas beside alpha (Cohen for two annotators, Light up to 60) need per-pair tables;
#: they are reduced only up to this many annotators (the in-memory limit of Light's kappa).
PAIR_STATS_MAX_ANNOTATORS = 60

_ROW_BITS = 32  # a row's global position: (partition << 32) | row within the partition


def _strip(values: pd.Series) -> tuple[pd.Series, int]:
    """A column as a categorical with surrounding whitespace removed, and the changed cells."""
    return strip_categorical(as_categorical(values))


def _ids(values: pd.Series) -> tuple[pd.Series, int, dict]:
    """An id column as the in-memory loader reads it: surrounding whitespace stripped, then
    look-alike spellings made one (:mod:`hlv_core.io.spelling`), over the partition's
    dictionary. Returns the categorical, the cells whose whitespace was stripped,
    ``{spelling: (normal spelling, rows)}`` for the spellings that changed (sorted)."""
    values, changed = _strip(values)
    cats = values.cat.categories
    changes = spelling_changes(cats)
    if not changes:
        return values, changed, {}
    codes = values.cat.codes.to_numpy()
    counts = np.bincount(codes[codes >= 0], minlength=len(cats))
    positions = cats.get_indexer(list(changes))
    respelled = {b: (a, int(counts[at]))
                 for (b, a), at in zip(changes.items(), positions, strict=True)}
    new, unique = pd.factorize(pd.Index([changes.get(x, x) for x in cats], dtype=object),
                               sort=True)
    lookup = np.append(new, -1).astype(np.int32)
    out = pd.Series(pd.Categorical.from_codes(lookup[codes], pd.Index(unique, dtype=str)),
                    index=values.index, name=values.name)
    return out, changed, respelled


def scan_partition(frame: pd.DataFrame) -> dict:
    """Pass 1 on one partition (``item_id, annotator_id, label`` as ``str``, NA allowed).

    Returns ``n_rows``; ``changed`` (cells whose surrounding whitespace was removed); per id
    column (stripped and respelled by :func:`_ids`) ``respell_<col>`` (the spellings made
    one) and ``empty_<col>`` = (rows, first row or -1); ``labels`` = DataFrame ``label, count,
    first`` (the partition's label dictionary after stripping, an empty cell read as ``""``);
    ``annotators`` = its distinct annotator ids (object array) and ``annotator_first`` the row
    where each first occurs.

    Parameters
    ----------
    frame : pandas.DataFrame
        One partition, ``item_id, annotator_id, label``.

    Returns
    -------
    dict
        The keys above.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> import pandas as pd
    >>> part = pd.DataFrame({"item_id": ["i1", "i1", "i2"], "annotator_id": ["a", "b", "a"],
    ...                      "label": ["pos", " neg", "pos"]})
    >>> scan = scan_partition(part)
    >>> scan["n_rows"], scan["labels"]["label"].tolist(), scan["labels"]["count"].tolist()
    (3, ['neg', 'pos'], [1, 2])
    """
    out: dict = {"n_rows": len(frame), "changed": 0}
    for column in ("item_id", "annotator_id"):
        values, changed, out[f"respell_{column}"] = _ids(frame[column])
        out["changed"] += changed
        codes = values.cat.codes.to_numpy()
        empty = np.append(np.asarray(values.cat.categories.str.len() == 0), True)[codes]
        out[f"empty_{column}"] = (int(empty.sum()),
                                  int(np.argmax(empty)) if empty.any() else -1)
        if column == "annotator_id":
            used, first = np.unique(codes, return_index=True)
            keep = used >= 0
            out["annotators"] = np.asarray(values.cat.categories[used[keep]], dtype=object)
            out["annotator_first"] = first[keep].astype(np.int64)
    out["labels"], changed, _ = scan_labels(frame["label"])
    out["changed"] += changed
    return out


def first_rows(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """The codes (0 to ``n_codes - 1``; -1 = none) that occur, ascending, and the row where
    each first occurs: ``np.unique(codes[codes >= 0], return_index=True)`` in O(rows) without a
    sort (``numpy.minimum.at`` over the rows).

    Parameters
    ----------
    codes : numpy.ndarray
        (n,) integer codes.
    n_codes : int
        Number of possible codes.

    Returns
    -------
    used, first : numpy.ndarray
        int64 each.

    References
    ----------
    .. [1] NumPy reference, ``numpy.ufunc.at`` (unbuffered in-place reduction at the given
       indices).

    Examples
    --------
    >>> first_rows(np.array([2, 0, 2, -1, 0]), 3)
    (array([0, 2]), array([1, 0]))
    """
    n = len(codes)
    first = np.full(n_codes, n, dtype=np.int64)
    rows = np.arange(n, dtype=np.int64)
    valid = codes >= 0
    if valid.all():
        np.minimum.at(first, codes, rows)
    else:
        np.minimum.at(first, codes[valid], rows[valid])
    used = np.flatnonzero(first < n)
    return used, first[used]


def scan_labels(values: pd.Series) -> tuple[pd.DataFrame, int, np.ndarray]:
    """One partition's label dictionary: ``(table, changed, codes)`` with ``table`` =
    DataFrame ``label, count, first`` (the distinct labels after stripping surrounding
    whitespace, sorted; an empty cell read as ``""``), ``changed`` the cells whose whitespace
    was removed and ``codes`` (int32 per row) the row's position in ``table``.

    Parameters
    ----------
    values : pandas.Series
        The partition's ``label`` column.

    Returns
    -------
    tuple
        ``(table, changed, codes)``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3.

    Examples
    --------
    >>> table, changed, codes = scan_labels(pd.Series(["pos", " neg", "pos"]))
    >>> table["label"].tolist(), changed, codes.tolist()
    (['neg', 'pos'], 1, [1, 0, 1])
    """
    labels = as_categorical(values)
    codes = labels.cat.codes.to_numpy()
    if (codes < 0).any():  # an empty cell is the label "" (a missing-value spelling)
        names = [*labels.cat.categories, ""]
        codes = np.where(codes < 0, len(names) - 1, codes)
        labels = pd.Series(pd.Categorical.from_codes(codes, pd.Index(names, dtype=object)
                                                     .astype(str)), index=labels.index)
        labels = as_categorical(labels.astype(str))
    labels, changed = strip_categorical(labels)
    codes = labels.cat.codes.to_numpy()
    used, first = first_rows(codes, len(labels.cat.categories))
    counts = np.bincount(codes, minlength=len(labels.cat.categories))[used]
    table = pd.DataFrame({
        "label": np.asarray(labels.cat.categories[used], dtype=object),
        "count": counts.astype(np.int64), "first": first.astype(np.int64),
    })
    lookup = np.full(len(labels.cat.categories), -1, dtype=np.int32)
    lookup[used] = np.arange(len(used), dtype=np.int32)
    return table, changed, lookup[codes]


def _label_key(frame: pd.DataFrame) -> tuple[np.ndarray, pd.Index]:
    """Stripped label codes of a partition and their categories (empty cell -> "")."""
    labels = frame["label"].fillna("")
    stripped, _ = _strip(labels)
    return stripped.cat.codes.to_numpy(), stripped.cat.categories


def code_partition(frame: pd.DataFrame, mapping: dict[str, int], annotator_ids: pd.Index,
                   partition_info=None) -> pd.DataFrame:
    """Pass 2 before the shuffle: the stripped item id, the annotator's code in the global
    annotator index ``annotator_ids`` (sorted ids), the final label code (``mapping``: stripped
    raw label -> position in the label inventory) and each row's global position ``pos`` =
    ``(partition << 32) | row``. Every lookup runs over the partition's dictionary, gathered to
    rows by code.

    Parameters
    ----------
    frame : pandas.DataFrame
        One partition.
    mapping : dict of str to int
        Stripped raw label -> position in the label inventory.
    annotator_ids : pandas.Index
        Sorted global annotator ids.
    partition_info : dict, optional
        Dask's partition number (``{"number": k}``).

    Returns
    -------
    pandas.DataFrame
        ``item_id, annotator, label, pos``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> import pandas as pd
    >>> part = pd.DataFrame({"item_id": ["i1", "i1"], "annotator_id": ["a", "b"],
    ...                      "label": ["pos", "neg"]})
    >>> coded = code_partition(part, {"neg": 0, "pos": 1}, pd.Index(["a", "b"]),
    ...                        partition_info={"number": 0})
    >>> coded["label"].tolist(), coded["pos"].tolist()
    ([1, 0], [0, 1])
    """
    number = (partition_info or {}).get("number", 0)
    item = _ids(frame["item_id"])[0]
    annotator = _ids(frame["annotator_id"])[0]
    annotator_lookup = np.append(annotator_ids.get_indexer(annotator.cat.categories), -1)
    codes, categories = _label_key(frame)
    lookup = np.array([mapping[str(x)] for x in categories] + [-1], dtype=np.int16)
    names = np.asarray(item.cat.categories, dtype=object)
    return pd.DataFrame({
        "item_id": pd.array(names[item.cat.codes.to_numpy()], dtype="str"),
        "annotator": annotator_lookup.astype(np.int32)[annotator.cat.codes.to_numpy()],
        "label": lookup[codes],
        "pos": (np.int64(number) << _ROW_BITS) + np.arange(len(frame), dtype=np.int64),
    })


def _hash_strings(values) -> np.ndarray:
    """``pandas.util.hash_array`` of strings (uint64 each; the in-memory content hash's): a big
    dictionary of str by the in-memory hash's compiled SipHash kernel
    (:func:`hlv_core.io.dataset._compiled_strings_hash`, the same numbers), the rest by
    pandas."""
    index = values if isinstance(values, pd.Index) else pd.Index(
        np.asarray(values, dtype=object), dtype=object)
    compiled = _compiled_strings_hash(index)
    if compiled is not None:
        return compiled
    return pd.util.hash_array(np.asarray(index, dtype=object), categorize=False)


def row_hashes(frame: pd.DataFrame, final: dict[str, str]) -> np.ndarray:
    """Per-row uint64 hash of ``(item_id, annotator_id, final label)`` of one partition, as
    ``pandas.util.hash_pandas_object(annotations, index=False)`` hashes the in-memory table;
    every string is hashed once per partition dictionary."""
    from pandas.core.util.hashing import combine_hash_arrays

    item = _ids(frame["item_id"])[0]
    annotator = _ids(frame["annotator_id"])[0]
    codes, categories = _label_key(frame)
    columns = (
        _hash_strings(item.cat.categories)[item.cat.codes.to_numpy()],
        _hash_strings(annotator.cat.categories)[annotator.cat.codes.to_numpy()],
        _hash_strings([final[str(x)] for x in categories])[codes],
    )
    return combine_hash_arrays(iter(columns), 3, len(frame))


def _first_per_group(keys: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``keys`` (sorted) and the smallest ``pos`` of each."""
    order = np.lexsort((pos, keys))
    k = keys[order]
    start = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1]))) if len(k) else np.zeros(
        0, dtype=np.int64)
    return k[start], pos[order][start]


def reduce_partition(frame: pd.DataFrame, n_labels: int, annotator_ids: pd.Index,
                     pair_tables: bool = False) -> dict:
    """Pass 2 after the shuffle (every item's rows in this partition): the partition's block.

    Returns ``counts`` (items x labels CSR, int64), ``n_annotators`` (per item), ``first``
    (each item's first global position, to put items in order of appearance), ``n_dup`` and
    ``dup`` (the earliest repeated row: pos, item, annotator, label code), ``n_cells``,
    ``n_multi`` and ``multi`` (the 5 earliest cells with several labels: pos, item,
    annotator), ``annotator_counts`` (annotators x labels CSR: each annotator's labels) and,
    with ``pair_tables`` (few annotators), ``pairs``: over the annotator codes,
    ``shared`` = M'M, ``agree`` = sum_c X_c'X_c and ``by_label`` (K, A, A) = X_c'M (M: item x
    annotator incidence, X_c: incidence of label c).

    Parameters
    ----------
    frame : pandas.DataFrame
        Coded rows of whole items (:func:`code_partition` after the shuffle).
    n_labels : int
        K.
    annotator_ids : pandas.Index
        Global annotator ids.
    pair_tables : bool, default False
        Also the kappas' pair tables.

    Returns
    -------
    dict
        The block described above.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> import pandas as pd
    >>> part = pd.DataFrame({"item_id": ["i1", "i1"], "annotator_id": ["a", "b"],
    ...                      "label": ["pos", "neg"]})
    >>> coded = code_partition(part, {"neg": 0, "pos": 1}, pd.Index(["a", "b"]),
    ...                        partition_info={"number": 0})
    >>> block = reduce_partition(coded, 2, pd.Index(["a", "b"]))
    >>> block["counts"].toarray().tolist(), block["n_dup"]
    ([[1, 1]], 0)
    """
    item, item_ids = pd.factorize(frame["item_id"].to_numpy(dtype=object))
    annot = frame["annotator"].to_numpy().astype(np.int64)
    annot_ids = np.asarray(annotator_ids, dtype=object)
    label = frame["label"].to_numpy().astype(np.int64)
    pos = frame["pos"].to_numpy().astype(np.int64)
    n_items, n_annot = len(item_ids), max(len(annot_ids), 1)
    cell = item.astype(np.int64) * n_annot + annot
    triple = cell * n_labels + label
    order = np.lexsort((pos, triple))
    t_sorted = triple[order]
    repeat = np.concatenate(([False], t_sorted[1:] == t_sorted[:-1])) if len(t_sorted) else \
        np.zeros(0, dtype=bool)
    out: dict = {"n_dup": int(repeat.sum()), "dup": None}
    if out["n_dup"]:
        rows = order[repeat]
        first = rows[np.argmin(pos[rows])]
        out["dup"] = (int(pos[first]), str(item_ids[item[first]]), str(annot_ids[annot[first]]),
                      int(label[first]))
    keep = order[~repeat]  # one row per (item, annotator, label)
    cells, cell_first = _first_per_group(cell[keep], pos[keep])
    n_per_cell = np.bincount(np.searchsorted(cells, cell[keep]), minlength=len(cells))
    multi = n_per_cell > 1
    out["n_cells"], out["n_multi"] = len(cells), int(multi.sum())
    top = np.argsort(cell_first[multi], kind="stable")[:5]
    out["multi"] = [(int(cell_first[multi][i]), str(item_ids[cells[multi][i] // n_annot]),
                     str(annot_ids[cells[multi][i] % n_annot])) for i in top]
    counts = sparse.csr_matrix(
        (np.ones(len(keep), dtype=np.int64), (item[keep], label[keep])),
        shape=(n_items, n_labels),
    )
    counts.sum_duplicates()
    out["counts"] = counts
    out["n_annotators"] = np.bincount(cells // n_annot, minlength=n_items).astype(np.int64)
    out["annotator_counts"] = sparse.csr_matrix(
        (np.ones(len(keep), dtype=np.int64), (annot[keep], label[keep])),
        shape=(len(annot_ids), n_labels),
    )
    _, out["first"] = _first_per_group(item.astype(np.int64), pos)
    out["item_hash"] = _hash_strings(item_ids)
    if pair_tables:
        out["pairs"] = _pair_tables(item[keep], annot[keep], label[keep], n_items, n_labels,
                                    len(annot_ids))
    return out


def _pair_tables(item, a, label, n_items, n_labels, n_a) -> dict:
    """Dense per-pair tables over few annotators (see :func:`reduce_partition`)."""
    ones = np.ones(len(item))
    m = sparse.csr_matrix((ones, (item, a)), shape=(n_items, n_a))
    shared = (m.T @ m).toarray()
    agree = np.zeros((n_a, n_a))
    by_label = np.zeros((n_labels, n_a, n_a))
    for c in range(n_labels):  # loop over labels only
        sel = label == c
        xc = sparse.csr_matrix((ones[sel], (item[sel], a[sel])), shape=(n_items, n_a))
        agree += (xc.T @ xc).toarray()
        by_label[c] = (xc.T @ m).toarray()
    return {"shared": shared, "agree": agree, "by_label": by_label}


@dataclass
class ReducedDataset:
    """What the distributed load returns: everything the summary, alpha and the kappas read,
    reduced from the partitions (no annotation rows).

    ``counts``: (N, K) sparse int64 item x label counts, items in order of first appearance
    (as the in-memory :class:`~hlv_core.io.Dataset`), labels in inventory order ``labels``;
    ``n_annotators_per_item`` (N,); ``annotator_ids``: sorted distinct annotator ids;
    ``annotator_counts``: (A, K) sparse labels given by each annotator (rows ``annotator_ids``);
    ``pairs``: the kappas' pair tables over ``annotator_ids`` (None past
    :data:`PAIR_STATS_MAX_ANNOTATORS` annotators); ``report``: the import report.

    Attributes
    ----------
    name : str
        Dataset name.
    files : list of str
        Files read.
    labels : tuple of str
        Label inventory.
    task, level : str
        As :class:`hlv_core.io.Dataset`.
    counts : scipy.sparse.csr_matrix
        (N, K) item x label counts.
    n_annotators_per_item : numpy.ndarray
        (N,).
    annotator_ids : pandas.Index
        Sorted annotator ids.
    n_annotations : int
        Rows.
    report : hlv_core.io.ImportReport
        Import report.
    annotator_counts : scipy.sparse.csr_matrix or None
        (A, K) labels per annotator.
    pairs : dict or None
        The kappas' pair tables.
    extra : dict
        ``rows`` (with ``keep_rows``), cached ``content_hash``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core import scale
    >>> data = scale.load("annotations.csv")  # doctest: +SKIP
    >>> data.counts.shape == (data.n_items, data.n_labels)  # doctest: +SKIP
    True
    """

    name: str
    files: list[str]
    labels: tuple[str, ...]
    task: str
    level: str
    counts: sparse.csr_matrix
    n_annotators_per_item: np.ndarray
    annotator_ids: pd.Index
    n_annotations: int
    report: ImportReport
    annotator_counts: sparse.csr_matrix | None = None
    pairs: dict | None = None
    extra: dict = field(default_factory=dict)
    hash_state: dict | None = field(default=None, repr=False)

    def content_hash(self) -> str:
        """:attr:`hlv_core.io.Dataset.content_hash` of the same rows (files with the columns
        ``item_id, annotator_id, label`` in that order), computed on the current Dask scheduler:
        the per-row hashes are streamed from the partitions in file order into one SHA-256,
        then the item and annotator tables in order of first appearance. Cached.

        Returns
        -------
        str
            16 hex digits, equal to :attr:`hlv_core.io.Dataset.content_hash` of the same rows.

        Examples
        --------
        >>> from hlv_core import scale
        >>> from hlv_core.io import load
        >>> with scale.dask_client("local"):  # doctest: +SKIP
        ...     data = scale.load("annotations.csv")
        ...     same = data.content_hash() == load("annotations.csv").content_hash
        >>> same  # doctest: +SKIP
        True
        """
        if "content_hash" not in self.extra:
            self.extra["content_hash"] = _content_hash(self)
        return self.extra["content_hash"]

    @property
    def n_items(self) -> int:
        return self.counts.shape[0]

    @property
    def n_annotators(self) -> int:
        return len(self.annotator_ids)

    @property
    def n_labels(self) -> int:
        return len(self.labels)


def _where(files: list[str], pos: int) -> tuple[str, int]:
    """(file, 1-based line with the header as line 1) of a global row position."""
    return files[pos >> _ROW_BITS], (pos & ((1 << _ROW_BITS) - 1)) + 2


def _global_labels(scans: list[dict], files: list[str], report: ImportReport, source: str):
    """The global label dictionary and the loader's label rules on it.

    Returns ``(mapping, observed)``: stripped raw label -> final label, and the final labels.
    The rules read the label column as one int32 code per row in order of first appearance
    (the counts and first rows of the dictionary), so every count and note is the in-memory one;
    an error is re-pointed to the file and row where its label first occurs."""
    tables = []
    for part, scan in enumerate(scans):
        table = scan["labels"].copy()
        table["first"] = (np.int64(part) << _ROW_BITS) + table["first"].to_numpy()
        tables.append(table)
    merged = pd.concat(tables, ignore_index=True).groupby("label", sort=False).agg(
        count=("count", "sum"), first=("first", "min"))
    merged = merged.sort_values("first", kind="stable")
    names = pd.Index(merged.index.astype(str))
    order = np.argsort(np.asarray(names, dtype=object), kind="stable")
    sorted_names = names[order]
    rank = np.empty(len(names), dtype=np.int32)
    rank[order] = np.arange(len(names), dtype=np.int32)
    counts = merged["count"].to_numpy()
    if _rules_change_nothing(rank, sorted_names, source):
        return dict(zip(names.tolist(), names.tolist(), strict=True)), names.tolist()
    codes = np.repeat(rank, counts)
    column = pd.Series(pd.Categorical.from_codes(codes, pd.Index(sorted_names, dtype=str)))
    ann = pd.DataFrame({"label": column})
    try:
        ann, _ = apply_label_rules(ann, None, report, source, row_offset=0)
    except DataError as error:
        if error.row is None:
            raise
        label_at = int(np.searchsorted(np.cumsum(counts), error.row, side="right"))
        file, row = _where(files, int(merged["first"].iloc[label_at]))
        raise DataError(error.problem, source=file, row=row, column=error.column,
                        fix=error.fix) from None
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    result = ann["label"]
    final = np.asarray(result.cat.categories, dtype=object)[
        result.cat.codes.to_numpy()[starts]]
    mapping = dict(zip(names.tolist(), final.tolist(), strict=True))
    return mapping, list(dict.fromkeys(final.tolist()))


def _rules_change_nothing(rank: np.ndarray, sorted_names: pd.Index, source: str) -> bool:
    """Whether the label rules leave every label as it is, with no note and no error, decided
    on one row per distinct label (in order of first appearance). Every rule's trigger is a
    function of the set of distinct spellings (a look-alike or respaced spelling, a
    missing-value spelling, an infinite number, two spellings of one number, case variants);
    the row counts only enter the notes and the choice of the spelling a merge keeps. So when
    nothing fires on the dictionary, nothing fires on the rows, and the rows need not be
    expanded (one int32 per row on the client)."""
    probe = ImportReport(source, "canonical")
    column = pd.Series(pd.Categorical.from_codes(rank, pd.Index(sorted_names, dtype=str)))
    try:
        ann, _ = apply_label_rules(pd.DataFrame({"label": column}), None, probe, source,
                                   row_offset=0)
    except DataError:
        return False
    after = ann["label"].astype(str).tolist()
    return not probe.notes and not probe.dropped and after == [sorted_names[r] for r in rank]


def _present(frame: pd.DataFrame, column: str, targets: list[str]) -> set[str]:
    """The ``targets`` (normal spellings) that occur spelled so in this partition's ``column``
    (stripped)."""
    cats = _strip(frame[column])[0].cat.categories
    found = pd.Index(targets, dtype=str)
    return set(found[np.asarray(found.isin(cats), dtype=bool)])


def _note_respelling(scans: list[dict], column: str, report: ImportReport, ddf) -> None:
    """The loader's report line of look-alike ids made one. The rule is a function of the
    spelling alone, so the global changes are the union of the partitions'; whether a normal
    spelling also occurs as it is (a merge) is asked of every partition, in one more short
    pass that runs only when some id changed."""
    import dask

    changes: dict[str, str] = {}
    rows: dict[str, int] = {}
    for scan in scans:
        for before, (after, n) in scan[f"respell_{column}"].items():
            changes[before] = after
            rows[before] = rows.get(before, 0) + n
    if not changes:
        return
    targets = sorted(set(changes.values()))
    found = dask.compute(*[dask.delayed(_present)(part, column, targets)
                           for part in ddf.to_delayed()])
    present = set().union(*found)
    ordered = {b: changes[b] for b in sorted(changes)}
    report.note(respelling_note(column, ordered, rows, present))


def _raise_empty_ids(scans, files, total_rows):
    for column in ("item_id", "annotator_id"):
        hits = [(part, s[f"empty_{column}"]) for part, s in enumerate(scans)
                if s[f"empty_{column}"][0]]
        if hits:
            total = sum(h[1][0] for h in hits)
            part, (_, first) = hits[0]
            raise DataError(
                f"empty {column} in {total} row(s); the first is shown. Empty cells are missing "
                "values, not ids.",
                source=files[part], row=first + 2, column=column,
                fix="drop rows without an annotation (a missing annotation is a missing row).",
            )


def reduce_shuffled(ddf, files: list[str] | None = None, *, name: str | None = None,
                   source: str | None = None, keep_rows: bool = False) -> ReducedDataset:
    """Load a ``dask.dataframe`` of long annotations (one partition per file; ``files`` names
    them, for messages) into a :class:`ReducedDataset`, with the loader's checks and import
    report. Runs on the current Dask scheduler (a ``distributed.Client`` when one is active).

    ``keep_rows``: keep the coded rows, partitioned by item, in the cluster's memory
    (``extra["rows"]``, a persisted ``dask.dataframe``) for the pairwise analyses
    (:mod:`hlv_core.scale.pairs`). This is the shuffled load;
    :func:`hlv_core.scale.partial.reduce_dataset` runs it only with ``keep_rows`` (without, the
    load without a shuffle gives the same result).

    Raises :class:`~hlv_core.io.DataError` naming the file and row, as the in-memory loader.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        Long annotations, one partition per file.
    files : list of str, optional
        File names of the partitions (for messages).
    name : str, optional
        Dataset name.
    source : str, optional
        Source shown in messages.
    keep_rows : bool, default False
        Keep the coded rows for :mod:`hlv_core.scale.pairs`.

    Returns
    -------
    ReducedDataset
        The reduced data.

    Raises
    ------
    DataError
        Bad input (file and row named).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core.scale import read_annotations
    >>> frame, files = read_annotations("annotations/*.csv")  # doctest: +SKIP
    >>> data = reduce_shuffled(frame, files, name="annotations")  # doctest: +SKIP
    """
    import dask

    files = files or [f"<partition {i}>" for i in range(ddf.npartitions)]
    source = source or (files[0] if len(files) == 1 else f"{len(files)} files")
    parts = ddf.to_delayed()
    scans = list(dask.compute(*[dask.delayed(scan_partition)(p) for p in parts]))
    total = sum(s["n_rows"] for s in scans)
    report = ImportReport(source, "canonical", rows_read=total)
    changed = sum(s["changed"] for s in scans)
    if changed:
        report.note(f"surrounding whitespace removed from {changed} cell(s).")
    for column in ("item_id", "annotator_id"):
        _note_respelling(scans, column, report, ddf)
    if total == 0:
        raise DataError("the file has no annotation rows.", source=source,
                        fix="add at least one row per (item, annotator, label).")
    _raise_empty_ids(scans, files, total)
    mapping, observed = _global_labels(scans, files, report, source)
    inventory = order_labels(observed)
    position = {lab: i for i, lab in enumerate(inventory)}
    code_of = {raw: position[final] for raw, final in mapping.items()}
    annotator_ids = pd.Index(np.unique(np.concatenate(
        [s["annotators"] for s in scans] + [np.zeros(0, dtype=object)]).astype(str)), dtype=str)
    annotator_order = _annotator_order(scans, annotator_ids)
    for scan in scans:  # every file's annotator dictionary: not needed past this point
        del scan["annotators"], scan["annotator_first"]
    few = len(annotator_ids) <= PAIR_STATS_MAX_ANNOTATORS
    meta = pd.DataFrame({"item_id": pd.Series([], dtype="str"),
                         "annotator": pd.Series([], dtype=np.int32),
                         "label": pd.Series([], dtype=np.int16),
                         "pos": pd.Series([], dtype=np.int64)})
    index = dask.delayed(annotator_ids, pure=True)
    coded = ddf.map_partitions(code_partition, code_of, index, meta=meta)
    shuffled = coded.shuffle(on="item_id", npartitions=max(ddf.npartitions, 1))
    if keep_rows:
        shuffled = shuffled.persist()
    tasks = [dask.delayed(reduce_partition)(p, len(inventory), index, few)
             for p in shuffled.to_delayed()]
    # each block's annotators x labels counts are summed on the workers (a tree of sums), so
    # the client receives one (A, K) matrix, not one per partition
    *blocks, by_annotator = dask.compute(
        *[dask.delayed(_without_annotator_counts)(t) for t in tasks],
        _tree_sum([dask.delayed(operator.itemgetter("annotator_counts"))(t) for t in tasks]))
    _check_cells(blocks, files, inventory, source)
    data = _assemble(blocks, by_annotator, files, inventory, annotator_ids, report, total,
                     name=name or source)
    data.hash_state = {"ddf": ddf, "final": mapping, "item_hash": data.extra.pop("item_hash"),
                       "annotator_order": annotator_order}
    if keep_rows:
        data.extra["rows"] = shuffled
    return data


def _check_cells(blocks, files, inventory, source) -> None:
    """Duplicates and cells with several labels, across files (the loader's wording)."""
    n_dup = sum(b["n_dup"] for b in blocks)
    if n_dup:
        pos, item, annotator, label = min(b["dup"] for b in blocks if b["dup"] is not None)
        file, row = _where(files, pos)
        raise DataError(
            f"duplicate annotation ({item!r}, {annotator!r}, {inventory[label]!r}); the file "
            f"has {n_dup} repeated row(s), the first repeat is shown.",
            source=file, row=row, column="label",
            fix="keep one row per (item_id, annotator_id, label); remove the repeated rows.",
        )
    n_multi = sum(b["n_multi"] for b in blocks)
    if not n_multi:
        return
    n_cells = sum(b["n_cells"] for b in blocks)
    share = n_multi / n_cells
    many = n_multi >= MULTILABEL_MIN_CELLS or (n_multi >= 3 and share >= 0.1)
    if many:
        raise DataError(
            f"{n_multi} of {n_cells} (item, annotator) cells ({share:.1%}) hold several labels: "
            "multi-label data is not supported on the distributed engine.",
            source=source, column="label",
            fix="load multi-label data without --dask (in memory).",
        )
    cells = sorted(c for b in blocks for c in b["multi"])[:5]
    shown = ", ".join(f"({echo(i)}, {echo(a)})" for _, i, a in cells)
    more = f" and {n_multi - 5} more" if n_multi > 5 else ""
    raise DataError(
        f"{n_multi} (item, annotator) cell(s) hold several labels: {shown}{more}; the rest "
        "of the file is single-label, so these look like conflicting duplicates, not "
        "multi-label data.",
        source=source,
        column="label",
        fix="keep one label per (item, annotator), or declare the task multilabel (the Task "
        "choice on the Overview page, schema.json \"task_type\": \"multilabel\" beside the "
        "annotations, or load(..., task='multilabel')).",
    )


def _is_number(text: str) -> bool:
    try:
        return bool(np.isfinite(float(text)))
    except (TypeError, ValueError):
        return False


def _without_annotator_counts(block: dict) -> dict:
    return {key: value for key, value in block.items() if key != "annotator_counts"}


def _add(a, b):
    return a + b


def _tree_sum(parts: list):
    """Delayed pairwise sums of ``parts`` (depth log2 n): the sum of the partitions' sparse
    matrices built on the workers."""
    import dask

    while len(parts) > 1:
        parts = [dask.delayed(_add)(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]


def _assemble(blocks, by_annotator, files, inventory, annotator_ids, report, total, *, name):
    counts = sparse.vstack([b["counts"] for b in blocks], format="csr")
    per_item = np.concatenate([b["n_annotators"] for b in blocks])
    first = np.concatenate([b["first"] for b in blocks])
    order = np.argsort(first, kind="stable")  # items in order of first appearance
    counts, per_item = counts[order], per_item[order]
    item_hash = np.concatenate([b["item_hash"] for b in blocks])[order]
    by_annotator = by_annotator.tocsr()
    pairs = None
    if blocks and "pairs" in blocks[0]:
        pairs = {key: sum(b["pairs"][key] for b in blocks) for key in blocks[0]["pairs"]}
    data = _finish(counts, per_item, by_annotator, pairs, files, inventory, annotator_ids,
                   report, total, name=name)
    data.extra["item_hash"] = item_hash
    return data


def _finish(counts, per_item, by_annotator, pairs, files, inventory, annotator_ids, report,
            total, *, name) -> ReducedDataset:
    """The task and level, the one-annotator refusal, the import report's counts and the
    :class:`ReducedDataset` (items in order of first appearance)."""
    numeric = all(_is_number(x) for x in inventory)
    task = "rating" if numeric and len(inventory) > 2 else "multiclass"
    level = "ordinal" if task == "rating" else "nominal"
    assert level in LEVELS
    if len(annotator_ids) < 2:
        raise DataError(
            f"only one annotator ({annotator_ids[0]!r}) in the file; label variation needs at "
            "least two.",
            source=report.source, column="annotator_id",
            fix="load the disaggregated file with one row per annotator's label.",
        )
    report.rows_kept = total
    report.n_items = counts.shape[0]
    report.n_annotators = len(annotator_ids)
    report.labels = tuple(inventory)
    report.annotators_per_item = {
        "min": float(per_item.min()), "median": float(np.median(per_item)),
        "max": float(per_item.max()),
    }
    return ReducedDataset(
        name=name, files=list(files), labels=tuple(inventory), task=task, level=level,
        counts=counts, n_annotators_per_item=per_item, annotator_ids=annotator_ids,
        annotator_counts=by_annotator,
        n_annotations=total, report=report, pairs=pairs,
    )


def _annotator_order(scans, annotator_ids: pd.Index) -> np.ndarray:
    """Positions in ``annotator_ids`` of the annotators in order of first appearance."""
    names = np.concatenate([s["annotators"] for s in scans] + [np.zeros(0, dtype=object)])
    first = np.concatenate([(np.int64(part) << _ROW_BITS) + s["annotator_first"]
                            for part, s in enumerate(scans)] + [np.zeros(0, dtype=np.int64)])
    code = annotator_ids.get_indexer(names.astype(str))
    best = np.full(len(annotator_ids), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, code, first)
    return np.argsort(best, kind="stable")


def _content_hash(data: ReducedDataset) -> str:
    import hashlib

    import dask
    from pandas.core.util.hashing import combine_hash_arrays

    state = data.hash_state
    if state is None:
        raise ValueError("no content hash state (a ReducedDataset not built by scale.load)")
    h = hashlib.sha256()
    h.update("\x1f".join([*data.labels, data.task, data.level]).encode())
    h.update("\x1f".join(["item_id", "annotator_id", "label"]).encode())
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    kept = state.pop("row_hashes", None)  # computed with the load (the shuffle-free path)
    if kept and hasattr(kept[0], "client") and getattr(kept[0].client, "status",
                                                        None) != "running":
        kept = None  # the load's cluster is closed: the hashes are read again from the files
    if kept is not None:
        for part in kept:
            if hasattr(part, "result"):  # a future on the cluster
                h.update(part.result().tobytes())
                part.release()
            else:
                h.update(np.asarray(part).tobytes())
        kept.clear()
        parts = []
    else:
        parts = [dask.delayed(row_hashes)(p, state["final"]) for p in state["ddf"].to_delayed()]
    if not parts:
        pass
    elif client is not None:  # stream: one partition's hashes on the client at a time
        for future in client.compute(parts):
            h.update(future.result().tobytes())
            future.release()
    else:
        for part in dask.compute(*parts):
            h.update(part.tobytes())
    for column, hashes in (
        ("item_id", state["item_hash"]),
        ("annotator_id", _hash_strings(data.annotator_ids)[state["annotator_order"]]),
    ):
        h.update(column.encode())
        h.update(combine_hash_arrays(iter([hashes]), 1, len(hashes)).tobytes())
    return h.hexdigest()[:16]
