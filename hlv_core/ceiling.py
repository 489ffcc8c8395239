"""The human ceiling: every annotator scored against the others, with the model beside it.

An HLV Lens definition on the metrics of Kurniawan, Mistica, Baldwin & Lau, "Training and
Evaluating with Human Label Variation: An Empirical Study" (arXiv 2502.01891, sections 3.1-3.3):
for annotator j and item i that j labelled, the target is ``P^{-j}_i`` = the label distribution of
the *other* annotators of i, and j's "prediction" is the one-hot of j's label. Scoring every
annotator this way gives the range a model score should be read against; the model is scored on
the very same targets (a paired comparison).

Every metric is a function of item-level sums, so all annotators (and all bootstrap replicates)
are computed at once from per-row features summed per annotator with ``np.add.reduceat``; the
formulas and tie-breaks are those of :mod:`hlv_core.soft_metrics` (argmax to the lowest index,
``zero_division=1`` for hard P/R/F1, NaN for 0/0 soft P/R/F1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from . import soft_metrics as sm
from ._rows import long_rows

__all__ = ["CEILING_METRICS", "CEILING_METRICS_MULTILABEL", "HumanCeilingResult",
           "ENTROPY_REASON", "human_ceiling", "prf_metrics"]

#: The 12 metrics of Kurniawan et al. (multiclass), in table order.
CEILING_METRICS = ("hard_accuracy", "hard_micro_f1", "hard_macro_precision", "hard_macro_recall",
                   "hard_macro_f1", "soft_accuracy", "soft_micro_f1", "soft_macro_precision",
                   "soft_macro_recall", "soft_macro_f1", "po_jsd", "entropy_correlation")
#: The multi-label set (no accuracies).
CEILING_METRICS_MULTILABEL = tuple(m for m in CEILING_METRICS
                                   if m not in ("hard_accuracy", "soft_accuracy"))

ENTROPY_REASON = ("a single annotator's label has zero entropy: the entropy of a one-hot "
                  "'prediction' is constant, so Pearson's r is 0/0 (undefined) for every human")


@dataclass(frozen=True)
class HumanCeilingResult:
    r"""Result of :func:`human_ceiling`.

    .. math:: P^{-j}_{ik} = \frac{\#\{a \ne j : y_{ai} = k\}}{\#\{a \ne j \text{ labelling } i\}}, \quad
       Q^{j}_{i} = e_{y_{ji}}, \quad \mathrm{ceiling}_m = \frac{1}{|J|} \sum_{j \in J} m(P^{-j}, Q^{j})

    (every metric m of Kurniawan et al. 2025, sections 3.1-3.3, averaged over the scored
    annotators J).

    Attributes
    ----------
    per_annotator : pandas.DataFrame
        One row per (scored annotator, metric): ``annotator, metric, value, lower, upper,
        n_valid, n_items``.
    summary : pandas.DataFrame
        Indexed by metric: ``value`` (the ceiling), ``lower, upper``, ``n_defined``, ``n_valid``.
    annotators : pandas.DataFrame
        Every annotator with ``n_items``, ``scored`` and ``reason``.
    model_same_targets : pandas.DataFrame or None
        Indexed by metric: ``model, ceiling, difference, n_defined, above_ceiling``.
    model_per_annotator : pandas.DataFrame or None
        ``annotator, metric, model, human, difference``.
    model_full : dict or None
        The model against the full soft label.
    reasons : dict of str to str
        Why a metric is undefined.
    notes : tuple of str
        Caveats to show.
    n_boot, seed : int
    level : float
    multilabel : bool

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1-3.3 (the metrics).
    .. [2] Efron and Tibshirani (1993). "An Introduction to the Bootstrap". Chapter 13
       (percentile intervals).

    Examples
    --------
    Three annotators, two items; annotator c disagrees with the others on i1:

    >>> import pandas as pd
    >>> annotations = pd.DataFrame({"item_id": ["i1", "i1", "i1", "i2", "i2", "i2"],
    ...                             "annotator_id": ["a", "b", "c"] * 2,
    ...                             "label": ["x", "x", "y", "y", "y", "y"]})
    >>> result = human_ceiling(annotations, min_items=1, n_boot=20, seed=0)
    >>> print(result.per_annotator.query("metric == 'hard_accuracy'")["value"].tolist())
    [1.0, 1.0, 0.5]
    """

    per_annotator: pd.DataFrame
    summary: pd.DataFrame
    annotators: pd.DataFrame
    model_same_targets: pd.DataFrame | None
    model_per_annotator: pd.DataFrame | None
    model_full: dict | None
    reasons: dict[str, str]
    notes: tuple[str, ...]
    n_boot: int
    seed: int
    level: float
    multilabel: bool


# ------------------------------------------------------------------------- features
def _hard(P: np.ndarray, multilabel: bool) -> np.ndarray:
    if multilabel:
        return (P > 0.5).astype(float)
    return np.eye(P.shape[1])[np.argmax(P, axis=1)]


def _features(P: np.ndarray, Q: np.ndarray, multilabel: bool) -> tuple[np.ndarray, dict]:
    """Per-row features whose (weighted) sums give every metric: (R, F) matrix and the column
    slices of each block."""
    K = P.shape[1]
    T, Rh = _hard(P, multilabel), _hard(Q, multilabel)
    Tp, Rp = (1.0 - T, 1.0 - Rh) if multilabel and K == 1 else (T, Rh)  # reference quirk
    blocks = {
        "one": np.ones((P.shape[0], 1)),
        "tr": T * Rh, "t": T, "r": Rh,
    }
    if multilabel and K == 1:
        blocks.update({"tr_p": Tp * Rp, "t_p": Tp, "r_p": Rp})
    blocks.update({
        "m": np.minimum(P, Q), "p": P, "q": Q,
        "jsd": sm.jsd_rows(np.stack([P, 1 - P], -1), np.stack([Q, 1 - Q], -1)).mean(
            axis=1, keepdims=True) if multilabel else sm.jsd_rows(P, Q)[:, None],
    })
    cols, start, mats = {}, 0, []
    for key, mat in blocks.items():
        cols[key] = slice(start, start + mat.shape[1])
        start += mat.shape[1]
        mats.append(mat)
    for key in ("tr", "t", "r"):
        cols.setdefault(key + "_p", cols[key])
    return np.hstack(mats), cols


def prf_metrics(S: np.ndarray, cols: dict, multilabel: bool) -> dict[str, np.ndarray]:
    r"""Every metric except entropy correlation from per-row feature sums.

    .. math:: \mathrm{soft\,acc} = \frac{\sum_i \sum_k \min(P_{ik}, Q_{ik})}{N}, \quad
       F_{1,k} = \frac{2\,TP_k}{2\,TP_k + FP_k + FN_k}, \quad \dots

    the formulas of :func:`hlv_core.soft_metrics.evaluate` (Kurniawan et al. 2025, sections 3.1-3.2)
    written on sums over rows, so weighted sums (bootstrap draw counts) give resampled values. A
    zero item count gives NaN.

    Parameters
    ----------
    S : ndarray of shape (..., F)
        Sums of the per-row features.
    cols : dict of str to slice
        Column blocks of the features.
    multilabel : bool

    Returns
    -------
    dict of str to ndarray
        One array of shape (...) per metric.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1-3.3 (the metrics).

    Examples
    --------
    The same value as :func:`hlv_core.soft_metrics.soft_accuracy` on the same rows:

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    >>> Q = np.array([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
    >>> F, cols = _features(P, Q, False)
    >>> print(round(float(prf_metrics(F.sum(axis=0), cols, False)["soft_accuracy"]), 4))
    0.8
    """
    g = {k: S[..., c] for k, c in cols.items()}
    n = g["one"][..., 0]
    out: dict[str, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        if not multilabel:
            out["hard_accuracy"] = g["tr"].sum(-1) / n
            out["hard_micro_f1"] = out["hard_accuracy"]
        else:
            denom = g["t"].sum(-1) + g["r"].sum(-1)
            out["hard_micro_f1"] = np.where(denom > 0, 2 * g["tr"].sum(-1) / denom, 1.0)
        tp, t, r = g["tr_p"], g["t_p"], g["r_p"]
        prf = sm._prf_from_counts(tp, r - tp, t - tp, t)
        for key in ("precision", "recall", "f1"):
            out[f"hard_macro_{key}"] = prf[key].mean(-1)
        m, p, q = g["m"], g["p"], g["q"]
        if not multilabel:
            out["soft_accuracy"] = m.sum(-1) / n
        out["soft_micro_f1"] = 2 * m.sum(-1) / (p.sum(-1) + q.sum(-1))
        out["soft_macro_precision"] = (m / q).mean(-1)
        out["soft_macro_recall"] = (m / p).mean(-1)
        out["soft_macro_f1"] = (2 * m / (q + p)).mean(-1)
        out["po_jsd"] = 1.0 - g["jsd"][..., 0] / n
    empty = n == 0
    return {k: np.where(empty, np.nan, v) for k, v in out.items()}


# --------------------------------------------------------------------------- targets
def _targets(annotations, multilabel: bool | None, min_others: int):
    """Leave-one-out targets for every (item, annotator) row with enough other annotators:
    rows sorted by annotator. Returns (long, rows, P, Q_human)."""
    long = long_rows(annotations, multilabel)
    K = len(long.labels)
    n_items = len(long.item_ids)
    if long.multilabel:
        X = long.bits.astype(float)
    else:
        codes = pd.Index(long.labels).get_indexer(long.label)
        X = np.eye(K)[codes]
    sums = np.zeros((n_items, K))
    np.add.at(sums, long.item, X)
    n_per_item = np.bincount(long.item, minlength=n_items)
    n_others = n_per_item[long.item] - 1
    ok = n_others >= max(int(min_others), 1)
    rows = np.flatnonzero(ok)
    rows = rows[np.argsort(long.annot[rows], kind="stable")]
    P = (sums[long.item[rows]] - X[rows]) / n_others[rows, None]
    return long, rows, P, X[rows]


def _model_matrix(model, long, multilabel: bool) -> tuple[np.ndarray, np.ndarray]:
    """(N_items, K) model rows aligned with ``long.item_ids`` and a mask of covered items."""
    n_items, K = len(long.item_ids), len(long.labels)
    if isinstance(model, tuple) and len(model) == 2:
        ids, Q = model
        frame = pd.DataFrame(np.asarray(Q, dtype=float), index=[str(i) for i in ids])
    elif isinstance(model, pd.DataFrame):
        frame = model.copy()
        frame.index = [str(i) for i in frame.index]
        missing = [lab for lab in long.labels if lab not in map(str, frame.columns)]
        if missing:
            raise ValueError(f"the model table lacks the label column(s) {missing}.")
        frame.columns = [str(c) for c in frame.columns]
        frame = frame[list(long.labels)]
    else:
        Q = np.asarray(model, dtype=float)
        if Q.shape != (n_items, K):
            raise ValueError(f"the model must be an (items x labels) = ({n_items}, {K}) array in "
                             f"the annotations' item order; got shape {Q.shape}.")
        frame = pd.DataFrame(Q, index=[str(i) for i in long.item_ids])
    if frame.shape[1] != K:
        raise ValueError(f"the model gives {frame.shape[1]} probabilities per item; the data "
                         f"have {K} labels.")
    Q = frame.to_numpy(dtype=float)
    sm._check(Q, Q, multilabel=multilabel)  # probabilities; rows sum to 1 unless multilabel
    pos = pd.Index(frame.index).get_indexer([str(i) for i in long.item_ids])
    covered = pos >= 0
    out = np.zeros((n_items, K))
    out[covered] = Q[pos[covered]]
    return out, covered


# ----------------------------------------------------------------------------- main
def human_ceiling(
    annotations,
    *,
    model=None,
    min_others: int = 2,
    min_items: int = 30,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    multilabel: bool | None = None,
    chunk: int = 50,
) -> HumanCeilingResult:
    r"""Every annotator against the others on the metrics of Kurniawan et al., with CIs.

    .. math:: P^{-j}_{ik} = \frac{\#\{a \ne j : y_{ai} = k\}}{\#\{a \ne j \text{ labelling } i\}}, \quad
       Q^{j}_{i} = e_{y_{ji}}, \quad \mathrm{ceiling}_m = \frac{1}{|J|} \sum_{j \in J} m(P^{-j}, Q^{j})

    Targets: for annotator j and an item it labelled, :math:`P^{-j}_i` is the distribution of the
    other annotators' labels (multi-label: per-class share of the others), on items with at least
    ``min_others`` other annotators; j's prediction is the one-hot of its label. Annotators with
    fewer than ``min_items`` such items are listed, not scored. Metrics: Kurniawan et al. (2025),
    sections 3.1-3.3 (entropy correlation is NaN for every human: a one-hot row has entropy 0).
    Percentile bootstrap (Efron and Tibshirani 1993, chapter 13) with
    ``numpy.random.default_rng(seed)``: per annotator over its rows; for the summary over the union
    of the scored annotators' items, every annotator recomputed on the drawn items. ``model`` is
    scored on the same targets (paired) and against the full soft label.

    Parameters
    ----------
    annotations : pandas.DataFrame or hlv_core.io.Dataset
        Long ``item_id, annotator_id, label``.
    model : ndarray of shape (N, K), pandas.DataFrame or tuple, optional
        Model probabilities in the annotations' item order, a frame indexed by item id, or
        ``(item_ids, Q)``.
    min_others : int, default 2
    min_items : int, default 30
    n_boot : int, default 1000
    seed : int, default 0
    level : float, default 0.95
    multilabel : bool, optional
        Default: inferred from the data.
    chunk : int, default 50
        Replicates per vectorised block.

    Returns
    -------
    HumanCeilingResult

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). "Training and Evaluating with Human Label
       Variation: An Empirical Study". arXiv:2502.01891. Sections 3.1-3.3 (the metrics).
    .. [2] Efron and Tibshirani (1993). "An Introduction to the Bootstrap". Chapter 13
       (percentile intervals).

    Examples
    --------
    Three annotators, two items; annotator c disagrees with the others on i1:

    >>> import pandas as pd
    >>> annotations = pd.DataFrame({"item_id": ["i1", "i1", "i1", "i2", "i2", "i2"],
    ...                             "annotator_id": ["a", "b", "c"] * 2,
    ...                             "label": ["x", "x", "y", "y", "y", "y"]})
    >>> result = human_ceiling(annotations, min_items=1, n_boot=20, seed=0)
    >>> print(result.summary.loc[["hard_accuracy", "soft_accuracy"], "value"].round(3).tolist())
    [0.833, 0.667]
    """
    if n_boot < 0:
        raise ValueError("n_boot must be >= 0.")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1).")
    long, rows, P, Qh = _targets(annotations, multilabel, min_others)
    ml = long.multilabel
    metrics = CEILING_METRICS_MULTILABEL if ml else CEILING_METRICS
    names = np.asarray([str(a) for a in long.annotator_ids], dtype=object)
    A = len(names)
    annot = long.annot[rows]
    n_per = np.bincount(annot, minlength=A)
    scored = n_per >= int(min_items)
    keep = scored[annot]
    rows, P, Qh, annot = rows[keep], P[keep], Qh[keep], annot[keep]
    scored_idx = np.flatnonzero(scored)
    annotators = pd.DataFrame({
        "annotator": names, "n_items": n_per, "scored": scored,
        "reason": ["" if s else f"only {int(k)} item(s) with >= {min_others} other annotators "
                   f"(fewer than {min_items})" for s, k in zip(scored, n_per, strict=True)],
    })
    if scored_idx.size == 0:
        most_per_item = int(np.bincount(long.item).max(initial=0))
        raise ValueError(
            f"no annotator can be scored: every annotator has fewer than {min_items} items with "
            f"at least {min_others} other annotators (the most any annotator has is "
            f"{int(n_per.max(initial=0))}; an item has at most {most_per_item} annotators). "
            "Lower min_items or min_others (command line: judge ceiling --min-items N "
            "--min-others M).")
    starts = np.concatenate([[0], np.cumsum(n_per[scored_idx])[:-1]])
    F, cols = _features(P, Qh, ml)
    point = prf_metrics(np.add.reduceat(F, starts, axis=0), cols, ml)
    point["entropy_correlation"] = np.full(scored_idx.size, np.nan)
    rng = np.random.default_rng(seed)
    alpha = (1.0 - level) / 2.0
    boot_ann = _boot_per_annotator(F, cols, ml, starts, n_per[scored_idx], n_boot, rng, chunk)
    item_of_row = long.item[rows]
    boot_sum = _boot_summary(F, cols, ml, starts, item_of_row, n_boot, rng, chunk)
    per_rows = []
    summary_rows = []
    for metric in metrics:  # 12 metrics: table assembly only
        vals = point[metric]
        reps = boot_ann.get(metric)
        if reps is None or n_boot == 0:
            lo = hi = np.full(vals.size, np.nan)
            n_valid = np.zeros(vals.size, dtype=int)
        else:
            n_valid = (~np.isnan(reps)).sum(axis=0)
            lo, hi = _percentiles(reps, alpha)
        per_rows.append(pd.DataFrame({
            "annotator": names[scored_idx], "metric": metric, "value": vals, "lower": lo,
            "upper": hi, "n_valid": n_valid, "n_items": n_per[scored_idx]}))
        defined = ~np.isnan(vals)
        s_reps = boot_sum.get(metric)
        if s_reps is None or n_boot == 0:
            s_lo = s_hi = np.nan
            s_valid = 0
        else:
            ok = s_reps[~np.isnan(s_reps)]
            s_valid = int(ok.size)
            s_lo, s_hi = (np.quantile(ok, [alpha, 1 - alpha]) if ok.size else (np.nan, np.nan))
        summary_rows.append({"metric": metric,
                             "value": float(vals[defined].mean()) if defined.any() else np.nan,
                             "lower": float(s_lo), "upper": float(s_hi),
                             "n_defined": int(defined.sum()), "n_valid": s_valid})
    per_annotator = pd.concat(per_rows, ignore_index=True)
    summary = pd.DataFrame(summary_rows).set_index("metric")
    reasons = {"entropy_correlation": ENTROPY_REASON}
    for metric in metrics:
        if metric != "entropy_correlation" and summary.at[metric, "n_defined"] < scored_idx.size:
            n_nan = scored_idx.size - int(summary.at[metric, "n_defined"])
            reasons[metric] = (f"undefined (0/0) for {n_nan} annotator(s): a class has no mass "
                               "in the others' labels or in the annotator's labels on its items "
                               "(reference convention: NaN, left out of the mean)")
    notes = [
        "Entropy correlation: " + ENTROPY_REASON + ".",
        "Soft accuracy, soft F1 and PO-JSD favour soft predictions over a single human's one-hot "
        "label: for them this is a single-annotator ceiling, which a model predicting a "
        "distribution can exceed without being 'better than a human'. Hard metrics are the "
        "like-for-like comparison.",
    ]
    if (~scored).any():
        notes.append(f"{int((~scored).sum())} annotator(s) not scored (fewer than {min_items} "
                     f"items with >= {min_others} other annotators).")
    same = same_annot = full = None
    if model is not None:
        same, same_annot, full = _model_part(model, long, rows, P, annot, starts, scored_idx,
                                             names, ml, metrics, point, summary, annotations)
    return HumanCeilingResult(per_annotator, summary, annotators, same, same_annot, full,
                              reasons, tuple(notes), int(n_boot), int(seed), float(level), ml)


def _percentiles(reps: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise percentile interval of (B, A) replicates, NaN replicates left out (linear
    interpolation, as ``numpy.quantile``), vectorised over columns."""
    srt = np.sort(reps, axis=0)  # NaN last
    n_ok = (~np.isnan(reps)).sum(axis=0)
    out = []
    for q in (alpha, 1.0 - alpha):
        pos = q * np.maximum(n_ok - 1, 0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(n_ok - 1, 0))
        frac = pos - lo
        a = np.take_along_axis(srt, lo[None, :], axis=0)[0]
        b = np.take_along_axis(srt, hi[None, :], axis=0)[0]
        out.append(np.where(n_ok > 0, a + frac * (b - a), np.nan))
    return out[0], out[1]


def _boot_per_annotator(F, cols, ml, starts, sizes, n_boot, rng, chunk) -> dict:
    """(n_boot, A) replicates of every metric: each annotator's rows resampled within itself."""
    if n_boot == 0:
        return {}
    R = F.shape[0]
    M = _block_matrix(F, starts)
    owner_size = np.repeat(sizes, sizes)
    owner_start = np.repeat(starts, sizes)
    parts: list[dict] = []
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        # floor(u * n_j) with u uniform on [0, 1): a uniform draw among the annotator's rows
        draws = owner_start + (rng.random((b, R)) * owner_size).astype(np.int64)
        W = np.bincount((draws + (np.arange(b) * R)[:, None]).ravel(),
                        minlength=b * R).reshape(b, R).astype(float)
        parts.append(_weighted(M, F.shape[1], cols, ml, W))
        done += b
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _boot_summary(F, cols, ml, starts, item_of_row, n_boot, rng, chunk) -> dict:
    """(n_boot,) replicates of the ceiling: items of the union resampled, every annotator
    recomputed on the drawn items, NaN-skipping mean over annotators."""
    if n_boot == 0:
        return {}
    M = _block_matrix(F, starts)
    codes, uniq = pd.factorize(item_of_row)
    U = len(uniq)
    out: list[dict] = []
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        draws = rng.integers(0, U, size=(b, U))
        V = np.bincount((draws + (np.arange(b) * U)[:, None]).ravel(),
                        minlength=b * U).reshape(b, U).astype(float)
        per = _weighted(M, F.shape[1], cols, ml, V[:, codes])
        out.append({k: _nanmean(v) for k, v in per.items()})
        done += b
    return {k: np.concatenate([p[k] for p in out]) for k in out[0]}


def _nanmean(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cnt > 0, np.where(ok, x, 0.0).sum(axis=1) / cnt, np.nan)


def _block_matrix(F: np.ndarray, starts: np.ndarray) -> sparse.csr_matrix:
    """(R, A*F) sparse matrix: row r holds its features in the columns of its annotator, so
    ``W @ M`` gives every annotator's weighted feature sums for every weighting at once."""
    R, nf = F.shape
    sizes = np.diff(np.concatenate([starts, [R]]))
    owner = np.repeat(np.arange(starts.size), sizes)
    cols = (owner[:, None] * nf + np.arange(nf)).ravel()
    return sparse.csr_matrix((F.ravel(), (np.repeat(np.arange(R), nf), cols)),
                             shape=(R, starts.size * nf))


def _weighted(M: sparse.csr_matrix, nf: int, cols, ml, W) -> dict:
    """Metrics of every annotator under the row weights W (B, R): one sparse product."""
    S = np.asarray((M.T @ W.T).T).reshape(W.shape[0], -1, nf)
    return prf_metrics(S, cols, ml)


def _model_part(model, long, rows, P, annot, starts, scored_idx, names, ml, metrics, point,
                summary, annotations):
    Qall, covered = _model_matrix(model, long, ml)
    item = long.item[rows]
    cov = covered[item]
    # per annotator rows restricted to covered items (sorted by annotator still)
    Pm, Qm, am = P[cov], Qall[item[cov]], annot[cov]
    pos = np.searchsorted(scored_idx, am)
    counts = np.bincount(pos, minlength=scored_idx.size)
    has = counts > 0
    m_starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    values = {k: np.full(scored_idx.size, np.nan) for k in metrics}
    if cov.any():
        F, cols = _features(Pm, Qm, ml)
        S = np.add.reduceat(F, m_starts[has], axis=0)
        got = prf_metrics(S, cols, ml)
        for k, v in got.items():
            values[k][has] = v
        values["entropy_correlation"][has] = _grouped_entropy_corr(Pm, Qm, pos, ml, has)
    rows_out = []
    table = []
    for metric in metrics:
        human = point[metric]
        diff = values[metric] - human
        rows_out.append(pd.DataFrame({"annotator": names[scored_idx], "metric": metric,
                                      "model": values[metric], "human": human,
                                      "difference": diff}))
        mv = values[metric]
        ok = ~np.isnan(mv)
        mean = float(mv[ok].mean()) if ok.any() else np.nan
        dok = ~np.isnan(diff)
        upper = summary.at[metric, "upper"]
        table.append({"metric": metric, "model": mean, "ceiling": summary.at[metric, "value"],
                      "difference": float(diff[dok].mean()) if dok.any() else np.nan,
                      "n_defined": int(ok.sum()),
                      "above_ceiling": bool(np.isfinite(upper) and mean > upper)})
    same = pd.DataFrame(table).set_index("metric")
    per = pd.concat(rows_out, ignore_index=True)
    # the model against the full soft label of all annotators on the covered items
    full = _full_scores(Qall, covered, long, ml)
    return same, per, full


def _grouped_entropy_corr(P, Q, group, ml, has) -> np.ndarray:
    """Per group (annotator) Pearson r of the normalised entropies of P and Q rows
    (:func:`hlv_core.soft_metrics.entropy_correlation`; multi-label: mean over classes);
    NaN where either entropy is constant within the group or it has < 2 rows."""
    hp = sm.normalised_entropy(P, multilabel=ml)
    hq = sm.normalised_entropy(Q, multilabel=ml)
    if not ml:
        hp, hq = hp[:, None], hq[:, None]
    G = int(has.size)
    cnt = np.bincount(group, minlength=G).astype(float)
    r_all = np.empty((G, hp.shape[1]))
    for k in range(hp.shape[1]):  # classes (multi-label) or one column
        x, y = hp[:, k], hq[:, k]
        mx = np.bincount(group, x, minlength=G) / np.where(cnt > 0, cnt, 1)
        my = np.bincount(group, y, minlength=G) / np.where(cnt > 0, cnt, 1)
        zx, zy = x - mx[group], y - my[group]
        sxy = np.bincount(group, zx * zy, minlength=G)
        sxx = np.bincount(group, zx * zx, minlength=G)
        syy = np.bincount(group, zy * zy, minlength=G)
        const_x = _group_const(x, group, G)
        const_y = _group_const(y, group, G)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.clip(sxy / (np.sqrt(sxx) * np.sqrt(syy)), -1.0, 1.0)
        r_all[:, k] = np.where(const_x | const_y | (cnt < 2), np.nan, r)
    return r_all.mean(axis=1)[has]


def _group_const(x, group, G) -> np.ndarray:
    hi = np.full(G, -np.inf)
    lo = np.full(G, np.inf)
    np.maximum.at(hi, group, x)
    np.minimum.at(lo, group, x)
    return hi == lo


def _full_scores(Qall, covered, long, ml) -> dict:
    """The model against the soft label of all annotators (``soft_metrics`` functions)."""
    import warnings

    K = len(long.labels)
    n_items = len(long.item_ids)
    X = (long.bits.astype(float) if ml
         else np.eye(K)[pd.Index(long.labels).get_indexer(long.label)])
    sums = np.zeros((n_items, K))
    np.add.at(sums, long.item, X)
    n = np.bincount(long.item, minlength=n_items).astype(float)
    P = sums[covered] / n[covered, None]
    Q = Qall[covered]
    if P.shape[0] == 0:
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
        out = dict(sm.evaluate(P, Q, multilabel=ml))
        hard = sm.hard_prfs(P, Q, multilabel=ml)
        soft = sm.soft_prfs(P, Q)
    out["hard_macro_precision"] = hard["macro_precision"]
    out["hard_macro_recall"] = hard["macro_recall"]
    out["soft_macro_precision"] = soft["macro_precision"]
    out["soft_macro_recall"] = soft["macro_recall"]
    metrics = CEILING_METRICS_MULTILABEL if ml else CEILING_METRICS
    return {m: float(out[m]) for m in metrics}
