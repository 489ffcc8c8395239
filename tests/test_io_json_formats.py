"""JSON importers (hlv_core.io.json_formats): LeWiDi 2023/2025, ChaosNLI, Label Studio, Prodigy.

Fixtures in tests/data/good/ are hand-written in the documented layouts (the
LeWiDi records copy the field names and quirks of the public 2023/2025 files). The round-trip test
rebuilds the real HS-Brexit data (../shared/data/hs_brexit) as a LeWiDi 2023 JSON file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import DataError, load
from hlv_core.io._read import Source
from hlv_core.io.json_formats import detect_json, detect_jsonl, read

from .conftest import shared_path

GOOD = Path(__file__).parent / "data" / "good"


def good(name: str) -> Path:
    return GOOD / name


def p_of(dataset) -> dict[str, dict[str, float]]:
    """P as {item: {label: p}} for readable assertions."""
    frame = dataset.judgements()
    return {i: frame.loc[i].to_dict() for i in frame.index}


# --------------------------------------------------------------------------- detection
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("HS-Brexit_mini.json", "lewidi2023"),
        ("ConvAbuse_mini.json", "lewidi2023"),
        ("MD-Agreement_mini.json", "lewidi2023"),
        ("VariErrNLI_mini.json", "lewidi2025"),
        ("MP_mini.json", "lewidi2025"),
        ("Paraphrase_mini.json", "lewidi2025"),
        ("CSC_mini.json", "lewidi2025"),
        ("labelstudio_export.json", "labelstudio"),
        ("labelstudio_ner.json", "labelstudio"),
    ],
)
def test_detect_json_fixtures(name, expected):
    data = json.loads(good(name).read_text(encoding="utf-8"))
    assert detect_json(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        {},
        [],
        {"name": "survey", "questions": [1, 2]},
        {"1": {"text": "a", "annotations": 5}},
        [1, 2, 3],
        [{"data": {"text": "a"}}],  # Label Studio task without annotations or predictions
        {"1": {"annotators": "A,B", "annotations": "0,1"}},  # no text field
    ],
)
def test_detect_json_unknown(data):
    assert detect_json(data) is None


def test_detect_jsonl():
    prodigy = [json.loads(x) for x in good("prodigy_choice.jsonl").read_text().splitlines()]
    chaos = [
        json.loads(x) for x in good("chaosnli_mini.jsonl").read_text().splitlines() if x.strip()
    ]
    assert detect_jsonl(prodigy) == "prodigy"
    assert detect_jsonl(chaos) == "chaosnli"
    assert detect_jsonl([{"uid": "1"}]) is None
    assert detect_jsonl([{"_input_hash": 1, "answer": "accept"}]) is None  # no annotator
    assert detect_jsonl([1, 2]) is None
    # a JSON array of Prodigy records is recognised too
    assert detect_json(prodigy) == "prodigy"


# --------------------------------------------------------------------------- LeWiDi 2023
def test_lewidi2023_hs_brexit_groups_and_other_views():
    ds = load(good("HS-Brexit_mini.json"))
    assert ds.report.format == "lewidi2023"
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (3, 6, 18)
    assert ds.labels == ("0", "1") and ds.task == "multiclass"
    traits = ds.annotators.set_index("annotator_id")["group"].to_dict()
    assert traits == {f"Ann{i}": "target" if i <= 3 else "control" for i in range(1, 7)}
    assert p_of(ds)["2"] == pytest.approx({"0": 2 / 6, "1": 4 / 6})
    assert ds.items.set_index("item_id").loc["3", "split"] == "dev"
    # soft labels of the source kept and equal to P
    np.testing.assert_allclose(
        ds.extra["soft_label"].loc[list(ds.item_ids), list(ds.labels)].to_numpy(),
        ds.judgements_array(),
    )
    assert any("equal the source soft_label" in n for n in ds.report.notes)
    offensive = ds.extra["other_annotations"]["offensive language detection"]
    assert len(offensive) == 18
    # the source's stray "No" cell is kept verbatim, never coerced
    assert offensive.query("item_id == '2' and annotator_id == 'Ann2'")["label"].item() == "No"


def test_lewidi2023_view_option_loads_another_task():
    ds = load(good("HS-Brexit_mini.json"), view="offensive language detection")
    assert ds.labels == ("0", "1", "No")
    assert p_of(ds)["1"] == pytest.approx({"0": 0.5, "1": 0.5, "No": 0.0})
    with pytest.raises(DataError) as err:
        load(good("HS-Brexit_mini.json"), view="stance")
    assert "stance" in str(err.value) and "How to fix" in str(err.value)


def test_lewidi2023_convabuse_text_and_severities():
    ds = load(good("ConvAbuse_mini.json"))
    assert ds.labels == ("-3", "-2", "-1", "0", "1")  # severities stay strings, numeric order
    assert ds.task == "rating" and ds.level == "ordinal"
    items = ds.items.set_index("item_id")
    # JSON string and Python-repr string conversations are both parsed into turns
    assert items.loc["1", "text"] == "yes"
    assert items.loc["1", "prev_user"] == "well, i have a eatproblem"
    assert items.loc["2", "text"] == "you are a stupid bot"
    assert items.loc["2", "agent"] == "Does that question interest you?"
    assert items.loc["1", "bot"] == "E.L.I.Z.A." and items.loc["1", "conversation_ids"] == "4|17"
    assert p_of(ds)["2"] == pytest.approx({"-3": 0, "-2": 0.25, "-1": 0.25, "0": 0.25, "1": 0.25})
    # the binary soft label is another view: kept, not compared
    assert list(ds.extra["soft_label"].columns) == ["0", "1"]
    assert any("another view" in n for n in ds.report.notes)
    assert ds.extra["other_info"]["other_annotations"]["2"]["Ann1"]["target.individual"] == "1"


def test_lewidi2023_md_agreement_repeated_annotator_is_dropped_and_reported():
    ds = load(good("MD-Agreement_mini.json"))
    assert ds.report.dropped == {"annotator listed twice with the same label": 1}
    assert ds.report.rows_read == 10 and ds.report.rows_kept == 9
    assert ds.annotators_per_item().to_dict() == {"2037": 5, "2038": 4}
    assert p_of(ds)["2038"]["1"] == pytest.approx(0.25)  # the source says 0.2 (counts Ann448 twice)
    assert any("differ from the source soft_label" in n and "2038" in n for n in ds.report.notes)
    assert ds.items.set_index("item_id").loc["2038", "domain"] == "Covid-19"


# --------------------------------------------------------------------------- LeWiDi 2025
def test_lewidi2025_varierrnli_multilabel_and_meta():
    ds = load(good("VariErrNLI_mini.json"), meta=good("VariErrNLI_annotators_meta.json"))
    assert ds.report.format == "lewidi2025"
    assert ds.task == "multilabel"
    assert ds.labels == ("contradiction", "entailment", "neutral")
    assert len(ds.annotations) == 13  # 11 (item, annotator) pairs, 2 with two labels
    ann2 = ds.item_annotations("49807").query("annotator_id == 'Ann2'")
    assert sorted(ann2["label"]) == ["entailment", "neutral"]
    assert ann2["education"].tolist() == ["postdoc", "postdoc"]
    assert p_of(ds)["76947"] == pytest.approx(
        {"contradiction": 0, "entailment": 1 / 3, "neutral": 1}
    )
    # VariErr's per-label binary soft label: P(label chosen) equals its "1" mass (3 decimals)
    soft = ds.extra["soft_label"].loc[list(ds.item_ids), list(ds.labels)].to_numpy()
    np.testing.assert_allclose(soft, ds.judgements_array(), atol=1e-3)
    assert set(ds.annotators.columns) == {
        "annotator_id",
        "gender",
        "age",
        "nationality",
        "education",
    }
    assert "explanations" in ds.extra["other_info"]
    items = ds.items.set_index("item_id")
    assert items.loc["76020", "text"] == "The city was founded in the third millennium"
    assert items.loc["76020", "context"].startswith("The city was founded")


def test_lewidi2025_mp_soft_keys_and_numeric_meta_keys():
    ds = load(good("MP_mini.json"), meta=good("MP_annotators_meta.json"))
    assert ds.labels == ("0", "1") and ds.task == "multiclass"
    assert list(ds.extra["soft_label"].columns) == ["0", "1"]  # "0.0"/"1.0" matched to labels
    np.testing.assert_allclose(
        ds.extra["soft_label"].loc[list(ds.item_ids)].to_numpy(), ds.judgements_array()
    )
    traits = ds.annotators.set_index("annotator_id")
    assert traits.loc["Ann0", "age"] == "19"  # meta key "0" -> Ann0, 19.0 -> "19"
    assert traits.loc["Ann0", "ethnicity_simplified"] == "DATA_EXPIRED"
    assert pd.isna(traits.loc["Ann59", "age"])  # source string "nan" is missing
    assert pd.isna(traits.loc["Ann72", "gender"])  # not in the meta file
    assert "Ann99" not in traits.index  # meta entry without annotations
    assert any("Ann72" in n for n in ds.report.notes)
    items = ds.items.set_index("item_id")
    assert items.loc["2", "text"].startswith("Lately Barak Valley")
    assert items.loc["2", "context"].startswith("Guy is my longtime")
    assert items.loc["45", "source"] == "reddit"


def test_lewidi2025_paraphrase_full_scale_and_lenient_meta():
    ds = load(good("Paraphrase_mini.json"), meta=good("Paraphrase_annotators_meta.json"))
    # the soft-label keys complete the inventory: the whole -5..5 scale, in numeric order
    assert ds.labels == tuple(str(v) for v in range(-5, 6))
    assert ds.task == "rating" and ds.level == "ordinal"
    assert ds.counts().loc["95504"].to_dict()["3"] == 3
    assert any("trailing commas" in n for n in ds.report.notes)
    assert ds.annotators.set_index("annotator_id").loc["Ann3", "nationality"] == "German"
    assert ds.items.set_index("item_id").loc["95504", "text_b"].startswith("Which comes out")


def test_lewidi2025_csc_and_meta_as_bytes_or_dict():
    meta = {"Ann844": {"Gender": "Female", "Age": 56}, "Ann845": {"Gender": "Male", "Age": 34}}
    from_dict = load(good("CSC_mini.json"), meta=meta)
    from_bytes = load(good("CSC_mini.json"), meta=json.dumps(meta).encode())
    for ds in (from_dict, from_bytes):
        assert ds.labels == ("1", "2", "3", "4", "5", "6")
        assert ds.task == "rating"
        assert ds.annotators.set_index("annotator_id").loc["Ann844", "age"] == "56"
    assert from_dict.items.set_index("item_id").loc["3944", "context_speaker"] == "232_2089"
    assert p_of(from_dict)["1907"]["4"] == pytest.approx(1 / 6)


def test_lewidi2025_bad_meta_file_names_the_meta_file(tmp_path):
    meta = tmp_path / "X_annotators_meta.json"
    meta.write_text('{"Ann1": {"Gender": "F"', encoding="utf-8")
    with pytest.raises(DataError) as err:
        load(good("CSC_mini.json"), meta=meta)
    assert "X_annotators_meta.json" in str(err.value) and "How to fix" in str(err.value)


# --------------------------------------------------------------------------- ChaosNLI
def test_chaosnli_counts_only():
    ds = load(good("chaosnli_mini.jsonl"))
    assert ds.report.format == "chaosnli"
    assert ds.labels == ("e", "n", "c")
    assert not ds.annotator_ids_known
    assert ds.annotators_per_item().tolist() == [100, 100, 100]
    assert p_of(ds)["46359n"] == pytest.approx({"e": 0.2, "n": 0.7, "c": 0.1})
    np.testing.assert_allclose(
        ds.extra["soft_label"].loc[list(ds.item_ids)].to_numpy(), ds.judgements_array()
    )
    assert ds.items.set_index("item_id").loc["77e", "context"].startswith("A man is playing")
    assert ds.summary()["n_annotators"] is None


# --------------------------------------------------------------------------- Label Studio
def test_labelstudio_several_controls_need_a_choice():
    with pytest.raises(DataError) as err:
        load(good("labelstudio_export.json"))
    message = str(err.value)
    assert "labelstudio_export.json" in message
    assert "'quality'" in message and "'sentiment'" in message and "How to fix" in message
    with pytest.raises(DataError, match="'stance' is not in the export"):
        load(good("labelstudio_export.json"), control="stance")


def test_labelstudio_choices_with_predictions():
    ds = load(good("labelstudio_export.json"), control="sentiment")
    assert ds.report.format == "labelstudio"
    assert ds.labels == ("Negative", "Neutral", "Positive")
    assert ds.item_ids.tolist() == ["101", "102", "103"]  # task 104 has no annotation
    assert set(ds.annotator_ids) == {"1", "2", "3"}  # completed_by int or {"id": 3, ...}
    assert p_of(ds)["101"] == pytest.approx({"Negative": 0, "Neutral": 1 / 3, "Positive": 2 / 3})
    # annotator 2 answered task 103 twice: the later answer (Neutral) wins
    assert p_of(ds)["103"] == pytest.approx({"Negative": 0, "Neutral": 1, "Positive": 0})
    assert ds.report.dropped["cancelled (skipped) annotations"] == 1
    assert ds.report.dropped["earlier annotation of the same annotator on the same task"] == 1
    assert ds.report.dropped["predictions for tasks without annotations"] == 1
    preds = ds.predictions
    assert preds["model"].unique().tolist() == ["distilbert-v1"]
    assert preds.set_index("item_id")["label"].to_dict() == {"101": "Positive", "102": "Negative"}
    assert preds["prob"].tolist() == [1.0, 1.0]
    assert ds.extra["prediction_scores"]["score"].tolist() == [0.81, 0.95, 0.5]
    assert ds.items.set_index("item_id").loc["102", "source"] == "reviews"


def test_labelstudio_rating_control():
    ds = load(good("labelstudio_export.json"), control="quality")
    assert ds.task == "rating" and ds.labels == ("1", "3", "4")
    assert ds.item_ids.tolist() == ["101", "102"]
    assert ds.report.dropped["annotations without a result for control 'quality'"] == 4


def test_labelstudio_span_labels_as_label_sets():
    ds = load(good("labelstudio_ner.json"))
    assert ds.task == "multilabel" and ds.labels == ("LOC", "ORG", "PER")
    assert p_of(ds)["1"] == pytest.approx({"LOC": 0.5, "ORG": 0.0, "PER": 1.0})
    assert len(ds.annotations) == 7


# --------------------------------------------------------------------------- Prodigy
def test_prodigy_choice_multilabel():
    ds = load(good("prodigy_choice.jsonl"))
    assert ds.report.format == "prodigy" and ds.task == "multilabel"
    assert ds.labels == ("BUG", "FEATURE", "UX")
    assert ds.item_ids.tolist() == ["-1453822045", "207634195"]
    assert p_of(ds)["-1453822045"] == pytest.approx({"BUG": 1.0, "FEATURE": 0.0, "UX": 0.5})
    # bea re-answered the dark-mode task: only her later answer (FEATURE, UX) counts
    bea = ds.item_annotations("207634195").query("annotator_id == 'support-bea'")
    assert sorted(bea["label"]) == ["FEATURE", "UX"]
    assert ds.report.dropped == {
        "earlier answers superseded by a later answer to the same task": 1,
        "answer 'ignore'": 1,
        "answer 'reject' (label not chosen / task rejected)": 1,
    }
    assert ds.items.set_index("item_id").loc["207634195", "text"] == "Please add a dark mode."


def test_prodigy_binary_labels_and_session_ids():
    ds = load(good("prodigy_binary.jsonl"))
    assert ds.task == "multiclass" and ds.labels == ("NEGATIVE", "POSITIVE")
    assert set(ds.annotator_ids) == {"reviews-ann", "reviews-ben"}
    assert p_of(ds)["12"] == pytest.approx({"NEGATIVE": 1.0, "POSITIVE": 0.0})
    assert ds.report.dropped["answer 'reject' (label not chosen / task rejected)"] == 1
    assert ds.report.dropped["answer 'ignore'"] == 1


def test_prodigy_json_array_and_explicit_format(tmp_path):
    records = [json.loads(x) for x in good("prodigy_binary.jsonl").read_text().splitlines()]
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    ds = load(path)
    assert ds.report.format == "prodigy" and len(ds.annotations) == 5


# --------------------------------------------------------------------------- dispatch
def test_read_dispatch_and_ignored_options():
    source = Source(good("CSC_mini.json").read_bytes(), "CSC_mini.json")
    ds = read("lewidi2025", source, control="x", conditions=None)
    assert any("['control']" in n and "ignored" in n for n in ds.report.notes)
    with pytest.raises(DataError, match="not a JSON format"):
        read("canonical", source)


def test_forcing_the_wrong_json_format_is_a_clear_error():
    with pytest.raises(DataError) as err:
        load(good("MP_mini.json"), format="lewidi2023")
    assert "annotations" in str(err.value) and "lewidi2025" in str(err.value)
    with pytest.raises(DataError, match="comma strings"):
        load(good("HS-Brexit_mini.json"), format="lewidi2025")
    with pytest.raises(DataError, match="label_counter"):
        load(good("prodigy_binary.jsonl"), format="chaosnli")


def test_task_and_level_overrides():
    ds = load(good("ConvAbuse_mini.json"), task="multiclass", level="nominal")
    assert ds.task == "multiclass" and ds.level == "nominal"


# --------------------------------------------------------------------------- round trip
@pytest.fixture(scope="module")
def hs_brexit_json(tmp_path_factory) -> tuple[Path, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Real HS-Brexit rebuilt in the LeWiDi 2023 layout (one file for all splits; keys are the
    shared item ids because the source keys restart per split)."""
    folder = shared_path("data", "hs_brexit")
    strict = {"dtype": str, "keep_default_na": False}
    items = pd.read_csv(folder / "items.csv", **strict)
    ann = pd.read_csv(folder / "annotations.csv", **strict)
    annotators = pd.read_csv(folder / "annotators.csv", **strict)
    aggressive = pd.read_csv(folder / "annotations_aggressive.csv", **strict)
    group = annotators.set_index("annotator_id")["group"]
    by_item = {k: g for k, g in ann.groupby("item_id", sort=False)}
    aggr = {k: g.set_index("annotator_id")["label"] for k, g in aggressive.groupby("item_id")}
    records = {}
    for row in items.itertuples(index=False):
        rows = by_item[row.item_id]
        who = rows["annotator_id"].tolist()
        labels = rows["label"].tolist()
        records[row.item_id] = {
            "text": row.text,
            "annotation task": "hate speech detection",
            "number of annotations": len(labels),
            "annotations": ",".join(labels),
            "annotators": ",".join(who),
            "lang": row.lang,
            "hard_label": row.hard_label,
            "soft_label": {
                "0": labels.count("0") / len(labels),
                "1": labels.count("1") / len(labels),
            },
            "split": row.split,
            "other_info": {
                "annotators group": ",".join(group[a] for a in who),
                "other annotations": {
                    "aggressive language detection": ",".join(aggr[row.item_id][who]),
                },
            },
        }
    path = tmp_path_factory.mktemp("lewidi") / "HS-Brexit_all.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path, items, ann, annotators


