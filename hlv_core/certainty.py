"""Evaluation under uncertain ground truth (Stutz et al. 2023).

Aggregation of annotations as posterior inference of plausibilities lambda (a distribution over
the K classes per case), annotation certainty and uncertainty-adjusted (UA) metrics.

* Point estimates (Stutz et al.): :func:`proportions`, :func:`irn` (paper: block weight 1/b shared by
  the block's classes; ``tie_split=False`` / :func:`irn_reference` = reference ``irn.py``, full
  1/b for every tied class), :func:`pl_mle`.
* Samplers (``docs/conventions.md``, certainty): ``"dirichlet"`` Dir(r c + a0), ``"prirn"``
  Dir(r IRN + a0), ``"pl"`` Plackett-Luce Gibbs sampler with every reader repeated r times;
  r = inf gives the point estimate (repeated S times).
* Certainty (Stutz et al.): rank-k label certainties, top-k set certainty, risk certainty, expected risk.
* UA metrics (Stutz et al.): UA top-k accuracy, UA top-k set accuracy, (partial) average overlap, UA
  average overlap, each per case, for the dataset and per sample (its spread).
* Compact sampler (:func:`sample_top_classes`): every summary above depends on a sample only
  through the order of its top few classes, so sweeps draw only those (explicit Gammas for the
  classes with evidence, order statistics for the exchangeable rest) and never hold (N, S, K);
  ``*_from_top`` functions compute the summaries from that (N, S, depth) array.
* Leave-one-reader-out agreement (Stutz et al.) and sweeps over reliabilities (tidy DataFrames).

Ties in argmax / top-k: lowest class index (``docs/conventions.md``, tie-break).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import _plackett_luce as _pl
from ._compact_sampler import compact_engine, sample_top_classes
from ._compact_sampler import gamma_log_quantile as gamma_log_quantile  # tests, bench
from ._plackett_luce import build_layout, effective_sample_size, pl_gibbs, pl_log_likelihood
from .aggregation import (
    MODELS,
    _checked_prior,
    check_sampler_args,
    default_prior,
    irn,
    irn_reference,
    model_data,
    pl_mle,
    point_estimate,
    proportions,
    risk_vector,
    sample_plausibilities,
    selectors_from_opinions,
    selectors_from_rankings_groups,
    topk_sets,
)

# Also importable from here (tests and benchmarks use them; not part of the public surface):
# gamma_log_quantile, certainty_from_top, rank_k_certainties_from_top, risk_certainty_from_top,
# expected_risk_from_top, ua_accuracy_from_top, ua_average_overlap_from_top,
# ua_accuracy_per_case_sample, summarise_over_samples.
__all__ = [
    "MODELS",
    "model_data",
    "risk_vector",
    "proportions",
    "irn",
    "irn_reference",
    "pl_mle",
    "pl_log_likelihood",
    "pl_gibbs",
    "effective_sample_size",
    "point_estimate",
    "sample_plausibilities",
    "sample_top_classes",
    "selectors_from_opinions",
    "selectors_from_rankings_groups",
    "topk_sets",
    "rank_k_certainties",
    "annotation_certainty",
    "risk_certainty",
    "expected_risk",
    "ua_accuracy",
    "ua_accuracy_per_case",
    "topk_accuracy",
    "average_overlap",
    "ua_average_overlap",
    "reader_agreement",
    "agreement_certainty_correlation",
    "SweepResult",
    "sweep",
    "PL_MAX_RELIABILITY",
    "case_summary",
    "pl_reliability_allowed",
    "rank_predictors",
    "set_coverage",
    "certain_by_construction",
]


# ---------------------------------------------------------------------------------- certainty
def _check_samples(samples) -> np.ndarray:
    x = np.asarray(samples, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"samples must be an (N, S, K) array, got shape {x.shape}")
    return x


def _check_top(top, k: int = 1) -> np.ndarray:
    t = np.asarray(top)
    if t.ndim != 3 or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"top must be an (N, S, depth) integer array, got {t.shape} {t.dtype}")
    if not 1 <= k <= t.shape[2]:
        raise ValueError(f"k={k} needs top classes of depth >= k; got depth {t.shape[2]}")
    return t


def rank_k_certainties_from_top(top, n_classes: int, *, k: int = 1, groups=None) -> np.ndarray:
    """:func:`rank_k_certainties` from the (N, S, depth >= k) top classes of the samples
    (:func:`sample_top_classes` or :func:`topk_sets`)."""
    t = _check_top(top, k)
    lab = t[..., k - 1].astype(np.int64)
    if groups is not None:
        g = np.asarray(groups, dtype=np.int64)
        if g.shape != (n_classes,) or g.min() < 0:
            raise ValueError("groups must map each of the K classes to a group id >= 0")
        lab = g[lab]
        G = int(g.max()) + 1
    else:
        G = int(n_classes)
    N, S = lab.shape
    idx = (np.arange(N)[:, None] * G + lab).ravel()
    return np.bincount(idx, minlength=N * G).reshape(N, G) / S


def rank_k_certainties(samples, *, k: int = 1, groups=None) -> np.ndarray:
    r"""Rank-k label certainty: how often each label is the k-th largest plausibility.

    .. math:: C_k(y) = \frac{1}{S} \sum_{s=1}^{S} \mathbb{1}\big[\mathrm{rank}_k(\lambda^{(s)}) = y\big]

    Stutz et al. (2023), section 2.3, eq. (2)-(3) (reference ``eval_utils.rankk_certainties``);
    k = 1 is the argmax. Ties go to the lowest class index.

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    k : int, default 1
        Rank (1 = largest).
    groups : array_like of shape (K,), optional
        Integer group of every class (e.g. the risk map): frequencies of the groups instead.

    Returns
    -------
    ndarray of shape (N, K) or (N, G)
        Rows sum to 1.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.3, eq. (2)-(3).

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> print(rank_k_certainties(samples))
    [[0.75 0.25 0.  ]
     [0.   0.   1.  ]]
    """
    x = _check_samples(samples)
    return rank_k_certainties_from_top(topk_sets(x, k), x.shape[2], k=k, groups=groups)


def _sorted_columns(sets: np.ndarray, dtype=np.int64) -> list[np.ndarray]:
    """The k columns of sets (..., k) sorted ascending per row (compare-exchange network)."""
    cols = [sets[..., j].astype(dtype) for j in range(sets.shape[-1])]
    k = len(cols)
    for i in range(k):
        for j in range(k - 1 - i):
            lo = np.minimum(cols[j], cols[j + 1])
            np.maximum(cols[j], cols[j + 1], out=cols[j + 1])
            cols[j] = lo
    return cols


def _set_keys(sets: np.ndarray, base: int | None = None) -> np.ndarray:
    """One integer key per set of class ids (..., k), equal iff the sets are equal (order-free).
    Encodes the sorted ids in base ``base`` (default: largest id + 1): int32 when that fits in
    31 bits (faster to sort), int64 up to 62 bits, else re-ranks with np.unique column by
    column."""
    k = sets.shape[-1]
    if base is None:
        base = int(sets.max()) + 1 if sets.size else 1
    bits = k * math.log2(max(base, 2))
    if bits < 62:
        dtype = np.int32 if bits < 31 else np.int64
        cols = _sorted_columns(sets, dtype)
        keys = cols[0].copy()
        for c in cols[1:]:
            keys *= dtype(base)
            keys += c
        return keys
    keys = np.zeros(sets[..., 0].size, dtype=np.int64)
    for c in _sorted_columns(sets):
        flat = c.ravel()
        _, keys = np.unique(keys * (int(flat.max()) + 1) + flat, return_inverse=True)
    return keys.reshape(sets.shape[:-1])


def _max_key_frequency(keys: np.ndarray, n_keys: int | None = None) -> np.ndarray:
    """keys (N, S) -> per row the largest fraction of equal keys. With ``n_keys`` (keys in
    0..n_keys-1) and N n_keys small: one bincount; else a sort per row."""
    N, S = keys.shape
    if n_keys is not None and N * n_keys <= max(1 << 22, 4 * N * S):
        idx = keys + (np.arange(N, dtype=np.int64) * n_keys)[:, None]
        return np.bincount(idx.ravel(), minlength=N * n_keys).reshape(N, n_keys).max(1) / S
    ks = np.sort(keys, axis=1)
    change = np.ones((N, S), dtype=bool)
    change[:, 1:] = ks[:, 1:] != ks[:, :-1]
    starts = np.flatnonzero(change.ravel())
    lengths = np.diff(np.append(starts, N * S))
    first_run = np.concatenate([[0], np.cumsum(change.sum(1))[:-1]])
    return np.maximum.reduceat(lengths, first_run) / S


def _max_set_frequency(sets: np.ndarray) -> np.ndarray:
    """sets (N, S, k) class ids -> per case the largest fraction of samples sharing one set."""
    return _max_key_frequency(_set_keys(sets))


def certainty_from_top(top, *, k: int = 1) -> np.ndarray:
    """:func:`annotation_certainty` from the (N, S, depth >= k) top classes of the samples."""
    t = _check_top(top, k)
    return _max_set_frequency(t[..., :k])


def annotation_certainty(samples, *, k: int = 1) -> np.ndarray:
    r"""Top-k annotation certainty of every case.

    .. math:: \mathrm{AnnotationCertainty}_k = \max_{T,\,|T| = k} \frac{1}{S} \sum_s
       \mathbb{1}\big[\mathrm{top}_k(\lambda^{(s)}) = T\big]

    Stutz et al. (2023), section 2.3: eq. (4) for k = 1 (:math:`\max_y C(y)`), eq. (5)-(6) for
    top-k sets; only the top-k sets that occur among the samples are counted (Monte Carlo
    estimate). Ties go to the
    lowest class index. The dataset value on the Certainty page is the mean over cases.

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    k : int, default 1
        Size of the top set.

    Returns
    -------
    ndarray of shape (N,)
        In [1/S, 1].

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.3, eq. (4)-(6).

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> print(annotation_certainty(samples), annotation_certainty(samples, k=2))
    [0.75 1.  ] [0.75 0.75]
    """
    x = _check_samples(samples)
    return certainty_from_top(topk_sets(x, k), k=k)


def _risk_array(risk, K: int | None) -> np.ndarray:
    g = np.asarray(risk, dtype=float)
    if (g.ndim != 1 or (K is not None and g.shape != (K,)) or np.any(~np.isfinite(g))
            or np.any(g < 0) or np.any(g != np.round(g))):
        raise ValueError(f"risk must give an integer group >= 0 for each of the {K} classes")
    return g.astype(np.int64)


def risk_certainty_from_top(top, risk) -> np.ndarray:
    """:func:`risk_certainty` from the (N, S, depth) top classes of the samples."""
    t = _check_top(top)
    g = _risk_array(risk, None)
    # one risk group per sample: a bincount over the (few) groups, no sort per case
    return _max_key_frequency(g[t[..., 0]], int(g.max()) + 1 if g.size else 1)


def expected_risk_from_top(top, risk) -> np.ndarray:
    """:func:`expected_risk` from the (N, S, depth) top classes of the samples."""
    t = _check_top(top)
    return _risk_array(risk, None)[t[..., 0]].mean(axis=1)


def risk_certainty(samples, risk) -> np.ndarray:
    r"""Risk certainty: the largest share of samples whose top-1 class falls in one risk group.

    .. math:: \max_g \frac{1}{S} \sum_s \mathbb{1}\big[\rho(\arg\max \lambda^{(s)}) = g\big]

    Stutz et al. (2023), section 3.2 (risk of the skin conditions; certainty of eq. (2) over the
    risk groups :math:`\rho` instead of the classes).

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    risk : array_like of shape (K,)
        Integer risk group of every class (0 low, 1 medium, 2 high).

    Returns
    -------
    ndarray of shape (N,)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.2, eq. (2) over risk groups.

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> print(risk_certainty(samples, np.array([0, 2, 2])))
    [0.75 1.  ]
    """
    x = _check_samples(samples)
    _risk_array(risk, x.shape[2])
    return risk_certainty_from_top(topk_sets(x, 1), risk)


def expected_risk(samples, risk) -> np.ndarray:
    r"""Expected risk of every case: the mean risk of the samples' top-1 classes.

    .. math:: \bar\rho = \frac{1}{S} \sum_s \rho(\arg\max_k \lambda^{(s)}_k)

    Stutz et al. (2023), section 3.2 (risk categories of the conditions, ordinal 0 low .. 2 high).

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    risk : array_like of shape (K,)
        Integer risk of every class.

    Returns
    -------
    ndarray of shape (N,)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.2.

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> print(expected_risk(samples, np.array([0, 2, 2])))
    [0.5 2. ]
    """
    x = _check_samples(samples)
    _risk_array(risk, x.shape[2])
    return expected_risk_from_top(topk_sets(x, 1), risk)


# ---------------------------------------------------------------------------------- UA metrics
def _finite_scores(p: np.ndarray, what: str = "predictions") -> np.ndarray:
    """Prediction scores must be finite: NaN would never be the top class, silently scoring
    the lowest-index class (UA accuracy 1.0 on NaN rows)."""
    bad = ~np.isfinite(p)
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        raise ValueError(f"{what} must be finite scores; row {row} holds NaN or infinity "
                         f"({int(bad.any(axis=-1).sum())} row(s) affected).")
    return p


def _check_predictions(predictions, x: np.ndarray) -> np.ndarray:
    p = _finite_scores(np.asarray(predictions, dtype=float))
    if p.shape != (x.shape[0], x.shape[2]):
        raise ValueError(
            f"predictions must be (N, K) = {(x.shape[0], x.shape[2])} scores, got {p.shape}"
        )
    return p


def ua_accuracy_from_top(top, predictions, *, k: int = 1,
                        set_accuracy: bool = False) -> np.ndarray:
    """:func:`ua_accuracy_per_case_sample` from the (N, S, depth >= k) top classes of the
    samples; ``predictions`` (N, K) scores (top-k set: ties lowest index)."""
    t = _check_top(top, k)
    p = _finite_scores(np.asarray(predictions, dtype=float))
    if p.ndim != 2 or p.shape[0] != t.shape[0]:
        raise ValueError(f"predictions must be (N, K) scores with N = {t.shape[0]}, got "
                         f"{p.shape}")
    pred = topk_sets(p, k)  # (N, k)
    if set_accuracy:
        base = max(int(t.max()), int(pred.max())) + 1
        return (_set_keys(t[..., :k], base) == _set_keys(pred, base)[:, None]).astype(float)
    top1 = t[..., 0]
    hit = top1 == pred[:, :1]
    for j in range(1, k):
        hit |= top1 == pred[:, j : j + 1]
    return hit.astype(float)


def ua_accuracy_per_case_sample(samples, predictions, *, k: int = 1,
                                set_accuracy: bool = False) -> np.ndarray:
    """(N, S) 0/1: is argmax lambda^(s) in the prediction's top-k set (UA top-k accuracy, paper
    eq. 8) or, with ``set_accuracy``, is the top-k set of lambda^(s) equal to it (Stutz et al.)."""
    x = _check_samples(samples)
    _check_predictions(predictions, x)
    return ua_accuracy_from_top(topk_sets(x, k), predictions, k=k, set_accuracy=set_accuracy)


def ua_accuracy_per_case(samples, predictions, *, k: int = 1,
                         set_accuracy: bool = False) -> np.ndarray:
    r"""Per-case uncertainty-adjusted top-k accuracy.

    .. math:: \mathrm{UA\text{-}Acc}_k(i) = \sum_{y \in P_k(i)} C_i(y)

    Stutz et al. (2023), section 2.4, eq. (8) before the mean over cases; with ``set_accuracy`` the
    share of samples whose top-k set equals the prediction's.

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    predictions : array_like of shape (N, K)
        Model scores.
    k : int, default 1
        Size of the prediction set.
    set_accuracy : bool, default False
        Top-k set accuracy instead.

    Returns
    -------
    ndarray of shape (N,)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.4, eq. (8).

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> predictions = np.array([[.5, .4, .1], [.2, .2, .6]])
    >>> print(ua_accuracy_per_case(samples, predictions))
    [0.75 1.  ]
    """
    return ua_accuracy_per_case_sample(samples, predictions, k=k,
                                       set_accuracy=set_accuracy).mean(axis=1)


def ua_accuracy(samples, predictions, *, k: int = 1, set_accuracy: bool = False) -> float:
    r"""Uncertainty-adjusted top-k accuracy of a model over the dataset.

    .. math:: \mathrm{UA\text{-}Acc}_k = \frac{1}{N S} \sum_{i,s}
       \mathbb{1}\big[\arg\max_y \lambda^{(s)}_{iy} \in P_k(i)\big]
       = \frac{1}{N} \sum_i \sum_{y \in P_k(i)} C_i(y)

    Stutz et al. (2023), section 2.4, eq. (8): :math:`P_k(i)` is the model's top-k prediction set
    (ties to the lowest index). ``set_accuracy=True``: the top-k *set* accuracy
    :math:`\mathbb{1}[\mathrm{top}_k(\lambda^{(s)}) = P_k]` (eq. (9)). At infinite reliability (every
    sample the point estimate) it is the standard top-k accuracy against the point estimate.

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    predictions : array_like of shape (N, K)
        Model scores per case.
    k : int, default 1
        Size of the prediction set.
    set_accuracy : bool, default False
        Score equality of the top-k sets instead of containment of the top-1.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.4, eq. (8).

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> predictions = np.array([[.5, .4, .1], [.2, .2, .6]])
    >>> print(ua_accuracy(samples, predictions), ua_accuracy(samples, predictions, k=2))
    0.875 1.0
    """
    return float(ua_accuracy_per_case_sample(samples, predictions, k=k,
                                             set_accuracy=set_accuracy).mean())


def topk_accuracy(predictions, labels, *, k: int = 1) -> float:
    r"""Standard top-k accuracy of scores against hard labels.

    .. math:: \mathrm{Acc}_k = \frac{1}{N} \sum_i \mathbb{1}[y_i \in P_k(i)]

    Stutz et al. (2023), section 2.4 (the standard metric eq. (8) generalises; ties in the scores
    go to the lowest index).

    Parameters
    ----------
    predictions : array_like of shape (N, K)
        Scores.
    labels : array_like of shape (N,)
        Integer class per case.
    k : int, default 1
        Size of the prediction set.

    Returns
    -------
    float

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.4.

    Examples
    --------
    >>> import numpy as np
    >>> print(topk_accuracy(np.array([[.5, .4, .1], [.2, .2, .6]]), np.array([0, 1])))
    0.5
    """
    p = np.asarray(predictions, dtype=float)
    lab = np.asarray(labels, dtype=np.int64)
    return float((topk_sets(p, k) == lab[:, None]).any(-1).mean())


def summarise_over_samples(per_sample) -> dict:
    """Mean, sd, min, max of a dataset-level metric across samples."""
    v = np.asarray(per_sample, dtype=float)
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
            "min": float(v.min()), "max": float(v.max())}


def _as_blocks(ranking) -> list[list[int]]:
    blocks = []
    for b in ranking:
        if isinstance(b, list | tuple | np.ndarray):
            if len(b):
                blocks.append([int(c) for c in b])
        else:
            blocks.append([int(b)])
    flat = [c for b in blocks for c in b]
    if len(set(flat)) != len(flat):
        raise ValueError("a class appears twice in a ranking")
    if flat and min(flat) < 0:
        raise ValueError("class ids must be >= 0")
    return blocks


def _topd_membership(blocks: list[list[int]], K: int, depth: int) -> np.ndarray:
    """(depth, K): probability that class c is among the first d positions (d = 1..depth) when
    each tied block (and the final unranked block) is ordered uniformly at random."""
    ranked = {c for b in blocks for c in b}
    rest = [c for c in range(K) if c not in ranked]
    all_blocks = blocks + ([rest] if rest else [])
    start = np.zeros(K)
    size = np.ones(K)
    pos = 0
    for b in all_blocks:
        start[b] = pos
        size[b] = len(b)
        pos += len(b)
    d = np.arange(1, depth + 1)[:, None]
    return np.clip((d - start[None, :]) / size[None, :], 0.0, 1.0)


def average_overlap(ranking_a, ranking_b, *, depth: int, n_classes: int | None = None,
                    normalize: bool = True) -> float:
    r"""Average overlap of two rankings at depth D, with ties (partial rankings).

    .. math:: \mathrm{AO}_D(A, B) = \frac{1}{D} \sum_{d=1}^{D} \frac{|\mathrm{top}_d(A) \cap
       \mathrm{top}_d(B)|}{d}

    Webber et al. (2010); Stutz et al. (2023), section 2.4, eq. (10) (overlap) averaged over
    depths as in eq. (12), and Appendix B.5 for
    ties: each ranking becomes a soft permutation matrix (tied blocks ordered uniformly at random)
    and the value is normalised by :math:`\sqrt{\mathrm{AO}(A,A)\,\mathrm{AO}(B,B)}` so that
    AO(A, A) = 1 (reference ``ranking_metrics.partial_average_overlap``); 0 when the unnormalised
    value is 0. For strict rankings of at least D classes it is the plain AO.

    Parameters
    ----------
    ranking_a, ranking_b : list
        Lists of blocks of tied class ids in rank order (or flat lists of ids); classes not named
        form a final tied block.
    depth : int
        D.
    n_classes : int, optional
        K (default: largest id + 1).
    normalize : bool, default True
        Apply the normalisation above.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Webber, Moffat and Zobel (2010). "A similarity measure for indefinite rankings". ACM
       TOIS 28(4) (average overlap).
    .. [2] Stutz et al. (2023), arXiv:2307.02191. Section 2.4, eq. (10), (12); Appendix B.5.

    Examples
    --------
    >>> print(round(average_overlap([0, 1, 2], [1, 0, 2], depth=3), 4))
    0.6667
    >>> print(round(average_overlap([[0], [1, 2]], [[0], [2], [1]], depth=2, n_classes=3), 4))
    0.9354
    """
    a, b = _as_blocks(ranking_a), _as_blocks(ranking_b)
    if depth < 1:
        raise ValueError("depth must be >= 1")
    K = n_classes if n_classes is not None else max(
        [c for bl in a + b for c in bl] + [depth - 1]) + 1
    if depth > K:
        raise ValueError(f"depth {depth} exceeds the number of classes {K}")
    top_id = max([c for bl in a + b for c in bl], default=-1)
    if top_id >= K:
        raise ValueError(f"class id {top_id} is out of range for n_classes={K}")
    ma, mb = _topd_membership(a, K, depth), _topd_membership(b, K, depth)
    d = np.arange(1, depth + 1)

    def ao(x, y):
        return float(((x * y).sum(1) / d).sum() / depth)

    raw = ao(ma, mb)
    if not normalize:
        return raw
    if raw <= 0:
        return 0.0
    return raw / math.sqrt(ao(ma, ma) * ao(mb, mb))


def ua_average_overlap_from_top(top, predictions, *, depth: int) -> np.ndarray:
    """:func:`ua_average_overlap` from the (N, S, >= depth) top classes of the samples.

    With m_j = max(position of the prediction's j-th class in the sample ranking, j) (0-based;
    >= D when outside the sample's top D), AO_D = (1/D) sum_j (H_D - H_{m_j}), H_d the harmonic
    numbers (H_m = H_D for m >= D): ``|top_d(A) & top_d(B)| = #{j: m_j < d}``."""
    t = _check_top(top, depth)
    p = np.asarray(predictions, dtype=float)
    if p.ndim != 2 or p.shape[0] != t.shape[0]:
        raise ValueError(f"predictions must be (N, K) scores with N = {t.shape[0]}")
    D = int(depth)
    pred = topk_sets(p, D)  # (N, D)
    harm = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, D + 1))])
    total = np.zeros(t.shape[:2])
    for j in range(D):
        pos = np.full(t.shape[:2], D, dtype=np.int64)  # position in the sample's ranking
        for q in range(D - 1, j - 1, -1):  # positions < j give max(pos, j) = j anyway
            pos[t[..., q] == pred[:, j : j + 1]] = q
        if j:
            earlier = np.zeros(t.shape[:2], dtype=bool)
            for q in range(j):
                earlier |= t[..., q] == pred[:, j : j + 1]
            pos[earlier] = j
        total += harm[D] - harm[pos]
    return total / D


