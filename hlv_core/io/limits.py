"""The limits of every file and zip HLV Lens reads, and how to raise them.

Every entry point (the dataset loader, predictions, the LeWiDi scorer's gold, submissions and
Codabench ``res.zip``, review imports, command-line paths and uploads) reads bytes through
the one bounded reader of :mod:`hlv_core.io` (``as_source``, the zip reader, the parsers), so
one limit holds everywhere. Each refusal names the limit and the environment variable that
raises it (set it before ``streamlit run`` or the command):

=========================  ======================  =========================================
limit                      environment variable    default
=========================  ======================  =========================================
size of one file           ``HLV_MAX_FILE_MB``     1024 MiB
members of a zip           ``HLV_MAX_ZIP_MEMBERS`` 1000
bytes a zip inflates to    ``HLV_MAX_INFLATED_MB`` 1024 MiB
memory parsing will need   ``HLV_MAX_PARSE_MB``    4096 MiB (estimated before parsing)
annotator pairs            ``HLV_MAX_PAIRS``       5 M pairs (pair tables, matrices)
=========================  ======================  =========================================

Uploads through the app are also capped by Streamlit's ``server.maxUploadSize``
(``.streamlit/config.toml``, MiB).
"""

from __future__ import annotations

import os

from .errors import DataError

__all__ = ["LIMITS", "check_limit", "limit"]

#: ``key -> (environment variable, default, unit)``; unit ``"MiB"`` values are bytes / 2**20.
LIMITS: dict[str, tuple[str, int, str]] = {
    "file": ("HLV_MAX_FILE_MB", 1024, "MiB"),
    "zip_members": ("HLV_MAX_ZIP_MEMBERS", 1000, "members"),
    "inflated": ("HLV_MAX_INFLATED_MB", 1024, "MiB"),
    "parse": ("HLV_MAX_PARSE_MB", 4096, "MiB"),
    "pairs": ("HLV_MAX_PAIRS", 5_000_000, "pairs"),
}


def limit(key: str) -> int:
    """The limit in force for ``key`` (a key of :data:`LIMITS`).

    The environment variable when set to a positive number, else the default.

    Parameters
    ----------
    key : str
        ``"file"``, ``"zip_members"``, ``"inflated"``, ``"parse"`` or ``"pairs"``.

    Returns
    -------
    int
        Bytes for MiB limits, else a count.

    Raises
    ------
    KeyError
        Unknown key.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HLV_MAX_ZIP_MEMBERS": "50", "HLV_MAX_FILE_MB": "2"}):
    ...     print(limit("zip_members"), limit("file"))
    50 2097152
    """
    variable, default, unit = LIMITS[key]
    raw = os.environ.get(variable, "").strip()
    try:
        value = float(raw) if raw else float(default)
    except ValueError:
        value = float(default)
    if value <= 0:
        value = float(default)
    return int(value * (1 << 20)) if unit == "MiB" else int(value)


def _shown(key: str, amount: float) -> str:
    unit = LIMITS[key][2]
    if unit == "MiB":
        return f"{amount / 2**20:,.0f} MiB"
    return f"{amount:,.0f} {unit}"


def check_limit(key: str, amount: float, *, what: str, source: str, fix: str = "") -> None:
    """Refuse an amount over a limit, naming the amount, the limit and how to raise it.

    Parameters
    ----------
    key : str
        A key of :data:`LIMITS`.
    amount : float
        Bytes, members or pairs.
    what : str
        What is measured, in words (starts the message).
    source : str
        File name for the message.
    fix : str, default ""
        What else the user can do (the message adds how to raise the limit).

    Returns
    -------
    None
        Nothing when ``amount`` is within the limit.

    Raises
    ------
    DataError
        ``amount`` exceeds the limit.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HLV_MAX_ZIP_MEMBERS": "50"}):
    ...     check_limit("zip_members", 40, what="the zip has", source="res.zip")
    ...     check_limit("zip_members", 80, what="the zip has", source="res.zip")
    Traceback (most recent call last):
    hlv_core.io.errors.DataError: file 'res.zip': the zip has 80 members, over the limit of 50 members (HLV_MAX_ZIP_MEMBERS). How to fix: Raise the limit: set the environment variable HLV_MAX_ZIP_MEMBERS=89 before starting the app or the command (if the machine has the memory).
    """
    allowed = limit(key)
    if amount <= allowed:
        return
    variable, _, unit = LIMITS[key]
    suggestion = amount / 2**20 if unit == "MiB" else amount
    raise DataError(
        f"{what} {_shown(key, amount)}, over the limit of {_shown(key, allowed)} "
        f"({variable}).",
        source=source,
        fix=(fix + " Or raise the limit: " if fix else "Raise the limit: ")
        + f"set the environment variable {variable}={int(suggestion * 1.1) + 1} before "
        "starting the app or the command (if the machine has the memory).",
    )
