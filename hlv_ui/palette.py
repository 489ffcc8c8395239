"""One colour per model across the whole app: the first time a session shows a model it gets the
first palette colour no other model of the session has, and keeps it on every page and figure.

Training-lab methods (the 14 of Kurniawan et al.) have fixed colours so that screenshots of two
sessions match; a Training lab model sent on to the other pages ("lab SL") keeps its method's
colour there unless another model of the session already has that colour."""

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
LAB_PREFIX = "lab "  # hlv_core.lab.predictions_as_models names its models "lab <METHOD>"


def assign_colours(names: Iterable[str], registry: MutableMapping[str, str]) -> dict[str, str]:
    """Colours of ``names`` from ``registry``; a name not yet in it gets its method's colour
    (``"lab SL"`` -> the colour of SL, when free), else the first palette colour no registered
    name has (colours repeat only past 48 models), and is added. Pure function of its inputs."""
    methods = method_colours()
    out = {}
    for name in names:
        if name not in registry:
            used = set(registry.values())
            preferred = methods.get(name.removeprefix(LAB_PREFIX)) if name.startswith(
                LAB_PREFIX) else None
            free = [c for c in PALETTE if c not in used]
            if preferred is not None and preferred not in used:
                registry[name] = preferred
            else:
                registry[name] = free[0] if free else PALETTE[len(registry) % len(PALETTE)]
        out[name] = registry[name]
    return out


def model_colours(names: Iterable[str]) -> dict[str, str]:
    """``{model name: colour}`` for plotly's ``color_discrete_map``, stable for the session."""
    registry = st.session_state.setdefault(_REGISTRY_KEY, {})
    return assign_colours([str(n) for n in names], registry)


def method_colours() -> dict[str, str]:
    """Fixed colour per training method abbreviation (paper order)."""
    return {method: PALETTE[i] for i, method in enumerate(METHODS)}
