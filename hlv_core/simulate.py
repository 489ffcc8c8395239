"""Table 2 of Kurniawan et al.: how the four multiclass metrics correlate on random distributions.

Kurniawan et al. (arXiv 2502.01891), Table 2.
For B pairs (P, Q) of ``rows x K`` matrices with rows of P ~ Dirichlet(alpha 1) and rows of
Q ~ Dirichlet(beta 1), compute per pair A = hard accuracy, J = PO-JSD, E = entropy correlation
and S = soft accuracy, then the Pearson correlation of the four metrics across the B pairs.

Random stream (so that ``seed`` reproduces a run exactly):
``numpy.random.default_rng(seed)``; for each pair P is drawn, then Q (``Generator.dirichlet``
with ``size=rows``); :func:`table2` runs the eight settings of Table 2 in order on one
generator. Sampling follows that order pair by pair; the metrics are computed for a whole block
of pairs at once on (b, rows, K) arrays (no loop over pairs or rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .soft_metrics import LOG_CUTOFF, jsd_rows

__all__ = [
    "METRIC_NAMES",
    "PAPER_TABLE2",
    "SETTINGS",
    "SimulationResult",
    "figure1_curves",
    "figure1_point",
    "pair_metrics",
    "simulate",
    "table2",
]

#: Short names of the four metrics, in Table 2 order.
METRIC_NAMES = {"A": "hard accuracy", "J": "PO-JSD", "E": "entropy correlation",
                "S": "soft accuracy"}
#: The eight (K, alpha, beta) settings of Kurniawan et al.'s Table 2, in the reference run's order.
SETTINGS: tuple[tuple[int, float, float], ...] = tuple(
    (k, a, b) for k in (10, 100) for a, b in ((10, 10), (0.1, 0.1), (10, 0.1), (0.1, 10))
)
PAIRS = ("A-J", "A-E", "A-S", "J-E", "J-S", "E-S")


@dataclass(frozen=True)
class SimulationResult:
    """Per-pair metric values and their correlations for one (K, alpha, beta) setting of Table 2.

    Attributes
    ----------
    K : int
        Labels.
    alpha, beta : float
        Dirichlet concentrations of P and Q.
    B : int
        Pairs of matrices.
    rows : int
        Rows per matrix.
    seed : int or None
        Seed (None when a shared generator was given).
    values : pandas.DataFrame
        (B, 4): columns ``A, J, E, S`` (hard accuracy, PO-JSD, entropy correlation, soft
        accuracy) per pair.
    corr : pandas.DataFrame
        4 x 4 Pearson correlation matrix of ``values``; ``pairs()`` gives its six
        off-diagonal entries in Table 2 order (``"A-J"``, ..., ``"E-S"``).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.3 and Table 2.

    Examples
    --------
    >>> result = simulate(K=10, alpha=10, beta=10, B=50, rows=200, seed=0)
    >>> result.values.shape, list(result.pairs())
    ((50, 4), ['A-J', 'A-E', 'A-S', 'J-E', 'J-S', 'E-S'])
    """

    K: int
    alpha: float
    beta: float
    B: int
    rows: int
    seed: int | None
    values: pd.DataFrame  # B rows, columns A, J, E, S
    corr: pd.DataFrame  # 4 x 4 Pearson correlation matrix

    def pairs(self) -> dict[str, float]:
        """The six off-diagonal correlations in Table 2 order (``"A-J"``, ..., ``"E-S"``)."""
        return {p: float(self.corr.loc[p[0], p[2]]) for p in PAIRS}


def pair_metrics(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Hard accuracy, PO-JSD, entropy correlation and soft accuracy for a block of pairs (Kurniawan et al., section 3.1).

    A = mean ``[argmax P_i = argmax Q_i]``; J = ``1 - mean_i JSD(P_i, Q_i)`` (bits); E =
    Pearson correlation of the normalised entropies ``H(P_i) / ln K`` and ``H(Q_i) / ln K``;
    S = mean ``sum_k min(P_ik, Q_ik)``. Same conventions as :mod:`hlv_core.soft_metrics`
    (argmax ties to the lowest index, the 1e-8 cut-offs, standard Pearson denominator).

    Parameters
    ----------
    P, Q : numpy.ndarray
        (b, N, K) blocks of b matrix pairs.

    Returns
    -------
    numpy.ndarray
        (b, 4): columns A, J, E, S.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[[0.5, 0.5], [0.9, 0.1]]])
    >>> Q = np.array([[[0.6, 0.4], [0.8, 0.2]]])
    >>> pair_metrics(P, Q).round(4)
    array([[1.    , 0.9892, 1.    , 0.9   ]])
    """
    A = (np.argmax(P, axis=2) == np.argmax(Q, axis=2)).mean(axis=1)
    S = np.minimum(P, Q).sum(axis=2).mean(axis=1)
    J = 1.0 - jsd_rows(P, Q).mean(axis=1)

    def ent(X: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return -np.where(X >= LOG_CUTOFF, X * np.log(np.where(X > 0, X, 1.0)), 0.0).sum(
                axis=2
            ) / np.log(X.shape[2])

    hp, hq = ent(P), ent(Q)
    zp = hp - hp.mean(axis=1, keepdims=True)
    zq = hq - hq.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        E = (zp * zq).sum(axis=1) / (np.sqrt((zp**2).sum(axis=1)) * np.sqrt((zq**2).sum(axis=1)))
    return np.stack([A, J, E, S], axis=1)


def simulate(
    K: int = 10,
    alpha: float = 10.0,
    beta: float = 10.0,
    B: int = 500,
    rows: int = 1000,
    *,
    seed: int | None = 0,
    rng: np.random.Generator | None = None,
    progress: Callable[[float], None] | None = None,
    block_bytes: int = 64_000_000,
) -> SimulationResult:
    r"""Run one setting of Kurniawan et al.'s Table 2: how the four metrics correlate on random distributions.

    For B pairs (P, Q) of ``rows x K`` matrices with rows of P ~ Dirichlet(alpha 1) and rows of
    Q ~ Dirichlet(beta 1), compute :func:`pair_metrics` per pair, then the Pearson correlation
    of the four metrics across the B pairs. The stream is ``numpy.random.default_rng(seed)``,
    P then Q pair by pair. For metrics m, m' (hard accuracy, PO-JSD, entropy correlation, soft
    accuracy) with values ``x_b = m(P_b, Q_b)`` and ``y_b = m'(P_b, Q_b)``:

    .. math::

        r(m, m') = \frac{\sum_b (x_b - \bar x)(y_b - \bar y)}
        {\sqrt{\sum_b (x_b - \bar x)^2} \sqrt{\sum_b (y_b - \bar y)^2}}

    the Pearson correlation that Table 2 reports (``J-S`` is PO-JSD against soft accuracy).

    Parameters
    ----------
    K : int, default 10
        Labels (>= 2).
    alpha, beta : float, default 10.0
        Dirichlet concentrations of P and Q (> 0).
    B : int, default 500
        Pairs (>= 3).
    rows : int, default 1000
        Rows per matrix (>= 2).
    seed : int or None, default 0
        Seed.
    rng : numpy.random.Generator, optional
        A shared generator (overrides ``seed``).
    progress : callable, optional
        ``progress(fraction)`` after every block of pairs.
    block_bytes : int, default 64_000_000
        Memory of one block of P and Q.

    Returns
    -------
    SimulationResult
        Values and correlations.

    Raises
    ------
    ValueError
        ``K < 2``, ``B < 3``, ``rows < 2`` or non-positive concentrations.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.3 and Table 2.

    Examples
    --------
    Soft accuracy and PO-JSD move together (Table 2 reports J-S 0.94 for this setting):

    >>> result = simulate(K=10, alpha=10, beta=10, B=50, rows=200, seed=0)
    >>> result.pairs()["J-S"] > 0.9
    True
    """
    if K < 2:
        raise ValueError("K must be at least 2 (entropy is normalised by ln K).")
    if B < 3 or rows < 2:
        raise ValueError("need B >= 3 pairs and rows >= 2 per matrix.")
    if alpha <= 0 or beta <= 0:
        raise ValueError("alpha and beta must be positive.")
    gen = rng if rng is not None else np.random.default_rng(seed)
    a_vec, b_vec = np.full(K, float(alpha)), np.full(K, float(beta))
    block = max(1, min(B, block_bytes // (2 * rows * K * 8)))
    out = np.empty((B, 4))
    for start in range(0, B, block):
        b = min(block, B - start)
        P = np.empty((b, rows, K))
        Q = np.empty((b, rows, K))
        for j in range(b):  # the reference stream: P then Q, pair by pair
            P[j] = gen.dirichlet(a_vec, size=rows)
            Q[j] = gen.dirichlet(b_vec, size=rows)
        out[start:start + b] = pair_metrics(P, Q)
        if progress is not None:
            progress((start + b) / B)
    values = pd.DataFrame(out, columns=list("AJES"))
    corr = pd.DataFrame(np.corrcoef(out, rowvar=False), index=list("AJES"), columns=list("AJES"))
    return SimulationResult(int(K), float(alpha), float(beta), int(B), int(rows),
                            None if rng is not None else seed, values, corr)


def table2(
    seed: int = 0,
    *,
    B: int = 500,
    rows: int = 1000,
    settings: tuple[tuple[int, float, float], ...] = SETTINGS,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """The full Table 2 of Kurniawan et al.: eight settings on one generator, as the reference run.

    Parameters
    ----------
    seed : int, default 0
        Seed of the one generator.
    B : int, default 500
        Pairs per setting.
    rows : int, default 1000
        Rows per matrix.
    settings : tuple of (int, float, float), default :data:`SETTINGS`
        (K, alpha, beta) settings, run in order.
    progress : callable, optional
        ``progress(fraction)``.

    Returns
    -------
    pandas.DataFrame
        One row per setting: ``K, alpha, beta`` and the six correlations ``A-J ... E-S``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.3 and Table 2.

    Examples
    --------
    >>> table = table2(seed=0, B=20, rows=100, settings=SETTINGS[:2])
    >>> table[["K", "alpha", "beta"]]
        K  alpha  beta
    0  10   10.0  10.0
    1  10    0.1   0.1
    >>> bool((table["J-S"] > 0.8).all())
    True
    """
    gen = np.random.default_rng(seed)
    rows_out = []
    for i, (k, a, b) in enumerate(settings):
        def step(f: float, i: int = i) -> None:
            if progress is not None:
                progress((i + f) / len(settings))

        res = simulate(k, a, b, B, rows, rng=gen, progress=step)
        rows_out.append({"K": k, "alpha": a, "beta": b, **res.pairs()})
    return pd.DataFrame(rows_out)


# ------------------------------------------------------------------------ paper values, Figure 1
#: Kurniawan et al., Table 2: (K, alpha, beta) -> correlations (A-J, A-E, A-S, J-E, J-S, E-S),
#: the published values shown beside a simulation run with the same setting.
PAPER_TABLE2: dict[tuple[int, float, float], tuple[float, ...]] = {
    (10, 10.0, 10.0): (0.27, 0.05, 0.29, 0.04, 0.94, 0.10),
    (10, 0.1, 0.1): (0.63, 0.06, 0.73, 0.13, 0.96, 0.16),
    (100, 10.0, 0.1): (0.00, -0.06, -0.03, 0.05, 0.96, 0.06),
}


def figure1_curves(p: float, *, n_points: int = 201) -> pd.DataFrame:
    """Kurniawan et al., Figure 1: soft accuracy and PO-JSD of one binary item as the prediction moves.

    Humans split ``p : 1 - p``; for ``n_points`` predictions ``q`` evenly spaced in [0, 1],
    the soft accuracy ``min(p, q) + min(1 - p, 1 - q)`` (``soft_overlap``) and PO-JSD
    ``1 - JSD(P, Q)`` in bits (``po_jsd``), from :func:`hlv_core.soft_metrics.per_item`
    (Theorem 1: soft accuracy <= PO-JSD).

    Parameters
    ----------
    p : float
        Human share of the first class.
    n_points : int, default 201
        Grid points.

    Returns
    -------
    pandas.DataFrame
        ``q, soft_overlap, po_jsd``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.3, Theorem 1 and Figure 1.

    Examples
    --------
    >>> curves = figure1_curves(0.7, n_points=5)
    >>> curves.round(4)
          q  soft_overlap  po_jsd
    0  0.00          0.30  0.5066
    1  0.25          0.55  0.8481
    2  0.50          0.80  0.9697
    3  0.75          0.95  0.9977
    4  1.00          0.70  0.8308
    >>> bool((curves.soft_overlap <= curves.po_jsd).all())  # Theorem 1
    True
    """
    from .soft_metrics import per_item

    grid = np.linspace(0, 1, n_points)
    P = np.column_stack([np.full_like(grid, p), 1 - np.full_like(grid, p)])
    Q = np.column_stack([grid, 1 - grid])
    curves = per_item(P, Q)
    return pd.DataFrame({"q": grid, "soft_overlap": curves["soft_overlap"].to_numpy(),
                         "po_jsd": curves["po_jsd"].to_numpy()})


def figure1_point(p: float, q: float) -> dict[str, float]:
    """Soft accuracy, PO-JSD and hard accuracy of one binary item (Kurniawan et al., Figure 1).

    Humans ``p`` and model ``q`` on the first class; hard accuracy breaks the argmax tie at 0.5
    to the first class.

    Parameters
    ----------
    p : float
        Human share of the first class.
    q : float
        Model probability of the first class.

    Returns
    -------
    dict
        ``soft_accuracy, po_jsd, hard_accuracy``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.3, Theorem 1 and Figure 1.

    Examples
    --------
    >>> point = figure1_point(0.7, 0.5)
    >>> round(point["soft_accuracy"], 4), round(point["po_jsd"], 4), point["hard_accuracy"]
    (0.8, 0.9697, 1.0)
    """
    from .soft_metrics import hard_accuracy, per_item

    P, Q = np.array([[p, 1 - p]]), np.array([[q, 1 - q]])
    one = per_item(P, Q)
    return {"soft_accuracy": float(one["soft_overlap"].iloc[0]),
            "po_jsd": float(one["po_jsd"].iloc[0]),
            "hard_accuracy": float(hard_accuracy(P, Q))}
