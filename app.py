"""HLV Lens: entry point. The sidebar's dataset selector (bundled samples and this session's
uploads) shared by every page, and the navigation.

Uploads happen on the Overview page (pages/home/page.py); the dataset in use lives in session
state (``hlv_ui.state``) and every page reads it from there."""

from __future__ import annotations

import streamlit as st

from hlv_ui.auth import auth_configured, logout_button, require_login
from hlv_ui.cluster_ui import cluster_caption
from hlv_ui.login_flow import return_after_login
from hlv_ui.model_groups import without_hidden
from hlv_ui.report_button import report_download
from hlv_ui.state import (
    SOURCE_KEY,
    apply_dataset_link,
    ensure_dataset,
    get_predictions,
    source_label,
    source_options,
    sync_dataset_param,
    sync_selector,
    use_source,
)
from hlv_ui.widgets import dataset_box_style, in_use_caption, run_marker

st.set_page_config(page_title="HLV Lens", page_icon="🔎", layout="wide")
run_marker()  # hidden: numbers this run for the browser tests' waits
require_login()  # team mode ([auth] in secrets): nothing below runs until the visitor signs in

with st.sidebar:
    dataset_box_style()
    if auth_configured():
        return_after_login()  # a link opened before the login: go there now
    logout_button()
    apply_dataset_link()  # ?dataset=<sample or library id> in a link, on the session's first run
    options = source_options()
    sync_selector(options)  # the box names the dataset in use, whatever happened since
    st.selectbox(
        "Dataset",
        options,
        format_func=source_label,
        key=SOURCE_KEY,
        on_change=lambda: use_source(st.session_state[SOURCE_KEY]),
        help="The bundled samples cover every task type; your uploads of this session are "
        "listed as 'Uploaded: ...' and the datasets kept in the library as 'Library: ...' "
        "(upload and keep on the Overview page). Switching keeps the uploads.",
    )
    current = ensure_dataset()
    sync_dataset_param()  # ?dataset=<library id or sample> in the address: a reload opens it
    if cluster_caption():  # a large dataset on a Dask cluster is in use, not `current`
        current = None
    if current is not None:
        in_use_caption(current)  # a long name cut with an ellipsis, whole on hover
    # gathered only when a report is asked for; Training lab models only when shown
    report_download(current, lambda: without_hidden(get_predictions()))

pages = {
    "Explore": [
        st.Page("pages/home/page.py", title="Overview", icon=":material/table_view:", default=True,
                url_path="home"),
        st.Page("pages/soft_metrics/page.py", title="Soft vs hard metrics",
                icon=":material/speed:", url_path="soft-metrics"),
        st.Page("pages/certainty/page.py", title="Certainty", icon=":material/casino:",
                url_path="certainty"),
        st.Page("pages/agreement/page.py", title="Agreement", icon=":material/handshake:",
                url_path="agreement"),
        st.Page("pages/perspectives/page.py", title="Perspectives", icon=":material/groups:",
                url_path="perspectives"),
        st.Page("pages/graph/page.py", title="Annotator graph", icon=":material/hub:",
                url_path="graph"),
        st.Page("pages/explorer/page.py", title="Items and annotators",
                icon=":material/person_search:", url_path="explorer"),
        st.Page("pages/errors/page.py", title="Errors and perspectives", icon=":material/rule:",
                url_path="errors"),
    ],
    "Experts and training": [
        st.Page("pages/review/page.py", title="Case review", icon=":material/gavel:",
                url_path="review"),
        st.Page("pages/training_lab/page.py", title="Training lab",
                icon=":material/model_training:", url_path="training-lab"),
        st.Page("pages/lewidi/page.py", title="LeWiDi scorer", icon=":material/leaderboard:",
                url_path="lewidi"),
    ],
    "Help": [
        st.Page("pages/glossary/page.py", title="Glossary", icon=":material/menu_book:",
                url_path="glossary"),
    ],
}
st.navigation(pages).run()
