"""Annotator graph: Basile's systematicity sigma, its randomised baseline and annotator camps."""

from __future__ import annotations

import html
import json
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hlv_core import balance, samples
from hlv_core.balance import heatmap_annotators, strongest_edges
from hlv_core.figures import comparison_figure
from hlv_core.io import DataError, Dataset
from hlv_core.levels import level_options
from hlv_core.pair_matrix import pairwise_matrix
from hlv_core.text import md
from hlv_ui.heatmap import pair_heatmap
from hlv_ui.network import camp_positions, network_html, spring_positions
from hlv_ui.state import require_dataset, show_data_error
from hlv_ui.widgets import download_table, fmt_num, show_table

#: Above this many annotators: positions precomputed with networkx, physics off.
PHYSICS_MAX_NODES = 120
#: Above this many edges the edge filter starts at this many edges drawn.
DEFAULT_MAX_EDGES = 1500
HEATMAP_MAX = 80
#: Above this many annotator pairs sharing an item, sigma_rnd (n_repeats sigma runs) waits for
#: the user to ask for it.
AUTO_RND_MAX_PAIRS = 5000
MEMO_KEY = "graph._rnd_memo"

st.title("Annotator graph")
st.caption(
    "Basile's systematicity **σ**: annotators are nodes; a pair is joined by a **+** "
    "edge when its pairwise Krippendorff's α is at least the overall α, by a **−** edge otherwise. "
    "σ is the share of balanced triangles (+++ or +−−). σ near 1 means annotators form camps; "
    "compare it with **σ_rnd**, the same measure on random matrices A_rnd, each made by 10 "
    "steps of splitting the items into two random halves and shuffling the annotators within "
    "each half (α is unchanged by every step). Defaults follow the paper's conventions."
)

dataset = require_dataset(tasks=("multiclass", "multilabel", "rating"), need_ids=True)

# ------------------------------------------------------------------------------- controls
# Defaults are the paper's conventions (Basile, Table 2): nominal alpha, min_shared 1, composed
# sigma_rnd. Every other choice is labelled as a deviation below.
opts = level_options(dataset)
levels, default_level, multilabel = list(opts.levels), "nominal", opts.multilabel
PROCEDURE_LABELS = {
    "composed": "composed: 10 split-and-shuffle steps per A_rnd (paper)",
    "one_step": "one step per A_rnd (deviation)",
}
c1, c2, c3, c4, c5 = st.columns(5)
level = c1.selectbox(
    "Level of measurement", levels, index=levels.index(default_level), key="graph.level",
    help="Used for the overall α and every pairwise α (the same level for both). Basile's "
    "Table 2 uses nominal α for every dataset (the default here); ordinal or interval numbers "
    "are not comparable with the paper's.",
)
min_shared = int(c2.number_input(
    "min shared items", min_value=1, max_value=100, value=balance.PAPER_MIN_SHARED, step=1,
    key="graph.min_shared",
    help="Pairs sharing fewer items get no edge. 1 is the paper's convention (default); 2 is a "
    "robust deviation (one shared item can never give a positive α, so such edges are almost "
    "always −).",
))
procedure = c3.selectbox(
    "σ_rnd procedure", list(balance.PROCEDURES), key="graph.procedure",
    format_func=PROCEDURE_LABELS.get,
    help="The paper's 'the entire procedure is repeated ten times, producing A_rnd': each "
    "random matrix composes 10 split-and-shuffle steps (reproduces Table 2). 'One step' is the "
    "other reading of the text; it leaves camp structure in place and gives higher σ_rnd.",
)
n_repeats = int(c4.number_input(
    "σ_rnd matrices", min_value=1, max_value=200, value=10, step=1, key="graph.repeats",
    help="Number of random matrices A_rnd averaged (10 in the paper).",
))
seed = int(c5.number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1,
                           key="graph.seed"))
conventions = balance.conventions_note(level, min_shared, procedure)
if multilabel == "set":
    st.info("Multi-label data: each annotator's label set on an item is one nominal value "
            "(e.g. `a+b`), so two annotators agree only when they chose the same set.")


@st.cache_data(show_spinner="Computing pairwise α and the signed graph…", max_entries=8)
def compute_sigma(_dataset: Dataset, dataset_hash: str, level: str, min_shared: int,
                  multilabel: str):
    del dataset_hash
    result = balance.sigma(_dataset.annotations, level=level, min_shared=min_shared,
                           values=opts.values(level), multilabel=multilabel)
    return result, balance.camps(result)


