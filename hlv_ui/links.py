"""Links into the "Items and annotators" page (``pages/explorer/page.py``): open an item, an
annotator or an annotator pair from any page, and the shareable URL of what is open.

Query parameters (the page's public URL contract): ``item=<item id>``, ``annotator=<id>``,
``with=<other annotator id>`` (a pair, shown in the first annotator's profile) and
``dataset=<dataset name>`` (a bundled sample's name opens that sample when the link starts a new
session, :func:`hlv_ui.state.apply_dataset_link`; otherwise informative: named when an id is not
in the loaded data)."""

from __future__ import annotations

from typing import NoReturn
from urllib.parse import urlencode

import streamlit as st

__all__ = ["EXPLORER", "EXPLORER_PATH", "VIEW_PARAMS", "explorer_link", "explorer_params",
           "open_explorer", "share_url"]

EXPLORER = "pages/explorer/page.py"
#: The page's ``url_path`` in ``app.py``.
EXPLORER_PATH = "explorer"


#: The query parameters of an explorer view (the page's settings have their own, see
#: ``hlv_ui.widgets.SETTING``).
VIEW_PARAMS = ("item", "annotator", "with", "dataset")


def explorer_params(*, item: str | None = None, annotator: str | None = None,
                    other: str | None = None, dataset: str | None = None) -> dict[str, str]:
    """The query parameters of one explorer view (None values left out)."""
    params = {"item": item, "annotator": annotator, "with": other, "dataset": dataset}
    return {k: str(v) for k, v in params.items() if v is not None}


def open_explorer(**params: str | None) -> NoReturn:
    """Switch to the explorer showing ``explorer_params(**params)`` (stops this page's run)."""
    st.switch_page(EXPLORER, query_params=explorer_params(**params))


def explorer_link(label: str, *, icon: str = ":material/open_in_new:",
                  **params: str | None) -> None:
    """A link to the explorer view ``explorer_params(**params)``. ``label`` is markdown: escape
    user strings in it (``hlv_core.text.md``)."""
    st.page_link(EXPLORER, label=label, icon=icon, query_params=explorer_params(**params))


def share_url(params: dict[str, str]) -> str:
    """The full URL of the explorer view ``params`` as the browser sees the app (falls back to
    a relative URL when the browser's address is unknown, e.g. in tests)."""
    base = (st.context.url or "").removesuffix("/")
    base = base.removesuffix("/" + EXPLORER_PATH)
    query = urlencode(params)
    return f"{base}/{EXPLORER_PATH}" + (f"?{query}" if query else "")
