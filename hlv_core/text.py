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

import functools
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
    "visible_labels",
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


#: the hidden characters of ASCII text (C0 controls but tab and newline, and DEL)
_ASCII_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


@functools.cache
def _hidden_pattern() -> re.Pattern:
    """One character class of every code point :func:`_hidden` is true for (built once per
    process, for the first long non-ASCII text: a scan of the code space by this Python's
    Unicode database, about 0.2 s)."""
    hidden = [c for c in range(0x110000) if _hidden(chr(c))]
    ranges, start = [], hidden[0]
    for previous, current in zip(hidden, [*hidden[1:], None], strict=True):
        if current != previous + 1:
            ranges.append(re.escape(chr(start)) if start == previous
                          else f"{re.escape(chr(start))}-{re.escape(chr(previous))}")
            start = current
    return re.compile("[" + "".join(ranges) + "]")


#: non-ASCII text shorter than this is checked character by character until the class exists
#: (a command printing a few names does not pay for building it)
_CLASS_WORTH = 4096


def _pattern_for(text: str) -> re.Pattern | None:
    """The character class to search ``text`` with, or None for the character-by-character
    check (short non-ASCII text while the full class is not built yet)."""
    if text.isascii():
        return _ASCII_HIDDEN
    if _hidden_pattern.cache_info().currsize or len(text) >= _CLASS_WORTH:
        return _hidden_pattern()
    return None


def _has_hidden(text: str) -> bool:
    """Whether ``text`` holds a character :func:`_hidden` is true for (one regex pass)."""
    pattern = _pattern_for(text)
    if pattern is None:
        return any(_hidden(ch) for ch in text)
    return pattern.search(text) is not None


def visible_controls(value: object) -> str:
    r"""A string with every control, bidi or format character written as ``<U+XXXX>``.

    So it is seen instead of acting: a right-to-left override would otherwise show a name
    reversed. Tab and newline are kept.

    Parameters
    ----------
    value : object
        Any value (``str(value)`` is used).

    Returns
    -------
    str
        The text with hidden characters made visible.

    References
    ----------
    .. [1] Unicode Standard Annex #9, "Unicode Bidirectional Algorithm" (explicit
       directional formatting characters).

    Examples
    --------
    >>> visible_controls("abc\u202edef")
    'abc<U+202E>def'
    """
    text = str(value)
    pattern = _pattern_for(text)
    if pattern is None:
        return _visible_by_character(text)
    return pattern.sub(lambda found: f"<U+{ord(found.group()):04X}>", text)


def _visible_by_character(text: str) -> str:
    """:func:`visible_controls` one character at a time (short text, before the class)."""
    if not any(_hidden(ch) for ch in text):
        return text
    return "".join(f"<U+{ord(ch):04X}>" if _hidden(ch) else ch for ch in text)


def visible_frame(frame: pd.DataFrame) -> pd.DataFrame:
    r"""Copy of a table for display with :func:`visible_controls` applied to every text cell.

    Parameters
    ----------
    frame : pandas.DataFrame
        Any table.

    Returns
    -------
    pandas.DataFrame
        A copy; numbers untouched.

    References
    ----------
    .. [1] Unicode Standard Annex #9, "Unicode Bidirectional Algorithm" (explicit
       directional formatting characters).

    Examples
    --------
    >>> import pandas as pd
    >>> visible_frame(pd.DataFrame({"who": ["ann\u202e"], "n": [1]}))
               who  n
    0  ann<U+202E>  1
    """
    out = frame.copy()
    for position in range(out.shape[1]):
        values = out.iloc[:, position]
        if isinstance(values.dtype, pd.CategoricalDtype):
            needs = visible_labels(values.cat.categories) is not values.cat.categories
            if needs:
                values = values.astype(object)
        elif pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values):
            needs = _any_hidden(_distinct(values))  # a check on the distinct values first
        else:
            needs = False
        if needs:
            out.isetitem(position, values.map(
                lambda v: visible_controls(v) if isinstance(v, str) else v))
    return out


def _distinct(values: pd.Series):
    """The distinct values of a column (all of them where some cannot be hashed, e.g. lists)."""
    try:
        return values.unique()
    except TypeError:
        return values


def _any_hidden(values) -> bool:
    """Whether any string among ``values`` holds a hidden character (one regex pass over
    them joined by newlines, which are not hidden)."""
    return _has_hidden("\n".join(v for v in values if isinstance(v, str)))


def visible_labels(labels: pd.Index) -> pd.Index:
    r"""``labels`` with :func:`visible_controls` applied to every string, or the same object
    when no string needs it (so a caller can tell by identity).

    Parameters
    ----------
    labels : pandas.Index
        Index or column labels, or a categorical's categories.

    Returns
    -------
    pandas.Index

    Examples
    --------
    >>> import pandas as pd
    >>> visible_labels(pd.Index(["a", "b\u202e"])).tolist()
    ['a', 'b<U+202E>']
    """
    if isinstance(labels, pd.MultiIndex):  # each level's labels
        levels = [visible_labels(level) for level in labels.levels]
        if all(new is old for new, old in zip(levels, labels.levels, strict=True)):
            return labels
        return labels.set_levels(levels, verify_integrity=False)
    if pd.api.types.is_numeric_dtype(labels.dtype) or not _any_hidden(_distinct(labels)):
        return labels
    return labels.map(lambda v: visible_controls(v) if isinstance(v, str) else v)


