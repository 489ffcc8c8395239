"""HLV Lens: entry point. Sidebar sample picker shared by every page, and the navigation.

Uploads happen on the Overview page (pages/home.py); the dataset lives in session state
(``hlv_ui.state``) and every page reads it from there."""

from __future__ import annotations

import streamlit as st

from hlv_core import samples
from hlv_core.io import DataError
from hlv_core.text import md
from hlv_ui.auth import logout_button, require_login
from hlv_ui.loading import load_sample_cached
from hlv_ui.state import DEFAULT_SAMPLE, SOURCE_KEY, ensure_dataset, set_dataset, show_data_error

st.set_page_config(page_title="HLV Lens", page_icon="🔎", layout="wide")
require_login()  # team mode ([auth] in secrets): nothing below runs until the visitor signs in


def _switch_sample() -> None:
    try:
        set_dataset(load_sample_cached(st.session_state[SOURCE_KEY]))
    except DataError as error:
        show_data_error(error)


with st.sidebar:
    logout_button()
    st.session_state.setdefault(SOURCE_KEY, DEFAULT_SAMPLE)
    st.selectbox(
        "Sample dataset",
        list(samples.SAMPLES),
        format_func=lambda key: samples.SAMPLES[key]["title"],
        key=SOURCE_KEY,
        on_change=_switch_sample,
        help="Bundled samples cover every task type. Upload your own data on the Overview page.",
    )
    current = ensure_dataset()
    if current is not None:
        st.caption(
            f"Current: **{md(current.name)}** · {current.task} · {current.n_items:,} items · "
            f"{len(current.annotations):,} annotations"
        )

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
