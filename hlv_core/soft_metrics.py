"""Hard and soft evaluation metrics for human label variation (Kurniawan et al.).

Source: Kurniawan, Mistica, Baldwin and Lau, "Training and Evaluating with Human Label Variation:
An Empirical Study" (arXiv 2502.01891), sections 3.1-3.3, and the LeWiDi 2025 distances. Defaults reproduce the reference code (``kmkurn/train-eval-hlv`` ``evaluation.py``),
including its edge-case conventions (Kurniawan et al.); friendlier behaviour is an explicit option
(``skip_undefined=True``, ``docs/conventions.md``).

Shapes: ``P`` (N, K) human judgement distribution (rows = items, columns = labels in inventory
order), ``Q`` (N, K) model output. Multiclass rows are probability vectors; multilabel entries are
per-class probabilities in [0, 1] (rows need not sum to 1). Nothing loops over items or classes.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .lewidi import manhattan_distance, round_half, wasserstein_distance

__all__ = [
    "jsd_rows",
    "LOG_CUTOFF",
    "METRIC_INFO",
    "UndefinedMetricWarning",
    "bootstrap_ci",
    "classwise_table",
    "entropy_correlation",
    "entropy_correlation_per_class",
    "evaluate",
    "hard_accuracy",
    "hard_macro_f1",
    "hard_micro_f1",
    "hard_prfs",
    "lewidi_cross_entropy",
    "lewidi_manhattan",
    "lewidi_wasserstein",
    "normalised_entropy",
    "per_item",
    "po_jsd",
    "soft_accuracy",
    "soft_macro_f1",
    "soft_micro_f1",
    "soft_prfs",
    "undefined_notes",
    "undefined_reason",
]

LOG_CUTOFF = 1e-8
"""Reference cut-off: values below it contribute 0 to p log p and to the JSD (Kurniawan et al.)."""

#: Metric name -> (group, higher_is_better, short description). Names are the keys of
#: :func:`evaluate`.
METRIC_INFO: dict[str, tuple[str, bool, str]] = {
    "hard_accuracy": ("hard", True, "share of items whose argmax matches the human majority"),
    "hard_micro_f1": ("hard", True, "micro F1 of argmax (multiclass) / of >0.5 sets (multilabel)"),
    "hard_macro_f1": ("hard", True, "mean over classes of hard F1 (zero_division=1)"),
    "soft_accuracy": ("soft", True, "mean over items of sum_k min(P_ik, Q_ik)"),
    "soft_micro_f1": ("soft", True, "2 sum min(P,Q) / sum (P+Q) over all entries"),
    "soft_macro_f1": ("soft", True, "mean over classes of 2 m_k / (p_k + q_k)"),
    "po_jsd": ("soft", True, "1 - mean Jensen-Shannon divergence (bits)"),
    "entropy_correlation": ("soft", True, "Pearson r of item entropies of P and Q"),
    "lewidi_cross_entropy": ("lewidi", False, "LeWiDi 2023 cross-entropy (nats, lower better)"),
    "lewidi_manhattan": ("lewidi", False, "LeWiDi 2025 average Manhattan distance (lower better)"),
    "lewidi_wasserstein": ("lewidi", False, "LeWiDi 2025 average Wasserstein distance (lower better)"),
}


class UndefinedMetricWarning(RuntimeWarning):
    """A metric (or one class's contribution to it) is undefined (0/0 or constant input).

    Raised as a warning, never an error: the reference code of Kurniawan et al. (2025) returns NaN
    in these cases and so does this engine by default; the warning names the classes.

    Attributes
    ----------
    args : tuple of str
        The message, naming the metric and the classes.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3 and the reference code's conventions.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = soft_macro_f1(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]]))
    >>> print(value, caught[0].category.__name__)
    nan UndefinedMetricWarning
    """


# ---------------------------------------------------------------------------------- helpers
#: Tolerance of the row-sum check of multiclass distributions (as ``io.SUM_TOLERANCE``).
ROW_SUM_TOLERANCE = 1e-6


def _check(
    P: np.ndarray, Q: np.ndarray, *, min_rows: int = 1, multilabel: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Validate and convert to float (N, K) arrays of equal shape.

    Every entry must be a finite probability in [0, 1]; with ``multilabel=False`` every row
    must also sum to 1 (a distribution; an all-zero row has none). Raises ``ValueError`` naming
    the matrix and the first offending row."""
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    if P.ndim != 2 or Q.ndim != 2:
        raise ValueError(f"P and Q must be 2-D (items x labels); got shapes {P.shape} and {Q.shape}.")
    if P.shape != Q.shape:
        raise ValueError(f"P and Q must have the same shape; got {P.shape} and {Q.shape}.")
    if P.shape[0] < min_rows:
        raise ValueError(f"need at least {min_rows} item(s); got {P.shape[0]}.")
    if P.shape[1] < 1:
        raise ValueError("need at least one label column.")
    if not (np.isfinite(P).all() and np.isfinite(Q).all()):
        raise ValueError("P and Q must be finite (no NaN or infinity).")
    for name, X in (("P", P), ("Q", Q)):
        bad = np.flatnonzero(((X < 0) | (X > 1 + ROW_SUM_TOLERANCE)).any(axis=1))
        if bad.size:
            raise ValueError(
                f"{name} must hold probabilities in [0, 1]; row {int(bad[0])} has "
                f"{X[bad[0]].min():.6g} .. {X[bad[0]].max():.6g} ({bad.size} row(s) affected)."
            )
        if multilabel is False:
            sums = X.sum(axis=1)
            bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
            if bad.size:
                raise ValueError(
                    f"{name} rows must be distributions summing to 1 (multiclass); row "
                    f"{int(bad[0])} sums to {sums[bad[0]]:.6g} ({bad.size} row(s) affected"
                    + (", all-zero rows have no distribution" if (sums == 0).any() else "")
                    + "). Normalise the rows, or pass multilabel=True for independent labels."
                )
    return P, Q


def _name(k: int, labels: Sequence[str] | None) -> str:
    return repr(str(labels[k])) if labels is not None and k < len(labels) else f"#{k}"


def _warn(msg: str) -> None:
    warnings.warn(msg, UndefinedMetricWarning, stacklevel=3)


def _xlogx_ratio(a: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Elementwise ``a * log2(a / m)`` with the reference conventions (Kurniawan et al.): the ratio is 0
    where ``|m| <= 1e-8`` and the log of a ratio ``< 1e-8`` is taken as 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.abs(m) > LOG_CUTOFF, a / np.where(m == 0, 1.0, m), 0.0)
        log = np.where(ratio >= LOG_CUTOFF, np.log2(np.where(ratio > 0, ratio, 1.0)), 0.0)
    return a * log


def jsd_rows(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    r"""Jensen-Shannon divergence in bits along the last axis.

    .. math:: \mathrm{JSD}(p, q) = \tfrac12 \mathrm{KL}(p \,\|\, m) + \tfrac12 \mathrm{KL}(q \,\|\, m),
       \quad m = \tfrac12 (p + q), \quad \mathrm{KL}(a \,\|\, m) = \sum_k a_k \log_2 (a_k / m_k)

    Kurniawan et al. (2025), section 3.1, metric 5; ratios where ``|m_k| <= 1e-8`` and logs of
    ratios below 1e-8 count as 0 (the reference code's conventions), so ``0 log 0 = 0``.

    Parameters
    ----------
    P, Q : ndarray of shape (..., K)
        Distributions along the last axis (any leading shape).

    Returns
    -------
    ndarray of shape (...)
        JSD in bits, in [0, 1].

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> print(round(float(jsd_rows(np.array([0.5, 0.5]), np.array([0.2, 0.8]))), 6))
    0.073104
    """
    M = 0.5 * (P + Q)
    return 0.5 * _xlogx_ratio(P, M).sum(axis=-1) + 0.5 * _xlogx_ratio(Q, M).sum(axis=-1)


def _xlnx(X: np.ndarray) -> np.ndarray:
    """``x ln x`` with entries ``< 1e-8`` contributing 0 (Kurniawan et al.)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(X >= LOG_CUTOFF, X * np.log(np.where(X > 0, X, 1.0)), 0.0)


def normalised_entropy(X: np.ndarray, *, multilabel: bool = False) -> np.ndarray:
    r"""Per-item normalised entropy of a judgement matrix.

    .. math:: \eta_i = -\frac{1}{\ln K} \sum_k X_{ik} \ln X_{ik}

    Kurniawan et al. (2025), section 3.1 (metric 6) for multiclass; multilabel (section 3.2): the
    binary entropy in bits of every entry, :math:`-(x \log_2 x + (1-x) \log_2 (1-x))`. Entries
    below 1e-8 contribute 0 (reference code).

    Parameters
    ----------
    X : array_like of shape (N, K)
        Rows = items, columns = labels.
    multilabel : bool, default False
        Binary entropy per entry instead of one entropy per row.

    Returns
    -------
    ndarray of shape (N,) or (N, K)
        Multiclass: one value per item in [0, 1]; multilabel: one per entry.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> print(normalised_entropy(np.array([[0.5, 0.5], [0.2, 0.8]])).round(4))
    [1.     0.7219]
    """
    X = np.asarray(X, dtype=float)
    if multilabel:
        return -(_xlnx(X) + _xlnx(1.0 - X)) / np.log(2.0)
    K = X.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return -_xlnx(X).sum(axis=-1) / np.log(K)


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r along axis 0 (standard denominator sqrt(sum zeta^2), ``docs/conventions.md``).
    Columns where either input is exactly constant give NaN (scipy ``pearsonr`` behaviour)."""
    zx = x - x.mean(axis=0)
    zy = y - y.mean(axis=0)
    const = (x == x[:1]).all(axis=0) | (y == y[:1]).all(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (zx * zy).sum(axis=0) / (np.sqrt((zx**2).sum(axis=0)) * np.sqrt((zy**2).sum(axis=0)))
    return np.where(const, np.nan, np.clip(r, -1.0, 1.0))


# --------------------------------------------------------------------------- hard metrics
def _hard_indicators(P: np.ndarray, Q: np.ndarray, multilabel: bool) -> tuple[np.ndarray, ...]:
    """0/1 truth and prediction matrices: one-hot argmax (ties -> lowest index) for multiclass,
    strict > 0.5 for multilabel (``docs/conventions.md``, tie-break and 4)."""
    if multilabel:
        return (P > 0.5).astype(float), (Q > 0.5).astype(float)
    K = P.shape[1]
    eye = np.eye(K)
    return eye[np.argmax(P, axis=1)], eye[np.argmax(Q, axis=1)]


def hard_accuracy(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""Hard accuracy: the share of items whose argmax matches the human majority.

    .. math:: \mathrm{acc}(P, Q) = \frac{1}{N} \sum_{i,k} I^P_{ik} I^Q_{ik}, \quad
       I^P_{ik} = \mathbb{1}(\arg\max_l P_{il} = k)

    Kurniawan et al. (2025), section 3.1, metric 1. Argmax ties go to the lowest label index.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
        Multilabel input raises ``ValueError`` (use :func:`hard_micro_f1`).

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.1.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(hard_accuracy(P, Q), 4))
    0.6667
    """
    if multilabel:
        raise ValueError("hard accuracy is defined for multiclass data; use hard_micro_f1.")
    P, Q = _check(P, Q, multilabel=multilabel)
    return float(np.mean(np.argmax(P, axis=1) == np.argmax(Q, axis=1)))


def hard_micro_f1(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""Hard micro F1 on argmax labels (multiclass) or on the > 0.5 label sets (multilabel).

    .. math:: F_1^{\mu} = \frac{2 \sum_{i,k} T_{ik} R_{ik}}{\sum_{i,k} (T_{ik} + R_{ik})},
       \quad T = [P > 0.5],\; R = [Q > 0.5]

    Kurniawan et al. (2025), section 3.2 (multilabel; one-hot argmax matrices for multiclass, where
    it equals hard accuracy). 1.0 when nothing is positive anywhere (reference code).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(hard_micro_f1(P, Q), 4))
    0.6667
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    T, R = _hard_indicators(P, Q, multilabel)
    denom = T.sum() + R.sum()
    return 1.0 if denom == 0 else float(2.0 * (T * R).sum() / denom)


def _prf_from_counts(tp, fp, fn, support) -> dict:
    """Hard P/R/F1 with sklearn ``zero_division=1`` (Kurniawan et al.). Works on (..., K) arrays."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 1.0)
        recall = np.where(tp + fn > 0, tp / (tp + fn), 1.0)
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 1.0)
    return {"precision": precision, "recall": recall, "f1": f1, "support": support}


def hard_prfs(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> dict:
    r"""Class-wise hard precision, recall, F1 and support, and their macro means.

    .. math:: \mathrm{P}_k = \frac{TP_k}{TP_k + FP_k}, \quad \mathrm{R}_k = \frac{TP_k}{TP_k + FN_k},
       \quad F_{1,k} = \frac{2\,TP_k}{2\,TP_k + FP_k + FN_k}

    Kurniawan et al. (2025), sections 3.1 (metric 2) and 3.2. Counts on argmax labels (multiclass)
    or on the > 0.5 indicators (multilabel); all K classes are reported and 0/0 counts as 1 (the
    reference ``zero_division=1``). Reference quirk, reproduced: multilabel with K = 1 scores the
    negative class.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1`` (K,) float arrays, ``support`` (K,) ints and
        ``macro_precision``, ``macro_recall``, ``macro_f1`` floats.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> out = hard_prfs(P, Q)
    >>> print(out["f1"].round(4), round(out["macro_precision"], 4))
    [0.6667 0.6667] 0.75
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    T, R = _hard_indicators(P, Q, multilabel)
    if multilabel and P.shape[1] == 1:
        T, R = 1.0 - T, 1.0 - R  # reference quirk for K = 1, see docstring
    tp = (T * R).sum(axis=0)
    fp = ((1 - T) * R).sum(axis=0)
    fn = (T * (1 - R)).sum(axis=0)
    out = _prf_from_counts(tp, fp, fn, (tp + fn).astype(int))
    for key in ("precision", "recall", "f1"):
        out[f"macro_{key}"] = float(out[key].mean())
    return out


def hard_macro_f1(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""Hard macro F1: the unweighted mean over all K classes of the hard F1.

    .. math:: F_1^{M} = \frac{1}{K} \sum_k \frac{2 \sum_i I^P_{ik} I^Q_{ik}}{\sum_i (I^P_{ik} + I^Q_{ik})}

    Kurniawan et al. (2025), section 3.1, metric 2 (section 3.2 with > 0.5 indicators for
    multilabel); a class absent from truth and predictions counts 1 (reference ``zero_division=1``).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(hard_macro_f1(P, Q), 4))
    0.6667
    """
    return hard_prfs(P, Q, multilabel=multilabel)["macro_f1"]


# --------------------------------------------------------------------------- soft metrics
def soft_accuracy(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""Soft accuracy: the share of the judgement distribution the model predicts.

    .. math:: \mathrm{soft\,acc}(P, Q) = \frac{1}{N} \sum_{i,k} \min(P_{ik}, Q_{ik})

    Kurniawan et al. (2025), section 3.1, metric 3; Figure 1's item P = (0.5, 0.5),
    Q = (0.2, 0.8) scores 0.5 + 0.2 = 0.7.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
        Multilabel input raises ``ValueError`` (use :func:`soft_micro_f1`).

    Returns
    -------
    float
        In [0, 1]; 1 exactly when P = Q.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.1, Figure 1.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(soft_accuracy(P[:1], Q[:1]), 4))  # Figure 1
    0.7
    >>> print(round(soft_accuracy(P, Q), 4))
    0.8
    """
    if multilabel:
        raise ValueError("soft accuracy is defined for multiclass data; use soft_micro_f1.")
    P, Q = _check(P, Q, multilabel=multilabel)
    return float(np.minimum(P, Q).sum(axis=1).mean())


def soft_micro_f1(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""Soft micro F1 over all entries (multiclass and multilabel).

    .. math:: F_1^{\mu,\mathrm{soft}} = \frac{2 \sum_{i,k} \min(P_{ik}, Q_{ik})}{\sum_{i,k} (P_{ik} + Q_{ik})}

    Kurniawan et al. (2025), section 3.2 (Appendix A derives it from fuzzy sets); for normalised
    multiclass rows it equals soft accuracy. All-zero inputs give NaN (reference code, no guard).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Accepted for symmetry; the definition is the same.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.2 and Appendix A.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(soft_micro_f1(P, Q), 4))
    0.8
    """
    P, Q = _check(P, Q)
    del multilabel  # identical definition
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(2.0 * np.minimum(P, Q).sum() / (P.sum() + Q.sum()))


def _soft_prfs_from_sums(m, q, p, skip_undefined: bool, labels, emit: bool) -> dict:
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = m / q
        recall = m / p
        f1 = 2.0 * m / (q + p)
    out: dict = {"precision": precision, "recall": recall, "f1": f1, "support": p}
    skipped: dict[str, list[int]] = {}
    for key, values in (("precision", precision), ("recall", recall), ("f1", f1)):
        bad = np.isnan(values)
        skipped[key] = [int(k) for k in np.flatnonzero(bad)]
        if skip_undefined:
            out[f"macro_{key}"] = float(np.mean(values[~bad])) if (~bad).any() else float("nan")
        else:
            out[f"macro_{key}"] = float(np.mean(values))
    out["skipped"] = skipped
    if emit and any(skipped.values()):
        parts = [
            f"{key} undefined for class(es) {', '.join(_name(k, labels) for k in ks)}"
            for key, ks in skipped.items()
            if ks
        ]
        how = "skipped in the macro average" if skip_undefined else "macro average is NaN"
        _warn(f"soft {'; '.join(parts)} (zero label mass, 0/0); {how}.")
    return out


def soft_prfs(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    skip_undefined: bool = False,
    labels: Sequence[str] | None = None,
) -> dict:
    r"""Class-wise soft precision, recall, F1 and support, and their macro means.

    .. math:: m_k = \sum_i \min(P_{ik}, Q_{ik}),\; q_k = \sum_i Q_{ik},\; p_k = \sum_i P_{ik};
       \quad \mathrm{P}_k = \frac{m_k}{q_k},\; \mathrm{R}_k = \frac{m_k}{p_k},\;
       F_{1,k} = \frac{2 m_k}{p_k + q_k}

    Kurniawan et al. (2025), section 3.1 (metric 4) and Appendix A (soft class-wise scores). A zero
    mass gives NaN (reference code) and, by default, a NaN macro mean; ``skip_undefined=True``
    averages over the defined classes. Either way an :class:`UndefinedMetricWarning` names them.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Accepted for symmetry; the definition is the same.
    skip_undefined : bool, default False
        Average the macro means over defined classes only.
    labels : sequence of str, optional
        Label names for the warning (length K).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1``, ``support`` (K,) arrays (support = ``p_k``),
        ``macro_precision``, ``macro_recall``, ``macro_f1`` floats and ``skipped`` (class indices
        per measure that were undefined).

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.1 and Appendix A.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> out = soft_prfs(P, Q)
    >>> print(out["f1"].round(4), round(out["macro_f1"], 4))
    [0.8125 0.7857] 0.7991
    """
    P, Q = _check(P, Q)
    del multilabel
    m = np.minimum(P, Q).sum(axis=0)
    return _soft_prfs_from_sums(m, Q.sum(axis=0), P.sum(axis=0), skip_undefined, labels, True)


def soft_macro_f1(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    skip_undefined: bool = False,
    labels: Sequence[str] | None = None,
) -> float:
    r"""Soft macro F1: the mean over classes of the soft class-wise F1.

    .. math:: F_1^{M,\mathrm{soft}} = \frac{1}{K} \sum_k \frac{2 \sum_i \min(P_{ik}, Q_{ik})}{\sum_i (P_{ik} + Q_{ik})}

    Kurniawan et al. (2025), section 3.1, metric 4 (the same for multilabel, section 3.2). NaN when
    a class has no mass in P nor Q, unless ``skip_undefined=True`` (see :func:`soft_prfs`).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Accepted for symmetry; the definition is the same.
    skip_undefined : bool, default False
        Average over the defined classes only.
    labels : sequence of str, optional
        Label names for the warning.

    Returns
    -------
    float
        In [0, 1], or NaN.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(soft_macro_f1(P, Q), 4))
    0.7991
    """
    return soft_prfs(
        P, Q, multilabel=multilabel, skip_undefined=skip_undefined, labels=labels
    )["macro_f1"]


def po_jsd(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""Positively oriented Jensen-Shannon divergence (PO-JSD).

    .. math:: \mathrm{PO\text{-}JSD}(P, Q) = 1 - \frac{1}{N} \sum_i \mathrm{JSD}(p_i, q_i)

    Kurniawan et al. (2025), section 3.1, metric 5, with the JSD in bits (:func:`jsd_rows`).
    Multilabel (section 3.2): every entry is a binary distribution ``(x, 1 - x)`` and the mean runs
    over all N x K entries. Figure 1's item scores 0.9268959920681902.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].

    Returns
    -------
    float
        In [0, 1]; 1 exactly when P = Q.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2, Figure 1.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(po_jsd(P[:1], Q[:1]), 6))  # Figure 1
    0.926896
    >>> print(round(po_jsd(P, Q), 4))
    0.9467
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    return float(1.0 - _per_item_jsd(P, Q, multilabel).mean())


def _per_item_jsd(P: np.ndarray, Q: np.ndarray, multilabel: bool) -> np.ndarray:
    """(N,) per-item JSD in bits (multilabel: mean over the item's K binary JSDs)."""
    if multilabel:
        Pb = np.stack([P, 1.0 - P], axis=-1)
        Qb = np.stack([Q, 1.0 - Q], axis=-1)
        return jsd_rows(Pb, Qb).mean(axis=1)
    return jsd_rows(P, Q)


def entropy_correlation(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    skip_undefined: bool = False,
    labels: Sequence[str] | None = None,
) -> float:
    r"""Entropy correlation: Pearson's r between the item entropies of P and of Q.

    .. math:: r = \frac{\sum_i \zeta^P_i \zeta^Q_i}{\sqrt{\sum_i (\zeta^P_i)^2} \sqrt{\sum_i (\zeta^Q_i)^2}},
       \quad \zeta^P_i = \eta^P_i - \bar\eta^P

    with :math:`\eta` the normalised entropy (:func:`normalised_entropy`). Kurniawan et al. (2025),
    section 3.1, metric 6; the printed denominator :math:`\sqrt{\sum_i \zeta_i}` is a typo, the
    reference code (and this function) uses the standard :math:`\sqrt{\sum_i \zeta_i^2}`.
    Multilabel (section 3.2): per class, r of the binary entropies, then the mean over classes.
    Constant entropies give NaN with an :class:`UndefinedMetricWarning`; fewer than 2 items raise
    ``ValueError``.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    skip_undefined : bool, default False
        Multilabel: average over the classes where r is defined.
    labels : sequence of str, optional
        Label names for the warning.

    Returns
    -------
    float
        In [-1, 1], or NaN.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(entropy_correlation(P, Q), 4))
    0.7025
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    if P.shape[0] < 2:
        raise ValueError("entropy correlation needs at least 2 items (x and y must have length "
                         "at least 2).")
    hp = normalised_entropy(P, multilabel=multilabel)
    hq = normalised_entropy(Q, multilabel=multilabel)
    r = np.atleast_1d(_pearson(hp, hq))
    bad = np.isnan(r)
    if bad.any():
        if multilabel:
            names = ", ".join(_name(int(k), labels) for k in np.flatnonzero(bad))
            how = "skipped in the mean" if skip_undefined else "the mean over classes is NaN"
            _warn(f"entropy correlation undefined (constant entropy) for class(es) {names}; {how}.")
        else:
            _warn("entropy correlation undefined: the entropies of P or of Q are constant "
                  "across items (e.g. every row one-hot).")
    if skip_undefined:
        return float(np.mean(r[~bad])) if (~bad).any() else float("nan")
    return float(np.mean(r))


def entropy_correlation_per_class(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    r"""Multilabel entropy correlation of every class.

    .. math:: r_k = \mathrm{Pearson}_i\big(H_2(P_{ik}), H_2(Q_{ik})\big), \quad
       H_2(x) = -x \log_2 x - (1 - x) \log_2 (1 - x)

    Kurniawan et al. (2025), section 3.2; the multilabel :func:`entropy_correlation` is the mean of
    these values. NaN for a class whose entropy is constant in P or Q.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
        Multilabel probabilities, at least 2 items.

    Returns
    -------
    ndarray of shape (K,)

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.8, 0.4], [0.2, 0.6], [0.6, 0.0]])
    >>> Q = np.array([[0.7, 0.3], [0.4, 0.9], [0.5, 0.2]])
    >>> print(entropy_correlation_per_class(P, Q).round(4))
    [ 0.6893 -0.1299]
    """
    P, Q = _check(P, Q, min_rows=2)
    return np.atleast_1d(_pearson(normalised_entropy(P, multilabel=True),
                                  normalised_entropy(Q, multilabel=True)))


# ------------------------------------------------------------------------ LeWiDi metrics
def lewidi_cross_entropy(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    r"""LeWiDi 2023 cross-entropy of the predicted soft labels (lower is better).

    .. math:: \mathrm{CE} = -\frac{1}{N} \sum_i \sum_k P_{ik} \ln(\tilde Q_{ik} + 10^{-9}),
       \quad \tilde Q = \mathrm{clip}(Q, 10^{-12}, 1 - 10^{-12})

    The LeWiDi 2023 shared task's soft metric (Leonardelli et al. 2023, evaluation), listed by
    Kurniawan et al. (2025), section 2, among existing HLV metrics. Nats; it equals
    :math:`H(P) + \mathrm{KL}(P \| Q)` up to the clipping, so never 0 on ambiguous items.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multilabel input raises ``ValueError``.

    Returns
    -------
    float

    References
    ----------
    .. [1] Leonardelli et al. (2023). "SemEval-2023 Task 11: Learning With Disagreements
       (LeWiDi)". Evaluation (soft metric), as in the organisers' starting kit.
    .. [2] Kurniawan et al. (2025), arXiv:2502.01891. Section 2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(round(lewidi_cross_entropy(P, Q), 4))
    0.5379
    """
    if multilabel:
        raise ValueError("LeWiDi cross-entropy is defined for multiclass (soft label) data.")
    P, Q = _check(P, Q, multilabel=multilabel)
    return float(_per_item_ce(P, Q).mean())


def _per_item_ce(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    Qc = np.clip(Q, 1e-12, 1.0 - 1e-12)
    return -(P * np.log(Qc + 1e-9)).sum(axis=1)


def _per_item_manhattan(P: np.ndarray, Q: np.ndarray, multilabel: bool) -> np.ndarray:
    """The LeWiDi scorer's one Manhattan distance (:func:`hlv_core.lewidi.manhattan_distance`),
    unrounded; multilabel: per label the binary distributions ``(p, 1-p)``, mean over labels."""
    if multilabel:
        pairs = (np.stack([P, 1.0 - P], axis=-1), np.stack([Q, 1.0 - Q], axis=-1))
        return manhattan_distance(*pairs).mean(axis=1)
    return manhattan_distance(P, Q)


def lewidi_manhattan(
    P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False, decimals: int | None = 5
) -> float:
    r"""LeWiDi 2025 average Manhattan distance (lower is better).

    .. math:: d = \frac{1}{N} \sum_i \sum_k |P_{ik} - Q_{ik}|

    LeWiDi 2025 Task A (soft labels); each item and the mean rounded to ``decimals`` as in the
    organisers' notebook (Python ``round``, :func:`hlv_core.lewidi.round_half`). Multilabel
    (VariErrNLI): per item the mean over labels of the distance between ``(p, 1 - p)`` and
    ``(q, 1 - q)``; with ``decimals`` each label's distance is rounded before the item mean (the
    notebook's ``multilabel_average_MD``), as :func:`hlv_core.lewidi.multilabel_manhattan_items`. For normalised multiclass rows it equals
    ``2 (1 - soft accuracy)`` (Kurniawan et al. 2025, section 3.1).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    decimals : int or None, default 5
        Rounding of the item values and of the mean; ``None`` = none.

    Returns
    -------
    float
        In [0, 2].

    References
    ----------
    .. [1] LeWiDi 2025, the third Learning With Disagreements shared task (NLPerspectives at
       EMNLP 2025). Task A evaluation, as in the organisers' evaluation notebook.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(lewidi_manhattan(P, Q))
    0.4
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    if decimals is None:
        return float(_per_item_manhattan(P, Q, multilabel).mean())
    if multilabel:
        # notebook: per label round(MD), per item round(mean over labels), then the mean
        pairs = (np.stack([P, 1.0 - P], axis=-1), np.stack([Q, 1.0 - Q], axis=-1))
        per_label = round_half(manhattan_distance(*pairs), decimals)
        d = round_half(per_label.mean(axis=1), decimals)
    else:
        d = round_half(manhattan_distance(P, Q), decimals)
    return float(round_half(np.array(math.fsum(d.tolist()) / d.size), decimals))


