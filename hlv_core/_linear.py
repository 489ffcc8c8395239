"""Linear softmax / per-class sigmoid models over sparse features for the training lab.

The training lab reproduces the training-method comparison of Kurniawan et al. (arXiv
2502.01891, sections 4-5) in miniature: instead of a
transformer encoder + linear head, a linear model over sparse text features ``X`` (N, d) is
trained with ``scipy.optimize.minimize(method="L-BFGS-B", jac=True)`` on analytic gradients.
The whole training set is one batch (full-batch optimisation), so the mini-batch losses of the
reference code (JSD, SmF1, SMF1) become their dataset-level versions.

Logits ``Z = X W + b``; predictions ``softmax(Z)`` (multiclass) or ``sigmoid(Z)`` (multilabel).
Every loss is a function of the logits of its *rows* ``Zr = Z[rows]`` (a row is one training
example pointing at an item; ReL / AL / LA have several rows per item) and returns
``(value, dL/dZr)``; the model gradient is ``X^T S dL/dZr`` with ``S`` the (N, R) row incidence.

Losses (``LOSSES``):

* ``"ce"``: cross-entropy with hard or soft targets and instance weights,
  ``L = sum_r w_r CE_r / sum_r w_r``; multiclass ``CE_r = -sum_k T_rk ln softmax(z_r)_k``,
  multilabel ``CE_r = sum_k BCE(T_rk, sigmoid(z_rk))`` (BCE-with-logits).
  The reference uses **sum** reduction (flair); dividing by ``sum w`` only rescales the L2
  strength, which the lab chooses on a dev split anyway, and keeps one L2 grid meaningful for
  every method (ReL has ~5x more rows than MV; AR weights are sums of reliabilities).
* ``"jsd"``: mean over rows of JSD(T_r, softmax(z_r)) in bits (multilabel: mean over rows x
  classes of the binary JSD with sigmoid); ``dJSD/dq_k = 1/2 log2(q_k / m_k)``.
* ``"soft_micro_f1"``: ``1 - 2 sum min(T, Q) / sum (T + Q)`` over the whole training set.
* ``"soft_macro_f1"``: ``1 - (1/K) sum_k 2 m_k / (q_k + p_k)`` with column sums over the whole
  training set. The gradient of ``min(t, q)`` w.r.t. ``q`` is the sub-gradient ``[q < t]`` with
  1/2 at exact ties (as ``torch.minimum``).
* ``"la_min"`` / ``"la_max"``: per item the min / max over its annotation rows of the hard-label
  CE (multilabel: summed BCE against the annotator's 0/1 vector), mean over items; the
  sub-gradient flows through the selected annotation (ties: first row).

Model kinds:

* :func:`fit_linear`: one linear head (all single-head methods).
* :func:`fit_multitask` (SLMV): a soft head and a hard head that share features through a
  common weight matrix, ``Z_s = X (W0 + Ws) + b_s``, ``Z_h = X (W0 + Wh) + b_h``, penalty
  ``l2/2 (|W0|^2 + |Ws|^2 + |Wh|^2)`` (regularised multi-task learning, Evgeniou & Pontil 2004);
  loss = soft-head loss + hard-head loss (weights 1). With two *independent* linear
  heads on fixed features the hard head would simply be MV; the shared ``W0`` is the linear
  analogue of the shared encoder. Prediction = the hard head (released code only).
* :func:`fit_ensemble` (AE / AEh): one head per annotator on a **shared low-rank encoder**
  ``h_i = x_i U`` (U: d x r, r = ``rank``, default 8), head ``a``: ``z_ia = h_i V_a + c_a``.
  This mirrors the paper's shared encoder + per-annotator linear heads and stays tractable for
  hundreds of annotators: parameters ``d r + A (r + 1) K`` (md_agreement: 819 annotators,
  d = 50k, r = 8 -> ~0.4M) instead of ``A d K`` for full per-annotator weights (~82M); one
  gradient costs two sparse products with r columns plus O(R r K) for the R annotations. The cost is
  non-convexity (random init from ``seed``). Each head is trained only on its annotator's rows;
  the prediction is the mean of all heads' probabilities (AE) or their vote shares (AEh).

All computations are vectorised: no Python loop over items, annotators or rows.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp, xlogy

__all__ = [
    "LOSSES",
    "LinearFit",
    "fit_ensemble",
    "fit_linear",
    "fit_multitask",
    "loss_value_grad",
    "objective_ensemble",
    "objective_linear",
    "objective_multitask",
    "predict_proba",
]

try:  # threadpoolctl ships with scikit-learn (a runtime dependency of the lab)
    from threadpoolctl import threadpool_limits

    def _one_blas_thread():
        return threadpool_limits(limits=1, user_api="blas")
except ImportError:  # pragma: no cover
    def _one_blas_thread():
        return nullcontext()

LOSSES: tuple[str, ...] = ("ce", "jsd", "soft_micro_f1", "soft_macro_f1", "la_min", "la_max")
LN2 = float(np.log(2.0))

#: False: sparse products through scipy's plain CSR ``@``, the row scatter-add always applied and
#: scipy's ``logsumexp`` (the reference the benchmark and tests compare the faster paths against)
_FAST_PRODUCTS = True


#: False: numpy's own row reductions and LA's sort (the code before the narrow-row paths; the
#: reference the benchmark times them against)
_FAST_REDUCTIONS = True

#: Up to this many columns a row sum taken column by column adds in numpy's own order (left to
#: right), so it equals ``A.sum(axis=1)`` bit for bit (tested for 1-7 columns); numpy reduces
#: such a short last axis one row at a time, ~50x slower for the lab's 2 labels.
_COLUMNWISE_MAX = 7


def _columnwise(A: np.ndarray, axis: int) -> bool:
    return (_FAST_PRODUCTS and _FAST_REDUCTIONS and A.ndim == 2 and axis in (1, -1)
            and 0 < A.shape[1] <= _COLUMNWISE_MAX)


def _row_sum(A: np.ndarray, keepdims: bool = False, dtype=None) -> np.ndarray:
    """``A.sum(axis=1, keepdims=keepdims, dtype=dtype)`` for a 2-D ``A``, bit-identical; a loop
    over at most :data:`_COLUMNWISE_MAX` columns (never over rows) when ``A`` is that narrow."""
    dtype = dtype or A.dtype
    if not _columnwise(A, 1) or np.dtype(dtype).kind != "f":
        return A.sum(axis=1, keepdims=keepdims, dtype=None if dtype == A.dtype else dtype)
    out = np.zeros(A.shape[0], dtype=dtype)  # numpy starts from 0.0 too (-0.0 sums to 0.0)
    for k in range(A.shape[1]):
        out += A[:, k]
    return out[:, None] if keepdims else out


def _row_max(A: np.ndarray) -> np.ndarray:
    """``A.max(axis=1, keepdims=True)`` for a 2-D ``A``, bit-identical (column by column when
    narrow, as :func:`_row_sum`)."""
    if not _columnwise(A, 1):
        return A.max(axis=1, keepdims=True)
    out = A[:, 0].copy()
    for k in range(1, A.shape[1]):
        np.maximum(out, A[:, k], out=out)
    return out[:, None]


# ----------------------------------------------------------------------------- link functions
def _logsumexp(Z: np.ndarray, axis: int) -> np.ndarray:
    """``log sum_k exp(Z_k)`` along ``axis`` (kept as a length-1 axis), bit-identical to
    ``scipy.special.logsumexp(Z, axis=axis, keepdims=True)`` for finite real input: the same
    steps (shift by the maximum, maxima counted and kept out of the sum, ``log1p(s) + log(m) +
    max``) without scipy's array-API dispatch, which costs ~4x the arithmetic on the lab's
    (rows, 2) logits (called once per objective evaluation). Non-finite input or output goes
    to scipy itself."""
    if not _FAST_PRODUCTS or Z.dtype != np.float64 or Z.size == 0:
        return logsumexp(Z, axis=axis, keepdims=True)
    rows = _columnwise(Z, axis)  # (n, K) along the rows: the narrow-row reductions
    a_max = _row_max(Z) if rows else Z.max(axis=axis, keepdims=True)
    mask = a_max == Z
    m = (_row_sum(mask, True, np.float64) if rows
         else mask.sum(axis=axis, keepdims=True, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = np.exp(np.where(mask, -np.inf, Z) - a_max)
        s = _row_sum(e, True) if rows else e.sum(axis=axis, keepdims=True)
        s = np.where(s == 0, s, s / m)
        out = np.log1p(s) + np.log(m) + a_max
    if not np.isfinite(out).all():
        return logsumexp(Z, axis=axis, keepdims=True)
    return out


def _probs(Z: np.ndarray, multilabel: bool) -> np.ndarray:
    if multilabel:
        return expit(Z)
    return np.exp(Z - _logsumexp(Z, 1))


def _chain(Q: np.ndarray, gQ: np.ndarray, multilabel: bool) -> np.ndarray:
    """dL/dZ from dL/dQ through softmax (rows) or the elementwise sigmoid."""
    if multilabel:
        return gQ * Q * (1.0 - Q)
    return Q * (gQ - _row_sum(gQ * Q, True))


# ----------------------------------------------------------------------------- losses
def _ce_rows(Z: np.ndarray, T: np.ndarray, multilabel: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-row CE (multiclass, soft or hard targets) or summed BCE (multilabel) and dCE/dZ."""
    if multilabel:
        value = _row_sum(np.logaddexp(0.0, Z) - T * Z)
        return value, expit(Z) - T
    logS = Z - _logsumexp(Z, 1)
    value = -_row_sum(T * logS)
    return value, np.exp(logS) * _row_sum(T, True) - T


