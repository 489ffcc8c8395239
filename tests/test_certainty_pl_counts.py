"""The counts block scheme of the Plackett-Luce Gibbs sampler (Caron & Doucet's sampler as used
by Stutz et al.) draws the same conditional law as drawing every reader copy's block ordering and
arrival times one by one (``block_scheme="copies"``, the reference formulation):

* per tied block, the sums over r copies of the block duration and of every class's arrival
  offset agree in mean and second moment (closed form for 2 classes, enumerated orderings up to
  6, the subset-DP split above);
* the sparse layout maps give the pool masses and exposure times of the plain bincount sums;
* the whole sampler agrees with the copies scheme on the posterior mean within Monte Carlo error.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import _plackett_luce as pl

DERMA = Path(__file__).resolve().parents[1] / "sample_data" / "dermatology"


def _copies_sums(rng, lam, rest, reps, n):
    """(SD, SO) of n independent blocks by the copies scheme (orderings + exponentials)."""
    b = lam.size
    lb = np.broadcast_to(lam, (1, n, b))
    rb = np.broadcast_to(rest, (1, n))
    order, pool = pl._sample_block_orders(rng, lb, rb, reps)
    arrival = np.cumsum(rng.standard_exponential(size=pool.shape) / pool, axis=-1)
    offs = np.empty_like(arrival)
    np.put_along_axis(offs, order, arrival, axis=-1)
    return arrival[..., -1].sum(1)[0], offs.sum(1)[0]


@pytest.mark.parametrize("lam, rest, reps", [
    ([0.5, 1.3], 0.7, 3),  # closed form
    ([0.5, 1.3, 0.2], 0.4, 1),  # enumerated orderings
    ([0.5, 1.3, 0.2, 0.05], 0.3, 4),
    ([0.5, 1.3, 0.2, 0.05, 0.9, 0.1, 2.0], 0.3, 2),  # subset-DP split (b > 6)
])
def test_block_sums_match_copies_scheme(lam, rest, reps):
    lam = np.asarray(lam)
    n = 20_000 if lam.size <= 4 else 4_000  # the copies scheme's DP is slow at 7 classes
    sd, so = pl._block_sums_counts(np.random.default_rng(1),
                                   np.broadcast_to(lam, (n, lam.size)).copy(), np.full(n, rest),
                                   reps)
    sd2, so2 = _copies_sums(np.random.default_rng(2), lam, rest, reps, n)
    assert sd.shape == (n,) and so.shape == (n, lam.size)
    # per copy the block ends with its last arrival: max_k offset = duration <= sum_k offsets
    assert np.all(so <= sd[:, None] * (1 + 1e-12)) and np.all(sd <= so.sum(1) * (1 + 1e-12))
    for a, c in [(sd, sd2)] + [(so[:, k], so2[:, k]) for k in range(lam.size)]:
        for x, y in ((a, c), (a**2, c**2)):
            se = np.sqrt(x.var() / n + y.var() / n)
            assert abs(x.mean() - y.mean()) < 5 * se


def test_pair_closed_form_probability():
    """Two classes: P(a before c | both first) = (la + rest) / (la + lc + 2 rest)."""
    la, lc, rest = 0.5, 1.5, 0.25
    n = 40_000
    sd, so = pl._pair_sums_counts(np.random.default_rng(0), np.full(n, la), np.full(n, lc),
                                  np.full(n, rest), 1)
    a_first = so[:, 0] < so[:, 1]
    p = (la + rest) / (la + lc + 2 * rest)
    assert abs(a_first.mean() - p) < 5 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("reps", [1, 3])
def test_pair_sums_into_given_arrays_equal_the_returned_sums(reps):
    """The Gibbs loop's form (sums written into views of its exposure array) draws the same
    numbers as the returning form, bit for bit, and leaves its inputs untouched."""
    rng = np.random.default_rng(5)
    la, lc, rest = (rng.gamma(1.0, size=(7, 4)) for _ in range(3))
    rest[0, 0] = 0.0
    keep = [x.copy() for x in (la, lc, rest)]
    sd, so = pl._pair_sums_counts(np.random.default_rng(0), la, lc, rest, reps)
    v = np.full((3, 7, 4), np.nan)
    sd2, none = pl._pair_sums_counts(np.random.default_rng(0), la, lc, rest, reps,
                                     out=(v[0], v[1], v[2]))
    assert none is None and np.shares_memory(sd2, v[0])
    assert np.array_equal(v[0], sd) and np.array_equal(v[1], so[..., 0])
    assert np.array_equal(v[2], so[..., 1])
    assert all(np.array_equal(x, y) for x, y in zip((la, lc, rest), keep, strict=True))
    one = pl._pair_sums_counts(np.random.default_rng(0), 0.5, 1.5, 0.25, reps)  # one block
    batch = pl._pair_sums_counts(np.random.default_rng(0), np.array([0.5]), np.array([1.5]),
                                 np.array([0.25]), reps)
    assert one[0] == batch[0][0] and np.array_equal(one[1], batch[1][0])


@pytest.fixture(scope="module")
def derma_subset():
    sel = json.loads((DERMA / "dermatology_selectors.json").read_text())
    big = [c for c, case in enumerate(sel) if any(len(b) >= 3 for r in case for b in r)]
    return [sel[c] for c in sorted(set(range(60)) | set(big[:20]))]


def test_sparse_maps_equal_the_bincount_sums(derma_subset):
    lay = pl.build_layout(derma_subset, 419, with_super=True)
    rng = np.random.default_rng(0)
    C = 3
    lam = rng.gamma(1.0, size=(C, lay.n_local))
    M = pl._rest_matrix(lay)
    _, rest = pl._block_rest(lam, lay)
    assert np.allclose((M @ lam.T).T, rest, rtol=1e-12, atol=1e-12)
    # exposure time: block durations SD (C, B), in-block offsets SO (C, E)
    SD = rng.gamma(2.0, size=(C, len(lay.block_size)))
    SO = rng.gamma(1.0, size=(C, len(lay.entry_local)))
    sums = pl._Sums(lay, C)
    start = sums.within_reader_cumsum(SD) - SD
    SE = sums.group(SD, "block_reader")
    entry_tau = start[:, lay.entry_block] + SO - SE[:, lay.block_reader[lay.entry_block]]
    plain = sums.group(entry_tau, "entry_local") + sums.group(SE, "reader_case")[:, lay.local_case]
    inc = np.zeros((lay.n_local, len(lay.entry_local)))
    inc[lay.entry_local, np.arange(len(lay.entry_local))] = 1.0
    mapped = (M.T @ SD.T + inc @ SO.T).T
    assert np.allclose(mapped, plain, rtol=1e-12, atol=1e-10)


def test_counts_scheme_is_seedable_and_differs_from_copies(derma_subset):
    kw = dict(repetitions=3, n_samples=20, seed=5, burn_in=5, n_chains=4)
    _, a, info = pl.pl_gibbs(derma_subset, 419, **kw)
    _, b, _ = pl.pl_gibbs(derma_subset, 419, **kw)
    _, c, _ = pl.pl_gibbs(derma_subset, 419, block_scheme="copies", **kw)
    assert np.array_equal(a, b) and info["block_scheme"] == "counts"
    assert not np.array_equal(a, c)
    with pytest.raises(ValueError, match="block_scheme"):
        pl.pl_gibbs(derma_subset, 419, block_scheme="other", **kw)


@pytest.mark.parametrize("reps", [pytest.param(1, marks=pytest.mark.slow), 3])
def test_counts_scheme_matches_copies_scheme_posterior_mean(reps):
    """Tied blocks of 2, 3, 4 and 5 classes (closed form, orderings enumerated and drawn one
    uniform per copy), readers repeated 1 and 3 times, classes some readers left unranked and
    a super-class: the posterior mean of every local plausibility agrees between the schemes
    within 5 Monte Carlo standard errors (ESS of each run from its chains)."""
    sel = [
        [[[0], [1, 2]], [[1, 2, 3]], [[2], [0]], [[3, 1, 0, 4]]],
        [[[0, 1]], [[1], [0]]],
        [[[5, 2, 6, 0, 1]], [[2]], [[6], [5]]],
    ]
    _assert_counts_match_copies(sel, 7, reps, seeds=(1, 2))


def _assert_counts_match_copies(sel, n_classes: int, reps: int, seeds: tuple[int, int]) -> None:
    """The posterior mean of every local plausibility of the counts scheme within 5 Monte Carlo
    standard errors (ESS of each run from its chains) of the copies scheme's."""
    kw = dict(repetitions=reps, n_samples=12_000, burn_in=50, n_chains=200)
    lay, a, ia = pl.pl_gibbs(sel, n_classes, seed=seeds[0], **kw)
    _, b, ib = pl.pl_gibbs(sel, n_classes, seed=seeds[1], block_scheme="copies", **kw)
    for c in range(lay.n_cases):
        slots = lay.local_case == c
        ess = min(ia["ess"][c], ib["ess"][c])
        se = np.sqrt(a[:, slots].var(0) / ess + b[:, slots].var(0) / ess)
        assert np.all(np.abs(a[:, slots].mean(0) - b[:, slots].mean(0)) < 5 * se), c