def _per_item_wasserstein(P: np.ndarray, Q: np.ndarray, values: np.ndarray | None) -> np.ndarray:
    """The LeWiDi scorer's one Wasserstein distance
    (:func:`hlv_core.lewidi.wasserstein_distance`: rows renormalised, bins at ``values``)."""
    return wasserstein_distance(P, Q, values)


def lewidi_wasserstein(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    values: Sequence[float] | None = None,
    decimals: int | None = 5,
) -> float:
    r"""LeWiDi 2025 average Wasserstein distance for ordinal labels (lower is better).

    .. math:: W_i = \sum_{k=1}^{K-1} |F^P_{ik} - F^Q_{ik}| \, (v_{k+1} - v_k),
       \quad F^P_{ik} = \sum_{l \le k} P_{il}

    the 1-D earth mover's distance between bins at positions ``values`` (default 0, 1, ..., K-1),
    averaged over items. LeWiDi 2025 Task A for the ordinal datasets.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    values : sequence of float, optional
        Bin positions (length K); default ``0 .. K-1``.
    decimals : int or None, default 5
        Rounding of the mean; ``None`` = none.

    Returns
    -------
    float

    References
    ----------
    .. [1] LeWiDi 2025, the third Learning With Disagreements shared task (NLPerspectives at
       EMNLP 2025). Task A evaluation, as in the organisers' evaluation notebook.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(lewidi_wasserstein(P, Q))
    0.2
    """
    P, Q = _check(P, Q)
    d = _per_item_wasserstein(P, Q, None if values is None else np.asarray(values, float))
    if decimals is None:
        return float(d.mean())
    return float(round_half(np.array(math.fsum(d.tolist()) / d.size), decimals))


