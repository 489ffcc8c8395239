"""Sections of the "Errors and perspectives" page: cached engine calls, the ranked possible
errors, one label's detail with every annotator's labels and explanations, the verdict control,
the annotator map. Numbers come from :mod:`hlv_core.errors` and :mod:`hlv_core.competence` (the
same calls as ``python -m hlv_core errors`` / ``competence``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hlv_core import competence, errors
from hlv_core.figures import plot_text
from hlv_core.io import DataError, Dataset
from hlv_core.text import md
from hlv_core.verdict_store import VERDICTS, VerdictStore, latest_verdicts, verdict_summary
from hlv_ui.cache import cached
from hlv_ui.links import explorer_link
from hlv_ui.widgets import download_table, fmt_num, show_table

__all__ = ["KIND_COLOURS", "KIND_WORDS", "METHOD_WORDS", "PAGE_MAX_ANNOTATORS", "PAGE_MAX_ROWS",
           "annotator_map", "compute_choosers", "compute_report",
           "compute_scores", "item_detail", "page_limits", "ranking_table", "verdict_control"]

#: Largest data the page fits interactively (the command line has no such limit).
PAGE_MAX_ROWS = 300_000
PAGE_MAX_ANNOTATORS = 5_000

KIND_WORDS = {"reliable": "reliable", "unreliable": "unreliable (random disagreement)",
              "systematic": "systematic (a perspective)", "insufficient_data": "too few labels"}
KIND_COLOURS = {"reliable": "#2b8cbe", "unreliable": "#d7301f", "systematic": "#7a0177",
                "insufficient_data": "#969696"}
METHOD_WORDS = {
    "ds_posterior": "Dawid-Skene posterior (default)",
    "one_coin_posterior": "One-coin Dawid-Skene posterior",
    "mace_posterior": "MACE posterior",
    "annotator_singleton": "Label count + choosers' singleton rate",
    "label_proportion": "Share choosing the label",
    "share_others_not_choosing": "Share of others not choosing",
    "label_count": "Label count (VariErr baseline)",
    "singleton_ds": "Singleton rate, then Dawid-Skene",
}
VERDICT_WORDS = {"error": "Error: fix this label", "variation": "Legitimate variation: keep it",
                 "unsure": "Not sure"}


def page_limits(dataset: Dataset) -> str | None:
    """Why the page cannot analyse ``dataset`` (plain words), or None when it can."""
    ann = dataset.annotations
    n_ann = ann["annotator_id"].nunique()
    if n_ann < 2:
        return ("Only one annotator: competence and possible errors compare annotators with "
                "each other, so at least two are needed.")
    if ann["label"].nunique() < 2:
        return ("Every annotation has the same label: there is no disagreement, so nothing "
                "can be a possible error and every annotator agrees by construction.")
    if len(ann) > PAGE_MAX_ROWS or n_ann > PAGE_MAX_ANNOTATORS:
        return (f"This dataset has {len(ann):,} annotations from {n_ann:,} annotators; the page "
                f"fits at most {PAGE_MAX_ROWS:,} annotations and {PAGE_MAX_ANNOTATORS:,} "
                "annotators interactively. Run `python -m hlv_core competence DATA --report` "
                "and `python -m hlv_core errors DATA` on the command line instead.")
    return None


@cached(show_spinner="Ranking possible errors…", max_entries=8)
def compute_scores(dataset: Dataset, method: str, rerank: bool, seed: int, max_iter: int,
                   validity: pd.DataFrame | None) -> pd.DataFrame:
    return errors.error_scores(dataset.annotations, method=method, validity=validity,
                               rerank_by_count=rerank, seed=seed, max_iter=max_iter)


@cached(show_spinner="Estimating skill, confusions and camps per annotator…",
               max_entries=8)
def compute_report(dataset: Dataset, seed: int, max_iter: int, thresholds: tuple,
                   subset: tuple[str, ...] = (), camps_from: str | None = None
                   ) -> tuple[pd.DataFrame, str]:
    """The annotator report with camps from Basile's signed graph (a note when unavailable) or
    from the annotator trait ``camps_from``; ``subset`` (item ids) turns on the camp rule (b)."""
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    note = ""
    try:
        camps = (competence.trait_camps(dataset.annotators, camps_from) if camps_from
                 else competence.sigma_camps(annotations))
    except (ValueError, MemoryError) as error:
        camps, note = None, f"Camps unavailable: {error}"
    report = competence.annotator_report(
        annotations, camps=camps, subset=list(subset) or None, traits=dataset.annotators,
        seed=seed, max_iter=max_iter, **dict(thresholds))
    return report, note


@cached(show_spinner=False, max_entries=8)
def compute_choosers(dataset: Dataset, seed: int, max_iter: int, thresholds: tuple,
                     subset: tuple[str, ...] = (), camps_from: str | None = None
                     ) -> pd.DataFrame:
    """:func:`hlv_core.errors.label_choosers` of the report :func:`compute_report` gives for these settings
    (kept, so a click elsewhere on the page does not rebuild it)."""
    report, _ = compute_report(dataset, seed, max_iter, thresholds, subset, camps_from)
    return errors.label_choosers(dataset.annotations, report)


def ranking_table(scores: pd.DataFrame, choosers: pd.DataFrame,
                  verdicts: pd.DataFrame) -> pd.DataFrame:
    """The ranked possible errors with who chose each label and the verdicts recorded so far."""
    out = scores.merge(choosers, on=["item_id", "label"], how="left")
    summary = verdict_summary(verdicts)
    out = out.merge(summary, on=["item_id", "label"], how="left")
    for v in VERDICTS:
        out[v] = out[v].fillna(0).astype(int) if v in out else 0
    cols = ["rank", "item_id", "label", "score", "n_chose", "n_annotators", "choosers",
            *VERDICTS]
    return out[cols].rename(columns={"error": "verdicts: error", "variation":
                                     "verdicts: variation", "unsure": "verdicts: unsure"})


def item_detail(dataset: Dataset, scores: pd.DataFrame, item_id: str, label: str,
                report: pd.DataFrame, explanations: pd.DataFrame | None) -> None:
    """One possible error in context: its score and rank, the item text, every annotator's labels
    (and explanations), and the scores of every label of the item."""
    row = scores[(scores["item_id"] == item_id) & (scores["label"] == label)].iloc[0]
    st.markdown(f"**Possible error** — label **{md(label)}** on item **{md(item_id)}**: score "
                f"{fmt_num(row['score'])}, rank {int(row['rank'])} of {len(scores)} "
                f"({int(row['n_chose'])} of {int(row['n_annotators'])} annotators chose it). "
                "A score and a rank for re-checking, not a verdict.")
    items = dataset.items
    if items is not None and "text" in items.columns:
        hit = items[items["item_id"].astype(str) == item_id]
        if len(hit):
            for col in ("context", "text"):
                if col in hit.columns and pd.notna(hit[col].iloc[0]):
                    st.markdown(f"*{col}:* {md(hit[col].iloc[0])}")
    ann = dataset.annotations
    mine = ann[ann["item_id"].astype(str) == item_id][["annotator_id", "label"]].astype(str)
    mine = mine.assign(verdict=report["kind"].reindex(mine["annotator_id"]).fillna("").map(
        lambda k: KIND_WORDS.get(k, k)).to_numpy())
    if explanations is not None and {"item_id", "annotator_id", "label",
                                     "explanation"} <= set(explanations.columns):
        ex = explanations[explanations["item_id"].astype(str) == item_id]
        ex = ex.astype({"annotator_id": str, "label": str}).groupby(
            ["annotator_id", "label"])["explanation"].agg(" | ".join).reset_index()
        mine = mine.merge(ex, on=["annotator_id", "label"], how="left")
    st.markdown("**Every annotator's labels on this item**")
    mine = mine.sort_values(["annotator_id", "label"])
    show_table(mine, hide_index=True, width="stretch")
    download_table(mine.assign(item_id=item_id), "item_labels.csv", key="errors.dl_item")
    same = scores[scores["item_id"] == item_id][["label", "score", "rank", "n_chose"]]
    st.markdown("**Scores of every label of this item**")
    show_table(same, hide_index=True, width="stretch",
               column_config={"score": st.column_config.NumberColumn(format="%.4f")})
    download_table(same.assign(item_id=item_id), "item_scores.csv", key="errors.dl_item_scores")
    explorer_link(f"Open item {md(item_id)} in Items and annotators", item=item_id)


def verdict_control(store: VerdictStore, reviewer: str, dataset_hash: str, item_id: str,
                    label: str) -> None:
    """Record this reviewer's verdict on one label; show everyone's latest verdicts on it."""
    key = f"errors.verdict.{dataset_hash[:8]}.{item_id}.{label}"
    with st.form(key=f"{key}.form", border=True):
        choice = st.radio("Your verdict on this label", list(VERDICTS), horizontal=True,
                          format_func=VERDICT_WORDS.get, key=f"{key}.choice")
        comment = st.text_input("Comment (optional)", max_chars=2000, key=f"{key}.comment")
        saved = st.form_submit_button("Save verdict", type="primary")
    if saved:
        try:
            store.add(reviewer, dataset_hash, item_id, label, choice, comment)
            st.success(f"Saved: {md(VERDICT_WORDS[choice])} (reviewer {md(reviewer)}).")
        except (DataError, ValueError) as error:
            st.error(f"**The verdict was not saved.** {md(error)}", icon=":material/error:")
    try:
        rows = store.verdicts(dataset=dataset_hash)
    except DataError as error:
        st.error(f"**The verdict database cannot be read.** {md(error)}")
        return
    here = latest_verdicts(rows)
    here = here[(here["item_id"] == item_id) & (here["label"] == label)]
    if len(here):
        shown = here[["reviewer", "verdict", "comment", "created_at"]]
        show_table(shown, hide_index=True, width="stretch")
        download_table(shown.assign(item_id=item_id, label=label), "label_verdicts.csv",
                       key="errors.dl_verdicts", label="Download the verdicts on this label (CSV)")


def annotator_map(report: pd.DataFrame, key: str = "errors.map") -> str | None:
    """Skill against camp agreement, one point per annotator coloured by verdict, traits on
    hover; returns the clicked annotator (or None)."""
    y_col = "camp_agreement" if "camp_agreement" in report and \
        report["camp_agreement"].notna().any() else "majority_agreement"
    y_title = ("agreement with own camp" if y_col == "camp_agreement"
               else "agreement with the majority of the others")
    traits = [c for c in report.columns if c not in {
        "n_rows", "skill", "ds_accuracy", "concentration", "confusion_cell", "cell_ratio",
        "majority_agreement", "top3_peer_agreement", "mace_competence", "camp",
        "camp_agreement", "kind", "reason", "majority_agreement_in", "majority_agreement_out",
        "camp_agreement_in"}]
    fig = go.Figure()
    for kind, colour in KIND_COLOURS.items():
        part = report[report["kind"] == kind]
        if part.empty:
            continue
        hover = []
        where = {c: j for j, c in enumerate(part.columns)}
        for aid, values in zip(part.index, part.to_numpy(dtype=object), strict=True):
            r = {c: values[j] for c, j in where.items()}  # the values iterrows would give
            lines = [f"<b>{plot_text(aid)}</b>", f"{KIND_WORDS[kind]}",
                     f"skill {fmt_num(r['skill'])}, labels {int(r['n_rows'])}",
                     f"{plot_text(r['reason'])}"]
            if "camp" in r and pd.notna(r["camp"]):
                lines.append(f"camp {plot_text(r['camp'])}")
            lines += [f"{plot_text(t)}: {plot_text(r[t])}" for t in traits if pd.notna(r[t])]
            hover.append("<br>".join(lines))
        fig.add_trace(go.Scatter(
            x=part["skill"].to_numpy(), y=part[y_col].to_numpy(), mode="markers",
            name=KIND_WORDS[kind], marker={"color": colour, "size": 9, "opacity": 0.8},
            customdata=report.index.get_indexer(part.index).tolist(), hovertext=hover,
            hoverinfo="text"))
    fig.update_layout(height=420, margin={"t": 30}, xaxis_title="skill (one-coin Dawid-Skene)",
                      yaxis_title=y_title, legend_title_text="verdict")
    event = st.plotly_chart(fig, width="stretch", key=key, on_select="rerun",
                            selection_mode="points")
    points = getattr(getattr(event, "selection", None), "points", None) or []
    if points:
        pos = points[0].get("customdata")
        if isinstance(pos, list):
            pos = pos[0] if pos else None
        if isinstance(pos, (int, float)) and 0 <= int(pos) < len(report):
            return str(report.index[int(pos)])
    return None


def report_download(report: pd.DataFrame, seed: int) -> None:
    download_table(lambda: report.reset_index().assign(seed=seed), "annotator_report.csv",
                   key="errors.dl_report", label="Download annotator report (CSV)")


def kind_counts(report: pd.DataFrame) -> str:
    counts = report["kind"].value_counts()
    return ", ".join(f"{int(counts.get(k, 0))} {KIND_WORDS[k]}" for k in KIND_WORDS
                     if counts.get(k, 0))


def systematic_subset(report: pd.DataFrame) -> pd.DataFrame:
    """Systematic annotators with the confusion where they diverge (shown as a perspective)."""
    part = report[report["kind"] == "systematic"]
    return part[["n_rows", "skill", "confusion_cell", "cell_ratio", "reason"]].rename(
        columns={"confusion_cell": "where they diverge (true -> their label)",
                 "cell_ratio": "x the median annotator"}).reset_index()


def evaluation_table(scores: pd.DataFrame, gold: pd.DataFrame, seed: int) -> pd.DataFrame:
    ev = errors.evaluate_error_ranking(scores, gold, n_boot=200, seed=seed)
    keep = [c for c in ev.columns if c.split("_")[0] in ("ap", "p@50", "p@100", "r@100")
            or c in ("n_ranked", "n_missing", "n_errors")]
    return ev[keep].reset_index()


def default_thresholds() -> dict:
    return dict(competence.REPORT_THRESHOLDS)


def finite(x) -> bool:
    return x is not None and np.isfinite(x)
