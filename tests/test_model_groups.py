"""Training lab models as one group: merged notes, one coverage warning per group, the rank
grid for many models, the line a stopped run leaves."""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd

from hlv_core.glossary import metric_label
from hlv_core.scoring import metric_ranks
from hlv_core.training import METHODS
from hlv_ui.model_groups import coverage_warnings, group_notes, lab_models
from pages.soft_metrics.rank_figures import rank_grid
from pages.training_lab.stop_views import stopped_text

LAB = [f"lab {m}" for m in METHODS] + ["lab SLMV-soft"]  # 15 models, as the lab sends them


def test_lab_models_are_recognised_by_their_prefix():
    assert lab_models(["gpt", "lab SL", "laboratory", "lab AE"]) == ["lab SL", "lab AE"]


def test_notes_saying_the_same_of_lab_models_become_one():
    notes = [f"{m}: predicts 120 of 500 items (skipped)." for m in LAB]
    notes.insert(3, "gpt: predicts 10 of 500 items (skipped).")
    merged = group_notes(notes, LAB + ["gpt"])
    assert merged[1] == "gpt: predicts 10 of 500 items (skipped)."  # where the group began
    assert len(merged) == 2
    assert merged[0].startswith("15 training lab models (lab ReL, lab MV, lab AR, lab ARh and "
                                "11 more): each predicts 120 of 500 items")
    # "lab SL" never swallows "lab SLMV": different notes stay apart
    two = group_notes(["lab SLMV: bad rows.", "lab SL: predicts 1 of 2 items (skipped)."],
                      ["lab SL", "lab SLMV"])
    assert two == ["lab SLMV: bad rows.", "lab SL: predicts 1 of 2 items (skipped)."]
    other = [f"Model {m} does not cover every test text; left out." for m in LAB[:3]]
    assert group_notes(other, LAB) == ["3 training lab models (lab ReL, lab MV, lab AR) do "
                                       "not cover every test text; left out."]
    assert group_notes(notes, None) == notes


def test_one_coverage_warning_for_the_lab_group():
    covered = {m: 120 for m in LAB} | {"gpt": 80, "full": 500}
    lines = coverage_warnings(covered, 500)
    assert len(lines) == 2
    assert lines[0].startswith("**gpt** is scored on only 80 of 500 items")
    assert "**15 training lab models**" in lines[1] and "120 of 500 items" in lines[1]
    spread = coverage_warnings({"lab SL": 100, "lab MV": 120}, 500)
    assert len(spread) == 1 and "100 to 120 of 500" in spread[0]
    assert coverage_warnings({"lab SL": 500}, 500) == []


def _ranks(n_models: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"model": f"lab <{i}>" if i == 0 else f"m{i:02d}", "metric": metric,
             "value": float(rng.uniform()), "higher_is_better": metric != "lewidi_manhattan"}
            for i in range(n_models)
            for metric in ("hard_accuracy", "soft_accuracy", "lewidi_manhattan")]
    return metric_ranks(pd.DataFrame(rows))


def test_rank_grid_with_15_models_is_one_row_per_model_best_first():
    ranks = _ranks(15)
    fig = rank_grid(ranks, {"m01": "#123456"})
    spec = json.loads(fig.to_json())
    heat = spec["data"][0]
    assert heat["type"] == "heatmap" and len(heat["y"]) == 15
    mean = ranks.groupby("model")["rank"].mean().sort_values(kind="stable")
    assert heat["y"] == [html.escape(m) for m in mean.index]  # best mean rank on top
    assert "lab &lt;0&gt;" in heat["y"]  # user strings escaped once
    ticks = spec["layout"]["yaxis"]["ticktext"]
    assert any("#123456" in t and "m01" in t for t in ticks)
    cells = {(y, x): t for y, row in zip(heat["y"], heat["text"], strict=True)
             for x, t in zip(heat["x"], row, strict=True)}
    first = ranks[(ranks["model"] == "m01") & (ranks["metric"] == "lewidi_manhattan")]
    assert cells[("m01", metric_label("lewidi_manhattan"))] == str(int(first["rank"].iloc[0]))
    assert spec["layout"]["height"] >= 26 * 15


def test_stopped_line_has_no_time_left():
    line = stopped_text(12.4, 3, 14)
    assert line.startswith("Stopped after 12 s") and "3 of 14 methods" in line
    assert "left" not in line
