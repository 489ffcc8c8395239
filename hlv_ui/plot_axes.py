"""Small plotly helpers shared by figures: whole-number ticks on count axes, categorical label
axes and user strings shown verbatim.

Plotly reads a few HTML tags (``<b>``, ``<br>``, ``<a>``) in names, tick labels, hover text and
titles; :func:`plot_text` escapes a user string once, and plotly turns the entities back into
the characters, so ``<b>x</b>`` is shown as typed (not bold, not ``&lt;b&gt;``)."""

from __future__ import annotations

import html
from collections.abc import Iterable

import numpy as np
import plotly.graph_objects as go

__all__ = ["bin_counts_max", "count_axis", "plot_text", "plot_texts"]


def plot_text(value: object) -> str:
    """A user string for a plotly name, label, hover or title: shown verbatim."""
    return html.escape(str(value), quote=False)


def plot_texts(values: Iterable[object]) -> list[str]:
    """:func:`plot_text` of every value."""
    return [plot_text(v) for v in values]


def count_axis(fig: go.Figure, max_count: float, *, axis: str = "y",
               title: str | None = None) -> go.Figure:
    """Whole-number ticks on a count axis: plotly puts ticks at 0.5 steps when the largest
    count is small, so up to 10 every integer is a tick; above, plotly's own (integer) steps
    with an integer format. ``title`` sets the axis title."""
    update = {"tickformat": ",d", "rangemode": "tozero"}
    if max_count <= 10:
        update.update(tick0=0, dtick=1)
    if title is not None:
        update["title_text"] = title
    (fig.update_yaxes if axis == "y" else fig.update_xaxes)(**update)
    return fig


def bin_counts_max(values: Iterable[np.ndarray], start: float, size: float, n_bins: int) -> int:
    """Largest bin count over several series binned like plotly with ``xbins`` (``start``,
    ``size``; left-closed bins): the top of a histogram's count axis."""
    edges = start + size * np.arange(n_bins + 1)
    best = 0
    for v in values:
        arr = np.asarray(v, dtype=float)
        arr = arr[np.isfinite(arr)]
        if arr.size:
            best = max(best, int(np.histogram(arr, bins=edges)[0].max()))
    return best