# ----------------------------------------------------------------------------- evaluate
def evaluate(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    skip_undefined: bool = False,
    lewidi: bool = False,
    ordinal_values: Sequence[float] | None = None,
) -> dict[str, float]:
    r"""Every metric of Kurniawan et al. for one model, as a flat ``{name: float}`` dict.

    .. math:: \{\mathrm{acc}, F_1^{\mu}, F_1^{M}, \mathrm{soft\,acc}, F_1^{\mu,\mathrm{soft}},
       F_1^{M,\mathrm{soft}}, \mathrm{PO\text{-}JSD}, r_\eta\}(P, Q)

    each as defined in Kurniawan et al. (2025), sections 3.1 (multiclass) and 3.2 (multilabel; no
    hard or soft accuracy there), see the functions of the same names. Undefined values are NaN
    (entropy correlation with fewer than 2 items too, instead of raising).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    skip_undefined : bool, default False
        As in :func:`soft_prfs`.
    lewidi : bool, default False
        Add ``lewidi_manhattan`` and, multiclass, ``lewidi_cross_entropy``, unrounded.
    ordinal_values : sequence of float, optional
        Also add ``lewidi_wasserstein`` with these bin positions.

    Returns
    -------
    dict of str to float
        Multiclass keys ``hard_accuracy, hard_micro_f1, hard_macro_f1, soft_accuracy,
        soft_micro_f1, soft_macro_f1, po_jsd, entropy_correlation``.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> {k: round(v, 4) for k, v in evaluate(P, Q).items()}  # doctest: +NORMALIZE_WHITESPACE
    {'hard_accuracy': 0.6667, 'hard_micro_f1': 0.6667, 'hard_macro_f1': 0.6667,
     'soft_accuracy': 0.8, 'soft_micro_f1': 0.8, 'soft_macro_f1': 0.7991, 'po_jsd': 0.9467,
     'entropy_correlation': 0.7025}
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    out: dict[str, float] = {}
    if not multilabel:
        out["hard_accuracy"] = hard_accuracy(P, Q)
    out["hard_micro_f1"] = hard_micro_f1(P, Q, multilabel=multilabel)
    out["hard_macro_f1"] = hard_macro_f1(P, Q, multilabel=multilabel)
    if not multilabel:
        out["soft_accuracy"] = soft_accuracy(P, Q)
    out["soft_micro_f1"] = soft_micro_f1(P, Q)
    out["soft_macro_f1"] = soft_macro_f1(P, Q, skip_undefined=skip_undefined)
    out["po_jsd"] = po_jsd(P, Q, multilabel=multilabel)
    if P.shape[0] < 2:
        out["entropy_correlation"] = float("nan")
    else:
        out["entropy_correlation"] = entropy_correlation(
            P, Q, multilabel=multilabel, skip_undefined=skip_undefined
        )
    if lewidi:
        if not multilabel:
            out["lewidi_cross_entropy"] = lewidi_cross_entropy(P, Q)
        out["lewidi_manhattan"] = lewidi_manhattan(P, Q, multilabel=multilabel, decimals=None)
        if ordinal_values is not None and not multilabel:
            out["lewidi_wasserstein"] = lewidi_wasserstein(
                P, Q, values=ordinal_values, decimals=None
            )
    return out


def undefined_notes(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    labels: Sequence[str] | None = None,
) -> list[str]:
    r"""Plain-language notes on every metric that is undefined (NaN) here, and why.

    .. math:: F_{1,k} = \frac{2 m_k}{p_k + q_k} = \frac{0}{0} \text{ when } p_k = q_k = 0

    The undefined cases of the reference code of Kurniawan et al. (2025), section 3: zero class
    mass in the soft class-wise scores, constant entropies in the entropy correlation.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    labels : sequence of str, optional
        Label names used in the notes.

    Returns
    -------
    list of str
        Empty when every metric is defined.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1 and 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> for note in undefined_notes(P, P, labels=["a", "b", "c"]):
    ...     print(note[:59])
    class 'c' has no mass in the judgements nor the predictions
    entropy correlation is undefined: the item entropies of the
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    notes: list[str] = []
    p, q = P.sum(axis=0), Q.sum(axis=0)
    for k in np.flatnonzero((p == 0) & (q == 0)):
        notes.append(f"class {_name(int(k), labels)} has no mass in the judgements nor the "
                     "predictions: its soft precision, recall and F1 are 0/0 (NaN), so the "
                     "reference soft macro F1 is NaN.")
    for k in np.flatnonzero((p == 0) & (q > 0)):
        notes.append(f"class {_name(int(k), labels)} was never chosen by annotators: its soft "
                     "recall is 0/0 (NaN), so the reference soft macro recall is NaN.")
    for k in np.flatnonzero((q == 0) & (p > 0)):
        notes.append(f"class {_name(int(k), labels)} gets no predicted mass: its soft precision "
                     "is 0/0 (NaN), so the reference soft macro precision is NaN.")
    if P.shape[0] < 2:
        notes.append("entropy correlation needs at least 2 items.")
    else:
        hp = normalised_entropy(P, multilabel=multilabel)
        hq = normalised_entropy(Q, multilabel=multilabel)
        const = np.atleast_1d((hp == hp[:1]).all(axis=0) | (hq == hq[:1]).all(axis=0))
        if multilabel and const.any():
            names = ", ".join(_name(int(k), labels) for k in np.flatnonzero(const))
            notes.append(f"entropy correlation is undefined for class(es) {names} (constant "
                         "entropy over items), so the reference mean over classes is NaN.")
        elif not multilabel and const.any():
            which = [name for name, h in (("human judgements", hp), ("predictions", hq))
                     if bool((h == h[:1]).all())]
            notes.append(f"entropy correlation is undefined: the item entropies of the "
                         f"{' and of the '.join(which)} are constant (the same on every item, "
                         "e.g. a hard vote that is unanimous everywhere), so Pearson's r is 0/0 "
                         "(NaN, the reference convention).")
    return notes


