"""Review store safety: owner-only files, SQLite failures as one clear
error with nothing lost, timestamps compared as instants, audited imports that cannot
override later app judgements, roles and dataset isolation."""

from __future__ import annotations

import os
import sqlite3
import stat

import pandas as pd
import pytest

from hlv_core import review
from hlv_core.cli import main as cli_main
from hlv_core.io import DataError
from hlv_core.review import Access, ReviewStore, ReviewStoreError
from hlv_core.text import restore_frame


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "store" / "reviews.sqlite3"
    monkeypatch.setenv("HLV_REVIEW_DB", str(path))
    return path


def _csv(path, rows: list[dict]) -> None:
    pd.DataFrame(rows).to_csv(path, index=False)


# ------------------------------------------------------------------ permissions


def test_store_is_created_owner_only(db):
    store = ReviewStore(db)
    store.add("ann", "c1", "m1", "m2", "A")
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    for side in (db.parent / (db.name + "-wal"), db.parent / (db.name + "-shm")):
        if side.exists():  # SQLite gives its side files the database file's mode
            assert stat.S_IMODE(side.stat().st_mode) & 0o077 == 0


def test_existing_world_readable_store_is_tightened(tmp_path):
    path = tmp_path / "old.sqlite3"
    ReviewStore(path).add("ann", "c1", "m1", "m2", "A")
    os.chmod(path, 0o644)
    ReviewStore(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_export_file_is_owner_only(db, tmp_path):
    store = ReviewStore(db)
    store.add("ann", "c1", "m1", "m2", "A", comment="private")
    out = tmp_path / "out.csv"
    store.export_csv(out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


# ------------------------------------------------------------------ SQLite failures


def test_not_a_database(tmp_path):
    path = tmp_path / "notes.sqlite3"
    path.write_bytes(b"this is a text file, not SQLite" * 100)
    with pytest.raises(ReviewStoreError, match="not an HLV Lens review database") as info:
        ReviewStore(path)
    assert isinstance(info.value, DataError) and "HLV_REVIEW_DB" in str(info.value)
    assert path.read_bytes().startswith(b"this is a text file")  # untouched


def test_a_folder(tmp_path):
    with pytest.raises(ReviewStoreError, match="is a folder"):
        ReviewStore(tmp_path)


class _Limited(ReviewStore):
    """A store whose connections obey extra pragmas (a real SQLite failure, no mock)."""

    pragmas: tuple[str, ...] = ()

    def _open(self):
        con = super()._open()
        for pragma in self.pragmas:
            con.execute(pragma)
        return con


def test_full_disk_writes_nothing_and_retry_succeeds(db):
    ReviewStore(db).add("ann", "c0", "m1", "m2", "B")
    pages = sqlite3.connect(db).execute("PRAGMA page_count").fetchone()[0]

    class Full(_Limited):
        pragmas = (f"PRAGMA max_page_count = {pages}",)  # SQLITE_FULL on the next page

    full = Full(db)
    with pytest.raises(ReviewStoreError, match="disk is full") as info:
        full.add("ann", "c1", "m1", "m2", "A", comment="x" * 20_000)
    assert "retry" in str(info.value)
    assert len(ReviewStore(db)) == 1  # nothing half written
    ReviewStore(db).add("ann", "c1", "m1", "m2", "A", comment="x" * 20_000)  # space freed
    assert len(ReviewStore(db)) == 2


def test_read_only_database(db):
    ReviewStore(db)

    class ReadOnly(_Limited):
        pragmas = ("PRAGMA query_only = 1",)

    with pytest.raises(ReviewStoreError, match="read-only"):
        ReadOnly(db)  # the schema check is a write transaction


@pytest.mark.parametrize("content", [b"garbage" * 50, None])
def test_cli_prints_one_line_and_exits_2(tmp_path, capsys, content):
    path = tmp_path / "x.sqlite3"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert cli_main(["review", "rank", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: file ") and "\n" not in err and "Traceback" not in err


# ------------------------------------------------------------------ time


def test_to_instant_is_utc():
    assert review.to_instant("2025-01-01T02:00:00+02:00") == "2025-01-01T00:00:00.000000+00:00"
    with pytest.raises(ValueError, match="no UTC offset"):
        review.to_instant("2025-01-01T02:00:00")


def test_latest_compares_instants_not_text(db, tmp_path):
    """09:30+05:00 is 04:30 UTC, earlier than 05:00+00:00, though it sorts later as text."""
    path = tmp_path / "mixed.csv"
    base = dict(reviewer="ann", item_id="c1", model_a="m1", model_b="m2", dataset="d")
    _csv(path, [{**base, "choice": "A", "created_at": "2024-03-01T05:00:00+00:00"},
                {**base, "choice": "B", "created_at": "2024-03-01T09:30:00+05:00"}])
    store = ReviewStore(db)
    assert store.import_csv(path) == 2
    latest = store.judgements(latest_only=True)
    assert latest["choice"].tolist() == ["A"]
    wins, comps = store.pair_counts(["m1", "m2"])
    assert wins.tolist() == [[0, 0], [1, 0]]  # m1 (A) beat m2 once


def test_imported_future_timestamp_cannot_override_a_later_app_judgement(db, tmp_path):
    store = ReviewStore(db)
    path = tmp_path / "future.csv"
    _csv(path, [dict(reviewer="ann", item_id="c1", model_a="m1", model_b="m2", choice="A",
                     dataset="d", created_at="2999-01-01T00:00:00+00:00")])
    store.import_csv(path, imported_by="admin@x")
    assert store.judgements(latest_only=True)["choice"].tolist() == ["A"]
    store.add("ann", "c1", "m2", "m1", "neither", dataset="d")  # the reviewer's real, later one
    latest = store.judgements(latest_only=True)
    assert latest["choice"].tolist() == ["neither"] and latest["source"].tolist() == ["app"]


def test_imported_older_row_does_not_replace_a_newer_app_judgement(db, tmp_path):
    store = ReviewStore(db)
    store.add("ann", "c1", "m1", "m2", "B", dataset="d")
    path = tmp_path / "old.csv"
    _csv(path, [dict(reviewer="ann", item_id="c1", model_a="m1", model_b="m2", choice="A",
                     dataset="d", created_at="2020-01-01T00:00:00+00:00")])
    assert store.import_csv(path) == 1
    assert store.judgements(latest_only=True)["choice"].tolist() == ["B"]


def test_migration_from_version_2_canonicalises_and_clamps(db):
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE judgements (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE,
          reviewer TEXT NOT NULL, item_id TEXT NOT NULL, model_a TEXT NOT NULL,
          model_b TEXT NOT NULL, choice TEXT NOT NULL, comment TEXT NOT NULL DEFAULT '',
          dataset TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL);
        CREATE TABLE own_labels (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE,
          reviewer TEXT NOT NULL, item_id TEXT NOT NULL, labels TEXT NOT NULL,
          dataset TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL);
        INSERT INTO judgements VALUES (1, 'u1', 'ann', 'c1', 'm1', 'm2', 'A', '', 'd',
                                       '2999-01-01T00:00:00+00:00');
        INSERT INTO judgements VALUES (2, 'u2', 'ann', 'c1', 'm1', 'm2', 'B', '', 'd',
                                       '2024-03-01T09:30:00+05:00');
        PRAGMA user_version = 2;
    """)
    con.close()
    store = ReviewStore(db)
    assert store.schema_version == review.SCHEMA_VERSION == 4
    frame = store.judgements()
    assert frame["created_at"].tolist()[1] == "2024-03-01T04:30:00.000000+00:00"
    assert (frame["source"] == "legacy").all()
    # the old future row no longer outranks a judgement made now
    store.add("ann", "c1", "m1", "m2", "both", dataset="d")
    assert store.judgements(latest_only=True)["choice"].tolist() == ["both"]


# ------------------------------------------------------------------ imports: audit


def test_import_is_audited_and_audit_columns_cannot_be_forged(db, tmp_path):
    path = tmp_path / "in.csv"
    _csv(path, [dict(reviewer="bob", item_id="c1", model_a="m1", model_b="m2", choice="A",
                     dataset="d", created_at="2024-01-01T00:00:00+00:00", source="app",
                     imported_by="", recorded_at="2024-01-01T00:00:00+00:00")])
    store = ReviewStore(db)
    store.import_csv(path, imported_by="admin@example.org")
    row = store.judgements().iloc[0]
    assert (row["source"], row["imported_by"], row["import_file"]) == (
        "import", "admin@example.org", "in.csv")
    assert row["recorded_at"] > "2025"  # when it was imported, not what the file claimed


def test_cli_import_records_the_operator(db, tmp_path):
    path = tmp_path / "in.csv"
    _csv(path, [dict(reviewer="bob", item_id="c1", model_a="m1", model_b="m2", choice="A")])
    assert cli_main(["review", "import", str(db), str(path)]) == 0
    assert ReviewStore(db).judgements()["imported_by"].iloc[0].startswith("cli")


# ------------------------------------------------------------------ roles and isolation


@pytest.fixture
def team(db):
    store = ReviewStore(db)
    store.add("alice@x", "c1", "m1", "m2", "A", comment="alice secret", dataset="d1")
    store.add("bob@x", "c1", "m1", "m2", "B", comment="bob secret", dataset="d1")
    store.add("carol@x", "c9", "m1", "m2", "A", comment="other dataset", dataset="d2")
    store.add_own_labels("alice@x", "c1", ["yes"], dataset="d1")
    return store


def test_reviewer_sees_own_comments_only(team):
    bob = Access("bob@x")
    own = review.own_judgements(team, bob, "d1")
    assert own["comment"].tolist() == ["bob secret"]
    shared = review.aggregate_judgements(team, bob, "d1")
    assert "comment" not in shared.columns
    assert len(shared) == 2  # both reviewers' judgements feed the ranking
    assert sorted(shared["reviewer"]) == ["bob@x", "reviewer 1"]  # alice pseudonymised
    assert "d2" not in set(shared["dataset"])


def test_reviewer_exports_only_own_rows_of_the_dataset(team):
    bob = Access("bob@x")
    out = review.exportable_judgements(team, bob, "d1")
    assert out["reviewer"].tolist() == ["bob@x"]
    with pytest.raises(PermissionError):
        review.exportable_judgements(team, bob, "d1", everyone=True)
    with pytest.raises(PermissionError):
        review.exportable_judgements(team, bob, None)
    with pytest.raises(PermissionError):
        review.aggregate_judgements(team, bob, None)
    with pytest.raises(PermissionError):
        review.exportable_own_labels(team, bob, "d1", everyone=True)
    assert review.exportable_own_labels(team, bob, "d1").empty
    assert not review.can_import(bob)


def test_admin_exports_all_and_only_asks_cross_dataset(team):
    admin = Access("root@x", is_admin=True)
    d1 = review.exportable_judgements(team, admin, "d1", everyone=True)
    assert sorted(d1["comment"]) == ["alice secret", "bob secret"]
    everything = review.exportable_judgements(team, admin, None, everyone=True)
    assert len(everything) == 3
    assert review.aggregate_judgements(team, admin, "d1")["reviewer"].tolist() == [
        "alice@x", "bob@x"]
    assert review.can_import(admin)


# ------------------------------------------------------------------ formula round trip


HOSTILE = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx",
           "'=already quoted", "''+x", "'plain", "plain", "", "a=b"]


def test_export_neutralises_formulas_and_import_restores_exact_text(db, tmp_path):
    store = ReviewStore(db)
    for k, text in enumerate(HOSTILE):
        store.add(f"rev{text}" if text.strip() else "rev", f"item{k}", "m1", "m2", "A",
                  comment=text, dataset="d")
    out = tmp_path / "out.csv"
    store.export_csv(out)
    raw = pd.read_csv(out, dtype=str, keep_default_na=False)
    dangerous = ("=", "+", "-", "@", "\t", "\r")
    for column in raw.columns:
        assert not raw[column].str.startswith(dangerous).any(), column
    assert restore_frame(raw)["comment"].tolist() == HOSTILE
    other = ReviewStore(tmp_path / "other.sqlite3")
    assert other.import_csv(out) == len(HOSTILE)
    assert other.judgements()["comment"].tolist() == HOSTILE
    assert other.judgements()["reviewer"].tolist() == store.judgements()["reviewer"].tolist()
