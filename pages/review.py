"""Case review and meta-evaluation (Kurniawan et al., section 6): experts judge pairs of model outputs,
rank centrality turns the judgements into human scores, every metric is correlated with them."""

from __future__ import annotations

import hashlib
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from hlv_core import review
from hlv_core.io import DataError, item_level_predictions, model_matrices
from hlv_core.scoring import metric_matrix, score_models
from hlv_core.text import md
from hlv_ui.auth import auth_configured, current_identity, desk_name_form
from hlv_ui.review_round import KEY, show_case, show_save_status
from hlv_ui.state import frame_hash, get_predictions, require_dataset, show_data_error
from hlv_ui.widgets import download_table, show_table

st.title("Case review and meta-evaluation")
st.caption(
    "Experts compare two models' label distributions for the same case without knowing which "
    "model is which; rank centrality turns the pairwise judgements into human scores of the "
    "models, and every metric is checked against them (Kurniawan et al., *Training and "
    "Evaluating with Human Label Variation*, section 6)."
)

dataset = require_dataset()
DATASET_HASH = dataset.content_hash


# ------------------------------------------------------------------------ cached engine calls
@st.cache_data(show_spinner="Preparing model outputs…", max_entries=16)
def model_outputs(_dataset, dataset_hash: str, _preds: pd.DataFrame, preds_hash: str
                  ) -> dict[str, pd.DataFrame]:
    """model -> (items x labels) probability table of its item-level predictions."""
    del dataset_hash, preds_hash
    matrices, _ = model_matrices(_preds, _dataset)
    return {model: pd.DataFrame(Q, index=ids, columns=list(_dataset.labels))
            for model, (ids, Q) in matrices.items()}


@st.cache_data(show_spinner="Computing every metric per model…", max_entries=16)
def metrics_per_model(_dataset, dataset_hash: str, _preds: pd.DataFrame, preds_hash: str,
                      models: tuple[str, ...]) -> pd.DataFrame:
    """Every metric of each model on the items it predicted (models x metrics)."""
    del dataset_hash, preds_hash
    return metric_matrix(score_models(_dataset, _preds, models=models, lewidi=False))


@st.cache_data(max_entries=8)
def item_entropy(_dataset, dataset_hash: str) -> pd.Series:
    del dataset_hash
    return _dataset.entropy()


preds = item_level_predictions(get_predictions())
PREDS_HASH = frame_hash(preds)
outputs = model_outputs(dataset, DATASET_HASH, preds, PREDS_HASH) if preds is not None else {}
ALL_MODELS = sorted(outputs)

def _store_failed(error: DataError) -> None:
    """Show a review-database failure as one clear message (never a traceback) and stop."""
    st.error(f"**The review database cannot be used.** {md(error)}", icon=":material/error:")
    st.stop()


def guarded(call, *args, **kwargs):
    """Run a store read; a database failure stops the page with a clear message."""
    try:
        return call(*args, **kwargs)
    except DataError as error:
        _store_failed(error)


try:
    store = review.ReviewStore()
except DataError as error:  # unusable database file (ReviewStoreError)
    _store_failed(error)

identity = current_identity()
if identity is None and auth_configured():  # signed in, but the provider sent no e-mail
    st.error("**Your sign-in did not include an e-mail address**, so your judgements cannot be "
             "stored under your name. Ask the operator to request the `email` scope from the "
             "identity provider.", icon=":material/error:")
    st.stop()
if identity is None:
    st.info("**Desk mode**: this server has no login configured, so HLV Lens cannot tell "
            "reviewers apart. Enter your name once; it is fixed for this browser session.",
            icon=":material/person:")
    identity = desk_name_form(KEY)
    if identity is None:
        st.stop()
access = identity.access
if identity.mode == "desk":
    st.warning(f"**Desk mode** (single person): reviewing as **{md(identity.name)}**. The "
               "review store is not shared safely: anyone who can open this server can enter "
               "any name. For a team, configure login (`[auth]` in `.streamlit/secrets.toml`, "
               "see the README).", icon=":material/warning:")
where = (f"Review database: {md(store.path)} (set `HLV_REVIEW_DB` to change). "
         if access.is_admin else "")
