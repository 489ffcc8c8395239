"""The compiled string hash (``hlv_core._kernels.string_hashes``, numba) against pandas'
``hash_array(..., categorize=False)``: SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
short-input PRF", section 2) of each string's UTF-8 bytes, then pandas' bit mixing; the same
uint64 numbers for any text, and the same ``Dataset.content_hash`` with the kernel on or off."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import _compiled
from hlv_core._compiled import kernels, reference_only
from hlv_core.io import build_dataset, load
from hlv_core.io.dataset import _compiled_strings_hash, _frame_hash, _utf8_buffers
from hlv_core.samples import SAMPLES, load_sample

pytest.importorskip("numba")

#: Text around SipHash's 8-byte blocks: short, at and beside block boundaries, and long (more
#: than 64 bytes and more than 255, where the length byte wraps).
_TEXT = st.one_of(
    st.text(max_size=20),
    st.text(min_size=7, max_size=9),
    st.text(min_size=15, max_size=17),
    st.text(min_size=60, max_size=300),
    st.sampled_from(["", "a", "é", "日本語", "\x00", "x" * 8, "y" * 64, "z" * 256, "🙂" * 3]),
)


def _reference(values: list[str]) -> np.ndarray:
    return pd.util.hash_array(np.array(values, dtype=object), categorize=False)


def _kernel(array) -> np.ndarray:
    return kernels().string_hashes(*_utf8_buffers(array))


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=40), st.sampled_from([pa.string(), pa.large_string()]),
       st.integers(0, 5))
def test_the_kernel_equals_pandas_hash_array(values, arrow_type, cut):
    """Every list of text, both offset widths, and a slice of the array (offsets not from 0)."""
    array = pa.array(values, type=arrow_type)
    got = _kernel(array)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, _reference(values))
    np.testing.assert_array_equal(_kernel(array.slice(min(cut, len(values)))),
                                  _reference(values[cut:]))


def test_the_kernel_on_every_length_up_to_300_bytes():
    values = ["".join(chr(97 + (i * 7 + j) % 26) for j in range(n)) for i, n in
              enumerate(range(301))] + ["é" * n for n in range(70)]
    for arrow_type in (pa.string(), pa.large_string()):
        np.testing.assert_array_equal(_kernel(pa.array(values, type=arrow_type)),
                                      _reference(values))


@pytest.fixture
def kernels_at_any_size(monkeypatch):
    """The kernel serves only big dictionaries (``MIN_COMPILED_WORK``); here every size."""
    monkeypatch.setattr(_compiled, "MIN_COMPILED_WORK", 0)


@pytest.mark.parametrize("dtype", ["str", "string[python]", "string[pyarrow]", object])
def test_categories_hash_by_kernel_equals_pandas(kernels_at_any_size, dtype):
    values = ["it1", "", "élan", "x" * 70, "日本語テキスト", "an12345678"]
    index = pd.Index(values, dtype=dtype)
    expected = _reference(values)
    np.testing.assert_array_equal(_compiled_strings_hash(index), expected)
    np.testing.assert_array_equal(_compiled_strings_hash(index[2:]), expected[2:])
    np.testing.assert_array_equal(_compiled_strings_hash(index[[4, 0, 3]]), expected[[4, 0, 3]])


@pytest.mark.parametrize("values", [[1, 2, 3], ["a", b"b"], ["a", None], ["a", "\ud800"], []])
def test_categories_hash_leaves_what_is_not_str_to_pandas(kernels_at_any_size, values):
    assert _compiled_strings_hash(pd.Index(values, dtype=object)) is None


def test_small_dictionaries_and_the_reference_stay_on_pandas():
    index = pd.Index(["a", "b"], dtype="str")
    assert _compiled_strings_hash(index) is None  # below MIN_COMPILED_WORK
    with reference_only():
        assert _compiled_strings_hash(pd.Index(["a"] * 10, dtype="str")) is None


def _content_hash(make) -> tuple[str, str]:
    """``content_hash`` of a fresh dataset from ``make()``, kernel forced on, then reference."""
    on = make().content_hash
    with reference_only():
        off = make().content_hash
    return on, off


def test_content_hash_is_the_same_with_the_kernel(kernels_at_any_size):
    text = ("item_id,annotator_id,label\n" + "".join(
        f"it{i},an{(i * 7 + j) % 53},{'pos' if (i + j) % 3 else 'neg'}\n"
        for i in range(40) for j in range(4)) + "élan,ö,neg\nélan,an1,pos\n").encode()
    categories = load(text, name="toy.csv").annotations["annotator_id"].cat.categories
    assert _compiled_strings_hash(categories) is not None  # the kernel serves this dataset
    on, off = _content_hash(lambda: load(text, name="toy.csv"))
    assert on == off


def test_content_hash_is_the_same_with_the_kernel_given_tables(kernels_at_any_size):
    """Items and annotators tables given (their id columns hashed as columns, the annotations'
    categoricals by the kernel)."""
    annotations = pd.DataFrame({"item_id": ["i1", "i1", "i2", "i2"],
                                "annotator_id": ["a", "b", "a", "ü" * 20],
                                "label": ["pos", "neg", "pos", "pos"]})
    items = pd.DataFrame({"item_id": ["i1", "i2"], "text": ["first", "zweite ß"]})

    def make():
        return build_dataset(annotations, source="given", format="memory", items=items)

    on, off = _content_hash(make)
    assert on == off


@pytest.mark.slow
def test_content_hash_of_a_big_file_is_the_same_with_the_kernel(tmp_path):
    """Above ``MIN_COMPILED_WORK`` distinct ids the kernel runs by itself."""
    rows = 1_100_000
    ids = np.arange(rows)
    path = tmp_path / "big.csv"
    frame = pd.DataFrame({"item_id": np.char.add("it", (ids // 2).astype(str)),
                          "annotator_id": np.char.add("an", ids.astype(str)),
                          "label": np.where(ids % 3 == 0, "pos", "neg")})
    frame.to_csv(path, index=False)
    dataset = load(path)
    assert _compiled_strings_hash(dataset.annotations["annotator_id"].cat.categories) is not None
    on, off = _content_hash(lambda: load(path))
    assert on == off


def _digest_of_copies(dataset) -> str:
    """``content_hash`` as computed before the arrays were passed by their buffers: each
    table's row hashes copied with ``tobytes``."""
    h = hashlib.sha256()
    h.update("\x1f".join([*dataset.labels, dataset.task, dataset.level]).encode())
    hints = dataset.__dict__.get("_id_columns", {})
    cache: dict = {}
    for key, table in (("annotations", dataset.annotations), ("items", dataset.items),
                       ("annotators", dataset.annotators)):
        h.update("\x1f".join(map(str, table.columns)).encode())
        h.update(_frame_hash(table, key, hints, cache).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("name", list(SAMPLES))
def test_content_hash_reads_the_buffers_to_the_same_digest(name):
    """The samples (multiclass, multi-label, ratings, the dermatology rankings of Stutz et al.,
    section 3.1), and a toy with the kernel forced on: the digest of the copies."""
    dataset = load_sample(name)
    assert dataset.content_hash == _digest_of_copies(dataset)


def test_content_hash_reads_the_buffers_to_the_same_digest_with_the_kernel(kernels_at_any_size):
    annotations = pd.DataFrame({"item_id": ["i1", "i1", "i2", "i2", "i3"],
                                "annotator_id": ["a", "b", "a", "\u00fc" * 20, "b"],
                                "label": ["pos", "neg", "pos", "pos", "neg"]})
    items = pd.DataFrame({"item_id": ["i1", "i2", "i3"], "text": ["first", "zweite \u00df", ""]})
    for tables in ({}, {"items": items}):
        dataset = build_dataset(annotations, source="given", format="memory", **tables)
        assert dataset.content_hash == _digest_of_copies(dataset)


def test_a_process_without_numba_loads_it_only_for_a_big_dictionary():
    """Loading numba costs ~1 s: a process that has not loaded it hashes a dictionary below
    ``_FRESH_KERNEL_STRINGS`` with pandas (same numbers), one that has takes the kernel."""
    import subprocess
    import sys

    script = (
        "import sys, pandas as pd\n"
        "from hlv_core import _compiled\n"
        "from hlv_core.io import dataset\n"
        "_compiled.MIN_COMPILED_WORK = 0\n"
        "ids = pd.Index(['a', 'b', 'é'], dtype=str)\n"
        "before = dataset._compiled_strings_hash(ids)\n"
        "print('numba' in sys.modules, before is None)\n"
        "import numba  # noqa: F401\n"
        "after = dataset._compiled_strings_hash(ids)\n"
        "print(after is not None and list(after) == list(pd.util.hash_array("
        "ids.to_numpy(dtype=object), categorize=False)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True", "True"]
