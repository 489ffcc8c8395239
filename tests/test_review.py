"""Case review store, rank centrality and metric-vs-human correlation (seed 000 section 6,
Kurniawan et al., section 6)."""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import sqlite3
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import review
from hlv_core.io import DataError
from hlv_core.review import (
    DisconnectedComparisonWarning,
    ReviewStore,
    human_scores,
    metric_correlations,
    pair_table,
    rank_centrality,
    transition_matrix,
)

from .conftest import shared_path

HOSTILE = [
    "'); DROP TABLE judgements; --",
    'Robert"); DELETE FROM judgements WHERE ("1"="1',
    "<script>alert('x')</script><b>bold</b>",
    "multi\nline, with \"quotes\" and 'apostrophes' and ünïcödé ✓",
    "=HYPERLINK(\"http://evil\")",
]


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "reviews.sqlite3"
    monkeypatch.setenv("HLV_REVIEW_DB", str(path))
    return path


# ------------------------------------------------------------------ rank centrality


@pytest.fixture(scope="module")
def toy():
    return json.loads(shared_path("spec", "vectors", "softmetrics_rank_centrality_toy.json")
                      .read_text())


@pytest.mark.parametrize("ties,key", [("in_denominator", "ties_in_denominator"),
                                      ("decisive_only", "decisive_only")])
def test_toy_vector(toy, ties, key):
    wins, comps = np.array(toy["wins"]), np.array(toy["comps"])
    P = transition_matrix(wins, comps, ties=ties)
    np.testing.assert_allclose(P, toy[key]["transition_matrix"], atol=1e-9, rtol=0)
    pi = rank_centrality(wins, comps, ties=ties)
    np.testing.assert_allclose(pi, toy[key]["stationary_pi"], atol=1e-9, rtol=0)
    assert list(np.argsort(-pi)) == toy[key]["ranking_best_first"]
    if "choix_pi" in toy[key]:
        np.testing.assert_allclose(pi, toy[key]["choix_pi"], atol=1e-9, rtol=0)


def test_default_convention_is_ties_in_denominator(toy):
    wins, comps = np.array(toy["wins"]), np.array(toy["comps"])
    np.testing.assert_allclose(rank_centrality(wins, comps),
                               toy["ties_in_denominator"]["stationary_pi"], atol=1e-9)


def _brute_force_pi(wins, comps, ties):
    """Independent loop implementation: build P entry by entry, then iterate pi <- pi P."""
    m = len(wins)
    A = np.zeros((m, m))
    degree = np.zeros(m, dtype=int)
    for i in range(m):
        for j in range(m):
            den = comps[i][j] if ties == "in_denominator" else wins[i][j] + wins[j][i]
            if i != j and den > 0:
                A[i, j] = wins[i][j] / den
                degree[i] += 1
    P = A / degree.max()
    for i in range(m):
        P[i, i] = 1 - P[i].sum()
    pi = np.full(m, 1 / m)
    for _ in range(200_000):
        new = pi @ P
        if np.abs(new - pi).sum() < 1e-15:
            break
        pi = new
    return new / new.sum()


@st.composite
def connected_counts(draw):
    m = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    comps = rng.integers(0, 6, size=(m, m))
    comps = np.triu(comps, 1)
    comps[np.arange(m - 1), np.arange(1, m)] += 2  # a path keeps the graph connected
    comps = comps + comps.T
    a_wins = rng.binomial(comps, 0.45)
    b_wins = rng.binomial(comps - a_wins, 0.6)
    wins = np.triu(a_wins, 1) + np.triu(b_wins, 1).T
    # make every pair have a decisive result in both directions so pi is unique and > 0
    upper = np.triu(np.ones((m, m), dtype=bool), 1) & (comps > 0)
    wins[upper & (wins == 0)] += 1
    wins.T[upper & (wins.T == 0)] += 1
    comps = np.maximum(comps, wins + wins.T)
    comps = np.maximum(comps, comps.T)
    return wins, comps


