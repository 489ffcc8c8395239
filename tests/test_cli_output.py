"""hlv_core.cli._output: the one JSON writer (NaN -> null with reasons) and the one error line."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from hlv_core.cli import _output
from hlv_core.cli._output import error_line, jsonable, records, set_text_hook, write_json
from hlv_core.io import DataError

TABLE = pd.DataFrame({
    "model": ["a", "b", "c"], "metric": ["soft_accuracy"] * 3,
    "value": [0.5, np.nan, 1.0], "n_items": [3, 4, 5], "multilabel": [False, True, False],
})


def _write(payload, **kwargs):
    buffer = io.StringIO()
    n = write_json(payload, stream=buffer, **kwargs)
    return buffer.getvalue(), n


# TABLE as the CLI prints it: a list of objects, two-space indent, NaN -> null, numpy scalars
# as plain JSON numbers and booleans (written out by hand)
TABLE_JSON = """[
  {
    "model": "a",
    "metric": "soft_accuracy",
    "value": 0.5,
    "n_items": 3,
    "multilabel": false
  },
  {
    "model": "b",
    "metric": "soft_accuracy",
    "value": null,
    "n_items": 4,
    "multilabel": true
  },
  {
    "model": "c",
    "metric": "soft_accuracy",
    "value": 1.0,
    "n_items": 5,
    "multilabel": false
  }
]
"""


def test_table_text_and_records_by_hand():
    text, n = _write(TABLE)
    assert text == TABLE_JSON
    assert n == 1
    recs = records(TABLE)
    assert recs == [
        {"model": "a", "metric": "soft_accuracy", "value": 0.5, "n_items": 3, "multilabel": False},
        {"model": "b", "metric": "soft_accuracy", "value": None, "n_items": 4, "multilabel": True},
        {"model": "c", "metric": "soft_accuracy", "value": 1.0, "n_items": 5, "multilabel": False},
    ]
    # JSON-ready Python values (== alone would accept numpy scalars too)
    assert [type(r["n_items"]) for r in recs] == [int] * 3
    assert [type(r["multilabel"]) for r in recs] == [bool] * 3
    assert [type(r["value"]) for r in recs] == [float, type(None), float]
    clean = {"alpha": 0.25, "ci_low": float("nan")}
    assert jsonable(clean) == {"alpha": 0.25, "ci_low": None}


def test_null_reasons_added_to_objects_only():
    text, n = _write({"alpha": float("nan"), "n": np.int64(3)},
                     null_reasons=["alpha is undefined: every value identical"])
    out = json.loads(text)
    assert n == 1 and out["alpha"] is None and out["n"] == 3
    assert out["null_reasons"] == ["alpha is undefined: every value identical"]
    generic = json.loads(_write({"x": float("inf")})[0])
    assert generic["x"] is None and "undefined" in generic["null_reasons"][0]
    assert "null_reasons" not in json.loads(_write({"x": 1.0})[0])
    assert json.loads(_write([{"x": float("nan")}])[0]) == [{"x": None}]


def test_numpy_pandas_and_nested_values():
    value = {"arr": np.array([1.0, np.nan]), "t": (1, 2), "ts": pd.Timestamp("2026-01-02"),
             "na": pd.NA, "b": np.bool_(True), "frame": pd.DataFrame({"v": [np.float32(0.5)]}),
             "obj": object}
    out = jsonable(value)
    assert out["arr"] == [1.0, None] and out["t"] == [1, 2] and out["na"] is None
    assert out["ts"].startswith("2026-01-02") and out["b"] is True
    assert out["frame"] == [{"v": 0.5}] and isinstance(out["obj"], str)
    json.dumps(out)  # every part is JSON


def test_text_hook_applies_to_every_string():
    try:
        set_text_hook(lambda s: s.replace("\x1b", ""))
        assert jsonable({"k\x1b": ["v\x1b"]}) == {"k": ["v"]}
        assert "\x1b" not in error_line(ValueError("bad \x1b[31m"))
    finally:
        set_text_hook(None)
    assert _output.TEXT_HOOK("\x1b") == "\x1b"


def test_error_line_is_one_line():
    err = DataError("two\nlines", source="f.csv", row=3, fix="fix it")
    line = error_line(err)
    assert line.startswith("error: ") and "\n" not in line
    assert "f.csv" in line and "fix it" in line


@pytest.mark.parametrize("value", [float("nan"), float("-inf"), np.float64("nan")])
def test_non_finite_become_null(value):
    assert jsonable([value]) == [None]