def ua_average_overlap(samples, predictions, *, depth: int) -> np.ndarray:
    r"""Uncertainty-adjusted average overlap: AO of the prediction against every sample's ranking.

    .. math:: \mathrm{UA\text{-}AO}_D(i, s) = \mathrm{AO}_D\big(\mathrm{rank}(q_i),
       \mathrm{rank}(\lambda^{(s)}_i)\big)

    Stutz et al. (2023), section 2.4, eq. (11)-(12); the mean over S is the per-case UA average
    overlap.
    Prediction ties go to the lowest index; only the top D classes of both rankings matter.

    Parameters
    ----------
    samples : array_like of shape (N, S, K)
        S sampled plausibility vectors per case (rows sum to 1), e.g. from
        :func:`~hlv_core.aggregation.sample_plausibilities`.
    predictions : array_like of shape (N, K)
        Model scores.
    depth : int
        D.

    Returns
    -------
    ndarray of shape (N, S)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.4, eq. (12).

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> predictions = np.array([[.5, .4, .1], [.2, .2, .6]])
    >>> print(ua_average_overlap(samples, predictions, depth=2))
    [[1.   0.25 1.   1.  ]
     [1.   1.   0.75 1.  ]]
    """
    x = _check_samples(samples)
    _check_predictions(predictions, x)
    K = x.shape[2]
    if not 1 <= depth <= K:
        raise ValueError(f"depth must be in 1..{K}")
    return ua_average_overlap_from_top(topk_sets(x, depth), predictions, depth=depth)


