"""Sections of the Agreement page's "Pairs" and "Multi-label" tabs: per-annotator mean alpha
with its support, where one pair disagreed (each row opens the item in "Items and annotators"),
and the multi-label measures of Marchal et al. (2022). Layout only: every number comes from
``hlv_core.agreement`` / ``hlv_core.annotators``; user strings are escaped (``md``, ``html``)."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st

from hlv_core import agreement
from hlv_core.agreement import average_multilabel_pairs
from hlv_core.annotators import MIN_PAIRS, mean_alpha_with_support
from hlv_core.io import Dataset
from hlv_core.text import md
from hlv_ui.cache import content_key
from hlv_ui.explain import explain
from hlv_ui.links import explorer_link, open_explorer
from hlv_ui.widgets import SETTING, download_table, fmt_num, forget_outside, show_table

__all__ = ["mean_agreement_section", "multilabel_section", "pair_section"]

BAR_MAX = 60  # annotators drawn in the mean-alpha bar chart
ML_MEMO_KEY = "agreement._ml_memo"


def mean_agreement_section(pairs: pd.DataFrame, overall: float, level: str,
                           min_shared: int) -> None:
    """Per-annotator mean pairwise alpha with its support; annotators with fewer than the
    chosen number of defined pairs are listed but not ranked in the chart. A bar click opens
    the annotator's profile."""
    st.subheader("Per-annotator mean agreement")
    explain("support")
    most = int(agreement.annotator_mean_agreement(pairs)["n_pairs_defined"].max() or 1)
    forget_outside("agreement.min_pairs", 1, max(most, 1))  # kept from another dataset
    min_pairs = st.slider(
        "Minimum pairs per annotator", 1, max(most, 1), min(MIN_PAIRS, most),
        key="agreement.min_pairs", **SETTING,
        help="Annotators with fewer pairs that have a defined α are not ranked: a mean over "
        "one or two pairs is mostly luck.")
    means = mean_alpha_with_support(pairs, min_pairs)
    ranked = means[means["enough_support"] & means["mean_alpha"].notna()]
    left_out = int((~means["enough_support"]).sum())
    st.caption(f"Mean of an annotator's defined pairwise α; low values flag annotators who "
               f"differ from most others (outliers or a minority perspective). {len(ranked):,} "
               f"annotators with at least {min_pairs} pairs are ranked"
               + (f"; {left_out:,} with fewer are listed in the table only." if left_out
                  else ".") + " Click a bar to open the annotator's profile.")
    shown = ranked.head(BAR_MAX)
    labels = {html.escape(str(a)): str(a) for a in shown["annotator_id"]}
    bar = px.bar(shown.assign(annotator=list(labels)), x="annotator", y="mean_alpha",
                 hover_data={"n_pairs_defined": True, "n_shared_total": True},
                 labels={"annotator": "annotator", "mean_alpha": "mean pairwise α",
                         "n_pairs_defined": "pairs (support)", "n_shared_total": "shared items"})
    bar.update_layout(height=380, margin={"t": 30}, xaxis={"type": "category"})
    if np.isfinite(overall):
        bar.add_hline(y=overall, line_dash="dash", annotation_text="overall α",
                      annotation_position="top left")
    event = st.plotly_chart(bar, width="stretch", key="agreement.mean_bar", on_select="rerun",
                            selection_mode="points")
    points = getattr(getattr(event, "selection", None), "points", None) or []
    if points:
        open_explorer(annotator=labels.get(str(points[0].get("x")), str(points[0].get("x"))))
    show_table(means, hide_index=True, column_config={
        "mean_alpha": st.column_config.NumberColumn("mean pairwise α", format="%.3f"),
        "n_pairs_defined": st.column_config.NumberColumn("pairs (support)"),
        "n_pairs": st.column_config.NumberColumn("pairs sharing an item"),
        "n_shared_total": st.column_config.NumberColumn("shared items"),
        "enough_support": st.column_config.CheckboxColumn("ranked (enough support)")})
    download_table(means.assign(level=level, min_shared=min_shared, min_pairs=min_pairs),
                   "annotator_mean_alpha.csv", key="agreement.dl_means",
                   label="Download per-annotator mean α (CSV)")


