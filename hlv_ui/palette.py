"""One colour per model across the whole app: the first time a session shows a model it gets the
next free colour of a 24-colour qualitative palette, and keeps it on every page and figure.

Training-lab methods (the 14 of Kurniawan et al.) have fixed colours so that screenshots of two
sessions match."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping

import plotly.express as px
import streamlit as st

from hlv_core.targets import METHODS

__all__ = ["PALETTE", "assign_colours", "method_colours", "model_colours"]

#: 24 distinguishable colours (plotly's Dark24), then 24 lighter ones (Light24): 48 models
#: before a colour repeats.
PALETTE: tuple[str, ...] = tuple(px.colors.qualitative.Dark24) + tuple(px.colors.qualitative.Light24)
_REGISTRY_KEY = "hlv.model_colours"


def assign_colours(names: Iterable[str], registry: MutableMapping[str, str]) -> dict[str, str]:
    """Colours of ``names`` from ``registry``; names not yet in it get the next palette colour
    (in the order given) and are added. Pure function of its inputs (testable without Streamlit)."""
    out = {}
    for name in names:
        if name not in registry:
            registry[name] = PALETTE[len(registry) % len(PALETTE)]
        out[name] = registry[name]
    return out


def model_colours(names: Iterable[str]) -> dict[str, str]:
    """``{model name: colour}`` for plotly's ``color_discrete_map``, stable for the session."""
    registry = st.session_state.setdefault(_REGISTRY_KEY, {})
    return assign_colours([str(n) for n in names], registry)


def method_colours() -> dict[str, str]:
    """Fixed colour per training method abbreviation (paper order)."""
    return {method: PALETTE[i] for i, method in enumerate(METHODS)}
