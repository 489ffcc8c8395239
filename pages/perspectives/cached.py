"""The Perspectives page's computations (PERSEVAL, Lo, Casola et al.), cached on content: the
split, the baselines, the scores of every model and the bootstrap over users. No maths here:
every number comes from ``hlv_core.perspectivist``."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from hlv_core import perspectivist as P
from hlv_core.io import DataError, Dataset

__all__ = ["ADAPTATION", "ModelSet", "item_models", "parse_upload", "split_cached"]

ADAPTATION = {"none": False, "train": "train", "test": "test"}


@st.cache_data(show_spinner="Building the split…", max_entries=16)
def split_cached(_dataset: Dataset, dataset_hash: str, traits_hash: str, share: float,
                 adaptation: str, extended: bool, seed: int, reserve: str,
                 adaptation_share: float, baseline: bool,
                 stratify: str | None = None) -> P.PerspectivistSplits:
    """:func:`hlv_core.perspectivist.make_splits` with the page's settings."""
    del dataset_hash, traits_hash  # cache key only
    return P.make_splits(
        _dataset, test_user_share=share, adaptation=ADAPTATION[adaptation], extended=extended,
        seed=seed, baseline=baseline, adaptation_share=adaptation_share,
        train_only_text_share=reserve if reserve == "auto" else float(reserve),
        stratify=stratify,
    )


@st.cache_data(show_spinner="Running the baselines…", max_entries=16)
def _baselines(_splits: P.PerspectivistSplits, split_key: str):
    del split_key
    return P.run_baselines(_splits)


@st.cache_data(show_spinner="Scoring…", max_entries=64)
def _evaluate(_preds: pd.DataFrame, _gold: pd.DataFrame, _traits, labels: tuple,
              key: str) -> P.PerspectivistReport:
    del key
    return P.evaluate(_preds, _gold, traits=_traits, labels=labels)


@st.cache_data(show_spinner="Bootstrapping over users…", max_entries=32)
def _bootstrap(_preds: pd.DataFrame, _gold: pd.DataFrame, _traits, labels: tuple,
               key: str, n_boot: int, seed: int) -> pd.DataFrame:
    del key
    return P.bootstrap_users(_preds, _gold, traits=_traits, labels=labels, n_boot=n_boot,
                             seed=seed)


@st.cache_data(show_spinner=False, max_entries=32)
def _lewidi(_preds: pd.DataFrame, _gold: pd.DataFrame, labels: tuple, key: str) -> dict:
    del key
    return P.lewidi_scores(_preds, _gold, labels=labels)


@st.cache_data(show_spinner=False, max_entries=16)
def item_models(_preds: pd.DataFrame | None, _test: pd.DataFrame, labels: tuple, key: str
                ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Item-level models as per-(user, text) predictions on the test pairs."""
    del key
    return P.item_predictions_per_user(_preds, _test, labels)


@st.cache_data(show_spinner="Reading predictions…", max_entries=8, scope="session")
def parse_upload(raw: bytes, digest: str) -> pd.DataFrame:
    """A per-(user, text) predictions CSV as text columns (``DataError`` when unreadable)."""
    del digest
    try:
        return pd.read_csv(io.BytesIO(raw), dtype=str, sep=None, engine="python")
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"could not read the CSV ({exc}).", source="predictions upload",
                        fix="upload a CSV with columns annotator_id, item_id, label.") from exc


@dataclass
class ModelSet:
    """The models scored on one split: predictions, gold and a content key per model (a model
    re-trained or re-uploaded under the same name must give new numbers)."""

    splits: P.PerspectivistSplits
    split_key: str
    labels: tuple
    models: dict[str, pd.DataFrame] = field(default_factory=dict)
    gold: dict[str, pd.DataFrame] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def add_baselines(self) -> dict[str, str]:
        """The split's baselines; returns ``{baseline: why it was skipped}``."""
        models, skipped = _baselines(self.splits, self.split_key)
        for name, frame in models.items():
            self.add(name, frame, self.splits.test, f"{self.split_key}|baseline|{name}")
        return skipped

    def add(self, name: str, preds: pd.DataFrame, gold: pd.DataFrame, key: str) -> None:
        """One more model, scored against ``gold``."""
        self.models[name], self.gold[name], self.keys[name] = preds, gold, key

    def report(self, name: str) -> P.PerspectivistReport:
        """:func:`hlv_core.perspectivist.evaluate` of one model (cached on its content)."""
        return _evaluate(self.models[name], self.gold[name], self.splits.traits, self.labels,
                         self.keys[name])

    def comparison(self) -> pd.DataFrame:
        """:func:`hlv_core.perspectivist.headline_table` of every model."""
        return P.headline_table(pd.concat(
            [self.report(n).summary().assign(model=n) for n in self.models],
            ignore_index=True), self.labels)

    def bootstrap(self, name: str, n_boot: int, seed: int) -> pd.DataFrame:
        """:func:`hlv_core.perspectivist.bootstrap_users` of one model."""
        return _bootstrap(self.models[name], self.gold[name], self.splits.traits, self.labels,
                          self.keys[name], n_boot, seed)

    def lewidi(self, name: str) -> dict:
        """LeWiDi 2025 perspectivist scores of one model."""
        return _lewidi(self.models[name], self.gold[name], self.labels, self.keys[name])
