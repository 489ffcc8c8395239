"""Dataset views and canonical loading: hand-computed examples and real-data counts."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import DataError, build_dataset, load, load_predictions, prediction_matrix

from .conftest import shared_path

CSV = b"""item_id,annotator_id,label
i1,a,x
i1,b,y
i1,c,x
i2,a,y
i2,b,x
"""


def test_judgements_counts_majority_and_entropy_by_hand():
    ds = load(CSV, name="toy.csv")
    assert ds.labels == ("x", "y")
    assert ds.task == "multiclass" and ds.level == "nominal"
    np.testing.assert_array_equal(ds.counts_array(), [[2, 1], [1, 1]])
    np.testing.assert_allclose(ds.judgements_array(), [[2 / 3, 1 / 3], [0.5, 0.5]])
    # tie on i2 goes to the lowest inventory index: "x"
    assert ds.majority_label().tolist() == ["x", "x"]
    h1 = -(2 / 3 * np.log(2 / 3) + 1 / 3 * np.log(1 / 3)) / np.log(2)
    np.testing.assert_allclose(ds.entropy().to_numpy(), [h1, 1.0])
    table = ds.item_table()
    assert table["item_id"].tolist() == ["i2", "i1"]  # most contested first


def test_explicit_label_order_changes_the_tie_break():
    ann = pd.read_csv(io.BytesIO(CSV), dtype=str)
    ds = build_dataset(ann, source="toy", format="canonical", labels=["y", "x"])
    assert ds.majority_label().tolist() == ["x", "y"]


def test_numeric_looking_labels_stay_strings_and_sort_by_value():
    raw = b"item_id,annotator_id,label\n1,a,-3\n1,b,1.0\n2,a,0\n2,b,-3\n3,a,10\n3,b,2\n"
    ds = load(raw, name="r.csv")
    assert ds.labels == ("-3", "0", "1.0", "2", "10")
    assert ds.task == "rating" and ds.level == "ordinal"
    assert set(ds.annotations["label"]) == {"-3", "1.0", "0", "10", "2"}


def test_multilabel_declared_and_proportions_do_not_sum_to_one():
    raw = b"item_id,annotator_id,label\n1,a,x\n1,a,y\n1,b,x\n2,a,y\n2,b,y\n"
    with pytest.raises(DataError, match=r"\(.1., .a.\).*multilabel"):
        load(raw, name="m.csv")  # one multi-label cell is not evidence
    ds = load(raw, name="m.csv", task="multilabel")
    assert ds.task == "multilabel"
    np.testing.assert_allclose(ds.judgements_array(), [[1.0, 0.5], [0.0, 1.0]])
    assert ds.majority_label().tolist() == ["x", "y"]  # strict > 0.5: y at 0.5 is out


def test_ranking_rows_round_trip_to_selectors():
    raw = (b"item_id,annotator_id,label,rank\n"
           b"c1,r1,a,1\nc1,r1,b,2\nc1,r1,c,2\nc1,r2,b,1\nc2,r1,c,1\nc2,r2,a,1\nc2,r2,b,1\n")
    ds = load(raw, name="rank.csv")
    assert ds.task == "ranking"
    assert ds.selectors() == [[[[0], [1, 2]], [[1]]], [[[2]], [[0, 1]]]]
    # top-block mass, ties split
    np.testing.assert_allclose(ds.judgements_array(), [[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]])


def test_canonical_zip_with_schema_items_and_annotators():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("data/annotations.csv", CSV.decode())
        archive.writestr("data/labels.csv", "label\ny\nx\n")
        archive.writestr("data/items.csv", "item_id,split,text\ni1,train,hello\ni2,test,bye\n")
        archive.writestr("data/annotators.csv", "annotator_id,group\na,g1\nb,g2\nc,\n")
    ds = load(buffer.getvalue(), name="bundle.zip")
    assert ds.labels == ("y", "x")
    assert ds.items["text"].tolist() == ["hello", "bye"]
    assert ds.annotators.set_index("annotator_id")["group"].isna().tolist() == [False, False, True]


def test_predictions_long_wide_and_matrix():
    ds = load(CSV, name="toy.csv")
    long = load_predictions(
        b"item_id,label,prob,model\ni1,x,0.7,m\ni1,y,0.3,m\ni2,y,1.0,m\n", ds, name="p.csv"
    )
    ids, Q = prediction_matrix(long, ds, "m")
    assert list(ids) == ["i1", "i2"]
    np.testing.assert_allclose(Q, [[0.7, 0.3], [0.0, 1.0]])
    wide = load_predictions(b"item_id,x,y\ni2,0.25,0.75\n", ds, name="w.csv")
    assert wide["model"].unique().tolist() == ["w"]
    with pytest.raises(DataError, match="sum to"):
        load_predictions(b"item_id,label,prob\ni1,x,0.7\ni1,y,0.2\n", ds, name="bad.csv")


@pytest.mark.parametrize(
    ("folder", "items", "annotators", "annotations"),
    [
        ("hs_brexit", 1120, 6, 6720),
        ("md_agreement", 10753, 819, 53764),
        ("armis", 943, 3, 2829),
        ("convabuse", 4050, 8, 12168),
        ("csc", 1408, 872, 6410),
        ("multipico", 6761, 506, 33871),
        ("paraphrase", 500, 4, 2000),
        ("varierrnli", 500, 4, 1933),
    ],
)
def test_shared_folders_match_their_readme_counts(folder, items, annotators, annotations):
    ds = load(shared_path("data", folder))
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (items, annotators, annotations)
    # P equals proportions computed independently with pandas
    ann = ds.annotations
    per_item = ann.groupby("item_id")["annotator_id"].nunique()
    counts = ann.groupby(["item_id", "label"])["annotator_id"].nunique().unstack(fill_value=0)
    expected = counts.reindex(index=ds.item_ids, columns=list(ds.labels), fill_value=0)
    expected = expected.div(per_item.reindex(ds.item_ids), axis=0)
    np.testing.assert_allclose(ds.judgements_array(), expected.to_numpy())


def test_cifar10h_counts_and_dermatology_selectors():
    cifar = load(shared_path("data", "cifar10h", "label_counts.csv"))
    assert cifar.n_items == 10000 and len(cifar.annotations) == 511000
    assert not cifar.annotator_ids_known
    assert cifar.counts_array().sum() == 511000
    derm_dir = shared_path("data", "dermatology_ddx")
    derm = load(derm_dir / "dermatology_selectors.json",
                conditions=str(derm_dir / "dermatology_conditions.txt"),
                risks=str(derm_dir / "dermatology_risks.txt"))
    assert derm.task == "ranking" and derm.n_items == 1947 and derm.n_labels == 419
    assert derm.annotators_per_item_array().sum() == 9602
    import json

    raw = json.loads((derm_dir / "dermatology_selectors.json").read_text())
    assert derm.selectors() == raw


def test_canonical_csv_with_companion_tables_as_bytes():
    ds = load(CSV, name="toy.csv", annotators=b"annotator_id,group\na,g1\nb,g2\nc,g1\n",
              items=b"item_id,text\ni1,first\ni2,second\n", labels=b"label\ny\nx\n")
    assert ds.annotators.set_index("annotator_id")["group"].to_dict() == {
        "a": "g1", "b": "g2", "c": "g1"}
    assert ds.items["text"].tolist() == ["first", "second"]
    assert ds.labels == ("y", "x")
    with pytest.raises(DataError, match="annotator_id"):
        load(CSV, name="toy.csv", annotators=b"who,group\na,g1\n")


def test_interval_level_needs_numeric_labels_or_schema_values():
    ds = load(CSV, name="toy.csv")
    assert ds.numeric_label_map("nominal") is None
    assert ds.numeric_label_map("ordinal") == {"x": 0.0, "y": 1.0}
    with pytest.raises(DataError, match="needs numeric labels"):
        ds.numeric_label_map("interval")
    rated = load(CSV, name="toy.csv", labels=b"label,value\nx,1.5\ny,4\n")
    assert rated.numeric_label_map("interval") == {"x": 1.5, "y": 4.0}


def test_prediction_matrix_refuses_repeated_rows():
    """Two rows for one (model, item, label) are never summed."""
    ds = load(b"item_id,annotator_id,label\n1,a,x\n1,b,y\n2,a,y\n2,b,y\n", name="d.csv")
    preds = pd.DataFrame({"model": "m", "item_id": ["1", "1", "2", "2", "1", "1"],
                          "label": ["x", "y", "x", "y", "x", "y"],
                          "prob": [0.5, 0.5, 0.1, 0.9, 0.5, 0.5]})
    with pytest.raises(DataError, match=r"repeated \(item, label\).*'1', 'x'"):
        prediction_matrix(preds, ds, "m")
    ids, Q = prediction_matrix(preds.iloc[:4], ds, "m")
    np.testing.assert_allclose(Q.sum(axis=1), 1.0)


def test_prediction_label_spelled_as_another_number_names_the_dataset_label():
    ds = load(b"item_id,annotator_id,label\n1,a,3\n1,b,4\n2,a,5\n2,b,3\n", name="r.csv")
    with pytest.raises(DataError, match=r"'3.0' is the number of the label '3'"):
        load_predictions(b"item_id,label,prob\n1,3.0,1\n", ds, name="p.csv")


def test_a_canonical_folder_reads_like_its_zip_and_is_named(tmp_path):
    """h1 steps 19-20: the folder reader and the zip reader share read_canonical_files; the
    dataset is built whole (name and predictions), never mutated afterwards."""
    from hlv_core.samples import sample_path

    folder = sample_path("case_review")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.glob("*.csv")):
            archive.write(path, path.name)
    zipped = load(buffer.getvalue(), name="case_review.zip")
    direct = load(folder, name="my name")
    assert direct.name == "my name" and load(folder).name == "case_review"
    assert zipped.name == "case_review"
    assert direct.content_hash == zipped.content_hash
    pd.testing.assert_frame_equal(direct.predictions, zipped.predictions)
    assert direct.report.format == "canonical folder"
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "items.csv").write_text("item_id\n1\n")
    with pytest.raises(DataError, match="the folder has no annotations.csv"):
        load(empty)


def test_a_folder_without_annotations_names_what_it_holds(tmp_path):
    """A folder of datasets, or of files in another format, is refused with the names of the
    subfolders and files that can be loaded (as data, ``repr``), not an empty list."""
    parent = tmp_path / "collection"
    for name in ("b_set", "a_set"):
        (parent / name).mkdir(parents=True)
        (parent / name / "annotations.csv").write_text("item_id,annotator_id,label\n1,a,x\n")
    (parent / "notes").mkdir()
    (parent / "export.json").write_text("[]")
    (parent / "README.md").write_text("readme")
    with pytest.raises(DataError) as caught:
        load(parent)
    fix = caught.value.fix
    assert "subfolders, which hold a dataset: 'a_set', 'b_set'" in fix
    assert "files on its own: 'export.json'" in fix and "README" not in fix
    assert "notes" not in fix and "or put annotations.csv" in fix
    only_dirs = tmp_path / "only_dirs"
    (only_dirs / "x<y").mkdir(parents=True)
    with pytest.raises(DataError) as caught:
        load(only_dirs)
    assert "inside one of its subfolders ('x<y')" in caught.value.fix
    bare = tmp_path / "bare"
    bare.mkdir()
    with pytest.raises(DataError) as caught:
        load(bare)
    assert caught.value.fix.startswith("put annotations.csv")


def test_load_options_are_never_dropped_in_silence(tmp_path):
    """A misspelt option is a TypeError naming the options; an option the format does not
    read is noted in the import report (as the JSON readers do); options beside a folder,
    whose own companion files could say otherwise, are refused."""
    from hlv_core.io.loading import LOAD_OPTIONS

    csv = b"item_id,annotator_id,label\ni1,a,x\ni1,b,y\ni2,a,x\n"
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['annotator'\]"):
        load(csv, name="a.csv", annotator=b"annotator_id,g\na,f\n")
    dataset = load(csv, name="a.csv", meta=b"{}", risks=None)
    assert dataset.report.notes == ["options ['meta'] do not apply to canonical and were "
                                    "ignored."]
    assert load(csv, name="a.csv", annotators=b"annotator_id,g\na,f\nb,m\n").report.notes == []
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "annotations.csv").write_bytes(csv)
    with pytest.raises(DataError, match=r"options \['annotators'\] were given with a folder"):
        load(folder, annotators=b"annotator_id,g\na,f\n")
    assert load(folder, annotators=None).n_items == 2  # None is no option
    from hlv_core.io.json_formats import _OPTIONS
    from hlv_core.io.loading import _FORMAT_OPTIONS, COMPANION_OPTIONS

    read = {o for opts in [*_OPTIONS.values(), *_FORMAT_OPTIONS.values()] for o in opts}
    assert read | set(COMPANION_OPTIONS) == set(LOAD_OPTIONS)  # every name known is read
