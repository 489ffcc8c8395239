"""Evaluation under uncertain ground truth (seed 001, Stutz et al. 2023; spec ``certainty.md``).

Aggregation of annotations as posterior inference of plausibilities lambda (a distribution over
the K classes per case), annotation certainty and uncertainty-adjusted (UA) metrics.

* Point estimates (spec 2): :func:`proportions`, :func:`irn` (paper: block weight 1/b shared by
  the block's classes; ``tie_split=False`` / :func:`irn_reference` = reference ``irn.py``, full
  1/b for every tied class), :func:`pl_mle`.
* Samplers (spec 3, binding decision 10): ``"dirichlet"`` Dir(r c + a0), ``"prirn"``
  Dir(r IRN + a0), ``"pl"`` Plackett-Luce Gibbs sampler with every reader repeated r times;
  r = inf gives the point estimate (repeated S times).
* Certainty (spec 5): rank-k label certainties, top-k set certainty, risk certainty, expected risk.
* UA metrics (spec 6): UA top-k accuracy, UA top-k set accuracy, (partial) average overlap, UA
  average overlap, each per case, for the dataset and per sample (its spread).
* Compact sampler (:func:`sample_top_classes`): every summary above depends on a sample only
  through the order of its top few classes, so sweeps draw only those (explicit Gammas for the
  classes with evidence, order statistics for the exchangeable rest) and never hold (N, S, K);
  ``*_from_top`` functions compute the summaries from that (N, S, depth) array.
* Leave-one-reader-out agreement (spec 7) and sweeps over reliabilities (tidy DataFrames).

Ties in argmax / top-k: lowest class index (binding decision 3).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from . import _plackett_luce as _pl
from ._plackett_luce import effective_sample_size, pl_gibbs, pl_log_likelihood
from .io import DataError

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
    "gamma_log_quantile",
    "n_classes_of",
    "selectors_from_opinions",
    "selectors_from_rankings_groups",
    "topk_sets",
    "rank_k_certainties",
    "annotation_certainty",
    "certainty_from_top",
    "rank_k_certainties_from_top",
    "risk_certainty_from_top",
    "expected_risk_from_top",
    "ua_accuracy_from_top",
    "ua_average_overlap_from_top",
    "risk_certainty",
    "expected_risk",
    "ua_accuracy",
    "ua_accuracy_per_case",
    "ua_accuracy_per_sample",
    "ua_accuracy_per_case_sample",
    "topk_accuracy",
    "average_overlap",
    "ua_average_overlap",
    "reader_agreement",
    "agreement_certainty_correlation",
    "summarise_over_samples",
    "SweepResult",
    "sweep",
]

MODELS = ("dirichlet", "prirn", "pl")


# ---------------------------------------------------------------------------------- formats
def n_classes_of(selectors) -> int:
    """Largest class id in a selectors list + 1 (0 when empty)."""
    m = -1
    for case in selectors:
        for reader in case:
            for block in reader:
                if len(block):
                    m = max(m, max(int(c) for c in block))
    return m + 1


def selectors_from_opinions(opinions) -> list:
    """Reference "opinions" format (readers x classes integer confidences per case; 0 =
    unranked, higher = ranked first, equal = tie; ``formats.py``) -> selectors."""
    out = []
    for case in opinions:
        arr = np.asarray(case)
        readers = []
        for row in np.atleast_2d(arr):
            levels = sorted({int(v) for v in row if v > 0}, reverse=True)
            readers.append([[int(c) for c in np.flatnonzero(row == v)] for v in levels])
        out.append(readers)
    return out


def selectors_from_rankings_groups(rankings, groups) -> list:
    """Reference rankings/groups arrays (cases x readers x classes; ``groups`` -1 = unranked,
    equal group = tie; ``irn.py``) -> selectors."""
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
    """p_k = c_k / sum c per row (spec 2); rows without annotations stay 0."""
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or np.any(c < 0):
        raise ValueError("counts must be a non-negative (N, K) array")
    s = c.sum(axis=1, keepdims=True)
    return np.divide(c, s, out=np.zeros_like(c), where=s > 0)


def irn(selectors, n_classes: int | None = None, *, tie_split: bool = True) -> np.ndarray:
    """Inverse rank normalisation (paper App. B.2; spec 2) -> (N, K), rows sum to 1.

    Reader weight of block b (1-based): 1/b, shared by its classes: 1/(b |B_b|) (paper,
    default) or the full 1/b for each tied class (``tie_split=False``, reference
    ``irn.py::aggregate_irn``). Summed over readers, normalised after summing. Cases without any
    ranking: a row of zeros."""
    lay = _pl.build_layout(selectors, n_classes, with_super=False)
    w = 1.0 / (lay.block_pos + 1.0)
    if tie_split:
        w = w / lay.block_size
    entry_w = w[lay.entry_block]
    cls = lay.local_class[lay.entry_local]
    case = lay.local_case[lay.entry_local]
    out = np.zeros((lay.n_cases, lay.n_classes))
    np.add.at(out, (case, cls), entry_w)
    return proportions(out)


def irn_reference(selectors, n_classes: int | None = None) -> np.ndarray:
    """IRN exactly as the reference code (no tie split); see :func:`irn`."""
    return irn(selectors, n_classes, tie_split=False)


def pl_mle(selectors, n_classes: int | None = None, **kwargs) -> np.ndarray:
    """Plackett-Luce maximum-likelihood plausibilities (N, K); see
    :func:`hlv_core._plackett_luce.pl_mle` (EM-MM, Hunter 2004, exact for ties)."""
    return _pl.pl_mle(selectors, n_classes, **kwargs)


def point_estimate(model: str, data, *, n_classes: int | None = None,
                   tie_split: bool = True) -> np.ndarray:
    """The r = inf estimate of ``model``: proportions (dirichlet), IRN (prirn), PL MLE (pl)."""
    if model == "dirichlet":
        return proportions(data)
    if model == "prirn":
        return irn(data, n_classes, tie_split=tie_split)
    if model == "pl":
        return pl_mle(data, n_classes)
    raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")


# ---------------------------------------------------------------------------------- samplers
def _check_common(reliability, n_samples) -> float:
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
    prior: float = 0.1,
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
    """Samples lambda ~ p(lambda | annotations) as a normalised (N, S, K) array (spec 3).

    * ``"dirichlet"`` (``data`` = (N, K) counts): Dir(r * c + prior) (paper App. A).
    * ``"prirn"`` (``data`` = selectors): Dir(r * IRN + prior), IRN normalised (paper App. B.3,
      ``irn.py::sample_prirn``; the reference notebook uses alpha = 0.01, our default 0.1).
    * ``"pl"`` (selectors): Gibbs sampler (:func:`pl_gibbs`), every reader repeated r times
      (integer r), prior Gamma(``pl_shape``, ``pl_rate``) = reference Gamma(1, 1), ``burn_in``
      iterations per chain, ``n_chains`` chains. The mass of the classes nobody ranked is split
      by a Dirichlet(1) draw (``unranked_split="dirichlet"``, reference) or equally.
    * ``reliability=inf``: the point estimate (:func:`point_estimate`) repeated S times.
    ``n_classes=None``: largest class id + 1. With ``return_info`` also returns a dict (ESS ...).
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    r = _check_common(reliability, n_samples)
    S = int(n_samples)
    rng = np.random.default_rng(seed)
    info: dict = {"model": model, "reliability": r, "n_samples": S, "seed": seed}
    if model == "dirichlet":
        counts = np.asarray(data, dtype=float)
        if counts.ndim != 2 or np.any(counts < 0):
            raise ValueError("dirichlet needs an (N, K) array of non-negative counts")
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
            out = _densify(lay, local, rng, unranked_split)
    return (out, info) if return_info else out


