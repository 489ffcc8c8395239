"""The expert-review store: judgements and own labels in one SQLite file (Kurniawan et al. section 6: ``ReviewStore(path)``, ``add``, ``judgements``, ``pair_counts``, ``export_csv``,
``import_csv``). Re-exported by :mod:`hlv_core.review`.

Safety rules:

* The file is created owner-only (0600, its new folder 0700); an existing file readable by
  others is tightened on open when this user owns it.
* Every SQLite or file-system failure becomes one :class:`ReviewStoreError` (a
  :class:`~hlv_core.io.DataError`) saying what happened and how to fix it: not a database, a
  folder, read-only, disk full, locked. A failed write leaves nothing half written.
* Time is compared as instants (UTC), never as text. Each row keeps ``created_at`` (when the
  judgement was made, as claimed) and ``recorded_at`` (when this store wrote it). The order
  that picks a reviewer's latest judgement is ``min(created_at, recorded_at)``: an imported
  row can never be "newer" than the moment it was imported, so an imported future timestamp
  cannot override a later judgement made in the app, and at the same instant the app wins.
* Imports keep an audit trail (``source = 'import'``, ``imported_by``, ``import_file``,
  ``recorded_at``); audit columns in the CSV are ignored (they cannot be forged).
* Exports neutralise spreadsheet formulas (:func:`hlv_core.text.neutralise_frame`); imports
  undo exactly that, so export -> import is the identity on every text.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import sqlite3
import threading
import uuid as _uuid
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._sqlite import close_thread_connection, write_transaction
from .io import DataError, load_table, spelling_changes
from .text import neutralise_frame, restore_frame

__all__ = [
    "CHOICES",
    "EXPORT_COLUMNS",
    "SCHEMA_VERSION",
    "Proposal",
    "ReviewStore",
    "ReviewStoreError",
    "counts_from_judgements",
    "default_db_path",
    "latest_judgements",
    "to_instant",
]

CHOICES: tuple[str, ...] = ("A", "B", "both", "neither")
"""Valid judgements: output A better, output B better, both acceptable, neither acceptable."""

SCHEMA_VERSION = 4
"""Current ``PRAGMA user_version``. Version 1 had no ``uuid`` / ``dataset`` columns and no
``own_labels`` table; version 2 had no audit columns (``recorded_at, source, imported_by,
import_file``) and kept timestamps with any UTC offset; version 3 had no ``batch`` (the
judgements saved together for one case) and no ``undone_at`` (when the reviewer withdrew
them). Older files are migrated on open."""

EXPORT_COLUMNS = ["uuid", "reviewer", "item_id", "model_a", "model_b", "choice", "comment",
                  "dataset", "created_at", "recorded_at", "source", "imported_by",
                  "import_file"]
"""Columns of :meth:`ReviewStore.export_csv` (the audit columns are informational: an import
sets its own)."""

_MAX_TEXT = 20_000  # longest comment / name accepted (characters)

_JUDGEMENT_COLUMNS = ["id", *EXPORT_COLUMNS, "batch", "undone_at"]


class ReviewStoreError(DataError):
    """The review database cannot be used (SQLite or file-system failure).

    A :class:`~hlv_core.io.DataError`: the message says what happened and how to fix it.
    Nothing was written by the failed operation.

    Examples
    --------
    >>> import tempfile
    >>> try:
    ...     ReviewStore(tempfile.mkdtemp())  # a folder, not a file
    ... except ReviewStoreError as error:
    ...     print(str(error).split(": ", 1)[1][:46])
    this path is a folder, not a review database f
    """


def default_db_path() -> Path:
    """Where the review database lives by default.

    ``$HLV_REVIEW_DB`` if set, else ``$XDG_DATA_HOME/hlv-lens/reviews.sqlite3`` (default
    ``~/.local/share/hlv-lens/reviews.sqlite3``).

    Returns
    -------
    pathlib.Path
        The database file path (not created here).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HLV_REVIEW_DB": "/srv/hlv/reviews.sqlite3"}):
    ...     print(default_db_path().as_posix())
    /srv/hlv/reviews.sqlite3
    """
    env = os.environ.get("HLV_REVIEW_DB")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hlv-lens" / "reviews.sqlite3"


class Proposal(NamedTuple):
    """The next comparison to show (:meth:`ReviewStore.next_pair`).

    Parameters
    ----------
    item_id : str
        The item.
    model_a, model_b : str
        Model shown on the left (A) and on the right (B).
    pair_judgements : int
        Judgements of this model pair so far (all reviewers).
    remaining : int
        (item, pair) combinations this reviewer has not judged yet.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
    >>> proposal = store.next_pair("ann", ["i1"], ["m1", "m2"], seed=0)
    >>> proposal.item_id, sorted([proposal.model_a, proposal.model_b]), proposal.remaining
    ('i1', ['m1', 'm2'], 1)
    """

    item_id: str
    model_a: str
    model_b: str
    pair_judgements: int  # judgements of this model pair so far (all reviewers)
    remaining: int  # (item, pair) combinations this reviewer has not judged yet


# --------------------------------------------------------------------------------- time


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def to_instant(value: str, *, assume_utc: bool = False) -> str:
    """An ISO 8601 timestamp as the canonical UTC text ``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``.

    The same instant, so that timestamps compare as text.

    Parameters
    ----------
    value : str
        ISO 8601 timestamp with a UTC offset.
    assume_utc : bool, default False
        Read a timestamp without offset as UTC instead of refusing it.

    Returns
    -------
    str
        Canonical UTC text.

    Raises
    ------
    ValueError
        Unreadable, or without offset and ``assume_utc`` false.

    Examples
    --------
    >>> to_instant("2025-01-01T02:00:00+02:00")
    '2025-01-01T00:00:00.000000+00:00'
    >>> to_instant("2025-01-01T02:00:00", assume_utc=True)
    '2025-01-01T02:00:00.000000+00:00'
    """
    stamp = datetime.fromisoformat(str(value).strip())
    if stamp.tzinfo is None:
        if not assume_utc:
            raise ValueError(f"timestamp {value!r} has no UTC offset")
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC).isoformat(timespec="microseconds")


def _instants(values: pd.Series) -> pd.Series:
    """Timestamps (any UTC offsets) as UTC instants (datetime64[ns, UTC])."""
    return pd.to_datetime(values, utc=True, format="ISO8601")


def latest_judgements(judgements: pd.DataFrame) -> pd.DataFrame:
    """Each reviewer's latest judgement per (dataset, item, unordered model pair) (Kurniawan et al., section 6.1).

    "Latest" compares instants, not text: ``min(created_at, recorded_at)`` as UTC (a row
    without ``recorded_at`` uses ``created_at``); at the same instant a judgement made in the
    app (``source != 'import'``) beats an imported one, then the later row id wins. Only these
    rows feed the pairwise counts, as in the authors' released code.

    Parameters
    ----------
    judgements : pandas.DataFrame
        Rows with ``id, reviewer, dataset, item_id, model_a, model_b, created_at`` (optional
        ``recorded_at``, ``source``).

    Returns
    -------
    pandas.DataFrame
        The kept rows, in ``id`` order, same columns.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1.

    Examples
    --------
    Ann judged m1 vs m2 twice (the later one, shown as m2 vs m1, counts):

    >>> import pandas as pd
    >>> judgements = pd.DataFrame({
    ...     "id": [1, 2, 3], "reviewer": ["ann", "ann", "bob"], "dataset": "toy",
    ...     "item_id": "i1", "model_a": ["m1", "m2", "m1"], "model_b": ["m2", "m1", "m2"],
    ...     "choice": ["A", "A", "neither"],
    ...     "created_at": ["2026-11-25T14:00:00+00:00", "2026-11-25T15:00:00+00:00",
    ...                    "2026-11-25T14:30:00+00:00"]})
    >>> latest_judgements(judgements)["id"].tolist()
    [2, 3]
    """
    if judgements.empty:
        return judgements
    lo = np.minimum(judgements["model_a"].to_numpy(dtype=object),
                    judgements["model_b"].to_numpy(dtype=object))
    hi = np.maximum(judgements["model_a"].to_numpy(dtype=object),
                    judgements["model_b"].to_numpy(dtype=object))
    created = _instants(judgements["created_at"])
    if "recorded_at" in judgements.columns:
        recorded = _instants(judgements["recorded_at"].where(
            judgements["recorded_at"].astype(bool), judgements["created_at"]))
        order = created.where(created <= recorded, recorded)
    else:
        order = created
    from_app = (judgements["source"] != "import").to_numpy() if "source" in judgements.columns \
        else np.ones(len(judgements), dtype=bool)
    keyed = judgements.assign(_lo=lo, _hi=hi, _order=order.to_numpy(), _app=from_app)
    keyed = keyed.sort_values(["_order", "_app", "id"], kind="stable")
    keyed = keyed.drop_duplicates(["reviewer", "dataset", "item_id", "_lo", "_hi"], keep="last")
    return keyed.drop(columns=["_lo", "_hi", "_order", "_app"]).sort_values("id")


# --------------------------------------------------------------------------------- schema

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    reviewer TEXT NOT NULL,
    item_id TEXT NOT NULL,
    model_a TEXT NOT NULL,
    model_b TEXT NOT NULL,
    choice TEXT NOT NULL CHECK (choice IN ('A', 'B', 'both', 'neither')),
    comment TEXT NOT NULL DEFAULT '',
    dataset TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    recorded_at TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT 'app',
    imported_by TEXT NOT NULL DEFAULT '',
    import_file TEXT NOT NULL DEFAULT '',
    batch TEXT NOT NULL DEFAULT '',
    undone_at TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS judgements_reviewer ON judgements (dataset, reviewer);
CREATE TABLE IF NOT EXISTS own_labels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    reviewer TEXT NOT NULL,
    item_id TEXT NOT NULL,
    labels TEXT NOT NULL,
    dataset TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS own_labels_reviewer ON own_labels (dataset, reviewer, item_id);
"""

