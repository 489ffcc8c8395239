"""Bad-input corpus (tests/data/bad/) and every tabular importer on the real shared datasets.

Each bad file must give one :class:`DataError` whose message names the file, the row (where one
applies), the column and says "How to fix", or load correctly (BOM, HTML in names, numeric-looking
labels). The real-data tests check counts against ../shared/data/*/README.md and compare P
(``Dataset.judgements_array()``) with proportions computed independently with pandas.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import DataError, load, load_predictions

from .conftest import shared_path

BAD = Path(__file__).parent / "data" / "bad"
STRICT = {"dtype": str, "keep_default_na": False}


def check_error(
    err: DataError,
    *,
    file: str,
    row: int | None = None,
    column: str | None = None,
    words: tuple[str, ...] = (),
) -> None:
    message = str(err)
    assert file in message, message
    assert "How to fix:" in message, message
    assert err.fix, message
    if row is not None:
        assert err.row == row, message
        assert f"row {row}" in message, message
    if column is not None:
        assert err.column == column, message
        assert f"column '{column}'" in message, message
    for word in words:
        assert word in message, message


# --------------------------------------------------------------------------- annotation files
BAD_LOADS = [
    # file, format, row, column, words
    ("malformed_quote.csv", "auto", 3, None, ("malformed CSV",)),
    ("malformed_fields.csv", "auto", 3, None, ("malformed CSV",)),
    ("missing_annotator_column.csv", "auto", 1, "annotator_id", ("annotator_id",)),
    ("missing_annotator_column.csv", "canonical", 1, "annotator_id", ("missing",)),
    ("wrong_columns.csv", "auto", 1, None, ("cannot recognise",)),
    ("empty.csv", "auto", None, None, ("empty",)),
    ("blank_lines.csv", "auto", None, None, ("empty",)),
    ("header_only.csv", "auto", None, None, ("no annotation rows",)),
    ("one_annotator.csv", "auto", None, "annotator_id", ("only one annotator", "'solo'")),
    ("empty_label.csv", "auto", 3, "label", ("empty label", "missing")),
    ("duplicate_rows.csv", "auto", 5, "label", ("duplicate", "'i1'", "'a2'")),
    ("latin1.csv", "auto", 2, None, ("not UTF-8", "0xe9")),
    ("rank_zero.csv", "auto", 4, "rank", ("'0'",)),
    ("rank_fraction.csv", "auto", 3, "rank", ("'1.5'",)),
    ("rank_text.csv", "auto", 3, "rank", ("'first'",)),
    ("counts_negative.csv", "auto", 3, "count", ("'-1'",)),
    ("counts_fraction.csv", "auto", 3, "count", ("'2.5'",)),
    ("counts_empty.csv", "auto", 3, "count", ()),
    ("not_lewidi.json", "auto", None, None, ("unknown layout",)),
    ("lewidi_wrong_types.json", "auto", None, None, ("unknown layout",)),
    ("lewidi_wrong_types.json", "lewidi2023", 1, "annotations", ("comma-separated",)),
    ("lewidi_without_annotations.json", "lewidi2023", 1, "annotations", ("no 'annotations'",)),
    ("lewidi2023_length_mismatch.json", "auto", 1, "annotations", ("3 annotators but 2",)),
    ("lewidi2023_empty_entry.json", "auto", 2, "annotations", ("empty entry", "record '2'")),
    ("lewidi2023_conflicting_duplicate.json", "auto", 2, "annotations", ("'Ann1'",)),
    ("lewidi2025_annotator_mismatch.json", "auto", 1, "annotators", ("'Ann3'",)),
    ("lewidi2025_empty_label.json", "auto", 1, "annotations", ("'Ann2'", "empty label")),
    ("chaosnli_negative_count.jsonl", "auto", 2, "label_counter", ("-2",)),
    ("chaosnli_broken_line.jsonl", "chaosnli", 2, None, ("not valid JSON",)),
    ("prodigy_bad_answer.jsonl", "auto", 2, "answer", ("'maybe'",)),
    ("prodigy_no_annotator.jsonl", "prodigy", 2, "_annotator_id", ()),
    ("labelstudio_no_completed_by.json", "auto", 1, "completed_by", ("task '1'",)),
]


@pytest.mark.parametrize(("name", "fmt", "row", "column", "words"), BAD_LOADS)
def test_bad_file_gives_one_clear_error(name, fmt, row, column, words):
    with pytest.raises(DataError) as err:
        load(BAD / name, format=fmt)
    check_error(err.value, file=name, row=row, column=column, words=words)


@pytest.mark.parametrize(("name", "fmt", "row", "column", "words"), BAD_LOADS[:12])
def test_bad_upload_bytes_name_the_upload(name, fmt, row, column, words):
    """The UI passes bytes plus the upload's name: the message must use that name."""
    with pytest.raises(DataError) as err:
        load((BAD / name).read_bytes(), format=fmt, name=f"upload_{name}")
    check_error(err.value, file=f"upload_{name}", row=row, column=column, words=words)


