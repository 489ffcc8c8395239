"""Model groups on the pages that list model predictions: the Training lab's models (named
``"lab <method>"`` by :func:`hlv_core.lab.predictions_as_models`) arrive as one group that
can be shown or hidden with one switch, remembered across pages for the session, and notes
about coverage are written once per group, never once per model (14 methods would otherwise
fill the page with the same sentence)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import pandas as pd
import streamlit as st

from hlv_core.text import md

from .widgets import KEPT

__all__ = [
    "predictions_hint",
    "LAB_GROUP",
    "LAB_PREFIX",
    "coverage_warnings",
    "group_notes",
    "lab_models",
    "shown_predictions",
    "without_hidden",
]

#: Prefix of the Training lab's models (the name format of ``predictions_as_models``).
LAB_PREFIX = "lab "
#: Name of the group on the pages.
LAB_GROUP = "Training lab models"
#: Session key of the switch: one value for every page.
SHOW_KEY = "hlv.show_lab_models"
#: Models named in a group's note before "and N more".
_NAMED = 4


def lab_models(names: Iterable[str]) -> list[str]:
    """The Training lab models among ``names``, in their given order."""
    return [str(n) for n in names if str(n).startswith(LAB_PREFIX)]


def _remember(widget_key: str) -> None:
    st.session_state[SHOW_KEY] = bool(st.session_state[widget_key])


def shown_predictions(frame: pd.DataFrame | None, *, key: str) -> pd.DataFrame | None:
    """``frame`` (long predictions: a ``model`` column) without the Training lab models when the
    user hid them. Draws the group's switch (only when the frame has lab models); ``key`` is the
    page's namespace. The choice holds on every page of the session."""
    if frame is None or frame.empty:
        return frame
    lab = lab_models(pd.unique(frame["model"].astype(str)))
    if not lab:
        return frame
    widget_key = f"{key}.show_lab_models"
    st.session_state[widget_key] = bool(st.session_state.get(SHOW_KEY, True))
    shown = st.toggle(
        f"Show the {len(lab)} {LAB_GROUP.lower()}", key=widget_key, persist_state=KEPT,
        on_change=_remember, args=(widget_key,),
        help="Models sent from the Training lab, shown or hidden together on every page. "
             "Their test predictions cover the lab's test items only.")
    if shown:
        return frame
    rest = frame[~frame["model"].astype(str).isin(set(lab))].reset_index(drop=True)
    return rest if not rest.empty else None


def without_hidden(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """``frame`` without the Training lab models when the user hid them (no switch drawn: for
    a second view on a page that already drew it with :func:`shown_predictions`)."""
    if frame is None or frame.empty or st.session_state.get(SHOW_KEY, True):
        return frame
    rest = frame[~frame["model"].astype(str).str.startswith(LAB_PREFIX)].reset_index(drop=True)
    return rest if not rest.empty else None


def _listing(names: list[str]) -> str:
    head = ", ".join(names[:_NAMED])
    return head + (f" and {len(names) - _NAMED} more" if len(names) > _NAMED else "")


def group_notes(notes: Iterable[str], models: Iterable[str] | pd.DataFrame | None
                ) -> list[str]:
    """``notes`` with the notes about single Training lab models merged: notes that say the
    same thing about different lab models become one note naming the group. A note names its
    model verbatim (e.g. ``"lab SL: predicts 120 of 500 items (skipped)."``); notes about other
    models are kept as they are, in order. ``models``: the model names, or the predictions
    (their ``model`` column)."""
    if models is None:
        return list(notes)
    if isinstance(models, pd.DataFrame):
        models = pd.unique(models["model"].astype(str))
    lab = sorted(lab_models(models), key=len, reverse=True)  # "lab SLMV" before "lab SL"
    if not lab:
        return list(notes)
    pattern = re.compile("|".join(re.escape(n) + r"(?![\w-])" for n in lab))
    out: list[str | tuple[str, list[str]]] = []
    templates: dict[str, list[str]] = {}
    for note in notes:
        found = pattern.search(note)
        if found is None:
            out.append(note)
            continue
        template = note[:found.start()] + "\x00" + note[found.end():]
        if template not in templates:
            templates[template] = []
            out.append((template, templates[template]))
        templates[template].append(found.group(0))
    lines = []
    for entry in out:
        if isinstance(entry, str):
            lines.append(entry)
            continue
        template, names = entry
        if len(names) == 1:
            lines.append(template.replace("\x00", names[0]))
            continue
        group = f"{len(names)} {LAB_GROUP.lower()} ({_listing(names)})"
        before, after = template.split("\x00", 1)
        before = re.sub(r"\bModel\s*$", "", before)
        # the sentence now has a plural subject
        after = re.sub(r"^ (does|is|has) ", lambda m: " " + {"does": "do", "is": "are",
                                                             "has": "have"}[m.group(1)] + " ",
                       after)
        after = re.sub(r"^: (\w+s) ", r": each \1 ", after)
        lines.append((before + group + after) if before.strip() else
                     group[0].upper() + group[1:] + after)
    return lines


def coverage_warnings(covered: Mapping[str, int], n_items: int) -> list[str]:
    """One markdown warning per model scored on fewer than ``n_items`` items, except the
    Training lab models: one warning for the whole group (``covered``: model -> items
    scored)."""
    partial = {m: int(n) for m, n in covered.items() if int(n) < n_items}
    lines = [f"**{md(m)}** is scored on only {n} of {n_items} items (the others have no "
             f"prediction): its numbers describe those {n} items, not the whole dataset."
             for m, n in partial.items() if not m.startswith(LAB_PREFIX)]
    lab = {m: n for m, n in partial.items() if m.startswith(LAB_PREFIX)}
    if lab:
        low, high = min(lab.values()), max(lab.values())
        span = f"{low}" if low == high else f"{low} to {high}"
        lines.append(
            f"**{len(lab)} {LAB_GROUP.lower()}** ({md(_listing(list(lab)))}) are scored on "
            f"{span} of {n_items} items: the Training lab predicts its test items only, so "
            "their numbers describe those items, not the whole dataset.")
    return lines


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