@settings(max_examples=60, deadline=None)
@given(connected_counts(), st.sampled_from(review.TIES))
def test_matches_brute_force_stationary_distribution(counts, ties):
    wins, comps = counts
    pi = rank_centrality(wins, comps, ties=ties)
    np.testing.assert_allclose(pi, _brute_force_pi(wins, comps, ties), atol=1e-9)
    assert pi.sum() == pytest.approx(1.0)
    # permuting the models permutes the scores
    perm = np.random.default_rng(0).permutation(len(wins))
    np.testing.assert_allclose(rank_centrality(wins[np.ix_(perm, perm)],
                                               comps[np.ix_(perm, perm)], ties=ties), pi[perm],
                               atol=1e-10)


def test_matches_eigenvector_of_transition_matrix(toy):
    wins, comps = np.array(toy["wins"]), np.array(toy["comps"])
    P = transition_matrix(wins, comps)
    values, vectors = np.linalg.eig(P.T)
    v = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    np.testing.assert_allclose(rank_centrality(wins, comps), v / v.sum(), atol=1e-12)


def _choix_rank_centrality(n, data, alpha):
    """choix 0.4.1 ``rank_centrality`` re-stated (rate matrix, stationary vector by SVD)."""
    chain = alpha * np.ones((n, n))
    for winner, loser in data:
        chain[loser, winner] += 1.0
    idx = chain > 0
    chain[idx] = chain[idx] / (chain + chain.T)[idx]
    chain -= np.diag(chain.sum(axis=1))
    _, _, vh = np.linalg.svd(chain.T)
    v = np.abs(vh[-1])
    return v / v.sum()


@pytest.mark.parametrize("alpha", [0.01, 0.5, 2.0])
def test_regularised_decisive_equals_choix_alpha(alpha):
    # disconnected: {0, 1} and {2, 3} never compared
    wins = np.array([[0, 3, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 5, 0]])
    comps = np.array([[0, 5, 0, 0], [5, 0, 0, 0], [0, 0, 0, 8], [0, 0, 8, 0]])
    data = [(j, i) for i in range(4) for j in range(4) for _ in range(wins[i, j])]
    expected = _choix_rank_centrality(4, data, alpha)
    got = rank_centrality(wins, comps, ties="decisive_only", regularize=alpha)
    np.testing.assert_allclose(got, expected, atol=1e-10)


def test_disconnected_graph_refused_then_regularised_with_warning():
    wins = np.array([[0, 3, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 5, 0]])
    comps = np.array([[0, 5, 0, 0], [5, 0, 0, 0], [0, 0, 0, 8], [0, 0, 8, 0]])
    assert len(np.unique(review.comparison_components(comps))) == 2
    with pytest.raises(ValueError, match="regularize"):
        rank_centrality(wins, comps)
    with pytest.warns(DisconnectedComparisonWarning):
        table, notes = human_scores(wins, comps, ["a", "b", "c", "d"])
    assert any("disconnected" in n for n in notes)
    assert table["score_in_denominator"].sum() == pytest.approx(1.0)
    assert (table["regularize_decisive_only"] == review.DEFAULT_REGULARIZE).all()
    # within each component the model that won more is ahead (wins[0, 1] = 3: b beat a)
    s = table.set_index("model")["score_in_denominator"]
    assert s["b"] > s["a"] and s["c"] > s["d"]


def test_one_directional_results_without_unique_solution():
    # 0 beat 1, 2 beat 1, 0 and 2 never met: two absorbing models -> not unique
    wins = np.array([[0, 0, 0], [2, 0, 3], [0, 0, 0]])
    comps = np.array([[0, 2, 0], [2, 0, 3], [0, 3, 0]])
    with pytest.raises(ValueError, match="closed classes"):
        rank_centrality(wins, comps)
    # a single model that beats everyone is a unique (degenerate) answer
    wins = np.array([[0, 2, 1], [0, 0, 0], [1, 2, 0]])  # column 1 beat everyone
    comps = np.array([[0, 2, 2], [2, 0, 2], [2, 2, 0]])
    pi = rank_centrality(wins, comps)
    np.testing.assert_allclose(pi, [0, 1, 0], atol=1e-12)


def test_more_wins_never_lower_the_score(toy):
    wins, comps = np.array(toy["wins"]), np.array(toy["comps"])
    base = rank_centrality(wins, comps)
    better = wins.copy()
    better[3, 0] += 1  # model 0 beats model 3 once more (a former tie)
    assert rank_centrality(better, comps)[0] > base[0]