# ---------------------------------------------------------------------------------- agreement
def reader_agreement(selectors, n_classes: int | None = None, *,
                     tie_split: bool = True) -> tuple[np.ndarray, np.ndarray]:
    r"""Leave-one-reader-out agreement of every case and every reader.

    .. math:: a_r = \mathbb{1}\big[\arg\max_y \mathrm{IRN}_{-r}(y) \in \mathrm{ranked}(r)\big],
       \quad \mathrm{agreement}(i) = \frac{1}{R_i} \sum_{r} a_r

    Stutz et al. (2023), Appendix D (reference ``agreement.leave_one_reader_out_agreement``): the
    IRN of the other readers (Appendix B.2) and whether reader r ranked its top class (argmax ties
    to the lowest index; weights equal within a relative 1e-9 count as tied).

    Parameters
    ----------
    selectors : list
        N cases, each a list of readers, each a list of blocks of class ids.
    n_classes : int, optional
        K (default: largest id + 1).
    tie_split : bool, default True
        Paper IRN (block weight shared by its classes); False = reference code.

    Returns
    -------
    case_agreement : ndarray of shape (N,)
        Mean over readers; NaN for cases with fewer than two readers.
    reader_agreement : ndarray of shape (R,)
        One value per non-empty reader, in order.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix D; Appendix B.2 (IRN).

    Examples
    --------
    >>> selectors = [[[[0], [1]], [[0]], [[1], [2]]], [[[2]], [[2], [0]]]]
    >>> cases, readers = reader_agreement(selectors, 3)
    >>> print(cases.round(4), readers)
    [0.3333 1.    ] [1. 0. 0. 1. 1.]
    """
    lay = _pl.build_layout(selectors, n_classes, with_super=False)
    N, K, R = lay.n_cases, lay.n_classes, len(lay.reader_case)
    w = 1.0 / (lay.block_pos + 1.0)
    if tie_split:
        w = w / lay.block_size
    cls = lay.local_class[lay.entry_local]
    reader = lay.block_reader[lay.entry_block]
    case_sum = np.zeros((N, K))
    np.add.at(case_sum, (lay.local_case[lay.entry_local], cls), w[lay.entry_block])
    own = np.zeros((R, K))
    np.add.at(own, (reader, cls), w[lay.entry_block])
    others = case_sum[lay.reader_case] - own
    others = np.where(np.abs(others) < 1e-12, 0.0, others)
    # ties to the lowest class index: the subtraction above can leave weights that are equal
    # (e.g. 1/3 and (1/3 + 1/2) - 1/2) one rounding error apart, so equal within 1e-9 relative
    best = others.max(axis=1)
    top = np.argmax(others >= (best - 1e-9 * best)[:, None], axis=1)
    has_other = best > 0
    ranked = np.zeros((R, K), dtype=bool)
    ranked[reader, cls] = True
    agree = np.where(has_other, ranked[np.arange(R), top].astype(float), np.nan)
    n_r = lay.case_n_readers
    s = np.bincount(lay.reader_case, weights=np.nan_to_num(agree), minlength=N)
    case = np.where(n_r >= 2, s / np.maximum(n_r, 1), np.nan)
    return case, agree


