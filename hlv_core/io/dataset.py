"""The canonical in-memory dataset and its derived views.

Canonical tables (the layouts of ``README.md``, Input formats):

* ``annotations``: long DataFrame, one row per single label, columns ``item_id, annotator_id,
  label`` (all ``str``) plus optional ``rank`` (``Int64``, >= 1; equal ranks form a tie block).
* ``items``: one row per item, column ``item_id`` first, then ``split``/``text``/context columns.
* ``annotators``: one row per annotator, ``annotator_id`` then trait columns (missing = NA).
* ``labels``: the ordered label inventory. Its order fixes every tie-break
  (``docs/conventions.md``, tie-break).
"""

from __future__ import annotations

import hashlib
import weakref
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import sparse

from .errors import DataError, ImportReport
from .spelling import decimal_comma_labels, describe_change, normalise_spelling, spelling_changes

__all__ = [
    "TASKS",
    "LEVELS",
    "MISSING_SPELLINGS",
    "MULTILABEL_MIN_CELLS",
    "Dataset",
    "apply_label_rules",
    "build_dataset",
    "echo",
    "is_missing_spelling",
    "order_labels",
    "respelling_note",
]

TASKS = ("multiclass", "multilabel", "ranking", "rating")
LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: The one list of missing-value spellings (spreadsheets, R, pandas, SQL). Matched after
#: stripping surrounding whitespace; case-insensitive except ``None`` (lower-case ``none`` is a
#: common real label, e.g. "no emotion"). A spelling listed in the label schema is a label.
MISSING_SPELLINGS: tuple[str, ...] = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)
_MISSING_FOLDED = {x.lower() for x in MISSING_SPELLINGS if x != "None"}

#: Multi-label is inferred from the data alone only when at least this many (item, annotator)
#: cells hold several labels, or at least 3 cells and 10% of all cells do. Fewer such cells in
#: otherwise single-label data are reported as an error naming them (override: task multilabel).
MULTILABEL_MIN_CELLS = 10


def is_missing_spelling(values: pd.Series) -> pd.Series:
    """Which cells are written as a missing value (one of :data:`MISSING_SPELLINGS`, or NA).

    Matched after stripping surrounding whitespace, case-insensitively except ``None``
    (lower-case ``none`` is a real label, e.g. "no emotion").

    Parameters
    ----------
    values : pandas.Series
        Cells as read.

    Returns
    -------
    pandas.Series
        Boolean mask.

    Examples
    --------
    >>> import pandas as pd
    >>> is_missing_spelling(pd.Series(["pos", " NA ", "none", "None", None])).tolist()
    [False, True, False, True, True]
    """
    text = values.astype(object).where(values.notna(), "").astype(str).str.strip()
    return values.isna() | text.str.lower().isin(_MISSING_FOLDED) | (text == "None")


def echo(value, limit: int = 60) -> str:
    """``repr`` of a user value for a message, truncated to ``limit`` characters.

    Parameters
    ----------
    value : object
        Any value.
    limit : int, default 60
        Longest text.

    Returns
    -------
    str
        The repr, with an ellipsis when cut.

    Examples
    --------
    >>> echo("abc"), echo("x" * 100, limit=10)
    ("'abc'", "'xxxxxxxx…")
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _recode(codes: np.ndarray, names) -> pd.Categorical:
    """Categorical from ``codes`` into ``names`` (may repeat / be unsorted: equal names merge);
    categories sorted ``str``; code -1 (NA) stays -1. Work over the dictionary, not the rows."""
    new, unique = pd.factorize(pd.Index(names, dtype=object), sort=True)
    lookup = np.append(new, -1).astype(np.int32)
    categories = _remember_sorted(pd.Index(unique, dtype=str))
    return coded_categorical(lookup[np.asarray(codes)], categories)


def coded_categorical(codes: np.ndarray, categories: pd.Index) -> pd.Categorical:
    """``pandas.Categorical.from_codes(codes, categories, validate=False)`` for categories that
    are unique by construction, without pandas' uniqueness check: that check builds a hash
    table over Python copies of every category and keeps it on the Index (~70 bytes per
    distinct id, 0.4 GB for 5 M ids)."""
    try:
        dtype = pd.CategoricalDtype._from_fastpath(categories, False)
    except AttributeError:  # pragma: no cover - another pandas: the checked constructor
        dtype = pd.CategoricalDtype(categories, ordered=False)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


#: Category indexes already known to be sorted ``str`` (checked once, not per call).
_SORTED: dict[int, weakref.ref] = {}


def _remember_sorted(categories: pd.Index) -> pd.Index:
    if len(_SORTED) > 256:
        for key in [k for k, ref in _SORTED.items() if ref() is None]:
            del _SORTED[key]
    _SORTED[id(categories)] = weakref.ref(categories)
    return categories


def as_categorical(values: pd.Series) -> pd.Series:
    """A column as a pandas Categorical with sorted unique ``str`` categories (NA = code -1):
    the integer-coded form every validation of :func:`build_dataset` works on."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        cats = values.cat.categories
        # categories are unique by construction; sorted ones are kept as they are
        if id(cats) in _SORTED and _SORTED[id(cats)]() is cats:
            return values
        if isinstance(cats.dtype, pd.StringDtype) and bool(np.all(cats[1:] > cats[:-1])):
            _remember_sorted(cats)
            return values
        out = _recode(values.cat.codes.to_numpy(), [str(x) for x in cats])
    else:
        if not pd.api.types.is_string_dtype(values.dtype) or values.dtype == object:
            values = values.astype(object).where(values.notna(), None)
            values = values.map(lambda v: v if v is None else str(v))
        codes, unique = pd.factorize(values, sort=True)
        out = coded_categorical(codes.astype(np.int32),
                                _remember_sorted(pd.Index(unique, dtype=str)))
    return pd.Series(out, index=values.index, name=values.name)


def strip_categorical(values: pd.Series) -> tuple[pd.Series, int]:
    """Strip surrounding whitespace from a categorical text column (over its categories);
    returns the column and the number of rows whose value changed."""
    values = as_categorical(values)
    cats = values.cat.categories
    stripped = cats.str.strip()
    differs = np.asarray(stripped != cats, dtype=bool)
    if not differs.any():
        return values, 0
    codes = values.cat.codes.to_numpy()
    counts = np.bincount(codes[codes >= 0], minlength=len(cats))
    out = pd.Series(_recode(codes, stripped), index=values.index, name=values.name)
    return out, int(counts[differs].sum())


def _appearance(codes: np.ndarray) -> np.ndarray:
    """Distinct codes (>= 0) in order of first appearance (hash-based, over integers)."""
    return pd.unique(codes[codes >= 0] if (codes < 0).any() else codes)


