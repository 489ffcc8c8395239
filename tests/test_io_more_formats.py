"""CIFAR-10H raw CSV, DeepMind opinions arrays and LeWiDi submission TSVs (each in its published
layout)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import (
    FORMATS,
    DataError,
    build_dataset,
    detect_format,
    load,
    load_lewidi_submission,
    load_predictions,
)
from hlv_core.io._read import as_source

from .conftest import shared_path

GOOD = Path(__file__).parent / "data" / "good"
BAD = Path(__file__).parent / "data" / "bad"
CIFAR10 = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
           "truck"]


# ------------------------------------------------------------------------------ CIFAR-10H raw
def test_cifar10h_raw_detected_attention_checks_dropped_and_ids_linked():
    ds = load(GOOD / "cifar10h-raw_mini.csv")
    assert ds.report.format == "cifar10h_raw" and "cifar10h_raw" in FORMATS
    assert ds.annotator_ids_known and ds.task == "multiclass"
    assert ds.report.rows_read == 14
    assert ds.report.dropped == {"attention-check rows (is_attn_check = 1)": 3}
    assert any("1 annotator(s) failed" in note for note in ds.report.notes)
    assert len(ds.annotations) == 11
    assert ds.item_ids.tolist() == ["0", "2", "4", "7"]  # test-set index order
    assert ds.annotator_ids.tolist() == ["0", "1", "2"]
    # integers kept as written; inventory = chosen and true labels, numeric order
    assert ds.labels == ("0", "3", "5", "6", "8")
    np.testing.assert_array_equal(
        ds.counts_array(), [[0, 1, 2, 0, 0], [1, 0, 0, 0, 2], [0, 0, 0, 2, 0], [0, 3, 0, 0, 0]]
    )
    assert ds.items.set_index("item_id")["true_label"].to_dict() == {
        "0": "3", "2": "8", "4": "6", "7": "3"}
    # the same annotator is linked across images
    assert set(ds.annotations.loc[ds.annotations["annotator_id"] == "1", "item_id"]) == {
        "0", "2", "4", "7"}


def test_cifar10h_raw_labels_option_maps_indices_to_names():
    ds = load(GOOD / "cifar10h-raw_mini.csv", labels=CIFAR10)
    assert ds.labels == tuple(CIFAR10)
    assert ds.judgements().loc["0", ["cat", "dog"]].tolist() == [1 / 3, 2 / 3]
    assert ds.items.set_index("item_id").loc["2", "true_label"] == "ship"
    # a one-name-per-line file works too
    lines = "\n".join(CIFAR10).encode()
    assert load(GOOD / "cifar10h-raw_mini.csv", labels=lines).labels == tuple(CIFAR10)


def test_cifar10h_raw_with_class_names_in_the_file():
    raw = (
        b"annotator_id,is_attn_check,chosen_label,cifar10_test_test_idx,reaction_time\n"
        b"a,0,cat,5,100\na,1,truck,-99999,90\nb,0,dog,5,120\nb,0,cat,9,80\n"
    )
    ds = load(raw, name="names.csv")
    assert ds.report.format == "cifar10h_raw" and ds.labels == ("cat", "dog")
    ordered = load(raw, name="names.csv", labels=CIFAR10)
    assert ordered.labels == tuple(CIFAR10)
    with pytest.raises(DataError, match="'dog' is not one of the labels"):
        load(raw, name="names.csv", labels=["cat", "truck"])


def test_cifar10h_raw_errors_name_row_and_fix():
    with pytest.raises(DataError) as err:
        load(BAD / "cifar10h-raw_bad_index.csv")
    assert err.value.row == 3 and err.value.column == "cifar10_test_test_idx"
    assert "-99999" in str(err.value) and "attention checks" in str(err.value)
    with pytest.raises(DataError, match="row 3, column 'chosen_label': class index '5' has no name"):
        load(GOOD / "cifar10h-raw_mini.csv", labels=CIFAR10[:5])
    # forcing the format on a canonical file names the missing columns
    with pytest.raises(DataError, match="missing"):
        load(b"item_id,annotator_id,label\n1,a,x\n", name="c.csv", format="cifar10h_raw")
    raw = b"annotator_id,is_attn_check,chosen_label,cifar10_test_test_idx\na,maybe,3,1\n"
    with pytest.raises(DataError, match="is_attn_check 'maybe'"):
        load(raw, name="x.csv")


# ---------------------------------------------------------------------------------- opinions
def test_opinions_match_the_hand_converted_selectors():
    opinions = load(GOOD / "opinions_mini.json")
    selectors = load(GOOD / "opinions_mini_selectors.json")
    assert opinions.report.format == "opinions" and selectors.report.format == "selectors"
    assert opinions.selectors() == selectors.selectors()
    assert opinions.selectors() == json.loads(
        (GOOD / "opinions_mini_selectors.json").read_text()
    )[:2] + [json.loads((GOOD / "opinions_mini_selectors.json").read_text())[3]]
    key = ["item_id", "annotator_id", "label", "rank"]
    a = opinions.annotations[key].sort_values(key).reset_index(drop=True)
    b = selectors.annotations[key].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    assert opinions.item_ids.tolist() == selectors.item_ids.tolist() == ["0", "1", "3"]
    # the opinions matrix fixes K = 5 even though class 4 appears only in case 3
    assert opinions.labels == ("0", "1", "2", "3", "4")
    assert opinions.report.dropped == {
        "empty readers (all-zero rows)": 3, "cases without any ranking": 1}
    assert not opinions.annotator_ids_known and opinions.task == "ranking"


def test_opinions_with_conditions_and_risks_equal_selectors():
    names = (GOOD / "opinions_mini_conditions.txt").read_bytes()
    risks = ["high", "low", "medium", "low", "low"]
    opinions = load(GOOD / "opinions_mini.json", conditions=names, risks=risks)
    selectors = load(GOOD / "opinions_mini_selectors.json", conditions=names, risks=risks)
    assert opinions.labels == selectors.labels == (
        "melanoma", "nevus", "psoriasis", "eczema", "acne")
    assert opinions.selectors() == selectors.selectors()
    np.testing.assert_allclose(opinions.judgements_array(), selectors.judgements_array())
    assert opinions.extra["risk"]["melanoma"] == "high"
    with pytest.raises(DataError, match="4 names but the rows have 5"):
        load(GOOD / "opinions_mini.json", conditions=["a", "b", "c", "d"])


def test_dense_ranks_and_ties_by_hand():
    raw = json.dumps([[[10, 0, 10, 3, 7]]]).encode()
    ds = load(raw, name="o.json")
    ranks = ds.annotations.set_index("label")["rank"].to_dict()
    assert ranks == {"0": 1, "2": 1, "3": 3, "4": 2}
    assert ds.selectors() == [[[[0, 2], [4], [3]]]]


def test_detection_rule_selectors_vs_opinions():
    opinions = [[], [[0, 2, 1]], [[1, 0, 0], [0, 0, 3]]]
    selectors = [[], [[[1], [2]]], [[[0]], [[2]]]]
    assert detect_format(as_source(json.dumps(opinions).encode(), "o.json")) == "opinions"
    assert detect_format(as_source(json.dumps(selectors).encode(), "s.json")) == "selectors"
    # all cases empty: ambiguous, read as selectors
    assert detect_format(as_source(b"[[], []]", "e.json")) == "selectors"
    # rows of unequal length are not an opinions matrix, nor selectors
    with pytest.raises(DataError, match="unknown layout"):
        load(BAD / "opinions_ragged.json")


def test_opinions_errors_and_the_override_wins():
    with pytest.raises(DataError) as err:
        load(BAD / "opinions_ragged.json", format="opinions")
    assert err.value.row == 1 and "reader 2" in err.value.column
    with pytest.raises(DataError, match="negative confidence -1 for class 2"):
        load(BAD / "opinions_negative.json")
    with pytest.raises(DataError, match="looks like a selectors ranking"):
        load(GOOD / "opinions_mini_selectors.json", format="opinions")
    with pytest.raises(DataError, match="not a selectors file"):
        load(GOOD / "opinions_mini.json", format="selectors")
    with pytest.raises(DataError, match="every confidence is 0"):
        load(b"[[[0, 0], [0, 0]]]", name="z.json")


# ------------------------------------------------------------------------ LeWiDi submissions
def _binary_with_test_split() -> object:
    ann = pd.DataFrame(
        {
            "item_id": ["t1", "t1", "d1", "d1", "t2", "t2", "t3", "t3"],
            "annotator_id": ["a", "b"] * 4,
            "label": ["0", "1", "1", "1", "0", "0", "1", "1"],
        }
    )
    items = pd.DataFrame({"item_id": ["t1", "d1", "t2", "t3"],
                          "split": ["test", "dev", "test", "test"]})
    return build_dataset(ann, source="toy", format="canonical", items=items)


def test_lewidi2023_results_follow_the_test_split_order():
    ds = _binary_with_test_split()
    raw = b"0\t0.7\t0.3\n0\t1.0\t0.0\n1\t0.25\t0.75\n"
    preds = load_lewidi_submission(raw, ds, name="Toy_results.tsv")
    assert list(preds.columns) == ["model", "item_id", "label", "prob"]
    assert preds["model"].unique().tolist() == ["Toy_results"]
    assert preds["item_id"].tolist() == ["t1", "t1", "t2", "t2", "t3", "t3"]
    assert preds["prob"].tolist() == [0.7, 0.3, 1.0, 0.0, 0.25, 0.75]
    # load_predictions recognises the headerless file
    pd.testing.assert_frame_equal(load_predictions(raw, ds, name="Toy_results.tsv"), preds)


def test_lewidi2023_errors():
    ds = _binary_with_test_split()
    with pytest.raises(DataError) as err:
        load_lewidi_submission(b"0\t0.7\t0.3\n0\t1.0\t0.0\n", ds, name="Toy_results.tsv")
    assert "2 lines" in str(err.value) and "3 test split items" in str(err.value)
    with pytest.raises(DataError) as err:
        load_lewidi_submission(b"0\t0.7\t0.3\n0\t0.5\t0.4\n1\t0\t1\n", ds, name="r.tsv")
    assert err.value.row == 2 and "'t2'" in str(err.value) and "sum to 0.9" in str(err.value)
    with pytest.raises(DataError, match="hard label '2'"):
        load_lewidi_submission(b"2\t0.7\t0.3\n0\t1\t0\n1\t0\t1\n", ds, name="r.tsv")
    with pytest.raises(DataError, match="probability '1.5'"):
        load_lewidi_submission(b"0\t1.5\t0.3\n0\t1\t0\n1\t0\t1\n", ds, name="r.tsv")
    rating = load(GOOD / "ConvAbuse_mini.json")
    with pytest.raises(DataError, match="labels 0 and 1"):
        load_lewidi_submission(b"0\t0.7\t0.3\n", rating, name="ConvAbuse_results.tsv")


def test_lewidi2023_on_the_real_hs_brexit_test_split(tmp_path):
    ds = load(shared_path("data", "hs_brexit"))
    test = ds.items[ds.items["split"] == "test"]["item_id"].tolist()
    p1 = np.linspace(0, 1, len(test))
    lines = [f"{int(p > 0.5)}\t{1 - p:.17g}\t{p:.17g}" for p in p1]
    path = tmp_path / "HS-Brexit_results.tsv"
    path.write_text("\n".join(lines) + "\n")
    preds = load_predictions(path, ds)
    ones = preds[preds["label"] == "1"]
    assert ones["item_id"].tolist() == test
    np.testing.assert_allclose(ones["prob"].to_numpy(), p1)
    path.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(DataError, match=f"{len(test) - 1} lines .* {len(test)} test split"):
        load_predictions(path, ds)


def test_lewidi2025_soft_multiclass_rating_and_multilabel():
    mp = load(GOOD / "MP_mini.json")
    preds = load_lewidi_submission(GOOD / "mp_test_soft.tsv", mp)
    assert preds.shape == (6, 4)
    assert preds.set_index(["item_id", "label"]).loc[("2", "1"), "prob"] == 0.6
    csc = load(GOOD / "CSC_mini.json")
    preds = load_predictions(GOOD / "csc_test_soft.tsv", csc)
    assert preds["label"].tolist()[:6] == ["1", "2", "3", "4", "5", "6"]
    assert preds.groupby("item_id")["prob"].sum().tolist() == [1.0, 1.0]
    ven = load(GOOD / "VariErrNLI_mini.json")
    preds = load_lewidi_submission(GOOD / "ven_test_soft.tsv", ven)
    # [p0, p1] per label in inventory order (contradiction, entailment, neutral): prob = p1
    wide = preds.pivot(index="item_id", columns="label", values="prob")
    assert wide.loc["49807"].tolist() == [0.1, 0.5, 0.75]
    assert wide.loc["76020"].tolist() == [0.8, 0.4, 0.0]


def test_lewidi2025_pe_rows_follow_the_items_annotators():
    mp = load(GOOD / "MP_mini.json")
    preds = load_lewidi_submission(GOOD / "mp_test_pe.tsv", mp)
    assert list(preds.columns) == ["model", "item_id", "label", "prob", "annotator_id"]
    assert (preds["prob"] == 1.0).all()
    item2 = preds[preds["item_id"] == "2"]
    assert item2["annotator_id"].tolist() == ["Ann0", "Ann20", "Ann59", "Ann62", "Ann63"]
    assert item2["label"].tolist() == ["0", "1", "1", "1", "0"]
    csc = load(GOOD / "CSC_mini.json")
    preds = load_predictions(GOOD / "csc_test_pe.tsv", csc)
    assert preds[preds["item_id"] == "1907"]["label"].tolist() == ["1", "1", "1", "2", "1", "4"]
    ven = load(GOOD / "VariErrNLI_mini.json")
    preds = load_lewidi_submission(GOOD / "ven_test_pe.tsv", ven)
    got = preds.groupby(["item_id", "annotator_id"])["label"].agg(lambda s: sorted(s))
    assert got[("49807", "Ann2")] == ["entailment", "neutral"]
    assert got[("76020", "Ann4")] == ["contradiction", "neutral"]  # 0/1 vector
    assert got[("76947", "Ann3")] == ["entailment", "neutral"]
    assert ("76947", "Ann2") not in got.index  # Ann2 did not annotate 76947


def test_lewidi2025_kind_from_content_and_override():
    mp = load(GOOD / "MP_mini.json")
    raw_soft = (GOOD / "mp_test_soft.tsv").read_bytes()
    raw_pe = (GOOD / "mp_test_pe.tsv").read_bytes()
    assert "annotator_id" not in load_lewidi_submission(raw_soft, mp).columns  # floats
    assert "annotator_id" in load_lewidi_submission(raw_pe, mp).columns  # ints
    # one-hot soft rows written as ints need kind="soft"
    onehot = b"2\t[0, 1]\n6\t[1, 0]\n"
    with pytest.raises(DataError, match="kind='soft'"):
        load_lewidi_submission(onehot, mp)
    preds = load_lewidi_submission(onehot, mp, kind="soft", edition="2025", model="m")
    assert preds["prob"].tolist() == [0.0, 1.0, 1.0, 0.0] and set(preds["model"]) == {"m"}
    with pytest.raises(DataError, match="no perspectivist"):
        load_lewidi_submission(b"0\t0.5\t0.5\n", mp, kind="pe")


@pytest.mark.parametrize(
    ("fixture", "fragment", "row"),
    [
        ("mp_test_soft_not_sum.tsv", "item '2' sum to 0.9", 1),
        ("mp_test_soft_unknown_item.tsv", "item '999' is not in the dataset", 2),
        ("mp_test_soft_wrong_length.tsv", "3 probabilities for 2 labels", 1),
        ("mp_test_pe_wrong_count.tsv", "3 predictions for 4 annotators", 2),
        ("mp_test_pe_unknown_label.tsv", "7 is not a label", 1),
    ],
)
def test_lewidi2025_bad_files_name_file_line_and_fix(fixture, fragment, row):
    mp = load(GOOD / "MP_mini.json")
    with pytest.raises(DataError) as err:
        load_lewidi_submission(BAD / fixture, mp)
    assert fragment in str(err.value)
    assert err.value.row == row and fixture in err.value.source and err.value.fix


def test_lewidi2025_more_errors():
    mp = load(GOOD / "MP_mini.json")
    with pytest.raises(DataError, match="appears twice"):
        load_lewidi_submission(b"2\t[0.5, 0.5]\n2\t[0.5, 0.5]\n", mp, name="mp_test_soft.tsv")
    with pytest.raises(DataError, match="is not a list"):
        load_lewidi_submission(b"2\t[0.5, 0.5]\n6\t[0.5, oops]\n", mp, edition="2025")
    with pytest.raises(DataError, match="not a LeWiDi submission line"):
        load_lewidi_submission(b"item_id,label\n2,0\n", mp, name="x.tsv")
    with pytest.raises(DataError, match="empty line"):
        load_lewidi_submission(b"2\t[0.5, 0.5]\n\n6\t[0.5, 0.5]\n", mp, name="mp_test_soft.tsv")
    ven = load(GOOD / "VariErrNLI_mini.json")
    with pytest.raises(DataError, match="pair \\[0.5, 0.6\\] sums to 1.1"):
        load_lewidi_submission(
            b"49807\t[[0.5, 0.6], [0.5, 0.5], [0.5, 0.5]]\n", ven, name="ven_test_soft.tsv"
        )
    derm_like = load(GOOD / "opinions_mini.json")
    with pytest.raises(DataError, match="not rankings"):
        load_lewidi_submission(b"0\t[0.5, 0.5]\n", derm_like, name="x_test_soft.tsv")
    # headered prediction files are still read the ordinary way
    preds = load_predictions(b"item_id,label,prob\n2,0,0.5\n2,1,0.5\n", mp, name="p.csv")
    assert preds["prob"].tolist() == [0.5, 0.5]