st.caption(f"{where}Reviewer **{md(identity.name)}**"
           f"{' (admin)' if access.is_admin and identity.mode == 'team' else ''}. Dataset "
           f"**{md(dataset.name)}**, fingerprint `{DATASET_HASH[:12]}`.")

tab_review, tab_meta = st.tabs(["Review", "Meta-evaluation"])


# ------------------------------------------------------------------------ Review tab
with tab_review:
    if len(ALL_MODELS) < 2:
        st.info("Case review needs predictions of at least two models for this dataset. "
                "Upload predictions on the Soft vs hard metrics or Overview page, or pick the "
                "*case_review* sample.")
    else:
        reviewer = identity.name
        with st.expander("Setup: models, display threshold, seed"):
            models = st.multiselect("Models to compare", ALL_MODELS, default=ALL_MODELS,
                                    key=f"{KEY}.models")
            default_threshold = 0.1 if dataset.task == "multilabel" else 0.0
            threshold = st.number_input(
                "Show labels with probability above", 0.0, 0.99, default_threshold, 0.05,
                key=f"{KEY}.threshold",
                help="Kurniawan et al. showed areas of law above 0.1 (multi-label); single-label "
                "default 0 (every label shown).")
            max_labels = int(st.number_input("At most this many labels per output", 1, 100,
                                             15, key=f"{KEY}.max_labels"))
            own_first = st.toggle("Record my own labels before seeing the models", True,
                                  key=f"{KEY}.own_first",
                                  help="As in the paper: form your own view first.")
            seed = int(st.number_input("Seed (left/right order and tie-breaks)", 0, 2**31 - 1,
                                       0, key=f"{KEY}.seed"))
        if len(models) < 2:
            st.info("Choose at least two models in the setup.")
        else:
            common = set.intersection(*(set(outputs[m].index) for m in models))
            items = [i for i in dataset.item_ids if i in common]
            entropy = item_entropy(dataset, DATASET_HASH).reindex(items).to_numpy()
            mine = guarded(review.own_judgements, store, access, DATASET_HASH)
            proposal = st.session_state.get(f"{KEY}.proposal")
            if (proposal is None or proposal["reviewer"] != reviewer
                    or proposal["dataset"] != DATASET_HASH
                    or {proposal["model_a"], proposal["model_b"]} - set(models)):
                nxt = guarded(store.next_pair, reviewer, items, models, entropy=entropy,
                              dataset=DATASET_HASH, seed=seed * 1_000_003 + len(mine))
                proposal = None if nxt is None else {
                    "item_id": nxt.item_id, "model_a": nxt.model_a, "model_b": nxt.model_b,
                    "reviewer": reviewer, "dataset": DATASET_HASH, "own_done": not own_first,
                    "remaining": nxt.remaining,
                }
                st.session_state[f"{KEY}.proposal"] = proposal
            n_pairs = len(models) * (len(models) - 1) // 2
            total = len(items) * n_pairs
            everyone = guarded(store.judgements, dataset=DATASET_HASH)
            c1, c2, c3 = st.columns(3)
            c1.metric("Your judgements", f"{len(mine):,}")
            c2.metric("All judgements (this dataset)", f"{len(everyone):,}")
            c3.metric("Reviewers", f"{everyone['reviewer'].nunique():,}")
            done_here = total - (proposal["remaining"] if proposal else 0)
            st.progress(min(1.0, done_here / total) if total else 1.0,
                        text=f"{done_here:,} of {total:,} (case, model pair) combinations "
                             "judged by you")
            show_save_status(store)
            if proposal is None:
                st.success("You have judged every case for every model pair. Thank you! See "
                           "the Meta-evaluation tab.")
            else:
                show_case(store, reviewer, dataset, proposal, outputs, threshold,
                          max_labels)
            if not mine.empty:
                with st.expander(f"Your judgements on this dataset ({len(mine)})"):
                    recent = mine[["created_at", "item_id", "choice", "comment"]].iloc[::-1]
                    show_table(recent, hide_index=True, width="stretch")


