"""Structural balance of the annotator graph: Basile's systematicity sigma and its baseline.

Source: Basile, "A Measure of Systematic Disagreement", sections 3 and 4.1; the choices the paper
leaves open (``min_shared``, undefined pairwise alpha, the sigma_rnd reading) are stated in
``docs/conventions.md`` (agreement and systematicity sigma).

Definitions (Basile):

* alpha = Krippendorff's alpha of all annotations; alpha_ij = alpha of annotators i and j on the
  items both labelled (``hlv_core.agreement``; never recomputed here).
* Signed annotator graph: edge (i, j) with sign ``+`` iff alpha_ij >= alpha (exact ties up to
  ``SIGN_TIE_TOL`` rounding are ``+``), ``-`` otherwise.
  Pairs sharing fewer than ``min_shared`` items and pairs with undefined alpha_ij get no edge;
  both are counted and reported.
* A triangle is balanced iff the product of its three signs is +1.
  sigma = #balanced / #triangles (NaN, with an explanation, when there is no triangle).
* Triangles are counted with trace identities (Basile), never by enumeration: with S the
  signed adjacency and ``A = |S|``, ``tr(A^3) = 6 T`` and ``tr(S^3) = 6 (B - U)``, so
  ``B = (tr A^3 + tr S^3) / 12`` and ``U = (tr A^3 - tr S^3) / 12``. The traces are sums of the
  elementwise products (A A) o A and (S S) o S, so the cube is never formed.
* sigma_rnd (paper 4.1): one split-and-shuffle step splits the items at random into two
  halves (first floor(N/2) of a random permutation) and permutes the annotator rows
  independently inside each half; this keeps every item's multiset of values, hence alpha,
  exactly. Default (``procedure="composed"``): each of 10 matrices A_rnd composes 10 such steps,
  the reading that reproduces Basile's Table 2; ``procedure="one_step"`` is the other reading.
* Paper conventions by default: ``min_shared=1`` (pairs sharing no item get no edge), undefined
  alpha_ij = no edge; ``min_shared=2`` is the robust deviation, labelled as such in the UI.

Camps (Cartwright & Harary 1956): a signed graph whose cycles are all balanced splits into at most
two camps with ``+`` edges inside and ``-`` edges across. :func:`camps` returns that partition when
it exists, otherwise the sign pattern of the leading eigenvector of S refined by greedy single
node moves, and its frustration (number of edges that violate the partition).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from hlv_core._compiled import kernels
from hlv_core.io import LEVELS as IO_LEVELS
from hlv_core.io import DataError, Dataset

__all__ = [
    "DEFAULT_STEPS",
    "PAPER_MIN_SHARED",
    "PAPER_TABLE2",
    "PROCEDURES",
    "CampsResult",
    "RandomSigmaResult",
    "SIGMA_MAX_PAIR_INSTANCES",
    "SIGN_TIE_TOL",
    "SigmaCost",
    "SigmaResult",
    "TriangleCounts",
    "apply_shuffle",
    "camp_trait_table",
    "camps",
    "collapse_label_sets",
    "compare_datasets",
    "conventions_note",
    "count_triangles",
    "check_sigma_cost",
    "edge_signs",
    "estimate_sigma_cost",
    "graphml_bytes",
    "heatmap_annotators",
    "shuffle_annotations",
    "sigma",
    "sigma_random",
    "signed_adjacency",
    "strongest_edges",
    "to_networkx",
]

LEVELS = IO_LEVELS  # the one tuple of levels of measurement (hlv_core.io)
#: sigma_rnd readings (Basile): "composed" (default, reproduces Basile's Table 2) and "one_step"
PROCEDURES = ("composed", "one_step")
#: split-and-shuffle steps composed into one A_rnd by default (paper 4.1.2 reading (b))
DEFAULT_STEPS = 10
#: the paper's min_shared (``docs/conventions.md``, sigma ``min_shared``); 2 is the labelled
#: robust deviation
PAPER_MIN_SHARED = 1
#: Relative tolerance of the edge-sign comparison: alpha_ij and alpha are computed by different
#: sums (closed form per pair, coincidences overall), so an exact tie alpha_ij = alpha can come
#: out a few ulp apart; ties count as "+" (``docs/conventions.md``, sigma edge sign), so an
#: alpha_ij within this tolerance below alpha is a tie.
SIGN_TIE_TOL = 1e-12
#: Default size limit of :func:`sigma` / :func:`sigma_random`: (item, annotator pair) instances,
#: ``sum_i n_i (n_i - 1) / 2``, an upper bound on the overlapping annotator pairs. Every pair
#: gets a pairwise alpha, possibly an edge and triangle work. Measured peak above the loaded
#: data: ~200 bytes per instance where every instance is a pair of its own (3 M rows, 15.0 M
#: instances = 15.0 M pairs: +2.78 GiB; the pair and edge tables and the triangle enumeration
#: dominate), 26 bytes where pairs share many items (10 M crowd rows, 50.0 M instances, 1.35 M
#: pairs: +1.21 GiB; packed instance keys, 8 bytes each, and their sort). The limit takes the
#: worst case: a 24 GiB machine less ~4 GiB for the interpreter, the loaded data and the page
#: leaves 20 GiB, 20 GiB / 200 bytes = 107 M, rounded down to 100 M instances (~18.6 GiB;
#: docs/scaling.md). Override with ``max_pair_instances``.
SIGMA_MAX_PAIR_INSTANCES = 100_000_000
#: Graphs with at most this many nodes, or denser than DENSE_FRACTION, use dense BLAS products.
DENSE_NODES = 300
DENSE_FRACTION = 0.05


# ---------------------------------------------------------------------------------- triangles
@dataclass(frozen=True)
class TriangleCounts:
    r"""Balanced and unbalanced triangle counts of a signed graph.

    .. math:: T = \tfrac16 \textstyle\sum (A A) \circ A, \quad B - U = \tfrac16 \sum (S S) \circ S

    Basile, section 3 (a triangle is balanced when the product of its signs is +); see
    :func:`count_triangles`.

    Attributes
    ----------
    n_triangles, n_balanced, n_unbalanced : int
    node_balanced, node_unbalanced : ndarray of shape (n,)
        Triangles through each node (adjacency row order).
    edge_rows, edge_cols : ndarray of shape (E,)
        Every edge once (row < col).
    edge_balanced, edge_unbalanced : ndarray of shape (E,)
        Triangles through each edge.

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.
    .. [2] Cartwright and Harary (1956). "Structural balance: a generalization of Heider's
       theory". Psychological Review 63(5).

    Examples
    --------
    >>> import numpy as np
    >>> S = signed_adjacency(3, np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([1, -1, -1]))
    >>> counts = count_triangles(S)
    >>> print(counts.n_triangles, counts.n_balanced, counts.edge_balanced)
    1 1 [1 1 1]
    """

    n_triangles: int
    n_balanced: int
    n_unbalanced: int
    node_balanced: np.ndarray
    node_unbalanced: np.ndarray
    edge_rows: np.ndarray
    edge_cols: np.ndarray
    edge_balanced: np.ndarray
    edge_unbalanced: np.ndarray

    @property
    def sigma(self) -> float:
        """B / T, NaN when there is no triangle."""
        return self.n_balanced / self.n_triangles if self.n_triangles else math.nan


def _check_signed(S) -> sp.csr_matrix | np.ndarray:
    if sp.issparse(S):
        S = sp.csr_matrix(S)
        values = S.data
        diag = S.diagonal()
        asym = abs(S - S.T).sum() if S.nnz else 0
    else:
        S = np.asarray(S)
        if S.ndim != 2:
            raise ValueError("signed adjacency must be a square 2-D matrix")
        values = S
        diag = np.diag(S) if S.shape[0] == S.shape[1] else np.zeros(0)
        asym = np.abs(S - S.T).sum() if S.shape[0] == S.shape[1] else 1
    if S.shape[0] != S.shape[1]:
        raise ValueError(f"signed adjacency must be square, got shape {S.shape}")
    if not np.isin(values, (-1, 0, 1)).all():
        raise ValueError("signed adjacency entries must be -1, 0 or +1")
    if np.any(diag != 0):
        raise ValueError("signed adjacency must have a zero diagonal (no self-loops)")
    if asym != 0:
        raise ValueError("signed adjacency must be symmetric")
    return S


#: Wedges (pairs of out-edges of one node) checked per block of the triangle enumeration.
_WEDGE_BLOCK = 1 << 23


def _edge_triangle_sums(n: int, rows: np.ndarray, cols: np.ndarray, signs: np.ndarray):
    """Per edge (rows[e] < cols[e]) the entries of X2 = (A A) o A and Y2 = (S S) o S at e: the
    number of triangles through e and the sum over them of their sign products.

    Every triangle is enumerated once (edge-iterator with degree ordering, Schank & Wagner 2005):
    nodes are relabelled by their (degree, id) rank, edges point from the lower to the higher
    rank, each node's out-neighbours (at most sqrt(2E) of them) are paired, and a pair (v, w)
    closes a triangle when the edge v -> w exists. The closing edges of a block of wedges are
    found by one sort of their packed (key, wedge) codes and a search of the sorted needles in
    the sorted edge keys (a hash lookup where the codes would not fit in int64). Work
    sum_u C(d_out(u), 2) wedges in blocks, instead of the sum_v d_v^2 products of A A and S S;
    integer results equal to the products'."""
    E = len(rows)
    ex = np.zeros(E, dtype=np.int64)
    ey = np.zeros(E, dtype=np.int64)
    if E < 3:
        return ex, ey
    deg = np.bincount(rows, minlength=n) + np.bincount(cols, minlength=n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(deg, kind="stable")] = np.arange(n)  # by degree, ties by id
    rr, rc = rank[rows], rank[cols]
    src, dst = np.minimum(rr, rc), np.maximum(rr, rc)  # oriented low -> high rank, rank labels
    del rr, rc, rank
    compiled = kernels(E) if E < 2**31 and n < 2**31 else None
    if compiled is not None:  # the compiled forward enumeration (numba): same integers
        bal, unb = compiled.triangle_sums(
            n, src, dst, np.ascontiguousarray(signs, dtype=np.int64))
        return bal + unb, bal - unb
    if n < 2**31:  # out-lists by source, targets ascending: the sorted oriented keys
        key = src * n + dst
        order = np.argsort(key)
        key = key[order]
    else:
        order = np.lexsort((dst, src))
        key = None
    src, dst, sgn = src[order], dst[order], signs[order]
    node_bits = max(n - 1, 1).bit_length()
    block_bits = max(_WEDGE_BLOCK - 1, 1).bit_length()
    packed = key is not None and 2 * node_bits + block_bits <= 62
    lookup = None if packed else pd.Index(src * n + dst)  # oriented edge key -> position
    out_deg = np.bincount(src, minlength=n)
    start = np.cumsum(out_deg) - out_deg
    later = out_deg[src] - 1 - (np.arange(E) - start[src])  # out-edges after me, same source
    cum = np.cumsum(later)
    counts = np.zeros(2 * E, dtype=np.int64)  # per edge: balanced, unbalanced triangles
    index = np.int32 if E < 2**30 and _WEDGE_BLOCK < 2**30 else np.int64  # edge / wedge ids
    first_edge = 0
    while first_edge < E:  # blocks of whole edges, about _WEDGE_BLOCK wedges each
        base = cum[first_edge - 1] if first_edge else 0
        last = int(np.searchsorted(cum, base + _WEDGE_BLOCK, side="right"))
        last = min(max(last, first_edge + 1), E)
        ids = np.arange(first_edge, last, dtype=index)
        cnt = later[first_edge:last]
        e1 = np.repeat(ids, cnt)  # wedge j of edge e: e2 = e + 1 + (j - first wedge of e)
        e2 = np.arange(len(e1), dtype=index)
        e2 -= np.repeat((np.cumsum(cnt) - cnt - ids - 1).astype(index), cnt)
        query = dst[e1] * n + dst[e2]  # the closing edge v -> w
        if packed and len(query) < 2**block_bits:
            code = query << block_bits
            code |= np.arange(len(query), dtype=np.int64)
            code.sort()
            wedge = code & ((1 << block_bits) - 1)
            code >>= block_bits  # the queries, sorted
            e3 = np.minimum(np.searchsorted(key, code), E - 1)
            hit = key[e3] == code
            e3, wedge = e3[hit], wedge[hit]
            e1, e2 = e1[wedge], e2[wedge]
        else:
            if lookup is None:  # a block past the packed width (one node's many wedges)
                lookup = pd.Index(src * n + dst)
            e3 = lookup.get_indexer(query)
            hit = e3 >= 0
            e1, e2, e3 = e1[hit], e2[hit], e3[hit]
        unbalanced = (sgn[e1] * sgn[e2] * sgn[e3] < 0).astype(index)
        counts += np.bincount(
            np.concatenate([2 * e1 + unbalanced, 2 * e2 + unbalanced, 2 * e3 + unbalanced]),
            minlength=2 * E,
        )
        first_edge = last
    bal, unb = counts[0::2], counts[1::2]
    ex[order] = bal + unb
    ey[order] = bal - unb
    return ex, ey


