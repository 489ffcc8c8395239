"""vis-network markup of the Annotator graph page (Basile's signed annotator graph): nodes coloured by
camp, + / - edges, a static legend, and node positions for graphs too big for live physics. UI
glue only: every number drawn comes from ``hlv_core.balance``.

The page is written here, not by pyvis (pyvis' import alone costs about a second of CPU on a
cold server, and its template links a CDN); the vis-network library comes from pyvis' package
data. User strings (annotator ids) are passed to vis-network **unescaped**, and still can never
become markup: vis-network draws labels on a canvas and puts string tooltips in with
``innerText``; nodes and edges are written as JSON with ``<``, ``>``, ``&``, ``'`` as
``\u003c``... (as Jinja's ``tojson`` does), so no string can close the ``<script>``.
HTML-escaping here would show ``&lt;b&gt;`` to the user (escaped twice)."""

from __future__ import annotations

import functools
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from hlv_core import balance
from hlv_core.figures import spring_layout

__all__ = ["CAMP_COLOURS", "LEGEND_HTML", "camp_positions", "network_html", "spring_positions"]

CAMP_COLOURS = {0: "#1f77b4", 1: "#ff7f0e", -1: "#b0b0b0"}


def camp_positions(nodes: pd.DataFrame, camps: pd.Series) -> dict[str, tuple[float, float]]:
    """Positions without a physics run: each camp fills a disc (a sunflower spiral, most active
    annotators in the middle), camp 0 on the left, camp 1 on the right, annotators without an
    edge below. Linear in the number of annotators, so it suits graphs of any size."""
    order = nodes.sort_values("n_annotations", ascending=False, kind="stable")["annotator_id"]
    camp = order.map(camps).fillna(-1).astype(int).to_numpy()
    ids = order.to_numpy()
    spacing = 28.0
    out: dict[str, tuple[float, float]] = {}
    radius = spacing * math.sqrt(max(len(ids), 1) / 2)
    centres = {0: (-1.1 * radius, 0.0), 1: (1.1 * radius, 0.0), -1: (0.0, 1.6 * radius)}
    golden = math.pi * (3 - math.sqrt(5))
    for c, (cx, cy) in centres.items():
        members = ids[camp == c]
        k = np.arange(len(members))
        r = spacing * np.sqrt(k + 0.5)
        x, y = cx + r * np.cos(k * golden), cy + r * np.sin(k * golden)
        out.update(zip(members, zip(x.tolist(), y.tolist(), strict=True), strict=True))
    return out


def spring_positions(edges: pd.DataFrame, nodes: tuple[str, ...], seed: int
                     ) -> dict[str, tuple[float, float]]:
    """Fruchterman-Reingold spring layout (``hlv_core.figures.spring_layout``, 40 iterations)
    scaled to pixels."""
    index = pd.Index(nodes)
    rows = index.get_indexer(edges["annotator_a"])
    cols = index.get_indexer(edges["annotator_b"])
    known = (rows >= 0) & (cols >= 0)
    pos = spring_layout(rows[known], cols[known], len(nodes), seed=seed, iterations=40)
    scale = 60.0 * math.sqrt(len(nodes))
    return {node: (float(x) * scale, float(y) * scale)
            for node, (x, y) in zip(nodes, pos.tolist(), strict=True)}


@functools.lru_cache(maxsize=1)
def _vis_library() -> tuple[str, str]:
    """(JavaScript, CSS) of vis-network 9.1.2 as shipped in pyvis' package data, read from the
    files without importing pyvis (whose import pulls in networkx and IPython: about a second
    of CPU on a cold server)."""
    spec = importlib.util.find_spec("pyvis")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pyvis (which ships vis-network) is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / "templates" / "lib" / "vis-9.1.2"
    return ((folder / "vis-network.min.js").read_text(encoding="utf-8"),
            (folder / "vis-network.css").read_text(encoding="utf-8"))


