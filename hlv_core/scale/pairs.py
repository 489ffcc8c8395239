"""All-pairs annotator alpha, Basile's sigma and sigma_rnd on Dask, at every level of alpha.

The rows stay in the cluster, partitioned by item (:func:`hlv_core.scale.load` with
``keep_rows=True``). With the annotator codes of the global annotator index (sorted ids, as in
memory):

* **Pair statistics** (spec of the all-pairs closed form; Krippendorff 2011 per pair): per
  partition b, with ``M_b`` the annotator x item incidence, ``Y_b`` the annotator x
  (item, label) incidence and ``X_c`` the incidence of label c, the sparse products
  ``n = triu(M_b M_b')``, ``agree = triu(Y_b Y_b')`` and ``P_c = X_c M_b'``; items are disjoint
  between partitions, so the statistics of all items are the sums, reduced in a tree of tasks.
  Then ``alpha_ij = 1 - (n - 1) 2 d_ij / (n^2 - sum_c m_c^2)`` with ``n = 2 n_ij``,
  ``d_ij = n_ij - agree_ij`` and ``m_c = P_c[i, j] + P_c[j, i]``: the in-memory closed form on
  the same integers, hence the same numbers. Ordinal and ratio add the cross-coincidences
  ``X_c X_k'`` (c < k; ``alpha_ij = 1 - (n - 1) sum C_ck delta_ck / sum m_c m_k delta_ck``, the
  ordinal delta from the pair's own marginals); interval reads the value sums ``V M'``,
  ``V2 M'`` and ``V V'`` (``alpha_ij = 1 - (n - 1) sum (a - b)^2 / (n s2 - s1^2)``). The
  label numbers are those of the in-memory alpha input (labels as numbers; ordinal labels that
  are not numbers by their inventory position).
* **sigma** (Basile, section 3): signs ``+`` iff ``alpha_ij >= alpha``, then the triangle traces
  ``tr(A^3) = 6 T`` and ``tr(S^3) = 6 (B - U)`` summed over tiles ``(I, J)`` of annotator blocks,
  each tile one task: ``sum((S[I, :] S[:, J]) o S[I, J])``.
* **sigma_rnd** (Basile, section 4.1, the composed reading): the random draws are made on the
  client in the in-memory order (``numpy.random.default_rng(seed)``: per step a permutation of
  the items in sorted id order, then two permutations of the annotators), so each replicate is
  the in-memory replicate; every replicate is its own set of tasks (remap the annotator codes of
  a partition, its pair statistics), reduced independently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from ..balance import (
    DEFAULT_STEPS,
    PAPER_MIN_SHARED,
    RandomSigmaResult,
    edge_signs,
    signed_adjacency,
)
from ..io import LEVELS
from .analyses import _columns, alpha_report
from .cluster import on_cluster
from .reduce import ReducedDataset

__all__ = ["TILE", "ScaledSigma", "pair_statistics", "pairwise_alpha", "sigma",
           "sigma_random", "triangle_traces"]

#: Annotators per tile side of the triangle traces (one task per tile).
TILE = 2048


def _rows(data: ReducedDataset):
    rows = data.extra.get("rows")
    if rows is None:
        raise ValueError("pairwise analyses need the rows: load with keep_rows=True")
    return rows


def _codes(frame: pd.DataFrame, annotator_ids: pd.Index, item_ids: pd.Index | None):
    """(item, annotator, label) int64 codes of a partition; items local (0..n_b-1) or, with
    ``item_ids``, positions in the sorted global item index."""
    if item_ids is None:
        item, _ = pd.factorize(frame["item_id"].to_numpy(dtype=object))
    else:
        item = item_ids.get_indexer(frame["item_id"].to_numpy(dtype=object))
    annotator = frame["annotator"].to_numpy()
    return (np.asarray(item, dtype=np.int64), np.asarray(annotator, dtype=np.int64),
            frame["label"].to_numpy().astype(np.int64))


def _stats(item, annotator, value, n_ann: int, n_values: int, level: str = "nominal",
           numbers: np.ndarray | None = None) -> dict:
    """Pair statistics of one partition (items local 0..n_b-1; ``value``: codes in the alpha
    domain's order, ``numbers`` their numbers). Always ``shared = triu(M M')``; then, by level,
    the integer statistics of the in-memory closed form (sparse annotator x annotator):
    nominal ``agree = triu(Y Y')`` and ``("m", c) = X_c M'``; ordinal / ratio ``("m", c)`` and
    the cross-coincidences ``("x", c, k) = X_c X_k'`` (c < k); interval ``s1 = V M'``,
    ``s2 = V2 M'`` and ``vv = triu(V V')`` (V: the values, V2: their squares)."""
    _, item = np.unique(item, return_inverse=True)
    n_items = int(item.max()) + 1 if len(item) else 0
    ones = np.ones(len(item))
    m = sparse.csr_matrix((ones, (annotator, item)), shape=(n_ann, n_items))
    out: dict = {"shared": sparse.triu(m @ m.T, k=1).tocsr()}
    if level == "interval":
        vals = np.asarray(numbers, dtype=float)[value]
        v = sparse.csr_matrix((vals, (annotator, item)), shape=(n_ann, n_items))
        v2 = sparse.csr_matrix((vals * vals, (annotator, item)), shape=(n_ann, n_items))
        out.update(s1=(v @ m.T).tocsr(), s2=(v2 @ m.T).tocsr(),
                   vv=sparse.triu(v @ v.T, k=1).tocsr())
        return out
    x = []
    for c in range(n_values):
        sel = value == c
        x.append(sparse.csr_matrix((ones[sel], (annotator[sel], item[sel])),
                                   shape=(n_ann, n_items)))
        out[("m", c)] = (x[c] @ m.T).tocsr()
    if level == "nominal":
        y = sparse.csr_matrix((ones, (annotator, item * n_values + value)),
                              shape=(n_ann, n_items * n_values))
        out["agree"] = sparse.triu(y @ y.T, k=1).tocsr()
    else:
        for c, k in zip(*np.triu_indices(n_values, 1), strict=True):
            out[("x", int(c), int(k))] = (x[c] @ x[k].T).tocsr()
    return out


def _partition_stats(frame, annotator_ids, n_labels, remap=None, item_ids=None,
                     level="nominal", domain=None) -> dict:
    """One partition's pair statistics; ``domain = (rank, numbers)``: the alpha domain code of
    each inventory label and the domain's numbers (None: nominal, inventory codes)."""
    item, annotator, label = _codes(frame, annotator_ids, item_ids)
    if remap is not None:  # sigma_rnd: the composed split-and-shuffle steps of a replicate
        for half_mask, p_first, p_second in remap:
            annotator = np.where(half_mask[item], p_first[annotator], p_second[annotator])
    rank, numbers = domain if domain is not None else (None, None)
    value = rank[label] if rank is not None else label
    return _stats(item, annotator, value, len(annotator_ids), n_labels, level, numbers)


