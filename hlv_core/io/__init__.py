"""Data layer: load every common HLV format into one validated :class:`Dataset`.

Public API: :func:`load`, :class:`Dataset`, :class:`DataError`, :class:`ImportReport`,
:func:`load_predictions`, :func:`load_lewidi_submission`, :func:`prediction_matrix`,
:func:`item_level_predictions`, :func:`model_matrices`,
:data:`FORMATS`; raw-input helpers for readers outside this package (the LeWiDi scorer):
:class:`Source`, :func:`as_source`, :func:`decode_text`, :func:`parse_json`; the one spelling
rule of labels and ids (:func:`normalise_spelling`, :func:`spelling_changes` over distinct
values, :func:`decimal_comma_labels`) for loaders outside this package.
"""

from ._read import (
    InflateBudget,
    Source,
    as_source,
    check_parse_memory,
    decode_text,
    open_zip,
    parse_json,
    read_member,
)
from .dataset import LEVELS, MISSING_SPELLINGS, TASKS, Dataset, build_dataset, order_labels
from .errors import DataError, ImportReport
from .lewidi_submission import load_lewidi_submission
from .limits import LIMITS, check_limit, limit
from .loading import (
    COMPANION_OPTIONS,
    FORMATS,
    companion_option,
    detect_format,
    load,
    load_table,
    load_traits,
    route_companions,
)
from .predictions import (
    item_level_predictions,
    load_predictions,
    model_matrices,
    prediction_matrix,
)
from .spelling import decimal_comma_labels, normalise_spelling, spelling_changes

__all__ = [
    "InflateBudget",
    "LIMITS",
    "check_limit",
    "check_parse_memory",
    "limit",
    "open_zip",
    "read_member",
    "COMPANION_OPTIONS",
    "companion_option",
    "FORMATS",
    "LEVELS",
    "MISSING_SPELLINGS",
    "Source",
    "TASKS",
    "DataError",
    "Dataset",
    "ImportReport",
    "as_source",
    "build_dataset",
    "decimal_comma_labels",
    "decode_text",
    "detect_format",
    "item_level_predictions",
    "load",
    "load_lewidi_submission",
    "load_predictions",
    "load_table",
    "load_traits",
    "model_matrices",
    "normalise_spelling",
    "order_labels",
    "parse_json",
    "prediction_matrix",
    "route_companions",
    "spelling_changes",
]
