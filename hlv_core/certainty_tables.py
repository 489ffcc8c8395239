"""Small tables read off the certainty results (Stutz et al.): which reliabilities Plackett-Luce
runs at, how predictors rank per reliability, and the one-case view (Stutz et al., Figure 5).

They were computed inside pages/certainty.py; here they are engine functions the ``certainty``
command can print too. Shapes: ``samples`` (S, K) plausibility samples of one case (rows sum to
1); ``point`` (K,) its point estimate; ``accuracy`` the tidy ``SweepResult.accuracy`` table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .certainty import topk_sets

__all__ = [
    "PL_MAX_RELIABILITY",
    "case_summary",
    "pl_reliability_allowed",
    "rank_predictors",
    "set_coverage",
]

#: Plackett-Luce repeats every reader r times, so its cost grows with r: it runs at the integer
#: reliabilities up to this value and at infinity (the maximum-likelihood point estimate).
PL_MAX_RELIABILITY = 10


def pl_reliability_allowed(model: str, reliability: float, *,
                           max_reliability: int = PL_MAX_RELIABILITY) -> bool:
    """Whether ``model`` runs at ``reliability``: always for ``"dirichlet"`` / ``"prirn"``
    (reliability multiplies the evidence); for ``"pl"`` only infinity or an integer
    ``1 <= r <= max_reliability`` (each reader's ranking is repeated r times)."""
    if model != "pl" or math.isinf(reliability):
        return True
    return reliability == int(reliability) and reliability <= max_reliability


def rank_predictors(accuracy: pd.DataFrame, *, metric: str, k: int) -> pd.DataFrame:
    """Rank of every predictor (1 = best, ties share the smallest rank) per aggregation model and
    finite reliability, on the mean over samples of ``metric`` at ``k``.

    ``accuracy``: ``SweepResult.accuracy`` (``model, reliability, predictor, k, metric, mean,
    ...``). Returns its rows for ``metric`` and ``k`` at finite reliabilities with a ``rank``
    column: does the ranking of models change with the reliability (Stutz et al., section 5)?"""
    sub = accuracy[(accuracy["k"] == k) & (accuracy["metric"] == metric)]
    ranking = sub[np.isfinite(sub["reliability"])].copy()
    ranking["rank"] = ranking.groupby(["model", "reliability"])["mean"].rank(
        ascending=False, method="min")
    return ranking


def case_summary(samples: np.ndarray, point: np.ndarray, labels: Sequence[str], *,
                 top: int = 8) -> pd.DataFrame:
    """The ``top`` classes of one case and their sampled plausibilities (Stutz et al., Figure 5).

    Classes are ordered by ``point + mean_s samples[s]`` (largest first, ties to the lower
    index); columns ``class_index, class, point_estimate, mean, sd`` (population sd over the S
    samples), ``p05``, ``p95`` (sample quantiles, numpy's linear rule)."""
    x = np.asarray(samples, dtype=float)
    base = np.asarray(point, dtype=float)
    order = np.argsort(-(base + x.mean(0)), kind="stable")[:top]
    chosen = x[:, order]
    return pd.DataFrame({
        "class_index": order,
        "class": [labels[c] for c in order],
        "point_estimate": base[order],
        "mean": chosen.mean(0),
        "sd": chosen.std(0),
        "p05": np.quantile(chosen, 0.05, axis=0),
        "p95": np.quantile(chosen, 0.95, axis=0),
    })


def set_coverage(samples: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """``(top-k set of the predictor, share of samples whose top-1 class is in it)`` for one case.

    The set is :func:`~hlv_core.certainty.topk_sets` of the predictor's ``scores`` (K,); a
    sample's top-1 is its argmax (ties to the lower index). This is the case-level reading of UA
    top-k accuracy (Stutz et al., section 4)."""
    pset = topk_sets(np.asarray(scores, dtype=float), k)
    top1 = np.argmax(np.asarray(samples, dtype=float), axis=1)
    return pset, float(np.isin(top1, pset).mean())
