"""``python -m hlv_core item`` / ``annotator``: the numbers of the Items and annotators page."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hlv_core import annotators
from hlv_core.cli import main
from hlv_core.samples import load_sample, sample_path


def test_item_command_lists_items_and_shows_one(capsys):
    data = load_sample("case_review")
    assert main(["item", str(sample_path("case_review")), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == data.n_items and "pair_agreement" in rows[0]
    item = rows[0]["item_id"]
    assert main(["item", str(sample_path("case_review")), "--id", item, "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    view = annotators.item_view(data, item)
    assert one["pair_agreement"] == pytest.approx(view.agreement)
    assert len(one["annotations"]) == view.n_annotators


def test_annotator_command_profile_equals_the_engine(capsys):
    data = load_sample("ratings")
    assert main(["annotator", str(sample_path("ratings")), "--id", "rater_01", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    profile = annotators.annotator_profile(data, "rater_01", pairs=annotators.annotator_pairs(data),
                                           camps=annotators.annotator_camps(data))
    assert got["majority_agreement"] == pytest.approx(profile.majority_agreement)
    assert got["mean_alpha"] == pytest.approx(profile.mean_alpha)
    assert got["camp"] == profile.camp and got["trait:age_group"] == profile.traits["age_group"]
    assert sum(sum(v for k, v in row.items() if k != "majority")
               for row in got["confusion_vs_majority"]) == profile.n_compared
    assert main(["annotator", str(sample_path("ratings"))]) == 0
    assert "rater_10" in capsys.readouterr().out


def test_unknown_ids_and_anonymous_data_are_one_line_errors(capsys):
    assert main(["item", str(sample_path("case_review")), "--id", "nope"]) == 2
    assert main(["annotator", str(sample_path("case_review")), "--id", "nope"]) == 2
    assert main(["annotator", str(sample_path("dermatology"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("error:") for line in err)


def test_a_missed_id_is_found_by_its_spelling_or_answered_with_close_ids(capsys):
    """An id typed with stray spaces or a zero-width space is the dataset's id (the loader's
    look-alike rule); a typo is answered with up to three close ids, never a bare 'no item'."""
    dataset = load_sample("case_review")
    first = str(dataset.item_ids[0])
    want = annotators.item_view(dataset, first).soft_label
    for typed in (f"  {first} ", f"{first}\u200b"):
        assert annotators.item_view(dataset, typed).soft_label.equals(want), repr(typed)
    annotator = str(dataset.annotator_ids[0])
    assert main(["annotator", str(sample_path("case_review")), "--id", annotator.upper(),
                 "--json"]) == 2
    err = capsys.readouterr().err
    assert f"did you mean {annotator!r}" in err and "annotators" in err
    with pytest.raises(ValueError, match="no item 'zzzz' in this dataset \\(it has"):
        annotators.item_view(dataset, "zzzz")
    ids = np.array([f"id{i:06d}" for i in range(30_000)])  # the big-dataset path
    with pytest.raises(ValueError, match="did you mean 'id012345'\\?"):
        annotators._find_id("012345", ids, "item")  # ids that contain the query
    with pytest.raises(ValueError, match="no item 'x9' in this dataset \\(it has 30,000"):
        annotators._find_id("x9", ids, "item")


def test_a_reader_that_leaves_early_stops_the_command_quietly(tmp_path):
    """``python -m hlv_core item FILE | head``: when the pipe's reader leaves, the command stops
    with 141 (128 + SIGPIPE) and no error line, as Unix tools do."""
    import subprocess
    import sys

    rows = "".join(f"i{i},{a},{'xy'[(i + len(a)) % 2]}\n" for i in range(6000) for a in "abc")
    path = tmp_path / "many.csv"
    path.write_text("item_id,annotator_id,label\n" + rows, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "hlv_core", "item", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"item_id")
    proc.stdout.close()  # the reader leaves after one line
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert b"error" not in stderr.lower() and b"Traceback" not in stderr
