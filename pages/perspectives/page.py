"""Perspectives: PERSEVAL evaluation (Lo, Casola et al.). Does a model serve every kind of user?

Build a user-disjoint split, compare the baselines (and uploaded per-(user, text) predictions)
globally, per user, per text and per trait value with bootstrap intervals over users."""

from __future__ import annotations

import numpy as np
import streamlit as st

from hlv_core import perspectivist as P
from hlv_core.glossary import paper_label
from hlv_core.io import DataError
from hlv_core.text import md
from hlv_ui.explain import explain, explain_inline
from hlv_ui.model_groups import group_notes, predictions_hint, shown_predictions
from hlv_ui.palette import model_colours
from hlv_ui.state import get_predictions, require_dataset, show_data_error
from hlv_ui.widgets import SETTING, download_table, forget_for_other_data, lazy_tabs, show_table
from pages.perspectives.cached import ADAPTATION, ModelSet, item_models, parse_upload, split_cached
from pages.perspectives.figures import LEVEL_NAMES, comparison_figure
from pages.perspectives.views import Detail, text_tab, trait_tab, user_tab

st.title("Perspectives")
st.caption(
    "Does a model serve every kind of person, or only the majority? Each test instance is one "
    "person's label on one text, and the people a model is tested on never labelled its "
    "training data. Scores are given over all instances, per person, per text and per trait "
    f"value (e.g. age group). Method: {md(paper_label('perseval'))}."
)
explain("perseval", "perseval_task")

dataset = require_dataset(tasks=("multiclass", "rating"), need_ids=True)
ADAPTATION_NAMES = {"none": "None", "train": "Added to training",
                    "test": "Separate step"}

# ------------------------------------------------------------------------------- split controls
st.subheader("1. Split")
trait_columns = list(P.trait_table(dataset.annotators).columns)
has_traits = bool(trait_columns)  # the defaults below follow the dataset's traits
forget_for_other_data("perspectives.adaptation", dataset.content_hash,
                      list(ADAPTATION)[0 if has_traits else 2])
forget_for_other_data("perspectives.stratify", dataset.content_hash,
                      trait_columns[0] if has_traits else "(no stratification)")
cols = st.columns(3)
share = cols[0].slider("Share of people kept for testing", 0.05, 0.5, 0.2, 0.05,
                       key="perspectives.share", **SETTING,
                       help="Share of annotators that become test users (PERSEVAL: 20%).")
adaptation = cols[1].radio(
    "Adaptation", list(ADAPTATION), index=0 if has_traits else 2, key="perspectives.adaptation",
    **SETTING,
    horizontal=True, format_func=ADAPTATION_NAMES.get, help=explain_inline("adaptation"))
seed = int(cols[2].number_input("Random seed", 0, 2**31 - 1, 0, key="perspectives.seed",
                                **SETTING,
                                help="Same seed, same split: stored in every download."))
extended = st.toggle(
    "Extended training set", value=False, key="perspectives.extended", **SETTING,
    help="Keep test texts in training when other (training) annotators labelled them. Off: "
    "every label of a test text is removed from training (strict).")
with st.expander("More split settings"):
    stratify_choice = st.selectbox(
        "Stratify test users by trait", ["(no stratification)", *trait_columns],
        index=1 if trait_columns else 0, key="perspectives.stratify", **SETTING,
        help="Draw test users within every value of this trait, so each group is represented "
        "among the test users (the reference stratifies HS-Brexit by group).")
    stratify = None if stratify_choice == "(no stratification)" else stratify_choice
    c1, c2, c3 = st.columns(3)
    adaptation_share = c1.slider(
        "Adaptation share", 0.01, 0.3, 0.05, 0.01, key="perspectives.adapt_share",
        **SETTING,
        help="Share of the test users' annotations whose texts become adaptation texts "
        "(PERSEVAL: 5%). Test users left without an adaptation label are dropped.")
    reserve = c2.selectbox(
        "Texts reserved for training", ["auto", "0", "0.2", "0.5", "0.7"],
        key="perspectives.reserve", **SETTING,
        help="Share of texts only training annotators keep (needed for dense data where every "
        "annotator labels every text). 'auto': the smallest share keeping test instances "
        "≤ 20% of training + test.")
    baseline = c3.checkbox(
        "Allow unnamed without adaptation (baseline)", value=False,
        key="perspectives.baseline", **SETTING,
        help="PERSEVAL refuses the unnamed task without adaptation: the model knows nothing "
        "about the test users. Tick to build a user-agnostic baseline split anyway.")
settings = (share, adaptation, extended, seed, reserve, adaptation_share, baseline, stratify)
try:
    splits = split_cached(dataset, *settings)
except DataError as error:
    show_data_error(error)
    st.stop()
sizes = splits.sizes()
m = st.columns(4)
m[0].metric("Task", "named" if splits.named else "unnamed",
            help=explain_inline("perseval_task"))
for col, row in zip(m[1:], sizes.itertuples(index=False), strict=True):
    col.metric(f"{row.split.capitalize()} instances", f"{row.instances:,}",
               help=f"{row.users:,} users · {row.texts:,} texts")
show_table(sizes, hide_index=True, width="stretch")
for note in splits.notes:
    st.info(md(note))
st.caption(
    f"Seed {seed} · {splits.train_only_text_share:.0%} of the texts reserved for training · "
    f"{'extended' if splits.extended else 'strict'} training set · adaptation "
    f"{ADAPTATION_NAMES[adaptation].lower()}. The test split is the same for every adaptation "
    "mode and training variant.")
d1, d2, d3 = st.columns(3)
with d3:
    download_table(sizes.assign(seed=seed), f"perseval_split_sizes_seed{seed}.csv",
                   key="perspectives.dl_sizes", label="Download split sizes (CSV)")
