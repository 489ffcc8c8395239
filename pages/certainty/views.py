"""Two tabs of the Certainty page (Stutz et al.): model accuracy under uncertain ground truth
(UA metrics over reliabilities, Figure 6; across cases and draws at one reliability, Figure 7)
and one case in detail (Figure 5). Widgets and layout only; the
numbers come from ``hlv_core.certainty`` through :mod:`pages.certainty.cached`."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from hlv_core.certainty import case_summary, rank_predictors
from hlv_ui.explain import explain
from hlv_ui.model_groups import predictions_hint
from hlv_ui.palette import model_colours
from hlv_ui.widgets import SETTING, download_table, forget_for_other_data, show_table
from pages.certainty.cached import (
    AO_DEPTH,
    Run,
    allowed,
    case_samples,
    point_estimate,
    sampler_input,
)
from pages.certainty.figures import (
    MODEL_TITLES,
    case_figure,
    coverage_table,
    fmt_r,
    readers_table,
    sample_histogram,
    sorted_values_figure,
    ua_figure,
)

__all__ = ["METRIC_TITLES", "case_view", "spread_view", "ua_view"]

METRIC_TITLES = {"ua_accuracy": "Top-k accuracy (uncertainty-adjusted)",
                 "ua_set_accuracy": "Top-k set accuracy (uncertainty-adjusted)",
                 "ua_average_overlap": f"Ranking overlap, top {AO_DEPTH} (uncertainty-adjusted)"}
METRIC_HELP = (
    "Top-k accuracy: how often the true label (drawn from the plausibilities) is among the "
    "model's k most likely labels. Top-k set accuracy: how often the model's k labels are "
    "exactly the drawn top k. Ranking overlap: how much the model's top "
    f"{AO_DEPTH} labels overlap the drawn ranking, ranks 2 and 3 weighing 1/2 and 1/3 (Stutz "
    "et al., Figure 6, last column).")


def ua_view(run: Run, reliabilities: tuple[float, ...]) -> None:
    """UA metric of every predictor over the reliabilities, its value at ∞, the ranking of the
    predictors per reliability and the table as CSV."""
    explain("ua_accuracy")
    if not run.predictions:
        predictions_hint("Uncertainty-adjusted accuracy")
        return
    results = run.sweep_all(reliabilities)
    acc = pd.concat([r["accuracy"] for r in results.values()], ignore_index=True)
    metrics = [m for m in METRIC_TITLES if (acc["metric"] == m).any()]
    a, b = st.columns(2)
    metric = a.radio("Metric", metrics, horizontal=True, key="certainty.metric", **SETTING,
                     format_func=METRIC_TITLES.get, help=METRIC_HELP)
    if metric == "ua_average_overlap":
        k, det_name = AO_DEPTH, "deterministic_average_overlap"
    else:
        first = len(run.ks) - 1 if run.dataset.task == "ranking" else 0  # follows the task
        forget_for_other_data("certainty.k", run.dataset.content_hash, list(run.ks)[first])
        k = b.radio("k: how many of the model's top labels count", list(run.ks), index=first,
                    horizontal=True, key="certainty.k", **SETTING)
        det_name = "deterministic_accuracy"
    sub = acc[(acc["k"] == k) & (acc["metric"] == metric)]
    det = acc[(acc["k"] == k) & (acc["metric"] == det_name)]
    title = METRIC_TITLES[metric].replace("Top-k", f"Top-{k}")
    fig = ua_figure(sub, det, model_colours(sorted(run.predictions)), title)
    st.plotly_chart(fig, width="stretch", key="certainty.ua")
    st.caption("Dotted lines: the same metric when the votes are taken at face value "
               "(reliability ∞), the over-estimate Stutz et al. warn about. Error bars: spread "
               "(sd) over the draws.")
    ranking = rank_predictors(acc, metric=metric, k=k)
    if not ranking.empty:
        ranks = ranking.assign(model=ranking["model"].map(MODEL_TITLES)).pivot_table(
            index=["model", "reliability"], columns="predictor", values="rank")
        show_table(ranks, width="stretch")
        download_table(run.stamp(ranks.reset_index()), "certainty_model_ranks.csv",
                       key="certainty.dl_ranks", label="Download the ranks (CSV)")
        st.caption("Rank of each model per reliability (1 = best): it may change with the "
                   "reliability.")
    download_table(run.stamp(acc), "certainty_accuracy.csv", key="certainty.dl_acc",
                   label="Download uncertainty-adjusted accuracy (CSV)")
    spread_view(run, results, metric, k, title)


def spread_view(run: Run, results: dict, metric: str, k: int, title: str) -> None:
    """One reliability in detail (Stutz et al., section 3.2, Figure 7, middle and right): the
    metric of every case, sorted, and its dataset value on each draw, as a histogram."""
    finite = sorted({float(r) for res in results.values()
                     for r in res["per_sample"]["reliability"].unique() if not math.isinf(r)})
    if not finite:
        return
    st.subheader("Across cases and across draws, at one reliability")
    r = st.select_slider("Reliability for this view", finite, value=finite[len(finite) // 2],
                         format_func=fmt_r, key="certainty.spread_rel", **SETTING)

    def pick(table: str) -> pd.DataFrame:  # the shown rows of each model, then one frame
        return pd.concat([
            f[(f["reliability"] == r) & (f["metric"] == metric) & (f["k"] == k)]
            for f in (res[table] for res in results.values())], ignore_index=True)

    per_case, per_sample = pick("per_case_accuracy"), pick("per_sample")
    colours = model_colours(sorted(run.predictions))
    left, right = st.columns(2)
    left.plotly_chart(sorted_values_figure(per_case, colours, title),
                      width="stretch", key="certainty.spread_cases")
    left.caption("Each case's value, averaged over the draws, sorted from low to high (Stutz "
                 "et al., section 3.2, Figure 7, middle): where the curve sits below 1, some "
                 "of the case's plausible ground truths disagree with the model's answer.")
    right.plotly_chart(sample_histogram(per_sample, colours, f"{title} over all cases"),
                       width="stretch", key="certainty.spread_draws")
    right.caption("The dataset's value on each draw of plausible ground truths (Stutz et al., "
                  "section 3.2, Figure 7, right): the width is how far the score can move between the best "
                  "and the worst draw; the error bars above show its sd.")
    a, b = st.columns(2)
    with a:
        download_table(run.stamp(per_case), "certainty_accuracy_per_case.csv",
                       key="certainty.dl_spread_cases", label="Download the values per case (CSV)")
    with b:
        download_table(run.stamp(per_sample), "certainty_accuracy_per_draw.csv",
                       key="certainty.dl_spread_draws", label="Download the values per draw (CSV)")


def case_view(run: Run, reliabilities: tuple[float, ...]) -> None:
    """One case: its annotations, its point estimate and sampled plausibilities (Figure 5), and
    how often each predictor's top labels hold the true label."""
    dataset = run.dataset
    finite = [r for r in reliabilities if not math.isinf(r)] or list(reliabilities)
    model = st.selectbox("Model for the case view", run.models, format_func=MODEL_TITLES.get,
                         key="certainty.case_model", **SETTING)
    options = [r for r in finite if allowed(model, r)] or [math.inf]
    r = st.select_slider("Reliability for the case view", options,
                         value=options[len(options) // 2], format_func=fmt_r,
                         key="certainty.case_rel", **SETTING)
    pc = run.result(model, r)["per_case"].sort_values(["certainty_top1", "case"])
    cert_of = dict(zip(pc["case"], pc["certainty_top1"], strict=True))
    case = st.selectbox(
        f"Case (most uncertain first, by certainty of the top label at reliability {fmt_r(r)})",
        pc["case"].tolist(), key="certainty.case", **SETTING,
        format_func=lambda i: f"{dataset.item_ids[i]} · certainty {cert_of[i]:.2f}")
    labels = list(dataset.labels)
    case_id = str(dataset.item_ids[case])
    if dataset.task == "ranking":
        given = readers_table(sampler_input(dataset, "prirn")[case], labels)
        show_table(given, width="stretch", hide_index=True)
    else:
        given = pd.DataFrame({"label": labels, "votes": dataset.counts_array()[case]})
        show_table(given, hide_index=True)
    download_table(given.assign(case=case_id), "certainty_case_annotations.csv",
                   key="certainty.dl_case_given", label="Download this case's annotations (CSV)")
    x = case_samples(dataset, case, model, float(r), max(min(run.n_samples, 500), 50), run.seed,
                     run.prior)
    summary = case_summary(x, point_estimate(dataset, model)[case], labels)
    st.plotly_chart(case_figure(summary, x[:, summary["class_index"]]), width="stretch",
                    key="certainty.case_plot")
    st.caption("Bars: each label's share when the votes are taken at face value (full trust). "
               "Dots: plausible shares drawn at this reliability for this case alone; a wide "
               "cloud means an uncertain case (Stutz et al., Figure 5; the labels with the "
               "largest shares).")
    explain("plausibility", *(("irn",) if dataset.task == "ranking" else ()))
    if run.predictions:
        k = min(3, run.ks[-1]) if dataset.task == "ranking" else 1
        coverage = coverage_table(x, {n: q[case] for n, q in run.predictions.items()}, k, labels)
        show_table(coverage, hide_index=True, width="stretch")
        download_table(coverage.assign(case=case_id, seed=run.seed, reliability=r, model=model),
                       "certainty_case_coverage.csv", key="certainty.dl_case_coverage",
                       label="Download how often each answer holds (CSV)")
    else:
        st.caption("No model predictions: upload some on the Overview or train models in the "
                   "Training lab to see how often each model's answer holds the true label.")
    download_table(summary.drop(columns="class_index").assign(
                       case=case_id, seed=run.seed, reliability=r,
                       model=model),
                   "certainty_case_samples.csv", key="certainty.dl_case",
                   label="Download this case's plausibilities (CSV)")
