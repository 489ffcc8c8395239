"""The same analyses past one machine, on Dask (``dask.dataframe`` + ``dask.distributed``).

The one package of ``hlv_core`` that imports Dask (besides the command line's ``--dask``
option). Functions take a path (a folder of Parquet files, a glob of canonical CSVs) or a
``dask.dataframe.DataFrame`` and return the in-memory engine's result objects:

* :func:`load` -> :class:`ReducedDataset` (global dictionaries, the loader's rules and import
  report, the sparse item x label counts; ``docs/scaling.md``);
* :func:`summary` -> the dict of :meth:`hlv_core.io.Dataset.summary`;
* :func:`alpha_report` -> :class:`hlv_core.agreement.AlphaResult`; :func:`agreement_result`
  -> the JSON of ``python -m hlv_core agreement``; :func:`kappa_summary`.

Computations run on the current Dask scheduler: open one with :func:`dask_client`
(``"local"`` or ``"tcp://HOST:PORT"``).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from .analyses import agreement_result, alpha_report, fleiss_kappa, kappa_summary, summary
from .cluster import LOCAL_WORKERS, ClusterError, cluster_failure, dask_client
from .reading import COLUMNS, list_files, read_annotations, read_file
from .reduce import PAIR_STATS_MAX_ANNOTATORS, ReducedDataset, reduce_dataset

__all__ = [
    "COLUMNS",
    "ClusterError",
    "LOCAL_WORKERS",
    "PAIR_STATS_MAX_ANNOTATORS",
    "ReducedDataset",
    "agreement_result",
    "alpha_report",
    "dask_client",
    "fleiss_kappa",
    "kappa_summary",
    "list_files",
    "load",
    "read_annotations",
    "read_file",
    "summary",
]


def load(path_or_frame, *, name: str | None = None, keep_rows: bool = False) -> ReducedDataset:
    """Load a folder of Parquet files, a glob of canonical CSVs, one file, or a
    ``dask.dataframe.DataFrame`` (columns ``item_id, annotator_id, label``) on the current Dask
    scheduler, with the in-memory loader's rules; see :func:`reduce.reduce_dataset`.

    Raises :class:`~hlv_core.io.DataError` (file and row) for bad input and
    :class:`ClusterError` when the cluster fails (no partial result). ``keep_rows``: keep the
    coded rows in the cluster's memory for :mod:`hlv_core.scale.pairs` (pairwise alpha, sigma,
    sigma_rnd)."""
    if isinstance(path_or_frame, str | Path):
        frame, files = read_annotations(path_or_frame)
        text = str(path_or_frame).rstrip("/")
        default = PurePosixPath(text).stem if len(files) == 1 else PurePosixPath(text).name
        source = files[0] if len(files) == 1 else text
    else:
        frame, files, default, source = path_or_frame, None, "dask dataframe", None
    try:
        return reduce_dataset(frame, files, name=name or default, source=source,
                              keep_rows=keep_rows)
    except Exception as error:
        failure = cluster_failure(error)
        if failure is not None:
            raise failure from None
        raise