@pytest.mark.parametrize("bad,match", [
    (dict(comps=np.array([[0, 1], [2, 0]])), "symmetric"),
    (dict(wins=np.array([[0, 5], [0, 0]])), "exceeds"),
    (dict(wins=np.array([[0, -1], [0, 0]])), "non-negative"),
    (dict(comps=np.array([[1, 2], [2, 0]])), "diagonal"),
    (dict(ties="both"), "ties"),
    (dict(regularize=-1.0), "regularize"),
    (dict(comps=np.zeros((3, 3))), "square"),
])
def test_bad_arguments(bad, match):
    args = dict(wins=np.array([[0, 1], [1, 0]]), comps=np.array([[0, 2], [2, 0]]),
                ties="in_denominator", regularize=0.0)
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        rank_centrality(args.pop("wins"), args.pop("comps"), **args)


# ------------------------------------------------------------------ store basics


def test_default_db_path_follows_env(db):
    assert review.default_db_path() == db
    store = ReviewStore()
    assert store.path == db and db.exists()
    assert store.schema_version == review.SCHEMA_VERSION


def test_default_db_path_without_env(monkeypatch, tmp_path):
    monkeypatch.delenv("HLV_REVIEW_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert review.default_db_path() == tmp_path / "hlv-lens" / "reviews.sqlite3"


def test_add_and_judgements(db):
    store = ReviewStore(db)
    first = store.add("ann", "case_1", "m1", "m2", "A", comment="clear", dataset="h1")
    second = store.add("bob", "case_1", "m2", "m1", "neither")
    assert second > first
    frame = store.judgements()
    assert list(frame["id"]) == [first, second]
    assert {"reviewer", "item_id", "model_a", "model_b", "choice", "comment", "dataset",
            "created_at", "uuid"} <= set(frame.columns)
    assert frame.loc[0, "comment"] == "clear" and frame.loc[0, "dataset"] == "h1"
    assert frame["uuid"].is_unique
    assert pd.to_datetime(frame["created_at"]).notna().all()
    assert len(store.judgements(dataset="h1")) == 1
    assert len(store.judgements(reviewer="bob")) == 1
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("args,match", [
    (("ann", "c", "m1", "m2", "a"), "choice"),
    (("ann", "c", "m1", "m2", "tie"), "choice"),
    (("ann", "c", "m1", "m1", "A"), "differ"),
    (("", "c", "m1", "m2", "A"), "reviewer"),
    (("ann", 3, "m1", "m2", "A"), "item_id"),
])
def test_add_validates(db, args, match):
    store = ReviewStore(db)
    with pytest.raises(ValueError, match=match):
        store.add(*args)
    assert len(store) == 0


def test_hostile_text_is_stored_verbatim(db, tmp_path):
    store = ReviewStore(db)
    for text in HOSTILE:
        store.add(text, text, "m1", "m2", "both", comment=text, dataset=text)
    frame = store.judgements()
    assert list(frame["comment"]) == HOSTILE
    assert list(frame["reviewer"]) == HOSTILE
    assert len(store.judgements(reviewer=HOSTILE[0])) == 1
    with sqlite3.connect(db) as con:  # the table survived
        assert con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0] == len(HOSTILE)
    out = tmp_path / "x.csv"
    store.export_csv(out)
    other = ReviewStore(tmp_path / "other.sqlite3")
    assert other.import_csv(out) == len(HOSTILE)
    assert list(other.judgements()["comment"]) == HOSTILE


def test_restart_persistence_and_crash_after_commit(db):
    store = ReviewStore(db)
    store.add("ann", "c1", "m1", "m2", "A")
    del store
    # a process that commits and then dies without any cleanup
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=_commit_then_crash, args=(str(db),))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 3
    again = ReviewStore(db)
    frame = again.judgements()
    assert list(frame["reviewer"]) == ["ann", "crash"]


def _commit_then_crash(path):
    ReviewStore(path).add("crash", "c2", "m1", "m2", "B")
    os._exit(3)


def _writer(path, name, n, store=None):
    store = ReviewStore(path) if store is None else store
    for i in range(n):
        store.add(name, f"item_{i}", "m1", "m2", review.CHOICES[i % 4], comment=f"{name}-{i}")