def pair_section(dataset: Dataset, pairs: pd.DataFrame, default_pair: tuple[str, str]) -> None:
    """Two annotator pickers (``default_pair`` first) and the items where they disagreed; a
    row click opens that item in "Items and annotators"."""
    st.subheader("Where a pair disagreed")
    st.caption("Click a heatmap cell or pick two annotators; click a row to open the item with "
               "every annotation.")
    annotators = sorted(map(str, dataset.annotations["annotator_id"].unique()))
    p1, p2 = st.columns(2)
    a_sel = p1.selectbox("Annotator A", annotators, index=annotators.index(default_pair[0]),
                         key=f"agreement.pair_a.{default_pair[0]}", **SETTING)
    b_sel = p2.selectbox("Annotator B", annotators, index=annotators.index(default_pair[1]),
                         key=f"agreement.pair_b.{default_pair[1]}", **SETTING)
    if a_sel == b_sel:
        st.info("Pick two different annotators.")
        return
    row = pairs[((pairs["annotator_a"] == min(a_sel, b_sel))
                 & (pairs["annotator_b"] == max(a_sel, b_sel)))]
    if row.empty:
        st.info(f"{md(a_sel)} and {md(b_sel)} share no item.")
        return
    r = row.iloc[0]
    diff = agreement.pair_disagreements(dataset.annotations, a_sel, b_sel)
    st.markdown(f"**{md(a_sel)}** and **{md(b_sel)}** share {int(r['n_shared'])} items; "
                f"α = {fmt_num(r['alpha'], 'undefined')}; they disagree on {len(diff)} items.")
    l1, l2 = st.columns(2)
    with l1:
        explorer_link(f"Open {md(a_sel)}'s profile, compared with {md(b_sel)}",
                      annotator=a_sel, other=b_sel)
    with l2:
        explorer_link(f"Open {md(b_sel)}'s profile, compared with {md(a_sel)}",
                      annotator=b_sel, other=a_sel)
    if "text" in dataset.items.columns and len(diff):
        diff = diff.assign(text=diff["item_id"].map(dataset.items.set_index("item_id")["text"]))
    shown = diff.head(500)
    event = show_table(shown, hide_index=True, key=f"agreement.diff.{a_sel}.{b_sel}",
                       on_select="rerun", selection_mode="single-row",
                       column_config={"text": st.column_config.TextColumn(width="large")})
    rows = event.selection.rows if event is not None else []
    if rows:
        open_explorer(item=str(shown["item_id"].iloc[rows[0]]))
    download_table(diff, f"disagreements_{a_sel}_{b_sel}.csv", key="agreement.dl_diff",
                   label="Download this pair's disagreements (CSV)")


def multilabel_section(dataset: Dataset, n_boot: int, seed: int) -> None:
    """Marchal et al. (2022) measures for label sets, averaged or per coder pair."""
    explain("multilabel_agreement")
    st.markdown(
        "Measures for label **sets**: *soft-match* (the sets intersect), *augmented* "
        "(Rosenberg & Binkowski: each coder spreads weight 1 over its labels), "
        "*precision/recall/F1* of the intersection. **Expected** agreement of the *boot-* "
        "measures comes from simulating each coder's label shares and set sizes "
        f"({n_boot} replicates, seed {seed}); **adjusted** = (observed − expected) / "
        "(1 − expected). Soft-match κ ignores that more labels make chance matches likelier."
    )
    view = st.radio("Show", ["Averaged over coder pairs", "Per coder pair"],
                    horizontal=True, key="agreement.ml_view", **SETTING)
    ml_boot = max(n_boot, 1)
    n_ann = dataset.annotations["annotator_id"].nunique()
    if n_ann > 40:
        st.warning(f"{n_ann} coders → {n_ann * (n_ann - 1) // 2:,} pairs; this may take a while.")
    bar_slot = st.empty()

    def _progress(done: int, total: int) -> None:
        bar_slot.progress(done / total, text=f"Bootstrapping coder pair {done} of {total}")

    # memo in session state (not st.cache_data: the progress bar lives outside the function)
    memo = st.session_state.setdefault(ML_MEMO_KEY, {})
    memo_key = content_key(dataset, ml_boot, seed)
    per_pair = memo.get(memo_key)
    if per_pair is None:
        try:
            per_pair = agreement.multilabel_agreement_pairs(
                dataset.annotations, n_boot=ml_boot, seed=seed, progress=_progress)
        except ValueError as err:
            bar_slot.empty()
            st.warning(f"Multi-label agreement cannot be computed: {md(str(err))}")
            return
        if len(memo) >= 6:
            memo.pop(next(iter(memo)))
        memo[memo_key] = per_pair
    bar_slot.empty()
    table = average_multilabel_pairs(per_pair)
    n_pairs, averaged = table.attrs["n_pairs"], table.reset_index()
    if view.startswith("Averaged"):
        shown_tab = averaged
        if n_pairs > 1:
            st.caption("Mean over coder pairs; precision and recall averaged over both "
                       "orientations of each pair, so they coincide. A pair whose expected "
                       "agreement is 1 has no adjusted value: `n_pairs_defined` counts the pairs "
                       "behind the adjusted mean.")
    else:
        shown_tab = per_pair
        st.caption("Coder 1 is the reference for precision and recall.")
    show_table(shown_tab.round(4), hide_index=True)
    download_table(shown_tab.assign(seed=seed, n_boot=ml_boot), "multilabel_agreement.csv",
                   key="agreement.dl_ml", label="Download multi-label agreement (CSV)")
    long = averaged.melt(id_vars=["measure"], value_vars=["observed", "expected", "adjusted"])
    fig = px.bar(long, x="measure", y="value", color="variable", barmode="group",
                 title="Observed, expected and adjusted agreement",
                 labels={"value": "agreement", "variable": ""})
    st.plotly_chart(fig, width="stretch", key="agreement.ml_bar")
