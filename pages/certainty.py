"""Certainty: how certain is the ground truth, and how much does a model's accuracy depend on it
(Stutz et al. 2023, *Conformal prediction under ambiguous ground truth* / *Evaluating AI systems
under uncertain ground truth*)."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd
import streamlit as st

from hlv_core import certainty as ce
from hlv_core.certainty import (
    PL_MAX_RELIABILITY,
    case_summary,
    model_data,
    pl_reliability_allowed,
    rank_predictors,
    risk_vector,
)
from hlv_core.io import DataError, model_matrices
from hlv_core.text import md
from hlv_ui.certainty_figures import (
    MODEL_TITLES,
    case_figure,
    coverage_table,
    curves_figure,
    fmt_r,
    overlay_histogram,
    readers_table,
    ua_figure,
)
from hlv_ui.state import frame_hash, get_predictions, require_dataset
from hlv_ui.widgets import download_table, lazy_tabs, show_table


def engine_model(key: str) -> str:
    """The engine's model name of a page model key."""
    return "prirn" if key == "prirn_released" else key


def tie_split(key: str) -> bool:
    """IRN variant of a page model key: the paper's tie split unless the released code's."""
    return key != "prirn_released"

# the reference notebook's PrIRN temperatures are 1, 3, 5, 10, 20, 30, 50
STOPS_RANKING = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, math.inf]
STOPS_COUNTS = [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, math.inf]
AO_DEPTH = 3  # UA average overlap at depth 3 (paper Fig. 6, last column)
METRIC_TITLES = {"ua_accuracy": "UA top-k accuracy", "ua_set_accuracy": "UA top-k set accuracy",
                 "ua_average_overlap": f"UA average overlap (depth {AO_DEPTH})"}



allowed = pl_reliability_allowed


st.title("Certainty")
st.caption(
    "Aggregation as posterior inference of plausibilities (Stutz et al. 2023). The reliability "
    "expresses how much we trust the annotators: Dirichlet/PrIRN multiply the evidence by it "
    "before adding the prior a0; Plackett-Luce repeats every reader that many times; ∞ is the "
    "deterministic point estimate (proportions, IRN, PL maximum likelihood)."
)

dataset = require_dataset(tasks=("multiclass", "rating", "ranking"))
is_ranking = dataset.task == "ranking"
offered = ["prirn", "prirn_released", "pl"] if is_ranking else ["dirichlet"]
stops = STOPS_RANKING if is_ranking else STOPS_COUNTS

risk = risk_vector(dataset)  # None when the dataset has no risk groups
# top-k certainty with k >= K is 1 by construction: only the informative set sizes are drawn
KS = tuple(k for k in (1, 2, 3) if k < dataset.n_labels) or (1,)

c1, c2, c3, c4 = st.columns(4)
models = c1.multiselect(
    "Aggregation models", offered, default=offered[:1], format_func=MODEL_TITLES.get,
    key="certainty.models",
    help="Dirichlet: on label counts; PrIRN: Dirichlet on the IRN scores (the paper's IRN, "
    "which splits a tied block's weight among its classes; the released code's IRN gives each "
    "tied class the full weight and is offered beside it); Plackett-Luce: "
    "posterior of the PL ranking model. PrIRN / Dirichlet run in about a second. Plackett-Luce runs a Gibbs sampler over every "
    "case: add it when you need it (tens of seconds on 2,000 cases).")
n_samples = c2.select_slider("Samples per case", [50, 100, 200, 500, 1000, 2000], value=200,
                             key="certainty.samples")
seed = int(c3.number_input("Seed", min_value=0, value=0, step=1, key="certainty.seed"))
prior = float(c4.number_input(
    "Prior a0 (Dirichlet / PrIRN)", min_value=1e-4, value=0.01 if is_ranking else 0.1,
    format="%.4f", key="certainty.prior",
    help="Pseudo-count per class. PrIRN default 0.01 as in the reference notebook "
    "(colab_ua_accuracy.ipynb); Dirichlet on counts 0.1."))
