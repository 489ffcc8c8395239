"""Training targets of the 14 HLV training methods of Kurniawan et al. (no model training here).

Kurniawan et al. (arXiv 2502.01891) section 4 and Table 3; the data transformations follow the authors'
released code (``kmkurn/train-eval-hlv``). Every builder is a pure
function of a :class:`~hlv_core.io.Dataset` and returns a tidy "training examples" table:

* ``example`` (int, one training example = one row group), ``item_id``,
* one float column per label (the target vector in inventory order: one-hot / 0-1 set / soft),
* ``weight`` (instance weight; 1 unless the method weights instances),
* method-specific columns: ``annotator_id`` (ReL, AE, LA), ``head`` (SLMV: ``"soft"`` /
  ``"hard"``; AE: the annotator head).

Vectorised over annotation records with numpy/pandas group operations (no Python loop over
items or annotators).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .io import DataError, Dataset

__all__ = [
    "METHODS",
    "METHOD_INFO",
    "ae_targets",
    "al_targets",
    "annotation_matrix",
    "annotator_ranking_weights",
    "ar_targets",
    "available_targets",
    "ensemble",
    "la_selection",
    "la_targets",
    "method_targets",
    "mv_targets",
    "rel_targets",
    "sl_targets",
    "slmv_targets",
]

#: The 14 methods of Kurniawan et al. in the paper's order (section 4, Table 3).
METHODS: tuple[str, ...] = (
    "ReL", "MV", "AR", "ARh", "AL", "SL", "SLMV", "AE", "AEh",
    "JSD", "SmF1", "SMF1", "LA-min", "LA-max",
)

#: Method -> (needs annotator identity, supports multilabel, what it trains on).
METHOD_INFO: dict[str, tuple[bool, bool, str]] = {
    "ReL": (False, True, "every annotation is its own example (item repeated per annotation)"),
    "MV": (False, True, "one example per item with the majority label (ties: first label in "
                        "inventory order; multilabel: labels chosen by > 50%)"),
    "AR": (True, True, "MV target weighted by the sum of its annotators' soft ranking scores"),
    "ARh": (True, True, "MV target weighted by the sum of its annotators' MV agreement rates"),
    "AL": (False, False, "one example per (item, label some annotator chose), hard label"),
    "SL": (False, True, "one example per item with the soft label P_i as target"),
    "SLMV": (False, True, "soft head trained on P_i and hard head on the MV label; evaluated "
                          "on the hard head"),
    "AE": (True, True, "one head per annotator on that annotator's labels; prediction = mean "
                       "of the heads' probabilities"),
    "AEh": (True, True, "as AE; prediction = share of heads voting for each label"),
    "JSD": (False, True, "soft label P_i; loss = Jensen-Shannon divergence"),
    "SmF1": (False, True, "soft label P_i; loss = 1 - soft micro F1 over the mini-batch"),
    "SMF1": (False, True, "soft label P_i; loss = 1 - soft macro F1 over the mini-batch"),
    "LA-min": (False, True, "all annotations of the item; loss = min over its annotations"),
    "LA-max": (False, True, "all annotations of the item; loss = max over its annotations"),
}


# ------------------------------------------------------------------------------ helpers
def _multilabel(dataset: Dataset) -> bool:
    return dataset.task == "multilabel"


def _check_task(dataset: Dataset) -> None:
    if dataset.task not in ("multiclass", "multilabel", "rating"):
        raise DataError(
            f"training targets need multiclass, rating or multilabel data; dataset "
            f"'{dataset.name}' is {dataset.task}.",
            source=dataset.report.source,
            fix="choose a dataset with one label (or one label set) per annotation.",
        )


def annotation_matrix(dataset: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""One row per (item, annotator) annotation, in order of first appearance in the data.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    item_code : numpy.ndarray
        (R,) item index per annotation.
    annotator_code : numpy.ndarray
        (R,) annotator index per annotation.
    Y : numpy.ndarray
        (R, K) one-hot label (multiclass) or 0/1 label set (multilabel: the annotator's rows on
        the item merged).

    Raises
    ------
    hlv_core.io.DataError
        Ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the training targets).

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> items, annotators, Y = annotation_matrix(dataset)
    >>> items.tolist(), Y[:3].tolist()
    ([0, 0, 0, 0, 1, 1, 1], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    """
    _check_task(dataset)
    item_code, annot_code, label_code = dataset._codes
    key = item_code.astype(np.int64) * (dataset.n_annotators + 1) + annot_code
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # pairs in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    pair = rank[inverse]
    Y = np.zeros((len(uniq), dataset.n_labels))
    Y[pair, label_code] = 1.0
    firsts = first[order]
    return item_code[firsts].astype(np.int64), annot_code[firsts].astype(np.int64), Y


