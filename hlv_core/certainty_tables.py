"""Old import path of the Certainty page's small tables (Stutz et al.), which now live in
:mod:`hlv_core.certainty`."""

from .certainty import (
    PL_MAX_RELIABILITY,
    case_summary,
    pl_reliability_allowed,
    rank_predictors,
    set_coverage,
)

__all__ = [
    "PL_MAX_RELIABILITY",
    "case_summary",
    "pl_reliability_allowed",
    "rank_predictors",
    "set_coverage",
]
