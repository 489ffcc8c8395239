"""Dataset.label_table and hlv_core.io.companion_option."""

from __future__ import annotations

import io

import numpy as np
import pytest

from hlv_core.io import companion_option, load


def test_label_table_counts_and_shares():
    raw = b"item_id,annotator_id,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n3,a,z\n3,c,x\n"
    dataset = load(io.BytesIO(raw), format="canonical")
    table = dataset.label_table()
    assert list(table["label"]) == list(dataset.labels)
    counts = dict(zip(table["label"], table["annotations"], strict=True))
    assert counts == {"x": 4, "y": 1, "z": 1}
    assert table["share"].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(table["annotations"], dataset.counts_array().sum(axis=0))


@pytest.mark.parametrize(("name", "option"), [
    ("annotators.csv", "annotators"), ("Items.CSV", "items"), ("labels.csv", "labels"),
    ("MD_annotators_meta.json", "meta"), ("meta.csv", None), ("conditions.txt", "conditions"),
    ("risks.txt", "risks"), ("notes.csv", None),
])
def test_companion_option(name, option):
    assert companion_option(name) == option
