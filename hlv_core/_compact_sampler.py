"""The compact sampler of :mod:`hlv_core.certainty` (private to it): every certainty summary
depends on a sample only through the order of its top few classes, so sweeps draw only those
(explicit Gammas for the classes with evidence, order statistics for the exchangeable rest) and
never hold the (N, S, K) array; ``*_from_top`` functions of :mod:`hlv_core.certainty` compute the
summaries from the (N, S, depth) array :func:`sample_top_classes` returns.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._plackett_luce import pl_gibbs
from .aggregation import (
    MODELS,
    _checked_counts,
    _checked_prior,
    check_sampler_args,
    default_prior,
    irn,
    pl_mle,
    topk_sets,
)

__all__ = [
    "compact_engine",
    "gamma_log_quantile",
    "sample_top_classes",
]

# ---------------------------------------------------------------------------------- compact path
# Every summary of Stutz et al. (top-k set certainty, rank-k certainties, UA top-k (set) accuracy,
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
    from scipy import special  # here, not at import: the Plackett-Luce path never needs it

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
    r"""Log quantile of the Gamma(a, 1) distribution, accurate far into the lower tail.

    .. math:: \log F_a^{-1}(e^{\ell}), \quad F_a(x) = \frac{\gamma(a, x)}{\Gamma(a)}

    accurate to about 1e-10 in log x, including x below the smallest double (small-x expansion
    :math:`F_a(x) \approx x^a / \Gamma(a + 1)`); used to draw Gamma order statistics for the
    compact sampler of the Dirichlet posteriors of Stutz et al. (2023), Appendix A and B.3.

    Parameters
    ----------
    a : float
        Shape.
    log_p : array_like
        Log probabilities.

    Returns
    -------
    ndarray
        Log quantiles, same shape as ``log_p``.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix A and B.3.

    Examples
    --------
    The median of Exp(1) = Gamma(1, 1) is ln 2:

    >>> import numpy as np
    >>> print(np.allclose(gamma_log_quantile(1.0, np.log([0.5])), np.log(np.log(2))))
    True
    """
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
        from scipy import special

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


def compact_engine(model: str, data, base: np.ndarray, prior: float, n_samples: int,
                    depth: int, seed) -> _CompactDirichlet:
    r"""The compact Dirichlet sampler of a sweep.

    .. math:: \lambda \sim \mathrm{Dir}(r\,c + a_0) \text{ (dirichlet)}, \quad
       \mathrm{Dir}(r\,\mathrm{IRN} + a_0) \text{ (prirn)}

    Stutz et al. (2023), Appendix A and B.3, drawing only the top classes of every sample.

    Parameters
    ----------
    model : {"dirichlet", "prirn"}
    data : ndarray of shape (N, K) or list
        Counts or selectors.
    base : ndarray of shape (N, K) or None
        The IRN point estimate (prirn).
    prior : float
        a0.
    n_samples : int
    depth : int
        Classes kept per sample.
    seed : int or numpy.random.Generator

    Returns
    -------
    _CompactDirichlet
        An engine whose ``top(reliability)`` gives the (N, S, depth) top classes.

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix A and B.3.

    Examples
    --------
    >>> import numpy as np
    >>> type(compact_engine("dirichlet", np.array([[3, 1, 0]]), None, 0.1, 4, 2, 0)).__name__
    '_CompactDirichlet'
    """
    prior = _checked_prior(prior)
    if model == "prirn":
        if prior <= 0:
            raise ValueError("prior must be > 0 for PrIRN (classes nobody ranked)")
        return _CompactDirichlet(base, prior, n_samples, depth, seed)
    ev = _checked_counts(data)
    if prior <= 0 and np.any(ev.sum(1) == 0):
        raise ValueError("prior must be > 0 when a row has no annotations")
    return _CompactDirichlet(ev, prior, n_samples, depth, seed)


def _pl_top(lay, local: np.ndarray, rng: np.random.Generator, split: str, depth: int,
            chunk: int = 1 << 22) -> np.ndarray:
    """Top-``depth`` ids (N, S, depth) of the PL samples, distributed exactly as
    ``topk_sets(densify_samples(...), depth)`` without drawing a value for every unranked class.

    The super-class mass m of a case is split over its n unranked classes by a Dirichlet(1)
    vector D (``split="dirichlet"``) or equally. Only D's ``depth`` largest shares can enter the
    top, and by Renyi's representation of exponential order statistics (D = E / sum E, E iid
    Exp(1)) they are D_(1) = (sum_{j<=n} Z_j / j) / T, D_(j+1) = D_(j) - Z_j / (j T) with Z iid
    Exp(1) and T = sum Z_j; exchangeability makes their classes a uniform draw without
    replacement among the n unranked ones. Where m is below the depth-th ranked value no
    unranked class can enter the top (every share is < 1), and nothing is drawn. Ties (equal
    split): lowest class id first, as :func:`topk_sets`."""
    N, K, S = lay.n_cases, lay.n_classes, local.shape[0]
    n_r = lay.case_n_ranked.astype(np.int64)
    n_u = lay.case_n_unranked.astype(np.int64)
    has_sup = n_u > 0
    n_loc = n_r + has_sup
    first = np.concatenate([[0], np.cumsum(n_loc)[:-1]]).astype(np.int64)
    R = max(int(n_r.max(initial=0)), 1)
    col = np.arange(R)
    # cases by their number of ranked classes (widths up to 4, 8, 16, ...): each group's
    # candidate arrays are only as wide as its widest case (the padding is -inf with id K,
    # which never enters a top ahead of a real class)
    groups = []
    lo = 0
    for hi in [4, *(8 << i for i in range(64))]:
        sel = np.flatnonzero((n_r > lo) & (n_r <= hi)) if lo else np.flatnonzero(n_r <= hi)
        if sel.size:
            w = max(int(n_r[sel].max()), 1)
            c = np.arange(w)
            valid = c[None, :] < n_r[sel][:, None]
            idx = np.where(valid, first[sel][:, None] + c, 0)
            vals = np.where(valid[:, None, :], local.T[idx].transpose(0, 2, 1), -np.inf)
            groups.append((sel, vals, np.where(valid, lay.local_class[idx], K)))  # (n, S, w)
        if hi >= R:
            break
        lo = hi
    du = min(depth, K)
    u_vals = np.full((N, S, du), -np.inf)
    u_ids = np.full((N, S, du), K, dtype=np.int64)
    if has_sup.any():
        ranked = np.zeros((N, K), dtype=bool)
        total = int(n_r.sum())
        slot = np.repeat(first, n_r) + np.arange(total) - np.repeat(np.cumsum(n_r) - n_r, n_r)
        ranked[np.repeat(np.arange(N), n_r), lay.local_class[slot]] = True
        unranked_ids = np.argsort(ranked, axis=1, kind="stable")  # unranked ids first, ascending
        m = np.where(has_sup[:, None], local.T[np.where(has_sup, first + n_r, 0)], 0.0)  # (N, S)
        if split == "equal":
            share = np.where(col[:du][None, :] < n_u[:, None], 1.0 / np.maximum(n_u, 1)[:, None],
                             -np.inf)
            with np.errstate(invalid="ignore"):  # no unranked class: -inf, not 0 * -inf
                u_vals[:] = np.where(np.isfinite(share)[:, None, :],
                                     m[:, :, None] * share[:, None, :], -np.inf)
            u_ids[:] = np.where(col[:du][None, :] < n_u[:, None], unranked_ids[:, :du], K)[:, None]
        else:
            kth = np.full((N, S), -np.inf)  # the depth-th largest ranked value
            for sel, vals, _ in groups:
                w = vals.shape[2]
                if depth <= w:
                    kth[sel] = np.partition(vals, w - depth, axis=2)[:, :, w - depth]
            need = has_sup[:, None] & (m >= kth)  # (N, S): could an unranked class enter?
            _draw_unranked_top(rng, need, m, n_u, unranked_ids, du, chunk, u_vals, u_ids)
    out = np.empty((N, S, depth), dtype=np.int32)
    for sel, vals, ids in groups:
        n, w = ids.shape
        # candidates first (W, n, S): every step is elementwise work across the candidates
        # instead of reductions over a short last axis
        cand_v = np.concatenate([vals.transpose(2, 0, 1), u_vals[sel].transpose(2, 0, 1)])
        cand_i = np.concatenate([np.broadcast_to(ids.T[:, :, None], (w, n, S)),
                                 u_ids[sel].transpose(2, 0, 1)])
        part = np.empty((n, S, depth), dtype=np.int32)
        for j in range(depth):  # largest value, ties to the lowest class id
            best = cand_v.max(axis=0)
            top = cand_v == best
            pick = np.where(top, cand_i, K + 1).min(axis=0)
            part[:, :, j] = pick
            # the picked candidate leaves (an id repeats only as the padding id K at -inf,
            # where marking every copy changes nothing)
            cand_v[top & (cand_i == pick)] = -np.inf
        out[sel] = part
    return out


def _draw_unranked_top(rng, need, m, n_u, unranked_ids, du, chunk, u_vals, u_ids) -> None:
    """Fill u_vals / u_ids (N, S, du) where ``need`` with the du largest of m * Dirichlet(1)
    shares over the case's n_u unranked classes (Renyi order statistics; classes uniform without
    replacement). Cases are taken by equal n_u, rows in chunks of ``chunk`` exponentials."""
    rows_c, rows_s = np.nonzero(need)
    if not rows_c.size:
        return
    nu_row = n_u[rows_c]
    # one buffer for every chunk's exponentials (same draws in the same order as a fresh array
    # per chunk, without faulting in a new tens-of-megabytes array each time)
    n_max = int(nu_row.max())
    buf = np.empty(min(max(int(chunk), n_max), rows_c.size * n_max))
    for n in np.unique(nu_row):
        sel = np.flatnonzero(nu_row == n)
        n = int(n)
        d = min(du, n)
        inv = 1.0 / np.arange(1, n + 1)
        per = max(1, chunk // n)
        for a in range(0, sel.size, per):
            part = sel[a:a + per]
            z = buf[:part.size * n].reshape(part.size, n)
            rng.standard_exponential(out=z)
            # sum Z_j / j and T = sum Z_j by numpy's own loops: a BLAS product of this size
            # starts OpenBLAS's threads, whose spinning costs more CPU than the sums on a
            # busy machine (same values to rounding)
            e = np.empty((part.size, d))
            np.einsum("ij,j->i", z, inv, out=e[:, 0])
            t = z.sum(axis=1)
            for j in range(1, d):
                e[:, j] = e[:, j - 1] - z[:, j - 1] / j
            c, s_ = rows_c[part], rows_s[part]
            u_vals[c, s_, :d] = m[c, s_][:, None] * (e / t[:, None])
            # d distinct positions among n, uniformly: the j-th draw skips the earlier ones
            pos = np.empty((part.size, d), dtype=np.int64)
            for j in range(d):
                p = (rng.random(part.size) * (n - j)).astype(np.int64)
                for q in np.sort(pos[:, :j], axis=1).T:
                    p += p >= q
                pos[:, j] = p
            u_ids[c, s_, :d] = unranked_ids[c[:, None], pos]


def sample_top_classes(
    model: str,
    data,
    *,
    reliability: float,
    n_samples: int,
    depth: int = 3,
    seed: int = 0,
    prior: float | None = None,
    n_classes: int | None = None,
    tie_split: bool = True,
    return_info: bool = False,
    **pl_kwargs,
):
    r"""The ``depth`` largest classes of every plausibility sample, without the (N, S, K) array.

    .. math:: F(X_{(1)}) = U_1^{1/n_u}, \quad F(X_{(j)}) = F(X_{(j-1)})\, U_j^{1/(n_u - j + 1)}

    (top order statistics of the :math:`n_u` exchangeable Gamma(a0) draws of the classes without
    evidence; the classes with evidence get explicit Gamma(r e_k + a0) draws in log space).
    Distributed exactly as ``topk_sets(sample_plausibilities(...), depth)`` for the Dirichlet
    models of Stutz et al. (2023), Appendix A and B.3; ``"pl"`` uses the Gibbs sampler's compact
    output (Appendix B.4); ``reliability=inf`` the point estimate's top classes. Seedable, but
    not the same random stream as :func:`~hlv_core.aggregation.sample_plausibilities`.

    Parameters
    ----------
    model : {"dirichlet", "prirn", "pl"}
    data : ndarray of shape (N, K) or list
    reliability : float
    n_samples : int
    depth : int, default 3
    seed : int, default 0
    prior : float, optional
        Dirichlet pseudo-count a0 (default :func:`~hlv_core.aggregation.default_prior` of the
        model, as :func:`~hlv_core.aggregation.sample_plausibilities`).
    n_classes : int, optional
    tie_split : bool, default True
    return_info : bool, default False
    **pl_kwargs
        Passed to the Plackett-Luce sampler.

    Returns
    -------
    ndarray of shape (N, S, depth), int32
        Class ids in decreasing plausibility (and ``info`` with ``return_info``).

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Appendix A, B.3, B.4.
    .. [2] David and Nagaraja (2003). "Order Statistics", 3rd ed. Wiley (order statistics of iid samples).

    Examples
    --------
    >>> import numpy as np
    >>> top = sample_top_classes("dirichlet", np.array([[3, 1, 0], [0, 2, 2]]), reliability=1.0,
    ...                          n_samples=4, depth=2, seed=0)
    >>> print(top.shape, top[0].tolist())
    (2, 4, 2) [[0, 1], [0, 1], [0, 1], [1, 0]]
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    r = check_sampler_args(reliability, n_samples)
    S, M = int(n_samples), int(depth)
    rng = np.random.default_rng(seed)
    info: dict = {"model": model, "reliability": r, "n_samples": S, "seed": seed,
                  "compact": True}
    if model in ("dirichlet", "prirn"):
        prior = default_prior(model) if prior is None else _checked_prior(prior)
    if model == "dirichlet":
        ev = _checked_counts(data)
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
