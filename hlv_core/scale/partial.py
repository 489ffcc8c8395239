"""The distributed load without a shuffle: each file read once, partial sums keyed on global
item codes.

1. **Scan and code** (per partition, :func:`scan_codes`): the work of
   :func:`~hlv_core.scale.reduce.scan_partition` (stripped and respelled ids, empty ids, the
   label dictionary, the distinct annotators) plus the partition's distinct item ids in order of
   first appearance and the per-distinct-value hashes of the content hash. The rows stay on the
   worker as integer codes into the partition's own dictionaries (int32 each); only the
   dictionaries reach the client.
2. **Global dictionaries** (client): the partitions' item lists, concatenated in file order and
   dictionary-encoded once, give every item a global code in order of first appearance (the
   in-memory item order) and, per file, the map local -> global code; the annotator index is the
   sorted distinct ids; the label rules run on the global label dictionary
   (the shuffled load's rules, unchanged).
3. **Map to global codes** (per partition, :func:`code_rows`): integer gathers only (no string
   work), the row hashes of the content hash, and the rows split by the *bucket* of their item:
   bucket ``f`` holds the items whose first row is in file ``f`` (a contiguous range of global
   codes), so most rows stay where they are.
4. **Reduce per bucket** (:func:`reduce_bucket`): the bucket's rows from the files that hold its
   items (items split across files meet here; the counts of an item are the sum of its rows in
   every file), duplicates and cells with several labels found across files, the item x label
   counts ``C_b`` of the bucket's code range, the annotators per item, the annotator x label
   counts. The client fills one CSR matrix with the blocks in code order (no re-ordering).

Values are those of the shuffled load (:func:`~hlv_core.scale.reduce.reduce_shuffled`,
which ``keep_rows`` runs): the same counts, import report, content hash and errors.
"""

from __future__ import annotations

import operator

import numpy as np
import pandas as pd
from scipy import sparse

from ..io import ImportReport, order_labels
from .reduce import (
    _ROW_BITS,
    PAIR_STATS_MAX_ANNOTATORS,
    ReducedDataset,
    _check_cells,
    _finish,
    _global_labels,
    _hash_strings,
    _ids,
    _note_respelling,
    _pair_tables,
    _raise_empty_ids,
    _without_annotator_counts,
    first_rows,
    reduce_shuffled,
    scan_labels,
)

__all__ = ["code_rows", "reduce_bucket", "reduce_dataset", "reduce_partial", "scan_codes"]


def _text_array(values: pd.Index):
    """A ``str`` index as a pyarrow string array (compact on the client: no Python objects)."""
    import pyarrow as pa

    return pa.array(np.asarray(values, dtype=object), type=pa.large_string())


def scan_codes(frame: pd.DataFrame) -> dict:
    """Pass 1 on one partition, reading it once: ``public`` (what the client needs: the keys of
    :func:`~hlv_core.scale.reduce.scan_partition`, with ``items`` = the distinct item ids in
    order of first appearance and ``annotators`` = the distinct annotator ids in order of first
    appearance, both pyarrow string arrays, ``annotator_first`` their first rows and
    ``item_hash`` (uint64 per item)) and ``cache`` (stays on the worker: per row the int32
    codes ``item``, ``annotator``, ``label`` into those dictionaries and the labels table, and
    the per-value hashes).

    Parameters
    ----------
    frame : pandas.DataFrame
        One partition, ``item_id, annotator_id, label``.

    Returns
    -------
    dict
        ``{"public": ..., "cache": ...}``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and
       the prediction matrix Q).

    Examples
    --------
    >>> import pandas as pd
    >>> part = pd.DataFrame({"item_id": ["i2", "i1", "i2"], "annotator_id": ["b", "a", "a"],
    ...                      "label": ["pos", " neg", "pos"]})
    >>> out = scan_codes(part)
    >>> out["public"]["items"].to_pylist(), out["cache"]["item"].tolist()
    (['i2', 'i1'], [0, 1, 0])
    """
    out: dict = {"n_rows": len(frame), "changed": 0}
    cache: dict = {}
    for column, key in (("item_id", "item"), ("annotator_id", "annotator")):
        values, changed, out[f"respell_{column}"] = _ids(frame[column])
        out["changed"] += changed
        codes = values.cat.codes.to_numpy()
        cats = values.cat.categories
        empty = np.append(np.asarray(cats.str.len() == 0), True)[codes]
        out[f"empty_{column}"] = (int(empty.sum()), int(np.argmax(empty)) if empty.any() else -1)
        used, first = first_rows(codes, len(cats))
        by_first = np.argsort(first)  # first rows are distinct: in order of first appearance
        used, first = used[by_first], first[by_first]
        lookup = np.full(len(cats) + 1, -1, dtype=np.int32)  # the last entry: NA -> -1
        lookup[used] = np.arange(len(used), dtype=np.int32)
        cache[key] = lookup[codes]
        names = cats[used]
        cache[f"{key}_hash"] = _hash_strings(names)
        out[f"{key}s"] = _text_array(names)
        if key == "annotator":
            out["annotator_first"] = first.astype(np.int64)
    out["item_hash"] = cache["item_hash"]
    out["labels"], changed, cache["label"] = scan_labels(frame["label"])
    out["changed"] += changed
    return {"public": out, "cache": cache}


