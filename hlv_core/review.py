"""Case review and meta-evaluation of metrics against expert pairwise judgements (Kurniawan et al., sec. 6).

Experts see an item and the label distributions of two models (names hidden, random left/right
order) and say which output is more accurate: ``"A"``, ``"B"``, ``"both"`` or ``"neither"``.
The judgements live in a SQLite file (:class:`ReviewStore`); :func:`rank_centrality` turns the
pairwise counts into one score per model (Negahban, Oh and Shah 2012;
Kurniawan et al., section 6.1) and :func:`metric_correlations` correlates every metric of
:mod:`hlv_core.soft_metrics` with those human scores (Pearson r with an exact permutation
p-value, Kurniawan et al. Table 5 / Figure 5).

Count layout (the authors' released ``compute_pairwise_wins2.py``): for M models, ``comps[i, j]`` = number of
judgements comparing models i and j (symmetric, zero diagonal, ties included) and
``wins[i, j]`` = number of judgements where the *column* model j beat the *row* model i (exactly
one option preferred). Only each reviewer's latest judgement of an (item, model pair) counts.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from scipy import linalg
from scipy.sparse.csgraph import connected_components

from .review_cases import (
    MIN_JUDGEMENTS,
    CaseProposal,
    Sufficiency,
    history_table,
    judgement_sufficiency,
    next_case,
    output_letters,
    readable_time,
)
from .review_store import (
    CHOICES,
    EXPORT_COLUMNS,
    SCHEMA_VERSION,
    Proposal,
    ReviewStore,
    ReviewStoreError,
    counts_from_judgements,
    default_db_path,
    latest_judgements,
    to_instant,
)

__all__ = [
    "MIN_JUDGEMENTS",
    "CaseProposal",
    "Sufficiency",
    "history_table",
    "judgement_sufficiency",
    "next_case",
    "output_letters",
    "readable_time",
    "CHOICES",
    "DEFAULT_REGULARIZE",
    "EXPORT_COLUMNS",
    "SCHEMA_VERSION",
    "TIES",
    "Access",
    "DisconnectedComparisonWarning",
    "Proposal",
    "ReviewStore",
    "ReviewStoreError",
    "aggregate_judgements",
    "can_import",
    "exportable_judgements",
    "exportable_own_labels",
    "closed_classes",
    "comparison_components",
    "counts_from_judgements",
    "default_db_path",
    "fit_line",
    "human_scores",
    "latest_judgements",
    "metric_correlations",
    "model_metrics",
    "pair_table",
    "permutation_pvalue",
    "rank_centrality",
    "own_judgements",
    "stationary_distribution",
    "to_instant",
    "transition_matrix",
    "visible_distribution",
    "case_labels",
]

TIES: tuple[str, ...] = ("in_denominator", "decisive_only")
"""Tie conventions of :func:`rank_centrality` (Kurniawan et al.)."""

DEFAULT_REGULARIZE = 0.1
"""Pseudo-judgements added each way to every model pair when :func:`human_scores` has to
regularise a comparison graph without a unique stationary distribution."""


class DisconnectedComparisonWarning(UserWarning):
    """The comparison graph has no unique stationary distribution; scores were regularised.

    Issued by :func:`human_scores` when it falls back to ``auto_regularize`` pseudo-judgements.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> wins = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    >>> comps = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     table, notes = human_scores(wins, comps, ["a", "b", "c", "d"])
    >>> caught[0].category.__name__, len(notes)
    ('DisconnectedComparisonWarning', 3)
    """


# --------------------------------------------------------------------------------------------
# Rank centrality
# --------------------------------------------------------------------------------------------


def _check_counts(wins: np.ndarray, comps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    wins = np.asarray(wins, dtype=float)
    comps = np.asarray(comps, dtype=float)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or wins.shape != comps.shape:
        raise ValueError(
            f"wins and comps must be square (M, M) arrays of the same shape; got {wins.shape} "
            f"and {comps.shape}."
        )
    if wins.shape[0] < 1:
        raise ValueError("need at least one model.")
    if not (np.isfinite(wins).all() and np.isfinite(comps).all()):
        raise ValueError("wins and comps must be finite.")
    if (wins < 0).any() or (comps < 0).any():
        raise ValueError("wins and comps must be non-negative counts.")
    if not np.allclose(comps, comps.T):
        raise ValueError("comps must be symmetric (comps[i, j] = comps[j, i]).")
    if np.any(np.diag(comps) != 0) or np.any(np.diag(wins) != 0):
        raise ValueError("wins and comps must have a zero diagonal (no model meets itself).")
    if np.any(wins + wins.T > comps + 1e-9):
        i, j = np.argwhere(wins + wins.T > comps + 1e-9)[0]
        raise ValueError(
            f"wins[{i},{j}] + wins[{j},{i}] exceeds comps[{i},{j}]: every win is a comparison "
            "(wins[i, j] counts comparisons of i and j that column j won)."
        )
    return wins, comps


def transition_matrix(
    wins: np.ndarray,
    comps: np.ndarray,
    *,
    ties: Literal["in_denominator", "decisive_only"] = "in_denominator",
    regularize: float = 0.0,
) -> np.ndarray:
    """Rank-centrality transition matrix (Negahban, Oh and Shah 2012; Kurniawan et al., section 6.1).

    ``A_ij`` = share of the i-vs-j comparisons won by j:

    * ``ties="in_denominator"`` (default, literal reading of the stored counts):
      ``A_ij = (wins[i,j] + eps) / (comps[i,j] + 2 eps)`` (both/neither judgements stay in the
      denominator, so ``A_ij + A_ji <= 1``);
    * ``ties="decisive_only"`` (what ``choix.rank_centrality`` does):
      ``A_ij = (wins[i,j] + eps) / (wins[i,j] + wins[j,i] + 2 eps)``.

    ``eps = regularize`` pseudo-wins each way for *every* pair i != j (choix's ``alpha``; with
    ``eps > 0`` never-compared pairs get ``A_ij = 1/2`` and the graph becomes complete). With
    ``eps = 0`` only pairs with a non-zero denominator are edges. Then ``P_ij = A_ij / d_max``
    (``d_max`` = largest number of distinct opponents of any model) and
    ``P_ii = 1 - sum_{j != i} P_ij``.

    Parameters
    ----------
    wins : numpy.ndarray
        (M, M) counts; ``wins[i, j]`` = judgements where column model j beat row model i.
    comps : numpy.ndarray
        (M, M) symmetric counts of judgements comparing i and j (ties included), zero diagonal.
    ties : {"in_denominator", "decisive_only"}, default "in_denominator"
        Tie convention (:data:`TIES`).
    regularize : float, default 0.0
        Pseudo-wins ``eps`` >= 0 each way for every pair.

    Returns
    -------
    numpy.ndarray
        (M, M) row-stochastic transition matrix P.

    Raises
    ------
    ValueError
        Counts not square, negative, asymmetric, with a non-zero diagonal, wins exceeding
        comparisons, an unknown ``ties`` or a negative ``regularize``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1 (and Table 5, Figure 5).
    .. [2] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise
       comparisons" (Rank Centrality), NIPS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> wins = np.array([[0, 3, 4], [1, 0, 3], [0, 1, 0]])  # wins[i, j]: column j beat row i
    >>> comps = np.array([[0, 5, 4], [5, 0, 4], [4, 4, 0]])
    >>> transition_matrix(wins, comps).round(4)
    array([[0.2  , 0.3  , 0.5  ],
           [0.1  , 0.525, 0.375],
           [0.   , 0.125, 0.875]])
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}; got {ties!r}.")
    try:
        regularize = float(regularize)
    except (TypeError, ValueError):
        raise ValueError(f"regularize must be a number >= 0; got {regularize!r}.") from None
    if not math.isfinite(regularize) or regularize < 0:
        raise ValueError(f"regularize must be a finite number >= 0; got {regularize!r}.")
    wins, comps = _check_counts(wins, comps)
    m = wins.shape[0]
    denom = comps if ties == "in_denominator" else wins + wins.T
    off = ~np.eye(m, dtype=bool)
    edges = off if regularize > 0 else (denom > 0) & off
    num = wins + regularize
    den = denom + 2.0 * regularize
    A = np.zeros((m, m))
    np.divide(num, den, out=A, where=edges)
    degree = edges.sum(axis=1)
    d_max = int(degree.max()) if m > 1 else 0
    P = A / d_max if d_max > 0 else A
    P[np.diag_indices(m)] = 0.0
    P[np.diag_indices(m)] = 1.0 - P.sum(axis=1)
    return P


