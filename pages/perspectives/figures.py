"""Plotly figures of the Perspectives page (PERSEVAL, Lo, Casola et al.): the headline scores of
every model, the distribution of a score over test users or texts, and a score per trait value
with its bootstrap interval. Every bar carries its value as text, so a score of 0 is a visible
"0.00", never an empty chart; user strings (model names, trait values) are shown verbatim."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hlv_core.figures import bin_counts_max, count_axis, plot_text, plot_texts

__all__ = ["LEVEL_NAMES", "comparison_figure", "group_histogram", "trait_figure"]

#: Levels of the headline table, in plain words.
LEVEL_NAMES = {"global": "all test instances", "user": "average over users",
               "text": "average over texts"}
_BIN = 0.05  # histogram bins of a score in [0, 1]; the last bin holds 1.0


def _bar_text(values) -> list[str]:
    return ["n/a" if not np.isfinite(v) else f"{v:.2f}" for v in np.asarray(values, float)]


def comparison_figure(comparison: pd.DataFrame, head_label: str,
                      colours: dict[str, str]) -> go.Figure:
    """Headline F1 of every model (``headline_table`` rows) at the three levels, one colour
    per model (``colours``: name -> colour), each bar labelled with its value."""
    fig = go.Figure()
    levels = [LEVEL_NAMES[level] for level in LEVEL_NAMES]
    for _, row in comparison.iterrows():
        y = [row[f"{level} F1 ({head_label})"] for level in LEVEL_NAMES]
        fig.add_bar(name=plot_text(row["model"]), x=levels, y=y, text=_bar_text(y),
                    textposition="outside", cliponaxis=False,
                    marker_color=colours[str(row["model"])])
    fig.update_layout(barmode="group", xaxis_title="scored over",
                      yaxis_title=f"F1 ({plot_text(head_label)})",
                      yaxis_range=[0, 1.08], height=420, margin={"t": 30},
                      legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0})
    return fig


def group_histogram(values: pd.Series, metric_name: str, title: str, unit: str, *,
                    colour: str = "#4c78a8") -> go.Figure:
    """Histogram of a score in [0, 1] over groups (``unit``: "users" or "texts"), bins of
    0.05 with the last one for a perfect 1; whole-number count ticks; bars in ``colour`` (the
    model's app-wide colour, ``hlv_ui.palette``)."""
    v = values.astype(float).to_numpy()
    fig = go.Figure(go.Histogram(x=v, xbins={"start": 0, "end": 1 + _BIN, "size": _BIN},
                                 marker_color=colour,
                                 hovertemplate="%{x}: %{y} " + unit + "<extra></extra>"))
    fig.update_xaxes(range=[0, 1 + _BIN], title_text=plot_text(metric_name))
    count_axis(fig, bin_counts_max([v], 0, _BIN, int(round(1 / _BIN)) + 1), title=unit)
    fig.update_layout(title=plot_text(title), height=320, margin={"t": 40}, bargap=0.05)
    return fig


def trait_figure(sel: pd.DataFrame, metric_name: str, dim: object, boot_seed: int, *,
                 colour: str | None = None) -> go.Figure:
    """Bars of ``sel["estimate"]`` per trait value ``sel["group"]`` with the bootstrap interval
    ``low``..``high`` as error bars and the value as text; ``n_users``, ``n`` in the hover.
    Trait values and name shown verbatim; bars in ``colour`` (the model's app-wide colour)."""
    fig = go.Figure(go.Bar(
        x=plot_texts(sel["group"]), y=sel["estimate"], text=_bar_text(sel["estimate"]),
        textposition="auto", marker_color=colour,
        error_y={"type": "data", "symmetric": False,
                 "array": (sel["high"] - sel["estimate"]).to_numpy(),
                 "arrayminus": (sel["estimate"] - sel["low"]).to_numpy()},
        customdata=sel[["n_users", "n"]].to_numpy(),
        hovertemplate="%{x}: %{y:.3f}<br>%{customdata[0]} users, %{customdata[1]} "
        "instances<extra></extra>",
    ))
    top = max(1.0, float(np.nanmax(sel["high"].to_numpy(dtype=float), initial=0.0)))
    fig.update_xaxes(type="category", title_text=plot_text(dim))
    fig.update_layout(title=f"{plot_text(metric_name)} by {plot_text(dim)} (95% bootstrap "
                      f"interval over users, seed {boot_seed})", height=380, margin={"t": 50},
                      yaxis_title=plot_text(metric_name), yaxis_range=[0, top * 1.05])
    return fig
