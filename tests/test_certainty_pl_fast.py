"""The fast Plackett-Luce paths equal the plain formulation (Stutz et al., the PL sampler).

* Gibbs sampler, ``block_scheme="copies"``: same samples seed for seed (bit for bit) as the
  plain code in ``tests/pl_reference.py``, on dermatology cases with tied blocks of every size
  present (the default ``"counts"`` scheme: ``tests/test_certainty_pl_counts.py``).
* Maximum-likelihood fit: the same fit as iterating every case to the same step (cases that
  reach a fixed point or a cycle are taken out of the loop; their state is known exactly).
* Top classes of the samples: the equal split gives the dense path's ids exactly; the
  Dirichlet split, now drawn by order statistics, agrees with the dense path in distribution.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hlv_core import _compact_sampler, _plackett_luce
from hlv_core.aggregation import densify_samples, topk_sets

from . import pl_reference as ref

DERMA = Path(__file__).resolve().parents[1] / "sample_data" / "dermatology"
K_DERMA = 419


@pytest.fixture(scope="module")
def selectors():
    return json.loads((DERMA / "dermatology_selectors.json").read_text())


def _subset(selectors, first: int) -> list:
    """The first cases plus every case holding a tied block of 4 or more classes."""
    big = [c for c, case in enumerate(selectors)
           if any(len(b) >= 4 for reader in case for b in reader)]
    keep = sorted(set(range(first)) | set(big))
    return [selectors[c] for c in keep]


@pytest.mark.parametrize("reps", [1, 3])
def test_gibbs_equals_plain_formulation_seed_for_seed(selectors, reps):
    sub = _subset(selectors, 120)
    kwargs = dict(repetitions=reps, n_samples=20, seed=7, burn_in=4, n_chains=4)
    _, fast, _ = _plackett_luce.pl_gibbs(sub, K_DERMA, block_scheme="copies", **kwargs)
    _, plain, _ = ref.pl_gibbs(sub, K_DERMA, **kwargs)
    assert np.array_equal(fast, plain)


def test_block_orders_of_zero_mass_blocks_fall_back_like_before():
    """A block whose classes all have zero mass (and a block of one zero-mass class among
    positive ones) is ordered from the Gumbel draws as in the plain code."""
    lam = np.array([[[0.0, 0.0, 0.0], [0.5, 0.0, 0.2]]])  # (C=1, nb=2, b=3)
    rest = np.array([[0.0, 1.0]])
    fast = _plackett_luce._sample_block_orders(np.random.default_rng(3), lam, rest, 4)
    lamr = np.broadcast_to(lam[:, None], (1, 4, 2, 3))
    restr = np.broadcast_to(rest[:, None], (1, 4, 2))
    plain = ref._sample_block_orders(np.random.default_rng(3), lamr, restr)
    assert np.array_equal(fast[0], plain[0])
    assert np.allclose(fast[1], plain[1], rtol=0, atol=0, equal_nan=True)


def test_mle_equals_plain_formulation(selectors):
    # cases 11, 62, 113 converge slowly to the boundary, 54, 138, 837 are exact ties (their
    # order comes from the last bits), and the first 80 include cases that cycle
    picked = sorted(set(range(80)) | {11, 54, 62, 113, 138, 837})
    sub = [selectors[c] for c in picked]
    for max_iter in (37, 300):
        fast = _plackett_luce.pl_mle(sub, K_DERMA, max_iter=max_iter)
        plain = ref.pl_mle(sub, K_DERMA, max_iter=max_iter)
        assert np.allclose(fast, plain, rtol=0, atol=1e-13)
        order = np.argsort(-plain, axis=1, kind="stable")[:, :5]
        assert np.array_equal(np.argsort(-fast, axis=1, kind="stable")[:, :5], order)


def test_mle_stops_early_like_before_when_everything_converges():
    sel = [[[[0], [1]], [[1], [0]], [[0, 2]]], [[[1], [2], [0]]], []]
    fast = _plackett_luce.pl_mle(sel, 4)
    plain = ref.pl_mle(sel, 4)
    assert np.allclose(fast, plain, rtol=0, atol=1e-13)


def _fixed_samples(selectors, K, S, seed=0):
    """A layout and (S, L) local samples: one random plausibility vector per case, repeated."""
    lay = _plackett_luce.build_layout(selectors, K, with_super=True)
    rng = np.random.default_rng(seed)
    one = rng.gamma(0.5, size=lay.n_local)
    tot = np.bincount(lay.local_case, weights=one, minlength=lay.n_cases)
    one = one / tot[lay.local_case]
    return lay, np.tile(one, (S, 1))


@pytest.mark.parametrize("K", [9, 3])
def test_pl_top_equal_split_gives_the_dense_ids(K):
    """K = 3: one case ranks every class (no super-class), another has one tie."""
    sel = ([[[[0], [3]], [[3, 5]]], [[[1]]], [[[2], [0, 1, 4, 6]]]] if K == 9
           else [[[[0], [1]]], [[[0], [1, 2]]], [[[2]]]])
    lay, local = _fixed_samples(sel, K, 50)
    local[:10] = 1.0  # equal values: ties to the lowest class id
    for depth in range(1, 4):
        fast = _compact_sampler._pl_top(lay, local, np.random.default_rng(0), "equal", depth)
        dense = topk_sets(densify_samples(lay, local, np.random.default_rng(0), "equal"), depth)
        assert np.array_equal(fast, dense), depth


@pytest.mark.parametrize("K", [6, 40])
def test_pl_top_dirichlet_split_matches_dense_in_distribution(K):
    """Order statistics of the Dirichlet(1) split vs a value for every unranked class: the
    frequency of every (rank, class) cell agrees within 5 Monte Carlo standard deviations
    (K = 6 leaves fewer unranked classes than the depth in one case)."""
    sel = [[[[0], [1]]], [[[2]], [[2], [0]]], [[[0], [1, 2, 3]]]]
    S = 20_000
    lay, local = _fixed_samples(sel, K, S, seed=1)
    local[:, lay.local_class < 0] *= 6.0  # a heavy super-class: unranked classes compete
    tot = np.bincount(lay.local_case, weights=local[0], minlength=lay.n_cases)
    local /= tot[lay.local_case]
    fast = _compact_sampler._pl_top(lay, local, np.random.default_rng(2), "dirichlet", 3)
    dense = topk_sets(densify_samples(lay, local, np.random.default_rng(3), "dirichlet"), 3)
    for rank in range(3):
        for c in range(lay.n_cases):
            pf = np.bincount(fast[c, :, rank], minlength=K) / S
            pd_ = np.bincount(dense[c, :, rank], minlength=K) / S
            sd = np.sqrt((pf * (1 - pf) + pd_ * (1 - pd_)) / S) + 1e-12
            assert np.all(np.abs(pf - pd_) <= 5 * sd + 1e-9), (rank, c)
    # the unranked classes never enter where the super-class mass is below the third value
    assert (fast >= 0).all() and (fast < K).all()
