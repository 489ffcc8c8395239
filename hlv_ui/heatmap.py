"""Plotly heatmap of an annotator x annotator matrix (``hlv_core.pair_matrix.PairMatrix``) for
the Agreement and Annotator graph pages: escaped tick labels, colour centred on the overall alpha,
and optionally an invisible marker per cell so that a click selects a pair. No maths."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from hlv_core.pair_matrix import PairMatrix

__all__ = ["pair_heatmap"]


def pair_heatmap(pm: PairMatrix, centre: float, *, title: str = "", clickable: bool = False,
                 max_height: int = 900, cell: int = 22) -> tuple[go.Figure, dict[str, str]]:
    """The heatmap of ``pm.matrix`` (diagonal blank) and the map escaped label -> annotator id
    (annotator ids are user strings: plotly renders a few HTML tags, so labels are escaped)."""
    raw = [str(a) for a in pm.ids]
    labels = [html.escape(a) for a in raw]
    z = pm.matrix
    centre = centre if np.isfinite(centre) else 0.0
    spread = float(np.nanmax(np.abs(z - centre))) if np.isfinite(z).any() else 1.0
    spread = max(spread, 0.05)
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, colorscale="RdBu", zmid=centre, zmin=centre - spread,
        zmax=centre + spread, xgap=1, ygap=1, colorbar={"title": "α_ij"},
        hoverinfo="skip" if clickable else None,
        hovertemplate=None if clickable else "%{y} – %{x}<br>α_ij = %{z:.3f}<extra></extra>",
    ))
    if clickable:
        # heatmap cells are not selectable in plotly: an invisible marker at the centre of every
        # off-diagonal cell carries the hover text and turns a click into a point selection
        ri, ci = np.nonzero(~np.eye(len(labels), dtype=bool))
        fig.add_trace(go.Scatter(
            x=[labels[j] for j in ci], y=[labels[i] for i in ri], customdata=z[ri, ci],
            mode="markers", showlegend=False,
            marker={"symbol": "square", "size": 14, "color": "rgba(0,0,0,0)",
                    "line": {"width": 0}},
            selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 1}},
            hovertemplate="%{y} × %{x}: α = %{customdata:.3f}<extra></extra>",
        ))
    fig.update_layout(
        title=title or None, height=min(max_height, 260 + cell * len(labels)),
        yaxis={"autorange": "reversed"}, plot_bgcolor="#f3f3f3", xaxis={"tickangle": -45},
        hovermode="closest", margin={"t": 40 if title else 20},
    )
    if clickable:
        fig.update_layout(hoverdistance=-1)
    return fig, dict(zip(labels, raw, strict=True))
