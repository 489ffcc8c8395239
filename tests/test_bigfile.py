"""Big files (issue 15): the columnar CSV reader and the integer-coded Dataset give the same
datasets and the same errors as the pandas reader; the content hash is unchanged. Small
synthetic cases only (the 10 M-row measurement is ``bench/bench_bigfile.py``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import DataError, _read, load
from hlv_core.io.dataset import _positions

from .conftest import shared_path

DATA = Path(__file__).parent / "data"
TEXT_FILES = sorted(
    p for p in (DATA / "bad").iterdir() if p.suffix in (".csv", ".tsv")
) + sorted(p for p in (DATA / "good").iterdir() if p.suffix in (".csv", ".tsv"))


def _outcome(path, monkeypatch, columnar: bool):
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0 if columnar else 1 << 62)
    try:
        ds = load(path)
    except DataError as err:
        return ("error", str(err))
    return (
        "dataset",
        ds.content_hash,
        ds.labels,
        ds.task,
        ds.level,
        ds.report.to_frame().to_dict("list"),
        ds.items.to_dict("list"),
        ds.annotators.to_dict("list"),
    )


def _used_columnar(path, monkeypatch) -> bool:
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0)
    source = _read.as_source(path)
    return _read._arrow_table(source) is not None


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
def test_columnar_reader_gives_the_same_result_or_error(path, monkeypatch):
    assert _outcome(path, monkeypatch, True) == _outcome(path, monkeypatch, False)


def test_columnar_reader_is_used_for_plain_files(monkeypatch):
    # the equivalence above is not vacuous: most corpus files go through pyarrow
    used = [p.name for p in TEXT_FILES if _used_columnar(p, monkeypatch)]
    assert {"spelling_clean.csv", "whitespace_labels.csv", "duplicate_rows.csv",
            "missing_NA.csv", "one_conflicting_cell.csv"} <= set(used)
    assert "latin1.csv" not in used  # non-UTF-8: the pandas reader names the byte


@pytest.mark.parametrize("name", ["md_agreement", "varierrnli", "hs_brexit"])
def test_columnar_reader_on_real_data(name, monkeypatch):
    path = shared_path("data", name, "annotations.csv")
    assert _outcome(path, monkeypatch, True) == _outcome(path, monkeypatch, False)


def _synthetic(tmp_path, rows: str) -> Path:
    path = tmp_path / "ann.csv"
    path.write_text("item_id,annotator_id,label\n" + rows)
    return path


def test_label_rules_run_over_the_dictionary(tmp_path, monkeypatch):
    # number spellings merged, whitespace stripped, case variants reported: columnar path
    rows = "".join(f"i{i},a{j},{lab}\n" for i in range(30) for j, lab in
                   enumerate([" 1", "1.0", "2", "02", "3"]))
    path = _synthetic(tmp_path, rows)
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0)
    ds = load(path)
    assert ds.labels == ("1", "2", "3")
    assert ds.counts_array().sum(axis=0).tolist() == [60, 60, 30]
    notes = " ".join(ds.report.notes)
    assert "whitespace removed from 30" in notes and "'1.0' (30 row(s)) -> '1'" in notes


@pytest.mark.parametrize("bad,words", [
    ("i1,a1,NA\n", "missing value"),
    ("i0,a0,x\n", "duplicate annotation"),
    (",a9,x\n", "empty item_id"),
])
def test_columnar_errors_name_the_row(tmp_path, monkeypatch, bad, words):
    rows = "".join(f"i{i},a{j},{'xy'[(i + j) % 2]}\n" for i in range(5) for j in range(3))
    path = _synthetic(tmp_path, rows + bad)
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0)
    with pytest.raises(DataError, match=words) as err:
        load(path)
    assert err.value.row == 17  # header + 15 rows, then the bad one


def test_annotations_are_integer_coded_and_codes_agree(tmp_path, monkeypatch):
    rows = "".join(f"i{i % 7},a{i % 5},{'abc'[i % 3]}\n" for i in range(35))
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0)
    ds = load(_synthetic(tmp_path, rows))
    for column in ("item_id", "annotator_id", "label"):
        values = ds.annotations[column]
        assert isinstance(values.dtype, pd.CategoricalDtype)
        cats = list(values.cat.categories)
        assert cats == sorted(cats)  # sorting and factorize(sort=True) behave as for strings
    generic = (
        _positions(ds.annotations["item_id"].astype(object), ds.item_ids),
        _positions(ds.annotations["annotator_id"].astype(object), ds.annotator_ids),
        _positions(ds.annotations["label"].astype(object), pd.Index(ds.labels)),
    )
    for fast, slow in zip(ds._codes, generic, strict=True):
        np.testing.assert_array_equal(fast, slow)


def test_content_hash_is_the_pandas_hash_of_the_tables(tmp_path, monkeypatch):
    rows = "".join(f"i{i % 9},a{i % 4},{'pq'[i % 2]}\n" for i in range(36))
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0)
    ds = load(_synthetic(tmp_path, rows))
    h = hashlib.sha256()
    h.update("\x1f".join([*ds.labels, ds.task, ds.level]).encode())
    for table in (ds.annotations.astype(str), ds.items, ds.annotators):
        h.update("\x1f".join(map(str, table.columns)).encode())
        h.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    assert ds.content_hash == h.hexdigest()[:16]
