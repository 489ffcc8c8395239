"""Placeholder: the Agreement page is not built yet (issue 4)."""

import streamlit as st

st.title("Agreement")
st.warning("Not built yet: this page arrives with issue 4. Nothing on it is computed.")
