"""hlv_core.figures.spring_layout: the Annotator graph's spring layout (Fruchterman and
Reingold 1991), vectorised in row blocks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core.figures import spring_layout


def _two_communities(size: int, seed: int = 0):
    """Two dense groups of ``size`` nodes joined by one edge."""
    rng = np.random.default_rng(seed)
    rows, cols = [], []
    for offset in (0, size):
        a, b = np.triu_indices(size, 1)
        keep = rng.random(a.size) < 0.6
        rows.append(a[keep] + offset)
        cols.append(b[keep] + offset)
    rows.append(np.array([0]))
    cols.append(np.array([size]))
    return np.concatenate(rows), np.concatenate(cols)


def test_two_communities_are_drawn_apart():
    rows, cols = _two_communities(30)
    pos = spring_layout(rows, cols, 60, seed=3)
    centre_a, centre_b = pos[:30].mean(axis=0), pos[30:].mean(axis=0)
    spread = max(np.linalg.norm(pos[:30] - centre_a, axis=1).mean(),
                 np.linalg.norm(pos[30:] - centre_b, axis=1).mean())
    assert np.linalg.norm(centre_a - centre_b) > 2 * spread


@given(st.integers(2, 40), st.integers(0, 2**31 - 1), st.integers(1, 17), st.data())
@settings(max_examples=40, deadline=None)
def test_seeded_bounded_and_the_same_for_any_block_size(n, seed, block, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               max_size=3 * n))
    rows = np.array([a for a, _ in pairs], dtype=np.int64)
    cols = np.array([b for _, b in pairs], dtype=np.int64)
    pos = spring_layout(rows, cols, n, seed=seed)
    assert pos.shape == (n, 2) and np.isfinite(pos).all()
    linked = np.zeros(n, dtype=bool)
    linked[rows[rows != cols]] = linked[cols[rows != cols]] = True
    if linked.any():  # nodes with an edge: centred, the largest coordinate 1
        assert np.abs(pos[linked]).max() == pytest.approx(1.0)
        assert abs(pos[linked].mean(axis=0)).max() < 1e-9
    assert np.allclose(np.hypot(pos[~linked, 0], pos[~linked, 1]), 1.2)  # the others around
    assert np.array_equal(pos, spring_layout(rows, cols, n, seed=seed, block=block))
    assert np.array_equal(pos, spring_layout(cols, rows, n, seed=seed))  # undirected


def test_edge_cases():
    empty = np.zeros(0, dtype=np.int64)
    assert spring_layout(empty, empty, 0).shape == (0, 2)
    alone = spring_layout(np.array([0]), np.array([0]), 3, seed=0)  # a self-loop only
    assert np.allclose(np.hypot(alone[:, 0], alone[:, 1]), 1.2)
    pair = spring_layout(np.array([0]), np.array([1]), 2, seed=0)
    assert np.allclose(pair, -pair[::-1]) and np.abs(pair).max() == pytest.approx(1.0)


def test_nodes_without_edges_do_not_squeeze_the_rest():
    """Isolated nodes are placed around, so the connected groups still fill [-1, 1]."""
    rows, cols = _two_communities(30)
    pos = spring_layout(rows, cols, 80, seed=3)  # nodes 60-79 have no edge
    assert np.abs(pos[:60]).max() == pytest.approx(1.0)
    assert np.allclose(np.hypot(pos[60:, 0], pos[60:, 1]), 1.2)
