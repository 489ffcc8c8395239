"""Certainty: how sure can we be of each case's true label when the annotators disagree, and how
much does a model's accuracy depend on it (Stutz et al., Evaluating AI systems under uncertain
ground truth)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from hlv_core import certainty as ce
from hlv_core.aggregation import DEFAULT_PRIOR, default_prior
from hlv_core.glossary import paper_label, term
from hlv_core.text import md
from hlv_ui.explain import explain, explain_inline, glossary_entry
from hlv_ui.model_groups import group_notes, shown_predictions
from hlv_ui.state import get_predictions, require_dataset
from hlv_ui.widgets import SETTING, download_table, forget_for_other_data, lazy_tabs
from pages.certainty.cached import (
    STOPS_COUNTS,
    STOPS_RANKING,
    Run,
    allowed,
    prediction_arrays,
    reader_agreement,
)
from pages.certainty.figures import (
    MODEL_TECHNICAL,
    MODEL_TITLES,
    curves_figure,
    fmt_r,
    overlay_histogram,
    sorted_cases_figure,
)
from pages.certainty.views import case_view, ua_view

st.title("Certainty")
st.caption(
    "How sure can we be of each case's true label when the annotators disagree, and how much "
    "does a model's accuracy depend on that? Instead of one 'correct' label per case, the page "
    "draws many plausible ground truths from the annotations and measures how often they agree. "
    f"Method: {md(paper_label('stutz'))}."
)
explain("certainty", "reliability")

dataset = require_dataset(tasks=("multiclass", "rating", "ranking"))
is_ranking = dataset.task == "ranking"
offered = ["prirn", "prirn_released", "pl"] if is_ranking else ["dirichlet"]
stops = STOPS_RANKING if is_ranking else STOPS_COUNTS

# one choice per family of models: switching between a ranked and a counts dataset starts from
# that family's default (or its last choice) instead of an empty selection
models = st.multiselect(  # its own row: the chips' names fit at 1200 px
    "How the annotations are combined", offered, default=offered[:1],
    format_func=MODEL_TITLES.get, key=f"certainty.models.{'ranking' if is_ranking else 'counts'}",
    **SETTING,
    help="Vote counts: each label's votes. Ranked votes: each expert's ranked list of answers, "
    "the first answer weighing most; the paper's rule splits the weight of tied answers, the "
    "released code's gives each tied answer the full weight. Full rankings (Plackett-Luce): "
    "uses the whole order of every ranking; it is slow (tens of seconds on 2,000 cases), add "
    "it when you need it. Technical details: 'How the models work' below.")
c2, c3, c4 = st.columns(3)
n_samples = c2.select_slider(
    "Draws per case", [50, 100, 200, 500, 1000, 2000], value=200, key="certainty.samples",
    **SETTING,
    help="How many plausible ground truths are drawn for every case: more draws give smoother "
    "numbers and take longer.")
seed = int(c3.number_input(
    "Random seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="certainty.seed",
    **SETTING,
    help="The same seed gives the same draws, so every number can be reproduced; it is stored "
    "in every download."))
prior_default = default_prior("prirn" if is_ranking else "dirichlet")  # follows the model
forget_for_other_data("certainty.prior", dataset.content_hash, prior_default)
prior = float(c4.number_input(
    "Prior weight per label", min_value=1e-4, max_value=1000.0, value=prior_default,
    format="%.4f", key="certainty.prior", **SETTING,
    help=explain_inline("prior") + " Technical: the Dirichlet pseudo-count a0 of the vote-count "
    f"and ranked-vote models; default {DEFAULT_PRIOR['prirn']} for ranked votes as in the "
    f"reference notebook (colab_ua_accuracy.ipynb), {DEFAULT_PRIOR['dirichlet']} for vote "
    "counts."))
with st.expander("How the models work (technical)"):
    for key in offered:
        st.markdown(f"**{MODEL_TITLES[key]}**: {MODEL_TECHNICAL[key]}")
    st.caption(f"With {dataset.n_labels} labels the prior weight of the labels nobody chose adds "
               f"up to {prior * dataset.n_labels:.3g} imaginary annotators, so the annotations "
               "dominate only at reliabilities well above that. Reliability ∞ uses the point "
               "estimate (shares, IRN scores or Plackett-Luce maximum likelihood) with no doubt.")
    for key in (("irn", "plackett_luce") if is_ranking else ()) + ("prior", "plausibility"):
        glossary_entry(term(key))
if not models:
    st.info("Choose at least one way of combining the annotations.")
    st.stop()

dataset_preds = shown_predictions(get_predictions(), key="certainty")
predictions, pred_notes = prediction_arrays(dataset, dataset_preds)
for note in group_notes(pred_notes, dataset_preds):
    st.caption(md(note))
run = Run(dataset, tuple(models), int(n_samples), seed, prior,
          # top-k certainty with k >= K is 1 by construction: only informative set sizes
          tuple(k for k in (1, 2, 3) if k < dataset.n_labels) or (1,),
          predictions, ce.risk_vector(dataset))

default_curve = [1, 3, 5, 10, 20, 30, 50, math.inf] if is_ranking else [0.1, 1, 10, math.inf]
curve_rel = st.multiselect(
    "Reliabilities to compare", stops, default=default_curve, format_func=fmt_r,
    key="certainty.curve_rel", **SETTING,
    help=explain_inline("reliability") + " ∞ takes the votes at face value (no doubt at all).")
if not curve_rel:
    st.info("Choose at least one reliability.")
    st.stop()
curve_rel = tuple(sorted(curve_rel))


def curves_tab() -> None:
    """Average certainty over cases at every chosen reliability (Stutz et al., Fig. 6, left)."""
    results = run.sweep_all(curve_rel)
    st.subheader("How certain the cases are, from low to high trust in the annotators")
    cert = pd.concat([r["certainty"] for r in results.values()], ignore_index=True)
    if all(ce.certain_by_construction(k, r, dataset.n_labels)
           for k, r in zip(cert["k"], cert["reliability"], strict=True)):
        st.info("Only reliability ∞ is chosen: there every certainty is 1 by construction. Add "
                "finite reliabilities to see the curves.")
    else:
        st.plotly_chart(curves_figure(cert, dataset.n_labels), width="stretch",
                        key="certainty.curves")
    st.caption(
        "Top-k certainty: the largest share of draws that agree on the same k most plausible "
        "labels. It rises with the reliability; it describes the data, it is not a score to "
        "maximise. Not drawn, because they are 1 by construction: reliability ∞ (the votes "
        f"taken at face value, no spread) and top-k with k ≥ {dataset.n_labels} (all labels).")
    ess = [f"r={fmt_r(r)}: {e:.0f}" for res in results.values() for r, e in res["ess"]
           if not np.isnan(e)]
    if ess:
        st.caption("Full rankings (Plackett-Luce), effective number of independent draws "
                   "(PL effective sample size, mean over cases, top label): " + ", ".join(ess))
    download_table(run.stamp(cert), "certainty_curves.csv", key="certainty.dl_curves",
                   label="Download certainty per reliability (CSV)")


@st.fragment
def reliability_panel() -> None:
    """Per-case certainty at one reliability (its slider reruns this fragment only)."""
    st.subheader("How certain each case is, at one reliability")
    finite = [r for r in curve_rel if not math.isinf(r)]
    r = st.select_slider(
        "Reliability", options=stops, value=finite[len(finite) // 2] if finite else curve_rel[0],
        format_func=fmt_r, key="certainty.reliability", **SETTING,
        help=explain_inline("reliability") + " Any stop: values outside the list above are "
        "computed on demand.")
    frames, top1 = [], {}
    with st.spinner(f"Drawing plausible ground truths at reliability {fmt_r(r)} …"):
        for model in models:
            if allowed(model, r):
                res = run.result(model, r)
                frames.append(res["per_case"])
                top1[model] = res["certainty"].query("k == 1").iloc[0]
    if not frames:
        st.info("Full rankings (Plackett-Luce) run at whole-number reliabilities up to "
                f"{ce.PL_MAX_RELIABILITY} and ∞; choose one of those.")
        return
    per_case = pd.concat(frames, ignore_index=True)
    left, right = st.columns([3, 2])
    fig = overlay_histogram(per_case, "certainty_top1", "certainty of the top label", nbins=25,
                            unit_range=True, height=360,
                            title=f"Certainty of each case's top label at reliability {fmt_r(r)}")
    left.plotly_chart(fig, width="stretch", key="certainty.hist")
    if not math.isinf(r):
        left.plotly_chart(sorted_cases_figure(per_case, "certainty_top1",
                                              "certainty of the top label"),
                          width="stretch", key="certainty.sorted")
        left.caption("The same certainties case by case, sorted by the first model's (Stutz et "
                     "al., section 3.2, Figure 7, left): the other model's line in the same case "
                     "order shows whether both find the same cases uncertain.")
    with right:
        st.markdown("**Average certainty of the top label**")
        for model, row in top1.items():
            st.metric(MODEL_TITLES[model], f"{row['mean_certainty']:.3f}",
                      help=explain_inline("certainty"))
            st.caption(f"median {row['median']:.3f}; {100 * row['share_below_0.5']:.0f}% of the "
                       "cases below 0.5 (the top label wins fewer than half the draws)")
        if math.isinf(r):
            st.caption("At ∞ every case's certainty is 1 by construction: the votes are taken "
                       "at face value, with no doubt.")
        elif is_ranking:
            agr = reader_agreement(dataset)
            for model, g in per_case.groupby("model"):
                rho = ce.agreement_certainty_correlation(agr, g["certainty_top1"].to_numpy())
                st.caption(f"{MODEL_TITLES[model]}: cases where the experts agree more with each "
                           f"other are more certain: correlation {rho:.2f} with leave-one-reader-"
                           "out agreement (Stutz et al., appendix D).")
    if "expected_risk" in per_case.columns:
        st.markdown("**Risk view** (risk groups 0 low, 1 medium, 2 high; Stutz et al., Fig. 8)")
        a, b = st.columns(2)
        fig = overlay_histogram(per_case, "expected_risk", "expected risk of the top label")
        a.plotly_chart(fig, width="stretch", key="certainty.risk_hist")
        fig = overlay_histogram(per_case, "risk_certainty", "risk certainty", unit_range=True)
        b.plotly_chart(fig, width="stretch", key="certainty.risk_cert_hist")
        st.caption("Risk certainty: the largest share of draws whose top label falls in the "
                   "same risk group. Averages: " + ", ".join(
                       f"{MODEL_TITLES[m]} {g['risk_certainty'].mean():.3f}"
                       for m, g in per_case.groupby("model")))
    download_table(run.stamp(per_case), "certainty_per_case.csv", key="certainty.dl_cases",
                   label="Download certainty per case (CSV)")


TABS = {"One reliability": reliability_panel,
        "Across reliabilities": curves_tab,
        "Model accuracy": lambda: ua_view(run, curve_rel),
        "Case view": lambda: case_view(run, curve_rel)}
for name, tab in lazy_tabs(list(TABS), key="certainty.tab").items():  # only the open tab runs
    if tab.open:
        with tab:
            TABS[name]()