# -------------------------------------------------- single-class blocks pooled by their pool set
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=5, max_size=5), min_size=0, max_size=30))
def test_same_rows_groups_exactly_the_equal_rows(bits):
    """Rows with the same columns share a group, numbered by first appearance; rows that differ
    never do."""
    from scipy import sparse

    dense = np.array(bits, dtype=float).reshape(len(bits), 5)
    node = pl._same_rows(sparse.csr_matrix(dense))
    expected: dict[tuple, int] = {}
    want = [expected.setdefault(tuple(row), len(expected)) for row in map(tuple, dense)]
    assert node.tolist() == want


def test_same_rows_keeps_rows_apart_when_the_projections_collide(monkeypatch):
    """A collision of the random projections never merges different rows: every row then
    keeps a group of its own."""
    from scipy import sparse

    class Flat:
        def random(self, size):
            return np.zeros(size)

    monkeypatch.setattr(pl.np.random, "default_rng", lambda seed=None: Flat())
    rows = sparse.csr_matrix(np.array([[1, 0, 1], [0, 1, 1], [1, 0, 1]], dtype=float))
    assert pl._same_rows(rows).tolist() == [0, 1, 2]


def test_gamma_runs_draw_each_run_with_its_shape():
    shapes = np.array([0.0, 0.0, 2.0, 2.0, 2.0, 7.0])
    out = np.full((6, 4000), np.nan)
    pl._GammaRuns(shapes).draw(np.random.default_rng(0), out)
    assert np.all(out[:2] == 0.0)
    assert out[2:5].mean() == pytest.approx(2.0, abs=0.05)
    assert out[5].mean() == pytest.approx(7.0, abs=0.25)
    assert out[5].var() == pytest.approx(7.0, rel=0.1)