def undefined_reason(metric: str, value: float, notes: Sequence[str]) -> str:
    r"""Why ``value`` of ``metric`` is undefined, from :func:`undefined_notes`.

    .. math:: \text{reason}(m, v) = \text{the notes naming } m \text{ if } v = \mathrm{NaN}, \text{ else } \varnothing

    Every NaN shown in a table or download carries its reason (Kurniawan et al. 2025, section 3,
    reference conventions).

    Parameters
    ----------
    metric : str
        Metric name as in :func:`evaluate`.
    value : float
        Its value.
    notes : sequence of str
        The output of :func:`undefined_notes`.

    Returns
    -------
    str
        Empty when ``value`` is a number.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.

    Examples
    --------
    >>> print(repr(undefined_reason("soft_macro_f1", 0.5, ["x"])))
    ''
    >>> print(undefined_reason("soft_macro_f1", float("nan"), []))
    soft_macro_f1 is undefined (0/0) on these items.
    """
    if not (isinstance(value, float) and np.isnan(value)):
        return ""
    named = [n for n in notes if metric.replace("_", " ") in n.lower()]
    return " ".join(named or notes) or f"{metric} is undefined (0/0) on these items."


# ----------------------------------------------------------------------- per-item values
def per_item(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    item_ids: Sequence[str] | None = None,
    ordinal_values: Sequence[float] | None = None,
) -> pd.DataFrame:
    r"""Per-item value of every item-decomposable metric (their means give the dataset metrics).

    .. math:: \mathrm{soft\_overlap}_i = \sum_k \min(P_{ik}, Q_{ik}), \quad
       \mathrm{po\_jsd}_i = 1 - \mathrm{JSD}(p_i, q_i)

    Kurniawan et al. (2025), section 3.1: soft accuracy and PO-JSD are means of these columns.

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    item_ids : sequence of str, optional
        Index of the result (default ``0 .. N-1``).
    ordinal_values : sequence of float, optional
        Adds a ``wasserstein`` column.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``item_id`` with columns ``hard_correct, soft_overlap, jsd, po_jsd, entropy_p,
        entropy_q, manhattan`` and, multiclass, ``cross_entropy`` (and ``wasserstein``).

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.1.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> print(per_item(P, Q)["soft_overlap"].round(2).tolist())
    [0.7, 0.9, 0.8]
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    T, R = _hard_indicators(P, Q, multilabel)
    hp = normalised_entropy(P, multilabel=multilabel)
    hq = normalised_entropy(Q, multilabel=multilabel)
    jsd = _per_item_jsd(P, Q, multilabel)
    frame = pd.DataFrame(
        {
            "hard_correct": (T == R).all(axis=1),
            "soft_overlap": np.minimum(P, Q).sum(axis=1),
            "jsd": jsd,
            "po_jsd": 1.0 - jsd,
            "entropy_p": hp.mean(axis=1) if multilabel else hp,
            "entropy_q": hq.mean(axis=1) if multilabel else hq,
            "manhattan": _per_item_manhattan(P, Q, multilabel),
        },
        index=pd.Index(item_ids if item_ids is not None else np.arange(len(P)), name="item_id"),
    )
    if not multilabel:
        frame["cross_entropy"] = _per_item_ce(P, Q)
        if ordinal_values is not None:
            frame["wasserstein"] = _per_item_wasserstein(P, Q, np.asarray(ordinal_values, float))
    return frame


def classwise_table(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    labels: Sequence[str] | None = None,
) -> pd.DataFrame:
    r"""Tidy class-wise table of the hard and soft precision, recall, F1 and support.

    .. math:: F_{1,k}^{\mathrm{soft}} = \frac{2 m_k}{p_k + q_k}, \quad
       F_{1,k}^{\mathrm{hard}} = \frac{2\,TP_k}{2\,TP_k + FP_k + FN_k}

    Kurniawan et al. (2025), section 3.1 and Appendix A (see :func:`hard_prfs`, :func:`soft_prfs`).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    labels : sequence of str, optional
        Label names (length K).

    Returns
    -------
    pandas.DataFrame
        One row per (``kind`` in hard/soft, ``label``) with ``precision, recall, f1, support`` and
        ``note`` (why a value is undefined).

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Section 3.1 and Appendix A.

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> table = classwise_table(P, Q, labels=["no", "yes"])
    >>> print(table[["kind", "label", "f1"]].round(3).to_string(index=False))
    kind label    f1
    hard    no 0.667
    hard   yes 0.667
    soft    no 0.812
    soft   yes 0.786
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    K = P.shape[1]
    names = list(labels) if labels is not None else [str(k) for k in range(K)]
    hard = hard_prfs(P, Q, multilabel=multilabel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        soft = soft_prfs(P, Q)
    rows = []
    for kind, res in (("hard", hard), ("soft", soft)):
        rows.append(
            pd.DataFrame(
                {
                    "kind": kind,
                    "label": names,
                    "precision": res["precision"],
                    "recall": res["recall"],
                    "f1": res["f1"],
                    "support": np.asarray(res["support"], dtype=float),
                }
            )
        )
    table = pd.concat(rows, ignore_index=True)
    table["note"] = _classwise_notes(table)
    return table


def _classwise_notes(table: pd.DataFrame) -> list[str]:
    """Why a class-wise value is undefined (every NaN shown carries its reason)."""
    notes = []
    for p, r, f in zip(table["precision"], table["recall"], table["f1"], strict=True):
        parts = []
        if np.isnan(p):
            parts.append("precision 0/0: no predicted mass on this class")
        if np.isnan(r):
            parts.append("recall 0/0: annotators never chose this class")
        if np.isnan(f) and not parts:
            parts.append("F1 0/0: no mass in judgements nor predictions")
        notes.append("; ".join(parts))
    return notes


# --------------------------------------------------------------------- bootstrap over items
def _weighted_metrics(
    P: np.ndarray,
    Q: np.ndarray,
    W: np.ndarray,
    multilabel: bool,
    skip_undefined: bool,
    lewidi: bool = False,
    ordinal_values: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """All :func:`evaluate` metrics for B weightings of the items at once.

    ``W`` (B, N) holds how often each item is drawn in each resample; every metric is a
    function of item-level sums, so each resample is a matrix product (no loop over
    resamples). With ``W = 1`` this equals :func:`evaluate`."""
    n = W.sum(axis=1)
    T, R = _hard_indicators(P, Q, multilabel)
    T_prf, R_prf = (1.0 - T, 1.0 - R) if multilabel and P.shape[1] == 1 else (T, R)
    out: dict[str, np.ndarray] = {}
    if not multilabel:
        out["hard_accuracy"] = W @ (T * R).sum(axis=1) / n
    tr = W @ (T * R)  # (B, K)
    t = W @ T
    r = W @ R
    if multilabel:
        denom = t.sum(axis=1) + r.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out["hard_micro_f1"] = np.where(denom > 0, 2 * tr.sum(axis=1) / denom, 1.0)
    else:
        out["hard_micro_f1"] = out["hard_accuracy"]
    tr_, t_, r_ = W @ (T_prf * R_prf), W @ T_prf, W @ R_prf
    hard = _prf_from_counts(tr_, r_ - tr_, t_ - tr_, t_)
    out["hard_macro_f1"] = hard["f1"].mean(axis=1)
    mins = np.minimum(P, Q)
    m = W @ mins
    q = W @ Q
    p = W @ P
    if not multilabel:
        out["soft_accuracy"] = m.sum(axis=1) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        out["soft_micro_f1"] = 2 * m.sum(axis=1) / (p.sum(axis=1) + q.sum(axis=1))
        f1 = 2 * m / (q + p)
    if skip_undefined:
        out["soft_macro_f1"] = _nanmean_rows(f1)
    else:
        out["soft_macro_f1"] = f1.mean(axis=1)
    out["po_jsd"] = 1.0 - W @ _per_item_jsd(P, Q, multilabel) / n
    hp = normalised_entropy(P, multilabel=multilabel)
    hq = normalised_entropy(Q, multilabel=multilabel)
    if not multilabel:
        hp, hq = hp[:, None], hq[:, None]
    hp = hp - hp.mean(axis=0)  # centre first: fewer cancellation errors in the weighted moments
    hq = hq - hq.mean(axis=0)
    mx, my = W @ hp / n[:, None], W @ hq / n[:, None]
    vx = W @ hp**2 / n[:, None] - mx**2
    vy = W @ hq**2 / n[:, None] - my**2
    cxy = W @ (hp * hq) / n[:, None] - mx * my
    tiny = 1e-13
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.clip(cxy / np.sqrt(vx * vy), -1.0, 1.0)
    corr = np.where((vx <= tiny * np.maximum(1.0, mx**2)) | (vy <= tiny * np.maximum(1.0, my**2)),
                    np.nan, corr)
    out["entropy_correlation"] = _nanmean_rows(corr) if skip_undefined else corr.mean(axis=1)
    if lewidi:  # item means (unrounded), as evaluate(lewidi=True)
        if not multilabel:
            out["lewidi_cross_entropy"] = W @ _per_item_ce(P, Q) / n
        out["lewidi_manhattan"] = W @ _per_item_manhattan(P, Q, multilabel) / n
        if ordinal_values is not None and not multilabel:
            out["lewidi_wasserstein"] = W @ _per_item_wasserstein(P, Q, ordinal_values) / n
    return out


def _nanmean_rows(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cnt > 0, np.where(ok, x, 0.0).sum(axis=1) / cnt, np.nan)


def bootstrap_ci(
    P: np.ndarray,
    Q: np.ndarray,
    *,
    multilabel: bool = False,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    skip_undefined: bool = False,
    lewidi: bool = False,
    ordinal_values: Sequence[float] | None = None,
    chunk: int | None = None,
) -> pd.DataFrame:
    r"""Percentile bootstrap confidence intervals over items for every :func:`evaluate` metric.

    .. math:: [\hat\theta^*_{(\alpha/2)}, \hat\theta^*_{(1-\alpha/2)}], \quad
       \hat\theta^*_b = m(P_{I_b}, Q_{I_b}),\; I_b \sim \mathrm{Uniform}\{1..N\}^N

    Efron and Tibshirani (1993), chapter 13 (percentile interval). Each resample draws N items with
    replacement (``numpy.random.default_rng(seed)``); all resamples are computed at once from
    item-level sums weighted by the draw counts. Resamples where a metric is undefined are left
    out of its interval (``n_valid``).

    Parameters
    ----------
    P : array_like of shape (N, K)
        Human judgement distribution: rows are items, columns the labels in inventory order.
    Q : array_like of shape (N, K)
        Model output, same layout.
    multilabel : bool, default False
        Multiclass rows must sum to 1; multilabel entries are independent probabilities in [0, 1].
    n_boot : int, default 1000
        Number of resamples.
    seed : int, default 0
        Seed of the resampling.
    level : float, default 0.95
        Coverage of the interval.
    skip_undefined, lewidi, ordinal_values
        As in :func:`evaluate`.
    chunk : int, optional
        Resamples per vectorised block (memory bound).

    Returns
    -------
    pandas.DataFrame
        Indexed by metric with ``value, lower, upper, sd, n_valid, n_boot, seed, level``.

    References
    ----------
    .. [1] Efron and Tibshirani (1993). "An Introduction to the Bootstrap". Chapter 13.
    .. [2] Kurniawan et al. (2025), arXiv:2502.01891. Section 3 (the metrics).

    Examples
    --------
    Figure 1 of the paper, one item with P = (0.5, 0.5) and Q = (0.2, 0.8), plus two more:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> ci = bootstrap_ci(P, Q, n_boot=200, seed=0)
    >>> print(ci.loc["soft_accuracy", ["value", "lower", "upper"]].round(3).tolist())
    [0.8, 0.7, 0.9]
    """
    P, Q = _check(P, Q, multilabel=multilabel)
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1.")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1).")
    N = P.shape[0]
    rng = np.random.default_rng(seed)
    values = None if ordinal_values is None else np.asarray(ordinal_values, dtype=float)
    if chunk is None:
        chunk = max(1, min(n_boot, 4_000_000 // max(N, 1)))
    parts: list[dict[str, np.ndarray]] = []
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        draws = rng.integers(0, N, size=(b, N))
        flat = (draws + (np.arange(b) * N)[:, None]).ravel()
        W = np.bincount(flat, minlength=b * N).reshape(b, N).astype(float)
        parts.append(_weighted_metrics(P, Q, W, multilabel, skip_undefined, lewidi, values))
        done += b
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        point = evaluate(P, Q, multilabel=multilabel, skip_undefined=skip_undefined,
                         lewidi=lewidi, ordinal_values=ordinal_values)
    alpha = (1.0 - level) / 2.0
    rows = []
    for name, value in point.items():
        values = np.concatenate([part[name] for part in parts])
        ok = values[~np.isnan(values)]
        if ok.size:
            lo, hi = np.quantile(ok, [alpha, 1.0 - alpha])
            sd = float(ok.std(ddof=1)) if ok.size > 1 else float("nan")
        else:
            lo = hi = sd = float("nan")
        rows.append({"metric": name, "value": value, "lower": float(lo), "upper": float(hi),
                     "sd": sd, "n_valid": int(ok.size)})
    frame = pd.DataFrame(rows).set_index("metric")
    frame["n_boot"] = n_boot
    frame["seed"] = seed
    frame["level"] = level
    return frame
