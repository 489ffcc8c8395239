"""The "Against the human pool" tab of the Soft vs hard metrics page: the human ceiling beside
every metric, "Can the model replace an annotator?" (the Alternative Annotator Test of
Calderon, Reichart & Dror, ACL 2025) and "Calibration to humans" (Baan et al., EMNLP 2022).

Widgets, caching and figures only: every number comes from :mod:`hlv_core.judging` (the
functions ``python -m hlv_core judge`` calls) and :mod:`hlv_core.calibration`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import calibration as cal
from hlv_core.glossary import metric_label, paper_label
from hlv_core.io import DataError, ImportReport, item_level_predictions, load_predictions
from hlv_core.judge import EPSILON_PRESETS
from hlv_core.judging import (
    BASELINE,
    alt_test_summary,
    calibration_inputs,
    ceiling_table,
    run_alt_tests,
    run_calibration,
    run_ceiling,
    run_sweep,
    scale_probabilities,
)
from hlv_core.text import md
from hlv_ui.cache import cached
from hlv_ui.explain import explain
from hlv_ui.state import show_data_error
from hlv_ui.widgets import SETTING, download_table, show_table
from pages.soft_metrics import judge_figures as figs
from pages.soft_metrics.predictions_views import how_to_get_predictions

__all__ = ["VIEWS", "human_pool_views"]

VIEWS = ("Human ceiling", "Can the model replace an annotator?", "Calibration to humans")
PRESET_NAMES = {"expert": "experts", "skilled": "skilled annotators", "crowd": "crowd workers"}
CEILING_COLUMNS = {"model_full": "model vs all annotators",
                   "model_same_targets": "model vs the others (same targets, mean)",
                   "ceiling": "human ceiling (mean)", "lower": "CI lower", "upper": "CI upper",
                   "n_defined": "annotators", "best": "best annotator",
                   "worst": "worst annotator", "above_ceiling": "model above the ceiling CI"}
COUNTS_ONLY = ("These data hold vote counts only, without annotator ids (e.g. ChaosNLI's 100 "
               "anonymous votes per item). The human ceiling and the alternative annotator test "
               "leave one *annotator* out at a time and compare that person with the others, so "
               "they need to know who gave which label; they are not available here. "
               "Calibration to humans works on counts: choose it above.")


# ----------------------------------------------------------------------- cached engine calls
@cached(show_spinner="Scoring every annotator against the others…", max_entries=8)
def _ceiling(dataset, preds, model: str | None, n_boot: int, seed: int, min_items: int = 30,
             min_others: int = 2):
    return run_ceiling(dataset, preds, model, n_boot=n_boot, seed=seed, min_items=min_items,
                       min_others=min_others)


@cached(show_spinner="Running the alternative annotator test…", max_entries=16)
def _alt(dataset, preds, epsilon: float, q: float, scoring: str):
    return run_alt_tests(dataset, preds, epsilon=epsilon, q_fdr=q, scoring=scoring)


@cached(show_spinner="Winning rate for every epsilon…", max_entries=8)
def _sweep(dataset, preds, q: float, scoring: str):
    return run_sweep(dataset, preds, q_fdr=q, scoring=scoring)


@cached(show_spinner="Calibration to the human distribution…", max_entries=16)
def _calibration(dataset, preds, temperature: float):
    return run_calibration(dataset, preds, temperature=temperature)


# ------------------------------------------------------------------------------- the views
def human_pool_views(dataset, predictions: pd.DataFrame | None, key: str) -> None:
    """The three views; only the chosen one computes."""
    st.caption("Is the model as good as one of your annotators? Three answers: how each "
               "annotator scores against the others (the human range), whether the model could "
               "replace one of them, and whether its confidence matches how people split.")
    view = st.radio("Question", VIEWS, horizontal=True, key=f"{key}.pool_view", **SETTING)
    if dataset.task == "ranking":
        st.info("These views need one label (or label set) per annotator and item; this "
                "dataset holds rankings.")
        return
    try:
        if view == VIEWS[2]:
            calibration_view(dataset, predictions, key)
        elif not dataset.annotator_ids_known:
            st.info(COUNTS_ONLY, icon=":material/info:")
        elif view == VIEWS[0]:
            ceiling_view(dataset, predictions, key)
        else:
            alt_test_view(dataset, predictions, key)
    except DataError as error:
        show_data_error(error)
    except ValueError as error:  # the engine refuses these data: say why, never a traceback
        st.warning(md(str(error)), icon=":material/warning:")


def _item_models(predictions) -> list[str]:
    rows = item_level_predictions(predictions)
    return [] if rows is None else [str(m) for m in pd.unique(rows["model"])]


def ceiling_view(dataset, predictions, key: str) -> None:
    st.subheader("Human ceiling beside the model")
    explain("human_ceiling")
    models = _item_models(predictions)
    c1, c2, c3 = st.columns(3)
    model = c1.selectbox("Model", models or ["(no model loaded)"], key=f"{key}.ceil_model",
                         **SETTING,
                         disabled=not models)
    n_boot = int(c2.number_input("Bootstrap resamples", 0, 5000, 1000, step=100,
                                 key=f"{key}.ceil_boot", **SETTING))
    seed = int(c3.number_input("Random seed (bootstrap)", 0, 2**31 - 1, 0,
                               key=f"{key}.ceil_seed", **SETTING))
    d1, d2, _ = st.columns(3)
    min_items = int(d1.number_input(
        "Fewest items per scored annotator", 1, 100_000, 30, key=f"{key}.ceil_min_items",
        **SETTING, help="An annotator with fewer items (each with enough other annotators) is "
                        "listed as not scored: their mean would rest on too few items "
                        "(the human ceiling, Kurniawan et al., section 3)."))
    min_others = int(d2.number_input(
        "Fewest other annotators on an item", 1, 1_000, 2, key=f"{key}.ceil_min_others",
        **SETTING, help="The leave-one-out target of an item is the other annotators' labels "
                        "(Kurniawan et al., section 3); with one other annotator it is a single "
                        "person's label."))
    try:
        res, notes = _ceiling(dataset, predictions, model if models else None, n_boot, seed,
                              min_items, min_others)
    except ValueError as err:
        st.warning(md(str(err)), icon=":material/warning:")
        return
    table = ceiling_table(res)
    st.caption(f"Ceiling = mean over the {int(res.annotators['scored'].sum())} scored "
               f"annotators [{res.level:.0%} percentile bootstrap over items, {res.n_boot} "
               f"resamples, random seed {res.seed}]. 'Same targets': the model scored on each "
               "annotator's items against the same leave-one-out label (a paired comparison); "
               "'all annotators': against the soft label of everyone.")
    shown = table.assign(metric=table["metric"].map(metric_label)).rename(columns=CEILING_COLUMNS)
    show_table(shown, hide_index=True, width="stretch")
    download_table(table.assign(n_boot=res.n_boot, seed=res.seed, dataset=dataset.name),
                   f"{dataset.name}_human_ceiling.csv", key=f"{key}.dl.ceiling",
                   label="Download the ceiling table (CSV)")
    st.plotly_chart(figs.ceiling_figure(res.per_annotator, table, model if models else None),
                    width="stretch", key=f"{key}.ceiling_plot")
    above = table[table["above_ceiling"]]
    if len(above):
        st.success(f"On the same items the model's mean score is above the upper end of the "
                   f"human ceiling's {res.level:.0%} confidence interval for: "
                   + ", ".join(md(metric_label(m)) for m in above["metric"])
                   + ". For the soft metrics this is expected (see the note below).")
    for note in [*notes, *res.notes]:
        st.info(md(note), icon=":material/info:")
    with st.expander("Every annotator (values and intervals)"):
        show_table(res.per_annotator.assign(metric=res.per_annotator["metric"].map(
            metric_label)), hide_index=True, width="stretch")
        download_table(res.per_annotator.assign(n_boot=res.n_boot, seed=res.seed,
                                                level=res.level, dataset=dataset.name),
                       f"{dataset.name}_ceiling_per_annotator.csv",
                       key=f"{key}.dl.ceiling_per", label="Download (CSV)")
        unscored = res.annotators[~res.annotators["scored"]]
        if len(unscored):
            st.caption(f"{len(unscored)} annotator(s) not scored (too few items):")
            show_table(unscored, hide_index=True, width="stretch")
            download_table(unscored.assign(dataset=dataset.name),
                           f"{dataset.name}_ceiling_unscored.csv", key=f"{key}.dl.ceiling_unscored",
                           label="Download the annotators not scored (CSV)")


def _epsilon(key: str) -> float:
    c1, c2 = st.columns([2, 3])
    preset = c1.radio("Your annotators are", list(EPSILON_PRESETS), horizontal=False,
                      format_func=lambda p: f"{PRESET_NAMES[p]} (ε = {EPSILON_PRESETS[p]:g})",
                      key=f"{key}.alt_preset", **SETTING)
    return float(c2.slider("Epsilon: how much worse than a human the model may be", 0.0, 0.3,
                           EPSILON_PRESETS[preset], 0.05, key=f"{key}.alt_eps.{preset}",
                           **SETTING,
                           help="The paper's guidance: 0.2 experts, 0.15 skilled annotators, "
                                "0.1 crowd workers; lower it when annotators agree little."))


def _alt_test_labels(dataset, key: str) -> pd.DataFrame | None:
    """An uploader of model labels for this test only: hard labels outside the dataset's labels
    (an LLM judge's "None of the above") are allowed and never match (Calderon et al.,
    section 3); the other views need labels from the dataset's list."""
    upload = st.file_uploader(
        "Model labels for this test only (CSV: item_id, label[, model][, annotator_id])",
        type=["csv", "tsv", "txt", "parquet"], key=f"{key}.alt_upload",
        help="Hard labels, e.g. an LLM judge's answers. An answer your annotators never gave "
             "(such as 'None of the above') is allowed here and never matches a human label "
             "(Calderon et al., section 3: the alignment score compares label values).")
    if upload is None:
        return None
    report = ImportReport(upload.name, "predictions")
    try:
        frame = load_predictions(upload.getvalue(), dataset, name=upload.name,
                                 unknown_labels="keep", report=report)
    except DataError as error:
        show_data_error(error)
        return None
    for note in report.notes:
        st.info(md(note), icon=":material/info:")
    return frame


