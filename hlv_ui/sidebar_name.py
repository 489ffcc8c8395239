"""The dataset's name in the sidebar at laptop widths: a long name is cut cleanly with an
ellipsis (never mid-glyph at the box's edge, never broken over three lines) and the full name
shows on hover.

* The Dataset box: its text field ends in an ellipsis instead of being clipped (CSS).
* The "In use" line: the name on one line, cut with an ellipsis, its full text in the
  ``title`` (a tooltip); the task and counts follow on the next line when needed.
User strings: markdown-escaped with :func:`hlv_core.text.md` in the text, HTML-escaped in the
attribute, so a name is shown exactly as typed and never becomes markup."""

from __future__ import annotations

import html

import streamlit as st

from hlv_core.text import md, visible_controls

__all__ = ["SIDEBAR_CSS", "dataset_box_style", "in_use_caption", "in_use_markdown"]

#: The Dataset box's text ends in an ellipsis; the in-use name stays on one line.
SIDEBAR_CSS = (
    "<style>"
    '[data-testid="stSidebar"] [data-testid="stSelectbox"] input[role="combobox"]'
    "{text-overflow:ellipsis;white-space:nowrap;overflow:hidden}"
    '[data-testid="stSidebar"] .hlv-in-use-name{display:inline-block;max-width:100%;'
    "overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}"
    "</style>"
)


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