def code_rows(cache: dict, item_map: np.ndarray, annotator_map: np.ndarray,
              label_map: np.ndarray, label_hash: np.ndarray, bucket_starts: np.ndarray,
              part: int) -> dict:
    """Pass 3 on one partition's cached codes: global codes by integer gathers, the row hashes
    of the content hash and the rows split by bucket.

    Parameters
    ----------
    cache : dict
        :func:`scan_codes`'s ``cache``.
    item_map, annotator_map, label_map : numpy.ndarray
        Local -> global code (items in order of first appearance, annotators in the sorted
        index, labels in the inventory).
    label_hash : numpy.ndarray
        uint64 hash of each local label's final spelling.
    bucket_starts : numpy.ndarray
        First global item code of every file's bucket (nondecreasing).
    part : int
        This partition's number.

    Returns
    -------
    dict
        ``"hashes"`` (uint64 per row: ``hash_pandas_object`` of ``(item_id, annotator_id,
        label)``) and, per bucket ``b`` with rows here, ``b`` -> ``(item, annotator, label,
        row)`` int32 arrays.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> part = pd.DataFrame({"item_id": ["i2", "i1"], "annotator_id": ["b", "a"],
    ...                      "label": ["pos", "neg"]})
    >>> cache = scan_codes(part)["cache"]
    >>> out = code_rows(cache, np.array([5, 6]), np.array([1, 0]), np.array([1, 0]),
    ...                 np.zeros(2, dtype=np.uint64), np.array([0, 5]), 1)
    >>> [a.tolist() for a in out[1]]
    [[5, 6], [1, 0], [0, 1], [0, 1]]
    """
    from pandas.core.util.hashing import combine_hash_arrays

    local_item, local_annot, local_label = cache["item"], cache["annotator"], cache["label"]
    n = len(local_item)
    item = np.asarray(item_map, dtype=np.int32)[local_item]
    annot = np.asarray(annotator_map, dtype=np.int32)[local_annot]
    label = np.asarray(label_map, dtype=np.int32)[local_label]
    out: dict = {"hashes": combine_hash_arrays(iter((
        cache["item_hash"][local_item], cache["annotator_hash"][local_annot],
        np.asarray(label_hash, dtype=np.uint64)[local_label])), 3, n)}
    rows = np.arange(n, dtype=np.int32)
    bucket = np.searchsorted(bucket_starts, item, side="right") - 1
    own = bucket == part
    if own.all():
        out[part] = (item, annot, label, rows)
        return out
    if own.any():
        out[part] = (item[own], annot[own], label[own], rows[own])
    others = np.flatnonzero(~own)
    order = others[np.argsort(bucket[others], kind="stable")]
    keys = bucket[order]
    cuts = np.flatnonzero(np.diff(keys)) + 1
    for chunk in np.split(order, cuts):  # one slice per destination bucket
        out[int(bucket[chunk[0]])] = (item[chunk], annot[chunk], label[chunk], rows[chunk])
    return out


def _csr_from_keys(keys: np.ndarray, n_rows: int, n_cols: int) -> sparse.csr_matrix:
    """CSR int64 counts of the flat keys ``row * n_cols + col`` (sorted rows and columns)."""
    size = n_rows * n_cols
    if size <= max(4 * len(keys), 1 << 16):
        dense = np.bincount(keys, minlength=size)
        idx = np.flatnonzero(dense)
        data = dense[idx]
    else:
        idx, data = np.unique(keys, return_counts=True)
    rows = idx // n_cols
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return sparse.csr_matrix((data.astype(np.int64), (idx % n_cols).astype(np.int32), indptr),
                             shape=(n_rows, n_cols))


