"""hlv_core.pair_matrix: the pairwise-alpha heatmap matrix and its clustering order, equal to what
pages/agreement.py and pages/graph.py compute today (so the switch preserves every cell)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from hlv_core import agreement, balance
from hlv_core.pair_matrix import cluster_order, most_active, pairwise_matrix
from hlv_core.samples import load_sample


def _agreement_page(dataset, pairs, heatmap_max):
    """Copy of the heatmap block of pages/agreement.py (commit 06b6ab3)."""
    defined = pairs.dropna(subset=["alpha"])
    activity = dataset.annotations.groupby("annotator_id")["item_id"].nunique()
    shown = activity.sort_values(ascending=False).index[:heatmap_max]
    shown = [a for a in shown if a in set(defined["annotator_a"]) | set(defined["annotator_b"])]
    idx = {a: i for i, a in enumerate(shown)}
    mat = np.full((len(shown), len(shown)), np.nan)
    sub = defined[defined["annotator_a"].isin(idx) & defined["annotator_b"].isin(idx)]
    ia = sub["annotator_a"].map(idx).to_numpy()
    ib = sub["annotator_b"].map(idx).to_numpy()
    mat[ia, ib] = sub["alpha"].to_numpy()
    mat[ib, ia] = sub["alpha"].to_numpy()
    if len(shown) >= 3:
        filled = np.where(np.isnan(mat), np.nanmean(mat), mat)
        dist = np.clip(1.0 - filled, 0.0, 2.0)
        np.fill_diagonal(dist, 0.0)
        dist = (dist + dist.T) / 2.0
        order = leaves_list(linkage(squareform(dist, checks=False), method="average"))
    else:
        order = np.arange(len(shown))
    return [str(shown[i]) for i in order], mat[np.ix_(order, order)]


@pytest.mark.parametrize(("name", "level", "min_shared", "heatmap_max"), [
    ("case_review", "nominal", 2, 60), ("case_review", "nominal", 30, 5),
    ("ratings", "ordinal", 2, 60), ("ratings", "interval", 2, 4),
])
def test_pairwise_matrix_equals_the_agreement_page(name, level, min_shared, heatmap_max):
    dataset = load_sample(name)
    pairs = agreement.pairwise_alpha(dataset.annotations, level=level, min_shared=min_shared,
                                     values=dataset.numeric_label_map(level))
    ids_old, z_old = _agreement_page(dataset, pairs, heatmap_max)
    defined = pairs.dropna(subset=["alpha"])
    shown = most_active(dataset.annotations, heatmap_max,
                        among=set(defined["annotator_a"]) | set(defined["annotator_b"]))
    new = pairwise_matrix(pairs, shown)
    assert new.ids == ids_old
    np.testing.assert_array_equal(new.matrix, z_old)
    assert [shown[i] for i in new.order] == new.ids


def test_pairwise_matrix_equals_the_graph_page():
    """pages/graph.py: top annotators by n_annotations, ordered by camp, cells = edges only."""
    dataset = load_sample("case_review")
    result = balance.sigma(dataset.annotations, level="nominal", min_shared=2)
    partition = balance.camps(result)
    ids = list(result.nodes.sort_values("n_annotations", ascending=False)["annotator_id"])[:80]
    ids.sort(key=lambda a: (int(partition.camps.get(a, -1)) % 3, a))
    pairs = result.pairs[result.pairs["annotator_a"].isin(ids)
                         & result.pairs["annotator_b"].isin(ids)]
    old = pd.DataFrame(np.nan, index=ids, columns=ids)
    mask = pairs["status"] == "edge"
    for a, b, value in zip(pairs["annotator_a"][mask], pairs["annotator_b"][mask],
                           pairs["alpha"][mask], strict=True):
        old.loc[a, b] = old.loc[b, a] = value
    edges = result.pairs[result.pairs["status"] == "edge"]
    new = pairwise_matrix(edges, ids, order="given").frame()
    pd.testing.assert_frame_equal(new, old)


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