def _zip_folder(folder: Path, members: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.iterdir()):
            name = (members or {}).get(path.name, path.name)
            if members is None or path.name in members:
                archive.write(path, name)
    return buffer.getvalue()


def test_label_outside_the_schema_in_a_zip():
    raw = _zip_folder(BAD / "outside_schema")
    with pytest.raises(DataError) as err:
        load(raw, name="survey.zip")
    check_error(
        err.value,
        file="survey.zip/annotations.csv",
        row=5,
        column="label",
        words=("'extreme'", "schema"),
    )


def test_schema_order_is_the_inventory_order(tmp_path):
    folder = tmp_path / "ok"
    folder.mkdir()
    (folder / "annotations.csv").write_text(
        "item_id,annotator_id,label\ni1,a1,low\ni1,a2,high\ni2,a1,mid\ni2,a2,mid\n"
    )
    (folder / "labels.csv").write_text("label\nlow\nmid\nhigh\n")
    ds = load(_zip_folder(folder), name="ok.zip")
    assert ds.labels == ("low", "mid", "high")  # schema order, not alphabetical
    assert ds.majority_label().to_dict() == {"i1": "low", "i2": "mid"}  # tie -> lowest index


# --------------------------------------------------------------------------- files that load
def test_utf8_bom_loads_with_clean_header():
    ds = load(BAD / "bom.csv")
    assert list(ds.annotations.columns[:3]) == ["item_id", "annotator_id", "label"]
    assert ds.labels == ("café", "thé")
    assert ds.item_ids.tolist() == ["i1", "i2"]


def test_html_in_annotator_names_is_kept_verbatim():
    ds = load(BAD / "html_annotator.csv")
    assert ds.annotator_ids.tolist() == [
        '<script>alert("x")</script>',
        "<b>Bob</b> &amp; co",
        "<img src=x onerror=alert(1)>",
    ]
    assert ds.n_annotators == 3 and len(ds.annotations) == 6
    table = ds.item_annotations("i1")
    assert '<script>alert("x")</script>' in table["annotator_id"].tolist()


def test_numeric_looking_labels_stay_strings():
    ds = load(BAD / "numeric_labels.csv")
    assert ds.labels == ("-3", "0", "1.0")  # numeric order, text as written ("1.0" not "1")
    assert ds.annotations["label"].map(type).eq(str).all()
    assert ds.task == "rating"
    assert ds.judgements().loc["i1"].tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert ds.judgements().loc["i2"].tolist() == pytest.approx([0, 2 / 3, 1 / 3])
    assert ds.label_numeric_values().tolist() == [-3.0, 0.0, 1.0]


def test_literal_nan_label_is_a_clear_error_not_a_silent_label():
    """Cells are read with keep_default_na=False , so the text 'NaN' is not turned into
    a missing value; but a label called 'NaN' is almost always a missing value exported by a
    spreadsheet or pandas, so the loader refuses it and says how to fix it."""
    with pytest.raises(DataError) as info:
        load(BAD / "nan_string_label.csv")
    message = str(info.value)
    assert "nan_string_label.csv" in message and "column 'label'" in message
    assert "row " in message and "How to fix" in message


# --------------------------------------------------------------------------- predictions
@pytest.fixture(scope="module")
def base():
    return load(BAD / "base_annotations.csv")


@pytest.mark.parametrize(
    ("name", "row", "column", "words"),
    [
        ("predictions_not_sum.csv", 4, "prob", ("'i2'", "sum to 1.2")),
        ("predictions_unknown_item.csv", 4, "item_id", ("'i9'",)),
        ("predictions_unknown_label.csv", 3, "label", ("'maybe'",)),
        ("predictions_empty_prob.csv", 3, "prob", ()),
        ("predictions_out_of_range.csv", 2, "prob", ("'1.7'",)),
    ],
)
def test_bad_predictions(base, name, row, column, words):
    with pytest.raises(DataError) as err:
        load_predictions(BAD / name, base)
    check_error(err.value, file=name, row=row, column=column, words=words)


