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
    """Maximum-likelihood human label distribution ``H = C / sum_k C_k`` (Baan et al., sec. 4)."""
    C = _counts(C)
    return C / C.sum(axis=1, keepdims=True)


def _ranks(X: np.ndarray) -> np.ndarray:
    """Class order of every row by a stable ascending sort (ties: lower index ranks lower)."""
    return np.argsort(X, axis=1, kind="stable")


# --------------------------------------------------------------------- instance metrics
def dist_ce_per_item(C, Q) -> np.ndarray:
    """(N,) total variation distance ``TVD(Q_i, H_i) = 1/2 sum_k |Q_ik - H_ik|``."""
    H = human_distribution(C)
    Q = _probs(Q, H.shape)
    return np.abs(Q - H).sum(axis=1) / 2


def dist_ce(C, Q) -> float:
    """DistCE (Baan et al., sec. 5): mean over items of ``TVD(Q_i, H_i)``. Lower is better."""
    return float(dist_ce_per_item(C, Q).mean())


def _entropy(X: np.ndarray) -> np.ndarray:
    """Natural-log entropy of every row after normalising it (as ``scipy.stats.entropy``)."""
    P = X / X.sum(axis=1, keepdims=True)
    return special.entr(P).sum(axis=1)


def ent_ce(C, Q, *, signed: bool = False) -> float:
    """EntCE (Baan et al., sec. 5): mean over items of ``|Ent(Q_i) - Ent(H_i)|`` (nats,
    0 log 0 = 0). ``signed=True``: mean of ``Ent(Q_i) - Ent(H_i)`` (positive = the model is
    more uncertain than the humans)."""
    H = human_distribution(C)
    Q = _probs(Q, H.shape)
    diff = _entropy(Q) - _entropy(H)
    return float((diff if signed else np.abs(diff)).mean())


def rank_cs(C, Q) -> float:
    """RankCS (Baan et al., sec. 5; the code's README spells it RankSC): share of items whose
    whole class ranking under Q equals the ranking under the human counts C (stable ascending
    sort: ties rank the lower class index lower). Higher is better."""
    C = _counts(C)
    Q = _probs(Q, C.shape)
    return float((_ranks(Q) == _ranks(C)).all(axis=1).mean())


def human_topk_accuracy(C, Q, k: int = 1) -> float:
    """Share of items where the class ranked k-th under Q equals the class ranked k-th under
    C (Baan et al., sec. 5; rank convention of :func:`rank_cs`, so a human top tie goes to the
    highest class index). k = 1 is accuracy against the human majority. This compares the
    k-th ranked classes, not membership in a top-k set."""
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
    """The reliability diagram behind :func:`ece`: one row per non-empty bin with ``bin, lower,
    upper, n, confidence`` (mean max probability) and ``accuracy`` (share whose argmax equals
    the human majority, lowest index on ties)."""
    C = _counts(C)
    Q = _probs(Q, C.shape)
    y = _labels(C if labels is None else labels, C.shape[0])
    return _binned(Q.max(axis=1), np.argmax(Q, axis=1) == y, n_bins)


def ece(C, Q, *, n_bins: int = 10, labels=None) -> float:
    """Confidence ECE against the human majority (Guo et al. 2017; Baan et al., sec. 3):
    confidence = ``max_k Q_ik``, prediction = argmax Q_i, label = argmax C_i (lowest index on
    ties; or ``labels``: (N,) class indices or another (N, K) count matrix, e.g. the original
    5 votes). ``ECE = sum_b (n_b / n) |mean conf_b - acc_b|`` over the non-empty equal-width
    bins (a, b]; items with confidence 0 fall in no bin."""
    return _ece_from_bins(reliability_table(C, Q, n_bins=n_bins, labels=labels))


def classwise_ece(C, Q, k: int, *, n_bins: int = 10, labels=None) -> float:
    """Class-wise ECE of class k: the binning of :func:`ece` with confidence ``Q_ik`` and
    correctness ``[label_i = k]``."""
    C = _counts(C)
    Q = _probs(Q, C.shape)
    y = _labels(C if labels is None else labels, C.shape[0])
    return _ece_from_bins(_binned(Q[:, k], y == k, n_bins))


def macro_f1(C, Q) -> float:
    """Macro F1 of argmax Q against argmax C (lowest index on ties), over the classes present
    in either (as sklearn ``f1_score(average="macro")``)."""
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
    """Split every item's votes into disjoint random blocks of ``size`` (Baan et al., sec. 4,
    Figure 2 / Table 2): for each item **in row order**, list its votes class by class, permute
    the positions as ``rng.shuffle(numpy.arange(total))`` would, and cut consecutive blocks.
    Returns (S, N, K) counts, S = total / size. Every item must have the same total, divisible
    by ``size`` (else ``ValueError``). With a ``numpy.random.Generator`` the N shuffles run as
    one ``permuted`` call, which consumes the stream exactly like the per-item shuffles."""
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
    """(S,) ECE of Q against the argmax of every block of :func:`subsample_votes`."""
    samples = np.asarray(samples)
    return np.array([ece(S, Q, n_bins=n_bins) for S in samples])  # S blocks (a handful)


# -------------------------------------------------------------------------- temperature
def temperature_scale(z, T: float = 1.0) -> np.ndarray:
    """``softmax(z / T)`` row-wise (Guo et al. 2017). The paper's "TS" rows use a **fixed**
    T = 2 (Baan et al., Table 1); nothing is fitted."""
    if not T > 0:
        raise ValueError("the temperature must be > 0.")
    z = np.asarray(z, dtype=float)
    if z.ndim != 2 or not np.isfinite(z).all():
        raise ValueError("logits must be a finite (items x labels) matrix.")
    return special.softmax(z / T, axis=1)


def fit_temperature(z, C, *, target: str = "soft", bounds=(0.05, 20.0)) -> dict:
    """HLV Lens extension (not in the paper): the temperature minimising the negative
    log-likelihood of ``softmax(z / T)`` on the items given, against the human distribution
    (``target="soft"``: cross-entropy to H) or the human majority (``target="majority"``).
    Fit it on a development split, never on the items you then evaluate. Returns
    ``{"temperature", "nll", "target", "n_items"}``."""
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
    """Every measure of Baan et al. (sections 4-5) for one model, as ``{name: float}`` (keys:
    :data:`CALIBRATION_METRICS`; ``top2``/``top3`` only when there are that many labels).
    ``labels`` (optional): what ECE compares with instead of the majority of C."""
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
    out["f1_macro"] = macro_f1(C, Q)
    return out


def calibration_table(C, models: dict[str, np.ndarray], *, n_bins: int = 10,
                      oracle: bool = True) -> pd.DataFrame:
    """Models x measures table of :func:`evaluate_calibration`; ``oracle=True`` adds the row
    ``Q = H`` (DistCE 0, EntCE 0, RankCS 1, top-1 1, but ECE > 0 on ambiguous items)."""
    rows = {name: evaluate_calibration(C, Q, n_bins=n_bins) for name, Q in models.items()}
    if oracle:
        rows["oracle (Q = human distribution)"] = evaluate_calibration(
            C, human_distribution(C), n_bins=n_bins)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "model"
    return frame