def _check_all_rows(path, names, n):
    frame = ReviewStore(path).judgements()
    assert len(frame) == len(names) * n
    assert frame["uuid"].is_unique and frame["id"].is_unique
    assert sorted(frame["comment"]) == sorted(f"{a}-{i}" for a in names for i in range(n))


def test_concurrent_threads_lose_nothing(db):
    shared = ReviewStore(db)
    names = [f"t{k}" for k in range(8)]
    # half the threads share one ReviewStore object, half open their own
    threads = [threading.Thread(target=_writer, args=(db, name, 25, shared if k % 2 else None))
               for k, name in enumerate(names)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _check_all_rows(db, names, 25)


def test_concurrent_processes_lose_nothing(db):
    names = [f"p{k}" for k in range(4)]  # the file is created concurrently as well
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(db), name, 25)) for name in names]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 4
    _check_all_rows(db, names, 25)


# ------------------------------------------------------------------ migrations

V1_SCHEMA = """
CREATE TABLE judgements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer TEXT NOT NULL, item_id TEXT NOT NULL, model_a TEXT NOT NULL,
    model_b TEXT NOT NULL, choice TEXT NOT NULL, comment TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
"""


@pytest.mark.parametrize("user_version", [1, 0])
def test_migration_from_version_1(db, user_version):
    con = sqlite3.connect(db)
    con.executescript(V1_SCHEMA)
    con.executemany(
        "INSERT INTO judgements (reviewer, item_id, model_a, model_b, choice, comment, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [("ann", "c1", "m1", "m2", "A", HOSTILE[0], "2024-01-01T00:00:00+00:00"),
         ("bob", "c2", "m2", "m3", "neither", "", "2024-01-02T00:00:00+00:00")])
    con.execute(f"PRAGMA user_version = {user_version}")
    con.commit()
    con.close()
    store = ReviewStore(db)
    assert store.schema_version == review.SCHEMA_VERSION
    frame = store.judgements()
    assert list(frame["reviewer"]) == ["ann", "bob"]
    assert frame.loc[0, "comment"] == HOSTILE[0]
    assert frame["uuid"].notna().all() and frame["uuid"].is_unique
    assert (frame["dataset"] == "").all()
    new_id = store.add("cy", "c3", "m1", "m3", "B", dataset="h")
    assert new_id == 3
    store.add_own_labels("cy", "c3", ["x"])
    wins, comps = store.pair_counts(["m1", "m2", "m3"])
    assert comps[0, 1] == 1 and wins[1, 0] == 1 and wins[0, 2] == 1
    # re-opening a migrated file changes nothing
    assert len(ReviewStore(db)) == 3


def test_newer_schema_is_refused(db):
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")
    con.close()
    with pytest.raises(DataError, match="newer"):
        ReviewStore(db)


# ------------------------------------------------------------------ CSV


def test_export_import_roundtrip_without_duplicates(db, tmp_path):
    store = ReviewStore(db)
    store.add("ann", "c1", "m1", "m2", "A", comment="x, y", dataset="h")
    store.add("bob", "c1", "m2", "m1", "both")
    out = tmp_path / "out.csv"
    assert store.export_csv(out) == 2
    assert store.import_csv(out) == 0  # same uuids: nothing added
    other = ReviewStore(tmp_path / "b.sqlite3")
    assert other.import_csv(out) == 2
    assert other.import_csv(out) == 0
    cols = ["uuid", "reviewer", "item_id", "model_a", "model_b", "choice", "comment", "dataset",
            "created_at"]
    pd.testing.assert_frame_equal(store.judgements()[cols], other.judgements()[cols])


def test_import_without_uuid_is_idempotent(db, tmp_path):
    path = tmp_path / "hand.csv"
    path.write_text("reviewer,item_id,model_a,model_b,choice\nann,c1,m1,m2,A\nann,c2,m1,m2,B\n")
    store = ReviewStore(db)
    assert store.import_csv(path) == 2
    assert store.import_csv(path) == 0
    assert len(store) == 2


