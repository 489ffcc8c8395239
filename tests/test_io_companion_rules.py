"""Companion files of the canonical long format (labels.csv / schema.json, items.csv,
annotators.csv, label_counts.csv, a .npy counts matrix) and the file rows that errors name.

Every expectation is written by hand from the rules of the canonical format: the label inventory
is given in order and every label must be in it; a companion table names each id once; a
count is a number of annotators; bad input is one DataError naming the file, row and column,
never a silent change of the data."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import DataError, load

ANN = "item_id,annotator_id,label\ni1,a,x\ni1,b,y\ni2,a,z\ni2,b,x\n"


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _error(*args, **kwargs) -> DataError:
    with pytest.raises(DataError) as info:
        load(*args, **kwargs)
    return info.value


# --- label_counts.csv with a label schema -----------------------------------------------------

def test_counts_with_a_label_outside_the_schema_are_refused_not_dropped():
    # i2's three 'z' counts are not in labels.csv: dropping them would lose item i2 entirely
    raw = _zip({"label_counts.csv": "item_id,label,count\ni1,x,2\ni1,y,1\ni2,z,3\n",
                "labels.csv": "label\nx\ny\n"})
    error = _error(raw, name="counts.zip")
    assert error.source.endswith("label_counts.csv")
    assert (error.row, error.column) == (4, "label")
    assert "'z'" in error.problem


def test_counts_within_the_schema_keep_the_schema_order():
    raw = _zip({"label_counts.csv": "item_id,label,count\ni1,x,2\ni1,y,1\ni2,y,3\n",
                "labels.csv": "label\ny\nw\nx\n"})
    dataset = load(raw, name="counts.zip")
    assert dataset.labels == ("y", "w", "x")
    assert dataset.counts_array().tolist() == [[1, 0, 2], [3, 0, 0]]


# --- .npy counts matrix -----------------------------------------------------------------------

def _npy(matrix) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(matrix))
    return buffer.getvalue()


@pytest.mark.parametrize("names", [["a", "b"], ["a", "b", "c", "d"]])
def test_npy_class_names_must_match_the_columns(names):
    # 3 columns: 2 names crashed with IndexError, 4 names added a class the matrix lacks
    error = _error(_npy([[1, 2, 3], [0, 1, 1]]), name="counts.npy", labels=names)
    assert error.source == "counts.npy"
    assert f"{len(names)} class name(s)" in error.problem and "3 column(s)" in error.problem


def test_npy_with_infinite_counts_is_refused_clearly():
    error = _error(_npy([[1.0, np.inf, 3.0], [0.0, 1.0, 1.0]]), name="counts.npy")
    assert "infinite" in error.problem


def test_counts_too_many_to_expand_are_refused_before_allocating():
    # a typo'd count of 10^11 annotators would need hundreds of GiB of rows
    error = _error(b"item_id,label,count\ni1,a,100000000000\ni1,b,1\n", name="label_counts.csv")
    assert "HLV_MAX_PARSE_MB" in str(error) and "100,000,000,001 annotation rows" in error.problem


def test_a_count_past_exact_integers_is_refused_with_its_row():
    error = _error(b"item_id,label,count\ni1,a,1\ni1,b,1e30\n", name="label_counts.csv")
    assert (error.row, error.column) == (3, "count")


# --- labels.csv and schema.json ---------------------------------------------------------------

def test_empty_label_cell_in_labels_csv_is_refused_not_named_nan():
    raw = _zip({"annotations.csv": ANN, "labels.csv": "label,value\nx,1\n,2\ny,3\nz,4\n"})
    error = _error(raw, name="d.zip")
    assert error.source.endswith("labels.csv")
    assert (error.row, error.column) == (3, "label")


def test_infinite_label_value_in_labels_csv_is_refused():
    raw = _zip({"annotations.csv": ANN, "labels.csv": "label,value\nx,1\ny,inf\nz,3\n"})
    error = _error(raw, name="d.zip")
    assert error.source.endswith("labels.csv")
    assert (error.row, error.column) == (3, "value")


@pytest.mark.parametrize("labels", ['"xyz"', '[{"a": 1}, "y", "z"]', '["x", null, "z"]',
                                    '["x", "", "z"]', '{"x": 1}'])
def test_schema_labels_must_be_a_list_of_names(labels):
    # "xyz" was read letter by letter as the inventory x, y, z
    raw = _zip({"annotations.csv": ANN, "schema.json": f'{{"labels": {labels}}}'})
    error = _error(raw, name="d.zip")
    assert error.source.endswith("schema.json") and error.column == "labels"


@pytest.mark.parametrize("values", ["[1, 2, 3]", '{"x": null, "y": 2, "z": 3}',
                                    '{"x": "a", "y": 2, "z": 3}', '{"x": NaN, "y": 2, "z": 3}',
                                    '{"x": true, "y": 2, "z": 3}', '{"x": 1e999, "y": 2, "z": 3}'])
def test_schema_values_must_be_finite_numbers_per_label(values):
    # a list crashed with AttributeError and null with TypeError
    raw = _zip({"annotations.csv": ANN,
                "schema.json": f'{{"labels": ["x", "y", "z"], "values": {values}}}'})
    error = _error(raw, name="d.zip")
    assert error.source.endswith("schema.json") and error.column == "values"


def test_schema_values_must_cover_every_label():
    # a value for '1' only made numeric_label_map('interval') raise KeyError later
    schema = {"labels": ["1", "2"], "values": {"1": 1}, "level_of_measurement": "interval"}
    raw = _zip({"annotations.csv": "item_id,annotator_id,label\ni1,a,1\ni1,b,2\n",
                "schema.json": json.dumps(schema)})
    error = _error(raw, name="d.zip")
    assert error.column == "label" and "'2' has no numeric value" in error.problem


def test_schema_values_for_every_label_are_used():
    schema = {"labels": ["lo", "hi"], "values": {"lo": 1, "hi": 5},
              "level_of_measurement": "interval"}
    raw = _zip({"annotations.csv": "item_id,annotator_id,label\ni1,a,lo\ni1,b,hi\n",
                "schema.json": json.dumps(schema)})
    assert load(raw, name="d.zip").numeric_label_map("interval") == {"lo": 1.0, "hi": 5.0}


# --- items.csv and annotators.csv -------------------------------------------------------------

def test_annotator_listed_twice_is_refused_not_half_dropped():
    # the second row's traits (age 40) were silently dropped, the first kept
    raw = _zip({"annotations.csv": ANN,
                "annotators.csv": "annotator_id,age\na,30\nb,20\na,40\n"})
    error = _error(raw, name="d.zip")
    assert error.source.endswith("annotators.csv")
    assert (error.row, error.column) == (4, "annotator_id")
    assert "rows 2 and 4" in error.problem


def test_duplicate_item_names_the_items_file_and_row():
    # before: the annotations file was named, without a row
    error = _error(ANN.encode(), name="a.csv",
                   items=b"item_id,text\ni1,hello\ni2,there\ni1,again\n")
    assert (error.source, error.row, error.column) == ("items.csv", 4, "item_id")


def test_look_alike_annotator_ids_in_the_traits_table_are_one_id():
    error = _error(ANN.encode(), name="a.csv",
                   annotators=b"annotator_id,age\na,30\nb,20\na\xe2\x80\x8b,40\n")
    assert (error.source, error.row) == ("annotators.csv", 4)


@pytest.mark.parametrize("option", ["items", "annotators"])
def test_empty_id_in_a_companion_table_is_refused_with_its_row(option):
    key = "item_id" if option == "items" else "annotator_id"
    error = _error(ANN.encode(), name="a.csv", **{option: f"{key},x\na,1\n,2\n".encode()})
    assert (error.source, error.row, error.column) == (f"{option}.csv", 3, key)


def test_unannotating_annotators_are_reported_as_dropped():
    dataset = load(ANN.encode(), name="a.csv", annotators=b"annotator_id,g\na,1\nb,2\nc,3\n")
    assert list(dataset.annotators["annotator_id"]) == ["a", "b"]
    assert dataset.report.dropped == {"annotators without annotations": 1}


# --- rows named after label lists are exploded ------------------------------------------------

def test_crowdkit_error_after_a_label_list_names_the_file_line():
    # line 3 holds the missing label; the list on line 2 made it exploded row 3 (reported row 4)
    raw = b"task,worker,label\nt1,w1,\"['a', 'b']\"\nt1,w2,NA\nt2,w1,a\n"
    error = _error(raw, name="crowd.csv")
    assert (error.row, error.column) == (3, "label")


def test_parquet_error_after_a_label_list_names_the_same_row_as_without_lists():
    plain = pd.DataFrame({"item_id": ["1", "1", "2"], "annotator_id": ["a", "b", "a"],
                          "label": ["x", "NA", "x"]})
    listed = plain.assign(label=[["x", "y"], ["NA"], ["x"]])
    rows = []
    for frame in (plain, listed):
        buffer = io.BytesIO()
        frame.to_parquet(buffer)
        rows.append(_error(buffer.getvalue(), name="a.parquet").row)
    assert rows[0] == rows[1]


# --- ranking needs ranks ----------------------------------------------------------------------

def test_ranking_task_without_a_rank_column_is_refused():
    # before: the dataset loaded and dataset.selectors() raised KeyError('rank')
    error = _error(ANN.encode(), name="a.csv", task="ranking")
    assert (error.row, error.column) == (1, "rank")


def test_ranking_from_schema_without_a_rank_column_is_refused():
    raw = _zip({"annotations.csv": ANN,
                "schema.json": '{"labels": ["x", "y", "z"], "task_type": "ranking"}'})
    error = _error(raw, name="d.zip")
    assert error.source.endswith("annotations.csv") and error.column == "rank"


def test_ranking_with_a_rank_column_reads_blocks_in_rank_order():
    raw = (b"item_id,annotator_id,label,rank\ni1,a,y,1\ni1,a,x,2\ni1,b,x,1\ni1,b,y,1\n")
    dataset = load(raw, name="r.csv", task="ranking")
    # inventory (x, y): reader a ranks y then x; reader b ties x and y
    assert dataset.selectors() == [[[[1], [0]], [[0, 1]]]]


# --- the import report says only what changed -------------------------------------------------

def test_empty_optional_cells_are_not_reported_as_stripped():
    # two empty timestamp cells and no whitespace anywhere: nothing was stripped
    raw = b"item_id,annotator_id,label,timestamp\ni1,a,x,\ni1,b,y,\ni2,a,x,2024-01-01\n"
    notes = load(raw, name="a.csv").report.notes
    assert not any("whitespace" in n for n in notes)


def test_padded_cells_are_counted_exactly():
    raw = b"item_id,annotator_id,label,timestamp\ni1,a, x,\ni1,b,y ,\ni2,a,x,2024-01-01\n"
    notes = load(raw, name="a.csv").report.notes
    assert "surrounding whitespace removed from 2 cell(s)." in notes


def test_a_schema_json_path_is_a_labels_companion_of_a_single_csv(tmp_path):
    # a zip or folder reads schema.json; beside one CSV it was refused as a table without 'label'
    schema = tmp_path / "schema.json"
    schema.write_text('{"labels": ["z", "y", "x"], "level_of_measurement": "ordinal"}')
    dataset = load(ANN.encode(), name="a.csv", labels=str(schema))
    assert (dataset.labels, dataset.level) == (("z", "y", "x"), "ordinal")