def comparison_components(comps: np.ndarray) -> np.ndarray:
    """Connected-component label of every model in the undirected comparison graph.

    An edge joins i and j when ``comps[i, j] > 0``; one label for all models = connected (the
    scores of models in different components are not identified by the data).

    Parameters
    ----------
    comps : numpy.ndarray
        (M, M) symmetric comparison counts.

    Returns
    -------
    numpy.ndarray
        (M,) integer component labels.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import numpy as np
    >>> comparison_components(np.array([[0, 2, 0], [2, 0, 0], [0, 0, 0]]))
    array([0, 0, 1], dtype=int32)
    """
    comps = np.asarray(comps, dtype=float)
    _, labels = connected_components(comps > 0, directed=False)
    return labels


def closed_classes(P: np.ndarray) -> list[np.ndarray]:
    """Closed communicating classes of a Markov chain.

    Strongly connected components of the transition graph with no edge leaving them. The
    stationary distribution is unique exactly when there is one closed class.

    Parameters
    ----------
    P : numpy.ndarray
        (M, M) transition matrix.

    Returns
    -------
    list of numpy.ndarray
        The states of each closed class.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    State 0 leaks into state 1, which never leaves; state 2 is absorbing too:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> [c.tolist() for c in closed_classes(P)]
    [[1], [2]]
    """
    P = np.asarray(P, dtype=float)
    adjacency = (P > 0) & ~np.eye(P.shape[0], dtype=bool)
    n, labels = connected_components(adjacency, directed=True, connection="strong")
    src, dst = np.nonzero(adjacency)
    leaving = labels[src] != labels[dst]
    open_ = np.zeros(n, dtype=bool)
    open_[labels[src[leaving]]] = True
    return [np.flatnonzero(labels == c) for c in range(n) if not open_[c]]


