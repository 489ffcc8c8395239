"""Annotator x annotator matrices of pairwise values (pairwise Krippendorff's alpha of
:func:`hlv_core.agreement.pairwise_alpha` or the edges of :func:`hlv_core.balance.sigma`) and
their display order: the heatmaps of the Agreement and Annotator graph pages, computed once.

Shapes: a pair table is long (one row per pair, columns ``annotator_a, annotator_b`` and a value
column); the matrix is (A, A), symmetric, NaN on the diagonal and where a pair has no value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from .io import DataError, check_limit, limit

__all__ = [
    "PairEstimate",
    "PairMatrix",
    "check_pairs",
    "cluster_order",
    "estimate_pairs",
    "most_active",
    "pairwise_matrix",
]

#: Bytes per annotator pair of a pair table and the sparse products behind it (ids, counts,
#: the disagreement sums and alpha as float64 / int64 columns, plus the co-occurrence matrix).
PAIR_BYTES = 96


@dataclass(frozen=True)
class PairEstimate:
    """Size of the pairwise structures of an annotations table, known before any is built:
    ``n_annotators`` A, ``pair_instances`` = sum over items of n_i (n_i - 1) / 2 (n_i the
    item's annotators), ``pairs`` = min(pair_instances, A (A - 1) / 2), an upper bound of the
    annotator pairs sharing an item (the rows of a pair table), and ``bytes`` = pairs x
    :data:`PAIR_BYTES`."""

    n_annotators: int
    pair_instances: int
    pairs: int

    @property
    def bytes(self) -> int:
        return self.pairs * PAIR_BYTES


def estimate_pairs(annotations: pd.DataFrame) -> PairEstimate:
    """:class:`PairEstimate` of a long ``item_id, annotator_id[, label]`` table: one group-by
    over the rows (O(rows)), no pair is enumerated."""
    cells = annotations[["item_id", "annotator_id"]].drop_duplicates()
    per_item = cells.groupby("item_id", observed=True, sort=False).size().to_numpy(np.int64)
    instances = int((per_item * (per_item - 1) // 2).sum())
    n = int(cells["annotator_id"].nunique())
    return PairEstimate(n_annotators=n, pair_instances=instances,
                        pairs=min(instances, n * (n - 1) // 2))


def check_pairs(annotations: pd.DataFrame, *, what: str = "pairwise agreement",
                source: str = "<dataset>") -> PairEstimate:
    """Refuse (:class:`~hlv_core.io.DataError`) before any pair table is allocated when the
    annotator pairs sharing an item may exceed the limit ``HLV_MAX_PAIRS``
    (:mod:`hlv_core.io.limits`); the message gives the estimate. Returns the estimate."""
    estimate = estimate_pairs(annotations)
    check_limit(
        "pairs", estimate.pairs,
        what=f"{what} of {estimate.n_annotators:,} annotators would need up to "
        f"{estimate.bytes / 2**20:,.0f} MiB for",
        source=source,
        fix="load a subset of the annotators or items (e.g. the most active annotators).",
    )
    return estimate


@dataclass(frozen=True)
class PairMatrix:
    """``ids``: the annotators in display order; ``matrix``: (A, A) values in that order;
    ``order``: positions of ``ids`` in the requested annotator list (``ids[i] ==
    annotators[order[i]]``)."""

    ids: list[str]
    matrix: np.ndarray
    order: np.ndarray

    def frame(self) -> pd.DataFrame:
        """The matrix as a DataFrame indexed and labelled by annotator id."""
        return pd.DataFrame(self.matrix, index=self.ids, columns=self.ids)


def most_active(annotations: pd.DataFrame, n: int, *, among: Sequence[str] | None = None
                ) -> list[str]:
    """The ``n`` annotators with the most distinct items (ties: pandas' stable order of first
    appearance), optionally restricted afterwards to ``among``: ``(A,)`` ids, most active first."""
    activity = annotations.groupby("annotator_id")["item_id"].nunique()
    shown = list(activity.sort_values(ascending=False).index[:n])
    if among is not None:
        keep = set(among)
        shown = [a for a in shown if a in keep]
    return shown


def _fill(pairs: pd.DataFrame, ids: Sequence, value: str) -> np.ndarray:
    idx = {a: i for i, a in enumerate(ids)}
    mat = np.full((len(ids), len(ids)), np.nan)
    sub = pairs[pairs["annotator_a"].isin(idx) & pairs["annotator_b"].isin(idx)]
    sub = sub[sub[value].notna()]
    ia = sub["annotator_a"].map(idx).to_numpy(dtype=np.int64)
    ib = sub["annotator_b"].map(idx).to_numpy(dtype=np.int64)
    mat[ia, ib] = sub[value].to_numpy(dtype=float)
    mat[ib, ia] = sub[value].to_numpy(dtype=float)
    return mat


def cluster_order(matrix: np.ndarray) -> np.ndarray:
    """Leaf order of average-linkage clustering (UPGMA) on the distance ``d_ij = clip(1 - a_ij,
    0, 2)`` (missing values replaced by the mean of the defined ones, diagonal 0): annotators who
    agree sit next to each other. Fewer than 3 annotators: the given order. ``(A,)`` positions."""
    n = matrix.shape[0]
    if n < 3:
        return np.arange(n)
    filled = np.where(np.isnan(matrix), np.nanmean(matrix), matrix)
    dist = np.clip(1.0 - filled, 0.0, 2.0)
    np.fill_diagonal(dist, 0.0)
    dist = (dist + dist.T) / 2.0
    return leaves_list(linkage(squareform(dist, checks=False), method="average"))


def pairwise_matrix(
    pairs: pd.DataFrame,
    annotators: Sequence[str],
    *,
    value: str = "alpha",
    order: str = "cluster",
) -> PairMatrix:
    """(A, A) symmetric matrix of ``pairs[value]`` over ``annotators`` and its display order.

    ``pairs``: one row per pair (``annotator_a, annotator_b, <value>``); rows whose value is NaN
    or whose annotators are not listed are ignored; cells without a row stay NaN (diagonal
    included). ``order="cluster"``: :func:`cluster_order`; ``"given"``: the order of
    ``annotators``. Filter ``pairs`` first to draw only some rows (e.g. the sigma edges,
    ``status == "edge"``)."""
    if order not in ("cluster", "given"):
        raise ValueError(f"order must be 'cluster' or 'given'; got {order!r}.")
    ids = list(annotators)
    if len(ids) * (len(ids) - 1) // 2 > limit("pairs"):  # a dense (A, A) matrix
        raise DataError(
            f"a {len(ids):,} x {len(ids):,} matrix of pairs ({len(ids) ** 2 * 8 / 2**20:,.0f} "
            f"MiB) is over the limit of {limit('pairs'):,} pairs (HLV_MAX_PAIRS).",
            source="<pairwise matrix>",
            fix="show fewer annotators (e.g. the most active), or set the environment "
            "variable HLV_MAX_PAIRS higher if the machine has the memory.")
    mat = _fill(pairs, ids, value)
    positions = cluster_order(mat) if order == "cluster" else np.arange(len(ids))
    return PairMatrix(ids=[ids[i] for i in positions], matrix=mat[np.ix_(positions, positions)],
                      order=np.asarray(positions))
