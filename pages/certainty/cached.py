"""The Certainty page's computations, cached on content (Stutz et al.): the sampler input and
point estimate of a dataset, one sweep per (model, reliability), the predictions as arrays,
one case's samples. No maths here: every number comes from ``hlv_core.certainty``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from hlv_core import certainty as ce
from hlv_core.io import DataError, Dataset, model_matrices
from hlv_core.text import md
from hlv_ui.cache import cached
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


@cached(show_spinner=False, max_entries=4)
def sampler_input(dataset: Dataset, model: str):
    """Counts or selectors of the dataset (the selectors view is slow to rebuild)."""
    return ce.model_data(dataset, engine_model(model))


@cached(show_spinner=False, max_entries=8)
def point_estimate(dataset: Dataset, model: str) -> np.ndarray:
    """Proportions / IRN / PL maximum likelihood (the PL MM iterations take seconds)."""
    return ce.point_estimate(engine_model(model), sampler_input(dataset, model),
                             n_classes=dataset.n_labels,
                             tie_split=_variant(model).get("tie_split", True))


@cached(show_spinner=False, max_entries=64)
def _sweep(dataset: Dataset, model: str, reliability: float, n_samples: int, seed: int,
           prior: float, ks: tuple, predictions: dict[str, np.ndarray],
           risk: np.ndarray | None) -> dict:
    """One model at one reliability (the compact sampler: only the top classes of every
    sample are drawn)."""
    res = ce.sweep(engine_model(model), sampler_input(dataset, model),
                   [reliability], n_samples=n_samples, seed=seed, prior=prior,
                   n_classes=dataset.n_labels, ks=ks, predictions=predictions, risk=risk,
                   item_ids=list(dataset.item_ids),
                   ao_depth=AO_DEPTH if dataset.n_labels >= AO_DEPTH else None,
                   point=point_estimate(dataset, model), **_variant(model))
    return {"certainty": res.certainty.assign(model=model),
            "accuracy": res.accuracy.assign(model=model),
            "per_case": res.per_case.assign(model=model), "ess": res.mean_ess(),
            "per_sample": res.per_sample.assign(model=model),
            "per_case_accuracy": res.per_case_accuracy.assign(model=model)}


@cached(show_spinner=False, max_entries=8)
def reader_agreement(dataset: Dataset) -> np.ndarray:
    """Leave-one-reader-out agreement per case (ranking data)."""
    return ce.reader_agreement(sampler_input(dataset, "prirn"), dataset.n_labels)[0]


@cached(show_spinner=False, max_entries=8)
def prediction_arrays(dataset: Dataset, preds):
    """UA accuracy needs one prediction per case: models with partial coverage are left out
    (notes)."""
    matrices, notes = model_matrices(preds, dataset, complete=True)
    return {name: q for name, (_, q) in matrices.items()}, notes


@cached(show_spinner=False, max_entries=32)
def case_samples(dataset: Dataset, case: int, model: str, r: float, n: int, seed: int,
                 prior: float) -> np.ndarray:
    """(S, K) plausibilities of one case (the ``case``-th item): drawn from its readers'
    rankings on ranking data, else from its label counts."""
    if dataset.task == "ranking":
        data = [sampler_input(dataset, "prirn")[case]]
    else:
        data = dataset.counts_array()[case][None, :]
    return ce.sample_plausibilities(engine_model(model), data, reliability=r, n_samples=n,
                                    seed=seed, prior=prior, n_classes=dataset.n_labels,
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
    risk: np.ndarray | None

    def result(self, model: str, r: float) -> dict:
        """One model at one reliability (cached per setting)."""
        d = self.dataset
        return _sweep(d, model, float(r), self.n_samples, self.seed, self.prior,
                      self.ks, self.predictions, self.risk)

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
                    "per_sample": pd.concat([c["per_sample"] for _, c in chunks],
                                            ignore_index=True),
                    "per_case_accuracy": pd.concat([c["per_case_accuracy"] for _, c in chunks],
                                                   ignore_index=True),
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
