"""Placeholder: the Perspectives page is not built yet (issue 7)."""

import streamlit as st

st.title("Perspectives")
st.warning("Not built yet: this page arrives with issue 7. Nothing on it is computed.")
