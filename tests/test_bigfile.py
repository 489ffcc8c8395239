"""Big files: the columnar CSV reader and the integer-coded Dataset give the same
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
            "missing_NA.csv", "one_conflicting_cell.csv", "lookalike_nfc_nfd_labels.csv",
            "lookalike_invisible_ids.csv", "rating_decimal_comma.csv"} <= set(used)
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


# ------------------------------------------------------------------ sigma: cost and refusal
def _crowd(n_items: int = 40, per_item: int = 4, pool: int = 12, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        for a in rng.choice(pool, size=per_item, replace=False):
            rows.append((f"i{i}", f"a{a}", str(rng.integers(0, 3))))
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


def test_sigma_cost_counts_pair_instances_and_bounds_the_pairs():
    from itertools import combinations

    from hlv_core.balance import estimate_sigma_cost, sigma

    frame = _crowd()
    cost = estimate_sigma_cost(frame)
    brute = sum(len(list(combinations(g, 2))) for _, g in frame.groupby("item_id")["annotator_id"])
    assert cost.pair_instances == brute == 40 * 6
    assert (cost.n_items, cost.n_annotators, cost.n_annotations) == (40, 12, 160)
    result = sigma(frame, max_pair_instances=brute)  # at the limit: runs
    assert result.n_pairs_overlapping <= cost.pair_instances
    degree = result.nodes["degree"].to_numpy()
    assert cost.triangle_work >= float(np.square(degree).sum())
    assert cost.memory_bytes > 0 and "instances" in cost.describe()


def test_sigma_of_a_loaded_dataset_skips_the_cell_recheck_with_equal_results(tmp_path):
    # a loaded multiclass Dataset: its loader refused several labels in one cell, so sigma and
    # the cost estimate work on its integer codes (no second duplicate check, no string
    # hashing); every number and table equals the plain table's
    from hlv_core.agreement import prepare_alpha_input
    from hlv_core.balance import estimate_sigma_cost, sigma

    frame = _crowd(n_items=60, per_item=5)
    frame.to_csv(tmp_path / "crowd.csv", index=False)
    dataset = load(tmp_path / "crowd.csv")
    assert estimate_sigma_cost(dataset) == estimate_sigma_cost(frame)
    part = dataset.annotations.iloc[:100]  # categorical columns with unused categories
    assert estimate_sigma_cost(part) == estimate_sigma_cost(part.astype(str))
    checked = prepare_alpha_input(dataset.annotations, cells_checked=True)
    plain = prepare_alpha_input(dataset.annotations)
    for name in ("item", "annotator", "value"):
        np.testing.assert_array_equal(getattr(checked, name), getattr(plain, name))
    a, b = sigma(dataset), sigma(frame)
    assert (a.alpha, a.sigma, a.n_triangles, a.n_balanced) == (b.alpha, b.sigma, b.n_triangles,
                                                               b.n_balanced)
    pd.testing.assert_frame_equal(a.edges, b.edges)
    pd.testing.assert_frame_equal(a.pairs, b.pairs)


def test_sigma_refuses_past_the_limit_with_the_reason():
    from hlv_core.balance import sigma, sigma_random

    frame = _crowd()
    with pytest.raises(DataError, match="240 .*limit of 100") as err:
        sigma(frame, max_pair_instances=100)
    assert "--max-pairs" in err.value.fix
    with pytest.raises(DataError, match="limit of 100"):
        sigma_random(frame, n_repeats=2, max_pair_instances=100)
    assert sigma(frame, max_pair_instances=None).n_pairs_overlapping > 0


def test_sigma_cli_prints_cost_and_progress_and_refuses(tmp_path, capsys):
    from hlv_core.cli import main

    path = tmp_path / "crowd.csv"
    _crowd().to_csv(path, index=False)
    assert main(["sigma", str(path), "--max-pairs", "100", "--progress"]) == 2
    err = capsys.readouterr().err
    assert "sigma: cost: 160 annotations" in err and "limit of 100" in err
    assert str(path) in err.splitlines()[-1]  # the refusal names the file
    assert "pairwise alpha" not in err  # refused before the heavy work
    assert main(["sigma", str(path), "--repeats", "2", "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    assert "sigma_rnd 2/2" in captured.err and '"sigma"' in captured.out
    assert main(["sigma", str(path), "--max-pairs", "100"]) == 2  # no terminal, no --progress
    assert len(capsys.readouterr().err.strip().splitlines()) == 1  # the one error line


# ------------------------------------------------------------- blocked kernel (scale-out)
def test_streamed_block_counts_give_the_one_shot_alpha(tmp_path):
    from hlv_core._alpha import alpha_from_counts
    from hlv_core.agreement import krippendorff_alpha

    frame = _crowd(n_items=300, per_item=5, pool=40, seed=7)
    frame = frame.sample(frac=1.0, random_state=1)  # items split across blocks
    path = tmp_path / "crowd.csv"
    frame.to_csv(path, index=False)
    item_ids, labels, counts = _read.stream_label_counts(path, block_size=2048)
    assert path.stat().st_size > 4 * 2048  # several blocks
    assert counts.sum() == len(frame) and sorted(item_ids) == sorted(frame["item_id"].unique())
    expected = krippendorff_alpha(frame)
    assert alpha_from_counts(counts) == pytest.approx(expected, abs=1e-12)
    # one block (the whole file) gives the same summed counts
    _, _, first = _read.stream_label_counts(path, block_size=1 << 30)
    assert (first != counts).nnz == 0


# ------------------------------------------------- second pass: coded read without strings
def test_string_ranks_are_the_sorted_factorisation():
    import pyarrow as pa

    rng = np.random.default_rng(5)
    alphabet = ["a", "b", "A", "0", " ", "é", "ß", "\u4e2d", "\U0001f600", "ab", "~"]
    for trial in range(60):
        size = int(rng.integers(0, 200))
        longest = int(rng.choice([2, 9, 17, 40, 90]))  # 90: the pyarrow fallback
        strings = ["".join(rng.choice(alphabet, size=rng.integers(0, longest)))
                   for _ in range(size)]
        cut = sorted(rng.integers(0, size + 1, size=2).tolist()) if size else [0, 0]
        parts = [strings[:cut[0]], strings[cut[0]:cut[1]], strings[cut[1]:]]
        arrays = [pa.array(p, pa.large_string() if (trial + j) % 2 else pa.string())
                  for j, p in enumerate(parts)]
        if trial % 4 == 0:  # a sliced array (non-zero offset into its buffers)
            arrays = [pa.array(["zz", *strings], pa.string()).slice(1)]
        rank, n_distinct = _read._string_ranks(arrays)
        distinct = sorted(set(strings))  # Python order = code points
        assert n_distinct == len(distinct)
        assert rank.tolist() == [distinct.index(x) for x in strings]


def test_big_csv_detection_reads_the_header_only(tmp_path, monkeypatch):
    rows = "".join(f"i{i % 11},a{i % 7},{'xyz'[i % 3]}\n" for i in range(77))
    path = _synthetic(tmp_path, rows)
    expected = _outcome(path, monkeypatch, False)

    def no_string_table(source):
        raise AssertionError("the string table was parsed")

    monkeypatch.setattr(_read, "_arrow_table", no_string_table)
    assert _outcome(path, monkeypatch, True) == expected


def test_alpha_input_from_codes_equals_the_string_path(tmp_path, monkeypatch):
    from hlv_core.agreement import krippendorff_alpha, prepare_alpha_input

    rows = "".join(f"i{i % 13},a{i % 6},{(i * 7) % 4}\n" for i in range(78))
    monkeypatch.setattr(_read, "COLUMNAR_MIN_BYTES", 0)
    ds = load(_synthetic(tmp_path, rows))
    assert isinstance(ds.annotations["annotator_id"].dtype, pd.CategoricalDtype)
    for frame in (ds.annotations, ds.annotations.iloc[::3]):  # a subset: unused categories
        for level in ("nominal", "ordinal", "interval"):
            coded = prepare_alpha_input(frame, level=level)
            text = prepare_alpha_input(frame.astype(str), level=level)
            for name in ("item", "annotator", "value"):
                np.testing.assert_array_equal(getattr(coded, name), getattr(text, name))
            assert coded.item_ids.equals(text.item_ids)
            assert coded.annotator_ids.equals(text.annotator_ids)
            assert coded.domain == text.domain
            np.testing.assert_array_equal(coded.numbers, text.numbers)
            assert (coded.counts() != text.counts()).nnz == 0
            assert krippendorff_alpha(frame, level=level) == pytest.approx(
                krippendorff_alpha(frame.astype(str), level=level), abs=1e-12)


def test_the_columnar_layout_is_worked_out_once_per_source(tmp_path, monkeypatch):
    # detection, the header and the coded read each ask; the byte scans run once, the same
    # dataset results, and a caller changing its list of names changes no later answer
    rows = "".join(f"i{i % 11},a{i % 7},{'xyz'[i % 3]}\n" for i in range(77))
    path = _synthetic(tmp_path, rows)
    expected = _outcome(path, monkeypatch, True)
    scans = []
    find = _read._find_columnar_layout

    def counted(source):
        scans.append(source.name)
        return find(source)

    monkeypatch.setattr(_read, "_find_columnar_layout", counted)
    source = _read.as_source(path)
    names = _read.header_columns(source)
    names.append("changed by a caller")
    assert _read.header_columns(source) == ["item_id", "annotator_id", "label"]
    assert _read.read_coded(source, ("item_id",)) is not None
    assert len(scans) == 1
    assert _outcome(path, monkeypatch, True) == expected
