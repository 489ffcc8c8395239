"""Can a model replace one of the annotators? The Alternative Annotator Test and the human ceiling.

Sources: Calderon, Reichart & Dror, "The Alternative Annotator Test for LLM-as-a-Judge" (ACL 2025,
arXiv 2501.10970, section 3): leave each annotator out in turn, let the model and that annotator
compete on representing the remaining annotators item by item, test one-sidedly with a
cost-benefit allowance epsilon, correct with Benjamini-Yekutieli. The defaults reproduce the
authors' reference notebook, including its tie rule (a tie counts for both sides) and its
filtering (items need 2 annotators and a model label; annotators need 30 such items).

The human ceiling (every annotator scored against the others on the metrics of Kurniawan et al.)
lives in :mod:`hlv_core.ceiling` and is re-exported here (:func:`human_ceiling`).

Input shapes: ``annotations`` is a :class:`~hlv_core.io.Dataset` or a long DataFrame with
columns ``item_id, annotator_id, label``; model labels are ``{item: label}`` (one label per item),
``{annotator: {item: label}}`` (a label per left-out annotator, e.g. :func:`leave_one_out_majority`)
or a DataFrame ``item_id, label`` / ``annotator_id, item_id, label``. Everything is computed on
flat annotation rows with ``bincount``; no Python loop runs over items or annotators (except a
user-supplied callable score, which is called once per (item, annotator) pair).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from ._rows import Long as _Long
from ._rows import label_key as _label_key
from ._rows import long_rows as _long
from .ceiling import HumanCeilingResult, human_ceiling
from .io import Dataset

__all__ = [
    "EPSILON_PRESETS",
    "AltTestResult",
    "HumanCeilingResult",
    "alignment_accuracy",
    "alignment_jaccard",
    "alignment_neg_rmse",
    "alt_test",
    "alt_test_sweep",
    "by_rejections",
    "constant_majority_labels",
    "human_ceiling",
    "leave_one_out_majority",
    "model_labels_from_predictions",
]

#: The paper's guidance for epsilon (Calderon et al., section 3): experts, skilled annotators,
#: crowd workers. Lower it when inter-annotator agreement is low.
EPSILON_PRESETS: dict[str, float] = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}

_SCORINGS = ("accuracy", "neg_rmse", "jaccard")


# ------------------------------------------------------------------ scalar alignment scores
def alignment_accuracy(x, others: Sequence) -> float:
    """Alignment score "accuracy" (Calderon et al., section 3).

    ``S(x, R) = (1/|R|) sum_{r in R} [x = r]``: the share of the other annotators' labels equal
    to ``x`` (labels compared as values).

    Parameters
    ----------
    x : object
        One label (the model's or the left-out annotator's).
    others : sequence
        The other annotators' labels on the item, at least one.

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        No other annotator.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> alignment_accuracy("a", ["a", "b", "a", "a"])
    0.75
    """
    if len(others) == 0:
        raise ValueError("the alignment score needs at least one other annotator.")
    return float(np.mean([x == r for r in others]))


def alignment_neg_rmse(x, others: Sequence) -> float:
    """Alignment score "negative RMSE" for numeric labels (Calderon et al., section 3).

    ``S(x, R) = -sqrt((1/|R|) sum_{r in R} (x - r)^2)``.

    Parameters
    ----------
    x : float
        One numeric label.
    others : sequence of float
        The other annotators' labels, at least one.

    Returns
    -------
    float
        Score <= 0 (higher is better).

    Raises
    ------
    ValueError
        No other annotator.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> alignment_neg_rmse(3, [1, 5])
    -2.0
    """
    if len(others) == 0:
        raise ValueError("the alignment score needs at least one other annotator.")
    values = np.asarray(others, dtype=float)
    return -float(np.sqrt(np.mean((float(x) - values) ** 2)))


def alignment_jaccard(x: frozenset, others: Sequence[frozenset]) -> float:
    """Mean Jaccard similarity of a label set to the other annotators' sets.

    ``S(x, R) = (1/|R|) sum_r |x & r| / |x | r|`` (two empty sets: 1). HLV Lens extension for
    multi-label data, not in the reference code.

    Parameters
    ----------
    x : frozenset
        One annotator's (or the model's) label set.
    others : sequence of frozenset
        The other annotators' sets, at least one.

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        No other annotator.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> alignment_jaccard(frozenset({"a", "b"}), [frozenset({"a"}), frozenset()])
    0.25
    """
    if len(others) == 0:
        raise ValueError("the alignment score needs at least one other annotator.")
    sims = [1.0 if not (x | r) else len(x & r) / len(x | r) for r in others]
    return float(np.mean(sims))


# ------------------------------------------------------------------------- BY procedure
def by_rejections(p_values: Sequence[float], q: float = 0.05) -> np.ndarray:
    """Benjamini-Yekutieli step-up procedure (Benjamini & Yekutieli 2001; Calderon et al., section 3).

    With ``c(m) = sum_{i<=m} 1/i``, sort the m p-values ascending, find the largest rank k with
    ``p_(k) <= k q / (m c(m))`` and reject the k smallest. NaN p-values are never rejected but
    count in m.

    Parameters
    ----------
    p_values : sequence of float
        The m p-values.
    q : float, default 0.05
        False discovery rate.

    Returns
    -------
    numpy.ndarray
        Boolean (m,), True where rejected, in the input order.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.
    .. [2] Y. Benjamini and D. Yekutieli (2001), "The control of the false discovery rate in
       multiple testing under dependency", Annals of Statistics 29(4).

    Examples
    --------
    Hand check: m = 4, c(4) = 25/12, thresholds 0.006 k, so the first two are rejected:

    >>> by_rejections([0.001, 0.01, 0.02, 0.5], q=0.05)
    array([ True,  True, False, False])
    """
    p = np.asarray(p_values, dtype=float).ravel()
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="stable")  # NaN last
    c_m = np.sum(1.0 / np.arange(1, m + 1))
    thresholds = np.arange(1, m + 1) * q / (m * c_m)
    below = p[order] <= thresholds  # NaN compares False
    k = int(np.flatnonzero(below)[-1]) + 1 if below.any() else 0
    out = np.zeros(m, dtype=bool)
    out[order[:k]] = True
    return out


# ---------------------------------------------------------------------------- inputs
def _model_rows(long: _Long, model_labels) -> tuple[np.ndarray, np.ndarray, bool]:
    """Model label for every annotation row (object array, None where missing), a mask of rows
    that have one, and whether the labels are per left-out annotator."""
    item_ids = long.item_ids
    per_annotator = False
    if isinstance(model_labels, pd.Series):
        model_labels = model_labels.to_dict()
    if isinstance(model_labels, pd.DataFrame):
        if "label" not in model_labels.columns or "item_id" not in model_labels.columns:
            raise ValueError("model labels as a table need item_id and label columns "
                             "(+ annotator_id for per-annotator labels).")
        per_annotator = "annotator_id" in model_labels.columns
        table = model_labels
    elif isinstance(model_labels, Mapping):
        values = list(model_labels.values())
        per_annotator = bool(values) and all(isinstance(v, (Mapping, pd.Series)) for v in values)
        if per_annotator:
            table = pd.DataFrame(
                [(a, i, lab) for a, inner in model_labels.items()
                 for i, lab in (inner.items() if isinstance(inner, Mapping)
                                else inner.to_dict().items())],
                columns=["annotator_id", "item_id", "label"])
        else:
            table = pd.DataFrame({"item_id": list(model_labels.keys()), "label": values})
    else:
        raise TypeError("model_labels must be {item: label}, {annotator: {item: label}} or a "
                        "DataFrame with item_id, label (and annotator_id).")
    table = table[table["label"].notna()]
    items = table["item_id"].astype(str).to_numpy(dtype=object)
    item_code = item_ids.get_indexer(items)
    unknown = item_code < 0
    if unknown.any():
        raise ValueError(f"the model labels item {items[np.flatnonzero(unknown)[0]]!r}, which has "
                         f"no human annotation ({int(unknown.sum())} such label(s)); check the "
                         "item ids.")
    labels = table["label"].to_numpy(dtype=object)
    R = long.item.size
    out = np.full(R, None, dtype=object)
    if per_annotator:
        annot_code = long.annotator_ids.get_indexer(table["annotator_id"].astype(str)
                                                    .to_numpy(dtype=object))
        keep = annot_code >= 0
        key = item_code[keep].astype(np.int64) * len(long.annotator_ids) + annot_code[keep]
        if pd.Series(key).duplicated().any():
            raise ValueError("the per-annotator model labels give one (annotator, item) twice.")
        row_key = long.item.astype(np.int64) * len(long.annotator_ids) + long.annot
        pos = pd.Index(key).get_indexer(row_key)
        has = pos >= 0
        out[has] = labels[keep][pos[has]]
    else:
        if pd.Series(item_code).duplicated().any():
            dup = items[pd.Series(item_code).duplicated().to_numpy()][0]
            raise ValueError(f"the model gives item {dup!r} more than one label.")
        per_item = np.full(len(item_ids), None, dtype=object)
        per_item[item_code] = labels
        out = per_item[long.item]
    has = np.array([v is not None for v in out], dtype=bool)
    return out, has, per_annotator


# -------------------------------------------------------------------- alignment per row
def _numeric(values: np.ndarray, what: str) -> np.ndarray:
    try:
        return np.array([float(v) for v in values], dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"scoring 'neg_rmse' needs numeric {what}; got a label that is not a "
                         f"number ({err}). Use scoring='accuracy' for categorical labels.") from None


def _row_scores(long: _Long, model: np.ndarray, rows: np.ndarray, scoring
                ) -> tuple[np.ndarray, np.ndarray]:
    """(s_h, s_f) alignment scores of the left-out annotator and the model on ``rows``
    (indices into the annotation rows), against all other annotators of the row's item.

    Accuracy compares integer counts ``#others equal to x`` (the same denominator on both
    sides, so it orders exactly as the reference's shares); negative RMSE uses per-item counts
    of every distinct value, so a model label equal to the human's scores bit-identically."""
    item = long.item
    n_items = len(long.item_ids)
    n_per_item = np.bincount(item, minlength=n_items)
    if callable(scoring):
        return _callable_scores(long, model, rows, scoring)
    if scoring == "accuracy":
        codes, uniques = pd.factorize(long.label)
        key_of = {u: k for k, u in enumerate(uniques)}
        K = len(uniques)
        counts = np.zeros((n_items, K), dtype=np.int64)
        np.add.at(counts, (item, codes), 1)
        m_codes, m_uniques = pd.factorize(pd.Series(model[rows], dtype=object))
        m_keys = [(_label_key(v) if not isinstance(v, (frozenset, set)) else
                   _set_key(v, long.labels)) for v in m_uniques]
        lookup = np.array([key_of.get(k, -1) if k is not None else -1 for k in m_keys] + [-1],
                          dtype=np.int64)
        mcode = lookup[m_codes]
        i, y = item[rows], codes[rows]
        s_h = counts[i, y] - 1
        s_f = np.where(mcode >= 0, counts[i, np.maximum(mcode, 0)], 0) - (mcode == y)
        return s_h.astype(float), s_f.astype(float)
    if scoring == "neg_rmse":
        if long.multilabel:
            raise ValueError("scoring 'neg_rmse' needs one numeric label per annotation.")
        values = _numeric(long.label, "human labels")
        uniq, codes = np.unique(values, return_inverse=True)
        counts = np.zeros((n_items, uniq.size), dtype=float)
        np.add.at(counts, (item, codes), 1.0)
        i, y = item[rows], codes[rows]
        others = counts[i]
        others[np.arange(rows.size), y] -= 1.0
        n_others = (n_per_item[i] - 1).astype(float)
        xh = uniq[y]
        xf = _numeric(model[rows], "model labels")
        ss_h = (others * (xh[:, None] - uniq[None, :]) ** 2).sum(axis=1)
        ss_f = (others * (xf[:, None] - uniq[None, :]) ** 2).sum(axis=1)
        return -np.sqrt(ss_h / n_others), -np.sqrt(ss_f / n_others)
    if scoring == "jaccard":
        if not long.multilabel:
            raise ValueError("scoring 'jaccard' is for multi-label data (label sets); pass "
                             "multilabel=True.")
        return _jaccard_scores(long, model, rows)
    raise ValueError(f"unknown scoring {scoring!r}; use one of {_SCORINGS} or a callable "
                     "(x, others) -> float.")


