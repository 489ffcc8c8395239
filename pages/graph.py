"""Placeholder: the Annotator graph page is not built yet (issue 5)."""

import streamlit as st

st.title("Annotator graph")
st.warning("Not built yet: this page arrives with issue 5. Nothing on it is computed.")
