r"""User strings as data, never markup: one place for every front end (pages, downloads, CLI).

* :func:`md` escapes a string so Streamlit's markdown (headings, captions, alerts, widget
  labels, tables with markdown) shows it as plain text: the characters that can start markup
  get a backslash (CommonMark section 2.4 makes any escaped punctuation literal):
  ``\ ` * ~ [ ] < > | $ &`` and ``_`` unless inside a word (``case_001`` stays readable and
  cannot emphasise), so no link, image (no outside request), emphasis, HTML tag or entity,
  ``:red[...]`` directive or ``$`` math can be formed; a leading ``+ - = #`` or ``1.`` /
  ``1)`` (list, heading) is escaped too, as are ``://`` and ``www.`` (GFM would make a
  bare URL a link), and line breaks become spaces. Other punctuation
  (``. , ' " : ; ? / ( ) ! #``) is left alone, so messages stay readable in their source. Invisible and direction-changing
  characters are shown by :func:`visible_controls` first.
* :func:`visible_controls` writes bidi controls (e.g. U+202E RIGHT-TO-LEFT OVERRIDE, which
  would show a name reversed) and other control / format characters as ``<U+202E>``.
* :func:`strip_controls` drops control characters (terminal escape sequences) for the CLI.
* :func:`neutralise_cell` / :func:`restore_cell` / :func:`neutralise_frame` /
  :func:`restore_frame`: spreadsheet formula injection (OWASP "CSV injection"): a text cell
  starting with ``=``, ``+``, ``-``, ``@``, tab or CR, possibly after apostrophes, gets one
  ``'`` in front; restoring removes exactly that one, so export -> import gives back the exact
  text for every string.
"""

from __future__ import annotations

import re
import unicodedata

import pandas as pd

__all__ = [
    "BIDI_CONTROLS",
    "FORMULA_TRIGGERS",
    "md",
    "neutralise_cell",
    "neutralise_frame",
    "restore_cell",
    "restore_frame",
    "strip_controls",
    "visible_controls",
    "visible_frame",
]

BIDI_CONTROLS = frozenset(
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Unicode bidirectional formatting characters (UAX #9): marks, embeddings, overrides,
isolates."""

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters a spreadsheet reads as the start of a formula (OWASP CSV injection)."""

_MD_SPECIAL = re.compile(r"([\\`*~\[\]<>|$&]|(?<![^\W_])_|_(?![^\W_]))")
_AUTOLINK = re.compile(r"(?i)(://|(?<![\w.])www\.)")
_MD_LEADING = re.compile(r"^(\s*)([+\-=#]|\d+(?=[.)]))")
_FORMULA = re.compile(r"^'*[=+\-@\t\r]")
_RESTORE = re.compile(r"^'+[=+\-@\t\r]")
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")


def _hidden(ch: str) -> bool:
    """True for characters that change or hide what is shown: C0/C1 controls (not tab /
    newline), bidi controls, and other Unicode format characters (category Cf)."""
    if ch in "\t\n":
        return False
    return ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Cf")


def visible_controls(value: object) -> str:
    """``str(value)`` with every control, bidi or format character written as ``<U+XXXX>``
    (e.g. ``"abc\\u202edef"`` -> ``"abc<U+202E>def"``), so it is seen instead of acting."""
    text = str(value)
    if not any(_hidden(ch) for ch in text):
        return text
    return "".join(f"<U+{ord(ch):04X}>" if _hidden(ch) else ch for ch in text)


def visible_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``frame`` for display with :func:`visible_controls` applied to every text cell
    (a right-to-left override in a name is shown as ``<U+202E>``, not acted upon)."""
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_object_dtype(out[column]) or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(lambda v: visible_controls(v) if isinstance(v, str)
                                          else v)
    return out


def md(value: object) -> str:
    """``value`` as markdown that renders as exactly its text (see module doc): controls made
    visible, line breaks to spaces, markup characters backslash-escaped."""
    text = visible_controls(value).replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    text = _MD_SPECIAL.sub(r"\\\1", text.replace("\r", " "))
    # GFM turns bare URLs into links (and may swallow a following escape): break them
    text = _AUTOLINK.sub(lambda m: "\\:" + m.group(0)[1:] if m.group(0) == "://"
                         else m.group(0)[:3] + "\\.", text)
    match = _MD_LEADING.match(text)
    if match:
        if match.group(2)[0].isdigit():  # "1." / "1)" would start an ordered list
            end = match.end()
            return text[:end] + "\\" + text[end:]
        return text[:match.start(2)] + "\\" + text[match.start(2):]
    return text


def strip_controls(value: object) -> str:
    """``str(value)`` without terminal escape sequences, control characters (tab and newline
    kept) and bidi controls: safe to print to a terminal."""
    text = _ANSI.sub("", str(value))
    return "".join(ch for ch in text if ch in "\t\n" or not (
        ch in BIDI_CONTROLS or unicodedata.category(ch) == "Cc"))


def neutralise_cell(value: object) -> object:
    """A text cell a spreadsheet would run as a formula, prefixed with ``'``; anything else
    unchanged. Pattern: ``^'*[=+\\-@\\t\\r]`` (so :func:`restore_cell` is exact)."""
    if isinstance(value, str) and _FORMULA.match(value):
        return "'" + value
    return value


def restore_cell(value: object) -> object:
    """Inverse of :func:`neutralise_cell`: drop the one ``'`` it added."""
    if isinstance(value, str) and _RESTORE.match(value):
        return value[1:]
    return value


def _text_columns(frame: pd.DataFrame) -> list:
    return [c for c in frame.columns
            if pd.api.types.is_object_dtype(frame[c]) or pd.api.types.is_string_dtype(frame[c])]


def neutralise_frame(frame: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """Copy of ``frame`` with :func:`neutralise_cell` applied to every text cell, the column
    names (and the index when ``index``). Numeric columns stay numbers (a number is never a
    formula)."""
    out = frame.copy()
    for column in _text_columns(out):
        out[column] = out[column].map(neutralise_cell)
    out.columns = [neutralise_cell(c) for c in out.columns]
    if index and (pd.api.types.is_object_dtype(out.index)
                  or pd.api.types.is_string_dtype(out.index)):
        out.index = out.index.map(neutralise_cell)
    return out


def restore_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Inverse of :func:`neutralise_frame` for a frame read back with ``dtype=str``."""
    out = frame.copy()
    for column in _text_columns(out):
        out[column] = out[column].map(restore_cell)
    out.columns = [restore_cell(c) for c in out.columns]
    return out
