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
    r"""Basile's Figure 2: alpha (x) against sigma (y), one labelled point per dataset.

    .. math:: \sigma = \frac{\#\text{balanced triangles}}{\#\text{triangles}}, \quad
       \sigma - \sigma_{\mathrm{rnd}} \text{ drawn as a dotted line}

    with sigma_rnd as a hollow marker (Basile, sections 3-4, Figure 2). ``paper=True`` adds the
    published Table 2 values as grey reference points; ``conventions`` is shown under the title.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`hlv_core.balance.compare_datasets` output (rows with an error or undefined sigma
        are left out).
    paper : bool, default False
    conventions : str, default ""

    Returns
    -------
    plotly.graph_objects.Figure

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Sections 3-4, Table 2, Figure 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> from hlv_core.balance import compare_datasets
    >>> figure = comparison_figure(compare_datasets({"toy": annotations}, n_repeats=3))
    >>> type(figure).__name__
    'Figure'
    """
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
