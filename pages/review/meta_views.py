"""The Meta-evaluation tab of the Case review page: human scores by rank centrality, judgements
per model pair, metric-vs-human correlations (Kurniawan et al., section 6, Table 5 / Figure 5),
the "N more judgements needed" notice, admin import and the exports. Every number comes from
:mod:`hlv_core.review` (the ``review rank`` command uses the same functions)."""

from __future__ import annotations

import hashlib
import html
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from hlv_core import review
from hlv_core.glossary import metric_label
from hlv_core.io import DataError
from hlv_core.text import md
from hlv_ui.explain import explain
from hlv_ui.palette import model_colours
from hlv_ui.state import show_data_error
from hlv_ui.widgets import SETTING, download_table, show_table

__all__ = ["scores_figure", "show_exports", "show_import", "show_meta", "trend_figure"]

KEY = "review"
_SCORE_COLUMNS = {
    "model": "Model",
    "score_in_denominator": st.column_config.NumberColumn("Score (ties in denominator)",
                                                          format="%.3f"),
    "score_decisive_only": st.column_config.NumberColumn("Score (decisive only)", format="%.3f"),
    "rank_in_denominator": "Rank (ties in denominator)",
    "rank_decisive_only": "Rank (decisive only)",
    "regularize_in_denominator": "Regularisation (ties in denominator)",
    "regularize_decisive_only": "Regularisation (decisive only)",
    "n_comparisons": "Comparisons",
}
_PAIR_COLUMNS = {
    "model_1": "Model 1", "model_2": "Model 2", "n": "Judgements",
    "model_1_wins": "Model 1 preferred", "model_2_wins": "Model 2 preferred",
    "both": "Both acceptable", "neither": "Neither acceptable",
    "decisive_share": st.column_config.NumberColumn("Share with a winner", format="%.3f"),
}
_CORR_COLUMNS = {
    "metric_name": "Metric", "metric": "Key", "r": st.column_config.NumberColumn(
        "Pearson r", format="%.3f"),
    "p_value": st.column_config.NumberColumn("p-value", format="%.3g"),
    "alternative": "Test direction", "n_models": "Models", "test": "Test", "note": "Note",
}


def show_import(store: review.ReviewStore, imported_by: str) -> None:
    """Admin import of a judgements CSV (audited: who, from which file, when)."""
    with st.expander("Import judgements (admin)"):
        upload = st.file_uploader("Import judgements (CSV exported by HLV Lens); every row "
                                  "records that you imported it, from which file and when",
                                  type=["csv"], key=f"{KEY}.import")
        if upload is None:
            return
        raw = upload.getvalue()
        digest = hashlib.sha256(raw).hexdigest()
        done = st.session_state.setdefault(f"{KEY}.imported", {})
        if digest not in done:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "import.csv"
                path.write_bytes(raw)
                try:
                    done[digest] = store.import_csv(path, imported_by=imported_by,
                                                    source_name=upload.name)
                except DataError as error:
                    show_data_error(DataError(error.problem, source=upload.name, row=error.row,
                                              column=error.column, fix=error.fix))
        if digest in done:
            st.success(f"Imported {done[digest]} new judgements from {md(upload.name)} (rows "
                       "already present are skipped).")


def scores_figure(scores: pd.DataFrame) -> go.Figure:
    """Bar chart of the human scores in the convention shown (ties in denominator); the axis
    starts at 0 with 2-decimal ticks, so equal scores never produce float-noise ticks."""
    shown = pd.DataFrame({"model": scores["model"].map(lambda m: html.escape(str(m))),
                          "score": scores["score_in_denominator"]})
    colours = {html.escape(str(m)): c for m, c in model_colours(scores["model"]).items()}
    fig = px.bar(shown, x="model", y="score", title="Human scores (rank centrality)",
                 text_auto=".2f", color="model", color_discrete_map=colours)
    fig.update_layout(showlegend=False)  # one bar per model, named on the axis
    top = float(np.nanmax(shown["score"])) if len(shown) else 1.0
    fig.update_yaxes(range=[0, max(top, 1e-6) * 1.2], tickformat=".2f",
                     title="score (higher = preferred)")
    fig.update_xaxes(title="model", type="category")
    return fig