@st.cache_data(show_spinner="Laying out the graph…", max_entries=8)
def layout(_result: balance.SigmaResult, _partition: balance.CampsResult, result_key: tuple,
           spring: bool, seed: int) -> dict:
    del result_key
    if spring:
        return spring_positions(_result.edges, tuple(_result.nodes["annotator_id"]), seed)
    return camp_positions(_result.nodes, _partition.camps)


@st.cache_data(show_spinner=False, max_entries=8)
def markup(_result: balance.SigmaResult, _partition: balance.CampsResult, _shown: pd.DataFrame,
           _positions: dict | None, view_key: tuple) -> str:
    """The pyvis page for one view (result, edge filter, layout): built once per view."""
    del view_key
    return network_html(_result, _partition, _shown, _positions)


@st.cache_data(show_spinner="Computing α, σ and σ_rnd of every dataset…", max_entries=4)
def compare_with_samples(_current: Dataset, current_hash: str, current_name: str,
                         n_repeats: int, seed: int) -> pd.DataFrame:
    """balance.compare_datasets over samples.comparison_datasets (bundled samples with annotator
    ids + the current data), always under the paper's conventions (nominal alpha, min_shared 1,
    composed sigma_rnd; multi-label data as label sets), whatever the controls above say."""
    del current_hash, current_name
    datasets = samples.comparison_datasets(_current)
    return balance.compare_datasets(datasets, level="nominal",
                                    min_shared=balance.PAPER_MIN_SHARED, n_repeats=n_repeats,
                                    seed=seed, procedure="composed")


def random_baseline(result_key: tuple) -> balance.RandomSigmaResult:
    """sigma_rnd with a progress bar on the first run, memoised in the session afterwards."""
    memo = st.session_state.setdefault(MEMO_KEY, {})
    if result_key in memo:
        return memo[result_key]
    bar = st.progress(0.0, text="σ_rnd: shuffling annotators…")

    def tick(done: int, total: int) -> None:
        bar.progress(done / total, text=f"σ_rnd: replicate {done} of {total}")

    rnd = balance.sigma_random(
        dataset.annotations, n_repeats=n_repeats, seed=seed, level=level, min_shared=min_shared,
        procedure=procedure, values=opts.values(level), multilabel=multilabel,
        progress=tick,
    )
    bar.empty()
    if len(memo) >= 8:
        memo.pop(next(iter(memo)))
    memo[result_key] = rnd
    return rnd


# ------------------------------------------------------------------------------- compute
result_key = (dataset.content_hash, level, min_shared, multilabel)
try:
    result, partition = compute_sigma(dataset, dataset.content_hash, level, min_shared, multilabel)
    rnd_key = (*result_key, procedure, n_repeats, seed)
    big = result.n_pairs_overlapping > AUTO_RND_MAX_PAIRS
    asked = big and st.toggle(
        f"Compute σ_rnd ({n_repeats} random matrices over {result.n_pairs_overlapping:,} "
        "annotator pairs: a few seconds)", key="graph.rnd",
        help="Large data: the random baseline runs when asked for.")
    want_rnd = not big or asked or rnd_key in st.session_state.get(MEMO_KEY, {})
    rnd = random_baseline(rnd_key) if want_rnd else None
except (DataError, ValueError) as error:
    if isinstance(error, DataError):
        show_data_error(error)
    else:
        st.error(f"**Cannot compute σ for this dataset at this level.** {md(str(error))}")
    st.stop()


rnd_summary = rnd.summary() if rnd is not None else {}
m1, m2, m3, m4, m5 = st.columns(5)
m1.metric(f"α (overall, {level})", f"{result.alpha:.3f}", help=f"Conventions: {conventions}.")
m2.metric("σ", fmt_num(result.sigma), help=f"balanced triangles / triangles. Conventions: "
          f"{conventions}.")
if rnd is None:
    m3.metric("σ_rnd (mean)", "—", help="Switch on 'Compute σ_rnd' above.")
else:
    m3.metric("σ_rnd (mean)", fmt_num(rnd.mean),
              help=f"{rnd.n_defined} of {rnd.n_repeats} matrices A_rnd defined; seed {seed}; "
              f"Monte Carlo standard error {fmt_num(rnd.se)}. Conventions: {conventions}.")
m4.metric("Triangles", f"{result.n_triangles:,}",
          help=f"{result.n_balanced:,} balanced, {result.n_unbalanced:,} unbalanced")