def _frame(dataset: Dataset, item_rows: np.ndarray, Y: np.ndarray, **extra) -> pd.DataFrame:
    frame = pd.DataFrame(Y, columns=list(dataset.labels))
    frame.insert(0, "item_id", dataset.item_ids.to_numpy()[item_rows])
    for position, (name, values) in enumerate(extra.items(), start=1):
        frame.insert(position, name, values)
    if "weight" not in frame.columns:
        frame["weight"] = 1.0
    if "example" not in frame.columns:
        frame.insert(0, "example", np.arange(len(frame)))
    return frame


def _mv_matrix(dataset: Dataset) -> np.ndarray:
    """(N, K) MV target: one-hot argmax of P (ties -> lowest inventory index) or [P > 0.5]."""
    P = dataset.judgements_array()
    if _multilabel(dataset):
        return (P > 0.5).astype(float)
    return np.eye(dataset.n_labels)[np.argmax(P, axis=1)]


# ------------------------------------------------------------------------------ builders
def rel_targets(dataset: Dataset) -> pd.DataFrame:
    r"""ReL (repeated labelling; Kurniawan et al., section 4): every annotation is its own example.

    Each (item, annotator) annotation is an example with that annotator's hard label
    (multiclass) or 0/1 label set (multilabel).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id, annotator_id``, one column per label, ``weight`` (1).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> rel_targets(dataset).head(3)
       example item_id annotator_id    A    B  weight
    0        0      x1            1  1.0  0.0     1.0
    1        1      x1            2  1.0  0.0     1.0
    2        2      x1            3  0.0  1.0     1.0
    """
    items, annots, Y = annotation_matrix(dataset)
    return _frame(dataset, items, Y, annotator_id=dataset.annotator_ids.to_numpy()[annots])


def mv_targets(dataset: Dataset) -> pd.DataFrame:
    r"""MV (majority voting; Kurniawan et al., section 4): one example per item with the majority label.

    Multiclass label = argmax P_i with ties to the first label in inventory order; multilabel
    set = {k: P_ik > 0.5} (strict; may be empty = an all-negative target).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id``, one column per label, ``weight`` (1).

    Raises
    ------
    hlv_core.io.DataError
        Ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> mv_targets(dataset)
       example item_id    A    B  weight
    0        0      x1  1.0  0.0     1.0
    1        1      x2  0.0  1.0     1.0
    """
    _check_task(dataset)
    return _frame(dataset, np.arange(dataset.n_items), _mv_matrix(dataset))


def sl_targets(dataset: Dataset) -> pd.DataFrame:
    r"""SL (and JSD, SmF1, SMF1): one example per item with the soft label P_i as target.

    The paper's example: an item labelled positive by 80% of annotators is trained on
    ``0.8 log p(1) + 0.2 log p(0)`` (Kurniawan et al., section 4).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id``, one column per label (P_i, zeros included), ``weight`` (1).

    Raises
    ------
    hlv_core.io.DataError
        Ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> sl_targets(dataset).round(3)
       example item_id      A      B  weight
    0        0      x1  0.750  0.250     1.0
    1        1      x2  0.333  0.667     1.0
    """
    _check_task(dataset)
    return _frame(dataset, np.arange(dataset.n_items), dataset.judgements_array())


