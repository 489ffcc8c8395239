"""Soft vs hard metrics (Kurniawan et al.): what hard and soft metrics say about the models, with
bootstrap CIs, class-wise and per-item views, the Figure 1 explainer and the Table 2 simulator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st

from hlv_core import soft_metrics as sm
from hlv_core import training
from hlv_core.io import DataError, item_level_predictions, load_predictions
from hlv_core.scoring import ModelScores, item_verdicts, metric_ranks, metric_winners, score_model
from hlv_core.targets import available_targets
from hlv_core.text import md
from hlv_ui.simulators import figure1_explainer, table2_simulator
from hlv_ui.state import (
    add_predictions,
    frame_hash,
    get_predictions,
    renamed_note,
    require_dataset,
    show_data_error,
)
from hlv_ui.widgets import download_table, lazy_tabs, show_table

KEY = "soft_metrics"
GROUP_TITLES = {"hard": "Hard (majority vote)", "soft": "Soft (full distribution)",
                "lewidi": "LeWiDi cross-walk (lower is better)"}
#: Bootstrap CIs start automatically when items x resamples x models stays below this; above it
#: the point values show first and the CIs run when asked for.
AUTO_BOOT_MAX = 2_000_000
#: Points drawn in the per-item scatter (a random sample beyond this; the table has every item).
SCATTER_MAX = 4000

st.title("Soft vs hard metrics")
st.caption(
    "Hard metrics compare the model's top label with the humans' majority vote; soft metrics "
    "compare the model's whole distribution with the distribution of human judgements "
    "(Kurniawan et al., *Training and Evaluating with Human Label Variation*)."
)

dataset = require_dataset()
SUPPORTED = dataset.task in ("multiclass", "multilabel", "rating")
MULTILABEL = dataset.task == "multilabel"


# ------------------------------------------------------------------------ cached engine calls
@st.cache_data(show_spinner="Computing metrics and bootstrap intervals…", max_entries=32)
def compute_model(_dataset, dataset_hash: str, _preds: pd.DataFrame, preds_hash: str, model: str,
                  n_boot: int, seed: int, skip_undefined: bool, multilabel: bool) -> ModelScores:
    """Every metric of one model (values, CIs, notes, class-wise and per-item tables)."""
    del dataset_hash, preds_hash
    return score_model(_dataset, _preds, model, multilabel=multilabel,
                       skip_undefined=skip_undefined, n_boot=n_boot, seed=seed)


@st.cache_data(show_spinner=False, max_entries=8)
def all_targets(_dataset, dataset_hash: str) -> dict[str, pd.DataFrame | str]:
    """What each training method would train on (or why it cannot run here)."""
    del dataset_hash
    return available_targets(_dataset)


def note_of(result: ModelScores, metric: str, value: float) -> str:
    return sm.undefined_reason(metric, float(value), result.notes)


def _fmt(value: float, lower: float, upper: float, n_boot: int) -> str:
    if np.isnan(value):
        return "undefined"
    if n_boot and not np.isnan(lower):
        return f"{value:.3f} [{lower:.3f}, {upper:.3f}]"
    return f"{value:.3f}"


# ------------------------------------------------------------------------ models and uploads
def upload_section() -> None:
    upload = st.file_uploader(
        "Add predictions (CSV: item_id, label, prob[, model]; or one column per label)",
        type=["csv", "tsv", "txt", "parquet"],
        key=f"{KEY}.upload",
        help="Multiclass rows must sum to 1. Labels must be the dataset's labels.",
    )
    if upload is None:
        return
    try:
        frame = load_predictions(upload.getvalue(), dataset, name=upload.name)
    except DataError as error:
        show_data_error(error)
        return
    renamed = add_predictions(frame)
    if renamed:
        st.warning(renamed_note(renamed))
    st.success(f"Added predictions of {frame['model'].nunique()} model(s) from "
               f"{md(upload.name)}.")


def models_tab(results: dict[str, dict], n_boot: int, seed: int, skip_undefined: bool) -> None:
    table = pd.concat([r.table.assign(note=[note_of(r, m, v) for m, v in
                                            zip(r.table["metric"], r.table["value"], strict=True)])
                       for r in results.values()], ignore_index=True)
    models = list(results)
    order = [m for m in sm.METRIC_INFO if m in set(table["metric"])]
    table["cell"] = [_fmt(v, lo, hi, n) for v, lo, hi, n in
                     zip(table["value"], table["lower"], table["upper"], table["n_boot"],
                         strict=True)]
    wide = table.pivot(index="metric", columns="model", values="cell").reindex(order)[models]
    wide.insert(0, "group", [GROUP_TITLES[sm.METRIC_INFO[m][0]] for m in wide.index])
    wide.index.name = "metric"
    st.subheader("All metrics, every model")
    st.caption(
        f"Value [{int(100 * 0.95)}% percentile bootstrap CI over items, {n_boot} resamples, "
        f"seed {seed}]. Hard metrics first, then soft; the LeWiDi distances are lower-is-better. "
        + ("Soft macro F1 / entropy correlation skip undefined classes (friendlier option)."
           if skip_undefined else "Reference conventions: undefined classes make a macro mean "
           "undefined (see notes).")
    )
    coverage = {m: int(results[m].table["n_items"].iloc[0]) for m in models}
    wide.loc["items scored"] = ["coverage", *[f"{coverage[m]} of {dataset.n_items}"
                                              for m in models]]
    show_table(wide, width="stretch")
    for model, n in coverage.items():
        if n < dataset.n_items:
            st.warning(f"**{md(model)}** is scored on only {n} of {dataset.n_items} "
                       "items (the others have no prediction): its numbers describe those "
                       f"{n} items, not the whole dataset.", icon=":material/warning:")
    download_table(table.drop(columns=["cell"]).assign(dataset=dataset.name,
                                                       n_items_total=dataset.n_items),
                   f"{dataset.name}_soft_hard_metrics.csv", key=f"{KEY}.dl.metrics")
    for model, result in results.items():
        for note in result.notes:
            st.info(f"**{md(model)}**: {md(note)}", icon=":material/info:")

    # ranking of models per metric: does the metric change the winner?
    ranks = metric_ranks(table)
    fig = px.line(ranks, x="metric", y="rank", color="model", markers=True,
                  hover_data={"value": ":.4f"},
                  title="Rank of each model under each metric (1 = best)")
    fig.update_yaxes(autorange="reversed", dtick=1)
    st.plotly_chart(fig, width="stretch", key=f"{KEY}.rank_plot")
    winners = metric_winners(ranks)
    if len(models) > 1 and winners.nunique() > 1:
        st.warning("The choice of metric changes the winner: "
                   + "; ".join(f"{md(m)} → {md(w)}" for m, w in winners.items()))
    elif len(models) > 1 and len(winners):
        st.success(f"Every metric ranks **{md(winners.iloc[0])}** first.")


def classes_tab(results: dict[str, dict]) -> None:
    model = st.selectbox("Model", list(results), key=f"{KEY}.class_model")
    kind = st.radio("Kind", ["soft", "hard"], horizontal=True, key=f"{KEY}.class_kind")
    classwise = results[model].classwise
    shown = classwise[classwise["kind"] == kind]
    long = shown.melt(id_vars=["label"], value_vars=["precision", "recall", "f1"],
                      var_name="measure", value_name="value")
    fig = px.bar(long, x="label", y="value", color="measure", barmode="group",
                 title=f"Class-wise {kind} precision / recall / F1 — {model}")
    fig.update_yaxes(range=[0, 1.05])
    st.plotly_chart(fig, width="stretch", key=f"{KEY}.class_plot")
    st.caption("Soft support is the human judgement mass of the class; a class with no mass "
               "has undefined (NaN) soft recall." if kind == "soft" else
               "Hard P/R/F1 on majority labels; a class absent from truth and predictions "
               "scores 1 (reference zero_division=1).")
    all_classwise = pd.concat([r.classwise for r in results.values()], ignore_index=True)
    show_table(shown, hide_index=True, width="stretch")
    download_table(all_classwise, f"{dataset.name}_classwise.csv", key=f"{KEY}.dl.classwise")


def items_tab(results: dict[str, dict]) -> None:
    model = st.selectbox("Model", list(results), key=f"{KEY}.item_model")
    threshold = st.slider("Soft overlap counted as 'matches the humans'", 0.5, 1.0, 0.8, 0.05,
                          key=f"{KEY}.threshold")
    res = results[model]
    items = res.items.assign(verdict=item_verdicts(res.items, threshold))
    counts = items["verdict"].value_counts()
    cols = st.columns(3)
    cols[0].metric("Hard wrong but soft matches", int(counts.get("hard wrong, soft matches", 0)))
    cols[1].metric("Hard right but soft far", int(counts.get("hard right, soft far", 0)))
    cols[2].metric("Items", len(items))
    rng = np.random.default_rng(0)
    drawn = items if len(items) <= SCATTER_MAX else items.sample(SCATTER_MAX, random_state=0)
    drawn = drawn.assign(**{"hard (jittered)": drawn["hard_correct"].astype(float)
                            + rng.uniform(-0.15, 0.15, len(drawn))})
    fig = px.scatter(drawn, x="soft_overlap", y="hard (jittered)", color="verdict",
                     custom_data=["item_id"], hover_data=["item_id", "entropy_p", "po_jsd"],
                     title=f"Per-item soft overlap vs hard correctness — {model}"
                     + (f" ({SCATTER_MAX:,} of {len(items):,} items drawn)"
                        if len(drawn) < len(items) else ""))
    fig.update_yaxes(tickvals=[0, 1], ticktext=["hard wrong", "hard right"])
    fig.add_vline(x=threshold, line_dash="dot")
    event = st.plotly_chart(fig, width="stretch", key=f"{KEY}.item_plot", on_select="rerun",
                            selection_mode="points")
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    item_key = f"{KEY}.item"
    if points and points[0].get("customdata"):
        st.session_state[item_key] = str(points[0]["customdata"][0])
    show_table(items.sort_values(["verdict", "soft_overlap"]), hide_index=True, width="stretch")
    download_table(pd.concat([r.items for r in results.values()], ignore_index=True),
                   f"{dataset.name}_per_item.csv", key=f"{KEY}.dl.items")

    st.subheader("Item drill-down")
    ids = res.item_ids
    if st.session_state.get(item_key) not in ids:
        st.session_state[item_key] = ids[0]
    item = st.selectbox("Item (or click a point above)", ids, key=item_key)
    row = ids.index(item)
    text_cols = dataset.items.loc[dataset.items["item_id"] == item]
    if "text" in text_cols.columns and len(text_cols):
        st.text(str(text_cols["text"].iloc[0]))
    left, right = st.columns(2)
    dist = pd.DataFrame({"label": list(dataset.labels), "humans": res.P[row],
                         model: res.Q[row]})
    fig2 = px.bar(dist.melt(id_vars="label", var_name="source", value_name="probability"),
                  x="label", y="probability", color="source", barmode="group",
                  title="Human judgements vs model")
    left.plotly_chart(fig2, width="stretch", key=f"{KEY}.item_dist")
    show_table(dataset.item_annotations(item), hide_index=True, width="stretch", where=right)
    with st.expander("What each training method would train on for this item"):
        targets = all_targets(dataset, dataset.content_hash)
        for method in training.METHODS:
            frame = targets[method]
            st.markdown(f"**{method}**: {training.METHOD_INFO[method][2]}")
            if isinstance(frame, str):
                st.caption(f"Not available here: {md(frame)}")
            else:
                show_table(frame[frame["item_id"] == item], hide_index=True, width="stretch")


# ------------------------------------------------------------------------------------ layout
def choose_and_score() -> tuple[dict[str, ModelScores], int, int, bool]:
    """Upload, model choice and bootstrap controls (shared by the first three tabs)."""
    st.caption(f"Label order (fixes argmax ties): {md(', '.join(dataset.labels))}"
               + (" · multilabel: a class is positive when its proportion is > 0.5"
                  if MULTILABEL else ""))
    upload_section()
    preds = item_level_predictions(get_predictions())
    if preds is None:
        st.info("This dataset has no predictions yet: upload a predictions file above.")
        return {}, 0, 0, False
    available = list(pd.unique(preds["model"]))
    models_key, known_key = f"{KEY}.models", f"{KEY}.known_models"
    known = st.session_state.get(known_key, [])
    if models_key not in st.session_state or set(available) != set(known):
        kept = [m for m in st.session_state.get(models_key, []) if m in available]
        # newly available models (e.g. just uploaded) are selected automatically
        st.session_state[models_key] = kept + [m for m in available if m not in known]
        st.session_state[known_key] = available
    chosen = st.multiselect("Models", available, key=models_key)
    c1, c2, c3, c4 = st.columns(4)
    n_boot = int(c1.number_input("Bootstrap resamples", 0, 5000, 500, step=100,
                                 key=f"{KEY}.n_boot"))
    seed = int(c2.number_input("Seed", 0, 2**31 - 1, 0, key=f"{KEY}.seed"))
    skip = c3.toggle("Skip undefined classes in macro means", value=False,
                     key=f"{KEY}.skip_undefined",
                     help="Off = reference behaviour (NaN when a class is undefined).")
    cheap = dataset.n_items * n_boot * max(len(chosen), 1) <= AUTO_BOOT_MAX
    with_ci = cheap or c4.toggle(
        "Bootstrap CIs", value=False, key=f"{KEY}.ci",
        help=f"{dataset.n_items:,} items x {n_boot} resamples x {len(chosen)} models: the "
        "point values show first; switch this on for the intervals (a few seconds).")
    p_hash = frame_hash(preds)
    results = {}
    for model in chosen:
        try:
            results[model] = compute_model(dataset, dataset.content_hash, preds, p_hash, model,
                                           n_boot if with_ci else 0, seed, skip, MULTILABEL)
        except DataError as error:
            show_data_error(error)
    return results, (n_boot if with_ci else 0), seed, skip


if SUPPORTED:
    results, n_boot, seed, skip = choose_and_score()
else:
    st.info(
        f"**{md(dataset.name)}** is {dataset.task} data. Hard and soft metrics need "
        "multiclass, rating or multilabel annotations; choose another sample (the explainer "
        "and the simulator work without data)."
    )
    results, n_boot, seed, skip = {}, 0, 0, False

tabs = lazy_tabs(["Models", "Classes", "Items", "Figure 1 explainer", "Table 2 simulator"],
                 key=f"{KEY}.tab")
NEEDS_RESULTS = {
    "Models": (lambda: models_tab(results, n_boot, seed, skip), "Choose at least one model."),
    "Classes": (lambda: classes_tab(results),
                "Class-wise metrics appear once a supported dataset has predictions."),
    "Items": (lambda: items_tab(results),
              "Per-item views appear once a supported dataset has predictions."),
}
for name, tab in tabs.items():  # only the open tab runs
    if not tab.open:
        continue
    with tab:
        if name == "Figure 1 explainer":
            figure1_explainer(KEY)
        elif name == "Table 2 simulator":
            table2_simulator(KEY)
        elif results:
            NEEDS_RESULTS[name][0]()
        elif SUPPORTED:
            st.info(NEEDS_RESULTS[name][1])
