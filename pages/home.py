"""Overview: what was loaded, how labels vary, and a browser of the most contested items."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st

from hlv_core.io import FORMATS, LEVELS, TASKS, DataError, companion_option
from hlv_core.text import md
from hlv_ui.loading import parse_predictions, parse_upload
from hlv_ui.state import (
    add_predictions,
    ensure_dataset,
    renamed_note,
    require_dataset,
    set_dataset,
    show_data_error,
)
from hlv_ui.widgets import download_table, show_table

MAX_UPLOAD_MB = 200

st.title("HLV Lens")
st.caption(
    "Human label variation: several people labelled the same items and disagree. "
    "Here the disagreement is the signal."
)

def companion_options(files) -> dict[str, bytes]:
    """Map companion uploads to loader options by file name."""
    options: dict[str, bytes] = {}
    for file in files:
        option = companion_option(file.name)
        if option is None:
            st.warning(f"Ignored companion file '{md(file.name)}': its name does not say what it "
                       "is (annotators, items, labels, meta, conditions or risks).")
        else:
            options[option] = file.getvalue()
    return options


ensure_dataset()
with st.expander("Load your own data", expanded=False, icon=":material/upload_file:"):
    st.caption(
        "Canonical long CSV: `item_id, annotator_id, label` (one row per single label, optional "
        "`rank`); or a zip with annotations.csv + items.csv + annotators.csv + labels.csv; or any "
        "format below. Files stay in your browser session."
    )
    fmt_col, task_col, level_col = st.columns([3, 1, 1])
    fmt = fmt_col.selectbox("Format", list(FORMATS), format_func=lambda k: f"{k}: {FORMATS[k]}",
                            key="home.format")
    task_choice = task_col.selectbox(
        "Task", ["auto", *TASKS], key="home.task",
        help="auto: ranking when there is a rank column, multi-label when many (item, "
        "annotator) cells hold several labels (a few such cells are reported as an error: "
        "choose multilabel here if they are meant), rating when every label is a number (more "
        "than two values), multiclass otherwise.")
    level_choice = level_col.selectbox(
        "Level of measurement", ["auto", *LEVELS], key="home.level",
        help="auto: ordinal for ratings, nominal otherwise. Interval/ratio need numeric labels.")
    upload = st.file_uploader(
        f"Annotations (max {MAX_UPLOAD_MB} MB)",
        # workbooks are accepted only to be answered "Excel is not read, save as CSV"
        type=["csv", "tsv", "txt", "parquet", "zip", "json", "jsonl", "npy", "xlsx", "xls"],
        key="home.upload",
    )
    companions = st.file_uploader(
        "Companion files (optional): annotators.csv (traits), items.csv (texts, splits), "
        "labels.csv (label order), *_annotators_meta.json (LeWiDi 2025), conditions / risks "
        ".txt (selectors)",
        type=["csv", "tsv", "json", "txt"],
        accept_multiple_files=True,
        key="home.companions",
    )
    if upload is not None:
        raw = upload.getvalue()
        options = companion_options(companions or [])
        if task_choice != "auto":
            options["task"] = task_choice
        if level_choice != "auto":
            options["level"] = level_choice
        digest = hashlib.sha256(
            raw + b"".join(
                hashlib.sha256(v if isinstance(v, bytes) else str(v).encode()).digest()
                for v in options.values()
            )
        ).hexdigest()
        try:
            loaded = parse_upload(raw, upload.name, fmt, digest, **options)
        except DataError as error:
            show_data_error(error)
        else:
            if st.session_state.get("home.loaded_digest") != digest:
                set_dataset(loaded)
                st.session_state["home.loaded_digest"] = digest
            st.success(f"Loaded **{md(upload.name)}**: {loaded.n_items:,} items, "
                       f"{len(loaded.annotations):,} annotations.")
    pred_upload = st.file_uploader(
        "Predictions (item_id, label, prob[, model]; or one column per label)",
        type=["csv", "tsv", "parquet"],
        key="home.predictions",
    )
    if pred_upload is not None:
        current = ensure_dataset()
        try:
            preds = parse_predictions(pred_upload.getvalue(), pred_upload.name, current,
                                      current.content_hash)
        except DataError as error:
            show_data_error(error)
        else:
            renamed = add_predictions(preds)
            if renamed:
                st.warning(renamed_note(renamed))
            st.success(f"Predictions of {preds['model'].nunique()} model(s) added.")

dataset = require_dataset()


@st.cache_data(show_spinner=False, max_entries=16)
def overview_tables(_dataset, dataset_hash: str) -> dict:
    del dataset_hash
    return {
        "summary": _dataset.summary(),
        "labels": _dataset.label_table(),
        "items": _dataset.item_table(),
        "report": _dataset.report.to_frame(),
        "per_item": pd.DataFrame({"n_annotators": _dataset.annotators_per_item_array()}),
    }


tables = overview_tables(dataset, dataset.content_hash)
summary = tables["summary"]

cols = st.columns(5)
cols[0].metric("Items", f"{summary['n_items']:,}")
cols[1].metric(
    "Annotators",
    f"{summary['n_annotators']:,}" if summary["annotator_ids_known"] else "anonymous",
    help=None if summary["annotator_ids_known"] else "Identities are not linked across items.",
)
cols[2].metric("Annotations", f"{summary['n_annotations']:,}")
cols[3].metric("Labels", summary["n_labels"])
cols[4].metric("Mean normalised entropy", f"{summary['mean_entropy']:.3f}")
st.caption(
    f"Task **{dataset.task}** · level of measurement **{dataset.level}** · annotators per item "
    f"min {summary['annotators_per_item']['min']}, median "
    f"{summary['annotators_per_item']['median']:g}, max {summary['annotators_per_item']['max']}"
)

with st.expander("Import report", expanded=False):
    show_table(tables["report"], hide_index=True, width="stretch")
    download_table(tables["report"], f"{dataset.name}_import_report.csv", key="home.dl.report")

with st.expander(f"Label inventory (order fixes every tie-break): {dataset.n_labels} labels"):
    st.write(", ".join(f"{i + 1}. {md(label)}" for i, label in enumerate(dataset.labels[:60]))
             + (" …" if dataset.n_labels > 60 else ""))

left, middle, right = st.columns(3)
labels_shown = tables["labels"]
if dataset.n_labels > 30:
    labels_shown = labels_shown.nlargest(30, "annotations")
left.plotly_chart(
    px.bar(labels_shown, x="label", y="annotations", title="Label distribution"
           + (" (30 most used)" if dataset.n_labels > 30 else "")),
    width="stretch",
    key="home.labels",
)
middle.plotly_chart(
    px.histogram(tables["per_item"], x="n_annotators", title="Annotators per item"),
    width="stretch",
    key="home.per_item",
)
right.plotly_chart(
    px.histogram(tables["items"], x="entropy", nbins=30, title="Per-item normalised entropy"),
    width="stretch",
    key="home.entropy",
)
download_table(labels_shown, f"{dataset.name}_labels.csv", key="home.dl.labels",
               label="Download label distribution (CSV)")

st.subheader("Items, most contested first")
items = tables["items"]
query = st.text_input("Filter items (id or text contains)", key="home.filter")
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
        "entropy": st.column_config.ProgressColumn("entropy", min_value=0.0, max_value=1.0,
                                                   format="%.3f"),
        "majority_share": st.column_config.NumberColumn("majority share", format="%.2f"),
    },
)
download_table(items, f"{dataset.name}_items.csv", key="home.dl.items",
               label="Download item table (CSV)")

rows = event.selection.rows if event is not None else []
selected = items.iloc[rows[0]]["item_id"] if rows else (items["item_id"].iloc[0] if len(items) else None)
if selected is not None:
    st.subheader(f"Item {md(selected)}")
    item_row = dataset.items[dataset.items["item_id"] == selected]
    if "text" in item_row.columns and len(item_row):
        st.text(str(item_row["text"].iloc[0]))  # st.text never interprets markup
    annotations = dataset.item_annotations(selected)
    if "rank" in annotations.columns:
        annotations = annotations.sort_values(["annotator_id", "rank"], na_position="last")
    show_table(annotations, hide_index=True, width="stretch", key="home.item_annotations")
    distribution = pd.DataFrame(
        {"label": list(dataset.labels),
         "proportion": dataset.judgements().loc[selected].to_numpy()}
    )
    distribution = distribution[distribution["proportion"] > 0]
    st.plotly_chart(
        px.bar(distribution, x="label", y="proportion", title="Judgement distribution",
               range_y=[0, 1 if dataset.task != "multilabel" else max(1.0, np.nanmax(
                   distribution["proportion"], initial=0))]),
        width="stretch",
        key="home.item_distribution",
    )
    download_table(annotations, f"{dataset.name}_{selected}_annotations.csv",
                   key="home.dl.item")
