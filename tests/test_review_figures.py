"""Case review figures (pages.review.meta_views): user strings shown verbatim (escaped once for
plotly), readable axes without float noise, labelled metrics."""

from __future__ import annotations

import pandas as pd

from hlv_core import review
from pages.review.meta_views import scores_figure, trend_figure

HOSTILE = "<b>bold</b>"


def test_equal_scores_give_a_zero_based_axis_with_two_decimals():
    noisy = [1 / 3, 0.33333333333333337, 0.3333333333333333]
    scores = pd.DataFrame({"model": [HOSTILE, "m2", "m3"], "score_in_denominator": noisy,
                           "score_decisive_only": noisy})
    fig = scores_figure(scores)
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis.range[1] > 0.39
    assert fig.layout.yaxis.tickformat == ".2f"
    assert "&lt;b&gt;bold&lt;/b&gt;" in set(fig.data[0].x)
    assert HOSTILE not in set(fig.data[0].x)


def test_trend_panels_are_labelled_padded_and_escaped():
    metrics = pd.DataFrame({"soft_accuracy": [0.5, 0.5, 0.5], "po_jsd": [0.7, 0.8, 0.9]},
                           index=pd.Index([HOSTILE, "m2", "m3"], name="model"))
    human = pd.Series([0.2, 0.3, 0.5], index=metrics.index)
    corr = review.metric_correlations(metrics, human)
    fig = trend_figure(metrics, human, corr)
    titles = [a.text for a in fig.layout.annotations]
    assert any(t.startswith("Soft accuracy (r undefined)") for t in titles)
    assert any(t.startswith("JS similarity") for t in titles)
    texts = {t for trace in fig.data if trace.text is not None for t in trace.text}
    assert "&lt;b&gt;bold&lt;/b&gt;" in texts and HOSTILE not in texts
    for name in ("xaxis", "xaxis2"):  # every panel has an explicit, non-degenerate range
        lo, hi = fig.layout[name].range
        assert hi - lo > 0.01
