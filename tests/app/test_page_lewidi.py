"""AppTest of pages/lewidi.py: upload a gold JSON and two submissions, see the leaderboard with
CIs and the paired test; refusals shown as errors; the synthetic demo."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from hlv_core import lewidi

from .conftest import open_page

PAGE = "lewidi"

GOLD = {
    f"i{k}": {"text": {"post": "p", "reply": f"r{k}"},
              "annotators": "Ann1,Ann2,Ann3,Ann4",
              "annotations": {f"Ann{j + 1}": str(int(v)) for j, v in enumerate(row)},
              "soft_label": {"0": 1 - float(np.mean(row)), "1": float(np.mean(row))},
              "split": "test"}
    for k, row in enumerate(np.random.default_rng(0).random((40, 4)) < 0.4)
}


def _soft(p1: np.ndarray) -> bytes:
    return "".join(f"{k}\t[{1 - p:.6f}, {p:.6f}]\n" for k, p in zip(GOLD, p1, strict=True)
                   ).encode()


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [i.value for i in at.info] + [w.value for w in at.warning]
    parts += [e.value for e in at.error]
    return "\n".join(parts)


@pytest.fixture
def page(app):
    return open_page(app, PAGE)


def test_two_uploads_give_a_leaderboard_with_cis_and_a_paired_test(page):
    at = page
    truth = np.array([g["soft_label"]["1"] for g in GOLD.values()])
    good = _soft(np.clip(truth + 0.05, 0, 1))
    flat = _soft(np.full(len(GOLD), 0.5))
    at.file_uploader(key="lewidi.gold").set_value(
        [("MP_test.json", json.dumps(GOLD).encode(), "application/json")])
    at.file_uploader(key="lewidi.subs").set_value(
        [("flat<b>_mp_test_soft.tsv", flat, "text/tab-separated-values"),
         ("good_mp_test_soft.tsv", good, "text/tab-separated-values")])
    at.number_input(key="lewidi.n_boot").set_value(200)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    board = at.dataframe[0].value
    assert board["system"].tolist() == ["good_mp_test_soft", "flat<b>_mp_test_soft"]
    expected = lewidi.score(GOLD, good, name="good_mp_test_soft.tsv")["score"]
    assert board["score"].iloc[0] == expected and board["rank"].tolist() == [1, 2]
    assert (board["ci_lower"] <= board["score"] + 1e-5).all()
    tests = at.dataframe[1].value
    assert tests["system_a"].tolist() == ["good_mp_test_soft"] and tests["p_value"].iloc[0] < 0.05
    assert len(at.get("plotly_chart")) >= 2  # CI plot + per-item scatter
    assert len(at.get("download_button")) >= 4


def test_refused_submission_is_an_error_not_a_crash(page):
    at = page
    at.file_uploader(key="lewidi.gold").set_value(
        [("MP_test.json", json.dumps(GOLD).encode(), "application/json")])
    partial = b"i0\t[0.5, 0.5]\n"
    at.file_uploader(key="lewidi.subs").set_value(
        [("mp_test_soft.tsv", partial, "text/tab-separated-values")])
    at.run()
    assert not at.exception
    assert "1 file(s) not scored" in _texts(at)
    refused = at.dataframe[0].value  # each file not scored, with the loader's reason
    assert refused["file"].tolist() == ["mp_test_soft.tsv"]
    assert "partial file" in refused["reason"].iloc[0]


def test_res_zip_upload_and_demo(page):
    at = page
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mp_test_soft.tsv", _soft(np.full(len(GOLD), 0.3)).decode())
        archive.writestr("__MACOSX/._mp_test_soft.tsv", "junk")
    at.file_uploader(key="lewidi.gold").set_value(
        [("MP_test.json", json.dumps(GOLD).encode(), "application/json")])
    at.file_uploader(key="lewidi.subs").set_value([("res.zip", buffer.getvalue(),
                                                    "application/zip")])
    at.run()
    assert not at.exception
    assert at.dataframe[0].value["system"].tolist() == ["res"]
    at.toggle(key="lewidi.demo").set_value(True)
    at.number_input(key="lewidi.n_boot").set_value(200)
    at.run()
    assert not at.exception
    board = at.dataframe[0].value
    assert set(board["system"]) == {"calibrated", "overconfident", "uniform"}


def test_plain_names_colours_and_explanations(page):
    """Metric and task names in words, the paired test explained, one colour per system (the
    same on a second figure of the session) and specific download labels."""
    at = page
    at.toggle(key="lewidi.demo").set_value(True)
    at.number_input(key="lewidi.n_boot").set_value(200)
    at.run()
    assert not at.exception
    texts = _texts(at)
    assert "Task A: soft labels" in texts
    assert "Manhattan distance (LeWiDi 2025, Task A) (lower is better)" in texts
    for title in ("LeWiDi Task A", "LeWiDi Task B", "Paired bootstrap test"):
        assert title in texts, title
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    trace = spec["data"][0]
    assert spec["layout"]["xaxis"]["title"]["text"].startswith("Manhattan distance")
    colours = at.session_state["hlv.model_colours"]
    systems = [s for s in trace["y"]]
    assert trace["marker"]["color"] == [colours[s] for s in systems]
    assert len(set(trace["marker"]["color"])) == len(systems) == 3
    labels = [b.label for b in at.get("download_button")]
    assert "Download CSV" not in labels and len(labels) == len(set(labels))