if is_ranking:
    st.caption(
        "IRN variants: **paper** (default; a block's weight 1/b is shared by its tied classes) "
        "and **released code** (each tied class gets the full 1/b; the variant that reproduces "
        "DeepMind's released numbers). Selected: "
        + ", ".join(MODEL_TITLES[m] for m in models if m.startswith("prirn"))
        + f". With "
        f"{dataset.n_labels} classes the prior a0 of the classes nobody ranked adds up to "
        f"{prior * dataset.n_labels:.3g} pseudo-annotators, so PrIRN needs reliabilities well "
        f"above 1 before the readers' ranking dominates. PL: Gamma(1, 1) prior, 100 burn-in "
        f"iterations, 10 chains; classes nobody ranked share one super-class whose mass is "
        f"split by a Dirichlet(1) draw; computed at integer reliabilities up to {PL_MAX_RELIABILITY}.")
if not models:
    st.info("Choose at least one aggregation model.")
    st.stop()


@st.cache_data(show_spinner=False, max_entries=4)
def sampler_input(_dataset, dataset_hash: str, model: str):
    """Counts or selectors of the dataset (the selectors view is slow to rebuild)."""
    del dataset_hash
    return model_data(_dataset, engine_model(model))


@st.cache_data(show_spinner=False, max_entries=8)
def point_estimate(_dataset, dataset_hash: str, model: str) -> np.ndarray:
    """Proportions / IRN / PL maximum likelihood (the PL MM iterations take seconds)."""
    return ce.point_estimate(engine_model(model), sampler_input(_dataset, dataset_hash, model),
                             n_classes=_dataset.n_labels, tie_split=tie_split(model))


@st.cache_data(show_spinner=False, max_entries=64)
def run_sweep(_dataset, dataset_hash: str, model: str, reliability: float, n_samples: int,
              seed: int, prior: float, _predictions: dict, pred_key: tuple, _risk) -> dict:
    """One model at one reliability (cached per setting; no Streamlit elements inside). Uses the
    compact sampler: only the top classes of every sample are drawn."""
    del pred_key
    res = ce.sweep(engine_model(model), sampler_input(_dataset, dataset_hash, model), [reliability],
                   n_samples=n_samples, seed=seed, prior=prior,
                   n_classes=_dataset.n_labels, ks=KS, predictions=_predictions, risk=_risk,
                   item_ids=list(_dataset.item_ids),
                   ao_depth=AO_DEPTH if _dataset.n_labels >= AO_DEPTH else None,
                   point=point_estimate(_dataset, dataset_hash, model),
                   **({"tie_split": tie_split(model)} if model.startswith("prirn") else {}))
    ess = res.mean_ess()
    return {"certainty": res.certainty.assign(model=model),
            "accuracy": res.accuracy.assign(model=model),
            "per_case": res.per_case.assign(model=model), "ess": ess}


@st.cache_data(show_spinner=False, max_entries=8)
def agreement(_dataset, dataset_hash: str) -> np.ndarray:
    return ce.reader_agreement(sampler_input(_dataset, dataset_hash, "prirn"),
                               _dataset.n_labels)[0]


@st.cache_data(show_spinner=False, max_entries=8)
def prediction_arrays(_dataset, dataset_hash: str, _preds, preds_hash: str):
    """UA accuracy needs one prediction per case: models with partial coverage are left out
    (notes). Also the cache key of the sweeps: the content of every matrix, never names alone."""
    del dataset_hash, preds_hash
    matrices, notes = model_matrices(_preds, _dataset, complete=True)
    arrays = {name: q for name, (_, q) in matrices.items()}
    key = tuple(
        (name, hashlib.sha256(np.ascontiguousarray(q, dtype=float).tobytes()).hexdigest()[:16])
        for name, q in sorted(arrays.items()))
    return arrays, notes, key


dataset_preds = get_predictions()
predictions, pred_notes, pred_key = prediction_arrays(dataset, dataset.content_hash, dataset_preds,
                                                      frame_hash(dataset_preds))