def _domain(data: ReducedDataset, level: str):
    """``(rank, numbers)`` of the in-memory alpha input at ``level``: each inventory label's
    code in the domain order (sorted by number; nominal: sorted strings) and the numbers."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {list(LEVELS)}, got {level!r}")
    order, _, numbers = _columns(data, level)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank, numbers


def _add(a: dict, b: dict) -> dict:
    return {key: a[key] + b[key] for key in a}


def _tree_sum(parts: list):
    """Sum a list of delayed dicts of sparse matrices in a binary tree of tasks."""
    import dask

    while len(parts) > 1:
        parts = [dask.delayed(_add)(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]


def pair_statistics(data: ReducedDataset, remaps: list | None = None, item_ids=None,
                    level: str = "nominal") -> list:
    """The summed pair statistics at ``level`` (one dict per replicate in ``remaps``;
    ``[None]`` = the data as it is), computed on the current Dask scheduler.

    Parameters
    ----------
    data : ReducedDataset
        Loaded with ``keep_rows=True``.
    remaps : list, optional
        Annotator remappings of sigma_rnd replicates (default ``[None]``).
    item_ids : pandas.Index, optional
        Item order of the remappings.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (the numbers of :meth:`hlv_core.io.Dataset.numeric_label_map`).

    Returns
    -------
    list of dict
        Per replicate: ``shared``, ``agree`` and per-label tables over annotator pairs.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School
       for Communication, University of Pennsylvania.
    .. [2] V. Basile, "A Measure of Systematic Disagreement", section 3.

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     stats = pair_statistics(data)
    """
    import dask

    rows = _rows(data).to_delayed()
    index = dask.delayed(data.annotator_ids, pure=True)
    domain = dask.delayed(_domain(data, level), pure=True)
    totals = []
    for remap in remaps or [None]:
        shared = dask.delayed(remap, pure=True) if remap is not None else None
        parts = [dask.delayed(_partition_stats)(p, index, data.n_labels, shared, item_ids,
                                                level, domain)
                 for p in rows]
        totals.append(_tree_sum(parts))
    return list(dask.compute(*totals))


def _at(matrix: sparse.csr_matrix, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Entries ``matrix[rows, cols]`` (0 where absent)."""
    return np.asarray(matrix[rows, cols]).ravel() if len(rows) else np.zeros(0)


