"""Case-at-a-time review: a case's pairs saved together, undo of the
reviewer's own last judgement (audited), the next case, readable history, and the rule that
says how many more judgements the meta-evaluation needs."""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

from hlv_core import review
from hlv_core.review import ReviewStore

MODELS = ["m1", "m2", "m3"]


@pytest.fixture
def store(tmp_path):
    return ReviewStore(tmp_path / "r.sqlite3")


# ------------------------------------------------------------------ store: cases and undo


def test_add_case_saves_every_pair_in_one_batch(store):
    batch = store.add_case("ann", "c1", [("m1", "m2", "A"), ("m3", "m1", "both")],
                           comment="hm", dataset="d")
    rows = store.judgements()
    assert len(rows) == 2 and set(rows["batch"]) == {batch}
    assert rows["comment"].tolist() == ["hm", "hm"]
    with pytest.raises(ValueError):
        store.add_case("ann", "c2", [("m1", "m2", "A"), ("m2", "m1", "B")], dataset="d")
    with pytest.raises(ValueError):
        store.add_case("ann", "c2", [("m1", "m2", "A"), ("m1", "m3", "maybe")], dataset="d")
    assert len(store) == 2  # nothing of a bad case is written


def test_undo_takes_back_only_the_reviewers_own_last_case(store):
    store.add_case("ann", "c1", [("m1", "m2", "A")], dataset="d")
    second = store.add_case("ann", "c2", [("m1", "m2", "B"), ("m1", "m3", "A")], dataset="d")
    store.add_case("bob", "c3", [("m1", "m2", "A")], dataset="d")  # later, someone else
    store.add_case("ann", "c9", [("m1", "m2", "A")], dataset="other")  # another dataset
    assert store.last_batch("ann", dataset="d")["item_id"].tolist() == ["c2", "c2"]
    undone = store.undo_last("ann", dataset="d", batch=second)
    assert undone["item_id"].tolist() == ["c2", "c2"]
    assert (undone["undone_at"] != "").all()
    live = store.judgements(dataset="d")
    assert sorted(zip(live["reviewer"], live["item_id"], strict=True)) == [
        ("ann", "c1"), ("bob", "c3")]
    assert len(store) == 3
    # audited: the rows stay in the file, marked with the UTC time of the undo
    every = store.judgements(include_undone=True)
    assert len(every) == 5
    marked = every[every["undone_at"] != ""]
    assert marked["item_id"].tolist() == ["c2", "c2"]
    assert all(review.to_instant(t) == t for t in marked["undone_at"])
    # a stale undo (batch no longer the last) does nothing
    assert store.undo_last("ann", dataset="d", batch=second).empty
    assert len(store.judgements(dataset="d")) == 2
    # exports and counts leave the undone rows out
    assert "c2" not in set(store.export_frame()["item_id"])
    _, comps = store.pair_counts(MODELS, dataset="d")
    assert comps[0, 2] == 0


def test_undo_never_touches_imported_rows(store, tmp_path):
    path = tmp_path / "in.csv"
    pd.DataFrame([dict(reviewer="ann", item_id="c1", model_a="m1", model_b="m2",
                       choice="A", dataset="d")]).to_csv(path, index=False)
    store.import_csv(path, imported_by="admin")
    assert store.undo_last("ann", dataset="d").empty
    assert len(store) == 1


def test_undo_makes_the_earlier_judgement_count_again(store):
    store.add_case("ann", "c1", [("m1", "m2", "A")], dataset="d")
    store.add_case("ann", "c1", [("m2", "m1", "A")], dataset="d")  # changed her mind
    assert store.judgements(latest_only=True)["model_a"].tolist() == ["m2"]
    store.undo_last("ann", dataset="d")
    assert store.judgements(latest_only=True)[["model_a", "choice"]].values.tolist() == [
        ["m1", "A"]]


