"""Plotly figures of the Certainty page (Stutz et al.): certainty curves over reliabilities
(Figure 6, left), per-case histograms, UA accuracy over reliabilities (Figure 6), cases sorted
and the spread over draws (section 3.2, Figure 7) and the one-case view (Figure 5). Figures and
tables only: the numbers come from ``hlv_core.certainty``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from hlv_core.certainty import certain_by_construction, set_coverage
from hlv_core.figures import bin_counts_max, count_axis, plot_text, plot_texts

__all__ = ["MODEL_COLORS", "MODEL_TECHNICAL", "MODEL_TITLES", "case_figure", "coverage_table",
           "curves_figure", "fmt_r", "overlay_histogram", "readers_table", "sample_histogram",
           "sorted_cases_figure", "sorted_values_figure", "ua_figure"]

# Plain names of the aggregation models; the technical names are one click deeper
# (MODEL_TECHNICAL). PrIRN comes in two IRN variants (Stutz et al., section 3, and their released
# code): the paper's (a tied block's weight 1/b is split among its classes; default) and the
# released code's (no split).
MODEL_TITLES = {"dirichlet": "Vote counts", "prirn": "Ranked votes (paper's rule)",
                "prirn_released": "Ranked votes (released code's rule)",
                "pl": "Full rankings (Plackett-Luce)"}
MODEL_TECHNICAL = {
    "dirichlet": "Dirichlet on the label counts: plausibilities ~ Dir(r · counts + a0).",
    "prirn": "PrIRN with the paper's IRN: each reader's block b (1-based) weighs 1/b, split "
             "equally among the block's tied classes; plausibilities ~ Dir(r · IRN + a0).",
    "prirn_released": "PrIRN with the released code's IRN: every tied class of block b gets the "
                      "full 1/b (the variant that reproduces DeepMind's released numbers).",
    "pl": "Plackett-Luce posterior by Gibbs sampling: Gamma(1, 1) prior on each plausibility, "
          "100 burn-in iterations; classes nobody ranked share one super-class whose mass is "
          "split by a Dirichlet(1) draw; each reader's ranking is repeated r times, so r is a "
          "whole number up to 10 (or ∞: maximum likelihood).",
}
MODEL_COLORS = {MODEL_TITLES["dirichlet"]: "#1f77b4", MODEL_TITLES["prirn"]: "#d62728",
                MODEL_TITLES["prirn_released"]: "#ff9896", MODEL_TITLES["pl"]: "#1f77b4"}
DASHES = {"prirn": "solid", "prirn_released": "dot", "dirichlet": "solid", "pl": "dash"}
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0}


def fmt_r(r: float) -> str:
    """A reliability as shown: ``∞ (full trust)`` or the number."""
    return "∞ (full trust)" if math.isinf(r) else f"{r:g}"


def curves_figure(cert: pd.DataFrame, n_classes: int) -> go.Figure:
    """Mean top-k certainty per finite reliability (``SweepResult.certainty`` rows), one colour
    per aggregation model, one dash per k. Values that are 1 by construction
    (:func:`~hlv_core.certainty.certain_by_construction`: reliability ∞, k >= K) are not drawn."""
    keep = [not certain_by_construction(k, r, n_classes)
            for k, r in zip(cert["k"], cert["reliability"], strict=True)]
    plot = cert[keep].sort_values(["model", "k", "reliability"])
    plot = plot.assign(model_title=plot["model"].map(MODEL_TITLES),
                       k_label="top-" + plot["k"].astype(str))
    fig = px.line(plot, x="reliability", y="mean_certainty", color="model_title",
                  line_dash="k_label", markers=True, log_x=True, color_discrete_map=MODEL_COLORS,
                  labels={"reliability": "reliability (log scale)",
                          "mean_certainty": "average certainty over cases",
                          "model_title": "model", "k_label": "labels in the set"})
    shown = sorted(float(r) for r in plot["reliability"].unique())
    fig.update_xaxes(tickvals=shown, ticktext=[f"{t:g}" for t in shown])
    fig.update_yaxes(range=[0, 1.02])
    fig.update_layout(height=420, margin={"t": 30, "b": 10}, legend=LEGEND_BELOW)
    return fig


def overlay_histogram(per_case: pd.DataFrame, column: str, axis_label: str, *, nbins: int = 20,
                      unit_range: bool = False, height: int = 300,
                      **layout) -> go.Figure:
    """Histogram of a per-case column, one overlaid colour per aggregation model; bins of equal
    width (the last one holds the maximum, e.g. certainty 1), whole-number ticks on the count
    axis."""
    values = per_case[column].astype(float)
    lo, hi = (0.0, 1.0) if unit_range else (float(values.min()), float(values.max()))
    size = (hi - lo) / nbins if hi > lo else 1.0
    frame = per_case.assign(model_title=per_case["model"].map(MODEL_TITLES))
    fig = px.histogram(frame, x=column, color="model_title", barmode="overlay",
                       opacity=0.7, color_discrete_map=MODEL_COLORS,
                       labels={column: axis_label, "model_title": "model"})
    fig.update_traces(xbins={"start": lo, "end": hi + size, "size": size})
    if unit_range:
        fig.update_xaxes(range=[0, 1 + size])
    top = bin_counts_max((g[column] for _, g in frame.groupby("model_title")), lo, size,
                         nbins + 1)
    count_axis(fig, top, title="cases")
    fig.update_layout(height=height, margin={"t": 30 if layout.get("title") else 10, "b": 10},
                      legend=LEGEND_BELOW, **layout)
    return fig


def ua_figure(sub: pd.DataFrame, det: pd.DataFrame, colours: dict[str, str],
              y_title: str) -> go.Figure:
    """UA metric per reliability for each (aggregation model, predictor) with sd error bars;
    dotted lines: the same metric against the point estimate (reliability ∞). ``colours``:
    predictor -> colour (``hlv_ui.palette.model_colours``); predictor names shown verbatim."""
    fig = go.Figure()
    for (model, pred), g in sub.groupby(["model", "predictor"]):
        g = g[np.isfinite(g["reliability"])].sort_values("reliability")
        if g.empty:
            continue
        fig.add_trace(go.Scatter(
            x=g["reliability"], y=g["mean"], mode="lines+markers",
            name=f"{plot_text(pred)} · {MODEL_TITLES[model]}",
            line={"color": colours[pred], "dash": DASHES[model]},
            error_y={"type": "data", "array": g["sd"].to_numpy()}))
    for _, row in det.drop_duplicates(["model", "predictor"]).iterrows():
        fig.add_hline(y=row["mean"], line_dash="dot", line_color=colours[row["predictor"]],
                      annotation_text=f"{plot_text(row['predictor'])} at ∞",
                      annotation_font_size=10)
    shown = sorted(float(r) for r in sub["reliability"].unique() if np.isfinite(r))
    fig.update_xaxes(type="log", tickvals=shown, ticktext=[f"{r:g}" for r in shown])
    fig.update_layout(xaxis_title="reliability (log scale)", yaxis_title=y_title, height=460,
                      margin={"t": 30, "b": 10}, legend=LEGEND_BELOW)
    return fig


def case_figure(summary: pd.DataFrame, samples: np.ndarray) -> go.Figure:
    """One case (Stutz et al., Figure 5): bars = point estimate of the classes in ``summary``
    (``certainty.case_summary``), dots = their sampled plausibilities (S, len(summary)). Labels
    are categories (``0`` / ``1`` are names, not numbers) and shown verbatim."""
    names = plot_texts(summary["class"])
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=summary["point_estimate"], name="votes at full trust (∞)",
                         marker_color="#9ecae1"))
    fig.add_trace(go.Box(x=np.repeat(names, samples.shape[0]), y=samples.T.ravel(),
                         name="plausible shares at this reliability", boxpoints="all",
                         jitter=0.5, pointpos=0, marker={"size": 3}, line={"width": 1},
                         marker_color="#2ca02c", fillcolor="rgba(0,0,0,0)"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=names,
                     title_text="label")
    fig.update_yaxes(range=[0, 1.02], title_text="share of the label (plausibility)")
    fig.update_layout(height=400, margin={"t": 40, "b": 10},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    return fig


def readers_table(readers: list, labels: list[str]) -> pd.DataFrame:
    """One row per reader of a ranking case: its differential as label blocks in rank order
    (``a > b = c``: blocks by ``>``, ties inside a block by ``=``)."""
    return pd.DataFrame({
        "reader": [f"reader {j + 1}" for j in range(len(readers))],
        "ranked answer (best first; '=' joins ties)": [
            " > ".join(" = ".join(labels[c] for c in block) for block in reader)
            for reader in readers]})


def coverage_table(samples: np.ndarray, predictions: dict[str, np.ndarray], k: int,
                   labels: list[str]) -> pd.DataFrame:
    """Per predictor: its top-``k`` label set for one case and the share of the (S, K) sampled
    plausibilities whose top-1 falls in it (:func:`hlv_core.certainty.set_coverage`)."""
    rows = []
    for name, q in predictions.items():
        pset, share = set_coverage(samples, q, k)
        rows.append({"model": name, f"model's top {k} label(s)": ", ".join(labels[c] for c in pset),
                     "share of draws whose top label is among them": share})
    return pd.DataFrame(rows)


def sorted_cases_figure(per_case: pd.DataFrame, column: str, axis_label: str,
                        height: int = 320) -> go.Figure:
    """A per-case column against the cases sorted by the first model's value (ascending), every
    model drawn in that same case order, so that the lines show where the models agree (Stutz
    et al., section 3.2, Figure 7, left: certainty sorted for PL, PrIRN in the same order)."""
    models = list(dict.fromkeys(per_case["model"]))
    first = per_case[per_case["model"] == models[0]].sort_values([column, "case"])
    order = {case: i for i, case in enumerate(first["case"])}
    fig = go.Figure()
    for model in models:
        g = per_case[per_case["model"] == model]
        g = g.assign(position=g["case"].map(order)).sort_values("position")
        fig.add_trace(go.Scatter(
            x=g["position"] + 1, y=g[column], mode="lines", name=MODEL_TITLES[model],
            line={"width": 1.5, "color": MODEL_COLORS[MODEL_TITLES[model]]}))
    fig.update_xaxes(title_text=f"cases, sorted by {MODEL_TITLES[models[0]]}")
    fig.update_yaxes(title_text=axis_label, range=[0, 1.02])
    fig.update_layout(height=height, margin={"t": 10, "b": 10}, legend=LEGEND_BELOW)
    return fig


def sorted_values_figure(values: pd.DataFrame, colours: dict[str, str], axis_label: str,
                         height: int = 360) -> go.Figure:
    """Per (aggregation model, predictor): its per-case values (``SweepResult.
    per_case_accuracy`` rows) sorted ascending against the share of cases (Stutz et al., Figure
    7, middle). Predictor names shown verbatim."""
    fig = go.Figure()
    for (model, pred), g in values.groupby(["model", "predictor"], sort=True):
        v = np.sort(g["value"].to_numpy(dtype=float))
        fig.add_trace(go.Scatter(
            x=np.arange(1, v.size + 1) / v.size, y=v, mode="lines",
            name=f"{plot_text(pred)} · {MODEL_TITLES[model]}",
            line={"color": colours[pred], "dash": DASHES[model]}))
    fig.update_xaxes(title_text="share of cases (sorted by the value)", range=[0, 1])
    fig.update_yaxes(title_text=axis_label, range=[0, 1.02])
    fig.update_layout(height=height, margin={"t": 10, "b": 10}, legend=LEGEND_BELOW)
    return fig


def sample_histogram(values: pd.DataFrame, colours: dict[str, str], axis_label: str,
                     nbins: int = 15, row_height: int = 150) -> go.Figure:
    """Histogram over the plausibility draws of a dataset-level metric (``SweepResult.
    per_sample`` rows), one row per (aggregation model, predictor) on its own x range, so that
    a narrow spread is still resolved (Stutz et al., section 3.2, Figure 7, right: how far the accuracy moves
    between the best and the worst draw)."""
    from plotly.subplots import make_subplots

    groups = list(values.groupby(["model", "predictor"], sort=True))
    titles = [f"{plot_text(pred)} · {MODEL_TITLES[model]}" for (model, pred), _ in groups]
    fig = make_subplots(rows=max(len(groups), 1), cols=1, subplot_titles=titles,
                        vertical_spacing=0.5 / max(len(groups), 1))
    for row, ((_, pred), g) in enumerate(groups, start=1):
        v = g["value"].to_numpy(dtype=float)
        lo, hi = float(v.min()), float(v.max())
        size = (hi - lo) / nbins if hi > lo else max(abs(lo), 1.0) * 1e-3
        fig.add_trace(go.Histogram(x=v, name=titles[row - 1], marker_color=colours[pred],
                                   xbins={"start": lo, "end": hi + size, "size": size},
                                   showlegend=False), row=row, col=1)
        count_axis(fig, bin_counts_max([v], lo, size, nbins + 1), title="draws", row=row, col=1)
    fig.update_xaxes(title_text=axis_label, row=max(len(groups), 1), col=1)
    fig.update_layout(height=60 + row_height * max(len(groups), 1), margin={"t": 30, "b": 10})
    return fig