def count_triangles(S, *, dense: bool | None = None) -> TriangleCounts:
    r"""Count balanced and unbalanced triangles of a signed graph by trace identities.

    .. math:: X_2 = (A A) \circ A, \; Y_2 = (S S) \circ S, \quad T = \frac{\sum X_2}{6}, \quad
       B - U = \frac{\sum Y_2}{6}, \quad B_v = \frac{(X_2 \mathbf{1} + Y_2 \mathbf{1})_v}{4}

    with :math:`A = |S|` and :math:`\circ` the elementwise product; per edge
    :math:`B_e = (X_2 + Y_2)_{ij} / 2`. Basile, section 3 (a triangle is balanced iff the product
    of its three signs is +1; Cartwright and Harary 1956). No enumeration; exact integers.

    Parameters
    ----------
    S : ndarray or scipy.sparse matrix of shape (n, n)
        Symmetric signed adjacency, entries in {-1, 0, +1}, zero diagonal.
    dense : bool, optional
        Force dense BLAS or sparse products (default: chosen by size and density).

    Returns
    -------
    TriangleCounts

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.
    .. [2] Cartwright and Harary (1956). "Structural balance: a generalization of Heider's
       theory". Psychological Review 63(5).

    Examples
    --------
    A ``+ - -`` triangle is balanced:

    >>> import numpy as np
    >>> S = np.array([[0, 1, -1], [1, 0, -1], [-1, -1, 0]])
    >>> counts = count_triangles(S)
    >>> print(counts.n_triangles, counts.n_balanced, counts.n_unbalanced)
    1 1 0
    """
    return _count_checked_triangles(_check_signed(S), dense)