def test_good_predictions_wide_and_long(base):
    long = load_predictions(
        b"item_id,label,prob\ni1,yes,0.7\ni1,no,0.3\ni2,no,1\n", base, name="p.csv"
    )
    wide = load_predictions(b"item_id,no,yes\ni1,0.3,0.7\ni2,1,0\n", base, name="p.csv")
    assert set(long["model"]) == {"p"}
    merged = long.merge(wide, on=["model", "item_id", "label"], how="left")
    assert np.allclose(merged["prob_x"], merged["prob_y"])


# --------------------------------------------------------------------------- real datasets
REAL = [
    # folder, annotation file, items, annotators, annotations, task
    ("hs_brexit", "annotations.csv", 1120, 6, 6720, "multiclass"),
    ("md_agreement", "annotations.csv", 10753, 819, 53764, "multiclass"),
    ("armis", "annotations.csv", 943, 3, 2829, "multiclass"),
    ("convabuse", "annotations.csv", 4050, 8, 12168, "rating"),
    ("convabuse", "annotations_binary.csv", 4050, 8, 12168, "multiclass"),
    ("csc", "annotations.csv", 1408, 872, 6410, "rating"),
    ("multipico", "annotations.csv", 6761, 506, 33871, "multiclass"),
    ("paraphrase", "annotations.csv", 500, 4, 2000, "rating"),
    ("varierrnli", "annotations.csv", 500, 4, 1933, "multilabel"),
]


def independent_p(annotations: pd.DataFrame, item_ids, labels) -> np.ndarray:
    """P_ik = (#annotators of item i who chose k) / (#annotators of item i), with pandas only."""
    counts = pd.crosstab(annotations["item_id"], annotations["label"]).reindex(
        index=list(item_ids), columns=list(labels), fill_value=0
    )
    n = annotations.groupby("item_id")["annotator_id"].nunique().reindex(list(item_ids))
    return counts.to_numpy(dtype=float) / n.to_numpy(dtype=float)[:, None]