def agreement_certainty_correlation(agreement, certainty) -> float:
    r"""Pearson correlation between case agreement and top-1 annotation certainty.

    .. math:: r = \frac{\sum_i (a_i - \bar a)(c_i - \bar c)}{\sqrt{\sum_i (a_i - \bar a)^2}
       \sqrt{\sum_i (c_i - \bar c)^2}}

    over the cases where both are defined (Stutz et al. 2023, Appendix D, Figure 13: agreement
    against annotation certainty). NaN when either is constant.

    Parameters
    ----------
    agreement : array_like of shape (N,)
        Case agreement (:func:`reader_agreement`).
    certainty : array_like of shape (N,)
        Top-1 annotation certainty.

    Returns
    -------
    float

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix D, Figure 13.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.5, 0.8, np.nan])
    >>> print(round(agreement_certainty_correlation(a, np.array([0.9, 0.6, 0.6, 0.5])), 4))
    0.803
    """
    a, c = np.asarray(agreement, float), np.asarray(certainty, float)
    ok = np.isfinite(a) & np.isfinite(c)
    if ok.sum() < 3 or a[ok].std() == 0 or c[ok].std() == 0:
        return float("nan")
    return float(np.corrcoef(a[ok], c[ok])[0, 1])


# ---------------------------------------------------------------------------------- sweeps
_SAMPLE_COLUMNS = ["model", "reliability", "predictor", "k", "metric", "sample", "value"]
_CASE_ACCURACY_COLUMNS = ["model", "reliability", "predictor", "k", "metric", "case", "item_id",
                          "value"]


