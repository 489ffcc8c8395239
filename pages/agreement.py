"""Agreement: Krippendorff's alpha (overall with CI, all pairs), kappas, and for multi-label data
the measures of Marchal et al. (2022) with bootstrapped chance agreement, plus their simulator."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st

from hlv_core import agreement
from hlv_core.agreement import average_multilabel_pairs, kappa_summary
from hlv_core.io import DataError, Dataset
from hlv_core.levels import level_options
from hlv_core.pair_matrix import most_active, pairwise_matrix
from hlv_core.text import md
from hlv_ui.heatmap import pair_heatmap
from hlv_ui.simulators import multilabel_simulator
from hlv_ui.state import require_dataset, show_data_error
from hlv_ui.widgets import download_table, fmt_num, lazy_tabs, show_table

HEATMAP_MAX = 60  # annotators drawn in the heatmap (most active first)
ML_MEMO_KEY = "agreement._ml_memo"

st.title("Agreement")
st.caption(
    "How much do annotators agree beyond chance? **Krippendorff's α** (any number of annotators, "
    "missing labels, nominal/ordinal/interval/ratio data), its per-pair version, Cohen's and "
    "Fleiss' κ, and for multi-label data the measures of Marchal et al. (2022) with chance "
    "agreement estimated by bootstrap. Low agreement is not automatically noise: in "
    "human-label-variation data it can reflect genuine differences of perspective."
)

dataset = require_dataset(tasks=("multiclass", "multilabel", "rating"))

if not dataset.annotator_ids_known:
    counts = dataset.counts_array()
    value = agreement.alpha_from_counts(counts, level="nominal")
    st.metric("Krippendorff's α (nominal, from label counts)", f"{value:.3f}")
    st.info(
        "This dataset has no annotator identities linked across items (counts only), so only the "
        "overall nominal α can be computed; pairwise and per-annotator agreement need ids."
    )
    st.stop()

opts = level_options(dataset)
is_multilabel = opts.multilabel == "set"
multilabel_mode = opts.multilabel

# ---------------------------------------------------------------------------------- controls
levels = list(opts.levels)
c1, c2, c3 = st.columns(3)
level = c1.selectbox(
    "Level of measurement", levels, index=levels.index(opts.default), key="agreement.level",
    help="Nominal: labels are unordered categories. Ordinal: ordered (ranks matter). Interval: "
    "numeric differences matter. Ratio: relative differences matter. Always chosen explicitly.",
)
n_boot = int(c2.number_input("Bootstrap replicates", 0, 5000, 1000, 100, key="agreement.n_boot"))
seed = int(c3.number_input("Seed", 0, 2**31 - 1, 0, 1, key="agreement.seed"))
st.caption(f"Seed **{seed}** (stored with every download).")
if is_multilabel:
    st.info(
        "Multi-label data: for α each annotator's label **set** on an item is one nominal value, "
        "so two annotators agree only when they chose exactly the same set. The *Multi-label* tab "
        "has measures that give partial credit."
    )

try:
    values = opts.values(level)
except DataError as error:
    show_data_error(error)
    st.stop()
if level == "ordinal":
    st.caption("Ordinal order: " + " < ".join(md(x) for x in sorted(
        dataset.labels, key=lambda x: values[x])))


@st.cache_data(show_spinner="Computing α and its bootstrap CI…", max_entries=16)
def compute_alpha(_dataset: Dataset, dataset_hash: str, level: str, n_boot: int, seed: int,
                  values: dict | None, multilabel: str) -> agreement.AlphaResult:
    del dataset_hash
    return agreement.alpha_report(_dataset.annotations, level=level, n_boot=n_boot, seed=seed,
                                  values=values, multilabel=multilabel)


@st.cache_data(show_spinner="Computing α for every annotator pair…", max_entries=16)
def compute_pairs(_dataset: Dataset, dataset_hash: str, level: str, min_shared: int,
                  values: dict | None, multilabel: str) -> pd.DataFrame:
    del dataset_hash
    return agreement.pairwise_alpha(_dataset.annotations, level=level, min_shared=min_shared,
                                    values=values, multilabel=multilabel)


@st.cache_data(show_spinner=False, max_entries=8)
def compute_kappas(_dataset: Dataset, dataset_hash: str) -> dict:
    del dataset_hash
    return kappa_summary(_dataset.annotations)


try:
    report = compute_alpha(dataset, dataset.content_hash, level, n_boot, seed, values,
                           multilabel_mode)
except DataError as err:
    show_data_error(err)
    st.stop()
except ValueError as err:
    st.error(f"Cannot compute α at this level: {md(str(err))}")
    st.stop()

tab_names = ["Overall α", "Pairs", "Simulator"]
if is_multilabel:
    tab_names.insert(2, "Multi-label")
tabs = lazy_tabs(tab_names, key="agreement.tab")



def overall_tab() -> None:
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(f"Krippendorff's α ({level})", fmt_num(report.alpha, "undefined"))
    ci = (f"[{report.ci_low:.3f}, {report.ci_high:.3f}]" if np.isfinite(report.ci_low)
          else "—")
    m2.metric("95% bootstrap CI (items)", ci)
    m3.metric("Pairable items", f"{report.n_pairable_items:,} / {report.n_items:,}")
    m4.metric("Annotators", f"{report.n_annotators:,}")
    if np.isfinite(report.alpha) and report.alpha > 0:
        st.info(report.explanation)
    else:
        st.warning(report.explanation)
    if not is_multilabel:
        kap = compute_kappas(dataset, dataset.content_hash)
        k1, k2 = st.columns(2)
        k1.metric("Fleiss' κ", fmt_num(kap["fleiss"], "undefined"),
                  help="Per-item agreement averaged over items, chance from pooled label shares.")
        if "cohen" in kap:
            k2.metric("Cohen's κ", fmt_num(kap["cohen"], "undefined"))
        elif "light" in kap:
            k2.metric("Light's κ (mean pairwise Cohen's κ)", fmt_num(kap["light"], "undefined"))
    if len(report.replicates) and np.isfinite(report.replicates).any():
        fig = px.histogram(pd.DataFrame({"alpha": report.replicates}), x="alpha", nbins=40,
                           title=f"Bootstrap distribution of α ({report.n_boot} replicates, "
                                 f"seed {seed})")
        fig.add_vline(x=report.alpha, line_dash="dash")
        st.plotly_chart(fig, width="stretch", key="agreement.boot_hist")
    st.markdown("**Share of each value among pairable values**")
    show_table(pd.DataFrame({"value": list(report.value_shares),
                               "share": list(report.value_shares.values())}), hide_index=True)
    summary = pd.DataFrame([{**{k: v for k, v in report.as_dict().items()
                                if k != "value_shares"}, "dataset": dataset.name}])
    download_table(summary, "alpha_summary.csv", key="agreement.dl_summary")


def pairs_tab() -> None:
    min_shared = int(st.number_input(
        "Minimum shared items per pair", 1, 1000, 2, 1, key="agreement.min_shared",
        help="Pairs sharing fewer items get no α (one shared item can never give a positive α).",
    ))
    pairs = compute_pairs(dataset, dataset.content_hash, level, min_shared, values,
                          multilabel_mode)
    defined = pairs.dropna(subset=["alpha"])
    st.caption(
        f"{len(pairs):,} pairs share at least one item; {len(defined):,} have a defined α; "
        f"{pairs.attrs.get('n_pairs_below_min_shared', 0):,} share fewer than {min_shared} items; "
        f"{pairs.attrs.get('n_pairs_undefined', 0):,} are undefined (all shared values identical)."
    )
    if defined.empty:
        st.warning("No annotator pair has a defined α: too few shared items or no variation. "
                   "Lower the minimum of shared items or pick another dataset.")
        return
    n_annotators = dataset.annotations["annotator_id"].nunique()
    with_alpha = pd.unique(defined[["annotator_a", "annotator_b"]].to_numpy().ravel())
    shown = most_active(dataset.annotations, HEATMAP_MAX, among=with_alpha)
    if n_annotators > HEATMAP_MAX:
        st.caption(f"Heatmap: the {len(shown)} most active annotators of {n_annotators:,}.")
    pm = pairwise_matrix(defined, shown, value="alpha", order="cluster")
    heat, from_label = pair_heatmap(
        pm, report.alpha, clickable=True,
        title="Pairwise α (annotators ordered by hierarchical clustering)")
    event = st.plotly_chart(heat, width="stretch", key="agreement.heatmap",
                            on_select="rerun", selection_mode="points")
    centre = report.alpha if np.isfinite(report.alpha) else 0.0
    st.caption(
        f"White = the overall α ({centre:.3f}); blue = the pair agrees more than the pool, "
        "red = less; grey = no defined α (diagonal, too few shared items or no variation). "
        "Click a cell to list that pair's disagreements below."
    )
    h1, h2 = st.columns(2)
    with h1:
        st.download_button(
            "Heatmap HTML",
            # built only when clicked (plotly.js inline, ~5 MB): opens offline
            lambda heat=heat: heat.to_html(include_plotlyjs=True).encode("utf-8"),
            file_name="pairwise_alpha_heatmap.html", mime="text/html",
            key="agreement.dl_heatmap", on_click="ignore", icon=":material/download:",
            help="Interactive, self-contained plot (plotly.js included; works offline).",
        )
    with h2:
        download_table(pairs.assign(level=level, min_shared=min_shared), "pairwise_alpha.csv",
                       key="agreement.dl_pairs", label="Pairwise α CSV")

    st.subheader("Per-annotator mean agreement")
    st.caption("Mean of an annotator's defined pairwise α. Low values flag annotators who "
               "differ from most others (outliers or a minority perspective).")
    means = agreement.annotator_mean_agreement(pairs)
    bar = px.bar(means.head(HEATMAP_MAX).assign(
                     annotator_id=lambda f: f["annotator_id"].map(lambda a: html.escape(str(a)))),
                 x="annotator_id", y="mean_alpha",
                 hover_data=["n_pairs_defined", "n_shared_total"],
                 labels={"annotator_id": "annotator", "mean_alpha": "mean pairwise α"})
    bar.update_layout(height=380, margin={"t": 30})
    if np.isfinite(report.alpha):
        bar.add_hline(y=report.alpha, line_dash="dash", annotation_text="overall α",
                      annotation_position="top left")
    st.plotly_chart(bar, width="stretch", key="agreement.mean_bar")
    show_table(means, hide_index=True)
    download_table(means.assign(level=level, min_shared=min_shared),
                   "annotator_mean_alpha.csv", key="agreement.dl_means")

    st.subheader("Where a pair disagreed")
    st.caption("Click a heatmap cell or pick two annotators.")
    points = getattr(getattr(event, "selection", None), "points", None) or []
    clicked = None
    if points:
        y, x = str(points[0].get("y")), str(points[0].get("x"))
        clicked = (from_label.get(y, y), from_label.get(x, x))
    worst = defined.sort_values("alpha").iloc[0]
    default_pair = clicked if clicked and clicked[0] != clicked[1] else (
        worst["annotator_a"], worst["annotator_b"])
    annotators = sorted(map(str, dataset.annotations["annotator_id"].unique()))
    p1, p2 = st.columns(2)
    a_sel = p1.selectbox("Annotator A", annotators, index=annotators.index(default_pair[0]),
                         key=f"agreement.pair_a.{default_pair[0]}")
    b_sel = p2.selectbox("Annotator B", annotators, index=annotators.index(default_pair[1]),
                         key=f"agreement.pair_b.{default_pair[1]}")
    row = pairs[((pairs["annotator_a"] == min(a_sel, b_sel))
                 & (pairs["annotator_b"] == max(a_sel, b_sel)))]
    if a_sel == b_sel:
        st.info("Pick two different annotators.")
        return
    if row.empty:
        st.info(f"{md(a_sel)} and {md(b_sel)} share no item.")
        return
    r = row.iloc[0]
    diff = agreement.pair_disagreements(dataset.annotations, a_sel, b_sel)
    st.markdown(f"**{md(a_sel)}** and **{md(b_sel)}** share {int(r['n_shared'])} items; "
                f"α = {fmt_num(r['alpha'], 'undefined')}; they disagree on {len(diff)} items.")
    if "text" in dataset.items.columns and len(diff):
        diff = diff.assign(text=diff["item_id"].map(dataset.items.set_index("item_id")["text"]))
    show_table(diff.head(500), hide_index=True,
                 column_config={"text": st.column_config.TextColumn(width="large")})
    download_table(diff, f"disagreements_{a_sel}_{b_sel}.csv", key="agreement.dl_diff")


def multilabel_tab() -> None:
    st.markdown(
        "Measures of Marchal et al. (2022) for label **sets**: *soft-match* (the sets "
        "intersect), *augmented* (Rosenberg & Binkowski: each coder spreads weight 1 over its "
        "labels), *precision/recall/F1* of the intersection. **Expected** agreement of the "
        "*boot-* measures comes from simulating each coder's label shares and set sizes "
        f"({n_boot} replicates, seed {seed}); **adjusted** = (observed − expected) / "
        "(1 − expected). Soft-match κ ignores that more labels make chance matches likelier."
    )
    view = st.radio("Show", ["Averaged over coder pairs", "Per coder pair"],
                    horizontal=True, key="agreement.ml_view")
    ml_boot = max(n_boot, 1)
    n_ann = dataset.annotations["annotator_id"].nunique()
    if n_ann > 40:
        st.warning(f"{n_ann} coders → {n_ann * (n_ann - 1) // 2:,} pairs; this may take a while.")
    bar_slot = st.empty()

    def _progress(done: int, total: int) -> None:
        bar_slot.progress(done / total, text=f"Bootstrapping coder pair {done} of {total}")

    # memo in session state (not st.cache_data: the progress bar lives outside the function)
    memo = st.session_state.setdefault(ML_MEMO_KEY, {})
    memo_key = (dataset.content_hash, ml_boot, seed)
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
                       "orientations of each pair, so they coincide.")
    else:
        shown_tab = per_pair
        st.caption("Coder 1 is the reference for precision and recall.")
    show_table(shown_tab.round(4), hide_index=True)
    download_table(shown_tab.assign(seed=seed, n_boot=ml_boot), "multilabel_agreement.csv",
                   key="agreement.dl_ml")
    long = averaged.melt(id_vars=["measure"], value_vars=["observed", "expected", "adjusted"])
    fig = px.bar(long, x="measure", y="value", color="variable", barmode="group",
                 title="Observed, expected and adjusted agreement")
    st.plotly_chart(fig, width="stretch", key="agreement.ml_bar")


TAB_BODIES = {"Overall α": overall_tab, "Pairs": pairs_tab, "Multi-label": multilabel_tab,
              "Simulator": multilabel_simulator}
for name, tab in tabs.items():  # only the open tab runs
    if tab.open:
        with tab:
            TAB_BODIES[name]()
