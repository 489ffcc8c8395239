"""Placeholder: the Certainty page is not built yet (issue 6)."""

import streamlit as st

st.title("Certainty")
st.warning("Not built yet: this page arrives with issue 6. Nothing on it is computed.")
