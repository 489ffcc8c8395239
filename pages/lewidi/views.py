"""The LeWiDi scorer page's submissions section: editable system names (default: the zip's
folder or the file name, from :func:`hlv_core.lewidi.default_system_name`) and, per
submission, the files that were not scored with the reason (a ``res.zip`` with one bad file
still scores the others: :func:`hlv_core.lewidi.score_members`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pandas as pd
import streamlit as st

from hlv_core import lewidi
from hlv_core.io import DataError
from hlv_core.text import md
from hlv_ui.state import show_data_error
from hlv_ui.widgets import KEPT, download_table, show_table

__all__ = ["default_names", "score_submissions"]

Scorer = Callable[[str, bytes], tuple[list, list]]


def default_names(submissions: list[tuple[str, bytes]]) -> list[str]:
    """One distinct default name per submission: ``res``, ``res 2``, ... when the zips give
    nothing better."""
    names: list[str] = []
    for file_name, raw in submissions:
        base = lewidi.default_system_name(file_name, raw)
        name, k = base, 2
        while name in names:
            name, k = f"{base} {k}", k + 1
        names.append(name)
    return names


def _names(submissions: list[tuple[str, bytes]]) -> list[str]:
    """Editable system names (one text box per submission); duplicates get a number."""
    defaults = default_names(submissions)
    with st.expander("System names (shown on the leaderboard; edit to tell runs apart)",
                     expanded=True, icon=":material/edit:"):
        columns = st.columns(min(3, len(submissions)))
        chosen = []
        for i, ((file_name, raw), default) in enumerate(zip(submissions, defaults, strict=True)):
            key = f"lewidi.name.{hashlib.sha256(raw).hexdigest()[:12]}.{i}"
            typed = columns[i % len(columns)].text_input(
                f"System {i + 1} ({file_name})", value=default, key=key, persist_state=KEPT,
                max_chars=60)
            chosen.append(" ".join(typed.split()) or default)
    names: list[str] = []
    for name in chosen:
        unique, k = name, 2
        while unique in names:
            unique, k = f"{name} {k}", k + 1
        names.append(unique)
    return names


def score_submissions(submissions: list[tuple[str, bytes]], scorer: Scorer
                      ) -> list[tuple[str, list]]:
    """Score every submission with ``scorer(file name, bytes) -> (results, refusals)``; show
    the files that were not scored (per system, with the reason) and the scorer's warnings.
    Returns ``[(system name, results)]`` of the systems with at least one scored file."""
    runs, not_scored = [], []
    for system, (file_name, raw) in zip(_names(submissions), submissions, strict=True):
        try:
            results, refused = scorer(file_name, raw)
        except DataError as error:
            show_data_error(error)
            continue
        not_scored += [{"system": system, "file": r.file, "status": r.status,
                        "reason": r.reason} for r in refused]
        if results:
            runs.append((system, results))
        for r in results:
            for warning in r.warnings:
                st.warning(f"{md(system)} · {md(r.dataset)} {md(r.task)}: {md(warning)}",
                           icon=":material/warning:")
    if not_scored:
        table = pd.DataFrame(not_scored)
        bad = table[table["status"] != "ignored"]
        counts = ", ".join(f"{md(s)}: {n}" for s, n in bad.groupby("system", sort=False).size()
                           .items())
        message = (f"**{len(bad)} file(s) not scored** ({counts}); the other files of the "
                   "same zip are scored. " if len(bad) else "")
        st.warning(message + "Each file and the reason:", icon=":material/rule:")
        show_table(table, hide_index=True, width="stretch", key="lewidi.not_scored",
                   column_config={"reason": st.column_config.TextColumn(width="large")})
        download_table(table, "lewidi_files_not_scored.csv", key="lewidi.dl.not_scored",
                       label="Download the files not scored with reasons (CSV)")
    return runs
