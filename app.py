"""HLV Lens: entry point. The sidebar's dataset selector (bundled samples and this session's
uploads) shared by every page, and the navigation.

Uploads happen on the Overview page (pages/home.py); the dataset in use lives in session state
(``hlv_ui.state``) and every page reads it from there."""

from __future__ import annotations

import streamlit as st

from hlv_core.text import md
from hlv_ui.auth import logout_button, require_login
from hlv_ui.report_button import report_download
from hlv_ui.state import (
    DEFAULT_SAMPLE,
    PENDING_SOURCE_KEY,
    SOURCE_KEY,
    apply_dataset_link,
    ensure_dataset,
    get_predictions,
    source_label,
    source_options,
    use_source,
)

st.set_page_config(page_title="HLV Lens", page_icon="🔎", layout="wide")
require_login()  # team mode ([auth] in secrets): nothing below runs until the visitor signs in

with st.sidebar:
    logout_button()
    apply_dataset_link()  # ?dataset=<sample> in a shared link, on the session's first run
    options = source_options()
    if PENDING_SOURCE_KEY in st.session_state:  # a page asked to select a new upload
        st.session_state[SOURCE_KEY] = st.session_state.pop(PENDING_SOURCE_KEY)
    if st.session_state.get(SOURCE_KEY) not in options:
        st.session_state[SOURCE_KEY] = DEFAULT_SAMPLE
    st.selectbox(
        "Dataset",
        options,
        format_func=source_label,
        key=SOURCE_KEY,
        on_change=lambda: use_source(st.session_state[SOURCE_KEY]),
        help="The bundled samples cover every task type; your uploads of this session are "
        "listed as 'Uploaded: ...' (upload on the Overview page). Switching keeps the uploads.",
    )
    current = ensure_dataset()
    if current is not None:
        st.caption(
            f"In use: **{md(current.name)}** · {current.task} · {current.n_items:,} items · "
            f"{len(current.annotations):,} annotations"
        )
    report_download(current, get_predictions)  # gathered only when a report is asked for

pages = {
    "Explore": [
        st.Page("pages/home.py", title="Overview", icon=":material/table_view:", default=True),
        st.Page("pages/soft_metrics.py", title="Soft vs hard metrics", icon=":material/speed:",
                url_path="soft-metrics"),
        st.Page("pages/certainty.py", title="Certainty", icon=":material/casino:",
                url_path="certainty"),
        st.Page("pages/agreement.py", title="Agreement", icon=":material/handshake:",
                url_path="agreement"),
        st.Page("pages/perspectives.py", title="Perspectives", icon=":material/groups:",
                url_path="perspectives"),
        st.Page("pages/graph.py", title="Annotator graph", icon=":material/hub:",
                url_path="graph"),
        st.Page("pages/explorer.py", title="Items and annotators", icon=":material/person_search:",
                url_path="explorer"),
        st.Page("pages/errors.py", title="Errors and perspectives", icon=":material/rule:",
                url_path="errors"),
    ],
    "Experts and training": [
        st.Page("pages/review.py", title="Case review", icon=":material/gavel:",
                url_path="review"),
        st.Page("pages/training_lab.py", title="Training lab", icon=":material/model_training:",
                url_path="training-lab"),
        st.Page("pages/lewidi.py", title="LeWiDi scorer", icon=":material/leaderboard:",
                url_path="lewidi"),
    ],
    "Help": [
        st.Page("pages/glossary.py", title="Glossary", icon=":material/menu_book:",
                url_path="glossary"),
    ],
}
st.navigation(pages).run()
