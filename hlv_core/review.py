"""Case review and meta-evaluation of metrics against expert pairwise judgements (seed 000, sec. 6).

Experts see an item and the label distributions of two models (names hidden, random left/right
order) and say which output is more accurate: ``"A"``, ``"B"``, ``"both"`` or ``"neither"``.
The judgements live in a SQLite file (:class:`ReviewStore`); :func:`rank_centrality` turns the
pairwise counts into one score per model (Negahban, Oh and Shah 2012; spec ``soft_metrics.md``
section 8.2) and :func:`metric_correlations` correlates every metric of
:mod:`hlv_core.soft_metrics` with those human scores (Pearson r with an exact permutation
p-value; spec 8.3, seed 000 Table 5 / Figure 5).

Count layout (upstream ``compute_pairwise_wins2.py``, spec 8.1, and
``vectors/softmetrics_rank_centrality_toy.json``): for M models, ``comps[i, j]`` = number of
judgements comparing models i and j (symmetric, zero diagonal, ties included) and
``wins[i, j]`` = number of judgements where the *column* model j beat the *row* model i (exactly
one option preferred). Only each reviewer's latest judgement of an (item, model pair) counts.
"""

from __future__ import annotations

import csv
import functools
import itertools
import json
import math
import os
import sqlite3
import threading
import uuid as _uuid
import warnings
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from scipy import linalg
from scipy.sparse.csgraph import connected_components

from .io import DataError

__all__ = [
    "CHOICES",
    "DEFAULT_REGULARIZE",
    "SCHEMA_VERSION",
    "TIES",
    "DisconnectedComparisonWarning",
    "Proposal",
    "ReviewStore",
    "closed_classes",
    "comparison_components",
    "counts_from_judgements",
    "default_db_path",
    "fit_line",
    "human_scores",
    "metric_correlations",
    "model_metrics",
    "pair_table",
    "permutation_pvalue",
    "rank_centrality",
    "stationary_distribution",
    "transition_matrix",
    "visible_distribution",
]

CHOICES: tuple[str, ...] = ("A", "B", "both", "neither")
"""Valid judgements: output A better, output B better, both acceptable, neither acceptable."""

TIES: tuple[str, ...] = ("in_denominator", "decisive_only")
"""Tie conventions of :func:`rank_centrality` (spec 8.2)."""

SCHEMA_VERSION = 2
"""Current ``PRAGMA user_version`` of a review database. Version 1 (the first release) had no
``uuid`` / ``dataset`` columns and no ``own_labels`` table; it is migrated on open."""

DEFAULT_REGULARIZE = 0.1
"""Pseudo-judgements added each way to every model pair when :func:`human_scores` has to
regularise a comparison graph without a unique stationary distribution."""

_MAX_TEXT = 20_000  # longest comment / name accepted (characters)


class DisconnectedComparisonWarning(UserWarning):
    """The comparison graph has no unique stationary distribution; scores were regularised."""


# --------------------------------------------------------------------------------------------
# Rank centrality
# --------------------------------------------------------------------------------------------