def test_round_trip_hs_brexit_lewidi2023(hs_brexit_json):
    path, items, ann, annotators = hs_brexit_json
    ds = load(path)
    assert ds.report.format == "lewidi2023"
    assert (ds.n_items, ds.n_annotators, len(ds.annotations)) == (1120, 6, 6720)
    assert ds.item_ids.tolist() == items["item_id"].tolist()
    assert (
        ds.annotators.set_index("annotator_id")["group"].to_dict()
        == annotators.set_index("annotator_id")["group"].to_dict()
    )
    assert ds.items["split"].value_counts().to_dict() == {"train": 784, "dev": 168, "test": 168}
    # P computed independently from the shared annotations
    counts = pd.crosstab(ann["item_id"], ann["label"]).reindex(
        index=ds.item_ids, columns=list(ds.labels), fill_value=0
    )
    expected = counts.to_numpy() / ann.groupby("item_id")["annotator_id"].nunique()[
        ds.item_ids
    ].to_numpy()[:, None]
    np.testing.assert_allclose(ds.judgements_array(), expected)
    assert any("equal the source soft_label on all 1120" in n for n in ds.report.notes)
    merged = ds.annotations.merge(ann, on=["item_id", "annotator_id"], suffixes=("", "_src"))
    assert len(merged) == 6720 and (merged["label"] == merged["label_src"]).all()
    aggressive = ds.extra["other_annotations"]["aggressive language detection"]
    assert len(aggressive) == 6720
