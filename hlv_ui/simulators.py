"""Data-independent explainers and simulators shown as page tabs: the Figure 1 explainer and the
Table 2 simulator of Kurniawan et al. (Soft vs hard metrics page) and the multi-label agreement
simulator of Marchal et al. (2022, section 5; Agreement page). Widgets and figures only: every
number comes from ``hlv_core.simulate`` or ``hlv_core.agreement``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from hlv_core import agreement
from hlv_core.simulate import METRIC_NAMES, PAPER_TABLE2, figure1_curves, figure1_point, simulate
from hlv_ui.widgets import SETTING, show_table

from .cache import cached
from .widgets import download_table

__all__ = ["figure1_explainer", "multilabel_simulator", "table2_simulator"]

KEY = "soft_metrics"
#: The Figure 1 curve of PO-JSD, named as everywhere else in the app (the paper's name beside).
JS_NAME = "JS similarity (PO-JSD)"


def figure1_explainer(key: str = KEY) -> None:
    """Kurniawan et al., Figure 1: soft accuracy vs PO-JSD on one binary item."""
    st.markdown("**Take-away:** a clearly wrong prediction still gets a JS similarity close to "
                "1, while soft accuracy drops as far as the prediction is off: JS similarity "
                "reads on a squeezed scale.")
    c1, c2 = st.columns(2)
    p = c1.slider("How people split: share who chose the positive label", 0.0, 1.0, 0.5, 0.01,
                  key=f"{key}.fig1_p", **SETTING,
                  help="The paper's p (the human judgement distribution).")
    q = c2.slider("What the model predicts: its probability of the positive label", 0.0, 1.0,
                  0.2, 0.01, key=f"{key}.fig1_q", **SETTING,
                  help="The paper's q (the model's output).")
    with st.expander("The paper's notation (Kurniawan et al., Figure 1 and Theorem 1)"):
        st.markdown(
            "One binary item. The humans split **p** : 1 − p on the positive class; the model "
            "predicts **q**. Soft accuracy = min(p, q) + min(1 − p, 1 − q); PO-JSD = 1 − JSD "
            "(bits). PO-JSD stays close to 1 even for clearly wrong predictions, so its scale "
            "is compressed (Theorem 1: soft accuracy ≤ PO-JSD). The paper's Figure 1 example: "
            "p = 0.5, q = 0.2 gives soft accuracy 0.7 and PO-JSD above 0.9; the live values "
            "for your p and q are below, with the paper's beside them at that point.")
    curves = figure1_curves(p)
    one = figure1_point(p, q)
    fig = go.Figure()
    fig.add_scatter(x=curves["q"], y=curves["soft_overlap"], name="Soft accuracy")
    fig.add_scatter(x=curves["q"], y=curves["po_jsd"], name=JS_NAME)
    fig.add_scatter(x=[q, q], y=[one["soft_accuracy"], one["po_jsd"]],
                    mode="markers", marker={"size": 12}, name="your q")
    fig.update_layout(xaxis_title="model's probability q of the positive class",
                      yaxis_title="score (0 to 1)", yaxis_range=[0, 1.02],
                      title=f"Figure 1 (p = {p:.2f})")
    st.plotly_chart(fig, width="stretch", key=f"{key}.fig1")
    cols = st.columns(3)
    at_paper = abs(p - 0.5) < 1e-9 and abs(q - 0.2) < 1e-9
    cols[0].metric("Soft accuracy", f"{one['soft_accuracy']:.4f}",
                   help="paper (Figure 1, p = 0.5, q = 0.2): 0.7")
    cols[1].metric(JS_NAME, f"{one['po_jsd']:.4f}",
                   help="paper (Figure 1, p = 0.5, q = 0.2): > 0.9")
    if at_paper:
        st.caption(f"At the paper's Figure 1 point: soft accuracy "
                   f"{one['soft_accuracy']:.3f} (paper 0.7), PO-JSD "
                   f"{one['po_jsd']:.3f} (paper > 0.9).")
    cols[2].metric("Hard accuracy", f"{one['hard_accuracy']:.0f}",
                   help="argmax ties go to the first label: p = 0.5 counts as the positive class "
                        "here because it is listed first")


def table2_simulator(key: str = KEY) -> None:
    """Kurniawan et al., Table 2: correlations of A, J, E, S over random (P, Q) pairs."""
    st.markdown("**Take-away:** over many random predictions, JS similarity and soft accuracy "
                "rise and fall together (correlation above 0.9 in the paper), so they rank "
                "models alike; soft accuracy is the easier one to read.")
    c = st.columns(3) + st.columns(3)  # two rows: the names stay on one line at 1200 px
    K = int(c[0].number_input("Number of labels", 2, 200, 10, key=f"{key}.sim_K",
                              **SETTING,
                              help="The paper's K."))
    alpha = float(c[1].number_input(
        "Evenness of people's answers", 0.01, 100.0, 10.0, key=f"{key}.sim_alpha",
        **SETTING,
        help="The paper's α (Dirichlet concentration): higher = answers spread more evenly."))
    beta = float(c[2].number_input(
        "Evenness of model outputs", 0.01, 100.0, 10.0, key=f"{key}.sim_beta", **SETTING,
        help="The paper's β (Dirichlet concentration): higher = outputs spread more evenly."))
    B = int(c[3].number_input("Simulated models", 10, 2000, 500, step=50, key=f"{key}.sim_B",
                              **SETTING,
                              help="The paper's B: random (human, model) pairs compared."))
    rows = int(c[4].number_input("Items per model", 10, 5000, 1000, step=100,
                                 key=f"{key}.sim_rows", **SETTING,
                                 help="Rows of each P and Q."))
    seed = int(c[5].number_input("Random seed", 0, 2**31 - 1, 0, key=f"{key}.sim_seed",
                                 **SETTING))
    with st.expander("The paper's notation (Kurniawan et al., Table 2)"):
        st.markdown(
            "B random pairs (P, Q) of `rows × K` matrices, rows of P ~ Dirichlet(α), rows of Q "
            "~ Dirichlet(β). Per pair: **A** hard accuracy, **J** PO-JSD, **E** entropy "
            "correlation, **S** soft accuracy; then their correlation across pairs. The paper "
            "finds J and S strongly correlated (r > 0.9 in every setting of its Table 2) and "
            "reads this as empirical assurance that soft accuracy is sensible; it also proves "
            "soft accuracy ≤ PO-JSD, so PO-JSD can score wrong predictions close to its "
            "maximum (misleadingly high), and recommends reporting both, focusing on soft "
            "accuracy when interpretability matters.")
    params = (K, alpha, beta, B, rows, seed)
    if st.button("Run simulation", key=f"{key}.sim_run", icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Sampling and scoring pairs…")
        res = simulate(K, alpha, beta, B, rows, seed=seed,
                       progress=lambda f: bar.progress(min(f, 1.0), text=f"{f:.0%} of pairs"))
        bar.empty()
        st.session_state[f"{key}.sim_result"] = (params, res)
    stored = st.session_state.get(f"{key}.sim_result")
    if stored is None:
        st.info("Set the parameters and press **Run simulation** (the default takes about a "
                "second).")
        return
    stored_params, res = stored
    if stored_params != params:
        st.caption("Showing the last run; press Run for the new parameters.")
    st.caption(f"K={res.K}, α={res.alpha:g}, β={res.beta:g}, B={res.B}, rows={res.rows}, "
               f"seed {res.seed}")
    names = [f"{k} ({v})" for k, v in METRIC_NAMES.items()]
    heat = px.imshow(res.corr.to_numpy(), x=names, y=names, zmin=-1, zmax=1, text_auto=".2f",
                     color_continuous_scale="RdBu", title="Correlation across pairs")
    st.plotly_chart(heat, width="stretch", key=f"{key}.sim_heat")
    pairs = pd.DataFrame([res.pairs()])
    paper = PAPER_TABLE2.get((res.K, res.alpha, res.beta))
    if paper is not None:
        pairs.loc[1] = paper
        pairs.index = ["this run", "paper"]
    else:
        pairs.index = ["this run"]
    js = float(pairs.loc["this run", "J-S"])
    claim = (f"paper, these parameters: {paper[4]:.2f}" if paper is not None
             else "paper: > 0.9 in every setting of Table 2")
    st.metric("J-S correlation, this run", f"{js:.3f}", help=claim)
    st.caption(f"J-S correlation: this run **{js:.3f}**; {claim} "
               f"({'above' if js > 0.9 else 'not above'} 0.9 here).")
    show_table(pairs, width="stretch")
    st.plotly_chart(px.scatter_matrix(res.values, dimensions=list("AJES"),
                                      title="Per-pair metric values"),
                    width="stretch", key=f"{key}.sim_scatter")
    download_table(res.values.assign(K=res.K, alpha=res.alpha, beta=res.beta, seed=res.seed),
                   "table2_simulation.csv", key=f"{key}.dl.sim",
                   label="Download the simulated pairs' scores (CSV)")


@cached(show_spinner="Simulating…", max_entries=8)
def compute_sim(n_cat: int, n_items: int, skew: float, n_datasets: int, n_boot: int,
                seed: int) -> pd.DataFrame:
    return agreement.simulation_curves(n_categories=n_cat, n_items=n_items, label_skew=skew,
                                       n_datasets=n_datasets, n_boot=n_boot, seed=seed)


def multilabel_simulator() -> None:
    """Marchal et al. (2022), section 5: simulated two-coder multi-label data."""
    st.markdown(
        "Simulated two-coder multi-label data (Marchal et al. 2022, section 5): how the share of "
        "double labels, the intersection agreement, the number of categories and the label "
        "entropy move observed, expected and adjusted agreement. The table under the plot sets "
        "the paper's published values beside this run's (5 or 10 categories, equal label "
        "probabilities). Soft-match expected agreement uses the paper's reduction to the "
        "intersecting label."
    )
    s1, s2, s3 = st.columns(3)
    n_cat = int(s1.number_input("Categories", 4, 20, 5, 1, key="agreement.sim_k",
                                **SETTING))
    n_items = int(s2.number_input("Items per data set", 20, 1000, 100, 10, key="agreement.sim_n",
                                  **SETTING))
    skew = float(s3.slider("Label skew (0 = equal probabilities, higher = lower entropy)",
                           0.0, 3.0, 0.0, 0.25, key="agreement.sim_skew", **SETTING))
    s4, s5, s6 = st.columns(3)
    n_datasets = int(s4.number_input("Data sets per setting", 1, 100, 10, 1,
                                     key="agreement.sim_sets", **SETTING))
    sim_boot = int(s5.number_input("Bootstrap replicates", 10, 1000, 100, 10,
                                   key="agreement.sim_boot", **SETTING))
    sim_seed = int(s6.number_input("Simulation seed", 0, 2**31 - 1, 0, 1,
                                   key="agreement.sim_seed", **SETTING))
    curves = compute_sim(n_cat, n_items, skew, n_datasets, sim_boot, sim_seed)
    st.caption(f"Label entropy: {curves['entropy'].iloc[0]:.2f} bits "
               f"(max {np.log2(n_cat):.2f}).")
    measures = st.multiselect(
        "Measures", list(agreement.MULTILABEL_MEASURES),
        default=["soft_match_kappa", "augmented_kappa", "boot_match", "boot_f1"],
        key="agreement.sim_measures", **SETTING,
    )
    if measures:
        long = curves[curves["measure"].isin(measures)].melt(
            id_vars=["agreement", "double_share", "measure"],
            value_vars=["observed", "expected", "adjusted"], var_name="statistic")
        long["agreement"] = ((long["agreement"] * 100).round().astype(int).astype(str)
                             + "% intersection")
        fig = px.line(long, x="double_share", y="value", color="statistic", facet_row="measure",
                      facet_col="agreement", markers=True,
                      category_orders={"measure": measures},
                      labels={"double_share": "share of double labels"},
                      height=220 * len(measures) + 80)
        fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
        st.plotly_chart(fig, width="stretch", key="agreement.sim_plot")
    else:
        st.info("Pick at least one measure.")
    versus = agreement.simulation_vs_paper(curves)
    if versus.empty:
        st.caption("The paper publishes simulation values for 5 and 10 categories with equal "
                   "label probabilities only (skew 0); nothing to compare for these settings.")
    else:
        st.markdown("**Paper (section 5) vs this run**")
        show_table(versus, width="stretch", hide_index=True,
                     column_config={"paper": st.column_config.NumberColumn(format="%.2f"),
                                    "this_run": st.column_config.NumberColumn(format="%.3f")})
    download_table(curves.assign(seed=sim_seed, n_boot=sim_boot, n_datasets=n_datasets),
                   "multilabel_simulation.csv", key="agreement.dl_sim",
                   label="Download the multi-label simulation (CSV)")
