"""LeWiDi gold files and submissions follow the loader's one-spelling rule: item ids, annotator
ids and soft-label keys that differ only in Unicode composition, invisible format characters or
whitespace runs are one value (reported), on both sides, so the score does not change; two
spellings of one key in one file are refused, naming both."""

from __future__ import annotations

import json

import pytest

from hlv_core import lewidi
from hlv_core.cli import main
from hlv_core.io import DataError, ImportReport, load, load_lewidi_submission

NFC = "caf\u00e9"
NFD = "cafe\u0301"
ZW = "\u200b"


def mp_gold(a: str = NFC, b: str = "b one", ann: tuple[str, str] = ("Ann1", "Ann2")) -> dict:
    return {
        a: {"annotators": ",".join(ann), "annotations": {ann[0]: "0", ann[1]: "1"},
            "soft_label": {"0.0": 0.5, "1.0": 0.5}, "split": "test"},
        b: {"annotators": ",".join(ann), "annotations": {ann[0]: "1", ann[1]: "1"},
            "soft_label": {"0.0": 0.0, "1.0": 1.0}, "split": "test"},
    }


CLEAN_TSV = f"{NFC}\t[0.3, 0.7]\nb one\t[0.1, 0.9]\n"
# |0.3-0.5|+|0.7-0.5| = 0.4; |0.1-0|+|0.9-1| = 0.2; mean 0.3
CLEAN_SCORE = 0.3


def _score(gold, tsv: str, task: str = "soft") -> dict:
    return lewidi.score(gold, tsv.encode(), task, name=f"mp_test_{task}.tsv")


def test_the_clean_pair_by_hand():
    assert _score(mp_gold(), CLEAN_TSV)["score"] == pytest.approx(CLEAN_SCORE)


@pytest.mark.parametrize("tsv", [
    f"{NFD}\t[0.3, 0.7]\nb one\t[0.1, 0.9]\n",              # NFD in the submission
    f"{NFC}{ZW}\t[0.3, 0.7]\nb  one\t[0.1, 0.9]\n",         # format char, doubled space
    f"{NFC}\t[0.3, 0.7]\nb\u00a0one\ufeff\t[0.1, 0.9]\n",   # no-break space, BOM char
])
def test_submission_ids_spelled_differently_score_the_same_with_a_note(tsv):
    got = _score(mp_gold(), tsv)
    assert got["score"] == pytest.approx(CLEAN_SCORE)
    assert any("look-alike spellings of item id" in w for w in got["warnings"])


def test_gold_ids_spelled_differently_score_the_same_with_a_note():
    gold = mp_gold(a=NFD, b="b\u2060 one")
    got = _score(gold, CLEAN_TSV)
    assert got["score"] == pytest.approx(CLEAN_SCORE)
    notes = [w for w in got["warnings"] if "look-alike spellings of item id" in w]
    assert notes and "NFD" in notes[0] and "U+2060" in notes[0]
    # the same from the file, and per item
    raw = json.dumps(gold, ensure_ascii=False).encode()
    assert lewidi.score(raw, CLEAN_TSV.encode(), "soft", name="mp_test_soft.tsv")["score"] \
        == pytest.approx(CLEAN_SCORE)
    items = lewidi.score_items(gold, CLEAN_TSV.encode(), "soft", name="mp_test_soft.tsv")
    assert set(items["item_id"]) == {NFC, "b one"}


def test_gold_and_submission_both_respelled_task_b():
    gold = mp_gold(a=NFD, ann=(f"Ann1{ZW}", "Ann2"))
    # targets a: 0, 1 vs 0, 0 -> 1/2; b: 1, 1 vs 1, 1 -> 0; mean 0.25
    got = _score(gold, f"{NFC}\t[0, 0]\nb  one\t[1, 1]\n", "pe")
    assert got["score"] == pytest.approx(0.25)
    assert any("annotator id" in w for w in got["warnings"])


