"""The dataset library: uploads a user chose to keep, stored on the server (team mode) or in
the user's data folder (desk mode), so that a reload keeps them and a link
``?dataset=<id>&item=...`` opens the same data for a colleague.

Layout (beside the review database, :func:`hlv_core.review_store.default_db_path`; override
with ``$HLV_LIBRARY_DIR``)::

    library/
        catalogue.sqlite3          one row per kept dataset (id, name, owner, created, size,
                                   content address, dataset hash, source file name)
        objects/<sha256>/          the stored dataset, named by the sha256 of its files:
            annotations.parquet    the long annotation table (categoricals kept)
            items.parquet, annotators.parquet, predictions.parquet (optional),
            extra.<key>.parquet    loader extras that are tables (e.g. LeWiDi soft labels)
            meta.json              labels, task, level, label values, import report, extras

Content addressing: the object's name is the sha256 over its files (names and bytes), so two
people keeping the same file share one object; an object is removed when the last catalogue
row pointing at it is deleted. On load the files are hashed again and must match their name
(a changed file is refused, never silently analysed).

Reviews and verdicts: the review and verdict stores key them by the dataset's content hash.
A library id resolves to that hash through its catalogue row (``dataset_hash``, checked again
when the files are loaded), so a reload, a colleague's link ``?dataset=<id>``, a renamed entry
and a second entry with the same data all reach the same reviews; reviews given to an upload
before it was kept stay with it.

Rights (:class:`hlv_core.review.Access`): everybody who can use the app reads every entry (the
team's library); the owner and admins rename and delete. Quotas: each user's kept bytes
(``$HLV_LIBRARY_USER_MB``, default 500) and the library's total (``$HLV_LIBRARY_TOTAL_MB``,
default 5000); a keep that would pass either raises :class:`LibraryQuotaError` saying how much
is used and what to do. Folders are created 0700 and files 0600.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import secrets
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from .io import DataError, Dataset
from .io.errors import ImportReport
from .review import Access
from .review_store import default_db_path

__all__ = [
    "Library",
    "LibraryEntry",
    "LibraryError",
    "LibraryQuotaError",
    "default_library_dir",
    "quota_bytes",
]

_ID_ALPHABET = set("0123456789abcdef")
_MAX_NAME = 200


class LibraryError(DataError):
    """The library cannot do what was asked (missing entry, no right, unreadable files)."""


class LibraryQuotaError(LibraryError):
    """Keeping this dataset would pass a user's or the library's quota."""


class LibraryEntry(NamedTuple):
    """One catalogue row: ``id`` (12 hex digits, used in links), display ``name``, ``owner``,
    ``created`` (ISO 8601 UTC), ``size`` (bytes stored), ``address`` (sha256 of the stored
    files), ``dataset_hash`` (:attr:`Dataset.content_hash`), ``source_file`` (the uploaded
    file's name)."""

    id: str
    name: str
    owner: str
    created: str
    size: int
    address: str
    dataset_hash: str
    source_file: str


def default_library_dir() -> Path:
    """``$HLV_LIBRARY_DIR`` if set, else the folder ``library`` beside the review database."""
    env = os.environ.get("HLV_LIBRARY_DIR")
    if env:
        return Path(env).expanduser()
    return default_db_path().parent / "library"


def quota_bytes() -> tuple[int, int]:
    """(per-user, total) quota in bytes from ``$HLV_LIBRARY_USER_MB`` (default 500) and
    ``$HLV_LIBRARY_TOTAL_MB`` (default 5000)."""
    def read(name: str, default: float) -> int:
        try:
            return int(float(os.environ.get(name, default)) * 1_000_000)
        except ValueError:
            return int(default * 1_000_000)
    return read("HLV_LIBRARY_USER_MB", 500), read("HLV_LIBRARY_TOTAL_MB", 5000)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


# ------------------------------------------------------------------------------ files


def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, engine="pyarrow", index=not isinstance(frame.index, pd.RangeIndex))
    return buffer.getvalue()


def _encode(dataset: Dataset) -> dict[str, bytes]:
    """The files of one stored dataset (name -> bytes); the display name is not stored."""
    files = {
        "annotations.parquet": _parquet(dataset.annotations),
        "items.parquet": _parquet(dataset.items),
        "annotators.parquet": _parquet(dataset.annotators),
    }
    if dataset.predictions is not None:
        files["predictions.parquet"] = _parquet(dataset.predictions)
    extras: dict = {}
    for key, value in dataset.extra.items():
        if isinstance(value, pd.DataFrame):
            files[f"extra.{key}.parquet"] = _parquet(value)
        else:
            try:
                json.dumps(value)
            except TypeError as error:
                raise LibraryError(f"the loader's extra {key!r} cannot be stored.",
                                   source=dataset.name,
                                   fix="use the dataset in this session without keeping it."
                                   ) from error
            extras[key] = value
    meta = {
        "labels": list(dataset.labels),
        "task": dataset.task,
        "level": dataset.level,
        "label_values": dataset.label_values,
        "annotator_ids_known": dataset.annotator_ids_known,
        "report": dataclasses.asdict(dataset.report),
        "extra": extras,
    }
    files["meta.json"] = json.dumps(meta).encode()
    return files


