"""The plain formulation of the Plackett-Luce machinery (the code before the speed pass): the
tests check that the fast paths of ``hlv_core._plackett_luce`` give the same samples seed for
seed and the same maximum-likelihood fit. Kept verbatim apart from this header; not part of the
package."""

from __future__ import annotations

import numpy as np

from hlv_core._plackett_luce import Layout, _group_sum, build_layout

_TINY = 1e-300


def _logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(x - m), axis=axis)) + np.squeeze(m, axis=axis)


def _subset_sums(lam: np.ndarray) -> np.ndarray:
    """lam (..., b) -> (..., 2^b) sums over every subset mask."""
    b = lam.shape[-1]
    out = np.zeros(lam.shape[:-1] + (1 << b,))
    for mask in range(1, 1 << b):
        low = mask & -mask
        out[..., mask] = out[..., mask ^ low] + lam[..., low.bit_length() - 1]
    return out


def block_forward(lam: np.ndarray, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Subset DP of one tied block. lam (..., b) > = 0, rest (...,) >= 0.

    Returns (logf (..., 2^b), logpool (..., 2^b)) with logpool[S] = log(lambda(B \\ S) + rest)."""
    b = lam.shape[-1]
    full = (1 << b) - 1
    sums = _subset_sums(lam)
    masks = np.arange(1 << b)
    with np.errstate(divide="ignore"):
        logpool = np.log(sums[..., full ^ masks] + rest[..., None])
        loglam = np.log(lam)
    logf = np.full(lam.shape[:-1] + (1 << b,), -np.inf)
    logf[..., 0] = 0.0
    for mask in range(1, 1 << b):
        bits = [k for k in range(b) if mask >> k & 1]
        prev = [mask ^ (1 << k) for k in bits]
        with np.errstate(invalid="ignore"):
            cand = logf[..., prev] + loglam[..., bits] - logpool[..., prev]
        cand = np.where(np.isnan(cand), -np.inf, cand)
        logf[..., mask] = _logsumexp(cand)
    return logf, logpool


def _block_backward(loglam: np.ndarray, logpool: np.ndarray) -> np.ndarray:
    """logh[S] = log P(complete B from state S) (h(B) = 1)."""
    b = loglam.shape[-1]
    full = (1 << b) - 1
    logh = np.full(logpool.shape, -np.inf)
    logh[..., full] = 0.0
    for mask in range(full - 1, -1, -1):
        bits = [k for k in range(b) if not mask >> k & 1]
        nxt = [mask | (1 << k) for k in bits]
        with np.errstate(invalid="ignore"):
            cand = logh[..., nxt] + loglam[..., bits] - logpool[..., [mask]]
        cand = np.where(np.isnan(cand), -np.inf, cand)
        logh[..., mask] = _logsumexp(cand)
    return logh


def _sample_block_orders(
    rng: np.random.Generator, lam: np.ndarray, rest: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior ordering of a tied block by backward sampling from the subset DP.

    lam (..., b), rest (...,). Returns (order (..., b) of in-block indices, pool (..., b): pool
    mass at each draw position)."""
    b = lam.shape[-1]
    logf, logpool = block_forward(lam, rest)
    with np.errstate(divide="ignore"):
        loglam = np.log(lam)
    shape = lam.shape[:-1]
    state = np.full(shape, (1 << b) - 1, dtype=np.int64)
    order = np.zeros(shape + (b,), dtype=np.int64)
    pool = np.zeros(shape + (b,))
    bitv = 1 << np.arange(b)
    for pos in range(b - 1, -1, -1):
        inside = (state[..., None] & bitv) > 0  # (..., b)
        prev = state[..., None] ^ bitv  # state without k (only valid where inside)
        prev = np.where(inside, prev, 0)
        lf = np.take_along_axis(logf, prev, axis=-1)
        lp = np.take_along_axis(logpool, prev, axis=-1)
        with np.errstate(invalid="ignore"):
            w = np.where(inside, lf + loglam - lp, -np.inf)
        w = np.where(np.isnan(w), -np.inf, w)
        gumbel = rng.gumbel(size=w.shape)
        score = np.where(np.isfinite(w), w + gumbel, -np.inf)
        # a block of zero-mass classes: fall back to any class still inside
        score = np.where(np.isfinite(score).any(-1, keepdims=True), score,
                         np.where(inside, gumbel, -np.inf))
        k = np.argmax(score, axis=-1)
        order[..., pos] = k
        state = state ^ (1 << k)
        pool[..., pos] = np.exp(np.take_along_axis(logpool, state[..., None], axis=-1)[..., 0])
    return order, pool


def _within_reader_cumsum(values: np.ndarray, lay: Layout) -> np.ndarray:
    """Inclusive cumulative sum of per-block values (C, B) within each reader (exact, padded)."""
    C = values.shape[0]
    R = len(lay.reader_case)
    width = int(lay.reader_n_blocks.max()) if R else 1
    pad = np.zeros((C, R, width))
    pad[:, lay.block_reader, lay.block_pos] = values
    cs = np.cumsum(pad, axis=-1)
    return cs[:, lay.block_reader, lay.block_pos]


def _reader_totals(values: np.ndarray, lay: Layout) -> np.ndarray:
    return _group_sum(values, lay.block_reader, len(lay.reader_case))


def _block_rest(lam: np.ndarray, lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """(block mass, rest mass after the block) for lam (C, L)."""
    entry_lam = lam[:, lay.entry_local]
    bmass = _group_sum(entry_lam, lay.entry_block, len(lay.block_size))
    incl = _within_reader_cumsum(bmass, lay)
    tot = _group_sum(lam, lay.local_case, lay.n_cases)
    rest = np.maximum(tot[:, lay.reader_case[lay.block_reader]] - incl, 0.0)
    return bmass, rest


def pl_mle(
    selectors, n_classes: int | None = None, *, max_iter: int = 1000, tol: float = 1e-10,
    pseudo_count: float = 0.0,
) -> np.ndarray:
    """PL maximum-likelihood plausibilities (N, K), each row summing to 1 (Stutz et al.).

    EM-MM algorithm (Hunter 2004, MM for Plackett-Luce; ties handled by an E-step over the
    orderings of each tied block, computed exactly with the forward/backward subset DP): with
    w_k = expected number of draws of k from a pool of >= 2 classes and D_k = expected sum over
    those draws where k was in the pool of 1 / pool mass, lambda_k <- (w_k + pseudo_count) / D_k.
    Only classes ranked by someone get mass (classes ranked by nobody: 0); classes never drawn
    ahead of another class (e.g. only ranked last by one reader) converge to 0, as the likelihood
    is maximised at the boundary. ``pseudo_count`` > 0 adds a Gamma(1 + pseudo_count) prior (MAP).
    A case without rankings gets a uniform row."""
    lay = build_layout(selectors, n_classes, with_super=False)
    N, K, L = lay.n_cases, lay.n_classes, lay.n_local
    lam = np.ones((1, L))
    nB = len(lay.block_size)
    pool_n = lay.block_pool_n
    sizes = np.unique(lay.block_size)
    for _ in range(max_iter):
        tot = _group_sum(lam, lay.local_case, N)
        lam = lam / np.maximum(tot[:, lay.local_case], _TINY)
        bmass, rest = _block_rest(lam, lay)
        T = np.zeros((1, nB))
        entry_E = np.zeros((1, len(lay.entry_local)))
        entry_w = np.ones((1, len(lay.entry_local)))
        for b in sizes:
            blk = np.flatnonzero(lay.block_size == b)
            ent = lay.block_start[blk][:, None] + np.arange(b)
            lb = lam[:, lay.entry_local[ent]]  # (1, nb, b)
            rb = rest[:, blk]
            pn = pool_n[blk]
            if b == 1:
                v = np.where(pn >= 2, 1.0 / np.maximum(lb[..., 0] + rb, _TINY), 0.0)
                T[:, blk] = v
                entry_E[:, ent[:, 0]] = v
                entry_w[:, ent[:, 0]] = np.where(pn >= 2, 1.0, 0.0)
                continue
            logf, logpool = block_forward(lb, rb)
            with np.errstate(divide="ignore"):
                logh = _block_backward(np.log(lb), logpool)
            logg = logf[..., -1:]
            with np.errstate(invalid="ignore"):
                P = np.exp(logf + logh - logg)
            P = np.nan_to_num(P)
            masks = np.arange(1 << b)
            popc = np.array([bin(m).count("1") for m in masks])
            valid = (pn[:, None] - popc[None, :] >= 2) & (masks[None, :] != (1 << b) - 1)
            ok = valid[None] & np.isfinite(logpool)
            v = np.where(ok, P * np.exp(-np.where(ok, logpool, 0.0)), 0.0)  # (1, nb, 2^b)
            T[:, blk] = v.sum(-1)
            for k in range(b):
                notk = (masks >> k & 1) == 0
                entry_E[:, ent[:, k]] = v[..., notk].sum(-1)
                last = P[..., ((1 << b) - 1) ^ (1 << k)]
                entry_w[:, ent[:, k]] = 1.0 - np.where(pn == b, last, 0.0)
        Ttot = _reader_totals(T, lay)  # (1, R)
        Tcum = _within_reader_cumsum(T, lay) - T  # exclusive
        case_T = _group_sum(Ttot, lay.reader_case, N)
        reader_of_entry = lay.block_reader[lay.entry_block]
        adjust = Ttot[:, reader_of_entry] - Tcum[:, lay.entry_block] - entry_E
        D = case_T[:, lay.local_case] - _group_sum(adjust, lay.entry_local, L)
        w = np.maximum(_group_sum(entry_w, lay.entry_local, L), 0.0) + pseudo_count
        new = np.where(D > 0, w / np.maximum(D, _TINY), lam)
        tot = _group_sum(new, lay.local_case, N)
        new = new / np.maximum(tot[:, lay.local_case], _TINY)
        delta = np.max(np.abs(new - lam)) if L else 0.0
        lam = new
        if delta < tol:
            break
    out = np.zeros((N, K))
    out[lay.local_case, lay.local_class] = lam[0]
    empty = lay.case_n_ranked == 0
    out[empty] = 1.0 / K
    return out


def pl_gibbs(
    selectors,
    n_classes: int | None = None,
    *,
    repetitions: int = 1,
    n_samples: int = 100,
    seed: int = 0,
    burn_in: int = 100,
    n_chains: int = 10,
    shape: float = 1.0,
    rate: float = 1.0,
    exact_superclass_prior: bool = False,
    progress=None,
) -> tuple[Layout, np.ndarray, dict]:
    """Gibbs sampler of Caron & Doucet for the PL posterior, vectorised over cases and chains.

    Model (Stutz et al.): lambda_k ~ Gamma(shape, rate) iid; each reader (repeated ``repetitions``
    times, the reliability) draws a full ranking by sampling without replacement prop. to lambda,
    observed through its partial ranking. Per iteration, given lambda, for every reader copy:
    (1) an ordering of each tied block is drawn from its exact posterior (subset DP, backward
    sampling); (2) arrival times: inter-arrival ~ Exp(pool mass) along the ranked part; classes
    the reader left unranked arrive at tau_end + Exp(lambda_k) (memorylessness: identical in law to
    PL-ordering them and adding inter-arrivals, reference ``_sample_tau_given_lam_and_rankings``);
    sums over identical copies of single-class blocks use Gamma(copies, 1) draws;
    (3) lambda_k ~ Gamma(shape + copies * readers, rate + sum of tau_k). Steps (1)-(2) draw
    (ordering, tau) jointly given lambda, a blocked version of the reference iteration.
    Classes ranked by nobody in a case are one super-class (reference
    ``sample_from_ranked_classes``) with prior Gamma(shape, rate) (reference) or, with
    ``exact_superclass_prior``, Gamma(n_unranked * shape, rate) (exact merge of iid Gammas).

    Runs ``n_chains`` chains from prior draws, discards ``burn_in`` iterations per chain and keeps
    ceil(n_samples / n_chains) iterations per chain. Returns (layout, samples (S, L) of local
    lambdas normalised per case, info dict with ``ess`` per case and timings)."""
    if repetitions < 1 or int(repetitions) != repetitions:
        raise ValueError("PL reliability = repetitions of each reader: an integer >= 1")
    if n_samples < 1 or n_chains < 1 or burn_in < 0:
        raise ValueError("n_samples and n_chains must be >= 1, burn_in >= 0")
    reps = int(repetitions)
    lay = build_layout(selectors, n_classes, with_super=True)
    rng = np.random.default_rng(seed)
    C = int(min(n_chains, n_samples))
    keep = -(-n_samples // C)
    N, L = lay.n_cases, lay.n_local
    nB, E = len(lay.block_size), len(lay.entry_local)
    is_super = lay.local_class < 0
    shape_k = np.full(L, float(shape))
    if exact_superclass_prior:
        shape_k[is_super] = shape * lay.case_n_unranked[lay.local_case[is_super]]
    post_shape = shape_k + reps * lay.case_n_readers[lay.local_case]
    n_unranked_by = reps * (lay.case_n_readers[lay.local_case] - lay.local_n_ranked_by)
    lam = rng.gamma(shape_k, 1.0, size=(C, L)) / rate
    sizes = [int(b) for b in np.unique(lay.block_size)]
    groups = {}
    for b in sizes:
        blk = np.flatnonzero(lay.block_size == b)
        groups[b] = (blk, lay.block_start[blk][:, None] + np.arange(b))
    reader_of_entry = lay.block_reader[lay.entry_block]
    out = np.empty((keep, C, L))
    total_iter = burn_in + keep
    for it in range(total_iter):
        lam = np.maximum(lam, _TINY)
        _, rest = _block_rest(lam, lay)
        SD = np.zeros((C, nB))  # sum over copies of block durations
        SO = np.zeros((C, E))  # sum over copies of in-block arrival offsets
        for b in sizes:
            blk, ent = groups[b]
            lb = lam[:, lay.entry_local[ent]]  # (C, nb, b)
            rb = rest[:, blk]
            if b == 1:
                d = rng.standard_gamma(float(reps), size=rb.shape) / (lb[..., 0] + rb)
                SD[:, blk] = d
                SO[:, ent[:, 0]] = d
                continue
            lbr = np.broadcast_to(lb[:, None], (C, reps) + lb.shape[1:])
            rbr = np.broadcast_to(rb[:, None], (C, reps) + rb.shape[1:])
            order, pool = _sample_block_orders(rng, lbr, rbr)
            t = rng.standard_exponential(size=pool.shape) / pool
            arrival = np.cumsum(t, axis=-1)  # by position
            offs = np.empty_like(arrival)
            np.put_along_axis(offs, order, arrival, axis=-1)  # by in-block index
            SD[:, blk] = arrival[..., -1].sum(1)
            SO[:, ent] = offs.sum(1)
        start = _within_reader_cumsum(SD, lay) - SD  # exclusive, summed over copies
        SE = _reader_totals(SD, lay)  # (C, R)
        case_SE = _group_sum(SE, lay.reader_case, N)
        entry_tau = start[:, lay.entry_block] + SO - SE[:, reader_of_entry]
        tau_local = _group_sum(entry_tau, lay.entry_local, L) + case_SE[:, lay.local_case]
        extra = np.where(
            n_unranked_by > 0, rng.standard_gamma(np.maximum(n_unranked_by, 1), size=(C, L)), 0.0
        )
        tau_local = tau_local + extra / lam
        lam = rng.standard_gamma(post_shape, size=(C, L)) / (rate + tau_local)
        if it >= burn_in:
            out[it - burn_in] = lam
        if progress is not None and (it % 10 == 0 or it == total_iter - 1):
            progress((it + 1) / total_iter)
    tot = _group_sum(out.reshape(keep * C, L), lay.local_case, N).reshape(keep, C, N)
    norm = out / tot[..., lay.local_case]
    samples = norm.reshape(keep * C, L)[:n_samples]
    return lay, samples, {"n_chains": C, "iterations_per_chain": keep, "burn_in": burn_in}