def trend_figure(metric_table: pd.DataFrame, human: pd.Series, corr: pd.DataFrame) -> go.Figure:
    """Metric value vs human score per model, one panel per metric with r and a least-squares
    trend (cf. Kurniawan et al., Figure 5); near-constant panels get a readable range."""
    values = metric_table.reset_index().melt(id_vars="model", var_name="metric",
                                             value_name="value").dropna(subset=["value"])
    values["human_score"] = values["model"].map(human)
    r_of = corr.set_index("metric")["r"]
    values["panel"] = [f"{metric_label(m)} (r={r_of[m]:.2f})" if np.isfinite(r_of.get(m, np.nan))
                       else f"{metric_label(m)} (r undefined)" for m in values["metric"]]
    values["label"] = values["model"].map(lambda m: html.escape(str(m)))
    colours = {html.escape(str(m)): c
               for m, c in model_colours(values["model"].unique()).items()}
    fig = px.scatter(values, x="value", y="human_score", facet_col="panel", facet_col_wrap=4,
                     text="label", facet_row_spacing=0.18, hover_name="label",
                     color="label", color_discrete_map=colours,
                     labels={"value": "metric value", "human_score": "human score"},
                     title="Metric value vs human score per model (cf. Figure 5)")
    fig.update_xaxes(matches=None, showticklabels=True, tickformat=".3~g")
    top = float(np.nanmax(values["human_score"])) if len(values) else 1.0
    fig.update_yaxes(tickformat=".2f", range=[0, max(top, 1e-6) * 1.3])
    fig.update_traces(textposition="top center", textfont_size=10, showlegend=False)
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    by_axis: dict[str, list[np.ndarray]] = {}
    for trace in fig.data:
        by_axis.setdefault(trace.xaxis, []).append((np.asarray(trace.x, float),
                                                    np.asarray(trace.y, float), trace.yaxis))
    for axis, parts in by_axis.items():
        xs = np.concatenate([p[0] for p in parts])
        ys = np.concatenate([p[1] for p in parts])
        lo, hi = float(np.nanmin(xs)), float(np.nanmax(xs))
        span = hi - lo
        if span <= 1e-9 * max(1.0, abs(hi)):  # one value: no float-noise ticks
            span = 0.5 * max(abs(hi), 1e-3)
        # room for the model names at both ends (they sit above the points)
        fig.layout[axis.replace("x", "xaxis", 1)].range = [lo - 0.25 * span, hi + 0.35 * span]
        line = review.fit_line(xs, ys)
        if line is not None:
            ends = np.array([lo, hi])
            fig.add_trace(go.Scatter(x=ends, y=line[0] * ends + line[1], mode="lines",
                                     showlegend=False, hoverinfo="skip", xaxis=axis,
                                     yaxis=parts[0][2], line={"dash": "dot", "color": "grey"}))
    fig.update_layout(height=300 * int(np.ceil(values["metric"].nunique() / 4)))
    return fig


def _correlations(task: str, meta_models: list[str], scores: pd.DataFrame,
                  metrics: Callable[[tuple[str, ...]], pd.DataFrame] | None) -> None:
    st.subheader("Which metric agrees with the experts?")
    if task == "ranking" or metrics is None:
        st.info("Metric correlations need a multiclass, multi-label or rating dataset with "
                "model predictions.")
        return
    if len(meta_models) < 3:
        st.info(f"Metric correlations need judgements of at least 3 models; "
                f"{len(meta_models)} are judged so far.")
        return
    c1, c2 = st.columns(2)
    ties = c1.radio("Human scores from", review.TIES, key=f"{KEY}.ties", **SETTING,
                    horizontal=True,
                    format_func=lambda t: t.replace("_", " "))
    alternative = c2.radio("Test", ["two-sided", "greater"], horizontal=True,
                           key=f"{KEY}.alternative", **SETTING,
                           help="two-sided: |r| at least as large; greater: r at least as "
                                "large (positive association).")
    metric_table = metrics(tuple(meta_models))
    human = scores.set_index("model")[f"score_{ties}"]
    corr = review.metric_correlations(metric_table, human, alternative=alternative)
    n = len(meta_models)
    st.caption(f"Pearson r between each metric's value per model and the human scores, p-value "
               f"from a permutation test over all {n}! pairings ({alternative}). With {n} "
               f"models the smallest possible p is {review.smallest_p(n, alternative):.3g}; "
               "the paper had 14 training methods (Table 5).")
    named = corr.assign(metric_name=corr["metric"].map(metric_label))
    show_table(named[["metric_name", *corr.columns]], hide_index=True, width="stretch",
               column_config=_CORR_COLUMNS)
    download_table(corr, "review_metric_correlations.csv", key=f"{KEY}.dl_corr",
                   label="Download correlations")
    if corr["r"].isna().all():
        st.info("No correlation can be computed yet: "
                + md("; ".join(sorted(set(corr["note"]) - {""})) or "no metric values")
                + ". More judgements that separate the models will help.")
        return
    st.plotly_chart(trend_figure(metric_table, human, corr), width="stretch",
                    key=f"{KEY}.corr_chart")
    fig = go.Figure(go.Bar(x=[metric_label(m) for m in corr["metric"]], y=corr["r"],
                           text=[f"p={p:.3g}" for p in corr["p_value"]]))
    fig.update_layout(title="Correlation with human scores", yaxis_title="Pearson r",
                      yaxis_range=[-1, 1], yaxis_tickformat=".1f")
    st.plotly_chart(fig, width="stretch", key=f"{KEY}.corr_bar")
    download_table(metric_table.reset_index(), "review_metrics_per_model.csv",
                   key=f"{KEY}.dl_metrics", label="Download metric values per model")