def al_targets(dataset: Dataset) -> pd.DataFrame:
    r"""AL (ambiguous labelling, Gajewska 2023; Kurniawan et al., section 4).

    One example per (item, class with P_ik > 0), each with that class as a hard label, once
    irrespective of its count. Multiclass only (the reference raises for multilabel).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id``, one column per label (one-hot), ``weight`` (1).

    Raises
    ------
    ValueError
        Multilabel data.
    hlv_core.io.DataError
        Ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> al_targets(dataset)[["item_id", "A", "B"]]
      item_id    A    B
    0      x1  1.0  0.0
    1      x1  0.0  1.0
    2      x2  1.0  0.0
    3      x2  0.0  1.0
    """
    _check_task(dataset)
    if _multilabel(dataset):
        raise ValueError("AL is not defined for multilabel data (the reference code raises).")
    P = dataset.judgements_array()
    items, classes = np.nonzero(P > 0)
    return _frame(dataset, items, np.eye(dataset.n_labels)[classes])


def slmv_targets(dataset: Dataset) -> pd.DataFrame:
    r"""SLMV (Kurniawan et al., section 4): a soft head trained on P_i and a hard head on the MV label.

    One example per item with two targets (rows ``head = "soft"`` = P_i and ``head = "hard"``
    = the MV target); loss = soft-head loss + hard-head loss; the evaluated prediction is the
    hard head's output (released code only).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id, head``, one column per label, ``weight``; two rows per example.

    Raises
    ------
    hlv_core.io.DataError
        Ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> slmv_targets(dataset).head(2).round(3)
       example item_id  head     A     B  weight
    0        0      x1  soft  0.75  0.25     1.0
    1        0      x1  hard  1.00  0.00     1.0
    """
    _check_task(dataset)
    n = dataset.n_items
    items = np.concatenate([np.arange(n), np.arange(n)])
    Y = np.vstack([dataset.judgements_array(), _mv_matrix(dataset)])
    frame = _frame(dataset, items, Y, head=np.repeat(["soft", "hard"], n))
    frame["example"] = items
    return frame.sort_values(["example", "head"], ascending=[True, False], kind="stable",
                             ignore_index=True)


