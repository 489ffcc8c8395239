"""Soft vs hard metrics (Kurniawan et al.): what hard and soft metrics say about the models, with
bootstrap CIs, class-wise and per-item views, the Figure 1 explainer and the Table 2 simulator."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from hlv_core import soft_metrics as sm
from hlv_core.glossary import metric_label, paper_label
from hlv_core.io import DataError, item_level_predictions
from hlv_core.scoring import ModelScores, item_verdicts, metric_ranks, metric_winners, score_model
from hlv_core.targets import available_targets
from hlv_core.text import md
from hlv_ui.cache import cached
from hlv_ui.explain import explain, explain_inline
from hlv_ui.model_groups import coverage_warnings, shown_predictions, without_hidden
from hlv_ui.palette import model_colours
from hlv_ui.simulators import figure1_explainer, table2_simulator
from hlv_ui.state import (
    get_predictions,
    require_dataset,
    show_data_error,
)
from hlv_ui.widgets import SETTING, download_table, lazy_tabs, show_table
from pages.soft_metrics import figures as figs
from pages.soft_metrics.judge_views import human_pool_views
from pages.soft_metrics.predictions_views import (
    choose_models,
    how_to_get_predictions,
    upload_predictions,
)
from pages.soft_metrics.views import item_drilldown

KEY = "soft_metrics"
#: Bootstrap CIs start automatically when items x resamples x models stays below this; above it
#: the point values show first and the CIs run when asked for.
AUTO_BOOT_MAX = 2_000_000
#: Points drawn in the per-item scatter (a random sample beyond this; the table has every item).
SCATTER_MAX = 4000

st.title("Soft vs hard metrics")
st.caption(
    "Hard metrics compare the model's top label with the humans' majority vote; soft metrics "
    "compare the model's whole distribution with the distribution of human judgements "
    f"({md(paper_label('kurniawan'))})."
)
explain("soft_metric", "hard_metric")

dataset = require_dataset()
SUPPORTED = dataset.task in ("multiclass", "multilabel", "rating")
MULTILABEL = dataset.task == "multilabel"


# ------------------------------------------------------------------------ cached engine calls
@cached(show_spinner="Computing metrics and bootstrap intervals…", max_entries=32)
def compute_model(dataset, preds: pd.DataFrame, model: str, n_boot: int, seed: int,
                  skip_undefined: bool, multilabel: bool) -> ModelScores:
    """Every metric of one model (values, CIs, notes, class-wise and per-item tables)."""
    return score_model(dataset, preds, model, multilabel=multilabel,
                       skip_undefined=skip_undefined, n_boot=n_boot, seed=seed)


@cached(show_spinner=False, max_entries=8)
def all_targets(dataset) -> dict[str, pd.DataFrame | str]:
    """What each training method would train on (or why it cannot run here)."""
    return available_targets(dataset)


def note_of(result: ModelScores, metric: str, value: float) -> str:
    return sm.undefined_reason(metric, float(value), result.notes)


def models_tab(results: dict[str, ModelScores], n_boot: int, seed: int,
               skip_undefined: bool) -> None:
    """Every metric of every model (human names, CIs, coverage) and the rank plot."""
    table = pd.concat([r.table.assign(note=[note_of(r, m, v) for m, v in
                                            zip(r.table["metric"], r.table["value"], strict=True)])
                       for r in results.values()], ignore_index=True)
    models = list(results)
    st.subheader("All metrics, every model")
    st.caption(
        f"Value [95% bootstrap confidence interval over items, {n_boot} resamples, "
        f"random seed {seed}]. Hard metrics first, then soft; the LeWiDi distances are "
        "lower-is-better. "
        + ("Soft macro F1 / entropy correlation skip undefined classes (friendlier option)."
           if skip_undefined else "Reference conventions: undefined classes make a macro mean "
           "undefined (see notes).")
    )
    explain("jsd", "entropy_correlation", "bootstrap_ci", "coverage")
    wide = figs.metrics_wide_table(table, models, dataset.n_items)
    show_table(wide, width="stretch")
    for line in coverage_warnings({m: int(r.table["n_items"].iloc[0]) for m, r in
                                   results.items()}, dataset.n_items):
        st.warning(line, icon=":material/warning:")
    download_table(table.assign(metric_name=table["metric"].map(metric_label),
                                dataset=dataset.name, n_items_total=dataset.n_items),
                   f"{dataset.name}_soft_hard_metrics.csv", key=f"{KEY}.dl.metrics",
                   label="Download per-model scores (CSV)")
    for model, result in results.items():
        for note in result.notes:
            st.info(f"**{md(model)}**: {md(note)}", icon=":material/info:")

    # ranking of models per metric: does the metric change the winner?
    ranks = metric_ranks(table)
    st.plotly_chart(figs.rank_figure(ranks, model_colours(models)), width="stretch",
                    key=f"{KEY}.rank_plot")
    winners = metric_winners(ranks)
    if len(models) > 1 and winners.nunique() > 1:
        st.warning("The choice of metric changes the winner: "
                   + "; ".join(f"{md(metric_label(m))} → {md(w)}" for m, w in winners.items()))
    elif len(models) > 1 and len(winners):
        st.success(f"Every metric ranks **{md(winners.iloc[0])}** first.")


def classes_tab(results: dict[str, ModelScores]) -> None:
    """Class-wise soft or hard precision / recall / F1 of one model."""
    model = st.selectbox("Model", list(results), key=f"{KEY}.class_model", **SETTING)
    kind = st.radio("Kind", ["soft", "hard"], horizontal=True, key=f"{KEY}.class_kind",
                    **SETTING,
                    help=f"Soft: {explain_inline('soft_metric')}\n\n"
                         f"Hard: {explain_inline('hard_metric')}")
    classwise = results[model].classwise
    shown = classwise[classwise["kind"] == kind]
    st.plotly_chart(figs.class_figure(shown, kind, model), width="stretch",
                    key=f"{KEY}.class_plot")
    st.caption("Soft support is the human judgement mass of the class; a class with no mass "
               "has undefined (NaN) soft recall." if kind == "soft" else
               "Hard precision, recall and F1 on majority labels; a class absent from truth and "
               "predictions scores 1 (reference zero_division=1).")
    show_table(shown, hide_index=True, width="stretch")
    download_table(pd.concat([r.classwise for r in results.values()], ignore_index=True),
                   f"{dataset.name}_classwise.csv", key=f"{KEY}.dl.classwise",
                   label="Download class-wise scores, every model (CSV)")


def items_tab(results: dict[str, ModelScores]) -> None:
    """Items where hard and soft evaluation disagree, and one item in detail."""
    model = st.selectbox("Model", list(results), key=f"{KEY}.item_model", **SETTING)
    threshold = st.slider("Soft overlap counted as 'matches the humans'", 0.5, 1.0, 0.8, 0.05,
                          key=f"{KEY}.threshold", **SETTING,
                          help="Soft overlap of an item: the sum over classes of the smaller of "
                               "the human share and the model's probability (1 = identical).")
    res = results[model]
    items = res.items.assign(verdict=item_verdicts(res.items, threshold))
    counts = items["verdict"].value_counts()
    cols = st.columns(3)
    cols[0].metric("Hard wrong but soft matches", int(counts.get("hard wrong, soft matches", 0)))
    cols[1].metric("Hard right but soft far", int(counts.get("hard right, soft far", 0)))
    cols[2].metric("Items", len(items))
    drawn = items if len(items) <= SCATTER_MAX else items.sample(SCATTER_MAX, random_state=0)
    title = (f"Per-item soft overlap vs hard correctness: {html.escape(model)}"
             + (f" ({SCATTER_MAX:,} of {len(items):,} items drawn)"
                if len(drawn) < len(items) else ""))
    event = st.plotly_chart(figs.item_scatter(drawn, threshold, title), width="stretch",
                            key=f"{KEY}.item_plot", on_select="rerun", selection_mode="points")
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    item_key = f"{KEY}.item"
    if points and points[0].get("customdata"):
        st.session_state[item_key] = str(points[0]["customdata"][0])
    show_table(items.sort_values(["verdict", "soft_overlap"]).rename(columns=figs.ITEM_COLUMNS),
               hide_index=True, width="stretch")
    download_table(pd.concat([r.items for r in results.values()], ignore_index=True),
                   f"{dataset.name}_per_item.csv", key=f"{KEY}.dl.items",
                   label="Download per-item scores, every model (CSV)")

    item_drilldown(dataset, res, model_colours(list(results))[model],
                   lambda: all_targets(dataset), key=item_key)


# ------------------------------------------------------------------------------------ layout
def choose_and_score() -> tuple[dict[str, ModelScores], int, int, bool]:
    """Upload, model choice and bootstrap controls (shared by the first three tabs)."""
    st.caption(f"Label order (fixes argmax ties): {md(', '.join(dataset.labels))}"
               + (" · multilabel: a class is positive when its proportion is > 0.5"
                  if MULTILABEL else ""))
    upload_predictions(dataset, key=f"{KEY}.upload")
    preds = item_level_predictions(shown_predictions(get_predictions(), key=KEY))
    if preds is None:
        how_to_get_predictions()
        return {}, 0, 0, False
    chosen = choose_models(list(pd.unique(preds["model"])), key=f"{KEY}.models")
    c1, c2, c3, c4 = st.columns([1.2, 1.2, 1.4, 1.2])  # the toggle labels fit at 1200 px
    n_boot = int(c1.number_input("Bootstrap resamples", 0, 5000, 500, step=100,
                                 key=f"{KEY}.n_boot", **SETTING,
                                 help=explain_inline("bootstrap_ci")
                                 + " 0 = no intervals."))
    seed = int(c2.number_input("Random seed (bootstrap)", 0, 2**31 - 1, 0, key=f"{KEY}.seed",
                               **SETTING,
                               help="The same seed gives the same intervals."))
    skip = c3.toggle("Skip undefined classes", value=False, key=f"{KEY}.skip_undefined",
                     **SETTING,
                     help="In macro means (soft macro F1, entropy correlation). Off = the "
                          "reference behaviour: undefined when a class is undefined.")
    cheap = dataset.n_items * n_boot * max(len(chosen), 1) <= AUTO_BOOT_MAX
    with_ci = cheap or c4.toggle(
        "Confidence intervals", value=False, key=f"{KEY}.ci", **SETTING,
        help=f"{dataset.n_items:,} items x {n_boot} resamples x {len(chosen)} models: the "
        "point values show first; switch this on for the intervals (a few seconds).")
    results = {}
    for model in chosen:
        try:
            results[model] = compute_model(dataset, preds, model,
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

tabs = lazy_tabs(["Models", "Classes", "Items", "Against the human pool", "Figure 1 explainer",
                  "Table 2 simulator"], key=f"{KEY}.tab")
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
        elif name == "Against the human pool":
            human_pool_views(dataset, without_hidden(get_predictions()), KEY)
        elif results:
            NEEDS_RESULTS[name][0]()
        elif SUPPORTED:
            st.info(NEEDS_RESULTS[name][1])
