"""The JSON family's door: :func:`read` dispatches to the reader of each JSON format (one module
per format: :mod:`~hlv_core.io.lewidi_json` for LeWiDi 2023/2025, :mod:`~hlv_core.io.chaosnli`,
:mod:`~hlv_core.io.labelstudio`, :mod:`~hlv_core.io.prodigy`; shared helpers and detection in
the private :mod:`hlv_core.io._json`). Every name importable from here before the split still is.
"""

from __future__ import annotations

from ._json import SOFT_LABEL_TOLERANCE, detect_json, detect_jsonl
from ._read import Source
from .chaosnli import read_chaosnli
from .dataset import Dataset
from .errors import DataError
from .labelstudio import read_labelstudio
from .lewidi_json import read_annotator_meta, read_lewidi2023, read_lewidi2025
from .prodigy import read_prodigy

__all__ = [
    "detect_json",
    "detect_jsonl",
    "read",
    "read_lewidi2023",
    "read_lewidi2025",
    "read_chaosnli",
    "read_labelstudio",
    "read_prodigy",
    "read_annotator_meta",
    "SOFT_LABEL_TOLERANCE",
]


# --------------------------------------------------------------------------- dispatch
_OPTIONS = {
    "lewidi2023": ("view",),
    "lewidi2025": ("meta",),
    "chaosnli": (),
    "labelstudio": ("control",),
    "prodigy": (),
}


def read(
    format_name: str,
    source: Source,
    *,
    task: str | None = None,
    level: str | None = None,
    **options,
) -> Dataset:
    r"""Read ``source`` (:class:`~hlv_core.io._read.Source`) in one of the JSON formats.

    ``format_name``: ``lewidi2023`` (option ``view``), ``lewidi2025`` (option ``meta``: path,
    bytes or dict of ``*_annotators_meta.json``), ``chaosnli``, ``labelstudio`` (option
    ``control``), ``prodigy``. Options that do not apply to the format and are not ``None``
    are noted in the report (they are ignored, so a generic UI can pass every option).

    Parameters
    ----------
    format_name : str
        ``"lewidi2023"``, ``"lewidi2025"``, ``"chaosnli"``, ``"labelstudio"`` or ``"prodigy"``.
    source : Source
        The JSON / JSON Lines file.
    task, level : str, optional
        Override the inferred task and level of measurement.
    **options
        Format options (``view``, ``meta``, ``control``); inapplicable non-None options are
        noted in the report.

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, record and fix for every problem.

    References
    ----------
    .. [1] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> line = b'{"uid": "p1", "label_counter": {"e": 3, "n": 1}}\n'
    >>> dataset = read("chaosnli", as_source(line, "chaosnli.jsonl"), control="sentiment")
    >>> dataset.n_items, len(dataset.report.notes) > 0
    (1, True)
    """
    if format_name not in _OPTIONS:
        raise DataError(
            f"{format_name!r} is not a JSON format.",
            source=source.name,
            fix=f"use one of {sorted(_OPTIONS)}.",
        )
    allowed = _OPTIONS[format_name]
    used = {k: v for k, v in options.items() if k in allowed and v is not None}
    ignored = sorted(k for k, v in options.items() if k not in allowed and v is not None)
    if format_name == "lewidi2023":
        dataset = read_lewidi2023(source, task=task, level=level, **used)
    elif format_name == "lewidi2025":
        dataset = read_lewidi2025(source, task=task, level=level, **used)
    elif format_name == "chaosnli":
        dataset = read_chaosnli(source, task=task, level=level)
    elif format_name == "labelstudio":
        dataset = read_labelstudio(source, task=task, level=level, **used)
    else:
        dataset = read_prodigy(source, task=task, level=level)
    dataset.report.format = format_name  # the note names the format
    dataset.report.ignore_options(ignored)
    return dataset