def stationary_distribution(P: np.ndarray) -> np.ndarray:
    """Stationary distribution pi of a chain with a unique one.

    Solves ``pi^T P = pi^T`` with ``sum(pi) = 1`` by one dense linear solve
    (``scipy.linalg.solve`` on ``(P^T - I)`` with its last equation replaced by the
    normalisation).

    Parameters
    ----------
    P : numpy.ndarray
        (M, M) row-stochastic transition matrix.

    Returns
    -------
    numpy.ndarray
        (M,) probabilities summing to 1.

    Raises
    ------
    ValueError
        When pi is not unique (more than one closed class, :func:`closed_classes`).

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import numpy as np
    >>> stationary_distribution(np.array([[0.5, 0.5], [0.25, 0.75]])).round(6)
    array([0.333333, 0.666667])
    """
    P = np.asarray(P, dtype=float)
    m = P.shape[0]
    if m == 1:
        return np.ones(1)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise ValueError(
            f"the comparison chain has {len(classes)} closed classes "
            f"({[c.tolist() for c in classes]}), so the stationary distribution is not unique."
        )
    system = P.T - np.eye(m)
    system[-1, :] = 1.0
    rhs = np.zeros(m)
    rhs[-1] = 1.0
    pi = linalg.solve(system, rhs)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def rank_centrality(
    wins: np.ndarray,
    comps: np.ndarray,
    *,
    ties: Literal["in_denominator", "decisive_only"] = "in_denominator",
    regularize: float = 0.0,
) -> np.ndarray:
    """Rank Centrality scores of M models from pairwise counts (Kurniawan et al., section 6.1; Negahban, Oh and Shah 2012).

    The scores are the stationary distribution pi of :func:`transition_matrix`
    (``pi^T P = pi^T``, ``sum pi = 1``; higher = better); ``d_max`` scaling does not change
    pi. A chain with more than one closed class (a disconnected comparison graph, or two
    models that never lost to anyone) has no unique pi: this raises unless ``regularize > 0``
    (:func:`human_scores` does that with a warning).

    Parameters
    ----------
    wins : numpy.ndarray
        (M, M); ``wins[i, j]`` = judgements where column model j beat row model i.
    comps : numpy.ndarray
        (M, M) symmetric comparison counts (ties included), zero diagonal.
    ties : {"in_denominator", "decisive_only"}, default "in_denominator"
        Tie convention (see :func:`transition_matrix`).
    regularize : float, default 0.0
        Pseudo-wins each way for every pair.

    Returns
    -------
    numpy.ndarray
        (M,) scores summing to 1.

    Raises
    ------
    ValueError
        Bad counts, or no unique stationary distribution at ``regularize``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1 (and Table 5, Figure 5).
    .. [2] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise
       comparisons" (Rank Centrality), NIPS 2012.

    Examples
    --------
    Model c won most of its comparisons, model a lost most:

    >>> import numpy as np
    >>> wins = np.array([[0, 3, 4], [1, 0, 3], [0, 1, 0]])  # wins[i, j]: column j beat row i
    >>> comps = np.array([[0, 5, 4], [5, 0, 4], [4, 4, 0]])
    >>> rank_centrality(wins, comps).round(4)
    array([0.027 , 0.2162, 0.7568])
    >>> rank_centrality(wins, comps, ties="decisive_only").round(4)
    array([0.0303, 0.2121, 0.7576])
    """
    P = transition_matrix(wins, comps, ties=ties, regularize=regularize)
    try:
        return stationary_distribution(P)
    except ValueError as exc:
        raise ValueError(
            f"rank centrality is not unique for these comparisons: {exc} Collect comparisons "
            "that connect the models, or pass regularize > 0 (pseudo-judgements each way for "
            "every pair)."
        ) from None