def _js_json(value) -> str:
    """JSON for inside a ``<script>``: ASCII only, and ``<``, ``>``, ``&``, ``'`` as unicode
    escapes (what Jinja's ``tojson`` does), so no string can close the script element."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027")):
        text = text.replace(char, code)
    return text


def network_html(result: balance.SigmaResult, partition: balance.CampsResult,
                 edges: pd.DataFrame, positions: dict | None) -> str:
    """Self-contained vis-network HTML (no external resource): the vis-network library in-lined,
    the nodes, edges and options as JSON, user strings shown verbatim as text (module doc).
    The page's globals ``nodes``, ``edges`` (``vis.DataSet``) and ``network`` are those of
    pyvis' pages."""
    camp = partition.camps
    nodes = result.nodes
    ids = nodes["annotator_id"]
    index = pd.Series(np.arange(len(ids)), index=ids.to_numpy())
    biggest = max(int(nodes["n_annotations"].max()), 1) if len(nodes) else 1
    camps = ids.map(camp).fillna(-1).astype(int).to_numpy()
    names = ids.astype(str).to_numpy()
    sizes = 8 + 22 * np.sqrt(nodes["n_annotations"].to_numpy(dtype=float) / biggest)
    node_rows = []
    for i, row in enumerate(nodes.itertuples(index=False)):
        c = int(camps[i])
        node = {
            "color": CAMP_COLOURS[c], "id": i, "label": names[i], "shape": "dot",
            "size": float(sizes[i]),
            "title": (f"{names[i]}\ncamp: {'none' if c < 0 else c}\nannotations: "
                      f"{row.n_annotations}\nedges: {row.n_pos} + / {row.n_neg} −\n"
                      f"triangles: {row.balanced} balanced / {row.unbalanced} unbalanced"),
        }
        if positions is not None:
            x, y = positions[row.annotator_id]
            node.update(x=float(x), y=float(y), physics=False)
        node_rows.append(node)
    edge_rows = []
    if len(edges):
        a = index.loc[edges["annotator_a"].to_numpy()].to_numpy()
        b = index.loc[edges["annotator_b"].to_numpy()].to_numpy()
        for k, row in enumerate(edges.itertuples(index=False)):
            plus = row.sign > 0
            edge_rows.append({
                "color": "#2ca02c" if plus else "#d62728", "dashes": not plus,
                "from": int(a[k]),
                # springs: + edges pull their ends together, - edges hold them apart, so
                # camps separate visually when physics runs
                "length": 90 if plus else 260,
                "title": (f"{row.annotator_a} – {row.annotator_b}\npairwise α = "
                          f"{row.alpha:.3f} (overall {result.alpha:.3f})\nshared items: "
                          f"{row.n_shared}\nsign: {'+' if plus else '−'}"),
                "to": int(b[k]), "width": 2 if plus else 1,
            })
    options = {
        "nodes": {"font": {"size": 15, "strokeWidth": 4, "strokeColor": "#ffffff"}},
        "edges": {"smooth": False},
        "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": len(edges) > 3000},
        "physics": (
            {"enabled": False} if positions is not None else {
                "enabled": True,
                "solver": "forceAtlas2Based",
                "forceAtlas2Based": {"gravitationalConstant": -60, "springConstant": 0.05,
                                     "avoidOverlap": 0.8, "damping": 0.6},
                "stabilization": {"enabled": True, "iterations": 300, "fit": True},
            }
        ),
    }
    script, css = _vis_library()
    return (
        '<html><head><meta charset="utf-8"><style>' + css + "</style><script>" + script
        + "</script><style>#mynetwork{width:100%;height:600px;background-color:#ffffff;"
        "border:1px solid lightgray;position:relative;float:left}</style></head><body>"
        + LEGEND_HTML + '<div id="mynetwork"></div><script>'
        + "var nodes = new vis.DataSet(" + _js_json(node_rows) + ");"
        + "var edges = new vis.DataSet(" + _js_json(edge_rows) + ");"
        + "var network = new vis.Network(document.getElementById('mynetwork'), "
        + "{nodes: nodes, edges: edges}, " + _js_json(options) + ");"
        + "</script></body></html>"
    )


#: Static legend drawn over the graph's top-left corner (no user strings).
LEGEND_HTML = (
    '<div id="hlv-legend" style="position:absolute;top:8px;left:8px;z-index:5;'
    "background:rgba(255,255,255,0.92);border:1px solid #ddd;border-radius:6px;"
    'padding:6px 10px;font:12px/1.6 sans-serif;color:#333;pointer-events:none">'
    + "".join(
        f'<div><span style="display:inline-block;width:11px;height:11px;border-radius:50%;'
        f'background:{colour};margin-right:6px;vertical-align:-1px"></span>{text}</div>'
        for colour, text in ((CAMP_COLOURS[0], "camp 0"), (CAMP_COLOURS[1], "camp 1"),
                             (CAMP_COLOURS[-1], "no edge"))
    )
    + '<div><span style="display:inline-block;width:22px;border-top:3px solid #2ca02c;'
    'margin-right:6px;vertical-align:3px"></span>+ edge (pair α ≥ overall α)</div>'
    '<div><span style="display:inline-block;width:22px;border-top:2px dashed #d62728;'
    'margin-right:6px;vertical-align:3px"></span>− edge (pair α &lt; overall α)</div>'
    "<div style=\"color:#666\">hover a node or edge for details</div></div>"
)