def _loss_ce(Z, T, w, rows, multilabel):
    value, G = _ce_rows(Z, T, multilabel)
    total = float(w.sum())
    if total <= 0:
        return 0.0, np.zeros_like(Z)
    return float(w @ value) / total, G * (w / total)[:, None]


def _loss_jsd(Z, T, w, rows, multilabel):
    n = Z.shape[0]
    tiny = 1e-300
    if multilabel:
        logq, log1q = log_expit(Z), log_expit(-Z)
        q = np.exp(logq)
        m1 = np.maximum((T + q) / 2.0, tiny)
        m0 = np.maximum((2.0 - T - q) / 2.0, tiny)
        value = 0.5 * (
            xlogy(T, T) - xlogy(T, m1) + xlogy(1 - T, 1 - T) - xlogy(1 - T, m0)
            + q * (logq - np.log(m1)) + (1 - q) * (log1q - np.log(m0))
        ) / LN2
        gq = 0.5 * (logq - np.log(m1) - log1q + np.log(m0)) / LN2
        scale = 1.0 / (n * Z.shape[1])
        return float(value.sum()) * scale, gq * q * (1 - q) * scale
    logQ = Z - _logsumexp(Z, 1)
    Q = np.exp(logQ)
    logM = np.log(np.maximum((T + Q) / 2.0, tiny))
    value = 0.5 * (_row_sum(xlogy(T, T) - xlogy(T, np.exp(logM)))
                   + _row_sum(Q * (logQ - logM))) / LN2
    gQ = 0.5 * (logQ - logM) / LN2
    return float(value.sum()) / n, _chain(Q, gQ, False) / n