def _pair_alpha(stats: dict, n_labels: int, min_shared: int, level: str = "nominal",
                numbers: np.ndarray | None = None):
    """(a, b, n_shared, alpha) of every pair sharing an item, sorted by (a, b): the in-memory
    closed forms (:func:`hlv_core.agreement.pairwise_alpha`) on the summed statistics."""
    shared = stats["shared"].tocoo()
    order = np.lexsort((shared.col, shared.row))
    a, b = shared.row[order].astype(np.int64), shared.col[order].astype(np.int64)
    n_shared = shared.data[order]
    n = 2.0 * n_shared

    def both(matrix):  # (P + P')_ab
        return _at(matrix, a, b) + _at(matrix, b, a)

    if level == "interval":
        s1, s2, vv = both(stats["s1"]), both(stats["s2"]), _at(stats["vv"], a, b)
        num = s2 - 2.0 * vv
        den = n * s2 - s1 * s1
        scale = np.maximum(n * s2, 1.0)
        den = np.where(np.abs(den) <= 1e-12 * scale, 0.0, den)
        num = np.where(np.abs(num) <= 1e-12 * np.maximum(s2, 1.0), 0.0, num)
    elif level == "nominal":
        agree = _at(stats["agree"], a, b)
        sum_m2 = np.zeros(len(a))
        for c in range(n_labels):
            sum_m2 += both(stats[("m", c)]) ** 2
        num = n_shared - agree
        den = (n * n - sum_m2) / 2.0
    else:  # ordinal / ratio: the pair's marginals and cross-coincidences, c < k
        ci, ck = np.triu_indices(n_labels, 1)
        marg = np.stack([both(stats[("m", c)]) for c in range(n_labels)], axis=1) \
            if n_labels else np.zeros((len(a), 0))
        cross = np.stack([both(stats[("x", int(c), int(k))]) for c, k in zip(ci, ck,
                                                                             strict=True)],
                         axis=1) if len(ci) else np.zeros((len(a), 0))
        if level == "ordinal":
            cum = np.cumsum(marg, axis=1)
            between = cum[:, ck] - cum[:, ci] + marg[:, ci]
            delta = (between - (marg[:, ci] + marg[:, ck]) / 2.0) ** 2
        else:
            x = np.asarray(numbers, dtype=float)
            total, diff = x[:, None] + x[None, :], x[:, None] - x[None, :]
            ratio = np.zeros((n_labels, n_labels))
            np.divide(diff, total, out=ratio, where=total != 0)
            delta = np.broadcast_to((ratio ** 2)[ci, ck], cross.shape)
        num = (cross * delta).sum(axis=1)
        den = (marg[:, ci] * marg[:, ck] * delta).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1.0) * num / den
    alpha = np.where((den > 0) & (n_shared >= min_shared), alpha, np.nan)
    return a, b, n_shared.astype(np.int64), alpha.astype(float)


