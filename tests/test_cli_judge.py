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
    # the alignment score each model was tested with travels with its verdict
    assert {row["scoring"] for row in payload["summary"]} == {"accuracy"}


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
    # the class order decides the rank ties (Baan et al. 2022, section 4): it is printed
    from hlv_core.io import load

    order = ", ".join(load(CASES).labels)
    assert f"class order: {order}; ties in RankCS" in text
    reordered = ",".join(reversed(load(CASES).labels))
    assert main(["judge", "calibration", str(CASES), str(CASES / "predictions.csv"),
                 "--label-order", reordered]) == 0
    assert f"class order: {reordered.replace(',', ', ')};" in capsys.readouterr().out


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
    # a probability for a label the dataset lacks (a hard label outside it is legal: below)
    ([{"item_id": "case_001", "label": "maybe", "prob": 1.0}], "not a label of the dataset"),
    ([{"item_id": "case_001", "label": "liable", "prob": 0.5},
      {"item_id": "case_001", "label": "not_liable", "prob": 0.2}], "sum to"),
    ([{"item_id": "nope", "label": "liable"}], "not in the annotations"),
])
def test_bad_predictions_exit_2(tmp_path, capsys, rows, message):
    assert main(["judge", "alt-test", str(CASES), _preds(tmp_path, rows)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("option, message", [
    (["--epsilon", "nan"], "epsilon must be a finite number >= 0"),
    (["--q", "0"], "q_fdr"),
    (["--min-humans", "0"], "min_humans_per_item"),
])
def test_bad_settings_exit_2(capsys, option, message):
    assert main(["judge", "alt-test", str(CASES), str(CASES / "predictions.csv"), *option]) == 2
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


def test_min_humans_and_level_reach_the_engine(tmp_path, capsys):
    """The command line takes the engine's min_humans_per_item and level (the same parameters
    as the engine). Items i10-i14 have two annotators: kept by default, dropped at 3."""
    data = tmp_path / "three.csv"
    rows = [(f"i{i}", a, "ab"[(i + k) % 2 if k == 2 else i % 2])
            for i in range(15) for k, a in enumerate(("r0", "r1", "r2")) if i < 10 or k < 2]
    pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]).to_csv(data, index=False)
    preds = _preds(tmp_path, [{"item_id": f"i{i}", "label": "ab"[i % 2]} for i in range(15)])
    out = tmp_path / "per.csv"
    counts = {}
    for humans in ("2", "3"):
        assert main(["judge", "alt-test", str(data), preds, "--min-items", "5",
                     "--min-humans", humans, "--out", str(out)]) == 0
        capsys.readouterr()
        table = pd.read_csv(out)
        table = table[table["model"] != "constant majority (baseline)"]
        counts[humans] = dict(zip(table["annotator"], table["n_items"], strict=True))
    assert counts["2"] == {"r0": 15, "r1": 15, "r2": 10}
    assert counts["3"] == {"r0": 10, "r1": 10, "r2": 10}
    tables = {}
    for level in ("0.5", "0.95"):
        assert main(["judge", "ceiling", str(CASES), "--n-boot", "200", "--min-items", "20",
                     "--level", level, "--json"]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert f"level {level}" in " ".join(payload["notes"])
        tables[level] = pd.DataFrame(payload["table"]).set_index("metric").dropna(
            subset=["lower"])
    narrow, wide = tables["0.5"], tables["0.95"]
    assert (narrow["lower"] >= wide["lower"]).all() and (narrow["upper"] <= wide["upper"]).all()
    assert ((narrow["upper"] - narrow["lower"]) < (wide["upper"] - wide["lower"])).any()


def test_alt_test_keeps_model_labels_outside_the_inventory(tmp_path, capsys):
    """WAX (Calderon et al. 2025): the LLMs sometimes answer 'None-of-the-above', a label no
    human used. The alt-test allows it (it never matches; Calderon et al., section 3): the command runs
    and gives the engine's numbers on the model labels as given; the notebook prints winning
    rate 0.50 and advantage probability 0.74 for gemini_pro at epsilon 0.1."""
    from hlv_core import judge
    from hlv_core.io import load
    from tests.conftest import shared_path

    folder = shared_path("data", "alttest_examples", "wax")
    out = tmp_path / "per.csv"
    assert main(["judge", "alt-test", str(folder / "annotations.csv"),
                 str(folder / "model_labels.csv"), "--epsilon", "0.1", "--model", "gemini_pro",
                 "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "outside the dataset's labels kept" in captured.err
    assert "'None-of-the-above'" in captured.err
    table = pd.read_csv(out)
    table = table[table["model"] == "gemini_pro"].reset_index(drop=True)
    labels = pd.read_csv(folder / "model_labels.csv", dtype=str)
    given = labels[labels["model"] == "gemini_pro"]
    assert (given["label"] == "None-of-the-above").any()  # the case this test is about
    expected = judge.alt_test(load(folder / "annotations.csv"),
                              dict(zip(given["item_id"], given["label"], strict=True)),
                              epsilon=0.1)
    assert table["p_value"].tolist() == pytest.approx(
        expected.per_annotator["p_value"].tolist(), rel=1e-12)
    assert round(expected.winning_rate, 2) == 0.50 and round(expected.rho, 2) == 0.74
    # the other commands still need every label in the inventory
    assert main(["judge", "calibration", str(folder / "annotations.csv"),
                 str(folder / "model_labels.csv")]) == 2
    assert "None-of-the-above" in capsys.readouterr().err


def test_csv_out_neutralises_formula_like_names(tmp_path, capsys):
    """A model named like a spreadsheet formula is written to ``--out`` as text (a leading
    quote, OWASP "CSV injection"), the numbers stay numbers."""
    preds = pd.read_csv(CASES / "predictions.csv", dtype=str)
    preds["model"] = preds["model"].replace({"calibrated": "=HYPERLINK(\"x\")"})
    path = tmp_path / "p.csv"
    preds.to_csv(path, index=False)
    out = tmp_path / "alt.csv"
    assert main(["judge", "alt-test", str(CASES), str(path), "--out", str(out)]) == 0
    capsys.readouterr()
    table = pd.read_csv(out, dtype={"model": str})
    assert "'=HYPERLINK(\"x\")" in set(table["model"])
    assert not table["model"].str.startswith("=").any()
    assert pd.api.types.is_numeric_dtype(table["p_value"])
