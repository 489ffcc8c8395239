"""Model predictions on the pages that score them: where to get them when the data has none
(upload on the Overview, or train models in the Training lab, as links), an uploader that adds
them to the session, and a model picker that keeps the user's choice across uploads."""

from __future__ import annotations

import streamlit as st

from hlv_core.io import DataError, load_predictions
from hlv_core.text import md
from hlv_ui.state import add_predictions, renamed_note, show_data_error
from hlv_ui.widgets import SETTING

__all__ = ["choose_models", "how_to_get_predictions", "upload_predictions"]


def how_to_get_predictions(what: str = "This dataset has no model predictions yet.") -> None:
    """An info box saying how to get predictions, with links to the Overview and Training lab."""
    st.info(f"{what} Upload a predictions file with the data on the Overview (or here, where "
            "the page offers it), or train models in the Training lab and send them to the "
            "other pages.", icon=":material/info:")
    left, right = st.columns(2)
    left.page_link("pages/home/page.py", label="Overview: upload data with predictions",
                   icon=":material/upload:")
    right.page_link("pages/training_lab/page.py", label="Training lab: train models",
                    icon=":material/model_training:")


def upload_predictions(dataset, *, key: str) -> None:
    """A predictions uploader (CSV: item_id, label, prob[, model]); valid files are added to
    the session's predictions, errors shown as one clear message."""
    upload = st.file_uploader(
        "Add predictions (CSV: item_id, label, prob[, model]; or one column per label)",
        type=["csv", "tsv", "txt", "parquet"], key=key,
        help="Multiclass rows must sum to 1. Labels must be the dataset's labels.",
    )
    if upload is None:
        return
    try:
        frame = load_predictions(upload.getvalue(), dataset, name=upload.name)
    except DataError as error:
        show_data_error(error)
        return
    renamed = add_predictions(frame)
    if renamed:
        st.warning(renamed_note(renamed))
    st.success(f"Added predictions of {frame['model'].nunique()} model(s) from "
               f"{md(upload.name)}.")


def choose_models(available: list[str], *, key: str) -> list[str]:
    """A model multiselect under ``key``: the user's choice is kept when models are added, and
    newly available models (e.g. just uploaded) are selected automatically.

    The choice is also remembered outside the widget (``<key>.chosen``): Streamlit forgets a
    widget's value when the browser did not report it (a tab clicked before the multiselect
    was drawn, on a busy machine), and the remembered choice then comes back instead of an
    empty selection."""
    known_key, chosen_key = f"{key}.known", f"{key}.chosen"
    known = st.session_state.get(known_key, [])
    if key not in st.session_state or set(available) != set(known):
        previous = st.session_state.get(key, st.session_state.get(chosen_key, []))
        kept = [m for m in previous if m in available]
        st.session_state[key] = kept + [m for m in available if m not in known and m not in kept]
        st.session_state[known_key] = available
    chosen = st.multiselect("Models", available, key=key, **SETTING,
                            help="Each model's predictions are scored against the annotators.")
    st.session_state[chosen_key] = list(chosen)
    return chosen