def _densify(lay, local: np.ndarray, rng: np.random.Generator, split: str,
             cases: tuple[int, int] | None = None) -> np.ndarray:
    """(S, L) local normalised samples -> (N, S, K), or (c1 - c0, S, K) for the cases
    ``cases = (c0, c1)``; super-class mass split over its classes."""
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


# ---------------------------------------------------------------------------------- compact path
# Every summary of spec 5-6 (top-k set certainty, rank-k certainties, UA top-k (set) accuracy,
# UA average overlap at depth D, risk certainty, expected risk) depends on a sample only through
# the ORDER of its top `depth` classes, and a Dirichlet sample is a vector of independent Gammas
# divided by their sum (normalisation does not change the order). Classes with the same
# Dirichlet parameter in a case (every class without evidence: parameter = prior a0) are
# exchangeable, so only the top `depth` order statistics of their n_u iid Gamma(a0) draws are
# needed, with class identities uniform without replacement among them.
_QGRID = 1 << 14  # minimum grid points of each quantile table (step <= 0.005 up to 8x)
_LOG_HALF = math.log(0.5)
_V_MIN = -80.0  # smallest log upper-tail probability covered by the table (exact call below)


@functools.lru_cache(maxsize=32)
def _gamma_quantile_tables(a: float):
    """Cubic-Hermite tables of log F^{-1} for Gamma(a, 1): in the upper region indexed by
    v = log Q (upper tail prob., Q <= 1/2), in the lower region by u = log P (P <= 1/2). Slopes
    are exact: d log x / d log P = P / (x f(x)). Below ``u_lo`` the small-x expansion
    log x = (log P + lgamma(a + 1)) / a is used (relative error O(x), x < 1e-12 there)."""
    lga, lga1 = special.gammaln(a), special.gammaln(a + 1.0)
    u_lo = min(a * math.log(1e-12) - lga1, _LOG_HALF - 1e-3)

    def table(lo: float, hi: float, upper: bool):
        n = int(np.clip((hi - lo) / 0.005, _QGRID, 8 * _QGRID))
        g = np.linspace(lo, hi, n)
        p = np.exp(g)
        with np.errstate(divide="ignore", under="ignore"):
            x = special.gammainccinv(a, p) if upper else special.gammaincinv(a, p)
            logx = np.log(x)
        small = ~(x > 1e-250)
        logx[small] = (np.log1p(-p[small]) + lga1) / a if upper else (g[small] + lga1) / a
        x = np.exp(logx)
        slope = np.exp(g - (a * logx - x - lga))
        h = (g[-1] - g[0]) / (n - 1)
        d = (-slope if upper else slope) * h
        y0, y1, d0, d1 = logx[:-1], logx[1:], d[:-1], d[1:]
        # Hermite cubic per interval in Horner form: y0 + f (d0 + f (c2 + f c3))
        # one row of 4 coefficients per interval: a lookup touches one cache line, not four
        coef = np.ascontiguousarray(
            np.stack([y0, d0, 3 * (y1 - y0) - 2 * d0 - d1, 2 * (y0 - y1) + d0 + d1], axis=1))
        return g[0], h, coef

    return table(_V_MIN, _LOG_HALF, True), table(u_lo, _LOG_HALF, False), u_lo, lga1