def human_scores(
    wins: np.ndarray,
    comps: np.ndarray,
    models: Sequence[str],
    *,
    regularize: float = 0.0,
    auto_regularize: float = DEFAULT_REGULARIZE,
) -> tuple[pd.DataFrame, list[str]]:
    """Rank-centrality scores of the models under both tie conventions, as a table (Kurniawan et al., section 6.1).

    When a convention has no unique stationary distribution at the requested ``regularize``
    (disconnected comparison graph, a pair without decisive judgements, ...), it is recomputed
    with ``max(regularize, auto_regularize)`` and a :class:`DisconnectedComparisonWarning` is
    issued; the notes say what was done, for the UI.

    Parameters
    ----------
    wins, comps : numpy.ndarray
        (M, M) pairwise counts as in :func:`rank_centrality`.
    models : sequence of str
        The M model names, in the order of the rows.
    regularize : float, default 0.0
        Pseudo-wins each way for every pair.
    auto_regularize : float, default :data:`DEFAULT_REGULARIZE`
        Fallback when the scores are not unique (0: raise instead).

    Returns
    -------
    table : pandas.DataFrame
        ``model, score_in_denominator, score_decisive_only, rank_in_denominator,
        rank_decisive_only, regularize_in_denominator, regularize_decisive_only,
        n_comparisons`` (rank 1 = best; equal scores share the lower rank).
    notes : list of str
        What was done (disconnected graph, regularisation), in words.

    Raises
    ------
    ValueError
        Bad counts, or no unique solution with ``auto_regularize <= 0``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1 (and Table 5, Figure 5).
    .. [2] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise
       comparisons" (Rank Centrality), NIPS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> wins = np.array([[0, 3, 4], [1, 0, 3], [0, 1, 0]])  # wins[i, j]: column j beat row i
    >>> comps = np.array([[0, 5, 4], [5, 0, 4], [4, 4, 0]])
    >>> table, notes = human_scores(wins, comps, ["a", "b", "c"])
    >>> table[["model", "score_in_denominator", "rank_in_denominator"]].round(3)
      model  score_in_denominator  rank_in_denominator
    0     a                 0.027                    3
    1     b                 0.216                    2
    2     c                 0.757                    1
    >>> notes
    []
    """
    models = list(models)
    notes: list[str] = []
    out = pd.DataFrame({"model": models})
    comps_arr = np.asarray(comps, dtype=float)
    labels = comparison_components(comps_arr)
    if len(models) > 1 and len(np.unique(labels)) > 1:
        groups = [[models[i] for i in np.flatnonzero(labels == c)] for c in np.unique(labels)]
        notes.append(
            f"The comparison graph is disconnected ({len(groups)} groups of models never "
            f"compared with each other: {groups}); scores across groups are not identified by "
            "the data."
        )
    for ties in TIES:
        eps = regularize
        try:
            score = rank_centrality(wins, comps, ties=ties, regularize=eps)
        except ValueError:
            if auto_regularize <= 0:
                raise
            eps = max(regularize, auto_regularize)
            score = rank_centrality(wins, comps, ties=ties, regularize=eps)
            message = (
                f"Rank centrality ({ties}) has no unique solution on these judgements; "
                f"regularised with {eps:g} pseudo-judgements each way for every model pair."
            )
            warnings.warn(message, DisconnectedComparisonWarning, stacklevel=2)
            notes.append(message)
        out[f"score_{ties}"] = score
        out[f"rank_{ties}"] = pd.Series(score).rank(ascending=False, method="min").astype(int)
        out[f"regularize_{ties}"] = eps
    out["n_comparisons"] = comps_arr.sum(axis=1).astype(int)
    order = ["model", *(f"score_{t}" for t in TIES), *(f"rank_{t}" for t in TIES),
             *(f"regularize_{t}" for t in TIES), "n_comparisons"]
    return out[order], notes


# --------------------------------------------------------------------------------------------
# Metric vs human correlation
# --------------------------------------------------------------------------------------------


def model_metrics(
    P: np.ndarray, Q_by_model: Mapping[str, np.ndarray], *, multilabel: bool = False
) -> pd.DataFrame:
    """Every metric of :func:`hlv_core.soft_metrics.evaluate` per model (Kurniawan et al., section 3).

    Parameters
    ----------
    P : numpy.ndarray
        (N, K) human judgement distributions.
    Q_by_model : mapping of str to numpy.ndarray
        Each model's (N, K) predictions on the same rows.
    multilabel : bool, default False
        Multilabel metrics.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``model``, one column per metric (undefined metrics NaN, no warning).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", sections 3.1-3.2.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0]])
    >>> table = model_metrics(P, {"m1": np.array([[0.4, 0.6], [0.9, 0.1]])})
    >>> table.loc["m1", ["hard_accuracy", "soft_accuracy"]].round(3).tolist()
    [0.5, 0.9]
    """
    from . import soft_metrics as sm

    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
        for model, Q in Q_by_model.items():
            rows[model] = sm.evaluate(P, Q, multilabel=multilabel)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    return table


def fit_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """Least-squares line ``y = slope * x + intercept`` over the finite pairs.

    The trend drawn in Figure 5 of Kurniawan et al. (metric value against human score).

    Parameters
    ----------
    x, y : numpy.ndarray
        Values of the same length (NaN pairs are dropped).

    Returns
    -------
    tuple of (float, float) or None
        ``(slope, intercept)``; None with fewer than two distinct x values.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.2, Figure 5.

    Examples
    --------
    >>> slope, intercept = fit_line([1, 2, 3], [2, 4, 7])
    >>> round(slope, 6), round(intercept, 6)
    (2.5, -0.666667)
    >>> fit_line([1, 1], [2, 3]) is None
    True
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2 or np.ptp(x[ok]) == 0:
        return None
    slope, intercept = np.polyfit(x[ok], y[ok], 1)
    return float(slope), float(intercept)


@functools.lru_cache(maxsize=12)
def _all_permutations(n: int) -> np.ndarray:
    """All n! permutations of range(n) as an (n!, n) array (n <= 10)."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.int16)


