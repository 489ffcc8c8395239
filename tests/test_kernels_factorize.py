"""The compiled string factorisation of big files (``hlv_core._kernels.factorize_strings``, a hash
table carried over pyarrow's blocks) against pandas: the same codes in order of first appearance
and the same distinct strings for any text; and ``read_coded`` / ``load`` of a big CSV give the
same categories, codes and dataset as the dictionary parse they replace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import _compiled
from hlv_core._compiled import kernels, reference_only
from hlv_core.io import load
from hlv_core.io._read import COLUMNAR_MIN_BYTES, _factorize_compiled, as_source, read_coded

pytest.importorskip("numba")

#: Short strings (compared inside the table), around the 16 inline bytes, and long ones that
#: share their first 16 bytes (compared in the arena).
_TEXT = st.one_of(
    st.text(max_size=6),
    st.text(min_size=15, max_size=17),
    st.builds(lambda tail: "0123456789abcdef" + tail, st.text(max_size=30)),
    st.sampled_from(["", "a", "é", "日本語", "x" * 16, "x" * 17, "🙂" * 5]),
)


def _chunks(values: list, cuts: list[int], kind) -> list:
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    return [pa.array(values[a:b], type=kind) for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_TEXT, st.none()), max_size=120), st.lists(st.integers(0, 200),
                                                                     max_size=4),
       st.sampled_from([pa.string(), pa.large_string()]))
def test_codes_and_distinct_strings_equal_pandas_factorize(values, cuts, kind):
    chunks = _chunks(values, cuts, kind)
    codes, distinct = _factorize_compiled(chunks, kernels())
    expected, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    assert codes.dtype == np.int32
    assert codes.tolist() == expected.tolist()
    assert distinct.to_pylist() == list(uniques)


def test_sliced_chunks_and_table_growth():
    """Chunks that are slices of bigger arrays (non-zero offsets) and tables that grow many
    times over (100,000 distinct strings from a 65,536-row start)."""
    values = [f"id{i % 100_000:06d}-{'long' * (i % 3)}" for i in range(250_000)]
    whole = pa.array(["pad"] * 7 + values + ["pad"], type=pa.string())
    chunks = [whole.slice(7, 100_000), whole.slice(100_007, 150_000)]
    codes, distinct = _factorize_compiled(chunks, kernels())
    expected, uniques = pd.factorize(pd.Series(values, dtype=object))
    assert np.array_equal(codes, expected) and distinct.to_pylist() == list(uniques)


def _big_csv() -> bytes:
    """Above the columnar reader's size: ids with quotes, commas, non-ASCII, long shared
    prefixes, 3 labels, one row per (item, annotator)."""
    rng = np.random.default_rng(5)
    n = 160_000
    items = [f"item-{i:05d}" for i in rng.integers(0, 20_000, n)]
    names = ["ann", "Änn", "annotator-with-a-long-shared-prefix-", '"ann, quoted"']
    people = [f"{names[k % 4]}{k}" if k % 4 != 3 else f'"ann, quoted {k}"'
              for k in rng.integers(0, 30_000, n)]
    labels = [("pos", "neg", "neutral")[k] for k in rng.integers(0, 3, n)]
    pairs = pd.DataFrame({"i": items, "a": people, "l": labels}).drop_duplicates(["i", "a"])
    rows = ["item_id,annotator_id,label"] + [
        f"{i},{a},{lab}" for i, a, lab in pairs.itertuples(index=False)]
    text = "\n".join(rows) + "\n"
    assert len(text) > COLUMNAR_MIN_BYTES
    return text.encode()


@pytest.fixture
def compiled_for_any_size(monkeypatch):
    monkeypatch.setattr(_compiled, "MIN_COMPILED_WORK", 0)


def test_read_coded_equals_the_dictionary_parse(compiled_for_any_size):
    raw = _big_csv().replace(b",pos\n", b",\n", 1)  # an empty label cell
    columns = ("item_id", "annotator_id", "label")
    fast = read_coded(as_source(raw, "big.csv"), columns)
    with reference_only():
        slow = read_coded(as_source(raw, "big.csv"), columns)
    assert fast is not None and slow is not None and list(fast.columns) == list(slow.columns)
    for name in fast.columns:
        if isinstance(slow[name].dtype, pd.CategoricalDtype):
            a, b = fast[name].cat, slow[name].cat
            assert a.categories.equals(b.categories) and a.categories.dtype == b.categories.dtype
            assert np.array_equal(a.codes.to_numpy(), b.codes.to_numpy())
            assert a.codes.dtype == b.codes.dtype
        else:
            pd.testing.assert_series_equal(fast[name], slow[name])


def test_load_gives_the_same_dataset(compiled_for_any_size):
    raw = _big_csv()
    fast = load(raw, name="big.csv")
    with reference_only():
        slow = load(raw, name="big.csv")
    assert fast.content_hash == slow.content_hash
    assert list(fast.item_ids) == list(slow.item_ids)
    assert list(fast.annotator_ids) == list(slow.annotator_ids)
    assert np.array_equal(fast.counts_array(), slow.counts_array())
