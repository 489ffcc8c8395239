"""Which labels are probably annotation errors: per-(item, label) scores and their evaluation.

Weber-Genzel et al. (2024), *VariErr NLI: Separating Annotation Error from Human Label
Variation* (ACL), section 5: rank every (item, label) that at least one annotator chose by how
likely it is an error, evaluate the ranking against gold errors with average precision,
precision at k and recall at k.

- :func:`error_scores`: scores from labels alone (label count, share of others not choosing,
  annotator-aware singleton rate, posteriors of Dawid-Skene / one-coin DS / MACE, per class for
  multi-label data) or from peer validity judgments where a dataset has them. Higher = more
  likely an error. A score is a rank, never a verdict.
- :func:`average_precision`, :func:`precision_at_k`, :func:`recall_at_k`: tie-aware metrics.
- :func:`label_choosers`: who chose each (item, label), with their annotator verdict, to show
  beside a possible error (reliable or systematic choosers, section 10 of the UI wording).
- :func:`evaluate_error_ranking`: joins scores and gold, reports AP, P@k, R@k with bootstrap CIs
  on all gold pairs and on the single-label subset (labels chosen by one annotator).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from hlv_core import competence

__all__ = [
    "COUNT_METHODS",
    "LABEL_METHODS",
    "METHODS",
    "POSTERIOR_METHODS",
    "VALIDITY_METHODS",
    "average_precision",
    "error_scores",
    "evaluate_error_ranking",
    "label_choosers",
    "precision_at_k",
    "random_baseline",
    "recall_at_k",
    "units",
]

#: Scores from the labels alone (no model fit).
LABEL_METHODS = ("random", "label_count", "share_others_not_choosing", "label_proportion",
                 "annotator_singleton")
#: Scores from a competence model's posterior, per class for multi-label data.
POSTERIOR_METHODS = ("ds_posterior", "one_coin_posterior", "mace_posterior")
#: Combination: annotator-aware singleton score, then the DS posterior (see :func:`error_scores`).
COMBINED_METHODS = ("singleton_ds",)
#: Scores from peer validity judgments (VariErr round 2); self judgments are refused.
VALIDITY_METHODS = ("peer_sum_all", "peer_sum_per", "peer_ratio_all", "peer_ratio_per")
METHODS = LABEL_METHODS + POSTERIOR_METHODS + COMBINED_METHODS + VALIDITY_METHODS
#: Methods that read only how many annotators chose each label of an item, so they apply to
#: label counts without annotator identities (the others model each annotator, or read who
#: else an annotator agreed with).
COUNT_METHODS = ("random", "label_count", "share_others_not_choosing", "label_proportion")


# ------------------------------------------------------------------------------------- units
def _clean(df: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("item_id", "annotator_id", "label") if c not in df.columns]
    if missing:
        raise ValueError(f"annotations: column(s) {', '.join(missing)} missing; expected "
                         "item_id, annotator_id, label")
    if len(df) == 0:
        raise ValueError("annotations: no rows")
    frame = df[["item_id", "annotator_id", "label"]]
    empty = frame.isna().to_numpy().any(axis=1)
    if empty.any():
        raise ValueError(f"annotations: row {int(np.flatnonzero(empty)[0]) + 1} has an empty "
                         "item_id, annotator_id or label; drop the row (missing = no row)")
    out = frame.astype(str).drop_duplicates()
    return out.reset_index(drop=True)


def units(df: pd.DataFrame) -> pd.DataFrame:
    """The scored units of error detection: one row per (item, label) chosen by >= 1 annotator (VariErr, section 5).

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label`` (one row per chosen label).

    Returns
    -------
    DataFrame
        ``item_id, label, n_chose, n_annotators`` (n_annotators = annotators with >= 1 row on
        the item; n_chose = those choosing the label), sorted by item and label.

    Raises
    ------
    ValueError
        Missing columns, no rows, or an empty (NaN) cell (missing = no row).

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item_id": ["i1"] * 4 + ["i2"] * 4,
    ...                    "annotator_id": ["a", "b", "c", "d"] * 2,
    ...                    "label": ["E", "E", "E", "C", "N", "N", "C", "C"]})
    >>> units(df)
      item_id label  n_chose  n_annotators
    0      i1     C        1             4
    1      i1     E        3             4
    2      i2     C        2             4
    3      i2     N        2             4
    """
    d = _clean(df)
    n_ann = d.groupby("item_id")["annotator_id"].nunique()
    u = d.groupby(["item_id", "label"])["annotator_id"].nunique().rename("n_chose").reset_index()
    u["n_annotators"] = n_ann.reindex(u["item_id"]).to_numpy()
    return u


def _is_multilabel(d: pd.DataFrame) -> bool:
    return bool(d.duplicated(["item_id", "annotator_id"]).any())


def _singleton_rate(d: pd.DataFrame, u: pd.DataFrame) -> pd.Series:
    """Per annotator: share of their (item, label) rows that no other annotator chose."""
    n = d.merge(u[["item_id", "label", "n_chose"]], on=["item_id", "label"], how="left")
    return (n["n_chose"] == 1).groupby(n["annotator_id"]).mean()


def _posterior_present(d: pd.DataFrame, method: str, *, seed: int, max_iter: int,
                       tol: float, notes: list[str]) -> pd.DataFrame:
    """P(label present) per (item, label): multiclass posterior, or per-class binary fits;
    a fit that stopped at ``max_iter`` adds a note to ``notes``."""
    name = {"ds_posterior": "Dawid-Skene", "one_coin_posterior": "One-coin Dawid-Skene"}

    def fit(frame, labels, what=""):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if method == "ds_posterior":
                res = competence.dawid_skene(frame, labels=labels, max_iter=max_iter, tol=tol)
            elif method == "one_coin_posterior":
                res = competence.one_coin_dawid_skene(frame, labels=labels, max_iter=max_iter,
                                                      tol=tol)
            else:
                res = competence.mace(frame, labels=labels, seed=seed)
        note = competence.cap_note(res, name.get(method, "MACE") + what)
        if note and note not in notes:
            notes.append(note)
        return res

    if not _is_multilabel(d):
        res = fit(d, None)
        post = res.posteriors.stack().rename("present").reset_index()
        return post
    cells = d[["item_id", "annotator_id"]].drop_duplicates()
    parts = []
    for lab in sorted(d["label"].unique()):
        chose = d.loc[d["label"] == lab, ["item_id", "annotator_id"]].assign(label="1")
        binary = cells.merge(chose, on=["item_id", "annotator_id"], how="left")
        binary["label"] = binary["label"].fillna("0")
        res = fit(binary, ["0", "1"], f" (label {lab!r} present or not)")
        parts.append(pd.DataFrame({"item_id": res.posteriors.index.to_numpy(), "label": lab,
                                   "present": res.posteriors["1"].to_numpy()}))
    return pd.concat(parts, ignore_index=True)


def _peer_counts(validity: pd.DataFrame, allow_self: bool, judges: str = "peer",
                 notes: list[str] | None = None) -> pd.DataFrame:
    notes = [] if notes is None else notes
    need = ["item_id", "annotator_id", "label", "judge", "valid"]
    missing = [c for c in need if c not in validity.columns]
    if missing:
        raise ValueError(f"validity: column(s) {', '.join(missing)} missing; expected item_id, "
                         "annotator_id, label, explanation_index, judge, judge_type, valid")
    v = validity.copy()
    for c in ("item_id", "annotator_id", "label", "judge"):
        v[c] = v[c].astype(str)
    if "explanation_index" not in v:
        v["explanation_index"] = "1"
    v["explanation_index"] = v["explanation_index"].astype(str)
    is_self = v["judge"] == v["annotator_id"]
    if "judge_type" in v:
        is_self |= v["judge_type"].astype(str).str.lower() == "self"
    valid = pd.to_numeric(v["valid"], errors="coerce")
    if valid.isna().any() or not valid.isin([0, 1]).all():
        bad = int(np.flatnonzero(~valid.isin([0, 1]).to_numpy())[0])
        raise ValueError(f"validity: row {bad + 2}, column 'valid' must be 0 or 1")
    v["valid"] = valid.astype(int)
    key = ["item_id", "annotator_id", "label", "explanation_index"]
    explanations = v[key].drop_duplicates()
    if judges not in ("peer", "self", "all"):
        raise ValueError(f"judges='{judges}': use 'peer' (default), 'self' or 'all'")
    if judges != "peer" and not allow_self:
        raise ValueError(
            f"judges='{judges}' scores with self judgments (judge = author), which define "
            "VariErr's gold errors: that leaks the answer. Use judges='peer', or "
            "allow_self=True for analysis only")
    n_self = int(is_self.sum())
    if judges == "self":
        judged = v[is_self.to_numpy()]
    elif judges == "all":
        judged = v
    else:  # peers only; a frame of self judgments alone is scored only with allow_self
        judged = v[~is_self.to_numpy()]
        if len(judged) == 0 and n_self:
            if not allow_self:
                raise ValueError(
                    "validity: only self judgments (judge = author) were given; a label's "
                    "authors re-validating their own explanation define the gold errors, so "
                    "scoring with them leaks the answer. Give peer judgments, or "
                    "allow_self=True for analysis only")
            judged = v
            notes.append(f"validity: only self judgments were given; all {n_self:,} scored "
                         "(allow_self: analysis only, they define VariErr's gold errors).")
        elif n_self:
            notes.append(f"validity: {n_self:,} self judgment(s) (judge = author) left out; "
                         "the scores use the peer judgments only.")
    per = judged.groupby(key)["valid"].agg(v_e="sum", m_e="count").reset_index()
    per = explanations.merge(per, on=key, how="left").fillna({"v_e": 0, "m_e": 0})
    return per


def _validity_score(per: pd.DataFrame, method: str) -> pd.DataFrame:
    per = per.copy()
    per["ratio"] = np.where(per["m_e"] > 0, per["v_e"] / per["m_e"].where(per["m_e"] > 0, 1), 0.0)
    g = per.groupby(["item_id", "label"])
    if method == "peer_sum_all":
        s = -g["v_e"].sum()
    elif method == "peer_sum_per":
        s = -g["v_e"].mean()
    elif method == "peer_ratio_all":
        tot_v, tot_m = g["v_e"].sum(), g["m_e"].sum()
        s = -(tot_v / tot_m.where(tot_m > 0, 1)).where(tot_m > 0, 0.0)
    else:
        s = -g["ratio"].mean()
    return s.rename("score").reset_index()


def _dense_unit(score: np.ndarray) -> np.ndarray:
    """Dense rank of ``score`` mapped into [0, 1) (ties stay tied)."""
    uniq, inv = np.unique(score, return_inverse=True)
    return inv / max(len(uniq), 1)


def error_scores(df: pd.DataFrame, *, method: str, validity: pd.DataFrame | None = None,
                 allow_self: bool = False, judges: str = "peer",
                 rerank_by_count: bool = False, seed: int = 0,
                 max_iter: int = 10_000, tol: float = 1e-10) -> pd.DataFrame:
    """Per-(item, label) error score: higher = more likely an annotation error (VariErr, section 5).

    Unit = (item, label) with >= 1 annotator choosing it. Label-only methods:

    - ``"random"``: 0 for every unit (every unit tied: AP = prevalence, P@k = prevalence,
      R@k = k / N under the tie-aware metrics, the paper's random baseline).
    - ``"label_count"``: -n_chose (the paper's LC baseline).
    - ``"share_others_not_choosing"``: (n_annotators - n_chose) / (n_annotators - 1); 0 if
      n_annotators = 1.
    - ``"label_proportion"``: -n_chose / n_annotators.
    - ``"annotator_singleton"``: -n_chose + 0.5 * mean over the label's choosers of their
      singleton rate (share of that annotator's labels, over all items, that no other annotator
      chose on the item).
    - ``"ds_posterior"`` / ``"one_coin_posterior"`` / ``"mace_posterior"``: 1 - P(label present).
      Multi-label data (an annotator with two rows on an item) is split into one binary task per
      class (annotator answers "1" if they chose the class, "0" otherwise, for each item they
      annotated), fitted separately; single-label data uses the multiclass posterior T[i, l].
    - ``"singleton_ds"`` (HLV Lens): ``annotator_singleton`` first, the DS posterior second:
      -n_chose + 0.5 * singleton term + 0.25 * (1 - P(present)); both extra terms are in
      [0, 0.5) and [0, 0.25], so the label count still dominates.

    Validity methods (``validity`` = a frame like VariErr's ``validity.csv``; peer rows only):
    with v_e valid peer judgments of explanation e and m_e peer judgments,
    ``"peer_sum_all"`` = -sum_e v_e, ``"peer_sum_per"`` = -mean_e v_e,
    ``"peer_ratio_all"`` = -sum_e v_e / sum_e m_e, ``"peer_ratio_per"`` = -mean_e v_e / m_e
    (e over the label's explanations, ratio 0 when m = 0). Self judgments (judge = author) decide
    VariErr's gold errors: they are dropped, and a frame holding only self judgments raises
    unless ``allow_self=True``.

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label`` (one row per chosen label).
    method : str
        One of :data:`METHODS`.
    validity : DataFrame, optional
        Peer validity judgments (validity methods only).
    allow_self : bool, default False
        Allow self judgments (analysis only: they leak the gold): needed by ``judges="self"``
        and ``"all"``, and to score a frame that holds self judgments only.
    judges : {"peer", "self", "all"}, default "peer"
        Whose validity judgments score. ``"peer"`` leaves self judgments out of a mixed frame
        (said in ``attrs["notes"]``), whatever ``allow_self`` is.
    rerank_by_count : bool, default False
        Order by n_chose ascending first, the method's score second (the paper's "_rerank"
        variants): score' = -n_chose + dense rank of score in [0, 1).
    seed : int, default 0
        MACE seed.
    max_iter, tol
        EM settings of :func:`hlv_core.competence.dawid_skene`.

    Returns
    -------
    DataFrame
        ``item_id, label, n_chose, n_annotators, score, rank`` sorted by descending score (ties
        kept; within a tie fewer choosers first, then item and label); ``rank`` 1 = most likely
        an error, ties share the best rank of their group. ``attrs["notes"]``: one plain note
        per Dawid-Skene fit that stopped at ``max_iter`` before its fixed point (absent when
        every fit converged).

    Raises
    ------
    ValueError
        Unknown method, bad columns, an empty (NaN) cell, or self judgments without
        ``allow_self``.

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item_id": ["i1"] * 4 + ["i2"] * 4,
    ...                    "annotator_id": ["a", "b", "c", "d"] * 2,
    ...                    "label": ["E", "E", "E", "C", "N", "N", "C", "C"]})
    >>> error_scores(df, method="label_count")
      item_id label  n_chose  n_annotators  score  rank
    0      i1     C        1             4   -1.0     1
    1      i2     C        2             4   -2.0     2
    2      i2     N        2             4   -2.0     2
    3      i1     E        3             4   -3.0     4
    >>> error_scores(df, method="share_others_not_choosing")["score"].round(3).tolist()
    [1.0, 0.667, 0.667, 0.333]
    """
    if method not in METHODS:
        raise ValueError(f"method='{method}': choose one of {', '.join(METHODS)}")
    d = _clean(df)
    u = units(d)
    notes: list[str] = []
    if method not in COUNT_METHODS and method not in VALIDITY_METHODS and len(d) and (
            int(d["annotator_id"].value_counts().max()) == 1):
        # label counts read as pseudo-annotators: nothing is known about any annotator
        notes.append(f"every annotator gave a single label: method '{method}' learns nothing "
                     "about annotators here (a Dawid-Skene posterior is the class prior on "
                     "every item), so the scores only follow how common each label is; use "
                     f"one of {', '.join(COUNT_METHODS)} on label counts.")
    if method == "random":
        score = np.zeros(len(u))
    elif method == "label_count":
        score = -u["n_chose"].to_numpy(dtype=float)
    elif method == "share_others_not_choosing":
        n, c = u["n_annotators"].to_numpy(float), u["n_chose"].to_numpy(float)
        score = np.where(n > 1, (n - c) / np.maximum(n - 1, 1), 0.0)
    elif method == "label_proportion":
        score = -(u["n_chose"] / u["n_annotators"]).to_numpy(float)
    elif method in ("annotator_singleton", "singleton_ds"):
        rate = _singleton_rate(d, u)
        chooser = d.merge(rate.rename("rate"), left_on="annotator_id", right_index=True)
        mean_rate = chooser.groupby(["item_id", "label"])["rate"].mean()
        term = mean_rate.reindex(pd.MultiIndex.from_frame(u[["item_id", "label"]])).to_numpy()
        score = -u["n_chose"].to_numpy(float) + 0.5 * term
        if method == "singleton_ds":
            post = _posterior_present(d, "ds_posterior", seed=seed, max_iter=max_iter, tol=tol,
                                      notes=notes)
            p = post.set_index(["item_id", "label"])["present"]
            p = p.reindex(pd.MultiIndex.from_frame(u[["item_id", "label"]])).to_numpy()
            score = score + 0.25 * (1.0 - p)
    elif method in POSTERIOR_METHODS:
        post = _posterior_present(d, method, seed=seed, max_iter=max_iter, tol=tol,
                                  notes=notes)
        p = post.set_index(["item_id", "label"])["present"]
        p = p.reindex(pd.MultiIndex.from_frame(u[["item_id", "label"]])).to_numpy()
        score = 1.0 - p
    else:
        if validity is None:
            raise ValueError(f"method='{method}' needs validity judgments (validity=...); "
                             "this dataset has none, use a label-only method")
        per = _peer_counts(validity, allow_self, judges, notes)
        s = _validity_score(per, method).set_index(["item_id", "label"])["score"]
        score = s.reindex(pd.MultiIndex.from_frame(u[["item_id", "label"]])).fillna(0.0)
        score = score.to_numpy(float)
    if rerank_by_count:
        score = -u["n_chose"].to_numpy(float) + _dense_unit(np.asarray(score, float))
    out = u.assign(score=np.asarray(score, dtype=float))
    out = out.sort_values(["score", "n_chose", "item_id", "label"],
                          ascending=[False, True, True, True],
                          kind="mergesort").reset_index(drop=True)
    out["rank"] = out["score"].rank(method="min", ascending=False).astype(int)
    if notes:
        out.attrs["notes"] = notes
    return out


# ------------------------------------------------------------------------------------- metrics
def _prep(y_true, score, weight=None):
    y = np.asarray(y_true, dtype=float)
    s = np.asarray(score, dtype=float)
    if y.shape != s.shape or y.ndim != 1:
        raise ValueError("y_true and score must be 1-D arrays of the same length")
    if np.isnan(s).any():
        raise ValueError("score has NaN; score every unit or drop it")
    w = np.ones_like(y) if weight is None else np.asarray(weight, dtype=float)
    order = np.argsort(-s, kind="mergesort")
    s, y, w = s[order], y[order], w[order]
    # last index of every tied group
    ends = np.flatnonzero(np.r_[s[1:] != s[:-1], True])
    return s, y, w, ends


def average_precision(y_true, score, *, sample_weight=None) -> float:
    """Average precision, as ``sklearn.metrics.average_precision_score``.

    ``AP = sum_t (R_t - R_{t-1}) P_t`` over distinct score thresholds t (descending); tied
    scores form one threshold; no interpolation. VariErr (section 5) ranks errors with it.

    Parameters
    ----------
    y_true : array_like
        (N,) 1 for an error, 0 otherwise.
    score : array_like
        (N,) error scores (no NaN).
    sample_weight : array_like, optional
        (N,) repeat counts (bootstrap).

    Returns
    -------
    float
        AP in [0, 1]; NaN without positives.

    Raises
    ------
    ValueError
        Shapes differ or a score is NaN.

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    Thresholds 0.9 (P = 1, R = 1/2) and 0.8 (P = 2/3, R = 1): AP = 1/2 + (1/2)(2/3):

    >>> y_true = [1, 0, 1, 0]
    >>> score = [0.9, 0.8, 0.8, 0.1]  # the two 0.8 units are tied
    >>> round(average_precision(y_true, score), 6)
    0.833333
    """
    _, y, w, ends = _prep(y_true, score, sample_weight)
    tp = np.cumsum(y * w)[ends]
    seen = np.cumsum(w)[ends]
    pos = tp[-1] if len(tp) else 0.0
    if pos <= 0:
        return float("nan")
    precision = tp / seen
    recall = tp / pos
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def _expected_hits(y_true, score, k: int, sample_weight=None, ties: str = "expected"):
    if k < 1:
        raise ValueError("k must be >= 1")
    if ties == "argsort":
        y = np.asarray(y_true, float)
        idx = np.argsort(np.asarray(score, float))[::-1][:k]
        return float(y[idx].sum()), float(y.sum())
    if ties != "expected":
        raise ValueError("ties must be 'expected' or 'argsort'")
    _, y, w, ends = _prep(y_true, score, sample_weight)
    cw = np.cumsum(w)
    cy = np.cumsum(y * w)
    total_pos = cy[-1] if len(cy) else 0.0
    k = min(k, cw[-1])
    g = int(np.searchsorted(cw[ends], k - 1e-9))        # group holding position k
    above_w = cw[ends[g - 1]] if g > 0 else 0.0
    above_y = cy[ends[g - 1]] if g > 0 else 0.0
    g_w = cw[ends[g]] - above_w
    g_y = cy[ends[g]] - above_y
    return float(above_y + (k - above_w) * g_y / g_w), float(total_pos)


def precision_at_k(y_true, score, k: int, *, sample_weight=None, ties: str = "expected") -> float:
    """Precision among the top ``k``, expected over uniform tie breaking at the cut.

    With the cut inside tied group G: ``hits = positives above G + (k - units above G) *
    positives(G) / |G|``; ``P@k = hits / k``.

    Parameters
    ----------
    y_true : array_like
        (N,) 1 for an error, 0 otherwise.
    score : array_like
        (N,) error scores.
    k : int
        Cut-off (>= 1).
    sample_weight : array_like, optional
        (N,) repeat counts.
    ties : {"expected", "argsort"}, default "expected"
        ``"argsort"`` mimics VariErr's ``numpy.argsort(score)[::-1][:k]`` (the order of ties
        depends on the numpy build).

    Returns
    -------
    float
        P@k.

    Raises
    ------
    ValueError
        ``k < 1`` or an unknown ``ties``.

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    The cut at k = 2 falls inside the tie, which holds one error among two units:
    hits = 1 + 1 * 1/2:

    >>> y_true = [1, 0, 1, 0]
    >>> score = [0.9, 0.8, 0.8, 0.1]  # the two 0.8 units are tied
    >>> precision_at_k(y_true, score, 2)
    0.75
    """
    hits, _ = _expected_hits(y_true, score, k, sample_weight, ties)
    return hits / k


def recall_at_k(y_true, score, k: int, *, sample_weight=None, ties: str = "expected") -> float:
    """Recall among the top ``k`` (tie-aware, as :func:`precision_at_k`): hits / all positives.

    Parameters
    ----------
    y_true : array_like
        (N,) 1 for an error, 0 otherwise.
    score : array_like
        (N,) error scores.
    k : int
        Cut-off (>= 1).
    sample_weight : array_like, optional
        (N,) repeat counts.
    ties : {"expected", "argsort"}, default "expected"
        As in :func:`precision_at_k`.

    Returns
    -------
    float
        R@k; NaN without positives.

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    >>> y_true = [1, 0, 1, 0]
    >>> score = [0.9, 0.8, 0.8, 0.1]  # the two 0.8 units are tied
    >>> recall_at_k(y_true, score, 2)
    0.75
    """
    hits, pos = _expected_hits(y_true, score, k, sample_weight, ties)
    return hits / pos if pos > 0 else float("nan")


def random_baseline(n_positive: int, n_total: int, ks=(50, 100)) -> dict:
    """The paper's random baseline: AP = P@k = prevalence, R@k = k / N (VariErr, section 5).

    Parameters
    ----------
    n_positive : int
        Gold errors.
    n_total : int
        Ranked units N.
    ks : sequence of int, default (50, 100)
        Cut-offs.

    Returns
    -------
    dict
        ``ap`` and ``p@k``, ``r@k`` for every k.

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    >>> random_baseline(20, 400, ks=(50,))
    {'ap': 0.05, 'p@50': 0.05, 'r@50': 0.125}
    """
    prev = n_positive / n_total
    out = {"ap": prev}
    for k in ks:
        out[f"p@{k}"] = prev
        out[f"r@{k}"] = k / n_total
    return out


def _metrics(y, s, ks, w=None) -> dict:
    out = {"ap": average_precision(y, s, sample_weight=w)}
    for k in ks:
        hits, pos = _expected_hits(y, s, k, w)
        out[f"p@{k}"] = hits / k
        out[f"r@{k}"] = hits / pos if pos > 0 else float("nan")
    return out


def evaluate_error_ranking(scores: pd.DataFrame, gold: pd.DataFrame, ks=(50, 100), *,
                           n_boot: int = 1000, seed: int = 0, ci: float = 0.95) -> pd.DataFrame:
    """Evaluate an error ranking against gold errors (VariErr, section 5 and its results tables).

    Joins on (item_id, label) and evaluates only the pairs in ``gold``; gold pairs without a
    score are counted in ``n_missing`` and left out. Reports AP, P@k and R@k (tie-aware) with
    percentile bootstrap CIs (items resampled with replacement, all labels of a drawn item
    together, ``n_boot`` draws from ``numpy.random.default_rng(seed)``), on all pairs and on
    the single-label subset (pairs with n_chose = 1, VariErr's ``results_single_label.tsv``).

    Parameters
    ----------
    scores : DataFrame
        ``item_id, label, score`` (+ ``n_chose``), e.g. :func:`error_scores`.
    gold : DataFrame
        ``item_id, label, is_error`` (0/1; VariErr's ``errors.csv``).
    ks : sequence of int, default (50, 100)
        Cut-offs of P@k and R@k.
    n_boot : int, default 1000
        Bootstrap draws (0: no CIs).
    seed : int, default 0
        Seed of the bootstrap.
    ci : float, default 0.95
        Confidence level.

    Returns
    -------
    DataFrame
        Indexed by ``subset`` (``all``, ``single_label``) with ``n_ranked``, ``n_missing``,
        ``n_errors``, ``ap``, ``ap_lo``, ``ap_hi``, ``p@k``/``r@k`` (+ ``_lo``/``_hi``).

    Raises
    ------
    ValueError
        Missing columns, or ``is_error`` not 0/1.

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item_id": ["i1"] * 4 + ["i2"] * 4,
    ...                    "annotator_id": ["a", "b", "c", "d"] * 2,
    ...                    "label": ["E", "E", "E", "C", "N", "N", "C", "C"]})
    >>> gold = pd.DataFrame({"item_id": ["i1", "i1", "i2", "i2"], "label": ["E", "C", "N", "C"],
    ...                      "is_error": [0, 1, 0, 0]})
    >>> result = evaluate_error_ranking(error_scores(df, method="label_count"), gold, ks=(2,),
    ...                                 n_boot=100, seed=0)
    >>> result.loc["all", ["n_ranked", "n_errors", "ap", "p@2", "r@2"]].tolist()
    [4.0, 1.0, 1.0, 0.5, 1.0]
    """
    need = {"item_id", "label", "is_error"}
    if not need <= set(gold.columns):
        raise ValueError("gold: columns item_id, label, is_error expected (VariErr errors.csv)")
    if not {"item_id", "label", "score"} <= set(scores.columns):
        raise ValueError("scores: columns item_id, label, score expected (error_scores output)")
    g = gold.copy()
    g["item_id"], g["label"] = g["item_id"].astype(str), g["label"].astype(str)
    y_all = pd.to_numeric(g["is_error"], errors="coerce")
    if y_all.isna().any() or not y_all.isin([0, 1]).all():
        raise ValueError("gold: column 'is_error' must be 0 or 1")
    g["is_error"] = y_all.astype(int)
    s = scores.copy()
    s["item_id"], s["label"] = s["item_id"].astype(str), s["label"].astype(str)
    cols = ["item_id", "label", "score"] + (["n_chose"] if "n_chose" in s else [])
    j = g.merge(s[cols], on=["item_id", "label"], how="left")
    if "n_chose" not in j:
        j["n_chose"] = j.get("n_annotators_chose", np.nan)
    missing = int(j["score"].isna().sum())
    j = j[j["score"].notna()].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    rows = []
    for name, part in (("all", j), ("single_label", j[j["n_chose"] == 1])):
        part = part.reset_index(drop=True)
        y, sc = part["is_error"].to_numpy(float), part["score"].to_numpy(float)
        row = {"subset": name, "n_ranked": len(part), "n_missing": missing,
               "n_errors": int(y.sum())}
        if len(part) == 0:
            rows.append(row)
            continue
        point = _metrics(y, sc, ks)
        items, inv = np.unique(part["item_id"].to_numpy(), return_inverse=True)
        draws = []
        for _ in range(n_boot):
            mult = np.bincount(rng.integers(0, len(items), len(items)), minlength=len(items))
            w = mult[inv].astype(float)
            keep = w > 0
            draws.append(_metrics(y[keep], sc[keep], ks, w[keep]))
        lo_q, hi_q = (1 - ci) / 2, 1 - (1 - ci) / 2
        for key, val in point.items():
            vals = np.array([d[key] for d in draws], dtype=float)
            row[key] = val
            row[f"{key}_lo"] = float(np.nanquantile(vals, lo_q)) if n_boot else np.nan
            row[f"{key}_hi"] = float(np.nanquantile(vals, hi_q)) if n_boot else np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("subset")


# ------------------------------------------------------------------------------ choosers
def label_choosers(annotations: pd.DataFrame, report: pd.DataFrame) -> pd.DataFrame:
    """Who chose each (item, label), with the verdict :func:`competence.annotator_report` gives
    them, e.g. ``"A012 (reliable), A3 (systematic)"``.

    A possible error is shown with its score and rank and, beside it, whether the label's
    choosers are reliable, unreliable or systematic: a label chosen by a systematic minority is
    a perspective, not noise (Weber-Genzel et al. 2024, section 5; Dawid & Skene 1979).

    Parameters
    ----------
    annotations : DataFrame
        Long annotations with ``item_id``, ``annotator_id``, ``label`` (cells compared as
        strings; a repeated row counts once).
    report : DataFrame
        Indexed by annotator id with a ``kind`` column (the annotator report); an annotator
        missing from it is ``insufficient_data``.

    Returns
    -------
    DataFrame
        One row per (item, label), in order of first appearance: ``item_id``, ``label``,
        ``choosers`` (``"id (kind)"`` joined by ", " in row order), ``systematic_choosers`` and
        ``unreliable_choosers`` (counts).

    References
    ----------
    .. [1] L. Weber-Genzel, S. Peng, M.-C. de Marneffe and B. Plank (2024), "VariErr NLI:
       separating annotation error from human label variation", ACL 2024, section 5.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item_id": ["i1", "i1", "i1"], "annotator_id": ["a", "b", "c"],
    ...                    "label": ["E", "E", "C"]})
    >>> report = pd.DataFrame({"kind": ["reliable", "systematic"]}, index=["a", "c"])
    >>> label_choosers(df, report)[["label", "choosers", "systematic_choosers"]]
      label                             choosers  systematic_choosers
    0     E  a (reliable), b (insufficient_data)                    0
    1     C                       c (systematic)                    1
    """
    rows = annotations[["item_id", "annotator_id", "label"]].astype(str).drop_duplicates()
    if rows.empty:
        return pd.DataFrame(columns=["item_id", "label", "choosers", "systematic_choosers",
                                     "unreliable_choosers"])
    kind = report["kind"].reindex(rows["annotator_id"]).fillna("insufficient_data").to_numpy()
    group = rows.groupby(["item_id", "label"], sort=False).ngroup().to_numpy()
    order = np.argsort(group, kind="stable")  # each pair's rows together, in row order
    who = (rows["annotator_id"] + " (" + kind + ")").to_numpy(dtype=object)[order].tolist()
    ends = np.cumsum(np.bincount(group)).tolist()
    first = rows.iloc[order[np.asarray([0, *ends[:-1]], dtype=np.int64)]]
    return pd.DataFrame({
        "item_id": first["item_id"].to_numpy(), "label": first["label"].to_numpy(),
        "choosers": [", ".join(who[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)],
        "systematic_choosers": np.bincount(group, weights=kind == "systematic").astype(int),
        "unreliable_choosers": np.bincount(group, weights=kind == "unreliable").astype(int),
    })