def annotator_ranking_weights(dataset: Dataset) -> pd.DataFrame:
    r"""AR and ARh instance weights (Kurniawan et al., section 4; details of the released code).

    Multiclass: per item the MV label is the most frequent label with ties broken by the label
    appearing **first in the item's annotation records** (differs from MV's inventory order),
    ``mv_prob_i`` its share. Per annotator a: ``c_a`` items annotated, ``g_a`` items agreeing
    with MV, ``s_a`` the sum of ``mv_prob_i`` over those. Weights (a **sum** over the item's
    annotators, not a mean): ARh ``w_i = sum_a g_a / c_a``; AR ``w_i = sum_a s_a / g_a`` (0 when
    ``g_a = 0``).

    Multilabel: MV set ``{k: P_ik > 0.5}``; per (a, k) ``g_ak`` = items where a's decision on k
    agrees with MV, ``s_ak`` = sum over them of ``P_ik`` (k in MV) or ``1 - P_ik``; ARh
    ``w_i = (1/K) sum_k sum_a g_ak / c_a``, AR ``w_i = (1/K) sum_k sum_a s_ak / g_ak``.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Annotations with annotator identities.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``item_id``: ``mv_label`` (``|``-joined set for multilabel), ``mv_prob``
        (multiclass), ``ar`` and ``arh``.

    Raises
    ------
    hlv_core.io.DataError
        No annotator identities (counts-only data).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    The paper's example: x1 labelled A, A, B, A by annotators 1-4, x2 labelled A, B, B by
    annotators 1-3. ARh scores are 1/2, 2/2, 1/2, 1/1, so x1 weighs 3 and x2 weighs 2; AR
    scores are 3/4, (3/4 + 2/3)/2, 2/3, 3/4:

    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> annotator_ranking_weights(dataset)[["mv_label", "ar", "arh"]]  # doctest: +NORMALIZE_WHITESPACE
            mv_label     ar  arh
    item_id
    x1             A  2.875  3.0
    x2             B  2.125  2.0
    """
    if not dataset.annotator_ids_known:
        raise DataError(
            "AR/ARh need annotator identities linked across items.",
            source=dataset.report.source,
            column="annotator_id",
            fix="use data with annotator ids (counts-only data cannot give annotator scores).",
        )
    items, annots, Y = annotation_matrix(dataset)
    N, K, A = dataset.n_items, dataset.n_labels, dataset.n_annotators
    c = np.bincount(annots, minlength=A).astype(float)
    labels = np.array(dataset.labels, dtype=object)
    if _multilabel(dataset):
        P = dataset.judgements_array()
        mv = P > 0.5
        agree = (Y > 0.5) == mv[items]  # (R, K)
        share = np.where(mv[items], P[items], 1.0 - P[items])
        g = np.zeros((A, K))
        s = np.zeros((A, K))
        np.add.at(g, annots, agree.astype(float))
        np.add.at(s, annots, agree * share)
        with np.errstate(divide="ignore", invalid="ignore"):
            arh_a = (g / c[:, None]).sum(axis=1) / K
            ar_a = np.where(g > 0, s / np.where(g > 0, g, 1.0), 0.0).sum(axis=1) / K
        mv_label = ["|".join(labels[row]) for row in mv]
        mv_prob = np.full(N, np.nan)
    else:
        label_of = np.argmax(Y, axis=1)
        counts = np.zeros((N, K))
        np.add.at(counts, (items, label_of), 1.0)
        first_seen = np.full((N, K), np.inf)
        np.minimum.at(first_seen, (items, label_of), np.arange(len(items), dtype=float))
        best = counts == counts.max(axis=1, keepdims=True)
        mv = np.argmin(np.where(best, first_seen, np.inf), axis=1)
        n_i = counts.sum(axis=1)
        mv_prob = counts[np.arange(N), mv] / np.where(n_i > 0, n_i, 1.0)
        agree = (label_of == mv[items]).astype(float)
        g = np.bincount(annots, weights=agree, minlength=A)
        s = np.bincount(annots, weights=agree * mv_prob[items], minlength=A)
        with np.errstate(divide="ignore", invalid="ignore"):
            arh_a = g / c
            ar_a = np.where(g > 0, s / np.where(g > 0, g, 1.0), 0.0)
        mv_label = labels[mv]
    arh = np.bincount(items, weights=arh_a[annots], minlength=N)
    ar = np.bincount(items, weights=ar_a[annots], minlength=N)
    return pd.DataFrame(
        {"mv_label": mv_label, "mv_prob": mv_prob, "ar": ar, "arh": arh},
        index=dataset.item_ids,
    )


def ar_targets(dataset: Dataset, *, hard: bool = False) -> pd.DataFrame:
    r"""AR / ARh (Kurniawan et al., section 4): the MV target weighted by annotator ranking scores.

    The MV target of :func:`mv_targets` with the instance weight of
    :func:`annotator_ranking_weights` (loss = sum_i w_i CE_i).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Annotations with annotator identities.
    hard : bool, default False
        ARh (agreement rates) instead of AR (soft scores).

    Returns
    -------
    pandas.DataFrame
        ``example, item_id``, one column per label, ``weight``.

    Raises
    ------
    hlv_core.io.DataError
        No annotator identities, or ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> ar_targets(dataset, hard=True)
       example item_id    A    B  weight
    0        0      x1  1.0  0.0     3.0
    1        1      x2  0.0  1.0     2.0
    """
    frame = mv_targets(dataset)
    weights = annotator_ranking_weights(dataset)
    frame["weight"] = weights["arh" if hard else "ar"].to_numpy()
    return frame


def ae_targets(dataset: Dataset) -> pd.DataFrame:
    r"""AE / AEh (annotator ensembling; Kurniawan et al., section 4): one head per annotator.

    One example per item, one head per training annotator; each head is trained only on the
    items its annotator labelled (rows: ``head`` = annotator id, target = that annotator's
    label / label set; unlisted heads are masked). Predictions combine with :func:`ensemble`.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Annotations with annotator identities.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id, head``, one column per label, ``weight``.

    Raises
    ------
    hlv_core.io.DataError
        No annotator identities, or ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> ae_targets(dataset).groupby("item_id")["head"].apply(list).to_dict()
    {'x1': ['1', '2', '3', '4'], 'x2': ['1', '2', '3']}
    """
    if not dataset.annotator_ids_known:
        raise DataError(
            "AE/AEh need annotator identities linked across items.",
            source=dataset.report.source,
            column="annotator_id",
            fix="use data with annotator ids.",
        )
    items, annots, Y = annotation_matrix(dataset)
    frame = _frame(dataset, items, Y, head=dataset.annotator_ids.to_numpy()[annots])
    frame["example"] = items
    return frame.sort_values(["example"], kind="stable", ignore_index=True)


