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
    """``"neg_rmse"`` for numeric ratings, ``"accuracy"`` otherwise (Calderon et al., sec. 3)."""
    return "neg_rmse" if dataset.task == "rating" else "accuracy"


def _models(predictions: pd.DataFrame | None) -> list[str]:
    if predictions is None or predictions.empty:
        return []
    return [str(m) for m in pd.unique(predictions["model"])]


def model_label_sets(dataset: Dataset, predictions: pd.DataFrame | None, *,
                     baseline: bool = True) -> tuple[dict, list[str]]:
    """``({name: model labels for alt_test}, notes)``: every model of ``predictions`` (hard
    labels or argmax of probabilities; per-annotator rows give the per-annotator form) and,
    with ``baseline``, the constant majority label. ``notes`` say how many annotated items each
    model covers (items without a model label are left out of the test, never imputed)."""
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
                  baseline: bool = True) -> tuple[dict[str, AltTestResult | str], list[str]]:
    """:func:`hlv_core.judge.alt_test` for every model (and the constant-majority baseline):
    ``({name: result, or the reason it could not be tested}, notes)``."""
    sets, notes = model_label_sets(dataset, predictions, baseline=baseline)
    scoring = scoring or default_scoring(dataset)
    results: dict[str, AltTestResult | str] = {}
    for name, labels in sets.items():  # a handful of models
        try:
            results[name] = alt_test(dataset, labels, epsilon=epsilon, q_fdr=q_fdr,
                                     scoring=scoring,
                                     min_items_per_annotator=min_items_per_annotator, test=test)
        except ValueError as err:
            results[name] = str(err)
    return results, notes


def alt_test_summary(results: dict[str, AltTestResult | str]) -> pd.DataFrame:
    """One row per model: ``model, winning_rate, passed, rho, n_tested, n_skipped,
    n_items_used, n_items_dropped, epsilon, q_fdr, test, note``."""
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
                     "note": " ".join(res.warnings)})
    return pd.DataFrame(rows)


def run_sweep(dataset: Dataset, predictions: pd.DataFrame | None = None, *,
              epsilons=(0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3), q_fdr: float = 0.05,
              scoring: str | None = None, min_items_per_annotator: int = 30,
              test: str = "ttest") -> pd.DataFrame:
    """Winning rate versus epsilon for every model and the baseline
    (:func:`hlv_core.judge.alt_test_sweep`); models that cannot be tested are left out."""
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
    """:func:`hlv_core.judge.human_ceiling` with ``model`` (a model of ``predictions``) scored on
    the same targets; ``notes`` say which items the model covers."""
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
    """The page's ceiling table: one row per metric with ``model_full`` (model vs the soft
    label of all annotators), ``model_same_targets`` (mean over annotators of the model vs
    P^{-j}), ``ceiling``, ``lower``, ``upper``, ``n_defined``, ``best``, ``worst`` (annotators
    with the highest / lowest value), ``above_ceiling``, ``note`` (why undefined)."""
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
    """Temperature applied to probabilities: ``Q^(1/T) / sum_k Q_k^(1/T)``, which equals
    ``softmax(z / T)`` for the logits z behind Q (``log Q`` differs from z by a per-row
    constant). ``T = 1`` returns Q unchanged."""
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
    """``(item_ids, C, Q, labels)`` for one model: human counts and model probabilities on the
    items the model predicts (dataset order), columns in ``label_order`` (default: the
    dataset's inventory; the rank tie rule depends on it), items optionally restricted by
    ``subset`` = ``{items column: value}`` (e.g. ``{"source": "snli"}``)."""
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
    """Models x measures of :func:`hlv_core.calibration.evaluate_calibration` (each model at
    ``temperature``), plus ``n_items`` and, with ``oracle``, the row Q = H of the last model's
    items. Every model's items must have human votes (counts > 0)."""
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