# Migration 1 -> 2: the first schema had no uuid/dataset columns and no own_labels table.
_MIGRATE_1_TO_2 = """
ALTER TABLE judgements ADD COLUMN uuid TEXT;
ALTER TABLE judgements ADD COLUMN dataset TEXT NOT NULL DEFAULT '';
UPDATE judgements SET uuid = lower(hex(randomblob(16))) WHERE uuid IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS judgements_uuid ON judgements (uuid)
"""

# Migration 2 -> 3: audit columns. Old rows cannot say whether they were imported, so they are
# marked 'legacy'; their timestamps are rewritten as canonical UTC in Python (see _initialise).
_MIGRATE_2_TO_3 = """
ALTER TABLE judgements ADD COLUMN recorded_at TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN source TEXT NOT NULL DEFAULT 'app';
ALTER TABLE judgements ADD COLUMN imported_by TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN import_file TEXT NOT NULL DEFAULT '';
UPDATE judgements SET source = 'legacy'
"""

# Migration 3 -> 4: the case a judgement was saved with (for undo) and the undo audit column.
_MIGRATE_3_TO_4 = """
ALTER TABLE judgements ADD COLUMN batch TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN undone_at TEXT NOT NULL DEFAULT ''
"""


def _statements(script: str) -> Iterator[str]:
    return (s for s in script.strip().split(";") if s.strip())


