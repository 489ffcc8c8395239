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
    """The library cannot do what was asked (missing entry, no right, unreadable files).

    A :class:`~hlv_core.io.DataError`: the message names the dataset and the fix.

    Examples
    --------
    >>> import tempfile
    >>> try:
    ...     Library(tempfile.mkdtemp()).get("000000000000")
    ... except LibraryError as error:
    ...     print("not in the library" in str(error))
    True
    """


class LibraryQuotaError(LibraryError):
    r"""Keeping this dataset would pass a user's or the library's quota.

    The message says how much is used and which environment variable raises the quota.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> import tempfile
    >>> tiny = Library(tempfile.mkdtemp(), user_quota=10)
    >>> try:
    ...     tiny.keep(dataset, owner="ann@example.org")
    ... except LibraryQuotaError as error:
    ...     print("quota" in str(error))
    True
    """


class LibraryEntry(NamedTuple):
    r"""One catalogue row of the library.

    Parameters
    ----------
    id : str
        12 hex digits, used in links (``?dataset=<id>``).
    name : str
        Display name.
    owner : str
        Who kept it.
    created : str
        ISO 8601 UTC.
    size : int
        Bytes stored.
    address : str
        sha256 of the stored files (the object's folder name).
    dataset_hash : str
        :attr:`~hlv_core.io.Dataset.content_hash`.
    source_file : str
        The uploaded file's name.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> import tempfile
    >>> library = Library(tempfile.mkdtemp())
    >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
    >>> entry.name, entry.owner, entry.source_file, len(entry.id)
    ('toy', 'ann@example.org', 'toy.csv', 12)
    """

    id: str
    name: str
    owner: str
    created: str
    size: int
    address: str
    dataset_hash: str
    source_file: str


def default_library_dir() -> Path:
    """Where the library lives by default.

    ``$HLV_LIBRARY_DIR`` if set, else the folder ``library`` beside the review database
    (:func:`hlv_core.review_store.default_db_path`).

    Returns
    -------
    pathlib.Path
        The library folder (not created here).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HLV_REVIEW_DB": "/srv/hlv/reviews.sqlite3"}):
    ...     _ = os.environ.pop("HLV_LIBRARY_DIR", None)
    ...     print(default_library_dir().as_posix())
    /srv/hlv/library
    """
    env = os.environ.get("HLV_LIBRARY_DIR")
    if env:
        return Path(env).expanduser()
    return default_db_path().parent / "library"


