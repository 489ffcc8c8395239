"""Connecting to Dask: a local cluster or an existing scheduler, and the one error a lost
worker becomes.

``"local"`` starts a ``distributed.LocalCluster`` on this machine (worker processes, one thread
each); ``"tcp://HOST:PORT"`` connects to a running scheduler (``dask scheduler`` and
``dask worker tcp://HOST:PORT`` on the machines, ``docs/scaling.md``). Dask retries a task whose
worker died on another worker; when that is impossible (too many deaths, a broken shuffle) the
computation fails as a whole and :class:`ClusterError` says so: no partial number is returned.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator

__all__ = ["ClusterError", "LOCAL_WORKERS", "cluster_failure", "dask_client", "on_cluster"]

#: Workers of ``--dask local`` (one thread each; this machine's cores by default).
LOCAL_WORKERS = 2


class ClusterError(OSError):
    """The cluster could not finish a computation (a worker died and the work could not be
    retried, the scheduler is unreachable). No result is returned. An ``OSError``, so the command
    line prints it as one line and exits 2.

    Examples
    --------
    >>> issubclass(ClusterError, OSError)
    True
    """


@contextlib.contextmanager
def dask_client(address: str = "local", *, n_workers: int | None = None,
                memory_limit: str | None = None) -> Iterator:
    """A ``distributed.Client`` for ``address`` (``"local"`` or ``"tcp://HOST:PORT"``), closed
    (with its local cluster) on exit. Failures of the cluster inside the block become
    :class:`ClusterError`.

    Parameters
    ----------
    address : str, default "local"
        ``"local"`` (a ``LocalCluster`` of :data:`LOCAL_WORKERS` single-thread worker processes)
        or ``"tcp://HOST:PORT"``.
    n_workers : int, optional
        Local workers.
    memory_limit : str, optional
        Memory per local worker (``"auto"``).

    Yields
    ------
    distributed.Client
        The client, current inside the block.

    Raises
    ------
    ClusterError
        The scheduler cannot be reached.

    Examples
    --------
    >>> from hlv_core import scale
    >>> with dask_client("local", n_workers=2) as client:  # doctest: +SKIP
    ...     facts = scale.summary("annotations.csv")
    """
    from distributed import Client, LocalCluster

    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(
                n_workers=n_workers or LOCAL_WORKERS, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.ERROR,
                memory_limit=memory_limit or "auto",
            )
            client = Client(cluster)
        else:
            client = Client(address, timeout="20s")
    except OSError as error:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cannot reach the Dask scheduler at {address!r} ({error}); start "
                           "it with 'dask scheduler' and workers with 'dask worker "
                           f"{address}'.") from None
    try:
        with client.as_current():
            yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def cluster_failure(error: BaseException) -> ClusterError | None:
    """:class:`ClusterError` for an exception raised by a lost worker or a failed shuffle, else
    None (a data error or a bug: re-raised as it is).

    Parameters
    ----------
    error : BaseException
        An exception raised by a Dask computation.

    Returns
    -------
    ClusterError or None
        The one error a lost worker or failed shuffle becomes; None for anything else.

    Examples
    --------
    >>> cluster_failure(ValueError("bad label")) is None
    True
    >>> class CommClosedError(OSError):  # what a lost worker's connection raises
    ...     pass
    >>> isinstance(cluster_failure(CommClosedError("stream closed")), ClusterError)
    True
    """
    from distributed import KilledWorker

    chain = [error, *_chain(error)]
    names = {type(e).__name__ for e in chain}
    try:
        text = str(error)
    except Exception:  # an exception whose message cannot be built
        text = ""
    lost = isinstance(error, KilledWorker) or bool(names & {
        "KilledWorker", "CommClosedError", "FutureCancelledError", "CancelledError",
        "ShuffleClosedError", "P2PConsistencyError"})
    lost = lost or "P2P" in text or ("shuffl" in text.lower() and "fail" in text.lower())
    if lost:
        return ClusterError(
            f"the Dask computation failed because a worker was lost ({type(error).__name__}: "
            f"{text.splitlines()[0] if text else ''}); no result was produced. Rerun it, with "
            "more memory per worker if workers were killed for memory.")
    return None


def _chain(error: BaseException):
    seen = error.__cause__ or error.__context__
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__


def on_cluster(fn: Callable) -> Callable:
    """Decorator: a lost worker or failed shuffle inside ``fn`` becomes :class:`ClusterError`
    (no partial result); data errors and bugs pass unchanged.

    Parameters
    ----------
    fn : callable
        A function that computes on the current Dask scheduler.

    Returns
    -------
    callable
        The wrapped function.

    Examples
    --------
    >>> class CommClosedError(OSError):  # what a lost worker's connection raises
    ...     pass
    >>> @on_cluster
    ... def count():
    ...     raise CommClosedError("stream closed")
    >>> try:
    ...     count()
    ... except ClusterError as error:
    ...     print(str(error)[:48])
    the Dask computation failed because a worker was
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ClusterError:
            raise
        except Exception as error:
            failure = cluster_failure(error)
            if failure is not None:
                raise failure from None
            raise

    return wrapper