def _count_checked_triangles(S, dense: bool | None) -> TriangleCounts:
    """:func:`count_triangles` of a valid signed adjacency (``_check_signed``'s output, or
    :func:`signed_adjacency`'s, which is valid by construction)."""
    n = S.shape[0]
    nnz = S.nnz if sp.issparse(S) else int(np.count_nonzero(S))
    if nnz == 0:
        zeros = np.zeros(n, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        return TriangleCounts(0, 0, 0, zeros, zeros.copy(), none, none, none, none.copy())
    if dense is None:
        dense = n <= DENSE_NODES or (n > 0 and nnz / (n * n) > DENSE_FRACTION)
    if dense:
        # float32 products are exact: every entry of A A or S S is an integer of magnitude <= n.
        ftype = np.float32 if n < 2**24 else np.float64
        Sd = S.toarray() if sp.issparse(S) else S
        Sd = Sd.astype(ftype)
        Ad = np.abs(Sd)
        X2 = np.rint((Ad @ Ad) * Ad).astype(np.int64)
        Y2 = np.rint((Sd @ Sd) * Sd).astype(np.int64)
        rows, cols = np.nonzero(np.triu(Sd, 1))
        ex, ey = X2[rows, cols], Y2[rows, cols]
        node_x, node_y = X2.sum(axis=1), Y2.sum(axis=1)
    else:
        upper = sp.triu(S, 1).tocoo()
        rows, cols = upper.row.astype(np.int64), upper.col.astype(np.int64)
        ex, ey = _edge_triangle_sums(n, rows, cols, upper.data.astype(np.int64))
        node_x = np.bincount(rows, weights=ex, minlength=n) + np.bincount(
            cols, weights=ex, minlength=n)
        node_y = np.bincount(rows, weights=ey, minlength=n) + np.bincount(
            cols, weights=ey, minlength=n)
        node_x, node_y = np.rint(node_x).astype(np.int64), np.rint(node_y).astype(np.int64)
    tr_a3 = int(node_x.sum())
    tr_s3 = int(node_y.sum())
    balanced = (tr_a3 + tr_s3) // 12
    unbalanced = (tr_a3 - tr_s3) // 12
    # edges by (row, col): usually already so (both paths list them row by row); else one
    # stable argsort of the key row * n + col (the order of np.lexsort((cols, rows)))
    if n < 2**31:
        key = rows.astype(np.int64) * n + cols
        order = None if bool(np.all(key[1:] > key[:-1])) else np.argsort(key, kind="stable")
    else:
        order = np.lexsort((cols, rows))
    if order is not None:
        rows, cols, ex, ey = rows[order], cols[order], ex[order], ey[order]
    return TriangleCounts(
        n_triangles=tr_a3 // 6,
        n_balanced=balanced,
        n_unbalanced=unbalanced,
        node_balanced=(node_x + node_y) // 4,
        node_unbalanced=(node_x - node_y) // 4,
        edge_rows=rows,
        edge_cols=cols,
        edge_balanced=(ex + ey) // 2,
        edge_unbalanced=(ex - ey) // 2,
    )


def edge_signs(pair_alpha: np.ndarray, alpha: float) -> np.ndarray:
    r"""Edge signs of the annotator graph: + when the pair's alpha is at least the overall alpha.

    .. math:: s_{ij} = +1 \iff \alpha_{ij} \ge \alpha - \varepsilon \max(1, |\alpha|), \quad
       \varepsilon = 10^{-12}

    Basile, section 3: ties count as + (``SIGN_TIE_TOL`` absorbs the rounding of exact ties).

    Parameters
    ----------
    pair_alpha : ndarray of shape (E,)
        Defined pairwise alphas.
    alpha : float
        Overall alpha.

    Returns
    -------
    ndarray of int8, +1 or -1

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    >>> import numpy as np
    >>> edge_signs(np.array([0.5, 0.3, 0.3 - 1e-16, 0.2]), 0.3).tolist()
    [1, 1, 1, -1]
    """
    tol = SIGN_TIE_TOL * max(1.0, abs(float(alpha)))
    return np.where(np.asarray(pair_alpha, dtype=float) >= alpha - tol, 1, -1).astype(np.int8)


def signed_adjacency(
    n: int, rows: np.ndarray, cols: np.ndarray, signs: np.ndarray
) -> sp.csr_matrix:
    r"""Symmetric sparse signed adjacency from an edge list.

    .. math:: S_{ij} = S_{ji} = s_{ij} \in \{-1, +1\} \text{ for every edge } (i, j), \quad 0 \text{ otherwise}

    the signed annotator graph of Basile, section 3.

    Parameters
    ----------
    n : int
        Number of nodes.
    rows, cols : ndarray of shape (E,)
        End points of every edge (each edge once, any order).
    signs : ndarray of shape (E,)
        +1 or -1.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    >>> import numpy as np
    >>> S = signed_adjacency(3, np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([1, -1, -1]))
    >>> print(S.toarray())
    [[ 0  1 -1]
     [ 1  0 -1]
     [-1 -1  0]]
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    signs = np.asarray(signs, dtype=np.int8)
    if np.any(rows == cols):
        raise ValueError("self-loops are not allowed in the annotator graph")
    data = np.concatenate([signs, signs])
    S = sp.coo_matrix(
        (data, (np.concatenate([rows, cols]), np.concatenate([cols, rows]))), shape=(n, n)
    ).tocsr()
    if S.nnz != 2 * len(rows):
        raise ValueError("duplicate edges in the edge list")
    return S


# ---------------------------------------------------------------------------------- sigma
@dataclass
class SigmaResult:
    r"""Result of :func:`sigma`.

    .. math:: \sigma = \frac{\#\text{balanced triangles}}{\#\text{triangles}}, \quad
       s_{ij} = \begin{cases} + & \alpha_{ij} \ge \alpha \\ - & \alpha_{ij} < \alpha \end{cases}

    Basile, section 3.

    Attributes
    ----------
    alpha : float
        Overall Krippendorff's alpha (all annotations).
    sigma : float
        ``n_balanced / n_triangles``; NaN when there is no triangle (see ``explanation``).
    n_balanced, n_unbalanced, n_triangles : int
    edges : pandas.DataFrame
        One row per edge: ``annotator_a, annotator_b, n_shared, alpha, sign, balanced,
        unbalanced`` (triangles through the edge).
    pairs : pandas.DataFrame
        Every pair sharing an item: ``annotator_a, annotator_b, n_shared, alpha, status``
        (``edge | too_few_shared | undefined_alpha``).
    nodes : pandas.DataFrame
        ``annotator_id, n_annotations, degree, n_pos, n_neg, balanced, unbalanced``.
    n_pairs_overlapping, n_dropped_min_shared, n_dropped_undefined : int
    n_pos_edges, n_neg_edges : int
    explanation : str or None
        Why sigma is NaN (None when defined).

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> print(result.n_pos_edges, result.n_neg_edges, result.n_triangles)
    3 3 4
    """

    alpha: float
    sigma: float
    n_balanced: int
    n_unbalanced: int
    n_triangles: int
    edges: pd.DataFrame
    pairs: pd.DataFrame
    nodes: pd.DataFrame
    n_pairs_overlapping: int
    n_dropped_min_shared: int
    n_dropped_undefined: int
    n_pos_edges: int
    n_neg_edges: int
    level: str
    min_shared: int
    explanation: str | None = None
    adjacency: sp.csr_matrix | None = field(default=None, repr=False)

    @property
    def annotators(self) -> pd.Index:
        """Node order of :attr:`adjacency`."""
        return pd.Index(self.nodes["annotator_id"])

    def summary(self) -> dict:
        """Plain-number summary (for JSON export and the CLI)."""
        return {
            "alpha": _num(self.alpha),
            "sigma": _num(self.sigma),
            "n_balanced": self.n_balanced,
            "n_unbalanced": self.n_unbalanced,
            "n_triangles": self.n_triangles,
            "n_annotators": len(self.nodes),
            "n_pos_edges": self.n_pos_edges,
            "n_neg_edges": self.n_neg_edges,
            "n_pairs_overlapping": self.n_pairs_overlapping,
            "n_dropped_min_shared": self.n_dropped_min_shared,
            "n_dropped_undefined": self.n_dropped_undefined,
            "level": self.level,
            "min_shared": self.min_shared,
            "explanation": self.explanation,
        }


def _num(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _check_annotations(
    annotations: pd.DataFrame, level: str, min_shared: int, multilabel: str = "error"
) -> tuple[pd.DataFrame, bool]:
    """The long table to analyse and whether one label per cell is already known."""
    one_label_per_cell = False
    if isinstance(annotations, Dataset):
        # the loader refuses several labels in one (item, annotator) cell unless the task is
        # multilabel (or ranking): no second duplicate check of millions of rows here
        one_label_per_cell = annotations.task in ("multiclass", "rating") and multilabel == "error"
        annotations = annotations.annotations
    if not isinstance(annotations, pd.DataFrame):
        raise TypeError("annotations must be a long DataFrame (item_id, annotator_id, label)")
    missing = {"item_id", "annotator_id", "label"} - set(annotations.columns)
    if missing:
        raise DataError(
            f"annotations lack the column(s) {sorted(missing)}.",
            source="annotations",
            fix="pass a long table with columns item_id, annotator_id, label.",
        )
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if int(min_shared) != min_shared or min_shared < 1:
        raise ValueError(f"min_shared must be an integer >= 1, got {min_shared!r}")
    if multilabel not in ("error", "set"):
        raise ValueError(f"multilabel must be 'error' or 'set', got {multilabel!r}")
    if multilabel == "set":
        if level != "nominal":
            raise ValueError("multilabel='set' makes nominal values; use level='nominal'")
        annotations = collapse_label_sets(annotations)
    if one_label_per_cell:  # a multiclass / rating Dataset: its loader refused such cells
        return annotations, True
    dup = annotations.duplicated(["item_id", "annotator_id"])
    if dup.any():
        first = annotations.loc[dup, ["item_id", "annotator_id"]].iloc[0]
        raise DataError(
            f"{int(dup.sum())} (item, annotator) cells hold more than one label (first: item "
            f"{first['item_id']!r}, annotator {first['annotator_id']!r}); Krippendorff's alpha "
            "needs one value per cell.",
            source="annotations",
            fix="for multi-label data pass multilabel='set' (each annotator's label set becomes one "
            "nominal value), or keep one label per cell.",
        )
    return annotations, False


def collapse_label_sets(annotations: pd.DataFrame, *, sep: str = "+") -> pd.DataFrame:
    r"""One row per (item, annotator): a multi-label cell becomes one nominal value.

    .. math:: x_{ua} = \mathrm{join}_{\mathrm{sep}}\big(\mathrm{sorted}(\{\text{labels of } a \text{ on } u\})\big)

    so that Krippendorff's alpha and Basile's sigma (section 3), which need one value per cell,
    apply to multi-label data (nominal level only).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id, label`` table, several rows per cell allowed.
    sep : str, default "+"
        Joiner of the sorted labels.

    Returns
    -------
    pandas.DataFrame
        ``item_id, annotator_id, label``.

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.
    .. [2] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"item_id": ["i1", "i1", "i1"], "annotator_id": ["a", "a", "b"],
    ...                       "label": ["neutral", "contradiction", "neutral"]})
    >>> print(collapse_label_sets(cells).to_string(index=False))
    item_id annotator_id                 label
         i1            a contradiction+neutral
         i1            b               neutral
    """
    if isinstance(annotations, Dataset):
        annotations = annotations.annotations
    frame = annotations[["item_id", "annotator_id", "label"]].astype(str)
    frame = frame.drop_duplicates().sort_values(["item_id", "annotator_id", "label"])
    cell = ["item_id", "annotator_id"]
    several = frame.duplicated(cell, keep=False).to_numpy()
    if not several.any():  # one label per cell (single-label data): nothing to join
        return frame.reset_index(drop=True)
    # only the cells with several labels are joined in Python; the rest keep their label
    joined = frame[several].groupby(cell, sort=False)["label"].agg(sep.join).reset_index()
    out = pd.concat([frame[~several], joined], ignore_index=True)
    return out.sort_values(cell, kind="stable", ignore_index=True)


def _prepare(annotations: pd.DataFrame, level: str, values=None, cells_checked: bool = False):
    """Integer-coded annotations for every alpha of sigma (``hlv_core.agreement``), done once;
    ``cells_checked``: one label per cell is known (no second duplicate check)."""
    from hlv_core.agreement import prepare_alpha_input

    return prepare_alpha_input(annotations, level=level, values=values,
                               cells_checked=cells_checked)


#: pair status codes (``SigmaResult.pairs["status"]``)
_STATUS = np.array(["edge", "too_few_shared", "undefined_alpha"])


@dataclass
class _Core:
    alpha: float
    pairs: object  # hlv_core.agreement.PairAlpha (all overlapping pairs, integer codes)
    status: np.ndarray  # 0 edge, 1 too few shared items, 2 undefined alpha_ij
    rows: np.ndarray
    cols: np.ndarray
    signs: np.ndarray
    S: sp.csr_matrix
    counts: TriangleCounts


def _sigma_core(data, min_shared: int) -> _Core:
    """alpha, pairwise alpha (one preparation, integer codes), signed graph, triangle counts.

    ``data`` is a prepared ``hlv_core.agreement.AlphaInput``; node v of the graph is annotator
    code v (``data.annotator_ids[v]``)."""
    from hlv_core.agreement import alpha_and_pairwise_codes

    # min_shared=1: every overlapping pair gets its alpha, so pairs below min_shared are counted
    alpha, pairs = alpha_and_pairwise_codes(data, min_shared=1)
    too_few = pairs.n_shared < min_shared
    undefined = ~too_few & ~np.isfinite(pairs.alpha)
    status = np.where(too_few, 1, np.where(undefined, 2, 0)).astype(np.int8)
    keep = status == 0
    rows, cols = pairs.a[keep], pairs.b[keep]
    # pitfall (``docs/conventions.md``, undefined pairwise alpha): a NaN alpha_ij must never become a "-" edge; those pairs were removed above.
    signs = edge_signs(pairs.alpha[keep], alpha)
    S = signed_adjacency(data.n_annotators, rows, cols, signs)
    counts = _count_checked_triangles(S, None)  # symmetric, +-1, no self-loop by construction
    return _Core(alpha, pairs, status, rows, cols, signs, S, counts)


def _explain_nan(n_annotators: int, n_edges: int, n_dropped: int, min_shared: int) -> str:
    if n_annotators < 3:
        return f"sigma is undefined: {n_annotators} annotator(s); a triangle needs 3."
    msg = (
        f"sigma is undefined: the signed graph ({n_annotators} annotators, {n_edges} edges) has "
        "no triangle (no three annotators who pairwise share items)."
    )
    if n_dropped:
        msg += (
            f" {n_dropped} pair(s) were dropped (fewer than min_shared={min_shared} shared items "
            "or undefined pairwise alpha); a lower min_shared may close triangles."
        )
    return msg


def sigma(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    min_shared: int = PAPER_MIN_SHARED,
    values: Mapping | list | None = None,
    multilabel: str = "error",
    max_pair_instances: int | None = SIGMA_MAX_PAIR_INSTANCES,
) -> SigmaResult:
    r"""Basile's systematicity sigma of an annotation table.

    .. math:: \sigma = \frac{\#\text{balanced triangles}}{\#\text{triangles}}, \quad
       s_{ij} = \begin{cases} + & \alpha_{ij} \ge \alpha \\ - & \alpha_{ij} < \alpha \end{cases}

    Basile, section 3: :math:`\alpha` is Krippendorff's alpha of all annotations and
    :math:`\alpha_{ij}` that of the two-row sub-matrix of annotators i and j; a triangle is
    balanced when the product of its three signs is +1. Pairs sharing fewer than ``min_shared``
    items (default 1, the paper's convention: reproduces MD-Agreement's .494 of Table 2) or with an
    undefined :math:`\alpha_{ij}` get no edge (both counted). Triangles are counted with trace
    identities (:func:`count_triangles`). The Annotator graph screen's sigma.

    Parameters
    ----------
    annotations : pandas.DataFrame or hlv_core.io.Dataset
        Long table ``item_id, annotator_id, label``, one label per cell.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement of every alpha.
    min_shared : int, default 1
        Minimum shared items for an edge (2 is the robust option).
    values : mapping or list, optional
        Numbers of the labels for non-nominal levels.
    multilabel : {"error", "set"}, default "error"
        ``"set"``: label sets become one nominal value (:func:`collapse_label_sets`).
    max_pair_instances : int or None
        Refuse larger data up front (``DataError``); None = no limit.

    Returns
    -------
    SigmaResult

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3; Table 2.
    .. [2] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
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
    >>> result = sigma(annotations)
    >>> print(round(result.alpha, 3), result.sigma, result.n_balanced, result.n_triangles)
    0.743 1.0 4 4
    """
    annotations, checked = _check_annotations(annotations, level, min_shared, multilabel)
    check_sigma_cost(estimate_sigma_cost(annotations), max_pair_instances)
    data = _prepare(annotations, level, values, checked)
    core = _sigma_core(data, min_shared)
    counts = core.counts
    ids = pd.Index(data.annotator_ids, name="annotator_id")
    n = len(ids)
    S = core.S
    n_pos = np.asarray((S > 0).sum(axis=1)).ravel()
    n_neg = np.asarray((S < 0).sum(axis=1)).ravel()
    n_ann = np.bincount(data.annotator, minlength=n)
    nodes = pd.DataFrame(
        {
            "annotator_id": ids.to_numpy(),
            "n_annotations": n_ann.astype(np.int64),
            "degree": (n_pos + n_neg).astype(np.int64),
            "n_pos": n_pos.astype(np.int64),
            "n_neg": n_neg.astype(np.int64),
            "balanced": counts.node_balanced,
            "unbalanced": counts.node_unbalanced,
        }
    )
    pairs = core.pairs.frame(ids)
    keep = core.status == 0
    kept = pairs[keep].reset_index(drop=True)
    edges = pd.DataFrame(
        {
            "annotator_a": kept["annotator_a"],
            "annotator_b": kept["annotator_b"],
            "n_shared": kept["n_shared"].astype(np.int64),
            "alpha": kept["alpha"].astype(float),
            "sign": core.signs.astype(np.int64),
        }
    )
    # edges are sorted by (a, b) codes with a < b, the order of count_triangles' per-edge counts
    if not (np.array_equal(counts.edge_rows, core.rows) and np.array_equal(counts.edge_cols, core.cols)):
        raise RuntimeError("edge order of count_triangles differs from the pair order")
    edges["balanced"] = counts.edge_balanced
    edges["unbalanced"] = counts.edge_unbalanced
    # the three words as one string array, taken per pair (no string per pair to convert:
    # 3.0 -> 0.2 s for 7.7 M pairs; same values and dtype)
    pairs["status"] = pd.Series(_STATUS, dtype=str).array.take(core.status.astype(np.intp))
    n_drop_min = int((core.status == 1).sum())
    n_drop_undef = int((core.status == 2).sum())
    value = counts.sigma
    explanation = None
    if math.isnan(value):
        explanation = _explain_nan(n, len(edges), n_drop_min + n_drop_undef, min_shared)
    return SigmaResult(
        alpha=core.alpha,
        sigma=value,
        n_balanced=counts.n_balanced,
        n_unbalanced=counts.n_unbalanced,
        n_triangles=counts.n_triangles,
        edges=edges,
        pairs=pairs,
        nodes=nodes,
        n_pairs_overlapping=len(pairs),
        n_dropped_min_shared=n_drop_min,
        n_dropped_undefined=n_drop_undef,
        n_pos_edges=int((core.signs > 0).sum()),
        n_neg_edges=int((core.signs < 0).sum()),
        level=level,
        min_shared=int(min_shared),
        explanation=explanation,
        adjacency=S,
    )


# ------------------------------------------------------------------------- cost and refusal
#: Working memory per pair instance at the peak of sigma, worst case (every instance its own
#: pair: pair statistics, pair and edge tables, triangle enumeration), in bytes: measured on
#: 3 M rows (15.0 M instances, +2.78 GiB).
_BYTES_PER_INSTANCE = 200
#: Working memory per annotation row (codes and their sort), in bytes.
_BYTES_PER_ROW = 48


@dataclass(frozen=True)
class SigmaCost:
    r"""Up-front size of a sigma run, from the item and annotator codes only.

    .. math:: \mathrm{pair\_instances} = \sum_i \binom{n_i}{2}, \quad
       \mathrm{triangle\_work} = \sum_v d_v^2

    (:math:`n_i` annotators of item i; :math:`d_v` the upper bound on annotator v's degree) for
    the pairwise alphas and the triangle count of Basile, section 3.

    Attributes
    ----------
    n_annotations, n_items, n_annotators : int
    pair_instances : int
    triangle_work : float
    memory_bytes : int
        Estimated working memory.

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> estimate_sigma_cost(annotations).pair_instances
    55
    """

    n_annotations: int
    n_items: int
    n_annotators: int
    pair_instances: int
    triangle_work: float
    memory_bytes: int

    def describe(self) -> str:
        return (
            f"{self.n_annotations:,} annotations, {self.n_items:,} items, "
            f"{self.n_annotators:,} annotators; {self.pair_instances:,} (item, annotator pair) "
            f"instances (upper bound on overlapping pairs); ~{self.memory_bytes / 2**30:.1f} GiB "
            f"working memory; triangle work ~{self.triangle_work:.2g} products"
        )


def estimate_sigma_cost(annotations: pd.DataFrame) -> SigmaCost:
    r"""Estimate the cost of :func:`sigma` from a long table in O(rows).

    .. math:: \mathrm{pair\_instances} = \sum_i \binom{n_i}{2}, \quad
       d_v \le \min\Big(n - 1, \sum_{i \ni v} (n_i - 1)\Big)

    (the number of pairwise alphas and the degrees of Basile's annotator graph, section 3).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Columns ``item_id, annotator_id``.

    Returns
    -------
    SigmaCost

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> cost = estimate_sigma_cost(annotations)
    >>> print(cost.n_items, cost.n_annotators, cost.pair_instances)
    12 4 55
    """
    if isinstance(annotations, Dataset):
        annotations = annotations.annotations
    item = _codes_of(annotations["item_id"])
    annot = _codes_of(annotations["annotator_id"])
    ok = (item >= 0) & (annot >= 0)
    item, annot = (item, annot) if ok.all() else (item[ok], annot[ok])
    compiled = kernels(len(item)) if len(item) else None
    if compiled is not None:  # two passes, integer sums (exact as the float ones below)
        per_item, per_annotator, degree = compiled.degree_bound(
            np.asarray(item, dtype=np.intp), np.asarray(annot, dtype=np.intp),
            int(item.max()) + 1, int(annot.max()) + 1)
        degree = degree.astype(float)
    else:
        per_item = np.bincount(item).astype(np.int64)
        per_annotator = np.bincount(annot)
        degree = np.bincount(annot, weights=(per_item - 1)[item], minlength=len(per_annotator))
    n_ann = int(np.count_nonzero(per_annotator))
    instances = int((per_item * (per_item - 1) // 2).sum())
    degree = np.minimum(degree, max(n_ann - 1, 0))
    work = float(np.square(degree).sum())
    memory = instances * _BYTES_PER_INSTANCE + len(annotations) * _BYTES_PER_ROW
    return SigmaCost(len(annotations), int(np.count_nonzero(per_item)), n_ann, instances, work,
                     int(memory))


def _codes_of(column: pd.Series) -> np.ndarray:
    """Integer codes of an id column (-1 = missing): a categorical column's own codes (a loaded
    Dataset's: no hashing of strings), else ``pandas.factorize``."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy()
    return pd.factorize(column)[0]


def check_sigma_cost(
    cost: SigmaCost, max_pair_instances: int | None = SIGMA_MAX_PAIR_INSTANCES,
    *, source: str = "annotations",
) -> None:
    r"""Refuse a sigma run past ``max_pair_instances``.

    .. math:: \sum_i \binom{n_i}{2} \le \mathrm{max\_pair\_instances}

    (the pairwise alphas of Basile, section 3); raises ``DataError`` naming ``source`` otherwise.

    Parameters
    ----------
    cost : SigmaCost
    max_pair_instances : int or None
        None = no limit.
    source : str, default "annotations"
        Name used in the error.

    Returns
    -------
    None

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> check_sigma_cost(estimate_sigma_cost(annotations)) is None
    True
    """
    if max_pair_instances is None or cost.pair_instances <= max_pair_instances:
        return
    raise DataError(
        f"sigma would compare {cost.pair_instances:,} (item, annotator pair) instances, more "
        f"than the limit of {max_pair_instances:,} ({cost.describe()}).",
        source=source,
        fix="analyse a sample of items or annotators, or raise the limit "
        "(sigma(..., max_pair_instances=N) / --max-pairs N) on a machine with the memory; "
        "docs/scaling.md shows how far one machine goes.",
    )


# ---------------------------------------------------------------------------------- sigma_rnd
def apply_shuffle(
    annotations: pd.DataFrame,
    half_mask: np.ndarray,
    p_first: np.ndarray,
    p_second: np.ndarray,
    *,
    item_order: pd.Index | None = None,
    annotator_order: pd.Index | None = None,
) -> pd.DataFrame:
    r"""One fully specified split-and-shuffle of the annotation table.

    .. math:: x'_{p_1(a), u} = x_{a, u} \; (u \in H_1), \quad x'_{p_2(a), u} = x_{a, u} \; (u \in H_2)

    Basile, section 4.1: the items are split into halves :math:`H_1, H_2` and the annotator rows
    permuted independently inside each half. Every item keeps its multiset of labels, so
    Krippendorff's alpha is exactly unchanged.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id, label``.
    half_mask : ndarray of bool, shape (N,)
        Item j (in ``item_order``) is in the first half.
    p_first, p_second : ndarray of shape (m,)
        Row permutations of the annotators in each half.
    item_order, annotator_order : pandas.Index, optional
        Default: the sorted ids.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 4.1.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> import numpy as np
    >>> from hlv_core.agreement import krippendorff_alpha
    >>> shuffled = apply_shuffle(annotations, np.arange(12) < 6, np.array([1, 0, 2, 3]),
    ...                          np.arange(4))
    >>> print(round(krippendorff_alpha(shuffled), 3))
    0.743
    """
    items = annotations["item_id"].astype(str).to_numpy()
    annots = annotations["annotator_id"].astype(str).to_numpy()
    item_order = pd.Index(np.sort(pd.unique(items))) if item_order is None else pd.Index(item_order)
    if annotator_order is None:
        annotator_order = pd.Index(np.sort(pd.unique(annots)))
    annotator_order = pd.Index(annotator_order)
    half_mask = np.asarray(half_mask, dtype=bool)
    p_first = np.asarray(p_first, dtype=np.int64)
    p_second = np.asarray(p_second, dtype=np.int64)
    m = len(annotator_order)
    if len(half_mask) != len(item_order):
        raise ValueError("half_mask must have one entry per item")
    for p in (p_first, p_second):
        if len(p) != m or not np.array_equal(np.sort(p), np.arange(m)):
            raise ValueError("p_first / p_second must be permutations of the annotator rows")
    item_code = item_order.get_indexer(items)
    annot_code = annotator_order.get_indexer(annots)
    if (item_code < 0).any() or (annot_code < 0).any():
        raise ValueError("item_order / annotator_order miss ids present in the annotations")
    new_code = np.where(half_mask[item_code], p_first[annot_code], p_second[annot_code])
    out = annotations.copy()
    out["annotator_id"] = annotator_order.to_numpy()[new_code]
    return out


def _draw_shuffle(
    rng: np.random.Generator, n_items: int, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random draws of one replicate, in a fixed order (see :func:`shuffle_annotations`)."""
    perm = rng.permutation(n_items)
    half_mask = np.zeros(n_items, dtype=bool)
    half_mask[perm[: n_items // 2]] = True
    return half_mask, rng.permutation(m), rng.permutation(m)


def shuffle_annotations(
    annotations: pd.DataFrame, rng: np.random.Generator | int | None = None, *, n_steps: int = 1
) -> tuple[pd.DataFrame, dict]:
    r"""Split-and-shuffle the annotation table ``n_steps`` times.

    .. math:: A_{\mathrm{rnd}} = \pi_{n} \circ \dots \circ \pi_{1}(A)

    Basile, section 4.1: each step :math:`\pi` splits the items at random into two halves and
    permutes the annotator rows independently inside each half (draws: item permutation, then the
    two row permutations, from ``rng``); alpha is unchanged by every step.

    Parameters
    ----------
    annotations : pandas.DataFrame
    rng : numpy.random.Generator or int or None
    n_steps : int, default 1

    Returns
    -------
    shuffled : pandas.DataFrame
    draws : dict
        ``half_mask, p_first, p_second`` of the last step and ``steps`` (every step's draws).

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 4.1.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> from hlv_core.agreement import krippendorff_alpha
    >>> shuffled, draws = shuffle_annotations(annotations, 0, n_steps=10)
    >>> print(len(draws["steps"]), round(krippendorff_alpha(shuffled), 3))
    10 0.743
    """
    if int(n_steps) != n_steps or n_steps < 1:
        raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
    rng = np.random.default_rng(rng)
    item_order = pd.Index(np.sort(pd.unique(annotations["item_id"].astype(str))))
    annotator_order = pd.Index(np.sort(pd.unique(annotations["annotator_id"].astype(str))))
    shuffled = annotations
    steps = []
    for _ in range(int(n_steps)):  # each step is vectorised; steps compose sequentially
        half_mask, p_first, p_second = _draw_shuffle(rng, len(item_order), len(annotator_order))
        shuffled = apply_shuffle(
            shuffled, half_mask, p_first, p_second,
            item_order=item_order, annotator_order=annotator_order,
        )
        steps.append({"half_mask": half_mask, "p_first": p_first, "p_second": p_second})
    return shuffled, {**steps[-1], "steps": steps}


@dataclass
class RandomSigmaResult:
    r"""Result of :func:`sigma_random`.

    .. math:: \sigma_{\mathrm{rnd}} = \frac{1}{|D|} \sum_{b \in D} \sigma(A^{(b)}_{\mathrm{rnd}})

    over the replicates D that have a triangle (Basile, section 4.1).

    Attributes
    ----------
    values : ndarray of shape (n_repeats,)
        Sigma of every replicate (NaN without a triangle).
    mean, sd : float
        Over the defined replicates (sd with ddof=1).
    n_defined : int
    alpha : float
        Overall alpha of the data.
    alphas : ndarray
        Overall alpha of every replicate (unchanged up to floating point).
    n_triangles : ndarray
    n_repeats : int
    seed : int or None
    level : str
    min_shared : int
    procedure : str
    n_steps : int

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 4.1.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> rnd = sigma_random(annotations, n_repeats=5, seed=0)
    >>> print(rnd.values, rnd.mean)
    [0.  0.5 1.  1.  1. ] 0.7
    """

    mean: float
    sd: float
    values: np.ndarray
    n_defined: int
    alpha: float
    alphas: np.ndarray
    n_triangles: np.ndarray
    n_repeats: int
    seed: int | None
    level: str
    min_shared: int
    procedure: str = "composed"
    n_steps: int = DEFAULT_STEPS

    @property
    def se(self) -> float:
        """Monte Carlo standard error of the mean, sd / sqrt(n_defined)."""
        return self.sd / math.sqrt(self.n_defined) if self.n_defined > 1 else math.nan

    def max_alpha_change(self) -> float | None:
        """``max_r |alpha_r - alpha|`` over the replicates whose alpha is defined (NaN replicates
        skipped, like ``np.nanmax``); None when none is: a check that shuffling kept alpha."""
        change = np.abs(np.asarray(self.alphas, dtype=float) - self.alpha)
        change = change[np.isfinite(change)]
        return float(change.max()) if change.size else None

    def summary(self) -> dict:
        """The result as JSON-ready numbers (NaN -> None), as the CLI writes and the page reads."""
        return {
            "sigma_rnd_mean": _num(self.mean),
            "sigma_rnd_sd": _num(self.sd),
            "sigma_rnd_values": [_num(v) for v in self.values],
            "n_defined": self.n_defined,
            "n_repeats": self.n_repeats,
            "seed": self.seed,
            "sigma_rnd_procedure": self.procedure,
            "sigma_rnd_steps": self.n_steps,
            "max_alpha_change": self.max_alpha_change(),
        }


def _shuffled_codes(
    rng: np.random.Generator, item: np.ndarray, annotator: np.ndarray, n_items: int, m: int,
    n_steps: int,
) -> np.ndarray:
    """Annotator codes after ``n_steps`` composed split-and-shuffle steps (one A_rnd).

    Step s draws a fresh half split and two permutations (:func:`_draw_shuffle`) and maps
    code c of an annotation on item j to ``p_first[c]`` if j is in the first half, else
    ``p_second[c]``; the steps act on the output of the previous one. Every step is vectorised
    over all annotations; with ``n_steps=1`` the draws equal one :func:`shuffle_annotations`."""
    code = annotator
    for _ in range(n_steps):  # composition is sequential by definition; 10 steps by default
        half_mask, p_first, p_second = _draw_shuffle(rng, n_items, m)
        code = np.where(half_mask[item], p_first[code], p_second[code])
    return code


def sigma_random(
    annotations: pd.DataFrame,
    *,
    n_repeats: int = 10,
    seed: int | None = 0,
    level: str = "nominal",
    min_shared: int = 1,
    procedure: str = "composed",
    n_steps: int = DEFAULT_STEPS,
    values: Mapping | list | None = None,
    multilabel: str = "error",
    progress: Callable[[int, int], None] | None = None,
    max_pair_instances: int | None = SIGMA_MAX_PAIR_INSTANCES,
) -> RandomSigmaResult:
    r"""The randomised baseline sigma_rnd: sigma of split-and-shuffled copies of the data.

    .. math:: \sigma_{\mathrm{rnd}} = \frac{1}{R} \sum_{b=1}^{R} \sigma\big(A^{(b)}_{\mathrm{rnd}}\big)

    Basile, section 4.1: every :math:`A_{\mathrm{rnd}}` composes ``n_steps`` (10) split-and-shuffle
    steps (:func:`shuffle_annotations`; ``procedure="composed"``, reproduces Table 2), or one step
    (``"one_step"``, the older reading); sigma is recomputed on each and averaged over the
    replicates with a triangle. Alpha is unchanged by every step. The Annotator graph screen's
    sigma_rnd.

    Parameters
    ----------
    annotations : pandas.DataFrame
    n_repeats : int, default 10
        R.
    seed : int or None, default 0
        Seed of ``numpy.random.default_rng``.
    level, min_shared, values, multilabel, max_pair_instances
        As in :func:`sigma`.
    procedure : {"composed", "one_step"}, default "composed"
    n_steps : int, default 10
    progress : callable, optional
        ``progress(done, total)`` after each replicate.

    Returns
    -------
    RandomSigmaResult

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 4.1; Table 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> rnd = sigma_random(annotations, n_repeats=5, seed=0)
    >>> print(rnd.mean, round(rnd.sd, 3), rnd.n_defined)
    0.7 0.447 5
    """
    annotations, checked = _check_annotations(annotations, level, min_shared, multilabel)
    check_sigma_cost(estimate_sigma_cost(annotations), max_pair_instances)
    if int(n_repeats) != n_repeats or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}")
    if procedure not in PROCEDURES:
        raise ValueError(f"procedure must be one of {PROCEDURES}, got {procedure!r}")
    if int(n_steps) != n_steps or n_steps < 1:
        raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
    steps = int(n_steps) if procedure == "composed" else 1
    rng = np.random.default_rng(seed)
    # ids, items and labels are coded once (sorted ids: the same draws as shuffle_annotations);
    # a replicate only permutes integer annotator codes
    data = _prepare(annotations, level, values, checked)
    from hlv_core.agreement import alpha_of_input

    alpha = alpha_of_input(data)
    sigmas = np.full(n_repeats, np.nan)
    alphas = np.full(n_repeats, np.nan)
    tris = np.zeros(n_repeats, dtype=np.int64)
    for r in range(n_repeats):  # replicates are sequential by nature; each one is vectorised
        new_code = _shuffled_codes(
            rng, data.item, data.annotator, data.n_items, data.n_annotators, steps
        )
        core = _sigma_core(data.with_annotators(new_code), min_shared)
        sigmas[r] = core.counts.sigma
        alphas[r] = core.alpha  # recomputed from the shuffled codes (a check of the shuffle)
        tris[r] = core.counts.n_triangles
        if progress is not None:
            progress(r + 1, n_repeats)
    defined = sigmas[~np.isnan(sigmas)]
    mean = float(defined.mean()) if len(defined) else math.nan
    sd = float(defined.std(ddof=1)) if len(defined) > 1 else math.nan
    return RandomSigmaResult(
        mean=mean, sd=sd, values=sigmas, n_defined=len(defined), alpha=alpha, alphas=alphas,
        n_triangles=tris, n_repeats=int(n_repeats), seed=seed, level=level,
        min_shared=int(min_shared), procedure=procedure, n_steps=steps,
    )


def conventions_note(
    level: str, min_shared: int, procedure: str = "composed", n_steps: int = DEFAULT_STEPS
) -> str:
    r"""One line naming the conventions behind sigma numbers and flagging every deviation.

    .. math:: s_{ij} = + \iff \alpha_{ij} \ge \alpha, \quad n_{ij} \ge \mathrm{min\_shared}

    Basile, sections 3 and 4.1: the paper's conventions are nominal alpha, ``min_shared`` 1 and
    the composed sigma_rnd.

    Parameters
    ----------
    level : str
    min_shared : int
    procedure : {"composed", "one_step"}, default "composed"
    n_steps : int, default 10

    Returns
    -------
    str

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Sections 3 and 4.1.

    Examples
    --------
    >>> print(conventions_note("nominal", 2).split("; ")[1])
    min_shared 2 (deviation from the paper: 1)
    """
    parts = [f"level {level}" + ("" if level == "nominal" else " (the paper's Table 2 is nominal)")]
    parts.append(
        f"min_shared {min_shared}"
        + (" (paper)" if min_shared == PAPER_MIN_SHARED else " (deviation from the paper: 1)")
    )
    if procedure != "composed":
        parts.append(f"sigma_rnd {procedure} (deviation from the paper: composed)")
    elif n_steps != DEFAULT_STEPS:
        parts.append(f"sigma_rnd composed, {n_steps} steps per A_rnd (deviation from the "
                     f"paper: {DEFAULT_STEPS})")
    else:
        parts.append(f"sigma_rnd composed, {n_steps} steps per A_rnd (paper)")
    parts.append("undefined pairwise alpha = no edge")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------- camps
@dataclass
class CampsResult:
    r"""Two-camp partition of the signed annotator graph.

    .. math:: \mathrm{frustration} = \#\{+ \text{ edges across camps}\} + \#\{- \text{ edges within a camp}\}

    0 iff the graph is balanced (Cartwright and Harary 1956; Basile, section 3: sigma approximates
    this clusterability).

    Attributes
    ----------
    table : pandas.DataFrame
        ``annotator_id, camp, component`` (camp 0/1 per connected component, -1 without an edge;
        camp 0 is the larger side).
    frustration : int
    method : {"harary", "spectral"}
        Exact split, or leading-eigenvector sign with greedy moves (an upper bound).

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.
    .. [2] Cartwright and Harary (1956). "Structural balance: a generalization of Heider's
       theory". Psychological Review 63(5).

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> print(camps(result).frustration)
    0
    """

    table: pd.DataFrame
    frustration: int
    n_edges: int
    balanced: bool
    method: str
    n_components: int

    @property
    def camps(self) -> pd.Series:
        return self.table.set_index("annotator_id")["camp"]


def _harary(S: sp.csr_matrix, comp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Signed double cover: node v -> (v+, v-); + edge joins u+v+ and u-v-, - edge u+v- and u-v+.
    A component is balanced iff no v+ is connected to its own v-. Returns (side, balanced_comp)."""
    n = S.shape[0]
    coo = sp.triu(S, 1).tocoo()
    r, c, s = coo.row, coo.col, coo.data
    pos, neg = s > 0, s < 0
    rr = np.concatenate([r[pos], r[pos] + n, r[neg], r[neg] + n])
    cc = np.concatenate([c[pos], c[pos] + n, c[neg] + n, c[neg]])
    cover = sp.coo_matrix((np.ones(len(rr)), (rr, cc)), shape=(2 * n, 2 * n))
    _, lab = connected_components(cover, directed=False)
    plus, minus = lab[:n], lab[n:]
    n_comp = comp.max() + 1 if n else 0
    conflict = np.bincount(comp, weights=(plus == minus), minlength=n_comp) > 0
    # root of each component = its first node; v is on the root's side iff v+ ~ root+
    _, first = np.unique(comp, return_index=True)
    side = (plus != plus[first[comp]]).astype(np.int64)
    return side, ~conflict


def _spectral_side(S_sub: sp.csr_matrix) -> np.ndarray:
    n = S_sub.shape[0]
    if n <= 400:
        _, vecs = np.linalg.eigh(S_sub.toarray().astype(float))
        v = vecs[:, -1]
    else:
        from scipy.sparse.linalg import eigsh

        try:
            _, vecs = eigsh(S_sub.astype(float), k=1, which="LA")
            v = vecs[:, 0]
        except Exception:  # ARPACK non-convergence: fall back to dense
            _, vecs = np.linalg.eigh(S_sub.toarray().astype(float))
            v = vecs[:, -1]
    x = np.where(v >= 0, 1.0, -1.0)
    # greedy refinement: flipping v changes frustration by l_v = x_v (S x)_v; flip most negative
    Sx = S_sub @ x
    for _ in range(10 * n):
        local = x * Sx
        v_best = int(np.argmin(local))
        if local[v_best] >= 0:
            break
        x[v_best] = -x[v_best]
        Sx = Sx + 2 * x[v_best] * S_sub[v_best].toarray().ravel()  # S symmetric
    return (x < 0).astype(np.int64)


def camps(result: SigmaResult) -> CampsResult:
    r"""Camps of the signed graph of a :class:`SigmaResult`.

    .. math:: \min_{c \in \{0,1\}^n} \sum_{(i,j) \in E} \big[s_{ij} = +\big]\,[c_i \ne c_j]
       + \big[s_{ij} = -\big]\,[c_i = c_j]

    Cartwright and Harary (1956): a balanced component has a unique two-camp split (``+`` edges
    inside, ``-`` across), found from the signed double cover; otherwise the sign of the leading
    eigenvector of the component's signed adjacency, refined by greedy single-node moves. Basile,
    section 3 (sigma as clusterability).

    Parameters
    ----------
    result : SigmaResult

    Returns
    -------
    CampsResult

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.
    .. [2] Cartwright and Harary (1956). "Structural balance: a generalization of Heider's
       theory". Psychological Review 63(5).

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> print(camps(result).table.to_string(index=False))
    annotator_id  camp  component
               A     0          0
               B     0          0
               C     1          0
               D     0          0
    """
    S = result.adjacency
    if S is None:
        raise ValueError("this SigmaResult carries no adjacency matrix")
    S = sp.csr_matrix(S)
    n = S.shape[0]
    n_comp, comp = connected_components(abs(S), directed=False)
    side, comp_balanced = _harary(S, comp)
    deg = np.asarray(abs(S).sum(axis=1)).ravel()
    method = "harary"
    for c in np.flatnonzero(~comp_balanced):
        method = "spectral"
        members = np.flatnonzero(comp == c)
        side[members] = _spectral_side(S[members][:, members])
    # orient: camp 0 = larger side of each component
    ones = np.bincount(comp, weights=side, minlength=n_comp)
    sizes = np.bincount(comp, minlength=n_comp)
    flip = ones > sizes - ones
    side = np.where(flip[comp], 1 - side, side)
    camp = np.where(deg > 0, side, -1)
    coo = sp.triu(S, 1).tocoo()
    same = side[coo.row] == side[coo.col]
    frustration = int(((coo.data > 0) & ~same).sum() + ((coo.data < 0) & same).sum())
    # renumber components by size (largest = 0), isolated nodes -1
    comp_rank = np.argsort(np.argsort(-sizes, kind="stable"), kind="stable")
    component = np.where(deg > 0, comp_rank[comp], -1)
    table = pd.DataFrame(
        {"annotator_id": result.nodes["annotator_id"].to_numpy(), "camp": camp,
         "component": component}
    )
    n_real = int(len(np.unique(component[deg > 0]))) if n else 0
    return CampsResult(
        table=table, frustration=frustration, n_edges=int(coo.nnz),
        balanced=frustration == 0, method=method, n_components=n_real,
    )


def camp_trait_table(camps_result: CampsResult, traits: pd.DataFrame, trait: str) -> tuple[
    pd.DataFrame, float
]:
    r"""Crosstab camp x trait value and Cramér's V.

    .. math:: V = \sqrt{\frac{\chi^2}{n\,(k - 1)}}, \quad k = \min(\text{rows}, \text{cols})

    Cramér (1946), the measure of association V; 0 = independent, 1 = the camps are the trait. Annotators without
    an edge (camp -1) or a missing trait value are left out; NaN with a single row or column.
    Camps as in :func:`camps` (Basile, section 3).

    Parameters
    ----------
    camps_result : CampsResult
    traits : pandas.DataFrame
        ``annotator_id`` plus trait columns (``Dataset.annotators``).
    trait : str
        The trait column.

    Returns
    -------
    table : pandas.DataFrame
    v : float

    References
    ----------
    .. [1] Cramér (1946). "Mathematical Methods of Statistics". Princeton University Press.
    .. [2] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> traits = pd.DataFrame({"annotator_id": list("ABCD"), "group": ["x", "x", "y", "x"]})
    >>> table, v = camp_trait_table(camps(result), traits, "group")
    >>> print(v)
    1.0
    """
    if trait not in traits.columns:
        raise ValueError(f"unknown trait {trait!r}")
    merged = camps_result.table.merge(
        traits[["annotator_id", trait]].astype({"annotator_id": str}), on="annotator_id"
    )
    merged = merged[(merged["camp"] >= 0) & merged[trait].notna() & (merged[trait] != "")]
    table = pd.crosstab(merged["camp"].map(lambda c: f"camp {c}"), merged[trait])
    if min(table.shape) < 2:
        return table, math.nan
    obs = table.to_numpy(dtype=float)
    expected = obs.sum(axis=1, keepdims=True) * obs.sum(axis=0, keepdims=True) / obs.sum()
    chi2 = float(((obs - expected) ** 2 / expected).sum())
    v = math.sqrt(chi2 / (obs.sum() * (min(obs.shape) - 1)))
    return table, v


# ---------------------------------------------------------------------------------- export
def to_networkx(result: SigmaResult, camps_result: CampsResult | None = None):
    r"""The signed annotator graph as a networkx Graph.

    .. math:: G = (V, E), \quad s_{ij} = + \iff \alpha_{ij} \ge \alpha

    Basile, section 3: nodes carry ``n_annotations`` and ``camp``; edges ``sign``, ``alpha``,
    ``n_shared``, ``balanced``, ``unbalanced``.

    Parameters
    ----------
    result : SigmaResult
    camps_result : CampsResult, optional

    Returns
    -------
    networkx.Graph

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> graph = to_networkx(result, camps(result))
    >>> print(graph.number_of_nodes(), graph.number_of_edges())
    4 6
    """
    import networkx as nx

    graph = nx.Graph(alpha=float(result.alpha), sigma=_num(result.sigma) or -1.0)
    camp = (
        camps_result.camps.to_dict() if camps_result is not None else {}
    )
    for row in result.nodes.itertuples(index=False):
        graph.add_node(
            str(row.annotator_id), n_annotations=int(row.n_annotations),
            camp=int(camp.get(row.annotator_id, -1)),
        )
    e = result.edges
    graph.add_edges_from(
        (a, b, {"sign": int(s), "alpha": float(al), "n_shared": int(ns), "balanced": int(bl),
                "unbalanced": int(ub)})
        for a, b, s, al, ns, bl, ub in zip(
            e["annotator_a"], e["annotator_b"], e["sign"], e["alpha"], e["n_shared"],
            e["balanced"], e["unbalanced"], strict=True,
        )
    )
    return graph


def graphml_bytes(result: SigmaResult, camps_result: CampsResult | None = None) -> bytes:
    r"""GraphML (UTF-8 bytes) of the signed annotator graph.

    .. math:: s_{ij} = + \iff \alpha_{ij} \ge \alpha

    (Basile, section 3); see :func:`to_networkx` for the attributes.

    Parameters
    ----------
    result : SigmaResult
    camps_result : CampsResult, optional

    Returns
    -------
    bytes

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> graphml_bytes(result).startswith(b"<?xml")
    True
    """
    import networkx as nx

    buffer = io.BytesIO()
    nx.write_graphml(to_networkx(result, camps_result), buffer)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------- comparison
def compare_datasets(
    datasets: Mapping[str, pd.DataFrame | Dataset],
    *,
    level: str = "nominal",
    min_shared: int = PAPER_MIN_SHARED,
    n_repeats: int = 10,
    seed: int | None = 0,
    procedure: str = "composed",
    n_steps: int = DEFAULT_STEPS,
    progress: Callable[[str, int, int], None] | None = None,
) -> pd.DataFrame:
    r"""Alpha, sigma and sigma_rnd of several datasets (the paper's Table 2 and Figure 2).

    .. math:: \sigma = \frac{\#\text{balanced triangles}}{\#\text{triangles}}, \quad
       s_{ij} = \begin{cases} + & \alpha_{ij} \ge \alpha \\ - & \alpha_{ij} < \alpha \end{cases}

    Basile, sections 3 and 4.1 (Table 2), with the paper's conventions by default (nominal alpha,
    ``min_shared=1``, composed sigma_rnd), recorded in the table. Multi-label datasets are
    collapsed to label sets first; a dataset that cannot be analysed gets its ``error``.

    Parameters
    ----------
    datasets : mapping of str to pandas.DataFrame or hlv_core.io.Dataset
    level, min_shared : as in :func:`sigma`
    n_repeats, seed, procedure, n_steps : as in :func:`sigma_random`
    progress : callable, optional
        ``progress(name, done, total)``.

    Returns
    -------
    pandas.DataFrame
        ``dataset, n_items, n_annotators, n_annotations, alpha, sigma, sigma_rnd, sigma_rnd_sd,
        n_triangles, n_balanced, n_pos_edges, n_neg_edges, n_dropped_min_shared,
        n_dropped_undefined, note, error, level, min_shared, procedure``.

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Sections 3, 4.1; Table 2, Figure 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> table = compare_datasets({"toy": annotations}, n_repeats=3)
    >>> print(table[["dataset", "sigma", "sigma_rnd"]].to_string(index=False))
    dataset  sigma  sigma_rnd
        toy    1.0        0.5
    """
    rows = []
    for name, data in datasets.items():
        row: dict = {"dataset": name, "note": "", "error": ""}
        try:
            frame = data
            values = None
            if isinstance(data, Dataset):
                if data.task != "multilabel":
                    values = data.numeric_label_map(level)
                if not data.annotator_ids_known:
                    raise DataError(
                        "annotator identities are not linked across items.", source=name,
                        fix="sigma needs annotator ids.",
                    )
                frame = data.annotations
                if data.task == "multilabel":
                    frame = collapse_label_sets(frame)
                    row["note"] = "multi-label: label sets as nominal values"
                elif data.task == "ranking":
                    raise DataError(
                        "ranking data have no single label per annotator and item.", source=name,
                        fix="sigma needs one label per (item, annotator).",
                    )
            row.update(
                n_items=int(frame["item_id"].nunique()),
                n_annotators=int(frame["annotator_id"].nunique()),
                n_annotations=len(frame),
            )
            res = sigma(frame, level=level, min_shared=min_shared, values=values)
            rnd = sigma_random(
                frame, n_repeats=n_repeats, seed=seed, level=level, min_shared=min_shared,
                procedure=procedure, n_steps=n_steps, values=values,
                progress=None if progress is None else (lambda d, t, nm=name: progress(nm, d, t)),
            )
            row.update(
                alpha=res.alpha, sigma=res.sigma, sigma_rnd=rnd.mean, sigma_rnd_sd=rnd.sd,
                n_triangles=res.n_triangles, n_balanced=res.n_balanced,
                n_pos_edges=res.n_pos_edges, n_neg_edges=res.n_neg_edges,
                n_dropped_min_shared=res.n_dropped_min_shared,
                n_dropped_undefined=res.n_dropped_undefined,
            )
            if res.explanation:
                row["note"] = (row["note"] + "; " if row["note"] else "") + res.explanation
        except (DataError, ValueError) as err:
            row["error"] = str(err)
        rows.append(row)
    columns = [
        "dataset", "n_items", "n_annotators", "n_annotations", "alpha", "sigma", "sigma_rnd",
        "sigma_rnd_sd", "n_triangles", "n_balanced", "n_pos_edges", "n_neg_edges",
        "n_dropped_min_shared", "n_dropped_undefined", "note", "error",
    ]
    table = pd.DataFrame(rows).reindex(columns=columns)
    counts = ["n_items", "n_annotators", "n_annotations", "n_triangles", "n_balanced",
              "n_pos_edges", "n_neg_edges", "n_dropped_min_shared", "n_dropped_undefined"]
    table[counts] = table[counts].astype("Int64")
    table[["note", "error"]] = table[["note", "error"]].fillna("")
    table["level"] = level
    table["min_shared"] = int(min_shared)
    table["procedure"] = procedure
    return table


#: Basile, "A Measure of Systematic Disagreement", Table 2: dataset -> (alpha, sigma,
#: sigma_rnd). Published values, drawn as reference points only.
PAPER_TABLE2: dict[str, tuple[float, float, float]] = {
    "Paraphrase": (0.155, 1.000, 0.350), "BREXIT-hs": (0.347, 1.000, 0.500),
    "VF-asymmetry": (0.344, 1.000, 0.550), "CSC": (0.121, 0.494, 0.120),
    "BREXIT-of": (0.364, 0.800, 0.470), "ConvAbuse": (0.578, 0.714, 0.386),
    "jobQ3MT+-Q3": (0.276, 0.392, 0.159), "jobQ3MT+-Q2": (0.353, 0.427, 0.201),
    "MD-Agreement": (0.359, 0.494, 0.283), "jobQ3MT+-Q1": (0.247, 0.339, 0.154),
    "PD-NR": (0.085, 0.416, 0.264), "VF-dermo": (0.072, 0.600, 0.450),
    "BREXIT-st": (0.294, 0.600, 0.480), "TAS-hs": (0.397, 0.558, 0.452),
    "DICES": (0.210, 0.601, 0.518), "MultiPICO": (0.264, 0.496, 0.439),
    "Frame": (0.250, 0.558, 0.505), "MHS": (0.516, 0.677, 0.637), "TAS-of": (0.469, 0.451, 0.421),
    "PD-DO": (0.040, 0.384, 0.377), "VF-border": (0.112, 0.500, 0.510),
    "PD-DN": (0.076, 0.376, 0.423), "BREXIT-ag": (0.299, 0.500, 0.580),
    "VF-color": (0.146, 0.400, 0.500), "PD-PR": (-0.048, 0.532, 0.645),
    "VariErrNLI": (0.344, 0.000, 0.550),
}


# ------------------------------------------------------------------- views of a result
def strongest_edges(edges: pd.DataFrame, alpha: float, n: int, *, sign: int | None = None
                    ) -> pd.DataFrame:
    r"""The ``n`` edges whose pairwise alpha is farthest from the overall alpha.

    .. math:: \text{order by } |\alpha_{ij} - \alpha| \text{ (largest first)}

    Basile, section 3 (edge signs compare :math:`\alpha_{ij}` with :math:`\alpha`); optionally
    only ``sign`` = +1 or -1 edges.

    Parameters
    ----------
    edges : pandas.DataFrame
        ``SigmaResult.edges``.
    alpha : float
        Overall alpha.
    n : int
    sign : {1, -1}, optional

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> print(strongest_edges(result.edges, result.alpha, 2)[["annotator_a", "annotator_b"]]
    ...       .to_string(index=False))
    annotator_a annotator_b
              A           C
              B           C
    """
    shown = edges if sign is None else edges[edges["sign"] == sign]
    strength = (shown["alpha"] - alpha).abs()
    return shown.loc[strength.sort_values(ascending=False).index[:n]]


def heatmap_annotators(result: SigmaResult, partition: CampsResult, n: int) -> list[str]:
    r"""The rows of the pairwise-alpha heatmap: the ``n`` most active annotators by camp.

    .. math:: \text{order} = (\text{camp } 0, \text{camp } 1, \text{no edge}) \times \text{id}

    Camps of :func:`camps` (Cartwright and Harary 1956; Basile, section 3).

    Parameters
    ----------
    result : SigmaResult
    partition : CampsResult
    n : int

    Returns
    -------
    list of str

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Section 3.
    .. [2] Cartwright and Harary (1956). "Structural balance: a generalization of Heider's
       theory". Psychological Review 63(5).

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = sigma(annotations)
    >>> heatmap_annotators(result, camps(result), 3)
    ['B', 'D', 'C']
    """
    ids = list(result.nodes.sort_values("n_annotations", ascending=False)["annotator_id"])[:n]
    camp_of = partition.camps  # built on each access: once here
    ids.sort(key=lambda a: (int(camp_of.get(a, -1)) % 3, a))
    return ids
