"""Placeholder: the Case review and meta-evaluation page is not built yet (issue 8)."""

import streamlit as st

st.title("Case review and meta-evaluation")
st.warning("Not built yet: this page arrives with issue 8. Nothing on it is computed.")