def _set_key(value, labels: tuple[str, ...]) -> str | None:
    """The key of a model label set in the human keys' form (inventory order joined by "|"),
    or None when the set holds a label outside the inventory: such a set equals no human set
    (a dropped label would let {E, X} match a human's {E})."""
    names = {_label_key(x) for x in value}
    if not names.issubset(labels):
        return None
    return "|".join(x for x in labels if x in names)


def _model_bits(long: _Long, model: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Model label sets as 0/1 rows over the inventory (M, K), and the number of labels of each
    set outside the inventory (M,): they match no human label but still count in a union."""
    index = {lab: k for k, lab in enumerate(long.labels)}
    out = np.zeros((model.size, len(long.labels)), dtype=np.int8)
    outside = np.zeros(model.size, dtype=np.int64)
    for r, value in enumerate(model):  # label sets: one small set per row
        names = {_label_key(lab) for lab in (value if isinstance(value, (frozenset, set, tuple, list))
                                      else [value])}
        for name in names:
            k = index.get(name)
            if k is None:
                outside[r] += 1
            else:
                out[r, k] = 1
    return out, outside


def _jaccard_scores(long: _Long, model: np.ndarray, rows: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Mean Jaccard similarity to the other annotators' sets, on all (row, other) pairs of an
    item at once (pairs generated by ``repeat``; extension, not in the reference)."""
    item, bits = long.item, long.bits.astype(np.int64)
    order = np.argsort(item, kind="stable")
    n_per_item = np.bincount(item, minlength=len(long.item_ids))
    start = np.concatenate([[0], np.cumsum(n_per_item)[:-1]])
    i = item[rows]
    n = n_per_item[i]
    a = np.repeat(rows, n)
    offs = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    b = order[np.repeat(start[i], n) + offs]
    keep = a != b
    a_pos = np.repeat(np.arange(rows.size), n)[keep]
    b = b[keep]
    mbits, outside = _model_bits(long, model[rows])
    mbits = mbits.astype(np.int64)

    def sims(x: np.ndarray, y: np.ndarray, extra: np.ndarray | int = 0) -> np.ndarray:
        inter = (x & y).sum(axis=1)
        union = (x | y).sum(axis=1) + extra  # labels outside the inventory: in x only
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 1.0)

    n_others = (n - 1).astype(float)
    s_h = np.bincount(a_pos, weights=sims(bits[a[keep]], bits[b]), minlength=rows.size)
    s_f = np.bincount(a_pos, weights=sims(mbits[a_pos], bits[b], outside[a_pos]),
                      minlength=rows.size)
    return s_h / n_others, s_f / n_others