def _address(files: dict[str, bytes]) -> str:
    """sha256 over the files' names and contents, in name order."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + len(files[name]).to_bytes(8, "big"))
        digest.update(files[name])
    return digest.hexdigest()


def _decode(files: dict[str, bytes], name: str) -> Dataset:
    meta = json.loads(files["meta.json"])

    def table(file: str) -> pd.DataFrame:
        return pd.read_parquet(io.BytesIO(files[file]), engine="pyarrow")

    extra: dict = dict(meta.get("extra", {}))
    for file in files:
        if file.startswith("extra.") and file.endswith(".parquet"):
            extra[file[len("extra."):-len(".parquet")]] = table(file)
    report = meta["report"]
    report["labels"] = tuple(report.get("labels", ()))
    return Dataset(
        annotations=table("annotations.parquet"),
        labels=tuple(meta["labels"]),
        items=table("items.parquet"),
        annotators=table("annotators.parquet"),
        task=meta["task"],
        level=meta["level"],
        label_values=meta["label_values"],
        annotator_ids_known=bool(meta["annotator_ids_known"]),
        name=name,
        report=ImportReport(**report),
        predictions=table("predictions.parquet") if "predictions.parquet" in files else None,
        extra=extra,
    )


# ------------------------------------------------------------------------------ library


class Library:
    """The dataset library in folder ``root`` (default :func:`default_library_dir`).

    ``keep(dataset, owner=..., source_file=...)`` stores a dataset and returns its
    :class:`LibraryEntry`; ``entries()`` lists the catalogue; ``load(id)`` gives the dataset
    back (same :attr:`Dataset.content_hash`); ``rename`` and ``delete`` need the owner or an
    admin (:class:`hlv_core.review.Access`). Quotas in bytes: ``user_quota``, ``total_quota``
    (default :func:`quota_bytes`)."""

    def __init__(self, root: str | os.PathLike | None = None, *, user_quota: int | None = None,
                 total_quota: int | None = None) -> None:
        self.root = Path(root) if root is not None else default_library_dir()
        default_user, default_total = quota_bytes()
        self.user_quota = default_user if user_quota is None else int(user_quota)
        self.total_quota = default_total if total_quota is None else int(total_quota)
        self.objects = self.root / "objects"
        self.catalogue = self.root / "catalogue.sqlite3"
        with self._errors():
            for folder in (self.root, self.objects):
                folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            with self._connect() as db:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS datasets (id TEXT PRIMARY KEY, name TEXT NOT "
                    "NULL, owner TEXT NOT NULL, created TEXT NOT NULL, size INTEGER NOT NULL, "
                    "address TEXT NOT NULL, dataset_hash TEXT NOT NULL, source_file TEXT NOT "
                    "NULL)")
            os.chmod(self.catalogue, 0o600)

    # -- plumbing -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except LibraryError:
            raise
        except (sqlite3.Error, OSError) as error:
            raise LibraryError(f"the dataset library cannot be used ({error}).",
                               source=str(self.root),
                               fix="check that the folder exists, is writable by the app and "
                                   "the disk is not full, or point HLV_LIBRARY_DIR at another "
                                   "folder.") from error

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.catalogue, timeout=30, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    def _rows(self, sql: str, params: tuple = ()) -> list[LibraryEntry]:
        with self._errors(), self._connect() as db:
            return [LibraryEntry(*row) for row in db.execute(sql, params).fetchall()]

    # -- reading --------------------------------------------------------------------------

    def entries(self) -> list[LibraryEntry]:
        """Every kept dataset, newest first."""
        return self._rows("SELECT id, name, owner, created, size, address, dataset_hash, "
                          "source_file FROM datasets ORDER BY created DESC, rowid DESC")

    def get(self, dataset_id: str) -> LibraryEntry:
        """The entry ``dataset_id``; :class:`LibraryError` when there is none."""
        dataset_id = str(dataset_id).strip().lower()
        rows = [] if not set(dataset_id) <= _ID_ALPHABET else self._rows(
            "SELECT id, name, owner, created, size, address, dataset_hash, source_file "
            "FROM datasets WHERE id = ?", (dataset_id,))
        if not rows:
            raise LibraryError("this dataset is not in the library (it may have been deleted).",
                               source=f"dataset {dataset_id}",
                               fix="ask the colleague who shared the link to keep it again, or "
                                   "pick another dataset.")
        return rows[0]

    def used(self, owner: str | None = None) -> int:
        """Bytes kept by ``owner`` (every row counts), or the library's stored bytes (each
        object once) when ``owner`` is None."""
        with self._errors(), self._connect() as db:
            if owner is None:
                sql = "SELECT COALESCE(SUM(size), 0) FROM (SELECT DISTINCT address, size " \
                      "FROM datasets)"
                return int(db.execute(sql).fetchone()[0])
            return int(db.execute("SELECT COALESCE(SUM(size), 0) FROM datasets WHERE owner = ?",
                                  (owner,)).fetchone()[0])

    def load(self, dataset_id: str) -> Dataset:
        """The kept dataset ``dataset_id`` under its catalogue name. The files are hashed
        again: a file changed on disk raises :class:`LibraryError`."""
        entry = self.get(dataset_id)
        folder = self.objects / entry.address
        with self._errors():
            files = {path.name: path.read_bytes() for path in folder.iterdir()}
        if _address(files) != entry.address:
            raise LibraryError("the stored files of this dataset were changed on disk.",
                               source=f"dataset {entry.name} ({entry.id})",
                               fix="delete it from the library and keep the upload again.")
        return _decode(files, entry.name)

    # -- writing --------------------------------------------------------------------------

    def keep(self, dataset: Dataset, *, owner: str, source_file: str = "",
             name: str | None = None) -> LibraryEntry:
        """Store ``dataset`` for ``owner`` under ``name`` (default ``dataset.name``) and
        return its entry. Keeping the same content again for the same owner returns the
        existing entry. Raises :class:`LibraryQuotaError` when a quota would be passed."""
        owner = str(owner).strip()
        if not owner:
            raise LibraryError("a kept dataset needs an owner.", source="<library>",
                               fix="sign in (team mode) or name yourself (desk mode).")
        name = _clean_name(dataset.name if name is None else name)
        files = _encode(dataset)
        address = _address(files)
        size = sum(len(b) for b in files.values())
        with self._errors(), self._connect() as db:
            same = db.execute(
                "SELECT id, name, owner, created, size, address, dataset_hash, source_file "
                "FROM datasets WHERE owner = ? AND address = ?", (owner, address)).fetchone()
            if same is not None:
                return LibraryEntry(*same)
            mine = db.execute("SELECT COALESCE(SUM(size), 0) FROM datasets WHERE owner = ?",
                              (owner,)).fetchone()[0]
            stored = db.execute("SELECT COALESCE(SUM(size), 0) FROM (SELECT DISTINCT address, "
                                "size FROM datasets)").fetchone()[0]
            shared = db.execute("SELECT 1 FROM datasets WHERE address = ? LIMIT 1",
                                (address,)).fetchone() is not None
            if mine + size > self.user_quota:
                raise LibraryQuotaError(
                    f"keeping this dataset ({_mb(size)}) would pass your library quota: you "
                    f"keep {_mb(mine)} of {_mb(self.user_quota)}.", source=name,
                    fix="delete a kept dataset you no longer need, or ask the operator to "
                        "raise HLV_LIBRARY_USER_MB.")
            if not shared and stored + size > self.total_quota:
                raise LibraryQuotaError(
                    f"the team's library is full: it holds {_mb(stored)} of "
                    f"{_mb(self.total_quota)} and this dataset needs {_mb(size)}.", source=name,
                    fix="ask an admin to delete datasets nobody needs, or the operator to "
                        "raise HLV_LIBRARY_TOTAL_MB.")
            self._write_object(address, files)
            entry = LibraryEntry(secrets.token_hex(6), name, owner, _now(), size, address,
                                 dataset.content_hash, str(source_file)[:_MAX_NAME])
            db.execute("INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)", entry)
        return entry

    def _write_object(self, address: str, files: dict[str, bytes]) -> None:
        target = self.objects / address
        if target.is_dir():
            return
        staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.objects))
        try:
            for file, data in files.items():
                path = staging / file
                with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
                    f.write(data)
            os.replace(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _check_right(self, entry: LibraryEntry, access: Access, what: str) -> None:
        if not (access.is_admin or access.user == entry.owner):
            raise LibraryError(f"only the owner ({entry.owner}) or an admin may {what} "
                               f"'{entry.name}'.", source=f"dataset {entry.id}",
                               fix="ask the owner or an admin.")

    def rename(self, dataset_id: str, name: str, access: Access) -> LibraryEntry:
        """Give entry ``dataset_id`` another name (owner or admin)."""
        entry = self.get(dataset_id)
        self._check_right(entry, access, "rename")
        name = _clean_name(name)
        with self._errors(), self._connect() as db:
            db.execute("UPDATE datasets SET name = ? WHERE id = ?", (name, entry.id))
        return entry._replace(name=name)

    def delete(self, dataset_id: str, access: Access) -> None:
        """Remove entry ``dataset_id`` (owner or admin) and its files when no other entry
        shares them."""
        entry = self.get(dataset_id)
        self._check_right(entry, access, "delete")
        with self._errors(), self._connect() as db:
            db.execute("DELETE FROM datasets WHERE id = ?", (entry.id,))
            others = db.execute("SELECT 1 FROM datasets WHERE address = ? LIMIT 1",
                                (entry.address,)).fetchone()
            if others is None:
                shutil.rmtree(self.objects / entry.address, ignore_errors=True)


def _clean_name(name: str) -> str:
    cleaned = " ".join(str(name).split())[:_MAX_NAME]
    if not cleaned:
        raise LibraryError("a kept dataset needs a name.", source="<library>",
                           fix="type a name.")
    return cleaned