def _hermite(t, z: np.ndarray) -> np.ndarray:
    g0, h, coef = t
    s = np.clip((z - g0) * (1.0 / h), 0.0, coef.shape[0] - 1e-9)
    i = s.astype(np.intp)
    f = s - i
    c = coef[i]
    return c[..., 0] + f * (c[..., 1] + f * (c[..., 2] + f * c[..., 3]))


def gamma_log_quantile(a: float, log_p) -> np.ndarray:
    """log F^{-1}(exp(log_p)) for the Gamma(a, 1) distribution (F = lower regularised incomplete
    gamma), accurate to ~1e-10 in log x over the whole range including x far below the smallest
    double (Cubic-Hermite tables, the small-x expansion, and scipy ``gammainccinv`` for upper tail
    probabilities below e^-80). Used to draw Gamma order statistics (compact sampler)."""
    a = float(a)
    if not a > 0:
        raise ValueError("shape a must be > 0")
    up, lo, u_lo, lga1 = _gamma_quantile_tables(a)
    lp = np.asarray(log_p, dtype=float)
    out = np.empty_like(lp)
    upper = lp > _LOG_HALF
    with np.errstate(divide="ignore"):
        v = np.log(-np.expm1(lp[upper]))
    res = _hermite(up, v)
    far = v < _V_MIN
    if far.any():
        with np.errstate(divide="ignore"):
            res[far] = np.log(special.gammainccinv(a, np.exp(v[far])))
    out[upper] = res
    lw = lp[~upper]
    out[~upper] = np.where(lw < u_lo, (lw + lga1) / a, _hermite(lo, np.maximum(lw, u_lo)))
    return out


# Sort keys of the compact sampler: int64 integers ordered like the Gamma draws they stand for,
# built without a logarithm where the draw is a normal double (>= 1e-300): its IEEE bit pattern
# is monotone in the value. Values below (possible for shapes << 1, kept in log space L) map
# under every such bit pattern: -2^62 + (L + 1e6) 2^40 (monotone; resolution 2^-40 in L).
_LIN_MIN = 1e-300
_LOG_LIN = math.log(_LIN_MIN)
_LOG_FLOOR = -1e6  # log values below are tied (E / shape > 1e6: never in practice)


def _log_keys(log_v: np.ndarray) -> np.ndarray:
    """Sort keys (see above) of values given by their logarithm (any float64, -inf included)."""
    L = np.asarray(log_v, dtype=float)
    out = np.empty(L.shape, dtype=np.int64)
    hi = L >= _LOG_LIN
    out[hi] = np.exp(L[hi]).view(np.int64)
    lo = ~hi
    out[lo] = (-(1 << 62)
               + np.floor((np.maximum(L[lo], _LOG_FLOOR) - _LOG_FLOOR) * 2.0 ** 40)
               ).astype(np.int64)
    return out


def _gamma_keys(rng: np.random.Generator, shape: np.ndarray, n_samples: int) -> np.ndarray:
    """Sort keys of Gamma(shape, 1) draws: ``shape`` (P, nc), ``n_samples`` S draws of each ->
    (P, nc S) int64. shape >= 1: numpy's draw G (never below 1e-300 in practice; clipped
    there). shape < 1: G = G' U^(1/shape) = G' exp(-E / shape) with G' ~ Gamma(shape + 1)
    (Marsaglia & Tsang's boost); where that product is below 1e-300 the key comes from
    log G = log G' - E / shape, so tiny shapes never underflow into ties."""
    P, nc = shape.shape
    S = int(n_samples)
    small = shape < 1.0
    full = np.broadcast_to(np.where(small, shape + 1.0, shape)[:, :, None], (P, nc, S))
    g = rng.standard_gamma(full).reshape(P * nc, S)
    rows = np.flatnonzero(small.ravel())
    if not rows.size:
        np.maximum(g, _LIN_MIN, out=g)
        return g.view(np.int64).reshape(P, nc * S)
    every = rows.size == P * nc
    gs = g if every else g[rows]
    lz = rng.standard_exponential((rows.size, S))
    lz *= (-1.0 / shape.ravel()[rows])[:, None]  # log U^(1/shape) = -E / shape
    cand = np.flatnonzero(lz < _LOG_LIN + 50.0)  # may fall below 1e-300 (G' < e^50 always)
    if cand.size:
        with np.errstate(divide="ignore"):
            log_g = np.log(gs.ravel()[cand]) + lz.ravel()[cand]
        low = log_g < _LOG_LIN
        cand, log_g = cand[low], log_g[low]
    np.exp(lz, out=lz)
    gs *= lz
    np.maximum(g, _LIN_MIN, out=g)
    if not every:
        np.maximum(gs, _LIN_MIN, out=gs)
    keys_s = gs.view(np.int64)
    if cand.size:
        keys_s.ravel()[cand] = _log_keys(log_g)
    keys = g.view(np.int64)
    if not every:
        keys[rows] = keys_s
    return keys.reshape(P, nc * S)