def _callable_scores(long: _Long, model: np.ndarray, rows: np.ndarray, fn: Callable
                     ) -> tuple[np.ndarray, np.ndarray]:
    """A user score ``fn(x, others)``: called once per (item, left-out annotator) pair for the
    human and once for the model (the paper's similarity option)."""
    values = long.sets if long.multilabel else _original_labels(long)
    if not long.multilabel and "original" not in long.extra:
        # the human labels are the dataset's label strings: a model label that accuracy would
        # match to one of them (3, 3.0 and "3" are one label) is passed as that string, so both
        # sides of the comparison reach the callable in the same form
        spelled = {_label_key(lab): lab for lab in long.labels}
        model = np.array([v if v is None or isinstance(v, (frozenset, set))
                          else spelled.get(_label_key(v), v) for v in model], dtype=object)
    by_item: dict[int, list[int]] = pd.Series(np.arange(long.item.size)).groupby(
        long.item).apply(list).to_dict()
    s_h = np.empty(rows.size)
    s_f = np.empty(rows.size)
    for pos, r in enumerate(rows):  # a Python callable: one call per pair is unavoidable
        others = [values[o] for o in by_item[int(long.item[r])] if o != r]
        if not others:  # no other annotator: undefined, neither side wins the item
            s_h[pos] = s_f[pos] = np.nan
            continue
        s_h[pos] = fn(values[r], others)
        s_f[pos] = fn(model[r], others)
    return s_h, s_f