def _with_test_labels(predictions, labels):
    """The loaded predictions with the test-only labels (a model of the same name replaced)."""
    if labels is None:
        return predictions
    if predictions is None:
        return labels
    kept = predictions[~predictions["model"].astype(str).isin(set(labels["model"].astype(str)))]
    return pd.concat([kept, labels], ignore_index=True)


def alt_test_view(dataset, predictions, key: str) -> None:
    st.subheader("Can the model replace an annotator?")
    explain("alt_test", "winning_rate", "advantage_probability", "alt_epsilon")
    epsilon = _epsilon(key)
    c1, c2 = st.columns(2)
    q = float(c1.select_slider("FDR level q (Benjamini-Yekutieli)", [0.01, 0.05, 0.1], 0.05,
                               key=f"{key}.alt_q", **SETTING))
    numeric = dataset.task == "rating"
    scoring = c2.selectbox("Alignment score", ["neg_rmse", "accuracy"] if numeric else
                           ["accuracy"], key=f"{key}.alt_scoring", **SETTING,
                           disabled=not numeric,
                           help="Accuracy: share of the other annotators giving the same label. "
                                "Negative RMSE: for numeric ratings (greyed out when the labels "
                                "are not numbers).")
    st.caption("In plain words: a winning rate of 0.6 means that for 6 in 10 of your annotators "
               "the test shows the model agrees with the remaining annotators at least as well "
               "as that person does (allowing the margin ε). From 0.5 up, the paper says you "
               "may drop one annotator and use the model's label instead; below, keep the "
               "humans.")
    st.caption("Caveats: with fewer than 3 tested annotators the verdict is weak evidence; "
               "annotators with fewer than 30 items are skipped; on imbalanced labels a model "
               "that always answers the majority label can pass with accuracy, so the constant "
               "majority baseline is always tested beside your models.")
    predictions = _with_test_labels(predictions, _alt_test_labels(dataset, key))
    results, notes = _alt(dataset, predictions, epsilon, q, scoring)
    summary = alt_test_summary(results)
    if predictions is None:
        how_to_get_predictions("Load a model's labels to test it; the constant-majority "
                               "baseline below shows what the test says about a trivial model.")
    for name, res in results.items():
        if isinstance(res, str):
            st.warning(f"**{md(name)}** cannot be tested: {md(res)}", icon=":material/warning:")
            continue
        won = int(res.per_annotator["rejected"].sum())
        verdict = "**can replace an annotator**" if res.passed else "**cannot replace an " \
                  "annotator**"
        st.markdown(f"- **{md(name)}** {verdict} at ε = {epsilon:g}: it is at least as good "
                    f"(within ε) as {won} of {res.n_tested} annotators, winning rate "
                    f"ω = {res.winning_rate:.2f} (passes at 0.5); advantage probability "
                    f"ρ = {res.rho:.2f}.")
        for warning in res.warnings:
            st.warning(f"**{md(name)}**: {md(warning)}", icon=":material/warning:")
    base = results.get(BASELINE)
    if not isinstance(base, str) and base is not None and base.passed:
        st.warning("The constant majority label passes too: with accuracy on skewed labels a "
                   "model that always answers the most frequent label can win (Calderon et "
                   "al., section 3). A model should beat this baseline clearly.",
                   icon=":material/warning:")
    for note in notes:
        st.info(md(note), icon=":material/info:")
    show_table(summary, hide_index=True, width="stretch")
    download_table(summary.assign(dataset=dataset.name), f"{dataset.name}_alt_test.csv",
                   key=f"{key}.dl.alt", label="Download the verdicts (CSV)")
    tested = [n for n, r in results.items() if not isinstance(r, str)]
    if tested:
        chosen = st.selectbox("Per-annotator test of", tested, key=f"{key}.alt_model",
                              **SETTING)
        res = results[chosen]
        show_table(res.per_annotator, hide_index=True, width="stretch", column_config={
            "p_value": st.column_config.NumberColumn("p-value", format="%.3g")})
        download_table(res.per_annotator.assign(model=chosen, epsilon=epsilon, q=q),
                       f"{dataset.name}_alt_test_per_annotator.csv", key=f"{key}.dl.alt_per",
                       label="Download the per-annotator tests (CSV)")
        if res.skipped:
            st.caption("Skipped: " + "; ".join(f"{md(a)}: {md(r)}"
                                               for a, r in res.skipped.items()))
    sweep = _sweep(dataset, predictions, q, scoring)
    if len(sweep):
        st.plotly_chart(figs.sweep_figure(sweep, epsilon), width="stretch",
                        key=f"{key}.sweep_plot")
    with st.expander("How the test works (Calderon et al., section 3)"):
        st.markdown(
            f"{md(paper_label('calderon'))}. Each annotator j is left out in turn. On every "
            "item j labelled, the model and j are scored by how well they agree with the "
            "remaining annotators; the model wins the item when its score is at least j's "
            "(a tie counts for both). A one-sided t-test asks whether j wins more often than "
            "the model by at least ε; Benjamini-Yekutieli corrects for testing every "
            "annotator. Annotators with fewer than 30 items are skipped; the paper recommends "
            "at least 3 tested annotators.")


