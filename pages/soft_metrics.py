"""Placeholder: the Soft vs hard metrics page is not built yet (issue 3)."""

import streamlit as st

st.title("Soft vs hard metrics")
st.warning("Not built yet: this page arrives with issue 3. Nothing on it is computed.")
