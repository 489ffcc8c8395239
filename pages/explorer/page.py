"""Items and annotators: one item with every annotation, or one annotator's profile, each with a
link to send to a colleague (URL query parameters ``item``, ``annotator``, ``with``). Every
number comes from ``hlv_core.annotators``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import annotators
from hlv_core.io import Dataset
from hlv_core.levels import level_options
from hlv_core.text import md
from hlv_ui.cache import cached
from hlv_ui.explain import explain
from hlv_ui.links import VIEW_PARAMS, explorer_params
from hlv_ui.state import link_dataset_id, require_dataset
from hlv_ui.widgets import SETTING, download_table, lazy_tabs, show_table
from pages.explorer.views import annotator_section, item_section

st.title("Items and annotators")
st.caption("Open one item with every annotation, or one annotator's profile. Click a row of a "
           "table to open it; the address bar (and the link under each view) leads straight "
           "back to it.")

dataset = require_dataset()
ids_known = dataset.annotator_ids_known


@cached(show_spinner="Collecting every annotator's answers…", max_entries=8)
def cells_of(dataset: Dataset) -> pd.DataFrame:
    return annotators.annotator_cells(dataset)


@cached(show_spinner="Computing pairwise α of every annotator pair…", max_entries=8)
def pairs_of(dataset: Dataset) -> pd.DataFrame | None:
    try:
        return annotators.annotator_pairs(dataset)
    except ValueError:
        return None


@cached(show_spinner="Finding the annotator camps…", max_entries=8)
def camps_of(dataset: Dataset) -> pd.Series | None:
    try:
        return annotators.annotator_camps(dataset)
    except ValueError:  # one label per cell needed, or the data is too large for sigma
        return None


@cached(show_spinner=False, max_entries=8)
def item_table(dataset: Dataset) -> pd.DataFrame:
    return annotators.item_overview(dataset, cells_of(dataset))


@cached(show_spinner=False, max_entries=8)
def annotator_table(dataset: Dataset) -> pd.DataFrame:
    return annotators.annotator_table(dataset, pairs=pairs_of(dataset), camps=camps_of(dataset),
                                      cells=cells_of(dataset))


def go(**params: str | None) -> None:
    """Show another view of this page (a callback: the next run reads the new URL). Only the
    view's parameters change: the page's settings in the address are Streamlit's to write."""
    for name in VIEW_PARAMS:
        st.query_params.pop(name, None)
    st.query_params.update(explorer_params(**params))


def open_row(key: str, ids: list[str], param: str):
    """An ``on_select`` callback: open the clicked row's item or annotator."""
    def callback() -> None:
        rows = st.session_state[key].selection.rows
        if rows:
            go(**{param: ids[rows[0]]})
    return callback


def clickable(frame: pd.DataFrame, id_column: str, param: str, key: str, **kwargs) -> None:
    """A table whose row click opens the row's item (``param="item"``) or annotator."""
    ids = frame[id_column].astype(str).tolist()
    show_table(frame, key=key, on_select=open_row(key, ids, param),
               selection_mode="single-row", hide_index=True, **kwargs)


item_id = st.query_params.get("item")
annotator_id = st.query_params.get("annotator")
link_dataset = st.query_params.get("dataset")
cells = cells_of(dataset)


def missing(kind: str, value: str) -> None:
    made_for = (f" The link was made for the dataset **{md(link_dataset)}**; load it first."
                if link_dataset and link_dataset not in (dataset.name, link_dataset_id()) else "")
    st.warning(f"There is no {kind} **{md(value)}** in **{md(dataset.name)}**.{made_for}")
    st.button("Show all items and annotators", on_click=go, key="explorer.missing_back")


if item_id is not None:
    try:
        view = annotators.item_view(dataset, item_id, cells)
    except ValueError:
        missing("item", item_id)
    else:
        item_section(dataset, view, go=go, clickable=clickable)
    st.stop()

