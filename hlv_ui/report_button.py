"""The sidebar's "Disagreement report": one click builds the self-contained HTML report of the
current dataset (:func:`hlv_core.report.build_report`, also ``python -m hlv_core report``) with a
spinner, a second click downloads it. Nothing is built until asked for; a built report is cached
on the content of the dataset and predictions."""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd
import streamlit as st

from hlv_core.io import Dataset
from hlv_core.report import build_report

from .cache import cached
from .state import frame_hash

__all__ = ["READY_KEY", "report_download", "report_file_name"]

#: Session key holding the (dataset hash, predictions hash) of the report the user built.
READY_KEY = "report.ready"


@cached(show_spinner=False, max_entries=4)
def _report_bytes(dataset: Dataset, predictions: pd.DataFrame | None) -> bytes:
    """The report's HTML as UTF-8 bytes, cached on the content of the data (not its name)."""
    return build_report(dataset, predictions).encode("utf-8")


def report_file_name(dataset: Dataset) -> str:
    """``disagreement_report_<name>.html`` with the dataset name reduced to safe characters."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(dataset.name)).strip("._") or "dataset"
    return f"disagreement_report_{name[:60]}.html"


def report_download(dataset: Dataset | None,
                    predictions: pd.DataFrame | None | Callable[[], pd.DataFrame | None]) -> None:
    """Sidebar block: a "Build disagreement report" button (spinner while it builds), then a
    download button for the HTML. A report built for other data (another dataset, new
    predictions) is not offered: the build button comes back. Does nothing without a dataset.

    ``predictions`` may be a callable (e.g. ``hlv_ui.state.get_predictions``): the sidebar runs
    on every rerun of every page, so the predictions are gathered and hashed only once a report
    is asked for or was built for this dataset."""
    if dataset is None:
        return
    st.caption("Disagreement report: one HTML file with every analysis of this dataset "
               "(works offline; for a dataset card or a case file).")
    ready = st.session_state.get(READY_KEY)
    preds, key = None, None
    if ready is not None and ready.startswith(f"{dataset.content_hash}:"):
        preds = predictions() if callable(predictions) else predictions
        key = f"{dataset.content_hash}:{frame_hash(preds)}"
    if ready is None or ready != key:
        slot = st.empty()
        if not slot.button(
                "Build disagreement report", key="report.build", icon=":material/summarize:",
                width="stretch", help="Import report, labels, agreement, pairwise heatmap, "
                "sigma and camps, contested items, certainty and model scores, as one "
                "self-contained HTML file."):
            return
        slot.empty()  # built: only the download is offered from now on
        if key is None:
            preds = predictions() if callable(predictions) else predictions
            key = f"{dataset.content_hash}:{frame_hash(preds)}"
    with st.spinner("Building the disagreement report…", show_time=True):
        data = _report_bytes(dataset, preds)
    st.session_state[READY_KEY] = key
    st.download_button(
        "Download disagreement report (HTML)", data=data, file_name=report_file_name(dataset),
        mime="text/html", key="report.download", on_click="ignore", width="stretch",
        icon=":material/download:", help="Self-contained HTML: opens offline in any browser.")
