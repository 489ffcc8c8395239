"""Old import path of :func:`~hlv_core.balance.strongest_edges` and
:func:`~hlv_core.balance.heatmap_annotators` (both now in :mod:`hlv_core.balance`)."""

from .balance import heatmap_annotators, strongest_edges

__all__ = ["heatmap_annotators", "strongest_edges"]