def _in_order_of_appearance(values: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """The distinct values of a categorical column in order of first appearance, and for each
    category its position in that order (-1 where unused)."""
    order = _appearance(values.cat.codes.to_numpy())
    lookup = np.full(len(values.cat.categories), -1, dtype=np.int32)
    lookup[order] = np.arange(len(order), dtype=np.int32)
    return values.cat.categories[order], lookup


def _label_counts(values: pd.Series) -> pd.Series:
    """Rows per used value of a categorical column, in order of first appearance."""
    codes = values.cat.codes.to_numpy()
    counts = np.bincount(codes[codes >= 0], minlength=len(values.cat.categories))
    used = _appearance(codes)
    return pd.Series(counts[used], index=values.cat.categories[used], name="count")


def _inverse(lookup: np.ndarray) -> np.ndarray:
    """Category of each position: the inverse of a category -> position ``lookup``."""
    used = np.flatnonzero(lookup >= 0)
    return used[np.argsort(lookup[used], kind="stable")]


def _gather(lookup: np.ndarray, values: pd.Series) -> np.ndarray:
    """Per-row position: ``lookup`` (one entry per category) gathered by the row codes."""
    return np.append(lookup, -1).astype(np.int32)[values.cat.codes.to_numpy()]


def _positions(values: pd.Series, index: pd.Index) -> np.ndarray:
    """Row position in ``index`` of every value (-1 if absent); for a categorical column the
    lookup runs over its categories and is gathered by code (no per-row hashing)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        lookup = pd.Index(index).get_indexer(values.cat.categories)
        codes = values.cat.codes.to_numpy()
        return np.append(lookup, -1).astype(np.int32)[codes]
    return pd.Index(index).get_indexer(values.to_numpy(dtype=object)).astype(np.int32)


def _utf8_buffers(chunk) -> tuple[np.ndarray, np.ndarray]:
    """The value bytes (uint8) and the ``len(chunk) + 1`` offsets (int32 or int64, the
    chunk's slice of its offset buffer) of a null-free Arrow string or large_string array,
    views of its buffers (no copy)."""
    import pyarrow as pa

    width = np.int32 if pa.types.is_string(chunk.type) else np.int64
    _, offsets, data = chunk.buffers()
    offsets = np.frombuffer(offsets, dtype=width)[chunk.offset: chunk.offset + len(chunk) + 1]
    data = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
    return data, offsets


#: Strings in one dictionary from which the compiled hash pays for loading numba in a process
#: that has not loaded it (5 M ids save ~1.1 s against ~1 s of import and dispatch).
_FRESH_KERNEL_STRINGS = 8_000_000


def _compiled_strings_hash(categories: pd.Index) -> np.ndarray | None:
    """``pd.util.hash_array(np.asarray(categories, dtype=object), categorize=False)`` (the
    same uint64 numbers) by the compiled SipHash kernel over the categories' UTF-8 bytes; None
    where it does not serve: a small dictionary (``MIN_COMPILED_WORK``), numba missing, the
    reference forced, or a category that is not a str (or not encodable) or missing.

    A pyarrow-backed ``str`` index is hashed from its own buffers (no Python str is made);
    another index of str values is copied to Arrow in slices (its Python strings exist
    already). In a process that has not loaded numba yet, only a dictionary of at least
    :data:`_FRESH_KERNEL_STRINGS` strings takes the kernel: numba's import and first dispatch
    (~1 s CPU) cost more than the ~0.2 us a string the kernel saves below that."""
    import sys

    from hlv_core._compiled import kernels

    if "numba" not in sys.modules and len(categories) < _FRESH_KERNEL_STRINGS:
        return None
    compiled = kernels(len(categories))
    if compiled is None or not len(categories):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    dtype = categories.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        arrow = categories.array.__arrow_array__()
        chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    else:
        values = np.asarray(categories, dtype=object)
        if pd.api.types.infer_dtype(values, skipna=False) != "string":
            return None
        step = 1 << 20
        chunks = (pa.array(values[start:start + step], type=pa.large_string())
                  for start in range(0, len(values), step))
    parts = [np.zeros(0, dtype=np.uint64)]
    try:
        for chunk in chunks:
            if chunk.null_count:
                return None
            if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
                chunk = chunk.cast(pa.large_string())
            parts.append(compiled.string_hashes(*_utf8_buffers(chunk)))
    except (pa.ArrowException, UnicodeError):  # e.g. a lone surrogate: pandas' path decides
        return None
    return np.concatenate(parts)


def _frame_hash(table: pd.DataFrame, key: str, hints: dict, cache: dict) -> np.ndarray:
    """``pandas.util.hash_pandas_object(table, index=False)`` (the same numbers), with each
    string dictionary hashed once: a categorical column hashes its categories and gathers by
    code; an id column known to be ``categories[order]`` (``hints``) gathers by ``order``."""
    from pandas.core.util.hashing import combine_hash_arrays

    def categories_hash(categories: pd.Index) -> np.ndarray:
        if id(categories) in cache:
            return cache[id(categories)]
        compiled = _compiled_strings_hash(categories)  # big dictionaries of str only
        if compiled is not None:
            cache[id(categories)] = compiled
        else:  # in slices: few Python strings alive at a time
            step = 1 << 18  # categorize=False: distinct values (the same numbers, no hash table)
            cache[id(categories)] = np.concatenate([np.zeros(0, dtype=np.uint64)] + [
                pd.util.hash_array(
                    np.asarray(categories[start:start + step], dtype=object), categorize=False
                )
                for start in range(0, len(categories), step)
            ])
        return cache[id(categories)]

    def column_hashes():  # one column's row hashes alive at a time
        for name, values in table.items():
            if isinstance(values.dtype, pd.CategoricalDtype):
                codes = values.cat.codes.to_numpy()
                hashed = np.append(categories_hash(values.cat.categories),
                                   np.iinfo(np.uint64).max)
                yield hashed[codes]
            elif f"{key}.{name}" in hints and hints[f"{key}.{name}"][0] is table:
                _, categories, order = hints[f"{key}.{name}"]
                yield categories_hash(categories)[order]
            else:
                yield pd.util.hash_pandas_object(values, index=False).to_numpy()

    if not len(table.columns):
        return np.zeros(0, dtype=np.uint64)
    return combine_hash_arrays(column_hashes(), len(table.columns), len(table))


def _as_number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if np.isfinite(value) else None


def order_labels(labels: list[str] | pd.Index | np.ndarray) -> tuple[str, ...]:
    """Default label inventory order when the data gives none.

    Numeric order when every label is a number (so ratings read -5, -4, ..., 5), otherwise
    sorted label strings. The order fixes every tie-break (lowest index wins), so it is shown.

    Parameters
    ----------
    labels : sequence of str
        Labels (repeats allowed).

    Returns
    -------
    tuple of str
        The distinct labels in inventory order.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> order_labels(["10", "-5", "2", "2"]), order_labels(["b", "a", "B"])
    (('-5', '2', '10'), ('B', 'a', 'b'))
    """
    unique = sorted({str(x) for x in labels})
    numbers = [_as_number(x) for x in unique]
    if unique and all(v is not None for v in numbers):
        return tuple(x for _, x in sorted(zip(numbers, unique, strict=True)))
    return tuple(unique)


@dataclass(frozen=True, eq=False)
class Dataset:
    r"""A validated human-label-variation dataset (immutable by convention: never mutate tables).

    Use :func:`hlv_core.io.load` (or :func:`build_dataset`) to build one. Views: ``item_ids``,
    ``annotator_ids``, ``judgements_array()`` (N, K) proportions P, ``counts_array()`` (N, K),
    ``annotators_per_item_array()``, ``entropy()``, ``majority_label()`` (ties to the lowest
    inventory index), ``pair_agreement_array()``, ``item_table()``, ``item_annotations(id)``,
    ``selectors()`` (rankings), ``label_numeric_values()``, ``summary()``, ``label_table()``
    and ``content_hash`` (the cache key of every page computation).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id, label`` (+ ``rank`` for rankings).
    labels : tuple of str
        The ordered label inventory.
    items : pandas.DataFrame
        ``item_id`` (+ ``split``, ``text``, ...); its order is the row order of every (N, K) view.
    annotators : pandas.DataFrame
        ``annotator_id`` + traits.
    task : {"multiclass", "multilabel", "ranking", "rating"}, default "multiclass"
        What an annotation is.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement.
    label_values : dict of str to float, optional
        Numeric value of each label (ratings).
    annotator_ids_known : bool, default True
        False for counts-only data and per-case readers.
    name : str, default "dataset"
        Display name.
    report : ImportReport
        What the loader read, kept and dropped.
    predictions : pandas.DataFrame, optional
        Bundled model predictions (``model, item_id, label, prob``).
    extra : dict
        Loader extras (e.g. LeWiDi soft labels).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core.io import load
    >>> dataset = load(b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\ni2,a,pos\n",
    ...                name="toy.csv")
    >>> dataset.item_ids.tolist(), dataset.counts_array().tolist()
    (['i1', 'i2'], [[1, 1], [0, 1]])
    >>> dataset.majority_label().tolist()
    ['neg', 'pos']
    """

    annotations: pd.DataFrame
    labels: tuple[str, ...]
    items: pd.DataFrame
    annotators: pd.DataFrame
    task: str = "multiclass"
    level: str = "nominal"
    label_values: dict[str, float] | None = None
    annotator_ids_known: bool = True
    name: str = "dataset"
    report: ImportReport = field(default_factory=lambda: ImportReport("<memory>", "memory"))
    predictions: pd.DataFrame | None = None
    extra: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ basic facts
    @cached_property
    def item_ids(self) -> pd.Index:
        """Items in the order of ``items`` (rows of every (N, K) view)."""
        return pd.Index(self.items["item_id"].to_numpy(dtype=object), name="item_id")

    @cached_property
    def annotator_ids(self) -> pd.Index:
        return pd.Index(self.annotators["annotator_id"].to_numpy(dtype=object), name="annotator_id")

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_annotators(self) -> int:
        return len(self.annotators)

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @cached_property
    def content_hash(self) -> str:
        """Stable hash of everything an analysis can read: label order, task, level, the
        annotations, items and annotators tables (for caching and exports)."""
        h = hashlib.sha256()
        h.update("\x1f".join([*self.labels, self.task, self.level]).encode())
        hints = self.__dict__.get("_id_columns", {})
        cache: dict[int, np.ndarray] = {}
        for key, table in (("annotations", self.annotations), ("items", self.items),
                           ("annotators", self.annotators)):
            h.update("\x1f".join(map(str, table.columns)).encode())
            # the array's own buffer (``tobytes`` would copy it): the same bytes
            h.update(memoryview(np.ascontiguousarray(_frame_hash(table, key, hints, cache))))
        return h.hexdigest()[:16]

    @cached_property
    def _codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Integer codes (item row, annotator row, label column) for every annotation row
        (int32: 4 bytes a row each; widen before multiplying two codes)."""
        ann = self.annotations
        return (
            _positions(ann["item_id"], self.item_ids),
            _positions(ann["annotator_id"], self.annotator_ids),
            _positions(ann["label"], pd.Index(self.labels)),
        )

    # ------------------------------------------------------------------ derived views
    def counts_array(self) -> np.ndarray:
        r"""(N, K) int array: number of annotators who chose label k for item i.

        Rows are unique (item, annotator, label) triples (duplicates are rejected on load), so
        this is one ``bincount``. For ranking data a label counts once per reader who ranked it.

        Returns
        -------
        numpy.ndarray
            (N, K) integer counts ``C_ik``, rows in ``item_ids`` order, columns in ``labels`` order.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.counts_array().tolist()
        [[1, 2], [3, 0], [3, 1]]
        """
        item_code, _, label_code = self._codes
        flat = item_code.astype(np.int64) * self.n_labels + label_code
        counts = np.bincount(flat, minlength=self.n_items * self.n_labels)
        return counts.reshape(self.n_items, self.n_labels)

    def counts(self) -> pd.DataFrame:
        r"""Items x labels annotation counts (see :meth:`counts_array`).

        Returns
        -------
        pandas.DataFrame
            Index ``item_id``, one column per label.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.counts().loc["i3"].to_dict()
        {'neg': 3, 'pos': 1}
        """
        return pd.DataFrame(self.counts_array(), index=self.item_ids, columns=list(self.labels))

    def annotators_per_item_array(self) -> np.ndarray:
        r"""(N,) number of distinct annotators per item (sparse item x annotator incidence).

        Returns
        -------
        numpy.ndarray
            (N,) integers ``n_i``.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.annotators_per_item_array().tolist()
        [3, 3, 4]
        """
        return self._annotators_per_item.copy()

    @cached_property
    def _annotators_per_item(self) -> np.ndarray:
        item_code, annot_code, _ = self._codes
        incidence = sparse.csr_matrix(
            (np.ones(len(item_code), dtype=np.int8), (item_code, annot_code)),
            shape=(self.n_items, self.n_annotators),
        )
        incidence.sum_duplicates()
        return np.diff(incidence.indptr)

    def annotators_per_item(self) -> pd.Series:
        r"""The number of distinct annotators per item, as a Series (:meth:`annotators_per_item_array`).

        Returns
        -------
        pandas.Series
            ``n_annotators`` indexed by ``item_id``.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.annotators_per_item().to_dict()
        {'i1': 3, 'i2': 3, 'i3': 4}
        """
        return pd.Series(self.annotators_per_item_array(), index=self.item_ids, name="n_annotators")

    def judgements_array(self) -> np.ndarray:
        r"""(N, K) human judgement distribution P.

        Multiclass / rating / multilabel: ``P_ik = (#annotators on i who chose k) / n_i`` with n_i
        the item's annotators (Kurniawan et al., section 3); multiclass rows sum to 1, multilabel
        rows need not. Ranking: each reader spreads one unit of mass evenly over their top block
        (first-choice distribution with ties split).

        Returns
        -------
        numpy.ndarray
            (N, K) float P (NaN rows for items without annotations).

        References
        ----------
        .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
           human label variation: an empirical study", section 3 (the human judgement distribution).

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.judgements_array().round(3).tolist()
        [[0.333, 0.667], [1.0, 0.0], [0.75, 0.25]]
        """
        n = self.annotators_per_item_array().astype(float)
        if self.task == "ranking":
            ann = self.annotations
            item_code, annot_code, label_code = self._codes
            ranks = ann["rank"].to_numpy(dtype="float64", na_value=np.inf)
            # top block of each (item, reader): minimal rank
            key = item_code.astype(np.int64) * (self.n_annotators + 1) + annot_code
            frame = pd.DataFrame({"key": key, "rank": ranks})
            best = frame.groupby("key")["rank"].transform("min").to_numpy()
            top = np.isfinite(ranks) & (ranks == best)
            size = pd.Series(top.astype(float)).groupby(key).transform("sum").to_numpy()
            mass = np.where(top, 1.0 / np.where(size > 0, size, 1.0), 0.0)
            out = np.zeros((self.n_items, self.n_labels))
            np.add.at(out, (item_code, label_code), mass)
            with np.errstate(invalid="ignore", divide="ignore"):
                return out / n[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.counts_array() / n[:, None]

    def judgements(self) -> pd.DataFrame:
        r"""Items x labels proportions (the judgement distribution P as a DataFrame).

        Returns
        -------
        pandas.DataFrame
            Index ``item_id``, one column per label.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.judgements().loc["i3"].to_dict()
        {'neg': 0.75, 'pos': 0.25}
        """
        return pd.DataFrame(self.judgements_array(), index=self.item_ids, columns=list(self.labels))

    def entropy(self) -> pd.Series:
        r"""Per-item normalised entropy in [0, 1].

        Multiclass/rating/ranking: ``-sum_k P_ik ln P_ik / ln K``. Multilabel: mean over labels of
        the binary entropy (bits) of ``P_ik``.

        Returns
        -------
        pandas.Series
            ``entropy`` per item (index ``item_id``): 0 = unanimous, 1 = every label equally often.

        Examples
        --------
        Item i1 splits 1 : 2 over two labels: ``-(1/3 ln 1/3 + 2/3 ln 2/3) / ln 2 = 0.9183``:

        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.entropy().round(4)[["i1", "i3"]].tolist()
        [0.9183, 0.8113]
        """
        return pd.Series(self._entropy_values(), index=self.item_ids, name="entropy")

    def _entropy_values(self) -> np.ndarray:
        """:meth:`entropy` as a plain (n_items,) array (no item index to build)."""
        p = self.judgements_array()
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.task == "multilabel":
                q = 1.0 - p
                h = -(np.where(p > 0, p * np.log2(p), 0.0) + np.where(q > 0, q * np.log2(q), 0.0))
                return h.mean(axis=1)
            k = max(self.n_labels, 2)
            return -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1) / np.log(k)

    def majority_label(self) -> pd.Series:
        r"""Majority label per item; ties go to the lowest index in the inventory (``docs/conventions.md``, tie-break).

        Multilabel: the ``|``-joined set of labels with proportion strictly > 0.5 (``docs/conventions.md``).

        Returns
        -------
        pandas.Series
            ``majority`` per item (index ``item_id``).

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.majority_label().tolist()
        ['pos', 'neg', 'neg']
        """
        p = self.judgements_array()
        if self.task == "multilabel":
            chosen = p > 0.5
            names = np.array(self.labels, dtype=object)
            values = ["|".join(names[row]) for row in chosen]
        else:
            values = np.array(self.labels, dtype=object)[np.argmax(p, axis=1)]
        return pd.Series(values, index=self.item_ids, name="majority")

    def label_numeric_values(self) -> np.ndarray:
        r"""(K,) numeric value of each label (for ordinal/interval metrics).

        Uses ``label_values`` when the schema gave them, else the label parsed as a number,
        else the label's inventory position.

        Returns
        -------
        numpy.ndarray
            (K,) floats in inventory order.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.label_numeric_values()  # text labels: their inventory positions
        array([0., 1.])
        """
        if self.label_values:
            return np.array([self.label_values[x] for x in self.labels], dtype=float)
        parsed = [_as_number(x) for x in self.labels]
        if all(v is not None for v in parsed):
            return np.array(parsed, dtype=float)
        return np.arange(self.n_labels, dtype=float)

    def numeric_label_map(self, level: str) -> dict[str, float] | None:
        r"""Label -> number for a level of measurement (None for nominal).

        Ordinal: schema values, else numeric labels, else the inventory position (an order is all
        ordinal needs). Interval/ratio: schema values or numeric labels only; non-numeric labels
        without schema values raise :class:`DataError` (never a silent interval scale).

        Parameters
        ----------
        level : {"nominal", "ordinal", "interval", "ratio"}
            Level of measurement.

        Returns
        -------
        dict of str to float or None
            Label -> number; None for nominal.

        Raises
        ------
        DataError
            Interval / ratio on non-numeric labels without schema values.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.numeric_label_map("ordinal"), dataset.numeric_label_map("nominal")
        ({'neg': 0.0, 'pos': 1.0}, None)
        """
        if level == "nominal":
            return None
        not_numbers = [x for x in self.labels if _as_number(x) is None]
        if level in ("interval", "ratio") and not self.label_values and not_numbers:
            raise DataError(
                f"level {level} needs numeric labels; {not_numbers[0]!r} is not a number.",
                source=self.report.source,
                column="label",
                fix="choose nominal or ordinal, or give a numeric value per label (labels.csv "
                "column 'value' or schema.json 'values').",
            )
        return dict(zip(self.labels, self.label_numeric_values().tolist(), strict=True))

    def pair_agreement_array(self) -> np.ndarray:
        r"""(N,) per-item agreement: the share of the item's annotator pairs who agree (NaN for
        items with fewer than two annotators, and for ranking data).

        Multiclass / rating: ``sum_k c_ik (c_ik - 1) / (n_i (n_i - 1))``, the observed agreement
        ``P_i`` of Fleiss' kappa (1 = everyone chose the same label). Multi-label: the same per
        label as a yes / no question, averaged over the labels at least one annotator of the item
        ticked (labels nobody chose would make every item look agreed).

        Returns
        -------
        numpy.ndarray
            (N,) floats in [0, 1] (NaN where undefined).

        References
        ----------
        .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
           Psychological Bulletin 76(5).

        Examples
        --------
        Item i3 has 3 ``neg`` and 1 ``pos``: (3 * 2 + 1 * 0) / (4 * 3) = 0.5:

        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.pair_agreement_array().round(3).tolist()
        [0.333, 1.0, 0.5]
        """
        n = self.annotators_per_item_array().astype(float)
        out = np.full(self.n_items, np.nan)
        if self.task == "ranking" or not self.n_items:
            return out
        c = self.counts_array().astype(float)
        pairs = n * (n - 1.0)
        ok = pairs > 0
        if self.task == "multilabel":
            per_label = c * (c - 1.0) + (n[:, None] - c) * (n[:, None] - c - 1.0)
            used = c > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = np.where(used, per_label, 0.0).sum(axis=1) / used.sum(axis=1)
            ok &= used.any(axis=1)
            out[ok] = mean[ok] / pairs[ok]
        else:
            out[ok] = (c * (c - 1.0)).sum(axis=1)[ok] / pairs[ok]
        return out

    def item_table(self) -> pd.DataFrame:
        r"""One row per item for browsing: counts, majority, share of the majority, pairwise
        agreement (:meth:`pair_agreement_array`), normalised entropy, text. Sorted most contested
        first: highest entropy (compared to 12 decimals, so float noise never decides), ties
        broken by more annotators first (the same split backed by more people), then by
        ``item_id``. The Overview's item table and ``summary --items`` in the CLI.

        Returns
        -------
        pandas.DataFrame
            ``item_id, n_annotators, majority, majority_share, pair_agreement, entropy`` (+
            ``split``, ``text``).

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.item_table()[["item_id", "majority", "majority_share"]].round(3)
          item_id majority  majority_share
        0      i1      pos           0.667
        2      i3      neg           0.750
        1      i2      neg           1.000
        """
        p = self.judgements_array()
        table = pd.DataFrame(
            {
                "item_id": self.item_ids,
                "n_annotators": self.annotators_per_item_array(),
                "majority": self.majority_label().to_numpy(),
                "majority_share": np.nanmax(p, axis=1) if p.size else np.zeros(len(p)),
                "pair_agreement": self.pair_agreement_array(),
                "entropy": self.entropy().to_numpy(),
            }
        )
        for column in ("split", "text"):
            if column in self.items.columns:
                table[column] = self.items[column].to_numpy()
        order = np.lexsort((table["item_id"].to_numpy(dtype=str),
                            -table["n_annotators"].to_numpy(dtype=float),
                            -np.round(np.nan_to_num(table["entropy"].to_numpy(dtype=float),
                                                    nan=-1.0), 12)))
        return table.iloc[order]

    def item_annotations(self, item_id: str) -> pd.DataFrame:
        r"""Every annotation of one item, joined with the annotators' traits.

        Parameters
        ----------
        item_id : str
            The item.

        Returns
        -------
        pandas.DataFrame
            The item's annotation rows with the annotator columns.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.item_annotations("i3")["label"].tolist()
        ['pos', 'neg', 'neg', 'neg']
        """
        rows = self.annotations[self.annotations["item_id"] == str(item_id)]
        return rows.merge(self.annotators, on="annotator_id", how="left")

    def selectors(self) -> list[list[list[list[int]]]]:
        r"""Ranked data in the DeepMind selectors layout: case -> reader -> block -> class ids
        (class id = label position in the inventory). Only for ``task == "ranking"``.

        Computed once per dataset (rows sorted by item, then reader, then rank; readers and
        classes keep their file order); callers get a fresh nested list.

        Returns
        -------
        list
            ``cases[item][reader][block]`` = class ids.

        Raises
        ------
        DataError
            The dataset is not a ranking.

        Examples
        --------
        >>> from hlv_core.io import load
        >>> ranked = load(b"item_id,annotator_id,label,rank\nc1,r1,flu,1\nc1,r1,cold,2\nc1,r2,cold,1\n",
        ...               name="ranks.csv")
        >>> ranked.labels, ranked.selectors()
        (('cold', 'flu'), [[[[1], [0]], [[0]]]])
        """
        if self.task != "ranking":
            raise DataError(
                f"dataset '{self.name}' is {self.task}, not ranking",
                source=self.report.source,
                column="rank",
                fix="load partial rankings (a 'rank' column or a selectors JSON).",
            )
        return [[[list(block) for block in reader] for reader in case]
                for case in self._selectors_cached]

    @cached_property
    def _selectors_cached(self) -> list:
        item_code, annot_code, label_code = self._codes
        ranks = self.annotations["rank"].to_numpy(dtype="float64", na_value=np.inf)
        keep = np.isfinite(ranks)
        first_row = pd.Series(np.arange(len(annot_code))).groupby(annot_code).transform("min")
        order = np.lexsort((np.arange(len(ranks)), ranks, first_row.to_numpy(), item_code))
        order = order[keep[order]]
        cases: list[list[list[list[int]]]] = [[] for _ in range(self.n_items)]
        last_reader, last_rank = -1, None
        for item, reader, rank, label in zip(
            item_code[order].tolist(), annot_code[order].tolist(), ranks[order].tolist(),
            label_code[order].tolist(), strict=True,
        ):
            if reader != last_reader:
                cases[item].append([[label]])
                last_reader, last_rank = reader, rank
            elif rank != last_rank:
                cases[item][-1].append([label])
                last_rank = rank
            else:
                cases[item][-1][-1].append(label)
        return cases

    def summary(self) -> dict:
        r"""Headline facts for the overview and the CLI.

        The one computed number is the mean normalised entropy of the items' judgement
        distributions ``P_i`` (:meth:`judgements_array`), the ``eta_i`` of Kurniawan et al.,
        section 3.1 (items without a defined entropy are skipped):

        .. math::

            \text{mean\_entropy} = \frac{1}{N} \sum_i \eta_i, \qquad
            \eta_i = -\sum_k \frac{P_{ik} \ln P_{ik}}{\ln K}

        Multi-label data: ``eta_i`` is the mean over the labels of the binary entropy (bits) of
        ``[P_ik, 1 - P_ik]`` (section 3.2). ``label_counts`` are ``sum_i C_ik`` of
        :meth:`counts_array`; the rest are counts and names.

        Returns
        -------
        dict
            ``name, task, level, n_items, n_annotators, annotator_ids_known, n_annotations,
            n_labels, labels, annotators_per_item`` (min, median, max), ``label_counts``,
            ``mean_entropy``, ``has_text``, ``has_predictions``, ``content_hash``.

        References
        ----------
        .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
           with human label variation: an empirical study", sections 3.1 (normalised entropy
           of a row) and 3.2 (its multi-label form).

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> facts = dataset.summary()
        >>> facts["n_items"], facts["label_counts"], round(facts["mean_entropy"], 4)
        (3, {'neg': 7, 'pos': 3}, 0.5765)
        """
        per_item = self.annotators_per_item_array()
        label_totals = self.counts_array().sum(axis=0)
        return {
            "name": self.name,
            "task": self.task,
            "level": self.level,
            "n_items": self.n_items,
            "n_annotators": self.n_annotators if self.annotator_ids_known else None,
            "annotator_ids_known": self.annotator_ids_known,
            "n_annotations": len(self.annotations),
            "n_labels": self.n_labels,
            "labels": list(self.labels),
            "annotators_per_item": {
                "min": int(per_item.min()) if per_item.size else 0,
                "median": float(np.median(per_item)) if per_item.size else 0.0,
                "max": int(per_item.max()) if per_item.size else 0,
            },
            "label_counts": {lab: int(c) for lab, c in zip(self.labels, label_totals, strict=True)},
            # the mean of the plain array: a Series indexed by millions of item ids would build
            # its index's hash table first (same value)
            "mean_entropy": (float(np.nanmean(self._entropy_values())) if self.n_items
                             else float("nan")),
            "has_text": "text" in self.items.columns,
            "has_predictions": self.predictions is not None,
            "content_hash": self.content_hash,
        }


    def label_table(self) -> pd.DataFrame:
        r"""One row per label in inventory order: ``label``, ``annotations`` = ``sum_i C_ik`` (the
        column sums of :meth:`counts_array`, i.e. ``summary()["label_counts"]``) and ``share`` =
        annotations / all annotations (0 when there are none): the Overview page's table.

        Returns
        -------
        pandas.DataFrame
            ``label, annotations, share``.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> dataset.label_table()
          label  annotations  share
        0   neg            7    0.7
        1   pos            3    0.3
        """
        totals = self.counts_array().sum(axis=0).astype(int)
        table = pd.DataFrame({"label": list(self.labels), "annotations": totals})
        table["share"] = table["annotations"] / max(int(totals.sum()), 1)
        return table


def build_dataset(
    annotations: pd.DataFrame,
    *,
    source: str,
    format: str,
    report: ImportReport | None = None,
    items: pd.DataFrame | None = None,
    annotators: pd.DataFrame | None = None,
    labels: list[str] | tuple[str, ...] | None = None,
    task: str | None = None,
    level: str | None = None,
    label_values: dict[str, float] | None = None,
    annotator_ids_known: bool = True,
    name: str | None = None,
    row_offset: int = 2,
    extra: dict | None = None,
    multilabel_evidence: str | None = None,
) -> Dataset:
    """Validate canonical tables and assemble a :class:`Dataset`.

    Raises :class:`DataError` for every problem; never coerces silently. Label rules (one rule
    for every reader and every view, :func:`apply_label_rules`): surrounding whitespace is
    removed (reported); a label written as a missing value (:data:`MISSING_SPELLINGS`) is
    refused naming the spellings, unless the schema lists it; spellings of the same number
    (``3`` / ``3.0``, ``1`` / ``01``) are one class, merged and reported (the schema's spelling
    wins); labels differing only in case are reported. Multi-label is inferred only from
    ``multilabel_evidence`` (the format says so) or from many multi-label cells
    (:data:`MULTILABEL_MIN_CELLS`); a few are an error naming them.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id, label`` (+ ``rank``).
    source : str
        File name for messages.
    format : str
        Format key for the report.
    report : ImportReport, optional
        The loader's report so far.
    items, annotators : pandas.DataFrame, optional
        Item and annotator tables (default: ids only).
    labels : sequence of str, optional
        Schema label order (default :func:`order_labels`).
    task, level : str, optional
        Override the inferred task and level.
    label_values : dict of str to float, optional
        Numeric label values.
    annotator_ids_known : bool, default True
        False for counts-only data.
    name : str, optional
        Display name (default from ``source``).
    row_offset : int, default 2
        Maps a 0-based annotation row to the file line the user sees (2 for a CSV with a
        header line).
    extra : dict, optional
        Loader extras.
    multilabel_evidence : str, optional
        Why the format says the data is multi-label.

    Returns
    -------
    Dataset
        The validated dataset.

    Raises
    ------
    DataError
        Missing columns, duplicates, missing-value labels, conflicting cells, ...

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    ``3`` and ``3.0`` are one class and ``' 4 '`` is ``4``; both changes are reported:

    >>> import pandas as pd
    >>> annotations = pd.DataFrame({"item_id": ["i1", "i1", "i2"], "annotator_id": ["a", "b", "a"],
    ...                             "label": ["3", "3.0", " 4 "]})
    >>> dataset = build_dataset(annotations, source="r.csv", format="canonical")
    >>> dataset.labels, len(dataset.report.notes)
    (('3', '4'), 2)
    """
    report = report or ImportReport(source, format)
    required = ["item_id", "annotator_id", "label"]
    missing = [c for c in required if c not in annotations.columns]
    if missing:
        raise DataError(
            f"missing required column(s) {missing}; found {list(annotations.columns)}.",
            source=source,
            row=1,
            column=missing[0],
            fix="name the columns item_id, annotator_id, label (one row per single label), "
            "or choose the matching format in the format override.",
        )
    ann = annotations.copy(deep=False)  # copy-on-write: columns are replaced, never mutated
    report.rows_read = report.rows_read or len(ann)
    if len(ann) == 0:
        raise DataError(
            "the file has no annotation rows.",
            source=source,
            fix="add at least one row per (item, annotator, label).",
        )
    if labels is not None:  # the schema's spellings follow the same rule as the data's
        labels = [normalise_spelling(str(x)) for x in labels]
        if label_values is not None:
            label_values = {normalise_spelling(str(k)): v for k, v in label_values.items()}
    for column in required:
        values = as_categorical(ann[column])  # integer codes; checks run over the categories
        if column == "label":  # respelled with the other label rules (apply_label_rules)
            ann[column] = values
            continue
        values = _respell(values, column, report)
        codes = values.cat.codes.to_numpy()
        empty_category = np.append(np.asarray(values.cat.categories.str.len() == 0), True)
        empty = empty_category[codes]
        if empty.any():
            first = int(np.flatnonzero(empty)[0])
            raise DataError(
                f"empty {column} in {int(empty.sum())} row(s); the first is shown. Empty cells "
                "are missing values, not ids.",
                source=source,
                row=first + row_offset,
                column=column,
                fix="drop rows without an annotation (a missing annotation is a missing row).",
            )
        ann[column] = values
    ann, labels = apply_label_rules(ann, labels, report, source, row_offset)
    item_c, annot_c, label_c = (ann[c].cat.codes.to_numpy() for c in required)
    n_annot = max(len(ann["annotator_id"].cat.categories), 1)
    n_lab = max(len(ann["label"].cat.categories), 1)
    triple = item_c.astype(np.int64)  # (item, annotator, label) as one int64 key, in place
    triple *= n_annot
    triple += annot_c
    triple *= n_lab
    triple += label_c
    triple.sort()  # one sort: duplicates and multi-label cells
    if len(triple) > 1 and bool((triple[1:] == triple[:-1]).any()):
        dup = ann.duplicated(subset=required, keep="first")
        first = int(np.flatnonzero(dup.to_numpy())[0])
        row = ann.iloc[first]
        raise DataError(
            f"duplicate annotation ({row['item_id']!r}, {row['annotator_id']!r}, "
            f"{row['label']!r}); the file has {int(dup.sum())} repeated row(s), the first "
            "repeat is shown.",
            source=source,
            row=first + row_offset,
            column="label",
            fix="keep one row per (item_id, annotator_id, label); remove the repeated rows.",
        )
    triple //= n_lab  # now the sorted (item, annotator) cell keys
    repeat = triple[1:] == triple[:-1]  # a cell holding several labels
    n_cells = len(triple) - int(repeat.sum())
    multi_cells = np.unique(triple[1:][repeat])
    del triple, repeat
    if len(multi_cells):
        in_multi = np.isin(item_c.astype(np.int64) * n_annot + annot_c, multi_cells)
        pairs = ann.loc[in_multi, ["item_id", "annotator_id"]].astype(object)
        several = pairs.groupby(["item_id", "annotator_id"], sort=False).size()
    else:
        several = pd.Series([], dtype=np.int64)
    has_rank = "rank" in ann.columns
    if has_rank:
        raw = ann["rank"]
        text = raw.astype(object).where(raw.notna(), "").astype(str).str.strip()
        numeric = pd.to_numeric(text.replace("", np.nan), errors="coerce")
        bad = (text != "") & (numeric.isna() | (numeric < 1) | (numeric % 1 != 0))
        if bad.any():
            first = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(
                f"rank {text.iloc[first]!r} is not a whole number >= 1.",
                source=source,
                row=first + row_offset,
                column="rank",
                fix="use 1 for the first block, 2 for the second, equal ranks for ties, and leave "
                "the cell empty for an unranked label.",
            )
        ann["rank"] = numeric.astype("Int64")
    # label inventory
    observed = list(_label_counts(ann["label"]).index)  # used labels, in order of appearance
    if labels is not None:
        inventory = tuple(str(x) for x in labels)
        if len(set(inventory)) != len(inventory):
            raise DataError(
                "the label inventory lists a label twice.",
                source=source,
                column="label",
                fix="list every label once in labels.csv / schema.json.",
            )
        unknown = [x for x in observed if x not in set(inventory)]
        if unknown:
            pos = int(np.flatnonzero(ann["label"].isin(unknown).to_numpy())[0])
            raise DataError(
                f"label {unknown[0]!r} is not in the label schema {list(inventory)} "
                f"({len(unknown)} unknown label(s)).",
                source=source,
                row=pos + row_offset,
                column="label",
                fix="add the label to the schema or correct the annotation.",
            )
    else:
        inventory = order_labels(observed)
    if label_values is not None:  # a scale needs a number for every label, not some of them
        no_value = [x for x in inventory if x not in label_values]
        if no_value:
            raise DataError(
                f"label {echo(no_value[0])} has no numeric value ({len(no_value)} of "
                f"{len(inventory)} label(s) without one).",
                source=source,
                column="label",
                fix="give a value for every label (labels.csv column 'value' or schema.json "
                "'values'), or drop the values.",
            )
    # items and annotators tables
    item_order, item_lookup = _in_order_of_appearance(ann["item_id"])
    if items is None or len(items) == 0:
        items_table = pd.DataFrame({"item_id": item_order})
    else:
        items_table = items.copy()
        items_table["item_id"] = _respell_ids(items_table["item_id"], "items table item_id",
                                              report)
        if items_table["item_id"].duplicated().any():
            dup_id = items_table.loc[items_table["item_id"].duplicated(), "item_id"].iloc[0]
            raise DataError(
                f"item {dup_id!r} is listed twice in the items table.",
                source=source,
                column="item_id",
                fix="keep one row per item in items.csv.",
            )
        known = set(items_table["item_id"])
        extra_items = [x for x in item_order if x not in known]
        if extra_items:
            items_table = pd.concat(
                [items_table, pd.DataFrame({"item_id": extra_items})], ignore_index=True
            )
            report.note(f"{len(extra_items)} annotated item(s) had no row in the items table.")
        unannotated = ~items_table["item_id"].isin(set(item_order))
        if unannotated.any():
            report.drop("items without annotations", int(unannotated.sum()))
            items_table = items_table[~unannotated]
        items_table = items_table.reset_index(drop=True)
        item_lookup = pd.Index(items_table["item_id"]).get_indexer(ann["item_id"].cat.categories)
    annotator_order, annot_lookup = _in_order_of_appearance(ann["annotator_id"])
    if annotators is None or len(annotators) == 0:
        annot_table = pd.DataFrame({"annotator_id": annotator_order})
    else:
        annot_table = annotators.copy()
        annot_table["annotator_id"] = _respell_ids(
            annot_table["annotator_id"], "annotators table annotator_id", report)
        if annot_table["annotator_id"].duplicated().any():  # traits of one would be lost
            dup_id = annot_table.loc[annot_table["annotator_id"].duplicated(),
                                     "annotator_id"].iloc[0]
            raise DataError(
                f"annotator {dup_id!r} is listed twice in the annotators table.",
                source=source,
                column="annotator_id",
                fix="keep one row per annotator in annotators.csv.",
            )
        known = set(annot_table["annotator_id"])
        missing_ann = [x for x in annotator_order if x not in known]
        if missing_ann:
            annot_table = pd.concat(
                [annot_table, pd.DataFrame({"annotator_id": missing_ann})], ignore_index=True
            )
        unannotating = ~annot_table["annotator_id"].isin(set(annotator_order))
        if unannotating.any():  # said in the report, as for items without annotations
            report.drop("annotators without annotations", int(unannotating.sum()))
        annot_table = annot_table[~unannotating]
        annot_table = annot_table.reset_index(drop=True)
        annot_lookup = pd.Index(annot_table["annotator_id"]).get_indexer(
            ann["annotator_id"].cat.categories
        )
    # task inference
    if task is None:
        if has_rank and ann["rank"].notna().any():
            task = "ranking"
        elif len(several):
            share = len(several) / n_cells
            many = len(several) >= MULTILABEL_MIN_CELLS or (len(several) >= 3 and share >= 0.1)
            if multilabel_evidence is None and not many:
                _raise_conflicting_cells(several, source)
            evidence = multilabel_evidence or (
                f"{len(several)} of {n_cells} (item, annotator) cells ({share:.1%}) hold "
                "several labels"
            )
            report.note(f"task inferred as multilabel: {evidence}.")
            task = "multilabel"
        else:
            numbers = [_as_number(x) for x in inventory]
            is_numeric = all(v is not None for v in numbers)
            task = "rating" if is_numeric and len(inventory) > 2 else "multiclass"
    if task not in TASKS:
        raise DataError(
            f"unknown task type {echo(task)}.", source=source, fix=f"use one of {list(TASKS)}."
        )
    if task == "ranking" and not has_rank:  # the rankings would be read from nothing
        raise DataError(
            "the task is ranking but the annotations have no 'rank' column.",
            source=source,
            row=1,
            column="rank",
            fix="add a rank column (1 for the first block, equal ranks for ties, empty for an "
            "unranked label), or choose another task.",
        )
    if task in ("multiclass", "rating") and len(several):
        (item, annotator) = several.index[0]
        raise DataError(
            f"annotator {echo(annotator)} gave several labels to item {echo(item)} but the "
            f"task is {task} (one label per annotator and item; {len(several)} such cell(s)).",
            source=source,
            column="label",
            fix="declare the task as multilabel, or keep one label per (item, annotator).",
        )
    if level is None:
        level = "ordinal" if task == "rating" else "nominal"
    if level not in LEVELS:
        raise DataError(
            f"unknown level of measurement {level!r}.", source=source, fix=f"use one of {LEVELS}."
        )
    if level != "nominal" and label_values is None:
        bad = [x for x in inventory if _as_number(x) is None]
        if bad and level in ("interval", "ratio"):
            raise DataError(
                f"level {level} needs numeric labels but {bad[0]!r} is not a number.",
                source=source,
                column="label",
                fix="give a numeric value per label in schema.json or use level nominal/ordinal.",
            )
    n_annotators = (  # the default table is unique by construction
        len(annot_table) if annotators is None or len(annotators) == 0
        else annot_table["annotator_id"].nunique()
    )
    if annotator_ids_known and n_annotators < 2:
        raise DataError(
            f"only one annotator ({annot_table['annotator_id'].iloc[0]!r}) in the file; label "
            "variation needs at least two.",
            source=source,
            column="annotator_id",
            fix="load the disaggregated file with one row per annotator's label.",
        )
    report.rows_kept = len(ann)
    report.n_items = len(items_table)
    report.n_annotators = int(n_annotators) if annotator_ids_known else 0
    report.labels = inventory
    if not annotator_ids_known:
        report.note(
            "annotator identities are not linked across items: annotator-level analyses "
            "(pairwise agreement, graphs, perspectives) are disabled."
        )
    dataset = Dataset(
        annotations=ann.reset_index(drop=True),
        labels=inventory,
        items=items_table,
        annotators=annot_table,
        task=task,
        level=level,
        label_values=label_values,
        annotator_ids_known=annotator_ids_known,
        name=name or source,
        report=report,
        extra=extra or {},
    )
    hints = {}
    if items is None or len(items) == 0:
        hints["items.item_id"] = (items_table, ann["item_id"].cat.categories,
                                  _inverse(item_lookup))
    if annotators is None or len(annotators) == 0:
        hints["annotators.annotator_id"] = (
            annot_table, ann["annotator_id"].cat.categories, _inverse(annot_lookup)
        )
    dataset.__dict__["_id_columns"] = hints
    # integer codes of every row, from the column codes (no per-row lookup by string)
    label_lookup = pd.Index(inventory).get_indexer(ann["label"].cat.categories)
    dataset.__dict__["_codes"] = (
        _gather(item_lookup, ann["item_id"]),
        _gather(annot_lookup, ann["annotator_id"]),
        _gather(label_lookup, ann["label"]),
    )
    per_item = dataset.annotators_per_item_array()
    report.annotators_per_item = {
        "min": float(per_item.min()),
        "median": float(np.median(per_item)),
        "max": float(per_item.max()),
    }
    return dataset


def apply_label_rules(
    ann: pd.DataFrame, labels: list | tuple | None, report: ImportReport, source: str,
    row_offset: int = 2,
) -> tuple[pd.DataFrame, list | tuple | None]:
    """The loader's label rules, in order, on the ``label`` column.

    Look-alike spellings made one (Unicode NFC, invisible format characters, whitespace runs),
    whitespace, missing-value spellings, infinite numbers, spellings of one number merged, case
    variants noted. The one entry point of these rules: :func:`build_dataset` calls it, and so
    does the distributed reader (``hlv_core.scale``), on its global label dictionary.

    Parameters
    ----------
    ann : pandas.DataFrame
        Annotations with a ``label`` column.
    labels : sequence of str or None
        Schema labels, if any.
    report : ImportReport
        Receives the notes.
    source : str
        File name for messages.
    row_offset : int, default 2
        Maps a 0-based row to the file line.

    Returns
    -------
    ann : pandas.DataFrame
        The annotations with cleaned labels (categorical).
    labels : sequence of str or None
        The schema labels after merging spellings.

    Raises
    ------
    DataError
        Naming the first bad row.

    Examples
    --------
    >>> import pandas as pd
    >>> annotations = pd.DataFrame({"item_id": ["i1", "i1", "i2"], "annotator_id": ["a", "b", "a"],
    ...                             "label": ["3", "3.0", " 4 "]})
    >>> report = ImportReport("r.csv", "canonical")
    >>> cleaned, _ = apply_label_rules(annotations, None, report, "r.csv")
    >>> cleaned["label"].astype(str).tolist()
    ['3', '3', '4']
    """
    ann = ann.copy(deep=False)
    ann["label"] = _respell(as_categorical(ann["label"]), "label", report)
    ann["label"] = _clean_labels(ann["label"], labels, report, source, row_offset)
    _refuse_infinite_numbers(ann["label"], source, row_offset)
    ann, labels = _merge_number_spellings(ann, labels, report, source)
    _note_case_variants(ann["label"], report)
    return ann, labels


def _respell(values: pd.Series, column: str, report: ImportReport) -> pd.Series:
    """Look-alike spellings (:mod:`hlv_core.io.spelling`) of a categorical column made one,
    over its categories; one import-report line names what changed and how many rows."""
    cats = values.cat.categories
    changes = spelling_changes(cats)
    if not changes:
        return values
    codes = values.cat.codes.to_numpy()
    counts = np.bincount(codes[codes >= 0], minlength=len(cats))
    out = pd.Series(_recode(codes, [changes.get(x, x) for x in cats]), index=values.index,
                    name=values.name)
    positions = cats.get_indexer(list(changes))
    rows = {before: int(counts[at]) for before, at in zip(changes, positions, strict=True)}
    report.note(respelling_note(column, changes, rows, set(cats) - set(changes)))
    return out


def respelling_note(column: str, changes: dict[str, str], rows: dict[str, int],
                    present: set[str]) -> str:
    """The import-report line of look-alike spellings of ``column`` made one.

    One wording for the in-memory loader and the distributed one (``hlv_core.scale``); the
    rule is Unicode NFC, invisible format characters removed, whitespace runs as one space.

    Parameters
    ----------
    column : str
        The column whose values were respelled (``label``, ``item_id``, ``annotator_id``).
    changes : dict of str to str
        ``{spelling: normal spelling}`` in sorted spelling order
        (:func:`~hlv_core.io.spelling.spelling_changes`).
    rows : dict of str to int
        Rows per changed spelling.
    present : set of str
        The values already spelled normally (a target among them is a merge).

    Returns
    -------
    str
        One line for the import report (at most eight spellings named).

    Examples
    --------
    >>> line = respelling_note("label", {"caf\u0065\u0301": "caf\u00e9"}, {"caf\u0065\u0301": 2},
    ...                        {"caf\u00e9"})
    >>> line.startswith("look-alike spellings of label made one (2 row(s), 1 spelling(s), 1 merge(s)")
    True
    """
    parts = [
        f"{echo(before)} ({rows[before]} row(s), {describe_change(before, after)}) -> "
        f"{echo(after)}" + (" (merged with the rows already spelled so)"
                            if after in present else "")
        for before, after in list(changes.items())[:8]
    ]
    more = f"; and {len(changes) - 8} more spelling(s)" if len(changes) > 8 else ""
    sources = Counter(changes.values())
    merged = sum(1 for t, n in sources.items() if n + (t in present) > 1)
    return (
        f"look-alike spellings of {column} made one ({sum(rows.values())} row(s), "
        f"{len(changes)} spelling(s), {merged} merge(s); rule: Unicode NFC, invisible format "
        f"characters removed, whitespace runs as one space): {'; '.join(parts)}{more}."
    )


def _respell_ids(ids: pd.Series, column: str, report: ImportReport) -> pd.Series:
    """A companion table's id column as ``str`` with the same spelling rule as the
    annotations (reported when a spelling changes)."""
    ids = ids.astype(str)
    changes = spelling_changes(pd.Index(ids.unique(), dtype=str))
    if not changes:
        return ids
    report.note(
        f"look-alike spellings of {column} made one ({len(changes)} spelling(s): "
        + "; ".join(f"{echo(b)} ({describe_change(b, a)}) -> {echo(a)}"
                    for b, a in list(changes.items())[:5]) + ")."
    )
    return ids.map(lambda v: changes.get(v, v))


def _refuse_decimal_commas(labels: pd.Series, schema, source: str, row_offset: int) -> None:
    """A label written with a decimal comma (``1,5``) is ambiguous (one and a half? the labels
    1 and 5?): refused unless the schema lists it as a category name."""
    cats = labels.cat.categories
    comma = decimal_comma_labels(cats)
    if schema is not None:
        listed = {str(x) for x in schema}
        comma = [x for x in comma if x not in listed]
    if not comma:
        return
    codes = labels.cat.codes.to_numpy()
    bad = np.isin(codes, cats.get_indexer(comma))
    first = int(np.flatnonzero(bad)[0])
    raise DataError(
        f"{int(bad.sum())} label cell(s) are numbers written with a decimal comma "
        f"({', '.join(echo(x) for x in comma[:5])}); HLV Lens does not guess whether "
        f"{echo(comma[0])} is a decimal, two labels or a thousands separator.",
        source=source,
        row=first + row_offset,
        column="label",
        fix=f"write decimals with a point ({comma[0].replace(',', '.')}); if "
        f"{echo(comma[0])} is a category name, list it in labels.csv / schema.json.",
    )


def _clean_labels(
    labels: pd.Series, schema: list | tuple | None, report: ImportReport, source: str,
    row_offset: int,
) -> pd.Series:
    """Strip surrounding whitespace (reported) and refuse missing-value spellings. The rules run
    over the label dictionary (categories) and are gathered to rows by integer code."""
    labels = as_categorical(labels)
    codes = labels.cat.codes.to_numpy()
    if (codes < 0).any():  # an empty cell reads as the label "" (a missing-value spelling)
        names = list(labels.cat.categories) + [""]
        labels = pd.Series(
            _recode(np.where(codes < 0, len(names) - 1, codes), names), index=labels.index
        )
    stripped, changed = strip_categorical(labels)
    if changed:
        report.note(f"surrounding whitespace removed from {changed} label cell(s).")
    _refuse_decimal_commas(stripped, schema, source, row_offset)
    cats = stripped.cat.categories
    missing_category = np.array(is_missing_spelling(pd.Series(cats, dtype=object)), dtype=bool)
    if schema is not None:
        listed = {str(x) for x in schema}
        missing_category &= ~np.asarray(cats.isin(listed), dtype=bool)
    codes = stripped.cat.codes.to_numpy()
    missing = missing_category[codes] if missing_category.any() else np.zeros(0, dtype=bool)
    if missing.any():
        spelled = pd.Series(np.asarray(cats, dtype=object)[codes[missing]]).map(
            lambda v: "empty label" if v == "" else repr(v)
        )
        counts = spelled.value_counts(sort=False)
        found = ", ".join(f"{k}: {v} row(s)" for k, v in list(counts.items())[:8])
        first = int(np.flatnonzero(missing)[0])
        raise DataError(
            f"{int(missing.sum())} label cell(s) hold a missing value ({found}); the first is "
            "shown. A missing annotation is a missing row, not a label.",
            source=source,
            row=first + row_offset,
            column="label",
            fix="delete the rows without an annotation; if such a spelling is a real label, list "
            "it in labels.csv / schema.json or rename it (e.g. __none__ for an explicit 'no "
            "label' choice).",
        )
    return stripped


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def _refuse_infinite_numbers(labels: pd.Series, source: str, row_offset: int) -> None:
    """In numeric data a label that overflows (``1e999``, ``-inf``) is not a class of its own
    (it would silently turn a rating scale into nominal classes): refuse it."""
    unique = pd.Series(_label_counts(labels).index, dtype=object)  # over the dictionary
    values = pd.Series([_float_or_nan(x) for x in unique], dtype=float)
    infinite = unique[np.isinf(values.to_numpy())]
    finite = values[np.isfinite(values.to_numpy())]
    if infinite.empty or len(finite) + len(infinite) < len(unique) or finite.empty:
        return
    first = int(np.flatnonzero(labels.isin(set(infinite)).to_numpy())[0])
    raise DataError(
        f"label {echo(infinite.iloc[0])} reads as an infinite number in numeric data (too large "
        "to represent); it cannot be a point of a rating scale.",
        source=source,
        row=first + row_offset,
        column="label",
        fix="correct the value (a typo such as 1e999 for 1), or delete the row.",
    )


def _merge_number_spellings(
    ann: pd.DataFrame, schema: list | tuple | None, report: ImportReport, source: str
) -> tuple[pd.DataFrame, list | tuple | None]:
    """Map spellings of the same number (``3``/``3.0``/``03``) to one label.

    The schema's spelling wins; otherwise the plain spelling (``1`` for ``01``/``1.0``) when
    it occurs, else the most frequent (ties: the shorter, then the first in sorted order). Returns the annotations and the schema (unchanged)."""
    counts = _label_counts(ann["label"])  # used labels, in order of appearance
    spellings = pd.Series(
        list(counts.index) + [str(x) for x in (schema or ()) if str(x) not in counts.index]
    )
    values = spellings.map(_as_number)
    numeric = values.notna()
    if numeric.sum() < 2:
        return ann, schema
    groups = pd.DataFrame({"label": spellings[numeric], "value": values[numeric].astype(float)})
    clashes = groups[groups.duplicated("value", keep=False)]
    if clashes.empty:
        return ann, schema
    listed = [str(x) for x in (schema or ())]
    mapping: dict[str, str] = {}
    lines = []
    for _, group in clashes.groupby("value", sort=True):
        names = group["label"].tolist()
        in_schema = [x for x in names if x in listed]
        if len(in_schema) > 1:
            raise DataError(
                f"the label schema / inventory lists {', '.join(echo(x) for x in in_schema)}, "
                "which are the same number written differently; nominal and ordinal views "
                "would disagree about the classes.",
                source=source,
                column="label",
                fix="list each number once in labels.csv / schema.json and write the "
                "annotations the same way.",
            )
        value = float(group["value"].iloc[0])
        plain = str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
        if in_schema:
            keep = in_schema[0]
        elif plain in names:  # the plain way of writing the number ("1", not "01" / "1.0")
            keep = plain
        else:
            keep = sorted(names, key=lambda x: (-int(counts.get(x, 0)), len(x), x))[0]
        merged = [x for x in names if x != keep and counts.get(x, 0)]
        for name in merged:
            mapping[name] = keep
        if merged:
            lines.append(
                f"{', '.join(f'{echo(x)} ({int(counts[x])} row(s))' for x in merged)} -> "
                f"{echo(keep)} ({int(counts.get(keep, 0))} row(s))"
            )
    if not mapping:
        return ann, schema
    labels = ann["label"]
    merged = _recode(labels.cat.codes.to_numpy(), [mapping.get(x, x) for x in labels.cat.categories])
    ann = ann.assign(label=pd.Series(merged, index=labels.index))
    report.note(
        "spellings of the same number merged into one class: " + "; ".join(lines)
        + ". If they are different classes, give them non-numeric names."
    )
    return ann, schema


def _note_case_variants(labels: pd.Series, report: ImportReport) -> None:
    """Report labels that differ only in letter case (kept as separate classes)."""
    counts = _label_counts(labels)
    folded = pd.Series(counts.index, index=counts.index).str.casefold()
    clashes = folded[folded.duplicated(keep=False)]
    if clashes.empty:
        return
    parts = []
    for _, names in clashes.groupby(clashes, sort=True):
        parts.append(" / ".join(f"{echo(x)} ({int(counts[x])} row(s))" for x in names.index))
    report.note(
        "labels differing only in case are kept as separate classes: " + "; ".join(parts[:10])
        + ". If they are one class, write them the same way."
    )


def _raise_conflicting_cells(several: pd.Series, source: str) -> None:
    """A few (item, annotator) cells with several labels in single-label data: an error."""
    shown = ", ".join(f"({echo(i)}, {echo(a)})" for i, a in several.index[:5])
    more = f" and {len(several) - 5} more" if len(several) > 5 else ""
    raise DataError(
        f"{len(several)} (item, annotator) cell(s) hold several labels: {shown}{more}; the rest "
        "of the file is single-label, so these look like conflicting duplicates, not "
        "multi-label data.",
        source=source,
        column="label",
        fix="keep one label per (item, annotator), or declare the task multilabel (the Task "
        "choice on the Overview page, schema.json \"task_type\": \"multilabel\" beside the "
        "annotations, or load(..., task='multilabel')).",
    )
