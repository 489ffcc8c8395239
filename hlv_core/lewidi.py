"""The LeWiDi shared-task scorer: official numbers for a submission file in one call
(the organisers' targets and rounding: ``docs/conventions.md``, LeWiDi scoring).

2025 (3rd edition; CSC, MP, Paraphrase, VariErrNLI), reproducing the organisers' evaluation
notebook ``Evaluation_LeWiDi_2025_Metrics.ipynb``:

=============  ===============================================  =====================================
dataset        Task A ``soft`` (target: gold ``soft_label``)    Task B ``pe`` (target: annotations)
=============  ===============================================  =====================================
MP             average Manhattan distance: per item             error rate: per item
               ``round5(sum_k |p_k - t_k|)``, mean rounded      ``round5(1 - (a - sum_j |t_j - p_j|)/a)``,
                                                                plain mean
VariErrNLI     per label ``round5(MD)``, per item               per label the MP error rate, plain mean
               ``round5(mean over labels)``, mean rounded       over labels, plain mean over items
CSC / Par      1-D Wasserstein distance (ground cost |h - k|),  ``(1/a) sum_j |t_j - p_j| / s``
               mean rounded (no per-item rounding)              (s = 6 CSC, 11 Par), plain mean
=============  ===============================================  =====================================

(``round5`` = round to 5 decimals as Python's ``round``; every score is lower-is-better.) Task B
targets are the gold ``annotations`` in the order of the dict keys (annotators = the keys, never
the ``annotators`` string, which repeats ids in VariErrNLI); VariErrNLI labels are per label a 0/1
vector over the annotators, labels in the order contradiction, entailment, neutral.

Deliberate deviations, each reported as a warning: gold or predicted CSC/Par distributions not
summing to 1 are renormalised before the Wasserstein distance (the notebook's optimal-transport
call refuses them); ties in the final rounding are decided on the exact (compensated) sum.
Refusals (:class:`~hlv_core.io.DataError`, one line naming file, line and fix): partial files,
unknown or repeated ids, wrong vector lengths with the likely cause (7-value CSC lines = bins
0..6, per-annotator VariErrNLI Task B layout, vectors built from VariErrNLI's repeated
``annotators`` string, Task B file scored as Task A), non-numeric values, probabilities outside
[0, 1].

2023 (SemEval Task 11; HS-Brexit, ArMIS, ConvAbuse, MD-Agreement), as the starting kit:
``<Dataset>_results.tsv`` lines ``hard_label<TAB>p0<TAB>p1`` in the gold file's item order; task
``soft``: cross-entropy ``-(1/N) sum_i sum_k t_ik ln(clip(p_ik, 1e-12, 1 - 1e-12) + 1e-9)``
against the gold ``soft_label`` (lower is better); task ``hard``: sklearn micro F1 against the
gold ``hard_label`` (= accuracy for single-label data; higher is better).

A Codabench ``res.zip`` is scored TSV by TSV (``__MACOSX/`` and ``._*`` entries ignored), one
result per (dataset, task). Bootstrap confidence intervals over items (:func:`bootstrap_ci`) and a
paired bootstrap test between two systems (:func:`paired_bootstrap`) use per-item values
(:func:`score_items`); :func:`leaderboard` combines them for several systems.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any, NamedTuple

import numpy as np
import pandas as pd

from .io import (
    InflateBudget,
    Source,
    as_source,
    check_parse_memory,
    decode_text,
    open_zip,
    parse_json,
    read_member,
)
from .io.errors import DataError
from .io.lewidi_submission import parse_submission_lines
from .io.spelling import describe_change, normalise_spelling, respell_unique, spelling_changes

__all__ = [
    "DATASETS_2025",
    "DATASETS_2023",
    "LewidiGold",
    "ScoreResult",
    "load_gold",
    "score",
    "score_results",
    "score_items",
    "round_half",
    "manhattan_distance",
    "manhattan_items",
    "multilabel_manhattan_items",
    "wasserstein_distance",
    "wasserstein_items",
    "error_rate_items",
    "multilabel_error_rate_items",
    "absolute_distance_items",
    "cross_entropy_items",
    "official_mean",
    "bootstrap_ci",
    "paired_bootstrap",
    "leaderboard",
    "item_differences",
    "demo_files",
    "task_from_name",
    "Refusal",
    "score_members",
    "default_system_name",
]

#: 2025 datasets: soft-label bins (Task A order), metric names and the Task B scale.
DATASETS_2025: dict[str, dict[str, Any]] = {
    "CSC": {"bins": tuple(range(1, 7)), "soft": "average_wasserstein",
            "pe": "normalised_absolute_distance", "scale": 6},
    "MP": {"bins": (0, 1), "soft": "average_manhattan", "pe": "error_rate", "scale": None},
    "Paraphrase": {"bins": tuple(range(-5, 6)), "soft": "average_wasserstein",
                   "pe": "normalised_absolute_distance", "scale": 11},
    "VariErrNLI": {"bins": (0, 1), "labels": ("contradiction", "entailment", "neutral"),
                   "soft": "multilabel_average_manhattan", "pe": "multilabel_error_rate",
                   "scale": None},
}
#: 2023 datasets (file-name prefix, lower case -> name).
DATASETS_2023 = {"hs-brexit": "HS-Brexit", "hsbrexit": "HS-Brexit", "armis": "ArMIS",
                 "convabuse": "ConvAbuse", "md-agreement": "MD-Agreement",
                 "mdagreement": "MD-Agreement"}
_PREFIX_2025 = {"csc": "CSC", "mp": "MP", "multipico": "MP", "par": "Paraphrase",
                "paraphrase": "Paraphrase", "ven": "VariErrNLI", "varierrnli": "VariErrNLI",
                "varierr": "VariErrNLI"}
_HIGHER_IS_BETTER = {"micro_f1"}
_SUM_TOLERANCE = 1e-6  # gold soft labels
_PRED_SUM_TOLERANCE = 1e-5  # predictions (6-decimal rounding of K <= 11 bins stays below)


# ------------------------------------------------------------------------------- rounding
def round_half(x: np.ndarray, decimals: int = 5) -> np.ndarray:
    """Round like Python's ``round(x, decimals)`` (the organisers' notebook), vectorised.

    ``np.round`` rounds ``fl(x * 10**d)``, which can land on the other side of a half-way point
    than the exact binary value of ``x`` (e.g. 6-decimal predictions ending in 5). Here the
    product is split exactly (Dekker's two-product: ``x * s = hi + lo``) and the exact value is
    compared with ``k + 1/2``; exact ties (dyadic values such as 0.796875) go to the even
    neighbour, as Python does.

    Parameters
    ----------
    x : numpy.ndarray
        Values of any shape (NaN and infinities pass through unchanged).
    decimals : int, default 5
        Number of decimals (LeWiDi 2025 rounds to 5).

    Returns
    -------
    numpy.ndarray
        Float array of the shape of ``x``, each value equal to ``round(float(v), decimals)``.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    ``0.123455`` is stored just below the half-way point, so Python (and this function) round
    down where ``np.round`` rounds up:

    >>> import numpy as np
    >>> float(np.round(0.123455, 5)), float(round_half(np.array([0.123455]))[0])
    (0.12346, 0.12345)
    """
    x = np.asarray(x, dtype=float)
    s = float(10**decimals)
    with np.errstate(invalid="ignore", over="ignore"):
        hi = x * s
        c = 134217729.0 * x  # 2**27 + 1: split x into 26 + 27 bit halves (s has < 26 bits)
        x_hi = c - (c - x)
        x_lo = x - x_hi
        lo = (x_hi * s - hi) + x_lo * s  # exact error of the product
        k = np.floor(hi)
        excess = ((hi - k) - 0.5) + lo  # sign of (exact x * s) - (k + 1/2)
        up = (excess > 0) | ((excess == 0) & (np.fmod(k, 2) != 0))  # exact ties: half to even
        out = (k + up) / s
    return np.where(np.isfinite(x), out, x)


def official_mean(values: np.ndarray, metric: str) -> float:
    """Aggregate per-item values as the LeWiDi organisers do.

    Task A distances (metric names starting ``average_`` or ``multilabel_average``) report the
    mean rounded to 5 decimals, ``round5((1/N) sum_i v_i)``; every other metric the plain mean.
    The mean uses an exact (compensated, ``math.fsum``) sum, so a final rounding that falls on a
    half-way point is decided on the exact mean rather than on summation order.

    Parameters
    ----------
    values : numpy.ndarray
        Per-item values, shape (N,), N >= 1.
    metric : str
        The metric name of :data:`DATASETS_2025` (``"average_manhattan"``, ``"error_rate"``...).

    Returns
    -------
    float
        The official score.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([0.1, 0.2, 0.30001])
    >>> official_mean(v, "average_manhattan"), round(official_mean(v, "error_rate"), 8)
    (0.2, 0.20000333)
    """
    values = np.asarray(values, dtype=float)
    mean = math.fsum(values.tolist()) / values.size
    return float(round(mean, 5)) if metric.startswith(("average_", "multilabel_average")) else mean


# ----------------------------------------------------------------------- per-item metrics
def manhattan_distance(P: np.ndarray, T: np.ndarray) -> np.ndarray:
    """The one Manhattan distance of HLV Lens (LeWiDi 2025 Task A).

    ``d_i = sum_k |P_ik - T_ik|`` over the last axis, summed left to right as the organisers'
    notebook does, unrounded; rows are taken as written (the organisers do not renormalise).
    The same distance backs :func:`hlv_core.soft_metrics.lewidi_manhattan`.

    Parameters
    ----------
    P, T : numpy.ndarray
        Predicted and target distributions, shape (..., K), the same shape.

    Returns
    -------
    numpy.ndarray
        Distances, shape (...) (the last axis summed away).

    See Also
    --------
    manhattan_items : the per-item official value (rounded to 5 decimals).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.3, 0.7], [0.5, 0.5]])
    >>> T = np.array([[0.2, 0.8], [0.75, 0.25]])
    >>> manhattan_distance(P, T).round(6)
    array([0.2, 0.5])
    """
    P, T = np.asarray(P, dtype=float), np.asarray(T, dtype=float)
    d = np.zeros(P.shape[:-1])
    for k in range(P.shape[-1]):  # left to right over the K bins, as the notebook's sum()
        d = d + np.abs(P[..., k] - T[..., k])
    return d


def wasserstein_distance(P: np.ndarray, T: np.ndarray,
                         values: np.ndarray | None = None) -> np.ndarray:
    """The one 1-D Wasserstein (earth mover's) distance of HLV Lens (LeWiDi 2025 Task A).

    Both rows are renormalised to sum 1 (the organisers' optimal-transport call needs equal
    masses), then ``W_i = sum_k |CDF_P(k) - CDF_T(k)| (v_{k+1} - v_k)`` with bins at ``values``
    (default 0..K-1, i.e. ground cost ``|h - k|``), unrounded. Also behind
    :func:`hlv_core.soft_metrics.lewidi_wasserstein`.

    Parameters
    ----------
    P, T : numpy.ndarray
        Predicted and target distributions over K ordinal bins, shape (N, K).
    values : numpy.ndarray, optional
        The K strictly increasing bin positions; default ``0, 1, ..., K-1``.

    Returns
    -------
    numpy.ndarray
        Distances, shape (N,).

    Raises
    ------
    ValueError
        When ``values`` is not K strictly increasing numbers.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    Moving 0.1 mass two bins and 0.2 mass one bin to the right, and 0.2 one bin to the left:

    >>> import numpy as np
    >>> P = np.array([[0.1, 0.2, 0.7, 0.0]])
    >>> T = np.array([[0.0, 0.0, 0.5, 0.5]])
    >>> wasserstein_distance(P, T).round(6)
    array([0.9])
    >>> wasserstein_distance(np.array([[0.5, 0.5]]), np.array([[0.0, 1.0]]), values=[-5, 5])
    array([5.])
    """
    P, T = np.asarray(P, dtype=float), np.asarray(T, dtype=float)
    K = P.shape[1]
    gaps = np.ones(K - 1) if values is None else np.diff(np.asarray(values, dtype=float))
    if values is not None and (len(gaps) != K - 1 or (gaps <= 0).any()):
        raise ValueError("values must be K strictly increasing numbers (one per ordinal bin).")
    P = P / P.sum(axis=1, keepdims=True)
    T = T / T.sum(axis=1, keepdims=True)
    return np.abs(np.cumsum(P, axis=1) - np.cumsum(T, axis=1))[:, :-1] @ gaps


def manhattan_items(P: np.ndarray, T: np.ndarray) -> np.ndarray:
    """MP Task A per-item values: ``round5(sum_k |P_ik - T_ik|)``.

    :func:`manhattan_distance` rounded to 5 decimals with :func:`round_half`, as the
    organisers' notebook does before averaging.

    Parameters
    ----------
    P, T : numpy.ndarray
        Predicted and gold ``soft_label`` distributions, shape (N, K).

    Returns
    -------
    numpy.ndarray
        Per-item values, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> manhattan_items(np.array([[0.2, 0.8]]), np.array([[0.33333, 0.66667]]))
    array([0.26666])
    """
    return round_half(manhattan_distance(P, T))


def multilabel_manhattan_items(P: np.ndarray, T: np.ndarray) -> np.ndarray:
    """VariErrNLI Task A per-item values.

    Per label l, the Manhattan distance of the binary distribution rounded to 5 decimals,
    ``m_il = round5(sum_k |P_ilk - T_ilk|)``; per item ``round5((1/L) sum_l m_il)``.

    Parameters
    ----------
    P, T : numpy.ndarray
        Per-label ``[p(absent), p(present)]`` pairs, shape (N, L, 2) (labels contradiction,
        entailment, neutral).

    Returns
    -------
    numpy.ndarray
        Per-item values, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[[0.8, 0.2], [0.7, 0.3], [0.4, 0.6]]])
    >>> T = np.array([[[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]]])
    >>> multilabel_manhattan_items(P, T)
    array([0.33333])
    """
    per_label = manhattan_items(P, T)  # (N, L)
    total = np.zeros(per_label.shape[0])
    for j in range(per_label.shape[1]):
        total = total + per_label[:, j]
    return round_half(total / per_label.shape[1])


def wasserstein_items(P: np.ndarray, T: np.ndarray) -> np.ndarray:
    """CSC / Paraphrase Task A per-item values.

    :func:`wasserstein_distance` between bins 0..K-1 (equal to the notebook's ``ot.emd2`` with
    ground cost ``|h - k|``), both rows renormalised to sum 1 first; unrounded (the notebook
    rounds only the mean, see :func:`official_mean`).

    Parameters
    ----------
    P, T : numpy.ndarray
        Predicted and gold distributions over the bins, shape (N, K) (CSC K = 6, Paraphrase
        K = 11).

    Returns
    -------
    numpy.ndarray
        Per-item values, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> wasserstein_items(np.array([[1.0, 0, 0, 0, 0, 0]]), np.array([[0, 0, 0, 0, 0, 1.0]]))
    array([5.])
    """
    return wasserstein_distance(P, T)


def _errors(pred: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Sum over the (NaN-padded) last axis of ``|t - p|``, left to right."""
    diff = np.abs(target - pred)
    total = np.zeros(diff.shape[:-1])
    for j in range(diff.shape[-1]):
        total = total + np.nan_to_num(diff[..., j], nan=0.0)
    return total