def _original_labels(long: _Long) -> list:
    return long.extra.get("original", list(long.label))


# ------------------------------------------------------------------------- the test
@dataclass(frozen=True)
class AltTestResult:
    """Result of :func:`alt_test`.

    Attributes
    ----------
    winning_rate : float
        omega = share of tested annotators whose null hypothesis was rejected
        (Benjamini-Yekutieli).
    rho : float
        Unweighted mean over tested annotators of the model's advantage probability.
    passed : bool
        True iff omega >= 0.5.
    epsilon, q_fdr : float
        The cost-benefit allowance and the false discovery rate used.
    per_annotator : pandas.DataFrame
        One row per tested annotator: ``annotator, n_items, rho_model, rho_human, mean_d, t,
        p_value, rejected``.
    skipped : dict of str to str
        Annotator -> why it was not tested.
    n_items_dropped : int
        Annotated items without a model label or with too few annotators.
    n_items_used : int
        Items used.
    test : str
        ``"ttest"`` or ``"wilcoxon"``.
    scoring : str
        The alignment score.
    warnings : tuple of str
        Caveats to show.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 40)  # 40 items, 4 annotators who flip a quarter of labels
    >>> labels = np.where(rng.random((40, 4)) < 0.25, 1 - truth[:, None], truth[:, None])
    >>> annotations = pd.DataFrame({"item_id": np.repeat([f"i{i}" for i in range(40)], 4),
    ...                             "annotator_id": np.tile(["a0", "a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel().astype(str)})
    >>> oracle = {f"i{i}": str(t) for i, t in enumerate(truth)}
    >>> result = alt_test(annotations, oracle, epsilon=0.2)
    >>> result.to_dict()["n_tested"], result.passed
    (4, True)
    """

    winning_rate: float
    rho: float
    passed: bool
    epsilon: float
    q_fdr: float
    per_annotator: pd.DataFrame
    skipped: dict[str, str]
    n_items_dropped: int
    n_items_used: int = 0
    test: str = "ttest"
    scoring: str = "accuracy"
    warnings: tuple[str, ...] = ()

    @property
    def n_tested(self) -> int:
        return len(self.per_annotator)

    def to_dict(self) -> dict:
        """Plain summary (for JSON and the CLI).

        Returns
        -------
        dict
            ``winning_rate, rho, passed, epsilon, q_fdr, test, scoring, n_tested, n_skipped,
            n_items_used, n_items_dropped, warnings``.

        Examples
        --------
        >>> import pandas as pd
        >>> result = AltTestResult(winning_rate=0.75, rho=0.8, passed=True, epsilon=0.2, q_fdr=0.05,
        ...                        per_annotator=pd.DataFrame({"annotator": ["a", "b", "c", "d"]}),
        ...                        skipped={}, n_items_dropped=0)
        >>> result.to_dict()["n_tested"], result.to_dict()["passed"]
        (4, True)
        """
        return {"winning_rate": self.winning_rate, "rho": self.rho, "passed": self.passed,
                "epsilon": self.epsilon, "q_fdr": self.q_fdr, "test": self.test,
                "scoring": self.scoring, "n_tested": self.n_tested,
                "n_skipped": len(self.skipped), "n_items_used": self.n_items_used,
                "n_items_dropped": self.n_items_dropped, "warnings": list(self.warnings)}


@dataclass(frozen=True)
class _Indicators:
    """Per tested annotator: counts of d = -1 (model strictly better), 0 (tie), +1 (human
    strictly better) and the advantage counts; everything epsilon does not change."""

    annotators: list[str]
    n: np.ndarray
    n_neg: np.ndarray
    n_zero: np.ndarray
    n_pos: np.ndarray
    skipped: dict[str, str]
    n_items_dropped: int
    n_items_used: int
    scoring: str
    n_wf: np.ndarray | None = None  # items where the model is at least as good (W_f = 1)
    n_wh: np.ndarray | None = None  # items where the annotator is at least as good (W_h = 1)


def _indicators(annotations, model_labels, *, scoring, min_humans_per_item,
                min_items_per_annotator, multilabel=None) -> _Indicators:
    long = _long(annotations, multilabel)
    if scoring == "jaccard" and not long.multilabel:
        raise ValueError("scoring 'jaccard' is for multi-label data; pass multilabel=True.")
    if callable(scoring) and not long.multilabel and isinstance(annotations, pd.DataFrame):
        long.extra["original"] = list(annotations["label"].to_numpy(dtype=object))
    model, has_model, _ = _model_rows(long, model_labels)
    n_items = len(long.item_ids)
    n_per_item = np.bincount(long.item, minlength=n_items)
    enough = n_per_item >= int(min_humans_per_item)
    item_has_model = np.bincount(long.item, weights=has_model.astype(float),
                                 minlength=n_items) > 0
    kept_item = enough & item_has_model
    rows = np.flatnonzero(kept_item[long.item] & has_model)
    with np.errstate(divide="ignore", invalid="ignore"):
        s_h, s_f = _row_scores(long, model, rows, scoring)
    # an item with no other annotator (min_humans_per_item < 2): the reference's score is the
    # mean of an empty list (NaN), so neither side wins it (d = 0, W_f = 0)
    alone = n_per_item[long.item[rows]] < 2
    w_f = (s_f >= s_h) & ~alone
    w_h = (s_h >= s_f) & ~alone
    d = w_h.astype(int) - w_f.astype(int)
    A = len(long.annotator_ids)
    a = long.annot[rows]
    n = np.bincount(a, minlength=A)
    n_neg = np.bincount(a, weights=(d == -1), minlength=A).astype(np.int64)
    n_pos = np.bincount(a, weights=(d == 1), minlength=A).astype(np.int64)
    n_zero = n - n_neg - n_pos
    n_wf = np.bincount(a, weights=w_f, minlength=A).astype(np.int64)
    n_wh = np.bincount(a, weights=w_h, minlength=A).astype(np.int64)
    tested = n >= int(min_items_per_annotator)
    names = [str(x) for x in long.annotator_ids]
    skipped = {
        names[j]: (f"{int(n[j])} item(s) with a model label and >= "
                   f"{int(min_humans_per_item)} annotators (fewer than "
                   f"{int(min_items_per_annotator)}); not tested")
        for j in np.flatnonzero(~tested)
    }
    idx = np.flatnonzero(tested)
    name = scoring if isinstance(scoring, str) else getattr(scoring, "__name__", "callable")
    return _Indicators([names[j] for j in idx], n[idx], n_neg[idx], n_zero[idx], n_pos[idx],
                       skipped, int((~kept_item).sum()), int(kept_item.sum()), name,
                       n_wf[idx], n_wh[idx])


