"""``--with FILE``: the Overview page's companion files on the command line, told by their
names (``hlv_core.io.companion_option``), with the page's rules: a name that says nothing or two
files of one kind are refused in one line (exit 2)."""

from __future__ import annotations

import json

import pytest

from hlv_core.cli import build_parser, main
from tests.conftest import shared_path

ANNOTATIONS = "item_id,annotator_id,label\n" + "".join(
    f"i{i},{a},{'yes' if (i + (a in ('c', 'd'))) % 3 else 'no'}\n"
    for i in range(40) for a in "abcd")
TRAITS = "annotator_id,group\na,north\nb,north\nc,south\nd,south\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "votes.csv").write_text(ANNOTATIONS, encoding="utf-8")
    (tmp_path / "annotators.csv").write_text(TRAITS, encoding="utf-8")
    return tmp_path


def test_traits_from_with_reach_the_camps(files, capsys):
    assert main(["competence", str(files / "votes.csv"), "--with", str(files / "annotators.csv"),
                 "--report", "--restarts", "0", "--camps", "group", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["annotator_id"]: r["camp"] for r in out["annotators"]} == {
        "a": "north", "b": "north", "c": "south", "d": "south"}
    # without the companion there is no such trait: the same command is refused
    assert main(["competence", str(files / "votes.csv"), "--report", "--camps", "group"]) == 2
    assert "no trait 'group'" in capsys.readouterr().err


def test_lewidi_meta_gives_the_named_perspectivist_task(capsys):
    folder = shared_path("data", "lewidi2025", "MP")
    argv = ["perspectives", str(folder / "MP_dev.json"), "--json"]
    assert main([*argv, "--with", str(folder / "MP_annotators_meta.json")]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["named"] is True
    assert main(argv) == 2  # no traits: the unnamed task needs adaptation
    assert "unnamed users without adaptation" in capsys.readouterr().err


@pytest.mark.parametrize("extra, words", [
    (["--with", "{d}/notes.csv"], "does not say what this companion file is"),
    (["--with", "{d}/annotators.csv", "--with", "{d}/Annotators_2.csv"],
     "two companion files are read as annotators"),
    (["--with", "{d}/items_missing.csv"], "file not found"),
])
def test_bad_companions_are_one_line_and_exit_2(files, capsys, extra, words):
    (files / "notes.csv").write_text("x\n1\n", encoding="utf-8")
    (files / "Annotators_2.csv").write_text(TRAITS, encoding="utf-8")
    argv = ["summary", str(files / "votes.csv"), *[e.format(d=files) for e in extra]]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_a_folder_with_companions_and_traits_twice_are_refused(files, capsys):
    folder = files / "set"
    folder.mkdir()
    (folder / "annotations.csv").write_text(ANNOTATIONS, encoding="utf-8")
    assert main(["summary", str(folder), "--with", str(files / "annotators.csv")]) == 2
    assert "given with a folder" in capsys.readouterr().err
    assert main(["perspectives", str(files / "votes.csv"), "--with",
                 str(files / "annotators.csv"), "--traits", str(files / "annotators.csv")]) == 2
    assert "pass one of them" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["summary", "f"], ["item", "f"], ["annotator", "f"], ["competence", "f"], ["errors", "f"],
    ["agreement", "f"], ["perspectives", "f"], ["lab", "f"], ["report", "f", "-o", "x.html"],
    ["judge", "alt-test", "f", "p"], ["judge", "ceiling", "f", "p"],
    ["judge", "calibration", "f", "p"],
])
def test_every_single_file_command_takes_with(argv):
    args = build_parser().parse_args([*argv, "--with", "annotators.csv"])
    assert args.companions == ["annotators.csv"]