# ------------------------------------------------------------------------ Meta-evaluation tab
with tab_meta:
    import_box = st.expander("Import judgements (admin)") if review.can_import(access) else None
    upload = None
    if import_box is not None:
        with import_box:
            upload = st.file_uploader("Import judgements (CSV exported by HLV Lens); every row "
                                      "records that you imported it, from which file and when",
                                      type=["csv"], key=f"{KEY}.import")
    if upload is not None:
        with import_box:
            raw = upload.getvalue()
            digest = hashlib.sha256(raw).hexdigest()
            done = st.session_state.setdefault(f"{KEY}.imported", {})
            if digest not in done:
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / "import.csv"
                    path.write_bytes(raw)
                    try:
                        done[digest] = store.import_csv(path, imported_by=identity.name,
                                                        source_name=upload.name)
                    except DataError as error:
                        show_data_error(DataError(error.problem, source=upload.name, row=error.row,
                                                  column=error.column, fix=error.fix))
            if digest in done:
                st.success(f"Imported {done[digest]} new judgements from "
                           f"{md(upload.name)} (rows already present are skipped).")
    only_here = True
    if access.is_admin:
        only_here = st.toggle("Only judgements of this dataset", True, key=f"{KEY}.only_here",
                              help="Admins may pool every dataset's judgements.")
    judged = guarded(review.aggregate_judgements, store, access,
                     DATASET_HASH if only_here else None)
    st.markdown(f"**{len(judged):,} judgements** (each reviewer's latest per case and model "
                f"pair) by **{judged['reviewer'].nunique()}** reviewers.")
    meta_models = ALL_MODELS or sorted(set(judged["model_a"]) | set(judged["model_b"]))
    if judged.empty or len(meta_models) < 2:
        st.info("No judgements yet for these models. Judge some cases in the Review tab or "
                "import a CSV below.")
    else:
        known = set(judged["model_a"]) | set(judged["model_b"])
        unjudged = [m for m in meta_models if m not in known]
        meta_models = [m for m in meta_models if m in known] or meta_models
        if unjudged:
            st.info("Not compared yet, so left out of the scores: "
                    + ", ".join(md(m) for m in unjudged) + ".")
        regularize = st.number_input(
            "Regularisation (pseudo-judgements each way for every pair)", 0.0, 100.0, 0.0, 0.1,
            key=f"{KEY}.regularize",
            help="0 = plain rank centrality. Applied automatically (with a warning) when the "
                 f"comparisons do not determine a unique ranking ({review.DEFAULT_REGULARIZE}).")
        wins, comps = review.counts_from_judgements(judged, meta_models)
        if comps.sum() == 0:
            st.info("None of the judgements compares two of these models.")
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", review.DisconnectedComparisonWarning)
                scores, notes = review.human_scores(wins, comps, meta_models,
                                                    regularize=regularize)
            for note in notes:
                st.warning(md(note))
            st.subheader("Human scores (rank centrality)")
            st.caption(
                "Stationary distribution of a random walk that moves from a model to the models "
                "that beat it (Negahban, Oh & Shah 2012); higher = preferred by the experts. "
                "*Ties in denominator* (default) keeps both/neither judgements in the share "
                "won; *decisive only* ignores them (as `choix.rank_centrality`). The paper does "
                "not say which it used.")
            show_table(scores, hide_index=True, width="stretch")
            download_table(scores, "review_human_scores.csv", key=f"{KEY}.dl_scores",
                           label="Download scores")
            long = scores.melt(id_vars="model", value_vars=["score_in_denominator",
                                                            "score_decisive_only"],
                               var_name="convention", value_name="score")
            st.plotly_chart(px.bar(long, x="model", y="score", color="convention",
                                   barmode="group", title="Rank centrality scores"),
                            width="stretch", key=f"{KEY}.scores_chart")

            st.subheader("Judgements per model pair")
            pairs = review.pair_table(judged, meta_models)
            show_table(pairs, hide_index=True, width="stretch")
            download_table(pairs, "review_pairs.csv", key=f"{KEY}.dl_pairs",
                           label="Download pair table")

            st.subheader("Which metric agrees with the experts?")
            if dataset.task == "ranking" or not ALL_MODELS:
                st.info("Metric correlations need a multiclass, multi-label or rating dataset "
                        "with model predictions; this dataset holds rankings.")
            else:
                c1, c2 = st.columns(2)
                ties = c1.radio("Human scores from", review.TIES, key=f"{KEY}.ties",
                                format_func=lambda t: t.replace("_", " "), horizontal=True)
                alternative = c2.radio("Test", ["two-sided", "greater"], horizontal=True,
                                       key=f"{KEY}.alternative",
                                       help="two-sided: |r| at least as large; greater: "
                                            "r at least as large (positive association).")
                metric_table = metrics_per_model(dataset, DATASET_HASH, preds, PREDS_HASH,
                                                 tuple(meta_models))
                human = scores.set_index("model")[f"score_{ties}"]
                corr = review.metric_correlations(metric_table, human, alternative=alternative)
                n = len(meta_models)
                st.caption(
                    f"Pearson r between each metric's value per model and the human scores, "
                    f"p-value from a permutation test over all {n}! pairings ({alternative}). "
                    f"With {n} models the smallest possible p is "
                    f"{review.smallest_p(n, alternative):.3g}"
                    "; the paper had 14 training methods (Table 5).")
                show_table(corr, hide_index=True, width="stretch")
                download_table(corr, "review_metric_correlations.csv", key=f"{KEY}.dl_corr",
                               label="Download correlations")
                values = metric_table.reset_index().melt(id_vars="model", var_name="metric",
                                                         value_name="value")
                values["human_score"] = values["model"].map(human)
                r_of = corr.set_index("metric")["r"]
                values["panel"] = [f"{m} (r={r_of.get(m, np.nan):.2f})" for m in values["metric"]]
                fig = px.scatter(values.dropna(subset=["value"]), x="value", y="human_score",
                                 facet_col="panel", facet_col_wrap=4, text="model",
                                 facet_row_spacing=0.18, hover_name="model",
                                 title="Metric value vs human score per model (cf. Figure 5)")
                fig.update_xaxes(matches=None, showticklabels=True)
                fig.update_traces(textposition="top center", textfont_size=10)
                fig.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
                for trace in list(fig.data):  # least-squares trend per panel, as in Figure 5
                    line = review.fit_line(trace.x, trace.y)
                    if line is not None:
                        xs = np.array([np.nanmin(trace.x), np.nanmax(trace.x)], dtype=float)
                        fig.add_trace(go.Scatter(
                            x=xs, y=line[0] * xs + line[1], mode="lines", showlegend=False,
                            line={"dash": "dot", "color": "grey"}, hoverinfo="skip",
                            xaxis=trace.xaxis, yaxis=trace.yaxis))
                fig.update_layout(height=300 * int(np.ceil(values["metric"].nunique() / 4)))
                st.plotly_chart(fig, width="stretch", key=f"{KEY}.corr_chart")
                fig2 = go.Figure(go.Bar(x=corr["metric"], y=corr["r"],
                                        text=[f"p={p:.3g}" for p in corr["p_value"]]))
                fig2.update_layout(title="Correlation with human scores", yaxis_title="Pearson r",
                                   yaxis_range=[-1, 1])
                st.plotly_chart(fig2, width="stretch", key=f"{KEY}.corr_bar")
                download_table(metric_table.reset_index(), "review_metrics_per_model.csv",
                               key=f"{KEY}.dl_metrics", label="Download metric values")

    st.subheader("Export")
    scope = DATASET_HASH if only_here else None
    mine_out = guarded(review.exportable_judgements, store, access, DATASET_HASH)
    download_table(mine_out, "review_my_judgements.csv", key=f"{KEY}.dl_mine",
                   label="Download my judgements (CSV)")
    if access.is_admin:
        everything = guarded(review.exportable_judgements, store, access, scope, everyone=True)
        download_table(everything, "review_judgements.csv", key=f"{KEY}.dl_all",
                       label="Download all judgements (CSV, admin)")
        own = guarded(review.exportable_own_labels, store, access, scope, everyone=True)
        if not own.empty:
            download_table(own, "review_own_labels.csv", key=f"{KEY}.dl_own",
                           label="Download reviewers' own labels (CSV, admin)")
    else:
        st.caption("You can download your own judgements (with your comments). Other "
                   "reviewers' comments stay private; the rankings above pool everyone's "
                   "judgements of this dataset. Admins export everything.")
