"""Figures of the "Items and annotators" page: an item's soft label, an annotator's label shares
against everyone's, and their confusion matrix against the majority. Labels are user strings:
escaped once for plotly (which renders a few HTML tags) and drawn on categorical axes (labels
such as 1..5 are categories, not numbers). No maths: the numbers come from
``hlv_core.annotators``."""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go

__all__ = ["confusion_figure", "label_share_figure", "soft_label_figure"]


def _esc(values) -> list[str]:
    return [html.escape(str(v)) for v in values]


def soft_label_figure(soft: pd.DataFrame, majority: str) -> go.Figure:
    """Bar per label: share of the item's annotators (``soft``: ``label, share, count``); the
    majority label in a darker colour. Only labels somebody chose when there are many."""
    shown = soft[soft["count"] > 0] if len(soft) > 20 else soft
    colours = ["#1f4e79" if lab == majority else "#7fa7cf" for lab in shown["label"]]
    fig = go.Figure(go.Bar(
        x=_esc(shown["label"]), y=shown["share"], marker_color=colours,
        customdata=shown["count"],
        hovertemplate="%{x}: %{y:.0%} (%{customdata} annotators)<extra></extra>",
    ))
    fig.update_layout(
        height=300, margin={"t": 30, "b": 40}, title="Soft label (share of annotators)",
        xaxis={"type": "category", "title": "label"},
        yaxis={"title": "share of annotators", "range": [0, 1.02], "tickformat": ".0%"},
    )
    return fig


def label_share_figure(shares: pd.DataFrame, annotator: str) -> go.Figure:
    """Grouped bars: the annotator's share of each label next to everyone's."""
    fig = go.Figure()
    for column, name, colour in (("annotator", html.escape(annotator), "#1f4e79"),
                                 ("everyone", "everyone", "#bbbbbb")):
        fig.add_trace(go.Bar(x=_esc(shares["label"]), y=shares[column], name=name,
                             marker_color=colour,
                             hovertemplate="%{x}: %{y:.0%}<extra>" + name + "</extra>"))
    fig.update_layout(
        barmode="group", height=320, margin={"t": 30, "b": 40},
        title="How often they use each label", legend={"orientation": "h", "y": -0.25},
        xaxis={"type": "category", "title": "label"},
        yaxis={"title": "share of annotations", "tickformat": ".0%"},
    )
    return fig


def confusion_figure(confusion: pd.DataFrame, annotator: str) -> go.Figure:
    """Heatmap of :func:`hlv_core.annotators.confusion_vs_majority` with the count in each
    cell (multi-label: rows are labels, columns both / majority only / annotator only /
    neither)."""
    multilabel = confusion.index.name == "label"
    x, y = _esc(confusion.columns), _esc(confusion.index)
    fig = go.Figure(go.Heatmap(
        z=confusion.to_numpy(), x=x, y=y, colorscale="Blues", showscale=False,
        text=confusion.to_numpy(), texttemplate="%{text}", xgap=1, ygap=1,
        hovertemplate=("%{y}: %{x} on %{z} items<extra></extra>" if multilabel else
                       "majority %{y}, annotator %{x}: %{z} items<extra></extra>"),
    ))
    fig.update_layout(
        height=min(700, 200 + 36 * len(y)), margin={"t": 40, "b": 60},
        title="Their answers against the majority (items)",
        xaxis={"type": "category", "title": (
            "" if multilabel else f"{html.escape(annotator)} answered")},
        yaxis={"type": "category", "autorange": "reversed",
               "title": "label" if multilabel else "majority label"},
    )
    return fig
