"""Hostile input: markdown escaping, control and bidi characters, formula-safe CSV
downloads, terminal-safe CLI output, bounded upload caching."""

from __future__ import annotations

import io
import re
from collections import OrderedDict

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core.cli import main as cli_main
from hlv_core.io import DataError
from hlv_core.text import (
    md,
    neutralise_cell,
    neutralise_frame,
    restore_cell,
    restore_frame,
    strip_controls,
    visible_controls,
)
from hlv_ui import loading
from hlv_ui.widgets import csv_bytes


def _unescape(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("text", [
    "![x](http://tracker.invalid/pixel.png)",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "**bold** _it_ `code` ~~s~~ $x^2$ :red[alarm] a|b",
    "# heading",
    "- list",
    "1. ordered",
    "&lt;entity&gt;",
    "see https://example.org and www.example.org",
])
def test_md_leaves_no_markup(text):
    out = md(text)
    assert _unescape(out) == text  # renders as exactly its text
    for opener in ("![", "](", "<", "**", "`", "$", "[", "&"):
        assert opener not in out.replace("\\" + opener[0], "")
    assert not re.search(r"(?<!\\)://|(?i:www)\.", out)  # no bare-URL autolink


def test_md_single_line_and_bidi_visible():
    assert "\n" not in md("a\nb\r\nc")
    assert md("evil\u202egnp.exe") == "evil\\<U+202E\\>gnp.exe"
    assert visible_controls("a\u2066b\x1bc") == "a<U+2066>b<U+001B>c"
    assert visible_controls("plain ✓ ünï") == "plain ✓ ünï"


def test_strip_controls_removes_terminal_sequences():
    assert strip_controls("\x1b[31mred\x1b[0m \x1b]0;title\x07ok\u202e\x07\x00") == "red ok"
    assert strip_controls("tab\tand\nnewline") == "tab\tand\nnewline"


def test_cli_output_has_no_control_characters(tmp_path, capsys):
    path = tmp_path / "evil.csv"
    path.write_text("item_id,annotator_id,label\n"
                    "q1,\x1b[2Jann\u202e,\x1b]0;pwned\x07yes\nq1,b,no\nq2,b,yes\n"
                    "q2,\x1b[2Jann\u202e,\x1b]0;pwned\x07yes\n", encoding="utf-8")
    assert cli_main(["summary", str(path)]) == 0
    out = capsys.readouterr().out
    assert "yes" in out
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]", out)


# ------------------------------------------------------------------ formula neutralisation


@pytest.mark.parametrize("cell,expected", [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@x", "'@x"), ("\tx", "'\tx"),
    ("\rx", "'\rx"), ("'=x", "''=x"), ("'x", "'x"), ("x=1", "x=1"), ("", ""), (3, 3),
])
def test_neutralise_cell(cell, expected):
    assert neutralise_cell(cell) == expected
    assert restore_cell(neutralise_cell(cell)) == cell


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("'=+-@\t\rab1 ,\"\n")), max_size=8))
def test_neutralise_round_trip_is_exact(text):
    assert restore_cell(neutralise_cell(text)) == text
    assert not str(neutralise_cell(text)).startswith(("=", "+", "-", "@", "\t", "\r"))


def test_download_csv_is_neutralised_and_restores_exactly():
    frame = pd.DataFrame({"item_id": ["=cmd|' /C calc'!A0", "-2+3", "'@x", "ok"],
                          "delta": [-0.5, 1.0, -2.0, 0.0]})
    data = csv_bytes(frame)
    back = pd.read_csv(io.BytesIO(data), dtype={"item_id": str}, keep_default_na=False)
    assert not back["item_id"].str.startswith(("=", "+", "-", "@")).any()
    assert back["delta"].tolist() == [-0.5, 1.0, -2.0, 0.0]  # numbers stay numbers
    assert restore_frame(back)["item_id"].tolist() == frame["item_id"].tolist()
    indexed = neutralise_frame(frame.set_index("item_id"), index=True)
    assert not any(str(i).startswith(("=", "-")) for i in indexed.index)


# ------------------------------------------------------------------ bounded upload cache


