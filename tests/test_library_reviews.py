"""Reviews and verdicts of a library dataset: they are stored under the dataset's content hash,
and a library id resolves to that hash through its catalogue row (``dataset_hash``), checked
again when the files are loaded. So a reload, a colleague's link ``?dataset=<id>`` and a second
entry holding the same data all find the same reviews, and nothing needs migrating."""

from __future__ import annotations

from hlv_core.io import load
from hlv_core.library import Library
from hlv_core.review import Access
from hlv_core.review_store import ReviewStore
from hlv_core.verdict_store import VerdictStore

CSV = b"item_id,annotator_id,label\nq1,a1,yes\nq1,a2,no\nq2,a1,yes\nq2,a2,yes\n"


def test_a_colleague_opening_the_id_after_a_reload_finds_the_reviews(tmp_path):
    dataset = load(CSV, name="votes.csv")
    entry = Library(tmp_path / "lib").keep(dataset, owner="alice", source_file="votes.csv")
    reviews, verdicts = ReviewStore(tmp_path / "r.sqlite3"), VerdictStore(tmp_path / "v.sqlite3")
    reviews.add("alice", "q1", "m1", "m2", "A", dataset=dataset.content_hash)
    verdicts.add("alice", dataset.content_hash, "q1", "no", "error")
    reviews.close()
    verdicts.close()

    # a reload / Bob's session: new objects on the same files, only the id from the link
    library = Library(tmp_path / "lib")
    opened = library.load(entry.id)
    key = library.get(entry.id).dataset_hash
    assert key == opened.content_hash == dataset.content_hash
    found = ReviewStore(tmp_path / "r.sqlite3").judgements(dataset=key)
    assert list(found["item_id"]) == ["q1"] and list(found["reviewer"]) == ["alice"]
    assert list(VerdictStore(tmp_path / "v.sqlite3").verdicts(dataset=key)["label"]) == ["no"]

    # renaming the entry changes nothing; Bob keeping the same file gets another id but the
    # same data, hence the same reviews
    library.rename(entry.id, "Renamed", Access("alice"))
    bobs = library.keep(load(CSV, name="copy.csv"), owner="bob")
    assert bobs.id != entry.id and bobs.dataset_hash == key
    assert library.load(bobs.id).content_hash == key


def test_other_data_does_not_see_them(tmp_path):
    library = Library(tmp_path / "lib")
    first = library.keep(load(CSV, name="a.csv"), owner="alice")
    other = library.keep(load(CSV.replace(b"q2,a2,yes", b"q2,a2,no"), name="b.csv"),
                         owner="alice")
    store = ReviewStore(tmp_path / "r.sqlite3")
    store.add("alice", "q1", "m1", "m2", "A", dataset=first.dataset_hash)
    assert other.dataset_hash != first.dataset_hash
    assert store.judgements(dataset=library.get(other.id).dataset_hash).empty
