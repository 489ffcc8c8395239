"""``python -m hlv_core competence`` / ``errors``: output, JSON and the one-line error contract."""

from __future__ import annotations

import json

import pytest

from hlv_core.cli import main
from tests.conftest import shared_path


def test_competence_json_matches_the_engine(capsys):
    from hlv_core import competence
    from hlv_core.io import load

    folder = shared_path("data", "armis")
    assert main(["competence", str(folder), "--model", "one-coin", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = competence.one_coin_dawid_skene(load(folder).annotations)
    assert out["converged"] and out["n_iter"] == res.n_iter
    skills = {r["annotator_id"]: r["skill"] for r in out["annotators"]}
    assert skills == pytest.approx(res.skill.to_dict())


def test_competence_plain_em_flag_reaches_the_same_fit(capsys):
    """``--plain-em`` runs the plain iterations (more of them) to the fixed point SQUAREM reaches
    by default; both runs say which they used."""
    folder = shared_path("data", "paraphrase")
    assert main(["competence", str(folder), "--json"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert main(["competence", str(folder), "--json", "--plain-em"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert (fast["em"], plain["em"]) == ("SQUAREM", "plain")
    assert fast["converged"] and plain["converged"] and fast["n_iter"] < plain["n_iter"]
    assert fast["loglik"] == pytest.approx(plain["loglik"], rel=1e-12)
    accuracy = {r["annotator_id"]: r["accuracy"] for r in fast["annotators"]}
    assert accuracy == pytest.approx({r["annotator_id"]: r["accuracy"]
                                      for r in plain["annotators"]}, abs=1e-8)


def test_competence_table_mace_and_report(capsys):
    folder = shared_path("data", "planted_camps")
    assert main(["competence", str(folder), "--model", "mace", "--restarts", "2"]) == 0
    text = capsys.readouterr().out
    assert "competence" in text and "seed: 0" in text
    assert main(["competence", str(folder), "--report", "--restarts", "1", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    kinds = {r["annotator_id"]: r["kind"] for r in rep["annotators"]}
    assert set(kinds.values()) <= {"reliable", "unreliable", "systematic", "insufficient_data"}
    assert rep["thresholds"]["min_rows"] == 20


def test_errors_ranking_and_gold_table(capsys):
    folder = shared_path("data", "varierrnli")
    assert main(["errors", str(folder), "--method", "label_count", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "not a verdict" in text and len(text.strip().splitlines()) == 5
    gold = folder / "errors.csv"
    assert main(["errors", str(folder), "--method", "label_count", "--gold", str(gold),
                 "--boot", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert round(out["methods"][0]["ap"], 1) == 40.8


def test_errors_choosers_are_the_engine_join(capsys):
    """``errors --choosers`` shows beside each possible error who chose it and their verdict
    (Weber-Genzel et al. 2024, section 5): the engine's ``label_choosers`` of the report fit."""
    from hlv_core import competence, errors
    from hlv_core.io import load

    folder = shared_path("data", "planted_camps")
    assert main(["errors", str(folder), "--top", "4", "--choosers", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    annotations = load(folder).annotations
    report = competence.annotator_report(annotations, mace_restarts=0)
    expected = errors.label_choosers(annotations, report).set_index(["item_id", "label"])
    assert len(out["ranking"]) == 4
    for row in out["ranking"]:
        assert row["choosers"] == expected.at[(row["item_id"], row["label"]), "choosers"]


def test_report_subset_reaches_the_camp_rule(capsys):
    """``competence --report --subset topic=T1`` hands the items of rule (b) (own camp against
    the majority on a subset; Basile's camps) to the engine; a bad column is one clear line."""
    from hlv_core import competence
    from hlv_core.io import load

    folder = shared_path("data", "planted_camps")
    assert main(["competence", str(folder), "--report", "--restarts", "0", "--subset",
                 "topic=T1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["subset"] == "topic=T1"
    dataset = load(folder)
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    want = competence.annotator_report(
        annotations, camps=competence.sigma_camps(annotations), mace_restarts=0,
        subset=competence.subset_items(dataset.items, "topic", "T1"))
    got = {r["annotator_id"]: r["majority_agreement_in"] for r in out["annotators"]}
    assert got == pytest.approx(want["majority_agreement_in"].to_dict())
    for argv, words in ((["--subset", "colour=red"], "no column 'colour'"),
                        (["--subset", "topic=T9"], "no item has topic = 'T9'"),
                        (["--subset", "topic"], "COLUMN=VALUE")):
        assert main(["competence", str(folder), "--report", "--restarts", "0", *argv]) == 2
        assert words in capsys.readouterr().err
    assert main(["competence", str(folder), "--subset", "topic=T1"]) == 2
    assert "add --report" in capsys.readouterr().err
    # camps from a known annotator trait instead of the signed graph
    assert main(["competence", str(folder), "--report", "--restarts", "0", "--camps", "role",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["camps"] == "role"
    roles = dataset.annotators.set_index("annotator_id")["role"].to_dict()
    assert {r["annotator_id"]: r["camp"] for r in out["annotators"]} == roles
    assert main(["competence", str(folder), "--report", "--camps", "colour"]) == 2
    assert "no trait 'colour'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["competence", "{one}"],
    ["competence", "{two}", "--model", "ds"],
    ["errors", "{two}", "--method", "peer_sum_all"],
    ["errors", "{two}", "--method", "all"],
    ["errors", "{two}", "--gold", "{missing}"],
])
def test_bad_input_is_one_line_and_exit_2(argv, tmp_path, capsys):
    one = tmp_path / "one.csv"
    one.write_text("item_id,annotator_id,label\n1,a,x\n2,a,y\n")
    two = tmp_path / "two.csv"
    two.write_text("item_id,annotator_id,label\n1,a,x\n1,b,x\n2,a,x\n2,b,x\n")
    paths = {"one": one, "two": two, "missing": tmp_path / "nope.csv"}
    args = [a.format(**paths) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1


def test_label_counts_are_refused_where_annotators_are_modelled(tmp_path, capsys):
    """On label counts every pseudo-annotator has one row: Dawid-Skene's per-annotator
    confusions are not identified and every posterior falls back to the class prior (so a
    'ds_posterior' ranking would only sort labels by prevalence). ``competence``, the
    annotator-aware ``errors`` methods and ``--choosers`` refuse such data in one line (exit 2),
    as the Errors and perspectives page does; the methods that read only label counts run."""
    from hlv_core import errors
    from hlv_core.io import load

    counts = tmp_path / "label_counts.csv"
    counts.write_text("item_id,label,count\n" + "".join(
        f"i{i},yes,{3 + i % 4}\ni{i},no,{1 + (i * 7) % 5}\n" for i in range(30)),
        encoding="utf-8")
    assert not load(counts).annotator_ids_known
    refusals = (["competence", str(counts)],
                ["competence", str(counts), "--report"],
                ["errors", str(counts)],
                ["errors", str(counts), "--method", "annotator_singleton"],
                ["errors", str(counts), "--method", "label_count", "--choosers"])
    for argv in refusals:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "label_counts.csv" in err
        assert "annotator ids linked across items" in err
    assert "--method random / label_count" in (main(["errors", str(counts)]) == 2
                                               and capsys.readouterr().err)
    for method in errors.COUNT_METHODS:
        assert main(["errors", str(counts), "--method", method, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["n_units"] == 60
    gold = tmp_path / "gold.csv"
    gold.write_text("item_id,label,is_error\n" + "".join(
        f"i{i},no,{int(i % 3 == 0)}\ni{i},yes,0\n" for i in range(30)), encoding="utf-8")
    assert main(["errors", str(counts), "--method", "all", "--gold", str(gold), "--boot", "10",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [row["method"] for row in out["methods"]] == list(errors.COUNT_METHODS)
    assert "only the methods that read label counts" in out["notes"][0]