def show_meta(judged: pd.DataFrame, all_models: list[str], task: str,
              metrics: Callable[[tuple[str, ...]], pd.DataFrame] | None) -> None:
    """Scores, pairs and correlations of the ``judged`` rows (each reviewer's latest), or how
    many more judgements are needed (:func:`hlv_core.review.judgement_sufficiency`)."""
    n_reviewers = judged["reviewer"].nunique()
    st.markdown(f"**{len(judged):,} judgement{'' if len(judged) == 1 else 's'}** (each "
                f"reviewer's latest per case and model pair) by **{n_reviewers}** "
                f"reviewer{'' if n_reviewers == 1 else 's'}.")
    explain("rank_centrality", "review_judgement")
    meta_models = all_models or sorted(set(judged["model_a"]) | set(judged["model_b"]))
    if judged.empty or len(meta_models) < 2:
        st.info("No judgements yet for these models. Judge some cases in the Review tab or "
                "import a CSV.")
        return
    known = set(judged["model_a"]) | set(judged["model_b"])
    unjudged = [m for m in meta_models if m not in known]
    meta_models = [m for m in meta_models if m in known] or meta_models
    if unjudged:
        st.info("Not compared yet, so left out of the scores: "
                + ", ".join(md(m) for m in unjudged) + ".")
    pairs = review.pair_table(judged, meta_models)
    need = review.judgement_sufficiency(judged, meta_models)
    if not need.enough:
        missing = ", ".join(f"{md(a)} vs {md(b)}" for a, b in need.missing_pairs)
        st.warning(f"**{need.needed} more judgements needed** before human scores are shown: "
                   f"{need.rule}. So far {need.n_judgements} judgements"
                   + (f"; never compared: {missing}" if missing else "") + ".",
                   icon=":material/hourglass_empty:")
        st.subheader("Judgements per model pair so far")
        show_table(pairs, hide_index=True, width="stretch", column_config=_PAIR_COLUMNS)
        return
    regularize = st.number_input(
        "Regularisation (pseudo-judgements each way for every pair)", 0.0, 100.0, 0.0, 0.1,
        key=f"{KEY}.regularize", **SETTING,
        help="0 = plain rank centrality. Applied automatically (with a warning) when the "
             f"comparisons do not determine a unique ranking ({review.DEFAULT_REGULARIZE}).")
    wins, comps = review.counts_from_judgements(judged, meta_models)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", review.DisconnectedComparisonWarning)
        scores, notes = review.human_scores(wins, comps, meta_models, regularize=regularize)
    for note in notes:
        st.warning(md(note))
    st.subheader("Human scores (rank centrality)")
    st.caption("Higher = preferred by the experts. A 'both acceptable' or 'neither' answer "
               "counts as a comparison that neither output won.")
    main_columns = [c for c in scores.columns if not c.endswith("_decisive_only")]
    show_table(scores[main_columns], hide_index=True, width="stretch",
               column_config=_SCORE_COLUMNS)
    download_table(scores, "review_human_scores.csv", key=f"{KEY}.dl_scores",
                   label="Download human scores (both conventions)")
    st.plotly_chart(scores_figure(scores), width="stretch", key=f"{KEY}.scores_chart")
    with st.expander("The other convention: decisive answers only, and why the two differ"):
        st.markdown("Rank centrality needs the share of comparisons each output won. Kurniawan "
                    "et al. (section 6) do not say how 'both acceptable' / 'neither' answers "
                    "enter that share. **Shown above**: they stay in the denominator (a "
                    "comparison neither output won). **Here**: they are dropped and only "
                    "decisive answers count, as `choix.rank_centrality` does (Negahban et al. "
                    "2012). With many ties the two scores, and sometimes the order, differ.")
        other = ["model"] + [c for c in scores.columns if c.endswith("_decisive_only")]
        show_table(scores[other], hide_index=True, width="stretch",
                   column_config=_SCORE_COLUMNS, key=f"{KEY}.scores_decisive")
    st.subheader("Judgements per model pair")
    show_table(pairs, hide_index=True, width="stretch", column_config=_PAIR_COLUMNS)
    download_table(pairs, "review_pairs.csv", key=f"{KEY}.dl_pairs",
                   label="Download judgements per pair")
    _correlations(task, meta_models, scores, metrics)


def show_exports(store: review.ReviewStore, access: review.Access, dataset_hash: str,
                 only_here: bool) -> None:
    """Downloads: the reviewer's own judgements; an admin also gets everyone's and the own
    labels (every dataset when ``only_here`` is off)."""
    st.subheader("Export")
    scope = dataset_hash if only_here else None
    mine = review.exportable_judgements(store, access, dataset_hash)
    download_table(mine, "review_my_judgements.csv", key=f"{KEY}.dl_mine",
                   label="Download my judgements (CSV)")
    if not access.is_admin:
        st.caption("You can download your own judgements (with your comments). Other "
                   "reviewers' comments stay private; the rankings above pool everyone's "
                   "judgements of this dataset. Admins export everything.")
        return
    everything = review.exportable_judgements(store, access, scope, everyone=True)
    download_table(everything, "review_judgements.csv", key=f"{KEY}.dl_all",
                   label="Download all judgements (CSV, admin)")
    own = review.exportable_own_labels(store, access, scope, everyone=True)
    if not own.empty:
        download_table(own, "review_own_labels.csv", key=f"{KEY}.dl_own",
                       label="Download reviewers' own labels (CSV, admin)")
