"""Glossary: every concept HLV Lens shows, in plain words, with how to read it and an example."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core.glossary import METHOD_NAMES, METRIC_NAMES, PAPERS, TERMS
from hlv_ui.explain import glossary_entry
from hlv_ui.widgets import show_table

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
    show_table(pd.DataFrame({"metric key (CLI, CSV)": list(METRIC_NAMES),
                             "name in the app": list(METRIC_NAMES.values())}), hide_index=True)
    show_table(pd.DataFrame({"abbreviation": list(METHOD_NAMES),
                             "training method (Kurniawan et al., Table 3)":
                                 list(METHOD_NAMES.values())}), hide_index=True)
with st.expander("The papers behind HLV Lens"):
    for citation in PAPERS.values():
        st.markdown(f"- {citation}")
