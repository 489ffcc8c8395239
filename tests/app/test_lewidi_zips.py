"""LeWiDi page with two real-layout Codabench ``res.zip`` uploads of one team (real CSC and
Paraphrase gold): the zip with a bad file still scores its good files and lists the bad one
with its reason; both systems get distinct default names from the zips' folders (never "res"
twice) and can be renamed; the leaderboard compares them."""

from __future__ import annotations

from ..test_lewidi import gold_path
from ..test_lewidi_members import real_layout_zip
from .conftest import open_page


def test_two_res_zips_one_with_a_bad_file(app):
    at = open_page(app, "lewidi")
    golds = [(p.name, p.read_bytes()) for p in (gold_path("CSC"), gold_path("Paraphrase"))]
    good, _ = real_layout_zip("team_alpha_run1", bad=False, seed=1)
    bad, _ = real_layout_zip("team_alpha_run2", bad=True, seed=2)
    at.file_uploader(key="lewidi.gold").set_value(
        [(name, blob, "application/json") for name, blob in golds])
    at.file_uploader(key="lewidi.subs").set_value(
        [("res.zip", good, "application/zip"), ("res.zip", bad, "application/zip")])
    at.number_input(key="lewidi.n_boot").set_value(200)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = " ".join(w.value for w in at.warning)
    assert "1 file(s) not scored" in warnings and "team_alpha_run2: 1" in warnings
    refused = at.dataframe[0].value
    bad_row = refused[refused["status"] == "refused"].iloc[0]
    assert bad_row["system"] == "team_alpha_run2" and bad_row["file"].endswith(
        "par_test_soft.tsv") and "row 4" in bad_row["reason"]
    board = at.dataframe[1].value
    csc_soft = board[(board["dataset"] == "CSC") & (board["task"] == "soft")] \
        if "dataset" in board.columns else board
    assert set(csc_soft["system"]) == {"team_alpha_run1", "team_alpha_run2"}
    everything = " ".join(str(v) for v in board["system"])
    assert "res" not in everything.split()
    # rename one system: the leaderboard follows
    box = next(t for t in at.text_input if t.value == "team_alpha_run2")
    box.set_value("BERT + soft loss").run()
    assert not at.exception
    assert "BERT + soft loss" in set(at.dataframe[1].value["system"])
