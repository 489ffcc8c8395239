"""What a page that needs model predictions says on data without them: where to get them."""

from __future__ import annotations

import streamlit as st

__all__ = ["predictions_hint"]


def predictions_hint(what: str) -> None:
    """An info box "``what`` needs model predictions" with links to the two ways of getting
    them: upload a predictions file on the Overview page, or train models in the Training lab
    (both add them to this session's dataset)."""
    st.info(f"{what} needs model predictions for this dataset, and it has none yet. Upload a "
            "predictions file (item_id, label, prob and a model column, or one column per "
            "label) on the Overview page, or "
            "train models on this dataset in the Training lab: either adds them to every page.",
            icon=":material/lightbulb:")
    a, b = st.columns(2)
    a.page_link("pages/home/page.py", label="Upload predictions on the Overview",
                icon=":material/upload_file:")
    b.page_link("pages/training_lab/page.py", label="Train models in the Training lab",
                icon=":material/model_training:")