def test_varierrnli_label_keys_and_annotation_labels_respelled():
    gold = {
        "a": {"annotators": "A,B", "annotations": {"A": "neutral", "B": f"entail{ZW}ment"},
              "soft_label": {"contradiction": {"0": 1.0, "1": 0.0},
                             "entailment": {"0": 0.5, "1": 0.5},
                             f"neutral{ZW}": {"0": 0.5, "1": 0.5}}, "split": "test"},
    }
    clean = json.loads(json.dumps(gold).replace("\\u200b", ""))
    soft = "a\t[[1, 0], [0.5, 0.5], [0.25, 0.75]]\n"
    pe = "a\t[[0, 0], [0, 1], [1, 0]]\n"
    name = "ven_test_{}.tsv"
    for task, tsv in (("soft", soft), ("pe", pe)):
        want = lewidi.score(clean, tsv.encode(), task, name=name.format(task))["score"]
        got = lewidi.score(gold, tsv.encode(), task, name=name.format(task))
        assert got["score"] == pytest.approx(want) and got["dataset"] == "VariErrNLI"
    assert lewidi.score(gold, pe.encode(), "pe", name="ven_test_pe.tsv")["score"] == 0.0


def test_two_spellings_of_one_gold_item_are_refused_naming_both_and_the_line():
    gold = mp_gold()
    gold[NFD] = gold.pop("b one")
    raw = json.dumps(gold, ensure_ascii=False, indent=1).encode()
    with pytest.raises(DataError) as caught:
        lewidi.load_gold(raw, name="mp_test.json")
    message = str(caught.value)
    assert "spelled two ways" in message and repr(NFC) in message and repr(NFD) in message
    assert caught.value.row == raw.decode().splitlines().index(f' "{NFD}": {{') + 1


def test_two_spellings_of_one_annotator_in_a_gold_record_are_refused():
    with pytest.raises(DataError, match="annotator id .* spelled two ways"):
        lewidi.load_gold(mp_gold(ann=("Ann1", f"Ann1{ZW}")), name="mp_test.json")


def test_two_spellings_of_one_item_in_a_submission_are_refused_with_the_line():
    with pytest.raises(DataError) as caught:
        _score(mp_gold(), f"{NFC}\t[0.3, 0.7]\n{NFD}\t[0.1, 0.9]\n")
    assert "spelled two ways" in str(caught.value) and caught.value.row == 2


def test_the_cli_scores_the_same_and_refuses_the_ambiguous(tmp_path, capsys):
    gold = tmp_path / "mp_test.json"
    gold.write_text(json.dumps(mp_gold(a=NFD), ensure_ascii=False), encoding="utf-8")
    sub = tmp_path / "mp_test_soft.tsv"
    sub.write_text(f"{NFC}{ZW}\t[0.3, 0.7]\nb one\t[0.1, 0.9]\n", encoding="utf-8")
    assert main(["lewidi", str(gold), str(sub), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = out[0] if isinstance(out, list) else out
    assert row["score"] == pytest.approx(CLEAN_SCORE)
    sub.write_text(f"{NFC}\t[0.3, 0.7]\n{NFD}\t[0.1, 0.9]\n", encoding="utf-8")
    assert main(["lewidi", str(gold), str(sub)]) == 2
    err = capsys.readouterr().err
    assert "spelled two ways" in err and len(err.strip().splitlines()) == 1


def test_a_submission_loaded_as_predictions_follows_the_dataset_spelling():
    ds = load(f"item_id,annotator_id,label\n{NFC},a,0\n{NFC},b,1\nj,a,1\nj,b,1\n".encode(),
              name="a.csv")
    report = ImportReport("x_test_soft.tsv", "lewidi")
    preds = load_lewidi_submission(f"{NFD}\t[0.5, 0.5]\nj{ZW}\t[0, 1]\n".encode(), ds,
                                   name="x_test_soft.tsv", report=report)
    assert set(preds["item_id"]) == {NFC, "j"}
    assert any("look-alike spellings of item id" in n for n in report.notes)