def md(value: object) -> str:
    r"""A value as markdown that renders as exactly its text.

    Controls made visible (:func:`visible_controls`), line breaks to spaces, markup characters
    backslash-escaped (``\ ` * ~ [ ] < > | $ &`` and ``_`` unless inside a word), a leading
    ``+ - = #`` or ``1.`` / ``1)`` escaped, and ``://`` / ``www.`` broken so no bare URL
    becomes a link. Any escaped ASCII punctuation is literal in CommonMark (section 2.4).

    Parameters
    ----------
    value : object
        Any value (``str(value)`` is used).

    Returns
    -------
    str
        Markdown source.

    References
    ----------
    .. [1] CommonMark Spec 0.31, section 2.4 "Backslash escapes"; GitHub Flavored Markdown
       Spec, "Autolinks (extension)".

    Examples
    --------
    >>> print(md("**bold** [x](http://a) case_001"))
    \*\*bold\*\* \[x\](http\://a) case_001
    >>> print(md("# not a heading"))
    \# not a heading
    """
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
    r"""A string safe to print to a terminal.

    Terminal escape sequences, control characters (tab and newline kept) and bidi controls are
    removed.

    Parameters
    ----------
    value : object
        Any value (``str(value)`` is used).

    Returns
    -------
    str
        The cleaned text.

    Examples
    --------
    >>> strip_controls("\x1b[31mred\x1b[0m\x07 ok")
    'red ok'
    """
    text = _ANSI.sub("", str(value))
    return "".join(ch for ch in text if ch in "\t\n" or not (
        ch in BIDI_CONTROLS or unicodedata.category(ch) == "Cc"))


def neutralise_cell(value: object) -> object:
    r"""Prefix a text cell a spreadsheet would run as a formula with ``'``.

    Pattern ``^'*[=+\-@\t\r]`` (so :func:`restore_cell` is exact); anything else, numbers
    included, is returned unchanged.

    Parameters
    ----------
    value : object
        A cell.

    Returns
    -------
    object
        The cell, neutralised when it is formula-like text.

    References
    ----------
    .. [1] OWASP, "CSV Injection" (formula injection in spreadsheet exports).

    Examples
    --------
    >>> neutralise_cell("=SUM(A1)"), neutralise_cell("plain"), neutralise_cell(-3)
    ("'=SUM(A1)", 'plain', -3)
    """
    if isinstance(value, str) and _FORMULA.match(value):
        return "'" + value
    return value


def restore_cell(value: object) -> object:
    """Inverse of :func:`neutralise_cell`: drop the one ``'`` it added.

    Parameters
    ----------
    value : object
        A cell read back from an export.

    Returns
    -------
    object
        The original cell.

    References
    ----------
    .. [1] OWASP, "CSV Injection" (formula injection in spreadsheet exports).

    Examples
    --------
    >>> restore_cell("'=SUM(A1)"), restore_cell("''=x")
    ('=SUM(A1)', "'=x")
    """
    if isinstance(value, str) and _RESTORE.match(value):
        return value[1:]
    return value


def _text_columns(frame: pd.DataFrame) -> list:
    return [c for c in frame.columns
            if pd.api.types.is_object_dtype(frame[c]) or pd.api.types.is_string_dtype(frame[c])]


def neutralise_frame(frame: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """Copy of a table with :func:`neutralise_cell` applied to every text cell and the column names.

    Numeric columns stay numbers (a number is never a formula).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to export.
    index : bool, default False
        Neutralise a text index too.

    Returns
    -------
    pandas.DataFrame
        A copy.

    References
    ----------
    .. [1] OWASP, "CSV Injection" (formula injection in spreadsheet exports).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["=1+1", "ok"], "n": [1, -2]})
    >>> neutralise_frame(frame)
        name  n
    0  '=1+1  1
    1     ok -2
    """
    out = frame.copy()
    for column in _text_columns(out):
        out[column] = out[column].map(neutralise_cell)
    out.columns = [neutralise_cell(c) for c in out.columns]
    if index and (pd.api.types.is_object_dtype(out.index)
                  or pd.api.types.is_string_dtype(out.index)):
        out.index = out.index.map(neutralise_cell)
    return out


def restore_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Inverse of :func:`neutralise_frame` for a table read back with ``dtype=str``.

    Parameters
    ----------
    frame : pandas.DataFrame
        A neutralised table.

    Returns
    -------
    pandas.DataFrame
        A copy with the added ``'`` removed.

    References
    ----------
    .. [1] OWASP, "CSV Injection" (formula injection in spreadsheet exports).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["=1+1", "'@x", "ok"]})
    >>> restore_frame(neutralise_frame(frame)).equals(frame)
    True
    """
    out = frame.copy()
    for column in _text_columns(out):
        out[column] = out[column].map(restore_cell)
    out.columns = [restore_cell(c) for c in out.columns]
    return out