@pytest.mark.parametrize("content,match", [
    ("reviewer,item_id,model_a,model_b,choice\nann,c1,m1,m2,A\nann,c2,m1,m2,maybe\n", "row 3"),
    ("reviewer,item,model_a\nann,c1,m1\n", "missing column"),
    ("reviewer,item_id,model_a,model_b,choice,created_at\nann,c1,m1,m2,A,yesterday\n",
     "created_at"),
])
def test_bad_import_names_the_problem_and_writes_nothing(db, tmp_path, content, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    store = ReviewStore(db)
    with pytest.raises(DataError, match=match):
        store.import_csv(path)
    assert len(store) == 0


# ------------------------------------------------------------------ counts and tables


def test_pair_counts_layout_reproduces_toy_vector(db, toy):
    """Judgements generated from the toy counts give back the toy counts and scores."""
    wins, comps = np.array(toy["wins"]), np.array(toy["comps"])
    models = ["w", "x", "y", "z"]
    rows = []
    k = 0
    for i, j in itertools.combinations(range(4), 2):
        # wins[i, j]: j beat i; wins[j, i]: i beat j; the rest ties
        outcomes = (["j"] * wins[i, j] + ["i"] * wins[j, i]
                    + ["tie"] * (comps[i, j] - wins[i, j] - wins[j, i]))
        for n, outcome in enumerate(outcomes):
            k += 1
            flip = n % 2 == 1  # show the pair in both display orders
            a, b = (models[j], models[i]) if flip else (models[i], models[j])
            if outcome == "tie":
                choice = "both" if n % 3 else "neither"
            else:
                winner = models[j] if outcome == "j" else models[i]
                choice = "A" if winner == a else "B"
            rows.append(dict(reviewer=f"r{k}", item_id=f"c{k}", model_a=a, model_b=b,
                             choice=choice))
    store = ReviewStore(db)
    store.add_many(rows)
    got_wins, got_comps = store.pair_counts(models)
    np.testing.assert_array_equal(got_wins, wins)
    np.testing.assert_array_equal(got_comps, comps)
    np.testing.assert_allclose(rank_centrality(got_wins, got_comps),
                               toy["ties_in_denominator"]["stationary_pi"], atol=1e-9)
    table = pair_table(store.judgements(), models)
    assert len(table) == 6 and (table["n"] == 10).all()
    first = table.iloc[0]  # w vs x: x beat w 6 times, w beat x 2 times
    assert (first["model_1_wins"], first["model_2_wins"]) == (2, 6)
    assert first["both"] + first["neither"] == 2


def test_only_latest_judgement_per_reviewer_item_pair_counts(db):
    store = ReviewStore(db)
    store.add("ann", "c1", "m1", "m2", "A")
    store.add("ann", "c1", "m2", "m1", "A")  # changed her mind: now m2 better
    store.add("bob", "c1", "m1", "m2", "A")
    store.add("ann", "c1", "m1", "m3", "B")  # another pair: kept
    wins, comps = store.pair_counts(["m1", "m2", "m3"])
    assert comps[0, 1] == 2 and wins[1, 0] == 1 and wins[0, 1] == 1
    assert comps[0, 2] == 1 and wins[0, 2] == 1
    wins_all, comps_all = store.pair_counts(["m1", "m2", "m3"], latest_only=False)
    assert comps_all[0, 1] == 3 and wins_all[1, 0] == 2
    # models outside the list are ignored
    w2, c2 = store.pair_counts(["m2", "m1"])
    assert c2.tolist() == [[0, 2], [2, 0]]


def test_own_labels_are_a_separate_table(db):
    store = ReviewStore(db)
    store.add_own_labels("ann", "c1", ["liable", "<i>x</i>"], dataset="h")
    store.add_own_labels("bob", "c1", [])
    own = store.own_labels(dataset="h")
    assert own.loc[0, "labels"] == ["liable", "<i>x</i>"]
    assert len(store.own_labels()) == 2 and len(store) == 0


def test_visible_distribution_thresholds_and_sorts():
    frame = review.visible_distribution(pd.Series({"a": 0.1, "b": 0.6, "c": 0.0, "d": 0.3}),
                                        threshold=0.1)
    assert list(frame["label"]) == ["b", "d"]
    frame = review.visible_distribution({"a": 0.5, "b": 0.5}, threshold=0.0)
    assert list(frame["label"]) == ["a", "b"]


# ------------------------------------------------------------------ proposer


def test_next_pair_balances_never_repeats_and_exhausts(db):
    store = ReviewStore(db)
    items = [f"c{i}" for i in range(5)]
    models = ["m1", "m2", "m3"]
    entropy = np.array([0.1, 0.9, 0.5, 0.9, 0.0])
    seen = set()
    orders = set()
    for step in range(15):
        prop = store.next_pair("ann", items, models, entropy=entropy, dataset="h", seed=step)
        assert prop is not None and prop.remaining == 15 - step
        key = (prop.item_id, frozenset((prop.model_a, prop.model_b)))
        assert key not in seen
        seen.add(key)
        orders.add((prop.model_a, prop.model_b))
        store.add("ann", prop.item_id, prop.model_a, prop.model_b, "A", dataset="h")
        _, comps = store.pair_counts(models, dataset="h")
        upper = comps[np.triu_indices(3, 1)]
        assert upper.max() - upper.min() <= 1  # balanced across pairs at every step
    assert store.next_pair("ann", items, models, entropy=entropy, dataset="h") is None
    assert len(orders) > 3  # both left/right orders occur
    # another reviewer starts afresh, with the most contested item first
    prop = store.next_pair("bob", items, models, entropy=entropy, dataset="h", seed=1)
    assert prop.item_id in {"c1", "c3"} and prop.remaining == 15
    # judgements of another dataset do not count
    assert store.next_pair("ann", items, models, entropy=entropy, dataset="other") is not None


def test_next_pair_prefers_contested_items_in_order(db):
    store = ReviewStore(db)
    items = ["low", "high", "mid"]
    entropy = [0.1, 0.8, 0.5]
    picked = []
    for step in range(3):
        prop = store.next_pair("ann", items, ["m1", "m2"], entropy=entropy, seed=step)
        picked.append(prop.item_id)
        store.add("ann", prop.item_id, prop.model_a, prop.model_b, "both")
    assert picked == ["high", "mid", "low"]


def test_next_pair_edge_cases(db):
    store = ReviewStore(db)
    assert store.next_pair("ann", ["c1"], ["m1"]) is None
    assert store.next_pair("ann", [], ["m1", "m2"]) is None
    with pytest.raises(ValueError, match="entropy"):
        store.next_pair("ann", ["c1", "c2"], ["m1", "m2"], entropy=[0.1])


# ------------------------------------------------------------------ correlation


def _brute_p(x, y, alternative):
    r0 = np.corrcoef(x, y)[0, 1]
    rs = np.array([np.corrcoef(np.array(x)[list(p)], y)[0, 1]
                   for p in itertools.permutations(range(len(x)))])
    if alternative == "greater":
        return r0, np.mean(rs >= r0 - 1e-12)
    if alternative == "less":
        return r0, np.mean(rs <= r0 + 1e-12)
    return r0, np.mean(np.abs(rs) >= abs(r0) - 1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_permutation_p_value(alternative):
    rng = np.random.default_rng(4)
    models = [f"m{i}" for i in range(6)]
    scores = pd.Series(rng.dirichlet(np.ones(6)), index=models)
    metrics = pd.DataFrame({"good": scores.to_numpy() * 2 + rng.normal(0, 0.02, 6),
                            "noise": rng.normal(size=6)}, index=models)
    table = metric_correlations(metrics, scores, alternative=alternative).set_index("metric")
    for metric in metrics:
        r0, p = _brute_p(metrics[metric].to_numpy(), scores.to_numpy(), alternative)
        assert table.loc[metric, "r"] == pytest.approx(r0, abs=1e-12)
        assert table.loc[metric, "p_value"] == pytest.approx(p, abs=1e-12)
        assert table.loc[metric, "test"].startswith("exact permutation (720")
        assert table.loc[metric, "alternative"] == alternative
    if alternative != "less":
        assert table.loc["good", "p_value"] < 0.05


def test_correlation_edge_cases():
    models = ["a", "b", "c", "d"]
    scores = pd.Series([0.1, 0.2, 0.3, 0.4], index=models)
    metrics = pd.DataFrame({"with_nan": [1.0, np.nan, 2.0, 3.5], "const": [1.0] * 4,
                            "two": [np.nan, np.nan, 1.0, 2.0]}, index=models)
    table = metric_correlations(metrics, scores).set_index("metric")
    assert table.loc["with_nan", "n_models"] == 3 and "['b']" in table.loc["with_nan", "note"]
    assert np.isfinite(table.loc["with_nan", "r"])
    assert table.loc["with_nan", "p_value"] >= 2 / 6 - 1e-12  # 3 models: smallest p is 2/3!
    assert math.isnan(table.loc["const", "r"]) and "constant" in table.loc["const", "note"]
    assert math.isnan(table.loc["two", "p_value"])
    with pytest.raises(ValueError, match="alternative"):
        metric_correlations(metrics, scores, alternative="both")


def test_monte_carlo_for_many_models():
    rng = np.random.default_rng(1)
    models = [f"m{i}" for i in range(12)]
    scores = pd.Series(np.arange(12.0), index=models)
    metrics = pd.DataFrame({"m": np.arange(12.0) + rng.normal(0, 1, 12)}, index=models)
    table = metric_correlations(metrics, scores, n_resamples=999, seed=3)
    assert "Monte Carlo" in table.loc[0, "test"] and table.loc[0, "p_value"] < 0.01


def test_model_metrics_uses_soft_metrics():
    from hlv_core import soft_metrics as sm

    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=20)
    Qs = {"good": 0.9 * P + 0.1 / 3, "bad": rng.dirichlet(np.ones(3), size=20)}
    table = review.model_metrics(P, Qs)
    assert set(sm.evaluate(P, Qs["good"])) == set(table.columns)
    assert table.loc["good", "soft_accuracy"] == pytest.approx(sm.soft_accuracy(P, Qs["good"]))
    assert table.loc["good", "po_jsd"] > table.loc["bad", "po_jsd"]


# ------------------------------------------------------------------ CLI


def _cli(argv):
    """The ``review`` command through :func:`hlv_core.cli.main` (its error contract: exit 2)."""
    from hlv_core.cli import main

    return main(argv)


def test_cli_export_import_rank(db, tmp_path, capsys, toy):
    store = ReviewStore(db)
    rows = []
    for i, j in itertools.combinations(range(3), 2):
        for n in range(4):
            rows.append(dict(reviewer=f"r{n}", item_id=f"c{i}{j}", model_a=f"m{i}",
                             model_b=f"m{j}", choice=["A", "B", "A", "both"][n]))
    store.add_many(rows)
    out = tmp_path / "e.csv"
    assert _cli(["review", "export", str(db), str(out)]) == 0
    target = tmp_path / "new.sqlite3"
    assert _cli(["review", "import", str(target), str(out)]) == 0
    assert "imported 12" in capsys.readouterr().out
    assert _cli(["review", "import", str(target), str(out)]) == 0
    assert "imported 0" in capsys.readouterr().out
    assert _cli(["review", "rank", str(target), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["model"] for r in result["scores"]] == ["m0", "m1", "m2"]
    wins, comps = ReviewStore(target).pair_counts(["m0", "m1", "m2"])
    expected = rank_centrality(wins, comps)
    assert [r["score_in_denominator"] for r in result["scores"]] == pytest.approx(expected)
    assert len(result["pairs"]) == 3
    assert _cli(["review", "rank", str(target)]) == 0
    assert "Rank centrality" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("reviewer\nx\n")
    assert _cli(["review", "import", str(target), str(bad)]) == 2


def test_human_scores_both_conventions(toy):
    wins, comps = np.array(toy["wins"]), np.array(toy["comps"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table, notes = human_scores(wins, comps, ["a", "b", "c", "d"])
    assert notes == []
    np.testing.assert_allclose(table["score_in_denominator"],
                               toy["ties_in_denominator"]["stationary_pi"], atol=1e-9)
    np.testing.assert_allclose(table["score_decisive_only"],
                               toy["decisive_only"]["stationary_pi"], atol=1e-9)
    assert list(table["rank_in_denominator"]) == [3, 2, 1, 4]


def test_fit_line_matches_a_hand_computed_trend():
    from hlv_core.review import fit_line

    assert fit_line([0.0, 1.0, 2.0], [1.0, 3.0, 5.0]) == pytest.approx((2.0, 1.0))
    assert fit_line([1.0, 1.0], [0.0, 1.0]) is None
    assert fit_line([0.0, np.nan, 2.0], [0.0, 5.0, 1.0]) == pytest.approx((0.5, 0.0))