def error_rate_items(pred: np.ndarray, target: np.ndarray, n: np.ndarray) -> np.ndarray:
    """MP Task B per-item values: the error rate over the item's annotators.

    ``e_i = round5(1 - (a_i - sum_j |t_ij - p_ij|) / a_i)`` with ``a_i`` the item's number of
    annotators (the keys of the gold ``annotations``), ``t`` their 0/1 labels and ``p`` the
    predicted labels.

    Parameters
    ----------
    pred, target : numpy.ndarray
        Predicted and gold labels, shape (N, A), NaN-padded beyond each item's annotators.
    n : numpy.ndarray
        Annotators per item ``a_i``, shape (N,).

    Returns
    -------
    numpy.ndarray
        Per-item error rates, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> pred = np.array([[0, 1, 1, np.nan], [1, 1, 0, 0]])
    >>> gold = np.array([[0, 0, 1, np.nan], [1, 1, 1, 1]])
    >>> error_rate_items(pred, gold, np.array([3, 4]))
    array([0.33333, 0.5    ])
    """
    a = np.asarray(n, dtype=float)
    return round_half(1 - ((a - _errors(pred, target)) / a))


def multilabel_error_rate_items(pred: np.ndarray, target: np.ndarray, n: np.ndarray) -> np.ndarray:
    """VariErrNLI Task B per-item values.

    Per label l the MP error rate of its 0/1 vector over the annotators, rounded to 5 decimals,
    ``e_il = round5(1 - (a_i - sum_j |t_ilj - p_ilj|) / a_i)``; per item the plain (unrounded)
    mean over the L labels.

    Parameters
    ----------
    pred, target : numpy.ndarray
        0/1 vectors per label over the annotators, shape (N, L, A), NaN-padded.
    n : numpy.ndarray
        Annotators per item, shape (N,).

    Returns
    -------
    numpy.ndarray
        Per-item values, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    Two annotators; the prediction misses both on the second label only:

    >>> import numpy as np
    >>> pred = np.array([[[0, 0], [1, 0], [0, 1.0]]])
    >>> gold = np.array([[[0, 0], [1, 1], [0, 0.0]]])
    >>> multilabel_error_rate_items(pred, gold, np.array([2])).round(6)
    array([0.333333])
    """
    a = np.asarray(n, dtype=float)[:, None]
    per_label = round_half(1 - ((a - _errors(pred, target)) / a))  # (N, L)
    total = np.zeros(per_label.shape[0])
    for j in range(per_label.shape[1]):
        total = total + per_label[:, j]
    return total / per_label.shape[1]


def absolute_distance_items(
    pred: np.ndarray, target: np.ndarray, n: np.ndarray, scale: float
) -> np.ndarray:
    """CSC / Paraphrase Task B per-item values.

    ``d_i = (1/a_i) sum_j |t_ij - p_ij| / s`` with ``s`` the rating scale width (6 CSC, 11
    Paraphrase); the notebook's ``*100`` is commented out, so none here either.

    Parameters
    ----------
    pred, target : numpy.ndarray
        Predicted and gold ratings per annotator, shape (N, A), NaN-padded.
    n : numpy.ndarray
        Annotators per item ``a_i``, shape (N,).
    scale : float
        Scale width ``s``.

    Returns
    -------
    numpy.ndarray
        Per-item values, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> import numpy as np
    >>> pred, gold = np.array([[1, 2, 6.0]]), np.array([[1, 3, 4.0]])
    >>> absolute_distance_items(pred, gold, np.array([3]), 6).round(6)
    array([0.166667])
    """
    return _errors(pred, target) / np.asarray(n, dtype=float) / scale


def cross_entropy_items(P: np.ndarray, T: np.ndarray) -> np.ndarray:
    """LeWiDi 2023 Task ``soft`` per-item cross-entropy.

    ``CE_i = -sum_k T_ik ln(clip(P_ik, 1e-12, 1 - 1e-12) + 1e-9)`` as the starting kit
    computes it; the score is the plain mean over items.

    Parameters
    ----------
    P, T : numpy.ndarray
        Predicted ``[p0, p1]`` and gold ``soft_label``, shape (N, 2).

    Returns
    -------
    numpy.ndarray
        Per-item values, shape (N,).

    References
    ----------
    .. [1] E. Leonardelli et al. (2023), "SemEval-2023 Task 11: Learning with Disagreements
       (LeWiDi)", Proc. SemEval-2023 (evaluation and the starting kit).

    Examples
    --------
    >>> import numpy as np
    >>> cross_entropy_items(np.array([[0.3, 0.7]]), np.array([[0.0, 1.0]])).round(6)
    array([0.356675])
    """
    Pc = np.clip(P, 1e-12, 1.0 - 1e-12)
    return -(T * np.log(Pc + 1e-9)).sum(axis=1)


# ----------------------------------------------------------------------------- gold files
@dataclass
class LewidiGold:
    """A LeWiDi gold file (2023 or 2025) as arrays in the file's item order.

    Made by :func:`load_gold`.

    Parameters
    ----------
    name : str
        Source name (file name).
    edition : str
        ``"2025"`` or ``"2023"``.
    dataset : str
        ``"CSC"``, ``"MP"``, ``"Paraphrase"``, ``"VariErrNLI"`` or a 2023 dataset name.
    split : str
        ``"test"``, ``"dev"``, ``"train"`` or ``""`` when unknown.
    item_ids : numpy.ndarray
        Item ids (object array), shape (N,).
    soft : numpy.ndarray
        Gold ``soft_label``, shape (N, K) (VariErrNLI (N, 3, 2)).
    pe : numpy.ndarray or None
        Task B targets NaN-padded to the largest number of annotators A, shape (N, A)
        (VariErrNLI (N, 3, A)); 2025 only.
    n_annotators : numpy.ndarray or None
        Annotators per item (the keys of ``annotations``), shape (N,).
    n_listed : numpy.ndarray or None
        Entries of the ``annotators`` string per item, shape (N,) (VariErrNLI repeats ids).
    hard : numpy.ndarray or None
        2023 ``hard_label`` as numbers, shape (N,).
    notes : list of str
        Deviations found in the file (e.g. soft labels not summing to 1).
    spelling : list of str
        Import-report lines naming ids and keys respelled (look-alike spellings made one, as
        the dataset loader does).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> g = load_gold(gold, name="MP_test.json")
    >>> g.dataset, g.edition, g.n_items, g.n_annotators.tolist()
    ('MP', '2025', 2, [2, 3])
    """

    name: str
    edition: str
    dataset: str
    split: str
    item_ids: np.ndarray
    soft: np.ndarray
    pe: np.ndarray | None = None
    n_annotators: np.ndarray | None = None
    n_listed: np.ndarray | None = None
    hard: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    spelling: list[str] = field(default_factory=list)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)


