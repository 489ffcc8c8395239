"""Overview: what was loaded, how labels vary, and a browser of the most contested items."""

from __future__ import annotations

import streamlit as st

from hlv_core.annotators import item_overview
from hlv_core.figures import (
    annotators_per_item_figure,
    entropy_figure,
    item_distribution_figure,
    label_distribution_figure,
)
from hlv_core.text import md
from hlv_ui.cache import cached
from hlv_ui.cluster_ui import cluster_overview
from hlv_ui.explain import explain, explain_inline
from hlv_ui.library_ui import library_panel
from hlv_ui.links import explorer_link
from hlv_ui.state import ensure_dataset, require_dataset
from hlv_ui.widgets import SETTING, download_table, show_table
from pages.home.upload_views import prediction_reports, upload_panel

st.title("HLV Lens")
st.caption(
    "Human label variation: several people labelled the same items and disagree. "
    "Here the disagreement is the signal."
)

ensure_dataset()
upload_panel()
library_panel()
cluster_overview()  # a large dataset on a Dask cluster: its overview, then the page stops
dataset = require_dataset()


@cached(show_spinner=False, max_entries=16)
def overview_tables(dataset) -> dict:
    """The Overview's tables, computed once per dataset content."""
    return {
        "summary": dataset.summary(),
        "labels": dataset.label_table(),
        "items": item_overview(dataset),
        "report": dataset.report.to_frame(),
        "per_item": dataset.annotators_per_item_array(),
    }


tables = overview_tables(dataset)
summary = tables["summary"]
st.subheader(f"{md(dataset.name)}")
cols = st.columns(5)
cols[0].metric("Items", f"{summary['n_items']:,}")
cols[1].metric(  # "anonymous" did not fit the column at 1200 px
    "Annotators",
    f"{summary['n_annotators']:,}" if summary["annotator_ids_known"] else "—",
    help=None if summary["annotator_ids_known"] else "Anonymous: identities are not linked "
    "across items (counts or per-case readers).",
)
cols[2].metric("Annotations", f"{summary['n_annotations']:,}")
cols[3].metric("Labels", summary["n_labels"])
cols[4].metric("Mean entropy", f"{summary['mean_entropy']:.3f}",
               help=explain_inline("item_entropy"))
st.caption(
    f"Task **{dataset.task}** · level of measurement **{dataset.level}** · annotators per item "
    f"min {summary['annotators_per_item']['min']}, median "
    f"{summary['annotators_per_item']['median']:g}, max {summary['annotators_per_item']['max']}"
)
explain("task", "soft_label", "majority_label")

with st.expander("Import report", expanded=False):
    show_table(tables["report"], hide_index=True, width="stretch")
    download_table(tables["report"], f"{dataset.name}_import_report.csv", key="home.dl.report",
                   label="Download import report (CSV)")
    for i, report in enumerate(prediction_reports(dataset.content_hash)):
        st.markdown(f"**Predictions file {md(report.source)}**")
        show_table(report.to_frame(), hide_index=True, width="stretch",
                   key=f"home.pred_report.{i}")
        download_table(report.to_frame(), f"{dataset.name}_predictions_report_{i}.csv",
                       key=f"home.dl.pred_report.{i}", label="Download this report (CSV)")

with st.expander(f"Label inventory (order fixes every tie-break): {dataset.n_labels} labels"):
    st.write(", ".join(f"{i + 1}. {md(label)}" for i, label in enumerate(dataset.labels[:60]))
             + (" …" if dataset.n_labels > 60 else ""))

left, middle, right = st.columns(3)
labels_shown = tables["labels"]
if dataset.n_labels > 30:
    labels_shown = labels_shown.nlargest(30, "annotations")
left.plotly_chart(
    label_distribution_figure(labels_shown, "Label distribution"
                              + (" (30 most used)" if dataset.n_labels > 30 else "")),
    width="stretch", key="home.labels",
)
middle.plotly_chart(annotators_per_item_figure(tables["per_item"]), width="stretch",
                    key="home.per_item")
right.plotly_chart(entropy_figure(tables["items"]["entropy"].to_numpy()), width="stretch",
                   key="home.entropy")
download_table(labels_shown, f"{dataset.name}_labels.csv", key="home.dl.labels",
               label="Download label distribution (CSV)")

st.subheader("Items, most contested first")
explain("majority_share", "pair_agreement", "item_entropy")
items = tables["items"]
query = st.text_input("Filter items (id or text contains)", key="home.filter", **SETTING,
                      max_chars=200)
if query:
    mask = items["item_id"].str.contains(query, case=False, regex=False)
    if "text" in items.columns:
        mask |= items["text"].astype(str).str.contains(query, case=False, regex=False)
    items = items[mask]
event = show_table(
    items,
    hide_index=True,
    width="stretch",
    height=360,
    on_select="rerun",
    selection_mode="single-row",
    key="home.items",
    column_config={
        "item_id": st.column_config.TextColumn("item"),
        "n_annotators": st.column_config.NumberColumn("annotators", format="%d"),
        "majority": st.column_config.TextColumn("majority label"),
        "majority_share": st.column_config.NumberColumn(
            "majority share", format="%.2f", help=explain_inline("majority_share")),
        "pair_agreement": st.column_config.NumberColumn(
            "pair agreement", format="%.2f", help=explain_inline("pair_agreement")),
        "entropy": st.column_config.ProgressColumn(
            "entropy", min_value=0.0, max_value=1.0, format="%.3f",
            help=explain_inline("item_entropy")),
    },
)
download_table(items, f"{dataset.name}_items.csv", key="home.dl.items",
               label="Download item table with agreement (CSV)")

rows = event.selection.rows if event is not None else []
selected = items.iloc[rows[0]]["item_id"] if rows else (items["item_id"].iloc[0] if len(items) else None)
if selected is not None:
    st.subheader(f"Item {md(selected)}")
    explorer_link("Open in Items and annotators (every annotation, annotator profiles)",
                  icon=":material/search:", item=str(selected))
    item_row = dataset.items[dataset.items["item_id"] == selected]
    if "text" in item_row.columns and len(item_row):
        st.text(str(item_row["text"].iloc[0]))  # st.text never interprets markup
    annotations = dataset.item_annotations(selected)
    if "rank" in annotations.columns:
        annotations = annotations.sort_values(["annotator_id", "rank"], na_position="last")
    show_table(annotations, hide_index=True, width="stretch", key="home.item_annotations")
    st.plotly_chart(
        item_distribution_figure(list(dataset.labels),
                                 dataset.judgements().loc[selected].to_numpy(),
                                 multilabel=dataset.task == "multilabel"),
        width="stretch", key="home.item_distribution",
    )
    download_table(annotations, f"{dataset.name}_{selected}_annotations.csv",
                   key="home.dl.item", label="Download this item's annotations (CSV)")
