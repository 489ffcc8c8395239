"""Old import path of the PERSEVAL comparison helpers, which now live in
:mod:`hlv_core.perspectivist` (``evaluation``: headline table, worst groups; ``baselines``:
item-level predictions per user)."""

from .perspectivist import (
    headline_label,
    headline_table,
    item_predictions_per_user,
    worst_groups,
)

__all__ = ["headline_label", "headline_table", "item_predictions_per_user", "worst_groups"]
