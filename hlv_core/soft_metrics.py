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

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .lewidi import manhattan_distance, wasserstein_distance

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
    """A metric (or one class's contribution to it) is undefined (0/0 or constant input)."""


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
    """JSD in bits along the last axis: ``½ KL(p‖m) + ½ KL(q‖m)``, ``m = (p + q) / 2``."""
    M = 0.5 * (P + Q)
    return 0.5 * _xlogx_ratio(P, M).sum(axis=-1) + 0.5 * _xlogx_ratio(Q, M).sum(axis=-1)


def _xlnx(X: np.ndarray) -> np.ndarray:
    """``x ln x`` with entries ``< 1e-8`` contributing 0 (Kurniawan et al.)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(X >= LOG_CUTOFF, X * np.log(np.where(X > 0, X, 1.0)), 0.0)


def normalised_entropy(X: np.ndarray, *, multilabel: bool = False) -> np.ndarray:
    """Per-item normalised entropy (Kurniawan et al.).

    Multiclass: ``h_i = -sum_k X_ik ln X_ik / ln K`` -> (N,). Multilabel: binary entropy in bits
    of every entry, ``-(x log2 x + (1-x) log2 (1-x))`` -> (N, K). Entries below 1e-8 contribute 0.
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
    """Hard accuracy ``(1/N) #{i: argmax P_i = argmax Q_i}`` (Kurniawan et al.); argmax ties go to the
    lowest label index. Multiclass only (for multilabel use :func:`hard_micro_f1`)."""
    if multilabel:
        raise ValueError("hard accuracy is defined for multiclass data; use hard_micro_f1.")
    P, Q = _check(P, Q, multilabel=multilabel)
    return float(np.mean(np.argmax(P, axis=1) == np.argmax(Q, axis=1)))


