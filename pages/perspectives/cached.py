"""The Perspectives page's computations (PERSEVAL, Lo, Casola et al.), cached on content: the
split, the baselines, the scores of every model and the bootstrap over users. No maths here:
every number comes from ``hlv_core.perspectivist``."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from hlv_core import perspectivist as P
from hlv_core.io import Dataset, load_table
from hlv_ui.cache import cached

__all__ = ["ADAPTATION", "ModelSet", "item_models", "parse_upload", "split_cached"]

ADAPTATION = {"none": False, "train": "train", "test": "test"}


@cached(show_spinner="Building the split…", max_entries=16)
def split_cached(dataset: Dataset, share: float, adaptation: str, extended: bool, seed: int,
                 reserve: str, adaptation_share: float, baseline: bool,
                 stratify: str | None = None) -> P.PerspectivistSplits:
    """:func:`hlv_core.perspectivist.make_splits` with the page's settings (the traits that
    decide named vs unnamed are part of the dataset's content)."""
    return P.make_splits(
        dataset, test_user_share=share, adaptation=ADAPTATION[adaptation], extended=extended,
        seed=seed, baseline=baseline, adaptation_share=adaptation_share,
        train_only_text_share=reserve if reserve == "auto" else float(reserve),
        stratify=stratify,
    )


@cached(show_spinner="Running the baselines…", max_entries=16)
def _baselines(dataset: Dataset, settings: tuple):
    """The baselines of the split :func:`split_cached` makes with ``settings``."""
    return P.run_baselines(split_cached(dataset, *settings))


@cached(show_spinner="Scoring…", max_entries=64)
def _evaluate(preds: pd.DataFrame, gold: pd.DataFrame, traits: pd.DataFrame | None,
              labels: tuple) -> P.PerspectivistReport:
    return P.evaluate(preds, gold, traits=traits, labels=labels)


@cached(show_spinner="Bootstrapping over users…", max_entries=32)
def _bootstrap(preds: pd.DataFrame, gold: pd.DataFrame, traits: pd.DataFrame | None,
               labels: tuple, n_boot: int, seed: int) -> pd.DataFrame:
    return P.bootstrap_users(preds, gold, traits=traits, labels=labels, n_boot=n_boot,
                             seed=seed)


@cached(show_spinner=False, max_entries=32)
def _lewidi(preds: pd.DataFrame, gold: pd.DataFrame, labels: tuple) -> dict:
    return P.lewidi_scores(preds, gold, labels=labels)


@cached(show_spinner=False, max_entries=16)
def item_models(preds: pd.DataFrame | None, test: pd.DataFrame, labels: tuple
                ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Item-level models as per-(user, text) predictions on the test pairs."""
    return P.item_predictions_per_user(preds, test, labels)


@cached(show_spinner="Reading predictions…", max_entries=8, scope="session")
def parse_upload(raw: bytes, name: str = "predictions upload") -> pd.DataFrame:
    """A per-(user, text) predictions CSV/TSV as text columns, read by the engine's one
    bounded reader (``hlv_core.io.load_table``: its size limits and errors, as the CLI's
    ``perspectives --predictions``); ``DataError`` when unreadable."""
    return load_table(raw, name=name)


@dataclass
class ModelSet:
    """The models scored on one split (made by :func:`split_cached` from ``dataset`` and
    ``settings``): predictions and gold per model, every score cached on their content (a
    model re-trained or re-uploaded under the same name gives new numbers)."""

    dataset: Dataset
    settings: tuple
    splits: P.PerspectivistSplits
    labels: tuple
    models: dict[str, pd.DataFrame] = field(default_factory=dict)
    gold: dict[str, pd.DataFrame] = field(default_factory=dict)

    def add_baselines(self) -> dict[str, str]:
        """The split's baselines; returns ``{baseline: why it was skipped}``."""
        models, skipped = _baselines(self.dataset, self.settings)
        for name, frame in models.items():
            self.add(name, frame, self.splits.test)
        return skipped

    def add(self, name: str, preds: pd.DataFrame, gold: pd.DataFrame) -> None:
        """One more model, scored against ``gold``."""
        self.models[name], self.gold[name] = preds, gold

    def report(self, name: str) -> P.PerspectivistReport:
        """:func:`hlv_core.perspectivist.evaluate` of one model (cached on its content)."""
        return _evaluate(self.models[name], self.gold[name], self.splits.traits, self.labels)

    def comparison(self) -> pd.DataFrame:
        """:func:`hlv_core.perspectivist.headline_table` of every model."""
        return P.headline_table(pd.concat(
            [self.report(n).summary().assign(model=n) for n in self.models],
            ignore_index=True), self.labels)

    def bootstrap(self, name: str, n_boot: int, seed: int) -> pd.DataFrame:
        """:func:`hlv_core.perspectivist.bootstrap_users` of one model."""
        return _bootstrap(self.models[name], self.gold[name], self.splits.traits, self.labels,
                          n_boot, seed)

    def lewidi(self, name: str) -> dict:
        """LeWiDi 2025 perspectivist scores of one model."""
        return _lewidi(self.models[name], self.gold[name], self.labels)
