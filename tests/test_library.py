"""The dataset library: content-addressed Parquet objects, a SQLite catalogue, rights and
quotas (every test writes into pytest's temporary folder)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

from hlv_core.io import load
from hlv_core.library import (
    Library,
    LibraryError,
    LibraryQuotaError,
    default_library_dir,
    quota_bytes,
)
from hlv_core.review import Access
from hlv_core.samples import SAMPLES, load_sample

ALICE, BOB, ADMIN = Access("alice"), Access("bob"), Access("admin", True)
CSV = b"item_id,annotator_id,label\nq1,a1,yes\nq1,a2,no\nq2,a1,yes\nq2,a2,yes\n"


@pytest.fixture
def library(tmp_path) -> Library:
    return Library(tmp_path / "lib")


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_round_trip_keeps_every_table_and_the_content_hash(library, sample):
    dataset = load_sample(sample)
    entry = library.keep(dataset, owner="alice", source_file=f"{sample}.zip")
    back = library.load(entry.id)
    assert back.content_hash == dataset.content_hash == entry.dataset_hash
    assert back.name == dataset.name and back.labels == dataset.labels
    assert (back.task, back.level, back.label_values) == (dataset.task, dataset.level,
                                                          dataset.label_values)
    pd.testing.assert_frame_equal(back.annotations, dataset.annotations)
    pd.testing.assert_frame_equal(back.items, dataset.items)
    if dataset.predictions is not None:
        pd.testing.assert_frame_equal(back.predictions, dataset.predictions)
    assert set(back.extra) == set(dataset.extra)
    np.testing.assert_array_equal(back.counts_array(), dataset.counts_array())
    assert back.report.to_frame().equals(dataset.report.to_frame())


def test_table_extras_survive(library):
    raw = (b'{"1": {"text": "t", "annotators": "A,B", "number of annotations": 2, '
           b'"annotations": "1,0", "soft_label": {"0": 0.5, "1": 0.5}, "split": "dev"}}')
    dataset = load(raw, format="lewidi2023", name="hs.json")
    assert any(isinstance(v, pd.DataFrame) for v in dataset.extra.values())
    back = library.load(library.keep(dataset, owner="alice").id)
    for key, value in dataset.extra.items():
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(back.extra[key], value)
        else:
            assert back.extra[key] == value


def test_catalogue_row_and_content_addressed_files(library):
    dataset = load(CSV, name="mine.csv")
    entry = library.keep(dataset, owner="alice", source_file="mine.csv", name="My data")
    assert len(entry.id) == 12 and entry.owner == "alice" and entry.name == "My data"
    assert entry.source_file == "mine.csv" and entry.created.endswith("+00:00")
    folder = library.objects / entry.address
    assert sorted(p.name for p in folder.iterdir()) == [
        "annotations.parquet", "annotators.parquet", "items.parquet", "meta.json"]
    assert entry.size == sum(p.stat().st_size for p in folder.iterdir())
    assert library.entries() == [entry] and library.get(entry.id) == entry
    # a second library object on the same folder sees the same catalogue (a reload)
    assert Library(library.root).entries() == [entry]
    # owner-only permissions
    assert stat.S_IMODE(os.stat(library.root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(library.catalogue).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder / "meta.json").st_mode) == 0o600


def test_same_content_shares_one_object_and_keeping_twice_is_one_entry(library):
    dataset = load(CSV, name="a.csv")
    first = library.keep(dataset, owner="alice")
    assert library.keep(dataset, owner="alice", name="again") == first
    bobs = library.keep(dataset, owner="bob")
    assert bobs.id != first.id and bobs.address == first.address
    assert len(list(library.objects.iterdir())) == 1
    assert library.used() == first.size and library.used("alice") == first.size
    library.delete(first.id, ALICE)  # bob's entry still needs the files
    assert (library.objects / first.address).is_dir()
    assert library.load(bobs.id).content_hash == dataset.content_hash
    library.delete(bobs.id, BOB)
    assert not (library.objects / first.address).exists() and library.entries() == []


def test_owner_and_admins_rename_and_delete_others_may_not(library):
    entry = library.keep(load(CSV, name="a.csv"), owner="alice")
    with pytest.raises(LibraryError, match="only the owner"):
        library.rename(entry.id, "Bob's now", BOB)
    with pytest.raises(LibraryError, match="only the owner"):
        library.delete(entry.id, BOB)
    assert library.rename(entry.id, "  Renamed   by  alice ", ALICE).name == "Renamed by alice"
    assert library.load(entry.id).name == "Renamed by alice"
    library.rename(entry.id, "By admin", ADMIN)
    library.delete(entry.id, ADMIN)
    assert library.entries() == []
    with pytest.raises(LibraryError, match="not in the library"):
        library.load(entry.id)


def test_quotas_per_user_and_total_say_what_to_do(tmp_path):
    small = load(CSV, name="a.csv")
    size = Library(tmp_path / "probe").keep(small, owner="x").size
    library = Library(tmp_path / "lib", user_quota=size * 1.5, total_quota=size * 2.5)
    library.keep(small, owner="alice")
    other = load(CSV + b"q3,a1,no\n", name="b.csv")
    with pytest.raises(LibraryQuotaError, match="your library quota") as error:
        library.keep(other, owner="alice")
    assert "HLV_LIBRARY_USER_MB" in str(error.value)
    library.keep(other, owner="bob")
    third = load(CSV + b"q4,a1,no\n", name="c.csv")
    with pytest.raises(LibraryQuotaError, match="library is full") as error:
        library.keep(third, owner="carol")
    assert "HLV_LIBRARY_TOTAL_MB" in str(error.value)
    library.keep(small, owner="carol")  # the same files take no new room
    assert len(library.entries()) == 3


def test_changed_files_are_refused(library):
    entry = library.keep(load(CSV, name="a.csv"), owner="alice")
    path = library.objects / entry.address / "meta.json"
    path.write_bytes(path.read_bytes().replace(b'"yes"', b'"YES"'))
    with pytest.raises(LibraryError, match="changed on disk"):
        library.load(entry.id)


@pytest.mark.parametrize("bad", ["", "../../etc", "ZZZ", "0" * 12])
def test_unknown_or_malformed_ids(library, bad):
    with pytest.raises(LibraryError, match="not in the library"):
        library.get(bad)


def test_default_folder_is_beside_the_review_database(tmp_path, monkeypatch):
    monkeypatch.delenv("HLV_LIBRARY_DIR", raising=False)
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "r.sqlite3"))
    assert default_library_dir() == tmp_path / "library"
    monkeypatch.setenv("HLV_LIBRARY_DIR", str(tmp_path / "elsewhere"))
    assert default_library_dir() == tmp_path / "elsewhere"
    monkeypatch.setenv("HLV_LIBRARY_USER_MB", "2")
    monkeypatch.setenv("HLV_LIBRARY_TOTAL_MB", "bad")
    assert quota_bytes() == (2_000_000, 5_000_000_000)


def test_unwritable_folder_is_one_library_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(LibraryError, match="cannot be used"):
        Library(blocker / "lib")
