"""Verdicts on possible annotation errors, kept in SQLite (one row per verdict, never edited).

A curator looks at a label the ranking of :func:`hlv_core.errors.error_scores` puts high and
says what it is: ``error`` (a mistake to fix), ``variation`` (a legitimate reading to keep) or
``unsure``. The same identity and safety rules as the case review store
(:mod:`hlv_core.review_store`):

* Who: the reviewer name the app gives (the signed-in e-mail in team mode, the desk name in desk
  mode); which data: the dataset's content hash, so verdicts never leak between datasets.
* The file is created owner-only (0600, its new folder 0700). Default path:
  ``$HLV_VERDICT_DB``, else ``verdicts.sqlite3`` beside the review database
  (:func:`hlv_core.review_store.default_db_path`, so ``HLV_REVIEW_DB`` moves both).
* WAL journal, ``busy_timeout``, one connection per thread and process; every write is one
  ``BEGIN IMMEDIATE`` transaction, so several sessions and processes can write at once and a
  failed write leaves nothing. Parameterised queries only.
* Every SQLite / file-system failure becomes one :class:`VerdictStoreError` (a
  :class:`~hlv_core.io.DataError`) saying what happened and how to fix it.
* Time is stored as UTC instants; a reviewer's latest verdict per (dataset, item, label) is the
  one with the latest ``created_at``, then the higher row id.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import uuid as _uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ._sqlite import close_thread_connection, write_transaction
from .io import DataError
from .review_store import default_db_path

__all__ = ["VERDICTS", "VerdictStore", "VerdictStoreError", "default_verdict_path",
           "latest_verdicts", "verdict_summary"]

#: Valid verdicts: a mistake to fix, a legitimate reading to keep, not sure.
VERDICTS: tuple[str, ...] = ("error", "variation", "unsure")

_MAX_TEXT = 20_000
_COLUMNS = ["id", "uuid", "reviewer", "dataset", "item_id", "label", "verdict", "comment",
            "created_at"]
_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    reviewer TEXT NOT NULL,
    dataset TEXT NOT NULL,
    item_id TEXT NOT NULL,
    label TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('error', 'variation', 'unsure')),
    comment TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdicts_dataset ON verdicts (dataset, item_id, label)
"""


class VerdictStoreError(DataError):
    """The verdict database cannot be used; nothing was written by the failed operation.

    A :class:`~hlv_core.io.DataError` whose message says what happened and how to fix it.

    Examples
    --------
    >>> import tempfile
    >>> try:
    ...     VerdictStore(tempfile.mkdtemp())  # a folder, not a file
    ... except VerdictStoreError as error:
    ...     print(type(error).__name__)
    VerdictStoreError
    """


def default_verdict_path() -> Path:
    """Where the verdict database lives by default.

    ``$HLV_VERDICT_DB`` if set, else ``verdicts.sqlite3`` next to the review database
    (:func:`hlv_core.review_store.default_db_path`, so ``HLV_REVIEW_DB`` moves both).

    Returns
    -------
    pathlib.Path
        The database file path (not created here).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> env = {"HLV_REVIEW_DB": "/srv/hlv/reviews.sqlite3"}
    >>> with mock.patch.dict(os.environ, env):
    ...     _ = os.environ.pop("HLV_VERDICT_DB", None)
    ...     print(default_verdict_path().as_posix())
    /srv/hlv/verdicts.sqlite3
    """
    env = os.environ.get("HLV_VERDICT_DB")
    if env:
        return Path(env).expanduser()
    return default_db_path().with_name("verdicts.sqlite3")


