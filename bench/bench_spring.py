"""Benchmark: the Annotator graph's spring layout (``hlv_core.figures.spring_layout``) against
networkx on md_agreement's signed graph (819 annotators, 10,013 edges, 796 with an edge).

Run: ``python bench/bench_spring.py [--repeat 3]``.

Same process, best of ``--repeat`` CPU seconds on each side, alternating (``_timing.race``):

1. against ``networkx.spring_layout(graph, seed=0, iterations=40)``, what a user of networkx
   writes (from 500 nodes on it takes its "energy" method, an L-BFGS fit with gravity: another
   layout, so only the time is compared, and the shapes of the results);
2. against networkx's own Fruchterman-Reingold iterations started from the same positions as
   ours, both its paths: ``method="force"`` (from 500 nodes on a Python loop over the nodes) and
   its whole-array iterations (the path it takes below 500 nodes, called directly): the
   positions asserted equal to the whole-array path's to 1e-9 after 1 and 5 iterations (the same
   algorithm; rounding differences then grow through the iterations, the layout being a
   chaotic map), timed at 40.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import race  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "md_agreement"


def main() -> None:
    import networkx as nx

    from hlv_core import balance
    from hlv_core.figures import spring_layout
    from hlv_core.io import load

    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    result = balance.sigma(load(DATA), level="nominal", min_shared=balance.PAPER_MIN_SHARED)
    nodes = list(result.nodes["annotator_id"])
    index = {a: i for i, a in enumerate(nodes)}
    rows = result.edges["annotator_a"].map(index).to_numpy()
    cols = result.edges["annotator_b"].map(index).to_numpy()
    linked = np.unique(np.concatenate([rows, cols]))
    print(f"md_agreement signed graph: {len(nodes)} annotators, {len(rows):,} edges, "
          f"{linked.size} with an edge")

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(zip(result.edges["annotator_a"], result.edges["annotator_b"],
                             strict=True))
    best = race("vs spring_layout", lambda: spring_layout(rows, cols, len(nodes), seed=0),
                lambda: nx.spring_layout(graph, seed=0, iterations=40), args.repeat,
                same=lambda ours, theirs: ours.shape == (len(theirs), 2),
                sides=("ours", "networkx"))
    print(f"networkx.spring_layout (energy method): {best['networkx']:.2f} s, ours "
          f"{best['ours']:.2f} s CPU: {best['networkx'] / best['ours']:.1f}x")

    # the same iterations from the same start: ours on the nodes with an edge, networkx's force
    # method given our start positions (its pos= argument rescales nothing when all are given)
    sub = graph.subgraph([nodes[i] for i in linked])
    order = list(sub)
    start = dict(zip(order, np.random.default_rng(0).random((len(order), 2)), strict=True))
    local = {a: i for i, a in enumerate(order)}
    sub_rows = np.array([local[a] for a, _ in sub.edges()])
    sub_cols = np.array([local[b] for _, b in sub.edges()])

    def ours(iterations=40):
        return spring_layout(sub_rows, sub_cols, len(order), seed=0, iterations=iterations)

    def theirs(iterations=40):
        pos = nx.spring_layout(sub, pos=start, iterations=iterations, method="force", seed=0)
        return np.array([pos[a] for a in order])

    dense = nx.to_numpy_array(sub, nodelist=order)
    first = np.array([start[a] for a in order])

    def theirs_dense(iterations=40):  # networkx's whole-array iterations (its < 500 nodes path)
        from networkx.drawing import layout

        pos = layout._fruchterman_reingold(dense, None, first.copy(), None, iterations, 1e-4,
                                           2, None)
        return layout.rescale_layout(pos, scale=1)

    # one algorithm: the same positions as networkx's whole-array iterations after a few steps
    # (rounding differences, ~1e-16 after one, grow through the iterations: the layout is a
    # chaotic map; networkx's own two paths differ by ~1e-6 after one iteration)
    for iterations in (1, 5):
        gap = float(np.abs(ours(iterations) - theirs_dense(iterations)).max())
        assert gap < 1e-9, (iterations, gap)
        print(f"after {iterations} iteration(s) from the same start: ours and networkx's "
              f"whole-array iterations differ by at most {gap:.1e}")
    for name, reference in (("force method", theirs), ("whole-array", theirs_dense)):
        best = race(name, ours, reference, args.repeat, same=lambda a, b: a.shape == b.shape,
                    sides=("ours", "networkx"))
        print(f"Fruchterman-Reingold, 40 iterations from the same start ({len(order)} nodes), "
              f"networkx {name} {best['networkx']:.2f} s, ours {best['ours']:.2f} s CPU: "
              f"{best['networkx'] / best['ours']:.1f}x")


if __name__ == "__main__":
    main()