for note in pred_notes:
    st.caption(md(note))


def get_result(model: str, r: float) -> dict:
    return run_sweep(dataset, dataset.content_hash, model, float(r), n_samples, seed, prior,
                     predictions, pred_key, risk)


default_curve = [1, 3, 5, 10, 20, 30, 50, math.inf] if is_ranking else [0.1, 1, 10, math.inf]
curve_rel = st.multiselect("Reliabilities for the curves", stops, default=default_curve,
                           format_func=fmt_r, key="certainty.curve_rel")
if not curve_rel:
    st.info("Choose at least one reliability.")
    st.stop()
curve_rel = tuple(sorted(curve_rel))


def sweep_all() -> dict:
    """Every chosen model at every reliability of the curves (cached per setting)."""
    results: dict = {}
    jobs = [(m, r) for m in models for r in curve_rel if allowed(m, r)]
    bar = st.progress(0.0, text="Sampling plausibilities …")
    try:
        parts: dict = {m: [] for m in models}
        for i, (model, r) in enumerate(jobs):
            bar.progress(i / len(jobs), text=f"{MODEL_TITLES[model]}: reliability {fmt_r(r)}")
            parts[model].append((r, get_result(model, r)))
        for model, chunks in parts.items():
            if not chunks:
                continue
            acc = pd.concat([c["accuracy"] for _, c in chunks], ignore_index=True)
            acc = acc.drop_duplicates(["model", "reliability", "predictor", "k", "metric"])
            results[model] = {
                "certainty": pd.concat([c["certainty"] for _, c in chunks], ignore_index=True),
                "accuracy": acc,
                "per_case": pd.concat([c["per_case"] for _, c in chunks], ignore_index=True),
                "ess": [(r, e) for r, c in chunks for e in c["ess"]],
            }
        bar.empty()
    except (DataError, ValueError) as error:
        bar.empty()
        st.error(f"Could not compute certainty: {md(str(error))}")
        st.stop()
    if "pl" in models and any(not allowed("pl", r) for r in curve_rel):
        st.caption("Plackett-Luce is computed at the integer reliabilities up to "
                   f"{PL_MAX_RELIABILITY} and ∞ only (each reader is repeated r times).")
    if not results:
        st.info("No reliability in the curves fits the chosen models.")
        st.stop()
    return results


# ----------------------------------------------------------------------------- tabs
def curves_tab() -> None:
    results = sweep_all()
    st.subheader("Annotation certainty vs reliability")
    cert = pd.concat([r["certainty"] for r in results.values()], ignore_index=True)
    fig = curves_figure(cert, curve_rel)
    st.plotly_chart(fig, width="stretch", key="certainty.curves")
    st.caption("Top-k certainty: the largest share of samples that agree on the same set of k top "
               "classes (paper Fig. 6, left). It rises with reliability and is 1 at ∞ by "
               "construction: it describes the data, it is not a metric to maximise.")
    ess_parts = [f"r={fmt_r(r)}: {e:.0f}" for res in results.values() for r, e in res["ess"]
                 if not np.isnan(e)]
    if ess_parts:
        st.caption("PL effective sample size (mean over cases, top class): " + ", ".join(ess_parts))
    download_table(cert.assign(seed=seed, samples=n_samples, prior=prior), "certainty_curves.csv",
                   key="certainty.dl_curves")


