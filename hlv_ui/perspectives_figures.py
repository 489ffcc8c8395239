"""Plotly figures of the Perspectives page (PERSEVAL, Lo, Casola et al.): the distribution of a
score over test users or texts, and a score per trait value with its bootstrap interval."""

from __future__ import annotations

import html

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

__all__ = ["group_histogram", "trait_figure"]


def group_histogram(frame: pd.DataFrame, metric_name: str, title: str) -> go.Figure:
    """Histogram (20 bins) of the column ``metric_name`` of ``frame`` (one row per user/text)."""
    fig = px.histogram(frame, x=metric_name, nbins=20, title=title)
    fig.update_layout(height=320, margin={"t": 40})
    return fig


def trait_figure(sel: pd.DataFrame, metric_name: str, dim: object, boot_seed: int) -> go.Figure:
    """Bars of ``sel["estimate"]`` per trait value ``sel["group"]`` with the bootstrap interval
    ``low``..``high`` as error bars; ``n_users``, ``n`` in the hover. Values and the trait name
    are escaped (plotly renders a few HTML tags)."""
    fig = go.Figure(go.Bar(
        x=[html.escape(str(v)) for v in sel["group"]], y=sel["estimate"],
        error_y={"type": "data", "symmetric": False,
                 "array": (sel["high"] - sel["estimate"]).to_numpy(),
                 "arrayminus": (sel["estimate"] - sel["low"]).to_numpy()},
        customdata=sel[["n_users", "n"]].to_numpy(),
        hovertemplate="%{x}: %{y:.3f}<br>%{customdata[0]} users, %{customdata[1]} "
        "instances<extra></extra>",
    ))
    fig.update_layout(title=f"{metric_name} by {html.escape(str(dim))} "
                      f"({int((1 - 0.05) * 100)}% bootstrap CI over users, seed "
                      f"{boot_seed})", height=360, margin={"t": 50},
                      yaxis_title=metric_name)
    return fig
