"""Figures and display tables of the Soft vs hard metrics page. Plotly only: every number comes
from ``hlv_core.scoring`` / ``hlv_core.soft_metrics``; metric names go through
``hlv_core.glossary.metric_label``; model names (user strings) are HTML-escaped so plotly shows
``<b>x</b>`` as typed; every model keeps its app-wide colour (``hlv_ui.palette``)."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from hlv_core import soft_metrics as sm
from hlv_core.glossary import metric_label
from pages.soft_metrics.rank_figures import LINES_MAX, rank_grid

__all__ = [
    "GROUP_TITLES",
    "ITEM_COLUMNS",
    "class_figure",
    "escaped_colours",
    "item_distribution_figure",
    "item_scatter",
    "metrics_wide_table",
    "rank_figure",
]

GROUP_TITLES = {"hard": "Hard (majority label)", "soft": "Soft (full distribution)",
                "lewidi": "LeWiDi distance (lower is better)"}

#: Per-item table columns -> names people read.
ITEM_COLUMNS = {
    "item_id": "item", "model": "model", "verdict": "verdict",
    "hard_correct": "hard: top label = majority", "soft_overlap": "soft overlap",
    "jsd": "JS divergence", "po_jsd": metric_label("po_jsd"),
    "entropy_p": "human entropy", "entropy_q": "model entropy",
    "manhattan": "Manhattan distance", "cross_entropy": "cross-entropy",
}

#: A horizontal legend under the plot: never clipped, whatever the number of models.
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.25, "xanchor": "left", "x": 0,
                "title": {"text": ""}}


def _esc(value: object) -> str:
    return html.escape(str(value))


def escaped_colours(colours: dict[str, str]) -> dict[str, str]:
    """``{model: colour}`` keyed by the escaped names the figures draw."""
    return {_esc(name): colour for name, colour in colours.items()}


def cell_text(value: float, lower: float, upper: float, n_boot: int) -> str:
    """``0.712 [0.680, 0.741]`` (with a CI), ``0.712`` (without) or ``undefined`` (NaN)."""
    if np.isnan(value):
        return "undefined"
    if n_boot and not np.isnan(lower):
        return f"{value:.3f} [{lower:.3f}, {upper:.3f}]"
    return f"{value:.3f}"


def metrics_wide_table(table: pd.DataFrame, models: list[str], n_items: int) -> pd.DataFrame:
    """One row per metric (human names), one column per model, cells from :func:`cell_text`,
    a ``group`` column first and a last ``Coverage`` row ("6 of 8 items")."""
    order = [m for m in sm.METRIC_INFO if m in set(table["metric"])]
    cells = table.assign(cell=[cell_text(v, lo, hi, n) for v, lo, hi, n in
                               zip(table["value"], table["lower"], table["upper"],
                                   table["n_boot"], strict=True)])
    wide = cells.pivot(index="metric", columns="model", values="cell").reindex(order)[models]
    wide.insert(0, "group", [GROUP_TITLES[sm.METRIC_INFO[m][0]] for m in wide.index])
    wide.index = [metric_label(m) for m in wide.index]
    wide.index.name = "metric"
    coverage = {m: int(table.loc[table["model"] == m, "n_items"].iloc[0]) for m in models}
    wide.loc["Coverage (items scored)"] = ["coverage", *[f"{coverage[m]} of {n_items} items"
                                                         for m in models]]
    return wide


def rank_figure(ranks: pd.DataFrame, colours: dict[str, str]) -> go.Figure:
    """Rank of each model under each metric (1 = best), one line per model in its colour;
    past :data:`pages.soft_metrics.rank_figures.LINES_MAX` models a grid with the rank in each cell."""
    if ranks["model"].nunique() > LINES_MAX:
        return rank_grid(ranks, colours)
    data = ranks.assign(metric=ranks["metric"].astype(str).map(metric_label),
                        model=ranks["model"].map(_esc))
    order = [metric_label(m) for m in ranks["metric"].cat.categories
             if m in set(ranks["metric"].astype(str))]
    fig = px.line(data, x="metric", y="rank", color="model", markers=True,
                  hover_data={"value": ":.4f"}, color_discrete_map=escaped_colours(colours),
                  category_orders={"metric": order},
                  title="Rank of each model under each metric (1 = best)")
    n_models = max(1, int(ranks["model"].nunique()))
    fig.update_yaxes(autorange="reversed", tick0=1, dtick=1, title="rank (1 = best)")
    # metric names slanted under the plot; the legend (one row per ~6 models) below them
    fig.update_xaxes(title=None, tickangle=-30)
    legend_rows = int(np.ceil(n_models / 6))
    # the legend is pinned to the figure's own bottom edge (container coordinates), so it can
    # never slide below the figure whatever room the slanted metric names take
    fig.update_layout(height=480 + 22 * legend_rows, margin={"t": 60, "b": 150 + 22 * legend_rows},
                      legend={**LEGEND_BELOW, "yref": "container", "yanchor": "bottom", "y": 0.01})
    return fig


def class_figure(shown: pd.DataFrame, kind: str, model: str) -> go.Figure:
    """Class-wise precision / recall / F1 bars of one model (``kind``: soft or hard)."""
    long = shown.melt(id_vars=["label"], value_vars=["precision", "recall", "f1"],
                      var_name="measure", value_name="value")
    long["label"] = long["label"].map(_esc)
    long["measure"] = long["measure"].replace({"f1": "F1"})
    fig = px.bar(long, x="label", y="value", color="measure", barmode="group",
                 title=f"Class-wise {kind} precision, recall and F1: {_esc(model)}")
    fig.update_yaxes(range=[0, 1.05], title="score (0 to 1)")
    fig.update_xaxes(title="class", type="category")
    fig.update_layout(legend=LEGEND_BELOW)
    return fig


def item_scatter(drawn: pd.DataFrame, threshold: float, title: str) -> go.Figure:
    """Per-item soft overlap (x) against hard correctness (y, jittered), coloured by verdict;
    ``customdata[0]`` is the raw item id (for the click-to-drill-down)."""
    rng = np.random.default_rng(0)
    data = drawn.assign(**{"hard (jittered)": drawn["hard_correct"].astype(float)
                           + rng.uniform(-0.15, 0.15, len(drawn)),
                           "item": drawn["item_id"].map(_esc),
                           "human entropy": drawn["entropy_p"],
                           metric_label("po_jsd"): drawn["po_jsd"]})
    fig = px.scatter(data, x="soft_overlap", y="hard (jittered)", color="verdict",
                     custom_data=["item_id"],
                     hover_data={"item": True, "human entropy": ":.3f",
                                 metric_label("po_jsd"): ":.3f", "hard (jittered)": False,
                                 "soft_overlap": ":.3f"},
                     title=title)
    fig.update_yaxes(tickvals=[0, 1], ticktext=["hard wrong", "hard right"],
                     title="hard: model's top label vs majority")
    fig.update_xaxes(title="soft overlap with the human distribution (0 to 1)")
    fig.add_vline(x=threshold, line_dash="dot")
    fig.update_layout(legend=LEGEND_BELOW)
    return fig


def item_distribution_figure(labels: list[str], humans: np.ndarray, model_probs: np.ndarray,
                             model: str, colour: str) -> go.Figure:
    """One item: the share of human judgements per class beside the model's probabilities
    (the model in its app-wide colour, the humans in grey)."""
    x = [_esc(label) for label in labels]
    fig = go.Figure([
        go.Bar(x=x, y=humans, name="humans", marker_color="#7f7f7f",
               hovertemplate="%{x}: %{y:.3f}<extra>humans</extra>"),
        go.Bar(x=x, y=model_probs, name=_esc(model), marker_color=colour,
               hovertemplate="%{x}: %{y:.3f}<extra>" + _esc(model) + "</extra>"),
    ])
    fig.update_layout(barmode="group", title="Human judgements vs model", legend=LEGEND_BELOW,
                      yaxis={"title": "share / probability", "range": [0, 1.05]},
                      xaxis={"title": "class", "type": "category"})
    return fig
