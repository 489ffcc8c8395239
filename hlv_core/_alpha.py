"""Krippendorff's alpha from value counts, its item bootstrap, and all-pairs alpha (sparse algebra).

Internal helpers of :mod:`hlv_core.agreement` (public names are re-exported there).

Definitions (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"; computed from value
counts, ``docs/conventions.md``, alpha computation):

* unit (item) u with value counts ``n_uc`` and ``n_u = sum_c n_uc`` pairable values (only units with
  ``n_u >= 2`` count);
* coincidences ``o_ck = sum_u (n_uc n_uk - [c == k] n_uc) / (n_u - 1)``, marginals
  ``n_c = sum_k o_ck``, ``n = sum_c n_c``;
* ``alpha = 1 - (n - 1) * sum_ck o_ck delta_ck / sum_ck n_c n_k delta_ck``;
* distances: nominal ``[c != k]``; interval ``(v_c - v_k)^2``; ratio ``((v_c - v_k)/(v_c + v_k))^2``
  (0 when ``v_c + v_k = 0``, as the ``krippendorff`` package); ordinal
  ``(sum_{g=c..k} n_g - (n_c + n_k)/2)^2`` over values sorted by their number.

Alpha is undefined (NaN) when fewer than two pairable values exist or the expected disagreement is 0
(all pairable values identical).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._compiled import kernels
from .io import LEVELS

__all__ = [
    "ALPHA_LEVELS",
    "AlphaInput",
    "PairAlpha",
    "alpha_and_pairwise_codes",
    "alpha_from_counts",
    "alpha_of_input",
    "bootstrap_alpha_from_counts",
    "prepare_alpha_input",
    "pairwise_alpha_arrays",
]

ALPHA_LEVELS = LEVELS  # the one tuple of levels of measurement (hlv_core.io)


def _check_level(level: str) -> str:
    if level not in ALPHA_LEVELS:
        raise ValueError(
            f"unknown level of measurement {level!r}; choose one of {', '.join(ALPHA_LEVELS)}"
        )
    return level


def _as_float(text: object) -> float | None:
    try:
        value = float(str(text))
    except (TypeError, ValueError):
        return None
    return value if np.isfinite(value) else None


class AlphaInput:
    r"""Integer-coded long annotations ready for alpha.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    (Krippendorff 2011): the codes give the per-item value counts :math:`n_{uc}` directly.

    Parameters
    ----------
    item, annotator, value : ndarray of shape (R,)
        Integer codes of every annotation.
    item_ids, annotator_ids : sequence of str
        Sorted ids of the codes.
    domain : sequence of str
        Labels of the value codes, in code order.
    numbers : ndarray of shape (V,)
        Float value of each code (codes sorted by number for non-nominal levels).
    level : str
        Level of measurement.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> data = prepare_alpha_input(annotations)
    >>> print(data.n_items, len(data.annotator_ids), list(data.domain))
    12 4 ['1', '2', '3', '4', '5']
    """

    def __init__(self, item, annotator, value, item_ids, annotator_ids, domain, numbers, level):
        self.item = item
        self.annotator = annotator
        self.value = value
        self.item_ids = item_ids
        self.annotator_ids = annotator_ids
        self.domain = domain
        self.numbers = numbers
        self.level = level

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_annotators(self) -> int:
        return len(self.annotator_ids)

    @property
    def n_values(self) -> int:
        return len(self.domain)

    def counts(self) -> sp.csr_matrix:
        """(N, K) sparse value counts per item (float), from one bincount of the (item, value)
        keys (where N K is at most about twice the rows) or one sort of them: no (R,) COO
        triplets."""
        k = max(self.n_values, 1)
        key = np.asarray(self.item, dtype=np.int64) * k
        key += self.value
        if self.n_items * k <= 2 * len(key) + (1 << 20):  # few cells: count them, no sort
            full = np.bincount(key, minlength=self.n_items * k)
            key = np.flatnonzero(full)
            data = full[key].astype(float)
        elif len(key):
            key.sort()
            start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
            data = np.diff(np.append(start, len(key))).astype(float)
            key = key[start]
        else:
            data = np.zeros(0)
        row = key // k
        indptr = np.zeros(self.n_items + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=self.n_items), out=indptr[1:])
        return sp.csr_matrix((data, key - row * k, indptr), shape=(self.n_items, self.n_values))

    def with_annotators(self, annotator: np.ndarray) -> AlphaInput:
        """A copy whose ratings are re-assigned to the annotator codes ``annotator`` (R,).

        Items, values and the id tables are shared, not copied: this is the integer-code route
        of the sigma_rnd shuffle (``hlv_core.balance.sigma_random``), which moves ratings between
        annotators inside an item and so never touches the item's multiset of values. The caller
        guarantees that the new codes keep one rating per (item, annotator) cell (a permutation of
        the annotators inside every item does)."""
        annotator = np.asarray(annotator, dtype=np.int64)
        if annotator.shape != self.annotator.shape:
            raise ValueError("annotator codes must have one entry per rating")
        if len(annotator) and (annotator.min() < 0 or annotator.max() >= self.n_annotators):
            raise ValueError("annotator codes out of range")
        return AlphaInput(
            self.item, annotator, self.value, self.item_ids, self.annotator_ids, self.domain,
            self.numbers, self.level,
        )


def _label_numbers(
    labels: Sequence[str], level: str, values: Mapping[str, float] | Sequence[str] | None
) -> np.ndarray:
    """Numeric value of every distinct label (non-nominal levels)."""
    if values is None:
        parsed = [_as_float(x) for x in labels]
        bad = [x for x, v in zip(labels, parsed, strict=True) if v is None]
        if bad:
            raise ValueError(
                f"level {level!r} needs numeric labels, but {bad[:5]!r} are not numbers; pass "
                "values= (a mapping label -> number, or the labels in their order) or use level="
                "'nominal'"
            )
        return np.array(parsed, dtype=float)
    if isinstance(values, Mapping):
        missing = [x for x in labels if x not in values]
        if missing:
            raise ValueError(f"values= has no number for the labels {missing[:5]!r}")
        return np.array([float(values[x]) for x in labels], dtype=float)
    order = [str(x) for x in values]
    position = {x: i for i, x in enumerate(order)}
    missing = [x for x in labels if x not in position]
    if missing:
        raise ValueError(f"values= (label order) lacks the labels {missing[:5]!r}")
    return np.array([float(position[x]) for x in labels], dtype=float)


#: Interval/ratio values whose magnitude exceeds this are rescaled by a power of two (exact;
#: alpha is scale-invariant at both levels) so squared differences cannot overflow to inf
#: (1e308 would otherwise read as "no expected disagreement").
_SCALE_ABOVE = 2.0**64


def _safe_numbers(numbers: np.ndarray, level: str) -> np.ndarray:
    """Numbers rescaled by an exact power of two when they are huge (see :data:`_SCALE_ABOVE`)."""
    numbers = np.asarray(numbers, dtype=float)
    if level not in ("interval", "ratio") or numbers.size == 0:
        return numbers
    if not np.isfinite(numbers).all():
        raise ValueError("label values must be finite numbers (no NaN or infinity)")
    top = float(np.abs(numbers).max())
    if top <= _SCALE_ABOVE:
        return numbers
    return np.ldexp(numbers, -int(np.frexp(top)[1]))


def prepare_alpha_input(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    values: Mapping[str, float] | Sequence[str] | None = None,
    multilabel: str = "error",
    cells_checked: bool = False,
) -> AlphaInput:
    r"""Validate long annotations and code them for alpha.

    .. math:: n_{uc} = \#\{\text{annotations of unit } u \text{ with value } c\}

    the value counts of Krippendorff (2011) as integer codes. ``multilabel="set"`` makes an
    annotator's sorted label set one nominal value.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement.
    values : mapping of str to float, or sequence of str, optional
        Numbers of the labels for non-nominal levels.
    multilabel : {"error", "set"}, default "error"
        What to do with several labels in one cell.
    cells_checked : bool, default False
        The caller guarantees one label per (item, annotator) cell (the annotations of a loaded
        multiclass or rating ``Dataset``, whose loader refused such cells): categorical columns
        are coded without checking that again.

    Returns
    -------
    AlphaInput

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> prepare_alpha_input(annotations, level="interval").numbers.tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0]
    """
    _check_level(level)
    if not isinstance(annotations, pd.DataFrame):
        raise ValueError("annotations must be a pandas DataFrame with columns item_id, annotator_id, label")
    missing = [c for c in ("item_id", "annotator_id", "label") if c not in annotations.columns]
    if missing:
        raise ValueError(f"annotations lack the column(s) {', '.join(missing)}")
    # a loaded Dataset's integer codes: no string work
    coded = _coded_columns(annotations, cells_checked=cells_checked)
    if coded is not None:
        return _input_from_codes(*coded, level=level, values=values)
    frame = annotations[["item_id", "annotator_id", "label"]].dropna()
    if not all(pd.api.types.is_string_dtype(frame[c]) for c in frame.columns):
        frame = frame.astype(str)
    item_codes, item_ids = pd.factorize(frame["item_id"], sort=True)
    ann_codes, ann_ids = pd.factorize(frame["annotator_id"], sort=True)
    cell = item_codes.astype(np.int64) * max(len(ann_ids), 1) + ann_codes
    sorted_cells = np.sort(cell)
    if len(cell) > 1 and bool((sorted_cells[1:] == sorted_cells[:-1]).any()):
        dup = pd.Series(cell).duplicated(keep=False).to_numpy()
        if multilabel == "set":
            frame = (
                frame.drop_duplicates()
                .sort_values("label")
                .groupby(["item_id", "annotator_id"], sort=False)["label"]
                .agg(";".join)
                .reset_index()
            )
            if level != "nominal":
                raise ValueError("label sets (multilabel='set') can only be compared at level 'nominal'")
        elif multilabel == "error":
            first = frame.loc[dup].iloc[0]
            raise ValueError(
                f"annotator {first['annotator_id']!r} gave several labels to item "
                f"{first['item_id']!r}; alpha needs one value per (item, annotator). For multi-label "
                "data pass multilabel='set' (label sets as nominal values) or use multilabel_agreement"
            )
        else:
            raise ValueError("multilabel must be 'error' or 'set'")
        item_codes, item_ids = pd.factorize(frame["item_id"], sort=True)
        ann_codes, ann_ids = pd.factorize(frame["annotator_id"], sort=True)
    lab_codes, labs = pd.factorize(frame["label"], sort=True)
    return _input_from_codes(
        (item_codes, item_ids), (ann_codes, ann_ids), (lab_codes, labs), level=level,
        values=values,
    )


def _observed(codes: np.ndarray, categories) -> tuple[np.ndarray, pd.Index]:
    """Codes into sorted categories (no NA) renumbered over the categories that occur, as
    ``pandas.factorize(values, sort=True)`` numbers them, and those categories."""
    used = np.bincount(codes, minlength=len(categories)) > 0
    if used.all():
        return codes, categories
    renumber = np.cumsum(used, dtype=np.int64) - 1
    return renumber[codes], categories[used]


def _coded_columns(annotations: pd.DataFrame, *, cells_checked: bool = False):
    """``((codes, ids), ...)`` for item, annotator and label as ``pandas.factorize(sort=True)``
    gives them, read from categorical columns (a loaded Dataset's annotations), or None where
    the columns are not categorical, hold NA or an (item, annotator) cell holds several labels
    (the general path handles those)."""
    from .io.dataset import as_categorical

    names = ("item_id", "annotator_id", "label")
    if not all(isinstance(annotations[c].dtype, pd.CategoricalDtype) for c in names):
        return None
    out = []
    for name in names:
        values = as_categorical(annotations[name])  # sorted str categories (checked once)
        codes = values.cat.codes.to_numpy()
        if len(codes) and codes.min() < 0:
            return None
        out.append(_observed(codes.astype(np.int64), values.cat.categories))
    (item, _), (annotator, annotator_ids) = out[0], out[1]
    if cells_checked:
        return out
    cell = item * max(len(annotator_ids), 1)
    cell += annotator
    cell.sort()
    if len(cell) > 1 and bool((cell[1:] == cell[:-1]).any()):
        return None
    return out


def _input_from_codes(items, annotators, labels, *, level, values) -> AlphaInput:
    """The :class:`AlphaInput` of sorted-factorised columns: ``(codes, ids)`` per column."""
    (item_codes, item_ids), (ann_codes, ann_ids), (lab_codes, labs) = items, annotators, labels
    labs = [str(x) for x in labs]
    if level == "nominal":
        numbers = np.arange(len(labs), dtype=float)
        domain = list(labs)
        value = lab_codes
    else:
        nums = _label_numbers(labs, level, values)
        uniq, inverse = np.unique(nums, return_inverse=True)
        value = inverse[lab_codes]
        # label of each numeric value: the first label string carrying it
        domain = [""] * len(uniq)
        for lab, code in zip(labs, inverse, strict=True):
            if not domain[code]:
                domain[code] = lab
        numbers = _safe_numbers(uniq.astype(float), level)
    return AlphaInput(
        np.asarray(item_codes, dtype=np.int64),
        np.asarray(ann_codes, dtype=np.int64),
        np.asarray(value, dtype=np.int64),
        _id_index(item_ids),
        _id_index(ann_ids),
        domain,
        numbers,
        level,
    )


def _id_index(ids) -> pd.Index:
    """Sorted ids as a ``str`` Index (categories of a coded column are one already)."""
    if isinstance(ids, pd.Index) and isinstance(ids.dtype, pd.StringDtype):
        return pd.Index(ids, dtype=str, name=None)
    return pd.Index(np.asarray(ids, dtype=object).astype(str))


def _fixed_delta(level: str, numbers: np.ndarray) -> np.ndarray | None:
    """(K, K) distance matrix for nominal/interval/ratio; None for ordinal (depends on marginals)."""
    k = len(numbers)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        return (numbers[:, None] - numbers[None, :]) ** 2
    if level == "ratio":
        total = numbers[:, None] + numbers[None, :]
        diff = numbers[:, None] - numbers[None, :]
        out = np.zeros((k, k))
        np.divide(diff, total, out=out, where=total != 0)
        return out**2
    return None


def _ordinal_delta(n_c: np.ndarray) -> np.ndarray:
    """Ordinal distances from marginals ``n_c`` (..., K) -> (..., K, K)."""
    cum = np.cumsum(n_c, axis=-1)
    lo = cum[..., :, None] - n_c[..., :, None]  # sum_{g < c}
    hi = cum[..., None, :]  # sum_{g <= k}
    between = hi - lo  # sum_{g=c..k} for c <= k
    between = np.where(
        np.arange(n_c.shape[-1])[:, None] <= np.arange(n_c.shape[-1])[None, :],
        between,
        np.swapaxes(between, -1, -2),
    )
    return (between - (n_c[..., :, None] + n_c[..., None, :]) / 2.0) ** 2


def _delta(level: str, numbers: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    fixed = _fixed_delta(level, numbers)
    return _ordinal_delta(n_c) if fixed is None else fixed


def _pairable(counts) -> tuple[sp.csr_matrix, np.ndarray]:
    counts = sp.csr_matrix(counts, dtype=float)
    n_u = np.asarray(counts.sum(axis=1)).ravel()
    keep = np.flatnonzero(n_u >= 2)
    if len(keep) == counts.shape[0]:  # every item pairable: no copy
        return counts, n_u
    return counts[keep], n_u[keep]


def _profiles(counts: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(counts.toarray(), axis=0, return_counts=True)`` without the dense copy:
    each row of non-negative integer counts as one integer key (column 0 most significant, base
    = the largest count + 1, so key order is the rows' lexicographic order), keys made unique
    and decoded. Falls back to the dense form when a key would not fit in 62 bits or counts are
    not integers."""
    data = counts.data
    n_rows, k = counts.shape
    top = float(data.max()) if data.size else 0.0
    base = int(top) + 1
    integral = data.size == 0 or bool(np.all((data >= 0) & (data == np.floor(data))))
    if not integral or k * np.log2(base) >= 62:
        return np.unique(counts.toarray(), axis=0, return_counts=True)
    weights = base ** (k - 1 - np.arange(k, dtype=np.int64))
    keys = np.zeros(n_rows, dtype=np.int64)
    step = 1 << 20  # rows per block: the temporaries stay small on large matrices
    for lo in range(0, n_rows, step):
        hi = min(lo + step, n_rows)
        a, b = counts.indptr[lo], counts.indptr[hi]
        rows = np.repeat(np.arange(hi - lo), np.diff(counts.indptr[lo:hi + 1]))
        np.add.at(keys[lo:hi], rows, data[a:b].astype(np.int64) * weights[counts.indices[a:b]])
    unique, freq = np.unique(keys, return_counts=True)
    digits = (unique[:, None] // weights[None, :]) % base
    return digits.astype(data.dtype), freq


def alpha_from_counts(
    counts, numbers: np.ndarray | None = None, *, level: str = "nominal"
) -> float:
    r"""Krippendorff's alpha from an array of value counts per item.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    Krippendorff (2011), with distances nominal :math:`[c \ne k]`, interval :math:`(v_c - v_k)^2`,
    ratio :math:`((v_c - v_k)/(v_c + v_k))^2`, ordinal :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`.
    The Agreement screen's "alpha from label counts" for count-only data. NaN when undefined.

    Parameters
    ----------
    counts : array_like or sparse matrix of shape (N, K)
        Value counts per item (columns sorted by value for ordinal).
    numbers : ndarray of shape (K,), optional
        Numeric value of each column (default ``0 .. K-1``).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"

    Returns
    -------
    float

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    The value counts of Krippendorff's worked example (12 units, values 1-5):

    >>> import numpy as np
    >>> counts = np.array([[3, 0, 0, 0, 0], [0, 3, 1, 0, 0], [0, 0, 4, 0, 0], [0, 0, 4, 0, 0],
    ...                    [0, 4, 0, 0, 0], [1, 1, 1, 1, 0], [0, 0, 0, 4, 0], [3, 1, 0, 0, 0],
    ...                    [0, 4, 0, 0, 0], [0, 0, 0, 0, 3], [2, 0, 0, 0, 0], [0, 0, 1, 0, 0]])
    >>> print(round(alpha_from_counts(counts), 3),
    ...       round(alpha_from_counts(counts, np.arange(1.0, 6.0), level="interval"), 3))
    0.743 0.849
    """
    _check_level(level)
    counts, n_u = _pairable(counts)
    k = counts.shape[1]
    numbers = np.arange(k, dtype=float) if numbers is None else _safe_numbers(numbers, level)
    if len(n_u) == 0 or k < 2:
        return float("nan")
    w = 1.0 / (n_u - 1.0)
    weighted = sp.diags(w) @ counts
    o = np.asarray((counts.T @ weighted).todense()) - np.diag(np.asarray(weighted.sum(axis=0)).ravel())
    n_c = o.sum(axis=1)
    n = n_c.sum()
    delta = _delta(level, numbers, n_c)
    d_o = float((o * delta).sum())
    d_e = float(n_c @ delta @ n_c)
    if n < 2 or d_e <= 0:
        return float("nan")
    return 1.0 - (n - 1.0) * d_o / d_e


def alpha_of_input(data: AlphaInput) -> float:
    r"""Overall alpha of prepared (integer-coded) annotations.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    Krippendorff (2011): :func:`alpha_from_counts` of the per-item value counts at the input's
    level.

    Parameters
    ----------
    data : AlphaInput

    Returns
    -------
    float

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(round(alpha_of_input(prepare_alpha_input(annotations, level="ordinal")), 3))
    0.815
    """
    return alpha_from_counts(data.counts(), data.numbers, level=data.level)


def bootstrap_alpha_from_counts(
    counts,
    numbers: np.ndarray | None = None,
    *,
    level: str = "nominal",
    n_boot: int = 1000,
    seed: int | np.random.Generator = 0,
    chunk: int | None = None,
) -> np.ndarray:
    r"""Alpha of bootstrap resamples of the pairable items.

    .. math:: W \sim \mathrm{Multinomial}(N, f / N), \quad \alpha^*_b = 1 - (n^*_b - 1)
       \frac{W_b \cdot D}{\sum_{c,k} n^*_{b,c} n^*_{b,k} \delta_{ck}}

    Krippendorff (2011) alpha of every resample; since alpha's sums are linear in per-item
    contributions, a replicate is a weight vector over items (drawn per distinct value-count
    profile with the profile frequencies f, exactly the distribution of a resample of N items with
    replacement; Efron and Tibshirani 1993, chapter 6). Undefined replicates are NaN.

    Parameters
    ----------
    counts : array_like or sparse matrix of shape (N, K)
    numbers : ndarray of shape (K,), optional
    level : str, default "nominal"
    n_boot : int, default 1000
    seed : int or numpy.random.Generator, default 0
    chunk : int, optional
        Replicates per vectorised block.

    Returns
    -------
    ndarray of shape (n_boot,)

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Efron and Tibshirani (1993). "An Introduction to the Bootstrap". Chapter 6.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[2, 0], [1, 1], [0, 3], [2, 1], [0, 2]])
    >>> boot = bootstrap_alpha_from_counts(counts, n_boot=1000, seed=0)
    >>> print(boot.shape, round(float(np.nanmedian(boot)), 1))
    (1000,) 0.3
    """
    _check_level(level)
    if n_boot < 1:
        raise ValueError("n_boot must be at least 1")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    counts, _ = _pairable(counts)
    n_items, k = counts.shape
    numbers = np.arange(k, dtype=float) if numbers is None else np.asarray(numbers, dtype=float)
    if n_items == 0 or k < 2:
        return np.full(n_boot, np.nan)
    profiles, freq = _profiles(counts)
    n_prof = len(profiles)
    w = 1.0 / (profiles.sum(axis=1) - 1.0)
    fixed = _fixed_delta(level, numbers)
    if fixed is not None:
        # per-profile observed disagreement w_u * sum_ck n_uc n_uk delta_ck (delta_cc = 0)
        per_item = w * np.einsum("uc,ck,uk->u", profiles, fixed, profiles)
    else:
        per_item = (w[:, None, None] * (profiles[:, :, None] * profiles[:, None, :])).reshape(
            n_prof, k * k
        )
        per_item[:, np.arange(k) * (k + 1)] -= w[:, None] * profiles
    if chunk is None:
        chunk = max(1, min(n_boot, int(2e7 // max(n_prof * max(k, 4), 1))))
    out = np.empty(n_boot)
    share = freq / freq.sum()
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        weights = rng.multinomial(n_items, share, size=b).astype(float)  # (b, n_prof)
        n_c = weights @ profiles  # (b, K)
        n = n_c.sum(axis=1)
        if fixed is not None:
            d_o = weights @ per_item
            d_e = np.einsum("bc,ck,bk->b", n_c, fixed, n_c)
        else:
            o = (weights @ per_item).reshape(b, k, k)
            delta = _ordinal_delta(n_c)
            d_o = (o * delta).sum(axis=(1, 2))
            d_e = np.einsum("bc,bck,bk->b", n_c, delta, n_c)
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = 1.0 - (n - 1.0) * d_o / d_e
        alpha[(d_e <= 0) | (n < 2)] = np.nan
        out[start : start + b] = alpha
    return out


# ----------------------------------------------------------------------------------------------
# all-pairs alpha


#: Above this many (item, annotator pair) instances the all-pairs counts come from sparse
#: matrix products instead of explicit pair instances (the limit of sigma,
#: ``hlv_core.balance.SIGMA_MAX_PAIR_INSTANCES``). The instances are packed into one int64
#: key each and sorted (8 bytes per instance plus bounded temporaries; 50 M instances: +0.9 GiB
#: peak); on sparse crowd data they are ~5x faster than the products (10 M rows, 50 M instances:
#: 5.0 s vs 31.5 s CPU on a loaded 2-core box).
PAIR_INSTANCE_LIMIT = 100_000_000


class PairAlpha:
    r"""All-pairs alpha as integer-coded arrays, sorted by ``(a, b)`` with ``a < b``.

    .. math:: \alpha_{ab} = 1 - (n - 1) \frac{2\, d_{ab}}{n^2 - \sum_c m_c^2}, \quad n = 2\, n_{ab}

    (nominal two-row alpha of Krippendorff 2011; see :func:`pairwise_alpha_arrays`).

    Parameters
    ----------
    a, b : ndarray of shape (P,)
        Annotator codes of the pairs sharing at least one item.
    n_shared : ndarray of shape (P,)
    alpha : ndarray of shape (P,)
        NaN below ``min_shared`` or undefined.
    min_shared : int

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> pairs = pairwise_alpha_arrays(prepare_alpha_input(annotations))
    >>> print(pairs.a.tolist(), pairs.b.tolist(), pairs.n_shared.tolist())
    [0, 0, 0, 1, 1, 2] [1, 2, 3, 2, 3, 3] [9, 8, 9, 9, 10, 10]
    """

    __slots__ = ("a", "b", "n_shared", "alpha", "min_shared")

    def __init__(self, a, b, n_shared, alpha, min_shared):
        self.a = a
        self.b = b
        self.n_shared = n_shared
        self.alpha = alpha
        self.min_shared = min_shared

    def __len__(self) -> int:
        return len(self.a)

    def frame(self, annotator_ids) -> pd.DataFrame:
        """``annotator_a, annotator_b, n_shared, alpha`` with the codes mapped to the ids."""
        # the ids as one string array (n_annotators strings), then taken per pair: no Python
        # object per pair (millions of pairs on big crowd data)
        ids = pd.Series(np.asarray(annotator_ids, dtype=object), dtype=str).array
        return pd.DataFrame(
            {
                "annotator_a": pd.Series(ids.take(self.a)),
                "annotator_b": pd.Series(ids.take(self.b)),
                "n_shared": self.n_shared.astype(np.int64),
                "alpha": self.alpha.astype(float),
            }
        )


def _bits(n: int) -> int:
    """Bits of a code in ``range(n)``."""
    return max(int(n) - 1, 0).bit_length()


def _instance_keys_fit(data: AlphaInput) -> bool:
    """Whether the packed codes of :func:`_sorted_instance_keys` fit in int64."""
    a_bits, v_bits = _bits(data.n_annotators), _bits(data.n_values)
    return _bits(data.n_items) + a_bits + v_bits <= 62 and 2 * (a_bits + v_bits) <= 62


#: Instance keys written per step of :func:`_sorted_instance_keys` (bounds its temporaries).
_KEY_CHUNK = 1 << 22


def _sorted_instance_keys(data: AlphaInput) -> tuple[np.ndarray, int, int]:
    """The sorted packed keys ``a | b | v_a | v_b`` (bit fields, most significant first) of every
    (item, annotator pair) instance: annotators ``a < b`` on one item with values ``v_a``,
    ``v_b``; and the bit widths of an annotator and a value code.

    One sort of the packed (item, annotator, value) codes puts every item's annotations
    together, annotators ascending. Items of one size n share the pattern of their C(n, 2)
    pairs: their rows form an (items, n) table whose columns are gathered by that pattern
    (one step per distinct size, no loop over items). One sort of the packed keys groups the
    instances by pair and value pair. Only keys are sorted (no argsort, no hashing, no integer
    division): 8 bytes per instance plus bounded temporaries."""
    a_bits, v_bits = _bits(data.n_annotators), _bits(data.n_values)
    code = data.item << (a_bits + v_bits)
    code |= data.annotator << v_bits
    code |= data.value
    code.sort()
    code &= (1 << (a_bits + v_bits)) - 1  # annotator | value, items in order, annotators ascending
    annotator = code >> v_bits
    code &= (1 << v_bits) - 1  # the values
    low = (annotator << (2 * v_bits)) | code  # b | 0 | v_b: the second annotation's bits
    high = (annotator << (a_bits + 2 * v_bits)) | (code << v_bits)  # a | 0 | v_a | 0: the first's
    del code, annotator
    per_item = np.bincount(data.item, minlength=data.n_items).astype(np.int64)
    first_row = np.cumsum(per_item) - per_item
    total = int((per_item * (per_item - 1) // 2).sum())
    keys = np.empty(total, dtype=np.int64)
    by_size = np.argsort(per_item, kind="stable")
    sizes = per_item[by_size]
    bounds = np.flatnonzero(np.diff(sizes)) + 1
    pos = 0
    for group in np.split(by_size, bounds):
        n = int(per_item[group[0]]) if len(group) else 0
        if n < 2:
            continue
        ti, tj = np.triu_indices(n, 1)
        step = max(1, _KEY_CHUNK // len(ti))
        for lo in range(0, len(group), step):
            rows = first_row[group[lo:lo + step]][:, None] + np.arange(n)
            out = keys[pos:pos + rows.shape[0] * len(ti)].reshape(rows.shape[0], len(ti))
            # np.take along an axis: ~8x faster than [:, ti] fancy indexing here
            np.add(np.take(high[rows], ti, axis=1), np.take(low[rows], tj, axis=1), out=out)
            pos += out.size
    keys.sort()
    return keys, a_bits, v_bits


def _n_pair_instances(data: AlphaInput) -> int:
    per_item = np.bincount(data.item, minlength=data.n_items).astype(np.int64)
    return int((per_item * (per_item - 1) // 2).sum())


def _values_at_pairs(product: sp.spmatrix, keys: np.ndarray, n_ann: int) -> np.ndarray:
    """``(P + P^T)_ij`` for the pairs i < j encoded as ``keys = i * n_ann + j`` (sorted).

    ``P``'s sparsity pattern must lie inside that of ``M M^T``."""
    sym = (product + product.T).tocoo()
    mask = sym.row < sym.col
    k = sym.row[mask].astype(np.int64) * n_ann + sym.col[mask]
    out = np.zeros(len(keys))
    if len(k):
        pos = np.searchsorted(keys, k)
        out[pos] = sym.data[mask]
    return out


def _pair_counts_instances(data: AlphaInput, need: str):
    """Integer pair statistics from explicit pair instances (exact, as floats).

    Returns ``keys, n_shared`` and, for ``need="nominal"``, ``agree, sum_m2``; for
    ``need="marginals"``, ``marg`` (P, K) and ``cross`` (P, K(K-1)/2) in ``triu_indices(K, 1)``
    order. The sorted instance keys (:func:`_sorted_instance_keys`) are run-length coded into
    (pair, v_a, v_b) counts; every statistic is a bincount of those runs."""
    k = max(data.n_values, 1)
    keys, a_bits, v_bits = _sorted_instance_keys(data)
    total = len(keys)
    if total == 0:
        empty = np.zeros(0)
        if need == "nominal":
            return np.zeros(0, dtype=np.int64), empty, empty, empty
        return (np.zeros(0, dtype=np.int64), empty, np.zeros((0, data.n_values)),
                np.zeros((0, data.n_values * (data.n_values - 1) // 2)))
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    runs = np.diff(np.append(starts, total)).astype(float)  # instances per (pair, v_a, v_b)
    run_key = keys[starts]
    del keys, starts
    v_mask = (1 << v_bits) - 1
    vb = run_key & v_mask
    va = (run_key >> v_bits) & v_mask
    pair_key = run_key >> (2 * v_bits)  # a | b
    del run_key
    first = np.concatenate(([True], pair_key[1:] != pair_key[:-1]))
    pair = np.cumsum(first) - 1
    keys = pair_key[first]
    keys = (keys >> a_bits) * max(data.n_annotators, 1) + (keys & ((1 << a_bits) - 1))  # a n + b
    npairs = len(keys)
    n_shared = np.bincount(pair, weights=runs, minlength=npairs)
    dense_marginals = npairs * k <= 4 * len(runs) + (1 << 20)
    if need == "nominal":
        agree = np.bincount(pair, weights=runs * (va == vb), minlength=npairs)
        if dense_marginals:  # m_c of every (pair, value): sum_c m_c^2 (integers: exact)
            m = np.bincount(pair * k + va, weights=runs, minlength=npairs * k)
            m += np.bincount(pair * k + vb, weights=runs, minlength=npairs * k)
            sum_m2 = np.square(m).reshape(npairs, k).sum(axis=1)
        else:  # many values: only the (pair, value) cells that occur
            cell, inverse = np.unique(np.concatenate([pair * k + va, pair * k + vb]),
                                      return_inverse=True)
            m = np.bincount(inverse, weights=np.concatenate([runs, runs]))
            sum_m2 = np.bincount(cell // k, weights=m * m, minlength=npairs)
        return keys, n_shared, agree, sum_m2
    marg = (
        np.bincount(pair * k + va, weights=runs, minlength=npairs * k)
        + np.bincount(pair * k + vb, weights=runs, minlength=npairs * k)
    ).reshape(npairs, k)
    n_cross = k * (k - 1) // 2
    diff = va != vb
    lo = np.minimum(va, vb)[diff]
    hi = np.maximum(va, vb)[diff]
    idx = lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)  # position of (lo, hi) in triu_indices
    cross = np.bincount(
        pair[diff] * n_cross + idx, weights=runs[diff], minlength=npairs * n_cross
    ).reshape(npairs, n_cross)
    return keys, n_shared, marg, cross


#: Entries (int32) of the compiled kernel's per-partner table (one row of value counts per
#: annotator, :func:`hlv_core._kernels.pair_statistics`): 2**23 = 32 MiB; past it (many
#: annotators times many values) the kernel orders each annotator's instances in a buffer.
_PARTNER_TABLE_LIMIT = 1 << 23
#: The kernel reads ``annotator | value`` codes as int32 (half the memory traffic) when they
#: and the group-end flag above them fit in 31 bits; as int64 otherwise.
_INT32_FIELDS = 30


def _pair_counts_compiled(data: AlphaInput, need: str, kernels):
    """Same statistics as :func:`_pair_counts_instances` (same integers, order and dtypes) from
    the compiled per-annotator accumulator (:func:`hlv_core._kernels.pair_statistics`): one
    sort of the (item, annotator, value) codes, then linear in pair instances (no instance
    keys to build and sort)."""
    k = max(data.n_values, 1)
    a_bits, v_bits = _bits(data.n_annotators), _bits(data.n_values)
    code = np.asarray(data.item, dtype=np.int64) << (a_bits + v_bits)
    code |= np.asarray(data.annotator, dtype=np.int64) << v_bits
    code |= data.value
    code.sort()  # items in order, annotators ascending inside an item
    small = np.int32 if a_bits + v_bits <= _INT32_FIELDS else np.int64  # a flag bit above
    keys, n_shared, stat1, stat2 = kernels.pair_statistics(
        code, np.empty(len(code), small), max(data.n_annotators, 1), a_bits, v_bits, k,
        need == "nominal", _PARTNER_TABLE_LIMIT)
    if len(keys) == 0:
        return _pair_counts_instances(data, need)  # the reference's empty shapes
    if need == "nominal":
        return keys, n_shared, stat1, stat2
    cross = stat2.reshape(len(keys), k * (k - 1) // 2)
    if not cross.any():  # the reference's bincount of no differing instance gives int64 zeros
        cross = np.zeros(cross.shape, dtype=np.int64)
    return keys, n_shared, stat1.reshape(len(keys), k), cross


def _pair_counts_sparse(data: AlphaInput, need: str):
    """Same statistics as :func:`_pair_counts_instances` from sparse products."""
    n_ann, n_items, k = data.n_annotators, data.n_items, data.n_values
    rows, cols = data.annotator, data.item
    m = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_ann, n_items))
    shared = sp.triu(m @ m.T, k=1).tocoo()
    order = np.lexsort((shared.col, shared.row))
    keys = shared.row[order].astype(np.int64) * n_ann + shared.col[order].astype(np.int64)
    n_shared = shared.data[order]
    npairs = len(keys)
    x = [
        sp.csr_matrix(
            (np.ones(int((data.value == c).sum())), (rows[data.value == c], cols[data.value == c])),
            shape=(n_ann, n_items),
        )
        for c in range(k)
    ]
    if need == "nominal":
        y = sp.csr_matrix(
            (np.ones(len(rows)), (rows, cols * k + data.value)), shape=(n_ann, n_items * k)
        )
        agree = _values_at_pairs(sp.triu(y @ y.T, k=1), keys, n_ann)
        sum_m2 = np.zeros(npairs)
        for c in range(k):
            sum_m2 += _values_at_pairs(x[c] @ m.T, keys, n_ann) ** 2
        return keys, n_shared, agree, sum_m2
    marg = np.stack(
        [_values_at_pairs(x[c] @ m.T, keys, n_ann) for c in range(k)], axis=1
    ) if k else np.zeros((npairs, 0))
    ci, ck = np.triu_indices(k, 1)
    cross = np.stack(
        [_values_at_pairs(x[a] @ x[b].T, keys, n_ann) for a, b in zip(ci, ck, strict=True)],
        axis=1,
    ) if len(ci) else np.zeros((npairs, 0))
    return keys, n_shared, marg, cross


def pairwise_alpha_arrays(
    data: AlphaInput, *, min_shared: int = 2, method: str = "auto"
) -> PairAlpha:
    r"""All-pairs alpha with sparse closed forms, on integer codes.

    .. math:: \alpha_{ab} = 1 - (n - 1) \frac{\sum_{c<k} C_{ck}\, \delta_{ck}}{\sum_{c<k} m_c m_k\, \delta_{ck}},
       \quad n = 2\, n_{ab}

    the two-row alpha of Krippendorff (2011) per pair, from integer pair statistics (shared items,
    the pair's value counts :math:`m_c`, cross-coincidences :math:`C_{ck}`) gathered from (item,
    pair) instances or sparse products; interval uses value products.

    Parameters
    ----------
    data : AlphaInput
    min_shared : int, default 2
    method : {"auto", "instances", "sparse"}, default "auto"
        How the pair statistics are gathered (same integers either way); ``"instances"`` runs
        the compiled per-annotator kernel where numba is installed (``hlv_core._kernels``),
        else the packed instance keys (the reference).

    Returns
    -------
    PairAlpha

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(pairwise_alpha_arrays(prepare_alpha_input(annotations)).alpha.round(3))
    [0.852 0.489 0.857 0.557 0.876 0.627]
    """
    if min_shared < 1:
        raise ValueError("min_shared must be at least 1")
    if method not in ("auto", "instances", "sparse"):
        raise ValueError("method must be 'auto', 'instances' or 'sparse'")
    n_ann, n_items = data.n_annotators, data.n_items
    level = data.level
    rows, cols = data.annotator, data.item
    if level == "interval":
        m = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_ann, n_items))
        shared = sp.triu(m @ m.T, k=1).tocoo()
        order = np.lexsort((shared.col, shared.row))
        keys = shared.row[order].astype(np.int64) * n_ann + shared.col[order].astype(np.int64)
        n_shared = shared.data[order]
        n = 2.0 * n_shared
        vals = data.numbers[data.value]
        v = sp.csr_matrix((vals, (rows, cols)), shape=(n_ann, n_items))
        v2 = sp.csr_matrix((vals * vals, (rows, cols)), shape=(n_ann, n_items))
        s1 = _values_at_pairs(v @ m.T, keys, n_ann)
        s2 = _values_at_pairs(v2 @ m.T, keys, n_ann)
        vv = _values_at_pairs(sp.triu(v @ v.T, k=1), keys, n_ann)
        num = s2 - 2.0 * vv
        den = n * s2 - s1 * s1
        scale = np.maximum(n * s2, 1.0)
        den = np.where(np.abs(den) <= 1e-12 * scale, 0.0, den)
        num = np.where(np.abs(num) <= 1e-12 * np.maximum(s2, 1.0), 0.0, num)
    else:
        if method == "auto":
            # instances win when pairs share few items (sparse crowd data: MHS-like 6x,
            # md_agreement 2.5x); on dense data (few annotators, many shared items per pair)
            # the compiled sparse products are ~10x faster
            n_inst = _n_pair_instances(data)
            max_pairs = n_ann * (n_ann - 1) // 2
            sparse_crowd = n_inst <= PAIR_INSTANCE_LIMIT and n_inst <= 8 * max_pairs
            method = "instances" if sparse_crowd else "sparse"
        if method == "instances" and not _instance_keys_fit(data):
            method = "sparse"  # packed keys would overflow int64: the same integers by products
        compiled = (kernels(len(data.item)) if method == "instances" and len(data.item) < 2**31
                    else None)
        if compiled is not None:  # the compiled accumulator (numba), same integers
            def counts(data, need):
                return _pair_counts_compiled(data, need, compiled)
        else:
            counts = _pair_counts_instances if method == "instances" else _pair_counts_sparse
        if level == "nominal":
            keys, n_shared, agree, sum_m2 = counts(data, "nominal")
            n = 2.0 * n_shared
            num = n_shared - agree  # disagreements
            den = (n * n - sum_m2) / 2.0  # sum_{c<k} m_c m_k
        else:  # ordinal / ratio: per-pair marginals and cross-coincidences, c < k
            keys, n_shared, marg, cross = counts(data, "marginals")
            n = 2.0 * n_shared
            ci, ck = np.triu_indices(data.n_values, 1)
            if level == "ordinal":
                cum = np.cumsum(marg, axis=1)
                between = cum[:, ck] - cum[:, ci] + marg[:, ci]
                delta = (between - (marg[:, ci] + marg[:, ck]) / 2.0) ** 2
            else:
                delta = np.broadcast_to(_fixed_delta("ratio", data.numbers)[ci, ck], cross.shape)
            num = (cross * delta).sum(axis=1)
            den = (marg[:, ci] * marg[:, ck] * delta).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1.0) * num / den
    alpha = np.where((den > 0) & (n_shared >= min_shared), alpha, np.nan)
    stride = max(n_ann, 1)
    return PairAlpha(
        keys // stride, keys % stride, np.asarray(n_shared).astype(np.int64),
        alpha.astype(float), int(min_shared),
    )


def alpha_and_pairwise_codes(data: AlphaInput, *, min_shared: int = 2) -> tuple[float, PairAlpha]:
    r"""Overall alpha and all-pairs alpha from one prepared input.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    Krippendorff (2011), overall and per pair (:func:`alpha_of_input`,
    :func:`pairwise_alpha_arrays`).

    Parameters
    ----------
    data : AlphaInput
    min_shared : int, default 2

    Returns
    -------
    alpha : float
    pairs : PairAlpha

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> alpha, pairs = alpha_and_pairwise_codes(prepare_alpha_input(annotations))
    >>> print(round(alpha, 3), len(pairs.alpha))
    0.743 6
    """
    return alpha_of_input(data), pairwise_alpha_arrays(data, min_shared=min_shared)
