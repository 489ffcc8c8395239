"""Figures shared by the pages and the command line (plotly); no computation beyond layout."""

from __future__ import annotations

import html

import pandas as pd

from .balance import PAPER_TABLE2

__all__ = ["comparison_figure"]


def _label_positions(x, y) -> list[str]:
    """Greedy label placement: a point whose label would collide with a placed neighbour's
    (close in alpha and sigma) gets the next free position."""
    choices = ["top center", "bottom center", "middle right", "middle left", "top right",
               "bottom left"]
    placed: list[tuple[float, float, str]] = []
    out = []
    for xi, yi in zip(x, y, strict=True):
        near = {pos for (xj, yj, pos) in placed if abs(xi - xj) < 0.08 and abs(yi - yj) < 0.08}
        pos = next((c for c in choices if c not in near), "top center")
        placed.append((xi, yi, pos))
        out.append(pos)
    return out


def comparison_figure(table: pd.DataFrame, *, paper: bool = False, conventions: str = ""):
    """Paper Figure 2: alpha (x) vs sigma (y), one labelled point per dataset, with sigma_rnd
    (hollow marker, joined to sigma by a dotted line) so the gap sigma - sigma_rnd is visible.

    ``table``: output of :func:`hlv_core.balance.compare_datasets` (rows with an error or an
    undefined sigma are left out of the plot). ``paper=True`` adds the published values of
    :data:`PAPER_TABLE2` as small grey reference points. ``conventions`` (e.g. "nominal α,
    min_shared 1, composed σ_rnd") is shown under the title so the points say how they were
    computed; the paper's points are always nominal α, min_shared 1, composed σ_rnd."""
    import plotly.graph_objects as go

    ok = table[table["alpha"].notna() & table["sigma"].notna()]
    fig = go.Figure()
    if paper:
        names = list(PAPER_TABLE2)
        fig.add_trace(go.Scatter(
            x=[PAPER_TABLE2[k][0] for k in names], y=[PAPER_TABLE2[k][1] for k in names],
            mode="markers", name="σ in the paper (Table 2, nominal α)", text=names,
            marker={"size": 7, "color": "#c7c7c7", "symbol": "diamond"},
            customdata=[PAPER_TABLE2[k][2] for k in names],
            hovertemplate="paper: %{text}<br>α = %{x:.3f}<br>σ = %{y:.3f}"
            "<br>σ_rnd = %{customdata:.3f}<extra></extra>",
        ))
    xs, ys = [], []
    for row in ok.itertuples():
        if pd.notna(row.sigma_rnd):
            xs += [row.alpha, row.alpha, None]
            ys += [row.sigma, row.sigma_rnd, None]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line={"color": "#9e9e9e", "dash": "dot"},
                             hoverinfo="skip", showlegend=False))
    rnd = ok[ok["sigma_rnd"].notna()]
    fig.add_trace(go.Scatter(
        x=rnd["alpha"], y=rnd["sigma_rnd"], mode="markers", name="σ_rnd (shuffled)",
        marker={"symbol": "circle-open", "size": 10, "color": "#7f7f7f", "line": {"width": 2}},
        text=rnd["dataset"], hovertemplate="%{text}<br>α = %{x:.3f}<br>σ_rnd = %{y:.3f}"
        "<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=ok["alpha"], y=ok["sigma"], mode="markers+text", name="σ",
        marker={"size": 12, "color": "#1f77b4"}, text=ok["dataset"],
        textposition=_label_positions(ok["alpha"].to_numpy(float), ok["sigma"].to_numpy(float)),
        customdata=ok[["sigma_rnd", "n_annotators", "n_triangles"]].to_numpy(dtype=float),
        hovertemplate="%{text}<br>α = %{x:.3f}<br>σ = %{y:.3f}<br>σ_rnd = %{customdata[0]:.3f}"
        "<br>annotators: %{customdata[1]:.0f}<br>triangles: %{customdata[2]:.0f}<extra></extra>",
    ))
    fig.update_layout(
        title={"text": "Agreement (α) and systematicity (σ) by dataset (Basile, Figure 2)"
               + (f"<br><sup>{html.escape(conventions)}</sup>" if conventions else "")},
        xaxis_title="Krippendorff's α", yaxis_title="σ (share of balanced triangles)",
        yaxis_range=[-0.05, 1.1], height=520, legend={"orientation": "h", "y": -0.15},
        margin={"t": 80 if conventions else 60},
    )
    return fig
