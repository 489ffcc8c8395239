"""Streamlit glue shared by the pages (session state, downloads, error display).

Only UI code lives here; every computation is in ``hlv_core``."""
