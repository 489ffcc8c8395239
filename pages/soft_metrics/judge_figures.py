"""Figures of the "Against the human pool" views of the Soft vs hard metrics page: the human
ceiling (dot-and-whisker), the winning rate versus epsilon, the reliability diagram and the
DistCE histogram. Plotly only; every number comes from ``hlv_core.judging`` /
``hlv_core.calibration``; user strings (annotator and model names) go through
``hlv_core.figures.plot_text``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hlv_core.figures import plot_text, plot_texts
from hlv_core.glossary import metric_label

__all__ = ["ceiling_figure", "distce_histogram", "reliability_figure", "sweep_figure"]


def ceiling_figure(per_annotator: pd.DataFrame, table: pd.DataFrame, model: str | None
                   ) -> go.Figure:
    """Every scored annotator's value with its bootstrap CI per metric (grey dots and whiskers,
    spread vertically), the human ceiling (black bar), and the model on the same targets
    (diamond) and against the full soft label (cross)."""
    metrics = [m for m in table["metric"] if table.set_index("metric").at[m, "n_defined"] > 0]
    y_of = {m: i for i, m in enumerate(metrics)}
    per = per_annotator[per_annotator["metric"].isin(metrics) & per_annotator["value"].notna()]
    fig = go.Figure()
    if not per.empty:
        codes = pd.factorize(per["annotator"])[0]
        n = max(int(codes.max()) + 1, 1)
        offset = (codes / max(n - 1, 1) - 0.5) * 0.5 if n > 1 else np.zeros(len(per))
        y = per["metric"].map(y_of).to_numpy() + offset
        fig.add_trace(go.Scatter(
            x=per["value"], y=y, mode="markers", name="annotators (vs the others)",
            marker={"color": "rgba(90,90,90,0.55)", "size": 6},
            error_x={"type": "data", "symmetric": False,
                     "array": (per["upper"] - per["value"]).fillna(0).to_numpy(),
                     "arrayminus": (per["value"] - per["lower"]).fillna(0).to_numpy(),
                     "thickness": 1, "color": "rgba(90,90,90,0.35)"},
            text=plot_texts(per["annotator"]),
            hovertemplate="%{text}: %{x:.3f}<extra></extra>"))
    t = table.set_index("metric").loc[metrics]
    ys = list(range(len(metrics)))
    fig.add_trace(go.Scatter(x=t["ceiling"], y=ys, mode="markers", name="human ceiling (mean)",
                             marker={"symbol": "line-ns-open", "size": 22, "color": "black",
                                     "line": {"width": 3}},
                             hovertemplate="ceiling %{x:.3f}<extra></extra>"))
    if model is not None:
        label = plot_text(model)
        fig.add_trace(go.Scatter(x=t["model_same_targets"], y=ys, mode="markers",
                                 name=f"{label}: same targets", marker={
                                     "symbol": "diamond", "size": 12, "color": "#d62728"},
                                 hovertemplate="model, same targets %{x:.3f}<extra></extra>"))
        fig.add_trace(go.Scatter(x=t["model_full"], y=ys, mode="markers",
                                 name=f"{label}: all annotators", marker={
                                     "symbol": "x", "size": 10, "color": "#1f77b4"},
                                 hovertemplate="model, full soft label %{x:.3f}<extra></extra>"))
    fig.update_layout(
        height=120 + 42 * len(metrics), margin={"l": 10, "r": 10, "t": 40, "b": 40},
        title="Every annotator against the others, and the model on the same items",
        xaxis_title="score (higher is better)", legend={"orientation": "h", "y": -0.12},
        yaxis={"tickmode": "array", "tickvals": ys,
               "ticktext": [metric_label(m) for m in metrics], "autorange": "reversed"})
    return fig


def sweep_figure(sweep: pd.DataFrame, epsilon: float) -> go.Figure:
    """Winning rate versus epsilon, one line per model (the constant-majority baseline dashed),
    the pass line at 0.5 and the chosen epsilon."""
    fig = go.Figure()
    for name, rows in sweep.groupby("model", sort=False):
        baseline = "baseline" in str(name)
        fig.add_trace(go.Scatter(x=rows["epsilon"], y=rows["winning_rate"], mode="lines+markers",
                                 name=plot_text(name),
                                 line={"dash": "dash" if baseline else "solid"}))
    fig.add_hline(y=0.5, line_dash="dot", annotation_text="passes at 0.5")
    fig.add_vline(x=epsilon, line_color="grey", annotation_text=f"ε = {epsilon:g}")
    fig.update_layout(title="Winning rate versus epsilon", xaxis_title="epsilon (margin)",
                      yaxis_title="winning rate ω", yaxis_range=[-0.05, 1.05], height=380,
                      margin={"l": 10, "r": 10, "t": 40, "b": 40})
    return fig


def reliability_figure(bins: pd.DataFrame, model: str) -> go.Figure:
    """Reliability diagram against the human majority: accuracy per confidence bin (bars),
    the mean confidence of the bin (line) and the diagonal of perfect calibration."""
    mid = (bins["lower"] + bins["upper"]) / 2
    fig = go.Figure()
    fig.add_trace(go.Bar(x=mid, y=bins["accuracy"], width=(bins["upper"] - bins["lower"]) * 0.9,
                         name="accuracy vs human majority", customdata=bins["n"],
                         hovertemplate="accuracy %{y:.3f} (%{customdata} items)<extra></extra>"))
    fig.add_trace(go.Scatter(x=mid, y=bins["confidence"], mode="lines+markers",
                             name="mean confidence"))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration",
                             line={"dash": "dot", "color": "grey"}))
    fig.update_layout(title=f"Reliability diagram: {plot_text(model)}",
                      xaxis_title="model confidence (max probability)",
                      yaxis_title="share correct", xaxis_range=[0, 1], yaxis_range=[0, 1.02],
                      height=380, margin={"l": 10, "r": 10, "t": 40, "b": 40})
    return fig


def distce_histogram(per_item: dict[str, np.ndarray]) -> go.Figure:
    """Per-item DistCE (TVD between model and human distributions), one histogram per row
    of ``per_item`` (model, oracle), 20 bins on [0, 1]."""
    fig = go.Figure()
    for name, values in per_item.items():
        fig.add_trace(go.Histogram(x=values, name=plot_text(name), opacity=0.6,
                                   xbins={"start": 0, "end": 1, "size": 0.05},
                                   histnorm="probability"))
    fig.update_layout(barmode="overlay", title="DistCE per item", height=360,
                      xaxis_title="distance to the human distribution (TVD)",
                      yaxis_title="share of items", margin={"l": 10, "r": 10, "t": 40, "b": 40})
    return fig
