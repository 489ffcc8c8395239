"""Glossary: every concept HLV Lens shows, in plain words, with how to read it and an example."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core.glossary import METHOD_NAMES, METRIC_NAMES, PAPERS, TERMS
from hlv_ui.explain import glossary_entry
from hlv_ui.widgets import download_table, show_table

st.title("Glossary")
st.caption(
    "Human label variation (HLV): several people labelled the same items and disagree. HLV Lens "
    "treats that disagreement as information. Each term below says what it means, how to read "
    "high and low values, an example, and how it is computed."
)

query = st.text_input("Find a term", placeholder="e.g. alpha, soft, certainty")
needle = query.strip().lower()
shown = [entry for entry in TERMS.values()
         if not needle or needle in f"{entry.title} {entry.meaning}".lower()]
if not shown:
    st.info("No term matches; clear the search box to see all of them.")
for entry in shown:
    with st.container(border=True):
        glossary_entry(entry)

with st.expander("Metric and training-method names"):
    metric_names = pd.DataFrame({"metric key (CLI, CSV)": list(METRIC_NAMES),
                                 "name in the app": list(METRIC_NAMES.values())})
    show_table(metric_names, hide_index=True)
    download_table(metric_names, "metric_names.csv", key="glossary.dl_metrics",
                   label="Download the metric names (CSV)")
    method_names = pd.DataFrame({"abbreviation": list(METHOD_NAMES),
                                 "training method (Kurniawan et al., Table 3)":
                                     list(METHOD_NAMES.values())})
    show_table(method_names, hide_index=True)
    download_table(method_names, "training_method_names.csv", key="glossary.dl_methods",
                   label="Download the training-method names (CSV)")
with st.expander("The papers behind HLV Lens"):
    for citation in PAPERS.values():
        st.markdown(f"- {citation}")