def quota_bytes() -> tuple[int, int]:
    """The (per-user, total) library quotas in bytes.

    From ``$HLV_LIBRARY_USER_MB`` (default 500) and ``$HLV_LIBRARY_TOTAL_MB`` (default 5000);
    an unreadable value falls back to the default.

    Returns
    -------
    tuple of (int, int)
        Per-user and total quota in bytes.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HLV_LIBRARY_USER_MB": "100",
    ...                                   "HLV_LIBRARY_TOTAL_MB": "1000"}):
    ...     print(quota_bytes())
    (100000000, 1000000000)
    """
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
    r"""The dataset library in folder ``root`` (see the module notes for the layout and rules).

    ``keep(dataset, owner=..., source_file=...)`` stores a dataset and returns its
    :class:`LibraryEntry`; ``entries()`` lists the catalogue (newest first); ``get(id)`` one
    entry; ``load(id)`` gives the dataset back (same :attr:`~hlv_core.io.Dataset.content_hash`;
    files changed on disk are refused); ``used(owner)`` the bytes kept; ``rename`` and
    ``delete`` need the owner or an admin (:class:`hlv_core.review.Access`).

    Parameters
    ----------
    root : str or os.PathLike, optional
        The library folder (created 0700); default :func:`default_library_dir`.
    user_quota : int, optional
        Bytes one user may keep; default from :func:`quota_bytes`.
    total_quota : int, optional
        Bytes the library may hold; default from :func:`quota_bytes`.

    Raises
    ------
    LibraryError
        The folder or catalogue cannot be used.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> import tempfile
    >>> library = Library(tempfile.mkdtemp())
    >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
    >>> library.load(entry.id).content_hash == dataset.content_hash
    True
    >>> from hlv_core.review import Access
    >>> library.rename(entry.id, "toy v2", Access("ann@example.org")).name
    'toy v2'
    >>> library.delete(entry.id, Access("bob@example.org"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hlv_core.library.LibraryError: ...only the owner (ann@example.org) or an admin may delete...
    """

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
        r"""Every kept dataset, newest first.

        Returns
        -------
        list of LibraryEntry
            The catalogue.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> [e.name for e in library.entries()]
        ['toy']
        """
        return self._rows("SELECT id, name, owner, created, size, address, dataset_hash, "
                          "source_file FROM datasets ORDER BY created DESC, rowid DESC")

    def get(self, dataset_id: str) -> LibraryEntry:
        r"""The entry ``dataset_id``; :class:`LibraryError` when there is none.

        Parameters
        ----------
        dataset_id : str
            12 hex digits.

        Returns
        -------
        LibraryEntry
            The catalogue row.

        Raises
        ------
        LibraryError
            No such entry.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> library.get(entry.id).source_file
        'toy.csv'
        """
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
        r"""Bytes kept by ``owner`` (every row counts), or the library's stored bytes (each
        object once) when ``owner`` is None.

        Parameters
        ----------
        owner : str, optional
            The user (None: the whole library).

        Returns
        -------
        int
            Bytes.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> library.used("ann@example.org") == entry.size, library.used("bob@example.org")
        (True, 0)
        """
        with self._errors(), self._connect() as db:
            if owner is None:
                sql = "SELECT COALESCE(SUM(size), 0) FROM (SELECT DISTINCT address, size " \
                      "FROM datasets)"
                return int(db.execute(sql).fetchone()[0])
            return int(db.execute("SELECT COALESCE(SUM(size), 0) FROM datasets WHERE owner = ?",
                                  (owner,)).fetchone()[0])

    def load(self, dataset_id: str) -> Dataset:
        r"""The kept dataset ``dataset_id`` under its catalogue name. The files are hashed
        again: a file changed on disk raises :class:`LibraryError`.

        Parameters
        ----------
        dataset_id : str
            12 hex digits.

        Returns
        -------
        Dataset
            The dataset, with the same content hash as when it was kept.

        Raises
        ------
        LibraryError
            No such entry, or its files changed on disk.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> library.load(entry.id).content_hash == dataset.content_hash
        True
        """
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
        r"""Store ``dataset`` for ``owner`` under ``name`` (default ``dataset.name``) and
        return its entry. Keeping the same content again for the same owner returns the
        existing entry. Raises :class:`LibraryQuotaError` when a quota would be passed.

        Parameters
        ----------
        dataset : Dataset
            The dataset to keep.
        owner : str
            Who keeps it (non-empty).
        source_file : str, default ""
            The uploaded file's name.
        name : str, optional
            Display name (default ``dataset.name``).

        Returns
        -------
        LibraryEntry
            The (new or existing) entry.

        Raises
        ------
        LibraryQuotaError
            A quota would be passed.
        LibraryError
            No owner, no name, or the files cannot be written.

        Examples
        --------
        Keeping the same content twice for one owner gives the same entry:

        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> library.keep(dataset, owner="ann@example.org").id == entry.id
        True
        """
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
        r"""Give entry ``dataset_id`` another name (owner or admin).

        Parameters
        ----------
        dataset_id : str
            12 hex digits.
        name : str
            The new name.
        access : hlv_core.review.Access
            Who asks (owner or admin).

        Returns
        -------
        LibraryEntry
            The renamed entry.

        Raises
        ------
        LibraryError
            No such entry, no right, or an empty name.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> from hlv_core.review import Access
        >>> library.rename(entry.id, "toy v2", Access("root", is_admin=True)).name
        'toy v2'
        """
        entry = self.get(dataset_id)
        self._check_right(entry, access, "rename")
        name = _clean_name(name)
        with self._errors(), self._connect() as db:
            db.execute("UPDATE datasets SET name = ? WHERE id = ?", (name, entry.id))
        return entry._replace(name=name)

    def delete(self, dataset_id: str, access: Access) -> None:
        r"""Remove entry ``dataset_id`` (owner or admin) and its files when no other entry
        shares them.

        Parameters
        ----------
        dataset_id : str
            12 hex digits.
        access : hlv_core.review.Access
            Who asks (owner or admin).

        Returns
        -------
        None
            The entry (and, when unshared, its files) is gone.

        Raises
        ------
        LibraryError
            No such entry, or no right.

        Examples
        --------
        >>> import pandas as pd
        >>> from hlv_core.io import load
        >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
        ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
        >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
        ...                name="toy.csv")
        >>> import tempfile
        >>> library = Library(tempfile.mkdtemp())
        >>> entry = library.keep(dataset, owner="ann@example.org", source_file="toy.csv")
        >>> from hlv_core.review import Access
        >>> library.delete(entry.id, Access("ann@example.org"))
        >>> library.entries()
        []
        """
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