def _filters(**equal_to: str | None) -> tuple[str, list[str]]:
    """`` WHERE a = ? AND b = ?`` for the given non-None column values, with its parameters
    (column names are fixed by the caller; values are always bound, never formatted in)."""
    columns = [c for c, v in equal_to.items() if v is not None]
    where = (" WHERE " + " AND ".join(f"{c} = ?" for c in columns)) if columns else ""
    return where, [equal_to[c] for c in columns]


def _text(value: object, name: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string; got {type(value).__name__}.")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must not be empty.")
    if len(value) > _MAX_TEXT:
        raise ValueError(f"{name} is longer than {_MAX_TEXT} characters.")
    if "\x00" in value:
        raise ValueError(f"{name} must not contain NUL characters.")
    return value


def _describe(error: BaseException, path: Path) -> tuple[str, str]:
    """(problem, fix) for a SQLite / OS failure on the review database at ``path``."""
    text = str(error)
    lower = text.lower()
    env = "point the environment variable HLV_REVIEW_DB at another file"
    if path.is_dir():
        return ("this path is a folder, not a review database file.",
                f"{env} (a file path, e.g. .../reviews.sqlite3).")
    if "not a database" in lower or "malformed" in lower or "encrypted" in lower:
        return (f"this file is not an HLV Lens review database (SQLite: {text}).",
                f"{env}, or restore the file from a backup; it was not changed.")
    if "disk is full" in lower or "disk full" in lower or getattr(error, "errno", None) in (
            errno.ENOSPC, errno.EDQUOT):
        return (f"the disk is full (SQLite: {text}); nothing was written.",
                "free disk space, then retry (the judgement you entered is kept in this "
                "browser session).")
    if "readonly" in lower or "read-only" in lower or isinstance(error, PermissionError) or \
            getattr(error, "errno", None) in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (f"the review database is read-only here (SQLite: {text}).",
                f"make the file and its folder writable for the user running HLV Lens, or "
                f"{env}.")
    if "locked" in lower or "busy" in lower:
        return (f"another process holds the review database (SQLite: {text}).",
                "retry in a moment.")
    if "unable to open" in lower or isinstance(error, OSError):
        return (f"the review database cannot be opened (SQLite: {text}).",
                f"check that its folder exists and is writable, or {env}.")
    return (f"the review database failed (SQLite: {text}).", f"retry, or {env}.")


# --------------------------------------------------------------------------------- store