def reduce_bucket(lo: int, hi: int, n_annotators: int, n_labels: int, pair_tables: bool,
                  parts: list[int], pieces: list[tuple]) -> dict:
    """Pass 4: one bucket (global item codes ``lo`` to ``hi - 1``) from the pieces of the files
    ``parts`` (ascending) that hold its items. Returns the keys of
    :func:`~hlv_core.scale.reduce.reduce_partition` (items in code order, so no ``first``;
    ``dup`` and ``multi`` name items and annotators by global code).

    Parameters
    ----------
    lo, hi : int
        The bucket's global item codes.
    n_annotators, n_labels : int
        A and K.
    pair_tables : bool
        Also the kappas' pair tables.
    parts : list of int
        The files of the pieces.
    pieces : list of tuple
        ``(item, annotator, label, row)`` per file (:func:`code_rows`).

    Returns
    -------
    dict
        The block.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3.

    Examples
    --------
    >>> piece = (np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([1, 0, 1]), np.arange(3))
    >>> block = reduce_bucket(0, 2, 2, 2, False, [0], [piece])
    >>> block["counts"].toarray().tolist(), block["n_annotators"].tolist()
    ([[1, 1], [0, 1]], [2, 1])
    """
    n_items, n_annot = hi - lo, max(n_annotators, 1)
    item = np.concatenate([p[0] for p in pieces]).astype(np.int64) - lo
    annot = np.concatenate([p[1] for p in pieces]).astype(np.int64)
    label = np.concatenate([p[2] for p in pieces]).astype(np.int64)
    pos = np.concatenate([(np.int64(f) << _ROW_BITS) + p[3].astype(np.int64)
                          for f, p in zip(parts, pieces, strict=True)])
    cell = item * n_annot + annot
    # rows come in (file, row) order, so a stable sort keeps the first occurrence first
    order = np.argsort(cell * n_labels + label, kind="stable")
    t_sorted = (cell * n_labels + label)[order]
    repeat = np.concatenate(([False], t_sorted[1:] == t_sorted[:-1])) if len(t_sorted) else \
        np.zeros(0, dtype=bool)
    out: dict = {"n_dup": int(repeat.sum()), "dup": None}
    if out["n_dup"]:
        rows = order[repeat]
        first = rows[np.argmin(pos[rows])]
        out["dup"] = (int(pos[first]), int(item[first] + lo), int(annot[first]),
                      int(label[first]))
    keep = order[~repeat]
    kept_cells = cell[keep]
    starts = np.flatnonzero(np.concatenate(([True], kept_cells[1:] != kept_cells[:-1]))) \
        if len(keep) else np.zeros(0, dtype=np.int64)
    cells = kept_cells[starts]
    n_per_cell = np.diff(np.append(starts, len(keep)))
    cell_first = np.minimum.reduceat(pos[keep], starts) if len(keep) else np.zeros(0, np.int64)
    multi = n_per_cell > 1
    out["n_cells"], out["n_multi"] = len(cells), int(multi.sum())
    top = np.argsort(cell_first[multi], kind="stable")[:5]
    out["multi"] = [(int(cell_first[multi][i]), int(cells[multi][i] // n_annot + lo),
                     int(cells[multi][i] % n_annot)) for i in top]
    item_k, annot_k, label_k = item[keep], annot[keep], label[keep]
    out["counts"] = _csr_from_keys(item_k * n_labels + label_k, n_items, n_labels)
    out["n_annotators"] = np.bincount(cells // n_annot, minlength=n_items).astype(np.int64)
    out["annotator_counts"] = _csr_from_keys(annot_k * n_labels + label_k, n_annotators,
                                             n_labels)
    if pair_tables:
        out["pairs"] = _pair_tables(item_k, annot_k, label_k, n_items, n_labels, n_annotators)
    return out


class _InProcess:
    """The steps run in this process (no ``distributed`` client: dask's local scheduler)."""

    @staticmethod
    def compute(tasks):
        return [task.compute() for task in tasks]

    @staticmethod
    def submit(fn, *args):
        return fn(*args)

    @staticmethod
    def gather(values):
        return list(values)


def _current_client():
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _add(a, b):
    return a + b


def _public(scan: dict) -> dict:
    return scan["public"]


def _cache(scan: dict) -> dict:
    return scan["cache"]


def _global_items(scans: list[dict]):
    """Global item codes: the partitions' item lists (each in order of first appearance)
    concatenated in file order and dictionary-encoded once (codes in order of first
    appearance). Returns the item dictionary and each file's local -> global map."""
    import pyarrow as pa

    lists = [s["items"] for s in scans]
    whole = pa.concat_arrays(lists) if lists else pa.array([], type=pa.large_string())
    encoded = whole.dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    bounds = np.cumsum([0] + [len(x) for x in lists])
    return encoded.dictionary, [codes[bounds[i]:bounds[i + 1]] for i in range(len(lists))]


def _global_annotators(scans: list[dict]):
    """The annotator index (sorted distinct ids, as ``pandas.Index``), each file's local ->
    index map, and the index positions in order of first appearance (the content hash's
    annotator table)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    whole = pa.chunked_array([s["annotators"] for s in scans], type=pa.large_string())
    appearance = pc.unique(whole)  # first occurrence order: files in order, rows in order
    ids = appearance.take(pc.array_sort_indices(appearance))
    maps = [pc.index_in(s["annotators"], value_set=ids).to_numpy(zero_copy_only=False)
            .astype(np.int32) for s in scans]
    order = pc.index_in(appearance, value_set=ids).to_numpy(zero_copy_only=False)
    index = pd.Index(ids.to_numpy(zero_copy_only=False), dtype=str)
    return index, maps, order.astype(np.int64)


def reduce_partial(ddf, files: list[str], *, name: str, source: str) -> ReducedDataset:
    """:func:`~hlv_core.scale.reduce.reduce_shuffled` without the shuffle (see the module
    docstring); the same :class:`~hlv_core.scale.reduce.ReducedDataset`, report and errors.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        Long annotations, one partition per file.
    files : list of str
        File names of the partitions.
    name, source : str
        Dataset name and the source shown in messages.

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
       with human label variation: an empirical study", section 3.

    Examples
    --------
    >>> from hlv_core.scale import read_annotations
    >>> frame, files = read_annotations("annotations/*.csv")  # doctest: +SKIP
    >>> data = reduce_partial(frame, files, name="a", source="a")  # doctest: +SKIP
    """
    import dask

    client = _current_client()
    run = client if client is not None else _InProcess()
    scan_futures = run.compute([dask.delayed(scan_codes)(p) for p in ddf.to_delayed()])
    scans = run.gather([run.submit(_public, s) for s in scan_futures])
    total = sum(s["n_rows"] for s in scans)
    report = ImportReport(source, "canonical", rows_read=total)
    changed = sum(s["changed"] for s in scans)
    if changed:
        report.note(f"surrounding whitespace removed from {changed} cell(s).")
    for column in ("item_id", "annotator_id"):
        _note_respelling(scans, column, report, ddf)
    if total == 0:
        from ..io import DataError

        raise DataError("the file has no annotation rows.", source=source,
                        fix="add at least one row per (item, annotator, label).")
    _raise_empty_ids(scans, files, total)
    mapping, observed = _global_labels(scans, files, report, source)
    inventory = order_labels(observed)
    position = {lab: i for i, lab in enumerate(inventory)}
    item_names, item_maps = _global_items(scans)
    annotator_ids, annotator_maps, annotator_order = _global_annotators(scans)
    n_items, n_annot, n_labels = len(item_names), len(annotator_ids), len(inventory)
    sizes = np.array([len(m) and int(m.max()) + 1 for m in item_maps], dtype=np.int64)
    ends = np.maximum.accumulate(sizes) if len(sizes) else sizes
    starts = np.concatenate(([0], ends[:-1])).astype(np.int64)
    item_hash = np.zeros(n_items, dtype=np.uint64)
    senders: dict[int, list[int]] = {}
    coded, hashes = [], []
    for part, scan in enumerate(scans):
        item_hash[item_maps[part]] = scan.pop("item_hash")
        names = scan["labels"]["label"].tolist()
        label_map = np.array([position[mapping[x]] for x in names], dtype=np.int32)
        label_hash = _hash_strings([mapping[x] for x in names])
        for bucket in np.unique(np.searchsorted(starts, item_maps[part], side="right") - 1):
            senders.setdefault(int(bucket), []).append(part)
        coded.append(run.submit(code_rows, run.submit(_cache, scan_futures[part]),
                                item_maps[part], annotator_maps[part], label_map, label_hash,
                                starts, part))
        hashes.append(run.submit(operator.getitem, coded[-1], "hashes"))
        del scan["items"], scan["annotators"]
    del scan_futures
    few = n_annot <= PAIR_STATS_MAX_ANNOTATORS
    reduced = []
    for bucket in sorted(senders):
        parts = senders[bucket]
        pieces = [run.submit(operator.getitem, coded[p], bucket) for p in parts]
        reduced.append(run.submit(reduce_bucket, int(starts[bucket]), int(ends[bucket]),
                                  n_annot, n_labels, few, parts, pieces))
    del coded
    sums = [run.submit(operator.getitem, r, "annotator_counts") for r in reduced]
    while len(sums) > 1:  # a tree of sums on the workers: one (A, K) matrix reaches the client
        sums = [run.submit(_add, sums[i], sums[i + 1]) if i + 1 < len(sums) else sums[i]
                for i in range(0, len(sums), 2)]
    blocks = run.gather([run.submit(_without_annotator_counts, r) for r in reduced])
    by_annotator = run.gather(sums)[0] if sums else sparse.csr_matrix((n_annot, n_labels),
                                                                      dtype=np.int64)
    del reduced, sums
    names = item_names
    for block in blocks:  # names of the reported items and annotators (a few at most)
        if block["dup"] is not None:
            pos, item, annot, label = block["dup"]
            block["dup"] = (pos, names[item].as_py(), str(annotator_ids[annot]), label)
        block["multi"] = [(pos, names[item].as_py(), str(annotator_ids[annot]))
                          for pos, item, annot in block["multi"]]
    _check_cells(blocks, files, inventory, source)
    counts = _fill_counts(blocks, n_items, n_labels)
    per_item = np.concatenate([b["n_annotators"] for b in blocks]) if blocks else \
        np.zeros(0, dtype=np.int64)
    pairs = None
    if blocks and "pairs" in blocks[0]:
        pairs = {key: sum(b["pairs"][key] for b in blocks) for key in blocks[0]["pairs"]}
    del blocks
    data = _finish(counts, per_item, by_annotator.tocsr(), pairs, files, inventory,
                   annotator_ids, report, total, name=name)
    data.hash_state = {"ddf": ddf, "final": mapping, "item_hash": item_hash,
                       "annotator_order": annotator_order, "row_hashes": hashes}
    return data


def _fill_counts(blocks: list[dict], n_items: int, n_labels: int) -> sparse.csr_matrix:
    """One CSR matrix from the blocks (in item code order), filled in place."""
    nnz = sum(b["counts"].nnz for b in blocks)
    data = np.empty(nnz, dtype=np.int64)
    indices = np.empty(nnz, dtype=np.int32)
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    row = at = 0
    for block in blocks:
        c = block.pop("counts")
        data[at:at + c.nnz] = c.data
        indices[at:at + c.nnz] = c.indices
        indptr[row + 1:row + 1 + c.shape[0]] = c.indptr[1:] + at
        row += c.shape[0]
        at += c.nnz
    return sparse.csr_matrix((data, indices, indptr), shape=(n_items, n_labels))


def reduce_dataset(ddf, files: list[str] | None = None, *, name: str | None = None,
                   source: str | None = None, keep_rows: bool = False) -> ReducedDataset:
    """Load a ``dask.dataframe`` of long annotations (one partition per file; ``files`` names
    them, for messages) into a :class:`~hlv_core.scale.reduce.ReducedDataset`, with the
    loader's checks and import report, on the current Dask scheduler: without ``keep_rows`` by
    :func:`reduce_partial` (each file read once, no shuffle), with ``keep_rows`` by
    :func:`~hlv_core.scale.reduce.reduce_shuffled` (the rows shuffled by item and kept on the
    workers for :mod:`hlv_core.scale.pairs` and :mod:`hlv_core.scale.competence`). Both give the
    same counts, report, content hash and errors.

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
       with human label variation: an empirical study", section 3.

    Examples
    --------
    >>> from hlv_core.scale import read_annotations
    >>> frame, files = read_annotations("annotations/*.csv")  # doctest: +SKIP
    >>> data = reduce_dataset(frame, files, name="annotations")  # doctest: +SKIP
    """
    if keep_rows:
        return reduce_shuffled(ddf, files, name=name, source=source, keep_rows=True)
    files = files or [f"<partition {i}>" for i in range(ddf.npartitions)]
    source = source or (files[0] if len(files) == 1 else f"{len(files)} files")
    return reduce_partial(ddf, files, name=name or source, source=source)
