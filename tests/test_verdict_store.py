"""Tests of hlv_core.verdict_store: verdicts persist, latest per reviewer wins, files are private,
bad input and broken files give one clear error."""

from __future__ import annotations

import multiprocessing as mp
import os
import stat

import pytest

from hlv_core.io import DataError
from hlv_core.verdict_store import (
    VerdictStore,
    VerdictStoreError,
    default_verdict_path,
    latest_verdicts,
    verdict_summary,
)


def test_add_latest_and_summary(tmp_path):
    store = VerdictStore(tmp_path / "v.sqlite3")
    store.add("ann", "hash1", "i1", "x", "error", created_at="2025-01-01T10:00:00+00:00")
    store.add("ann", "hash1", "i1", "x", "variation", created_at="2025-01-01T11:00:00+01:00")
    store.add("bob", "hash1", "i1", "x", "error")
    store.add("ann", "hash2", "i1", "x", "unsure")
    rows = store.verdicts(dataset="hash1")
    assert len(rows) == 3
    latest = latest_verdicts(rows)
    # 11:00+01:00 is 10:00 UTC: the same instant, so the later row wins
    assert latest.set_index("reviewer").loc["ann", "verdict"] == "variation"
    summary = verdict_summary(rows).set_index(["item_id", "label"])
    assert summary.loc[("i1", "x"), "error"] == 1 and summary.loc[("i1", "x"), "variation"] == 1
    # persisted: a new store object on the same file sees it
    again = VerdictStore(tmp_path / "v.sqlite3")
    assert len(again.verdicts()) == 4
    assert stat.S_IMODE(os.stat(tmp_path / "v.sqlite3").st_mode) == 0o600


def test_bad_values_are_refused(tmp_path):
    store = VerdictStore(tmp_path / "v.sqlite3")
    with pytest.raises(ValueError, match="verdict"):
        store.add("ann", "h", "i", "x", "maybe")
    with pytest.raises(ValueError, match="reviewer"):
        store.add("  ", "h", "i", "x", "error")
    assert store.verdicts().empty


def test_not_a_database_is_one_clear_error(tmp_path):
    bad = tmp_path / "notdb.sqlite3"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(VerdictStoreError) as info:
        VerdictStore(bad)
    assert isinstance(info.value, DataError) and "HLV_VERDICT_DB" in str(info.value)


def test_default_path_follows_the_review_database(monkeypatch, tmp_path):
    monkeypatch.delenv("HLV_VERDICT_DB", raising=False)
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "r.sqlite3"))
    assert default_verdict_path() == tmp_path / "verdicts.sqlite3"


def _writer(path, name, n):
    store = VerdictStore(path)
    for k in range(n):
        store.add(name, "h", f"i{k}", "x", "error")


def test_concurrent_processes_lose_nothing(tmp_path):
    path = tmp_path / "v.sqlite3"
    VerdictStore(path)
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(path, f"r{j}", 25)) for j in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert len(VerdictStore(path).verdicts()) == 75