def _t_test_less(ind: _Indicators, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sample one-sided t-test of H0 E[d] >= epsilon per annotator, from the counts of
    d in {-1, 0, 1}: ``t = (mean(d) - eps) / (sd(d) / sqrt(n))`` (ddof 1), ``p = F_{n-1}(t)``
    (as scipy ``ttest_1samp(..., alternative="less")``). Zero variance gives t = -inf (p = 0),
    +inf (p = 1) or 0/0 (p = NaN), scipy's behaviour."""
    n = ind.n.astype(float)
    mean = (ind.n_pos - ind.n_neg) / n
    m2 = (ind.n_neg * (-1.0 - mean) ** 2 + ind.n_zero * (0.0 - mean) ** 2
          + ind.n_pos * (1.0 - mean) ** 2) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        var = m2 * (n / (n - 1.0))
        t = (mean - epsilon) / np.sqrt(var / n)
    p = special.stdtr(n - 1.0, t)
    return t, p


def _wilcoxon_less(ind: _Indicators, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Wilcoxon signed-rank test of ``d - epsilon`` (H1: location < 0), normal
    approximation with tie correction, zeros dropped (scipy ``wilcoxon(method="approx",
    zero_method="wilcox", correction=False)``), from the counts of the three values of d.
    HLV Lens extension (the paper's FAQ suggests it below 30 items); not in the reference."""
    vals = np.array([-1.0 - epsilon, 0.0 - epsilon, 1.0 - epsilon])
    cnt = np.stack([ind.n_neg, ind.n_zero, ind.n_pos], axis=1).astype(float)
    nonzero = vals != 0
    cnt = cnt * nonzero
    absv = np.abs(vals)
    # average ranks of |v| with ties: group equal absolute values
    groups = {}
    for k in range(3):  # three values only
        if nonzero[k]:
            groups.setdefault(round(absv[k], 12), []).append(k)
    keys = sorted(groups)
    n_eff = cnt.sum(axis=1)
    r_plus = np.zeros(len(cnt))
    tie_term = np.zeros(len(cnt))
    below = np.zeros(len(cnt))
    for key in keys:  # at most three groups of tied |values|
        ks = groups[key]
        size = cnt[:, ks].sum(axis=1)
        avg_rank = below + (size + 1.0) / 2.0
        for k in ks:
            if vals[k] > 0:
                r_plus += cnt[:, k] * avg_rank
        tie_term += size**3 - size
        below += size
    mean = n_eff * (n_eff + 1.0) / 4.0
    var = n_eff * (n_eff + 1.0) * (2.0 * n_eff + 1.0) / 24.0 - tie_term / 48.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / np.sqrt(var)
    p = stats.norm.cdf(z)
    return z, np.where(n_eff > 0, p, np.nan)


def _finish(ind: _Indicators, epsilon: float, q_fdr: float, test: str) -> AltTestResult:
    if not ind.annotators:
        raise ValueError(
            "no annotator can be tested: every annotator has fewer items with a model label and "
            "another annotator than min_items_per_annotator "
            f"({len(ind.skipped)} annotator(s) skipped). Lower min_items_per_annotator or check "
            "that the model labels the annotated items.")
    if test == "ttest":
        t, p = _t_test_less(ind, epsilon)
    elif test == "wilcoxon":
        t, p = _wilcoxon_less(ind, epsilon)
    else:
        raise ValueError(f"unknown test {test!r}; use 'ttest' (reference) or 'wilcoxon' "
                         "(HLV Lens extension).")
    rejected = by_rejections(p, q_fdr)
    n = ind.n.astype(float)
    rho_model = ind.n_wf / n
    rho_human = ind.n_wh / n
    table = pd.DataFrame({
        "annotator": ind.annotators, "n_items": ind.n, "rho_model": rho_model,
        "rho_human": rho_human, "mean_d": (ind.n_pos - ind.n_neg) / n,
        "t": t, "p_value": p, "rejected": rejected,
    })
    omega = float(rejected.sum() / rejected.size)
    notes = []
    if rejected.size < 3:
        notes.append(f"only {rejected.size} annotator(s) could be tested; Calderon et al. "
                     "recommend at least 3: treat the verdict as weak evidence.")
    if ind.skipped:
        notes.append(f"{len(ind.skipped)} annotator(s) skipped (fewer items than "
                     "min_items_per_annotator); they count neither in the winning rate nor in "
                     "rho.")
    return AltTestResult(
        winning_rate=omega, rho=float(np.mean(rho_model)), passed=bool(omega >= 0.5),
        epsilon=float(epsilon), q_fdr=float(q_fdr), per_annotator=table,
        skipped=dict(ind.skipped), n_items_dropped=ind.n_items_dropped,
        n_items_used=ind.n_items_used, test=test, scoring=ind.scoring, warnings=tuple(notes))


def alt_test(
    annotations,
    model_labels,
    *,
    epsilon: float = 0.2,
    scoring: str | Callable = "accuracy",
    q_fdr: float = 0.05,
    min_humans_per_item: int = 2,
    min_items_per_annotator: int = 30,
    test: str = "ttest",
    multilabel: bool | None = None,
) -> AltTestResult:
    """The Alternative Annotator Test (Calderon, Reichart & Dror, ACL 2025, section 3).

    For every annotator j (items i it labelled; R_ij = the other annotators' labels):
    ``s_h = S(y_ij, R_ij)``, ``s_f = S(model_i, R_ij)``; ``W_f = [s_f >= s_h]``,
    ``W_h = [s_h >= s_f]`` (a tie counts for both), ``d_i = W_h - W_f``. ``rho_j = mean W_f``
    (the model's advantage probability). One-sided one-sample t-test of H0 ``E[d] >= epsilon``:
    ``p = F_{n_j-1}((mean d - eps) / (sd d / sqrt n_j))`` (zero variance: p = 0 below epsilon,
    1 above, NaN at epsilon). Benjamini-Yekutieli at ``q_fdr`` over the m tested annotators
    (:func:`by_rejections`); winning rate ``omega = #rejected / m``; the model passes iff
    ``omega >= 0.5``; ``rho`` = mean of rho_j.

    Filtering (reference notebook): an item counts iff it has a model label and at least
    ``min_humans_per_item`` annotators; an annotator with fewer than
    ``min_items_per_annotator`` such items is skipped (listed with the reason). A model label
    outside the human inventory is legal and never matches.

    Parameters
    ----------
    annotations : hlv_core.io.Dataset or pandas.DataFrame
        A dataset, or long rows ``item_id, annotator_id, label``.
    model_labels : mapping or pandas.DataFrame
        ``{item: label}``, ``{annotator: {item: label}}`` (a label per left-out annotator,
        e.g. :func:`leave_one_out_majority`), or a table ``item_id, label`` /
        ``annotator_id, item_id, label``.
    epsilon : float, default 0.2
        Cost-benefit allowance (:data:`EPSILON_PRESETS`: expert 0.2, skilled 0.15, crowd 0.1).
    scoring : {"accuracy", "neg_rmse", "jaccard"} or callable, default "accuracy"
        Alignment score; a callable takes ``(x, others)`` and returns a float. It receives the
        labels as the annotations hold them: a DataFrame's own values, or a Dataset's label
        strings (a model label equal to one of them as accuracy compares, e.g. 1 and "1", is
        passed as that string).
    q_fdr : float, default 0.05
        False discovery rate of the BY procedure.
    min_humans_per_item : int, default 2
        Fewest annotators of a usable item.
    min_items_per_annotator : int, default 30
        Fewest usable items of a tested annotator.
    test : {"ttest", "wilcoxon"}, default "ttest"
        ``"wilcoxon"``: one-sided signed-rank test (HLV Lens extension).
    multilabel : bool, optional
        Compare label sets (frozensets; ``"accuracy"`` = exact set equality); default: from
        the dataset.

    Returns
    -------
    AltTestResult
        Winning rate, rho, verdict and the per-annotator table.

    Raises
    ------
    ValueError
        No annotator can be tested, malformed model labels, or a setting out of range
        (epsilon not finite or < 0, q_fdr outside (0, 1], a minimum count below 1).

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.
    .. [2] Y. Benjamini and D. Yekutieli (2001), "The control of the false discovery rate in
       multiple testing under dependency", Annals of Statistics 29(4).

    Examples
    --------
    A model that always gives the true label beats every annotator who flips a quarter of
    theirs:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 40)  # 40 items, 4 annotators who flip a quarter of labels
    >>> labels = np.where(rng.random((40, 4)) < 0.25, 1 - truth[:, None], truth[:, None])
    >>> annotations = pd.DataFrame({"item_id": np.repeat([f"i{i}" for i in range(40)], 4),
    ...                             "annotator_id": np.tile(["a0", "a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel().astype(str)})
    >>> oracle = {f"i{i}": str(t) for i, t in enumerate(truth)}
    >>> result = alt_test(annotations, oracle, epsilon=0.2)
    >>> result.winning_rate, result.passed, round(result.rho, 3)
    (1.0, True, 1.0)
    >>> result.per_annotator[["annotator", "rho_human", "rejected"]].round(3)
      annotator  rho_human  rejected
    0        a0      0.775      True
    1        a1      0.750      True
    2        a2      0.850      True
    3        a3      0.800      True
    """
    _check_alt_test_settings([epsilon], q_fdr, min_humans_per_item, min_items_per_annotator)
    ind = _indicators(annotations, model_labels, scoring=scoring,
                      min_humans_per_item=min_humans_per_item,
                      min_items_per_annotator=min_items_per_annotator, multilabel=multilabel)
    return _finish(ind, epsilon, q_fdr, test)


def _check_alt_test_settings(epsilons, q_fdr, min_humans_per_item: int,
                            min_items_per_annotator: int) -> None:
    """Raise ValueError for alt-test settings that would give numbers without meaning (a NaN
    epsilon gives NaN p-values and a silent winning rate of 0): epsilon finite and >= 0, q_fdr
    in (0, 1], minimum counts whole numbers >= 1 (Calderon et al., section 3)."""
    for e in epsilons:
        if not (isinstance(e, (int, float, np.integer, np.floating)) and np.isfinite(e)
                and e >= 0):
            raise ValueError(f"epsilon must be a finite number >= 0 (the cost-benefit allowance "
                             f"of Calderon et al., section 3), got {e!r}.")
    if not (isinstance(q_fdr, (int, float, np.integer, np.floating)) and 0 < q_fdr <= 1):
        raise ValueError(f"q_fdr (the false discovery rate of the BY procedure) must be in "
                         f"(0, 1], got {q_fdr!r}.")
    for name, value in (("min_humans_per_item", min_humans_per_item),
                        ("min_items_per_annotator", min_items_per_annotator)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}.")


def alt_test_sweep(
    annotations,
    models: Mapping[str, object],
    epsilons: Iterable[float] = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3),
    *,
    scoring: str | Callable = "accuracy",
    q_fdr: float = 0.05,
    min_humans_per_item: int = 2,
    min_items_per_annotator: int = 30,
    test: str = "ttest",
    multilabel: bool | None = None,
) -> pd.DataFrame:
    """:func:`alt_test` of every model at every epsilon (Calderon et al., section 3).

    The winning-rate-versus-epsilon curve. The per-item indicators are computed once per model;
    only the tests and the BY step change with epsilon.

    Parameters
    ----------
    annotations : hlv_core.io.Dataset or pandas.DataFrame
        As in :func:`alt_test`.
    models : mapping of str to model labels
        Model name -> its labels (any form :func:`alt_test` takes).
    epsilons : iterable of float, default (0.0, 0.05, ..., 0.3)
        The epsilons.
    scoring, q_fdr, min_humans_per_item, min_items_per_annotator, test, multilabel
        As in :func:`alt_test`.

    Returns
    -------
    pandas.DataFrame
        ``model, epsilon, winning_rate, rho, passed, n_tested``.

    Raises
    ------
    ValueError
        As :func:`alt_test`.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 40)  # 40 items, 4 annotators who flip a quarter of labels
    >>> labels = np.where(rng.random((40, 4)) < 0.25, 1 - truth[:, None], truth[:, None])
    >>> annotations = pd.DataFrame({"item_id": np.repeat([f"i{i}" for i in range(40)], 4),
    ...                             "annotator_id": np.tile(["a0", "a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel().astype(str)})
    >>> oracle = {f"i{i}": str(t) for i, t in enumerate(truth)}
    >>> models = {"oracle": oracle, "constant": constant_majority_labels(annotations)}
    >>> alt_test_sweep(annotations, models, epsilons=(0.0, 0.2)).round(3)
          model  epsilon  winning_rate    rho  passed  n_tested
    0    oracle      0.0           1.0  1.000    True         4
    1    oracle      0.2           1.0  1.000    True         4
    2  constant      0.0           0.0  0.725   False         4
    3  constant      0.2           0.0  0.725   False         4
    """
    rows = []
    eps = list(epsilons)
    _check_alt_test_settings(eps, q_fdr, min_humans_per_item, min_items_per_annotator)
    eps = [float(e) for e in eps]
    for name, labels in models.items():  # a handful of models
        ind = _indicators(annotations, labels, scoring=scoring,
                          min_humans_per_item=min_humans_per_item,
                          min_items_per_annotator=min_items_per_annotator, multilabel=multilabel)
        for e in eps:
            res = _finish(ind, e, q_fdr, test)
            rows.append({"model": str(name), "epsilon": e, "winning_rate": res.winning_rate,
                         "rho": res.rho, "passed": res.passed, "n_tested": res.n_tested})
    return pd.DataFrame(rows, columns=["model", "epsilon", "winning_rate", "rho", "passed",
                                       "n_tested"])


# ------------------------------------------------------------------------- baselines
def leave_one_out_majority(annotations, *, as_frame: bool = False):
    r"""Leave-one-out majority baseline for the alt-test.

    For annotator j and item i, the most frequent label among the *other* annotators of i
    (ties -> lowest inventory index; items with no other annotator get none).

    Parameters
    ----------
    annotations : hlv_core.io.Dataset or pandas.DataFrame
        A dataset, or long rows ``item_id, annotator_id, label``.
    as_frame : bool, default False
        Return a table instead of nested dicts.

    Returns
    -------
    dict or pandas.DataFrame
        ``{annotator: {item: label}}`` (the per-annotator form of :func:`alt_test`), or with
        ``as_frame=True`` a DataFrame ``annotator_id, item_id, label``.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    Without annotator a, item i1 has one ``pos`` and one ``neg``: the tie goes to ``neg``, the
    first label of the inventory:

    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> leave_one_out_majority(dataset)["a"]
    {'i1': 'neg', 'i2': 'neg', 'i3': 'neg'}
    """
    long = _long(annotations, False)
    lab_index = pd.Index(long.labels)
    codes = lab_index.get_indexer(long.label)
    if (codes < 0).any():
        raise ValueError("a label is not in the inventory.")
    counts = np.zeros((len(long.item_ids), len(long.labels)), dtype=np.int64)
    np.add.at(counts, (long.item, codes), 1)
    others = counts[long.item]
    others[np.arange(codes.size), codes] -= 1
    has = others.sum(axis=1) > 0
    best = np.argmax(others, axis=1)
    frame = pd.DataFrame({
        "annotator_id": np.asarray(long.annotator_ids, dtype=object)[long.annot[has]],
        "item_id": np.asarray(long.item_ids, dtype=object)[long.item[has]],
        "label": np.asarray(long.labels, dtype=object)[best[has]],
    })
    if as_frame:
        return frame
    return {str(a): dict(zip(g["item_id"], g["label"], strict=True))
            for a, g in frame.groupby("annotator_id", sort=False)}


def constant_majority_labels(annotations) -> dict[str, str]:
    r"""The constant majority-label baseline.

    Every item gets the label chosen most often over all annotations (ties -> lowest inventory
    index). On skewed binary data this model can pass the alt-test with accuracy (Calderon et
    al., section 3 caveat), so the page shows it beside every model. Multi-label data: the most
    frequent label set (ties: the first in sorted order).

    Parameters
    ----------
    annotations : hlv_core.io.Dataset or pandas.DataFrame
        A dataset, or long rows ``item_id, annotator_id, label``.

    Returns
    -------
    dict of str to str
        ``{item: label}``, the same label for every item.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge: how to statistically justify replacing human annotators with LLMs",
       ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> constant_majority_labels(dataset)
    {'i1': 'neg', 'i2': 'neg', 'i3': 'neg'}
    """
    long = _long(annotations)
    if long.multilabel:  # the most frequent label set of an (item, annotator)
        counts = pd.Series(long.label).value_counts(sort=False)
        key = sorted(counts[counts == counts.max()].index)[0]
        chosen = frozenset(key.split("|")) if key else frozenset()
        return {str(i): chosen for i in long.item_ids}
    codes = pd.Index(long.labels).get_indexer(long.label)
    label = long.labels[int(np.argmax(np.bincount(codes, minlength=len(long.labels))))]
    return {str(i): label for i in long.item_ids}


def model_labels_from_predictions(predictions: pd.DataFrame, dataset: Dataset, model: str):
    r"""Model labels for :func:`alt_test` from a predictions table.

    Per-annotator rows (``annotator_id`` set) give the per-annotator form (the label with the
    highest probability per (annotator, item)); item-level rows give ``{item: argmax label}``
    (hard labels have probability 1; ties -> lowest inventory index); on multi-label data the
    set of labels with probability > 0.5.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Long predictions ``model, item_id, label, prob[, annotator_id]``
        (:func:`hlv_core.io.load_predictions`).
    dataset : hlv_core.io.Dataset
        The dataset (label inventory order).
    model : str
        The model.

    Returns
    -------
    dict
        ``{item: label}`` or ``{annotator: {item: label}}``.

    Raises
    ------
    ValueError
        Unknown model.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    Model m2 is uniform, so every argmax ties and goes to ``neg``:

    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> preds = pd.DataFrame({"model": ["m1"] * 6 + ["m2"] * 6,
    ...                       "item_id": ["i1", "i1", "i2", "i2", "i3", "i3"] * 2,
    ...                       "label": ["neg", "pos"] * 6,
    ...                       "prob": [0.3, 0.7, 0.9, 0.1, 0.6, 0.4] + [0.5] * 6})
    >>> model_labels_from_predictions(preds, dataset, "m1")
    {'i1': 'pos', 'i2': 'neg', 'i3': 'neg'}
    >>> model_labels_from_predictions(preds, dataset, "m2")
    {'i1': 'neg', 'i2': 'neg', 'i3': 'neg'}
    """
    from .io import item_level_predictions, prediction_matrix

    rows = predictions[predictions["model"] == model]
    if rows.empty:
        raise ValueError(f"no predictions for model {model!r}; choose one of "
                         f"{sorted(map(str, predictions['model'].unique()))}.")
    if "annotator_id" in rows.columns and rows["annotator_id"].notna().any():
        per = rows[rows["annotator_id"].notna()].copy()
        per["_k"] = pd.Index(dataset.labels).get_indexer(per["label"])
        per = per.sort_values(["annotator_id", "item_id", "prob", "_k"],
                              ascending=[True, True, False, True], kind="stable")
        top = per.drop_duplicates(["annotator_id", "item_id"])
        return top[["annotator_id", "item_id", "label"]].reset_index(drop=True)
    item_rows = item_level_predictions(rows)
    # hard labels outside the inventory (kept by load_predictions(unknown_labels="keep")) are
    # the model's answer as given: they never match a human label
    outside = ~item_rows["label"].isin(dataset.labels)
    extra = item_rows[outside]
    item_rows = item_rows[~outside]
    out: dict = {}
    if not item_rows.empty:
        ids, Q = prediction_matrix(item_rows, dataset, model)
        names = np.asarray(dataset.labels, dtype=object)
        if dataset.task == "multilabel":  # a label set: the labels with probability > 0.5
            out = {str(i): frozenset(names[row > 0.5]) for i, row in zip(ids, Q, strict=True)}
        else:
            out = dict(zip(map(str, ids), names[np.argmax(Q, axis=1)], strict=True))
    for item, label in zip(extra["item_id"].astype(str), extra["label"], strict=True):
        if dataset.task == "multilabel":
            out[item] = out.get(item, frozenset()) | {label}
        else:
            out[item] = label
    return out
