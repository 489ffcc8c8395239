"""The detail tabs of the Perspectives page (PERSEVAL, Lo, Casola et al.): one model's scores per
test user, per test text and per trait value. Widgets and layout only; the numbers come from
``hlv_core.perspectivist`` through :class:`pages.perspectives.cached.ModelSet`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from hlv_core import perspectivist as P
from hlv_core.io import Dataset
from hlv_core.text import md
from hlv_ui.palette import model_colours
from hlv_ui.widgets import SETTING, download_table, show_table
from pages.perspectives.cached import ModelSet
from pages.perspectives.figures import group_histogram, trait_figure

__all__ = ["Detail", "text_tab", "trait_tab", "user_tab", "zero_note"]


@dataclass(frozen=True)
class Detail:
    """One model in detail: its report, the chosen per-group metric and the page settings."""

    model_set: ModelSet
    name: str
    report: P.PerspectivistReport
    column: str  # report column, e.g. "f1:macro", "accuracy"
    metric_name: str  # as shown
    seed: int
    dataset: Dataset

    def stamp(self, frame: pd.DataFrame) -> pd.DataFrame:
        """A download table with the model and seed that made it."""
        return frame.assign(model=self.name, seed=self.seed)


def zero_note(values: pd.Series, metric_name: str, groups: str) -> None:
    """Say why a chart of ``values`` (one per group) looks empty: no group has a defined score,
    or every score is 0 (the bars are there, at 0)."""
    v = values.astype(float).to_numpy()
    if not np.isfinite(v).any():
        st.info(f"No {groups} have a defined {md(metric_name)}: the class never occurs in "
                "their gold labels or in the model's predictions. Choose accuracy or macro F1.")
    elif np.nanmax(v) == 0:
        st.info(f"Every one of the {groups} scores {md(metric_name)} = 0: the model never "
                "predicts the class correctly for them (a rare class the model never predicts "
                "does this). The bars are at 0, not missing; accuracy and macro F1 show more.")


def _histogram_tab(d: Detail, table: pd.DataFrame, unit: str, key: str) -> pd.Series:
    values = table[d.column].rename(d.metric_name)
    defined = values.dropna()
    st.caption(f"{len(defined)} of {len(values)} {unit} have a defined {md(d.metric_name)} "
               "(the class occurs in their gold labels or predictions).")
    zero_note(values, d.metric_name, unit)
    if len(defined):
        fig = group_histogram(defined, d.metric_name, f"{d.metric_name} of each test "
                              f"{unit[:-1]}", unit, colour=model_colours([d.name])[d.name])
        st.plotly_chart(fig, width="stretch", key=key)
    return values


def user_tab(d: Detail) -> None:
    """Distribution over test users and the worst-served users with their traits."""
    _histogram_tab(d, d.report.per_user, "users", "perspectives.user_hist")
    worst = P.worst_groups(d.report.per_user, d.column).rename(columns={d.column: d.metric_name})
    if d.model_set.splits.traits is not None:
        worst = worst.join(d.model_set.splits.traits, how="left")
    st.markdown("**Worst-served users**")
    show_table(worst.style.format(precision=3, subset=[d.metric_name]), width="stretch")
    download_table(d.stamp(d.report.per_user.reset_index()), "perseval_per_user.csv",
                   key="perspectives.dl_user", label="Download scores per user (CSV)")


def text_tab(d: Detail) -> None:
    """Distribution over test texts and the hardest texts."""
    _histogram_tab(d, d.report.per_text, "texts", "perspectives.text_hist")
    hardest = P.worst_groups(d.report.per_text, d.column).rename(
        columns={d.column: d.metric_name})
    if "text" in d.dataset.items.columns:
        texts = d.dataset.items.set_index("item_id")["text"].astype(str).str.slice(0, 160)
        hardest = hardest.join(texts, how="left")
    st.markdown("**Hardest texts**")
    show_table(hardest, width="stretch")
    download_table(d.stamp(d.report.per_text.reset_index()), "perseval_per_text.csv",
                   key="perspectives.dl_text", label="Download scores per text (CSV)")


def trait_tab(d: Detail) -> None:
    """Score per value of one trait with bootstrap intervals over users; best vs worst value
    per trait."""
    report = d.report
    if report.per_trait.empty:
        st.info("No scores per trait: this split is unnamed (the dataset has no annotator "
                "traits) or no test user has a known trait value.")
        return
    dims = list(dict.fromkeys(report.per_trait.index.get_level_values("dimension")))
    b1, b2, b3 = st.columns(3)
    dim = b1.selectbox("Trait", dims, key="perspectives.dim", **SETTING)
    n_boot = int(b2.number_input(
        "Bootstrap replicates", 100, 5000, 500, 100, key="perspectives.n_boot", **SETTING,
        help="How many times the test users are resampled to get the intervals."))
    boot_seed = int(b3.number_input("Bootstrap seed", 0, 2**31 - 1, d.seed,
                                    key="perspectives.boot_seed", **SETTING))
    boot = d.model_set.bootstrap(d.name, n_boot, boot_seed)
    metric_key, label_key = (("accuracy", "macro") if d.column == "accuracy"
                             else ("f1", d.column.split(":", 1)[1]))
    sel = boot[(boot["level"] == f"trait:{dim}") & (boot["metric"] == metric_key)
               & (boot["label"] == label_key) & (boot["group"] != "mean")]
    sel = sel.merge(report.per_trait.loc[dim, ["n_users", "n"]], left_on="group",
                    right_index=True, how="left")
    zero_note(sel["estimate"], d.metric_name, "trait values")
    st.plotly_chart(trait_figure(sel, d.metric_name, dim, boot_seed,
                                 colour=model_colours([d.name])[d.name]), width="stretch",
                    key="perspectives.trait_bars")
    st.caption("Trait values 'UNK', 'DATA_EXPIRED' and missing are skipped; numeric traits "
               "with many values (e.g. age) are grouped into quartiles. A value with few "
               "users has a wide interval: do not read a gap there as under-service.")
    gaps = report.trait_gaps(metric=metric_key, label=label_key)
    st.markdown("**Best- vs worst-served trait value per trait**")
    show_table(gaps.style.format(precision=3, subset=["best", "worst", "gap"]),
               hide_index=True, width="stretch")
    e1, e2, e3 = st.columns(3)
    with e1:
        download_table(d.stamp(report.per_trait.reset_index()), "perseval_per_trait.csv",
                       key="perspectives.dl_trait", label="Download scores per trait value (CSV)")
    with e2:
        download_table(gaps.assign(model=d.name, metric=d.metric_name),
                       "perseval_trait_gaps.csv", key="perspectives.dl_gaps",
                       label="Download best vs worst trait values (CSV)")
    with e3:
        download_table(boot.assign(model=d.name), "perseval_bootstrap.csv",
                       key="perspectives.dl_boot",
                       label="Download bootstrap intervals (CSV)")