@on_cluster
def pairwise_alpha(data: ReducedDataset, *, level: str = "nominal", min_shared: int = 2
                   ) -> pd.DataFrame:
    """:func:`hlv_core.agreement.pairwise_alpha` on Dask, at any level: one row per pair
    sharing an item, ``annotator_a, annotator_b, n_shared, alpha`` (sorted ids; NaN below
    ``min_shared`` or undefined).

    Parameters
    ----------
    data : ReducedDataset
        Loaded with ``keep_rows=True``.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (the numbers of :meth:`hlv_core.io.Dataset.numeric_label_map`).
    min_shared : int, default 2
        Fewest shared items of a defined pair.

    Returns
    -------
    pandas.DataFrame
        ``annotator_a, annotator_b, n_shared, alpha``.

    References
    ----------
    .. [1] K. Krippendorff (2011), "Computing Krippendorff's alpha-reliability".

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     pairs = pairwise_alpha(data)
    """
    if min_shared < 1:
        raise ValueError("min_shared must be at least 1")
    (stats,) = pair_statistics(data, level=level)
    numbers = _domain(data, level)[1]
    a, b, n_shared, alpha = _pair_alpha(stats, data.n_labels, min_shared, level, numbers)
    ids = np.asarray(data.annotator_ids, dtype=object)
    frame = pd.DataFrame({"annotator_a": pd.Series(ids[a], dtype=str),
                          "annotator_b": pd.Series(ids[b], dtype=str),
                          "n_shared": n_shared, "alpha": alpha})
    below = frame["n_shared"] < min_shared
    frame.attrs.update(level=level, min_shared=int(min_shared),
                       n_pairs_below_min_shared=int(below.sum()),
                       n_pairs_undefined=int((~below & frame["alpha"].isna()).sum()))
    return frame


def _tile_traces(S: sparse.csr_matrix, rows: slice, cols: slice) -> tuple[int, int]:
    """This tile's share of ``tr(A^3)`` and ``tr(S^3)``: ``sum((X[I,:] X[:,J]) o X[I,J])``."""
    s_ij = S[rows, cols]
    if s_ij.nnz == 0:
        return 0, 0
    a = abs(S)
    tr_a = (a[rows, :] @ a[:, cols]).multiply(abs(s_ij)).sum()
    tr_s = (S[rows, :] @ S[:, cols]).multiply(s_ij).sum()
    return int(round(tr_a)), int(round(tr_s))


def triangle_traces(S: sparse.csr_matrix, tile: int = TILE) -> tuple[int, int]:
    """``(tr(A^3), tr(S^3))`` of a signed adjacency, one task per tile of ``tile`` annotators
    a side (Basile: T = tr(A^3)/6, B = (tr A^3 + tr S^3)/12, U = (tr A^3 - tr S^3)/12).

    Parameters
    ----------
    S : scipy.sparse.csr_matrix
        (A, A) signed adjacency (+1 / -1 edges, 0 none), symmetric.
    tile : int, default TILE
        Annotators per tile side.

    Returns
    -------
    tuple of (int, int)
        ``(tr(A^3), tr(S^3))`` with A = |S|.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3 (sigma from the
       triangles of the signed agreement graph) and section 4.1 (sigma_rnd from
       split-and-shuffle matrices).

    Examples
    --------
    One triangle with one negative edge: T = 6/6 = 1, B = (6 - 6)/12 = 0, U = 1:

    >>> import numpy as np
    >>> from scipy import sparse
    >>> S = sparse.csr_matrix(np.array([[0, 1, -1], [1, 0, 1], [-1, 1, 0]]))
    >>> tuple(int(t) for t in triangle_traces(S))
    (6, -6)
    """
    import dask

    n = S.shape[0]
    S = sparse.csr_matrix(S, dtype=np.int64)
    shared = dask.delayed(S, pure=True)
    blocks = [slice(i, min(i + tile, n)) for i in range(0, n, tile)]
    parts = [dask.delayed(_tile_traces)(shared, r, c) for r in blocks for c in blocks]
    results = dask.compute(*parts) if parts else []
    return sum(x for x, _ in results), sum(y for _, y in results)


