"""hlv_core._linear: finite-difference gradient checks for every loss and model kind, cross-checks
of the losses against hlv_core.soft_metrics, sub-gradients at ties, and fitting sanity."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from hlv_core import _linear as L
from hlv_core import soft_metrics as sm
from hlv_core import training as tr

RNG = np.random.default_rng(20250301)


def _fd(fun, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences of the scalar part of ``fun(x) -> (value, grad)``."""
    g = np.empty_like(x)
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (fun(x + e)[0] - fun(x - e)[0]) / (2 * eps)
    return g


def _problem(multilabel: bool, n: int = 6, K: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    rows = np.array([0, 0, 1, 2, 2, 2, 3, 4, 5, 5])[: max(n, 10)]
    R = len(rows)
    T = rng.random((R, K)) if multilabel else rng.dirichlet(np.ones(K), R)
    T[0] = 0.0
    T[0, 1] = 1.0  # a hard row among the soft ones
    Z = rng.normal(0, 1.5, (R, K))
    w = rng.uniform(0.5, 2.0, R)
    return Z, T, rows, w


@pytest.mark.parametrize("multilabel", [False, True])
@pytest.mark.parametrize("loss", L.LOSSES)
def test_loss_gradient_matches_finite_differences(loss, multilabel):
    Z, T, rows, w = _problem(multilabel)
    R, K = Z.shape

    def fun(z):
        return L.loss_value_grad(loss, z.reshape(R, K), T, weights=w, rows=rows,
                                 multilabel=multilabel)

    value, grad = fun(Z.ravel())
    assert np.isfinite(value)
    np.testing.assert_allclose(grad.ravel(), _fd(fun, Z.ravel()), atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("multilabel", [False, True])
def test_soft_losses_equal_one_minus_metrics(multilabel):
    Z, T, rows, _ = _problem(multilabel, seed=3)
    Q = L._probs(Z, multilabel)
    jsd, _ = L.loss_value_grad("jsd", Z, T, multilabel=multilabel)
    assert jsd == pytest.approx(1 - sm.po_jsd(T, Q, multilabel=multilabel), abs=1e-7)
    micro, _ = L.loss_value_grad("soft_micro_f1", Z, T, multilabel=multilabel)
    assert micro == pytest.approx(1 - sm.soft_micro_f1(T, Q), abs=1e-12)
    macro, _ = L.loss_value_grad("soft_macro_f1", Z, T, multilabel=multilabel)
    assert macro == pytest.approx(1 - sm.soft_macro_f1(T, Q), abs=1e-12)


def test_ce_values_match_definitions():
    Z, T, rows, w = _problem(False, seed=5)
    Q = L._probs(Z, False)
    value, _ = L.loss_value_grad("ce", Z, T, weights=w)
    assert value == pytest.approx(float(w @ -(T * np.log(Q)).sum(1)) / w.sum())
    Zm, Tm, _, _ = _problem(True, seed=5)
    Qm = L._probs(Zm, True)
    bce = -(Tm * np.log(Qm) + (1 - Tm) * np.log(1 - Qm)).sum(1).mean()
    assert L.loss_value_grad("ce", Zm, Tm, multilabel=True)[0] == pytest.approx(bce)


@pytest.mark.parametrize("multilabel", [False, True])
def test_la_selects_min_and_max_annotation(multilabel):
    Z, T, rows, _ = _problem(multilabel, seed=7)
    if not multilabel:
        T = np.eye(Z.shape[1])[RNG.integers(0, Z.shape[1], len(Z))]
    else:
        T = (T > 0.5).astype(float)
    per_row, _ = L._ce_rows(Z, T, multilabel)
    lo, _ = L.loss_value_grad("la_min", Z, T, rows=rows, multilabel=multilabel)
    hi, _ = L.loss_value_grad("la_max", Z, T, rows=rows, multilabel=multilabel)
    # naive per-item loop as the oracle
    mins = [per_row[rows == i].min() for i in np.unique(rows)]
    maxs = [per_row[rows == i].max() for i in np.unique(rows)]
    assert lo == pytest.approx(np.mean(mins))
    assert hi == pytest.approx(np.mean(maxs))
    item_means = [per_row[rows == i].mean() for i in np.unique(rows)]
    assert lo < np.mean(item_means) < hi  # some items have disagreeing annotations


def test_la_ties_go_to_the_first_annotation():
    Z = np.zeros((3, 2))  # identical logits: every annotation has the same loss
    T = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    rows = np.array([0, 0, 0])
    _, G = L.loss_value_grad("la_min", Z, T, rows=rows)
    assert np.any(G[0] != 0) and np.all(G[1:] == 0)


def test_min_subgradient_at_ties_is_half():
    T = np.array([[0.5, 0.5]])
    Z = np.zeros((1, 2))  # softmax(0, 0) = (0.5, 0.5) = T: exact tie in both classes
    Q = L._probs(Z, False)
    assert np.array_equal(L._min_subgradient(T, Q), [[0.5, 0.5]])
    value, G = L.loss_value_grad("soft_micro_f1", Z, T)
    assert value == pytest.approx(0.0)
    assert np.all(np.isfinite(G))


@pytest.mark.parametrize("loss", ["soft_micro_f1", "soft_macro_f1"])
def test_f1_subgradient_is_one_sided_derivative_near_ties(loss):
    """Away from exact ties the sub-gradient is the derivative; slightly off a tie it is the
    derivative on that side."""
    T = np.array([[0.7, 0.3], [0.2, 0.8]])
    Z = np.log(T) + np.array([[1e-3, 0.0], [0.0, -1e-3]])  # Q a hair away from T
    R, K = Z.shape

    def fun(z):
        return L.loss_value_grad(loss, z.reshape(R, K), T)

    _, grad = fun(Z.ravel())
    np.testing.assert_allclose(grad.ravel(), _fd(fun, Z.ravel(), eps=1e-7), atol=1e-6)


def _features(n: int, d: int, seed: int) -> sparse.csr_matrix:
    rng = np.random.default_rng(seed)
    X = sparse.random(n, d, density=0.4, random_state=rng, format="csr")
    return X + sparse.eye(n, d, format="csr")


@pytest.mark.parametrize("multilabel", [False, True])
@pytest.mark.parametrize("loss", L.LOSSES)
def test_linear_objective_gradient(loss, multilabel):
    Z, T, rows, w = _problem(multilabel, seed=11)
    X = _features(6, 5, seed=1)
    fun = L.objective_linear(X, T, loss=loss, rows=rows, weights=w, multilabel=multilabel,
                             l2=0.3)
    theta = np.random.default_rng(2).normal(0, 0.7, 5 * T.shape[1] + T.shape[1])
    np.testing.assert_allclose(fun(theta)[1], _fd(fun, theta), atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("multilabel", [False, True])
def test_multitask_objective_gradient(multilabel):
    rng = np.random.default_rng(4)
    X = _features(6, 4, seed=3)
    Ts = rng.dirichlet(np.ones(3), 6) if not multilabel else rng.random((6, 3))
    Th = (np.eye(3)[Ts.argmax(1)] if not multilabel else (Ts > 0.5).astype(float))
    fun = L.objective_multitask(X, Ts, Th, multilabel=multilabel, l2=0.2)
    theta = rng.normal(0, 0.5, 3 * 4 * 3 + 2 * 3)
    np.testing.assert_allclose(fun(theta)[1], _fd(fun, theta), atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("multilabel", [False, True])
def test_ensemble_objective_gradient(multilabel):
    rng = np.random.default_rng(5)
    X = _features(5, 4, seed=6)
    rows = np.array([0, 0, 1, 2, 2, 3, 4, 4])
    heads = np.array([0, 1, 1, 0, 2, 2, 0, 1])
    K, rank, H = 3, 2, 4  # head 3 never annotates: penalty only
    T = (np.eye(K)[rng.integers(0, K, len(rows))] if not multilabel
         else (rng.random((len(rows), K)) > 0.5).astype(float))
    fun = L.objective_ensemble(X, T, rows, heads, H, rank=rank, multilabel=multilabel, l2=0.1)
    theta = rng.normal(0, 0.6, 4 * rank + H * rank * K + H * K)
    np.testing.assert_allclose(fun(theta)[1], _fd(fun, theta), atol=1e-7, rtol=1e-5)


def test_rel_loss_is_sl_loss_weighted_by_annotations():
    """Full batch: sum over an item's annotations of CE = n_i * CE(P_i) -> ReL = weighted SL."""
    rng = np.random.default_rng(8)
    rows = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    Y = np.eye(2)[rng.integers(0, 2, len(rows))]
    n_i = np.bincount(rows)
    P = np.vstack([Y[rows == i].mean(0) for i in range(3)])
    Z = rng.normal(size=(3, 2))
    rel, g_rel = L.loss_value_grad("ce", Z[rows], Y)
    sl, g_sl = L.loss_value_grad("ce", Z, P, weights=n_i.astype(float))
    assert rel == pytest.approx(sl)
    G = np.zeros((3, 2))
    np.add.at(G, rows, g_rel)
    np.testing.assert_allclose(G, g_sl, atol=1e-12)


@pytest.mark.parametrize("loss", ["ce", "jsd"])
def test_fit_recovers_soft_targets_with_item_features(loss):
    """One indicator feature per item and a tiny penalty: SL / JSD reproduce P."""
    P = np.array([[0.8, 0.2, 0.0], [0.1, 0.6, 0.3], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.25, 0.25]])
    X = sparse.eye(4, format="csr")
    fit = L.fit_linear(X, P, loss=loss, l2=1e-7, maxiter=2000, tol=1e-10)
    Q = L.predict_proba(fit, X)
    np.testing.assert_allclose(Q, P, atol=0.02)


def test_fit_mv_beats_chance_and_weights_matter():
    X = sparse.eye(2, format="csr")
    T = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    rows = np.array([0, 0, 1])
    # item 0 annotated A, B: the weight decides which label wins
    heavy_a = L.predict_proba(L.fit_linear(X, T, rows=rows, weights=[3.0, 1.0, 1.0], l2=1e-3), X)
    heavy_b = L.predict_proba(L.fit_linear(X, T, rows=rows, weights=[1.0, 3.0, 1.0], l2=1e-3), X)
    assert heavy_a[0, 0] > 0.7 > heavy_b[0, 0]
    assert heavy_a[0, 0] == pytest.approx(0.75, abs=0.02)


def test_multitask_predicts_with_hard_head():
    X = sparse.eye(3, format="csr")
    Ts = np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    Th = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    fit = L.fit_multitask(X, Ts, Th, l2=1e-6, maxiter=2000, tol=1e-10)
    Q = L.predict_proba(fit, X)
    assert np.all(Q[[0, 1, 2], [0, 1, 0]] > 0.9)  # hard head: near one-hot, not P
    soft = L._probs(np.asarray(X @ (fit.params["W0"] + fit.params["Ws"])) + fit.params["bs"],
                    False)
    np.testing.assert_allclose(soft, Ts, atol=0.05)


@pytest.mark.parametrize("multilabel", [False, True])
def test_ensemble_prediction_matches_training_ensemble(multilabel):
    rng = np.random.default_rng(9)
    X = _features(6, 5, seed=10)
    params = {"U": rng.normal(size=(5, 2)), "V": rng.normal(size=(4, 2, 3)),
              "c": rng.normal(size=(4, 3))}
    fit = L.LinearFit("ensemble", params, multilabel, 0.1)
    H = np.asarray(X @ params["U"])
    Z = np.einsum("nj,ajk->ank", H, params["V"]) + params["c"][:, None, :]
    probs = L._probs(Z.reshape(-1, 3), multilabel).reshape(4, 6, 3)
    for hard in (False, True):
        np.testing.assert_allclose(
            L.predict_proba(fit, X, hard_ensemble=hard),
            tr.ensemble(probs, hard=hard, multilabel=multilabel), atol=1e-12)


def test_ensemble_heads_learn_their_annotators():
    """Two annotators who always disagree: each head reproduces its annotator, AE averages."""
    X = sparse.eye(4, format="csr")
    rows = np.repeat(np.arange(4), 2)
    heads = np.tile([0, 1], 4)
    T = np.array([[1, 0], [0, 1]] * 4, dtype=float)  # head 0 says class 0, head 1 class 1
    fit = L.fit_ensemble(X, T, rows, heads, 2, rank=2, l2=1e-4, seed=0, maxiter=500)
    Q = L.predict_proba(fit, X)
    np.testing.assert_allclose(Q, 0.5, atol=0.05)
    H = np.asarray(X @ fit.params["U"])
    z0 = H @ fit.params["V"][0] + fit.params["c"][0]
    assert np.all(z0[:, 0] > z0[:, 1])


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown loss"):
        L.loss_value_grad("hinge", np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="shape"):
        L.loss_value_grad("ce", np.zeros((1, 2)), np.zeros((1, 3)))
    with pytest.raises(ValueError, match="rows"):
        L.fit_linear(sparse.eye(2, format="csr"), np.zeros((3, 2)), rows=[0, 1, 5])


def test_stop_reasons_converged_stalled_and_cap():
    """Every fit reports why it stopped: L-BFGS-B's own tests (gradient / ftol) and the stall
    test (objective fell by < stall_tol relative over 10 iterations) count as converged, the
    iteration cap does not."""
    rng = np.random.default_rng(3)
    X = sparse.csr_matrix(rng.random((60, 8)))
    T = rng.dirichlet(np.ones(3), 60)
    ce = L.fit_linear(X, T, loss="ce", l2=1e-2, maxiter=500, tol=1e-6)
    assert ce.info["stop"] in ("gradient", "ftol") and ce.info["converged"]
    full = L.fit_linear(X, T, loss="soft_micro_f1", l2=1e-4, maxiter=2000, tol=1e-12)
    assert full.info["converged"] and full.info["stop"] in ("gradient", "ftol")
    f1 = L.fit_linear(X, T, loss="soft_micro_f1", l2=1e-4, maxiter=2000, tol=1e-12,
                      stall_tol=1e-3)
    assert f1.info["stop"] == "stalled" and f1.info["converged"]
    assert 10 < f1.info["n_iter"] < full.info["n_iter"]
    # stalled near the optimum: within the stall tolerance's order of the full run's loss
    assert full.info["loss"] <= f1.info["loss"] <= full.info["loss"] * (1 + 1e-2)
    capped = L.fit_linear(X, T, loss="soft_micro_f1", l2=1e-4, maxiter=3, tol=1e-12)
    assert capped.info["stop"] == "cap" and not capped.info["converged"]
    assert capped.info["n_iter"] == 3


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_column_wise_sparse_product_is_bit_identical(k):
    """``_spmm`` (one single-vector CSR product per column for k <= 3) gives exactly scipy's
    multi-vector product: same multiply-adds in the same order, so the lab's fits and metrics
    do not move by a bit."""
    rng = np.random.default_rng(k)
    A = sparse.random(300, 2000, density=0.05, format="csr", random_state=k)
    A.data = rng.normal(size=A.nnz)
    B = rng.normal(size=(2000, k))
    out = L._spmm(A, B)
    assert out.shape == (300, k) and np.array_equal(out, np.asarray(A @ B))
    assert np.array_equal(L._spmm(A.T.tocsr(), out), np.asarray(A.T.tocsr() @ out))


@pytest.mark.parametrize("rows", [None, np.array([0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9])])
def test_linear_objective_unchanged_by_fast_paths(rows):
    """The objective (identity rows skip the scatter-add; column-wise products) equals the plain
    formula ``loss(X W + b) + l2/2 |W|^2`` with ``X^T S G`` computed by scipy, bit for bit."""
    rng = np.random.default_rng(0)
    X = sparse.random(10, 40, density=0.3, format="csr", random_state=1)
    R = 10 if rows is None else len(rows)
    r = np.arange(10) if rows is None else rows
    T = rng.dirichlet(np.ones(2), size=R)
    theta = rng.normal(size=40 * 2 + 2)
    value, grad = L.objective_linear(X, T, rows=rows, l2=0.3)(theta)
    W, b = theta[:80].reshape(40, 2), theta[80:]
    v, G = L.loss_value_grad("ce", np.asarray(X @ W)[r] + b, T, rows=r)
    S = sparse.csr_matrix((np.ones(R), (r, np.arange(R))), shape=(10, R))
    Gi = np.asarray(S @ G)
    assert value == v + 0.5 * 0.3 * float((W * W).sum())
    assert np.array_equal(grad, np.concatenate([(np.asarray(X.T.tocsr() @ Gi) + 0.3 * W).ravel(),
                                                Gi.sum(axis=0)]))


@pytest.mark.parametrize("k", [2, 4, 8])
def test_forward_product_through_csc_view_is_bit_identical(k):
    rng = np.random.default_rng(k)
    X = sparse.random(200, 3000, density=0.05, format="csr", random_state=k)
    X.data = rng.normal(size=X.nnz)
    B = rng.normal(size=(3000, k))
    assert X.has_sorted_indices
    assert np.array_equal(L._forward(X, X.T.tocsr())(B), np.asarray(X @ B))
    # unsorted column indices: the plain CSR product (the order the CSC view would change)
    U = X.copy()
    U.indices, U.data = U.indices[::-1].copy(), U.data[::-1].copy()
    U.indptr = (U.nnz - U.indptr[::-1]).copy()
    U = U[::-1]
    U.has_sorted_indices = False
    assert (U != X).nnz == 0
    assert np.array_equal(L._forward(U, U.T.tocsr())(B), np.asarray(U @ B))


def test_logsumexp_is_scipys_bit_for_bit():
    from scipy.special import logsumexp

    rng = np.random.default_rng(0)
    Z = rng.normal(scale=30, size=(5000, 2))
    Z[:50, 1] = Z[:50, 0]  # ties: two maxima
    Z[50:60] = [700.0, 710.0]  # near overflow
    Z[60:70, 0] = -np.inf
    for A, axis in ((Z, 1), (rng.normal(size=(300, 5)), 1), (rng.normal(size=(40, 7, 3)), 2),
                    (np.round(rng.normal(size=(300, 4))), 1)):
        out = L._logsumexp(A, axis)
        assert np.array_equal(out, logsumexp(A, axis=axis, keepdims=True))
    inf = np.array([[np.inf, 1.0], [np.nan, 0.0]])  # non-finite: scipy's own answer
    np.testing.assert_array_equal(L._logsumexp(inf, 1), logsumexp(inf, axis=1, keepdims=True))


@pytest.mark.parametrize("k", [1, 2, 3, 7, 9])
def test_narrow_row_sums_and_maxima_are_numpys_bit_for_bit(k):
    """Row sums / maxima taken column by column (<= 7 columns) add in numpy's own order: equal
    to ``A.sum(axis=1)`` / ``A.max(axis=1)`` bit for bit, for floats over many magnitudes,
    negative zeros, ties and booleans; 9 columns go to numpy itself."""
    rng = np.random.default_rng(k)
    A = rng.normal(size=(20_000, k)) * 10.0 ** rng.integers(-8, 9, size=(20_000, k))
    A[:100] = -0.0
    A[100:200] = np.round(A[100:200])
    for B in (A, np.asfortranarray(A), A[::2], A > 0):
        assert np.array_equal(L._row_sum(B), B.sum(axis=1))
        s = L._row_sum(B, True, np.float64)
        assert s.dtype == np.float64 and np.array_equal(s, B.sum(axis=1, keepdims=True,
                                                                dtype=np.float64))
        assert np.array_equal(L._row_max(B), B.max(axis=1, keepdims=True))
    assert np.array_equal(np.signbit(L._row_sum(A[:100])), np.signbit(A[:100].sum(axis=1)))


@pytest.mark.parametrize("mode", ["min", "max"])
def test_la_row_selection_fast_path_picks_the_sorted_reference_rows(mode, monkeypatch):
    """LA's per-item min / max row through one reduceat (rows grouped by item) is the row the
    lexicographic sort picks, ties to the first; ungrouped rows and NaN losses take the sort."""
    rng = np.random.default_rng(3)
    rows = np.sort(rng.integers(0, 400, 3000))
    loss = rng.integers(0, 4, 3000).astype(float)  # many ties
    fast = L._select_rows(loss, rows, mode)
    shuffled = rng.permutation(3000)
    nan = loss.copy()
    nan[::7] = np.nan
    others = [L._select_rows(loss[shuffled], rows[shuffled], mode),
              L._select_rows(nan, rows, mode)]
    monkeypatch.setattr(L, "_FAST_PRODUCTS", False)
    assert np.array_equal(fast, L._select_rows(loss, rows, mode))
    assert np.array_equal(others[0], L._select_rows(loss[shuffled], rows[shuffled], mode))
    assert np.array_equal(others[1], L._select_rows(nan, rows, mode))
    assert len(fast) == len(np.unique(rows))