@pytest.mark.parametrize("reps", [1, 10])
def test_pooled_single_blocks_keep_the_posterior(reps):
    """Many readers who rank single classes in turn (their first blocks share the whole case as
    pool, later ones share it when the same classes went before), some ties and a class nobody
    ranked: the counts scheme, which sums the durations of single-class blocks with the same
    pool into one Gamma(n r) draw, agrees with drawing every copy's arrival times (the copies
    scheme, Caron and Doucet's latent times as in Stutz et al., Appendix B.4) on the posterior
    mean within 5 Monte Carlo standard errors."""
    from scipy import sparse

    case = [[[0], [1], [2]], [[0], [1]], [[0], [2], [1]], [[1], [0]], [[0], [1], [3]],
            [[2, 3]], [[0], [1, 2]], [[1], [0], [2]]]
    sel = [case, [[[4], [5]], [[4], [5]], [[5]]]]
    lay = pl.build_layout(sel, 8, with_super=True)
    one = np.flatnonzero(lay.block_size == 1)
    own = sparse.csr_matrix((np.ones(one.size), (np.arange(one.size),
                                                 lay.entry_local[lay.block_start[one]])),
                            shape=(one.size, lay.n_local))
    node = pl._same_rows(pl._rest_matrix(lay)[one] + own)
    assert node.max() + 1 < one.size / 2  # the pooling is real here
    _assert_counts_match_copies(sel, 8, reps, seeds=(3, 4))