def _min_subgradient(T: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """d min(T, Q) / dQ: 1 where Q < T, 1/2 at exact ties, else 0."""
    return (Q < T).astype(float) + 0.5 * (Q == T)


def _loss_soft_micro_f1(Z, T, w, rows, multilabel):
    Q = _probs(Z, multilabel)
    M = float(np.minimum(T, Q).sum())
    D = float(T.sum() + Q.sum())
    a = _min_subgradient(T, Q)
    gQ = -2.0 * (a * D - M) / D**2
    return 1.0 - 2.0 * M / D, _chain(Q, gQ, multilabel)


def _loss_soft_macro_f1(Z, T, w, rows, multilabel):
    Q = _probs(Z, multilabel)
    K = Z.shape[1]
    m = np.minimum(T, Q).sum(axis=0)
    den = T.sum(axis=0) + Q.sum(axis=0)  # > 0: Q > 0 everywhere
    a = _min_subgradient(T, Q)
    gQ = -(2.0 / K) * (a * den - m) / den**2
    return 1.0 - float(np.mean(2.0 * m / den)), _chain(Q, gQ, multilabel)


def _select_rows(loss: np.ndarray, rows: np.ndarray, mode: str) -> np.ndarray:
    """Index of the min / max-loss row of every item (ties: first row)."""
    key = loss if mode == "min" else -loss
    if (_FAST_PRODUCTS and _FAST_REDUCTIONS and len(rows) and np.isfinite(key).all()
            and (rows[1:] >= rows[:-1]).all()):
        # rows grouped by item (as the targets come): each group's smallest key through one
        # reduceat, then its first row that reaches it; the same rows as the sort below
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        least = np.minimum.reduceat(key, starts)
        hits = np.flatnonzero(key == np.repeat(least, np.diff(np.r_[starts, len(rows)])))
        return hits[np.r_[True, rows[hits[1:]] != rows[hits[:-1]]]]
    order = np.lexsort((np.arange(len(loss)), key, rows))
    sorted_rows = rows[order]
    first = np.r_[True, sorted_rows[1:] != sorted_rows[:-1]]
    return order[first]


def _loss_la(Z, T, w, rows, multilabel, mode):
    value, G = _ce_rows(Z, T, multilabel)
    chosen = _select_rows(value, rows, mode)
    n = len(chosen)
    out = np.zeros_like(Z)
    out[chosen] = G[chosen] / n
    return float(value[chosen].sum()) / n, out


_LOSS_FUNCS: dict[str, Callable] = {
    "ce": _loss_ce,
    "jsd": _loss_jsd,
    "soft_micro_f1": _loss_soft_micro_f1,
    "soft_macro_f1": _loss_soft_macro_f1,
    "la_min": lambda Z, T, w, rows, ml: _loss_la(Z, T, w, rows, ml, "min"),
    "la_max": lambda Z, T, w, rows, ml: _loss_la(Z, T, w, rows, ml, "max"),
}


def loss_value_grad(
    loss: str,
    Z: np.ndarray,
    T: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    multilabel: bool = False,
) -> tuple[float, np.ndarray]:
    """Value and gradient of one of :data:`LOSSES` with respect to the row logits.

    ``"ce"``: ``sum_r w_r CE_r / sum_r w_r`` with ``CE_r = -sum_k T_rk ln softmax(z_r)_k``
    (multilabel: summed BCE with logits); ``"jsd"``: mean JSD(T_r, softmax(z_r)) in bits;
    ``"soft_micro_f1"``: ``1 - 2 sum min(T, Q) / sum (T + Q)``; ``"soft_macro_f1"``:
    ``1 - (1/K) sum_k 2 m_k / (q_k + p_k)``; ``"la_min"`` / ``"la_max"``: per item the min / max
    over its rows of the hard-label CE, mean over items (Kurniawan et al., section 4; the soft
    metrics of section 3 as losses).

    Parameters
    ----------
    loss : str
        One of :data:`LOSSES`.
    Z : numpy.ndarray
        (R, K) logits of the R training rows.
    T : numpy.ndarray
        (R, K) targets (one-hot, 0/1 sets or soft).
    weights : numpy.ndarray, optional
        (R,) instance weights (only ``"ce"`` uses them).
    rows : numpy.ndarray, optional
        (R,) item index of every row (LA groups rows by it).
    multilabel : bool, default False
        Sigmoid per class instead of softmax.

    Returns
    -------
    value : float
        The loss.
    grad : numpy.ndarray
        (R, K) gradient with respect to ``Z``.

    Raises
    ------
    ValueError
        Unknown loss or shapes that differ.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    At zero logits the prediction is uniform: CE = ln 2, JSD([1, 0], [1/2, 1/2]) = 0.3113 bits,
    soft micro F1 = 1/2:

    >>> import numpy as np
    >>> Z, T = np.zeros((1, 2)), np.array([[1.0, 0.0]])
    >>> [round(loss_value_grad(name, Z, T)[0], 4) for name in ("ce", "jsd", "soft_micro_f1")]
    [0.6931, 0.3113, 0.5]
    >>> loss_value_grad("ce", Z, T)[1]
    array([[-0.5,  0.5]])
    """
    if loss not in _LOSS_FUNCS:
        raise ValueError(f"unknown loss {loss!r}; choose one of {list(LOSSES)}.")
    Z = np.asarray(Z, dtype=float)
    T = np.asarray(T, dtype=float)
    if Z.shape != T.shape:
        raise ValueError(f"logits {Z.shape} and targets {T.shape} differ in shape.")
    w = np.ones(len(Z)) if weights is None else np.asarray(weights, dtype=float)
    r = np.arange(len(Z)) if rows is None else np.asarray(rows)
    return _LOSS_FUNCS[loss](Z, T, w, r, multilabel)


# ----------------------------------------------------------------------------- fitted model
@dataclass
class LinearFit:
    """A fitted linear model of the training lab.

    Parameters
    ----------
    kind : str
        ``"linear"`` (W, b), ``"multitask"`` (W0, Ws, Wh, bs, bh) or ``"ensemble"`` (U, V, c).
    params : dict of str to numpy.ndarray
        The parameter arrays.
    multilabel : bool
        Sigmoid per class instead of softmax.
    l2 : float
        The L2 strength it was fitted with.
    info : dict
        Optimiser result (``n_iter``, ``converged``, ``stop``, ``loss``, ``message``).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the training methods).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> fit = fit_linear(X, T, l2=0.1)
    >>> fit.kind, sorted(fit.params), fit.theta().shape, fit.info["converged"]
    ('linear', ['W', 'b'], (6,), True)
    """

    kind: str
    params: dict[str, np.ndarray]
    multilabel: bool
    l2: float
    info: dict = field(default_factory=dict)

    def theta(self) -> np.ndarray:
        """Flat parameter vector (for warm starts)."""
        return np.concatenate([v.ravel() for v in self.params.values()])


def predict_proba(fit: LinearFit, X, *, hard_ensemble: bool = False) -> np.ndarray:
    """Predicted probabilities of a fitted model.

    Multitask: the hard (MV) head. Ensemble: mean of the heads' probabilities (AE), or with
    ``hard_ensemble`` the share of heads voting for each label (AEh; multiclass argmax, ties
    lowest index; multilabel ``prob > 0.5``), Kurniawan et al., section 4.

    Parameters
    ----------
    fit : LinearFit
        A fitted model.
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    hard_ensemble : bool, default False
        AEh votes instead of AE means (ensemble only).

    Returns
    -------
    numpy.ndarray
        (N, K) probabilities.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> predict_proba(fit_linear(X, T, l2=0.1), X).round(3)
    array([[0.776, 0.224],
           [0.224, 0.776],
           [0.776, 0.224],
           [0.224, 0.776]])
    """
    X = sparse.csr_matrix(X)
    p = fit.params
    if fit.kind == "linear":
        return _probs(_spmm(X, p["W"]) + p["b"], fit.multilabel)
    if fit.kind == "multitask":
        return _probs(np.asarray(X @ (p["W0"] + p["Wh"])) + p["bh"], fit.multilabel)
    H = np.asarray(X @ p["U"])  # (N, r)
    V, c = p["V"], p["c"]
    n_heads, r, K = V.shape
    Vflat = V.transpose(1, 0, 2).reshape(r, n_heads * K)  # one BLAS product for all heads
    out = np.zeros((H.shape[0], K))
    step = max(1, 4_000_000 // max(1, n_heads * K))  # bound memory at ~4M floats per chunk
    for start in range(0, H.shape[0], step):  # chunks of items, not a per-item loop
        Zc = (H[start:start + step] @ Vflat).reshape(-1, n_heads, K) + c[None]
        if fit.multilabel:
            probs = expit(Zc)
            out[start:start + step] = ((probs > 0.5).mean(axis=1) if hard_ensemble
                                       else probs.mean(axis=1))
        elif hard_ensemble:
            out[start:start + step] = np.eye(K)[np.argmax(Zc, axis=2)].mean(axis=1)
        else:
            probs = np.exp(Zc - _logsumexp(Zc, 2))
            out[start:start + step] = probs.mean(axis=1)
    return out


def _spmm(A: sparse.csr_matrix, B: np.ndarray) -> np.ndarray:
    """``A @ B`` (dense (n, k) result) for a CSR ``A`` (n, m) and a dense ``B`` (m, k).

    With k <= 3 columns it runs scipy's single-vector CSR product once per column: the same
    multiply-adds in the same order as the multi-vector kernel (bit-identical results, tested),
    ~30% faster for k = 2 on md_agreement's 50k TF-IDF columns (the multi-vector kernel's
    per-nonzero inner loop of length k does not pay off for so few columns; from 4 columns on
    it does). The loop is over label columns, never over items."""
    B = np.asarray(B)
    if B.ndim != 2 or B.shape[1] > 3 or not _FAST_PRODUCTS:
        return np.asarray(A @ B)
    BT = np.ascontiguousarray(B.T)
    out = np.empty((A.shape[0], B.shape[1]), dtype=np.result_type(A.dtype, B.dtype))
    for k in range(B.shape[1]):
        out[:, k] = A @ BT[k]
    return out


def _forward(X: sparse.csr_matrix, XT: sparse.csr_matrix) -> Callable[[np.ndarray], np.ndarray]:
    """``B -> X @ B`` (dense) for the objectives, through the CSC view ``XT.T`` of ``X`` when
    ``X``'s column indices are sorted: scipy's CSC kernel walks ``XT`` row by row and adds into
    the output rows, so every output row gets the same multiply-adds in the same (ascending
    column) order as the CSR kernel (bit-identical, tested) while reading ``B`` sequentially
    instead of gathering its rows: md_agreement, 50k TF-IDF columns, 6.0 ms vs 10.9 ms for
    k = 2 columns and 15.9 vs 23.7 ms for k = 8 (best of 7, one core)."""
    if _FAST_PRODUCTS and X.has_sorted_indices:
        Xc = XT.T
        return lambda B: np.asarray(Xc @ B)
    return lambda B: np.asarray(X @ B)


def _incidence(rows: np.ndarray, n: int) -> sparse.csr_matrix:
    """(n, R) 0/1 matrix mapping rows to items (scatter-add of row gradients)."""
    R = len(rows)
    return sparse.csr_matrix((np.ones(R), (rows, np.arange(R))), shape=(n, R))


def _minimize(fun, x0: np.ndarray, maxiter: int, tol: float,
              stall_tol: float | None = None, stall_window: int = 10) -> tuple[np.ndarray, dict]:
    """L-BFGS-B with BLAS limited to one thread: L-BFGS-B's small dense products gain nothing
    from threads, and on a busy 2-core machine OpenBLAS threads spinning made each iteration
    ~10x slower (measured: 200k parameters, 24 iterations, 3.9 s -> 0.66 s).

    Stops at a projected gradient below ``tol`` (``stop = "gradient"``) or, with
    ``stall_tol``, when the objective fell by less than ``stall_tol`` (relative) over the last
    ``stall_window`` iterations (``stop = "stalled"``): the convergence test that still applies
    to the non-smooth losses (soft F1's min, LA's min / max over annotators), whose
    sub-gradient need not vanish at the optimum, and to the non-convex ensemble. Both count as
    ``converged``, as does L-BFGS-B's own test on one step's relative decrease (``ftol``,
    1e-10); the iteration cap (``stop = "cap"``) does not."""
    history: list[float] = []

    def stalled(intermediate_result) -> None:
        history.append(float(intermediate_result.fun))
        if stall_tol is not None and len(history) > stall_window:
            old, new = history[-stall_window - 1], history[-1]
            if old - new <= stall_tol * max(abs(new), 1e-12):
                raise StopIteration

    with _one_blas_thread():
        res = minimize(fun, x0, jac=True, method="L-BFGS-B", callback=stalled,
                       options={"maxiter": maxiter, "gtol": tol, "ftol": 1e-10, "maxcor": 10})
    if res.success:  # projected gradient below tol, or L-BFGS-B's per-step ftol test
        stop = "gradient" if "GRADIENT" in str(res.message).upper() else "ftol"
    elif res.status == 99 or "StopIteration" in str(res.message):
        stop = "stalled"
    elif res.status == 1:
        stop = "cap"
    else:
        stop = str(res.message)
    return res.x, {"n_iter": int(res.nit), "converged": stop in ("gradient", "ftol", "stalled"),
                   "stop": stop, "loss": float(res.fun), "message": str(res.message)}


def _prepare(X, T, rows, weights):
    X = sparse.csr_matrix(X, dtype=float)
    T = np.asarray(T, dtype=float)
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    if len(rows) != len(T):
        raise ValueError(f"rows ({len(rows)}) and targets ({len(T)}) differ in length.")
    if len(rows) and (rows.min() < 0 or rows.max() >= X.shape[0]):
        raise ValueError("rows must index the rows of X.")
    w = np.ones(len(T)) if weights is None else np.asarray(weights, dtype=float)
    return X, T, rows, w


# ----------------------------------------------------------------------------- single head
def objective_linear(X, T, *, loss: str = "ce", rows=None, weights=None, multilabel=False,
                     l2: float = 1e-3) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
    """The objective and its gradient of one linear head, as a function of the flat parameters.

    ``theta = [W.ravel(), b]``; objective = ``loss(Z[rows]) + l2/2 |W|^2`` with
    ``Z = X W + b`` (bias not penalised); the gradient is ``X^T S dL/dZr`` with ``S`` the row
    incidence.

    Parameters
    ----------
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    T : numpy.ndarray
        (R, K) targets of R rows.
    loss : str, default "ce"
        One of :data:`LOSSES`.
    rows : numpy.ndarray, optional
        (R,) item of each row (default: row r = item r).
    weights : numpy.ndarray, optional
        (R,) instance weights.
    multilabel : bool, default False
        Sigmoid per class.
    l2 : float, default 1e-3
        L2 strength.

    Returns
    -------
    callable
        ``theta -> (objective, gradient)``.

    Raises
    ------
    ValueError
        Unknown loss, or rows that do not index X.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the training methods).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> value, grad = objective_linear(X, T, l2=0.1)(np.zeros(6))
    >>> round(value, 6), grad[:4].round(3)  # the W part; the bias gradient sums to 0
    (0.693147, array([-0.2,  0.2,  0.2, -0.2]))
    """
    X, T, rows, w = _prepare(X, T, rows, weights)
    if loss not in _LOSS_FUNCS:
        raise ValueError(f"unknown loss {loss!r}; choose one of {list(LOSSES)}.")
    d, K = X.shape[1], T.shape[1]
    # one row per item in item order (MV, SL, AR, ...): the scatter-add S @ G is G itself
    S = (None if _FAST_PRODUCTS and len(rows) == X.shape[0] and np.array_equal(rows, np.arange(len(rows)))
         else _incidence(rows, X.shape[0]))
    XT = X.T.tocsr()
    times_X = _forward(X, XT)
    func = _LOSS_FUNCS[loss]

    def fun(theta):
        W = theta[: d * K].reshape(d, K)
        b = theta[d * K:]
        Z = times_X(W) + b
        value, G = func(Z[rows], T, w, rows, multilabel)
        Gi = G if S is None else np.asarray(S @ G)
        gW = _spmm(XT, Gi) + l2 * W
        obj = value + 0.5 * l2 * float((W * W).sum())
        return obj, np.concatenate([gW.ravel(), Gi.sum(axis=0)])

    return fun


def _init(rng: np.random.Generator, size: int, scale: float) -> np.ndarray:
    return rng.normal(0.0, scale, size)


def fit_linear(X, T, *, loss: str = "ce", rows=None, weights=None, multilabel: bool = False,
               l2: float = 1e-3, seed: int = 0, init: np.ndarray | None = None,
               maxiter: int = 200, tol: float = 1e-6, init_scale: float = 0.01,
               stall_tol: float | None = None) -> LinearFit:
    """Fit one softmax / sigmoid head with L-BFGS-B (all single-head methods of the lab).

    Minimises :func:`objective_linear` with ``scipy.optimize.minimize(method="L-BFGS-B",
    jac=True)``; ``seed`` draws the small random initial weights (``init_scale``) unless
    ``init`` (a flat ``theta``, e.g. a warm start) is given.

    Parameters
    ----------
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    T : numpy.ndarray
        (R, K) targets of R rows.
    loss : str, default "ce"
        One of :data:`LOSSES`.
    rows : numpy.ndarray, optional
        (R,) item of each row (default: row r = item r).
    weights : numpy.ndarray, optional
        (R,) instance weights.
    multilabel : bool, default False
        Sigmoid per class.
    l2 : float, default 1e-3
        L2 strength.
    seed : int, default 0
        Seed of the initial weights.
    init : numpy.ndarray, optional
        Initial flat parameters.
    maxiter : int, default 200
        Iteration cap.
    tol : float, default 1e-6
        Projected gradient tolerance.
    init_scale : float, default 0.01
        Standard deviation of the initial weights.
    stall_tol : float, optional
        Also stop when the objective fell by less than this (relative) over 10 iterations.

    Returns
    -------
    LinearFit
        ``kind="linear"`` with ``W`` (d, K) and ``b`` (K,).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> fit = fit_linear(X, T, loss="ce", l2=0.1, seed=0)
    >>> fit.params["W"].shape, fit.info["stop"]
    ((2, 2), 'gradient')
    """
    X, T, rows, w = _prepare(X, T, rows, weights)
    d, K = X.shape[1], T.shape[1]
    fun = objective_linear(X, T, loss=loss, rows=rows, weights=w, multilabel=multilabel, l2=l2)
    x0 = (np.concatenate([_init(np.random.default_rng(seed), d * K, init_scale), np.zeros(K)])
          if init is None else np.asarray(init, dtype=float))
    theta, info = _minimize(fun, x0, maxiter, tol, stall_tol)
    params = {"W": theta[: d * K].reshape(d, K), "b": theta[d * K:]}
    return LinearFit("linear", params, multilabel, l2, info)


# ----------------------------------------------------------------------------- SLMV
def objective_multitask(X, T_soft, T_hard, *, multilabel=False, l2: float = 1e-3,
                        weights=None) -> Callable:
    """The SLMV objective and its gradient (two heads sharing ``W0``).

    ``theta = [W0, Ws, Wh, bs, bh]``; objective = ``CE(T_soft, X(W0+Ws)+bs) +
    CE(T_hard, X(W0+Wh)+bh) + l2/2 (|W0|^2 + |Ws|^2 + |Wh|^2)`` (each CE a weighted mean over
    items): regularised multi-task learning (Evgeniou & Pontil 2004) as the linear analogue of
    SLMV's shared encoder (Kurniawan et al., section 4).

    Parameters
    ----------
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    T_soft, T_hard : numpy.ndarray
        (N, K) soft labels P_i and MV targets.
    multilabel : bool, default False
        Sigmoid per class.
    l2 : float, default 1e-3
        L2 strength.
    weights : numpy.ndarray, optional
        (N,) instance weights.

    Returns
    -------
    callable
        ``theta -> (objective, gradient)``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    At zero parameters both heads are uniform: 2 ln 2.

    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> hard = np.eye(2)[[0, 1, 0, 1]]
    >>> value, grad = objective_multitask(X, T, hard, l2=0.1)(np.zeros(16))
    >>> round(value, 6), grad.shape
    (1.386294, (16,))
    """
    X = sparse.csr_matrix(X, dtype=float)
    Ts, Th = np.asarray(T_soft, dtype=float), np.asarray(T_hard, dtype=float)
    w = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    d, K = X.shape[1], Ts.shape[1]
    XT = X.T.tocsr()
    times_X = _forward(X, XT)
    rows = np.arange(X.shape[0])

    def fun(theta):
        W0, Ws, Wh = (theta[i * d * K:(i + 1) * d * K].reshape(d, K) for i in range(3))
        bs, bh = theta[3 * d * K:3 * d * K + K], theta[3 * d * K + K:]
        XW = times_X(np.hstack([W0 + Ws, W0 + Wh]))
        vs, Gs = _loss_ce(XW[:, :K] + bs, Ts, w, rows, multilabel)
        vh, Gh = _loss_ce(XW[:, K:] + bh, Th, w, rows, multilabel)
        g = np.asarray(XT @ np.hstack([Gs, Gh]))
        gWs, gWh = g[:, :K] + l2 * Ws, g[:, K:] + l2 * Wh
        gW0 = g[:, :K] + g[:, K:] + l2 * W0
        obj = vs + vh + 0.5 * l2 * float((W0 * W0).sum() + (Ws * Ws).sum() + (Wh * Wh).sum())
        return obj, np.concatenate([gW0.ravel(), gWs.ravel(), gWh.ravel(),
                                    Gs.sum(axis=0), Gh.sum(axis=0)])

    return fun


def fit_multitask(X, T_soft, T_hard, *, multilabel: bool = False, l2: float = 1e-3,
                  seed: int = 0, init: np.ndarray | None = None, maxiter: int = 200,
                  tol: float = 1e-6, init_scale: float = 0.01,
                  stall_tol: float | None = None) -> LinearFit:
    """SLMV: soft head on ``T_soft`` (P_i) and hard head on ``T_hard`` (MV), sharing ``W0``.

    Minimises :func:`objective_multitask` with L-BFGS-B; :func:`predict_proba` returns the
    hard head (Kurniawan et al.'s released code evaluates it).

    Parameters
    ----------
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    T_soft, T_hard : numpy.ndarray
        (N, K) soft labels and MV targets.
    multilabel : bool, default False
        Sigmoid per class.
    l2 : float, default 1e-3
        L2 strength.
    seed : int, default 0
        Seed of the initial weights.
    init : numpy.ndarray, optional
        Initial flat parameters.
    maxiter : int, default 200
        Iteration cap.
    tol : float, default 1e-6
        Projected gradient tolerance.
    init_scale : float, default 0.01
        Standard deviation of the initial weights.
    stall_tol : float, optional
        Stall test, as :func:`fit_linear`.

    Returns
    -------
    LinearFit
        ``kind="multitask"`` with ``W0, Ws, Wh, bs, bh``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> fit = fit_multitask(X, T, np.eye(2)[[0, 1, 0, 1]], l2=0.1)
    >>> predict_proba(fit, X).argmax(axis=1)
    array([0, 1, 0, 1])
    """
    X = sparse.csr_matrix(X, dtype=float)
    d, K = X.shape[1], np.asarray(T_soft).shape[1]
    fun = objective_multitask(X, T_soft, T_hard, multilabel=multilabel, l2=l2)
    x0 = (np.concatenate([_init(np.random.default_rng(seed), 3 * d * K, init_scale),
                          np.zeros(2 * K)]) if init is None else np.asarray(init, dtype=float))
    theta, info = _minimize(fun, x0, maxiter, tol, stall_tol)
    blocks = [theta[i * d * K:(i + 1) * d * K].reshape(d, K) for i in range(3)]
    params = {"W0": blocks[0], "Ws": blocks[1], "Wh": blocks[2],
              "bs": theta[3 * d * K:3 * d * K + K], "bh": theta[3 * d * K + K:]}
    return LinearFit("multitask", params, multilabel, l2, info)


# ----------------------------------------------------------------------------- AE / AEh
def objective_ensemble(X, T, rows, heads, n_heads: int, *, rank: int = 8,
                       multilabel: bool = False, l2: float = 1e-3) -> Callable:
    """The annotator-ensemble (AE / AEh) objective and its gradient.

    ``theta = [U, V, c]``. Row r (item ``rows[r]``, annotator head ``heads[r]``, target
    ``T[r]``) has logits ``z_r = (x_item U) V_head + c_head``; objective = mean over rows of CE
    (multilabel: summed BCE) + ``l2/2 (|U|^2 + |V|^2)``. Heads never seen in ``heads`` only get
    the penalty.

    Parameters
    ----------
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    T : numpy.ndarray
        (R, K) each annotation's one-hot label / 0-1 set.
    rows : numpy.ndarray
        (R,) item of each annotation.
    heads : numpy.ndarray
        (R,) annotator head of each annotation (0..n_heads-1).
    n_heads : int
        Number of heads.
    rank : int, default 8
        Encoder rank r.
    multilabel : bool, default False
        Sigmoid per class.
    l2 : float, default 1e-3
        L2 strength.

    Returns
    -------
    callable
        ``theta -> (objective, gradient)`` with ``d r + n_heads r K + n_heads K`` parameters.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> rows, heads = np.array([0, 0, 1, 1, 2, 3]), np.array([0, 1, 0, 1, 0, 1])
    >>> labels = np.eye(2)[[0, 0, 1, 1, 0, 1]]
    >>> value, grad = objective_ensemble(X, labels, rows, heads, 2, rank=2)(np.zeros(16))
    >>> round(value, 6), grad.shape
    (0.693147, (16,))
    """
    X = sparse.csr_matrix(X, dtype=float)
    T = np.asarray(T, dtype=float)
    rows = np.asarray(rows, dtype=np.int64)
    heads = np.asarray(heads, dtype=np.int64)
    d, K, R, r = X.shape[1], T.shape[1], len(rows), rank
    XT = X.T.tocsr()
    times_X = _forward(X, XT)
    S_item = _incidence(rows, X.shape[0])
    S_head = _incidence(heads, n_heads)
    w = np.ones(R)
    nU, nV = d * r, n_heads * r * K

    def fun(theta):
        U = theta[:nU].reshape(d, r)
        V = theta[nU:nU + nV].reshape(n_heads, r, K)
        c = theta[nU + nV:].reshape(n_heads, K)
        H = times_X(U)
        Hr, Vr = H[rows], V[heads]
        Z = np.einsum("rj,rjk->rk", Hr, Vr) + c[heads]
        value, G = _loss_ce(Z, T, w, rows, multilabel)
        gV = np.asarray(S_head @ (Hr[:, :, None] * G[:, None, :]).reshape(R, r * K))
        gV = gV.reshape(n_heads, r, K) + l2 * V
        gc = np.asarray(S_head @ G)
        gH = np.asarray(S_item @ np.einsum("rk,rjk->rj", G, Vr))
        gU = np.asarray(XT @ gH) + l2 * U
        obj = value + 0.5 * l2 * float((U * U).sum() + (V * V).sum())
        return obj, np.concatenate([gU.ravel(), gV.ravel(), gc.ravel()])

    return fun


def fit_ensemble(X, T, rows, heads, n_heads: int, *, rank: int = 8, multilabel: bool = False,
                 l2: float = 1e-3, seed: int = 0, init: np.ndarray | None = None,
                 maxiter: int = 200, tol: float = 1e-6, init_scale: float = 0.1,
                 stall_tol: float | None = None) -> LinearFit:
    """AE / AEh: per-annotator heads on a shared low-rank encoder (Kurniawan et al., section 4).

    Minimises :func:`objective_ensemble` with L-BFGS-B from a random start (``seed``; the
    objective is non-convex and the zero point is a saddle). Each head is trained only on its
    annotator's rows.

    Parameters
    ----------
    X : scipy.sparse matrix or array_like
        (N, d) item features.
    T : numpy.ndarray
        (R, K) each annotation's one-hot label / 0-1 set.
    rows : numpy.ndarray
        (R,) item of each annotation.
    heads : numpy.ndarray
        (R,) annotator head of each annotation.
    n_heads : int
        Number of heads.
    rank : int, default 8
        Encoder rank.
    multilabel : bool, default False
        Sigmoid per class.
    l2 : float, default 1e-3
        L2 strength.
    seed : int, default 0
        Seed of the random start.
    init : numpy.ndarray, optional
        Initial flat parameters.
    maxiter : int, default 200
        Iteration cap.
    tol : float, default 1e-6
        Projected gradient tolerance.
    init_scale : float, default 0.1
        Standard deviation of the random start.
    stall_tol : float, optional
        Stall test, as :func:`fit_linear`.

    Returns
    -------
    LinearFit
        ``kind="ensemble"`` with ``U`` (d, r), ``V`` (n_heads, r, K), ``c`` (n_heads, K).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 (the training methods and their losses).

    Examples
    --------
    Two annotators who agree on every item: both heads learn the same labels.

    >>> import numpy as np
    >>> from scipy import sparse
    >>> X = sparse.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))  # 4 items, 2 features
    >>> T = np.array([[1.0, 0], [0, 1], [0.8, 0.2], [0.2, 0.8]])  # soft targets (SL)
    >>> rows, heads = np.array([0, 0, 1, 1, 2, 3]), np.array([0, 1, 0, 1, 0, 1])
    >>> labels = np.eye(2)[[0, 0, 1, 1, 0, 1]]
    >>> fit = fit_ensemble(X, labels, rows, heads, 2, rank=2, l2=0.01, seed=0)
    >>> predict_proba(fit, X, hard_ensemble=True)
    array([[1., 0.],
           [0., 1.],
           [1., 0.],
           [0., 1.]])
    """
    X = sparse.csr_matrix(X, dtype=float)
    d, K = X.shape[1], np.asarray(T).shape[1]
    fun = objective_ensemble(X, T, rows, heads, n_heads, rank=rank, multilabel=multilabel,
                             l2=l2)
    n_par = d * rank + n_heads * rank * K
    x0 = (np.concatenate([_init(np.random.default_rng(seed), n_par, init_scale),
                          np.zeros(n_heads * K)]) if init is None
          else np.asarray(init, dtype=float))
    theta, info = _minimize(fun, x0, maxiter, tol, stall_tol)
    nU, nV = d * rank, n_heads * rank * K
    params = {"U": theta[:nU].reshape(d, rank), "V": theta[nU:nU + nV].reshape(n_heads, rank, K),
              "c": theta[nU + nV:].reshape(n_heads, K)}
    return LinearFit("ensemble", params, multilabel, l2, info)
