"""Agreement: Krippendorff's alpha (overall with CI, all pairs), kappas, and for multi-label data
the measures of Marchal et al. (2022) with bootstrapped chance agreement, plus their simulator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st

from hlv_core import agreement
from hlv_core.agreement import kappa_summary
from hlv_core.figures import pair_heatmap
from hlv_core.io import DataError, Dataset
from hlv_core.levels import level_options
from hlv_core.pair_matrix import check_pairs, most_active, pairwise_matrix
from hlv_core.text import md
from hlv_ui.cache import cached
from hlv_ui.cluster_ui import cluster_agreement
from hlv_ui.explain import explain, explain_inline
from hlv_ui.simulators import multilabel_simulator
from hlv_ui.state import require_dataset, show_data_error
from hlv_ui.widgets import (
    SETTING,
    download_table,
    fmt_num,
    forget_for_other_data,
    lazy_tabs,
    show_table,
)
from pages.agreement.views import mean_agreement_section, multilabel_section, pair_section

HEATMAP_MAX = 60  # annotators drawn in the heatmap (most active first)

st.title("Agreement")
st.caption(
    "How much do annotators agree beyond chance? **Krippendorff's α** (any number of annotators, "
    "missing labels, nominal/ordinal/interval/ratio data), its per-pair version, Cohen's and "
    "Fleiss' κ, and for multi-label data the measures of Marchal et al. (2022) with chance "
    "agreement estimated by bootstrap. Low agreement is not automatically noise: in "
    "human-label-variation data it can reflect genuine differences of perspective."
)

explain("alpha", "kappa", "level")
cluster_agreement()  # a large dataset on a Dask cluster: alpha and kappas there, then stop
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
forget_for_other_data("agreement.level", dataset.content_hash, opts.default)
level = c1.selectbox(
    "Level of measurement", levels, index=levels.index(opts.default), key="agreement.level",
    **SETTING,
    help=explain_inline("level") + " Always chosen explicitly.",
)
n_boot = int(c2.number_input("Bootstrap replicates", 0, 5000, 1000, 100, key="agreement.n_boot",
                             **SETTING))
seed = int(c3.number_input("Seed", 0, 2**31 - 1, 0, 1, key="agreement.seed", **SETTING))
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


@cached(show_spinner="Computing α and its bootstrap CI…", max_entries=16)
def compute_alpha(dataset: Dataset, level: str, n_boot: int, seed: int,
                  values: dict | None, multilabel: str) -> agreement.AlphaResult:
    return agreement.alpha_report(dataset.annotations, level=level, n_boot=n_boot, seed=seed,
                                  values=values, multilabel=multilabel)


@cached(show_spinner="Computing α for every annotator pair…", max_entries=16)
def compute_pairs(dataset: Dataset, level: str, min_shared: int,
                  values: dict | None, multilabel: str) -> pd.DataFrame:
    return agreement.pairwise_alpha(dataset.annotations, level=level, min_shared=min_shared,
                                    values=values, multilabel=multilabel)


@cached(show_spinner=False, max_entries=8)
def compute_kappas(dataset: Dataset) -> dict:
    return kappa_summary(dataset.annotations)


try:
    report = compute_alpha(dataset, level, n_boot, seed, values,
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
    m1, m2, m3, m4 = st.columns([1, 1.4, 1, 1])  # the CI needs the room
    m1.metric(f"Krippendorff's α ({level})", fmt_num(report.alpha, "undefined"))
    ci = (f"[{report.ci_low:.3f}, {report.ci_high:.3f}]" if np.isfinite(report.ci_low)
          else "—")
    m2.metric("95% bootstrap CI (items)", ci)
    m3.metric("Pairable items", f"{report.n_pairable_items:,}", delta=f"of {report.n_items:,}",
              delta_color="off", delta_arrow="off")
    m4.metric("Annotators", f"{report.n_annotators:,}")
    if np.isfinite(report.alpha) and report.alpha > 0:
        st.info(report.explanation)
    else:
        st.warning(report.explanation)
    if not is_multilabel:
        kap = compute_kappas(dataset)
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
    shares = pd.DataFrame({"value": list(report.value_shares),
                           "share": list(report.value_shares.values())})
    show_table(shares, hide_index=True)
    download_table(shares.assign(level=level, dataset=dataset.name), "alpha_value_shares.csv",
                   key="agreement.dl_shares", label="Download the value shares (CSV)")
    summary = pd.DataFrame([{**{k: v for k, v in report.as_dict().items()
                                if k != "value_shares"}, "dataset": dataset.name}])
    download_table(summary, "alpha_summary.csv", key="agreement.dl_summary",
                   label="Download the α summary (CSV)")


def pairs_tab() -> None:
    min_shared = int(st.number_input(
        "Minimum shared items per pair", 1, 1000, 2, 1, key="agreement.min_shared",
        **SETTING,
        help="Pairs sharing fewer items get no α (one shared item can never give a positive α).",
    ))
    try:  # estimated before any pair is built (HLV_MAX_PAIRS)
        check_pairs(dataset.annotations, source=dataset.name)
    except DataError as error:
        show_data_error(error)
        return
    pairs = compute_pairs(dataset, level, min_shared, values,
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
    explain("pairwise_alpha")
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
            "Download the heatmap (interactive HTML)",
            # built only when clicked (plotly.js inline, ~5 MB): opens offline
            lambda heat=heat: heat.to_html(include_plotlyjs=True).encode("utf-8"),
            file_name="pairwise_alpha_heatmap.html", mime="text/html",
            key="agreement.dl_heatmap", on_click="ignore", icon=":material/download:",
            help="Interactive, self-contained plot (plotly.js included; works offline).",
        )
    with h2:
        download_table(pairs.assign(level=level, min_shared=min_shared), "pairwise_alpha.csv",
                       key="agreement.dl_pairs", label="Download pairwise α (CSV)")
    mean_agreement_section(pairs, report.alpha, level, min_shared)
    points = getattr(getattr(event, "selection", None), "points", None) or []
    clicked = None
    if points:
        y, x = str(points[0].get("y")), str(points[0].get("x"))
        clicked = (from_label.get(y, y), from_label.get(x, x))
    worst = defined.sort_values("alpha").iloc[0]
    pair_section(dataset, pairs, clicked if clicked and clicked[0] != clicked[1] else (
        worst["annotator_a"], worst["annotator_b"]))


TAB_BODIES = {"Overall α": overall_tab, "Pairs": pairs_tab, "Multi-label": lambda: multilabel_section(dataset, n_boot, seed),
              "Simulator": multilabel_simulator}
for name, tab in tabs.items():  # only the open tab runs
    if tab.open:
        with tab:
            TAB_BODIES[name]()