@dataclass
class SweepResult:
    r"""Tidy outputs of :func:`sweep`.

    .. math:: \overline{\mathrm{AnnotationCertainty}_k} = \frac{1}{N} \sum_i
       \mathrm{AnnotationCertainty}_k(i)

    (Stutz et al. 2023, section 2.3, eq. (4)-(5), averaged over cases; UA metrics of section 2.4).

    Attributes
    ----------
    certainty : pandas.DataFrame
        ``model, reliability, k, mean_certainty, median, share_below_0.5``.
    accuracy : pandas.DataFrame
        ``model, reliability, predictor, k, metric`` (``ua_accuracy``, ``ua_set_accuracy``,
        ``ua_average_overlap`` with k = depth, ``deterministic_accuracy``,
        ``deterministic_average_overlap``), ``mean, sd, min, max`` over samples.
    per_case : pandas.DataFrame
        ``model, reliability, case, item_id, certainty_top1 ..., risk_certainty, expected_risk``.
    info : list of dict
        Per reliability, the sampler's info (effective sample size for Plackett-Luce).
    per_sample : pandas.DataFrame
        ``model, reliability, predictor, k, metric, sample, value``: every UA metric of
        ``accuracy`` computed on each plausibility sample alone (the dataset-level value of
        sample s, whose mean, sd, min and max ``accuracy`` gives; their histogram is Figure 7,
        right).
    per_case_accuracy : pandas.DataFrame
        ``model, reliability, predictor, k, metric, case, item_id, value``: every UA metric of
        each case, averaged over the samples (Figure 7, middle, plots them sorted).

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Sections 2.3-2.4, Figure 7.

    Examples
    --------
    >>> import numpy as np
    >>> res = sweep("dirichlet", np.array([[3, 1, 0], [0, 2, 2]]), [1.0], n_samples=50, seed=0,
    ...             ks=(1,))
    >>> sorted(res.certainty.columns)[:3]
    ['k', 'mean_certainty', 'median']
    """

    certainty: pd.DataFrame
    accuracy: pd.DataFrame
    per_case: pd.DataFrame
    info: list
    per_sample: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_SAMPLE_COLUMNS))
    per_case_accuracy: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=_CASE_ACCURACY_COLUMNS))

    def mean_ess(self) -> list[float]:
        """Per swept reliability (in ``info`` order), the mean over cases of the Plackett-Luce
        sampler's effective sample size (of the top class; NaN when the sampler reports none,
        e.g. Dirichlet models or r = inf): the number the Certainty page shows."""
        out = []
        for info in self.info:
            ess = np.asarray(info.get("ess", []) if isinstance(info, dict) else [], dtype=float)
            finite = ess[np.isfinite(ess)]
            out.append(float(finite.mean()) if finite.size else float("nan"))
        return out