def _dataset_zip(folder: Path, annotation_file: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(folder / annotation_file, "annotations.csv")
        for extra in ("items.csv", "annotators.csv"):
            if (folder / extra).exists():
                archive.write(folder / extra, extra)
    return buffer.getvalue()


@pytest.mark.parametrize(("folder", "file", "n_items", "n_ann", "n_rows", "task"), REAL)
def test_canonical_zip_on_real_data(folder, file, n_items, n_ann, n_rows, task):
    path = shared_path("data", folder)
    ds = load(_dataset_zip(path, file), name=f"{folder}.zip")
    assert ds.report.format == "canonical_zip"
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (n_items, n_ann, n_rows)
    assert ds.task == task
    source = pd.read_csv(path / file, **STRICT)
    assert set(ds.labels) == set(source["label"])
    np.testing.assert_allclose(
        ds.judgements_array(), independent_p(source, ds.item_ids, ds.labels), atol=1e-12
    )
    items = pd.read_csv(path / "items.csv", **STRICT)
    assert ds.item_ids.tolist() == items["item_id"].tolist()
    assert "split" in ds.items.columns and "text" in ds.items.columns
    if (path / "annotators.csv").exists():
        traits = pd.read_csv(path / "annotators.csv", dtype=str)
        got = ds.annotators.set_index("annotator_id").reindex(traits["annotator_id"])
        for column in traits.columns.drop("annotator_id"):
            expected = traits[column].tolist()
            observed = got[column].tolist()
            assert [None if pd.isna(x) else x for x in observed] == [
                None if pd.isna(x) else x for x in expected
            ], column


def test_real_multilabel_pairs_and_multiclass_rows_sum_to_one():
    path = shared_path("data", "varierrnli")
    ds = load(_dataset_zip(path, "annotations.csv"), name="varierrnli.zip")
    pairs = ds.annotations.drop_duplicates(["item_id", "annotator_id"])
    assert len(pairs) == 1856  # README: 1933 rows from 1856 (item, annotator) pairs
    assert int(ds.annotators_per_item_array().sum()) == 1856
    hs = load(_dataset_zip(shared_path("data", "hs_brexit"), "annotations.csv"), name="hs.zip")
    np.testing.assert_allclose(hs.judgements_array().sum(axis=1), 1.0)


@pytest.mark.parametrize(
    ("folder", "file"),
    [
        ("hs_brexit", "annotations.csv"),
        ("armis", "annotations.csv"),
        ("md_agreement", "annotations.csv"),
        ("convabuse", "annotations_binary.csv"),
    ],
)
def test_majority_equals_source_hard_label_where_untied(folder, file):
    path = shared_path("data", folder)
    ds = load(_dataset_zip(path, file), name=f"{folder}.zip")
    p = ds.judgements_array()
    top = np.sort(p, axis=1)
    untied = top[:, -1] > top[:, -2]
    hard = ds.items.set_index("item_id").loc[ds.item_ids, "hard_label"].to_numpy()
    majority = ds.majority_label().to_numpy()
    assert untied.sum() >= 0.9 * len(p)  # the check covers almost every item
    assert (majority[untied] == hard[untied]).all()


def test_canonical_csv_and_parquet_on_real_data(tmp_path):
    path = shared_path("data", "md_agreement", "annotations.csv")
    ds = load(path)
    assert ds.report.format == "canonical"
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (10753, 819, 53764)
    frame = pd.read_csv(path, **STRICT)
    parquet = tmp_path / "md.parquet"
    frame.to_parquet(parquet)
    from_parquet = load(parquet)
    assert from_parquet.content_hash == ds.content_hash
    tsv = tmp_path / "md.tsv"
    frame.to_csv(tsv, sep="\t", index=False)
    assert load(tsv).content_hash == ds.content_hash


def test_crowdkit_on_real_data(tmp_path):
    path = shared_path("data", "hs_brexit", "annotations.csv")
    frame = pd.read_csv(path, **STRICT)
    crowd = tmp_path / "hs_crowdkit.csv"
    frame.rename(columns={"item_id": "task", "annotator_id": "worker"}).to_csv(crowd, index=False)
    ds = load(crowd)
    assert ds.report.format == "crowdkit"
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (1120, 6, 6720)
    np.testing.assert_allclose(ds.judgements_array(), independent_p(frame, ds.item_ids, ds.labels))
    legacy = tmp_path / "hs_performer.csv"
    frame.rename(columns={"item_id": "task", "annotator_id": "performer"}).to_csv(
        legacy, index=False
    )
    assert load(legacy).content_hash == ds.content_hash
    # multi-label as list-valued labels (crowd-kit style) -> exploded
    var = pd.read_csv(shared_path("data", "varierrnli", "annotations.csv"), **STRICT)
    lists = (
        var.groupby(["item_id", "annotator_id"], sort=False)["label"]
        .agg(lambda s: str(list(s)))
        .reset_index()
        .rename(columns={"item_id": "task", "annotator_id": "worker"})
    )
    listed = tmp_path / "var_crowdkit.csv"
    lists.to_csv(listed, index=False)
    multi = load(listed)
    assert multi.task == "multilabel"
    assert (multi.n_items, multi.n_annotators, len(multi.annotations)) == (500, 4, 1933)
    np.testing.assert_allclose(
        multi.judgements_array(), independent_p(var, multi.item_ids, multi.labels)
    )


def test_wide_matrices_on_real_data(tmp_path):
    frame = pd.read_csv(shared_path("data", "paraphrase", "annotations.csv"), **STRICT)
    wide = frame.pivot(index="item_id", columns="annotator_id", values="label")
    items_path = tmp_path / "paraphrase_wide.csv"
    wide.reset_index().to_csv(items_path, index=False)
    ds = load(items_path)
    assert ds.report.format == "wide_items"
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (500, 4, 2000)
    assert ds.labels == tuple(str(v) for v in range(-5, 6))
    np.testing.assert_allclose(ds.judgements_array(), independent_p(frame, ds.item_ids, ds.labels))
    transposed = tmp_path / "paraphrase_coders.csv"
    wide.T.rename_axis("annotator_id").reset_index().to_csv(transposed, index=False)
    coders = load(transposed)
    assert coders.report.format == "wide_annotators"
    assert len(coders.annotations) == 2000 and coders.n_items == 500
    # sparse matrix: empty cells are missing annotations, not labels
    csc = pd.read_csv(shared_path("data", "csc", "annotations.csv"), **STRICT)
    sparse = tmp_path / "csc_wide.csv"
    csc.pivot(index="item_id", columns="annotator_id", values="label").reset_index().to_csv(
        sparse, index=False
    )
    ds = load(sparse)
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (1408, 872, 6410)
    np.testing.assert_allclose(ds.judgements_array(), independent_p(csc, ds.item_ids, ds.labels))


def test_cifar10h_counts(tmp_path):
    path = shared_path("data", "cifar10h")
    counts = pd.read_csv(path / "label_counts.csv", **STRICT)
    items = pd.read_csv(path / "items.csv", **STRICT)
    ds = load(path / "label_counts.csv")
    assert ds.report.format == "counts" and not ds.annotator_ids_known
    assert (ds.n_items, len(ds.annotations)) == (10000, 511000)
    assert ds.labels == (
        "airplane", "automobile", "bird", "cat", "deer",
        "dog", "frog", "horse", "ship", "truck",
    )  # fmt: skip
    per_item = items.set_index("item_id")["n_annotations"].astype(int)
    assert (ds.annotators_per_item_array() == per_item.loc[ds.item_ids].to_numpy()).all()
    table = (
        counts.assign(count=counts["count"].astype(int))
        .pivot(index="item_id", columns="label", values="count")
        .reindex(index=ds.item_ids, columns=list(ds.labels))
        .fillna(0)
        .to_numpy()
    )
    expected = table / table.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(ds.judgements_array(), expected)
    assert ds.summary()["n_annotators"] is None
    # the same counts as a CIFAR-10H style .npy matrix
    npy = tmp_path / "cifar10h-counts.npy"
    np.save(npy, table.astype(np.int64))
    from_npy = load(npy, labels=list(ds.labels))
    assert from_npy.n_items == 10000 and len(from_npy.annotations) == 511000
    np.testing.assert_allclose(from_npy.judgements_array(), expected)


def test_dermatology_selectors():
    folder = shared_path("data", "dermatology_ddx")
    raw = json.loads((folder / "dermatology_selectors.json").read_text())
    ds = load(
        folder / "dermatology_selectors.json",
        conditions=folder / "dermatology_conditions.txt",
        risks=folder / "dermatology_risks.txt",
    )
    assert ds.report.format == "selectors" and ds.task == "ranking"
    assert ds.n_items == 1947
    assert ds.n_labels == 419
    readers = ds.annotations.drop_duplicates(["item_id", "annotator_id"])
    assert len(readers) == 9602
    blocks = ds.annotations.groupby(["item_id", "annotator_id"])["rank"].max().value_counts()
    assert blocks.to_dict() == {1: 5858, 2: 3097, 3: 642, 4: 5}  # README block counts
    assert ds.selectors() == raw  # exact round trip of the source layout
    risk = pd.Series(ds.extra["risk"]).value_counts().to_dict()
    assert risk == {"0": 201, "1": 150, "2": 68}
    # P: each reader's top block, ties split evenly, averaged over the case's readers
    expected = np.zeros((len(raw), 419))
    for c, case in enumerate(raw):
        for ranking in case:
            top = ranking[0]
            expected[c, top] += 1.0 / len(top)
        expected[c] /= len(case)
    np.testing.assert_allclose(ds.judgements_array(), expected)


def test_hard_labels_outside_the_inventory_are_refused_unless_kept():
    """A hard label the dataset does not have is an error by default; ``unknown_labels="keep"``
    (the alt-test's reader) keeps hard labels with a note, never probabilities."""
    from hlv_core.io import ImportReport

    dataset = load(b"item_id,annotator_id,label\ni1,a,pos\ni1,b,neg\ni2,a,pos\n",
                   name="toy.csv")
    hard = b"item_id,label\ni1,pos\ni2,<b>none</b>\n"
    with pytest.raises(DataError, match="is not a label of the dataset") as err:
        load_predictions(hard, dataset, name="llm.csv")
    assert "row 3" in str(err.value) and "column 'label'" in str(err.value)
    report = ImportReport("llm.csv", "predictions")
    kept = load_predictions(hard, dataset, name="llm.csv", unknown_labels="keep", report=report)
    assert kept["label"].tolist() == ["pos", "<b>none</b>"] and kept["prob"].tolist() == [1, 1]
    assert any("1 hard label(s) outside the dataset's labels kept" in n for n in report.notes)
    soft = b"item_id,label,prob\ni1,pos,1\ni2,maybe,1\n"
    with pytest.raises(DataError, match="'maybe' is not a label"):
        load_predictions(soft, dataset, name="soft.csv", unknown_labels="keep")
    with pytest.raises(ValueError, match="unknown_labels"):
        load_predictions(hard, dataset, name="llm.csv", unknown_labels="ignore")