# ----------------------------------------------------------------------------- fragment
@st.fragment
def reliability_panel() -> None:
    st.subheader("Per-example certainty at one reliability")
    finite_curve = [r for r in curve_rel if not math.isinf(r)]
    default = finite_curve[len(finite_curve) // 2] if finite_curve else curve_rel[0]
    r = st.select_slider(
        "Reliability", options=stops, value=default, format_func=fmt_r,
        key="certainty.reliability",
        help="Any stop: reliabilities outside the curves are sampled on demand (cached).")
    frames, top1 = [], {}
    with st.spinner(f"Sampling at reliability {fmt_r(r)} …"):
        for model in models:
            if allowed(model, r):
                res = get_result(model, r)
                frames.append(res["per_case"])
                top1[model] = res["certainty"].query("k == 1").iloc[0]
    if not frames:
        st.info("Plackett-Luce runs at integer reliabilities up to "
                f"{PL_MAX_RELIABILITY} and ∞; choose one of those.")
        return
    per_case = pd.concat(frames, ignore_index=True)
    per_case["model_title"] = per_case["model"].map(MODEL_TITLES)
    left, right = st.columns([3, 2])
    fig = overlay_histogram(per_case, "certainty_top1", "top-1 annotation certainty", nbins=25,
                            unit_range=True, height=340,
                            title=f"Per-case top-1 certainty at reliability {fmt_r(r)}")
    left.plotly_chart(fig, width="stretch", key="certainty.hist")
    with right:
        for model, row in top1.items():
            st.metric(f"{MODEL_TITLES[model]}: mean top-1 certainty",
                      f"{row['mean_certainty']:.3f}")
            st.caption(f"median {row['median']:.3f}; {100 * row['share_below_0.5']:.0f}% of the "
                       "cases below 0.5")
        if is_ranking:
            agr = agreement(dataset, dataset.content_hash)
            for model, g in per_case.groupby("model"):
                rho = ce.agreement_certainty_correlation(agr, g["certainty_top1"].to_numpy())
                st.caption(f"{MODEL_TITLES[model]}: correlation of top-1 certainty with "
                           f"leave-one-reader-out agreement = {rho:.2f} (paper App. D).")
    if "expected_risk" in per_case.columns:
        st.markdown("**Risk view** (risk groups 0 low, 1 medium, 2 high; paper Fig. 8)")
        a, b = st.columns(2)
        fig = overlay_histogram(per_case, "expected_risk", "expected risk of the top-1 class")
        a.plotly_chart(fig, width="stretch", key="certainty.risk_hist")
        fig = overlay_histogram(per_case, "risk_certainty", "risk certainty", unit_range=True)
        b.plotly_chart(fig, width="stretch", key="certainty.risk_cert_hist")
        st.caption("Risk certainty: the largest share of samples whose top-1 class falls in the "
                   "same risk group. Means: " + ", ".join(
                       f"{MODEL_TITLES[m]} {g['risk_certainty'].mean():.3f}"
                       for m, g in per_case.groupby("model")))
    download_table(per_case.drop(columns="model_title").assign(seed=seed, samples=n_samples,
                                                               prior=prior),
                   "certainty_per_case.csv", key="certainty.dl_cases")


def ua_tab() -> None:
    if not predictions:
        st.info("No item-level predictions for this dataset: upload predictions (sidebar / "
                "Overview) to see UA accuracy.")
        return
    results = sweep_all()
    acc = pd.concat([r["accuracy"] for r in results.values()], ignore_index=True)
    metrics = [m for m in METRIC_TITLES if (acc["metric"] == m).any()]
    a, b = st.columns(2)
    metric = a.radio("Metric", metrics, horizontal=True, key="certainty.metric",
                     format_func=METRIC_TITLES.get)
    if metric == "ua_average_overlap":
        k = AO_DEPTH
        b.caption(f"Average overlap of the model's ranking with each sampled ranking at depth "
                  f"{AO_DEPTH}: ranks 2 and 3 count with weights 1/2 and 1/3 (paper Fig. 6, "
                  "last column).")
        det_name = "deterministic_average_overlap"
    else:
        k = b.radio("k", list(KS), index=len(KS) - 1 if is_ranking else 0, horizontal=True,
                    key="certainty.k")
        det_name = "deterministic_accuracy"
    sub = acc[(acc["k"] == k) & (acc["metric"] == metric)]
    det = acc[(acc["k"] == k) & (acc["metric"] == det_name)]
    fig = ua_figure(sub, det, sorted(predictions),
                    METRIC_TITLES[metric].replace("top-k", f"top-{k}"))
    st.plotly_chart(fig, width="stretch", key="certainty.ua")
    st.caption("Dotted lines: the same metric against the point estimate (IRN / majority / PL "
               "ML), i.e. reliability ∞: the over-estimate the paper warns about. Error bars: sd "
               "over samples of the dataset-level value.")
    ranking = rank_predictors(acc, metric=metric, k=k)
    if not ranking.empty:
        show_table(ranking.pivot_table(index=["model", "reliability"], columns="predictor",
                                         values="rank"), width="stretch")
        st.caption("Model ranking per reliability (1 = best): it may change with reliability.")
    download_table(acc.assign(seed=seed, samples=n_samples, prior=prior), "certainty_accuracy.csv",
                   key="certainty.dl_acc")


@st.cache_data(show_spinner=False, max_entries=32)
def case_samples(case_key: str, model: str, r: float, n: int, seed: int, prior: float, _data,
                 n_classes: int):
    del case_key
    kwargs = {"tie_split": tie_split(model)} if model.startswith("prirn") else {}
    return ce.sample_plausibilities(engine_model(model), _data, reliability=r, n_samples=n,
                                   seed=seed, prior=prior, n_classes=n_classes, **kwargs)[0]



def case_tab() -> None:
    finite_curve = [r for r in curve_rel if not math.isinf(r)]
    case_opts = {m: [r for r in (finite_curve or list(curve_rel)) if allowed(m, r)] for m in models}
    model_case = st.selectbox("Model for the case view", models, format_func=MODEL_TITLES.get,
                              key="certainty.case_model")
    rel_opts = case_opts[model_case] or [math.inf]
    r_case = st.select_slider("Reliability for the case view", rel_opts,
                              value=rel_opts[len(rel_opts) // 2], format_func=fmt_r,
                              key="certainty.case_rel")
    pc = get_result(model_case, r_case)["per_case"].sort_values(["certainty_top1", "case"])
    cert_of = dict(zip(pc["case"], pc["certainty_top1"], strict=True))
    case = st.selectbox(
        f"Case (sorted by top-1 certainty at reliability {fmt_r(r_case)}, most uncertain first)",
        pc["case"].tolist(), key="certainty.case",
        format_func=lambda i: f"{dataset.item_ids[i]} · certainty {cert_of[i]:.2f}")
    labels = list(dataset.labels)
    if is_ranking:
        readers = sampler_input(dataset, dataset.content_hash, "prirn")[case]
        show_table(readers_table(readers, labels), width="stretch", hide_index=True)
        case_data = [readers]
    else:
        counts = dataset.counts_array()[case]
        show_table(pd.DataFrame({"label": labels, "count": counts}), hide_index=True)
        case_data = counts[None, :]
    x_case = case_samples(f"{dataset.content_hash}:{case}", model_case, float(r_case),
                          max(min(n_samples, 500), 50), seed, prior, case_data, dataset.n_labels)
    base_case = point_estimate(dataset, dataset.content_hash, model_case)[case]
    summary = case_summary(x_case, base_case, labels)
    fig = case_figure(summary, x_case[:, summary["class_index"]])
    st.plotly_chart(fig, width="stretch", key="certainty.case_plot")
    st.caption("Figure 5 of the paper: bars = point estimate, dots = plausibilities sampled for this "
               "case alone with the same settings (the classes with the largest point estimate or "
               "mean plausibility).")
    if predictions:
        kk = min(3, KS[-1]) if is_ranking else 1
        show_table(coverage_table(x_case, {n: q[case] for n, q in predictions.items()}, kk,
                                  labels), hide_index=True, width="stretch")
    download_table(summary.drop(columns="class_index").assign(
                       case=str(dataset.item_ids[case]), seed=seed, reliability=r_case,
                       model=model_case),
                   "certainty_case_samples.csv", key="certainty.dl_case")


TABS = {"One reliability": reliability_panel, "Across reliabilities": curves_tab,
        "UA accuracy": ua_tab, "Case view": case_tab}
for name, tab in lazy_tabs(list(TABS), key="certainty.tab").items():  # only the open tab runs
    if tab.open:
        with tab:
            TABS[name]()
