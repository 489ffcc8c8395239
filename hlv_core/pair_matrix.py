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
    r"""Size of the pairwise structures of an annotation table, known before any is built.

    .. math:: \mathrm{pair\_instances} = \sum_i \binom{n_i}{2}, \quad
       \mathrm{pairs} = \min\Big(\mathrm{pair\_instances}, \binom{A}{2}\Big)

    (:math:`n_i` annotators of item i, A annotators): an upper bound of the annotator pairs
    sharing an item, i.e. of the rows of a pairwise alpha table (Krippendorff 2011, per pair).

    Attributes
    ----------
    n_annotators : int
    pair_instances : int
    pairs : int
    bytes : int
        ``pairs`` x the bytes of one pair row (property).

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
    >>> estimate_pairs(annotations)
    PairEstimate(n_annotators=4, pair_instances=55, pairs=6)
    """

    n_annotators: int
    pair_instances: int
    pairs: int

    @property
    def bytes(self) -> int:
        return self.pairs * PAIR_BYTES


def estimate_pairs(annotations: pd.DataFrame) -> PairEstimate:
    r""":class:`PairEstimate` of a long table, in one group-by over the rows.

    .. math:: \mathrm{pairs} = \min\Big(\sum_i \binom{n_i}{2}, \binom{A}{2}\Big)

    No pair is enumerated (the pairs of the two-row alphas of Krippendorff 2011).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id[, label]``.

    Returns
    -------
    PairEstimate

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
    >>> estimate_pairs(annotations).pairs
    6
    """
    cells = annotations[["item_id", "annotator_id"]].drop_duplicates()
    per_item = cells.groupby("item_id", observed=True, sort=False).size().to_numpy(np.int64)
    instances = int((per_item * (per_item - 1) // 2).sum())
    n = int(cells["annotator_id"].nunique())
    return PairEstimate(n_annotators=n, pair_instances=instances,
                        pairs=min(instances, n * (n - 1) // 2))


def check_pairs(annotations: pd.DataFrame, *, what: str = "pairwise agreement",
                source: str = "<dataset>") -> PairEstimate:
    r"""Refuse a pairwise computation whose pair table may exceed the limit.

    .. math:: \mathrm{pairs} \le \mathrm{HLV\_MAX\_PAIRS}

    (the estimate of :func:`estimate_pairs`); raises :class:`~hlv_core.io.DataError` with the
    estimate before anything is allocated.

    Parameters
    ----------
    annotations : pandas.DataFrame
    what : str, default "pairwise agreement"
        Named in the error.
    source : str, default "<dataset>"
        Named in the error.

    Returns
    -------
    PairEstimate

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
    >>> check_pairs(annotations).pair_instances
    55
    """
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
    r"""An annotator x annotator matrix and its display order.

    .. math:: M_{ab} = M_{ba} = \alpha_{ab} \text{ (or another pair value)}, \quad
       \mathrm{ids}_i = \mathrm{annotators}_{\mathrm{order}_i}

    (pairwise alpha of Krippendorff 2011, as drawn by Basile, section 3).

    Attributes
    ----------
    ids : list of str
        Annotators in display order.
    matrix : ndarray of shape (A, A)
        Values in that order (NaN without a pair).
    order : ndarray of shape (A,)
        Positions of ``ids`` in the requested annotator list.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Basile. "A Measure of Systematic Disagreement". Section 3 and Figure 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> from hlv_core.agreement import pairwise_alpha
    >>> pairwise_matrix(pairwise_alpha(annotations), list("ABCD")).ids
    ['C', 'A', 'B', 'D']
    """

    ids: list[str]
    matrix: np.ndarray
    order: np.ndarray

    def frame(self) -> pd.DataFrame:
        """The matrix as a DataFrame indexed and labelled by annotator id."""
        return pd.DataFrame(self.matrix, index=self.ids, columns=self.ids)


def most_active(annotations: pd.DataFrame, n: int, *, among: Sequence[str] | None = None
                ) -> list[str]:
    r"""The ``n`` annotators with the most distinct items, most active first.

    .. math:: \mathrm{activity}(a) = |\{u : a \text{ labelled } u\}|

    ties in pandas' stable order of first appearance; optionally restricted to ``among``
    afterwards (the rows of the pairwise heatmaps; Basile, section 3).

    Parameters
    ----------
    annotations : pandas.DataFrame
    n : int
    among : sequence of str, optional

    Returns
    -------
    list of str

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3 and Figure 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> most_active(annotations, 2)
    ['B', 'D']
    """
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
    r"""Leaf order of average-linkage clustering of an agreement matrix.

    .. math:: d_{ij} = \mathrm{clip}(1 - a_{ij}, 0, 2), \quad
       d(X, Y) = \frac{1}{|X||Y|} \sum_{x \in X, y \in Y} d_{xy} \text{ (UPGMA)}

    Sokal and Michener (1958), average linkage; missing values replaced by the mean of the defined
    ones, diagonal 0. Annotators who agree sit next to each other; fewer than 3: the given order.

    Parameters
    ----------
    matrix : ndarray of shape (A, A)
        Agreement values (e.g. pairwise alpha).

    Returns
    -------
    ndarray of shape (A,)
        Positions in display order.

    References
    ----------
    .. [1] Sokal and Michener (1958). "A statistical method for evaluating systematic
       relationships". University of Kansas Science Bulletin 38 (UPGMA).

    Examples
    --------
    >>> import numpy as np
    >>> print(cluster_order(np.array([[1, .1, .9], [.1, 1, .2], [.9, .2, 1]])))
    [1 0 2]
    """
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
    r"""Symmetric annotator x annotator matrix of a pair value and its display order.

    .. math:: M_{ab} = M_{ba} = \mathrm{pairs}[\mathrm{value}]_{(a,b)}

    (default ``alpha``: the two-row alpha of Krippendorff 2011, drawn as Basile's heatmap,
    section 3). Rows with NaN or unlisted annotators are ignored; cells without a row stay NaN.
    ``order="cluster"``: :func:`cluster_order`; ``"given"``: as listed.

    Parameters
    ----------
    pairs : pandas.DataFrame
        ``annotator_a, annotator_b, <value>``.
    annotators : sequence of str
    value : str, default "alpha"
    order : {"cluster", "given"}, default "cluster"

    Returns
    -------
    PairMatrix

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Basile. "A Measure of Systematic Disagreement". Section 3 and Figure 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> from hlv_core.agreement import pairwise_alpha
    >>> result = pairwise_matrix(pairwise_alpha(annotations), list("ABCD"), order="given")
    >>> print(result.matrix.round(2))
    [[ nan 0.85 0.49 0.86]
     [0.85  nan 0.56 0.88]
     [0.49 0.56  nan 0.63]
     [0.86 0.88 0.63  nan]]
    """
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
