"""Calibration to the human label distribution (Baan, Aziz, Plank & Fernandez, "Stop Measuring
Calibration When Humans Disagree", EMNLP 2022, arXiv 2210.16133, sections 4-5).

Shapes: ``C`` (N, K) human vote counts (every row > 0 votes; columns in inventory order),
``Q`` (N, K) model probabilities (rows sum to 1 within 1e-6), ``z`` (N, K) logits. The human
distribution is the maximum-likelihood estimate ``H = C / row sum``. Everything is vectorised
over items; the defaults reproduce the authors' reference code, including its two tie rules:

* **rank convention** (DistCE-free measures RankCS and human top-k accuracy): the ranking of a
  row is a *stable ascending* sort, so among tied values the lower class index ranks lower and
  the top-ranked class of a tie is the **highest** index;
* **argmax convention** (ECE, macro F1): ties go to the **lowest** index.

ECE against the human majority punishes a model that matches the human distribution exactly
(the "oracle" ``Q = H`` has DistCE 0 but ECE > 0), which is the paper's point.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, special

__all__ = [
    "CALIBRATION_METRICS",
    "calibration_table",
    "classwise_ece",
    "dist_ce",
    "dist_ce_per_item",
    "ece",
    "ece_against_samples",
    "ent_ce",
    "evaluate_calibration",
    "fit_temperature",
    "human_distribution",
    "human_topk_accuracy",
    "macro_f1",
    "rank_cs",
    "reliability_table",
    "subsample_votes",
    "temperature_scale",
]

SUM_TOLERANCE = 1e-6

#: Keys of :func:`evaluate_calibration` -> (higher is better, plain description).
CALIBRATION_METRICS: dict[str, tuple[bool, str]] = {
    "dist_ce": (False, "DistCE: mean total variation distance between model and human "
                       "distributions"),
    "ent_ce": (False, "EntCE: mean |entropy(model) - entropy(humans)| (nats)"),
    "ent_ce_signed": (False, "signed EntCE: > 0 = the model is more uncertain than the humans"),
    "rank_cs": (True, "RankCS: share of items whose whole class ranking matches the humans'"),
    "top1": (True, "human top-1 accuracy: the model's first class = the humans' first class"),
    "top2": (True, "the model's second class = the humans' second class"),
    "top3": (True, "the model's third class = the humans' third class"),
    "ece": (False, "ECE against the human majority label (confidence, equal-width bins)"),
    "classwise_ece_k": (False, "class-wise ECE of class index k: confidence Q_ik against "
                               "[majority = k] (one key per class)"),
    "f1_macro": (True, "macro F1 of the model's argmax against the human majority"),
}


# ------------------------------------------------------------------------------ inputs
def _counts(C) -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim != 2 or C.shape[1] < 1:
        raise ValueError(f"human counts must be an (items x labels) matrix; got shape {C.shape}.")
    if not np.isfinite(C).all() or (C < 0).any():
        raise ValueError("human counts must be finite and non-negative.")
    empty = np.flatnonzero(C.sum(axis=1) <= 0)
    if empty.size:
        raise ValueError(f"item row {int(empty[0])} has no human vote ({empty.size} such "
                         "row(s)); every item needs at least one vote.")
    return C


def _probs(Q, shape: tuple[int, int] | None = None) -> np.ndarray:
    Q = np.asarray(Q, dtype=float)
    if Q.ndim != 2:
        raise ValueError(f"model probabilities must be (items x labels); got shape {Q.shape}.")
    if shape is not None and Q.shape != shape:
        raise ValueError(f"model probabilities have shape {Q.shape}; the human counts have "
                         f"{shape} (same items and labels, same order).")
    if not np.isfinite(Q).all() or (Q < 0).any() or (Q > 1 + SUM_TOLERANCE).any():
        raise ValueError("model probabilities must be finite numbers in [0, 1].")
    sums = Q.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > SUM_TOLERANCE)
    if bad.size:
        raise ValueError(f"model probabilities of item row {int(bad[0])} sum to "
                         f"{sums[bad[0]]:.6g}, not 1 ({bad.size} row(s) affected); pass "
                         "distributions (softmax outputs) or logits with a temperature.")
    return Q


def human_distribution(C) -> np.ndarray:
    r"""Maximum-likelihood human label distribution.

    .. math:: H_{ik} = \frac{C_{ik}}{\sum_l C_{il}}

    Baan et al. (2022), section 4.

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts.

    Returns
    -------
    ndarray of shape (N, K)

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 4.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(human_distribution(C)[0])
    [0.75 0.25 0.  ]
    """
    C = _counts(C)
    return C / C.sum(axis=1, keepdims=True)


def _ranks(X: np.ndarray) -> np.ndarray:
    """Class order of every row by a stable ascending sort (ties: lower index ranks lower)."""
    return np.argsort(X, axis=1, kind="stable")


# --------------------------------------------------------------------- instance metrics
def dist_ce_per_item(C, Q) -> np.ndarray:
    r"""Total variation distance between model and human distribution of every item.

    .. math:: \mathrm{TVD}(Q_i, H_i) = \tfrac12 \sum_k |Q_{ik} - H_{ik}|

    Baan et al. (2022), section 5 (DistCE before the mean over items).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).

    Returns
    -------
    ndarray of shape (N,)

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(dist_ce_per_item(C, Q).round(3))
    [0.1 0.1 0.1]
    """
    H = human_distribution(C)
    Q = _probs(Q, H.shape)
    return np.abs(Q - H).sum(axis=1) / 2


def dist_ce(C, Q) -> float:
    r"""DistCE: mean total variation distance between model and human distributions.

    .. math:: \mathrm{DistCE} = \frac{1}{N} \sum_i \tfrac12 \sum_k |Q_{ik} - H_{ik}|

    Baan et al. (2022), section 5. Lower is better; 0 for the oracle Q = H.

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(dist_ce(C, Q), 4))
    0.1
    """
    return float(dist_ce_per_item(C, Q).mean())


def _entropy(X: np.ndarray) -> np.ndarray:
    """Natural-log entropy of every row after normalising it (as ``scipy.stats.entropy``)."""
    P = X / X.sum(axis=1, keepdims=True)
    return special.entr(P).sum(axis=1)


def ent_ce(C, Q, *, signed: bool = False) -> float:
    r"""EntCE: mean absolute difference between model and human entropies.

    .. math:: \mathrm{EntCE} = \frac{1}{N} \sum_i \big|\mathrm{Ent}(Q_i) - \mathrm{Ent}(H_i)\big|,
       \quad \mathrm{Ent}(p) = -\sum_k p_k \ln p_k

    Baan et al. (2022), section 5 (nats, 0 log 0 = 0). ``signed=True``: the mean of the signed
    difference (positive = the model is more uncertain than the humans).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).
    signed : bool, default False

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(ent_ce(C, Q), 4))
    0.1796
    """
    H = human_distribution(C)
    Q = _probs(Q, H.shape)
    diff = _entropy(Q) - _entropy(H)
    return float((diff if signed else np.abs(diff)).mean())


def rank_cs(C, Q) -> float:
    r"""RankCS: share of items whose whole class ranking under Q equals the humans'.

    .. math:: \mathrm{RankCS} = \frac{1}{N} \sum_i \mathbb{1}\big[\mathrm{argsort}(Q_i) = \mathrm{argsort}(C_i)\big]

    Baan et al. (2022), section 5 (the code's README spells it RankSC); rankings by stable
    ascending sort, so among ties the lower class index ranks lower (reference convention).
    Higher is better.

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(rank_cs(C, Q), 4))
    0.6667
    """
    C = _counts(C)
    Q = _probs(Q, C.shape)
    return float((_ranks(Q) == _ranks(C)).all(axis=1).mean())


def human_topk_accuracy(C, Q, k: int = 1) -> float:
    r"""Share of items where the class ranked k-th under Q is the class ranked k-th by the humans.

    .. math:: \mathrm{top}k = \frac{1}{N} \sum_i \mathbb{1}\big[r_k(Q_i) = r_k(C_i)\big]

    Baan et al. (2022), section 5; k = 1 is accuracy against the human majority (a human top tie
    goes to the highest class index, the rank convention of :func:`rank_cs`). Compares the k-th
    ranked classes, not membership in a top-k set.

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).
    k : int, default 1

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(human_topk_accuracy(C, Q), 4))
    0.6667
    """
    C = _counts(C)
    Q = _probs(Q, C.shape)
    if not 1 <= k <= C.shape[1]:
        raise ValueError(f"k must be between 1 and the number of labels ({C.shape[1]}).")
    return float((_ranks(Q)[:, -k] == _ranks(C)[:, -k]).mean())


# -------------------------------------------------------------------------------- ECE
def _labels(labels, n: int) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim == 2:
        return np.argmax(_counts(labels), axis=1)  # lowest index on ties
    if labels.shape != (n,):
        raise ValueError(f"labels must be (N,) class indices or (N, K) counts for N = {n}.")
    return labels.astype(np.int64)


def _binned(conf: np.ndarray, correct: np.ndarray, n_bins: int) -> pd.DataFrame:
    """Equal-width bins (a, b] with edges ``linspace(0, 1, n_bins + 1)``; confidence 0 falls in
    no bin; empty bins dropped."""
    if n_bins < 1:
        raise ValueError("n_bins must be >= 1.")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    idx = np.searchsorted(edges, conf, side="left")  # edges[i-1] < conf <= edges[i]
    inside = (idx >= 1) & (idx <= n_bins)
    b = idx[inside] - 1
    n = np.bincount(b, minlength=n_bins)
    s_conf = np.bincount(b, weights=conf[inside], minlength=n_bins)
    s_acc = np.bincount(b, weights=correct[inside].astype(float), minlength=n_bins)
    keep = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        frame = pd.DataFrame({"bin": np.arange(n_bins), "lower": edges[:-1], "upper": edges[1:],
                              "n": n, "confidence": s_conf / n, "accuracy": s_acc / n})
    return frame[keep].reset_index(drop=True)


def _ece_from_bins(bins: pd.DataFrame) -> float:
    if bins.empty:
        return float("nan")
    w = bins["n"].to_numpy(float)
    gap = np.abs(bins["confidence"].to_numpy() - bins["accuracy"].to_numpy())
    return float((gap * w).sum() / w.sum())


def reliability_table(C, Q, *, n_bins: int = 10, labels=None) -> pd.DataFrame:
    r"""The reliability diagram behind :func:`ece`: one row per non-empty bin.

    .. math:: \mathrm{ECE} = \sum_b \frac{n_b}{n} \big|\overline{\mathrm{conf}}_b - \mathrm{acc}_b\big|,
       \quad \mathrm{conf}_i = \max_k Q_{ik}

    Guo et al. (2017), section 2 (reliability diagrams); accuracy against the human majority as
    in Baan et al. (2022), section 3 (argmax, lowest index on ties).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).
    n_bins : int, default 10
        Equal-width bins (a, b].
    labels : array_like, optional
        (N,) class indices or another (N, K) count matrix to compare with.

    Returns
    -------
    pandas.DataFrame
        ``bin, lower, upper, n, confidence, accuracy``.

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 3.
    .. [2] Guo, Pleiss, Sun and Weinberger (2017). "On Calibration of Modern Neural Networks".
       ICML 2017, section 2 (ECE, reliability diagrams) and 4.2 (temperature scaling).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(reliability_table(C, Q, n_bins=5)[["bin", "n", "confidence"]].to_string(index=False))
     bin  n  confidence
       1  1         0.4
       2  1         0.5
       3  1         0.7
    """
    C = _counts(C)
    Q = _probs(Q, C.shape)
    y = _labels(C if labels is None else labels, C.shape[0])
    return _binned(Q.max(axis=1), np.argmax(Q, axis=1) == y, n_bins)


def ece(C, Q, *, n_bins: int = 10, labels=None) -> float:
    r"""Confidence ECE against the human majority label.

    .. math:: \mathrm{ECE} = \sum_b \frac{n_b}{n} \big|\overline{\mathrm{conf}}_b - \mathrm{acc}_b\big|,
       \quad \mathrm{conf}_i = \max_k Q_{ik}

    Guo et al. (2017), section 2; Baan et al. (2022), section 3: prediction = argmax Q, label =
    argmax C (lowest index on ties) or ``labels``; equal-width bins (a, b], items with confidence
    0 fall in no bin. The oracle Q = H has DistCE 0 but ECE > 0 on ambiguous items (the paper's
    point).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).
    n_bins : int, default 10
    labels : array_like, optional
        (N,) class indices or an (N, K) count matrix.

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 3.
    .. [2] Guo, Pleiss, Sun and Weinberger (2017). "On Calibration of Modern Neural Networks".
       ICML 2017, section 2 (ECE, reliability diagrams) and 4.2 (temperature scaling).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(ece(C, Q, n_bins=5), 4))
    0.4667
    """
    return _ece_from_bins(reliability_table(C, Q, n_bins=n_bins, labels=labels))


def classwise_ece(C, Q, k: int, *, n_bins: int = 10, labels=None) -> float:
    r"""Class-wise ECE of class k.

    .. math:: \mathrm{ECE}_k = \sum_b \frac{n_b}{n} \big|\overline{Q_{\cdot k}}_b - \overline{\mathbb{1}[y = k]}_b\big|

    the binning of :func:`ece` with confidence :math:`Q_{ik}` and correctness
    :math:`[y_i = k]` (Baan et al. 2022, section 3; Guo et al. 2017, section 2).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).
    k : int
        Class index.
    n_bins : int, default 10
    labels : array_like, optional

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 3.
    .. [2] Guo, Pleiss, Sun and Weinberger (2017). "On Calibration of Modern Neural Networks".
       ICML 2017, section 2 (ECE, reliability diagrams) and 4.2 (temperature scaling).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(classwise_ece(C, Q, 0, n_bins=5), 4))
    0.2333
    """
    C = _counts(C)
    Q = _probs(Q, C.shape)
    y = _labels(C if labels is None else labels, C.shape[0])
    return _ece_from_bins(_binned(Q[:, k], y == k, n_bins))


def macro_f1(C, Q) -> float:
    r"""Macro F1 of argmax Q against the human majority argmax C.

    .. math:: F_1^{M} = \frac{1}{|K'|} \sum_{k \in K'} \frac{2\,TP_k}{2\,TP_k + FP_k + FN_k}

    over the classes present in either (sklearn ``average="macro"``); lowest index on ties.
    Baan et al. (2022), section 5 (the accuracy-style baseline of their tables).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).

    Returns
    -------
    float

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(macro_f1(C, Q))
    1.0
    """
    C = _counts(C)
    Q = _probs(Q, C.shape)
    y, p = np.argmax(C, axis=1), np.argmax(Q, axis=1)
    K = C.shape[1]
    tp = np.bincount(y[y == p], minlength=K).astype(float)
    t = np.bincount(y, minlength=K)
    r = np.bincount(p, minlength=K)
    present = (t + r) > 0
    f1 = 2 * tp[present] / (t[present] + r[present])
    return float(f1.mean())


# ------------------------------------------------------------------- human "classifiers"
def subsample_votes(C, size: int, rng) -> np.ndarray:
    r"""Split every item's votes into disjoint random blocks of ``size`` votes.

    .. math:: C^{(s)}_{ik} = \#\{\text{votes of item } i \text{ for } k \text{ in block } s\},
       \quad s = 1, \dots, \mathrm{total} / \mathrm{size}

    Baan et al. (2022), section 4, Figure 2 and Table 2 ("human classifiers"): per item in row
    order, its votes listed class by class are permuted as ``rng.shuffle(numpy.arange(total))``
    would and cut into consecutive blocks. Every item must have the same total, divisible by
    ``size``.

    Parameters
    ----------
    C : array_like of shape (N, K)
    size : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (S, N, K)

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 4, Figure 2, Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> blocks = subsample_votes(np.array([[3, 1], [2, 2]]), 2, np.random.default_rng(0))
    >>> print(blocks.shape, blocks.sum(axis=2).tolist())
    (2, 2, 2) [[2, 2], [2, 2]]
    """
    C = np.asarray(C)
    if C.ndim != 2 or not np.issubdtype(C.dtype, np.integer) and not np.all(np.round(C) == C):
        raise ValueError("subsample_votes needs (items x labels) whole vote counts.")
    C = C.astype(np.int64)
    totals = C.sum(axis=1)
    if totals.size == 0 or (totals != totals[0]).any():
        raise ValueError("every item must have the same number of votes to cut equal blocks.")
    T = int(totals[0])
    if size < 1 or T % size:
        raise ValueError(f"the {T} votes per item are not divisible into blocks of {size}.")
    N, K = C.shape
    votes = np.repeat(np.tile(np.arange(K), N), C.ravel()).reshape(N, T)
    order = np.tile(np.arange(T), (N, 1))
    if hasattr(rng, "permuted"):
        order = rng.permuted(order, axis=1)
    else:  # legacy RandomState: the same per-item shuffles, one call each
        for row in order:
            rng.shuffle(row)
    blocks = np.take_along_axis(votes, order, axis=1).reshape(N, T // size, size)
    counts = (blocks[..., None] == np.arange(K)).sum(axis=2)  # (N, S, K)
    return counts.swapaxes(0, 1)


def ece_against_samples(samples, Q, *, n_bins: int = 10) -> np.ndarray:
    r"""ECE of Q against the majority of every vote block of :func:`subsample_votes`.

    .. math:: \mathrm{ECE} = \sum_b \frac{n_b}{n} \big|\overline{\mathrm{conf}}_b - \mathrm{acc}_b\big|,
       \quad \mathrm{conf}_i = \max_k Q_{ik}

    with the label of block s, :math:`\arg\max_k C^{(s)}_{ik}` (Baan et al. 2022, section 4,
    Table 2).

    Parameters
    ----------
    samples : ndarray of shape (S, N, K)
    Q : array_like of shape (N, K)
    n_bins : int, default 10

    Returns
    -------
    ndarray of shape (S,)

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 4, Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> blocks = subsample_votes(np.array([[3, 1], [2, 2]]), 2, np.random.default_rng(0))
    >>> print(ece_against_samples(blocks, np.array([[.7, .3], [.4, .6]]), n_bins=5))
    [0.35 0.45]
    """
    samples = np.asarray(samples)
    return np.array([ece(S, Q, n_bins=n_bins) for S in samples])  # S blocks (a handful)


# -------------------------------------------------------------------------- temperature
def temperature_scale(z, T: float = 1.0) -> np.ndarray:
    r"""Temperature-scaled softmax of logits.

    .. math:: Q_{ik} = \frac{\exp(z_{ik} / T)}{\sum_l \exp(z_{il} / T)}

    Guo et al. (2017), section 4.2; the "TS" rows of Baan et al. (2022), Table 1, use a fixed
    T = 2 (nothing fitted).

    Parameters
    ----------
    z : array_like of shape (N, K)
        Logits.
    T : float, default 1.0

    Returns
    -------
    ndarray of shape (N, K)

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Table 1.
    .. [2] Guo, Pleiss, Sun and Weinberger (2017). "On Calibration of Modern Neural Networks".
       ICML 2017, section 2 (ECE, reliability diagrams) and 4.2 (temperature scaling).

    Examples
    --------
    >>> import numpy as np
    >>> print(temperature_scale(np.array([[2.0, 0.0, 0.0]]), 2).round(4))
    [[0.5761 0.2119 0.2119]]
    """
    if not T > 0:
        raise ValueError("the temperature must be > 0.")
    z = np.asarray(z, dtype=float)
    if z.ndim != 2 or not np.isfinite(z).all():
        raise ValueError("logits must be a finite (items x labels) matrix.")
    return special.softmax(z / T, axis=1)


def fit_temperature(z, C, *, target: str = "soft", bounds=(0.05, 20.0)) -> dict:
    r"""The temperature minimising the negative log-likelihood of the scaled softmax.

    .. math:: \hat T = \arg\min_T -\frac{1}{N} \sum_i \sum_k H_{ik} \ln \mathrm{softmax}(z_i / T)_k

    against the human distribution (``target="soft"``) or the one-hot majority
    (``"majority"``). An HLV Lens extension of Guo et al. (2017), section 4.2, not in Baan et al.;
    fit it on a development split, never on the items you then evaluate.

    Parameters
    ----------
    z : array_like of shape (N, K)
        Logits.
    C : array_like of shape (N, K)
        Human vote counts.
    target : {"soft", "majority"}, default "soft"
    bounds : tuple of float, default (0.05, 20.0)

    Returns
    -------
    dict
        ``temperature, nll, target, n_items``.

    References
    ----------
    .. [1] Guo, Pleiss, Sun and Weinberger (2017). "On Calibration of Modern Neural Networks".
       ICML 2017, section 2 (ECE, reliability diagrams) and 4.2 (temperature scaling).
    .. [2] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> print(round(fit_temperature(np.log(Q), C)["temperature"], 3))
    0.659
    """
    z = np.asarray(z, dtype=float)
    H = human_distribution(C)
    if target == "majority":
        H = np.eye(H.shape[1])[np.argmax(H, axis=1)]
    elif target != "soft":
        raise ValueError("target must be 'soft' or 'majority'.")

    def nll(log_t: float) -> float:
        logq = special.log_softmax(z / np.exp(log_t), axis=1)
        return float(-(H * logq).sum(axis=1).mean())

    res = optimize.minimize_scalar(nll, bounds=np.log(bounds), method="bounded")
    return {"temperature": float(np.exp(res.x)), "nll": float(res.fun), "target": target,
            "n_items": int(z.shape[0])}


# ------------------------------------------------------------------------------ summary
def evaluate_calibration(C, Q, *, n_bins: int = 10, labels=None) -> dict[str, float]:
    r"""Every calibration measure of Baan et al. for one model.

    .. math:: \mathrm{DistCE} = \frac{1}{N} \sum_i \mathrm{TVD}(Q_i, H_i), \quad
       \mathrm{EntCE} = \frac{1}{N} \sum_i |\mathrm{Ent}(Q_i) - \mathrm{Ent}(H_i)|, \quad
       \mathrm{RankCS}, \; \mathrm{top}k, \; \mathrm{ECE}

    Baan et al. (2022), sections 3-5 (see :func:`dist_ce`, :func:`ent_ce`, :func:`rank_cs`,
    :func:`human_topk_accuracy`, :func:`ece`, :func:`classwise_ece`); ``top2``/``top3`` only
    with that many labels, ``classwise_ece_k`` for every class index k (column order).

    Parameters
    ----------
    C : array_like of shape (N, K)
        Human vote counts (every row > 0), columns in inventory order.
    Q : array_like of shape (N, K)
        Model probabilities (rows sum to 1).
    n_bins : int, default 10
    labels : array_like, optional
        What ECE compares with instead of the majority of C.

    Returns
    -------
    dict of str to float
        Keys of :data:`CALIBRATION_METRICS`, with ``classwise_ece_0`` ... ``classwise_ece_{K-1}``
        after ``ece``.

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Sections 3-5.
    .. [2] Guo, Pleiss, Sun and Weinberger (2017). "On Calibration of Modern Neural Networks".
       ICML 2017, section 2 (ECE, reliability diagrams) and 4.2 (temperature scaling).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> {k: round(v, 3) for k, v in evaluate_calibration(C, Q, n_bins=5).items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'dist_ce': 0.1, 'ent_ce': 0.18, 'ent_ce_signed': 0.18, 'rank_cs': 0.667, 'top1': 0.667,
     'top2': 0.667, 'top3': 1.0, 'ece': 0.467, 'classwise_ece_0': 0.233, 'classwise_ece_1': 0.333,
     'classwise_ece_2': 0.1, 'f1_macro': 1.0}
    """
    C = _counts(C)
    Q = _probs(Q, C.shape)
    H = C / C.sum(axis=1, keepdims=True)
    rq, rc = _ranks(Q), _ranks(C)
    diff = _entropy(Q) - _entropy(H)
    out = {
        "dist_ce": float((np.abs(Q - H).sum(axis=1) / 2).mean()),
        "ent_ce": float(np.abs(diff).mean()),
        "ent_ce_signed": float(diff.mean()),
        "rank_cs": float((rq == rc).all(axis=1).mean()),
    }
    for k in range(1, min(3, C.shape[1]) + 1):
        out[f"top{k}"] = float((rq[:, -k] == rc[:, -k]).mean())
    out["ece"] = ece(C, Q, n_bins=n_bins, labels=labels)
    for k in range(C.shape[1]):
        out[f"classwise_ece_{k}"] = classwise_ece(C, Q, k, n_bins=n_bins, labels=labels)
    out["f1_macro"] = macro_f1(C, Q)
    return out


def calibration_table(C, models: dict[str, np.ndarray], *, n_bins: int = 10,
                      oracle: bool = True) -> pd.DataFrame:
    r"""Models x measures table of :func:`evaluate_calibration`, with the oracle row.

    .. math:: Q^{\mathrm{oracle}} = H: \; \mathrm{DistCE} = 0,\; \mathrm{EntCE} = 0,\;
       \mathrm{RankCS} = 1, \text{ but } \mathrm{ECE} > 0

    Baan et al. (2022), sections 3-5: ECE against the majority punishes a perfectly
    human-calibrated model.

    Parameters
    ----------
    C : array_like of shape (N, K)
    models : dict of str to ndarray of shape (N, K)
    n_bins : int, default 10
    oracle : bool, default True

    Returns
    -------
    pandas.DataFrame
        Indexed by model.

    References
    ----------
    .. [1] Baan, Aziz, Plank and Fernández (2022). "Stop Measuring Calibration When Humans
       Disagree". EMNLP 2022, arXiv:2210.16133. Sections 3-5.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 2]])
    >>> Q = np.array([[.7, .2, .1], [.1, .5, .4], [.3, .3, .4]])
    >>> table = calibration_table(C, {"m": Q}, n_bins=5)
    >>> print(table[["dist_ce", "ece"]].round(3).reset_index().to_string(index=False))
                              model  dist_ce   ece
                                  m      0.1 0.467
    oracle (Q = human distribution)      0.0 0.417
    """
    rows = {name: evaluate_calibration(C, Q, n_bins=n_bins) for name, Q in models.items()}
    if oracle:
        rows["oracle (Q = human distribution)"] = evaluate_calibration(
            C, human_distribution(C), n_bins=n_bins)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "model"
    return frame