def hard_micro_f1(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    """Hard micro F1 (Kurniawan et al.): ``2 sum T&R / (sum T + sum R)`` with ``T = [P > 0.5]``,
    ``R = [Q > 0.5]`` (multilabel; 1.0 when nothing is positive anywhere). Multiclass: the same
    formula on one-hot argmax matrices, which equals hard accuracy."""
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
    """Class-wise hard precision, recall, F1 and support plus their macro means (Kurniawan et al.).

    Per class k: ``TP_k, FP_k, FN_k`` on argmax labels (multiclass) or on the > 0.5 indicators
    (multilabel); all K classes are reported; 0/0 counts as 1 (reference ``zero_division=1``).
    Returns ``precision, recall, f1`` (K,) float arrays, ``support`` (K,) ints and
    ``macro_precision, macro_recall, macro_f1`` floats.

    [CODE-ONLY quirk, reproduced] multilabel with a single class (K = 1): sklearn reads the
    (N, 1) indicator as binary labels and, asked for ``labels=[0]``, scores the *negative*
    class; the reference vectors (``ml_single_class_column``) pin this, so it is reproduced.
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
    """Hard macro F1: unweighted mean over all K classes of the hard F1 (Kurniawan et al.)."""
    return hard_prfs(P, Q, multilabel=multilabel)["macro_f1"]


# --------------------------------------------------------------------------- soft metrics
def soft_accuracy(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    """Soft accuracy ``(1/N) sum_i sum_k min(P_ik, Q_ik)`` (Kurniawan et al.). Figure 1 of the paper:
    P=(.5,.5), Q=(.2,.8) -> 0.7. Multiclass only (multilabel: use :func:`soft_micro_f1`)."""
    if multilabel:
        raise ValueError("soft accuracy is defined for multiclass data; use soft_micro_f1.")
    P, Q = _check(P, Q, multilabel=multilabel)
    return float(np.minimum(P, Q).sum(axis=1).mean())


def soft_micro_f1(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    """Soft micro F1 ``2 sum_ik min(P_ik, Q_ik) / sum_ik (P_ik + Q_ik)`` (Kurniawan et al.). Same
    formula for multiclass (equals soft accuracy for normalised rows) and multilabel; all-zero
    inputs give NaN (reference: no guard)."""
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
    """Class-wise soft precision / recall / F1 / support and macro means (Kurniawan et al.).

    ``m_k = sum_i min(P_ik, Q_ik)``, ``q_k = sum_i Q_ik``, ``p_k = sum_i P_ik``; precision
    ``m_k / q_k``, recall ``m_k / p_k``, F1 ``2 m_k / (q_k + p_k)``, support ``p_k``. A zero
    mass gives NaN (reference, no guard) and, by default, a NaN macro mean (``docs/conventions.md``);
    ``skip_undefined=True`` averages over the defined classes. Either way an
    :class:`UndefinedMetricWarning` names the classes and ``out["skipped"]`` lists their indices
    per measure. ``multilabel`` is accepted for symmetry: the definition is identical.
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
    """Soft macro F1: mean over classes of ``2 m_k / (p_k + q_k)`` (Kurniawan et al.); NaN when a class
    has no mass in P and Q unless ``skip_undefined=True`` (see :func:`soft_prfs`)."""
    return soft_prfs(
        P, Q, multilabel=multilabel, skip_undefined=skip_undefined, labels=labels
    )["macro_f1"]


def po_jsd(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    """PO-JSD ``1 - (1/N) sum_i JSD(P_i, Q_i)`` with JSD in bits (Kurniawan et al., sec. 3.1). Multilabel:
    every entry is a binary distribution ``(x, 1-x)`` and the mean runs over all N*K
    entries. Figure 1: P=(.5,.5), Q=(.2,.8) -> 0.9268959920681902."""
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
    """Entropy correlation (Kurniawan et al.): Pearson r between the per-item normalised entropies
    of P and Q, with the standard denominator ``sqrt(sum zeta^2) sqrt(sum eta^2)`` (binding
    ``docs/conventions.md``; the paper's printed sqrt(sum zeta) is a typo).

    Multilabel: per class, Pearson r of the binary entropies over items, then the unweighted
    mean over classes; any class with constant entropy makes the mean NaN (reference) unless
    ``skip_undefined=True``, which averages the defined classes and names the skipped ones in an
    :class:`UndefinedMetricWarning`. Constant entropies give NaN; fewer than 2 items raise
    ``ValueError`` (as scipy ``pearsonr``).
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
    """(K,) multilabel entropy correlation of every class (Kurniawan et al.): Pearson r over items of
    the binary entropies (bits) of ``P[:, k]`` and ``Q[:, k]``; NaN for a class whose entropy is
    constant in P or Q. The multilabel :func:`entropy_correlation` is their mean."""
    P, Q = _check(P, Q, min_rows=2)
    return np.atleast_1d(_pearson(normalised_entropy(P, multilabel=True),
                                  normalised_entropy(Q, multilabel=True)))


# ------------------------------------------------------------------------ LeWiDi metrics
def lewidi_cross_entropy(P: np.ndarray, Q: np.ndarray, *, multilabel: bool = False) -> float:
    """LeWiDi 2023 cross-entropy (Kurniawan et al.): ``Q`` clipped to ``[1e-12, 1 - 1e-12]``, then
    ``CE = -(1/N) sum_i sum_k P_ik ln(Q_ik + 1e-9)`` (nats, lower is better). Equals
    ``H(P) + KL(P‖Q)`` up to the clipping, so it never reaches 0 on ambiguous items."""
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
    """LeWiDi 2025 average Manhattan distance (LeWiDi 2025 Task A, lower is better): mean over items of
    ``sum_k |P_ik - Q_ik|``, each item and the mean rounded to ``decimals`` (5 in the organisers'
    notebook; ``None`` = no rounding). Multilabel (VariErrNLI): per item the mean over labels of
    the Manhattan distance between the binary distributions ``(p, 1-p)`` and ``(q, 1-q)``. For
    normalised multiclass rows it equals ``2 (1 - soft accuracy)`` (without rounding)."""
    P, Q = _check(P, Q, multilabel=multilabel)
    d = _per_item_manhattan(P, Q, multilabel)
    if decimals is None:
        return float(d.mean())
    return float(np.round(np.round(d, decimals).mean(), decimals))


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
    """LeWiDi 2025 average Wasserstein distance for ordinal labels (LeWiDi 2025 Task A, lower is better):
    per item the 1-D earth mover's distance ``sum_k |CDF_P(k) - CDF_Q(k)| * (v_{k+1} - v_k)``
    between bins at positions ``values`` (default 0, 1, ..., K-1, i.e. ground cost |h - k|);
    mean over items rounded to ``decimals`` (``None`` = no rounding)."""
    P, Q = _check(P, Q)
    d = _per_item_wasserstein(P, Q, None if values is None else np.asarray(values, float))
    return float(d.mean()) if decimals is None else float(np.round(d.mean(), decimals))


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
    """Every metric of Kurniawan et al. for one model, as a flat ``{name: float}`` dict.

    Multiclass: ``hard_accuracy, hard_micro_f1, hard_macro_f1, soft_accuracy, soft_micro_f1,
    soft_macro_f1, po_jsd, entropy_correlation``. Multilabel: ``hard_micro_f1, hard_macro_f1,
    soft_micro_f1, soft_macro_f1, po_jsd, entropy_correlation`` (multilabel definitions). Undefined values are NaN (entropy correlation with fewer than 2 items is NaN here
    instead of raising); ``skip_undefined`` as in :func:`soft_prfs`. ``lewidi=True`` adds
    ``lewidi_manhattan`` and, for multiclass, ``lewidi_cross_entropy`` (and
    ``lewidi_wasserstein`` when ``ordinal_values`` is given), unrounded.
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
    """Plain-language notes on every metric that is undefined (NaN) for these inputs and why,
    naming the classes involved (``docs/conventions.md``). Empty when everything is defined."""
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
    """Why ``value`` of ``metric`` is undefined, from :func:`undefined_notes` (the notes naming
    the metric, else all of them); empty when ``value`` is a number. For tables and downloads:
    every NaN shown carries its reason."""
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
    """Per-item value of every item-decomposable metric (means of these columns give the
    dataset metrics).

    Columns: ``hard_correct`` (multiclass: argmax match; multilabel: the >0.5 sets are equal),
    ``soft_overlap`` (``sum_k min(P_ik, Q_ik)``; multiclass soft accuracy is its mean),
    ``jsd`` (bits; multilabel: mean over labels of the binary JSD), ``po_jsd`` (``1 - jsd``),
    ``entropy_p``, ``entropy_q`` (normalised; multilabel: mean binary entropy over labels),
    ``manhattan`` (LeWiDi 2025, unrounded), ``cross_entropy`` (LeWiDi 2023, multiclass) and
    ``wasserstein`` (when ``ordinal_values`` is given).
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
    """Tidy class-wise table: one row per (kind in hard/soft, label) with ``precision, recall,
    f1, support`` (hard support = count of true items, soft support = judgement mass) and
    ``note`` (why a value is undefined; empty when all are defined)."""
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
    """Percentile bootstrap confidence intervals over items for every :func:`evaluate` metric.

    Each of ``n_boot`` resamples draws N items with replacement (``numpy.random.default_rng
    (seed)``); metrics are computed for all resamples at once from item-level sums weighted by
    the draw counts (vectorised over resamples, processed in memory-bounded chunks).
    ``lewidi`` and ``ordinal_values`` add the LeWiDi distances as in :func:`evaluate`.
    Returns a DataFrame indexed by metric with ``value`` (the point estimate), ``lower``,
    ``upper``, ``sd`` (bootstrap standard deviation), ``n_valid`` (resamples where the metric is
    defined), ``n_boot``, ``seed`` and ``level``. Resamples where a metric is undefined are
    left out of its interval.
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
