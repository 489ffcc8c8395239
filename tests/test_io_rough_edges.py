"""Rough edges of the io layer: binary files named by what they look like, workbooks
answered with "export as CSV", rounded prediction sums renormalised with a note (and only in
the io layer: the engine still refuses non-normalised arrays)."""

from __future__ import annotations

import numpy as np
import pytest

from hlv_core import samples
from hlv_core.io import DataError, load, load_predictions
from hlv_core.io.errors import ImportReport
from hlv_core.io.predictions import RENORMALISE_TOLERANCE

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8


@pytest.mark.parametrize(("raw", "kind"), [
    (PNG, "PNG image"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(200), "JPEG image"),
    (b"%PDF-1.7\n" + bytes(range(256)), "PDF document"),
    (b"\x1f\x8b\x08\x00" + bytes(100), "gzip archive"),
])
def test_binary_renamed_csv_is_named_not_told_to_resave(raw, kind):
    with pytest.raises(DataError) as info:
        load(raw, name="shot.csv")
    message = str(info.value)
    assert f"not a text/CSV file (looks like a {kind})" in message
    assert "UTF-8" not in message.split("How to fix")[0]


def test_text_starting_like_a_signature_is_still_text():
    from hlv_core.io._read import binary_kind

    # a header cell starting with "BM" is not a BMP image; a real BMP header is
    assert binary_kind(b"BMitem,annotator_id,label\n1,a,x\n") is None
    bmp = b"BM" + (30).to_bytes(4, "little") + bytes(24)
    assert binary_kind(bmp) == "a BMP image"


@pytest.mark.parametrize("name", ["sheet.xlsx", "sheet.ods", "sheet.xls"])
def test_workbooks_are_answered_export_as_csv(name):
    with pytest.raises(DataError, match="export the sheet as CSV"):
        load(b"PK\x03\x04[Content_Types].xml" + bytes(64), name=name)


def _rounded(dataset, digits: int) -> bytes:
    rows = ["item_id,label,prob"]
    for item in dataset.item_ids[:5]:
        rows += [f"{item},liable,{1 / 3:.{digits}f}", f"{item},not_liable,{1 / 3:.{digits}f}",
                 f"{item},unclear,{1 / 3:.{digits}f}"]
    return "\n".join(rows).encode()


def test_rounded_probabilities_are_renormalised_with_a_note():
    dataset = samples.load_sample("case_review")
    report = ImportReport("p.csv", "predictions")
    frame = load_predictions(_rounded(dataset, 3), dataset, name="p.csv", report=report)
    sums = frame.groupby("item_id")["prob"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-12)
    assert len(report.notes) == 1
    assert report.notes[0].startswith("5 prediction(s)") and "15 file rows" in report.notes[0]
    assert f"{RENORMALISE_TOLERANCE:g}" in report.notes[0]


def test_exact_probabilities_get_no_note():
    dataset = samples.load_sample("case_review")
    report = ImportReport("p.csv", "predictions")
    load_predictions(_rounded(dataset, 9), dataset, name="p.csv", report=report)
    assert report.notes == []


def test_sums_beyond_the_tolerance_are_refused():
    dataset = samples.load_sample("case_review")
    with pytest.raises(DataError, match="sum to 0.99"):
        load_predictions(_rounded(dataset, 2), dataset, name="p.csv")


def test_engine_still_refuses_unnormalised_arrays():
    from hlv_core import soft_metrics

    human = np.array([[0.5, 0.5], [1.0, 0.0]])
    model = np.array([[0.333, 0.666], [1.0, 0.0]])
    with pytest.raises(ValueError):
        soft_metrics.soft_accuracy(human, model)
