"""Small reusable widgets: CSV downloads (formula-safe) and the seed note."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from hlv_core.text import neutralise_frame


def csv_bytes(frame: pd.DataFrame, *, index: bool = False) -> bytes:
    """UTF-8 CSV bytes of a table (the bytes every download button delivers). Text cells a
    spreadsheet would run as a formula (starting with ``= + - @``, tab or CR) get a leading
    ``'`` (OWASP); numbers stay numbers; ``hlv_core.text.restore_frame`` undoes it exactly."""
    return neutralise_frame(frame, index=index).to_csv(index=index).encode("utf-8")


def download_table(
    frame: pd.DataFrame | Callable[[], pd.DataFrame], file_name: str, *, key: str,
    label: str = "Download CSV", index: bool = False,
) -> None:
    """A CSV download button for ``frame`` that does not rerun the app. The CSV is built only
    when the button is clicked (a callable ``data``), so a page never pays for downloads nobody
    asks for. ``frame`` may be a function returning the table, so that building the table
    itself waits for the click too."""
    st.download_button(
        label,
        data=lambda: csv_bytes(frame() if callable(frame) else frame, index=index),
        file_name=file_name if file_name.endswith(".csv") else f"{file_name}.csv",
        mime="text/csv",
        key=key,
        on_click="ignore",
        icon=":material/download:",
    )


def lazy_tabs(names: list[str], *, key: str) -> dict:
    """``st.tabs`` whose hidden tabs do not run: the page reruns when the user switches tabs and
    each container's ``.open`` says whether it is shown (set ``st.session_state[key]`` to a tab
    name to open it, e.g. in tests). Widgets inside a hidden tab return to their defaults."""
    return dict(zip(names, st.tabs(names, key=key, on_change="rerun"), strict=True))