m5.metric("Edges", f"{result.n_pos_edges:,} + / {result.n_neg_edges:,} −")
if result.explanation:
    st.warning(result.explanation)
if "deviation" in conventions or level != "nominal":
    st.info("These numbers do not follow the paper's conventions (nominal α, min shared 1, "
            f"composed σ_rnd), so they are not comparable with Basile's Table 2: {conventions}.")
change = rnd_summary.get("max_alpha_change")
st.caption(
    f"{result.n_pairs_overlapping:,} annotator pairs share at least one item; "
    f"**{result.n_dropped_min_shared:,}** dropped for sharing fewer than {min_shared} items, "
    f"**{result.n_dropped_undefined:,}** dropped because their pairwise α is undefined (all "
    f"shared labels identical). "
    + (f"σ_rnd sd = {fmt_num(rnd.sd)}; largest change of α across replicates "
       f"{'n/a' if change is None else f'{change:.1e}'}; " if rnd is not None else "")
    + f"seed {seed}; conventions: {conventions}."
)

graph_col, side_col = st.columns([3, 2])
with graph_col:
    st.subheader("Signed graph")
    edges = result.edges
    n_nodes = len(result.nodes)
    shown, max_edges, sign, spring = edges, None, None, None
    if len(edges) > DEFAULT_MAX_EDGES:
        f1, f2 = st.columns(2)
        max_edges = int(f1.number_input(
            "Edges drawn (strongest first)", min_value=1, max_value=len(edges),
            value=DEFAULT_MAX_EDGES, step=100, key="graph.max_edges",
            help="Edges ranked by |pairwise α − overall α|; the counts above use every edge.",
        ))
        which = f2.radio("Signs", ["both", "+ only", "− only"], horizontal=True,
                         key="graph.signs")
        sign = {"both": None, "+ only": 1, "− only": -1}[which]
        shown = strongest_edges(edges, result.alpha, max_edges, sign=sign)
    positions = None
    if n_nodes > PHYSICS_MAX_NODES:
        spring = st.toggle("Spring layout (slower; default: annotators grouped by camp)",
                           key="graph.spring")
        positions = layout(result, partition, result_key, spring, seed)
    st.iframe(markup(result, partition, shown, positions,
                     (result_key, max_edges, sign, spring, seed)), height=620)
    st.caption(
        f"{len(shown):,} of {len(edges):,} edges drawn; solid green = +, dashed red = −; node "
        "colour = camp (grey: no edge), size = number of annotations. "
        + ("Positions precomputed, physics off." if positions else "Drag nodes to rearrange.")
    )

with side_col:
    st.subheader("σ against its random baseline")
    if rnd is None:
        st.info("σ_rnd has not been computed yet (switch it on above).")
    else:
        fig = go.Figure(go.Histogram(x=rnd.values[np.isfinite(rnd.values)].tolist(),
                                     name="σ_rnd replicates",
                                     xbins={"start": 0, "end": 1.0001, "size": 0.05}))
        if not math.isnan(result.sigma):
            fig.add_vline(x=result.sigma, line_color="#d62728", line_width=3,
                          annotation_text=f"σ = {result.sigma:.3f}")
        fig.update_layout(xaxis_title="σ", yaxis_title="replicates", height=300,
                          xaxis_range=[0, 1.02], margin={"t": 30, "b": 40}, showlegend=False)
        st.plotly_chart(fig, width="stretch", key="graph.hist")
        st.caption(f"{rnd.n_defined} of {rnd.n_repeats} matrices A_rnd have triangles; seed "
                   f"{seed}; σ_rnd {PROCEDURE_LABELS[procedure]}.")

    st.subheader("Camps")
    sizes = partition.camps.value_counts().sort_index()
    exact = "exact: the graph is balanced" if partition.balanced else "approximate"
    st.write(
        f"Method **{partition.method}** ({exact}); frustration **{partition.frustration:,}** of "
        f"{partition.n_edges:,} edges (+ across camps or − within); "
        f"{partition.n_components} connected component(s); "
        + ", ".join(f"{'no edge' if k < 0 else f'camp {k}'}: {v}" for k, v in sizes.items())
    )
    traits = [c for c in dataset.annotators.columns if c != "annotator_id"]
    if traits:
        trait = st.selectbox("Compare camps with the trait", traits, key="graph.trait")
        table, v = balance.camp_trait_table(partition, dataset.annotators, trait)
        if table.empty:
            st.info("No annotator with a camp and a value of this trait.")
        else:
            show_table(table, width="stretch")
            st.caption("Cramér's V = " + ("n/a" if math.isnan(v) else f"{v:.2f}")
                       + " (1: the camps are exactly the trait groups; 0: unrelated).")
    else:
        st.caption("This dataset has no annotator traits to compare the camps with.")

