"""One spelling per value: look-alike labels and ids (NFC / NFD, invisible format characters,
runs of whitespace) are one value in every reader; a decimal comma is refused."""

from __future__ import annotations

import unicodedata

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlv_core.io import (
    DataError,
    decimal_comma_labels,
    load,
    load_predictions,
    normalise_spelling,
    spelling_changes,
)

NFC = "caf\u00e9"
NFD = unicodedata.normalize("NFD", NFC)


def test_the_rule_by_hand():
    assert NFD != NFC and normalise_spelling(NFD) == NFC
    assert normalise_spelling("a\u200bb") == "ab"  # zero-width space
    assert normalise_spelling("soft\u00adhyphen") == "softhyphen"
    assert normalise_spelling("\ufeffid") == "id"  # a byte-order mark in the middle of a file
    assert normalise_spelling("the  tea\t\u00a0cup ") == "the tea cup"  # NBSP, tab, run
    assert normalise_spelling("plain") == "plain"


@given(st.text())
def test_the_rule_is_idempotent(text):
    once = normalise_spelling(text)
    assert normalise_spelling(once) == once
    assert unicodedata.is_normalized("NFC", once)


def test_changes_are_computed_over_distinct_values_only():
    values = pd.Index(["a", "b c", "b  c", NFD, NFC, "x\u200b"], dtype=str)
    assert spelling_changes(values) == {"b  c": "b c", NFD: NFC, "x\u200b": "x"}
    assert spelling_changes(pd.Index([f"id{i}" for i in range(1000)], dtype=str)) == {}


@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127)), max_size=30, unique=True))
def test_every_ascii_value_the_rule_changes_is_found(values):
    """The fast screen (pyarrow's RE2) misses no ASCII value whose spelling the rule changes,
    including the separators U+001C-U+001F and the vertical tab, which Python's ``\\s`` matches
    and RE2's does not."""
    expected = {v: normalise_spelling(v) for v in values if normalise_spelling(v) != v}
    assert spelling_changes(pd.Index(values, dtype=str)) == expected


def test_ascii_separators_and_vertical_tab_are_whitespace():
    assert spelling_changes(pd.Index(["a\x1cb", "a\x0bb", "a b"], dtype=str)) == {
        "a\x1cb": "a b", "a\x0bb": "a b"}


def test_decimal_commas():
    assert decimal_comma_labels(["1,5", "1.5", "-0,25", "a,b", "1,", "x"]) == ["1,5", "-0,25"]


def test_decimal_comma_listed_in_the_schema_is_a_label(tmp_path):
    ann = "item_id,annotator_id,label\ni1,a,\"1,5\"\ni1,b,x\ni2,a,x\ni2,b,\"1,5\"\n"
    with pytest.raises(DataError, match="decimal comma"):
        load(ann.encode(), name="a.csv")
    (tmp_path / "labels.csv").write_text('label\n"1,5"\nx\n')
    ds = load(ann.encode(), name="a.csv", labels=str(tmp_path / "labels.csv"))
    assert ds.labels == ("1,5", "x")


def test_companion_tables_and_schema_follow_the_same_rule(tmp_path):
    ann = f"item_id,annotator_id,label\n{NFD},a,{NFD}\n{NFD},b,x\nj,a,x\nj,b,x\n"
    (tmp_path / "items.csv").write_text(f"item_id,text\n{NFC},hello\nj,there\n")
    (tmp_path / "labels.csv").write_text(f"label\nx\n{NFD}\n")
    ds = load(ann.encode(), name="a.csv", items=str(tmp_path / "items.csv"),
              labels=str(tmp_path / "labels.csv"))
    assert ds.labels == ("x", NFC)
    assert ds.items.set_index("item_id").loc[NFC, "text"] == "hello"
    assert len(ds.items) == 2


def test_predictions_follow_the_same_rule():
    ds = load(f"item_id,annotator_id,label\ni1,a,{NFC}\ni1,b,x\ni2,a,x\ni2,b,x\n".encode(),
              name="a.csv")
    preds = load_predictions(
        f"model,item_id,label,prob\nm,i1,{NFD},0.5\nm,i1,x,0.5\nm,i2\u200b,x,1\n"
        f"m,i2\u200b,{NFC},0\n".encode(), ds, name="p.csv")
    assert set(preds["label"]) == {NFC, "x"} and set(preds["item_id"]) == {"i1", "i2"}
