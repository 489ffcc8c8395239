"""hlv_core.balance: the graph page's edge filter and heatmap annotators, equal to the
page's code today."""

from __future__ import annotations

import pandas as pd
import pytest

from hlv_core import balance
from hlv_core.balance import heatmap_annotators, strongest_edges
from hlv_core.samples import load_sample


@pytest.fixture(scope="module")
def graph():
    dataset = load_sample("case_review")
    result = balance.sigma(dataset.annotations, level="nominal", min_shared=2)
    return result, balance.camps(result)


@pytest.mark.parametrize(("which", "n"), [("both", 10), ("+ only", 5), ("− only", 7),
                                          ("both", 10_000)])
def test_strongest_edges_equals_the_page(graph, which, n):
    result, _ = graph
    edges = result.edges
    # copy of the edge filter of pages/graph.py (commit 06b6ab3)
    shown = edges
    if which != "both":
        shown = shown[shown["sign"] == (1 if which == "+ only" else -1)]
    strength = (shown["alpha"] - result.alpha).abs()
    old = shown.loc[strength.sort_values(ascending=False).index[:n]]
    sign = None if which == "both" else (1 if which == "+ only" else -1)
    new = strongest_edges(edges, result.alpha, n, sign=sign)
    pd.testing.assert_frame_equal(new, old)
    far = (new["alpha"] - result.alpha).abs().to_numpy()
    assert (far[:-1] >= far[1:]).all()


def test_heatmap_annotators_equals_the_page(graph):
    result, partition = graph
    for n in (3, 80):
        ids = list(result.nodes.sort_values("n_annotations", ascending=False)["annotator_id"])[:n]
        ids.sort(key=lambda a: (int(partition.camps.get(a, -1)) % 3, a))
        assert heatmap_annotators(result, partition, n) == ids
    camps = [int(partition.camps.get(a, -1)) for a in heatmap_annotators(result, partition, 80)]
    assert camps == sorted(camps, key=lambda c: c % 3)  # camp 0, camp 1, then no edge
