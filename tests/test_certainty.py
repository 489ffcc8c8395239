"""Engine tests of hlv_core.certainty (Stutz et al.)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import _compact_sampler
from hlv_core import certainty as ce
from hlv_core.io import load

from .conftest import shared_path


# ------------------------------------------------------------------ brute force references
def brute_loglik(lam, ranking):
    """Sum over all full permutations consistent with the partial ranking."""
    lam = np.asarray(lam, float)
    K = len(lam)
    total = 0.0
    for perm in itertools.permutations(range(K)):
        idx, ok = 0, True
        for block in ranking:
            if set(perm[idx : idx + len(block)]) != set(block):
                ok = False
                break
            idx += len(block)
        if not ok:
            continue
        p, rem = 1.0, lam.sum()
        for c in perm:
            p *= lam[c] / rem if rem > 0 else 1.0
            rem -= lam[c]
        total += p
    return math.log(total)


rankings = st.integers(3, 6).flatmap(
    lambda K: st.tuples(
        st.lists(st.floats(0.05, 5.0), min_size=K, max_size=K),
        st.permutations(list(range(K))),
        st.lists(st.integers(1, 3), min_size=1, max_size=4),
    )
)


@settings(max_examples=60, deadline=None)
@given(rankings)
def test_pl_log_likelihood_matches_brute_force(args):
    lam, perm, sizes = args
    blocks, i = [], 0
    for s in sizes:
        if i >= len(perm):
            break
        blocks.append(list(perm[i : i + s]))
        i += s
    assert ce.pl_log_likelihood(lam, blocks) == pytest.approx(brute_loglik(lam, blocks), abs=1e-9)


def test_pl_log_likelihood_known_value_and_errors():
    lam = [0.5, 0.3, 0.2]
    assert ce.pl_log_likelihood(lam, [[0], [1]]) == pytest.approx(math.log(0.5 * 0.3 / 0.5))
    assert ce.pl_log_likelihood(lam, []) == 0.0
    with pytest.raises(ValueError):
        ce.pl_log_likelihood(lam, [[0], [0]])
    with pytest.raises(ValueError):
        ce.pl_log_likelihood(lam, [[5]])


# ------------------------------------------------------------------ IRN
def test_irn_paper_and_reference_variants():
    sel = [[[[0], [1, 2]], [[1]]]]
    paper = ce.irn(sel, 4)
    # reader 1: 0 -> 1, 1 and 2 -> 1/4 each; reader 2: 1 -> 1; total 2.5
    assert np.allclose(paper[0], np.array([1, 1.25, 0.25, 0]) / 2.5)
    ref = ce.irn(sel, 4, tie_split=False)
    assert np.allclose(ref[0], np.array([1, 1.5, 0.5, 0]) / 3.0)
    assert np.allclose(ce.irn_reference(sel, 4), ref)
    assert ce.irn(sel).shape == (1, 3)  # n_classes = largest id + 1


def test_formats_convert_to_selectors():
    opinions = [np.array([[3, 0, 1, 1], [0, 2, 0, 0]])]
    assert ce.selectors_from_opinions(opinions) == [[[[0], [2, 3]], [[1]]]]
    rankings = [[[0, 2, 3, 1], [1, 0, 2, 3]]]
    groups = [[[0, 1, 1, -1], [0, -1, -1, -1]]]
    assert ce.selectors_from_rankings_groups(rankings, groups) == [[[[0], [2, 3]], [[1]]]]


# ------------------------------------------------------------------ samplers
def test_dirichlet_posterior_mean_matches_closed_form():
    counts = np.array([[5, 2, 0], [0, 0, 1]])
    r, a0 = 2.0, 0.1
    x = ce.sample_plausibilities("dirichlet", counts, reliability=r, n_samples=40000, seed=3,
                                 prior=a0)
    alpha = r * counts + a0
    expect = alpha / alpha.sum(1, keepdims=True)
    sd = np.sqrt(expect * (1 - expect) / (alpha.sum(1, keepdims=True) + 1))
    assert np.all(np.abs(x.mean(1) - expect) < 5 * sd / math.sqrt(40000) + 1e-12)
    assert np.allclose(x.sum(-1), 1.0)


def test_samples_are_seedable_and_infinite_reliability_is_point_estimate():
    counts = np.array([[3, 1, 0], [1, 1, 2]])
    a = ce.sample_plausibilities("dirichlet", counts, reliability=1, n_samples=5, seed=7)
    b = ce.sample_plausibilities("dirichlet", counts, reliability=1, n_samples=5, seed=7)
    assert np.array_equal(a, b)
    inf = ce.sample_plausibilities("dirichlet", counts, reliability=math.inf, n_samples=4, seed=0)
    assert np.allclose(inf, ce.proportions(counts)[:, None, :])
    sel = [[[[0], [1]], [[1, 2]]]]
    pr = ce.sample_plausibilities("prirn", sel, reliability=math.inf, n_samples=3, seed=0)
    assert np.allclose(pr, ce.irn(sel)[:, None, :])
    pl = ce.sample_plausibilities("pl", sel, reliability=math.inf, n_samples=2, seed=0)
    assert np.allclose(pl, ce.pl_mle(sel)[:, None, :])


def test_bad_arguments_raise():
    counts = np.array([[1, 0]])
    with pytest.raises(ValueError):
        ce.sample_plausibilities("nope", counts, reliability=1, n_samples=2, seed=0)
    with pytest.raises(ValueError):
        ce.sample_plausibilities("dirichlet", counts, reliability=0, n_samples=2, seed=0)
    with pytest.raises(ValueError):
        ce.sample_plausibilities("pl", [[[[0]]]], reliability=1.5, n_samples=2, seed=0)
    with pytest.raises(ValueError):
        ce.annotation_certainty(np.zeros((2, 3)))


def _pl_log_likelihood_rows(lam, reader):
    """log P(reader | lambda) for every row of ``lam`` (n, K), written out independently of the
    engine: the blocks in order, a tied block's classes in any order (its orderings summed), the
    classes the reader did not name after all of them."""
    remaining = lam.sum(1)
    total = np.zeros(len(lam))
    for block in reader:
        prob = np.zeros(len(lam))
        for order in itertools.permutations(block):
            p, rest = np.ones(len(lam)), remaining.copy()
            for c in order:
                p = p * lam[:, c] / rest
                rest = rest - lam[:, c]
            prob += p
        total += np.log(prob)
        remaining = remaining - lam[:, list(block)].sum(1)
    return total


def _is_posterior_mean(selectors, K, n=200_000, seed=0):
    """Exact posterior mean of normalised lambda by importance sampling from the prior."""
    rng = np.random.default_rng(seed)
    lam = rng.gamma(1.0, size=(n, K))
    lw = np.zeros(n)
    for reader in selectors[0]:
        # the vectorised likelihood is the engine's, row for row (checked on a few rows)
        head = np.array([ce.pl_log_likelihood(row, reader) for row in lam[:64]])
        assert np.allclose(_pl_log_likelihood_rows(lam[:64], reader), head, rtol=1e-12)
        lw += _pl_log_likelihood_rows(lam, reader)
    w = np.exp(lw - lw.max())
    theta = lam / lam.sum(1, keepdims=True)
    mean = (w[:, None] * theta).sum(0) / w.sum()
    ess = w.sum() ** 2 / (w**2).sum()
    return mean, ess


def test_pl_gibbs_matches_exact_posterior_on_three_classes():
    sel = [[[[0], [1, 2]], [[1]], [[2, 0]]]]
    x, info = ce.sample_plausibilities("pl", sel, reliability=1, n_samples=40_000, seed=1,
                                       n_chains=100, burn_in=100, return_info=True)
    mean_is, ess_is = _is_posterior_mean(sel, 3, n=60_000)
    se = 0.3 / math.sqrt(min(float(info["ess"][0]), ess_is))
    assert np.all(np.abs(x[0].mean(0) - mean_is) < 5 * se)
    # reference behaviour: the posterior prefers class 0 (ranked first twice)
    assert np.argmax(x[0].mean(0)) == 0


def test_pl_gibbs_unranked_superclass_is_split():
    sel = [[[[0]], [[0], [1]]]]
    x = ce.sample_plausibilities("pl", sel, reliability=2, n_samples=50, seed=0, n_classes=6)
    assert x.shape == (1, 50, 6)
    assert np.allclose(x.sum(-1), 1.0)
    assert np.all(x[0, :, 2:] > 0)  # unranked classes share the super-class mass
    eq = ce.sample_plausibilities("pl", sel, reliability=2, n_samples=10, seed=0, n_classes=6,
                                  unranked_split="equal")
    assert np.allclose(eq[0, :, 2:], eq[0, :, 2:3])


@pytest.mark.parametrize("model", ["prirn", "pl"])
def test_certainty_grows_with_reliability_for_unanimous_case(model):
    sel = [[[[1], [0]], [[1], [0]], [[1]]]]
    cert = [
        ce.annotation_certainty(
            ce.sample_plausibilities(model, sel, reliability=r, n_samples=400, seed=2,
                                     n_classes=5, prior=0.01)
        )[0]
        for r in (1, 5, 30)
    ]
    assert cert[0] <= cert[1] + 0.02 <= cert[2] + 0.04
    assert cert[2] > 0.95


def test_pl_mle_matches_direct_optimisation():
    from scipy.optimize import minimize

    sel = [[[0], [1, 2]], [[1]], [[2, 0]], [[0, 1, 2]], [[2], [0]]]

    def nll(theta):
        lam = np.append(np.exp(theta), 0.0)
        return -sum(ce.pl_log_likelihood(lam, r) for r in sel)

    res = minimize(nll, np.zeros(3), method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000})
    direct = np.exp(res.x) / np.exp(res.x).sum()
    mle = ce.pl_mle([sel], 4)[0]
    assert np.allclose(mle[:3], direct, atol=1e-5)
    assert mle[3] == 0.0


# ------------------------------------------------------------------ certainty and UA metrics
def test_certainties_by_hand():
    x = np.array([[[0.6, 0.3, 0.1], [0.5, 0.1, 0.4], [0.2, 0.7, 0.1], [0.6, 0.3, 0.1]]])
    assert ce.annotation_certainty(x)[0] == pytest.approx(0.75)
    # top-2 sets: {0,1}, {0,2}, {0,1}, {0,1}
    assert ce.annotation_certainty(x, k=2)[0] == pytest.approx(0.75)
    rk2 = ce.rank_k_certainties(x, k=2)[0]
    assert rk2 == pytest.approx([0.25, 0.5, 0.25])
    risk = np.array([0, 2, 1])
    assert ce.risk_certainty(x, risk)[0] == pytest.approx(0.75)
    assert ce.expected_risk(x, risk)[0] == pytest.approx(0.5)
    # ties: lowest index wins
    tie = np.array([[[0.5, 0.5, 0.0]]])
    assert ce.topk_sets(tie, 1)[0, 0, 0] == 0


def test_ua_accuracy_at_infinity_equals_topk_accuracy():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 5, size=(50, 6))
    counts[:, 0] += 1
    preds = rng.dirichlet(np.ones(6), size=50)
    x = ce.sample_plausibilities("dirichlet", counts, reliability=math.inf, n_samples=3, seed=0)
    labels = np.argmax(ce.proportions(counts), axis=1)
    for k in (1, 2, 3):
        assert ce.ua_accuracy(x, preds, k=k) == pytest.approx(ce.topk_accuracy(preds, labels, k=k))
    y = ce.sample_plausibilities("dirichlet", counts, reliability=1, n_samples=200, seed=0)
    per_case = ce.ua_accuracy_per_case(y, preds, k=2)
    c1 = ce.rank_k_certainties(y, k=1)
    top2 = ce.topk_sets(preds, 2)
    assert np.allclose(per_case, np.take_along_axis(c1, top2, 1).sum(1))
    assert ce.ua_accuracy(y, preds, k=2, set_accuracy=True) <= ce.ua_accuracy(y, preds, k=2) + 1


def test_average_overlap():
    assert ce.average_overlap([0, 1, 2], [0, 1, 2], depth=3) == pytest.approx(1.0)
    # Webber: A=[0,1,2], B=[1,0,2]: overlaps 0, 1, 1 -> mean 2/3
    assert ce.average_overlap([0, 1, 2], [1, 0, 2], depth=3) == pytest.approx(2 / 3)
    tied = [[0, 1], [2]]
    assert ce.average_overlap(tied, tied, depth=2, n_classes=4) == pytest.approx(1.0)
    assert 0 < ce.average_overlap(tied, [[0], [1]], depth=2, n_classes=4) < 1
    x = np.array([[[0.5, 0.3, 0.2], [0.2, 0.5, 0.3]]])
    pred = np.array([[0.6, 0.3, 0.1]])
    ao = ce.ua_average_overlap(x, pred, depth=2)
    assert ao[0, 0] == pytest.approx(1.0)
    assert ao[0, 1] == pytest.approx(ce.average_overlap([0, 1, 2], [1, 2, 0], depth=2))


@settings(max_examples=50, deadline=None)
@given(st.permutations(list(range(6))), st.integers(1, 6))
def test_average_overlap_self_is_one(perm, depth):
    assert ce.average_overlap(list(perm), list(perm), depth=depth) == pytest.approx(1.0)


def test_reader_agreement():
    sel = [[[[0]], [[0], [1]], [[1]]], [[[2]]]]
    case, per_reader = ce.reader_agreement(sel, 3)
    # reader 1: others IRN: 0 -> 1, 1 -> 1/2 + 1 = 1.5 -> top 1; reader 1 ranked {0} -> 0
    # reader 2: others 0 -> 1, 1 -> 1 -> tie -> 0 ; ranked {0, 1} -> 1
    # reader 3: others 0 -> 2, 1 -> 0.5 -> 0 ; ranked {1} -> 0
    assert per_reader[:3].tolist() == [0.0, 1.0, 0.0]
    assert case[0] == pytest.approx(1 / 3)
    assert math.isnan(case[1])


def test_sweep_tidy_tables():
    counts = np.array([[5, 1, 0], [2, 2, 2], [0, 1, 4]])
    preds = {"m": np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.1, 0.2, 0.7]])}
    res = ce.sweep("dirichlet", counts, [0.5, 5, math.inf], n_samples=50, seed=0, ks=(1, 2),
                   predictions=preds, risk=np.array([0, 1, 2]))
    assert set(res.certainty.columns) >= {"model", "reliability", "k", "mean_certainty"}
    assert len(res.certainty) == 6
    inf_rows = res.certainty[np.isinf(res.certainty["reliability"])]
    assert np.allclose(inf_rows["mean_certainty"], 1.0)
    det = res.accuracy[res.accuracy["metric"] == "deterministic_accuracy"]
    ua_inf = res.accuracy[(res.accuracy["metric"] == "ua_accuracy")
                          & np.isinf(res.accuracy["reliability"])]
    for k in (1, 2):
        assert float(det[det.k == k]["mean"].iloc[0]) == pytest.approx(
            float(ua_inf[ua_inf.k == k]["mean"].iloc[0]))
    assert {"risk_certainty", "expected_risk"} <= set(res.per_case.columns)


# ------------------------------------------------------------------ real data
def test_dermatology_real_data_small_slice():
    folder = shared_path("data", "dermatology_ddx")
    ds = load(folder / "dermatology_selectors.json",
              conditions=str(folder / "dermatology_conditions.txt"),
              risks=str(folder / "dermatology_risks.txt"))
    sel = ds.selectors()
    assert len(sel) == 1947
    raw = json.loads((folder / "dermatology_selectors.json").read_text())
    irn_all = ce.irn(raw, 419)
    assert np.allclose(irn_all.sum(1), 1.0)
    part = sel[:60]
    x = ce.sample_plausibilities("pl", part, reliability=2, n_samples=20, seed=0,
                                 n_classes=ds.n_labels, burn_in=20)
    assert x.shape == (60, 20, ds.n_labels)
    c = ce.annotation_certainty(x)
    agree, _ = ce.reader_agreement(part, ds.n_labels)
    rho = ce.agreement_certainty_correlation(agree, c)
    assert -1 <= rho <= 1
    assert np.all((c > 0) & (c <= 1))


def test_cifar10h_counts_dirichlet():
    path = shared_path("data", "cifar10h", "label_counts.csv")
    ds = load(path)
    counts = ds.counts_array()[:500]
    x = ce.sample_plausibilities("dirichlet", counts, reliability=1, n_samples=50, seed=0)
    c = ce.annotation_certainty(x)
    # ~51 annotators per image: most images are certain at r = 1
    assert np.median(c) > 0.9


# ------------------------------------------------------------------ compact top-k sampler
def test_gamma_log_quantile_inverts_the_cdf():
    from scipy import special

    rng = np.random.default_rng(0)
    for a in (1e-4, 0.01, 0.1, 1.0, 3.0, 30.0):
        lp = -rng.exponential(1.0, 4000) * rng.choice([1e-6, 1e-3, 0.1, 1, 10, 100], 4000)
        x = np.exp(ce.gamma_log_quantile(a, lp))
        p = np.exp(lp)
        with np.errstate(divide="ignore", invalid="ignore"):
            back = np.where(p > 0.5, special.gammaincc(a, x) / -np.expm1(lp),
                            special.gammainc(a, x) / p)
        ok = np.isfinite(back) & (x > 1e-250) & (p > 1e-250)
        assert ok.mean() > 0.3
        assert np.abs(back[ok] - 1).max() < 1e-7, a
        # below the smallest double: the small-x expansion, monotone in log_p
        tiny = ce.gamma_log_quantile(a, np.array([-5e4, -1e4]))
        assert tiny[0] < tiny[1] < -200 or a > 3
    with pytest.raises(ValueError):
        ce.gamma_log_quantile(0.0, [-1.0])


@pytest.mark.parametrize("alpha, a0", [(1.1, 0.1), (0.4, 0.01), (3.0, 0.5)])
def test_compact_order_statistics_match_exact_integrals(alpha, a0):
    """One class with evidence (Gamma(alpha)) against n iid Gamma(a0): P(rank 1) and P(rank 2)
    of the named class by numerical integration vs the compact sampler."""
    from scipy import integrate, stats

    K = 20
    n = K - 1
    counts = np.zeros((1, K))
    counts[0, 7] = alpha - a0  # r = 1: parameter r c + a0 = alpha
    f, F = stats.gamma(alpha).pdf, stats.gamma(a0).cdf
    p1 = integrate.quad(lambda x: f(x) * F(x) ** n, 0, np.inf, limit=200)[0]
    p2 = integrate.quad(lambda x: f(x) * n * (1 - F(x)) * F(x) ** (n - 1), 0, np.inf,
                        limit=200)[0]
    S = 40_000
    top = ce.sample_top_classes("dirichlet", counts, reliability=1, n_samples=S, depth=2,
                                seed=5, prior=a0)
    assert top.shape == (1, S, 2) and top.dtype == np.int32
    for got, expect in ((np.mean(top[0, :, 0] == 7), p1), (np.mean(top[0, :, 1] == 7), p2)):
        assert abs(got - expect) < 5 * math.sqrt(expect * (1 - expect) / S) + 1e-3
    # unranked identities are uniform over the 19 other classes (chi-square)
    others = top[0, :, 0][top[0, :, 0] != 7]
    obs = np.bincount(others, minlength=K)[np.arange(K) != 7]
    assert stats.chisquare(obs).pvalue > 1e-4
    assert np.all(top[0, :, 0] != top[0, :, 1])


def _stat_close(a, b, S, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    sd = np.sqrt((a * (1 - a) + b * (1 - b)) / S)
    bad = np.abs(a - b) > 5 * sd + 3.0 / S
    assert not bad.any(), (what, a[bad], b[bad])


@pytest.mark.parametrize("r", [1.0, 4.0, 15.0])
def test_compact_sweep_matches_dense_sweep_on_dermatology(r):
    from hlv_core.io import prediction_matrix
    from hlv_core.samples import load_sample

    ds = load_sample("dermatology")
    sel = ds.selectors()[:16]
    K = ds.n_labels
    risk = np.array([int(float(ds.extra["risk"][lab])) for lab in ds.labels])
    preds = {m: prediction_matrix(ds.predictions, ds, m)[1][:16]
             for m in ds.predictions["model"].unique()}
    base = ce.irn(sel, K)
    rng = np.random.default_rng(0)
    preds["unranked_first"] = -base + 0.01 * rng.random(base.shape)  # top-3 all unranked
    S = 2500
    out = {}
    for method, seed in (("dense", 1), ("compact", 2)):
        out[method] = ce.sweep("prirn", sel, [r], n_samples=S, seed=seed, n_classes=K,
                               predictions=preds, risk=risk, ao_depth=3, method=method)
    d, c = out["dense"], out["compact"]
    for col in ("certainty_top1", "certainty_top2", "certainty_top3", "risk_certainty"):
        _stat_close(d.per_case[col], c.per_case[col], S, col)
    assert np.allclose(d.per_case["expected_risk"], c.per_case["expected_risk"], atol=0.25)
    acc_d = d.accuracy.set_index(["predictor", "k", "metric", "reliability"])["mean"]
    acc_c = c.accuracy.set_index(["predictor", "k", "metric", "reliability"])["mean"]
    # dataset-level values: mean over 16 cases, so sd <= 0.5 / sqrt(16 S)
    assert np.all(np.abs(acc_d - acc_c.loc[acc_d.index]) < 5 * 0.5 / math.sqrt(S) + 1e-9)
    ua = c.accuracy[(c.accuracy.predictor == "unranked_first") & (c.accuracy.k == 3)
                    & (c.accuracy.metric == "ua_accuracy") & np.isfinite(c.accuracy.reliability)]
    if r == 1.0:  # at low reliability the unranked classes often win
        assert float(ua["mean"].iloc[0]) > 0.001


def test_compact_rank_certainties_match_dense_for_counts():
    counts = np.array([[5, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 2, 0, 0, 0, 1]])
    S = 30_000
    dense = ce.sample_plausibilities("dirichlet", counts, reliability=0.5, n_samples=S, seed=0,
                                     prior=0.3)
    top = ce.sample_top_classes("dirichlet", counts, reliability=0.5, n_samples=S, seed=0,
                                prior=0.3, depth=3)
    for k in (1, 2, 3):
        a = ce.rank_k_certainties(dense, k=k)
        b = ce.rank_k_certainties_from_top(top, 6, k=k)
        _stat_close(a.ravel(), b.ravel(), S, f"rank-{k}")
    # the empty row: every class equally likely first
    assert np.allclose(ce.rank_k_certainties_from_top(top, 6)[1], 1 / 6, atol=0.02)


def test_compact_sampler_seeds_infinity_and_prior_zero():
    counts = np.array([[3, 0, 1, 0], [0, 2, 2, 0]])
    a = ce.sample_top_classes("dirichlet", counts, reliability=2, n_samples=50, seed=3)
    b = ce.sample_top_classes("dirichlet", counts, reliability=2, n_samples=50, seed=3)
    c = ce.sample_top_classes("dirichlet", counts, reliability=2, n_samples=50, seed=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    inf = ce.sample_top_classes("dirichlet", counts, reliability=math.inf, n_samples=4, depth=3)
    assert np.array_equal(inf, np.broadcast_to(ce.topk_sets(ce.proportions(counts), 3)[:, None],
                                               (2, 4, 3)))
    # prior 0: classes without counts have mass exactly 0 -> after the named ones, lowest id first
    z = ce.sample_top_classes("dirichlet", counts, reliability=1, n_samples=200, seed=0,
                              prior=0.0, depth=4)
    assert np.all(np.isin(z[0, :, :2], [0, 2])) and np.all(z[0, :, 2:] == [1, 3])
    assert np.all(z[1, :, 2:] == [0, 3])
    sel = [[[[0], [1]], [[1, 2]]]]
    assert np.array_equal(
        ce.sample_top_classes("prirn", sel, reliability=math.inf, n_samples=2, depth=2)[0, 0],
        ce.topk_sets(ce.irn(sel), 2)[0])
    with pytest.raises(ValueError):
        ce.sample_top_classes("prirn", sel, reliability=1, n_samples=2, depth=4)
    with pytest.raises(ValueError):
        ce.sample_top_classes("prirn", sel, reliability=1, n_samples=2, prior=0.0)


def test_compact_pl_matches_dense_pl():
    sel = [[[[0], [1, 2]], [[1]]], [[[3]], [[3], [0]]]]
    S = 3000
    kw = dict(reliability=2, n_samples=S, n_classes=8, burn_in=30, n_chains=10)
    dense = ce.sample_plausibilities("pl", sel, seed=0, **kw)
    top = ce.sample_top_classes("pl", sel, seed=0, depth=2, **kw)
    assert top.shape == (2, S, 2)
    # same Gibbs chain (same seed): ranked classes identical, split may differ
    for k in (1, 2):
        _stat_close(ce.rank_k_certainties(dense, k=k).ravel(),
                    ce.rank_k_certainties_from_top(top, 8, k=k).ravel(), S, k)


def test_top_summaries_agree_with_dense_summaries_exactly():
    rng = np.random.default_rng(0)
    x = rng.dirichlet(np.full(7, 0.5), size=(5, 40))
    x[0, 0] = x[0, 1]  # a repeated sample
    preds = rng.random((5, 7))
    top = ce.topk_sets(x, 4)
    for k in (1, 2, 3):
        assert np.array_equal(ce.annotation_certainty(x, k=k), ce.certainty_from_top(top, k=k))
        for flag in (False, True):
            assert np.array_equal(ce.ua_accuracy_per_case_sample(x, preds, k=k, set_accuracy=flag),
                                  ce.ua_accuracy_from_top(top, preds, k=k, set_accuracy=flag))
    # UA average overlap from the top-D list equals the definition on full rankings
    ao = ce.ua_average_overlap_from_top(top, preds, depth=4)
    for i in range(5):
        for s in range(0, 40, 7):
            pa = list(np.argsort(-preds[i], kind="stable"))
            pb = list(np.argsort(-x[i, s], kind="stable"))
            assert ao[i, s] == pytest.approx(ce.average_overlap(pa, pb, depth=4))
    risk = np.array([0, 1, 2, 0, 1, 2, 0])
    assert np.array_equal(ce.risk_certainty(x, risk), ce.risk_certainty_from_top(top, risk))
    assert np.allclose(ce.expected_risk(x, risk), ce.expected_risk_from_top(top, risk))
    with pytest.raises(ValueError):
        ce.certainty_from_top(top, k=5)


# ------------------------------------------------------------------------------ CLI conventions
def test_cli_takes_class_count_from_the_data_conventions(capsys):
    """Without --conditions the selectors file's own companions fix the inventory: 419 classes
    (the largest ranked id + 1 would give 418); the IRN variant in use is printed."""


    from hlv_core.cli import main

    folder = shared_path("data", "dermatology_ddx")
    for target in (folder / "dermatology_selectors.json", folder):
        assert main(["certainty", str(target), "--model", "prirn", "--reliability", "inf",
                     "--samples", "2", "--json"]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["n_classes"] == 419 and payload["irn_variant"] == "paper"
        assert payload["conditions"].endswith("dermatology_conditions.txt")
    assert main(["certainty", str(folder), "--model", "prirn", "--irn", "released",
                 "--reliability", "inf", "--samples", "2"]) == 0
    out = capsys.readouterr().out
    assert "419 classes" in out and "IRN variant: released" in out and "--irn paper" in out


def test_cli_irn_variants_differ_where_ties_exist(capsys):
    """The released-code IRN (no tie split) and the paper's differ on tied blocks, so the
    point-estimate UA accuracy of a tie-sensitive prediction differs too."""


    from hlv_core.cli import main

    folder = shared_path("data", "dermatology_ddx")
    means = {}
    for variant in ("paper", "released"):
        assert main(["certainty", str(folder), "--model", "prirn", "--irn", variant,
                     "--reliability", "1", "--samples", "50", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["certainty"]
        means[variant] = next(r["mean_certainty"] for r in rows if r["k"] == 1)
    assert means["paper"] != means["released"]
    assert means["paper"] > means["released"]  # the paper's variant +.007..+.024 top-1


# ------------------------------------------------------------- input validation
def test_ua_accuracy_refuses_nan_predictions():
    samples = np.random.default_rng(0).dirichlet(np.ones(3), size=(4, 20))
    preds = np.full((4, 3), 1 / 3)
    preds[2] = np.nan  # would silently pick class 0 for the NaN row
    with pytest.raises(ValueError, match="finite"):
        ce.ua_accuracy(samples, preds)
    with pytest.raises(ValueError, match="finite"):
        ce.sweep("dirichlet", np.ones((4, 3)), [1.0], n_samples=10, predictions={"m": preds})


def test_sweep_with_no_cases_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one case"):
        ce.sweep("dirichlet", np.zeros((0, 3)), [1.0], n_samples=10)


def test_compact_sweep_reliabilities_do_not_depend_on_each_other():
    """The compact sweep shares the unranked draws across reliabilities and restarts the named
    classes' stream at each: a reliability's numbers do not depend on the others asked for."""
    sel = [[[[0], [1, 2]], [[1]]], [[[3]], [[3], [0]]], [[[5, 6]]], []]
    kw = dict(n_samples=300, seed=7, n_classes=9, prior=0.05, risk=np.arange(9) % 3)
    both = ce.sweep("prirn", sel, [2.0, 20.0], **kw)
    one = ce.sweep("prirn", sel, [20.0], **kw)
    a = both.per_case[both.per_case["reliability"] == 20.0].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, one.per_case)
    again = ce.sweep("prirn", sel, [2.0, 20.0], **kw)
    pd.testing.assert_frame_equal(both.per_case, again.per_case)
    other = ce.sweep("prirn", sel, [2.0, 20.0], **{**kw, "seed": 8})
    assert not both.per_case["certainty_top1"].equals(other.per_case["certainty_top1"])


@pytest.mark.slow
def test_compact_sweep_matches_dense_sampler_over_reliabilities():
    """Sampling order changed (unranked order statistics drawn once per sweep): the compact
    sweep's certainties agree with the dense (N, S, K) sampler within Monte Carlo error at every
    reliability, on real dermatology cases and on counts (dirichlet, tiny prior included)."""
    from hlv_core.samples import load_sample

    ds = load_sample("dermatology")
    sel = ds.selectors()[:12]
    K = ds.n_labels
    S = 3000
    rels = [1.0, 5.0, 50.0]
    dense = ce.sweep("prirn", sel, rels, n_samples=S, seed=1, n_classes=K, method="dense")
    fast = ce.sweep("prirn", sel, rels, n_samples=S, seed=2, n_classes=K)
    for col in ("certainty_top1", "certainty_top2", "certainty_top3"):
        _stat_close(dense.per_case[col], fast.per_case[col], S, col)
    counts = np.array([[4, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [2, 2, 1, 1, 1, 1, 1]])
    d = ce.sweep("dirichlet", counts, [0.05, 1.0, 8.0], n_samples=S, seed=1, prior=0.3,
                 method="dense")
    f = ce.sweep("dirichlet", counts, [0.05, 1.0, 8.0], n_samples=S, seed=2, prior=0.3)
    for col in ("certainty_top1", "certainty_top2", "certainty_top3"):
        _stat_close(d.per_case[col], f.per_case[col], S, col)
    # tiny prior (the dense path underflows into ties there): the empty row's classes stay
    # exchangeable, so its first class is uniform over the 7
    from scipy import stats

    top = ce.sample_top_classes("dirichlet", counts, reliability=0.05, n_samples=S, seed=3,
                                prior=1e-3, depth=3)
    assert stats.chisquare(np.bincount(top[1, :, 0], minlength=7)).pvalue > 1e-4
    assert np.all(top[1, :, 0] != top[1, :, 1])


def test_gamma_keys_order_matches_log_gamma_values():
    """The integer sort keys order draws exactly as their logarithms do, across the linear
    range and the log-space extension used for tiny shapes (no underflow ties)."""
    L = np.array([-5e5, -2000.0, -800.0, -691.0, -690.0, -689.9, -50.0, -1e-3, 0.0, 3.0])
    keys = _compact_sampler._log_keys(L)
    assert np.all(np.diff(keys) > 0)
    x = np.exp(L[L > -689])
    assert np.array_equal(_compact_sampler._log_keys(np.log(x)) >> 20, x.view(np.int64) >> 20)
    rng = np.random.default_rng(0)
    shape = np.array([[0.002, 0.5, 1.0, 7.0]]).T  # (P=4, nc=1)
    k = _compact_sampler._gamma_keys(rng, shape, 20_000)
    assert k.shape == (4, 20_000)
    assert len(np.unique(k[0])) == 20_000  # shape 0.002: far below 1e-300, still distinct
    # a tiny shape is almost always last, a large one almost always first
    first = np.argmax(k, axis=0)
    assert np.mean(first == 3) > 0.95 and np.mean(np.argmin(k, axis=0) == 0) > 0.99


def test_certain_by_construction():
    """Top-k certainty is 1 whatever the data at reliability infinity and for k >= K; finite
    reliabilities with k < K are data (the page draws only those)."""
    import math

    from hlv_core.certainty import certain_by_construction, sweep

    assert certain_by_construction(1, math.inf, 5) and certain_by_construction(3, 2.0, 3)
    assert not certain_by_construction(2, 100.0, 3)
    counts = np.array([[3, 1, 0, 0], [2, 2, 0, 0], [4, 0, 0, 0]], dtype=float)
    res = sweep("dirichlet", counts, [1.0, 100.0, math.inf], n_samples=300, n_classes=4,
                ks=(1, 3, 4))
    for row in res.certainty.itertuples():
        if certain_by_construction(row.k, row.reliability, 4):
            assert row.mean_certainty == 1.0
    # k = 3 exceeds the labels with evidence: at finite reliability a label nobody chose is
    # drawn at random, so the value stays well below the 1 of the point estimate
    finite = res.certainty[(res.certainty.k == 3) & (res.certainty.reliability == 100.0)]
    assert finite["mean_certainty"].iloc[0] < 0.9
