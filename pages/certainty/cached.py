"""The Certainty page's computations, cached on content (Stutz et al.): the sampler input and
point estimate of a dataset, one sweep per (model, reliability), the predictions as arrays,
one case's samples. No maths here: every number comes from ``hlv_core.certainty``."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from hlv_core import certainty as ce
from hlv_core.io import DataError, Dataset, model_matrices
from hlv_core.text import md
from pages.certainty.figures import MODEL_TITLES, fmt_r

__all__ = ["AO_DEPTH", "STOPS_COUNTS", "STOPS_RANKING", "Run", "allowed", "case_samples",
           "point_estimate", "prediction_arrays", "reader_agreement", "sampler_input"]

# the reference notebook's PrIRN temperatures are 1, 3, 5, 10, 20, 30, 50
STOPS_RANKING = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, math.inf]
STOPS_COUNTS = [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, math.inf]
AO_DEPTH = 3  # UA average overlap at depth 3 (Stutz et al., Fig. 6, last column)
allowed = ce.pl_reliability_allowed


def engine_model(key: str) -> str:
    """The engine's model name of a page model key."""
    return "prirn" if key == "prirn_released" else key


def _variant(key: str) -> dict:
    """IRN variant of a page model key: the paper's tie split unless the released code's."""
    return {"tie_split": key != "prirn_released"} if key.startswith("prirn") else {}


@st.cache_data(show_spinner=False, max_entries=4)
def sampler_input(_dataset: Dataset, dataset_hash: str, model: str):
    """Counts or selectors of the dataset (the selectors view is slow to rebuild)."""
    del dataset_hash
    return ce.model_data(_dataset, engine_model(model))


@st.cache_data(show_spinner=False, max_entries=8)
def point_estimate(_dataset: Dataset, dataset_hash: str, model: str) -> np.ndarray:
    """Proportions / IRN / PL maximum likelihood (the PL MM iterations take seconds)."""
    return ce.point_estimate(engine_model(model), sampler_input(_dataset, dataset_hash, model),
                             n_classes=_dataset.n_labels,
                             tie_split=_variant(model).get("tie_split", True))


@st.cache_data(show_spinner=False, max_entries=64)
def _sweep(_dataset: Dataset, dataset_hash: str, model: str, reliability: float, n_samples: int,
           seed: int, prior: float, ks: tuple, _predictions: dict, pred_key: tuple,
           _risk) -> dict:
    """One model at one reliability (the compact sampler: only the top classes of every
    sample are drawn)."""
    del pred_key
    res = ce.sweep(engine_model(model), sampler_input(_dataset, dataset_hash, model),
                   [reliability], n_samples=n_samples, seed=seed, prior=prior,
                   n_classes=_dataset.n_labels, ks=ks, predictions=_predictions, risk=_risk,
                   item_ids=list(_dataset.item_ids),
                   ao_depth=AO_DEPTH if _dataset.n_labels >= AO_DEPTH else None,
                   point=point_estimate(_dataset, dataset_hash, model), **_variant(model))
    return {"certainty": res.certainty.assign(model=model),
            "accuracy": res.accuracy.assign(model=model),
            "per_case": res.per_case.assign(model=model), "ess": res.mean_ess()}


@st.cache_data(show_spinner=False, max_entries=8)
def reader_agreement(_dataset: Dataset, dataset_hash: str) -> np.ndarray:
    """Leave-one-reader-out agreement per case (ranking data)."""
    return ce.reader_agreement(sampler_input(_dataset, dataset_hash, "prirn"),
                               _dataset.n_labels)[0]


@st.cache_data(show_spinner=False, max_entries=8)
def prediction_arrays(_dataset: Dataset, dataset_hash: str, _preds, preds_hash: str):
    """UA accuracy needs one prediction per case: models with partial coverage are left out
    (notes). Also the cache key of the sweeps: the content of every matrix, never names alone."""
    del dataset_hash, preds_hash
    matrices, notes = model_matrices(_preds, _dataset, complete=True)
    arrays = {name: q for name, (_, q) in matrices.items()}
    key = tuple(
        (name, hashlib.sha256(np.ascontiguousarray(q, dtype=float).tobytes()).hexdigest()[:16])
        for name, q in sorted(arrays.items()))
    return arrays, notes, key


@st.cache_data(show_spinner=False, max_entries=32)
def case_samples(case_key: str, model: str, r: float, n: int, seed: int, prior: float, _data,
                 n_classes: int) -> np.ndarray:
    """(S, K) plausibilities of one case (``case_key``: dataset hash and case index)."""
    del case_key
    return ce.sample_plausibilities(engine_model(model), _data, reliability=r, n_samples=n,
                                    seed=seed, prior=prior, n_classes=n_classes,
                                    **_variant(model))[0]


@dataclass(frozen=True)
class Run:
    """The page's settings: which models, draws, seed, prior, set sizes and predictions."""

    dataset: Dataset
    models: tuple[str, ...]
    n_samples: int
    seed: int
    prior: float
    ks: tuple[int, ...]
    predictions: dict
    pred_key: tuple
    risk: np.ndarray | None

    def result(self, model: str, r: float) -> dict:
        """One model at one reliability (cached per setting)."""
        d = self.dataset
        return _sweep(d, d.content_hash, model, float(r), self.n_samples, self.seed, self.prior,
                      self.ks, self.predictions, self.pred_key, self.risk)

    def stamp(self, frame: pd.DataFrame) -> pd.DataFrame:
        """A download table with the settings that made it."""
        return frame.assign(seed=self.seed, samples=self.n_samples, prior=self.prior)

    def sweep_all(self, reliabilities: tuple[float, ...]) -> dict:
        """Every chosen model at every reliability it runs at, with a progress bar; stops the
        page with a message when nothing can be computed."""
        jobs = [(m, r) for m in self.models for r in reliabilities if allowed(m, r)]
        bar = st.progress(0.0, text="Drawing plausible ground truths …")
        parts: dict = {m: [] for m in self.models}
        try:
            for i, (model, r) in enumerate(jobs):
                bar.progress(i / len(jobs), text=f"{MODEL_TITLES[model]}: reliability {fmt_r(r)}")
                parts[model].append((r, self.result(model, r)))
        except (DataError, ValueError) as error:
            bar.empty()
            st.error(f"Could not compute certainty: {md(str(error))}")
            st.stop()
        bar.empty()
        results = {}
        for model, chunks in parts.items():
            if chunks:
                acc = pd.concat([c["accuracy"] for _, c in chunks], ignore_index=True)
                results[model] = {
                    "certainty": pd.concat([c["certainty"] for _, c in chunks], ignore_index=True),
                    "accuracy": acc.drop_duplicates(
                        ["model", "reliability", "predictor", "k", "metric"]),
                    "per_case": pd.concat([c["per_case"] for _, c in chunks], ignore_index=True),
                    "ess": [(r, e) for r, c in chunks for e in c["ess"]],
                }
        if "pl" in self.models and any(not allowed("pl", r) for r in reliabilities):
            st.caption("Full rankings (Plackett-Luce) run at the whole-number reliabilities up "
                       f"to {ce.PL_MAX_RELIABILITY} and ∞ only (each reader is repeated r "
                       "times).")
        if not results:
            st.info("No reliability in the list fits the chosen models.")
            st.stop()
        return results
