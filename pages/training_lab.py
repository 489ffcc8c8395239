"""Placeholder: the Training lab page is not built yet (issue 9)."""

import streamlit as st

st.title("Training lab")
st.warning("Not built yet: this page arrives with issue 9. Nothing on it is computed.")
