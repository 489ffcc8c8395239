"""The item drill-down of the Soft vs hard metrics page: one item's human shares beside the
model's probabilities, its annotations and what each training method would train on."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import training
from hlv_core.glossary import method_label
from hlv_core.text import md
from hlv_ui.explain import explain
from hlv_ui.widgets import SETTING, download_table, show_table
from pages.soft_metrics.figures import item_distribution_figure

__all__ = ["item_drilldown"]


def item_drilldown(dataset, res, colour: str, targets, *, key: str) -> None:
    """One item of ``res`` (a :class:`~hlv_core.scoring.ModelScores`): its text, the human
    shares beside the model's probabilities, its annotations and what each training method
    would train on (``targets()`` -> :func:`hlv_core.targets.available_targets`). The item is
    chosen with a selectbox under ``key`` (a click on the scatter sets it)."""
    st.subheader("Item drill-down")
    ids = res.item_ids
    if st.session_state.get(key) not in ids:
        st.session_state[key] = ids[0]
    item = st.selectbox("Item (or click a point above)", ids, key=key, **SETTING)
    row = ids.index(item)
    text_cols = dataset.items.loc[dataset.items["item_id"] == item]
    if "text" in text_cols.columns and len(text_cols):
        st.text(str(text_cols["text"].iloc[0]))
    left, right = st.columns(2)
    left.plotly_chart(item_distribution_figure(list(dataset.labels), res.P[row], res.Q[row],
                                               res.model, colour),
                      width="stretch", key=f"{key}_dist")
    with right:
        annotations = dataset.item_annotations(item)
        show_table(annotations, hide_index=True, width="stretch")
        download_table(annotations, "item_annotations.csv", key=f"{key}_dl_annotations",
                       label="Download this item's annotations (CSV)")
    with st.expander("What each training method would train on for this item"):
        explain("training_method")
        frames = targets()
        for method in training.METHODS:
            frame = frames[method]
            st.markdown(f"**{method_label(method)}**: {training.METHOD_INFO[method][2]}")
            if isinstance(frame, str):
                st.caption(f"Not available here: {md(frame)}")
            else:
                show_table(frame[frame["item_id"] == item], hide_index=True, width="stretch")
        rows = [frames[m][frames[m]["item_id"] == item].assign(method=m)
                for m in training.METHODS if not isinstance(frames[m], str)]
        if rows:
            download_table(pd.concat(rows, ignore_index=True), "item_training_targets.csv",
                           key=f"{key}_dl_targets",
                           label="Download every method's targets for this item (CSV)")