if annotator_id is not None:
    if not ids_known:
        st.warning("This dataset has no annotator identities linked across items, so there "
                   "are no annotator profiles.")
        st.stop()
    try:
        profile = annotators.annotator_profile(
            dataset, annotator_id, pairs=pairs_of(dataset), camps=camps_of(dataset),
            cells=cells)
    except ValueError:
        missing("annotator", annotator_id)
    else:
        annotator_section(dataset, profile, other=st.query_params.get("with"), go=go,
                          clickable=clickable)
    st.stop()

# ------------------------------------------------------------------------ landing: two tables
tabs = lazy_tabs(["Items", "Annotators"], key="explorer.tab")


def items_tab() -> None:
    explain("pair_agreement", "majority_label")
    table = item_table(dataset)
    query = st.text_input("Find items (id or text contains)", key="explorer.item_query",
                          **SETTING, max_chars=200,
                          placeholder="e.g. case_012 or landlord")
    if query:
        hay = table["item_id"].astype(str)
        if "text" in table.columns:
            hay = hay + " " + table["text"].fillna("").astype(str)
        table = table[hay.str.contains(query, case=False, regex=False)]
    st.caption(f"{len(table):,} of {dataset.n_items:,} items, most contested first. Click a row "
               "to open the item with every annotation.")
    clickable(table, "item_id", "item", "explorer.items", column_config={
        "n_annotators": st.column_config.NumberColumn("annotators"),
        "pair_agreement": st.column_config.NumberColumn("pair agreement", format="%.2f"),
        "majority_share": st.column_config.NumberColumn("majority share", format="%.2f"),
        "entropy": st.column_config.NumberColumn(format="%.2f"),
        "text": st.column_config.TextColumn(width="large")})
    download_table(table, "items_with_agreement.csv", key="explorer.dl_items",
                   label="Download the item table (CSV)")


def annotators_tab() -> None:
    if not ids_known:
        st.info("This dataset has no annotator identities linked across items (counts or "
                "per-case readers), so there are no annotator profiles.")
        return
    explain("majority_agreement", "pairwise_alpha", "camps")
    table = annotator_table(dataset)
    c1, c2, c3 = st.columns(3)
    query = c1.text_input("Search annotators", key="explorer.ann_query", **SETTING, max_chars=200,
                          placeholder="part of an annotator id")
    traits = [c for c in dataset.annotators.columns if c != "annotator_id"]
    trait = c2.selectbox("Filter by trait", ["(none)", *traits], key="explorer.trait",
                         **SETTING)
    if query:
        table = table[table["annotator_id"].str.contains(query, case=False, regex=False)]
    if trait != "(none)":
        values = sorted(table[trait].dropna().astype(str).unique())
        chosen = c3.multiselect(f"Values of {md(trait)}", values, key="explorer.trait_values",
                                **SETTING)
        if chosen:
            table = table[table[trait].astype(str).isin(chosen)]
    st.caption(f"{len(table):,} of {dataset.n_annotators:,} annotators. Click a row to open "
               "the annotator's profile. Mean pairwise α at the "
               f"{level_options(dataset).default} level, pairs sharing at least 2 "
               "items; camps under Basile's conventions.")
    clickable(table, "annotator_id", "annotator", "explorer.annotators", column_config={
        "n_items": st.column_config.NumberColumn("items"),
        "n_compared": st.column_config.NumberColumn("items compared"),
        "n_agree": st.column_config.NumberColumn("agreed"),
        "majority_agreement": st.column_config.NumberColumn("agrees with majority",
                                                            format="%.2f"),
        "mean_alpha": st.column_config.NumberColumn("mean pairwise α", format="%.3f"),
        "n_pairs_defined": st.column_config.NumberColumn("pairs"),
        "n_shared_total": st.column_config.NumberColumn("shared items")})
    download_table(table, "annotators.csv", key="explorer.dl_annotators",
                   label="Download the annotator table (CSV)")


for name, tab in tabs.items():
    if tab.open:
        with tab:
            {"Items": items_tab, "Annotators": annotators_tab}[name]()
