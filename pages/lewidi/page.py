"""LeWiDi scorer: upload the organisers' gold JSON and one or more submissions (TSVs or
Codabench ``res.zip``) and get the leaderboard per dataset and task with what no leaderboard
shows: a bootstrap CI over items for each official score, a paired bootstrap test between
neighbouring ranks, and the items where two systems differ. Every number comes from
:mod:`hlv_core.lewidi` (the ``lewidi`` CLI command calls the same functions)."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hlv_core import lewidi
from hlv_core.glossary import metric_label
from hlv_core.io import DataError
from hlv_core.text import md
from hlv_ui.cache import cached
from hlv_ui.explain import explain, explain_inline
from hlv_ui.palette import model_colours
from hlv_ui.state import show_data_error
from hlv_ui.widgets import SETTING, download_table, show_table
from pages.lewidi.views import score_submissions

st.title("LeWiDi scorer")
st.caption(
    "Official LeWiDi scores (2025: CSC, MP, Paraphrase, VariErrNLI, Task A soft and Task B "
    "perspectivist; 2023: cross-entropy and micro F1) with the organisers' targets and "
    "rounding, plus a bootstrap CI over items for every score and a paired bootstrap test "
    "between neighbouring ranks: is rank 1 really ahead of rank 2? All scores are lower-is-"
    "better except micro F1. The same numbers: `python -m hlv_core lewidi GOLD SUBMISSION`."
)
explain("lewidi_soft", "lewidi_pe", "bootstrap_ci", "paired_bootstrap")

#: Task codes of the submissions -> what people read.
TASK_NAMES = {"soft": "Task A: soft labels", "pe": "Task B: perspectivist (each annotator)",
              "hard": "hard labels (2023)"}


def task_name(task: str) -> str:
    """Human name of a LeWiDi task code (``soft`` -> ``Task A: soft labels``)."""
    return TASK_NAMES.get(task, str(task))


@cached(show_spinner="Scoring…", max_entries=64)
def score_cached(golds: tuple[tuple[str, bytes], ...], name: str, raw: bytes,
                 task: str | None) -> tuple[list[lewidi.ScoreResult], list[lewidi.Refusal]]:
    """Score one submission file by file (cached on the gold and submission bytes); ``task``
    applies only to files whose name has no ``_soft`` / ``_pe``."""
    gold_objects = [lewidi.load_gold(blob, name=gname) for gname, blob in golds]
    if lewidi.task_from_name(name) is not None:
        task = None
    return lewidi.score_members(gold_objects, raw, task, name=name)


@cached(show_spinner="Bootstrapping…", max_entries=32)
def board_cached(runs: list, n_boot: int, seed: int, level: float):
    """The leaderboard of ``runs`` (keyed on every score and per-item value they hold)."""
    return lewidi.leaderboard(runs, n_boot=n_boot, seed=seed, level=level)


left, right = st.columns(2)
with left:
    gold_uploads = st.file_uploader(
        "Gold JSON (the organisers' <Dataset>_test.json; several datasets allowed)",
        type=["json"], accept_multiple_files=True, key="lewidi.gold")
with right:
    sub_uploads = st.file_uploader(
        "Submissions (TSV or res.zip; one per system)", type=["tsv", "txt", "zip"],
        accept_multiple_files=True, key="lewidi.subs")
demo = st.toggle("Use the synthetic demo (an MP-style gold and three systems)",
                 key="lewidi.demo", **SETTING, value=False,
                 help="Generated data, no download: shows what the page does.")
c1, c2, c3 = st.columns(3)
n_boot = int(c1.number_input("Bootstrap resamples", 100, 20000, 1000, step=100,
                             key="lewidi.n_boot", **SETTING,
                             help="More resamples: steadier intervals."))
seed = int(c2.number_input("Random seed (bootstrap)", 0, 2**31 - 1, 0, key="lewidi.seed",
                           **SETTING,
                           help="The same seed gives the same intervals."))
level = float(c3.select_slider("Confidence level", options=[0.8, 0.9, 0.95, 0.99], value=0.95,
                               key="lewidi.level", **SETTING,
                               help=explain_inline("bootstrap_ci")))
task_choice = st.radio("Task when a file name has no _soft / _pe", ["from name", "soft", "pe"],
                       horizontal=True, key="lewidi.task", **SETTING,
                       format_func=lambda t: "from the file name" if t == "from name"
                       else task_name(t),
                       help=f"Task A: {explain_inline('lewidi_soft')}\n\n"
                            f"Task B: {explain_inline('lewidi_pe')}")
forced_task = None if task_choice == "from name" else task_choice

if demo:
    (gold_name, gold_bytes), demo_zips = lewidi.demo_files(seed=0)
    golds = ((gold_name, gold_bytes),)
    submissions = list(demo_zips.items())
else:
    golds = tuple((g.name, g.getvalue()) for g in gold_uploads or [])
    submissions = [(s.name, s.getvalue()) for s in sub_uploads or []]

if not golds or not submissions:
    st.info("Upload a gold JSON and at least one submission, or switch on the demo.")
    st.stop()

try:
    for gname, blob in golds:
        lewidi.load_gold(blob, name=gname)
except DataError as error:
    show_data_error(error)
    st.stop()

runs = score_submissions(submissions, lambda n, raw: score_cached(golds, n, raw, forced_task))

if not runs:
    st.stop()

board, tests = board_cached(runs, n_boot, seed, level)

st.subheader("Leaderboard")
st.caption(f"Official score, {level:.0%} percentile bootstrap confidence interval over items of "
           f"the unrounded mean ({n_boot} resamples, random seed {seed}; the same resamples for "
           "every system).")
colours = model_colours([system for system, _ in runs])
for (dataset, split, task), part in board.groupby(["dataset", "split", "task"], sort=False):
    metric_name = metric_label(part["metric"].iloc[0])
    better = "higher" if part["metric"].iloc[0] == "micro_f1" else "lower"
    st.markdown(f"**{md(dataset)} {md(split)} · {task_name(task)}** · {metric_name} "
                f"({better} is better) · {int(part['n_items'].iloc[0])} items")
    shown = part[["rank", "system", "score", "ci_lower", "ci_upper", "n_items"]]
    show_table(shown, hide_index=True, width="stretch", column_config={
        "score": st.column_config.NumberColumn("official score", format="%.6f"),
        "ci_lower": st.column_config.NumberColumn("interval from", format="%.6f"),
        "ci_upper": st.column_config.NumberColumn("interval to", format="%.6f"),
        "n_items": st.column_config.NumberColumn("items")})
    fig = go.Figure(go.Scatter(
        x=part["mean"], y=[html.escape(s) for s in part["system"]], mode="markers",
        marker={"size": 11, "color": [colours[s] for s in part["system"]]},
        error_x={"type": "data", "symmetric": False,
                 "array": part["ci_upper"] - part["mean"],
                 "arrayminus": part["mean"] - part["ci_lower"]},
        hovertemplate="%{y}: %{x:.5f}<extra></extra>"))
    fig.update_layout(height=160 + 40 * len(part), margin={"l": 10, "r": 10, "t": 10, "b": 10},
                      xaxis_title=f"{metric_name} ({better} is better)",
                      yaxis={"autorange": "reversed", "title": "system", "type": "category"})
    st.plotly_chart(fig, width="stretch", key=f"lewidi.ci.{dataset}.{split}.{task}")
download_table(board, "lewidi_leaderboard.csv", key="lewidi.dl.board",
               label="Download the leaderboard with intervals (CSV)")

st.subheader("Is each rank ahead of the next?")
explain("paired_bootstrap")
st.caption("Paired bootstrap over items (same resamples for both systems): `diff` = mean of the "
           "lower-ranked system minus the higher-ranked one, its CI, and the two-sided p-value "
           "(1 + #{|d* − d| ≥ |d|}) / (B + 1).")
if tests.empty:
    st.info("Upload at least two submissions for the same dataset and task to compare ranks.")
else:
    show_table(tests.drop(columns=["n_boot", "seed", "level"]), hide_index=True,
                 width="stretch")
download_table(tests, "lewidi_paired_tests.csv", key="lewidi.dl.tests",
               label="Download the paired tests between ranks (CSV)")

st.subheader("Where two systems differ")
groups = sorted({(r.dataset, r.split, r.task) for _, results in runs for r in results})
group = st.selectbox("Dataset and task", groups,
                     format_func=lambda g: f"{g[0]} {g[1]} · {task_name(g[2])}",
                     key="lewidi.group", **SETTING)
by_system = {s: r for s, results in runs for r in results
             if (r.dataset, r.split, r.task) == group}
names = list(by_system)
if len(names) < 2:
    st.info("Only one system has this dataset and task.")
else:
    ca, cb = st.columns(2)
    sys_a = ca.selectbox("System A", names, index=0, key="lewidi.sys_a", **SETTING)
    sys_b = cb.selectbox("System B", names, index=1, key="lewidi.sys_b", **SETTING)
    diffs = lewidi.item_differences(by_system[sys_a], by_system[sys_b])
    metric = by_system[sys_a].metric
    metric_name = metric_label(metric)
    fig = go.Figure(go.Scatter(
        x=diffs["a"], y=diffs["b"], mode="markers",
        text=[html.escape(str(i)) for i in diffs["item_id"]],
        hovertemplate="item %{text}<br>A %{x:.5f}<br>B %{y:.5f}<extra></extra>",
        marker={"color": diffs["diff"], "colorscale": "RdBu_r", "cmid": 0, "showscale": True,
                "colorbar": {"title": "B − A"}}))
    top = float(np.nanmax([diffs["a"].max(), diffs["b"].max(), 1e-9]))
    fig.add_shape(type="line", x0=0, y0=0, x1=top, y1=top, line={"dash": "dot"})
    fig.update_layout(height=420, xaxis_title=f"{html.escape(sys_a)}: per-item {metric_name}",
                      yaxis_title=f"{html.escape(sys_b)}: per-item {metric_name}",
                      margin={"l": 10, "r": 10, "t": 10, "b": 10})
    st.plotly_chart(fig, width="stretch", key="lewidi.items_plot")
    worse = int((diffs["diff"] > 0).sum())
    better = int((diffs["diff"] < 0).sum())
    st.caption(f"B is worse than A on {worse} item(s), better on {better}, equal on "
               f"{len(diffs) - worse - better} (lower is better"
               f"{'' if metric != 'micro_f1' else ', except micro F1'}).")
    show_table(diffs.head(200), hide_index=True, width="stretch")
    download_table(diffs.rename(columns={"a": sys_a, "b": sys_b}), "lewidi_item_differences.csv",
                   key="lewidi.dl.items", label="Download per-item differences of A and B (CSV)")

items = pd.concat([r.items().assign(system=s) for s, results in runs for r in results],
                  ignore_index=True)
download_table(items, "lewidi_per_item_values.csv", key="lewidi.dl.all_items",
               label="Download every system's per-item values (CSV)")
