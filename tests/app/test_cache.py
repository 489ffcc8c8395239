"""hlv_ui.cache.cached: a cached call is keyed on the content of its datasets and tables, not on
the objects or their names."""

from __future__ import annotations

import pandas as pd

from hlv_core.io import load
from hlv_ui.cache import cached, content_key

CSV = b"item_id,annotator_id,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n"
OTHER = b"item_id,annotator_id,label\n1,a,x\n1,b,x\n2,a,x\n2,b,x\n"


def _counting():
    calls = []

    @cached
    def majority(dataset, predictions, level: str):
        calls.append((dataset.name, level))
        return dataset.majority_label()

    majority.clear()
    return majority, calls


def test_equal_content_shares_an_entry_and_other_content_does_not():
    majority, calls = _counting()
    first, same = load(CSV, name="first.csv"), load(CSV, name="renamed copy")
    assert first is not same and first.content_hash == same.content_hash
    majority(first, None, "nominal")
    majority(same, None, "nominal")
    assert len(calls) == 1  # the second dataset (another object, another name) hit the entry
    majority(load(OTHER, name="first.csv"), None, "nominal")  # one label differs
    assert len(calls) == 2
    majority(first, None, "ordinal")  # a parameter is part of the key too
    assert len(calls) == 3


def test_tables_are_keyed_on_their_cells():
    majority, calls = _counting()
    data = load(CSV, name="d")
    preds = pd.DataFrame({"model": ["m", "m"], "item_id": ["1", "2"], "label": ["x", "x"],
                          "prob": [0.9, 0.8]})
    majority(data, preds, "nominal")
    majority(data, preds.copy(), "nominal")
    assert len(calls) == 1
    changed = preds.copy()
    changed.loc[1, "prob"] = 0.7
    majority(data, changed, "nominal")
    assert len(calls) == 2


def test_content_key_follows_the_same_rules():
    """The session-state memo key of a computation with a progress bar: the dataset's content
    hash and the parameters, tables by their cells, also inside tuples, lists and dicts."""
    first, same = load(CSV, name="first.csv"), load(CSV, name="renamed copy")
    assert content_key(first, 3, "composed") == (first.content_hash, 3, "composed")
    assert content_key(first, 3) == content_key(same, 3)
    assert content_key(load(OTHER, name="first.csv"), 3) != content_key(first, 3)
    assert content_key(first, 4) != content_key(first, 3)
    table = pd.DataFrame({"x": [1, 2]})
    nested = content_key(first, ("MV", table), {"t": table})
    assert nested == content_key(same, ["MV", table.copy()], {"t": table.copy()})
    assert nested != content_key(first, ("MV", table.assign(x=[1, 3])), {"t": table})
    hash(nested)  # usable as a dict key
