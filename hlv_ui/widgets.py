"""Small reusable widgets: tables shown with user strings made visible, CSV downloads
(formula-safe), lazy tabs, and the dataset's name in the sidebar (a long name cut cleanly with
an ellipsis, whole on hover; markdown-escaped in the text, HTML-escaped in the attribute)."""

from __future__ import annotations

import html
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from hlv_core.text import md, neutralise_frame, visible_controls, visible_frame, visible_labels


def _visible(frame: pd.DataFrame) -> pd.DataFrame:
    """``visible_frame`` plus text index and column labels (numbers and positions unchanged)."""
    out = visible_frame(frame)
    for axis in ("index", "columns"):
        labels = getattr(out, axis)
        shown = visible_labels(labels)
        if shown is not labels:
            out = out.set_axis(shown, axis=axis)
    return out


def show_table(data, *, where=None, **kwargs):
    """``st.dataframe`` (or ``where.dataframe``, e.g. a column) for every table a page shows: user
    strings in cells, index and header are data, so control and bidi characters appear as
    ``<U+XXXX>`` instead of reordering the text (a Styler keeps its formats). Returns what
    ``st.dataframe`` returns (the selection event when ``on_select`` is set)."""
    if isinstance(data, Styler):
        data.data = _visible(data.data)
        data.index, data.columns = data.data.index, data.data.columns
    elif isinstance(data, pd.Series):
        data = _visible(data.to_frame()).iloc[:, 0]
    elif isinstance(data, pd.DataFrame):
        data = _visible(data)
    return (where or st).dataframe(data, **kwargs)


def fmt_num(x: float | None, missing: str = "n/a") -> str:
    """A score with 3 decimals, or ``missing`` when it is None, NaN or infinite."""
    return missing if x is None or not np.isfinite(x) else f"{x:.3f}"


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
    name to open it, e.g. in tests). Widgets inside a hidden tab keep their values (they are
    drawn with ``**SETTING``). The open tab is remembered too: a user who comes back from
    another page finds the tab they left (Streamlit would open the first one); and it is written
    into the address like a setting (``?<key>=<tab name>``), so a link opens that tab."""
    kept = f"{key}.kept"
    if key not in st.session_state and st.session_state.get(kept) in names:
        st.session_state[key] = st.session_state[kept]
    tabs = dict(zip(names, st.tabs(names, key=key, on_change="rerun", bind=SETTING["bind"]),
                    strict=True))
    st.session_state[kept] = st.session_state.get(key)
    return tabs


#: The Dataset box's text ends in an ellipsis; the in-use name stays on one line.
SIDEBAR_CSS = (
    "<style>"
    '[data-testid="stSidebar"] [data-testid="stSelectbox"] input[role="combobox"]'
    "{text-overflow:ellipsis;white-space:nowrap;overflow:hidden}"
    '[data-testid="stSidebar"] .hlv-in-use-name{display:inline-block;max-width:100%;'
    "overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}"
    "</style>"
)


#: ``persist_state`` of every setting a page draws: Streamlit keeps the value while the widget
#: is not drawn (the user is on another page, or the widget's tab is closed) and gives it back
#: when the user returns, instead of the default. A kept value the widget can no longer take
#: (another dataset's options or bounds) falls back to the default; sliders whose bounds follow
#: the data call :func:`forget_outside` first.
KEPT = "session"

#: Keyword arguments of every setting a page draws (``st.selectbox(..., key=..., **SETTING)``):
#: kept for the session (:data:`KEPT`), and written into the page's address while it differs
#: from its default (Streamlit's ``bind="query-params"``, the widget's key naming the query
#: parameter: ``/agreement?agreement.level=interval``). A reload, a bookmark or a shared link
#: then opens the same view; a value the widget cannot take (an option that is not there, a
#: number out of bounds) is ignored and dropped from the address. Widgets that describe this
#: session's own files or models, or a name being typed, are kept but not written (listed with
#: the reason in ``tests/test_widgets_settings_kept.py``).
SETTING: dict[str, str] = {"persist_state": KEPT, "bind": "query-params"}


def forget_outside(key: str, low: float, high: float) -> None:
    """Drop the kept value of slider ``key`` when it lies outside ``[low, high]`` (bounds that
    follow the data, e.g. after the user switched datasets on another page): the slider then
    starts at its default. Streamlit would otherwise refuse the kept value with an exception
    (a selectbox, multiselect, select slider or number input resets by itself)."""
    value = st.session_state.get(key)
    if value is None:
        return
    values = value if isinstance(value, (list, tuple)) else [value]
    try:
        inside = all(low <= v <= high for v in values)
    except TypeError:
        inside = False
    if not inside:
        del st.session_state[key]


def forget_for_other_data(key: str, data: str, default: object) -> None:
    """Set setting ``key`` back to ``default`` when its value was chosen for other data than
    ``data`` (e.g. a dataset's content hash): a setting whose default follows the data (the
    level of measurement, the prior of the model that suits the data) then starts at the new
    dataset's default instead of carrying a choice made for another dataset. The default is
    written through the Session State API, not by deleting the value: the browser keeps showing
    a widget's old value when only the server forgets it (same widget, same page), and the page
    would then compute with another value than the one on screen. Call it before drawing the
    widget; it records ``data`` for the next run. A value set before the first run (a test, a
    link) is kept."""
    owner = f"{key}.data"
    chosen_for = st.session_state.get(owner)
    if chosen_for is not None and chosen_for != data and key in st.session_state:
        st.session_state[key] = default
    st.session_state[owner] = data


#: The session-state key of :func:`run_marker`'s count of the app's runs.
RUN_COUNT_KEY = "_hlv_runs"


def run_marker() -> None:
    """Number this run of the whole app in a hidden element, ``<span data-hlv-run="N">``,
    drawn before anything else. A browser test that clicked something knows the click's run
    has finished when the number changed and the app reports ``notRunning``: the number comes
    after the run's "running" status, so the two never mix an old run with a new one (the
    address and the status alone do, as Streamlit sends a page's address before its status).
    Hidden by its own style: it takes no space and a person never sees it."""
    runs = int(st.session_state.get(RUN_COUNT_KEY, 0)) + 1
    st.session_state[RUN_COUNT_KEY] = runs
    with st.container(key="hlv_run_marker"):
        st.html(f'<style>.st-key-hlv_run_marker{{display:none}}</style>'
                f'<span data-hlv-run="{runs}"></span>')


def dataset_box_style() -> None:
    """Add :data:`SIDEBAR_CSS` to the page (a style element only: it takes no space)."""
    st.html(SIDEBAR_CSS)


def in_use_markdown(name: str, task: str, n_items: int, n_annotations: int) -> str:
    """The in-use line as markdown with one ``<span>``: the name markdown-escaped in the text,
    HTML-escaped in the ``title``."""
    title = html.escape(visible_controls(name), quote=True)
    return (f'In use: <span class="hlv-in-use-name" title="{title}">**{md(name)}**</span>'
            f" · {task} · {n_items:,} items · {n_annotations:,} annotations")


def in_use_caption(dataset) -> None:
    """``In use: <name> · <task> · <n> items · <m> annotations`` under the Dataset box, the
    name cut with an ellipsis when it is wider than the sidebar and whole on hover."""
    st.caption(in_use_markdown(str(dataset.name), dataset.task, dataset.n_items,
                               len(dataset.annotations)), unsafe_allow_html=True)
