"""Spellings a person cannot tell apart: one value, one spelling.

A label or id typed on two machines can differ in ways no one sees on screen: Unicode
composition (``café`` as one code point ``é`` (NFC) or as ``e`` + combining accent (NFD)), an
invisible format character (zero-width space U+200B, soft hyphen U+00AD, a byte-order mark,
left-to-right marks), or a run of spaces / a tab / a no-break space inside the text. These are
certainly the same value, so every reader maps them to one spelling: Unicode NFC, format
characters (general category ``Cf``) removed, every run of whitespace one space, surrounding
whitespace removed (:func:`normalise_spelling`). The readers report what was merged.

A rating written with a decimal comma (``1,5`` beside ``1.5``) is *ambiguous* (one and a half?
the labels 1 and 5? a thousands separator?): it is refused, never guessed
(:func:`decimal_comma_labels`).

The rules are applied to the distinct values (a dictionary, e.g. a Categorical's categories),
never row by row: :func:`spelling_changes` returns ``{spelling: normal spelling}`` for the
values that change, which a caller gathers to rows by integer code. A scale-out loader (Dask,
one block at a time) applies the same function to each block's distinct values.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from .errors import DataError

__all__ = [
    "decimal_comma_labels",
    "describe_change",
    "normalise_spelling",
    "respell_unique",
    "respelling_candidates",
    "spelling_changes",
]

_SPACE_RUN = re.compile(r"\s+")
#: A plain-ASCII value needs work only when it holds whitespace other than single inner spaces:
#: a whitespace character other than the space (Python's ``\s`` on ASCII: ``\t \n \v \f \r``
#: and the separators ``\x1c``-``\x1f``), two spaces in a row, or a space at either end. Written
#: without ``\s`` so that pyarrow's RE2 engine (whose ``\s`` lacks ``\v`` and ``\x1c``-``\x1f``)
#: and Python's ``re`` read it alike.
_ASCII_SUSPECT = r"[\t-\r\x1c-\x1f]|  |^ | $"
#: ``1,5`` / ``-0,25``: a number written with a decimal comma (not ``1,500``: three digits after
#: the comma read as a thousands separator and are equally ambiguous, so refused too).
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")


def _drop_format(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def normalise_spelling(text: str) -> str:
    r"""The one spelling of a text: NFC, format characters removed, whitespace runs one space, stripped.

    Parameters
    ----------
    text : str
        A label or id as typed.

    Returns
    -------
    str
        Its normal spelling: Unicode NFC, format characters (general category ``Cf``: zero-width
        space, soft hyphen, byte-order mark, direction marks) removed, every whitespace run one
        space, surrounding whitespace removed.

    References
    ----------
    .. [1] Unicode Standard Annex #15, "Unicode Normalization Forms" (NFC); Unicode general
       category Cf (format characters).

    Examples
    --------
    ``e`` + combining accent (NFD) and a zero-width space become the plain spelling:

    >>> normalise_spelling("cafe\u0301  au\u200b lait ") == "caf\u00e9 au lait"
    True
    """
    text = unicodedata.normalize("NFC", text)
    if not text.isascii():
        text = _drop_format(text)
    return _SPACE_RUN.sub(" ", text).strip()


def spelling_changes(values: Iterable[str] | pd.Index) -> dict[str, str]:
    r"""The distinct values whose spelling changes under :func:`normalise_spelling`.

    Applied to distinct values (a dictionary, e.g. a Categorical's categories), never row by
    row. Vectorised screen first: plain-ASCII values with single inner spaces are skipped
    without a Python call, so a dictionary of millions of ids costs one string-kernel pass.

    Parameters
    ----------
    values : iterable of str or pandas.Index
        Distinct values.

    Returns
    -------
    dict of str to str
        ``{value: normal spelling}`` for the values that change (empty when none does).

    References
    ----------
    .. [1] Unicode Standard Annex #15, "Unicode Normalization Forms" (NFC); Unicode general
       category Cf (format characters).

    Examples
    --------
    >>> spelling_changes(["ok", "a  b", "x\u200b"])
    {'a  b': 'a b', 'x\u200b': 'x'}
    """
    index = pd.Index(values, dtype=str) if not isinstance(values, pd.Index) else values
    if len(index) == 0:
        return {}
    index = index.astype(str)
    suspect = respelling_candidates(index)
    changes = {}
    for value in index[suspect]:
        normal = normalise_spelling(value)
        if normal != value:
            changes[value] = normal
    return changes


def respelling_candidates(values: pd.Index) -> np.ndarray:
    r"""Which distinct values may change spelling: a fast screen before the rule.

    Every non-ASCII value, and the ASCII ones holding whitespace other than single inner
    spaces (:data:`_ASCII_SUSPECT`); missing values never. Screened in pyarrow's string
    kernels, one pass each (pandas would run a Python ``re.search`` per value for such a
    pattern: 8 s on 5 M ids). :func:`spelling_changes` applies :func:`normalise_spelling` to the
    flagged values only; the Dask reader screens its block dictionaries with the same function.

    Parameters
    ----------
    values : pandas.Index
        Distinct values (``str``).

    Returns
    -------
    numpy.ndarray
        (n,) bool, True where :func:`normalise_spelling` may change the value (every value it
        does change is flagged).

    References
    ----------
    .. [1] Unicode Standard Annex #15, "Unicode Normalization Forms" (NFC); Unicode general
       category Cf (format characters).

    Examples
    --------
    >>> respelling_candidates(pd.Index(["ok", "a  b", "x\u200b", "a b"], dtype=str)).tolist()
    [False, True, True, False]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(values) == 0:
        return np.zeros(0, dtype=bool)
    strings = pa.array(values.array if values.dtype == "str" else values.astype(str).array,
                       type=pa.large_string())
    flagged = pc.or_(pc.invert(pc.string_is_ascii(strings)),
                     pc.match_substring_regex(strings, _ASCII_SUSPECT))
    return pc.fill_null(flagged, False).to_numpy(zero_copy_only=False)


def describe_change(before: str, after: str) -> str:
    r"""What made one spelling a look-alike of another, in words (for the import report).

    Parameters
    ----------
    before : str
        The spelling as read.
    after : str
        Its normal spelling.

    Returns
    -------
    str
        E.g. ``"Unicode NFD/decomposed form"``, ``"invisible character U+200B"``,
        ``"repeated or special spaces"`` (joined with "and"); ``"spelling"`` otherwise.

    Examples
    --------
    >>> describe_change("x\u200b", "x"), describe_change("a  b", "a b")
    ('invisible character U+200B', 'repeated or special spaces')
    """
    kinds = []
    if unicodedata.normalize("NFC", before) != before:
        kinds.append("Unicode NFD/decomposed form")
    invisible = sorted({f"U+{ord(c):04X}" for c in before if unicodedata.category(c) == "Cf"})
    if invisible:
        kinds.append("invisible character " + ", ".join(invisible[:3]))
    if _SPACE_RUN.sub(" ", _drop_format(unicodedata.normalize("NFC", before))).strip() != \
            _drop_format(unicodedata.normalize("NFC", before)):
        kinds.append("repeated or special spaces")
    return " and ".join(kinds) or "spelling"


def decimal_comma_labels(values: Iterable[str]) -> list[str]:
    """The values written as a number with a decimal comma (``1,5``): ambiguous, so refused, never guessed.

    ``1,500`` counts too: three digits after the comma read as a thousands separator and are
    equally ambiguous.

    Parameters
    ----------
    values : iterable of str
        Distinct values.

    Returns
    -------
    list of str
        The decimal-comma values, as given.

    Examples
    --------
    >>> decimal_comma_labels(["1,5", "1.5", "2", " -0,25 ", "1,500"])
    ['1,5', ' -0,25 ', '1,500']
    """
    return [v for v in values if isinstance(v, str) and _DECIMAL_COMMA.match(v.strip())]


def _shown(value: str, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def respell_unique(
    values: list[str], *, what: str, source: str,
    rows: list[int | None] | Callable[[str], int | None] | None = None,
    column: str | None = None,
) -> tuple[list[str], str | None]:
    """Keys that must stay distinct (item ids of a gold file or a submission, the annotator
    ids or label keys of one record) in their one spelling (:func:`normalise_spelling`).

    Returns ``(respelled values, note)``: the note (None when nothing changed) names what was
    respelled and how, for the import report. Two different spellings of one value among
    ``values`` are ambiguous (which of the two records is the real one?): refused with a
    :class:`DataError` naming both and the row of the second (``rows[i]``: the file line of
    ``values[i]``, or ``rows(value)`` when a callable, when known).

    Parameters
    ----------
    values : list of str
        The keys, in file order.
    what : str
        What the keys are, for messages (``"item id"``, ``"label key"``).
    source : str
        The file, for messages.
    rows : list of int or None, or callable, optional
        The file line of each value (or a function of the value), for the refusal.
    column : str, optional
        The column or JSON field, for the refusal.

    Returns
    -------
    tuple of (list of str, str or None)
        The respelled values, and the import-report note (None when nothing changed).

    Raises
    ------
    DataError
        Two different spellings of one value.

    Examples
    --------
    >>> respell_unique(["i1", "i\u200b2"], what="item id", source="gold.json")[0]
    ['i1', 'i2']
    """
    values = [str(v) for v in values]
    if not values:
        return values, None
    changes = spelling_changes(pd.Index(values, dtype=object))
    if not changes:
        return values, None
    out = [changes.get(v, v) for v in values]
    repeated = np.flatnonzero(pd.Index(out, dtype=object).duplicated(keep="first"))
    if repeated.size:
        second = int(repeated[0])
        first = out.index(out[second])
        a, b = values[first], values[second]
        how = describe_change(b, out[second]) if b != out[second] else describe_change(
            a, out[first])
        raise DataError(
            f"{what} {_shown(a)} and {_shown(b)} (written {ascii(a)[:40]} and "
            f"{ascii(b)[:40]}) are one value spelled two ways ({how}); "
            "HLV Lens cannot tell which of the two entries is meant.",
            source=source,
            row=(rows(b) if callable(rows) else rows[second]) if rows is not None else None,
            column=column,
            fix=f"keep one entry for {_shown(out[second])} (delete or merge the other "
            "spelling), then load the file again.",
        )
    parts = [f"{_shown(b)} ({describe_change(b, a)}) -> {_shown(a)}"
             for b, a in list(changes.items())[:5]]
    more = f"; and {len(changes) - 5} more" if len(changes) > 5 else ""
    n_rows = sum(1 for v in values if v in changes)
    note = (f"look-alike spellings of {what} made one in {source} ({len(changes)} "
            f"spelling(s), {n_rows} entr{'y' if n_rows == 1 else 'ies'}; rule: Unicode NFC, "
            f"invisible format characters removed, whitespace runs as one space): "
            f"{'; '.join(parts)}{more}.")
    return out, note
