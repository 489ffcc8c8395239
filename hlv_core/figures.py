"""Figures drawn by more than one of the screens, the HTML report and the command line (plotly;
no computation beyond layout). They live in the engine because the report and the command line
may not import the UI; the screens import them from here. Screen-only figures live in the
screen's folder (``pages/<screen>/figures.py``)."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .balance import PAPER_TABLE2

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from .pair_matrix import PairMatrix

__all__ = [
    "annotators_per_item_figure",
    "bin_counts_max",
    "comparison_figure",
    "count_axis",
    "entropy_figure",
    "item_distribution_figure",
    "label_distribution_figure",
    "pair_heatmap",
    "plot_text",
    "plot_texts",
    "spring_layout",
]


def _label_positions(x, y) -> list[str]:
    """Greedy label placement: a point whose label would collide with a placed neighbour's
    (close in alpha and sigma) gets the next free position."""
    choices = ["top center", "bottom center", "middle right", "middle left", "top right",
               "bottom left"]
    placed: list[tuple[float, float, str]] = []
    out = []
    for xi, yi in zip(x, y, strict=True):
        near = {pos for (xj, yj, pos) in placed if abs(xi - xj) < 0.08 and abs(yi - yj) < 0.08}
        pos = next((c for c in choices if c not in near), "top center")
        placed.append((xi, yi, pos))
        out.append(pos)
    return out


def comparison_figure(table: pd.DataFrame, *, paper: bool = False, conventions: str = ""):
    r"""Basile's Figure 2: alpha (x) against sigma (y), one labelled point per dataset.

    .. math:: \sigma = \frac{\#\text{balanced triangles}}{\#\text{triangles}}, \quad
       \sigma - \sigma_{\mathrm{rnd}} \text{ drawn as a dotted line}

    with sigma_rnd as a hollow marker (Basile, sections 3-4, Figure 2). ``paper=True`` adds the
    published Table 2 values as grey reference points; ``conventions`` is shown under the title.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`hlv_core.balance.compare_datasets` output (rows with an error or undefined sigma
        are left out).
    paper : bool, default False
    conventions : str, default ""

    Returns
    -------
    plotly.graph_objects.Figure

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Sections 3-4, Table 2, Figure 2.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> from hlv_core.balance import compare_datasets
    >>> figure = comparison_figure(compare_datasets({"toy": annotations}, n_repeats=3))
    >>> type(figure).__name__
    'Figure'
    """
    import plotly.graph_objects as go

    ok = table[table["alpha"].notna() & table["sigma"].notna()]
    fig = go.Figure()
    if paper:
        names = list(PAPER_TABLE2)
        fig.add_trace(go.Scatter(
            x=[PAPER_TABLE2[k][0] for k in names], y=[PAPER_TABLE2[k][1] for k in names],
            mode="markers", name="σ in the paper (Table 2, nominal α)", text=names,
            marker={"size": 7, "color": "#c7c7c7", "symbol": "diamond"},
            customdata=[PAPER_TABLE2[k][2] for k in names],
            hovertemplate="paper: %{text}<br>α = %{x:.3f}<br>σ = %{y:.3f}"
            "<br>σ_rnd = %{customdata:.3f}<extra></extra>",
        ))
    xs, ys = [], []
    for row in ok.itertuples():
        if pd.notna(row.sigma_rnd):
            xs += [row.alpha, row.alpha, None]
            ys += [row.sigma, row.sigma_rnd, None]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line={"color": "#9e9e9e", "dash": "dot"},
                             hoverinfo="skip", showlegend=False))
    rnd = ok[ok["sigma_rnd"].notna()]
    fig.add_trace(go.Scatter(
        x=rnd["alpha"], y=rnd["sigma_rnd"], mode="markers", name="σ_rnd (shuffled)",
        marker={"symbol": "circle-open", "size": 10, "color": "#7f7f7f", "line": {"width": 2}},
        text=rnd["dataset"], hovertemplate="%{text}<br>α = %{x:.3f}<br>σ_rnd = %{y:.3f}"
        "<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=ok["alpha"], y=ok["sigma"], mode="markers+text", name="σ",
        marker={"size": 12, "color": "#1f77b4"}, text=ok["dataset"],
        textposition=_label_positions(ok["alpha"].to_numpy(float), ok["sigma"].to_numpy(float)),
        customdata=ok[["sigma_rnd", "n_annotators", "n_triangles"]].to_numpy(dtype=float),
        hovertemplate="%{text}<br>α = %{x:.3f}<br>σ = %{y:.3f}<br>σ_rnd = %{customdata[0]:.3f}"
        "<br>annotators: %{customdata[1]:.0f}<br>triangles: %{customdata[2]:.0f}<extra></extra>",
    ))
    fig.update_layout(
        title={"text": "Agreement (α) and systematicity (σ) by dataset (Basile, Figure 2)"
               + (f"<br><sup>{html.escape(conventions)}</sup>" if conventions else "")},
        xaxis_title="Krippendorff's α", yaxis_title="σ (share of balanced triangles)",
        yaxis_range=[-0.05, 1.1], height=520, legend={"orientation": "h", "y": -0.15},
        margin={"t": 80 if conventions else 60},
    )
    return fig


# ------------------------------------------------- drawn by the screens and by the report alike
# Plotly reads a few HTML tags (``<b>``, ``<br>``, ``<a>``) in names, tick labels, hover text and
# titles; :func:`plot_text` escapes a user string once, and plotly turns the entities back into
# the characters, so ``<b>x</b>`` is shown as typed (not bold, not ``&lt;b&gt;``).

def plot_text(value: object) -> str:
    """A user string for a plotly name, label, hover or title, shown verbatim.

    Parameters
    ----------
    value : object
        Any value; its ``str`` is escaped once.

    Returns
    -------
    str
        The escaped text (``&``, ``<``, ``>`` as entities; quotes kept).

    Examples
    --------
    >>> plot_text("<b>ann1</b> & co")
    '&lt;b&gt;ann1&lt;/b&gt; &amp; co'
    """
    return html.escape(str(value), quote=False)


def plot_texts(values: Iterable[object]) -> list[str]:
    """:func:`plot_text` of every value.

    Parameters
    ----------
    values : iterable of object
        Any values; the ``str`` of each is escaped once.

    Returns
    -------
    list of str
        The escaped texts, in order.

    Examples
    --------
    >>> plot_texts(["a<b", 3])
    ['a&lt;b', '3']
    """
    return [plot_text(v) for v in values]


def count_axis(fig: go.Figure, max_count: float, *, axis: str = "y",
               title: str | None = None, row: int | None = None,
               col: int | None = None) -> go.Figure:
    """Whole-number ticks on a count axis: plotly puts ticks at 0.5 steps when the largest
    count is small, so up to 10 every integer is a tick; above, plotly's own (integer) steps
    with an integer format.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Changed in place.
    max_count : float
        The largest count drawn on the axis.
    axis : {"y", "x"}
    title : str, optional
        The axis title.
    row, col : int, optional
        The subplot whose axis it is (``plotly.subplots.make_subplots``); all axes if omitted.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = count_axis(go.Figure(go.Bar(x=["a", "b"], y=[2, 3])), 3)
    >>> fig.layout.yaxis.dtick, fig.layout.yaxis.tickformat
    (1, ',d')
    """
    update = {"tickformat": ",d", "rangemode": "tozero"}
    if max_count <= 10:
        update.update(tick0=0, dtick=1)
    if title is not None:
        update["title_text"] = title
    (fig.update_yaxes if axis == "y" else fig.update_xaxes)(**update, row=row, col=col)
    return fig


def bin_counts_max(values: Iterable[np.ndarray], start: float, size: float, n_bins: int) -> int:
    """Largest bin count over several series binned like plotly with ``xbins`` (left-closed
    bins of width ``size`` from ``start``): the top of a histogram's count axis.

    Parameters
    ----------
    values : iterable of array-like
        The series (non-finite values are left out).
    start, size : float
        Left edge of the first bin and the bin width.
    n_bins : int
        Number of bins.

    Returns
    -------
    int
        The largest count in any bin of any series.

    Examples
    --------
    >>> import numpy as np
    >>> bin_counts_max([np.array([0.1, 0.15, 0.9]), np.array([0.5, np.nan])], 0.0, 0.25, 4)
    2
    """
    edges = start + size * np.arange(n_bins + 1)
    best = 0
    for v in values:
        arr = np.asarray(v, dtype=float)
        arr = arr[np.isfinite(arr)]
        if arr.size:
            best = max(best, int(np.histogram(arr, bins=edges)[0].max()))
    return best


def pair_heatmap(pm: PairMatrix, centre: float, *, title: str = "", clickable: bool = False,
                 max_height: int = 900, cell: int = 22) -> tuple[go.Figure, dict[str, str]]:
    """The heatmap of ``pm.matrix`` (diagonal blank) and the map escaped label -> annotator id
    (annotator ids are user strings: plotly renders a few HTML tags, so labels are escaped).

    Parameters
    ----------
    pm : PairMatrix
        Annotator x annotator values (:func:`hlv_core.pair_matrix.pairwise_matrix`), shape
        (A, A), with their ids.
    centre : float
        The value drawn white (e.g. the overall alpha); NaN means 0.
    title : str, optional
        Figure title.
    clickable : bool, default False
        Add an invisible marker per off-diagonal cell so a click selects the pair.
    max_height, cell : int
        Height cap and pixels per annotator row.

    Returns
    -------
    tuple of (plotly.graph_objects.Figure, dict of str to str)
        The figure and ``{escaped label: annotator id}``.

    Examples
    --------
    >>> import numpy as np
    >>> from hlv_core.pair_matrix import PairMatrix
    >>> pm = PairMatrix(ids=["a<1>", "b"], matrix=np.array([[np.nan, 0.4], [0.4, np.nan]]),
    ...                 order=np.array([0, 1]))
    >>> fig, labels = pair_heatmap(pm, 0.2)
    >>> labels
    {'a&lt;1&gt;': 'a<1>', 'b': 'b'}
    """
    import plotly.graph_objects as go

    raw = [str(a) for a in pm.ids]
    labels = [html.escape(a) for a in raw]
    z = pm.matrix
    centre = centre if np.isfinite(centre) else 0.0
    spread = float(np.nanmax(np.abs(z - centre))) if np.isfinite(z).any() else 1.0
    spread = max(spread, 0.05)
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, colorscale="RdBu", zmid=centre, zmin=centre - spread,
        zmax=centre + spread, xgap=1, ygap=1, colorbar={"title": "α_ij"},
        hoverinfo="skip" if clickable else None,
        hovertemplate=None if clickable else "%{y} – %{x}<br>α_ij = %{z:.3f}<extra></extra>",
    ))
    if clickable:
        # heatmap cells are not selectable in plotly: an invisible marker at the centre of every
        # off-diagonal cell carries the hover text and turns a click into a point selection
        ri, ci = np.nonzero(~np.eye(len(labels), dtype=bool))
        names = np.asarray(labels, dtype=object)  # arrays: plotly validates lists item by item
        fig.add_trace(go.Scatter(
            x=names[ci], y=names[ri], customdata=z[ri, ci],
            mode="markers", showlegend=False,
            marker={"symbol": "square", "size": 14, "color": "rgba(0,0,0,0)",
                    "line": {"width": 0}},
            selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 1}},
            hovertemplate="%{y} × %{x}: α = %{customdata:.3f}<extra></extra>",
        ))
    fig.update_layout(
        title=title or None, height=min(max_height, 260 + cell * len(labels)),
        yaxis={"autorange": "reversed"}, plot_bgcolor="#f3f3f3", xaxis={"tickangle": -45},
        hovermode="closest", margin={"t": 40 if title else 20},
    )
    if clickable:
        fig.update_layout(hoverdistance=-1)
    return fig, dict(zip(labels, raw, strict=True))


_HEIGHT = 360  # the Overview's figures, side by side in two columns


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str) -> go.Figure:
    fig.update_layout(title=title, height=_HEIGHT, margin={"t": 50, "b": 40, "l": 50, "r": 10},
                      xaxis_title=x_title, yaxis_title=y_title, showlegend=False, bargap=0.15)
    return fig


def label_distribution_figure(labels: pd.DataFrame, title: str) -> go.Figure:
    """Bars of annotations per label on a categorical axis in inventory order.

    Parameters
    ----------
    labels : pandas.DataFrame
        One row per label: ``label``, ``annotations`` (count), ``share`` (of all annotations).
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"label": ["yes", "no"], "annotations": [3, 1], "share": [.75, .25]})
    >>> label_distribution_figure(table, "Labels").data[0].y.tolist()
    [3, 1]
    """
    import plotly.graph_objects as go

    names = [plot_text(v) for v in labels["label"]]
    counts = labels["annotations"].to_numpy()
    fig = go.Figure(go.Bar(
        x=names, y=counts, customdata=labels["share"].to_numpy(),
        hovertemplate="label %{x}<br>%{y:,d} annotations (%{customdata:.1%})<extra></extra>"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=names)
    count_axis(fig, counts.max(initial=0))
    return _layout(fig, title, "label", "annotations")


def annotators_per_item_figure(per_item: np.ndarray) -> go.Figure:
    """Bars: how many items have 1, 2, 3, ... annotators (whole numbers on both axes).

    Parameters
    ----------
    per_item : numpy.ndarray
        Annotators per item, shape (N,).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = annotators_per_item_figure(np.array([3, 3, 5]))
    >>> fig.data[0].x.tolist(), fig.data[0].y.tolist()
    ([3, 5], [2, 1])
    """
    import plotly.graph_objects as go

    values, counts = np.unique(np.asarray(per_item, dtype=int), return_counts=True)
    fig = go.Figure(go.Bar(x=values, y=counts,
                           hovertemplate="%{y:,d} items with %{x} annotators<extra></extra>"))
    span = int(values.max() - values.min()) if values.size else 0
    fig.update_xaxes(tickformat=",d", **({"dtick": 1} if span <= 20 else {}))
    count_axis(fig, counts.max(initial=0))
    return _layout(fig, "Annotators per item", "annotators on the item", "items")


def entropy_figure(entropy: np.ndarray, bins: int = 20) -> go.Figure:
    """Histogram of per-item normalised entropy over [0, 1] (items per bin, whole numbers).

    The entropy is :math:`H_i / \\log K` per item (Kurniawan et al., section 3.1), as
    :meth:`hlv_core.io.Dataset.item_table` computes it; this function only draws it.

    Parameters
    ----------
    entropy : numpy.ndarray
        Per-item normalised entropy, shape (N,) (non-finite values left out).
    bins : int, default 20
        Bins over [0, 1].

    Returns
    -------
    plotly.graph_objects.Figure

    References
    ----------
    .. [1] Kurniawan et al., "Training and Evaluating with Human Label Variation", section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> int(sum(entropy_figure(np.array([0.0, 0.5, 1.0, np.nan]), bins=4).data[0].y))
    3
    """
    import plotly.graph_objects as go

    values = np.asarray(entropy, dtype=float)
    values = values[np.isfinite(values)]
    counts, edges = np.histogram(values, bins=bins, range=(0.0, 1.0))
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(go.Bar(
        x=centres, y=counts, width=np.diff(edges) * 0.95,
        customdata=np.column_stack([edges[:-1], edges[1:]]),
        hovertemplate="entropy %{customdata[0]:.2f}–%{customdata[1]:.2f}: %{y:,d} items"
                      "<extra></extra>"))
    fig.update_xaxes(range=[0, 1])
    count_axis(fig, counts.max(initial=0))
    # a short axis title: the long one was cut in the Overview's narrow column at 1200 px
    return _layout(fig, "Per-item normalised entropy", "entropy (0 = agreed)", "items")


def item_distribution_figure(labels: list[str], proportions: np.ndarray, *,
                             multilabel: bool) -> go.Figure:
    """One item's soft label: the share of its annotators per label (labels chosen by nobody
    left out), labels as categories.

    Parameters
    ----------
    labels : list of str
        The label inventory, shape (K,).
    proportions : numpy.ndarray
        Share of the item's annotators per label, shape (K,).
    multilabel : bool
        Shares may then sum past 1 (the axis grows to the largest).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = item_distribution_figure(["a", "b", "c"], np.array([.5, 0, .5]), multilabel=False)
    >>> list(fig.data[0].x)
    ['a', 'c']
    """
    import plotly.graph_objects as go

    shares = np.asarray(proportions, dtype=float)
    keep = shares > 0
    names = [plot_text(v) for v, k in zip(labels, keep, strict=True) if k]
    fig = go.Figure(go.Bar(x=names, y=shares[keep],
                           hovertemplate="label %{x}<br>%{y:.0%} of annotators<extra></extra>"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=names)
    top = 1.0 if not multilabel else max(1.0, float(shares.max(initial=0)))
    fig.update_yaxes(range=[0, top], tickformat=".0%")
    return _layout(fig, "Judgement distribution (soft label)", "label", "share of annotators")


def spring_layout(rows: np.ndarray, cols: np.ndarray, n_nodes: int, *, seed: int = 0,
                  iterations: int = 40, block: int = 1024) -> np.ndarray:
    r"""Force-directed node positions (Fruchterman and Reingold 1991), vectorised.

    .. math:: \Delta_i = \sum_{j} (p_i - p_j) \left(\frac{k^2}{d_{ij}^2}
       - A_{ij} \frac{d_{ij}}{k}\right), \quad k = \sqrt{1 / n}

    with :math:`d_{ij} = \max(\lVert p_i - p_j \rVert, 0.01)`: every pair repels, every edge
    also attracts. Each node moves along its :math:`\Delta_i` by the temperature t (at most),
    which starts at a tenth of the layout's width and cools linearly to 0 over the iterations;
    the run stops early when the mean step falls below 1e-4. Positions start uniform in the
    unit square (``numpy.random.default_rng(seed)``); the nodes with an edge are centred and
    scaled so that their largest coordinate is 1. Nodes without any edge are not in the run
    (repulsion alone would push them to the border and squeeze everything else into the
    middle): they sit evenly on a circle of radius 1.2 around the others. Whole-array work in
    blocks of ``block`` rows: memory O(block n), the same numbers for any block size.

    Parameters
    ----------
    rows, cols : ndarray of shape (E,)
        Node indices of the edges (either direction; repeated pairs count once).
    n_nodes : int
        Number of nodes n.
    seed : int, default 0
        Seed of the start positions.
    iterations : int, default 40
        Most iterations.
    block : int, default 1024
        Rows of the (block, n) pair arrays.

    Returns
    -------
    ndarray of shape (n, 2)
        Positions: within [-1, 1] for nodes with an edge, at distance 1.2 from the centre for
        the others.

    References
    ----------
    .. [1] T. M. J. Fruchterman and E. M. Reingold (1991). "Graph drawing by force-directed
       placement". Software: Practice and Experience 21(11), 1129-1164.

    Examples
    --------
    Two triangles joined by one edge end up as two groups; node 6 has no edge:

    >>> import numpy as np
    >>> rows, cols = np.array([0, 0, 1, 3, 3, 4, 2]), np.array([1, 2, 2, 4, 5, 5, 3])
    >>> pos = spring_layout(rows, cols, 7, seed=1)
    >>> pos.shape, bool(np.abs(pos[:6]).max() <= 1.0), round(float(np.hypot(*pos[6])), 6)
    ((7, 2), True, 1.2)
    >>> bool(np.linalg.norm(pos[0] - pos[1]) < np.linalg.norm(pos[0] - pos[4]))
    True
    """
    from scipy import sparse

    n = int(n_nodes)
    out = np.zeros((n, 2))
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    edge = rows != cols  # a self-loop has no length to pull on
    rows, cols = rows[edge], cols[edge]
    linked = np.zeros(n, dtype=bool)
    linked[rows] = linked[cols] = True
    alone = np.flatnonzero(~linked)
    if alone.size:
        angle = -np.pi / 2 + 2 * np.pi * (np.arange(alone.size) + 0.5) / alone.size
        out[alone] = 1.2 * np.column_stack([np.cos(angle), np.sin(angle)])
    nodes = np.flatnonzero(linked)
    m = nodes.size
    if m == 0:
        return out
    local = np.full(n, -1, dtype=np.int64)
    local[nodes] = np.arange(m)
    adjacency = sparse.csr_matrix((np.ones(rows.size), (local[rows], local[cols])), shape=(m, m))
    adjacency = ((adjacency + adjacency.T) > 0).astype(float).tocsr()
    pos = np.random.default_rng(seed).random((m, 2))
    k = np.sqrt(1.0 / m)
    t = 0.1 * float(np.ptp(pos, axis=0).max())
    cool = t / (iterations + 1)
    shift = np.empty((m, 2))
    for _ in range(iterations):
        x, y = pos[:, 0], pos[:, 1]
        for start in range(0, m, block):
            stop = min(start + block, m)
            dx = x[start:stop, None] - x[None, :]
            dy = y[start:stop, None] - y[None, :]
            distance = np.hypot(dx, dy)
            np.maximum(distance, 0.01, out=distance)
            force = (k * k) / (distance * distance)
            pull = adjacency[start:stop].toarray()
            pull *= distance
            pull /= k
            force -= pull
            shift[start:stop, 0] = (dx * force).sum(axis=1)
            shift[start:stop, 1] = (dy * force).sum(axis=1)
        length = np.hypot(shift[:, 0], shift[:, 1])
        np.maximum(length, 0.01, out=length)  # a node pushed nowhere does not jump
        step = shift * (t / length)[:, None]
        pos += step
        t -= cool
        if np.linalg.norm(step) / m < 1e-4:
            break
    pos -= pos.mean(axis=0)
    top = np.abs(pos).max()
    out[nodes] = pos / top if top > 0 else pos
    return out
