"""Streamlit glue shared by the pages (session state, downloads, error display).

Only UI code lives here; every computation is in ``hlv_core``."""

from .login_flow import entry_point_only as _entry_point_only

_entry_point_only()  # a first request for a page's address still runs app.py (and its login)
