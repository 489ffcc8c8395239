"""Models against the human pool on a loaded dataset: the one door that the Soft vs hard metrics
page and ``python -m hlv_core judge`` both call.

:mod:`hlv_core.judge` (alt-test, Calderon et al., ACL 2025; human ceiling) and
:mod:`hlv_core.calibration` (Baan et al., EMNLP 2022) work on plain tables and arrays; this
module turns a :class:`~hlv_core.io.Dataset` and a predictions table
(:func:`hlv_core.io.load_predictions`) into their inputs, says which items a model covers, and
returns tidy tables. Model labels for the alt-test are hard labels or the argmax of
probabilities (lowest inventory index on ties); per-annotator predictions give a label per
left-out annotator.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import calibration as cal
from .ceiling import CEILING_METRICS, CEILING_METRICS_MULTILABEL, HumanCeilingResult
from .io import DataError, Dataset, item_level_predictions, prediction_matrix
from .judge import (
    AltTestResult,
    _check_alt_test_settings,
    alt_test,
    alt_test_sweep,
    constant_majority_labels,
    human_ceiling,
    model_labels_from_predictions,
)

__all__ = [
    "BASELINE",
    "alt_test_summary",
    "calibration_inputs",
    "ceiling_table",
    "default_scoring",
    "model_label_sets",
    "run_alt_tests",
    "run_calibration",
    "run_ceiling",
    "run_sweep",
    "scale_probabilities",
]

#: Name of the constant majority-label baseline shown beside every model.
BASELINE = "constant majority (baseline)"


def default_scoring(dataset: Dataset) -> str:
    r"""The alt-test alignment score for a dataset (Calderon et al., section 3).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.

    Returns
    -------
    str
        ``"neg_rmse"`` for numeric ratings, ``"accuracy"`` otherwise.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> default_scoring(dataset)
    'accuracy'
    """
    return "neg_rmse" if dataset.task == "rating" else "accuracy"


def _models(predictions: pd.DataFrame | None) -> list[str]:
    if predictions is None or predictions.empty:
        return []
    return [str(m) for m in pd.unique(predictions["model"])]


def model_label_sets(dataset: Dataset, predictions: pd.DataFrame | None, *,
                     baseline: bool = True) -> tuple[dict, list[str]]:
    r"""Alt-test model labels of every model of ``predictions`` (and the constant-majority baseline).

    Hard labels or the argmax of probabilities (lowest inventory index on ties); per-annotator
    rows give the per-annotator form (:func:`hlv_core.judge.model_labels_from_predictions`).
    Items without a model label are left out of its test, never imputed.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    predictions : pandas.DataFrame or None
        Long predictions ``model, item_id, label, prob[, annotator_id]``.
    baseline : bool, default True
        Add :data:`BASELINE` (:func:`hlv_core.judge.constant_majority_labels`).

    Returns
    -------
    labels : dict
        ``{name: model labels for alt_test}``.
    notes : list of str
        How many annotated items each model covers, when not all.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

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
    >>> labels, notes = model_label_sets(dataset, preds)
    >>> labels["m1"], list(labels)[-1], notes
    ({'i1': 'pos', 'i2': 'neg', 'i3': 'neg'}, 'constant majority (baseline)', [])
    """
    out: dict = {}
    notes: list[str] = []
    n_items = dataset.n_items
    for name in _models(predictions):
        labels = model_labels_from_predictions(predictions, dataset, name)
        out[name] = labels
        covered = (labels["item_id"].nunique() if isinstance(labels, pd.DataFrame)
                   else len(labels))
        if covered < n_items:
            notes.append(f"model {name!r} labels {covered} of the {n_items} items; the "
                         f"other {n_items - covered} are left out of its test (not imputed).")
    if baseline:
        out[BASELINE] = constant_majority_labels(dataset)
    return out, notes


def run_alt_tests(dataset: Dataset, predictions: pd.DataFrame | None = None, *,
                  epsilon: float = 0.2, q_fdr: float = 0.05, scoring: str | None = None,
                  min_items_per_annotator: int = 30, test: str = "ttest",
                  baseline: bool = True, min_humans_per_item: int = 2
                  ) -> tuple[dict[str, AltTestResult | str], list[str]]:
    r""":func:`hlv_core.judge.alt_test` for every model and the constant-majority baseline (Calderon et al., section 3).

    Each annotator j is left out in turn; on each of j's n_j items i, with ``S`` the alignment
    score (``scoring``) against the other annotators' labels ``R_ij``, the model wins when
    ``s_f = S(model_i, R_ij) >= s_h = S(y_ij, R_ij)`` and the human wins when ``s_h >= s_f``
    (a tie is a win for both):

    .. math::

        d_i = W^h_i - W^f_i, \qquad \rho_j = \frac{1}{n_j} \sum_i W^f_i, \qquad
        t_j = \frac{\bar d - \varepsilon}{s_d / \sqrt{n_j}}

    (``s_d`` the standard deviation of d with ddof 1), the statistic of the one-sided test of
    ``H0: E[d] >= epsilon`` against ``H1: E[d] < epsilon``
    (p from Student's t with ``n_j - 1`` degrees of freedom; ``test="wilcoxon"``: the
    signed-rank test on ``d - epsilon``, an extension). The m p-values go through the
    Benjamini-Yekutieli step-up at ``q_fdr``; then

    .. math::

        \omega = \frac{\#\{j : H_{0j} \text{ rejected}\}}{m}, \qquad
        \rho = \frac{1}{m} \sum_j \rho_j

    the winning rate (the model passes when ``omega >= 0.5``) and the advantage probability
    shown beside it.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    predictions : pandas.DataFrame, optional
        Long predictions; None tests only the baseline.
    epsilon : float, default 0.2
        Cost-benefit allowance.
    q_fdr : float, default 0.05
        False discovery rate of the Benjamini-Yekutieli step.
    scoring : str, optional
        Alignment score; default :func:`default_scoring`.
    min_items_per_annotator : int, default 30
        Fewest usable items of a tested annotator.
    test : {"ttest", "wilcoxon"}, default "ttest"
        The one-sided test.
    baseline : bool, default True
        Test the constant-majority baseline too.
    min_humans_per_item : int, default 2
        Fewest annotators of a usable item.

    Returns
    -------
    results : dict
        ``{name: AltTestResult}``, or the reason (str) a model could not be tested.
    notes : list of str
        Coverage notes (:func:`model_label_sets`).

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.
    .. [2] Y. Benjamini and D. Yekutieli (2001), "The control of the false discovery rate in
       multiple testing under dependency", Annals of Statistics 29(4).

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
    >>> results, notes = run_alt_tests(dataset, preds, min_items_per_annotator=3)
    >>> round(results["m1"].winning_rate, 3), results["m1"].passed, results["m1"].skipped
    (0.333, False, {'d': '1 item(s) with a model label and >= 2 annotators (fewer than 3); not tested'})
    """
    _check_alt_test_settings([epsilon], q_fdr, min_humans_per_item, min_items_per_annotator)
    sets, notes = model_label_sets(dataset, predictions, baseline=baseline)
    scoring = scoring or default_scoring(dataset)
    results: dict[str, AltTestResult | str] = {}
    for name, labels in sets.items():  # a handful of models
        try:
            results[name] = alt_test(dataset, labels, epsilon=epsilon, q_fdr=q_fdr,
                                     scoring=scoring,
                                     min_humans_per_item=min_humans_per_item,
                                     min_items_per_annotator=min_items_per_annotator, test=test)
        except ValueError as err:
            results[name] = str(err)
    return results, notes


def alt_test_summary(results: dict[str, AltTestResult | str]) -> pd.DataFrame:
    r"""One row per model of :func:`run_alt_tests` results.

    Parameters
    ----------
    results : dict
        ``{name: AltTestResult or reason}`` from :func:`run_alt_tests`.

    Returns
    -------
    pandas.DataFrame
        ``model, winning_rate, passed, rho, n_tested, n_skipped, n_items_used,
        n_items_dropped, epsilon, q_fdr, test, scoring, note`` (``scoring``: the alignment
        score each model was tested with; a model that could not be tested: NaN
        and the reason in ``note``).

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

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
    >>> results, _ = run_alt_tests(dataset, preds, min_items_per_annotator=3)
    >>> alt_test_summary(results)[["model", "winning_rate", "passed", "n_tested"]].round(3)
                              model  winning_rate  passed  n_tested
    0                            m1         0.333   False         3
    1                            m2         0.667    True         3
    2  constant majority (baseline)         0.667    True         3
    """
    rows = []
    for name, res in results.items():
        if isinstance(res, str):
            rows.append({"model": name, "winning_rate": np.nan, "passed": None, "rho": np.nan,
                         "n_tested": 0, "note": res})
            continue
        rows.append({"model": name, "winning_rate": res.winning_rate, "passed": res.passed,
                     "rho": res.rho, "n_tested": res.n_tested, "n_skipped": len(res.skipped),
                     "n_items_used": res.n_items_used, "n_items_dropped": res.n_items_dropped,
                     "epsilon": res.epsilon, "q_fdr": res.q_fdr, "test": res.test,
                     "scoring": res.scoring, "note": " ".join(res.warnings)})
    return pd.DataFrame(rows)


def run_sweep(dataset: Dataset, predictions: pd.DataFrame | None = None, *,
              epsilons=(0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3), q_fdr: float = 0.05,
              scoring: str | None = None, min_items_per_annotator: int = 30,
              test: str = "ttest") -> pd.DataFrame:
    r"""Winning rate versus epsilon for every model and the baseline (Calderon et al., section 3).

    :func:`hlv_core.judge.alt_test_sweep` per model; models that cannot be tested are left out.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    predictions : pandas.DataFrame, optional
        Long predictions.
    epsilons : iterable of float, default (0.0, 0.05, ..., 0.3)
        The epsilons.
    q_fdr, scoring, min_items_per_annotator, test
        As in :func:`run_alt_tests`.

    Returns
    -------
    pandas.DataFrame
        ``model, epsilon, winning_rate, rho, passed, n_tested``.

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror (2025), "The Alternative Annotator Test for
       LLM-as-a-Judge", ACL 2025, arXiv:2501.10970, section 3.

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
    >>> sweep = run_sweep(dataset, preds, epsilons=(0.0, 0.2), min_items_per_annotator=3)
    >>> sweep[sweep.model == "m2"][["epsilon", "winning_rate", "passed"]].round(3)
       epsilon  winning_rate  passed
    2      0.0         0.000   False
    3      0.2         0.667    True
    """
    sets, _ = model_label_sets(dataset, predictions)
    frames = []
    for name, labels in sets.items():
        try:
            frames.append(alt_test_sweep(dataset, {name: labels}, epsilons, q_fdr=q_fdr,
                                         scoring=scoring or default_scoring(dataset),
                                         min_items_per_annotator=min_items_per_annotator,
                                         test=test))
        except ValueError:
            continue
    if not frames:
        return pd.DataFrame(columns=["model", "epsilon", "winning_rate", "rho", "passed",
                                     "n_tested"])
    return pd.concat(frames, ignore_index=True)


def _item_model(predictions: pd.DataFrame, dataset: Dataset, model: str
                ) -> tuple[pd.Index, np.ndarray]:
    rows = item_level_predictions(predictions)
    if rows is None or not (rows["model"] == model).any():
        raise DataError(f"model {model!r} has no item-level probabilities (per-annotator "
                        "labels cannot be compared with a label distribution).",
                        source="predictions", column="model",
                        fix="use item-level predictions (item_id, label, prob) for this view.")
    return prediction_matrix(rows, dataset, model)


def run_ceiling(dataset: Dataset, predictions: pd.DataFrame | None = None,
                model: str | None = None, *, n_boot: int = 1000, seed: int = 0,
                min_items: int = 30, min_others: int = 2, level: float = 0.95
                ) -> tuple[HumanCeilingResult, list[str]]:
    r"""The human ceiling with a model scored on the same targets.

    :func:`hlv_core.judge.human_ceiling`: every annotator j scored against ``P^{-j}`` (the
    other annotators' labels on j's items) on the metrics of Kurniawan et al. (section 3); the
    model is scored against the same targets. For a metric m, with ``J`` the scored
    annotators, ``e_y`` the one-hot row of label y and ``Q`` the model's probabilities:

    .. math::

        P^{-j}_{ik} = \frac{\#\{a \ne j : y_{ai} = k\}}{\#\{a \ne j \text{ labelling } i\}},
        \qquad \text{ceiling}_m = \frac{1}{|J|} \sum_{j \in J} m(P^{-j}, e_{y_j}),
        \qquad \text{model}_m = \frac{1}{|J|} \sum_{j \in J} m(P^{-j}, Q)

    each m on j's items only; the CI is a percentile bootstrap over items (Efron and
    Tibshirani 1993), seeded with ``seed``.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    predictions : pandas.DataFrame, optional
        Long predictions with item-level probabilities.
    model : str, optional
        The model to place against the ceiling.
    n_boot : int, default 1000
        Bootstrap resamples of the ceiling's CI.
    seed : int, default 0
        Seed of the bootstrap.
    min_items : int, default 30
        Fewest items of a scored annotator.
    min_others : int, default 2
        Fewest other annotators of an item.
    level : float, default 0.95
        Confidence level.

    Returns
    -------
    result : HumanCeilingResult
        The ceiling per metric and the per-annotator values.
    notes : list of str
        Which items the model covers, when not all.

    Raises
    ------
    hlv_core.io.DataError
        The model has no item-level probabilities.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3 (the metrics).
    .. [2] B. Efron and R. J. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman &
       Hall (percentile intervals).

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
    >>> result, notes = run_ceiling(dataset, preds, "m1", n_boot=50, min_items=2)
    >>> table = ceiling_table(result).set_index("metric")
    >>> row = table.loc["soft_accuracy"]
    >>> round(float(row.model_same_targets), 4), round(float(row.ceiling), 4), int(row.n_defined)
    (0.8296, 0.5926, 3)
    """
    notes: list[str] = []
    q = None
    if model is not None and predictions is not None:
        ids, Q = _item_model(predictions, dataset, model)
        if len(ids) < dataset.n_items:
            notes.append(f"model {model!r} predicts {len(ids)} of the {dataset.n_items} items; "
                         "it is compared with the annotators on those items only.")
        q = (list(ids), Q)
    res = human_ceiling(dataset, model=q, n_boot=n_boot, seed=seed, min_items=min_items,
                        min_others=min_others, level=level)
    return res, notes


def ceiling_table(res: HumanCeilingResult) -> pd.DataFrame:
    r"""The page's human-ceiling table, one row per metric.

    Parameters
    ----------
    res : HumanCeilingResult
        From :func:`run_ceiling` or :func:`hlv_core.judge.human_ceiling`.

    Returns
    -------
    pandas.DataFrame
        ``metric, model_full`` (model vs the soft label of all annotators),
        ``model_same_targets`` (mean over annotators of the model vs P^{-j}), ``ceiling, lower,
        upper, n_defined, best, worst`` (annotators with the highest / lowest value),
        ``above_ceiling, note`` (why undefined).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the metrics).
    .. [2] B. Efron and R. J. Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman &
       Hall.

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
    >>> result, _ = run_ceiling(dataset, preds, "m1", n_boot=50, min_items=2)
    >>> ceiling_table(result).set_index("metric").loc["hard_accuracy", ["best", "worst"]].tolist()
    ['b (0.667)', 'a (0.333)']
    """
    metrics = CEILING_METRICS_MULTILABEL if res.multilabel else CEILING_METRICS
    per = res.per_annotator
    rows = []
    for metric in metrics:
        sub = per[(per["metric"] == metric) & per["value"].notna()]
        best = sub.loc[sub["value"].idxmax()] if not sub.empty else None
        worst = sub.loc[sub["value"].idxmin()] if not sub.empty else None
        row = {"metric": metric,
               "model_full": (res.model_full or {}).get(metric, np.nan),
               "model_same_targets": (res.model_same_targets.at[metric, "model"]
                                      if res.model_same_targets is not None else np.nan),
               "ceiling": res.summary.at[metric, "value"],
               "lower": res.summary.at[metric, "lower"],
               "upper": res.summary.at[metric, "upper"],
               "n_defined": int(res.summary.at[metric, "n_defined"]),
               "best": "" if best is None else f"{best['annotator']} ({best['value']:.3f})",
               "worst": "" if worst is None else f"{worst['annotator']} ({worst['value']:.3f})",
               "above_ceiling": (bool(res.model_same_targets.at[metric, "above_ceiling"])
                                 if res.model_same_targets is not None else False),
               "note": res.reasons.get(metric, "")}
        rows.append(row)
    return pd.DataFrame(rows)


def scale_probabilities(Q: np.ndarray, T: float) -> np.ndarray:
    """Temperature applied to probabilities (Baan et al., Table 1 "TS" rows use T = 2).

    ``Q^(1/T) / sum_k Q_k^(1/T)``, which equals ``softmax(z / T)`` for the logits z behind Q
    (``log Q`` differs from z by a per-row constant). ``T = 1`` returns Q unchanged.

    Parameters
    ----------
    Q : numpy.ndarray
        (N, K) probabilities.
    T : float
        Temperature > 0 (> 1 flattens, < 1 sharpens).

    Returns
    -------
    numpy.ndarray
        (N, K) probabilities.

    Raises
    ------
    ValueError
        ``T <= 0``.

    References
    ----------
    .. [1] J. Baan, W. Aziz, B. Plank and R. Fernandez (2022), "Stop measuring calibration
       when humans disagree", EMNLP 2022, arXiv:2210.16133, sections 4-5.

    Examples
    --------
    >>> import numpy as np
    >>> scale_probabilities(np.array([[0.2, 0.8]]), 2).round(4)
    array([[0.3333, 0.6667]])
    """
    if not T > 0:
        raise ValueError("the temperature must be > 0.")
    Q = np.asarray(Q, dtype=float)
    if T == 1:
        return Q
    powered = Q ** (1.0 / T)
    return powered / powered.sum(axis=1, keepdims=True)


def calibration_inputs(dataset: Dataset, predictions: pd.DataFrame, model: str, *,
                       label_order=None, subset: dict | None = None
                       ) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    r"""Human counts and model probabilities of one model, ready for calibration measures.

    Rows are the items the model predicts (dataset order), columns in ``label_order`` (default:
    the dataset's inventory; the rank tie rule depends on it), items optionally restricted by
    ``subset``.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass or rating data.
    predictions : pandas.DataFrame
        Long predictions with item-level probabilities.
    model : str
        The model.
    label_order : sequence of str, optional
        A permutation of the labels.
    subset : dict, optional
        ``{items column: value}`` (e.g. ``{"source": "snli"}``).

    Returns
    -------
    item_ids : list of str
        The N items.
    C : numpy.ndarray
        (N, K) human vote counts.
    Q : numpy.ndarray
        (N, K) model probabilities.
    labels : list of str
        The K labels in column order.

    Raises
    ------
    hlv_core.io.DataError
        Multilabel or ranking data, a bad label order, an unknown column or an empty subset.

    References
    ----------
    .. [1] J. Baan, W. Aziz, B. Plank and R. Fernandez (2022), "Stop measuring calibration
       when humans disagree", EMNLP 2022, arXiv:2210.16133, sections 4-5.

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
    >>> item_ids, C, Q, labels = calibration_inputs(dataset, preds, "m1")
    >>> C.tolist(), labels
    ([[1, 2], [3, 0], [3, 1]], ['neg', 'pos'])
    """
    if dataset.task not in ("multiclass", "rating"):
        raise DataError("calibration to the human distribution needs one label per vote "
                        f"(multiclass or rating data); this dataset is {dataset.task}.",
                        source=str(dataset.name), fix="use a multiclass dataset.")
    ids, Q = _item_model(predictions, dataset, model)
    counts = dataset.counts_array()[pd.Index(dataset.item_ids).get_indexer(ids)]
    labels = list(dataset.labels)
    if label_order:
        order = [str(x) for x in label_order]
        if sorted(order) != sorted(labels):
            raise DataError(f"label order {order} is not a permutation of the labels {labels}.",
                            source="--label-order", fix="list every label once.")
        idx = [labels.index(x) for x in order]
        counts, Q, labels = counts[:, idx], Q[:, idx], order
    keep = np.ones(len(ids), dtype=bool)
    if subset:
        items = dataset.items.set_index("item_id")
        for column, value in subset.items():
            if column not in items.columns:
                raise DataError(f"the items table has no column {column!r}.", source="--subset",
                                fix=f"use one of {list(items.columns)}.")
            keep &= (items.loc[list(ids), column].astype(str) == str(value)).to_numpy()
        if not keep.any():
            raise DataError(f"no predicted item has {subset}.", source="--subset",
                            fix="check the column and value.")
    return [str(i) for i, k in zip(ids, keep, strict=True) if k], counts[keep], Q[keep], labels


def run_calibration(dataset: Dataset, predictions: pd.DataFrame, *, temperature: float = 1.0,
                    n_bins: int = 10, label_order=None, subset: dict | None = None,
                    oracle: bool = True) -> pd.DataFrame:
    r"""Calibration to the human label distribution of every model (Baan et al., sections 4-5).

    :func:`hlv_core.calibration.evaluate_calibration` of each model at ``temperature``: DistCE
    = mean TVD(Q_i, H_i), EntCE = mean |Ent(Q_i) - Ent(H_i)|, RankCS, human top-k accuracy, ECE
    and macro F1, with H = C / row sum. With ``oracle`` a row Q = H is added (DistCE 0, RankCS
    1, but ECE > 0: the paper's point).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass or rating data.
    predictions : pandas.DataFrame
        Long predictions with item-level probabilities.
    temperature : float, default 1.0
        Applied with :func:`scale_probabilities`.
    n_bins : int, default 10
        ECE bins.
    label_order, subset
        As in :func:`calibration_inputs`.
    oracle : bool, default True
        Add the row Q = H on the last model's items.

    Returns
    -------
    pandas.DataFrame
        ``model, dist_ce, ent_ce, ent_ce_signed, rank_cs, top1, ..., ece, f1_macro, n_items,
        temperature``.

    Raises
    ------
    hlv_core.io.DataError
        No item-level probabilities, or the errors of :func:`calibration_inputs`.

    References
    ----------
    .. [1] J. Baan, W. Aziz, B. Plank and R. Fernandez (2022), "Stop measuring calibration
       when humans disagree", EMNLP 2022, arXiv:2210.16133, sections 4-5.

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
    >>> table = run_calibration(dataset, preds).set_index("model")
    >>> table[["dist_ce", "rank_cs", "ece"]].round(3).rename_axis(None)
                                     dist_ce  rank_cs    ece
    m1                                 0.094    1.000  0.267
    m2                                 0.306    0.333  0.167
    oracle (Q = human distribution)    0.000    1.000  0.194
    """
    rows = {}
    C = None
    for name in _models(item_level_predictions(predictions)):
        _, C, Q, _ = calibration_inputs(dataset, predictions, name, label_order=label_order,
                                        subset=subset)
        row = cal.evaluate_calibration(C, scale_probabilities(Q, temperature), n_bins=n_bins)
        row["n_items"] = int(C.shape[0])
        row["temperature"] = float(temperature)
        rows[name] = row
    if not rows:
        raise DataError("no item-level model probabilities to calibrate.", source="predictions",
                        fix="load predictions with item_id, label, prob.")
    if oracle and C is not None:
        row = cal.evaluate_calibration(C, cal.human_distribution(C), n_bins=n_bins)
        row["n_items"] = int(C.shape[0])
        row["temperature"] = np.nan
        rows["oracle (Q = human distribution)"] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "model"
    return frame.reset_index()
