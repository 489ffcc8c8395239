"""``/explorer`` on a fresh server. Streamlit starts a server whose folder has ``pages/`` in its old
multipage mode, which only lists ``pages/*.py``: without this file a first request for a link to
``/explorer`` would answer "Page not found". ``entry_point_only`` switches that mode off and reruns
through ``app.py`` (and its login), whose navigation opens the screen in ``pages/`` folders."""

from hlv_ui.login_flow import entry_point_only

entry_point_only()