def la_targets(dataset: Dataset) -> pd.DataFrame:
    r"""LA-min / LA-max (loss aggregation; Kurniawan et al., section 4): all annotations of an item in one example.

    Rows share the ``example`` number; the loss takes the min / max over them (see
    :func:`la_selection`).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.

    Returns
    -------
    pandas.DataFrame
        ``example, item_id, annotator_id``, one column per label, ``weight``.

    Raises
    ------
    hlv_core.io.DataError
        Ranking data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> la_targets(dataset)["example"].tolist()
    [0, 0, 0, 0, 1, 1, 1]
    """
    items, annots, Y = annotation_matrix(dataset)
    frame = _frame(dataset, items, Y, annotator_id=dataset.annotator_ids.to_numpy()[annots])
    frame["example"] = items
    return frame.sort_values(["example"], kind="stable", ignore_index=True)


def la_selection(dataset: Dataset, Q: np.ndarray, *, mode: str = "min") -> pd.DataFrame:
    r"""Which annotation LA-min / LA-max trains on for a model output ``Q`` (Kurniawan et al., section 4).

    Loss per annotation: multiclass ``-ln Q_i[label]``; multilabel the summed BCE
    ``-sum_k [y_k ln Q_ik + (1 - y_k) ln(1 - Q_ik)]`` against the annotator's 0/1 vector
    (probabilities clipped to [1e-12, 1 - 1e-12]). Per item the annotation with the smallest
    (``mode="min"``) or largest (``"max"``) loss is ``chosen`` (ties: first annotation).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.
    Q : numpy.ndarray
        (N, K) model output, rows in dataset item order.
    mode : {"min", "max"}, default "min"
        LA-min or LA-max.

    Returns
    -------
    pandas.DataFrame
        One row per annotation: ``item_id, annotator_id, loss, chosen``.

    Raises
    ------
    ValueError
        Unknown mode or ``Q`` of the wrong shape.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> import numpy as np
    >>> pick = la_selection(dataset, np.array([[0.9, 0.1], [0.3, 0.7]]), mode="max")
    >>> pick[pick.chosen][["item_id", "annotator_id"]].to_numpy().tolist()
    [['x1', '3'], ['x2', '1']]
    """
    if mode not in ("min", "max"):
        raise ValueError("mode must be 'min' or 'max'.")
    items, annots, Y = annotation_matrix(dataset)
    Q = np.asarray(Q, dtype=float)
    if Q.shape != (dataset.n_items, dataset.n_labels):
        raise ValueError(f"Q must have shape {(dataset.n_items, dataset.n_labels)}; got {Q.shape}.")
    Qc = np.clip(Q[items], 1e-12, 1 - 1e-12)
    if _multilabel(dataset):
        loss = -(Y * np.log(Qc) + (1 - Y) * np.log(1 - Qc)).sum(axis=1)
    else:
        loss = -np.log((Y * Qc).sum(axis=1))
    frame = pd.DataFrame(
        {
            "item_id": dataset.item_ids.to_numpy()[items],
            "annotator_id": dataset.annotator_ids.to_numpy()[annots],
            "loss": loss,
        }
    )
    grouped = frame.groupby("item_id", sort=False)["loss"]
    pick = grouped.idxmin() if mode == "min" else grouped.idxmax()
    frame["chosen"] = False
    frame.loc[pick.to_numpy(), "chosen"] = True
    return frame


