"""Training lab: train a fast linear text model with each of the HLV training methods of
Kurniawan et al. (section 4) and compare them with the hard and soft metrics as deltas against MV
(majority vote)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from hlv_core import lab
from hlv_core.io import DataError
from hlv_core.text import md
from hlv_core.training import METHOD_INFO, METHODS
from hlv_ui.state import (
    add_predictions,
    get_predictions,
    renamed_note,
    require_dataset,
    show_data_error,
)
from hlv_ui.widgets import download_table, show_table

st.title("Training lab")
dataset = require_dataset(tasks=("multiclass", "multilabel", "rating"))

st.caption(
    "Seed 000 (Kurniawan et al.) sections 4-5: one model per HLV training method, compared with "
    "the six metrics as the difference (delta) to the mean of majority-vote training (MV)."
)
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

with st.form("lab.form"):
    cols = st.columns([3, 2])
    methods = cols[0].multiselect(
        "Training methods (MV is always trained: it is the reference)", runnable,
        default=runnable, key="lab.methods",
        help="\n".join(f"**{m}**: {METHOD_INFO[m][2]}" for m in METHODS),
    )
    metrics = cols[0].multiselect("Metrics", all_metrics,
                                  default=list(lab.PAPER_METRICS[multilabel]), key="lab.metrics")
    n_seeds = cols[1].number_input("Seeds (runs per method)", 1, 5, 1, key="lab.n_seeds")
    base_seed = cols[1].number_input("First seed", 0, 10_000, 0, key="lab.seed")
    n_folds = cols[1].number_input("Folds (only when the data has no train/test split)", 2, 10,
                                   5, key="lab.folds")
    submitted = st.form_submit_button("Train", type="primary", icon=":material/play_arrow:")

for method, reason in skips.items():
    if reason is not None:
        st.caption(f"Skipped: **{method}** - {md(reason)}")

seeds = tuple(range(int(base_seed), int(base_seed) + int(n_seeds)))


@st.cache_data(show_spinner=False, max_entries=64)
def run_method(_dataset, dataset_hash: str, method: str, seeds: tuple[int, ...],
               n_folds: int) -> lab.LabResult:
    """One method's lab run (cached per dataset, method, seeds and folds)."""
    return lab.run_lab_full(_dataset, methods=[method], seeds=seeds, n_folds=n_folds,
                            reference=False)


run_key = (dataset.content_hash, tuple(methods), seeds, int(n_folds))
if submitted:
    chosen = ["MV"] + [m for m in methods if m != "MV"]
    bar = st.progress(0.0, text="starting")
    parts = []
    try:
        for i, method in enumerate(chosen):
            bar.progress(i / len(chosen), text=f"training {method} ({i + 1}/{len(chosen)})")
            parts.append(run_method(dataset, dataset.content_hash, method, seeds, int(n_folds)))
        bar.progress(1.0, text="done")
    except DataError as error:
        show_data_error(error)
        st.stop()
    bar.empty()
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
            "methods with one seed take well under a minute.")
    st.stop()
if run["key"] != run_key:
    st.warning("The settings changed since the last run; the results below are from the "
               "previous settings. Press **Train** to update them.")

results: pd.DataFrame = run["results"]
shown = results[results["metric"].isin(metrics)]
if shown.empty:
    st.info("Pick at least one metric.")
    st.stop()

st.markdown(f"**Protocol:** {md(run['protocol'])}; seeds "
            f"{', '.join(map(str, run['seeds']))}; L2 strength chosen per method and seed on "
            "the dev items by the geometric mean of the metrics (macro F1s left out, entropy "
            "correlation as (r+1)/2), as in the paper.")

# ------------------------------------------------------------------ delta plot
order = list(lab.mean_rank(shown).index)
summary = lab.summarise(shown)
metric_list = [m for m in metrics if m in set(summary["metric"])]
n_cols = min(3, len(metric_list))
n_rows = int(np.ceil(len(metric_list) / n_cols))
fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=metric_list, shared_xaxes=False,
                    vertical_spacing=0.18 if n_rows > 1 else 0.1)
for k, metric in enumerate(metric_list):
    sub = summary[summary["metric"] == metric].set_index("method").reindex(order)
    err_hi = (sub["delta_high"] - sub["delta"]).to_numpy()
    err_lo = (sub["delta"] - sub["delta_low"]).to_numpy()
    colors = ["#2a9d8f" if v >= 0 else "#e76f51" for v in sub["delta"].fillna(0)]
    fig.add_trace(
        go.Bar(x=order, y=sub["delta"].tolist(), name=metric, marker_color=colors,
               showlegend=False,
               error_y={"type": "data", "array": err_hi.tolist(), "arrayminus": err_lo.tolist(),
                        "visible": bool(np.isfinite(err_hi).any())},
               hovertemplate="%{x}: delta %{y:.4f}<extra>" + metric + "</extra>"),
        row=k // n_cols + 1, col=k % n_cols + 1,
    )
fig.update_layout(height=330 * n_rows, margin={"t": 80, "b": 10},
                  title_text="Delta vs mean MV (methods sorted by mean rank over the metrics)")
st.plotly_chart(fig, width="stretch", key="lab.delta_plot")
st.caption("Bars: mean delta over seeds; whiskers: 95% t-interval over seeds (from 2 seeds on). "
           "Green = better than MV. Paper Figures 2-4.")

# ------------------------------------------------------------------ tables
table = summary.copy()
table["method"] = pd.Categorical(table["method"], categories=order, ordered=True)
table = table.sort_values(["method", "metric"]).reset_index(drop=True)
table["method"] = table["method"].astype(str)
st.subheader("Scores with 95% intervals over seeds")
wide = lab.summary_table(shown).reindex(order)[metric_list]
show_table(wide.style.format("{:.4f}", na_rep="NaN").highlight_max(axis=0, color="#d8f3dc"),
             width="stretch")
download_table(table, "training_lab_summary.csv", key="lab.dl_summary")
with st.expander("Long table (every method, seed and metric)"):
    show_table(shown, width="stretch", hide_index=True)
    download_table(results, "training_lab_results.csv", key="lab.dl_results")
with st.expander("Chosen L2 strength, dev score and time per fit"):
    show_table(run["fits"], width="stretch", hide_index=True)
    download_table(run["fits"], "training_lab_fits.csv", key="lab.dl_fits")
    st.caption("Seconds per method: " + ", ".join(
        f"{m} {s:.1f}" for m, s in run["timings"].items()))
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
                      default=None, key="lab.send_pick", placeholder="all methods")
if st.button("Add as models for the other pages", key="lab.send", icon=":material/send:"):
    chosen = models if not pick else models[models["model"].isin(pick)]
    renamed = add_predictions(chosen.reset_index(drop=True))
    if renamed:
        st.warning(renamed_note(renamed))
    st.success(f"Added {chosen['model'].nunique()} models (named `lab <method>`): open *Soft "
               "metrics*, *Certainty* or *Perspectives* to compare them.")
download_table(models, "training_lab_predictions.csv", key="lab.dl_preds",
               label="Download predictions CSV")
st.download_button("Download run settings (JSON)", data=json.dumps(
    {"dataset": dataset.name, "content_hash": dataset.content_hash, "seeds": list(run["seeds"]),
     "methods": list(run["key"][1]), "folds": run["key"][3], "protocol": run["protocol"]},
    indent=2), file_name="training_lab_settings.json", mime="application/json",
    key="lab.dl_settings", on_click="ignore")
