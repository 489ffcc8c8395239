"""Annotator graph: Basile's systematicity sigma, its randomised baseline and annotator camps."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import balance, samples
from hlv_core.balance import heatmap_annotators, strongest_edges
from hlv_core.figures import pair_heatmap
from hlv_core.io import DataError, Dataset
from hlv_core.levels import level_options
from hlv_core.pair_matrix import pairwise_matrix
from hlv_core.text import md
from hlv_ui.cache import cached, content_key
from hlv_ui.explain import explain
from hlv_ui.links import explorer_link, open_explorer
from hlv_ui.state import require_dataset, show_data_error
from hlv_ui.widgets import SETTING, fmt_num, forget_for_other_data
from pages.graph.figures import camp_positions, network_html, spring_positions
from pages.graph.views import (
    PROCEDURE_LABELS,
    camps_section,
    check_size,
    compare_section,
    downloads_section,
    graph_controls,
    sigma_histogram,
)

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
    "Do annotators split into camps? Each annotator is a dot; two annotators are joined by a "
    "**+** line when they agree with each other at least as much as annotators do overall "
    "(pairwise Krippendorff's α ≥ the overall α), by a **−** line otherwise. **σ** (Basile's "
    "systematicity) is the share of annotator triangles that are *balanced*: all three agree "
    "(+++), or two agree and both disagree with the third (+−−). σ near 1 means camps; compare "
    "it with **σ_rnd**, the same measure after shuffling annotators between random halves of "
    "the items (α is unchanged by every shuffle). Defaults follow the paper's conventions."
)
explain("sigma", "camps", "pairwise_alpha")

dataset = require_dataset(tasks=("multiclass", "multilabel", "rating"), need_ids=True)

# ------------------------------------------------------------------------------- controls
# Defaults are the paper's conventions (Basile, Table 2): nominal alpha, min_shared 1, composed
# sigma_rnd. Every other choice is labelled as a deviation below.
opts = level_options(dataset)
levels, default_level, multilabel = list(opts.levels), "nominal", opts.multilabel
forget_for_other_data("graph.level", dataset.content_hash, default_level)
level, min_shared, procedure, n_repeats, seed = graph_controls(levels, default_level)
conventions = balance.conventions_note(level, min_shared, procedure)
if multilabel == "set":
    st.info("Multi-label data: each annotator's label set on an item is one nominal value "
            "(e.g. `a+b`), so two annotators agree only when they chose the same set.")


@cached(show_spinner="Computing pairwise α and the signed graph…", max_entries=8)
def compute_sigma(dataset: Dataset, level: str, min_shared: int, multilabel: str):
    result = balance.sigma(dataset, level=level, min_shared=min_shared,
                           values=opts.values(level), multilabel=multilabel,
                           max_pair_instances=None)  # checked by check_size
    return result, balance.camps(result)


@cached(show_spinner="Laying out the graph…", max_entries=8)
def layout(dataset: Dataset, level: str, min_shared: int, multilabel: str, spring: bool,
           seed: int) -> dict:
    result, partition = compute_sigma(dataset, level, min_shared, multilabel)
    if spring:
        return spring_positions(result.edges, tuple(result.nodes["annotator_id"]), seed)
    return camp_positions(result.nodes, partition.camps)


@cached(show_spinner=False, max_entries=8)
def markup(dataset: Dataset, level: str, min_shared: int, multilabel: str, shown: pd.DataFrame,
           positions: dict | None) -> str:
    """The pyvis page for one view (result, edge filter, layout): built once per view."""
    result, partition = compute_sigma(dataset, level, min_shared, multilabel)
    return network_html(result, partition, shown, positions)


@cached(show_spinner="Computing α, σ and σ_rnd of every dataset…", max_entries=4)
def compare_with_samples(current: Dataset, current_name: str, n_repeats: int,
                         seed: int) -> pd.DataFrame:
    """balance.compare_datasets over the bundled samples with annotator ids + the current data,
    always under the paper's conventions, whatever the controls above say. ``current_name``
    labels the current data's row (the dataset itself is keyed on its content)."""
    datasets = samples.comparison_datasets(current)
    return balance.compare_datasets(datasets, level="nominal",
                                    min_shared=balance.PAPER_MIN_SHARED, n_repeats=n_repeats,
                                    seed=seed, procedure="composed")


def random_baseline(rnd_key: tuple) -> balance.RandomSigmaResult:
    """sigma_rnd with a progress bar on the first run, memoised in the session afterwards."""
    memo = st.session_state.setdefault(MEMO_KEY, {})
    if rnd_key in memo:
        return memo[rnd_key]
    bar = st.progress(0.0, text="σ_rnd: shuffling annotators…")

    def tick(done: int, total: int) -> None:
        bar.progress(done / total, text=f"σ_rnd: replicate {done} of {total}")

    rnd = balance.sigma_random(
        dataset, n_repeats=n_repeats, seed=seed, level=level, min_shared=min_shared,
        procedure=procedure, values=opts.values(level), multilabel=multilabel,
        progress=tick,
    )
    bar.empty()
    if len(memo) >= 8:
        memo.pop(next(iter(memo)))
    memo[rnd_key] = rnd
    return rnd


