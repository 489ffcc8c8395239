"""The 14 HLV training methods of Kurniawan et al. (section 4, Table 3): one public door.

* :mod:`hlv_core.targets` builds what each method trains on (pure data transformations);
* :mod:`hlv_core.lab` trains a fast linear text model with each method and compares them
  (sections 4-5).

This module re-exports both so that ``hlv_core.training.METHODS`` and
``hlv_core.training.run_lab`` stay where users expect them; it has no code of its own.
"""

from __future__ import annotations

from .lab import run_lab
from .targets import (
    METHOD_INFO,
    METHODS,
    ae_targets,
    al_targets,
    annotation_matrix,
    annotator_ranking_weights,
    ar_targets,
    ensemble,
    la_selection,
    la_targets,
    method_targets,
    mv_targets,
    rel_targets,
    sl_targets,
    slmv_targets,
)

__all__ = [
    "METHODS",
    "METHOD_INFO",
    "ae_targets",
    "al_targets",
    "annotation_matrix",
    "annotator_ranking_weights",
    "ar_targets",
    "ensemble",
    "la_selection",
    "la_targets",
    "method_targets",
    "mv_targets",
    "rel_targets",
    "run_lab",
    "sl_targets",
    "slmv_targets",
]
