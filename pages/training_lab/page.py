"""Training lab: train a fast linear text model with each of the HLV training methods of
Kurniawan et al. (section 4) and compare them with the hard and soft metrics as deltas against MV
(majority vote)."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from hlv_core import lab, lab_pool
from hlv_core.glossary import method_label, metric_label, paper_label
from hlv_core.io import DataError
from hlv_core.progress import ProgressClock
from hlv_core.text import md
from hlv_core.training import METHODS
from hlv_ui.cache import content_key
from hlv_ui.explain import explain, explain_inline
from hlv_ui.state import (
    add_predictions,
    get_predictions,
    renamed_note,
    require_dataset,
    show_data_error,
)
from hlv_ui.widgets import KEPT, SETTING, download_table, show_table
from pages.training_lab.figures import delta_figure, lab_method_label, methods_table
from pages.training_lab.stop_views import say_when_stopped

#: Trained methods kept for the session (key: dataset hash, method, seeds, folds); oldest out first.
CACHE_KEY, CACHE_MAX = "lab.cache", 64

st.title("Training lab")
dataset = require_dataset(tasks=("multiclass", "multilabel", "rating"))

st.caption(
    f"{md(paper_label('kurniawan'))}, sections 4-5: one model per training method, compared "
    "with the soft and hard metrics as the difference (delta) to training on the majority "
    "label (majority voting, MV).")
explain("training_method", "soft_metric", "hard_metric")
st.info(
    "**What this is.** A *fast linear text model* (TF-IDF word and character n-grams, softmax or "
    "per-class sigmoid, trained with L-BFGS) for **comparing training methods on your data in "
    "minutes** - not a state-of-the-art classifier. The paper fine-tunes transformers; absolute "
    "scores here are lower and some differences between methods shrink or change sign.",
    icon=":material/science:",
)

if not lab.has_texts(dataset):
    st.info(
        f"**{md(dataset.name)}** has no item texts (`items.text`), and the training lab "
        "trains a text classifier. Pick a sample with texts (e.g. *case_review* or "
        "*legal_areas*) or upload a dataset folder with an `items.csv` that has a `text` column."
    )
    st.stop()

multilabel = dataset.task == "multilabel"
all_metrics = list(lab.METRICS[multilabel])
skips = {m: lab.skip_reason(dataset, m) for m in METHODS}
runnable = [m for m in METHODS if skips[m] is None]

with st.expander(f"The {len(METHODS)} training methods: what each one trains on"):
    show_table(methods_table(skips), hide_index=True, width="stretch")
    download_table(methods_table(skips), "training_lab_methods.csv", key="lab.dl_methods",
                   label="Download what each method trains on (CSV)")
with st.form("lab.form"):
    cols = st.columns([3, 2])
    methods = cols[0].multiselect(
        "Training methods (majority voting, MV, is always trained: it is the reference)",
        runnable, default=runnable, key="lab.methods", **SETTING,
        format_func=method_label, help=explain_inline("training_method") + " The table above "
        "lists all of them.")
    metrics = cols[0].multiselect("Metrics", all_metrics, list(lab.PAPER_METRICS[multilabel]),
                                  metric_label, key="lab.metrics", **SETTING)
    n_seeds = cols[1].number_input(
        "Repeats per method (random starts)", 1, 5, 1, key="lab.n_seeds", **SETTING,
        help="Each repeat starts the training from different random weights (a different "
             "seed); with 2 or more the plot shows how much the result varies.")
    base_seed = cols[1].number_input("First random seed", 0, 10_000, 0, key="lab.seed", help="The "
                                     "same seeds give the same models.", **SETTING)
    n_folds = cols[1].number_input(
        "Folds (only when the data has no train/test split)", 2, 10, 5, key="lab.folds",
        **SETTING, help="Without a train/test split every item is predicted by a model "
        "trained on the other folds (cross-validation).")
    n_jobs = cols[1].number_input(
        "Processes", 1, 32, lab_pool.default_jobs(), key="lab.jobs", persist_state=KEPT,
        help="Methods and repeats train side by side on this many processes (the cores of "
             "this machine by default); the numbers are the same with any number.")
    submitted = st.form_submit_button("Train", type="primary", icon=":material/play_arrow:")

for method, reason in skips.items():
    if reason is not None:
        st.caption(f"Not available here: **{method_label(method)}**: {md(reason)}")

seeds = tuple(range(int(base_seed), int(base_seed) + int(n_seeds)))


def train(chosen: list[str]) -> list[lab.LabResult]:
    """Train every method of ``chosen`` on ``n_jobs`` worker processes, watched from the script
    thread (Streamlit's Stop ends the workers), with a progress bar showing what runs, time
    elapsed and estimated time left. Methods trained earlier this session with the same
    settings come from the session cache (an interrupted run resumes where it stopped)."""
    cache = st.session_state.setdefault(CACHE_KEY, {})
    keys = {m: content_key(dataset, m, seeds, int(n_folds)) for m in chosen}
    to_train = [m for m in chosen if keys[m] not in cache]
    bar = st.progress(0.0, text="starting")
    clock = ProgressClock(total=max(len(to_train), 1))

    def progress(fraction: float, message: str) -> None:
        clock.update(fraction * clock.total)
        done = sum(keys[m] in cache for m in to_train)
        bar.progress(min(clock.fraction, 1.0), text=clock.text(
            f"Training {len(to_train)} {'method' if len(to_train) == 1 else 'methods'} "
            f"({done} done) · {message}"))

    def keep(method: str, result: lab.LabResult) -> None:
        cache[keys[method]] = result
        while len(cache) > CACHE_MAX:
            cache.pop(next(iter(cache)))

    with say_when_stopped(bar, clock, lambda: sum(keys[m] in cache for m in to_train)):
        if to_train:
            lab_pool.run_lab_pool(dataset, to_train, seeds=seeds, n_folds=int(n_folds),
                                  n_jobs=int(n_jobs), progress=progress, on_result=keep,
                                  name=method_label)
    bar.empty()
    return [cache[keys[m]] for m in chosen]


run_key = content_key(dataset, tuple(methods), seeds, int(n_folds))
if submitted:
    note = st.empty()
    note.caption("Training runs here, in this page: the **Stop** button at the top right "
                 "interrupts it; methods already trained are kept, so pressing **Train** "
                 "again goes on from there.")
    try:
        parts = train(["MV"] + [m for m in methods if m != "MV"])
        note.empty()
    except DataError as error:
        show_data_error(error)
        st.stop()
    results = lab.compute_deltas(pd.concat([p.results for p in parts], ignore_index=True))
    st.session_state["lab.run"] = {
        "key": run_key,
        "results": results,
        "predictions": pd.concat([p.predictions for p in parts], ignore_index=True),
        "fits": pd.concat([p.fits for p in parts], ignore_index=True),
        "timings": {k: v for p in parts for k, v in p.timings.items()},
        "protocol": parts[0].protocol,
        "seeds": seeds,
    }

run = st.session_state.get("lab.run")
if run is None or run["key"][0] != dataset.content_hash:
    st.info("Choose methods and metrics, then press **Train**. On the bundled samples all 14 "
            "methods with one repeat take well under a minute.")
    st.stop()
if run["key"] != run_key:
    st.warning("The settings changed since the last run; the results below are from the "
               "previous settings. Press **Train** to update them.")

results: pd.DataFrame = run["results"]
shown = results[results["metric"].isin(metrics)]
if shown.empty:
    st.info("Pick at least one metric.")
    st.stop()

st.markdown(f"**Protocol:** {md(run['protocol'])}; random seeds "
            f"{', '.join(map(str, run['seeds']))}; L2 strength chosen per method and seed on "
            "the dev items by the geometric mean of the metrics (macro F1s left out, entropy "
            "correlation as (r+1)/2), as in the paper.")

# ------------------------------------------------------------------ delta plot
order = list(lab.mean_rank(shown).index)
summary = lab.summarise(shown)
metric_list = [m for m in metrics if m in set(summary["metric"])]
st.plotly_chart(delta_figure(summary, order, metric_list), width="stretch", key="lab.delta_plot")
st.caption("Bars: mean difference to majority voting over the repeats; whiskers: 95% "
           "t-interval over the repeats (from 2 repeats on). Each method keeps its colour. "
           "Paper Figures 2-4.")

# ------------------------------------------------------------------ tables
table = summary.copy()
table["method"] = pd.Categorical(table["method"], categories=order, ordered=True)
table = table.sort_values(["method", "metric"]).reset_index(drop=True)
table["method"] = table["method"].astype(str)
st.subheader("Scores with 95% intervals over seeds (repeats with different random starts)")
means = table.pivot(index="method", columns="metric", values="mean").reindex(order)[metric_list]
means.index = [lab_method_label(m) for m in means.index]
means.columns = [metric_label(m) for m in means.columns]
means.index.name = "training method"
show_table(means.style.format("{:.4f}", na_rep="undefined").highlight_max(axis=0,
                                                                          color="#d8f3dc"),
           width="stretch")
st.caption("Mean over the repeats; the best method per metric is highlighted.")
download_table(table, "training_lab_summary.csv", key="lab.dl_summary",
               label="Download per-method scores and intervals (CSV)")
with st.expander("Long table (every method, repeat and metric)"):
    show_table(shown, width="stretch", hide_index=True)
    download_table(results, "training_lab_results.csv", key="lab.dl_results",
                   label="Download every method, repeat and metric (CSV)")
with st.expander("Chosen L2 strength, dev score and time per fit"):
    show_table(run["fits"], width="stretch", hide_index=True)
    download_table(run["fits"], "training_lab_fits.csv", key="lab.dl_fits",
                   label="Download the fits (L2, dev score, time) (CSV)")
    st.caption("Seconds per method: " + ", ".join(
        f"{m} {s:.1f}" for m, s in run["timings"].items()))
for line in lab.cap_notes(run["fits"]):
    st.warning(md(line))
nan_methods = sorted(set(shown.loc[shown["value"].isna(), "method"]))
if nan_methods:
    st.warning("Undefined (NaN) scores for " + ", ".join(map(md, nan_methods)) +
               ": e.g. entropy correlation is undefined when every prediction has the same "
               "entropy (AEh's votes can be unanimous; the paper reports the same for AEh and "
               "SmF1).")
st.markdown(
    "Notes: with full-batch training **ReL** minimises the same loss as **SL** weighted by each "
    "item's number of annotations (identical when every item has the same number of "
    "annotators); the convex methods (ReL, MV, AR, ARh, AL, SL, SLMV) reach the same optimum "
    "for every seed, so their intervals are (near) zero; **SLMV** is shown twice: on its hard "
    "(MV) head, as the released code scores it, and as **SLMV-soft** on its soft head, the head "
    "the paper reports (\"We predict only the soft labels for evaluation\"); **AE/AEh** use per-annotator "
    "heads on a shared low-rank encoder."
)

# ------------------------------------------------------------------ predictions as models
st.subheader("Use the predictions elsewhere")
models = lab.predictions_as_models(run["predictions"])
existing = get_predictions()
st.write(f"Test predictions of {models['model'].nunique()} methods (mean over seeds) on "
         f"{models['item_id'].nunique()} test items. Models available to the other pages now: "
         f"{0 if existing is None else existing['model'].nunique()}.")
pick = st.multiselect("Methods to send", sorted(models["model"].unique(),
                      key=lambda m: order.index(m[4:]) if m[4:] in order else 99),
                      key="lab.send_pick", persist_state=KEPT, placeholder="all methods")
if st.button("Add as models for the other pages", key="lab.send", icon=":material/send:"):
    chosen = models if not pick else models[models["model"].isin(pick)]
    renamed = add_predictions(chosen.reset_index(drop=True))
    if renamed:
        st.warning(renamed_note(renamed))
    st.success(f"Added {chosen['model'].nunique()} models (named `lab <method>`): open *Soft "
               "metrics*, *Certainty* or *Perspectives* to compare them.")
download_table(models, "training_lab_predictions.csv", key="lab.dl_preds",
               label="Download the trained models' test predictions (CSV)")
st.download_button("Download run settings (JSON)", data=json.dumps(
    {"dataset": dataset.name, "content_hash": dataset.content_hash, "seeds": list(run["seeds"]),
     "methods": list(run["key"][1]), "folds": run["key"][3], "protocol": run["protocol"]},
    indent=2), file_name="training_lab_settings.json", mime="application/json",
    key="lab.dl_settings", on_click="ignore")