@dataclass
class ScaledSigma:
    """sigma on Dask: the numbers of :meth:`hlv_core.balance.SigmaResult.summary` (same keys)
    and the pairs table (``annotator_a, annotator_b, n_shared, alpha, status``).

    Attributes
    ----------
    alpha, sigma : float
        Overall alpha and sigma (NaN when undefined).
    n_balanced, n_unbalanced, n_triangles : int
        Triangle counts.
    n_annotators, n_pos_edges, n_neg_edges : int
        Graph size.
    n_pairs_overlapping, n_dropped_min_shared, n_dropped_undefined : int
        Pairs sharing an item, and those without an edge and why.
    level : str
        ``"nominal"``.
    min_shared : int
        Fewest shared items of an edge.
    explanation : str or None
        Why sigma is undefined.
    pairs : pandas.DataFrame
        ``annotator_a, annotator_b, n_shared, alpha, status``.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3 (sigma from the
       triangles of the signed agreement graph) and section 4.1 (sigma_rnd from
       split-and-shuffle matrices).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     result = sigma(data)
    >>> sorted(result.summary())[:3]  # doctest: +SKIP
    ['alpha', 'explanation', 'level']
    """

    alpha: float
    sigma: float
    n_balanced: int
    n_unbalanced: int
    n_triangles: int
    n_annotators: int
    n_pos_edges: int
    n_neg_edges: int
    n_pairs_overlapping: int
    n_dropped_min_shared: int
    n_dropped_undefined: int
    level: str
    min_shared: int
    explanation: str | None
    pairs: pd.DataFrame

    def summary(self) -> dict:
        """The summary numbers as a dict (NaN alpha / sigma as None), the keys of :meth:`hlv_core.balance.SigmaResult.summary`.

        Returns
        -------
        dict
            Every field but ``pairs``.

        Examples
        --------
        >>> from hlv_core import scale
        >>> with scale.dask_client("local"):  # doctest: +SKIP
        ...     data = scale.load("annotations/*.csv", keep_rows=True)
        ...     facts = sigma(data).summary()
        >>> facts["sigma"] is None or 0 <= facts["sigma"] <= 1  # doctest: +SKIP
        True
        """
        out = {k: v for k, v in self.__dict__.items() if k != "pairs"}
        out["alpha"] = None if math.isnan(self.alpha) else self.alpha
        out["sigma"] = None if math.isnan(self.sigma) else self.sigma
        return out


def _sigma_of(stats: dict, n_ann: int, n_labels: int, alpha: float, min_shared: int,
              tile: int, level: str = "nominal", numbers: np.ndarray | None = None):
    a, b, n_shared, pair_alpha = _pair_alpha(stats, n_labels, 1, level, numbers)
    too_few = n_shared < min_shared
    undefined = ~too_few & ~np.isfinite(pair_alpha)
    keep = ~too_few & ~undefined
    signs = edge_signs(pair_alpha[keep], alpha)
    S = signed_adjacency(n_ann, a[keep], b[keep], signs)
    tr_a3, tr_s3 = triangle_traces(S, tile)
    n_tri = tr_a3 // 6
    value = (tr_a3 + tr_s3) // 12 / n_tri if n_tri else math.nan
    return (a, b, n_shared, pair_alpha, too_few, undefined, signs, tr_a3, tr_s3, n_tri, value)


@on_cluster
def sigma(data: ReducedDataset, *, level: str = "nominal", min_shared: int = PAPER_MIN_SHARED,
          tile: int = TILE) -> ScaledSigma:
    """Basile's sigma on Dask at any level; equal to :func:`hlv_core.balance.sigma` (its summary
    numbers and pairs table).

    Parameters
    ----------
    data : ReducedDataset
        Loaded with ``keep_rows=True``.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (the numbers of :meth:`hlv_core.io.Dataset.numeric_label_map`).
    min_shared : int, default 1
        Fewest shared items of an edge (the paper's convention).
    tile : int, default TILE
        Annotators per tile side of the trace computation.

    Returns
    -------
    ScaledSigma
        Summary numbers and the pairs table.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3 (sigma from the
       triangles of the signed agreement graph) and section 4.1 (sigma_rnd from
       split-and-shuffle matrices).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     result = sigma(data)
    """
    alpha = alpha_report(data, level=level, n_boot=0).alpha
    (stats,) = pair_statistics(data, level=level)
    numbers = _domain(data, level)[1]
    (a, b, n_shared, pair_alpha, too_few, undefined, signs, tr_a3, tr_s3, n_tri,
     value) = _sigma_of(stats, data.n_annotators, data.n_labels, alpha, min_shared, tile,
                        level, numbers)
    ids = np.asarray(data.annotator_ids, dtype=object)
    status = np.where(too_few, "too_few_shared", np.where(undefined, "undefined_alpha", "edge"))
    pairs = pd.DataFrame({"annotator_a": pd.Series(ids[a], dtype=str),
                          "annotator_b": pd.Series(ids[b], dtype=str), "n_shared": n_shared,
                          "alpha": pair_alpha, "status": status})
    explanation = None
    if math.isnan(value):
        explanation = (f"sigma is undefined: the signed graph ({data.n_annotators} annotators, "
                       f"{len(signs)} edges) has no triangle.")
    return ScaledSigma(
        alpha=alpha, sigma=value, n_balanced=(tr_a3 + tr_s3) // 12,
        n_unbalanced=(tr_a3 - tr_s3) // 12, n_triangles=n_tri, n_annotators=data.n_annotators,
        n_pos_edges=int((signs > 0).sum()), n_neg_edges=int((signs < 0).sum()),
        n_pairs_overlapping=len(a), n_dropped_min_shared=int(too_few.sum()),
        n_dropped_undefined=int(undefined.sum()), level=level, min_shared=int(min_shared),
        explanation=explanation, pairs=pairs,
    )


