"""Old import path of :func:`~hlv_core.io.item_level_predictions` and
:func:`~hlv_core.io.model_matrices` (both now live in :mod:`hlv_core.io.predictions`)."""

from .predictions import item_level_predictions, model_matrices

__all__ = ["item_level_predictions", "model_matrices"]
