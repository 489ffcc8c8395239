"""Sections of the Annotator graph page (Basile's systematicity sigma): the sigma-vs-sigma_rnd
histogram, the camps against a trait, the dataset comparison (Basile, Figure 2) and the
downloads. Layout only: the numbers come from ``hlv_core.balance``; user strings are escaped
(``html.escape`` for plotly, ``md`` for markdown)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hlv_core import balance
from hlv_core.figures import comparison_figure
from hlv_core.io import Dataset
from hlv_ui.cache import cached
from hlv_ui.widgets import SETTING, download_table, show_table

__all__ = ["PROCEDURE_LABELS", "camps_section", "check_size", "compare_section",
           "downloads_section", "graph_controls", "sigma_histogram"]


@cached(show_spinner=False, max_entries=8)
def _sigma_cost(dataset: Dataset) -> balance.SigmaCost:
    return balance.estimate_sigma_cost(dataset.annotations)


def check_size(dataset: Dataset) -> None:
    """Refuse before any pairwise work past ``balance.SIGMA_MAX_PAIR_INSTANCES`` (read at each
    run): a ``DataError`` stating the estimate (pair instances, working memory)."""
    balance.check_sigma_cost(_sigma_cost(dataset), balance.SIGMA_MAX_PAIR_INSTANCES,
                             source=str(dataset.name))


PROCEDURE_LABELS = {
    "composed": "composed: 10 split-and-shuffle steps per A_rnd (paper)",
    "one_step": "one step per A_rnd (deviation)",
}


def graph_controls(levels: list[str], default_level: str) -> tuple[str, int, str, int, int]:
    """The page's controls, defaults = the paper's conventions (Basile, Table 2: nominal alpha,
    min_shared 1, composed sigma_rnd): ``(level, min_shared, procedure, n_repeats, seed)``."""
    c1, c2, c3, c4, c5 = st.columns(5)
    level = c1.selectbox(
        "Level of measurement", levels, index=levels.index(default_level), key="graph.level",
        **SETTING,
        help="Used for the overall α and every pairwise α (the same level for both). Basile's "
        "Table 2 uses nominal α for every dataset (the default here); ordinal or interval numbers "
        "are not comparable with the paper's.",
    )
    min_shared = int(c2.number_input(
        "min shared items", min_value=1, max_value=100, value=balance.PAPER_MIN_SHARED, step=1,
        key="graph.min_shared", **SETTING,
        help="Pairs sharing fewer items get no edge. 1 is the paper's convention (default); 2 is a "
        "robust deviation (one shared item can never give a positive α, so such edges are almost "
        "always −).",
    ))
    procedure = c3.selectbox(
        "σ_rnd procedure", list(balance.PROCEDURES), key="graph.procedure", **SETTING,
        format_func=PROCEDURE_LABELS.get,
        help="The paper's 'the entire procedure is repeated ten times, producing A_rnd': each "
        "random matrix composes 10 split-and-shuffle steps (reproduces Table 2). 'One step' is the "
        "other reading of the text; it leaves camp structure in place and gives higher σ_rnd.",
    )
    n_repeats = int(c4.number_input(
        "σ_rnd matrices", min_value=1, max_value=200, value=10, step=1, key="graph.repeats",
        **SETTING,
        help="Number of random matrices A_rnd averaged (10 in the paper).",
    ))
    seed = int(c5.number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1,
                               key="graph.seed", **SETTING))
    return level, min_shared, procedure, n_repeats, seed


def sigma_histogram(rnd: balance.RandomSigmaResult, sigma: float) -> go.Figure:
    """Histogram of the sigma_rnd replicates with sigma as a line; whole-number count ticks."""
    values = rnd.values[np.isfinite(rnd.values)]
    counts, _ = np.histogram(values, bins=np.arange(0, 1.0501, 0.05))
    fig = go.Figure(go.Histogram(x=values.tolist(), name="σ_rnd replicates",
                                 xbins={"start": 0, "end": 1.0001, "size": 0.05}))
    if not math.isnan(sigma):
        fig.add_vline(x=sigma, line_color="#d62728", line_width=3,
                      annotation_text=f"σ = {sigma:.3f}")
    top = int(counts.max()) if counts.size else 1
    fig.update_layout(
        xaxis_title="σ (share of balanced triangles)", yaxis_title="random matrices (count)",
        height=300, xaxis_range=[0, 1.02], margin={"t": 30, "b": 40}, showlegend=False,
        yaxis={"tickformat": ",d", "rangemode": "tozero",
               **({"dtick": 1} if top <= 10 else {})},
    )
    return fig


def camps_section(dataset: Dataset, partition: balance.CampsResult) -> None:
    """How the camps were found, their sizes, and camps against one annotator trait."""
    sizes = partition.camps.value_counts().sort_index()
    exact = "exact: the graph is balanced" if partition.balanced else "approximate"
    st.write(
        f"Method **{partition.method}** ({exact}); frustration **{partition.frustration:,}** of "
        f"{partition.n_edges:,} edges (+ across camps or − within); "
        f"{partition.n_components} connected component(s); "
        + ", ".join(f"{'no edge' if k < 0 else f'camp {k}'}: {v}" for k, v in sizes.items())
    )
    traits = [c for c in dataset.annotators.columns if c != "annotator_id"]
    if not traits:
        st.caption("This dataset has no annotator traits to compare the camps with.")
        return
    trait = st.selectbox("Compare camps with the trait", traits, key="graph.trait",
                         **SETTING)
    table, v = balance.camp_trait_table(partition, dataset.annotators, trait)
    if table.empty:
        st.info("No annotator with a camp and a value of this trait.")
        return
    show_table(table, width="stretch")
    st.caption("Cramér's V = " + ("n/a" if math.isnan(v) else f"{v:.2f}")
               + " (1: the camps are exactly the trait groups; 0: unrelated).")


def compare_section(compare: Callable[[], pd.DataFrame], seed: int) -> None:
    """The "Compare datasets: alpha vs sigma" expander; ``compare`` computes the table."""
    with st.expander("Compare datasets: α vs σ (Basile, Figure 2)",
                     expanded=bool(st.session_state.get("graph.compare", False))):
        st.caption(
            "Each dataset is a point at its overall α (x) and σ (y); the hollow marker below or "
            "above it is σ_rnd. A large gap σ − σ_rnd means systematic disagreement (camps); "
            "datasets whose σ sits on its σ_rnd show no annotator structure. Uses the bundled "
            "samples with annotator ids plus the current dataset, computed under **the paper's "
            "conventions** (nominal α, min shared 1, undefined pairwise α = no edge, composed "
            "σ_rnd) whatever the controls above say, so the points are comparable with Table 2; "
            "σ_rnd matrices and seed as chosen above."
        )
        paper = balance.conventions_note("nominal", balance.PAPER_MIN_SHARED, "composed")
        if st.toggle("Compute the comparison", key="graph.compare", **SETTING):
            table = compare()
            show_paper = st.checkbox("Show the paper's datasets (Table 2) as grey reference "
                                     "points", value=True, key="graph.compare_paper",
                                     **SETTING)
            # dataset names may come from an upload: escaped (plotly renders a few HTML tags)
            safe = table.assign(dataset=table["dataset"].map(lambda x: html.escape(str(x))))
            st.plotly_chart(comparison_figure(safe, paper=show_paper,
                                              conventions=f"all points: {paper}"),
                            width="stretch", key="graph.compare_plot")
            shown_cols = ["dataset", "n_items", "n_annotators", "alpha", "sigma", "sigma_rnd",
                          "sigma_rnd_sd", "n_triangles", "note", "error"]
            show_table(table[shown_cols], width="stretch", hide_index=True)
            download_table(table.assign(seed=seed), "sigma_comparison.csv",
                           key="graph.dl_compare", label="Comparison CSV")
        st.caption(
            "The real datasets of the paper are not bundled with the app. Compare dataset "
            "folders from the command line: `python -m hlv_core sigma DIR1 DIR2 ... --plot "
            "sigma.html --paper` (one folder or annotations file per dataset; the HTML works "
            "offline)."
        )


def downloads_section(result: balance.SigmaResult, partition: balance.CampsResult,
                      meta: dict, seed: int) -> None:
    """Edges, camps, all pairs (CSV), the graph (GraphML) and the summary (JSON)."""
    st.subheader("Downloads")
    camps_table = partition.table.merge(result.nodes, on="annotator_id")
    d1, d2, d3, d4, d5 = st.columns(5)
    with d1:
        download_table(result.edges.assign(seed=seed), "graph_edges.csv", key="graph.dl_edges",
                       label="Edges CSV")
    with d2:
        download_table(camps_table, "graph_camps.csv", key="graph.dl_camps", label="Camps CSV")
    with d3:
        download_table(result.pairs, "graph_pairs.csv", key="graph.dl_pairs",
                       label="All pairs CSV")
    with d4:
        st.download_button("GraphML", data=lambda: balance.graphml_bytes(result, partition),
                           file_name="annotator_graph.graphml", mime="application/xml",
                           key="graph.dl_graphml", on_click="ignore",
                           icon=":material/download:")
    with d5:
        st.download_button("Summary JSON", data=lambda: json.dumps(meta, indent=2, default=str),
                           file_name="graph_summary.json", mime="application/json",
                           key="graph.dl_summary", on_click="ignore",
                           icon=":material/download:")
