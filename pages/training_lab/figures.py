"""Figures and tables of the Training lab page: the delta plot (one panel per metric, one bar per
method in its fixed colour), the table of the 14 training methods and the progress line with time
elapsed and left. Numbers come from ``hlv_core.lab`` / ``hlv_core.progress``; names from
``hlv_core.glossary``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hlv_core.glossary import method_label, metric_label
from hlv_core.lab import SLMV_SOFT
from hlv_core.training import METHOD_INFO, METHODS
from hlv_ui.palette import PALETTE, method_colours

__all__ = ["delta_figure", "lab_method_colours", "lab_method_label", "methods_table"]


def lab_method_label(method: str) -> str:
    """:func:`hlv_core.glossary.method_label`, plus SLMV's soft head (a lab result row, not a
    training method of its own)."""
    if method == SLMV_SOFT:
        return f"{method_label('SLMV', with_abbr=False)}, soft head ({SLMV_SOFT})"
    return method_label(method)


def lab_method_colours() -> dict[str, str]:
    """:func:`hlv_ui.palette.method_colours` plus a colour of its own for SLMV's soft head."""
    colours = method_colours()
    colours[SLMV_SOFT] = PALETTE[len(METHODS) % len(PALETTE)]
    return colours


def methods_table(skips: dict[str, str | None]) -> pd.DataFrame:
    """One row per training method: name, short name, what it trains on, whether it needs
    annotator identities, and why it cannot run on this dataset (empty when it can)."""
    return pd.DataFrame({
        "method": [method_label(m, with_abbr=False) for m in METHODS],
        "short": list(METHODS),
        "trains on": [METHOD_INFO[m][2] for m in METHODS],
        "needs annotator ids": ["yes" if METHOD_INFO[m][0] else "no" for m in METHODS],
        "not available here because": [skips.get(m) or "" for m in METHODS],
    })


def delta_figure(summary: pd.DataFrame, order: list[str], metrics: list[str]) -> go.Figure:
    """Paper Figures 2-4: per metric (one panel each, human names), the mean delta of every
    method against majority voting, whiskers = interval over seeds, methods in ``order`` with
    their fixed colours (one trace per metric, one bar per method)."""
    colours = lab_method_colours()
    n_cols = min(3, len(metrics))
    n_rows = int(np.ceil(len(metrics) / n_cols))
    fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=[metric_label(m) for m in metrics],
                        vertical_spacing=0.22 if n_rows > 1 else 0.1, horizontal_spacing=0.08)
    names = [lab_method_label(m) for m in order]
    for k, metric in enumerate(metrics):
        sub = summary[summary["metric"] == metric].set_index("method").reindex(order)
        err_hi = (sub["delta_high"] - sub["delta"]).to_numpy()
        err_lo = (sub["delta"] - sub["delta_low"]).to_numpy()
        row, col = k // n_cols + 1, k % n_cols + 1
        fig.add_trace(
            go.Bar(x=order, y=sub["delta"].tolist(), name=metric_label(metric),
                   marker_color=[colours.get(m, "#7f7f7f") for m in order], showlegend=False,
                   customdata=names,
                   error_y={"type": "data", "array": err_hi.tolist(),
                            "arrayminus": err_lo.tolist(),
                            "visible": bool(np.isfinite(err_hi).any())},
                   hovertemplate="%{customdata}: %{y:+.4f} vs majority voting<extra>"
                                 + metric_label(metric) + "</extra>"),
            row=row, col=col,
        )
        fig.update_yaxes(title_text="difference to MV" if col == 1 else None,
                         zeroline=True, zerolinewidth=2, row=row, col=col)
        fig.update_xaxes(title_text="training method" if row == n_rows else None,
                         type="category", tickangle=-45, row=row, col=col)
    fig.update_layout(height=360 * n_rows + 20, margin={"t": 100, "b": 20},
                      title_text="Difference to majority voting (MV) per metric: above 0 = "
                                 "better than MV (methods sorted by mean rank)")
    return fig