def _text(value: object, name: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must not be empty")
    if len(value) > _MAX_TEXT:
        raise ValueError(f"{name} is longer than {_MAX_TEXT} characters")
    return value


class VerdictStore:
    """Verdicts on possible annotation errors in a SQLite file (stdlib ``sqlite3``).

    One row per verdict, never edited: ``add`` records, ``verdicts`` reads. The identity and
    safety rules are those of the module notes (owner-only file, WAL, one write transaction per
    verdict, :class:`VerdictStoreError` on any failure).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The database file (created when missing); default :func:`default_verdict_path`.
    timeout : float, default 60.0
        Seconds to wait for another writer.

    Raises
    ------
    VerdictStoreError
        The file cannot be used.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = VerdictStore(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite3")
    >>> _ = store.add("ann", "hash1", "i7", "pos", "error", created_at="2026-11-25T14:00:00+00:00")
    >>> _ = store.add("ann", "hash1", "i7", "pos", "variation",
    ...               created_at="2026-11-25T15:00:00+00:00")
    >>> _ = store.add("bob", "hash1", "i7", "pos", "error", created_at="2026-11-25T14:30:00+00:00")
    >>> store.verdicts(dataset="hash1")[["reviewer", "verdict"]]
      reviewer    verdict
    0      ann      error
    1      ann  variation
    2      bob      error
    """

    def __init__(self, path: str | os.PathLike | None = None, *, timeout: float = 60.0) -> None:
        self.path = Path(path) if path is not None else default_verdict_path()
        self.timeout = float(timeout)
        self._local = threading.local()
        with self._errors():
            self._create_private()
            self._connect().execute("PRAGMA journal_mode = WAL")
            with self._write() as con:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        con.execute(statement)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except VerdictStoreError:
            raise
        except sqlite3.DatabaseError as error:
            text = str(error).lower()
            if "locked" in text or "busy" in text:
                fix = "another process holds the database; try again in a moment."
            elif "readonly" in text or "read-only" in text:
                fix = "make the file writable or point HLV_VERDICT_DB at a writable file."
            elif "not a database" in text or "malformed" in text:
                fix = "point HLV_VERDICT_DB at a new file (this one is not a verdict database)."
            else:
                fix = "check the file and the disk, or point HLV_VERDICT_DB at another file."
            raise VerdictStoreError(f"verdict database failed: {error}", source=str(self.path),
                                    fix=fix) from error
        except OSError as error:
            raise VerdictStoreError(f"verdict database cannot be opened: {error.strerror}",
                                    source=str(self.path),
                                    fix="point HLV_VERDICT_DB at a writable file.") from error

    def _create_private(self) -> None:
        parent = self.path.parent
        if not parent.exists():
            parent.mkdir(parents=True, mode=0o700)
            os.chmod(parent, 0o700)
        if self.path.is_dir():
            raise IsADirectoryError(21, "is a directory", str(self.path))
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            info = self.path.stat()
            if info.st_uid == os.getuid() and info.st_mode & 0o077:
                os.chmod(self.path, info.st_mode & 0o700)
        else:
            os.close(fd)
            os.chmod(self.path, 0o600)

    def _connect(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid() or getattr(local, "con", None) is None:
            con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            con.execute("PRAGMA synchronous = FULL")
            local.con, local.pid = con, os.getpid()
        return local.con

    def close(self) -> None:
        """Close this thread's connection.

        Returns
        -------
        None
            The connection of this thread is closed (reopened on next use).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = VerdictStore(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite3")
        >>> store.close()
        >>> store.verdicts().empty
        True
        """
        close_thread_connection(self._local)

    @contextmanager
    def _write(self):
        with self._errors(), write_transaction(self._connect()) as con:
            yield con

    def add(self, reviewer: str, dataset: str, item_id: str, label: str, verdict: str,
            comment: str = "", *, created_at: str | None = None) -> str:
        """Record one verdict; returns its uuid. ``verdict`` is one of :data:`VERDICTS`.

        Parameters
        ----------
        reviewer : str
            Who decided (non-empty).
        dataset : str
            The dataset's content hash.
        item_id : str
            The item.
        label : str
            The label judged.
        verdict : {"error", "variation", "unsure"}
            The verdict.
        comment : str, default ""
            Free text.
        created_at : str, optional
            ISO 8601 timestamp (default now, UTC); stored as the same instant in UTC.

        Returns
        -------
        str
            The verdict's uuid.

        Raises
        ------
        ValueError
            Empty or over-long text, or an unknown verdict.
        VerdictStoreError
            The database cannot be written.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = VerdictStore(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite3")
        >>> uid = store.add("ann", "hash1", "i7", "pos", "error")
        >>> len(uid)
        36
        """
        _text(reviewer, "reviewer")
        _text(dataset, "dataset")
        _text(item_id, "item_id")
        _text(label, "label")
        _text(comment, "comment", allow_empty=True)
        if verdict not in VERDICTS:
            raise ValueError(f"verdict {verdict!r}: choose one of {', '.join(VERDICTS)}")
        stamp = created_at or datetime.now(UTC).isoformat(timespec="microseconds")
        stamp = datetime.fromisoformat(stamp).astimezone(UTC).isoformat(timespec="microseconds")
        uid = str(_uuid.uuid4())
        with self._write() as con:
            con.execute("INSERT INTO verdicts (uuid, reviewer, dataset, item_id, label, verdict, "
                        "comment, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (uid, reviewer, dataset, item_id, label, verdict, comment, stamp))
        return uid

    def verdicts(self, *, dataset: str | None = None,
                 reviewer: str | None = None) -> pd.DataFrame:
        """Every verdict (optionally of one dataset / reviewer), oldest first.

        Parameters
        ----------
        dataset, reviewer : str, optional
            Filters.

        Returns
        -------
        pandas.DataFrame
            ``id, uuid, reviewer, dataset, item_id, label, verdict, comment, created_at``.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = VerdictStore(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite3")
        >>> _ = store.add("ann", "hash1", "i7", "pos", "variation", created_at="2026-11-25T15:00:00+01:00")
        >>> store.verdicts(dataset="hash1")[["verdict", "created_at"]].to_numpy().tolist()
        [['variation', '2026-11-25T14:00:00.000000+00:00']]
        """
        where, args = [], []
        if dataset is not None:
            where.append("dataset = ?")
            args.append(dataset)
        if reviewer is not None:
            where.append("reviewer = ?")
            args.append(reviewer)
        sql = f"SELECT {', '.join(_COLUMNS)} FROM verdicts"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._errors():
            rows = self._connect().execute(sql + " ORDER BY id", args).fetchall()
        return pd.DataFrame(rows, columns=_COLUMNS)


def latest_verdicts(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Each reviewer's latest verdict per (dataset, item, label).

    Latest ``created_at`` as a UTC instant, then the higher id.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        Rows of :meth:`VerdictStore.verdicts` (``id, reviewer, dataset, item_id, label,
        verdict, created_at``).

    Returns
    -------
    pandas.DataFrame
        The kept rows in ``id`` order, same columns, fresh index.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = VerdictStore(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite3")
    >>> _ = store.add("ann", "hash1", "i7", "pos", "error", created_at="2026-11-25T14:00:00+00:00")
    >>> _ = store.add("ann", "hash1", "i7", "pos", "variation",
    ...               created_at="2026-11-25T15:00:00+00:00")
    >>> _ = store.add("bob", "hash1", "i7", "pos", "error", created_at="2026-11-25T14:30:00+00:00")
    >>> latest_verdicts(store.verdicts())[["reviewer", "verdict"]]
      reviewer    verdict
    0      ann  variation
    1      bob      error
    """
    if verdicts.empty:
        return verdicts
    order = pd.to_datetime(verdicts["created_at"], utc=True, format="ISO8601")
    keyed = verdicts.assign(_order=order).sort_values(["_order", "id"], kind="stable")
    keep = ~keyed.duplicated(["reviewer", "dataset", "item_id", "label"], keep="last")
    return keyed[keep].drop(columns="_order").sort_values("id").reset_index(drop=True)


def verdict_summary(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Per (item, label): how many reviewers' latest verdict is each of :data:`VERDICTS`.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        Rows of :meth:`VerdictStore.verdicts`.

    Returns
    -------
    pandas.DataFrame
        ``item_id, label, error, variation, unsure`` (counts).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = VerdictStore(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite3")
    >>> _ = store.add("ann", "hash1", "i7", "pos", "error", created_at="2026-11-25T14:00:00+00:00")
    >>> _ = store.add("ann", "hash1", "i7", "pos", "variation",
    ...               created_at="2026-11-25T15:00:00+00:00")
    >>> _ = store.add("bob", "hash1", "i7", "pos", "error", created_at="2026-11-25T14:30:00+00:00")
    >>> verdict_summary(store.verdicts())
      item_id label  error  variation  unsure
    0      i7   pos      1          1       0
    """
    latest = latest_verdicts(verdicts)
    if latest.empty:
        return pd.DataFrame(columns=["item_id", "label", *VERDICTS])
    table = pd.crosstab([latest["item_id"], latest["label"]], latest["verdict"])
    table = table.reindex(columns=list(VERDICTS), fill_value=0)
    table.columns.name = None
    return table.reset_index()
