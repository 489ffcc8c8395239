"""hlv_core.pair_matrix: the pairwise-alpha heatmap matrix and its clustering order (the
Agreement and Annotator graph screens' heatmaps), by their rules and on hand-made pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import agreement, balance
from hlv_core.pair_matrix import cluster_order, most_active, pairwise_matrix
from hlv_core.samples import load_sample


def _assert_cells_are_the_pairs(matrix, pairs):
    """Every listed pair's value in both of its cells, NaN everywhere else (diagonal too)."""
    frame = matrix.frame()
    expected = pd.DataFrame(np.nan, index=frame.index, columns=frame.columns)
    listed = pairs[pairs["annotator_a"].isin(frame.index) & pairs["annotator_b"].isin(frame.index)]
    for a, b, value in listed[["annotator_a", "annotator_b", "alpha"]].itertuples(index=False):
        if np.isfinite(value):
            expected.loc[a, b] = expected.loc[b, a] = value
    pd.testing.assert_frame_equal(frame, expected)


@pytest.mark.parametrize(("name", "level", "min_shared", "heatmap_max"), [
    ("case_review", "nominal", 2, 60), ("case_review", "nominal", 30, 5),
    ("ratings", "ordinal", 2, 60), ("ratings", "interval", 2, 4),
])
def test_pairwise_matrix_of_the_agreement_heatmap(name, level, min_shared, heatmap_max):
    """The most active annotators with a defined pair, every cell its pair's alpha, in the
    clustering order of the matrix."""
    dataset = load_sample(name)
    pairs = agreement.pairwise_alpha(dataset.annotations, level=level, min_shared=min_shared,
                                     values=dataset.numeric_label_map(level))
    defined = pairs.dropna(subset=["alpha"])
    shown = most_active(dataset.annotations, heatmap_max,
                        among=set(defined["annotator_a"]) | set(defined["annotator_b"]))
    assert len(shown) <= heatmap_max
    new = pairwise_matrix(pairs, shown)
    assert sorted(new.ids) == sorted(shown)
    assert [shown[i] for i in new.order] == new.ids
    _assert_cells_are_the_pairs(new, defined)
    given = pairwise_matrix(pairs, shown, order="given")
    if len(shown) >= 3:
        assert list(new.order) == list(cluster_order(given.matrix))


def test_pairwise_matrix_of_the_graph_heatmap():
    """The Annotator graph: the given row order, cells from the sigma edges only."""
    dataset = load_sample("case_review")
    result = balance.sigma(dataset.annotations, level="nominal", min_shared=2)
    partition = balance.camps(result)
    ids = balance.heatmap_annotators(result, partition, 80)
    edges = result.pairs[result.pairs["status"] == "edge"]
    new = pairwise_matrix(edges, ids, order="given")
    assert new.ids == ids
    _assert_cells_are_the_pairs(new, edges)


def test_matrix_is_symmetric_with_blank_diagonal_and_clusters_agreeing_annotators():
    # two camps: a1-a3 agree with each other (0.9), b1-b3 too, across camps -0.5
    names = ["a1", "b1", "a2", "b2", "a3", "b3"]
    rows = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            a, b = sorted((x, y))
            rows.append((a, b, 0.9 if x[0] == y[0] else -0.5))
    pairs = pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "alpha"])
    res = pairwise_matrix(pairs, names)
    m = res.matrix
    np.testing.assert_array_equal(m, m.T)
    assert np.isnan(np.diag(m)).all()
    camps = [i[0] for i in res.ids]
    assert camps in (list("aaabbb"), list("bbbaaa"))
    assert list(pairwise_matrix(pairs, names, order="given").ids) == names
    with pytest.raises(ValueError, match="order"):
        pairwise_matrix(pairs, names, order="alphabetical")


def test_cluster_order_small_and_missing_cells():
    assert list(cluster_order(np.full((2, 2), np.nan))) == [0, 1]
    m = np.array([[np.nan, 0.8, np.nan], [0.8, np.nan, 0.1], [np.nan, 0.1, np.nan]])
    order = cluster_order(m)
    assert sorted(order) == [0, 1, 2]
    assert abs(list(order).index(0) - list(order).index(1)) == 1  # the agreeing pair adjacent