st.subheader("Pairwise α")
ids = heatmap_annotators(result, partition, HEATMAP_MAX)
pm = pairwise_matrix(result.pairs[result.pairs["status"] == "edge"], ids, order="given")
heat, _ = pair_heatmap(pm, result.alpha, max_height=700, cell=12)
st.plotly_chart(heat, width="stretch", key="graph.heatmap")
st.caption(
    f"Colour centred on the overall α ({result.alpha:.3f}): blue = + edge, red = − edge; blank = "
    "no edge. Annotators ordered by camp"
    + (f"; the {HEATMAP_MAX} most active of {len(result.nodes)} shown." if len(result.nodes)
       > HEATMAP_MAX else ".")
)

with st.expander("Compare datasets: α vs σ (Basile, Figure 2)",
                 expanded=bool(st.session_state.get("graph.compare", False))):
    st.caption(
        "Each dataset is a point at its overall α (x) and σ (y); the hollow marker below or above "
        "it is σ_rnd. A large gap σ − σ_rnd means systematic disagreement (camps); datasets whose "
        "σ sits on its σ_rnd show no annotator structure. Uses the bundled samples with annotator "
        "ids plus the current dataset, computed under **the paper's conventions** (nominal α, "
        "min shared 1, undefined pairwise α = no edge, composed σ_rnd) whatever the controls "
        "above say, so the points are comparable with Table 2; σ_rnd matrices and seed as chosen "
        "above."
    )
    paper_conventions = balance.conventions_note("nominal", balance.PAPER_MIN_SHARED, "composed")
    if st.toggle("Compute the comparison", key="graph.compare"):
        table = compare_with_samples(dataset, dataset.content_hash, str(dataset.name),
                                     n_repeats, seed)
        show_paper = st.checkbox("Show the paper's datasets (Table 2) as grey reference points",
                                 value=True, key="graph.compare_paper")
        # dataset names may come from an upload: escaped (plotly renders a few HTML tags)
        safe = table.assign(dataset=table["dataset"].map(lambda x: html.escape(str(x))))
        st.plotly_chart(comparison_figure(safe, paper=show_paper,
                                          conventions=f"all points: {paper_conventions}"),
                        width="stretch", key="graph.compare_plot")
        shown_cols = ["dataset", "n_items", "n_annotators", "alpha", "sigma", "sigma_rnd",
                      "sigma_rnd_sd", "n_triangles", "note", "error"]
        show_table(table[shown_cols], width="stretch", hide_index=True)
        download_table(table.assign(seed=seed), "sigma_comparison.csv",
                       key="graph.dl_compare", label="Comparison CSV")
    st.caption(
        "The real datasets of the paper are not bundled with the app. Compare dataset folders "
        "from the command line: `python -m hlv_core sigma DIR1 DIR2 ... --plot sigma.html "
        "--paper` (one folder or annotations file per dataset; the HTML works offline)."
    )

st.subheader("Downloads")
camps_table = partition.table.merge(result.nodes, on="annotator_id")
meta = {"dataset": dataset.name, "seed": seed, "level": level, "min_shared": min_shared,
        "n_repeats": n_repeats, "conventions": conventions, **result.summary(), **rnd_summary,
        "camps_method": partition.method, "camps_frustration": partition.frustration}
d1, d2, d3, d4, d5 = st.columns(5)
with d1:
    download_table(result.edges.assign(seed=seed), "graph_edges.csv", key="graph.dl_edges",
                   label="Edges CSV")
with d2:
    download_table(camps_table, "graph_camps.csv", key="graph.dl_camps", label="Camps CSV")
with d3:
    download_table(result.pairs, "graph_pairs.csv", key="graph.dl_pairs", label="All pairs CSV")
with d4:
    st.download_button("GraphML", data=lambda: balance.graphml_bytes(result, partition),
                       file_name="annotator_graph.graphml", mime="application/xml",
                       key="graph.dl_graphml", on_click="ignore", icon=":material/download:")
with d5:
    st.download_button("Summary JSON", data=lambda: json.dumps(meta, indent=2, default=str),
                       file_name="graph_summary.json", mime="application/json",
                       key="graph.dl_summary", on_click="ignore", icon=":material/download:")