def counts_from_judgements(judgements: pd.DataFrame, models: Sequence[str]
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise counts ``(wins, comps)`` of judgement rows, as used by rank centrality.

    The layout of :func:`hlv_core.review.rank_centrality`: ``wins[i, j]`` counts judgements
    where column model j beat row model i (row = loser, column = winner); ``comps[i, j]`` counts
    every judgement of the pair (``both``/``neither`` included). Rows are used as given (pass
    :func:`latest_judgements` for the counts of the paper); other models are ignored.

    Parameters
    ----------
    judgements : pandas.DataFrame
        Rows with ``model_a, model_b, choice`` (``"A"``, ``"B"``, ``"both"``, ``"neither"``).
    models : sequence of str
        Distinct model names, the order of rows and columns.

    Returns
    -------
    wins : numpy.ndarray
        (M, M) int64.
    comps : numpy.ndarray
        (M, M) int64, symmetric.

    Raises
    ------
    ValueError
        Repeated model names.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"model_a": ["m1", "m2", "m1"], "model_b": ["m2", "m1", "m2"],
    ...                      "choice": ["A", "A", "neither"]})
    >>> wins, comps = counts_from_judgements(rows, ["m1", "m2"])
    >>> wins.tolist(), comps.tolist()
    ([[0, 1], [1, 0]], [[0, 3], [3, 0]])
    """
    models = list(models)
    m = len(models)
    if len(set(models)) != m:
        raise ValueError("models must be distinct.")
    wins = np.zeros((m, m), dtype=np.int64)
    comps = np.zeros((m, m), dtype=np.int64)
    if judgements.empty:
        return wins, comps
    index = pd.Index(models)
    a = index.get_indexer(judgements["model_a"])
    b = index.get_indexer(judgements["model_b"])
    keep = (a >= 0) & (b >= 0) & (a != b)
    a, b = a[keep], b[keep]
    choice = judgements["choice"].to_numpy(dtype=object)[keep]
    np.add.at(comps, (a, b), 1)
    np.add.at(comps, (b, a), 1)
    a_won = choice == "A"
    b_won = choice == "B"
    np.add.at(wins, (b[a_won], a[a_won]), 1)  # row = loser, column = winner
    np.add.at(wins, (a[b_won], b[b_won]), 1)
    return wins, comps


class ReviewStore:
    """Expert judgements in a SQLite file (stdlib ``sqlite3``; Kurniawan et al., section 6.1).

    * WAL journal, ``busy_timeout`` (``timeout`` seconds), one connection per thread and
      process, so any number of ``ReviewStore`` objects, threads and processes may write the
      same file; every write is one ``BEGIN IMMEDIATE`` transaction (committed rows survive a
      crash, a failed one leaves nothing).
    * Created 0600 (new folder 0700). Every failure raises :class:`ReviewStoreError`.
    * Schema versioned with ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`); older files are
      migrated on open inside a write transaction (safe when several processes open at once).
    * Parameterised queries only. Every judgement gets a uuid, so re-importing an export adds
      nothing twice. Imports are audited and never outrank later app judgements
      (:func:`latest_judgements`).
    * Own labels (what the reviewer thinks before seeing the models) in table ``own_labels``.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The database file (created when missing); default :func:`default_db_path`.
    timeout : float, default 60.0
        Seconds to wait for another writer.

    Raises
    ------
    ReviewStoreError
        The file cannot be used (a folder, not a database, read-only, disk full, locked).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
    >>> _ = store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
    >>> _ = store.add("bob", "i1", "m2", "m1", "both", dataset="toy")
    >>> len(store), store.judgements(dataset="toy")["choice"].tolist()
    (2, ['A', 'both'])
    >>> wins, comps = store.pair_counts(["m1", "m2"], dataset="toy")
    >>> wins.tolist(), comps.tolist()
    ([[0, 0], [1, 0]], [[0, 2], [2, 0]])
    """

    def __init__(self, path: str | os.PathLike | None = None, *, timeout: float = 60.0) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.timeout = float(timeout)
        self._local = threading.local()
        with self._errors():
            self._create_private()
            self._initialise()

    # -- errors and files ------------------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn SQLite / OS failures into one :class:`ReviewStoreError`."""
        try:
            yield
        except ReviewStoreError:
            raise
        except (sqlite3.Error, OSError) as error:
            problem, fix = _describe(error, self.path)
            raise ReviewStoreError(problem, source=str(self.path), fix=fix) from error

    def _create_private(self) -> None:
        """Create the folder (0700) and an empty database file (0600) when missing; tighten
        an existing file this user owns that others could read."""
        parent = self.path.parent
        if not parent.exists():
            parent.mkdir(parents=True, mode=0o700)
            os.chmod(parent, 0o700)
        if self.path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(self.path))
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            for suffix in ("", "-wal", "-shm"):
                side = Path(f"{self.path}{suffix}")
                with contextlib.suppress(OSError):
                    info = side.stat()
                    if info.st_uid == os.getuid() and info.st_mode & 0o077:
                        os.chmod(side, info.st_mode & 0o700)
        else:
            os.close(fd)
            os.chmod(self.path, 0o600)

    # -- connections -----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                              check_same_thread=True)
        con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        con.execute("PRAGMA synchronous = FULL")
        return con

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use; a forked child opens its own).
        Keeping it open avoids a WAL checkpoint + fsync every time the last connection
        closes."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid() or getattr(local, "con", None) is None:
            local.con = self._open()
            local.pid = os.getpid()
        return local.con

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end).

        Returns
        -------
        None
            The connection of this thread is closed (reopened on next use).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> store.close()
        >>> len(store)  # the next read opens a new connection
        0
        """
        close_thread_connection(self._local)

    @contextmanager
    def _write(self):
        with self._errors(), write_transaction(self._connect()) as con:
            yield con

    @contextmanager
    def _read(self):
        with self._errors():
            yield self._connect()

    def _initialise(self) -> None:
        mode = self._connect().execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":  # pragma: no cover - e.g. some network filesystems
            warnings.warn(f"SQLite journal mode is {mode}, not WAL, for {self.path}",
                          RuntimeWarning, stacklevel=3)
        with self._write() as con:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version > SCHEMA_VERSION:
                raise ReviewStoreError(
                    f"review database schema version {version} is newer than this HLV Lens "
                    f"({SCHEMA_VERSION}).", source=str(self.path),
                    fix="upgrade HLV Lens or point HLV_REVIEW_DB at another file.")
            if version == 0 and "judgements" in tables:
                version = 1  # a version-1 file written before user_version was set
            if version == 1:
                for statement in _statements(_MIGRATE_1_TO_2):
                    con.execute(statement)
                version = 2
            if version == 2:
                for statement in _statements(_MIGRATE_2_TO_3):
                    con.execute(statement)
                self._canonical_times(con)
                version = 3
            if version == 3:
                for statement in _statements(_MIGRATE_3_TO_4):
                    con.execute(statement)
            if version < SCHEMA_VERSION:
                for statement in _statements(_SCHEMA):
                    con.execute(statement)
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @staticmethod
    def _canonical_times(con: sqlite3.Connection) -> None:
        """Migration 2 -> 3: rewrite every ``created_at`` as canonical UTC (offset-less values
        were written as UTC) and set ``recorded_at`` to the migration time for rows claiming a
        time after it (so an old imported future timestamp stops outranking everything)."""
        now = _now()
        rows = con.execute("SELECT id, created_at FROM judgements").fetchall()
        updates = []
        for row_id, created in rows:
            try:
                canonical = to_instant(created, assume_utc=True)
            except ValueError:
                canonical = now  # unreadable legacy value: treat as recorded now
            updates.append((canonical, min(canonical, now, key=datetime.fromisoformat), row_id))
        con.executemany("UPDATE judgements SET created_at = ?, recorded_at = ? WHERE id = ?",
                        updates)

    @property
    def schema_version(self) -> int:
        with self._read() as con:
            return int(con.execute("PRAGMA user_version").fetchone()[0])

    # -- writes ----------------------------------------------------------------------------

    @staticmethod
    def _validate(reviewer, item_id, model_a, model_b, choice, comment, dataset) -> tuple:
        _text(reviewer, "reviewer")
        _text(item_id, "item_id")
        _text(model_a, "model_a")
        _text(model_b, "model_b")
        if model_a == model_b:
            raise ValueError(f"model_a and model_b must differ; both are {model_a!r}.")
        if choice not in CHOICES:
            raise ValueError(f"choice must be one of {CHOICES}; got {choice!r}.")
        _text(comment, "comment", allow_empty=True)
        _text(dataset, "dataset", allow_empty=True)
        return reviewer, item_id, model_a, model_b, choice, comment, dataset

    _INSERT = ("INSERT INTO judgements (uuid, reviewer, item_id, model_a, model_b, choice, "
               "comment, dataset, created_at, recorded_at, source, imported_by, import_file, "
               "batch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")

    def add(
        self,
        reviewer: str,
        item_id: str,
        model_a: str,
        model_b: str,
        choice: str,
        *,
        comment: str = "",
        dataset: str = "",
    ) -> int:
        """Record one judgement (``model_a`` shown as A/left, ``model_b`` as B/right) in its own
        transaction, timestamped now (UTC); returns the new row id. Text is stored verbatim.

        Parameters
        ----------
        reviewer : str
            Who judged (non-empty).
        item_id : str
            The case.
        model_a, model_b : str
            Models shown as A (left) and B (right).
        choice : {"A", "B", "both", "neither"}
            The judgement (:data:`CHOICES`).
        comment : str, default ""
            Free text.
        dataset : str, default ""
            Dataset name.

        Returns
        -------
        int
            The new row id.

        Raises
        ------
        ValueError
            Empty or over-long text, NUL characters, an unknown choice or ``model_a == model_b``.
        ReviewStoreError
            The database cannot be written.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
        1
        """
        values = self._validate(reviewer, item_id, model_a, model_b, choice, comment, dataset)
        now = _now()
        with self._write() as con:
            cursor = con.execute(self._INSERT, (str(_uuid.uuid4()), *values, now, now, "app",
                                                "", "", str(_uuid.uuid4())))
            return int(cursor.lastrowid)

    def add_many(self, rows: Iterable[Mapping[str, str]]) -> int:
        """Insert many judgements (dicts with the :meth:`add` arguments) in ONE transaction;
        returns the number inserted. All rows are validated before anything is written; each
        row is its own batch (undone on its own).

        Parameters
        ----------
        rows : iterable of mapping
            Each with ``reviewer, item_id, model_a, model_b, choice`` (+ ``comment``, ``dataset``).

        Returns
        -------
        int
            Rows inserted.

        Raises
        ------
        ValueError
            Any invalid row (nothing is written).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> store.add_many([{"reviewer": "ann", "item_id": "i1", "model_a": "m1", "model_b": "m2",
        ...                  "choice": "A"},
        ...                 {"reviewer": "bob", "item_id": "i1", "model_a": "m1", "model_b": "m2",
        ...                  "choice": "neither"}])
        2
        """
        records = []
        for row in rows:
            values = self._validate(row["reviewer"], row["item_id"], row["model_a"],
                                    row["model_b"], row["choice"], row.get("comment", ""),
                                    row.get("dataset", ""))
            now = _now()
            records.append((str(_uuid.uuid4()), *values, now, now, "app", "", "",
                            str(_uuid.uuid4())))
        with self._write() as con:
            con.executemany(self._INSERT, records)
        return len(records)

    def add_case(self, reviewer: str, item_id: str,
                 judgements: Sequence[tuple[str, str, str]], *, comment: str = "",
                 dataset: str = "") -> str:
        """Record every model-pair judgement of one case, ``(model_a, model_b, choice)`` each,
        in ONE transaction under one new batch id (returned): what :meth:`undo_last` takes
        back together. Nothing is written when any judgement is invalid.

        Parameters
        ----------
        reviewer : str
            Who judged.
        item_id : str
            The case.
        judgements : sequence of (str, str, str)
            ``(model_a, model_b, choice)`` per pair.
        comment : str, default ""
            Free text, stored on every row.
        dataset : str, default ""
            Dataset name.

        Returns
        -------
        str
            The batch id.

        Raises
        ------
        ValueError
            Any invalid judgement (nothing is written).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add_case("ann", "i2", [("m1", "m2", "B"), ("m1", "m3", "both")], dataset="toy")
        >>> store.last_batch("ann", dataset="toy")["choice"].tolist()
        ['B', 'both']
        """
        if not judgements:
            raise ValueError("a case needs at least one judgement.")
        batch = str(_uuid.uuid4())
        records = []
        for model_a, model_b, choice in judgements:
            values = self._validate(reviewer, item_id, model_a, model_b, choice, comment,
                                    dataset)
            now = _now()
            records.append((str(_uuid.uuid4()), *values, now, now, "app", "", "", batch))
        pairs = [frozenset(r[3:5]) for r in records]
        if len(set(pairs)) != len(pairs):
            raise ValueError("each model pair may be judged once per case.")
        with self._write() as con:
            con.executemany(self._INSERT, records)
        return batch

    def _last_batch(self, con: sqlite3.Connection, reviewer: str, dataset: str
                    ) -> tuple[str, int] | None:
        row = con.execute(
            "SELECT batch, id FROM judgements WHERE reviewer = ? AND dataset = ? AND "
            "source = 'app' AND undone_at = '' ORDER BY id DESC LIMIT 1",
            (reviewer, dataset)).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def last_batch(self, reviewer: str, *, dataset: str = "") -> pd.DataFrame:
        """The judgements ``reviewer`` saved last in the app for ``dataset`` and has not undone
        (one case's pairs, or one row saved on its own); empty when there is none.

        Parameters
        ----------
        reviewer : str
            The reviewer.
        dataset : str, default ""
            Dataset name.

        Returns
        -------
        pandas.DataFrame
            The rows of :meth:`judgements` of that batch.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A")
        >>> store.last_batch("ann")["item_id"].tolist(), store.last_batch("bob").empty
        (['i1'], True)
        """
        _text(reviewer, "reviewer")
        with self._read() as con:
            found = self._last_batch(con, reviewer, dataset)
            if found is None:
                return pd.DataFrame(columns=_JUDGEMENT_COLUMNS)
            rows = con.execute(
                f"SELECT {', '.join(_JUDGEMENT_COLUMNS)} FROM judgements WHERE "
                + ("batch = ? AND reviewer = ? AND dataset = ? AND undone_at = ''" if found[0]
                   else "id = ?") + " ORDER BY id",
                (found[0], reviewer, dataset) if found[0] else (found[1],)).fetchall()
        return pd.DataFrame(rows, columns=_JUDGEMENT_COLUMNS).astype({"id": "int64"})

    def undo_last(self, reviewer: str, *, dataset: str = "", batch: str | None = None
                  ) -> pd.DataFrame:
        """Withdraw ``reviewer``'s own last judgement (the last case saved in the app for
        ``dataset``, see :meth:`last_batch`) and return its rows. Audited: the rows stay in the
        file with ``undone_at`` (UTC) set, and every read, count and export leaves them out.
        Imported rows and other reviewers' rows are never touched. With ``batch`` the undo
        happens only when that batch is still the reviewer's last (a stale undo button does
        nothing and returns an empty frame).

        Parameters
        ----------
        reviewer : str
            Whose last case to withdraw.
        dataset : str, default ""
            Dataset name.
        batch : str, optional
            Undo only when this batch is still the last.

        Returns
        -------
        pandas.DataFrame
            The withdrawn rows (empty when nothing was undone).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
        >>> _ = store.add_case("ann", "i2", [("m1", "m2", "B"), ("m1", "m3", "both")], dataset="toy")
        >>> len(store.undo_last("ann", dataset="toy")), len(store)
        (2, 1)
        """
        _text(reviewer, "reviewer")
        with self._write() as con:
            found = self._last_batch(con, reviewer, dataset)
            if found is None or (batch is not None and found[0] != batch):
                return pd.DataFrame(columns=_JUDGEMENT_COLUMNS)
            ids = [found[1]]
            if found[0]:
                ids = [int(r[0]) for r in con.execute(
                    "SELECT id FROM judgements WHERE batch = ? AND reviewer = ? AND "
                    "dataset = ? AND undone_at = ''", (found[0], reviewer, dataset))]
            con.executemany("UPDATE judgements SET undone_at = ? WHERE id = ?",
                            [(_now(), i) for i in ids])
            marks = ", ".join("?" * len(ids))
            rows = con.execute(f"SELECT {', '.join(_JUDGEMENT_COLUMNS)} FROM judgements "
                               f"WHERE id IN ({marks}) ORDER BY id", ids).fetchall()
        return pd.DataFrame(rows, columns=_JUDGEMENT_COLUMNS).astype({"id": "int64"})

    def add_own_labels(self, reviewer: str, item_id: str, labels: Sequence[str], *,
                       dataset: str = "") -> int:
        """Record the labels the reviewer chose for an item before seeing any model (Kurniawan et al.
        section 6.1); returns the row id.

        Parameters
        ----------
        reviewer : str
            Who chose.
        item_id : str
            The item.
        labels : sequence of str
            The labels chosen (at least one).
        dataset : str, default ""
            Dataset name.

        Returns
        -------
        int
            The new row id.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add_own_labels("ann", "i1", ["pos", "neu"], dataset="toy")
        >>> store.own_labels(dataset="toy")["labels"].tolist()
        [['pos', 'neu']]
        """
        _text(reviewer, "reviewer")
        _text(item_id, "item_id")
        _text(dataset, "dataset", allow_empty=True)
        labels = [_text(label, "label") for label in labels]
        with self._write() as con:
            cursor = con.execute(
                "INSERT INTO own_labels (uuid, reviewer, item_id, labels, dataset, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (str(_uuid.uuid4()), reviewer, item_id, json.dumps(labels), dataset, _now()),
            )
            return int(cursor.lastrowid)

    # -- reads -----------------------------------------------------------------------------

    def judgements(self, *, dataset: str | None = None, reviewer: str | None = None,
                   latest_only: bool = False, include_undone: bool = False) -> pd.DataFrame:
        """One row per judgement: ``id, uuid, reviewer, item_id, model_a, model_b, choice,
        comment, dataset, created_at`` (canonical UTC ISO 8601), the audit columns
        ``recorded_at, source ('app' | 'import' | 'legacy'), imported_by, import_file`` and
        ``batch, undone_at``, in insertion order. Optional filters; ``latest_only`` keeps each
        reviewer's latest judgement per (item, model pair) (:func:`latest_judgements`).
        Judgements the reviewer undid (:meth:`undo_last`) are left out unless
        ``include_undone``.

        Parameters
        ----------
        dataset, reviewer : str, optional
            Filters.
        latest_only : bool, default False
            Keep each reviewer's latest judgement per (item, model pair).
        include_undone : bool, default False
            Include withdrawn judgements.

        Returns
        -------
        pandas.DataFrame
            One row per judgement, in insertion order.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A", dataset="toy")
        >>> _ = store.add("ann", "i1", "m2", "m1", "A", dataset="toy")
        >>> len(store.judgements()), store.judgements(latest_only=True)["model_a"].tolist()
        (2, ['m2'])
        """
        where, params = _filters(dataset=dataset, reviewer=reviewer)
        if not include_undone:
            where += (" AND " if where else " WHERE ") + "undone_at = ''"
        query = f"SELECT {', '.join(_JUDGEMENT_COLUMNS)} FROM judgements{where} ORDER BY id"
        with self._read() as con:
            rows = con.execute(query, params).fetchall()
        frame = pd.DataFrame(rows, columns=_JUDGEMENT_COLUMNS).astype({"id": "int64"})
        return latest_judgements(frame).reset_index(drop=True) if latest_only else frame

    def own_labels(self, *, dataset: str | None = None, reviewer: str | None = None
                   ) -> pd.DataFrame:
        """Recorded own labels: ``id, uuid, reviewer, item_id, labels`` (list), ``dataset,
        created_at``.

        Parameters
        ----------
        dataset, reviewer : str, optional
            Filters.

        Returns
        -------
        pandas.DataFrame
            One row per record.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add_own_labels("ann", "i1", ["pos"])
        >>> store.own_labels(reviewer="ann")[["item_id", "labels"]].to_numpy().tolist()
        [['i1', ['pos']]]
        """
        where, params = _filters(dataset=dataset, reviewer=reviewer)
        query = ("SELECT id, uuid, reviewer, item_id, labels, dataset, created_at FROM own_labels"
                 f"{where} ORDER BY id")
        with self._read() as con:
            rows = con.execute(query, params).fetchall()
        frame = pd.DataFrame(rows, columns=["id", "uuid", "reviewer", "item_id", "labels",
                                            "dataset", "created_at"])
        frame["labels"] = [json.loads(x) for x in frame["labels"]]
        return frame

    def __len__(self) -> int:
        with self._read() as con:
            return int(con.execute(
                "SELECT COUNT(*) FROM judgements WHERE undone_at = ''").fetchone()[0])

    def pair_counts(self, models: Sequence[str], *, dataset: str | None = None,
                    latest_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``(wins, comps)`` (M, M) integer arrays for ``models`` in the given order (layout of
        ``wins[i, j]`` = judgements in which column model j beat row
        model i; ``comps`` symmetric, ties included). Judgements of other models are ignored;
        by default only each reviewer's latest judgement per (item, pair) counts (upstream).

        Parameters
        ----------
        models : sequence of str
            Row / column order.
        dataset : str, optional
            Dataset filter.
        latest_only : bool, default True
            Count each reviewer's latest judgement per (item, pair) only.

        Returns
        -------
        wins, comps : numpy.ndarray
            (M, M) integer arrays, the input of :func:`hlv_core.review.rank_centrality`.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "B", dataset="toy")
        >>> wins, comps = store.pair_counts(["m1", "m2"], dataset="toy")
        >>> wins.tolist(), comps.tolist()
        ([[0, 1], [0, 0]], [[0, 1], [1, 0]])
        """
        frame = self.judgements(dataset=dataset, latest_only=latest_only)
        return counts_from_judgements(frame, models)

    # -- proposer --------------------------------------------------------------------------

    def next_pair(
        self,
        reviewer: str,
        items: Sequence[str],
        models: Sequence[str],
        *,
        entropy: Sequence[float] | None = None,
        dataset: str = "",
        seed: int | None = None,
    ) -> Proposal | None:
        """Propose the next (item, model pair) for ``reviewer`` (Kurniawan et al. section 6.1).

        1. Balance: among the model pairs for which this reviewer still has unjudged items,
           take the pair with the fewest judgements so far (all reviewers, this ``dataset``).
        2. Contested first: among that pair's items the reviewer has not judged, the highest
           ``entropy`` (human label entropy, aligned with ``items``); then the fewest
           judgements of that (item, pair); remaining ties at random.
        3. Never repeats an (item, pair) for a reviewer; left/right order is random.

        Returns None when the reviewer has judged every (item, pair). ``seed`` makes the random
        choices reproducible (None = fresh randomness).

        Parameters
        ----------
        reviewer : str
            Who reviews.
        items : sequence of str
            The cases.
        models : sequence of str
            The models.
        entropy : sequence of float, optional
            Human label entropy per item, aligned with ``items``.
        dataset : str, default ""
            Dataset name.
        seed : int, optional
            Seed of the random choices.

        Returns
        -------
        Proposal or None
            The next comparison.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A")
        >>> store.next_pair("ann", ["i1", "i2"], ["m1", "m2"], seed=0).item_id
        'i2'
        """
        import itertools

        _text(reviewer, "reviewer")
        items = [str(x) for x in items]
        models = list(dict.fromkeys(str(m) for m in models))
        if len(models) < 2 or not items:
            return None
        rng = np.random.default_rng(seed)
        ent = np.zeros(len(items)) if entropy is None else np.asarray(entropy, dtype=float)
        if ent.shape != (len(items),):
            raise ValueError(f"entropy must have one value per item ({len(items)}).")
        ent = np.nan_to_num(ent, nan=-np.inf)
        pairs = list(itertools.combinations(sorted(models), 2))
        pair_index = {p: k for k, p in enumerate(pairs)}
        item_index = pd.Index(items)
        done = self.judgements(dataset=dataset)
        n_items, n_pairs = len(items), len(pairs)
        seen = np.zeros((n_items, n_pairs), dtype=bool)  # by this reviewer
        per_cell = np.zeros((n_items, n_pairs), dtype=np.int64)  # all reviewers
        pair_total = np.zeros(n_pairs, dtype=np.int64)
        if not done.empty:
            lo = np.minimum(done["model_a"].to_numpy(dtype=object),
                            done["model_b"].to_numpy(dtype=object))
            hi = np.maximum(done["model_a"].to_numpy(dtype=object),
                            done["model_b"].to_numpy(dtype=object))
            p = np.array([pair_index.get((a, b), -1) for a, b in zip(lo, hi, strict=True)],
                         dtype=np.int64)
            it = item_index.get_indexer(done["item_id"])
            ok = p >= 0
            np.add.at(pair_total, p[ok], 1)
            ok_cell = ok & (it >= 0)
            np.add.at(per_cell, (it[ok_cell], p[ok_cell]), 1)
            mine = ok_cell & (done["reviewer"].to_numpy(dtype=object) == reviewer)
            seen[it[mine], p[mine]] = True
        open_per_pair = (~seen).sum(axis=0)
        remaining = int(open_per_pair.sum())
        if remaining == 0:
            return None
        candidates = np.flatnonzero(open_per_pair > 0)
        fewest = pair_total[candidates].min()
        candidates = candidates[pair_total[candidates] == fewest]
        k = int(rng.choice(candidates))
        free = np.flatnonzero(~seen[:, k])
        # lexsort: last key is primary -> entropy desc, then fewer judgements, then random.
        order = np.lexsort((rng.random(free.size), per_cell[free, k], -ent[free]))
        item = items[int(free[order[0]])]
        a, b = pairs[k]
        if rng.random() < 0.5:
            a, b = b, a
        return Proposal(item, a, b, int(pair_total[k]), remaining)

    # -- CSV -------------------------------------------------------------------------------

    def export_frame(self, *, dataset: str | None = None, reviewer: str | None = None
                     ) -> pd.DataFrame:
        """The judgements (optionally of one dataset / reviewer) in the export layout
        (:data:`EXPORT_COLUMNS`; undone judgements left out), text verbatim: whoever writes it
        to a file neutralises formulas (:meth:`export_csv`, ``hlv_ui.widgets.download_table``).

        Parameters
        ----------
        dataset, reviewer : str, optional
            Filters.

        Returns
        -------
        pandas.DataFrame
            Columns :data:`EXPORT_COLUMNS`.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A", comment="=1+1")
        >>> store.export_frame()["comment"].tolist()  # verbatim; export_csv neutralises
        ['=1+1']
        """
        return self.judgements(dataset=dataset, reviewer=reviewer)[EXPORT_COLUMNS]

    def export_csv(self, path: str | os.PathLike, *, dataset: str | None = None,
                   reviewer: str | None = None) -> int:
        """Write the judgements (all by default; or one dataset / reviewer) as UTF-8 CSV with
        formula-like cells neutralised (:meth:`export_frame`); returns the count. The file is
        created owner-only (0600) when new.

        Parameters
        ----------
        path : str or os.PathLike
            Target file.
        dataset, reviewer : str, optional
            Filters.

        Returns
        -------
        int
            Judgements written.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A", comment="=1+1", dataset="toy")
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "judgements.csv"
        >>> store.export_csv(path, dataset="toy"), "'=1+1" in path.read_text()
        (1, True)
        """
        frame = neutralise_frame(self.export_frame(dataset=dataset, reviewer=reviewer))
        target = Path(path)
        with self._errors():
            if not target.exists():
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
            frame.to_csv(target, index=False, quoting=csv.QUOTE_NONNUMERIC)
        return len(frame)

    def import_csv(self, path: str | os.PathLike, *, imported_by: str = "",
                   source_name: str | None = None) -> int:
        """Add the judgements of a CSV (columns ``reviewer, item_id, model_a, model_b, choice``;
        optional ``comment, dataset, created_at, uuid``) in one transaction; returns the number
        of NEW rows. Cells neutralised by an export are restored exactly. Rows whose uuid is
        already stored are skipped; rows without a uuid get a deterministic one (uuid5 of their
        content), so importing the same file twice adds nothing.

        Audit: every new row records ``source='import'``, ``imported_by`` (who ran the import),
        ``import_file`` (``source_name`` or the file name) and ``recorded_at`` (now). Its
        ``created_at`` must carry a UTC offset (stored as the same instant in UTC); a missing
        one means "now". For picking a reviewer's latest judgement an imported row never
        counts as later than its import (:func:`latest_judgements`). Raises
        :class:`~hlv_core.io.DataError` naming the row for bad input (nothing is written).

        Parameters
        ----------
        path : str or os.PathLike
            The CSV.
        imported_by : str, default ""
            Who ran the import.
        source_name : str, optional
            File name recorded (default the path's name).

        Returns
        -------
        int
            New rows added.

        Examples
        --------
        Importing an export twice adds its rows once, audited as an import:

        >>> import pathlib, tempfile
        >>> store = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "reviews.sqlite3")
        >>> _ = store.add("ann", "i1", "m1", "m2", "A", comment="=1+1", dataset="toy")
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "judgements.csv"
        >>> _ = store.export_csv(path)
        >>> other = ReviewStore(pathlib.Path(tempfile.mkdtemp()) / "other.sqlite3")
        >>> other.import_csv(path, imported_by="admin"), other.import_csv(path, imported_by="admin")
        (1, 0)
        >>> other.judgements()[["source", "imported_by", "comment"]].to_numpy().tolist()
        [['import', 'admin', '=1+1']]
        """
        source = source_name or str(path)
        # the one bounded reader: size limit, no decompression of .zip / .gz, UTF-8, one
        # spelling per id (look-alike item ids and model names are one value; reviewer
        # names and comments stay exactly as exported)
        frame = load_table(path, name=source).fillna("")
        for column in ("item_id", "model_a", "model_b", "dataset"):  # names as the dataset's
            if column in frame.columns:
                changes = spelling_changes(pd.Index(frame[column].unique(), dtype=str))
                if changes:
                    frame[column] = frame[column].map(lambda v, c=changes: c.get(v, v))
        frame = restore_frame(frame)
        required = ["reviewer", "item_id", "model_a", "model_b", "choice"]
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise DataError(f"missing column(s) {missing}.", source=source,
                            fix=f"the header must include {required}.")
        for column in ("comment", "dataset", "created_at", "uuid"):
            if column not in frame.columns:
                frame[column] = ""
        _text(imported_by, "imported_by", allow_empty=True)
        file_name = Path(source).name
        now = _now()
        records = []
        for position, row in enumerate(frame.itertuples(index=False), start=2):
            try:
                values = self._validate(row.reviewer, row.item_id, row.model_a, row.model_b,
                                        row.choice, row.comment, row.dataset)
            except ValueError as exc:
                raise DataError(str(exc), source=source, row=position,
                                fix=f"choice must be one of {list(CHOICES)}; names must not "
                                    "be empty.") from None
            created = now
            if row.created_at:
                try:
                    created = to_instant(row.created_at)
                except ValueError:
                    raise DataError(
                        f"created_at {row.created_at!r} is not an ISO 8601 timestamp with a "
                        "UTC offset.", source=source, row=position, column="created_at",
                        fix="use e.g. 2025-01-31T12:00:00+00:00.") from None
            key = row.uuid or str(_uuid.uuid5(_uuid.NAMESPACE_URL, json.dumps(
                [*values, row.created_at])))
            records.append((key, *values, created, now, "import", imported_by, file_name, ""))
        with self._write() as con:
            before = con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]
            con.executemany(self._INSERT.replace("INSERT", "INSERT OR IGNORE", 1), records)
            after = con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]
        return int(after - before)
