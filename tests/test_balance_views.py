"""hlv_core.balance: the Annotator graph screen's edge filter and heatmap annotators, on a
hand-made edge table and by their rules."""

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


@pytest.mark.parametrize(("sign", "n", "rows"), [(None, 3, ["e0", "e1", "e2"]),
                                                (1, 5, ["e0", "e2"]), (-1, 5, ["e1", "e3"]),
                                                (None, 10_000, ["e0", "e1", "e2", "e3"])])
def test_strongest_edges_by_hand(sign, n, rows):
    """Overall alpha 0.5: the edges sit 0.45, 0.4, 0.1 and 0.05 away from it."""
    edges = pd.DataFrame({"alpha": [0.95, 0.1, 0.6, 0.45], "sign": [1, -1, 1, -1]},
                         index=["e0", "e1", "e2", "e3"])
    shown = strongest_edges(edges, 0.5, n, sign=sign)
    assert list(shown.index) == rows
    pd.testing.assert_frame_equal(shown, edges.loc[rows])


@pytest.mark.parametrize("n", [10, 10_000])
def test_strongest_edges_on_a_graph(graph, n):
    result, _ = graph
    new = strongest_edges(result.edges, result.alpha, n)
    assert len(new) == min(n, len(result.edges))
    far = (new["alpha"] - result.alpha).abs().to_numpy()
    assert (far[:-1] >= far[1:]).all()


def test_heatmap_annotators_follow_the_rule(graph):
    """The n most active annotators (no one left out is more active than one shown), camp 0
    first, then camp 1, then those without an edge, each group by id."""
    result, partition = graph
    counts = result.nodes.set_index("annotator_id")["n_annotations"]
    for n in (3, 80):
        shown = heatmap_annotators(result, partition, n)
        assert len(shown) == min(n, len(counts)) and len(set(shown)) == len(shown)
        left_out = counts.drop(shown)
        assert left_out.empty or left_out.max() <= counts[shown].min()
        keys = [(int(partition.camps.get(a, -1)) % 3, a) for a in shown]
        assert keys == sorted(keys)
    camps = [int(partition.camps.get(a, -1)) for a in heatmap_annotators(result, partition, 80)]
    assert camps == sorted(camps, key=lambda c: c % 3)  # camp 0, camp 1, then no edge
