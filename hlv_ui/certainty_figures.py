"""Plotly figures of the Certainty page (Stutz et al.): certainty curves over reliabilities
(Figure 6, left), per-case histograms, UA accuracy over reliabilities (Figure 6) and the one-case
view (Figure 5). Figures only: the numbers come from ``hlv_core.certainty`` and
``hlv_core.certainty``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from hlv_core.certainty import set_coverage

__all__ = ["MODEL_COLORS", "MODEL_TITLES", "case_figure", "coverage_table", "readers_table", "curves_figure", "fmt_r",
           "overlay_histogram", "ua_figure"]

# PrIRN in two IRN variants (Stutz et al., section 3, and their released code): the paper's (a
# tied block's weight 1/b is split among its classes; default) and the released code's (no split)
MODEL_TITLES = {"dirichlet": "Dirichlet", "prirn": "PrIRN (paper IRN: ties split)",
                "prirn_released": "PrIRN (released-code IRN: ties not split)",
                "pl": "Plackett-Luce"}
MODEL_COLORS = {"Dirichlet": "#1f77b4", MODEL_TITLES["prirn"]: "#d62728",
                MODEL_TITLES["prirn_released"]: "#ff9896", "Plackett-Luce": "#1f77b4"}
DASHES = {"prirn": "solid", "prirn_released": "dot", "dirichlet": "solid", "pl": "dash"}


def fmt_r(r: float) -> str:
    return "∞ (point estimate)" if math.isinf(r) else f"{r:g}"


def curves_figure(cert: pd.DataFrame, reliabilities: Sequence[float]) -> go.Figure:
    """Mean top-k certainty per reliability (``SweepResult.certainty`` rows); ∞ drawn last."""
    finite = [r for r in reliabilities if not math.isinf(r)]
    inf_x = max(finite) * 3 if finite else 1.0
    plot = cert.assign(
        x=cert["reliability"].where(np.isfinite(cert["reliability"]), inf_x),
        model_title=cert["model"].map(MODEL_TITLES), k_label="top-" + cert["k"].astype(str))
    fig = px.line(plot, x="x", y="mean_certainty", color="model_title", line_dash="k_label",
                  markers=True, log_x=True, color_discrete_map=MODEL_COLORS,
                  labels={"x": "reliability (log scale; last point = ∞)",
                          "mean_certainty": "mean annotation certainty", "model_title": "model",
                          "k_label": "set size"})
    if finite:
        fig.update_xaxes(tickvals=finite + [inf_x],
                         ticktext=[f"{t:g}" for t in finite] + ["∞"])
    fig.update_yaxes(range=[0, 1.02])
    fig.update_layout(height=380, margin={"t": 30, "b": 10},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def overlay_histogram(per_case: pd.DataFrame, column: str, axis_label: str, *, nbins: int = 20,
                      unit_range: bool = False, height: int = 300,
                      **layout) -> go.Figure:
    """Histogram of a per-case column, one overlaid colour per aggregation model."""
    frame = per_case.assign(model_title=per_case["model"].map(MODEL_TITLES))
    fig = px.histogram(frame, x=column, color="model_title", barmode="overlay", nbins=nbins,
                       opacity=0.7, color_discrete_map=MODEL_COLORS,
                       range_x=[0, 1.0001] if unit_range else None,
                       labels={column: axis_label, "model_title": "model"})
    fig.update_layout(height=height, margin={"t": 30 if layout.get("title") else 10, "b": 10},
                      yaxis_title="cases", legend={"orientation": "h", "y": -0.35}, **layout)
    return fig


def ua_figure(sub: pd.DataFrame, det: pd.DataFrame, predictors: Sequence[str],
              y_title: str) -> go.Figure:
    """UA metric per reliability for each (aggregation model, predictor) with sd error bars;
    dotted lines: the deterministic value (reliability ∞)."""
    palette = px.colors.qualitative.Plotly
    colours = {p: palette[i % len(palette)] for i, p in enumerate(predictors)}
    fig = go.Figure()
    for (model, pred), g in sub.groupby(["model", "predictor"]):
        g = g[np.isfinite(g["reliability"])].sort_values("reliability")
        if g.empty:
            continue
        fig.add_trace(go.Scatter(
            x=g["reliability"], y=g["mean"], mode="lines+markers",
            name=f"{pred} · {model}", line={"color": colours[pred], "dash": DASHES[model]},
            error_y={"type": "data", "array": g["sd"].to_numpy()}))
    for _, row in det.drop_duplicates(["model", "predictor"]).iterrows():
        fig.add_hline(y=row["mean"], line_dash="dot", line_color=colours[row["predictor"]],
                      annotation_text=f"{row['predictor']} · {row['model']} at ∞",
                      annotation_font_size=10)
    shown = sorted(float(r) for r in sub["reliability"].unique() if np.isfinite(r))
    fig.update_xaxes(type="log", tickvals=shown, ticktext=[f"{r:g}" for r in shown])
    fig.update_layout(xaxis_title="reliability (log scale)", yaxis_title=y_title, height=420,
                      margin={"t": 30, "b": 10})
    return fig


def case_figure(summary: pd.DataFrame, samples: np.ndarray) -> go.Figure:
    """One case (Stutz et al., Figure 5): bars = point estimate of the classes in ``summary``
    (``certainty.case_summary``), dots = their sampled plausibilities (S, len(summary))."""
    names = summary["class"].tolist()
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=summary["point_estimate"], name="point estimate (r = ∞)",
                         marker_color="#9ecae1"))
    fig.add_trace(go.Box(x=np.repeat(names, samples.shape[0]), y=samples.T.ravel(),
                         name="sampled plausibilities", boxpoints="all", jitter=0.5, pointpos=0,
                         marker={"size": 3}, line={"width": 1}, marker_color="#2ca02c",
                         fillcolor="rgba(0,0,0,0)"))
    fig.update_layout(height=380, margin={"t": 30, "b": 10}, yaxis_title="plausibility",
                      legend={"orientation": "h", "y": 1.1})
    return fig


def readers_table(readers: list, labels: list[str]) -> pd.DataFrame:
    """One row per reader of a ranking case: its differential as label blocks in rank order
    (``a > b = c``: blocks by ``>``, ties inside a block by ``=``)."""
    return pd.DataFrame({
        "reader": [f"reader {j + 1}" for j in range(len(readers))],
        "differential (blocks in rank order; ties joined by ' = ')": [
            " > ".join(" = ".join(labels[c] for c in block) for block in reader)
            for reader in readers]})


def coverage_table(samples: np.ndarray, predictions: dict[str, np.ndarray], k: int,
                   labels: list[str]) -> pd.DataFrame:
    """Per predictor: its top-``k`` label set for one case and the share of the (S, K) sampled
    plausibilities whose top-1 falls in it (:func:`hlv_core.certainty.set_coverage`)."""
    rows = []
    for name, q in predictions.items():
        pset, share = set_coverage(samples, q, k)
        rows.append({"predictor": name, f"top-{k} set": ", ".join(labels[c] for c in pset),
                     "share of samples whose top-1 is in the set": share})
    return pd.DataFrame(rows)
