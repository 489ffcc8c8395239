"""SQLite helpers shared by the stores (reviews, verdicts): one connection per thread and process,
and the write transaction every store uses (``BEGIN IMMEDIATE``, rolled back on any error)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["close_thread_connection", "write_transaction"]


def close_thread_connection(local: threading.local) -> None:
    """Close the connection this thread opened in this process (others close when their threads
    end); a connection inherited through ``fork`` is left to its owner."""
    con = getattr(local, "con", None)
    if con is not None and getattr(local, "pid", None) == os.getpid():
        con.close()
    local.con = None


@contextmanager
def write_transaction(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` (the write lock at once, so concurrent writers queue on the busy
    timeout), ``COMMIT`` on success, ``ROLLBACK`` on any error (the error is re-raised)."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
        raise
