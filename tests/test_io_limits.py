"""Every door bounded: one reader for every file and zip (the loader, predictions, the LeWiDi
scorer's gold, submissions and res.zip, review imports, CLI paths, uploads); each refusal names
the limit and the environment variable that raises it. Deep JSON and numbers with thousands of
digits are one DataError with file and line in every JSON reader."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from hlv_core import lewidi
from hlv_core.io import LIMITS, DataError, as_source, limit, load
from hlv_core.review import ReviewStore

BAD = Path(__file__).parent / "data" / "bad"
CLEAN = (BAD / "spelling_clean.csv").read_text()


def _zip(members: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_limits_default_and_raised_by_their_variable(monkeypatch):
    assert limit("file") == 1024 << 20 and limit("zip_members") == 1000
    monkeypatch.setenv("HLV_MAX_FILE_MB", "2")
    assert limit("file") == 2 << 20
    monkeypatch.setenv("HLV_MAX_FILE_MB", "nonsense")
    assert limit("file") == 1024 << 20
    assert {v[0] for v in LIMITS.values()} == {
        "HLV_MAX_FILE_MB", "HLV_MAX_ZIP_MEMBERS", "HLV_MAX_INFLATED_MB", "HLV_MAX_PARSE_MB",
        "HLV_MAX_PAIRS"}


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_text(CLEAN * 20)
    monkeypatch.setenv("HLV_MAX_FILE_MB", "0.001")  # 1 KiB
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    with pytest.raises(DataError, match="HLV_MAX_FILE_MB") as err:
        load(path)
    assert "over the limit of" in str(err.value) and not [a for a in opened if a[0] == path]


@pytest.mark.parametrize("kind", ["bytes", "upload"])
def test_uploads_and_bytes_are_bounded_too(kind, monkeypatch):
    monkeypatch.setenv("HLV_MAX_FILE_MB", "0.001")
    raw = (CLEAN * 20).encode()
    value = raw if kind == "bytes" else io.BytesIO(raw)
    with pytest.raises(DataError, match="HLV_MAX_FILE_MB"):
        as_source(value, "up.csv")


def test_cli_path_over_the_limit_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    from hlv_core.cli import main

    path = tmp_path / "big.csv"
    path.write_text(CLEAN * 20)
    monkeypatch.setenv("HLV_MAX_FILE_MB", "0.001")
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "HLV_MAX_FILE_MB" in err


def test_a_small_zip_whose_parse_needs_too_much_memory_is_refused_before_parsing(monkeypatch):
    body = "item_id,annotator_id,label\n" + "i,a,x\n" * (2 << 20)  # 12 MiB, 2 M rows
    raw = _zip({"annotations.csv": body})
    assert len(raw) < 200_000  # a small upload
    monkeypatch.setenv("HLV_MAX_PARSE_MB", "40")
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: pytest.fail("parsed anyway"))
    with pytest.raises(DataError, match="HLV_MAX_PARSE_MB") as err:
        load(raw, name="small.zip")
    assert "cells" in str(err.value)


def test_json_parse_memory_is_estimated_too(monkeypatch):
    gold = json.dumps({str(i): {"annotations": {"A": "1"}, "soft_label": {"0": 0.5}}
                       for i in range(20_000)})
    monkeypatch.setenv("HLV_MAX_PARSE_MB", "1")
    with pytest.raises(DataError, match="HLV_MAX_PARSE_MB"):
        lewidi.load_gold(gold.encode(), name="MP_test.json")


def test_lewidi_res_zip_is_bounded(monkeypatch):
    (gold_name, gold), zips = lewidi.demo_files(n_items=20)
    name, raw = next(iter(zips.items()))
    assert lewidi.score_results(gold, raw, name=name)  # within the limits: scored
    monkeypatch.setenv("HLV_MAX_ZIP_MEMBERS", "1")
    with pytest.raises(DataError, match="HLV_MAX_ZIP_MEMBERS"):
        lewidi.score_results(gold, raw, name=name)
    monkeypatch.delenv("HLV_MAX_ZIP_MEMBERS")
    monkeypatch.setenv("HLV_MAX_INFLATED_MB", "0.0001")
    with pytest.raises(DataError, match="HLV_MAX_INFLATED_MB"):
        lewidi.score_results(gold, raw, name=name)


@pytest.mark.parametrize("suffix", [".zip", ".gz"])
def test_review_import_never_decompresses(tmp_path, suffix):
    csv_text = "reviewer,item_id,model_a,model_b,choice\nann,i1,m1,m2,A\n"
    path = tmp_path / f"judgements.csv{suffix}"
    path.write_bytes(_zip({"j.csv": csv_text}) if suffix == ".zip"
                     else gzip.compress(csv_text.encode()))
    store = ReviewStore(tmp_path / "r.sqlite3")
    with pytest.raises(DataError, match="not a text/CSV file"):
        store.import_csv(path)
    assert len(store) == 0


def test_review_import_is_bounded_and_respells_ids(tmp_path, monkeypatch):
    path = tmp_path / "j.csv"
    path.write_text("reviewer,item_id,model_a,model_b,choice\nann,i\u200b1,m1,m2,A\n")
    store = ReviewStore(tmp_path / "r.sqlite3")
    assert store.import_csv(path) == 1
    assert store.judgements()["item_id"].tolist() == ["i1"]
    monkeypatch.setenv("HLV_MAX_FILE_MB", "0.00001")
    with pytest.raises(DataError, match="HLV_MAX_FILE_MB"):
        store.import_csv(path)


# ------------------------------------------------------------------ deep JSON, huge numbers
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "1" * 5000


@pytest.mark.parametrize(("text", "words"), [
    ('{"a": {"annotations": {"A": "1"},\n "soft_label": ' + DEEP + "}}", "nested too deeply"),
    ('{"a": {"annotations": {"A": "1"},\n "soft_label": {"0": ' + HUGE + "}}}", "too long"),
])
def test_lewidi_gold_limits_are_one_data_error_with_the_line(text, words):
    with pytest.raises(DataError, match=words) as err:
        lewidi.load_gold(text.encode(), name="MP_test.json")
    assert err.value.row == 2 and "MP_test.json" in str(err.value)


@pytest.mark.parametrize(("cell", "words"), [(DEEP, "nested too deeply"), (f"[{HUGE}, 0]",
                                                                            "too long")])
def test_lewidi_submission_limits_are_one_data_error_with_the_line(cell, words):
    (gold_name, gold), _ = lewidi.demo_files(n_items=3)
    tsv = f"demo0\t[0.5, 0.5]\ndemo1\t{cell}\ndemo2\t[0.5, 0.5]\n"
    with pytest.raises(DataError, match=words) as err:
        lewidi.score(gold, tsv.encode(), name="mp_test_soft.tsv")
    assert err.value.row == 2 and "mp_test_soft.tsv" in str(err.value)


def test_repeated_item_in_a_lewidi_gold_is_refused():
    with pytest.raises(DataError, match='"7" appears twice in lines 2 and 24'):
        lewidi.load_gold(BAD / "lewidi2025_repeated_item.json")