def sweep(
    model: str,
    data,
    reliabilities: Sequence[float],
    *,
    n_samples: int = 100,
    seed: int = 0,
    prior: float | None = None,
    n_classes: int | None = None,
    ks: Sequence[int] = (1, 2, 3),
    predictions: dict[str, np.ndarray] | None = None,
    risk=None,
    item_ids: Sequence[str] | None = None,
    ao_depth: int | None = None,
    method: str = "compact",
    point: np.ndarray | None = None,
    progress: Callable[[float, str], None] | None = None,
    **sampler_kwargs,
) -> SweepResult:
    r"""Sample once per reliability and compute certainty, UA metrics and risk over the dataset.

    .. math:: \lambda^{(s)} \sim p(\lambda \mid \text{annotations}, r), \quad
       \overline{\mathrm{AC}}_k(r) = \frac{1}{N} \sum_i \mathrm{AnnotationCertainty}_k(i),
       \quad \mathrm{UA\text{-}Acc}_k(r) = \frac{1}{N S} \sum_{i,s}
       \mathbb{1}[\arg\max \lambda^{(s)}_i \in P_k(i)]

    Stutz et al. (2023): the models of section 2.2 and Appendix B (``"dirichlet"``:
    Dir(r c + a0); ``"prirn"``: Dir(r IRN + a0); ``"pl"``: Plackett-Luce Gibbs sampler with every
    reader repeated r times), annotation certainty (section 2.3, eq. (4)-(5)) and UA accuracy (section
    2.4, eq. (8)), UA average overlap (eq. (12)), as in Figure 6. ``method="compact"`` draws only
    the top classes of every sample (same distribution as ``"dense"``); the same seed is used at
    every reliability (common random numbers); r = inf uses the point estimate.

    Parameters
    ----------
    model : {"dirichlet", "prirn", "pl"}
        Aggregation model.
    data : ndarray of shape (N, K) or list
        Counts for ``"dirichlet"``; selectors (case -> reader -> blocks) otherwise.
    reliabilities : sequence of float
        Values of r (``inf`` allowed).
    n_samples : int, default 100
        S per reliability.
    seed : int, default 0
        Seed of the sampler.
    prior : float, optional
        Dirichlet pseudo-count a0 (default: the model's default prior).
    n_classes : int, optional
        K for selectors.
    ks : sequence of int, default (1, 2, 3)
        Sizes of the top sets.
    predictions : dict of str to ndarray of shape (N, K), optional
        Models to score with the UA metrics.
    risk : array_like of shape (K,), optional
        Risk group of every class.
    item_ids : sequence of str, optional
        Case names for ``per_case``.
    ao_depth : int, optional
        Also UA average overlap at this depth.
    method : {"compact", "dense"}, default "compact"
        Sampler path.
    point : ndarray of shape (N, K), optional
        Precomputed point estimate (used at r = inf).
    progress : callable, optional
        ``progress(fraction, message)``.
    **sampler_kwargs
        Passed to the sampler (e.g. burn-in for PL).

    Returns
    -------
    SweepResult
        Tidy ``certainty``, ``accuracy``, ``per_case``, ``per_sample`` and
        ``per_case_accuracy`` tables and sampler ``info``.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Sections 2.2-2.4, eq. (4)-(5), (8), (12); Appendix B; Figure 6.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[3, 1, 0], [0, 2, 2], [4, 0, 0]])
    >>> res = sweep("dirichlet", counts, [1.0, np.inf], n_samples=200, seed=0, ks=(1,),
    ...             predictions={"m": np.array([[.6, .3, .1], [.1, .5, .4], [.8, .1, .1]])})
    >>> print(res.certainty[["reliability", "mean_certainty"]].round(2).to_string(index=False))
     reliability  mean_certainty
             1.0            0.79
             inf            1.00
    """
    prior = default_prior(model) if prior is None else _checked_prior(prior)
    if method not in ("compact", "dense"):
        raise ValueError("method must be 'compact' or 'dense'")
    if len(data) == 0:
        raise ValueError("sweep needs at least one case; the data has 0.")
    for name, p in (predictions or {}).items():
        _finite_scores(np.asarray(p, dtype=float), f"predictions of {name!r}")
    ks = [int(k) for k in ks]
    if any(k < 1 for k in ks) or (ao_depth is not None and int(ao_depth) < 1):
        raise ValueError("ks and ao_depth must be >= 1")
    cert_rows, acc_rows, case_frames, infos = [], [], [], []
    ua_tables = []  # (accuracy row, per-draw frame, per-case frame) of every UA metric
    preds = predictions or {}
    if point is not None:
        base = np.asarray(point, dtype=float)
        if base.ndim != 2:
            raise ValueError("point must be the (N, K) point estimate")
    elif model == "pl" and not preds and (risk is None or not any(
            math.isinf(float(r)) for r in reliabilities)):
        # The PL maximum-likelihood fit is as slow as a Gibbs run, and no number needs it here:
        # the samples come from the Gibbs sampler, and at reliability inf every sample is the
        # point estimate, so its certainty is 1 by construction (certain_by_construction).
        base = None
    else:
        base = point_estimate(model, data, n_classes=n_classes,
                              tie_split=sampler_kwargs.get("tie_split", True))
    K = base.shape[1] if base is not None else _pl_n_classes(data, n_classes)
    ks = [k for k in ks if k <= K]
    ao = None if ao_depth is None else min(int(ao_depth), K)
    depth = max(ks + ([ao] if ao else []) + [1])
    for name, p in preds.items():
        for k in ks:
            det = topk_accuracy(p, np.argmax(base, axis=1), k=k)
            acc_rows.append({"model": model, "reliability": math.inf, "predictor": name, "k": k,
                             "metric": "deterministic_accuracy", "mean": det, "sd": 0.0,
                             "min": det, "max": det})
        if ao:
            det = float(ua_average_overlap_from_top(topk_sets(base, ao)[:, None, :], p,
                                                    depth=ao).mean())
            acc_rows.append({"model": model, "reliability": math.inf, "predictor": name, "k": ao,
                             "metric": "deterministic_average_overlap", "mean": det, "sd": 0.0,
                             "min": det, "max": det})
    n_r = len(reliabilities)
    n_cases = len(data)
    engine = None
    layout = None
    for i, r in enumerate(reliabilities):
        if progress is not None:
            progress(i / n_r, f"{model}: reliability {r}")
        kwargs = dict(reliability=r, n_samples=n_samples, seed=seed, prior=prior,
                      n_classes=n_classes, return_info=True, **sampler_kwargs)
        if math.isinf(float(r)) and base is None:  # certain by construction, nothing to draw
            check_sampler_args(r, n_samples)
            top = None
            info = {"model": model, "reliability": math.inf, "n_samples": int(n_samples),
                    "seed": seed}
        elif math.isinf(float(r)):  # the point estimate for every sample
            check_sampler_args(r, n_samples)
            top = np.ascontiguousarray(np.broadcast_to(
                topk_sets(base, depth).astype(np.int32)[:, None, :],
                (base.shape[0], int(n_samples), depth)))
            info = {"model": model, "reliability": math.inf, "n_samples": int(n_samples),
                    "seed": seed}
        elif method == "compact" and model in ("prirn", "dirichlet"):
            r_ok = check_sampler_args(r, n_samples)
            if engine is None:  # one engine: the unranked draws are shared by all reliabilities
                engine = compact_engine(model, data, base, prior, int(n_samples), depth, seed)
            top = engine.top(r_ok)
            info = {"model": model, "reliability": r_ok, "n_samples": int(n_samples),
                    "seed": seed, "compact": True}
        elif method == "compact":
            if model == "pl" and "layout" not in kwargs:  # one layout for every reliability
                if layout is None:
                    layout = build_layout(data, n_classes, with_super=True)
                kwargs["layout"] = layout
            top, info = sample_top_classes(model, data, depth=depth, **kwargs)
        else:
            x, info = sample_plausibilities(model, data, **kwargs)
            top = topk_sets(x, depth)
            del x
        infos.append(info)
        per_case = {"model": model, "reliability": float(r), "case": np.arange(n_cases)}
        if item_ids is not None:
            per_case["item_id"] = list(item_ids)
        keys = {k: _set_keys(top[..., :k], K) for k in ks} if top is not None else {}
        for k in ks:
            c = (_max_key_frequency(keys[k], K if k == 1 else None) if top is not None
                 else np.ones(n_cases))
            per_case[f"certainty_top{k}"] = c
            cert_rows.append({"model": model, "reliability": float(r), "k": k,
                              "mean_certainty": float(c.mean()),
                              "median": float(np.median(c)),
                              "share_below_0.5": float((c < 0.5).mean())})
        if risk is not None:
            _risk_array(risk, K)
            per_case["risk_certainty"] = risk_certainty_from_top(top, risk)
            per_case["expected_risk"] = expected_risk_from_top(top, risk)
        for name, p in preds.items():  # each UA metric's (N, S) table, three views of it
            for k in ks:
                pred_key = _set_keys(topk_sets(p, k), K)
                ua_tables.append(_metric_tables(
                    model, r, name, k, "ua_accuracy", ua_accuracy_from_top(top, p, k=k),
                    item_ids))
                ua_tables.append(_metric_tables(
                    model, r, name, k, "ua_set_accuracy",
                    (keys[k] == pred_key[:, None]).astype(float), item_ids))
            if ao:
                ua_tables.append(_metric_tables(
                    model, r, name, ao, "ua_average_overlap",
                    ua_average_overlap_from_top(top, p, depth=ao), item_ids))
        case_frames.append(pd.DataFrame(per_case))
        del top
    if progress is not None:
        progress(1.0, f"{model}: done")
    acc_rows += [row for row, _, _ in ua_tables]
    return SweepResult(
        certainty=pd.DataFrame(cert_rows,
                               columns=["model", "reliability", "k", "mean_certainty", "median",
                                        "share_below_0.5"]),
        accuracy=pd.DataFrame(acc_rows, columns=["model", "reliability", "predictor", "k",
                                                 "metric", "mean", "sd", "min", "max"]),
        per_case=pd.concat(case_frames, ignore_index=True) if case_frames else pd.DataFrame(),
        info=infos,
        per_sample=_compact_labels([t[1] for t in ua_tables], _SAMPLE_COLUMNS),
        per_case_accuracy=_compact_labels([t[2] for t in ua_tables], _CASE_ACCURACY_COLUMNS),
    )


