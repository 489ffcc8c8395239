"""Scoring models against the human judgement distribution of a dataset (Kurniawan et al.,
sections 3 and 6.3): the one door that the Soft vs hard metrics page, the Case review page's
meta-evaluation and ``python -m hlv_core metrics`` all call.

:mod:`hlv_core.soft_metrics` holds the formulas on plain ``(N, K)`` arrays; this module turns a
:class:`~hlv_core.io.Dataset` and a long predictions table into those arrays, item by item, and
returns tidy tables:

* :func:`score_model`: every metric of one model (with bootstrap CIs, undefined-class notes, the
  class-wise and per-item tables and the matrices it was computed on);
* :func:`score_models`: the long table ``model, group, metric, value, ...`` of every model;
* :func:`metric_matrix`: the same numbers as a models x metrics table (the input of
  :func:`hlv_core.review.metric_correlations`).

Coverage: a model is scored on the items it predicted (``n_items``); the judgement rows ``P`` are
taken for exactly those items, in dataset item order.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import soft_metrics as sm
from .io import DataError, Dataset, prediction_matrix

__all__ = [
    "SCORE_COLUMNS",
    "VERDICTS",
    "ModelScores",
    "item_verdicts",
    "metric_matrix",
    "metric_ranks",
    "metric_winners",
    "score_model",
    "score_models",
]

#: Columns of :func:`score_models` (``lower``/``upper`` are NaN without a bootstrap;
#: ``n_items_total`` = items of the dataset; ``note`` = why a NaN value is undefined).
SCORE_COLUMNS = ["model", "group", "metric", "value", "lower", "upper", "higher_is_better",
                 "n_items", "n_boot", "seed", "multilabel", "n_items_total", "note"]


@dataclass(frozen=True)
class ModelScores:
    r"""Everything :func:`score_model` computed for one model.

    Attributes
    ----------
    model : str
        The model name.
    table : pandas.DataFrame
        One row per metric, columns :data:`SCORE_COLUMNS`.
    notes : list of str
        Why a metric is undefined (the class named).
    classwise : pandas.DataFrame
        Hard and soft P/R/F1 per class (:func:`~hlv_core.soft_metrics.classwise_table`, with a
        ``model`` column).
    items : pandas.DataFrame
        Per-item scores (:func:`~hlv_core.soft_metrics.per_item`, with ``item_id`` and
        ``model``; e.g. ``hard_correct``, ``soft_overlap`` = sum_k min(P_ik, Q_ik)).
    P, Q : numpy.ndarray
        The (M, K) judgement and prediction rows of the M items the model predicted.
    item_ids : list of str
        Those M items in dataset order.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", sections 3.1-3.2 (the metrics).

    Examples
    --------
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
    >>> scores = score_model(dataset, preds, "m1")
    >>> scores.item_ids, scores.P.shape, scores.notes
    (['i1', 'i2', 'i3'], (3, 2), [])
    """

    model: str
    table: pd.DataFrame
    notes: list[str]
    classwise: pd.DataFrame
    items: pd.DataFrame
    P: np.ndarray
    Q: np.ndarray
    item_ids: list[str]


def _check_dataset(dataset: Dataset) -> None:
    if dataset.task == "ranking":
        raise DataError(
            "soft/hard metrics need multiclass, rating or multilabel annotations; this dataset "
            "holds rankings.",
            source=str(dataset.name),
            fix="use the certainty analysis for ranked data.",
        )


def _multilabel(dataset: Dataset, multilabel: bool | None) -> bool:
    return dataset.task == "multilabel" if multilabel is None else bool(multilabel)


def _ordinal_values(dataset: Dataset, lewidi: bool) -> np.ndarray | None:
    return dataset.label_numeric_values() if lewidi and dataset.task == "rating" else None


def _rows(dataset: Dataset, predictions: pd.DataFrame, model: str
          ) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    item_ids, Q = prediction_matrix(predictions, dataset, model)
    P = dataset.judgements_array()[pd.Index(dataset.item_ids).get_indexer(item_ids)]
    return item_ids, P, Q


def _table(model: str, values: dict[str, float], ci: pd.DataFrame | None, n_items: int,
           n_boot: int, seed: int, multilabel: bool, n_total: int,
           notes: Sequence[str]) -> pd.DataFrame:
    rows = []
    for metric, value in values.items():
        group, higher, _ = sm.METRIC_INFO[metric]
        has_ci = ci is not None and metric in ci.index
        rows.append({
            "model": model, "group": group, "metric": metric, "value": value,
            "lower": float(ci.at[metric, "lower"]) if has_ci else np.nan,
            "upper": float(ci.at[metric, "upper"]) if has_ci else np.nan,
            "higher_is_better": higher, "n_items": n_items,
            "n_boot": n_boot if has_ci else 0, "seed": seed, "multilabel": multilabel,
            "n_items_total": n_total, "note": sm.undefined_reason(metric, float(value), notes),
        })
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def score_model(
    dataset: Dataset,
    predictions: pd.DataFrame,
    model: str,
    *,
    multilabel: bool | None = None,
    skip_undefined: bool = False,
    lewidi: bool = True,
    n_boot: int = 0,
    seed: int = 0,
) -> ModelScores:
    r"""Every metric of Kurniawan et al. (sections 3.1-3.3) for one model.

    ``P`` (M, K) = the human judgement distribution (:meth:`~hlv_core.io.Dataset.judgements_array`)
    of the M items the model predicted, ``Q`` (M, K) = its predictions
    (:func:`~hlv_core.io.prediction_matrix`). Values: :func:`~hlv_core.soft_metrics.evaluate`,
    e.g. soft accuracy ``(1/M) sum_i sum_k min(P_ik, Q_ik)`` (section 3.1); with ``lewidi=True``
    the LeWiDi distances too (the Wasserstein distance on the label values of rating data).
    Undefined metrics are NaN and explained in ``notes`` (the warning is not raised).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.
    predictions : pandas.DataFrame
        Long table ``model, item_id, label, prob`` (one row per model, item and label).
    model : str
        The model to score.
    multilabel : bool, optional
        Multilabel metrics (threshold 0.5, strict); default: the dataset's task.
    skip_undefined : bool, default False
        Average soft macro F1 over the defined classes only (and name the skipped ones).
    lewidi : bool, default True
        Add the LeWiDi cross-entropy, Manhattan (and for ratings Wasserstein) distances.
    n_boot : int, default 0
        Percentile bootstrap resamples over items for CIs (0: none).
    seed : int, default 0
        Seed of the bootstrap.

    Returns
    -------
    ModelScores
        The metric table, notes, class-wise and per-item tables and the matrices.

    Raises
    ------
    hlv_core.io.DataError
        Ranking data, or a model not in ``predictions``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", sections 3.1-3.3.

    Examples
    --------
    Soft accuracy of m1 = mean over items of sum_k min(P_ik, Q_ik) = (0.967 + 0.9 + 0.85) / 3:

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
    >>> table = score_model(dataset, preds, "m1").table.set_index("metric")
    >>> table.loc[["hard_accuracy", "soft_accuracy", "po_jsd"], "value"].round(4).tolist()
    [1.0, 0.9056, 0.9762]
    """
    _check_dataset(dataset)
    ml = _multilabel(dataset, multilabel)
    ordinal = _ordinal_values(dataset, lewidi)
    item_ids, P, Q = _rows(dataset, predictions, model)
    labels = list(dataset.labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
        values = sm.evaluate(P, Q, multilabel=ml, skip_undefined=skip_undefined, lewidi=lewidi,
                             ordinal_values=ordinal)
        ci = (sm.bootstrap_ci(P, Q, multilabel=ml, n_boot=n_boot, seed=seed,
                              skip_undefined=skip_undefined, lewidi=lewidi,
                              ordinal_values=ordinal) if n_boot > 0 else None)
        classwise = sm.classwise_table(P, Q, multilabel=ml, labels=labels)
    notes = sm.undefined_notes(P, Q, multilabel=ml, labels=labels)
    items = sm.per_item(P, Q, multilabel=ml, item_ids=list(item_ids),
                        ordinal_values=ordinal).reset_index()
    items.insert(1, "model", model)
    return ModelScores(
        model=model,
        table=_table(model, values, ci, len(item_ids), n_boot, seed, ml, dataset.n_items, notes),
        notes=list(notes),
        classwise=classwise.assign(model=model),
        items=items,
        P=P,
        Q=Q,
        item_ids=list(item_ids),
    )


def score_models(
    dataset: Dataset,
    predictions: pd.DataFrame,
    *,
    models: Sequence[str] | None = None,
    multilabel: bool | None = None,
    skip_undefined: bool = False,
    lewidi: bool = True,
    n_boot: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Long table of every metric for every model (Kurniawan et al., sections 3.1-3.3).

    One row per (model, metric) in the order of ``models`` (default: order of first appearance
    in ``predictions``) and of :func:`~hlv_core.soft_metrics.evaluate`. ``n_items`` is the
    model's coverage (items it predicted). Only the metric values are computed (no class-wise
    or per-item tables).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations.
    predictions : pandas.DataFrame
        Long table ``model, item_id, label, prob``.
    models : sequence of str, optional
        Models to score, in this order; default all.
    multilabel, skip_undefined, lewidi, n_boot, seed
        As in :func:`score_model`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SCORE_COLUMNS` (``model, group, metric, value, lower, upper,
        higher_is_better, n_items, n_boot, seed, multilabel, n_items_total, note``).

    Raises
    ------
    hlv_core.io.DataError
        Ranking data, or an unknown model.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", sections 3.1-3.3.

    Examples
    --------
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
    >>> scores = score_models(dataset, preds)
    >>> scores[scores.metric == "hard_accuracy"][["model", "value", "n_items"]].round(3)
       model  value  n_items
    0     m1  1.000        3
    10    m2  0.667        3
    """
    _check_dataset(dataset)
    ml = _multilabel(dataset, multilabel)
    ordinal = _ordinal_values(dataset, lewidi)
    names = list(pd.unique(predictions["model"])) if models is None else list(models)
    tables = []
    for model in names:
        item_ids, P, Q = _rows(dataset, predictions, model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
            values = sm.evaluate(P, Q, multilabel=ml, skip_undefined=skip_undefined,
                                 lewidi=lewidi, ordinal_values=ordinal)
            ci = (sm.bootstrap_ci(P, Q, multilabel=ml, n_boot=n_boot, seed=seed,
                                  skip_undefined=skip_undefined, lewidi=lewidi,
                                  ordinal_values=ordinal) if n_boot > 0 else None)
        notes = sm.undefined_notes(P, Q, multilabel=ml, labels=list(dataset.labels))
        tables.append(_table(str(model), values, ci, len(item_ids), n_boot, seed, ml,
                             dataset.n_items, notes))
    if not tables:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    return pd.concat(tables, ignore_index=True)


def metric_matrix(scores: pd.DataFrame) -> pd.DataFrame:
    r"""Models x metrics table of the values of :func:`score_models`.

    Parameters
    ----------
    scores : pandas.DataFrame
        Output of :func:`score_models` (columns ``model, metric, value`` at least).

    Returns
    -------
    pandas.DataFrame
        Index ``model`` (in order of appearance), one column per metric in
        :data:`~hlv_core.soft_metrics.METRIC_INFO` order; the input of
        :func:`hlv_core.review.metric_correlations`.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", sections 3.1-3.2 (the metrics).

    Examples
    --------
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
    >>> metric_matrix(score_models(dataset, preds)).iloc[:, [0, 3]].round(3).rename_axis(None)
        hard_accuracy  soft_accuracy
    m1          1.000          0.906
    m2          0.667          0.694
    """
    models = list(pd.unique(scores["model"]))
    wide = scores.pivot(index="model", columns="metric", values="value")
    wide = wide.reindex(index=models,
                        columns=[m for m in sm.METRIC_INFO if m in set(scores["metric"])])
    wide.columns.name = None
    wide.index.name = "model"
    return wide


def metric_ranks(scores: pd.DataFrame) -> pd.DataFrame:
    r"""Rank of every model under every metric (1 = best).

    Higher-is-better metrics rank by ``-value``, the LeWiDi distances by ``value`` (ties share
    the smallest rank, ``method="min"``; NaN values get no rank). Does the choice of metric
    change the winner (Kurniawan et al., section 6)? See :func:`metric_winners`.

    Parameters
    ----------
    scores : pandas.DataFrame
        Output of :func:`score_models`.

    Returns
    -------
    pandas.DataFrame
        ``scores`` plus ``signed`` and ``rank``; ``metric`` as an ordered categorical in
        :data:`~hlv_core.soft_metrics.METRIC_INFO` order; sorted by metric then model.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.

    Examples
    --------
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
    >>> ranks = metric_ranks(score_models(dataset, preds))
    >>> ranks[ranks.metric == "lewidi_manhattan"][["model", "value", "rank"]].round(3)
       model  value  rank
    9     m1  0.189   1.0
    19    m2  0.611   2.0
    """
    order = [m for m in sm.METRIC_INFO if m in set(scores["metric"])]
    ranks = scores.copy()
    ranks["signed"] = np.where(ranks["higher_is_better"], -ranks["value"], ranks["value"])
    ranks["rank"] = ranks.groupby("metric")["signed"].rank(method="min", na_option="keep")
    ranks["metric"] = pd.Categorical(ranks["metric"], categories=order, ordered=True)
    return ranks.sort_values(["metric", "model"])


def metric_winners(ranks: pd.DataFrame) -> pd.Series:
    r"""Per metric, the model(s) ranked first by :func:`metric_ranks`.

    Parameters
    ----------
    ranks : pandas.DataFrame
        Output of :func:`metric_ranks`.

    Returns
    -------
    pandas.Series
        Indexed by metric; several winners joined by ``", "`` in sorted order.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", sections 3.1-3.2 (the metrics).

    Examples
    --------
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
    >>> winners = metric_winners(metric_ranks(score_models(dataset, preds)))
    >>> winners["soft_accuracy"], len(winners)
    ('m1', 10)
    """
    first = ranks[ranks["rank"] == 1]
    return first.groupby("metric", observed=True)["model"].agg(lambda s: ", ".join(sorted(s)))


#: Labels of :func:`item_verdicts`.
VERDICTS = ("hard wrong, soft matches", "hard right, soft far", "agree")


def item_verdicts(items: pd.DataFrame, threshold: float = 0.8) -> pd.Series:
    """Where hard and soft evaluation disagree on an item (Kurniawan et al., section 3.3).

    An item whose soft overlap ``sum_k min(P_ik, Q_ik)`` is >= ``threshold`` "matches the
    humans": ``"hard wrong, soft matches"`` when its argmax misses the majority label anyway,
    ``"hard right, soft far"`` when the argmax is right but the distribution is far, ``"agree"``
    otherwise (:data:`VERDICTS`).

    Parameters
    ----------
    items : pandas.DataFrame
        :attr:`ModelScores.items` (columns ``hard_correct`` and ``soft_overlap``).
    threshold : float, default 0.8
        Soft overlap at which a distribution matches the humans.

    Returns
    -------
    pandas.Series
        Verdict per row of ``items`` (name ``verdict``, same index).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.3 (relationship between metrics).

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"hard_correct": [False, True, True],
    ...                       "soft_overlap": [0.9, 0.6, 0.95]})
    >>> item_verdicts(items).tolist()
    ['hard wrong, soft matches', 'hard right, soft far', 'agree']
    """
    high = items["soft_overlap"] >= threshold
    hard = items["hard_correct"].astype(bool)
    values = np.select([~hard & high, hard & ~high], list(VERDICTS[:2]), VERDICTS[2])
    return pd.Series(values, index=items.index, name="verdict")