def _pearson_rows(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of every row of X (R, n) with y (n,)."""
    Xc = X - X.mean(axis=1, keepdims=True)
    yc = y - y.mean()
    return (Xc @ yc) / np.sqrt((Xc * Xc).sum(axis=1) * (yc @ yc))


def permutation_pvalue(
    x: np.ndarray,
    y: np.ndarray,
    *,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    exact_max: int = 9,
    n_resamples: int = 9999,
    seed: int = 0,
) -> tuple[float, float, str]:
    """Permutation test of Pearson's r between x and y.

    Null distribution: r of x re-paired with y by every permutation (all n! when
    ``n <= exact_max``, the identity included, ``p = hits / n!``; else ``n_resamples`` uniform
    random permutations, ``p = (hits + 1) / (n_resamples + 1)``). Hits: ``two-sided``
    ``|r_perm| >= |r|``, ``greater`` ``r_perm >= r``, ``less`` ``r_perm <= r`` (a relative
    tolerance of 1e-12 counts ties of floating-point noise as hits).

    Parameters
    ----------
    x, y : numpy.ndarray
        (n,) paired values.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Direction of the test.
    exact_max : int, default 9
        Largest n tested exactly.
    n_resamples : int, default 9999
        Random permutations when n > ``exact_max``.
    seed : int, default 0
        Seed of the random permutations.

    Returns
    -------
    r : float
        Pearson's r.
    p : float
        The permutation p-value.
    test : str
        Which test was run, in words.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.2 (Table 5).

    Examples
    --------
    Five models in the same order under both: only the observed pairing and its mirror reach
    |r|, so p = 2/120:

    >>> import numpy as np
    >>> r, p, test = permutation_pvalue(np.array([1, 2, 3, 4, 5.0]),
    ...                                 np.array([1.1, 1.9, 3.2, 3.9, 5.3]))
    >>> round(r, 4), round(p, 4), test
    (0.9949, 0.0167, 'exact permutation (120 pairings)')
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = x.size
    r = float(_pearson_rows(x[None, :], y)[0])
    if n <= exact_max:
        perms = _all_permutations(n)
        test = f"exact permutation ({perms.shape[0]} pairings)"
    else:
        rng = np.random.default_rng(seed)
        perms = rng.permuted(np.tile(np.arange(n), (n_resamples, 1)), axis=1)
        test = f"Monte Carlo permutation ({n_resamples} pairings, seed {seed})"
    null = _pearson_rows(x[perms], y)
    slack = 1e-12 * max(1.0, abs(r))
    if alternative == "greater":
        hits = null >= r - slack
    elif alternative == "less":
        hits = null <= r + slack
    else:
        hits = np.abs(null) >= abs(r) - slack
    count = int(hits.sum())
    p = count / null.size if n <= exact_max else (count + 1) / (n_resamples + 1)
    return r, float(min(1.0, p)), test


def _constant(values: np.ndarray) -> bool:
    """True when the values differ by no more than floating-point noise (relative 1e-9)."""
    return bool(np.ptp(values) <= 1e-9 * max(1.0, float(np.abs(values).max())))


def metric_correlations(
    metrics: pd.DataFrame,
    scores: pd.Series | Mapping[str, float],
    *,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    exact_max_models: int = 9,
    n_resamples: int = 9999,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Pearson r between each metric's per-model values and the human scores (Kurniawan et al., Table 5).

    For each metric the models with a finite value are used (n >= 3 needed, else r and p are
    NaN with a note). The p-value is the share of pairings of the metric values with the
    scores whose r is at least as extreme (:func:`permutation_pvalue`): exact over all n!
    pairings when ``n <= exact_max_models``, else ``n_resamples`` seeded random pairings. The
    smallest attainable exact p is 1/n! one-sided (2/n! two-sided): with 3 models p >= 1/3, so
    significance needs n >= 5 (:func:`smallest_p`). With ``x_m`` a metric's value for model
    m, ``y_m`` its human score and ``S_n`` the n! re-pairings (permutations pi) of the scores:

    .. math::

        r = \frac{\sum_m (x_m - \bar x)(y_m - \bar y)}
        {\sqrt{\sum_m (x_m - \bar x)^2} \sqrt{\sum_m (y_m - \bar y)^2}}, \qquad
        p = \frac{\#\{\pi \in S_n : |r(x, y_\pi)| \ge |r(x, y)|\}}{|S_n|}

    (exact, two-sided; ``"greater"`` / ``"less"`` compare the signed r; with random
    pairings ``p = (hits + 1) / (n_resamples + 1)``). The paper computes Pearson's
    r between each metric and the rank-centrality scores (section 6.1) and reports it in
    Table 5 (section 6.2).

    Parameters
    ----------
    metrics : pandas.DataFrame
        Indexed by model, one column per metric (:func:`model_metrics`).
    scores : pandas.Series or mapping of str to float
        Human score per model (e.g. rank centrality).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The paper does not say; two-sided by default.
    exact_max_models : int, default 9
        Largest number of models tested exactly (at most 10).
    n_resamples : int, default 9999
        Random pairings beyond that.
    seed : int, default 0
        Seed of the random pairings.

    Returns
    -------
    pandas.DataFrame
        ``metric, r, p_value, alternative, n_models, test, note``.

    Raises
    ------
    ValueError
        Unknown ``alternative`` or ``exact_max_models > 10``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.2 (Table 5, Figure 5).

    Examples
    --------
    >>> import pandas as pd
    >>> metrics = pd.DataFrame({"soft_accuracy": [0.6, 0.7, 0.8, 0.9, 0.75]},
    ...                        index=["a", "b", "c", "d", "e"])
    >>> human = pd.Series([0.1, 0.15, 0.2, 0.3, 0.25], index=["a", "b", "c", "d", "e"])
    >>> metric_correlations(metrics, human)[["metric", "r", "p_value", "n_models"]].round(3)
              metric      r  p_value  n_models
    0  soft_accuracy  0.919     0.05         5
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be two-sided, greater or less; got {alternative!r}.")
    scores = pd.Series(scores, dtype=float)
    if exact_max_models > 10:
        raise ValueError("exact_max_models must be <= 10 (10! pairings).")
    rows = []
    for metric in metrics.columns:
        values = pd.to_numeric(metrics[metric], errors="coerce").astype(float)
        joined = pd.concat([values.rename("x"), scores.rename("y")], axis=1, join="inner")
        joined = joined[np.isfinite(joined["x"]) & np.isfinite(joined["y"])]
        n = len(joined)
        row = {"metric": metric, "r": math.nan, "p_value": math.nan, "alternative": alternative,
               "n_models": n, "test": "", "note": ""}
        dropped = sorted(set(values.index) - set(joined.index))
        if dropped:
            row["note"] = f"undefined for {dropped}; "
        x, y = joined["x"].to_numpy(), joined["y"].to_numpy()
        if n < 3:
            row["note"] += "fewer than 3 models with a value"
        elif _constant(x) or _constant(y):  # float noise (0.5 vs 0.5000000000000002) too
            row["note"] += "constant values: correlation undefined"
        else:
            row["r"], row["p_value"], row["test"] = permutation_pvalue(
                x, y, alternative=alternative, exact_max=exact_max_models,
                n_resamples=n_resamples, seed=seed)
        row["note"] = row["note"].strip("; ")
        rows.append(row)
    return pd.DataFrame(rows, columns=["metric", "r", "p_value", "alternative", "n_models",
                                       "test", "note"])


# --------------------------------------------------------------------------------------------
# Judgement tables
# --------------------------------------------------------------------------------------------


_latest = latest_judgements  # the name used before the store had its own module


def pair_table(judgements: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """Judgements per unordered model pair.

    Uses the rows given (pass ``ReviewStore.judgements(latest_only=True)`` for the counts that
    feed rank centrality). ``decisive_share = (model_1_wins + model_2_wins) / n``.

    Parameters
    ----------
    judgements : pandas.DataFrame
        Judgement rows with ``model_a, model_b, choice`` (:meth:`ReviewStore.judgements`).
    models : sequence of str, optional
        Model order (model_1 comes before model_2 in it); default sorted names.

    Returns
    -------
    pandas.DataFrame
        ``model_1, model_2, n, model_1_wins, model_2_wins, both, neither, decisive_share``.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import pandas as pd
    >>> judgements = pd.DataFrame({"model_a": ["m1", "m2", "m1"], "model_b": ["m2", "m1", "m2"],
    ...                            "choice": ["A", "A", "both"]})
    >>> pair_table(judgements).round(3)
      model_1 model_2  n  model_1_wins  model_2_wins  both  neither  decisive_share
    0      m1      m2  3             1             1     1        0           0.667
    """
    if models is None:
        models = sorted(set(judgements["model_a"]) | set(judgements["model_b"])) \
            if not judgements.empty else []
    models = list(models)
    wins, comps = counts_from_judgements(judgements, models)
    both = np.zeros_like(comps)
    neither = np.zeros_like(comps)
    if not judgements.empty:
        index = pd.Index(models)
        a = index.get_indexer(judgements["model_a"])
        b = index.get_indexer(judgements["model_b"])
        choice = judgements["choice"].to_numpy(dtype=object)
        for target, name in ((both, "both"), (neither, "neither")):
            sel = (a >= 0) & (b >= 0) & (choice == name)
            np.add.at(target, (a[sel], b[sel]), 1)
            np.add.at(target, (b[sel], a[sel]), 1)
    i, j = np.triu_indices(len(models), k=1)
    names = np.array(models, dtype=object)
    n = comps[i, j]
    decisive = wins[j, i] + wins[i, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, decisive / np.maximum(n, 1), np.nan)
    return pd.DataFrame({
        "model_1": names[i], "model_2": names[j], "n": n,
        "model_1_wins": wins[j, i], "model_2_wins": wins[i, j],
        "both": both[i, j], "neither": neither[i, j], "decisive_share": share,
    })


def visible_distribution(probs: Mapping[str, float] | pd.Series, *, threshold: float = 0.0
                         ) -> pd.DataFrame:
    """What a reviewer sees of one model output (Kurniawan et al., section 6.1).

    Labels with probability > ``threshold``, sorted by probability (descending; ties by label
    inventory order as given). The paper's footnote 19 uses 0.1 for multilabel; default 0.

    Parameters
    ----------
    probs : mapping of str to float or pandas.Series
        Probability per label, in inventory order.
    threshold : float, default 0.0
        Labels at or below it are hidden.

    Returns
    -------
    pandas.DataFrame
        ``label, probability``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> visible_distribution({"neg": 0.1, "neu": 0.45, "pos": 0.45}, threshold=0.1)
      label  probability
    0   neu         0.45
    1   pos         0.45
    """
    series = pd.Series(probs, dtype=float)
    order = np.arange(len(series))
    frame = pd.DataFrame({"label": series.index.astype(str), "probability": series.to_numpy(),
                          "_order": order})
    frame = frame[frame["probability"] > threshold]
    frame = frame.sort_values(["probability", "_order"], ascending=[False, True], kind="stable")
    return frame.drop(columns="_order").reset_index(drop=True)



def case_labels(outputs: pd.DataFrame, *, threshold: float = 0.0,
                max_labels: int | None = None) -> list[str]:
    """The labels every output of one case lists, in inventory order.

    So that the outputs shown side by side line up row by row (a reviewer compares like with
    like). A label is listed when some output gives it more than ``threshold`` (Kurniawan et
    al., section 6.1); when more than ``max_labels`` qualify, those with the highest largest
    probability are kept (ties: inventory order), still listed in inventory order.

    Parameters
    ----------
    outputs : pandas.DataFrame
        (outputs x labels) probabilities, columns in label inventory order.
    threshold : float, default 0.0
        A label needs some output above it.
    max_labels : int, optional
        Most labels listed.

    Returns
    -------
    list of str
        The labels to show.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import pandas as pd
    >>> outputs = pd.DataFrame({"neg": [0.05, 0.1], "neu": [0.5, 0.6], "pos": [0.45, 0.3]})
    >>> case_labels(outputs, threshold=0.1)
    ['neu', 'pos']
    >>> case_labels(outputs, max_labels=1)
    ['neu']
    """
    frame = pd.DataFrame(outputs, dtype=float)
    top = frame.max(axis=0).to_numpy()
    keep = np.flatnonzero(top > threshold)
    if max_labels is not None and len(keep) > max_labels:
        order = np.lexsort((keep, -top[keep]))[:max_labels]
        keep = np.sort(keep[order])
    return [str(frame.columns[k]) for k in keep]

# --------------------------------------------------------------------------------------------
# Roles: who may see and export what
# --------------------------------------------------------------------------------------------


class Access(NamedTuple):
    """Who is asking: the signed-in reviewer and whether the deployment lists them as an admin.

    Parameters
    ----------
    user : str
        The signed-in reviewer (e.g. an e-mail address).
    is_admin : bool, default False
        Admins see reviewer names, pool datasets, export and import everything.

    Examples
    --------
    >>> Access("ann@example.org"), can_import(Access("root", is_admin=True))
    (Access(user='ann@example.org', is_admin=False), True)
    """

    user: str
    is_admin: bool = False


def _need_admin(access: Access, what: str) -> None:
    if not access.is_admin:
        raise PermissionError(f"only an admin may {what}; {access.user!r} is not an admin.")


def own_judgements(store: ReviewStore, access: Access, dataset: str) -> pd.DataFrame:
    """The signed-in reviewer's own judgements of ``dataset`` (comments included), all rows.

    Parameters
    ----------
    store : ReviewStore
        The judgement store.
    access : Access
        Who is asking.
    dataset : str
        Dataset name.

    Returns
    -------
    pandas.DataFrame
        The :meth:`ReviewStore.judgements` columns, this reviewer's rows only.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
    >>> _ = store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
    >>> _ = store.add("bob", "i1", "m1", "m2", "B", dataset="toy", comment="close call")
    >>> _ = store.add("bob", "i2", "m1", "m2", "both", dataset="toy")
    >>> own_judgements(store, Access("bob"), "toy")[["reviewer", "item_id", "choice"]]
      reviewer item_id choice
    0      bob      i1      B
    1      bob      i2   both
    """
    return store.judgements(dataset=dataset, reviewer=access.user)


def aggregate_judgements(store: ReviewStore, access: Access, dataset: str | None) -> pd.DataFrame:
    """The latest judgements that feed the shared ranking of ``dataset``.

    Visible to every reviewer of it; comments never included. Other reviewers appear as
    ``reviewer 1``, ``reviewer 2``, ... (numbered by first judgement) unless ``access`` is an
    admin; the caller's own rows keep their name.

    Parameters
    ----------
    store : ReviewStore
        The judgement store.
    access : Access
        Who is asking.
    dataset : str or None
        Dataset name; None (every dataset) is admin-only.

    Returns
    -------
    pandas.DataFrame
        ``id, reviewer, item_id, model_a, model_b, choice, dataset, created_at``.

    Raises
    ------
    PermissionError
        ``dataset=None`` for a non-admin.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
    >>> _ = store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
    >>> _ = store.add("bob", "i1", "m1", "m2", "B", dataset="toy", comment="close call")
    >>> _ = store.add("bob", "i2", "m1", "m2", "both", dataset="toy")
    >>> aggregate_judgements(store, Access("ann"), "toy")[["reviewer", "item_id", "choice"]]
         reviewer item_id choice
    0         ann      i1      A
    1  reviewer 2      i1      B
    2  reviewer 2      i2   both
    """
    if dataset is None:
        _need_admin(access, "pool judgements across datasets")
    frame = store.judgements(dataset=dataset, latest_only=True)
    frame = frame[["id", "reviewer", "item_id", "model_a", "model_b", "choice", "dataset",
                   "created_at"]].reset_index(drop=True)
    if not access.is_admin and not frame.empty:
        first_seen = pd.unique(frame.sort_values("id")["reviewer"])
        alias = {name: f"reviewer {k + 1}" for k, name in enumerate(first_seen)}
        alias[access.user] = access.user
        frame["reviewer"] = frame["reviewer"].map(alias)
    return frame


def exportable_judgements(store: ReviewStore, access: Access, dataset: str | None, *,
                          everyone: bool = False) -> pd.DataFrame:
    """The judgements ``access`` may download.

    A reviewer gets only their own judgements of ``dataset``; an admin gets every reviewer's
    with ``everyone=True`` and every dataset with ``dataset=None`` (the
    :meth:`ReviewStore.export_frame` layout; the CSV writer neutralises formulas).

    Parameters
    ----------
    store : ReviewStore
        The judgement store.
    access : Access
        Who is asking.
    dataset : str or None
        Dataset name; None = every dataset (admin).
    everyone : bool, default False
        Every reviewer's judgements (admin).

    Returns
    -------
    pandas.DataFrame
        ``uuid, reviewer, item_id, model_a, model_b, choice, comment, dataset, created_at,
        recorded_at, source, imported_by, import_file``.

    Raises
    ------
    PermissionError
        Asking for more than the role allows.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
    >>> _ = store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
    >>> _ = store.add("bob", "i1", "m1", "m2", "B", dataset="toy", comment="close call")
    >>> _ = store.add("bob", "i2", "m1", "m2", "both", dataset="toy")
    >>> len(exportable_judgements(store, Access("bob"), "toy"))
    2
    >>> exportable_judgements(store, Access("bob"), "toy", everyone=True)
    Traceback (most recent call last):
    PermissionError: only an admin may export other reviewers' judgements or every dataset; 'bob' is not an admin.
    """
    if everyone or dataset is None:
        _need_admin(access, "export other reviewers' judgements or every dataset")
    return store.export_frame(dataset=dataset, reviewer=None if everyone else access.user)


def exportable_own_labels(store: ReviewStore, access: Access, dataset: str | None, *,
                          everyone: bool = False) -> pd.DataFrame:
    """Own-label records ``access`` may download.

    Same rule as :func:`exportable_judgements`; the labels are joined with ``|``.

    Parameters
    ----------
    store : ReviewStore
        The judgement store.
    access : Access
        Who is asking.
    dataset : str or None
        Dataset name; None = every dataset (admin).
    everyone : bool, default False
        Every reviewer's records (admin).

    Returns
    -------
    pandas.DataFrame
        ``uuid, reviewer, item_id, labels, dataset, created_at``.

    Raises
    ------
    PermissionError
        Asking for more than the role allows.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
    >>> _ = store.add_own_labels("ann", "i1", ["pos", "neg"], dataset="toy")
    >>> exportable_own_labels(store, Access("ann"), "toy")[["reviewer", "item_id", "labels"]]
      reviewer item_id   labels
    0      ann      i1  pos|neg
    """
    if everyone or dataset is None:
        _need_admin(access, "export other reviewers' own labels or every dataset")
    frame = store.own_labels(dataset=dataset, reviewer=None if everyone else access.user)
    return frame.assign(labels=frame["labels"].map("|".join)).drop(columns="id")


def can_import(access: Access) -> bool:
    """Whether ``access`` may import judgements (admins only: an import writes rows in other reviewers' names).

    Parameters
    ----------
    access : Access
        Who is asking.

    Returns
    -------
    bool
        True for an admin.

    Examples
    --------
    >>> can_import(Access("ann")), can_import(Access("root", is_admin=True))
    (False, True)
    """
    return bool(access.is_admin)


def smallest_p(n: int, alternative: str = "two-sided") -> float:
    """The smallest p-value the exact permutation test can give with ``n`` models.

    Only the observed pairing (and, two-sided, its mirror) among the ``n!`` pairings reaches the
    observed r, so ``p_min = c / n!`` with ``c = 2`` two-sided, ``1`` otherwise (Kurniawan et
    al., section 6: with few models no correlation can be significant).

    Parameters
    ----------
    n : int
        Number of models.
    alternative : str, default "two-sided"
        ``"two-sided"``, ``"greater"`` or ``"less"``.

    Returns
    -------
    float
        ``c / n!``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.2.

    Examples
    --------
    >>> round(smallest_p(5), 4), round(smallest_p(3, "greater"), 4)
    (0.0167, 0.1667)
    """
    return (2.0 if alternative == "two-sided" else 1.0) / float(math.factorial(int(n)))


__all__ += ["smallest_p"]  # appended while review.py is being split