def _check_counts(wins: np.ndarray, comps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    wins = np.asarray(wins, dtype=float)
    comps = np.asarray(comps, dtype=float)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or wins.shape != comps.shape:
        raise ValueError(
            f"wins and comps must be square (M, M) arrays of the same shape; got {wins.shape} "
            f"and {comps.shape}."
        )
    if wins.shape[0] < 1:
        raise ValueError("need at least one model.")
    if not (np.isfinite(wins).all() and np.isfinite(comps).all()):
        raise ValueError("wins and comps must be finite.")
    if (wins < 0).any() or (comps < 0).any():
        raise ValueError("wins and comps must be non-negative counts.")
    if not np.allclose(comps, comps.T):
        raise ValueError("comps must be symmetric (comps[i, j] = comps[j, i]).")
    if np.any(np.diag(comps) != 0) or np.any(np.diag(wins) != 0):
        raise ValueError("wins and comps must have a zero diagonal (no model meets itself).")
    if np.any(wins + wins.T > comps + 1e-9):
        i, j = np.argwhere(wins + wins.T > comps + 1e-9)[0]
        raise ValueError(
            f"wins[{i},{j}] + wins[{j},{i}] exceeds comps[{i},{j}]: every win is a comparison "
            "(wins[i, j] counts comparisons of i and j that column j won)."
        )
    return wins, comps


def transition_matrix(
    wins: np.ndarray,
    comps: np.ndarray,
    *,
    ties: Literal["in_denominator", "decisive_only"] = "in_denominator",
    regularize: float = 0.0,
) -> np.ndarray:
    """Rank-centrality transition matrix (spec ``soft_metrics.md`` 8.2, Negahban et al. 2012).

    ``A_ij`` = share of the i-vs-j comparisons won by j:

    * ``ties="in_denominator"`` (default, literal reading of the stored counts):
      ``A_ij = (wins[i,j] + eps) / (comps[i,j] + 2 eps)`` (both/neither judgements stay in the
      denominator, so ``A_ij + A_ji <= 1``);
    * ``ties="decisive_only"`` (what ``choix.rank_centrality`` does):
      ``A_ij = (wins[i,j] + eps) / (wins[i,j] + wins[j,i] + 2 eps)``.

    ``eps = regularize`` pseudo-wins each way for *every* pair i != j (choix's ``alpha``; with
    ``eps > 0`` never-compared pairs get ``A_ij = 1/2`` and the graph becomes complete). With
    ``eps = 0`` only pairs with a non-zero denominator are edges. Then ``P_ij = A_ij / d_max``
    (``d_max`` = largest number of distinct opponents of any model) and
    ``P_ii = 1 - sum_{j != i} P_ij``. Rows sum to 1.
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}; got {ties!r}.")
    try:
        regularize = float(regularize)
    except (TypeError, ValueError):
        raise ValueError(f"regularize must be a number >= 0; got {regularize!r}.") from None
    if not math.isfinite(regularize) or regularize < 0:
        raise ValueError(f"regularize must be a finite number >= 0; got {regularize!r}.")
    wins, comps = _check_counts(wins, comps)
    m = wins.shape[0]
    denom = comps if ties == "in_denominator" else wins + wins.T
    off = ~np.eye(m, dtype=bool)
    edges = off if regularize > 0 else (denom > 0) & off
    num = wins + regularize
    den = denom + 2.0 * regularize
    A = np.zeros((m, m))
    np.divide(num, den, out=A, where=edges)
    degree = edges.sum(axis=1)
    d_max = int(degree.max()) if m > 1 else 0
    P = A / d_max if d_max > 0 else A
    P[np.diag_indices(m)] = 0.0
    P[np.diag_indices(m)] = 1.0 - P.sum(axis=1)
    return P


def comparison_components(comps: np.ndarray) -> np.ndarray:
    """Connected-component label of every model in the undirected comparison graph
    (edge i-j when ``comps[i, j] > 0``). One label = connected."""
    comps = np.asarray(comps, dtype=float)
    _, labels = connected_components(comps > 0, directed=False)
    return labels


def closed_classes(P: np.ndarray) -> list[np.ndarray]:
    """Closed communicating classes of a Markov chain with transition matrix ``P`` (strongly
    connected components with no edge leaving them). The stationary distribution is unique
    exactly when there is one closed class."""
    P = np.asarray(P, dtype=float)
    adjacency = (P > 0) & ~np.eye(P.shape[0], dtype=bool)
    n, labels = connected_components(adjacency, directed=True, connection="strong")
    src, dst = np.nonzero(adjacency)
    leaving = labels[src] != labels[dst]
    open_ = np.zeros(n, dtype=bool)
    open_[labels[src[leaving]]] = True
    return [np.flatnonzero(labels == c) for c in range(n) if not open_[c]]


def stationary_distribution(P: np.ndarray) -> np.ndarray:
    """pi with ``pi^T P = pi^T`` and ``sum(pi) = 1`` for a chain with a unique stationary
    distribution, by one dense linear solve (``scipy.linalg.solve`` on ``(P^T - I)`` with its
    last equation replaced by the normalisation). Raises ValueError when pi is not unique."""
    P = np.asarray(P, dtype=float)
    m = P.shape[0]
    if m == 1:
        return np.ones(1)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise ValueError(
            f"the comparison chain has {len(classes)} closed classes "
            f"({[c.tolist() for c in classes]}), so the stationary distribution is not unique."
        )
    system = P.T - np.eye(m)
    system[-1, :] = 1.0
    rhs = np.zeros(m)
    rhs[-1] = 1.0
    pi = linalg.solve(system, rhs)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def rank_centrality(
    wins: np.ndarray,
    comps: np.ndarray,
    *,
    ties: Literal["in_denominator", "decisive_only"] = "in_denominator",
    regularize: float = 0.0,
) -> np.ndarray:
    """Rank Centrality scores of M models from pairwise counts (seed 000 section 6.1;
    Negahban, Oh and Shah 2012; spec ``soft_metrics.md`` 8.2).

    ``wins[i, j]`` = judgements where column model j beat row model i; ``comps[i, j]`` =
    judgements comparing i and j (symmetric, zero diagonal, ties included). The transition
    matrix is :func:`transition_matrix`; the scores are its stationary distribution pi
    (``pi^T P = pi^T``, ``sum pi = 1``; higher = better). ``d_max`` scaling does not change pi.

    A chain with more than one closed class (e.g. a disconnected comparison graph, or two
    models that never lost to anyone) has no unique pi: this raises ValueError unless
    ``regularize > 0`` (see :func:`transition_matrix`; :func:`human_scores` does that with a
    warning). Returns an (M,) array summing to 1.
    """
    P = transition_matrix(wins, comps, ties=ties, regularize=regularize)
    try:
        return stationary_distribution(P)
    except ValueError as exc:
        raise ValueError(
            f"rank centrality is not unique for these comparisons: {exc} Collect comparisons "
            "that connect the models, or pass regularize > 0 (pseudo-judgements each way for "
            "every pair)."
        ) from None


def human_scores(
    wins: np.ndarray,
    comps: np.ndarray,
    models: Sequence[str],
    *,
    regularize: float = 0.0,
    auto_regularize: float = DEFAULT_REGULARIZE,
) -> tuple[pd.DataFrame, list[str]]:
    """Rank-centrality scores of ``models`` with both tie conventions, as a table with columns
    ``model, score_in_denominator, rank_in_denominator, score_decisive_only,
    rank_decisive_only, n_comparisons`` (rank 1 = best; ties in score share the lower rank).

    When a convention has no unique stationary distribution at the requested ``regularize``
    (disconnected comparison graph, a pair without decisive judgements, ...), it is recomputed
    with ``max(regularize, auto_regularize)`` and a :class:`DisconnectedComparisonWarning` is
    issued; the notes (second return value) say what was done, for the UI.
    """
    models = list(models)
    notes: list[str] = []
    out = pd.DataFrame({"model": models})
    comps_arr = np.asarray(comps, dtype=float)
    labels = comparison_components(comps_arr)
    if len(models) > 1 and len(np.unique(labels)) > 1:
        groups = [[models[i] for i in np.flatnonzero(labels == c)] for c in np.unique(labels)]
        notes.append(
            f"The comparison graph is disconnected ({len(groups)} groups of models never "
            f"compared with each other: {groups}); scores across groups are not identified by "
            "the data."
        )
    for ties in TIES:
        eps = regularize
        try:
            score = rank_centrality(wins, comps, ties=ties, regularize=eps)
        except ValueError:
            if auto_regularize <= 0:
                raise
            eps = max(regularize, auto_regularize)
            score = rank_centrality(wins, comps, ties=ties, regularize=eps)
            message = (
                f"Rank centrality ({ties}) has no unique solution on these judgements; "
                f"regularised with {eps:g} pseudo-judgements each way for every model pair."
            )
            warnings.warn(message, DisconnectedComparisonWarning, stacklevel=2)
            notes.append(message)
        out[f"score_{ties}"] = score
        out[f"rank_{ties}"] = pd.Series(score).rank(ascending=False, method="min").astype(int)
        out[f"regularize_{ties}"] = eps
    out["n_comparisons"] = comps_arr.sum(axis=1).astype(int)
    order = ["model", *(f"score_{t}" for t in TIES), *(f"rank_{t}" for t in TIES),
             *(f"regularize_{t}" for t in TIES), "n_comparisons"]
    return out[order], notes


# --------------------------------------------------------------------------------------------
# Metric vs human correlation
# --------------------------------------------------------------------------------------------


def model_metrics(
    P: np.ndarray, Q_by_model: Mapping[str, np.ndarray], *, multilabel: bool = False
) -> pd.DataFrame:
    """Every metric of :func:`hlv_core.soft_metrics.evaluate` per model: a DataFrame indexed by
    model with one column per metric. ``P`` is (N, K); each ``Q`` is (N, K) on the same rows."""
    from . import soft_metrics as sm

    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
        for model, Q in Q_by_model.items():
            rows[model] = sm.evaluate(P, Q, multilabel=multilabel)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    return table


def fit_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """Least-squares line ``y = slope * x + intercept`` over the finite pairs (the trend drawn in
    Figure 5 of seed 000); None with fewer than two distinct x values."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2 or np.ptp(x[ok]) == 0:
        return None
    slope, intercept = np.polyfit(x[ok], y[ok], 1)
    return float(slope), float(intercept)


@functools.lru_cache(maxsize=12)
def _all_permutations(n: int) -> np.ndarray:
    """All n! permutations of range(n) as an (n!, n) array (n <= 10)."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.int16)


def _pearson_rows(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of every row of X (R, n) with y (n,)."""
    Xc = X - X.mean(axis=1, keepdims=True)
    yc = y - y.mean()
    return (Xc @ yc) / np.sqrt((Xc * Xc).sum(axis=1) * (yc @ yc))


def permutation_pvalue(
    x: np.ndarray,
    y: np.ndarray,
    *,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    exact_max: int = 9,
    n_resamples: int = 9999,
    seed: int = 0,
) -> tuple[float, float, str]:
    """(r, p, description) of a permutation test of Pearson's r between x and y.

    Null distribution: r of x re-paired with y by every permutation (all n! when
    ``n <= exact_max``, the identity included; else ``n_resamples`` uniform random
    permutations, p = (hits + 1) / (n_resamples + 1)). Hits: ``two-sided`` |r_perm| >= |r|,
    ``greater`` r_perm >= r, ``less`` r_perm <= r (a relative tolerance of 1e-12 counts ties
    of floating-point noise as hits)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = x.size
    r = float(_pearson_rows(x[None, :], y)[0])
    if n <= exact_max:
        perms = _all_permutations(n)
        test = f"exact permutation ({perms.shape[0]} pairings)"
    else:
        rng = np.random.default_rng(seed)
        perms = rng.permuted(np.tile(np.arange(n), (n_resamples, 1)), axis=1)
        test = f"Monte Carlo permutation ({n_resamples} pairings, seed {seed})"
    null = _pearson_rows(x[perms], y)
    slack = 1e-12 * max(1.0, abs(r))
    if alternative == "greater":
        hits = null >= r - slack
    elif alternative == "less":
        hits = null <= r + slack
    else:
        hits = np.abs(null) >= abs(r) - slack
    count = int(hits.sum())
    p = count / null.size if n <= exact_max else (count + 1) / (n_resamples + 1)
    return r, float(min(1.0, p)), test


def metric_correlations(
    metrics: pd.DataFrame,
    scores: pd.Series | Mapping[str, float],
    *,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    exact_max_models: int = 9,
    n_resamples: int = 9999,
    seed: int = 0,
) -> pd.DataFrame:
    """Pearson r between each metric's per-model values and the human scores, with a permutation
    p-value (seed 000 Table 5; spec ``soft_metrics.md`` 8.3).

    ``metrics``: DataFrame indexed by model, one column per metric (:func:`model_metrics`);
    ``scores``: human score per model (e.g. rank centrality). For each metric the models with a
    finite value are used (n >= 3 needed, else r and p are NaN with a note). The p-value is the
    share of pairings of the metric values with the scores whose r is at least as extreme
    (``alternative``: ``"two-sided"`` |r| >= |r_obs| (default; the paper does not say),
    ``"greater"`` r >= r_obs, ``"less"``): exact over all n! pairings when
    ``n <= exact_max_models``, else ``n_resamples`` random pairings (seeded); see
    :func:`permutation_pvalue`. The smallest attainable exact p is 1/n! one-sided (2/n!
    two-sided, by the mirror pairing): with 3 models p >= 1/3, so significance needs n >= 5.

    Columns: ``metric, r, p_value, alternative, n_models, test, note``.
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be two-sided, greater or less; got {alternative!r}.")
    scores = pd.Series(scores, dtype=float)
    if exact_max_models > 10:
        raise ValueError("exact_max_models must be <= 10 (10! pairings).")
    rows = []
    for metric in metrics.columns:
        values = pd.to_numeric(metrics[metric], errors="coerce").astype(float)
        joined = pd.concat([values.rename("x"), scores.rename("y")], axis=1, join="inner")
        joined = joined[np.isfinite(joined["x"]) & np.isfinite(joined["y"])]
        n = len(joined)
        row = {"metric": metric, "r": math.nan, "p_value": math.nan, "alternative": alternative,
               "n_models": n, "test": "", "note": ""}
        dropped = sorted(set(values.index) - set(joined.index))
        if dropped:
            row["note"] = f"undefined for {dropped}; "
        x, y = joined["x"].to_numpy(), joined["y"].to_numpy()
        if n < 3:
            row["note"] += "fewer than 3 models with a value"
        elif np.ptp(x) == 0 or np.ptp(y) == 0:
            row["note"] += "constant values: correlation undefined"
        else:
            row["r"], row["p_value"], row["test"] = permutation_pvalue(
                x, y, alternative=alternative, exact_max=exact_max_models,
                n_resamples=n_resamples, seed=seed)
        row["note"] = row["note"].strip("; ")
        rows.append(row)
    return pd.DataFrame(rows, columns=["metric", "r", "p_value", "alternative", "n_models",
                                       "test", "note"])


# --------------------------------------------------------------------------------------------
# Judgement tables
# --------------------------------------------------------------------------------------------


def _latest(judgements: pd.DataFrame) -> pd.DataFrame:
    """Each reviewer's latest judgement per (dataset, item, unordered model pair) (spec 8.1)."""
    if judgements.empty:
        return judgements
    lo = np.minimum(judgements["model_a"].to_numpy(dtype=object),
                    judgements["model_b"].to_numpy(dtype=object))
    hi = np.maximum(judgements["model_a"].to_numpy(dtype=object),
                    judgements["model_b"].to_numpy(dtype=object))
    keyed = judgements.assign(_lo=lo, _hi=hi)
    keyed = keyed.sort_values(["created_at", "id"], kind="stable")
    keyed = keyed.drop_duplicates(["reviewer", "dataset", "item_id", "_lo", "_hi"], keep="last")
    return keyed.drop(columns=["_lo", "_hi"]).sort_values("id")


def counts_from_judgements(judgements: pd.DataFrame, models: Sequence[str]
                           ) -> tuple[np.ndarray, np.ndarray]:
    """``(wins, comps)`` of the given judgement rows (columns ``model_a, model_b, choice``) in
    the layout of spec 8.1 (row = loser, column = winner); rows are used as given."""
    models = list(models)
    m = len(models)
    if len(set(models)) != m:
        raise ValueError("models must be distinct.")
    wins = np.zeros((m, m), dtype=np.int64)
    comps = np.zeros((m, m), dtype=np.int64)
    if judgements.empty:
        return wins, comps
    index = pd.Index(models)
    a = index.get_indexer(judgements["model_a"])
    b = index.get_indexer(judgements["model_b"])
    keep = (a >= 0) & (b >= 0) & (a != b)
    a, b = a[keep], b[keep]
    choice = judgements["choice"].to_numpy(dtype=object)[keep]
    np.add.at(comps, (a, b), 1)
    np.add.at(comps, (b, a), 1)
    a_won = choice == "A"
    b_won = choice == "B"
    np.add.at(wins, (b[a_won], a[a_won]), 1)  # row = loser, column = winner
    np.add.at(wins, (a[b_won], b[b_won]), 1)
    return wins, comps


def pair_table(judgements: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """Judgements per unordered model pair: ``model_1, model_2, n, model_1_wins, model_2_wins,
    both, neither, decisive_share`` (model_1 < model_2 in ``models`` order, default sorted
    names). Uses the rows given (pass ``ReviewStore.judgements(latest_only=True)`` for the
    counts that feed rank centrality)."""
    if models is None:
        models = sorted(set(judgements["model_a"]) | set(judgements["model_b"])) \
            if not judgements.empty else []
    models = list(models)
    wins, comps = counts_from_judgements(judgements, models)
    both = np.zeros_like(comps)
    neither = np.zeros_like(comps)
    if not judgements.empty:
        index = pd.Index(models)
        a = index.get_indexer(judgements["model_a"])
        b = index.get_indexer(judgements["model_b"])
        choice = judgements["choice"].to_numpy(dtype=object)
        for target, name in ((both, "both"), (neither, "neither")):
            sel = (a >= 0) & (b >= 0) & (choice == name)
            np.add.at(target, (a[sel], b[sel]), 1)
            np.add.at(target, (b[sel], a[sel]), 1)
    i, j = np.triu_indices(len(models), k=1)
    names = np.array(models, dtype=object)
    n = comps[i, j]
    decisive = wins[j, i] + wins[i, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, decisive / np.maximum(n, 1), np.nan)
    return pd.DataFrame({
        "model_1": names[i], "model_2": names[j], "n": n,
        "model_1_wins": wins[j, i], "model_2_wins": wins[i, j],
        "both": both[i, j], "neither": neither[i, j], "decisive_share": share,
    })


def visible_distribution(probs: Mapping[str, float] | pd.Series, *, threshold: float = 0.0
                         ) -> pd.DataFrame:
    """What a reviewer sees of one model output: labels with probability > ``threshold``,
    sorted by probability (descending; ties by label inventory order as given), seed 000
    section 6.1 (footnote 19 uses 0.1 for multilabel; spec 8.1 default 0)."""
    series = pd.Series(probs, dtype=float)
    order = np.arange(len(series))
    frame = pd.DataFrame({"label": series.index.astype(str), "probability": series.to_numpy(),
                          "_order": order})
    frame = frame[frame["probability"] > threshold]
    frame = frame.sort_values(["probability", "_order"], ascending=[False, True], kind="stable")
    return frame.drop(columns="_order").reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Store
# --------------------------------------------------------------------------------------------


def default_db_path() -> Path:
    """``$HLV_REVIEW_DB`` if set, else ``$XDG_DATA_HOME/hlv-lens/reviews.sqlite3`` (default
    ``~/.local/share/hlv-lens/reviews.sqlite3``)."""
    env = os.environ.get("HLV_REVIEW_DB")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hlv-lens" / "reviews.sqlite3"


class Proposal(NamedTuple):
    """The next comparison to show: ``model_a`` on the left (A), ``model_b`` on the right (B)."""

    item_id: str
    model_a: str
    model_b: str
    pair_judgements: int  # judgements of this model pair so far (all reviewers)
    remaining: int  # (item, pair) combinations this reviewer has not judged yet


_JUDGEMENT_COLUMNS = ["id", "uuid", "reviewer", "item_id", "model_a", "model_b", "choice",
                      "comment", "dataset", "created_at"]

_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS judgements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    reviewer TEXT NOT NULL,
    item_id TEXT NOT NULL,
    model_a TEXT NOT NULL,
    model_b TEXT NOT NULL,
    choice TEXT NOT NULL CHECK (choice IN ('A', 'B', 'both', 'neither')),
    comment TEXT NOT NULL DEFAULT '',
    dataset TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS judgements_reviewer ON judgements (dataset, reviewer);
CREATE TABLE IF NOT EXISTS own_labels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    reviewer TEXT NOT NULL,
    item_id TEXT NOT NULL,
    labels TEXT NOT NULL,
    dataset TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS own_labels_reviewer ON own_labels (dataset, reviewer, item_id);
"""

# Migration 1 -> 2: the first schema had no uuid/dataset columns and no own_labels table.
_MIGRATE_1_TO_2 = """
ALTER TABLE judgements ADD COLUMN uuid TEXT;
ALTER TABLE judgements ADD COLUMN dataset TEXT NOT NULL DEFAULT '';
UPDATE judgements SET uuid = lower(hex(randomblob(16))) WHERE uuid IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS judgements_uuid ON judgements (uuid);
"""


def _filters(**equal_to: str | None) -> tuple[str, list[str]]:
    """`` WHERE a = ? AND b = ?`` for the given non-None column values, with its parameters
    (column names are fixed by the caller; values are always bound, never formatted in)."""
    columns = [c for c, v in equal_to.items() if v is not None]
    where = (" WHERE " + " AND ".join(f"{c} = ?" for c in columns)) if columns else ""
    return where, [equal_to[c] for c in columns]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _text(value: object, name: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string; got {type(value).__name__}.")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must not be empty.")
    if len(value) > _MAX_TEXT:
        raise ValueError(f"{name} is longer than {_MAX_TEXT} characters.")
    if "\x00" in value:
        raise ValueError(f"{name} must not contain NUL characters.")
    return value


class ReviewStore:
    """Expert judgements in a SQLite file (stdlib ``sqlite3``).

    * WAL journal, ``busy_timeout`` (``timeout`` seconds), one connection per thread and
      process, so any number of ``ReviewStore`` objects, threads and processes may write the
      same file;
      every write is one ``BEGIN IMMEDIATE`` transaction (committed rows survive a crash).
    * Schema versioned with ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`); older files are
      migrated on open inside a write transaction (safe when several processes open at once).
    * Parameterised queries only. Every judgement gets a uuid, so re-importing an export adds
      nothing twice.
    * Own labels (what the reviewer thinks before seeing the models) in table ``own_labels``.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, timeout: float = 60.0) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.timeout = float(timeout)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._initialise()

    # -- connections -----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                              check_same_thread=True)
        con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        con.execute("PRAGMA synchronous = FULL")
        return con

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use; a forked child opens its own).
        Keeping it open avoids a WAL checkpoint + fsync every time the last connection
        closes."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid() or getattr(local, "con", None) is None:
            local.con = self._open()
            local.pid = os.getpid()
        return local.con

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        con = getattr(self._local, "con", None)
        if con is not None and getattr(self._local, "pid", None) == os.getpid():
            con.close()
        self._local.con = None

    @contextmanager
    def _write(self):
        con = self._connect()
        con.execute("BEGIN IMMEDIATE")
        try:
            yield con
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    @contextmanager
    def _read(self):
        yield self._connect()

    def _initialise(self) -> None:
        mode = self._connect().execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":  # pragma: no cover - e.g. some network filesystems
            warnings.warn(f"SQLite journal mode is {mode}, not WAL, for {self.path}",
                          RuntimeWarning, stacklevel=3)
        with self._write() as con:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version > SCHEMA_VERSION:
                raise DataError(
                    f"review database schema version {version} is newer than this HLV Lens "
                    f"({SCHEMA_VERSION}).", source=str(self.path),
                    fix="upgrade HLV Lens or point HLV_REVIEW_DB at another file.")
            if version == 0 and "judgements" in tables:
                version = 1  # a version-1 file written before user_version was set
            if version == 1:
                for statement in _MIGRATE_1_TO_2.strip().split(";"):
                    if statement.strip():
                        con.execute(statement)
            if version < SCHEMA_VERSION:
                for statement in _SCHEMA_V2.strip().split(";"):
                    if statement.strip():
                        con.execute(statement)
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        with self._read() as con:
            return int(con.execute("PRAGMA user_version").fetchone()[0])

    # -- writes ----------------------------------------------------------------------------

    @staticmethod
    def _validate(reviewer, item_id, model_a, model_b, choice, comment, dataset) -> tuple:
        _text(reviewer, "reviewer")
        _text(item_id, "item_id")
        _text(model_a, "model_a")
        _text(model_b, "model_b")
        if model_a == model_b:
            raise ValueError(f"model_a and model_b must differ; both are {model_a!r}.")
        if choice not in CHOICES:
            raise ValueError(f"choice must be one of {CHOICES}; got {choice!r}.")
        _text(comment, "comment", allow_empty=True)
        _text(dataset, "dataset", allow_empty=True)
        return reviewer, item_id, model_a, model_b, choice, comment, dataset

    def add(
        self,
        reviewer: str,
        item_id: str,
        model_a: str,
        model_b: str,
        choice: str,
        *,
        comment: str = "",
        dataset: str = "",
    ) -> int:
        """Record one judgement (``model_a`` shown as A/left, ``model_b`` as B/right) in its own
        transaction; returns the new row id. Text is stored verbatim."""
        values = self._validate(reviewer, item_id, model_a, model_b, choice, comment, dataset)
        with self._write() as con:
            cursor = con.execute(
                "INSERT INTO judgements (uuid, reviewer, item_id, model_a, model_b, choice, "
                "comment, dataset, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (str(_uuid.uuid4()), *values, _now()),
            )
            return int(cursor.lastrowid)

    def add_many(self, rows: Iterable[Mapping[str, str]]) -> int:
        """Insert many judgements (dicts with the :meth:`add` arguments) in ONE transaction;
        returns the number inserted. All rows are validated before anything is written."""
        records = []
        for row in rows:
            values = self._validate(row["reviewer"], row["item_id"], row["model_a"],
                                    row["model_b"], row["choice"], row.get("comment", ""),
                                    row.get("dataset", ""))
            records.append((str(_uuid.uuid4()), *values, _now()))
        with self._write() as con:
            con.executemany(
                "INSERT INTO judgements (uuid, reviewer, item_id, model_a, model_b, choice, "
                "comment, dataset, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", records)
        return len(records)

    def add_own_labels(self, reviewer: str, item_id: str, labels: Sequence[str], *,
                       dataset: str = "") -> int:
        """Record the labels the reviewer chose for an item before seeing any model (seed 000
        section 6.1); returns the row id."""
        _text(reviewer, "reviewer")
        _text(item_id, "item_id")
        _text(dataset, "dataset", allow_empty=True)
        labels = [_text(label, "label") for label in labels]
        with self._write() as con:
            cursor = con.execute(
                "INSERT INTO own_labels (uuid, reviewer, item_id, labels, dataset, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (str(_uuid.uuid4()), reviewer, item_id, json.dumps(labels), dataset, _now()),
            )
            return int(cursor.lastrowid)

    # -- reads -----------------------------------------------------------------------------

    def judgements(self, *, dataset: str | None = None, reviewer: str | None = None,
                   latest_only: bool = False) -> pd.DataFrame:
        """One row per judgement: ``id, uuid, reviewer, item_id, model_a, model_b, choice,
        comment, dataset, created_at`` (ISO 8601 UTC), in insertion order. Optional filters;
        ``latest_only`` keeps each reviewer's latest judgement per (item, model pair)."""
        where, params = _filters(dataset=dataset, reviewer=reviewer)
        query = f"SELECT {', '.join(_JUDGEMENT_COLUMNS)} FROM judgements{where} ORDER BY id"
        with self._read() as con:
            rows = con.execute(query, params).fetchall()
        frame = pd.DataFrame(rows, columns=_JUDGEMENT_COLUMNS).astype({"id": "int64"})
        return _latest(frame).reset_index(drop=True) if latest_only else frame

    def own_labels(self, *, dataset: str | None = None, reviewer: str | None = None
                   ) -> pd.DataFrame:
        """Recorded own labels: ``id, uuid, reviewer, item_id, labels`` (list), ``dataset,
        created_at``."""
        where, params = _filters(dataset=dataset, reviewer=reviewer)
        query = ("SELECT id, uuid, reviewer, item_id, labels, dataset, created_at FROM own_labels"
                 f"{where} ORDER BY id")
        with self._read() as con:
            rows = con.execute(query, params).fetchall()
        frame = pd.DataFrame(rows, columns=["id", "uuid", "reviewer", "item_id", "labels",
                                            "dataset", "created_at"])
        frame["labels"] = [json.loads(x) for x in frame["labels"]]
        return frame

    def __len__(self) -> int:
        with self._read() as con:
            return int(con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0])

    def pair_counts(self, models: Sequence[str], *, dataset: str | None = None,
                    latest_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``(wins, comps)`` (M, M) integer arrays for ``models`` in the given order (layout of
        spec 8.1 / the toy vector: ``wins[i, j]`` = judgements in which column model j beat row
        model i; ``comps`` symmetric, ties included). Judgements of other models are ignored;
        by default only each reviewer's latest judgement per (item, pair) counts (upstream)."""
        frame = self.judgements(dataset=dataset, latest_only=latest_only)
        return counts_from_judgements(frame, models)

    # -- proposer --------------------------------------------------------------------------

    def next_pair(
        self,
        reviewer: str,
        items: Sequence[str],
        models: Sequence[str],
        *,
        entropy: Sequence[float] | None = None,
        dataset: str = "",
        seed: int | None = None,
    ) -> Proposal | None:
        """Propose the next (item, model pair) for ``reviewer`` (seed 000 section 6.1).

        1. Balance: among the model pairs for which this reviewer still has unjudged items,
           take the pair with the fewest judgements so far (all reviewers, this ``dataset``).
        2. Contested first: among that pair's items the reviewer has not judged, the highest
           ``entropy`` (human label entropy, aligned with ``items``); then the fewest
           judgements of that (item, pair); remaining ties at random.
        3. Never repeats an (item, pair) for a reviewer; left/right order is random.

        Returns None when the reviewer has judged every (item, pair). ``seed`` makes the random
        choices reproducible (None = fresh randomness)."""
        _text(reviewer, "reviewer")
        items = [str(x) for x in items]
        models = list(dict.fromkeys(str(m) for m in models))
        if len(models) < 2 or not items:
            return None
        rng = np.random.default_rng(seed)
        ent = np.zeros(len(items)) if entropy is None else np.asarray(entropy, dtype=float)
        if ent.shape != (len(items),):
            raise ValueError(f"entropy must have one value per item ({len(items)}).")
        ent = np.nan_to_num(ent, nan=-np.inf)
        pairs = list(itertools.combinations(sorted(models), 2))
        pair_index = {p: k for k, p in enumerate(pairs)}
        item_index = pd.Index(items)
        done = self.judgements(dataset=dataset)
        n_items, n_pairs = len(items), len(pairs)
        seen = np.zeros((n_items, n_pairs), dtype=bool)  # by this reviewer
        per_cell = np.zeros((n_items, n_pairs), dtype=np.int64)  # all reviewers
        pair_total = np.zeros(n_pairs, dtype=np.int64)
        if not done.empty:
            lo = np.minimum(done["model_a"].to_numpy(dtype=object),
                            done["model_b"].to_numpy(dtype=object))
            hi = np.maximum(done["model_a"].to_numpy(dtype=object),
                            done["model_b"].to_numpy(dtype=object))
            p = np.array([pair_index.get((a, b), -1) for a, b in zip(lo, hi, strict=True)],
                         dtype=np.int64)
            it = item_index.get_indexer(done["item_id"])
            ok = p >= 0
            np.add.at(pair_total, p[ok], 1)
            ok_cell = ok & (it >= 0)
            np.add.at(per_cell, (it[ok_cell], p[ok_cell]), 1)
            mine = ok_cell & (done["reviewer"].to_numpy(dtype=object) == reviewer)
            seen[it[mine], p[mine]] = True
        open_per_pair = (~seen).sum(axis=0)
        remaining = int(open_per_pair.sum())
        if remaining == 0:
            return None
        candidates = np.flatnonzero(open_per_pair > 0)
        fewest = pair_total[candidates].min()
        candidates = candidates[pair_total[candidates] == fewest]
        k = int(rng.choice(candidates))
        free = np.flatnonzero(~seen[:, k])
        # lexsort: last key is primary -> entropy desc, then fewer judgements, then random.
        order = np.lexsort((rng.random(free.size), per_cell[free, k], -ent[free]))
        item = items[int(free[order[0]])]
        a, b = pairs[k]
        if rng.random() < 0.5:
            a, b = b, a
        return Proposal(item, a, b, int(pair_total[k]), remaining)

    # -- CSV -------------------------------------------------------------------------------

    def export_csv(self, path: str | os.PathLike) -> int:
        """Write every judgement (all columns, uuid included) as UTF-8 CSV; returns the count.
        Text is written verbatim (a spreadsheet may interpret cells starting with ``=``)."""
        frame = self.judgements()
        frame.drop(columns="id").to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
        return len(frame)

    def import_csv(self, path: str | os.PathLike) -> int:
        """Add the judgements of a CSV (columns ``reviewer, item_id, model_a, model_b, choice``;
        optional ``comment, dataset, created_at, uuid``) in one transaction; returns the number
        of NEW rows. Rows whose uuid is already stored are skipped; rows without a uuid get a
        deterministic one (uuid5 of their content), so importing the same file twice adds
        nothing. Raises :class:`~hlv_core.io.DataError` naming the row for bad input (nothing
        is written then)."""
        source = str(path)
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise DataError(f"cannot read this CSV ({exc}).", source=source,
                            fix="export judgements with HLV Lens or save the file as UTF-8 "
                                "CSV.") from None
        required = ["reviewer", "item_id", "model_a", "model_b", "choice"]
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise DataError(f"missing column(s) {missing}.", source=source,
                            fix=f"the header must include {required}.")
        for column, default in (("comment", ""), ("dataset", ""), ("created_at", ""),
                                ("uuid", "")):
            if column not in frame.columns:
                frame[column] = default
        records = []
        for position, row in enumerate(frame.itertuples(index=False), start=2):
            try:
                values = self._validate(row.reviewer, row.item_id, row.model_a, row.model_b,
                                        row.choice, row.comment, row.dataset)
            except ValueError as exc:
                raise DataError(str(exc), source=source, row=position,
                                fix=f"choice must be one of {list(CHOICES)}; names must not "
                                    "be empty.") from None
            created = row.created_at or _now()
            if row.created_at:
                try:
                    datetime.fromisoformat(row.created_at)
                except ValueError:
                    raise DataError(f"created_at {row.created_at!r} is not an ISO timestamp.",
                                    source=source, row=position, column="created_at",
                                    fix="use e.g. 2025-01-31T12:00:00+00:00.") from None
            key = row.uuid or str(_uuid.uuid5(_uuid.NAMESPACE_URL, json.dumps(
                [*values, row.created_at])))
            records.append((key, *values, created))
        with self._write() as con:
            before = con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]
            con.executemany(
                "INSERT OR IGNORE INTO judgements (uuid, reviewer, item_id, model_a, model_b, "
                "choice, comment, dataset, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                records)
            after = con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]
        return int(after - before)
