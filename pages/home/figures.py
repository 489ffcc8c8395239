"""Figures of the Overview page. Labels are categories (``0`` / ``1`` are names, never a numeric
axis with ticks at -0.5 and 0.5), count axes have whole-number ticks, and user strings are
escaped once for plotly (which renders a few HTML tags and decodes entities), so ``<b>x</b>``
shows as typed. Every number drawn comes from :class:`hlv_core.io.Dataset` tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hlv_ui.plot_axes import plot_text

__all__ = [
    "annotators_per_item_figure",
    "count_axis",
    "entropy_figure",
    "item_distribution_figure",
    "label_distribution_figure",
]

_HEIGHT = 360


def count_axis(largest: float) -> dict:
    """Axis settings for counts: whole-number ticks only (a step of 1 up to 10)."""
    axis = {"rangemode": "tozero", "tickformat": ",d"}
    if largest <= 10:
        axis["dtick"] = 1
    return axis


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str) -> go.Figure:
    fig.update_layout(title=title, height=_HEIGHT, margin={"t": 50, "b": 40, "l": 50, "r": 10},
                      xaxis_title=x_title, yaxis_title=y_title, showlegend=False, bargap=0.15)
    return fig


def label_distribution_figure(labels: pd.DataFrame, title: str) -> go.Figure:
    """Bars of annotations per label (``label``, ``annotations``, ``share`` columns) on a
    categorical axis in inventory order."""
    names = [plot_text(v) for v in labels["label"]]
    counts = labels["annotations"].to_numpy()
    fig = go.Figure(go.Bar(
        x=names, y=counts, customdata=labels["share"].to_numpy(),
        hovertemplate="label %{x}<br>%{y:,d} annotations (%{customdata:.1%})<extra></extra>"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=names)
    fig.update_yaxes(**count_axis(counts.max(initial=0)))
    return _layout(fig, title, "label", "annotations")


def annotators_per_item_figure(per_item: np.ndarray) -> go.Figure:
    """Bars: how many items have 1, 2, 3, ... annotators (whole numbers on both axes)."""
    values, counts = np.unique(np.asarray(per_item, dtype=int), return_counts=True)
    fig = go.Figure(go.Bar(x=values, y=counts,
                           hovertemplate="%{y:,d} items with %{x} annotators<extra></extra>"))
    span = int(values.max() - values.min()) if values.size else 0
    fig.update_xaxes(tickformat=",d", **({"dtick": 1} if span <= 20 else {}))
    fig.update_yaxes(**count_axis(counts.max(initial=0)))
    return _layout(fig, "Annotators per item", "annotators on the item", "items")


def entropy_figure(entropy: np.ndarray, bins: int = 20) -> go.Figure:
    """Histogram of per-item normalised entropy over [0, 1] (items per bin, whole numbers)."""
    values = np.asarray(entropy, dtype=float)
    values = values[np.isfinite(values)]
    counts, edges = np.histogram(values, bins=bins, range=(0.0, 1.0))
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(go.Bar(
        x=centres, y=counts, width=np.diff(edges) * 0.95,
        customdata=np.column_stack([edges[:-1], edges[1:]]),
        hovertemplate="entropy %{customdata[0]:.2f}–%{customdata[1]:.2f}: %{y:,d} items"
                      "<extra></extra>"))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(**count_axis(counts.max(initial=0)))
    # a short axis title: the long one was cut in the Overview's narrow column at 1200 px
    return _layout(fig, "Per-item normalised entropy", "entropy (0 = agreed)", "items")


def item_distribution_figure(labels: list[str], proportions: np.ndarray, *,
                             multilabel: bool) -> go.Figure:
    """One item's soft label: the share of its annotators per label (labels chosen by nobody
    left out), labels as categories."""
    shares = np.asarray(proportions, dtype=float)
    keep = shares > 0
    names = [plot_text(v) for v, k in zip(labels, keep, strict=True) if k]
    fig = go.Figure(go.Bar(x=names, y=shares[keep],
                           hovertemplate="label %{x}<br>%{y:.0%} of annotators<extra></extra>"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=names)
    top = 1.0 if not multilabel else max(1.0, float(shares.max(initial=0)))
    fig.update_yaxes(range=[0, top], tickformat=".0%")
    return _layout(fig, "Judgement distribution (soft label)", "label", "share of annotators")