def _item_index(data: ReducedDataset) -> pd.Index:
    """The sorted distinct item ids (the in-memory item codes), gathered from the partitions."""
    import dask

    rows = _rows(data).to_delayed()
    parts = dask.compute(*[dask.delayed(lambda f: np.unique(
        f["item_id"].to_numpy(dtype=object).astype(str)))(p) for p in rows])
    return pd.Index(np.unique(np.concatenate([*parts, np.zeros(0, dtype=str)])), dtype=str)


@on_cluster
def sigma_random(data: ReducedDataset, *, n_repeats: int = 10, seed: int | None = 0,
                 level: str = "nominal", min_shared: int = 1, n_steps: int = DEFAULT_STEPS,
                 tile: int = TILE) -> RandomSigmaResult:
    """sigma_rnd (the composed reading) on Dask at any level, equal to
    :func:`hlv_core.balance.sigma_random` with the same seed: the draws are made here in the
    in-memory order; each replicate's remapping and pair statistics run as its own tasks.

    Parameters
    ----------
    data : ReducedDataset
        Loaded with ``keep_rows=True``.
    n_repeats : int, default 10
        Random matrices A_rnd.
    seed : int or None, default 0
        Seed of the draws.
    min_shared : int, default 1
        Fewest shared items of an edge.
    n_steps : int, default DEFAULT_STEPS
        Split-and-shuffle steps per matrix.
    tile : int, default TILE
        Annotators per tile side.

    Returns
    -------
    hlv_core.balance.RandomSigmaResult
        Mean, sd and the values of sigma_rnd.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3 (sigma from the
       triangles of the signed agreement graph) and section 4.1 (sigma_rnd from
       split-and-shuffle matrices).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     result = sigma_random(data, n_repeats=10, seed=0)
    """
    if int(n_repeats) != n_repeats or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}")
    rng = np.random.default_rng(seed)
    items = _item_index(data)
    n_items, m = len(items), data.n_annotators
    remaps = []
    for _ in range(int(n_repeats)):
        steps = []
        for _ in range(int(n_steps)):  # the draws of balance._draw_shuffle, in its order
            perm = rng.permutation(n_items)
            half_mask = np.zeros(n_items, dtype=bool)
            half_mask[perm[: n_items // 2]] = True
            steps.append((half_mask, rng.permutation(m), rng.permutation(m)))
        remaps.append(steps)
    alpha = alpha_report(data, level=level, n_boot=0).alpha
    all_stats = pair_statistics(data, remaps, item_ids=items, level=level)
    numbers = _domain(data, level)[1]
    sigmas = np.full(n_repeats, np.nan)
    tris = np.zeros(n_repeats, dtype=np.int64)
    for r, stats in enumerate(all_stats):
        *_, n_tri, value = _sigma_of(stats, m, data.n_labels, alpha, min_shared, tile, level,
                                     numbers)
        sigmas[r], tris[r] = value, n_tri
    defined = sigmas[~np.isnan(sigmas)]
    return RandomSigmaResult(
        mean=float(defined.mean()) if len(defined) else math.nan,
        sd=float(defined.std(ddof=1)) if len(defined) > 1 else math.nan,
        values=sigmas, n_defined=len(defined), alpha=alpha,
        alphas=np.full(n_repeats, alpha),  # shuffling keeps every item's values: alpha fixed
        n_triangles=tris, n_repeats=int(n_repeats), seed=seed, level=level,
        min_shared=int(min_shared), procedure="composed", n_steps=int(n_steps),
    )