def calibration_view(dataset, predictions, key: str) -> None:
    st.subheader("Calibration to humans")
    explain("dist_ce", "ent_ce", "rank_cs", "ece_majority")
    if dataset.task not in ("multiclass", "rating"):
        st.info("Calibration to the human distribution needs one label per vote (multiclass "
                "or rating data).")
        return
    models = _item_models(predictions)
    if not models:
        how_to_get_predictions("Calibration needs model probabilities for the items.")
        return
    temperature = float(st.slider("Temperature T (1 = the model as it is)", 0.25, 5.0, 1.0,
                                  0.25, key=f"{key}.cal_t", **SETTING,
                                  help="Probabilities become Q^(1/T), renormalised: T > 1 "
                                       "softens the model, T < 1 sharpens it. The paper's "
                                       "'TS' rows use a fixed T = 2; nothing is fitted."))
    table = _calibration(dataset, predictions, temperature)
    st.caption(f"Temperature {temperature:g} applied to every model. The oracle row predicts "
               "the human distribution itself: DistCE 0 and RankCS 1, yet its ECE against "
               "the majority is above 0: ECE punishes a model that is calibrated to how "
               f"people split ({md(paper_label('baan'))}, section 3).")
    for name, n in zip(table["model"], table["n_items"], strict=True):
        if n < dataset.n_items and not str(name).startswith("oracle"):
            st.warning(f"**{md(name)}** is scored on only {int(n)} of {dataset.n_items} items "
                       "(the others have no prediction).", icon=":material/warning:")
    classwise = {f"classwise_ece_{k}": f"Class-wise ECE: {label}"
                 for k, label in enumerate(dataset.labels)}  # columns in inventory order
    show_table(table.rename(columns=lambda c: classwise.get(c) or metric_label(c)),
               hide_index=True, width="stretch")
    download_table(table.assign(dataset=dataset.name), f"{dataset.name}_calibration.csv",
                   key=f"{key}.dl.cal", label="Download the calibration table (CSV)")
    model = st.selectbox("Model for the figures", models, key=f"{key}.cal_model",
                         **SETTING)
    _, C, Q, _ = calibration_inputs(dataset, predictions, model)
    QT = scale_probabilities(Q, temperature)
    st.plotly_chart(figs.reliability_figure(cal.reliability_table(C, QT), model),
                    width="stretch", key=f"{key}.reliability_plot")
    st.plotly_chart(figs.distce_histogram({model: cal.dist_ce_per_item(C, QT)}),
                    width="stretch", key=f"{key}.distce_plot")