def _pack_ids(keys: np.ndarray, class_id, bits: int) -> np.ndarray:
    """Sort keys with ``2^bits - 1 - class_id`` in their low ``bits`` bits (bits = bit length of
    K - 1), in place: an integer max/min network then sorts the values and carries the class
    ids, which come back as ``2^bits - 1 - (key & (2^bits - 1))``. Values whose keys differ
    only in those bits (exact ties, or about 2^-(52 - bits) relative: 2^-43 for K = 419) order
    the lowest class id first, the tie rule of the dense path."""
    mask = np.int64((1 << bits) - 1)
    keys &= ~mask
    keys |= mask - np.asarray(class_id, dtype=np.int64)
    return keys


class _CompactDirichlet:
    """Top-``depth`` class ids of Dirichlet samples whose classes without evidence all have
    parameter ``prior`` (see the section comment), for any number of reliabilities r:
    parameter r e_k + prior for the classes with evidence e_k > 0.

    The unranked order statistics do not depend on r: they are drawn once (own random stream,
    spawned from ``seed``) and shared by every reliability; the named classes' Gammas come from a
    second stream restarted at every reliability, so ``top(r)`` gives the same numbers whichever
    other reliabilities are asked for. Cases are grouped by their number P of named classes and
    processed in chunks of at most ``chunk`` values."""

    def __init__(self, evidence: np.ndarray, prior: float, n_samples: int, depth: int, seed,
                 chunk: int = 1 << 21):
        ev = np.asarray(evidence, dtype=float)
        self.N, self.K = ev.shape
        self.S, self.M, self.prior = int(n_samples), int(depth), float(prior)
        u_seq, n_seq = np.random.SeedSequence(seed).spawn(2)
        self._u_seq, self._n_seq = u_seq, n_seq
        pos = ev > 0
        n_named = pos.sum(1)
        self.chunks = []  # (P, case indices, named ids (nc, P) ascending, evidence (nc, P))
        for P in np.unique(n_named):
            cases = np.flatnonzero(n_named == P)
            P = int(P)
            # np.nonzero is row-major: the ids of each case come out ascending
            ids = np.nonzero(pos[cases])[1].reshape(len(cases), P)
            e = np.take_along_axis(ev[cases], ids, 1)
            per = max(1, chunk // max(1, (P + self.M) * self.S))
            for c0 in range(0, len(cases), per):
                self.chunks.append((P, cases[c0:c0 + per], ids[c0:c0 + per], e[c0:c0 + per]))
        self.bits = max(1, int(self.K - 1).bit_length())
        self._unranked = None

    def _draw_unranked(self) -> list:
        """Per chunk: the keys (:func:`_order_keys`) (m_u, n) of the top m_u = min(depth, n_u)
        order statistics of the n_u = K - P iid Gamma(prior) classes, decreasing."""
        rng = np.random.default_rng(self._u_seq)
        S, M, K, prior = self.S, self.M, self.K, self.prior
        out = []
        for P, cases, ids, _ in self.chunks:
            nc, n_u = len(cases), K - P
            n, m_u = nc * S, min(M, K - P)
            if not m_u:
                out.append(np.empty((0, n), np.int64))
                continue
            if prior > 0:
                e = rng.standard_exponential((m_u, n))
                log_w = -np.cumsum(e / (n_u - np.arange(m_u))[:, None], axis=0)
                T = gamma_log_quantile(prior, log_w)
                # identities: m_u distinct uniform picks among the n_u unranked classes
                picks = np.empty((m_u, n), dtype=np.int64)
                u = rng.random((m_u, n))
                for t in range(m_u):
                    r = np.floor(u[t] * (n_u - t)).astype(np.int64)
                    for prev in np.sort(picks[:t], axis=0):
                        r += r >= prev
                    picks[t] = r
            else:  # prior 0: their masses are exactly 0; ties -> lowest class ids
                T = np.full((m_u, n), -np.finfo(float).max)
                picks = np.repeat(np.arange(m_u)[:, None], n, axis=1)
            if P:  # j-th unranked class id: a lookup in each case's unranked classes
                free = np.ones((nc, K), dtype=bool)
                free[np.arange(nc)[:, None], ids] = False
                table = np.nonzero(free)[1]  # row-major: (nc, n_u) ascending ids, flattened
                picks += np.repeat(np.arange(nc) * n_u, S)[None, :]
                picks = table[picks]
            out.append(_pack_ids(_log_keys(T), picks, self.bits))
        return out

    def top(self, reliability: float) -> np.ndarray:
        """(N, S, depth) int32 top class ids at ``reliability`` (finite, > 0)."""
        if self._unranked is None:
            self._unranked = self._draw_unranked()
        rng = np.random.default_rng(self._n_seq)
        S, M, r = self.S, self.M, float(reliability)
        out = np.empty((self.N, S, M), dtype=np.int32)
        mask = np.int64((1 << self.bits) - 1)
        for (P, cases, ids, e), ukeys in zip(self.chunks, self._unranked, strict=True):
            nc = len(cases)
            n, m_u = nc * S, ukeys.shape[0]
            T = np.full((M, n), np.iinfo(np.int64).min)
            T[:m_u] = ukeys
            if P:
                keys = _pack_ids(_gamma_keys(rng, (r * e + self.prior).T, S).reshape(P, nc, S),
                                 ids.T[:, :, None], self.bits).reshape(P, n)
            buf = np.empty(n, dtype=np.int64)
            for j in range(P):  # insert each named class: a max/min network on the keys
                v = keys[j]
                for m in range(M):
                    np.minimum(T[m], v, out=buf)
                    np.maximum(T[m], v, out=T[m])
                    v, buf = buf, v
            top_ids = mask - (T & mask)
            out[cases] = top_ids.T.reshape(nc, S, M)
        return out


def _compact_engine(model: str, data, base: np.ndarray, prior: float, n_samples: int,
                    depth: int, seed) -> _CompactDirichlet:
    """The :class:`_CompactDirichlet` of a sweep: Dir(r c + a0) on the counts (dirichlet) or
    Dir(r IRN + a0) on the point estimate ``base`` (prirn)."""
    if model == "prirn":
        if prior <= 0:
            raise ValueError("prior must be > 0 for PrIRN (classes nobody ranked)")
        return _CompactDirichlet(base, prior, n_samples, depth, seed)
    ev = np.asarray(data, dtype=float)
    if ev.ndim != 2 or np.any(ev < 0):
        raise ValueError("dirichlet needs an (N, K) array of non-negative counts")
    if prior <= 0 and np.any(ev.sum(1) == 0):
        raise ValueError("prior must be > 0 when a row has no annotations")
    return _CompactDirichlet(ev, prior, n_samples, depth, seed)


def _pl_top(lay, local: np.ndarray, rng: np.random.Generator, split: str, depth: int,
            chunk: int = 1 << 23) -> np.ndarray:
    """Top-``depth`` ids (N, S, depth) of the PL samples: the super-class split of
    :func:`_densify` done a block of cases at a time (never the whole (N, S, K) array)."""
    N, K, S = lay.n_cases, lay.n_classes, local.shape[0]
    out = np.empty((N, S, depth), dtype=np.int32)
    per = max(1, chunk // max(1, S * K))
    for c0 in range(0, N, per):
        c1 = min(N, c0 + per)
        dense = _densify(lay, local, rng, split, cases=(c0, c1))
        out[c0:c1] = topk_sets(dense, depth)
    return out


def sample_top_classes(
    model: str,
    data,
    *,
    reliability: float,
    n_samples: int,
    depth: int = 3,
    seed: int = 0,
    prior: float = 0.1,
    n_classes: int | None = None,
    tie_split: bool = True,
    return_info: bool = False,
    **pl_kwargs,
):
    """Compact sampler: the ``depth`` largest classes of each sample, (N, S, depth) int32, in
    decreasing order of plausibility, distributed exactly as
    ``topk_sets(sample_plausibilities(...), depth)`` but without materialising (N, S, K).

    ``"dirichlet"`` / ``"prirn"``: the classes with evidence (count > 0, IRN > 0) get explicit
    Gamma(r e_k + a0) draws (in log space, so tiny shapes never underflow); the n_u classes
    without evidence are iid Gamma(a0), of which only the top ``depth`` order statistics are
    drawn: F(X_(1)) = U_1^(1/n_u), F(X_(j)) = F(X_(j-1)) U_j^(1/(n_u-j+1)), inverted with
    :func:`gamma_log_quantile`, their class identities uniform without replacement among the
    unranked classes (exchangeability). Normalisation is irrelevant to the order. Cost
    O(N S (E/N + depth) depth) instead of O(N S K). ``"pl"``: the Gibbs sampler's compact
    output, the super-class mass split case-block by case-block. ``reliability=inf``: the
    point estimate's top ``depth`` (ties: lowest index) for every sample.

    Seedable (same seed, same result), but not the same random stream as
    :func:`sample_plausibilities`. Ties: classes tied exactly (r = inf, prior 0, equal PL split)
    are ordered by lowest index as in the dense path; with continuous draws the dense path's
    float underflow (prior a0 << 0.01) would create ties that the compact path does not."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    r = _check_common(reliability, n_samples)
    S, M = int(n_samples), int(depth)
    rng = np.random.default_rng(seed)
    info: dict = {"model": model, "reliability": r, "n_samples": S, "seed": seed,
                  "compact": True}
    if model == "dirichlet":
        ev = np.asarray(data, dtype=float)
        if ev.ndim != 2 or np.any(ev < 0):
            raise ValueError("dirichlet needs an (N, K) array of non-negative counts")
        if not math.isinf(r) and prior <= 0 and np.any(ev.sum(1) == 0):
            raise ValueError("prior must be > 0 when a row has no annotations")
    elif model == "prirn":
        ev = irn(data, n_classes, tie_split=tie_split)
        if not math.isinf(r) and prior <= 0:
            raise ValueError("prior must be > 0 for PrIRN (classes nobody ranked)")
    K = ev.shape[1] if model != "pl" else None
    if model == "pl":
        if not math.isinf(r) and r != int(r):
            raise ValueError(
                f"PL reliability is the number of times each reader is repeated: an integer "
                f">= 1 (or inf), got {reliability}")
        split = pl_kwargs.pop("unranked_split", "dirichlet")
        if split not in ("dirichlet", "equal"):
            raise ValueError("unranked_split must be 'dirichlet' or 'equal'")
        if math.isinf(r):
            ev = pl_mle(data, n_classes)
            K = ev.shape[1]
        else:
            lay, local, pinfo = pl_gibbs(data, n_classes, repetitions=int(r), n_samples=S,
                                         seed=seed, **pl_kwargs)
            info.update(pinfo)
            if not 1 <= M <= lay.n_classes:
                raise ValueError(f"depth must be in 1..{lay.n_classes}, got {depth}")
            out = _pl_top(lay, local, rng, split, M)
            return (out, info) if return_info else out
    if not 1 <= M <= K:
        raise ValueError(f"depth must be in 1..{K}, got {depth}")
    if math.isinf(r):
        top = topk_sets(ev, M).astype(np.int32)
        out = np.ascontiguousarray(np.broadcast_to(top[:, None, :], (ev.shape[0], S, M)))
    else:
        out = _CompactDirichlet(ev, prior, S, M, seed).top(r)
    return (out, info) if return_info else out


# ---------------------------------------------------------------------------------- certainty
def _check_samples(samples) -> np.ndarray:
    x = np.asarray(samples, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"samples must be an (N, S, K) array, got shape {x.shape}")
    return x


def topk_sets(scores, k: int) -> np.ndarray:
    """Indices of the k largest entries along the last axis, in decreasing order; ties: lowest
    class index first (stable sort of -scores)."""
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
    """C(y): fraction of samples whose rank-k label (k-th largest, 1 = argmax) is y
    (paper eq. 2-4, ``eval_utils.rankk_certainties``) -> (N, K); with ``groups`` (K,) integer
    map (e.g. risk), the frequencies of the groups -> (N, G)."""
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
    """Top-k annotation certainty per case (N,) (paper eq. 5; spec 5): the largest fraction of
    samples sharing the same set of k largest classes. k = 1: max_y C(y)."""
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
    return _max_set_frequency(g[t[..., :1]])


def expected_risk_from_top(top, risk) -> np.ndarray:
    """:func:`expected_risk` from the (N, S, depth) top classes of the samples."""
    t = _check_top(top)
    return _risk_array(risk, None)[t[..., 0]].mean(axis=1)


def risk_certainty(samples, risk) -> np.ndarray:
    """Max over risk groups of the fraction of samples whose top-1 class is in the group (N,)."""
    x = _check_samples(samples)
    _risk_array(risk, x.shape[2])
    return risk_certainty_from_top(topk_sets(x, 1), risk)


def expected_risk(samples, risk) -> np.ndarray:
    """Mean over samples of risk(top-1 class) (N,) (spec 5; risk ordinal 0 low .. 2 high)."""
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
    eq. 8) or, with ``set_accuracy``, is the top-k set of lambda^(s) equal to it (spec 6)."""
    x = _check_samples(samples)
    _check_predictions(predictions, x)
    return ua_accuracy_from_top(topk_sets(x, k), predictions, k=k, set_accuracy=set_accuracy)


def ua_accuracy_per_case(samples, predictions, *, k: int = 1,
                         set_accuracy: bool = False) -> np.ndarray:
    """(N,) per-case UA accuracy = sum over y in P_k of C(y) (set accuracy: fraction of samples)."""
    return ua_accuracy_per_case_sample(samples, predictions, k=k,
                                       set_accuracy=set_accuracy).mean(axis=1)


def ua_accuracy_per_sample(samples, predictions, *, k: int = 1,
                           set_accuracy: bool = False) -> np.ndarray:
    """(S,) dataset-level UA accuracy of each sample (its distribution: paper Fig. 7 right)."""
    return ua_accuracy_per_case_sample(samples, predictions, k=k,
                                       set_accuracy=set_accuracy).mean(axis=0)


def ua_accuracy(samples, predictions, *, k: int = 1, set_accuracy: bool = False) -> float:
    """Dataset UA top-k accuracy (paper eq. 8): mean over cases and samples of
    1[argmax lambda^(s) in top-k(prediction)]; ``set_accuracy``: 1[top-k(lambda^(s)) = top-k
    (prediction)]. At r = inf equals standard top-k accuracy against the point estimate."""
    return float(ua_accuracy_per_case_sample(samples, predictions, k=k,
                                             set_accuracy=set_accuracy).mean())


def topk_accuracy(predictions, labels, *, k: int = 1) -> float:
    """Standard top-k accuracy of (N, K) scores against (N,) integer labels."""
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
    """Average overlap AO_D = (1/D) sum_{d=1..D} |top_d(A) & top_d(B)| / d (Webber et al.;
    spec 6). Rankings are lists of blocks of tied class ids (or flat lists of ids); classes not
    named form a final tied block over ``n_classes`` (default: largest id + 1). With ties this is
    the partial AO of the reference ``ranking_metrics.partial_average_overlap`` (soft
    permutation matrices, normalised by sqrt(AO(A,A) AO(B,B)) so that AO(A, A) = 1; 0 when the
    unnormalised value is 0). For strict rankings of >= D classes it is the plain AO."""
    a, b = _as_blocks(ranking_a), _as_blocks(ranking_b)
    if depth < 1:
        raise ValueError("depth must be >= 1")
    K = n_classes if n_classes is not None else max(
        [c for bl in a + b for c in bl] + [depth - 1]) + 1
    if depth > K:
        raise ValueError(f"depth {depth} exceeds the number of classes {K}")
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
    numbers (H_m = H_D for m >= D): |top_d(A) & top_d(B)| = #{j: m_j < d}."""
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
    """(N, S) AO_D between the prediction's ranking (scores, ties lowest index first) and the
    ranking of each sample lambda^(s) (spec 6); mean over S = UA average overlap per case.
    Only the top D classes of both rankings matter (:func:`ua_average_overlap_from_top`)."""
    x = _check_samples(samples)
    _check_predictions(predictions, x)
    K = x.shape[2]
    if not 1 <= depth <= K:
        raise ValueError(f"depth must be in 1..{K}")
    return ua_average_overlap_from_top(topk_sets(x, depth), predictions, depth=depth)


# ---------------------------------------------------------------------------------- agreement
def reader_agreement(selectors, n_classes: int | None = None, *,
                     tie_split: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-reader-out agreement (paper App. D, ``agreement.py``; spec 7).

    For reader a: IRN of all other readers of the case (paper IRN unless ``tie_split=False``);
    agreement_a = 1 if the others' top-1 IRN class (ties: lowest index) is among the classes
    reader a ranked, else 0. Returns (case agreement (N,) = mean over readers, NaN for cases with
    fewer than two readers; reader agreement (R,) for the non-empty readers in order)."""
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
    top = np.argmax(others, axis=1)
    has_other = others.max(axis=1) > 0
    ranked = np.zeros((R, K), dtype=bool)
    ranked[reader, cls] = True
    agree = np.where(has_other, ranked[np.arange(R), top].astype(float), np.nan)
    n_r = lay.case_n_readers
    s = np.bincount(lay.reader_case, weights=np.nan_to_num(agree), minlength=N)
    case = np.where(n_r >= 2, s / np.maximum(n_r, 1), np.nan)
    return case, agree


def agreement_certainty_correlation(agreement, certainty) -> float:
    """Pearson correlation over cases where both are defined (paper Fig. 13); NaN if constant."""
    a, c = np.asarray(agreement, float), np.asarray(certainty, float)
    ok = np.isfinite(a) & np.isfinite(c)
    if ok.sum() < 3 or a[ok].std() == 0 or c[ok].std() == 0:
        return float("nan")
    return float(np.corrcoef(a[ok], c[ok])[0, 1])


# ---------------------------------------------------------------------------------- sweeps
@dataclass
class SweepResult:
    """Tidy outputs of :func:`sweep`.

    ``certainty``: model, reliability, k, mean_certainty, median, share_below_0.5;
    ``accuracy``: model, reliability, predictor, k, metric (ua_accuracy | ua_set_accuracy |
    ua_average_overlap (k = depth) | deterministic_accuracy | deterministic_average_overlap),
    mean, sd, min, max (over samples of the dataset value);
    ``per_case``: model, reliability, case, item_id, certainty_top1.., risk_certainty,
    expected_risk; ``info``: per-reliability sampler info (ESS for PL)."""

    certainty: pd.DataFrame
    accuracy: pd.DataFrame
    per_case: pd.DataFrame
    info: list


def sweep(
    model: str,
    data,
    reliabilities: Sequence[float],
    *,
    n_samples: int = 100,
    seed: int = 0,
    prior: float = 0.1,
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
    """Sample once per reliability and compute certainty, UA metrics and risk (spec 5-6).

    ``method="compact"`` (default) draws only the top max(ks, ao_depth) classes of every sample
    (:func:`sample_top_classes`, never the (N, S, K) array); ``method="dense"`` samples with
    :func:`sample_plausibilities` and takes :func:`topk_sets` (same distribution, other random
    stream; for verification). The same ``seed`` is used at every reliability (common random
    numbers: smoother curves). ``predictions``: name -> (N, K) scores. The deterministic
    accuracy (point estimate's top-1, i.e. r = inf) is added for every predictor as the
    reference line. ``ao_depth``: also UA average overlap at that depth (spec 6). ``point``:
    the precomputed :func:`point_estimate` (N, K) (PL maximum likelihood is slow to recompute);
    reliability inf uses it for every sample."""
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
    preds = predictions or {}
    if point is None:
        base = point_estimate(model, data, n_classes=n_classes,
                              tie_split=sampler_kwargs.get("tie_split", True))
    else:
        base = np.asarray(point, dtype=float)
        if base.ndim != 2:
            raise ValueError("point must be the (N, K) point estimate")
    K = base.shape[1]
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
    engine = None
    for i, r in enumerate(reliabilities):
        if progress is not None:
            progress(i / n_r, f"{model}: reliability {r}")
        kwargs = dict(reliability=r, n_samples=n_samples, seed=seed, prior=prior,
                      n_classes=n_classes, return_info=True, **sampler_kwargs)
        if math.isinf(float(r)):  # the point estimate for every sample
            _check_common(r, n_samples)
            top = np.ascontiguousarray(np.broadcast_to(
                topk_sets(base, depth).astype(np.int32)[:, None, :],
                (base.shape[0], int(n_samples), depth)))
            info = {"model": model, "reliability": math.inf, "n_samples": int(n_samples),
                    "seed": seed}
        elif method == "compact" and model in ("prirn", "dirichlet"):
            r_ok = _check_common(r, n_samples)
            if engine is None:  # one engine: the unranked draws are shared by all reliabilities
                engine = _compact_engine(model, data, base, prior, int(n_samples), depth, seed)
            top = engine.top(r_ok)
            info = {"model": model, "reliability": r_ok, "n_samples": int(n_samples),
                    "seed": seed, "compact": True}
        elif method == "compact":
            top, info = sample_top_classes(model, data, depth=depth, **kwargs)
        else:
            x, info = sample_plausibilities(model, data, **kwargs)
            top = topk_sets(x, depth)
            del x
        infos.append(info)
        per_case = {"model": model, "reliability": float(r), "case": np.arange(top.shape[0])}
        if item_ids is not None:
            per_case["item_id"] = list(item_ids)
        keys = {k: _set_keys(top[..., :k], K) for k in ks}
        for k in ks:
            c = _max_key_frequency(keys[k], K if k == 1 else None)
            per_case[f"certainty_top{k}"] = c
            cert_rows.append({"model": model, "reliability": float(r), "k": k,
                              "mean_certainty": float(c.mean()),
                              "median": float(np.median(c)),
                              "share_below_0.5": float((c < 0.5).mean())})
        if risk is not None:
            _risk_array(risk, K)
            per_case["risk_certainty"] = risk_certainty_from_top(top, risk)
            per_case["expected_risk"] = expected_risk_from_top(top, risk)
        for name, p in preds.items():
            for k in ks:
                hit = ua_accuracy_from_top(top, p, k=k).mean(axis=0)
                pred_key = _set_keys(topk_sets(p, k), K)
                exact = (keys[k] == pred_key[:, None]).mean(axis=0)
                for metric, v in (("ua_accuracy", hit), ("ua_set_accuracy", exact)):
                    acc_rows.append({"model": model, "reliability": float(r), "predictor": name,
                                     "k": k, "metric": metric, **summarise_over_samples(v)})
            if ao:
                v = ua_average_overlap_from_top(top, p, depth=ao).mean(axis=0)
                acc_rows.append({"model": model, "reliability": float(r), "predictor": name,
                                 "k": ao, "metric": "ua_average_overlap",
                                 **summarise_over_samples(v)})
        case_frames.append(pd.DataFrame(per_case))
        del top
    if progress is not None:
        progress(1.0, f"{model}: done")
    return SweepResult(
        certainty=pd.DataFrame(cert_rows,
                               columns=["model", "reliability", "k", "mean_certainty", "median",
                                        "share_below_0.5"]),
        accuracy=pd.DataFrame(acc_rows, columns=["model", "reliability", "predictor", "k",
                                                 "metric", "mean", "sd", "min", "max"]),
        per_case=pd.concat(case_frames, ignore_index=True) if case_frames else pd.DataFrame(),
        info=infos,
    )


def model_data(dataset, model: str):
    """The sampler input of ``model`` for ``dataset``: counts (dirichlet) or selectors."""
    if model == "dirichlet":
        return dataset.counts_array()
    if dataset.task != "ranking":
        raise DataError(
            f"model {model!r} needs ranked data (partial rankings); this dataset is "
            f"{dataset.task}.", source=dataset.name, fix="use --model dirichlet.")
    return dataset.selectors()


def risk_vector(dataset) -> np.ndarray | None:
    """Risk group per label (inventory order) from ``dataset.extra['risk']``, or None."""
    risk = dataset.extra.get("risk") if dataset.extra else None
    if not risk:
        return None
    try:
        return np.array([int(float(risk[label])) for label in dataset.labels])
    except (KeyError, ValueError):
        return None
