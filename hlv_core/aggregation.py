"""Aggregating annotations into plausibilities (Stutz et al. 2023, sections 3-4): a distribution
lambda over the K classes per case, as a point estimate or as posterior samples.

* Inputs: :func:`model_data` (the counts or the selectors a model reads from a dataset),
  :func:`risk_vector` (risk group per class), selectors helpers.
* Point estimates: :func:`proportions`, :func:`irn` (Stutz et al., sec. 3: a block's weight 1/b
  shared by the block's classes; ``tie_split=False`` / :func:`irn_reference` = the authors'
  released ``irn.py``, full 1/b for every tied class), :func:`pl_mle`, :func:`point_estimate`.
* Samplers (Stutz et al., sec. 4): ``"dirichlet"`` Dir(r c + a0), ``"prirn"`` Dir(r IRN + a0),
  ``"pl"`` Plackett-Luce Gibbs sampler with every reader repeated r times; r = inf gives the
  point estimate repeated S times (:func:`sample_plausibilities`).
* :func:`topk_sets`: the top-k classes of scores (ties: lowest class index first,
  ``docs/conventions.md``).

The certainty measures and UA metrics on these samples are in :mod:`hlv_core.certainty`, which
re-exports the names of this module that users call.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import _plackett_luce as _pl
from ._plackett_luce import pl_gibbs
from .io import DataError

__all__ = [
    "DEFAULT_PRIOR",
    "MODELS",
    "check_sampler_args",
    "default_prior",
    "densify_samples",
    "irn",
    "irn_reference",
    "model_data",
    "pl_mle",
    "point_estimate",
    "proportions",
    "risk_vector",
    "sample_plausibilities",
    "selectors_from_opinions",
    "selectors_from_rankings_groups",
    "topk_sets",
]

MODELS = ("dirichlet", "prirn", "pl")

#: The one default Dirichlet pseudo-count a0 per label, by model (used by the engine, the CLI
#: and the Certainty page): 0.1 for vote counts (small, visible), 0.01 for PrIRN as in the
#: reference notebook of Stutz et al. (``colab_ua_accuracy.ipynb``: ``alpha = 0.01``). The
#: Plackett-Luce model has a Gamma prior instead (``pl_shape``, ``pl_rate``).
DEFAULT_PRIOR: dict[str, float] = {"dirichlet": 0.1, "prirn": 0.01, "pl": 0.1}


def default_prior(model: str) -> float:
    r"""The default Dirichlet pseudo-count a0 of ``model``.

    .. math:: \lambda \sim \mathrm{Dir}(r\,c + a_0), \quad a_0 = 0.1 \text{ (Dirichlet)},\;
       0.01 \text{ (PrIRN)}

    Stutz et al. (2023), Appendix A (Dirichlet) and B.3 (PrIRN, the reference notebook's value).
    Plackett-Luce uses its Gamma prior instead and returns the Dirichlet default.

    Parameters
    ----------
    model : {"dirichlet", "prirn", "pl"}
        Aggregation model.

    Returns
    -------
    float

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix A and B.3.

    Examples
    --------
    >>> default_prior("dirichlet"), default_prior("prirn")
    (0.1, 0.01)
    """
    if model not in DEFAULT_PRIOR:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    return DEFAULT_PRIOR[model]


# ---------------------------------------------------------------------------------- formats
def selectors_from_opinions(opinions) -> list:
    r"""Convert the reference "opinions" format into selectors.

    .. math:: \text{block order} = \text{decreasing confidence}; \quad \text{confidence} = 0
       \Rightarrow \text{unranked}

    Stutz et al. (2023), Appendix B.1 (partial rankings as blocks of tied classes, eq. (13)); the
    reference code's ``formats.py`` opinions layout: per case a readers x classes array of integer
    confidences, higher ranked first, equal = tied; a row of zeros (an empty reader) is left out,
    as in :func:`selectors_from_rankings_groups`.

    Parameters
    ----------
    opinions : sequence of array_like of shape (R, K)
        One confidence matrix per case.

    Returns
    -------
    list
        Selectors (case -> reader -> blocks of class ids).

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix B.1, eq. (13).

    Examples
    --------
    >>> selectors_from_opinions([[[2, 1, 0], [0, 1, 1]]])
    [[[[0], [1]], [[1, 2]]]]
    """
    out = []
    for case in opinions:
        arr = np.asarray(case)
        readers = []
        for row in np.atleast_2d(arr):
            levels = sorted({int(v) for v in row if v > 0}, reverse=True)
            if levels:  # an all-zero row is an empty reader: left out (reference formats.py)
                readers.append([[int(c) for c in np.flatnonzero(row == v)] for v in levels])
        out.append(readers)
    return out


def selectors_from_rankings_groups(rankings, groups) -> list:
    r"""Convert the reference rankings/groups arrays into selectors.

    .. math:: B_b = \{\mathrm{rankings}_j : \mathrm{groups}_j = b\}, \quad
       \mathrm{groups}_j = -1 \Rightarrow \text{unranked}

    Stutz et al. (2023), Appendix B.1, eq. (13) (reference ``formats.py`` layout).

    Parameters
    ----------
    rankings : array_like of shape (N, R, K)
        Class ids in rank order per case and reader.
    groups : array_like of shape (N, R, K)
        Block index of each position (-1 = unranked).

    Returns
    -------
    list
        Selectors.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix B.1, eq. (13).

    Examples
    --------
    >>> import numpy as np
    >>> selectors_from_rankings_groups(np.array([[[0, 1, 2], [1, 2, 0]]]),
    ...                                np.array([[[0, 1, -1], [0, 0, -1]]]))
    [[[[0], [1]], [[1, 2]]]]
    """
    rk, gr = np.asarray(rankings), np.asarray(groups)
    out = []
    for rc, gc in zip(rk, gr, strict=True):
        readers = []
        for r, g in zip(rc, gc, strict=True):
            blocks = []
            for level in sorted({int(v) for v in g if v >= 0}):
                blocks.append([int(c) for c in r[g == level]])
            if blocks:
                readers.append(blocks)
        out.append(readers)
    return out


# ---------------------------------------------------------------------------------- point estimates
def proportions(counts) -> np.ndarray:
    r"""Majority proportions of single-label counts.

    .. math:: \hat\lambda_k = \frac{c_k}{\sum_l c_l}

    Stutz et al. (2023), section 2.1 (the deterministic point estimate of single-label
    annotations; Appendix A). Rows without annotations stay 0.

    Parameters
    ----------
    counts : array_like of shape (N, K)
        Non-negative annotation counts.

    Returns
    -------
    ndarray of shape (N, K)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.1, Appendix A.

    Examples
    --------
    >>> print(proportions([[3, 1, 0], [0, 0, 0]]))
    [[0.75 0.25 0.  ]
     [0.   0.   0.  ]]
    """
    c = _checked_counts(counts)
    s = c.sum(axis=1, keepdims=True)
    return np.divide(c, s, out=np.zeros_like(c), where=s > 0)


def irn(selectors, n_classes: int | None = None, *, tie_split: bool = True) -> np.ndarray:
    r"""Inverse rank normalisation (IRN) of partial rankings.

    .. math:: \mathrm{IRN}(y) = \frac{\sum_r \sum_b \mathbb{1}[y \in B_{r,b}] / (b\,|B_{r,b}|)}
       {\sum_{y'} \sum_r \sum_b \mathbb{1}[y' \in B_{r,b}] / (b\,|B_{r,b}|)}

    Stutz et al. (2023), Appendix B.2, eq. (14)-(16) (Liu et al. 2020): block b (1-based) of a
    reader weighs 1/b, shared equally by its classes; unranked classes get 0; summed over readers,
    normalised after summing. ``tie_split=False`` gives every tied class the full 1/b (the
    reference ``irn.py``). Cases without any ranking give a row of zeros.

    Parameters
    ----------
    selectors : list
        N cases, each a list of readers, each a list of blocks (lists of tied class ids) in rank
        order; classes not named are unranked.
    n_classes : int, optional
        K (default: largest id + 1).
    tie_split : bool, default True
        Share a block's weight among its classes (paper).

    Returns
    -------
    ndarray of shape (N, K)
        Rows sum to 1.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix B.2, eq. (14)-(16).

    Examples
    --------
    One reader ranks class 0 first, then 1 and 2 tied; another ranks class 1 alone:
    weights (1, 1/4 + 1, 1/4) / 2.5.

    >>> print(irn([[[[0], [1, 2]], [[1]]]], 3))
    [[0.4 0.5 0.1]]
    """
    lay = _pl.build_layout(selectors, n_classes, with_super=False)
    entry_w = _irn_block_weights(lay, tie_split)[lay.entry_block]
    cls = lay.local_class[lay.entry_local]
    case = lay.local_case[lay.entry_local]
    out = np.zeros((lay.n_cases, lay.n_classes))
    np.add.at(out, (case, cls), entry_w)
    return proportions(out)


def _irn_block_weights(lay, tie_split: bool) -> np.ndarray:
    """Weight of every block, 1/b (split: 1/(b |B_b|)), up to one common factor: the integers
    L / (b |B_b|) with L the least common multiple of the denominators when the sums stay exact
    in float64 (< 2**53), so classes whose weights are equal as fractions sum to equal floats in
    any reader order and argmax ties go to the lowest index; else the floats 1/(b |B_b|)."""
    den = np.asarray(lay.block_pos, dtype=np.int64) + 1
    if tie_split:
        den = den * np.asarray(lay.block_size, dtype=np.int64)
    lcm = 1
    for d in np.unique(den).tolist():
        lcm = math.lcm(lcm, int(d))
        if lcm > 1 << 40:
            break
    if lcm <= 1 << 40 and lcm * max(len(lay.entry_block), 1) < 1 << 53:
        return (lcm // den).astype(float)
    return 1.0 / den


def irn_reference(selectors, n_classes: int | None = None) -> np.ndarray:
    r"""IRN exactly as the reference code: every tied class gets the full block weight.

    .. math:: \mathrm{IRN}_{\mathrm{ref}}(y) \propto \sum_r \sum_b \mathbb{1}[y \in B_{r,b}] / b

    Stutz et al. (2023), Appendix B.2; the public ``irn.py`` does not divide by the block size (see
    :func:`irn`).

    Parameters
    ----------
    selectors : list
        N cases, each a list of readers, each a list of blocks (lists of tied class ids) in rank
        order; classes not named are unranked.
    n_classes : int, optional
        K.

    Returns
    -------
    ndarray of shape (N, K)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix B.2.

    Examples
    --------
    >>> print(irn_reference([[[[0], [1, 2]], [[1]]]], 3).round(4))
    [[0.3333 0.5    0.1667]]
    """
    return irn(selectors, n_classes, tie_split=False)


def pl_mle(selectors, n_classes: int | None = None, **kwargs) -> np.ndarray:
    r"""Plackett-Luce maximum-likelihood plausibilities of partial rankings.

    .. math:: \hat\lambda = \arg\max_\lambda \sum_r \log P(B_{r,1} \succ \dots \succ B_{r,m} \mid \lambda),
       \quad \textstyle\sum_k \lambda_k = 1

    Stutz et al. (2023), Appendix B.4 (the ML counterpart of the PL posterior; exact partial-ranking
    likelihood of App. B.4.1), fitted by the MM algorithm of Hunter (2004); see
    :func:`hlv_core._plackett_luce.pl_mle`.

    Parameters
    ----------
    selectors : list
        N cases, each a list of readers, each a list of blocks (lists of tied class ids) in rank
        order; classes not named are unranked.
    n_classes : int, optional
        K.
    **kwargs
        Passed to the fitter (iterations, tolerance).

    Returns
    -------
    ndarray of shape (N, K)
        Rows sum to 1.

    References
    ----------
    .. [1] Stutz et al. (2023), arXiv:2307.02191. Appendix B.4.
    .. [2] Hunter (2004). "MM algorithms for generalized Bradley-Terry models". Annals of
       Statistics 32(1), section 5.

    Examples
    --------
    >>> print(pl_mle([[[[0], [1]], [[0], [2]], [[1], [0]]]], 3).round(3))
    [[0.705 0.205 0.091]]
    """
    return _pl.pl_mle(selectors, n_classes, **kwargs)


def point_estimate(model: str, data, *, n_classes: int | None = None,
                   tie_split: bool = True) -> np.ndarray:
    r"""The deterministic (infinite-reliability) estimate of ``model``.

    .. math:: \hat\lambda = \begin{cases} c / \textstyle\sum c & \text{dirichlet} \\
       \mathrm{IRN} & \text{prirn} \\ \hat\lambda_{\mathrm{PL}} & \text{pl} \end{cases}

    Stutz et al. (2023), section 2.2 (r = infinity gives a point mass) with the estimates of
    Appendix A, B.2 and B.4.

    Parameters
    ----------
    model : {"dirichlet", "prirn", "pl"}
        Aggregation model.
    data : ndarray of shape (N, K) or list
        Counts (dirichlet) or selectors.
    n_classes : int, optional
        K for selectors.
    tie_split : bool, default True
        IRN convention (see :func:`irn`).

    Returns
    -------
    ndarray of shape (N, K)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.2; Appendix A, B.2, B.4.

    Examples
    --------
    >>> print(point_estimate("dirichlet", [[3, 1, 0]]))
    [[0.75 0.25 0.  ]]
    """
    if model == "dirichlet":
        return proportions(data)
    if model == "prirn":
        return irn(data, n_classes, tie_split=tie_split)
    if model == "pl":
        return pl_mle(data, n_classes)
    raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")


# ---------------------------------------------------------------------------------- samplers
def _checked_counts(counts) -> np.ndarray:
    """Vote counts as a float (N, K) array; ValueError unless finite and non-negative (NaN
    counts would give NaN samples and proportions)."""
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("counts must be an (N, K) array of finite non-negative numbers")
    return c


def _checked_prior(prior) -> float:
    """The Dirichlet pseudo-count a0 as float; ValueError unless finite and >= 0 (a negative
    a0 would silently sample Dir(r c - |a0|))."""
    a0 = float(prior)
    if not (math.isfinite(a0) and a0 >= 0):
        raise ValueError(f"prior (Dirichlet pseudo-count a0) must be finite and >= 0, got {prior}")
    return a0


def check_sampler_args(reliability, n_samples) -> float:
    r"""Validate a reliability and a number of samples; returns the reliability as float.

    .. math:: r \in (0, \infty], \quad S \in \{1, 2, \dots\}

    Stutz et al. (2023), section 2.2: the reliability r is a positive trust parameter, infinity
    meaning the point estimate.

    Parameters
    ----------
    reliability : float
        r.
    n_samples : int
        S.

    Returns
    -------
    float
        r.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.2.

    Examples
    --------
    >>> check_sampler_args(2, 10)
    2.0
    """
    r = float(reliability)
    if not r > 0:
        raise ValueError(f"reliability must be > 0 (or inf), got {reliability}")
    if int(n_samples) != n_samples or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples}")
    return r


def _dirichlet(alpha: np.ndarray, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    g = rng.standard_gamma(np.broadcast_to(alpha[:, None, :], (alpha.shape[0], n_samples,
                                                                alpha.shape[1])))
    s = g.sum(axis=-1, keepdims=True)
    return g / np.where(s > 0, s, 1.0)


def sample_plausibilities(
    model: str,
    data,
    *,
    reliability: float,
    n_samples: int,
    seed: int = 0,
    prior: float | None = None,
    n_classes: int | None = None,
    tie_split: bool = True,
    burn_in: int = 100,
    n_chains: int = 10,
    pl_shape: float = 1.0,
    pl_rate: float = 1.0,
    unranked_split: str = "dirichlet",
    exact_superclass_prior: bool = False,
    return_info: bool = False,
    progress: Callable[[float], None] | None = None,
):
    r"""Sample plausibilities from the posterior of an aggregation model.

    .. math:: \lambda^{(s)} \sim \mathrm{Dir}(r\,c + a_0) \text{ (dirichlet)}, \quad
       \mathrm{Dir}(r\,\mathrm{IRN} + a_0) \text{ (prirn)}, \quad
       p(\lambda \mid \sigma^{\times r}) \text{ (pl)}

    Stutz et al. (2023), section 2.2 and Appendix A (Dirichlet on counts), B.3 (PrIRN, reference
    ``irn.py::sample_prirn``), B.4 (Plackett-Luce Gibbs sampler of Caron and Doucet, every reader
    repeated r times, Gamma(``pl_shape``, ``pl_rate``) prior, ``burn_in`` iterations per chain; the
    mass of classes nobody ranked is split by a Dirichlet(1) draw, or equally). r = inf repeats
    the :func:`point_estimate`. Every sample is normalised to sum 1.

    Parameters
    ----------
    model : {"dirichlet", "prirn", "pl"}
        Aggregation model.
    data : ndarray of shape (N, K) or list
        Counts (dirichlet) or selectors (prirn, pl).
    reliability : float
        r > 0 or inf (an integer for pl).
    n_samples : int
        S.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.
    prior : float, optional
        a0 (default :func:`default_prior`).
    n_classes : int, optional
        K for selectors (default: largest id + 1).
    tie_split : bool, default True
        IRN convention for prirn.
    burn_in, n_chains : int
        Plackett-Luce Gibbs settings.
    pl_shape, pl_rate : float
        Gamma prior of Plackett-Luce.
    unranked_split : {"dirichlet", "equal"}
        How the unranked super-class mass is split.
    exact_superclass_prior : bool, default False
        Use the exact prior of the merged unranked classes.
    return_info : bool, default False
        Also return a dict (seed, effective sample size for PL).
    progress : callable, optional
        ``progress(fraction)``.

    Returns
    -------
    ndarray of shape (N, S, K)
        Normalised samples (and the info dict with ``return_info``).

    References
    ----------
    .. [1] Stutz et al. (2023), arXiv:2307.02191. Section 2.2; Appendix A, B.3, B.4.
    .. [2] Caron and Doucet (2012). "Efficient Bayesian inference for generalized Bradley-Terry
       models". Journal of Computational and Graphical Statistics 21(1).

    Examples
    --------
    >>> import numpy as np
    >>> s = sample_plausibilities("dirichlet", np.array([[3, 1, 0]]), reliability=1.0,
    ...                           n_samples=3, seed=0)
    >>> print(s.shape, s.sum(axis=-1).round(6).tolist())
    (1, 3, 3) [[1.0, 1.0, 1.0]]
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    r = check_sampler_args(reliability, n_samples)
    prior = default_prior(model) if prior is None else _checked_prior(prior)
    S = int(n_samples)
    rng = np.random.default_rng(seed)
    info: dict = {"model": model, "reliability": r, "n_samples": S, "seed": seed}
    if model == "dirichlet":
        counts = _checked_counts(data)
        if math.isinf(r):
            out = np.repeat(proportions(counts)[:, None, :], S, axis=1)
        else:
            if prior <= 0 and np.any(counts.sum(1) == 0):
                raise ValueError("prior must be > 0 when a row has no annotations")
            out = _dirichlet(r * counts + prior, S, rng)
    elif model == "prirn":
        base = irn(data, n_classes, tie_split=tie_split)
        if math.isinf(r):
            out = np.repeat(base[:, None, :], S, axis=1)
        else:
            if prior <= 0:
                raise ValueError("prior must be > 0 for PrIRN (classes nobody ranked)")
            out = _dirichlet(r * base + prior, S, rng)
    else:
        if unranked_split not in ("dirichlet", "equal"):
            raise ValueError("unranked_split must be 'dirichlet' or 'equal'")
        if math.isinf(r):
            base = pl_mle(data, n_classes)
            out = np.repeat(base[:, None, :], S, axis=1)
        else:
            if r != int(r):
                raise ValueError(
                    f"PL reliability is the number of times each reader is repeated: an integer "
                    f">= 1 (or inf), got {reliability}"
                )
            lay, local, pinfo = pl_gibbs(
                data, n_classes, repetitions=int(r), n_samples=S, seed=seed, burn_in=burn_in,
                n_chains=n_chains, shape=pl_shape, rate=pl_rate,
                exact_superclass_prior=exact_superclass_prior, progress=progress,
            )
            info.update(pinfo)
            out = densify_samples(lay, local, rng, unranked_split)
    return (out, info) if return_info else out


def densify_samples(lay, local: np.ndarray, rng: np.random.Generator, split: str,
             cases: tuple[int, int] | None = None) -> np.ndarray:
    r"""Expand compact local Plackett-Luce samples to full (N, S, K) plausibilities.

    .. math:: \lambda_u = \Lambda_U \, w_u, \quad w \sim \mathrm{Dir}(1, \dots, 1) \text{ over the
       unranked classes } u \in U

    Stutz et al. (2023), Appendix B.4: the reference sampler merges the classes nobody ranked
    into one super-class and splits its sampled mass :math:`\Lambda_U` by a Dirichlet(1) draw
    (``split="dirichlet"``) or equally (``"equal"``).

    Parameters
    ----------
    lay : Layout
        The Plackett-Luce layout of the cases.
    local : ndarray of shape (S, L)
        Normalised samples of the local classes (ranked classes + one super-class per case).
    rng : numpy.random.Generator
        Source of the Dirichlet split.
    split : {"dirichlet", "equal"}
        How the super-class mass is split.
    cases : tuple of (int, int), optional
        Case range ``(c0, c1)`` to expand (default all); the result then has c1 - c0 rows.

    Returns
    -------
    ndarray of shape (N, S, K)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix B.4.

    Examples
    --------
    >>> import numpy as np
    >>> from hlv_core._plackett_luce import build_layout
    >>> lay = build_layout([[[[0]]]], 3)
    >>> local = np.array([[0.6, 0.4]])
    >>> print(densify_samples(lay, local, np.random.default_rng(0), "equal").round(2))
    [[[0.6 0.2 0.2]]]
    """
    c0, c1 = (0, lay.n_cases) if cases is None else cases
    N, K, S = c1 - c0, lay.n_classes, local.shape[0]
    out = np.zeros((N, S, K))
    inside = (lay.local_case >= c0) & (lay.local_case < c1)
    ranked = (lay.local_class >= 0) & inside
    lc = lay.local_case - c0
    out[lc[ranked], :, lay.local_class[ranked]] = local[:, ranked].T
    sup = np.flatnonzero((lay.local_class < 0) & inside)
    if sup.size:
        sup_case = lc[sup]
        ranked_mask = np.zeros((N, K), dtype=bool)
        ranked_mask[lc[ranked], lay.local_class[ranked]] = True
        mask = ~ranked_mask[sup_case]
        if split == "equal":
            share = np.broadcast_to((mask / mask.sum(1, keepdims=True))[:, None, :],
                                    (len(sup_case), S, K))
        else:
            e = rng.standard_exponential((len(sup_case), S, K)) * mask[:, None, :]
            share = e / e.sum(-1, keepdims=True)
        out[sup_case] += share * local[:, sup].T[:, :, None]
    return out


def topk_sets(scores, k: int) -> np.ndarray:
    r"""Indices of the k largest entries along the last axis, in decreasing order.

    .. math:: \mathrm{top}_k(x) = (j_1, \dots, j_k), \quad x_{j_1} \ge \dots \ge x_{j_k},
       \text{ ties to the lowest index}

    Stutz et al. (2023), section 2.3, eq. (5) (top-k sets) and 2.4, eq. (8) (prediction sets).

    Parameters
    ----------
    scores : array_like of shape (..., K)
        Scores or plausibilities.
    k : int
        1 <= k <= K.

    Returns
    -------
    ndarray of shape (..., k)
        Integer class ids.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Sections 2.3-2.4.

    Examples
    --------
    >>> import numpy as np
    >>> print(topk_sets(np.array([[0.2, 0.5, 0.5]]), 2))
    [[1 2]]
    """
    x = np.asarray(scores, dtype=float)
    K = x.shape[-1]
    if not 1 <= k <= K:
        raise ValueError(f"k must be in 1..{K}, got {k}")
    if k == 1:
        return np.argmax(x, axis=-1)[..., None]
    if k < K // 4:
        part = np.argpartition(-x, k - 1, axis=-1)[..., :k]
        # boundary ties: make the tie-break exact by checking the k-th value
        vals = np.take_along_axis(x, part, -1)
        kth = vals.min(-1, keepdims=True)
        n_above = (x > kth).sum(-1)
        n_tie_in = (vals == kth).sum(-1)
        n_tie_all = (x == kth).sum(-1)
        exact = (n_above + n_tie_all == k) | (n_tie_in == n_tie_all)
        if not np.all(exact):
            bad = ~exact
            part[bad] = np.argsort(-x[bad], axis=-1, kind="stable")[..., :k]
        vals = np.take_along_axis(x, part, -1)
        order = np.lexsort((part, -vals), axis=-1)
        return np.take_along_axis(part, order, -1)
    return np.argsort(-x, axis=-1, kind="stable")[..., :k]


def model_data(dataset, model: str):
    r"""The sampler input of ``model`` for a dataset: counts or selectors.

    .. math:: c_{ik} = \#\{\text{annotations of item } i \text{ with label } k\}
       \text{ (dirichlet)}, \quad \text{selectors (prirn, pl)}

    Stutz et al. (2023), section 2.1 and Appendix B.1: single labels as counts, differential
    diagnoses as partial rankings.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The data; ``"prirn"`` and ``"pl"`` need a ranking dataset.
    model : {"dirichlet", "prirn", "pl"}
        Aggregation model.

    Returns
    -------
    ndarray of shape (N, K) or list

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.1, Appendix B.1.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> model_data(load_sample("case_review"), "dirichlet").shape
    (240, 3)
    """
    if model == "dirichlet":
        return dataset.counts_array()
    if dataset.task != "ranking":
        raise DataError(
            f"model {model!r} needs ranked data (partial rankings); this dataset is "
            f"{dataset.task}.", source=dataset.name, fix="use --model dirichlet.")
    return dataset.selectors()


def risk_vector(dataset) -> np.ndarray | None:
    r"""Risk group of every label (inventory order) from the dataset's risk map, or None.

    .. math:: \rho : \{1, \dots, K\} \to \{0, 1, 2\} \text{ (low, medium, high)}

    Stutz et al. (2023), section 3.2 (risk categories of the skin conditions), as read from
    ``dataset.extra["risk"]``.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The data.

    Returns
    -------
    ndarray of shape (K,) or None

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.2.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> print(risk_vector(load_sample("case_review")))
    None
    """
    risk = dataset.extra.get("risk") if dataset.extra else None
    if not risk:
        return None
    try:
        return np.array([int(float(risk[label])) for label in dataset.labels])
    except (KeyError, ValueError):
        return None
