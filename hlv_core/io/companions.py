"""Companion files of an upload (annotator traits, item texts, label order, LeWiDi 2025 annotator
metadata, selectors' conditions and risks): which ``load`` option a file feeds, told by its name.

The Overview page routes its companion uploads with :func:`companion_option`; the command line
names each companion with its own flag instead.
"""

from __future__ import annotations

__all__ = ["COMPANION_OPTIONS", "companion_option"]

#: ``load`` options a companion file can feed, with the word its file name must contain (checked
#: in this order; ``meta`` also needs a ``.json`` name).
COMPANION_OPTIONS = {"meta": "meta", "annotators": "annotator", "items": "item",
                     "labels": "label", "conditions": "condition", "risks": "risk"}


def companion_option(file_name: str) -> str | None:
    """The :func:`~hlv_core.io.load` option fed by a companion file called ``file_name`` (case
    ignored): ``"meta"`` for a ``.json`` whose name contains ``meta`` (LeWiDi 2025 annotator
    metadata), then the first of ``annotators, items, labels, conditions, risks`` whose word
    (singular) the name contains; None when the name says none of them."""
    name = file_name.lower()
    for option, word in COMPANION_OPTIONS.items():
        if word in name and (option != "meta" or name.endswith(".json")):
            return option
    return None
