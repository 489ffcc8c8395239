"""``python -m hlv_core judge alt-test|ceiling|calibration``: tables, JSON, CSV, and one clear
line with exit status 2 for bad input (never a silent number)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from hlv_core.cli import main
from hlv_core.samples import sample_path

CASES = sample_path("case_review")


def _preds(tmp_path, rows, name="p.csv"):
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_alt_test_table_json_and_csv(tmp_path, capsys):
    out = tmp_path / "per_annotator.csv"
    assert main(["judge", "alt-test", str(CASES), str(CASES / "predictions.csv"),
                 "--epsilon", "0.15", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "constant majority (baseline)" in text and "winning rate" in text
    table = pd.read_csv(out)
    assert {"model", "annotator", "p_value", "rejected", "rho_model"} <= set(table.columns)
    assert main(["judge", "alt-test", str(CASES), str(CASES / "predictions.csv"), "--json",
                 "--model", "calibrated"]) == 0
    payload = json.loads(capsys.readouterr().out)
    models = [row["model"] for row in payload["summary"]]
    assert models == ["calibrated", "constant majority (baseline)"]


def test_ceiling_and_calibration(capsys):
    assert main(["judge", "ceiling", str(CASES), str(CASES / "predictions.csv"),
                 "--n-boot", "50", "--min-items", "20", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows = {r["metric"]: r for r in payload["table"]}
    assert rows["entropy_correlation"]["ceiling"] is None
    assert "zero entropy" in rows["entropy_correlation"]["note"]
    assert rows["hard_accuracy"]["model_same_targets"] is not None
    assert main(["judge", "calibration", str(CASES), str(CASES / "predictions.csv")]) == 0
    text = capsys.readouterr().out
    assert "oracle (Q = human distribution)" in text and "dist_ce" in text


def test_missing_items_are_said(tmp_path, capsys):
    rows = [{"item_id": f"case_{i:03d}", "label": "liable"} for i in range(1, 101)]
    assert main(["judge", "alt-test", str(CASES), _preds(tmp_path, rows)]) == 0
    assert "labels 100 of the 240 items" in capsys.readouterr().out
    probs = [{"item_id": f"case_{i:03d}", "label": "liable", "prob": 1.0} for i in range(1, 51)]
    assert main(["judge", "calibration", str(CASES), _preds(tmp_path, probs, "q.csv")]) == 0
    assert "scored on only 50 of the 240 items" in capsys.readouterr().out
    assert main(["judge", "ceiling", str(CASES), _preds(tmp_path, probs, "q.csv"),
                 "--n-boot", "0", "--min-items", "20"]) == 0
    assert "predicts 50 of the 240 items" in capsys.readouterr().out


@pytest.mark.parametrize("rows, message", [
    ([{"item_id": "case_001", "label": "maybe"}], "not a label of the dataset"),
    ([{"item_id": "case_001", "label": "liable", "prob": 0.5},
      {"item_id": "case_001", "label": "not_liable", "prob": 0.2}], "sum to"),
    ([{"item_id": "nope", "label": "liable"}], "not in the annotations"),
])
def test_bad_predictions_exit_2(tmp_path, capsys, rows, message):
    assert main(["judge", "alt-test", str(CASES), _preds(tmp_path, rows)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_too_few_annotators(tmp_path, capsys):
    small = tmp_path / "small.csv"
    pd.DataFrame([(f"i{i}", a, "ab"[(i * (a == "r1")) % 2]) for i in range(40)
                  for a in ("r0", "r1")], columns=["item_id", "annotator_id", "label"]
                 ).to_csv(small, index=False)
    rows = [{"item_id": f"i{i}", "label": "a"} for i in range(40)]
    assert main(["judge", "alt-test", str(small), _preds(tmp_path, rows)]) == 0
    assert "recommend at least 3" in capsys.readouterr().out
    # none testable: one line, exit 2
    assert main(["judge", "alt-test", str(small), _preds(tmp_path, rows),
                 "--min-items", "10000"]) == 2
    assert "no annotator can be tested" in capsys.readouterr().err


@pytest.mark.slow
def test_counts_only_data_says_why(capsys):
    from tests.conftest import shared_path

    folder = shared_path("data", "chaosnli_calibration")
    assert main(["judge", "ceiling", str(folder)]) == 2
    assert "no annotator ids" in capsys.readouterr().err
