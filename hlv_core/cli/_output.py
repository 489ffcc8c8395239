"""The command line's one JSON writer and one error line.

JSON has no NaN or infinity: every non-finite number becomes ``null``. Undefined numbers are
never silent: :func:`write_json` adds a ``null_reasons`` entry to an object payload that names
why a value can be null (callers pass the engine's notes, e.g.
:func:`hlv_core.soft_metrics.undefined_notes`). Numpy and pandas scalars become plain Python
values, timestamps ISO strings, tuples lists.

Control characters: :func:`hlv_core.cli.main` writes every command's output through
:class:`ControlFreeStream`, which drops terminal escape sequences and other control characters
(:func:`hlv_core.text.strip_controls`), so names in the data are printed as text, never as
terminal commands; JSON is unaffected because ``json.dumps`` escapes control characters. Every
string written as JSON also passes through :data:`TEXT_HOOK` (the identity unless a caller
installs another function with :func:`set_text_hook`).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

import numpy as np
import pandas as pd

from ..text import neutralise_frame, strip_controls

__all__ = [
    "TEXT_HOOK",
    "ControlFreeStream",
    "error_line",
    "jsonable",
    "records",
    "set_text_hook",
    "write_json",
]


def _identity(text: str) -> str:
    return text


#: Applied to every string written (keys and values). Identity by default.
TEXT_HOOK: Callable[[str], str] = _identity


def set_text_hook(hook: Callable[[str], str] | None) -> None:
    """Install the function every written string passes through (None: the identity)."""
    global TEXT_HOOK
    TEXT_HOOK = _identity if hook is None else hook


class _Counter:
    def __init__(self) -> None:
        self.nulls = 0


def _convert(value: Any, counter: _Counter) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return TEXT_HOOK(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if math.isfinite(float(value)):
            return float(value)
        counter.nulls += 1
        return None
    if isinstance(value, Mapping):
        return {TEXT_HOOK(str(k)): _convert(v, counter) for k, v in value.items()}
    if isinstance(value, pd.DataFrame):
        return [_convert(r, counter) for r in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return _convert(value.to_dict(), counter)
    if isinstance(value, np.ndarray):
        return [_convert(v, counter) for v in value.tolist()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_convert(v, counter) for v in value]
    if isinstance(value, pd.Timestamp):
        return TEXT_HOOK(value.isoformat())
    if value is pd.NA or value is pd.NaT:
        counter.nulls += 1
        return None
    return TEXT_HOOK(str(value))


def jsonable(value: Any) -> Any:
    """``value`` with every part JSON can hold: NaN / inf / ``pd.NA`` -> None, numpy scalars ->
    Python scalars, DataFrames -> lists of records, arrays and tuples -> lists, other objects ->
    ``str``; every string through :data:`TEXT_HOOK`."""
    return _convert(value, _Counter())


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-ready dicts (:func:`jsonable`)."""
    return _convert(frame, _Counter())


def write_json(payload: Any, *, stream: TextIO | None = None, indent: int = 2,
               null_reasons: Iterable[str] = ()) -> int:
    """Print ``payload`` as JSON (:func:`jsonable`) followed by a newline; returns the number of
    values written as ``null`` because they were NaN/infinite/missing.

    When that number is positive and ``payload`` is a mapping, the key ``null_reasons`` (a list
    of strings: the given ``null_reasons``, or a generic sentence when none is given) is added so
    that a reader of the file learns why; lists are written as they are (put the reasons in a
    ``note`` column)."""
    counter = _Counter()
    clean = _convert(payload, counter)
    if counter.nulls and isinstance(clean, dict) and "null_reasons" not in clean:
        reasons = [TEXT_HOOK(r) for r in null_reasons] or [
            "null = the value is undefined (NaN: e.g. 0/0 or too few items) or infinite."]
        clean["null_reasons"] = reasons
    print(json.dumps(clean, indent=indent), file=stream if stream is not None else sys.stdout)
    return counter.nulls


def error_line(error: BaseException) -> str:
    """The one line the CLI prints for an input error (``error: <message>``), newlines folded
    into spaces so a pipeline reading stderr gets one line per failure."""
    text = " ".join(str(error).split())
    return TEXT_HOOK(f"error: {text}")


class ControlFreeStream:
    """A text stream that drops terminal escape sequences and control characters (not
    newline / tab) from everything written to it: names in the data are printed as text,
    never as terminal commands. JSON output is unaffected (``json.dumps`` escapes controls)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(strip_controls(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def write_csv(frame: pd.DataFrame, path) -> None:
    """Write a result table as CSV for people (spreadsheets): every text cell a spreadsheet would
    run as a formula is neutralised (:func:`hlv_core.text.neutralise_frame`; OWASP "CSV
    injection"), numbers stay numbers. Not for data files meant to be loaded again."""
    neutralise_frame(frame).to_csv(path, index=False)
