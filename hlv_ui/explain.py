"""Plain-words explanations on the pages: one short caption per concept where it appears, the
technical details one click deeper (an expander), and links to the Glossary page.

Text comes from :mod:`hlv_core.glossary` so the app, the CLI and the HTML report name every
concept the same way."""

from __future__ import annotations

import streamlit as st

from hlv_core.glossary import Term, term

__all__ = ["explain", "explain_inline", "glossary_entry"]


def explain_inline(key: str) -> str:
    """One line for a widget ``help=`` tooltip: what it means and how to read it."""
    entry = term(key)
    return f"{entry.meaning} {entry.reading}"


def glossary_entry(entry: Term) -> None:
    """Render one entry in full (used by the Glossary page)."""
    st.markdown(f"**{entry.title}**: {entry.meaning}")
    st.markdown(f"*How to read it:* {entry.reading}")
    st.markdown(f"*Example:* {entry.example}")
    st.caption(f"How it is computed: {entry.technical}")


def explain(*keys: str, expanded: bool = False) -> None:
    """A caption with the plain meaning of each concept in ``keys`` and an expander "What do
    these mean?" holding how to read them, an example and how they are computed."""
    entries = [term(key) for key in keys]
    st.caption(" ".join(f"**{e.title}**: {e.meaning}" for e in entries))
    label = "What does this mean?" if len(entries) == 1 else "What do these mean?"
    with st.expander(label, expanded=expanded):
        for entry in entries:
            glossary_entry(entry)
        st.page_link("pages/glossary/page.py", label="All terms in the Glossary",
                     icon=":material/menu_book:")