def ensemble(head_probs: np.ndarray, *, hard: bool = False, multilabel: bool = False) -> np.ndarray:
    """AE / AEh prediction from per-annotator heads (Kurniawan et al., section 4).

    AE (``hard=False``): mean over all heads of their softmax / sigmoid outputs. AEh: every
    head votes (multiclass: one-hot of its argmax, ties to the lowest index; multilabel:
    ``[prob > 0.5]``) and the prediction is the vote share.

    Parameters
    ----------
    head_probs : numpy.ndarray
        (H, N, K) probabilities of H heads.
    hard : bool, default False
        AEh instead of AE.
    multilabel : bool, default False
        Sigmoid heads voting per label.

    Returns
    -------
    numpy.ndarray
        (N, K) prediction.

    Raises
    ------
    ValueError
        ``head_probs`` not 3-D with at least one head.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    The paper's example: three heads give the positive class 0.6, 0.3 and 0.9; AE predicts
    their mean 0.6, AEh the share of heads over 50%, 2/3:

    >>> import numpy as np
    >>> heads = np.array([[[0.4, 0.6]], [[0.7, 0.3]], [[0.1, 0.9]]])
    >>> ensemble(heads).round(4), ensemble(heads, hard=True).round(4)
    (array([[0.4, 0.6]]), array([[0.3333, 0.6667]]))
    """
    H = np.asarray(head_probs, dtype=float)
    if H.ndim != 3 or H.shape[0] < 1:
        raise ValueError(f"head_probs must be (heads, items, labels); got shape {H.shape}.")
    if not hard:
        return H.mean(axis=0)
    if multilabel:
        return (H > 0.5).mean(axis=0)
    return np.eye(H.shape[2])[np.argmax(H, axis=2)].mean(axis=0)


def method_targets(dataset: Dataset, method: str) -> pd.DataFrame:
    r"""The training examples a method (one of :data:`METHODS`) builds from a dataset (Kurniawan et al., section 4, Table 3).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.
    method : str
        One of :data:`METHODS` (``"ReL"``, ``"MV"``, ..., ``"LA-max"``).

    Returns
    -------
    pandas.DataFrame
        The method's examples (see the builder of each method).

    Raises
    ------
    ValueError
        Unknown method, or AL on multilabel data.
    hlv_core.io.DataError
        The method cannot run on this data.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> method_targets(dataset, "JSD").equals(sl_targets(dataset))
    True
    """
    builders = {
        "ReL": rel_targets,
        "MV": mv_targets,
        "AR": lambda d: ar_targets(d, hard=False),
        "ARh": lambda d: ar_targets(d, hard=True),
        "AL": al_targets,
        "SL": sl_targets,
        "SLMV": slmv_targets,
        "AE": ae_targets,
        "AEh": ae_targets,
        "JSD": sl_targets,
        "SmF1": sl_targets,
        "SMF1": sl_targets,
        "LA-min": la_targets,
        "LA-max": la_targets,
    }
    if method not in builders:
        raise ValueError(f"unknown method {method!r}; choose one of {list(METHODS)}.")
    return builders[method](dataset)


# ------------------------------------------------------------------------------ every method
def available_targets(dataset: Dataset) -> dict[str, pd.DataFrame | str]:
    r"""What each of the 14 methods trains on for a dataset (Kurniawan et al., section 4, Table 3).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any dataset.

    Returns
    -------
    dict
        ``{method: examples}`` from :func:`method_targets` in :data:`METHODS` order, or
        ``{method: reason}`` (the error's message) when the method cannot run on this data
        (e.g. AL on multi-label data, annotator methods without annotator ids).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4 and Table 3.

    Examples
    --------
    >>> from hlv_core.io import load
    >>> rows = "x1,1,A x1,2,A x1,3,B x1,4,A x2,1,A x2,2,B x2,3,B"  # the paper's AR example
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="paper.csv")
    >>> {method: len(examples) for method, examples in available_targets(dataset).items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'ReL': 7, 'MV': 2, 'AR': 2, 'ARh': 2, 'AL': 4, 'SL': 2, 'SLMV': 4, 'AE': 7, 'AEh': 7,
     'JSD': 2, 'SmF1': 2, 'SMF1': 2, 'LA-min': 7, 'LA-max': 7}
    """
    out: dict[str, pd.DataFrame | str] = {}
    for method in METHODS:
        try:
            out[method] = method_targets(dataset, method)
        except (DataError, ValueError) as error:
            out[method] = str(error)
    return out