def _compact_labels(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    """The long per-draw / per-case tables in one frame, their repeated text columns (model,
    predictor, metric, item id) as categoricals: a cached sweep of 2,000 cases x 3 models x 7
    metrics keeps ~1.5 MB instead of ~4 MB (same values)."""
    if not frames:
        return pd.DataFrame(columns=columns)
    out = pd.concat(frames, ignore_index=True)
    for name in ("model", "predictor", "metric", "item_id"):
        if name in out.columns and not pd.api.types.is_numeric_dtype(out[name]):
            out[name] = out[name].astype("category")
    return out


def _metric_tables(model: str, r: float, predictor: str, k: int, metric: str,
                   case_sample: np.ndarray, item_ids) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """One (N, S) table of a UA metric (case i, sample s) as the sweep's three views: its
    summary over samples of the per-sample dataset value (mean over cases; an ``accuracy``
    row), those S values (``per_sample``) and the N per-case values (mean over samples;
    ``per_case_accuracy``) (Stutz et al. 2023, Figure 7)."""
    by_sample = case_sample.mean(axis=0)
    n = case_sample.shape[0]
    keys = {"model": model, "reliability": float(r), "predictor": predictor, "k": int(k),
            "metric": metric}
    return (
        {**keys, **summarise_over_samples(by_sample)},
        pd.DataFrame({**keys, "sample": np.arange(by_sample.size), "value": by_sample},
                     columns=_SAMPLE_COLUMNS),
        pd.DataFrame({**keys, "case": np.arange(n),
                      "item_id": list(item_ids) if item_ids is not None else np.arange(n),
                      "value": case_sample.mean(axis=1)}, columns=_CASE_ACCURACY_COLUMNS),
    )


def _pl_n_classes(selectors, n_classes: int | None) -> int:
    """K of selectors as :func:`pl_mle` returns it: ``n_classes``, or the largest class id + 1
    (the point estimate's width, without the fit)."""
    if n_classes is not None:
        return int(n_classes)
    ids = [int(c) for case in selectors for reader in case for block in reader for c in block]
    return max(ids, default=-1) + 1


# ---------------------------------------------------------------------------------- tables
#: Plackett-Luce repeats every reader r times: it runs at the integer reliabilities up to this
#: value and at infinity (the maximum-likelihood point estimate). The Gibbs sampler's default
#: counts scheme costs the same at every r; its per-copy scheme's cost grows with r.
PL_MAX_RELIABILITY = 10


def pl_reliability_allowed(model: str, reliability: float, *,
                           max_reliability: int = PL_MAX_RELIABILITY) -> bool:
    r"""Whether ``model`` runs at ``reliability``.

    .. math:: r \in \{1, 2, \dots, r_{\max}\} \cup \{\infty\} \text{ for PL}, \quad
       r \in (0, \infty] \text{ otherwise}

    Stutz et al. (2023), Appendix B.4 and C.3: for Plackett-Luce the reliability is the number of
    times each reader's ranking is repeated (an integer); for the Dirichlet models it multiplies
    the evidence (any positive value).

    Parameters
    ----------
    model : {"dirichlet", "prirn", "pl"}
        Aggregation model.
    reliability : float
        r.
    max_reliability : int
        Largest integer r offered for PL.

    Returns
    -------
    bool

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix B.4, C.3.

    Examples
    --------
    >>> pl_reliability_allowed("pl", 2.5), pl_reliability_allowed("pl", 3)
    (False, True)
    """
    if model != "pl" or math.isinf(reliability):
        return True
    return reliability == int(reliability) and reliability <= max_reliability


def rank_predictors(accuracy: pd.DataFrame, *, metric: str, k: int) -> pd.DataFrame:
    r"""Rank of every predictor per aggregation model and finite reliability.

    .. math:: \mathrm{rank}(m) = 1 + \#\{m' : \overline{\mathrm{UA}}(m') > \overline{\mathrm{UA}}(m)\}

    on the mean over samples of ``metric`` at ``k`` (ties share the smallest rank): does the
    ranking of models change with the reliability? (Stutz et al. 2023, section 3.2, Figure 6.)

    Parameters
    ----------
    accuracy : pandas.DataFrame
        ``SweepResult.accuracy``.
    metric : str
        e.g. ``"ua_accuracy"``.
    k : int
        Size of the top set.

    Returns
    -------
    pandas.DataFrame
        The rows for ``metric`` and ``k`` at finite reliabilities, with a ``rank`` column.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.2, Figure 6.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"model": "pl", "reliability": 1.0, "predictor": ["a", "b"], "k": 1,
    ...                     "metric": "ua_accuracy", "mean": [0.6, 0.7]})
    >>> rank_predictors(acc, metric="ua_accuracy", k=1)["rank"].tolist()
    [2.0, 1.0]
    """
    sub = accuracy[(accuracy["k"] == k) & (accuracy["metric"] == metric)]
    ranking = sub[np.isfinite(sub["reliability"])].copy()
    ranking["rank"] = ranking.groupby(["model", "reliability"])["mean"].rank(
        ascending=False, method="min")
    return ranking


def case_summary(samples: np.ndarray, point: np.ndarray, labels: Sequence[str], *,
                 top: int = 8) -> pd.DataFrame:
    r"""The top classes of one case and their sampled plausibilities.

    .. math:: \bar\lambda_y = \frac{1}{S} \sum_s \lambda^{(s)}_y, \quad
       \mathrm{sd}_y = \sqrt{\tfrac{1}{S} \sum_s (\lambda^{(s)}_y - \bar\lambda_y)^2}

    Stutz et al. (2023), Figure 5 (plausibility samples of one case). Classes are ordered by
    ``point + mean`` (largest first, ties to the lower index).

    Parameters
    ----------
    samples : ndarray of shape (S, K)
        Samples of one case.
    point : ndarray of shape (K,)
        Its point estimate.
    labels : sequence of str
        Class names (length K).
    top : int, default 8
        Number of classes kept.

    Returns
    -------
    pandas.DataFrame
        ``class_index, class, point_estimate, mean, sd, p05, p95``.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.2, Figure 5.

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> table = case_summary(samples[0], np.array([.5, .4, .1]), ["a", "b", "c"], top=2)
    >>> print(table[["class", "mean", "sd"]].round(3).to_string(index=False))
    class  mean    sd
        a  0.50 0.187
        b  0.35 0.112
    """
    x = np.asarray(samples, dtype=float)
    base = np.asarray(point, dtype=float)
    order = np.argsort(-(base + x.mean(0)), kind="stable")[:top]
    chosen = x[:, order]
    return pd.DataFrame({
        "class_index": order,
        "class": [labels[c] for c in order],
        "point_estimate": base[order],
        "mean": chosen.mean(0),
        "sd": chosen.std(0),
        "p05": np.quantile(chosen, 0.05, axis=0),
        "p95": np.quantile(chosen, 0.95, axis=0),
    })


def set_coverage(samples: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    r"""The top-k set of a predictor and the share of samples whose top-1 class is in it.

    .. math:: \frac{1}{S} \sum_s \mathbb{1}\big[\arg\max_y \lambda^{(s)}_y \in P_k\big]

    The case-level reading of UA top-k accuracy (Stutz et al. 2023, section 2.4, eq. (8)).

    Parameters
    ----------
    samples : ndarray of shape (S, K)
        Samples of one case.
    scores : ndarray of shape (K,)
        The predictor's scores (top-k ties to the lower index).
    k : int
        Size of the set.

    Returns
    -------
    tuple of (ndarray of shape (k,), float)

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.4, eq. (8).

    Examples
    --------
    Two cases, four plausibility samples each over three classes:

    >>> import numpy as np
    >>> samples = np.array([
    ...     [[.6, .3, .1], [.2, .5, .3], [.5, .4, .1], [.7, .2, .1]],
    ...     [[.1, .1, .8], [.2, .1, .7], [.1, .3, .6], [.3, .3, .4]]])
    >>> top, share = set_coverage(samples[0], np.array([.5, .4, .1]), 2)
    >>> print(top, share)
    [0 1] 1.0
    """
    pset = topk_sets(np.asarray(scores, dtype=float), k)
    top1 = np.argmax(np.asarray(samples, dtype=float), axis=1)
    return pset, float(np.isin(top1, pset).mean())


def certain_by_construction(k: int, reliability: float, n_classes: int) -> bool:
    r"""Whether top-k annotation certainty is 1 whatever the data.

    .. math:: \mathrm{AnnotationCertainty}_k = 1 \text{ if } r = \infty \text{ or } k \ge K

    Stutz et al. (2023), section 2.3, caveats of eq. (5): a point mass (infinite reliability)
    always has certainty 1, and a top-k set with k >= K is every class. Such values describe the
    method, not the data.

    Parameters
    ----------
    k : int
        Size of the top set.
    reliability : float
        r.
    n_classes : int
        K.

    Returns
    -------
    bool

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 2.3, eq. (5).

    Examples
    --------
    >>> certain_by_construction(1, float("inf"), 3), certain_by_construction(1, 5.0, 3)
    (True, False)
    """
    return math.isinf(float(reliability)) or int(k) >= int(n_classes)
