"""Case review and meta-evaluation (Kurniawan et al., section 6): experts judge pairs of model outputs,
rank centrality turns the judgements into human scores, every metric is correlated with them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import review
from hlv_core.io import DataError, item_level_predictions, model_matrices
from hlv_core.scoring import metric_matrix, score_models
from hlv_core.text import md
from hlv_ui.auth import auth_configured, current_identity, desk_name_form
from hlv_ui.cache import cached
from hlv_ui.explain import explain
from hlv_ui.model_groups import shown_predictions
from hlv_ui.state import get_predictions, require_dataset
from hlv_ui.widgets import SETTING, show_table
from pages.review import desk_state
from pages.review.meta_views import show_exports, show_import, show_meta
from pages.review.round_views import (
    KEY,
    current_proposal,
    show_case,
    show_progress,
    show_save_status,
)

st.title("Case review and meta-evaluation")
st.caption(
    "Experts see one case with every model's label distribution, without knowing which model "
    "is which, and say for each pair of outputs which one is more accurate; rank centrality "
    "turns the judgements into human scores of the models, and every metric is checked "
    "against them (Kurniawan et al., *Training and Evaluating with Human Label Variation*, "
    "section 6)."
)

dataset = require_dataset()
DATASET_HASH = dataset.content_hash


# ------------------------------------------------------------------------ cached engine calls
@cached(show_spinner="Preparing model outputs…", max_entries=16)
def model_outputs(dataset, preds: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """model -> (items x labels) probability table of its item-level predictions."""
    matrices, _ = model_matrices(preds, dataset)
    return {model: pd.DataFrame(Q, index=ids, columns=list(dataset.labels))
            for model, (ids, Q) in matrices.items()}


@cached(show_spinner="Computing every metric per model…", max_entries=16)
def metrics_per_model(dataset, preds: pd.DataFrame, models: tuple[str, ...]) -> pd.DataFrame:
    """Every metric of each model on the items it predicted (models x metrics)."""
    return metric_matrix(score_models(dataset, preds, models=models, lewidi=False))


@cached(max_entries=8)
def item_entropy(dataset) -> pd.Series:
    return dataset.entropy()


preds = item_level_predictions(shown_predictions(get_predictions(), key="review"))
outputs = model_outputs(dataset, preds) if preds is not None else {}
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

desk_state.restore()  # desk mode: the name this browser remembered
identity = current_identity()
if identity is None and auth_configured():  # signed in, but the provider sent no e-mail
    st.error("**Your sign-in did not include an e-mail address**, so your judgements cannot be "
             "stored under your name. Ask the operator to request the `email` scope from the "
             "identity provider.", icon=":material/error:")
    st.stop()
if identity is None:
    st.info("**Desk mode**: this server has no login configured, so HLV Lens cannot tell "
            "reviewers apart. Enter your name once; this browser remembers it (a cookie of this "
            "app) until you press 'Not you?'.",
            icon=":material/person:")
    identity = desk_name_form(KEY)
    if identity is None:
        st.stop()
access = identity.access
if identity.mode == "desk":
    desk_state.remember(identity.name)
    st.warning(f"**Desk mode** (single person): reviewing as **{md(identity.name)}** (this "
               "browser remembers the name). The review store is not shared safely: anyone "
               "who can open this server can enter any name. For a team, configure login "
               "(`[auth]` in `.streamlit/secrets.toml`, see the README).",
               icon=":material/warning:")
    desk_state.forget_button(f"{KEY}.forget_name")
st.caption(f"Reviewer **{md(identity.name)}**"
           f"{' (admin)' if access.is_admin and identity.mode == 'team' else ''}. Dataset "
           f"**{md(dataset.name)}**.")

tab_review, tab_meta = st.tabs(["Review", "Meta-evaluation"])


# ------------------------------------------------------------------------ Review tab
with tab_review:
    if len(ALL_MODELS) < 2:
        st.info("Case review needs predictions of at least two models for this dataset. "
                "Upload predictions on the Soft vs hard metrics or Overview page, or pick the "
                "*case_review* sample.")
    else:
        reviewer = identity.name
        explain("review_judgement")
        with st.expander("Setup: models, session target, display, seed"):
            models = st.multiselect("Models to compare", ALL_MODELS, default=ALL_MODELS,
                                    key=f"{KEY}.models", **SETTING)
            target = int(st.number_input("Cases to judge this session (session target)", 1,
                                         10_000, 20, key=f"{KEY}.target", **SETTING))
            max_pairs = int(st.number_input(
                "At most this many model pairs per case screen", 1, 100, 10,
                key=f"{KEY}.max_pairs", **SETTING,
                help="With many models a case has many pairs; the rest "
                "of a case's pairs come back on a later screen (your own labels are not asked "
                "again)."))
            default_threshold = 0.1 if dataset.task == "multilabel" else 0.0
            threshold = st.number_input(
                "Show labels with probability above", 0.0, 0.99, default_threshold, 0.05,
                key=f"{KEY}.threshold", **SETTING,
                help="Kurniawan et al. showed areas of law above 0.1 (multi-label); single-label "
                "default 0 (every label shown).")
            max_labels = int(st.number_input("At most this many labels per output", 1, 100,
                                             15, key=f"{KEY}.max_labels", **SETTING))
            own_first = st.toggle("Record my own labels before seeing the models", True,
                                  key=f"{KEY}.own_first", **SETTING,
                                  help="As in the paper: form your own view first (once per "
                                       "case).")
            reveal = st.toggle("Show model names in my history", True, key=f"{KEY}.reveal",
                               **SETTING,
                               help="Names appear only for cases you have judged. Switch off "
                                    "to keep the models blind in the history too.")
            seed = int(st.number_input("Seed (order of the outputs and tie-breaks)", 0,
                                       2**31 - 1, 0, key=f"{KEY}.seed", **SETTING))
        if len(models) < 2:
            st.info("Choose at least two models in the setup.")
        else:
            common = set.intersection(*(set(outputs[m].index) for m in models))
            items = [i for i in dataset.item_ids if i in common]
            entropy = item_entropy(dataset).reindex(items).to_numpy()
            mine = guarded(review.own_judgements, store, access, DATASET_HASH)
            proposal = guarded(current_proposal, store, reviewer, DATASET_HASH, items, models,
                               entropy, seed=seed, own_first=own_first, max_pairs=max_pairs,
                               n_mine=len(mine))
            everyone = guarded(store.judgements, dataset=DATASET_HASH)
            show_progress(target, len(mine), len(everyone), everyone["reviewer"].nunique(),
                          proposal)
            show_save_status(store)
            if proposal is None:
                st.success("You have judged every case for every model pair. Thank you! See "
                           "the Meta-evaluation tab.")
            else:
                show_case(store, reviewer, dataset, proposal, outputs, threshold, max_labels)
            if not mine.empty:
                with st.expander(f"Your judgements on this dataset ({len(mine)})"):
                    show_table(review.history_table(mine, reveal_models=reveal),
                               hide_index=True, width="stretch")


# ------------------------------------------------------------------------ Meta-evaluation tab
with tab_meta:
    if review.can_import(access):
        show_import(store, identity.name)
    only_here = True
    if access.is_admin:
        only_here = st.toggle("Only judgements of this dataset", True, key=f"{KEY}.only_here",
                              **SETTING,
                              help="Admins may pool every dataset's judgements.")
    judged = guarded(review.aggregate_judgements, store, access,
                     DATASET_HASH if only_here else None)
    metrics = (None if preds is None or not ALL_MODELS else
               lambda names: metrics_per_model(dataset, preds, names))
    show_meta(judged, ALL_MODELS, dataset.task, metrics)
    guarded(show_exports, store, access, DATASET_HASH, only_here)
