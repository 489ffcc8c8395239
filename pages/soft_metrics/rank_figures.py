"""The rank chart for many models: past :data:`LINES_MAX` models one line per model becomes a
tangle of crossing lines, so the ranks are drawn as a grid instead (models down, best mean rank
on top; metrics across; the rank written in each cell, darker = better). Each model's name
carries a dot in its app-wide colour (``hlv_ui.palette``)."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hlv_core.glossary import metric_label

__all__ = ["LINES_MAX", "rank_grid"]

#: Up to this many models the rank chart draws one line per model.
LINES_MAX = 6
_TITLE = "Rank of each model under each metric (1 = best)"


def rank_grid(ranks: pd.DataFrame, colours: dict[str, str]) -> go.Figure:
    """Heatmap of ``ranks`` (rows of :func:`hlv_core.scoring.metric_ranks`: ``model``,
    ``metric`` (ordered categorical), ``rank``, ``value``); undefined ranks stay blank."""
    metrics = [m for m in ranks["metric"].cat.categories if m in set(ranks["metric"].astype(str))]
    table = ranks.assign(metric=ranks["metric"].astype(str)).pivot_table(
        index="model", columns="metric", values="rank", aggfunc="first", dropna=False)
    table = table.reindex(columns=metrics)
    values = ranks.assign(metric=ranks["metric"].astype(str)).pivot_table(
        index="model", columns="metric", values="value", aggfunc="first", dropna=False
    ).reindex(index=table.index, columns=metrics)
    order = table.mean(axis=1).sort_values(kind="stable").index  # NaN (no rank at all) last
    table, values = table.loc[order], values.loc[order]
    z = table.to_numpy(dtype=float)
    text = np.where(np.isnan(z), "", np.nan_to_num(z).astype(int).astype(str))
    names = [html.escape(str(m)) for m in table.index]
    ticks = [f'<span style="color:{colours.get(str(m), "#888")}">\u25cf</span> {n}'
             for m, n in zip(table.index, names, strict=True)]
    n_models = len(names)
    fig = go.Figure(go.Heatmap(
        z=z, x=[metric_label(m) for m in metrics], y=names, text=text,
        texttemplate="%{text}", customdata=values.to_numpy(dtype=float),
        hovertemplate="%{y}<br>%{x}: rank %{z:.0f}<br>value %{customdata:.4f}<extra></extra>",
        colorscale="Blues", reversescale=True, zmin=1, zmax=max(n_models, 2),
        colorbar={"title": {"text": "rank"}, "thickness": 12}, xgap=1, ygap=1))
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=names, ticktext=ticks,
                     title=None, type="category")
    fig.update_xaxes(title=None, tickangle=-30, side="bottom", type="category")
    fig.update_layout(title=_TITLE, height=140 + 26 * n_models + 120,
                      margin={"t": 60, "b": 120})
    return fig
