"""Pyvis markup of the Annotator graph page (Basile's signed annotator graph): nodes coloured by
camp, + / - edges, a static legend, and node positions for graphs too big for live physics. UI
glue only: every number drawn comes from ``hlv_core.balance``.

User strings (annotator ids) are passed to vis-network **unescaped**, and still can never become
markup: vis-network draws labels on a canvas and puts string tooltips in with ``innerText``;
pyvis writes nodes and edges with Jinja's ``tojson`` (``<``, ``>``, ``&``, ``'`` become
``\u003c``...), so no string can close the ``<script>``. The one HTML path, pyvis' "link"
tooltip template (chosen when a node title contains ``href``), is switched off by
:class:`_TextTitles`. HTML-escaping here would show ``&lt;b&gt;`` to the user (escaped twice)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from pyvis.network import Network

from hlv_core import balance

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
    """Fruchterman-Reingold spring layout (networkx, 40 iterations) scaled to pixels."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(zip(edges["annotator_a"], edges["annotator_b"], strict=True))
    pos = nx.spring_layout(graph, seed=seed, iterations=40)
    scale = 60.0 * math.sqrt(len(nodes))
    return {k: (float(v[0]) * scale, float(v[1]) * scale) for k, v in pos.items()}


class _TextTitles(Network):
    """A pyvis network whose node titles are never read as HTML: pyvis switches to a template
    that sets tooltips with ``innerHTML`` when a node title contains ``href``; here the titles
    are held aside during that check and restored for rendering."""

    def generate_html(self, *args, **kwargs) -> str:
        self._titles = [node.pop("title", None) for node in self.nodes]
        try:
            return super().generate_html(*args, **kwargs)
        finally:
            for node, title in zip(self.nodes, self._titles, strict=True):
                if title is not None:
                    node["title"] = title

    def get_network_data(self):
        for node, title in zip(self.nodes, getattr(self, "_titles", []), strict=False):
            if title is not None:
                node["title"] = title
        return super().get_network_data()


def network_html(result: balance.SigmaResult, partition: balance.CampsResult,
                 edges: pd.DataFrame, positions: dict | None) -> str:
    """Self-contained vis-network HTML (no external resource); user strings shown verbatim as
    text (module doc)."""
    net = _TextTitles(height="600px", width="100%", cdn_resources="in_line")
    camp = partition.camps
    nodes = result.nodes
    biggest = max(int(nodes["n_annotations"].max()), 1)
    index = {a: i for i, a in enumerate(nodes["annotator_id"])}
    for row in nodes.itertuples(index=False):
        name = str(row.annotator_id)
        c = int(camp.get(row.annotator_id, -1))
        kwargs = {}
        if positions is not None:
            x, y = positions[row.annotator_id]
            kwargs = {"x": x, "y": y, "physics": False}
        net.add_node(
            index[row.annotator_id],
            label=name,
            title=(
                f"{name}\ncamp: {'none' if c < 0 else c}\nannotations: {row.n_annotations}\n"
                f"edges: {row.n_pos} + / {row.n_neg} −\n"
                f"triangles: {row.balanced} balanced / {row.unbalanced} unbalanced"
            ),
            color=CAMP_COLOURS[c],
            size=8 + 22 * math.sqrt(row.n_annotations / biggest),
            **kwargs,
        )
    for row in edges.itertuples(index=False):
        a, b = str(row.annotator_a), str(row.annotator_b)
        net.add_edge(
            index[row.annotator_a], index[row.annotator_b],
            title=(f"{a} – {b}\npairwise α = {row.alpha:.3f} (overall {result.alpha:.3f})\n"
                   f"shared items: {row.n_shared}\nsign: {'+' if row.sign > 0 else '−'}"),
            color="#2ca02c" if row.sign > 0 else "#d62728",
            dashes=bool(row.sign < 0),
            width=2 if row.sign > 0 else 1,
            # springs: + edges pull their ends together, - edges hold them apart, so camps
            # separate visually when physics runs
            length=90 if row.sign > 0 else 260,
        )
    net.options = {
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
    markup = net.generate_html()
    # pyvis' in-line template still links bootstrap from a CDN and vis.js from ../node_modules;
    # the vis library itself is in-lined, so drop every external <script src> and <link href>.
    markup = re.sub(r"<script[^>]*\bsrc=[^>]*>\s*</script>", "", markup, flags=re.S)
    markup = re.sub(r"<link[^>]*\bhref=[^>]*/?>", "", markup, flags=re.S)
    return markup.replace("<body>", "<body>" + LEGEND_HTML, 1)


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