def test_migration_from_version_3_adds_the_undo_columns(tmp_path):
    path = tmp_path / "v3.sqlite3"
    ReviewStore(path).add("ann", "c1", "m1", "m2", "A", dataset="d")
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE j3 AS SELECT id, uuid, reviewer, item_id, model_a, model_b, choice,
            comment, dataset, created_at, recorded_at, source, imported_by, import_file
            FROM judgements;
        DROP TABLE judgements;
        ALTER TABLE j3 RENAME TO judgements;
        PRAGMA user_version = 3;
    """)
    con.close()
    store = ReviewStore(path)
    assert store.schema_version == review.SCHEMA_VERSION == 4
    assert store.judgements()[["item_id", "batch", "undone_at"]].values.tolist() == [
        ["c1", "", ""]]
    undone = store.undo_last("ann", dataset="d")  # a row without a batch is undone alone
    assert undone["item_id"].tolist() == ["c1"] and len(store) == 0


# ------------------------------------------------------------------ next case


def _frame(rows):
    frame = pd.DataFrame(rows, columns=["reviewer", "item_id", "model_a", "model_b", "choice"])
    return frame.assign(id=range(len(frame)))


def test_next_case_shows_every_unjudged_pair_of_the_most_contested_case():
    items = ["c1", "c2", "c3"]
    proposal = review.next_case(_frame([]), "ann", items, MODELS, entropy=[0.1, 0.9, 0.5],
                                seed=1)
    assert proposal.item_id == "c2"
    assert sorted(proposal.models) == MODELS
    assert {frozenset(p) for p in proposal.pairs} == {frozenset(p) for p in
                                                      [("m1", "m2"), ("m1", "m3"), ("m2", "m3")]}
    rank = {m: k for k, m in enumerate(proposal.models)}
    assert all(rank[a] < rank[b] for a, b in proposal.pairs)  # left = earlier letter
    assert (proposal.remaining_cases, proposal.total_cases) == (3, 3)
    # ann judged one pair of c2 already: only the two others come back; bob still gets all
    done = _frame([("ann", "c2", "m2", "m1", "A")])
    again = review.next_case(done, "ann", items, MODELS, entropy=[0.1, 0.9, 0.5], seed=1)
    assert again.item_id == "c2" and len(again.pairs) == 2
    assert frozenset(("m1", "m2")) not in {frozenset(p) for p in again.pairs}
    assert len(review.next_case(done, "bob", items, MODELS, entropy=[0.1, 0.9, 0.5]).pairs) == 3


def test_next_case_caps_the_pairs_and_ends():
    many = [f"m{k}" for k in range(6)]
    proposal = review.next_case(_frame([]), "ann", ["c1"], many, max_pairs=4, seed=0)
    assert len(proposal.pairs) == 4
    rows = [("ann", "c1", a, b, "A") for a, b in
            [(a, b) for k, a in enumerate(MODELS) for b in MODELS[k + 1:]]]
    assert review.next_case(_frame(rows), "ann", ["c1"], MODELS) is None
    assert review.next_case(_frame([]), "ann", ["c1"], ["m1"]) is None


def test_output_letters():
    assert review.output_letters(3) == ["A", "B", "C"]
    assert review.output_letters(28)[-2:] == ["AA", "AB"]


# ------------------------------------------------------------------ history


def test_readable_time_has_minutes_and_utc_no_microseconds():
    assert review.readable_time("2026-11-25T14:03:59.123456+00:00") == "2026-11-25 14:03 UTC"
    assert review.readable_time("2026-11-25T16:03:00+02:00") == "2026-11-25 14:03 UTC"
    assert review.readable_time("") == ""


def test_history_table_in_words_and_blinded(store):
    store.add_case("ann", "c1", [("m1", "m2", "A"), ("m1", "m3", "B"), ("m2", "m3", "both")],
                   comment="<b>x</b>", dataset="d")
    mine = store.judgements(reviewer="ann")
    table = review.history_table(mine)
    assert table["Judgement"].tolist() == ["Both acceptable", "m3 more accurate",
                                           "m1 more accurate"]
    assert table["Models compared"].tolist()[0] == "m2 vs m3"
    assert table["When"].str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").all()
    blind = review.history_table(mine, reveal_models=False)
    assert blind.columns.tolist() == ["When", "Case", "Pairs judged", "Comment"]
    assert blind[["Case", "Pairs judged", "Comment"]].values.tolist() == [["c1", 3, "<b>x</b>"]]
    assert not blind.astype(str).apply(lambda c: c.str.contains("m1|m2|m3")).any().any()


# ------------------------------------------------------------------ how many more judgements


def test_sufficiency_states_the_rule_and_counts_what_is_missing():
    few = _frame([("ann", "c1", "m1", "m2", "A"), ("ann", "c2", "m2", "m1", "B")])
    need = review.judgement_sufficiency(few, MODELS, min_judgements=10)
    assert not need.enough and need.needed == 8 and need.n_judgements == 2
    assert need.missing_pairs == (("m1", "m3"), ("m2", "m3"))
    assert "every pair of the 3 models" in need.rule and "at least 10" in need.rule
    one_pair = _frame([("ann", f"c{k}", "m1", "m2", "A") for k in range(12)])
    need = review.judgement_sufficiency(one_pair, MODELS, min_judgements=10)
    assert not need.enough and need.needed == 2  # two pairs never compared
    full = _frame([("ann", f"c{k}", a, b, "A") for k in range(4)
                   for a, b in [("m1", "m2"), ("m1", "m3"), ("m3", "m2")]])
    assert review.judgement_sufficiency(full, MODELS, min_judgements=10).enough
    assert not review.judgement_sufficiency(full, ["m1"]).enough


def test_float_noise_counts_as_constant_in_correlations():
    metrics = pd.DataFrame({"x": [0.1, 0.2, 0.3]}, index=MODELS)
    noisy = pd.Series([0.5, 0.5000000000000002, 0.49999999999999994], index=MODELS)
    corr = review.metric_correlations(metrics, noisy)
    assert np.isnan(corr.loc[0, "r"]) and "constant" in corr.loc[0, "note"]


def test_cli_rank_states_the_same_rule(tmp_path, capsys):
    from hlv_core.cli import main

    db = tmp_path / "r.sqlite3"
    ReviewStore(db).add_case("ann", "c1", [("m1", "m2", "A"), ("m1", "m3", "B")])
    assert main(["review", "rank", str(db)]) == 0
    out = capsys.readouterr().out
    assert "note: 8 more judgements needed: human scores need every pair of the 3 models" in out