def test_upload_cache_is_bounded_and_parses_once(monkeypatch):
    cache: OrderedDict = OrderedDict()
    monkeypatch.setattr(loading, "_session_cache", lambda: cache)
    monkeypatch.setattr(loading, "SESSION_UPLOAD_CAP_MB", 1)
    calls = []

    def build(tag):
        def _build():
            calls.append(tag)
            return object()
        return _build

    first = loading._cached(("d", "a"), 400_000, "a.csv", build("a"))
    assert loading._cached(("d", "a"), 400_000, "a.csv", build("a")) is first  # same object
    loading._cached(("d", "b"), 400_000, "b.csv", build("b"))
    loading._cached(("d", "c"), 400_000, "c.csv", build("c"))  # 1.2 MB > cap: oldest dropped
    assert list(cache) == [("d", "b"), ("d", "c")]
    assert calls == ["a", "b", "c"]
    with pytest.raises(DataError, match="larger than one session may keep"):
        loading._cached(("d", "big"), 2_000_000, "big.csv", build("big"))
    for k in range(5):
        loading._cached(("d", k), 10, f"{k}.csv", build(k))
    assert len(cache) <= loading.SESSION_UPLOADS


def test_visible_frame_shows_bidi_controls_in_tables():
    from hlv_core.text import visible_frame

    frame = pd.DataFrame({"name": ["ann\u202etxt.exe", "bob"], "n": [1, 2]})
    shown = visible_frame(frame)
    assert shown["name"].tolist() == ["ann<U+202E>txt.exe", "bob"]
    assert shown["n"].tolist() == [1, 2] and frame["name"].iloc[0] == "ann\u202etxt.exe"


def _per_character(text: str) -> str:
    """The definition, one character at a time (what the regex path must equal)."""
    from hlv_core.text import _hidden

    return "".join(f"<U+{ord(ch):04X}>" if _hidden(ch) else ch for ch in text)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
       | st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
@settings(max_examples=300)
def test_visible_controls_equals_the_per_character_definition(text):
    """Both paths: the character class (long text, or once built) and the character-by-
    character check (short non-ASCII text before it is built)."""
    from hlv_core import text as text_module

    assert visible_controls(text) == _per_character(text)
    assert visible_controls(text * 500) == _per_character(text) * 500  # past _CLASS_WORTH
    assert text_module._visible_by_character(text) == _per_character(text)


def test_the_hidden_character_class_is_exactly_the_hidden_predicate():
    """Every code point: in the compiled class iff ``_hidden`` says so (tab and newline out;
    C0/C1 controls, bidi controls and every Cf character in)."""
    from hlv_core.text import _ASCII_HIDDEN, _hidden, _hidden_pattern

    pattern = _hidden_pattern()
    wrong = [c for c in range(0x110000)
             if (pattern.fullmatch(chr(c)) is not None) != _hidden(chr(c))]
    assert wrong == []
    assert [c for c in range(128) if _ASCII_HIDDEN.fullmatch(chr(c))] == [
        c for c in range(128) if _hidden(chr(c))]


@given(st.lists(st.text(alphabet=st.sampled_from("ab \t\n\u202e\u200b\x1b\x85é✓"), max_size=6),
                min_size=1, max_size=8),
       st.sampled_from(["object", "str", "category"]))
@settings(max_examples=150)
def test_visible_frame_equals_mapping_every_cell(cells, dtype):
    """The distinct-values check changes nothing: every text cell shown as
    ``visible_controls`` of it, whatever the column's dtype (categories too), numbers and the
    original untouched."""
    from hlv_core.text import visible_frame

    frame = pd.DataFrame({"text": pd.Series(cells, dtype=dtype), "n": range(len(cells))})
    shown = visible_frame(frame)
    assert list(shown["text"]) == [_per_character(c) for c in cells]
    assert list(shown["n"]) == list(range(len(cells)))
    assert list(frame["text"]) == cells


def test_visible_labels_keeps_the_same_index_when_nothing_is_hidden():
    from hlv_core.text import visible_labels

    plain = pd.Index(["a", "b"])
    assert visible_labels(plain) is plain
    assert visible_labels(pd.Index(["a\u202e"])).tolist() == ["a<U+202E>"]
    multi = pd.MultiIndex.from_tuples([("x\u2066", 1), ("y", 2)])
    assert visible_labels(multi).tolist() == [("x<U+2066>", 1), ("y", 2)]
