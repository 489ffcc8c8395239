"""``python -m hlv_core``: every subcommand is wired in and the common paths work end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hlv_core.cli import build_parser, main
from hlv_core.samples import sample_path

ROOT = Path(__file__).resolve().parents[1]


def test_every_companion_module_is_importable_and_registered():
    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices
    for command in ("summary", "metrics", "agreement", "sigma", "certainty", "perspectives",
                    "split", "review", "lab"):
        assert command in choices, command


def test_summary_json_on_a_sample_folder(capsys):
    assert main(["summary", str(sample_path("case_review")), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_items"] == 240 and summary["task"] == "multiclass"


def test_bad_file_exits_2_with_a_clear_message(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,annotator_id,label\n1,a,x\n1,a,x\n")
    assert main(["summary", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 3" in err and "How to fix" in err


@pytest.mark.parametrize("command", ["agreement", "sigma"])
def test_agreement_and_sigma_on_a_sample(command, capsys):
    assert main([command, str(sample_path("case_review")), "--json"]) == 0
    assert capsys.readouterr().out.strip()


def test_module_entry_point_runs_as_a_subprocess():
    result = subprocess.run(
        [sys.executable, "-m", "hlv_core", "summary", str(sample_path("ratings"))],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "n_items: 200" in result.stdout


def test_split_stratified_by_trait(tmp_path, capsys):
    assert main(["split", str(sample_path("case_review")), "--out", str(tmp_path),
                 "--stratify", "group"]) == 0
    import pandas as pd

    test = pd.read_csv(tmp_path / "test.csv", dtype=str)
    traits = pd.read_csv(sample_path("case_review") / "annotators.csv", dtype=str)
    groups = set(traits.set_index("annotator_id").loc[test["annotator_id"].unique(), "group"])
    assert groups == {"claimant-side", "defence-side"}


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.fixture
def bad_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,annotator_id,label\n1,a,x\n1,a,x\n")
    return bad


@pytest.mark.parametrize("argv", [
    ["summary", "{bad}"],
    ["metrics", "{bad}", "{bad}"],
    ["agreement", "{bad}"],
    ["sigma", "{bad}"],
    ["certainty", "{bad}"],
    ["perspectives", "{bad}"],
    ["split", "{bad}", "--out", "{tmp}"],
    ["lab", "{bad}", "--quiet"],
    ["lewidi", "{bad}", "{bad}"],
    ["review", "import", "{tmp}/review.db", "{bad}"],
])
def test_every_command_prints_one_line_and_exits_2_on_a_bad_file(argv, bad_file, tmp_path,
                                                                   capsys):
    argv = [a.format(bad=bad_file, tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    _one_error_line(capsys)


def test_bad_option_values_and_unreadable_paths_are_one_line_too(tmp_path, capsys):
    sample = str(sample_path("case_review"))
    assert main(["sigma", sample, "--repeats", "0"]) == 2  # a ValueError of the engine
    _one_error_line(capsys)
    assert main(["summary", str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv" in _one_error_line(capsys)
    assert main(["review", "rank", str(tmp_path / "empty.db")]) == 2  # no judgements
    assert "two models" in _one_error_line(capsys)


def test_agreement_command_prints_the_pages_kappas_and_levels(capsys):
    """h1 step 11: the command calls kappa_summary and level_options, as the Agreement page."""
    from hlv_core.agreement import kappa_summary
    from hlv_core.levels import level_options
    from hlv_core.samples import load_sample

    dataset = load_sample("ratings")
    assert main(["agreement", str(sample_path("ratings")), "--json", "--n-boot", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = kappa_summary(dataset.annotations)
    assert set(expected) == {"fleiss", "light"}  # 10 annotators: Light's kappa, not Cohen's
    for name, value in expected.items():
        assert out[f"{name}_kappa"] == pytest.approx(value, rel=1e-12)
    assert out["level"] == level_options(dataset).default == "ordinal"
    # multi-label data: nominal only (level_options), one line and exit 2 otherwise
    assert main(["agreement", str(sample_path("legal_areas")), "--pairs",
                 "--level", "ordinal"]) == 2
    assert "nominal" in _one_error_line(capsys)


def test_agreement_command_on_counts_only_data_gives_alpha_from_counts(tmp_path, capsys):
    from hlv_core.agreement import alpha_from_counts
    from hlv_core.io import load

    counts = tmp_path / "counts.csv"
    counts.write_text("item_id,label,count\n1,a,3\n1,b,1\n2,a,2\n2,b,2\n3,b,4\n")
    dataset = load(counts, format="counts")
    assert not dataset.annotator_ids_known
    assert main(["agreement", str(counts), "--format", "counts", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["alpha"] == pytest.approx(alpha_from_counts(dataset.counts_array()))
    assert 0 < out["alpha"] < 1
    assert main(["agreement", str(counts), "--format", "counts", "--pairs"]) == 2
    assert "annotator ids" in _one_error_line(capsys)


def test_sigma_command_uses_the_level_options_values(capsys):
    """h1 step 13: ``--level ordinal`` passes the label values of level_options, as the graph
    page does, and the dataset is named after its folder (built whole, no mutation)."""
    from hlv_core.balance import sigma
    from hlv_core.levels import level_options
    from hlv_core.samples import load_sample

    dataset = load_sample("ratings")
    opts = level_options(dataset)
    expected = sigma(dataset.annotations, level="ordinal", values=opts.values("ordinal"),
                     multilabel=opts.multilabel)
    assert main(["sigma", str(sample_path("ratings")), "--level", "ordinal", "--repeats", "2",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dataset"] == "ratings" and out["level"] == "ordinal"
    assert out["sigma"] == pytest.approx(expected.sigma)
    assert main(["sigma", str(sample_path("legal_areas")), "--level", "ordinal"]) == 2
    assert "nominal" in _one_error_line(capsys)


def test_perspectives_command_prints_the_pages_headline_table(tmp_path, capsys):
    """h1 step 15: the table output is perspectivist headline_table (the page's columns); the
    traits file is read with the public io.load_traits."""
    assert main(["perspectives", str(sample_path("case_review"))]) == 0
    out = capsys.readouterr().out
    assert "global accuracy" in out and "user accuracy" in out and "text F1 (macro)" in out
    traits = tmp_path / "traits.csv"
    traits.write_text("user,group\na,x\n")
    assert main(["perspectives", str(sample_path("case_review")), "--traits", str(traits)]) == 2
    assert "annotator_id" in _one_error_line(capsys)


def test_certainty_command_uses_model_matrices_and_the_pl_reliabilities(tmp_path, capsys):
    """h1 step 16: models from io.model_matrices(complete=True) (a partial model: one line
    naming it, exit 2), PL reliabilities checked by pl_reliability_allowed, canonical folders."""
    import pandas as pd

    folder = sample_path("case_review")
    preds = pd.read_csv(folder / "predictions.csv", dtype=str)
    partial = preds[~((preds["model"] == "weak") & (preds["item_id"] == preds["item_id"].iloc[0]))]
    partial.to_csv(tmp_path / "partial.csv", index=False)
    assert main(["certainty", str(folder), "--samples", "5", "--json",
                 "--predictions", str(folder / "predictions.csv")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["predictor"] for r in out["accuracy"]} == {"calibrated", "overconfident", "weak"}
    assert main(["certainty", str(folder), "--samples", "5",
                 "--predictions", str(tmp_path / "partial.csv")]) == 2
    assert "weak: predicts 239 of 240 items" in _one_error_line(capsys)
    assert main(["certainty", str(sample_path("dermatology")), "--samples", "5",
                 "--reliability", "2.5", "inf"]) == 2
    assert "2.5" in _one_error_line(capsys)


def test_certainty_tables_hold_every_draw_and_case(tmp_path, capsys):
    """``--tables DIR``: the sweep's tables as CSV, the per-draw and per-case UA values
    (Stutz et al., Figure 7) agreeing with the printed summary; a folder that cannot be made is
    one error line, exit 2."""
    import pandas as pd

    folder = sample_path("case_review")
    out = tmp_path / "tables"
    args = ["certainty", str(folder), "--samples", "6", "--reliability", "1", "inf",
            "--predictions", str(folder / "predictions.csv")]
    assert main([*args, "--json"]) == 0
    printed = pd.DataFrame(json.loads(capsys.readouterr().out)["accuracy"])
    assert main([*args, "--tables", str(out)]) == 0
    assert "Tables written to" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == [
        "accuracy.csv", "accuracy_per_case.csv", "accuracy_per_draw.csv", "certainty.csv",
        "per_case.csv"]
    draws = pd.read_csv(out / "accuracy_per_draw.csv")
    cases = pd.read_csv(out / "accuracy_per_case.csv", dtype={"item_id": str})
    keys = ["reliability", "predictor", "k", "metric"]
    means = draws.groupby(keys)["value"].mean().rename("from_draws").reset_index()
    printed["reliability"] = pd.to_numeric(printed["reliability"], errors="coerce")
    merged = printed.merge(means[means["reliability"] == 1.0], on=keys)
    assert len(merged) == len(draws[draws["reliability"] == 1.0].groupby(keys)) == 18
    assert (merged["mean"] - merged["from_draws"]).abs().max() < 1e-9
    assert set(cases["item_id"]) == set(pd.read_csv(folder / "annotations.csv",
                                                    dtype=str)["item_id"])
    blocked = tmp_path / "file"
    blocked.write_text("x")
    assert main([*args, "--tables", str(blocked / "sub")]) == 2
    assert "tables folder" in _one_error_line(capsys)