# ------------------------------------------------------------------------------- compute
try:
    check_size(dataset)  # the estimate (pair instances, memory) before any pairwise work
    result, partition = compute_sigma(dataset, level, min_shared, multilabel)
    rnd_key = content_key(dataset, level, min_shared, multilabel, procedure, n_repeats, seed)
    big = result.n_pairs_overlapping > AUTO_RND_MAX_PAIRS
    asked = big and st.toggle(
        f"Compute σ_rnd ({n_repeats} random matrices over {result.n_pairs_overlapping:,} "
        "annotator pairs: a few seconds)", key="graph.rnd", **SETTING,
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
m1.metric(f"α ({level})", f"{result.alpha:.3f}", help=f"Krippendorff's α. {conventions}.")
m2.metric("σ (systematicity)", fmt_num(result.sigma),
          help="Share of annotator triangles that are balanced (all three agree, or two agree "
          f"and both disagree with the third). Conventions: {conventions}.")
if rnd is None:
    m3.metric("σ_rnd (mean)", "—", help="Switch on 'Compute σ_rnd' above.")
else:
    m3.metric("σ_rnd (mean)", fmt_num(rnd.mean),
              help=f"{rnd.n_defined} of {rnd.n_repeats} matrices A_rnd defined; seed {seed}; "
              f"Monte Carlo standard error {fmt_num(rnd.se)}. Conventions: {conventions}.")
m4.metric("Triangles", f"{result.n_triangles:,}",
          help=f"{result.n_balanced:,} balanced, {result.n_unbalanced:,} unbalanced")
m5.metric("Edges", f"{result.n_pos_edges + result.n_neg_edges:,}", help="+ and − in the caption")
if result.explanation:
    st.warning(result.explanation)
if "deviation" in conventions or level != "nominal":
    st.info("These numbers do not follow the paper's conventions (nominal α, min shared 1, "
            f"composed σ_rnd), so they are not comparable with Basile's Table 2: {conventions}.")
change = rnd_summary.get("max_alpha_change")
st.caption(
    f"Edges: **{result.n_pos_edges:,}** + and **{result.n_neg_edges:,}** −. "
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
            value=DEFAULT_MAX_EDGES, step=100, key="graph.max_edges", **SETTING,
            help="Edges ranked by |pairwise α − overall α|; the counts above use every edge.",
        ))
        which = f2.radio("Signs", ["both", "+ only", "− only"], horizontal=True,
                         key="graph.signs", **SETTING)
        sign = {"both": None, "+ only": 1, "− only": -1}[which]
        shown = strongest_edges(edges, result.alpha, max_edges, sign=sign)
    positions = None
    if n_nodes > PHYSICS_MAX_NODES:
        spring = st.toggle("Spring layout (slower; default: annotators grouped by camp)",
                           key="graph.spring", **SETTING)
        positions = layout(dataset, level, min_shared, multilabel, spring, seed)
    st.iframe(markup(dataset, level, min_shared, multilabel, shown, positions), height=620)
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
        fig = sigma_histogram(rnd, result.sigma)
        st.plotly_chart(fig, width="stretch", key="graph.hist")
        st.caption(f"{rnd.n_defined} of {rnd.n_repeats} matrices A_rnd have triangles; seed "
                   f"{seed}; σ_rnd {PROCEDURE_LABELS[procedure]}.")

    st.subheader("Camps")
    camps_section(dataset, partition)
    names = sorted(map(str, result.nodes["annotator_id"]))
    who = st.selectbox("Open an annotator's profile", names, index=None, **SETTING,
                       placeholder="Type to search annotators", key="graph.open_annotator")
    if who is not None:
        explorer_link(f"Open the profile of {md(who)} (agreement, camp, traits)", annotator=who)

st.subheader("Pairwise α")
ids = heatmap_annotators(result, partition, HEATMAP_MAX)
pm = pairwise_matrix(result.pairs[result.pairs["status"] == "edge"], ids, order="given")
heat, from_label = pair_heatmap(pm, result.alpha, max_height=700, cell=12, clickable=True)
heat.update_layout(xaxis_title="annotator", yaxis_title="annotator")
event = st.plotly_chart(heat, width="stretch", key="graph.heatmap", on_select="rerun",
                        selection_mode="points")
points = getattr(getattr(event, "selection", None), "points", None) or []
if points:  # a cell opens the pair in "Items and annotators"
    y, x = str(points[0].get("y")), str(points[0].get("x"))
    open_explorer(annotator=from_label.get(y, y), other=from_label.get(x, x))
st.caption(
    f"Colour centred on the overall α ({result.alpha:.3f}): blue = + edge, red = − edge; blank = "
    "no edge. Click a cell to open the pair (where they disagreed) in Items and annotators. "
    "Annotators ordered by camp"
    + (f"; the {HEATMAP_MAX} most active of {len(result.nodes)} shown." if len(result.nodes)
       > HEATMAP_MAX else ".")
)

compare_section(lambda: compare_with_samples(dataset, str(dataset.name), n_repeats, seed), seed)

meta = {"dataset": dataset.name, "seed": seed, "level": level, "min_shared": min_shared,
        "n_repeats": n_repeats, "conventions": conventions, **result.summary(), **rnd_summary,
        "camps_method": partition.method, "camps_frustration": partition.frustration}
downloads_section(result, partition, meta, seed)