with d1:
    download_table(lambda: splits.table().assign(seed=seed), f"perseval_split_seed{seed}.csv",
                   key="perspectives.dl_split", label="Download split (CSV)")
with d2:
    download_table(splits.test[["annotator_id", "item_id"]], f"perseval_test_pairs_seed{seed}.csv",
                   key="perspectives.dl_pairs", label="Download test pairs to predict (CSV)")

# ------------------------------------------------------------------------------- models
st.subheader("2. Models")
labels = tuple(dataset.labels)
model_set = ModelSet(dataset, settings, splits, labels)
for name, reason in model_set.add_baselines().items():
    st.caption(f"Baseline *{md(name)}* skipped: {md(reason)}")
# item-level model predictions of the dataset, applied to every test user of a text
dataset_preds = shown_predictions(get_predictions(), key="perspectives")
per_user, item_notes = item_models(dataset_preds, splits.test, labels)
for note in group_notes(item_notes, dataset_preds):
    st.caption(md(note))
for name, frame in per_user.items():
    model_set.add(name, frame, splits.test)
if dataset_preds is None:
    predictions_hint("Scoring your own models here")

upload = st.file_uploader(
    "Upload per-(user, text) predictions (CSV: annotator_id or user_id, item_id or text_id, "
    "label)", type=["csv", "tsv", "txt"], key="perspectives.upload")
upload_mode = st.radio(
    "Score uploaded predictions on", ["this split's test set", "the pairs in the file"],
    key="perspectives.upload_mode", **SETTING, horizontal=True,
    help="This split: the file must predict exactly the test pairs above (missing or extra "
    "pairs are an error). Pairs in the file: gold labels come from the dataset.")
if upload is not None:
    raw = upload.getvalue()
    try:
        frame = parse_upload(raw, upload.name)
        gold = (P.gold_for_pairs(frame, dataset) if upload_mode == "the pairs in the file"
                else splits.test)
        P.evaluate(frame, gold, labels=dataset.labels)  # validates pairs and labels
        model_set.add(f"upload: {upload.name}", frame, gold)
    except DataError as error:
        show_data_error(error)

head_label = P.headline_label(labels)
comparison = model_set.comparison()
st.markdown(
    "**Comparison.** Headline F1 is for the "
    f"{'class ' + md(repr(head_label)) if head_label != 'macro' else 'macro average of the classes'}"
    " (PERSEVAL reports the positive class for binary tasks, macro for multi-class). "
    f"Levels: {', '.join(f'{k} = {v}' for k, v in LEVEL_NAMES.items())}; per-user and per-text "
    "scores average over the users / texts where the class occurs.")
show_table(comparison.style.format(precision=3), hide_index=True, width="stretch")
download_table(comparison.assign(seed=seed), "perseval_comparison.csv",
               key="perspectives.dl_comparison", label="Download model comparison (CSV)")
headline = comparison[[f"{level} F1 ({head_label})" for level in LEVEL_NAMES]].to_numpy(float)
if not np.isfinite(headline).any():
    st.info(f"Headline F1 is undefined for every model: {md(head_label)} never occurs in the "
            "test users' labels or the predictions. See accuracy in the table.")
elif np.nanmax(headline) == 0:
    st.info(f"Every model scores F1 = 0 for the class '{md(head_label)}' at every level: none "
            "predicts it "
            "correctly for any test user (a rare class the baselines never predict does this). "
            "The bars are at 0, not missing; accuracy in the table shows more.")
st.plotly_chart(comparison_figure(comparison, head_label, model_colours(comparison["model"])),
                width="stretch", key="perspectives.cmp_chart")

# ------------------------------------------------------------------------------- details
st.subheader("3. One model in detail")
chosen = st.selectbox("Model", list(model_set.models), key="perspectives.model", **SETTING)
report = model_set.report(chosen)
summary = report.summary()
glob = summary[summary["level"] == "global"].pivot_table(
    index="label", columns="metric", values="value", sort=False)
glob = glob.reindex(columns=["precision", "recall", "f1", "accuracy"]).astype(float)
st.markdown("**Scores over all test instances** (a class never predicted scores 0)")
show_table(glob.style.format(precision=3, na_rep="–"), width="stretch")
c1, c2 = st.columns(2)
with c1:
    download_table(glob.reset_index().assign(model=chosen, seed=seed), "perseval_global.csv",
                   key="perspectives.dl_global", label="Download scores over all instances (CSV)")
with c2:
    download_table(summary.assign(model=chosen, seed=seed), "perseval_summary.csv",
                   key="perspectives.dl_summary", label="Download full summary (CSV)")
try:
    lewidi = model_set.lewidi(chosen)
    st.caption(
        f"LeWiDi 2025 perspectivist scores (lower is better): error rate "
        f"{lewidi['error_rate']:.4f}; normalised absolute distance "
        f"{lewidi['normalised_absolute_distance']:.4f} (scale {lewidi['scale']:g} labels).")
except DataError as error:
    show_data_error(error)

metric_options = {f"F1 ({head_label})": f"f1:{head_label}", "accuracy": "accuracy"}
if head_label != "macro":
    metric_options["macro F1"] = "f1:macro"
metric_name = st.radio("Score per group", list(metric_options), horizontal=True,
                       format_func=md, key="perspectives.metric",
                       **SETTING)  # options render markdown
detail = Detail(model_set, chosen, report, metric_options[metric_name], metric_name, seed,
                dataset)
TABS = {"Per user": user_tab, "Per text": text_tab, "Per trait": trait_tab}
for name, tab in lazy_tabs(list(TABS), key="perspectives.tab").items():  # only the open tab runs
    if tab.open:
        with tab:
            TABS[name](detail)
