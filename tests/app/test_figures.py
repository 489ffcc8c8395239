"""hlv_core.figures (shared plotly helpers): user strings verbatim, whole-number count ticks."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from hlv_core.figures import bin_counts_max, count_axis, plot_text
from pages.perspectives.figures import group_histogram


def test_plot_text_escapes_once():
    assert plot_text("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert plot_text("plain") == "plain"


def test_count_axis_whole_numbers():
    small = count_axis(go.Figure(), 3, title="users")
    assert small.layout.yaxis.dtick == 1 and small.layout.yaxis.tickformat == ",d"
    assert small.layout.yaxis.title.text == "users"
    large = count_axis(go.Figure(), 400)
    assert large.layout.yaxis.dtick is None and large.layout.yaxis.tickformat == ",d"


def test_bin_counts_max_matches_left_closed_bins():
    values = np.array([0.0, 0.04, 0.05, 1.0, 1.0, np.nan])
    assert bin_counts_max([values], 0.0, 0.05, 21) == 2  # [0, .05) and [1, 1.05)
    assert bin_counts_max([np.array([np.nan])], 0.0, 0.05, 21) == 0


def test_group_histogram_title_and_axes_verbatim():
    import pandas as pd

    fig = group_histogram(pd.Series([0.0, 0.5, 1.0]), "F1 (<b>x</b>)", "F1 (<b>x</b>) of users",
                          "users")
    assert fig.layout.title.text == "F1 (&lt;b&gt;x&lt;/b&gt;) of users"
    assert fig.layout.xaxis.title.text == "F1 (&lt;b&gt;x&lt;/b&gt;)"
    assert fig.layout.yaxis.title.text == "users" and fig.layout.yaxis.dtick == 1