def _number(value, source: str, key: str, what: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        out = math.nan
    if not math.isfinite(out):
        raise DataError(f"record {key!r}: {what} {value!r} is not a number.", source=source,
                        column=what, fix="use the gold file as published by the organisers.")
    return out


def _name_tokens(name: str) -> list[str]:
    """Lower-case words of a file name (``"teamX_csc_test_soft (1).tsv"`` -> teamx, csc, test,
    soft, 1, tsv); hyphens stay inside words (``hs-brexit``)."""
    return [t for t in re.split(r"[_.\s()\[\]]+", PurePosixPath(name).name.lower()) if t]


def _dataset_from_name(name: str, edition: str | None = None) -> str | None:
    """The dataset named by the first word of a file name that is a known dataset prefix."""
    for token in _name_tokens(name):
        if edition in (None, "2025") and token in _PREFIX_2025:
            return _PREFIX_2025[token]
        if edition in (None, "2023") and token in DATASETS_2023:
            return DATASETS_2023[token]
    return None


def _split_from_name(name: str) -> str | None:
    found = [t for t in _name_tokens(name) if t in ("test", "dev", "train")]
    return found[-1] if found else None


def load_gold(gold: str | Path | bytes | IO[bytes] | dict, *, name: str | None = None
              ) -> LewidiGold:
    """Read one LeWiDi gold JSON into a :class:`LewidiGold`.

    2025 files have ``annotations`` as a dict (annotator -> label); 2023 files as comma
    strings. The 2025 dataset is recognised from the ``soft_label`` layout (bins 0/1 = MP,
    1..6 = CSC, -5..5 = Paraphrase, per-label binary distributions = VariErrNLI).

    Parameters
    ----------
    gold : str, pathlib.Path, bytes, file-like, dict or LewidiGold
        The gold file (path or bytes), its parsed JSON object, or an already loaded gold
        (returned unchanged).
    name : str, optional
        Source name for messages when ``gold`` is bytes or a dict.

    Returns
    -------
    LewidiGold
        The gold arrays in the file's item order.

    Raises
    ------
    hlv_core.io.DataError
        Not a gold file, a record without ``soft_label``, or a layout of no known dataset.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> g = load_gold(gold, name="MP_test.json")
    >>> g.soft.round(5).tolist()
    [[0.5, 0.5], [0.33333, 0.66667]]
    >>> g.pe.tolist()
    [[0.0, 1.0, nan], [1.0, 1.0, 0.0]]
    """
    if isinstance(gold, LewidiGold):
        return gold
    text = ""
    if isinstance(gold, dict):
        data, source_name = gold, name or "<gold>"
    else:
        source = as_source(gold, name)
        source_name = source.name
        check_parse_memory(source, "json")
        text = decode_text(source)
        data = parse_json(text, source_name)
    records = list(data.values()) if isinstance(data, dict) else []
    if not records or not all(isinstance(r, dict) and "annotations" in r for r in records):
        raise DataError(
            "not a LeWiDi gold file: expected a JSON object {item id: record with "
            "'annotations' and 'soft_label'}.",
            source=source_name, fix="pass the organisers' <Dataset>_test.json as GOLD.",
        )
    missing = [str(k) for k, r in data.items() if "soft_label" not in r]
    if missing:
        raise DataError(
            f"record {missing[0]!r} has no 'soft_label' ({len(missing)} record(s)); an "
            "unlabelled test file cannot be scored against.",
            source=source_name, column="soft_label",
            fix="use the gold file with annotations and soft_label (released after the task).",
        )
    data, spelling = _respell_gold(data, source_name, text)
    if isinstance(records[0]["annotations"], str):
        out = _gold_2023(data, source_name)
    else:
        out = _gold_2025(data, source_name)
    out.spelling = spelling
    return out


def _key_line(text: str, key: str) -> int | None:
    """The line of the JSON text where the object key ``key`` is written (for messages)."""
    for quoted in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
        match = re.search(re.escape(quoted) + r"\s*:", text)
        if match:
            return text.count("\n", 0, match.start()) + 1
    return None


def _respell_keys(keys: list[str], what: str, source: str, text: str
                  ) -> tuple[list[str], str | None]:
    """:func:`hlv_core.io.spelling.respell_unique` with the file line of a refused key."""
    return respell_unique(keys, what=what, source=source,
                          rows=(lambda key: _key_line(text, key)) if text else None)


def _respell_object(d: dict, what: str, source: str, text: str, nested: bool) -> dict:
    """``d`` with its keys (and, ``nested``, the keys of its dict values) respelled."""
    keys, _ = _respell_keys([str(k) for k in d], what, source, text)
    values = [_respell_object(v, what, source, text, False) if nested and isinstance(v, dict)
              else v for v in d.values()]
    return dict(zip(keys, values, strict=True))


def _respell_gold(data: dict, source: str, text: str) -> tuple[dict, list[str]]:
    """The gold's item ids, annotator ids (keys of ``annotations``), ``soft_label`` keys (and
    VariErrNLI's per-label keys) in their one spelling, the dataset loader's rule, so a
    submission spelled differently scores the same; two spellings of one key in one object
    are refused (which record is meant?). Returns the data and the import-report lines."""
    notes: list[str] = []
    new_keys, note = _respell_keys([str(k) for k in data], "item id", source, text)
    if note:
        notes.append(note)
    records = list(data.values())
    for member, what in (("annotations", "annotator id"), ("soft_label", "soft_label key")):
        nested = member == "soft_label"
        dicts = [r.get(member) if isinstance(r, dict) else None for r in records]
        distinct = {str(k) for d in dicts if isinstance(d, dict) for k in d}
        if nested:
            distinct |= {str(k) for d in dicts if isinstance(d, dict)
                         for v in d.values() if isinstance(v, dict) for k in v}
        changes = spelling_changes(pd.Index(sorted(distinct), dtype=object))
        if not changes:
            continue
        for i, d in enumerate(dicts):
            if isinstance(d, dict):
                records[i] = {**records[i], member: _respell_object(
                    d, f"{what} of item {new_keys[i]!r}", source, text, nested)}
        shown = "; ".join(f"{b!r} ({describe_change(b, a)}) -> {a!r}"
                          for b, a in list(changes.items())[:5])
        notes.append(f"look-alike spellings of {what}s made one in {source} ({len(changes)} "
                     f"spelling(s); rule: Unicode NFC, invisible format characters removed, "
                     f"whitespace runs as one space): {shown}.")
    return dict(zip(new_keys, records, strict=True)), notes


def _gold_2025(data: dict, source: str) -> LewidiGold:
    keys = [str(k) for k in data]
    first = data[next(iter(data))]["soft_label"]
    nested = isinstance(first, dict) and all(isinstance(v, dict) for v in first.values())
    if nested:
        dataset = "VariErrNLI"
        labels = tuple(first)
    else:
        bins = tuple(sorted(_number(k, source, keys[0], "soft_label key") for k in first))
        matches = [ds for ds, spec in DATASETS_2025.items()
                   if "labels" not in spec and tuple(map(float, spec["bins"])) == bins]
        if not matches:
            raise DataError(
                f"soft_label bins {list(first)} match no LeWiDi 2025 dataset (MP 0/1, CSC "
                "1..6, Paraphrase -5..5, VariErrNLI per-label).",
                source=source, column="soft_label",
                fix="pass an organisers' gold file (CSC, MP, Paraphrase or VariErrNLI).",
            )
        dataset = matches[0]
    spec = DATASETS_2025[dataset]
    n = len(keys)
    counts = np.array([len(r["annotations"]) for r in data.values()])
    width = int(counts.max()) if n else 0
    listed = np.array([len([a for a in str(r.get("annotators", "")).split(",") if a.strip()])
                       for r in data.values()])
    notes: list[str] = []
    if nested:
        want = spec["labels"]
        if labels != want:
            raise DataError(
                f"VariErrNLI soft_label labels {list(labels)}, expected {list(want)}.",
                source=source, column="soft_label", fix="use the organisers' gold file.")
        soft = np.empty((n, len(labels), 2))
        pe = np.full((n, len(labels), width), np.nan)
    else:
        soft = np.empty((n, len(spec["bins"])))
        pe = np.full((n, width), np.nan)
    bin_values = [float(b) for b in spec["bins"]]
    for i, (key, rec) in enumerate(zip(keys, data.values(), strict=True)):
        sl, ann = rec["soft_label"], rec["annotations"]
        if not isinstance(ann, dict) or not ann:
            raise DataError(f"record {key!r}: 'annotations' is not a non-empty object.",
                            source=source, row=i + 1, column="annotations",
                            fix="use the organisers' 2025 gold file.")
        try:
            if nested:
                soft[i] = [[float(sl[lab][b]) for b in sorted(sl[lab], key=float)]
                           for lab in labels]
                for j, lab in enumerate(labels):
                    pe[i, j, :len(ann)] = [
                        lab in {normalise_spelling(x) for x in str(v).split(",")}
                        for v in ann.values()]
            else:
                by_bin = {float(k): float(v) for k, v in sl.items()}
                soft[i] = [by_bin[b] for b in bin_values]
                pe[i, :len(ann)] = [float(v) for v in ann.values()]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise DataError(
                f"record {key!r}: soft_label or annotations do not fit the {dataset} layout.",
                source=source, row=i + 1, column="soft_label",
                fix="use the organisers' gold file, unmodified.") from None
    if not np.isfinite(soft).all():
        raise DataError("a gold soft_label value is not a number.", source=source,
                        column="soft_label", fix="use the organisers' gold file.")
    if not nested:
        sums = soft.sum(axis=1)
        off = np.abs(sums - 1.0) > _SUM_TOLERANCE
        if off.any():
            notes.append(
                f"{int(off.sum())} gold soft_label(s) sum to {sums[off].min():.4g}-"
                f"{sums[off].max():.4g}, not 1 (first: item {keys[int(np.flatnonzero(off)[0])]!r})"
            )
    splits = {str(r.get("split")) for r in data.values() if r.get("split")}
    split = splits.pop() if len(splits) == 1 else (_split_from_name(source) or "")
    return LewidiGold(name=source, edition="2025", dataset=dataset, split=split,
                      item_ids=np.array(keys, dtype=object), soft=soft, pe=pe,
                      n_annotators=counts, n_listed=listed, notes=notes)


def _gold_2023(data: dict, source: str) -> LewidiGold:
    keys = [str(k) for k in data]
    soft = np.empty((len(keys), 2))
    hard = np.empty(len(keys))
    for i, (key, rec) in enumerate(zip(keys, data.values(), strict=True)):
        sl = rec["soft_label"]
        if not isinstance(sl, dict) or "0" not in sl or "1" not in sl:
            raise DataError(f"record {key!r}: soft_label needs the keys '0' and '1'.",
                            source=source, row=i + 1, column="soft_label",
                            fix="use the organisers' 2023 gold file.")
        soft[i] = [_number(sl["0"], source, key, "soft_label"),
                   _number(sl["1"], source, key, "soft_label")]
        hard[i] = _number(rec.get("hard_label"), source, key, "hard_label")
    dataset = _dataset_from_name(source, "2023") or "LeWiDi-2023"
    splits = {str(r.get("split")) for r in data.values() if r.get("split")}
    split = splits.pop() if len(splits) == 1 else (_split_from_name(source) or "")
    return LewidiGold(name=source, edition="2023", dataset=dataset, split=split,
                      item_ids=np.array(keys, dtype=object), soft=soft, hard=hard)


def _gold_list(gold) -> list[LewidiGold]:
    """One or several gold files: a LewidiGold, a parsed dict, a JSON path or bytes, a folder
    (every ``*.json`` except ``*_annotators_meta.json``, recursively), or a list of these."""
    if isinstance(gold, (list, tuple)):
        out: list[LewidiGold] = []
        for g in gold:
            out.extend(_gold_list(g))
        return out
    if isinstance(gold, (str, Path)) and Path(gold).is_dir():
        paths = sorted(p for p in Path(gold).rglob("*.json")
                       if not p.name.endswith("_annotators_meta.json"))
        golds = []
        for path in paths:
            try:
                golds.append(load_gold(path))
            except DataError:
                continue  # a train file without soft labels or an unrelated JSON
        if not golds:
            raise DataError("the folder holds no LeWiDi gold JSON.", source=str(gold),
                            fix="pass a <Dataset>_test.json file or a folder of them.")
        return golds
    return [load_gold(gold)]


# ------------------------------------------------------------------------------ results
@dataclass
class ScoreResult:
    r"""One scored submission file: the official score and the per-item values behind it.

    Made by :func:`score_results`; ``summary()`` gives the dict of :func:`score`, ``items()``
    the per-item table of :func:`score_items`.

    Parameters
    ----------
    file : str
        Submission file name (zip path for a zip member).
    edition, dataset, split : str
        As in :class:`LewidiGold`.
    task : str
        ``"soft"`` or ``"pe"`` (2025), ``"soft"`` or ``"hard"`` (2023).
    metric : str
        Metric name (``average_manhattan``, ``error_rate``, ``cross_entropy``, ``micro_f1``...).
    score : float
        Official score (:func:`official_mean` of ``values``).
    item_ids : numpy.ndarray
        Item ids in gold order, shape (N,).
    values : numpy.ndarray
        Per-item values, shape (N,).
    warnings : list of str
        Deviations from the organisers' code, in words.
    extra : dict
        2023 only: the other task's number (``micro_f1`` or ``cross_entropy``).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> result = score_results(gold, b"i1\t[0.4, 0.6]\ni2\t[0.2, 0.8]\n",
    ...                        name="mp_test_soft.tsv")[0]
    >>> result.metric, result.score, result.values.tolist()
    ('average_manhattan', 0.23333, [0.2, 0.26666])
    """

    file: str
    edition: str
    dataset: str
    split: str
    task: str
    metric: str
    score: float
    item_ids: np.ndarray
    values: np.ndarray
    warnings: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def higher_is_better(self) -> bool:
        return self.metric in _HIGHER_IS_BETTER

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def summary(self) -> dict:
        r"""``dataset, task, metric, score, n_items`` + ``edition, split, file,
        higher_is_better, warnings`` (+ 2023: ``micro_f1`` / ``cross_entropy``).

        Returns
        -------
        dict
            The dict :func:`score` returns.

        Examples
        --------
        >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"}, "soft_label": {"0": 0.5, "1": 0.5}}}
        >>> result = score_results(gold, b"i1\t[0.4, 0.6]\n", name="mp_test_soft.tsv")[0]
        >>> result.summary()["score"], result.summary()["higher_is_better"]
        (0.2, False)
        """
        out = {"dataset": self.dataset, "task": self.task, "metric": self.metric,
               "score": self.score, "n_items": self.n_items, "edition": self.edition,
               "split": self.split, "file": self.file,
               "higher_is_better": self.higher_is_better, "warnings": list(self.warnings)}
        out.update(self.extra)
        return out

    def items(self) -> pd.DataFrame:
        r"""Per-item values: ``dataset, task, metric, item_id, value``.

        Returns
        -------
        pandas.DataFrame
            One row per item.

        Examples
        --------
        >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"}, "soft_label": {"0": 0.5, "1": 0.5}}}
        >>> result = score_results(gold, b"i1\t[0.4, 0.6]\n", name="mp_test_soft.tsv")[0]
        >>> result.items()[["item_id", "value"]].to_numpy().tolist()
        [['i1', 0.2]]
        """
        return pd.DataFrame({"dataset": self.dataset, "task": self.task, "metric": self.metric,
                             "item_id": self.item_ids, "value": self.values})


# ------------------------------------------------------------------------- submissions
def task_from_name(name: str) -> str | None:
    """The task a submission file name names: ``"soft"``, ``"pe"`` or ``"hard"``.

    The last of these words in the name counts (``csc_test_soft.tsv``, ``mp_test_pe (1).tsv``).

    Parameters
    ----------
    name : str
        File name (a path is fine).

    Returns
    -------
    str or None
        The task, or None when the name has none of the words.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> task_from_name("csc_test_soft.tsv"), task_from_name("mp_test_pe (1).tsv")
    ('soft', 'pe')
    >>> task_from_name("predictions.tsv") is None
    True
    """
    found = [t for t in _name_tokens(name) if t in ("soft", "pe", "hard")]
    return found[-1] if found else None


def _lines(source: Source) -> list[str]:
    check_parse_memory(source, "json")  # every line a JSON list
    lines = decode_text(source).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            raise DataError("empty line inside the submission.", source=source.name,
                            row=number, fix="remove empty lines (one line per item).")
    return lines


def _is_number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _numeric(parsed, leaves_of, what: str, source: Source) -> np.ndarray:
    """The flat float array of every line's leaves; refuses (file, line) a value that is not a
    finite JSON number (strings, booleans, null, NaN: the organisers' code cannot score them)."""
    leaves = [leaves_of(v) for _, _, v in parsed]
    flat = [x for line in leaves for x in line]
    if not all(_is_number(x) for x in flat):
        for (number, item, _), line in zip(parsed, leaves, strict=True):
            bad = next((x for x in line if not _is_number(x)), None)
            if bad is not None or any(not _is_number(x) for x in line):
                raise DataError(f"item {item!r}: {bad!r} is not a finite number.",
                                source=source.name, row=number,
                                fix=f"write {what} as plain numbers (no quotes, NaN or null).")
    return np.array(flat, dtype=float)


def _align(gold: LewidiGold, parsed, source: Source):
    """Order the parsed lines as the gold items; refuse unknown and missing ids."""
    index = pd.Index(gold.item_ids)
    ids = np.array([item for _, item, _ in parsed], dtype=object)
    pos = index.get_indexer(ids)
    if (pos < 0).any():
        bad = int(np.flatnonzero(pos < 0)[0])
        raise DataError(
            f"item {ids[bad]!r} is not in the gold file {gold.name!r} "
            f"({int((pos < 0).sum())} unknown id(s)).",
            source=source.name, row=parsed[bad][0], column="item id",
            fix=f"predict the items of {gold.dataset} {gold.split} (or pass the matching gold).",
        )
    covered = np.zeros(gold.n_items, dtype=bool)
    covered[pos] = True
    if not covered.all():
        missing = gold.item_ids[~covered]
        shown = ", ".join(repr(m) for m in missing[:5])
        raise DataError(
            f"partial file: {len(ids)} of {gold.n_items} gold items predicted; "
            f"{len(missing)} missing (first: {shown}). The official score is a mean over all "
            "items, never over fewer.",
            source=source.name, column="item id",
            fix="write one line for every item of the gold file.",
        )
    order = np.argsort(pos)
    return [parsed[i] for i in order]


def _score_soft_2025(gold: LewidiGold, parsed, source: Source, warnings: list[str]):
    spec = DATASETS_2025[gold.dataset]
    numbers = [n for n, _, _ in parsed]
    values = [v for _, _, v in parsed]
    lengths = np.array([len(v) for v in values])
    if gold.dataset == "VariErrNLI":
        L = len(spec["labels"])
        shape_ok = [len(v) == L and all(isinstance(x, list) and len(x) == 2 for x in v)
                    for v in values]
        if not all(shape_ok):
            i = shape_ok.index(False)
            v = values[i]
            cause = ""
            flat = all(not isinstance(x, list) for x in v)
            if flat and len(v) == L:
                cause = (" It looks like one probability per label; the official layout is a "
                         "[p(absent), p(present)] pair per label.")
            elif all(isinstance(x, list) for x in v) and len(v) == L:
                cause = " Each label needs exactly 2 values."
            elif all(isinstance(x, list) for x in v):
                cause = (" It looks like a Task B (per-annotator) line; pass a _soft file or "
                         "--task pe.")
            raise DataError(
                f"item {parsed[i][1]!r}: expected {L} pairs [p0, p1] (labels "
                f"{', '.join(spec['labels'])}), got {json.dumps(v)[:60]}.{cause}",
                source=source.name, row=numbers[i],
                fix="write [[p0, p1], [p0, p1], [p0, p1]] in the order contradiction, "
                "entailment, neutral.")
        P = _numeric(parsed, lambda v: [x for pair in v for x in pair], "probabilities",
                     source).reshape(len(values), L, 2)
    else:
        K = len(spec["bins"])
        bad = np.flatnonzero(lengths != K)
        nested = [i for i, v in enumerate(values) if any(isinstance(x, list) for x in v)]
        if nested:
            i = nested[0]
            raise DataError(
                f"item {parsed[i][1]!r}: nested lists; {gold.dataset} Task A is one flat list "
                f"of {K} probabilities.", source=source.name, row=numbers[i],
                fix=f"write [p({spec['bins'][0]}), ..., p({spec['bins'][-1]})].")
        if bad.size:
            i = int(bad[0])
            got = int(lengths[i])
            cause = ""
            if gold.dataset == "CSC" and got == 7:
                cause = (" 7 values = bins 0..6 as in the organisers' readme example, but the "
                         "CSC gold has 6 bins 1..6: drop the probability of bin 0.")
            else:
                other = [ds for ds, sp in DATASETS_2025.items()
                         if "labels" not in sp and len(sp["bins"]) == got]
                if other:
                    cause = f" {got} values = the bins of {other[0]}: is this the right gold?"
            ints = all(isinstance(x, int) and not isinstance(x, bool) for x in values[i])
            if ints and gold.n_annotators is not None:
                cause += (" Integer labels, one per annotator, look like a Task B file: pass "
                          "--task pe or name it *_pe.tsv.")
            raise DataError(
                f"item {parsed[i][1]!r}: {got} values, but {gold.dataset} Task A has {K} "
                f"bins {spec['bins'][0]}..{spec['bins'][-1]} ({int(bad.size)} line(s) "
                f"affected).{cause}",
                source=source.name, row=numbers[i],
                fix=f"write one probability per bin {spec['bins'][0]}..{spec['bins'][-1]}.")
        P = _numeric(parsed, lambda v: v, "probabilities", source).reshape(len(values), K)
    out = (P < 0) | (P > 1)
    if out.any():
        i = int(np.flatnonzero(out.reshape(len(P), -1).any(axis=1))[0])
        raise DataError(
            f"item {parsed[i][1]!r}: values outside [0, 1] ({int(out.sum())} value(s) in the "
            "file); Task A predicts probabilities.", source=source.name, row=numbers[i],
            fix="write probabilities (not logits or percentages), or score a Task B file with "
            "--task pe.")
    T = gold.soft
    if gold.dataset == "VariErrNLI":
        sums = P.sum(axis=2)
        off = np.abs(sums - 1.0) > _PRED_SUM_TOLERANCE
        if off.any():
            warnings.append(f"{int(off.any(axis=1).sum())} item(s) have [p0, p1] pairs not "
                            "summing to 1; scored as written (as the organisers' code does).")
        return multilabel_manhattan_items(P, T)
    sums = P.sum(axis=1)
    off = np.abs(sums - 1.0) > _PRED_SUM_TOLERANCE
    if spec["soft"] == "average_manhattan":
        if off.any():
            warnings.append(f"{int(off.sum())} predicted distribution(s) do not sum to 1; "
                            "scored as written (as the organisers' code does).")
        return manhattan_items(P, T)
    if (sums <= 0).any():
        i = int(np.flatnonzero(sums <= 0)[0])
        raise DataError(f"item {parsed[i][1]!r}: all probabilities are 0.",
                        source=source.name, row=numbers[i], fix="write a distribution.")
    if off.any():
        warnings.append(f"{int(off.sum())} predicted distribution(s) do not sum to 1 "
                        f"({sums[off].min():.6g}-{sums[off].max():.6g}): renormalised to 1 "
                        "before the Wasserstein distance (the organisers' optimal-transport "
                        "call refuses them).")
    for note in gold.notes:
        warnings.append(note + ": renormalised to 1 with the prediction before the "
                        "Wasserstein distance (the organisers' notebook refuses them).")
    return wasserstein_items(P, T)


def _score_pe_2025(gold: LewidiGold, parsed, source: Source, warnings: list[str]):
    spec = DATASETS_2025[gold.dataset]
    n_ann = gold.n_annotators
    index = pd.Index(gold.item_ids)
    numbers = [n for n, _, _ in parsed]
    values = [v for _, _, v in parsed]
    pos = index.get_indexer([item for _, item, _ in parsed])
    want = n_ann[pos]
    listed = gold.n_listed[pos]
    width = gold.pe.shape[-1]
    if gold.dataset == "VariErrNLI":
        L = len(spec["labels"])
        outer = np.array([len(v) for v in values])
        flat = [all(not isinstance(x, list) for x in v) for v in values]
        if any(flat):
            i = flat.index(True)
            raise DataError(
                f"item {parsed[i][1]!r}: a flat list; VariErrNLI Task B is one 0/1 vector per "
                f"label over the item's annotators ({L} vectors).", source=source.name,
                row=numbers[i], fix="write [[c_a1..c_an], [e_a1..e_an], [n_a1..n_an]].")
        inner = [[len(x) if isinstance(x, list) else -1 for x in v] for v in values]
        for i, (o, lens) in enumerate(zip(outer, inner, strict=True)):
            if o == L and all(x == want[i] for x in lens):
                continue
            item, a, lst = parsed[i][1], int(want[i]), int(listed[i])
            if o == a and all(x == L for x in lens):
                cause = (f"{o} vectors of {L}: the per-annotator layout (transposed). The "
                         f"official layout is per label: {L} vectors of {a} (one entry per "
                         "annotator).")
                fix = "transpose every line to [[c_a1..c_an], [e_a1..e_an], [n_a1..n_an]]."
            elif o == L and all(x == lst for x in lens) and lst != a:
                cause = (f"vectors of {lst} entries, one per entry of the 'annotators' string, "
                         f"which repeats ids of annotators who gave two labels; the item has "
                         f"{a} annotators (the keys of 'annotations').")
                fix = ("build the vectors over the keys of the gold 'annotations' dict, each "
                       "annotator once.")
            else:
                cause = f"expected {L} vectors of {a} entries, got {o} vectors of {lens}."
                fix = "write one 0/1 vector per label with one entry per annotator of the item."
            raise DataError(f"item {item!r}: {cause}", source=source.name, row=numbers[i],
                            fix=fix)
        pred = np.full((len(values), L, width), np.nan)
    else:
        lengths = np.array([len(v) for v in values])
        bad = np.flatnonzero(lengths != want)
        if bad.size:
            i = int(bad[0])
            cause = ""
            if lengths[i] == len(spec["bins"]):
                cause = (f" {lengths[i]} values = the number of {gold.dataset} bins: this looks "
                         "like a Task A (soft) line; pass --task soft or name it *_soft.tsv.")
            raise DataError(
                f"item {parsed[i][1]!r}: {int(lengths[i])} predictions for {int(want[i])} "
                f"annotators ({int(bad.size)} line(s) affected).{cause}",
                source=source.name, row=numbers[i],
                fix="write one label per annotator, in the order of the item's 'annotations' "
                "keys in the gold file.")
        pred = np.full((len(values), width), np.nan)
    leaves = (lambda v: [x for vec in v for x in vec]) if gold.dataset == "VariErrNLI" else (
        lambda v: v)
    flat = _numeric(parsed, leaves, "Task B labels", source)
    # scatter the flat values into the padded array (annotator axis last), item-major blocks
    block = want * (pred.shape[1] if pred.ndim == 3 else 1)
    local = np.arange(flat.size) - np.repeat(np.cumsum(block) - block, block)
    row = np.repeat(np.arange(len(values)), block)
    w = np.repeat(want, block)
    if pred.ndim == 3:
        pred[row, local // w, local % w] = flat
    else:
        pred[row, local] = flat
    target = gold.pe[pos]
    if spec["scale"] is None:
        odd = ~np.isin(flat, (0.0, 1.0))
        if odd.any():
            warnings.append(f"{int(odd.sum())} Task B value(s) are not 0/1 labels; scored as "
                            "numbers, as the organisers' code does.")
        if gold.dataset == "VariErrNLI":
            return multilabel_error_rate_items(pred, target, want)
        return error_rate_items(pred, target, want)
    allowed = np.asarray(spec["bins"], dtype=float)
    odd = ~np.isin(flat, allowed)
    if odd.any():
        warnings.append(f"{int(odd.sum())} Task B value(s) are not ratings "
                        f"{spec['bins'][0]}..{spec['bins'][-1]}; scored as numbers, as the "
                        "organisers' code does.")
    return absolute_distance_items(pred, target, want, spec["scale"])


def _score_2023(gold: LewidiGold, lines: list[str], source: Source, task: str,
                warnings: list[str]):
    if len(lines) != gold.n_items:
        raise DataError(
            f"{'partial file: ' if len(lines) < gold.n_items else ''}{len(lines)} lines for "
            f"{gold.n_items} gold items.",
            source=source.name, row=min(len(lines), gold.n_items) + 1,
            fix="write one line 'hard_label<TAB>p0<TAB>p1' per item, in the gold file's order.")
    fields = [line.strip().split("\t") for line in lines]
    bad = [i for i, f in enumerate(fields) if len(f) != 3]
    if bad:
        raise DataError(f"expected 3 tab-separated fields, found {len(fields[bad[0]])}.",
                        source=source.name, row=bad[0] + 1,
                        fix="write 'hard_label<TAB>p0<TAB>p1' on every line.")
    try:
        arr = np.array(fields, dtype=float)
    except ValueError:
        for i, f in enumerate(fields):
            try:
                np.array(f, dtype=float)
            except ValueError:
                raise DataError(f"{f!r} holds a value that is not a number.",
                                source=source.name, row=i + 1,
                                fix="write 'hard_label<TAB>p0<TAB>p1' with numbers.") from None
        raise
    if not np.isfinite(arr).all():
        i = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise DataError("a value is NaN or infinite.", source=source.name, row=i + 1,
                        fix="write finite numbers only.")
    hard, P = arr[:, 0], arr[:, 1:]
    odd = np.array([f[0].strip() not in ("0", "1") for f in fields])
    if (~np.isin(hard, (0.0, 1.0))).any():
        i = int(np.flatnonzero(~np.isin(hard, (0.0, 1.0)))[0])
        raise DataError(f"hard label {fields[i][0]!r} is not 0 or 1.", source=source.name,
                        row=i + 1, column="hard_label", fix="the first field is 0 or 1.")
    if odd.any():
        warnings.append(f"{int(odd.sum())} hard label(s) written as e.g. {fields[int(np.flatnonzero(odd)[0])][0]!r}; "
                        "compared as numbers (the starting kit compares strings).")
    if ((P < 0) | (P > 1)).any():
        i = int(np.flatnonzero(((P < 0) | (P > 1)).any(axis=1))[0])
        raise DataError("probabilities outside [0, 1].", source=source.name, row=i + 1,
                        fix="write p0 and p1 as probabilities.")
    ce = cross_entropy_items(P, gold.soft)
    correct = (hard == gold.hard).astype(float)
    if task == "hard":
        return correct, {"cross_entropy": float(ce.mean())}
    return ce, {"micro_f1": float(correct.mean())}


def _pick_gold(golds: list[LewidiGold], file_name: str, edition: str, single: bool
               ) -> LewidiGold | None:
    named = _dataset_from_name(file_name, edition)
    split = _split_from_name(file_name)
    candidates = [g for g in golds if g.edition == edition]
    if named is not None:
        matching = [g for g in candidates if g.dataset == named]
        known = set(DATASETS_2025) | set(DATASETS_2023.values())
        if not matching and single and len(candidates) == 1 and \
                candidates[0].dataset not in known:
            return candidates[0]  # a gold without a dataset name (e.g. a parsed dict)
        if not matching:
            if single and len(candidates) == 1:
                g = candidates[0]
                raise DataError(
                    f"the file name says {named} but the gold file {g.name!r} is "
                    f"{g.dataset}.", source=file_name,
                    fix=f"pass the {named} gold file (or rename the submission).")
            return None
        candidates = matching
    elif not single:
        return None
    if len(candidates) > 1 and split is not None:
        candidates = [g for g in candidates
                      if split in (g.split, _split_from_name(g.name))] or candidates
    if len(candidates) > 1:
        test = [g for g in candidates if g.split == "test"]
        if len(test) == 1:
            return test[0]
        raise DataError(
            f"{len(candidates)} gold files fit this submission "
            f"({', '.join(g.name for g in candidates)}).", source=file_name,
            fix="name the submission <dataset>_<split>_<task>.tsv or pass one gold file.")
    return candidates[0] if candidates else None


def _score_tsv(golds: list[LewidiGold], source: Source, task: str | None, single: bool
               ) -> ScoreResult | None:
    lines = _lines(source)
    first = lines[0]
    fields = first.split("\t")
    edition = "2025" if len(fields) == 2 and fields[1].strip().startswith("[") else (
        "2023" if len(fields) == 3 else None)
    if edition is None:
        raise DataError(
            f"not a LeWiDi submission line: {first[:60]!r}.", source=source.name, row=1,
            fix="2025 lines are '<item id><TAB>[...]', 2023 lines 'hard_label<TAB>p0<TAB>p1' "
            "(no header).")
    if not any(g.edition == edition for g in golds):
        have = sorted({g.edition for g in golds})
        raise DataError(
            f"a LeWiDi {edition} submission, but the gold is LeWiDi {'/'.join(have)}.",
            source=source.name, fix=f"pass the LeWiDi {edition} gold file.")
    gold = _pick_gold(golds, source.name, edition, single)
    if gold is None:
        return None
    named_task = task_from_name(source.name)
    chosen = task or named_task
    warnings: list[str] = list(gold.spelling)
    if task and named_task and task != named_task:
        warnings.append(f"scored as Task {task} (given) although the file name says "
                        f"{named_task}.")
    if edition == "2023":
        chosen = chosen or "soft"
        if chosen not in ("soft", "hard"):
            raise DataError(f"LeWiDi 2023 has tasks soft and hard, not {chosen!r}.",
                            source=source.name, fix="use --task soft or --task hard.")
        values, extra = _score_2023(gold, lines, source, chosen, warnings)
        metric = "cross_entropy" if chosen == "soft" else "micro_f1"
        item_ids = gold.item_ids
    else:
        if chosen is None:
            raise DataError(
                "cannot tell Task A (soft) from Task B (pe): the file name has neither _soft "
                "nor _pe.", source=source.name,
                fix="pass --task soft or --task pe (or name it <dataset>_test_soft.tsv / "
                "_pe.tsv).")
        if chosen not in ("soft", "pe"):
            raise DataError(f"LeWiDi 2025 has tasks soft and pe, not {chosen!r}.",
                            source=source.name, fix="use --task soft or --task pe.")
        parsed = parse_submission_lines(lines, source, notes=warnings)
        parsed = _align(gold, parsed, source)
        if chosen == "soft":
            values = _score_soft_2025(gold, parsed, source, warnings)
        else:
            values = _score_pe_2025(gold, parsed, source, warnings)
        metric = DATASETS_2025[gold.dataset][chosen]
        item_ids = gold.item_ids
        extra = {}
    return ScoreResult(file=source.name, edition=edition, dataset=gold.dataset,
                       split=gold.split, task=chosen, metric=metric,
                       score=official_mean(values, metric), item_ids=item_ids,
                       values=np.asarray(values, dtype=float), warnings=warnings, extra=extra)


def _zip_members(source: Source) -> tuple[list[Source], list[str]]:
    archive = open_zip(source, fix="zip only the <dataset>_test_<soft|pe>.tsv files (the "
                       "res.zip you submit to Codabench).")
    budget = InflateBudget()
    members, ignored = [], []
    with archive:
        for info in archive.infolist():
            path = PurePosixPath(info.filename)
            if info.is_dir():
                continue
            if "__MACOSX" in path.parts or path.name.startswith("._") or \
                    path.name.startswith("."):
                continue
            if path.suffix.lower() not in (".tsv", ".txt"):
                ignored.append(info.filename)
                continue
            raw = read_member(archive, info.filename, budget, source.name)
            members.append(Source(raw, f"{source.name}/{info.filename}"))
    if not members:
        raise DataError("the zip holds no .tsv submission file.", source=source.name,
                        fix="zip the <dataset>_test_<soft|pe>.tsv files at the top level.")
    return members, ignored


def _is_zip(source: Source) -> bool:
    return source.raw[:4] == b"PK\x03\x04" or source.suffix == ".zip"


def score_results(
    gold, submission: str | Path | bytes | IO[bytes], task: str | None = None, *,
    name: str | None = None,
) -> list[ScoreResult]:
    r"""Score a submission TSV or a Codabench ``res.zip``; one :class:`ScoreResult` per file.

    Each TSV is matched to the gold of the dataset its name starts with (``csc``, ``mp``,
    ``par``, ``ven``, ``VariErrNLI``, ``HS-Brexit``...) and, when several splits are given, of
    the split in its name (default test); the per-item values and their official mean follow
    the organisers' notebook (module docstring table). TSVs in a zip whose dataset has no gold
    are skipped and named in ``result.skipped``.

    Parameters
    ----------
    gold : str, pathlib.Path, bytes, dict, LewidiGold or list of these
        A gold JSON (path, bytes, parsed dict or :class:`LewidiGold`), a folder of gold files
        or a list of them.
    submission : str, pathlib.Path, bytes or file-like
        One TSV or a zip of TSVs.
    task : {"soft", "pe", "hard"}, optional
        ``"soft"``/``"pe"`` (2025) or ``"soft"``/``"hard"`` (2023); default from the file name.
    name : str, optional
        File name of ``submission`` when it is bytes (the dataset and task are read from it).

    Returns
    -------
    list of ScoreResult
        One result per scored file (a zip: ``.skipped`` and ``.ignored`` list the members left
        out).

    Raises
    ------
    hlv_core.io.DataError
        A partial file, unknown or repeated ids, wrong vector lengths (with the likely cause),
        non-numeric values, probabilities outside [0, 1], or no gold for the file.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> [r.score for r in score_results(gold, b"i1\t[0, 1]\ni2\t[1, 1, 1]\n",
    ...                                 name="mp_test_pe.tsv")]
    [0.166665]
    """
    golds = _gold_list(gold)
    source = as_source(submission, name)
    if _is_zip(source):
        members, ignored = _zip_members(source)
        results, skipped = _ResultList(), []
        for member in members:
            result = _score_tsv(golds, member, task if task_from_name(member.name) is None
                                else None, single=False)
            if result is None:
                skipped.append(member.name)
            else:
                results.append(result)
        if not results:
            raise DataError(
                f"no TSV in the zip matches the gold ({', '.join(g.dataset for g in golds)}); "
                f"files: {', '.join(PurePosixPath(m.name).name for m in members)}.",
                source=source.name,
                fix="pass the gold files of the datasets in the zip (a folder works), and name "
                "the TSVs <dataset>_test_<task>.tsv.")
        seen: dict[tuple[str, str, str], str] = {}
        for r in results:
            key = (r.dataset, r.split, r.task)
            if key in seen:
                raise DataError(
                    f"two files score {r.dataset} {r.split} Task {r.task}: {seen[key]!r} and "
                    f"{r.file!r}.", source=source.name, fix="keep one file per dataset and task.")
            seen[key] = r.file
        results.skipped = skipped
        results.ignored = ignored
        return results
    result = _score_tsv(golds, source, task, single=True)
    if result is None:
        raise DataError(
            f"no gold file fits this submission (gold: "
            f"{', '.join(f'{g.dataset} {g.split}' for g in golds)}).", source=source.name,
            fix="pass the gold file of the submission's dataset.")
    return [result]


class _ResultList(list):
    """A list of results with the names of the zip entries that were not scored."""

    skipped: list[str]
    ignored: list[str]


def score(gold, submission, task: str | None = None, *, name: str | None = None
          ) -> dict | list[dict]:
    r"""The official LeWiDi score of a submission in one call.

    One dict for a TSV, a list of dicts for a ``res.zip`` (one per dataset and task). See
    :func:`score_results` for the matching rules and refusals.

    Parameters
    ----------
    gold : str, pathlib.Path, bytes, dict, LewidiGold or list of these
        Gold file(s), as in :func:`score_results`.
    submission : str, pathlib.Path, bytes or file-like
        One TSV or a zip of TSVs.
    task : {"soft", "pe", "hard"}, optional
        Default from the file name (``_soft`` / ``_pe``).
    name : str, optional
        File name of ``submission`` when it is bytes.

    Returns
    -------
    dict or list of dict
        ``dataset, task, metric, score, n_items, edition, split, file, higher_is_better,
        warnings`` (2023 adds ``micro_f1`` or ``cross_entropy``).

    Raises
    ------
    hlv_core.io.DataError
        As :func:`score_results`.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    Task A on MP: per item ``round5(sum_k |p_k - t_k|)`` = 0.2 and 0.26666, mean rounded:

    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> out = score(gold, b"i1\t[0.4, 0.6]\ni2\t[0.2, 0.8]\n", name="mp_test_soft.tsv")
    >>> out["dataset"], out["metric"], out["score"], out["n_items"]
    ('MP', 'average_manhattan', 0.23333, 2)
    """
    source = as_source(submission, name)
    results = score_results(gold, source.raw, task, name=source.name)
    if _is_zip(source):
        return [r.summary() for r in results]
    return results[0].summary()


def score_items(gold, submission, task: str | None = None, *, name: str | None = None
                ) -> pd.DataFrame:
    r"""Per-item values behind the official score(s).

    Parameters
    ----------
    gold, submission, task, name
        As in :func:`score_results`.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, task, metric, item_id, value``, items in gold order; the official
        score is :func:`official_mean` of ``value`` per (dataset, task).

    Raises
    ------
    hlv_core.io.DataError
        As :func:`score_results`.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> score_items(gold, b"i1\t[0.4, 0.6]\ni2\t[0.2, 0.8]\n", name="mp_test_soft.tsv")
      dataset  task             metric item_id    value
    0      MP  soft  average_manhattan      i1  0.20000
    1      MP  soft  average_manhattan      i2  0.26666
    """
    results = score_results(gold, submission, task, name=name)
    return pd.concat([r.items() for r in results], ignore_index=True)


# ----------------------------------------------------------------------------- bootstrap
def _resample_means(X: np.ndarray, n_boot: int, seed: int, chunk: int | None = None
                    ) -> np.ndarray:
    """(B, S) means of the columns of ``X`` (N, S) over ``n_boot`` resamples of the N rows
    drawn with replacement (``numpy.random.default_rng(seed)``, drawn in chunks of rows that
    depend on N only, so every column and every call with the same seed and N sees the same
    resamples: differences are paired). One or two columns: gather ``X[draws].mean``; more:
    draw-count weights ``W`` (B, N) and ``W @ X / N`` (one matrix product for all systems)."""
    X = np.asarray(X, dtype=float)
    N, S = X.shape
    rng = np.random.default_rng(seed)
    if chunk is None:
        chunk = max(1, min(n_boot, 2_000_000 // max(N, 1)))
    out = np.empty((n_boot, S))
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        draws = rng.integers(0, N, size=(b, N))
        if S <= 2:
            out[done:done + b] = X[draws].mean(axis=1)
        else:
            flat = (draws + (np.arange(b) * N)[:, None]).ravel()
            W = np.bincount(flat, minlength=b * N).reshape(b, N).astype(float)
            out[done:done + b] = W @ X / N
        done += b
    return out


def bootstrap_ci(values: np.ndarray, *, n_boot: int = 1000, level: float = 0.95,
                 seed: int = 0) -> dict:
    """Percentile bootstrap confidence interval of the mean of per-item values.

    Items are resampled with replacement B = ``n_boot`` times
    (``numpy.random.default_rng(seed)``); the interval is the ``(1 - level)/2`` and
    ``(1 + level)/2`` quantiles of the B resampled means (Efron & Tibshirani 1993). The
    official score may additionally be rounded to 5 decimals; the interval is of the unrounded
    mean.

    Parameters
    ----------
    values : numpy.ndarray
        Per-item values, shape (N,), N >= 1 (e.g. ``ScoreResult.values``).
    n_boot : int, default 1000
        Number of resamples B >= 1.
    level : float, default 0.95
        Confidence level in (0, 1).
    seed : int, default 0
        Seed of the resampling.

    Returns
    -------
    dict
        ``mean`` (unrounded), ``lower``, ``upper``, ``sd`` (bootstrap standard deviation, NaN
        for B = 1), ``n_boot``, ``level``, ``seed``.

    Raises
    ------
    ValueError
        No values, ``n_boot < 1`` or ``level`` outside (0, 1).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman &
       Hall (percentile intervals).

    Examples
    --------
    >>> import numpy as np
    >>> ci = bootstrap_ci(np.array([0.1, 0.4, 0.2, 0.3, 0.25]), n_boot=200, seed=0)
    >>> ci["mean"], ci["lower"] < ci["mean"] < ci["upper"], ci["seed"]
    (0.25, True, 0)
    """
    values = np.asarray(values, dtype=float)
    _check_boot(values, n_boot, level)
    means = _resample_means(values[:, None], n_boot, seed)[:, 0]
    a = (1 - level) / 2
    lo, hi = np.quantile(means, [a, 1 - a])
    return {"mean": float(values.mean()), "lower": float(lo), "upper": float(hi),
            "sd": float(means.std(ddof=1)) if n_boot > 1 else math.nan,
            "n_boot": n_boot, "level": level, "seed": seed}


def _check_boot(values: np.ndarray, n_boot: int, level: float) -> None:
    if values.size == 0:
        raise ValueError("no items to resample.")
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1.")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1).")


def paired_bootstrap(values_a: np.ndarray, values_b: np.ndarray, *, n_boot: int = 1000,
                     level: float = 0.95, seed: int = 0) -> dict:
    """Paired bootstrap test of the mean difference of two systems on the same items.

    ``d = mean(b) - mean(a)``; items are resampled B times, ``d*_b`` is the difference on
    resample b, and the two-sided p-value shifts to the null (Efron & Tibshirani 1993, 16.4):
    ``p = (1 + #{|d*_b - d| >= |d|}) / (B + 1)``.

    Parameters
    ----------
    values_a, values_b : numpy.ndarray
        Per-item values of the two systems on the same items, shape (N,) each.
    n_boot : int, default 1000
        Number of resamples B.
    level : float, default 0.95
        Level of the percentile interval of ``d``.
    seed : int, default 0
        Seed of the resampling.

    Returns
    -------
    dict
        ``diff`` (d), ``lower``/``upper`` (percentile CI of d), ``p_value``,
        ``share_b_better`` (share of resamples with b's mean lower: lower-is-better view),
        ``n_boot``, ``level``, ``seed``.

    Raises
    ------
    ValueError
        Different shapes, no values, ``n_boot < 1`` or ``level`` outside (0, 1).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman &
       Hall, section 16.4.

    Examples
    --------
    System b is 0.05 better on every item, so every resample agrees:

    >>> import numpy as np
    >>> a = np.array([0.1, 0.4, 0.2, 0.3, 0.25])
    >>> t = paired_bootstrap(a, a - 0.05, n_boot=200, seed=0)
    >>> round(t["diff"], 6), round(t["p_value"], 4), t["share_b_better"]
    (-0.05, 0.005, 1.0)
    """
    a = np.asarray(values_a, dtype=float)
    b = np.asarray(values_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError("both systems must have one value per item of the same items.")
    _check_boot(a, n_boot, level)
    diff = b - a
    d = float(diff.mean())
    boot = _resample_means(diff[:, None], n_boot, seed)[:, 0]
    alpha = (1 - level) / 2
    lo, hi = np.quantile(boot, [alpha, 1 - alpha])
    p = (1 + int((np.abs(boot - d) >= abs(d) - 1e-15).sum())) / (n_boot + 1)
    return {"diff": d, "lower": float(lo), "upper": float(hi), "p_value": float(p),
            "share_b_better": float((boot < 0).mean()), "n_boot": n_boot, "level": level,
            "seed": seed}


def leaderboard(
    systems: Sequence[tuple[str, Iterable[ScoreResult]]], *, n_boot: int = 1000,
    level: float = 0.95, seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    r"""Leaderboard per (edition, dataset, split, task) of several systems' results.

    Systems are ranked on the official score (ties share the lowest rank); each gets a
    percentile bootstrap CI over items (:func:`bootstrap_ci`, the same ``seed`` and so the same
    resamples for every system), and each pair of neighbouring ranks a
    :func:`paired_bootstrap` test.

    With ``v_i`` a system's per-item values (:func:`score_members`; ``score`` is their
    official mean), ``v*_s`` the values on resample s of the items (B = ``n_boot``), ``ell``
    the ``level`` and ``d = mean(v_b) - mean(v_a)`` for the systems a and b at ranks r and
    r + 1:

    .. math::

        [\text{ci\_lower}, \text{ci\_upper}] = \left[ q_{(1-\ell)/2}, q_{(1+\ell)/2} \right]
        \text{ of } \{\bar v^*_s\}_{s=1}^B, \qquad
        p = \frac{1 + \#\{s : |d^*_s - d| \ge |d|\}}{B + 1}

    (the p-value shifts the paired resampled differences to the null, Efron and Tibshirani
    1993, section 16.4). The scores are those of the LeWiDi 2025 evaluation notebook and the
    SemEval-2023 starting kit.

    Parameters
    ----------
    systems : sequence of (str, iterable of ScoreResult)
        ``(system name, results)`` pairs, results from :func:`score_results`.
    n_boot : int, default 1000
        Bootstrap resamples.
    level : float, default 0.95
        Confidence level.
    seed : int, default 0
        Seed of the resampling.

    Returns
    -------
    board : pandas.DataFrame
        ``dataset, split, task, metric, rank, system, score`` (official), ``mean`` (unrounded),
        ``ci_lower, ci_upper, n_items, file, warnings, n_boot, seed, level``.
    tests : pandas.DataFrame
        One row per neighbouring pair: ``dataset, split, task, metric, rank_a, system_a,
        rank_b, system_b, diff`` (mean of rank r+1 minus mean of rank r), ``diff_lower,
        diff_upper, p_value, n_boot, seed, level``.

    Raises
    ------
    ValueError
        Systems scored on different items of the same dataset and task.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman &
       Hall (percentile intervals; section 16.4, the paired test).
    .. [2] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).
    .. [3] E. Leonardelli et al. (2023), "SemEval-2023 Task 11: Learning with Disagreements
       (LeWiDi)", Proc. SemEval-2023 (evaluation and the starting kit).

    Examples
    --------
    >>> (_, gold), zips = demo_files(seed=0, n_items=30)
    >>> systems = [(n, score_results(gold, z, name=n)) for n, z in zips.items()]
    >>> board, tests = leaderboard(systems, n_boot=200, seed=0)
    >>> board[board.task == "soft"][["rank", "system", "score"]].round(3)
       rank             system  score
    0     1     calibrated.zip  0.391
    1     2  overconfident.zip  0.494
    2     3        uniform.zip  0.584
    """
    groups: dict[tuple, list[tuple[str, ScoreResult]]] = {}
    for system, results in systems:
        for r in results:
            groups.setdefault((r.edition, r.dataset, r.split, r.task), []).append((system, r))
    board_rows, test_rows = [], []
    for (_edition, dataset, split, task), entries in groups.items():
        ids = entries[0][1].item_ids
        for system, r in entries:
            if len(r.item_ids) != len(ids) or (r.item_ids != ids).any():
                raise ValueError(f"{system}: items differ from the other systems' on "
                                 f"{dataset} {task}.")
        higher = entries[0][1].higher_is_better
        entries = sorted(entries, key=lambda e: (-e[1].score if higher else e[1].score, e[0]))
        X = np.column_stack([r.values for _, r in entries])
        means = _resample_means(X, n_boot, seed)
        a = (1 - level) / 2
        lo, hi = np.quantile(means, [a, 1 - a], axis=0)
        scores = [r.score for _, r in entries]
        ranks = pd.Series(scores).rank(method="min", ascending=not higher).astype(int)
        for k, (system, r) in enumerate(entries):
            board_rows.append({"dataset": dataset, "split": split, "task": task,
                               "metric": r.metric, "rank": int(ranks[k]), "system": system,
                               "score": r.score, "mean": float(r.values.mean()),
                               "ci_lower": float(lo[k]), "ci_upper": float(hi[k]),
                               "n_items": r.n_items, "file": r.file,
                               "warnings": " | ".join(r.warnings)})
        for k in range(len(entries) - 1):
            (sa, ra), (sb, rb) = entries[k], entries[k + 1]
            t = paired_bootstrap(ra.values, rb.values, n_boot=n_boot, level=level, seed=seed)
            test_rows.append({"dataset": dataset, "split": split, "task": task,
                              "metric": ra.metric, "rank_a": int(ranks[k]), "system_a": sa,
                              "rank_b": int(ranks[k + 1]), "system_b": sb, "diff": t["diff"],
                              "diff_lower": t["lower"], "diff_upper": t["upper"],
                              "p_value": t["p_value"], "n_boot": n_boot, "seed": seed,
                              "level": level})
    board = pd.DataFrame(board_rows)
    tests = pd.DataFrame(test_rows, columns=["dataset", "split", "task", "metric", "rank_a",
                                             "system_a", "rank_b", "system_b", "diff",
                                             "diff_lower", "diff_upper", "p_value", "n_boot",
                                             "seed", "level"])
    if not board.empty:
        board["n_boot"], board["seed"], board["level"] = n_boot, seed, level
    return board, tests


def item_differences(a: ScoreResult, b: ScoreResult) -> pd.DataFrame:
    """Per item the values of two systems on the same dataset and task.

    Parameters
    ----------
    a, b : ScoreResult
        Two results on the same dataset, task and items.

    Returns
    -------
    pandas.DataFrame
        ``item_id, a, b, diff`` (``diff = b - a``), sorted by ``|diff|`` descending (stable),
        so the items where the systems differ most come first.

    Raises
    ------
    ValueError
        The results are not on the same metric and items.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).
    .. [2] B. Efron and R. J. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman &
       Hall.

    Examples
    --------
    >>> (_, gold), zips = demo_files(seed=0, n_items=30)
    >>> a = score_results(gold, zips["calibrated.zip"], name="a.zip")[0]
    >>> b = score_results(gold, zips["overconfident.zip"], name="b.zip")[0]
    >>> item_differences(a, b).head(2).round(3)
      item_id      a      b   diff
    0   demo5  0.069  1.143  1.074
    1   demo4  0.302  1.333  1.031
    """
    if a.metric != b.metric or len(a.item_ids) != len(b.item_ids) or \
            (a.item_ids != b.item_ids).any():
        raise ValueError("the two results are not on the same dataset, task and items.")
    frame = pd.DataFrame({"item_id": a.item_ids, "a": a.values, "b": b.values,
                          "diff": b.values - a.values})
    order = np.argsort(-np.abs(frame["diff"].to_numpy()), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


# ---------------------------------------------------------------------------------- demo
def demo_files(seed: int = 0, n_items: int = 150) -> tuple[tuple[str, bytes], dict[str, bytes]]:
    """A synthetic MP-style gold file and three systems' ``res.zip`` (Task A and B).

    For trying the scorer without data. Items have a latent irony rate ``r ~ Beta(1, 2)`` and
    3-7 annotators drawing 0/1 from it; ``soft_label`` = label proportions. Systems:
    ``calibrated`` (r plus N(0, 0.1) noise; Task B draws from it), ``overconfident`` (rounded
    r, the majority label for everyone), ``uniform`` (0.5 each; random labels).

    Parameters
    ----------
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.
    n_items : int, default 150
        Number of items.

    Returns
    -------
    gold : tuple of (str, bytes)
        ``("MP_test.json", gold JSON bytes)``.
    zips : dict of str to bytes
        ``{"calibrated.zip": ..., "overconfident.zip": ..., "uniform.zip": ...}``, each with
        ``mp_test_soft.tsv`` and ``mp_test_pe.tsv``.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> (gold_name, gold), zips = demo_files(seed=0, n_items=30)
    >>> gold_name, sorted(zips)
    ('MP_test.json', ['calibrated.zip', 'overconfident.zip', 'uniform.zip'])
    >>> load_gold(gold).n_items
    30
    """
    rng = np.random.default_rng(seed)
    rate = rng.beta(1.0, 2.0, n_items)
    sizes = rng.integers(3, 8, n_items)
    gold: dict[str, dict] = {}
    labels_of: list[np.ndarray] = []
    for i in range(n_items):  # building a JSON file: one record per item
        labels = (rng.random(sizes[i]) < rate[i]).astype(int)
        labels_of.append(labels)
        names = [f"Ann{j}" for j in rng.choice(40, sizes[i], replace=False)]
        p1 = float(labels.mean())
        gold[f"demo{i}"] = {
            "text": {"post": "(synthetic)", "reply": f"synthetic item {i}"},
            "annotators": ",".join(names),
            "annotations": {a: str(v) for a, v in zip(names, labels, strict=True)},
            "soft_label": {"0": round(1 - p1, 6), "1": round(p1, 6)}, "split": "test"}
    ids = list(gold)
    systems = {}
    noisy = np.clip(rate + rng.normal(0, 0.1, n_items), 0, 1)
    systems["calibrated"] = (noisy, [(rng.random(len(v)) < noisy[i]).astype(int)
                                     for i, v in enumerate(labels_of)])
    sharp = np.round(rate)
    systems["overconfident"] = (sharp, [np.full(len(v), int(sharp[i]))
                                        for i, v in enumerate(labels_of)])
    systems["uniform"] = (np.full(n_items, 0.5), [rng.integers(0, 2, len(v)) for v in labels_of])
    zips = {}
    for name, (p1, pe) in systems.items():
        soft = "".join(f"{k}\t[{1 - p:.6f}, {p:.6f}]\n" for k, p in zip(ids, p1, strict=True))
        per = "".join(f"{k}\t{json.dumps(v.tolist())}\n" for k, v in zip(ids, pe, strict=True))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("mp_test_soft.tsv", soft)
            archive.writestr("mp_test_pe.tsv", per)
        zips[f"{name}.zip"] = buffer.getvalue()
    return ("MP_test.json", json.dumps(gold).encode()), zips


# ------------------------------------------------------------------ member by member
class Refusal(NamedTuple):
    """A file of a submission that was not scored (see :func:`score_members`).

    Parameters
    ----------
    file : str
        The file (zip path for a member).
    status : {"refused", "skipped", "ignored"}
        ``"refused"``: bad content; ``"skipped"``: no gold for its dataset; ``"ignored"``:
        not a .tsv/.txt file.
    reason : str
        Why, in words (the loader's message with file, row, column and fix).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> Refusal("res.zip/notes.md", "ignored", "not a .tsv or .txt submission file").status
    'ignored'
    """

    file: str
    status: str
    reason: str


def score_members(gold, submission: str | Path | bytes | IO[bytes], task: str | None = None,
                  *, name: str | None = None) -> tuple[list[ScoreResult], list[Refusal]]:
    r"""Score each file of a submission on its own.

    A ``res.zip`` with one bad file still scores the others; a second file for the same
    dataset, split and task is refused. A plain TSV gives one result or one refusal.

    Each file's score is the organisers' mean of per-item values ``v_i`` over the N gold
    items (:func:`official_mean`): with ``p``/``t`` the predicted and gold soft labels
    (Task A) or the labels of the item's ``a_i`` annotators (Task B),

    .. math::

        \text{score} = \frac{1}{N} \sum_i v_i, \qquad
        v_i^\text{Manhattan} = \sum_k |p_{ik} - t_{ik}|, \qquad
        v_i^\text{Wasserstein} = \sum_k |F^P_{ik} - F^T_{ik}|

    .. math::

        v_i^\text{error rate} = \frac{1}{a_i} \sum_j |t_{ij} - p_{ij}|, \qquad
        v_i^\text{abs. distance} = \frac{1}{a_i} \sum_j \frac{|t_{ij} - p_{ij}|}{s}

    (``F`` the cumulative distributions over the ordinal bins; ``s`` = 6 CSC, 11 Paraphrase;
    VariErrNLI: the mean over its three labels; Task A means and the per-item Manhattan and
    error-rate values are rounded to 5 decimals as the notebook does). 2023 files: ``soft``
    is the cross-entropy ``-(1/N) sum_i sum_k t_ik ln(clip(p_ik) + 1e-9)`` and ``hard`` the
    micro F1 (= accuracy). Every 2025 score is lower-is-better.

    Parameters
    ----------
    gold, submission, task, name
        As in :func:`score_results`.

    Returns
    -------
    results : list of ScoreResult
        The scored files (as :func:`score_results`).
    refusals : list of Refusal
        One per file that was not scored, with the reason.

    Raises
    ------
    hlv_core.io.DataError
        A bad gold file (nothing can be scored).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).
    .. [2] E. Leonardelli et al. (2023), "SemEval-2023 Task 11: Learning with Disagreements
       (LeWiDi)", Proc. SemEval-2023 (evaluation and the starting kit).

    Examples
    --------
    A partial file is refused with the reason, not scored on fewer items:

    >>> gold = {"i1": {"annotations": {"A1": "0", "A2": "1"},
    ...                "soft_label": {"0": 0.5, "1": 0.5}},
    ...         "i2": {"annotations": {"A1": "1", "A3": "1", "A4": "0"},
    ...                "soft_label": {"0": 0.33333, "1": 0.66667}}}
    >>> results, refusals = score_members(gold, b"i1\t[0.4, 0.6]\n", name="mp_test_soft.tsv")
    >>> results, refusals[0].status, "partial file" in refusals[0].reason
    ([], 'refused', True)
    """
    golds = _gold_list(gold)
    source = as_source(submission, name)
    if _is_zip(source):
        members, ignored = _zip_members(source)
    else:
        members, ignored = [source], []
    single = not _is_zip(source)
    results: list[ScoreResult] = []
    refused = [Refusal(path, "ignored", "not a .tsv or .txt submission file") for path in ignored]
    seen: dict[tuple[str, str, str], str] = {}
    for member in members:
        try:
            result = _score_tsv(golds, member, task if task_from_name(member.name) is None
                                else None, single=single)
        except DataError as error:
            refused.append(Refusal(member.name, "refused", str(error)))
            continue
        if result is None:
            refused.append(Refusal(member.name, "skipped", "no gold file for its dataset ("
                                   + ", ".join(f"{g.dataset} {g.split}" for g in golds)
                                   + " given)"))
            continue
        key = (result.dataset, result.split, result.task)
        if key in seen:
            refused.append(Refusal(member.name, "refused", f"{seen[key]!r} already scores "
                                   f"{result.dataset} {result.split} Task {result.task}"))
            continue
        seen[key] = member.name
        results.append(result)
    return results, refused


def default_system_name(file_name: str, raw: bytes) -> str:
    """The name a submission gets on a leaderboard until the user renames it.

    The file name without extension, or, when that is a generic name (Codabench zips are all
    called ``res.zip``), the one folder the zip's files sit in if that says more; else the stem.

    Parameters
    ----------
    file_name : str
        The uploaded file's name.
    raw : bytes
        Its content (looked into only for a generic zip name).

    Returns
    -------
    str
        The system name.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> default_system_name("team_x.zip", b"")
    'team_x'
    >>> import io, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("team_y/mp_test_soft.tsv", "")
    >>> default_system_name("res.zip", buffer.getvalue())
    'team_y'
    """
    stem = PurePosixPath(str(file_name)).stem or "submission"
    if stem.lower() not in _GENERIC_NAMES or raw[:4] != b"PK\x03\x04":
        return stem
    try:  # the bounded reader: member count and inflated size checked (nothing inflated)
        with open_zip(Source(raw, str(file_name)), fix="") as archive:
            paths = [PurePosixPath(n) for n in archive.namelist() if "__MACOSX" not in n]
    except DataError:
        return stem
    folders = {p.parts[0] for p in paths if len(p.parts) > 1}
    if len(folders) == 1 and all(len(p.parts) > 1 for p in paths):
        folder = folders.pop()
        if folder.lower() not in _GENERIC_NAMES:
            return folder
    return stem


_GENERIC_NAMES = {"res", "result", "results", "submission", "submissions", "predictions",
                  "output", "outputs", "upload"}
