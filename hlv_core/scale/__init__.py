"""The same analyses past one machine, on Dask (``dask.dataframe`` + ``dask.distributed``).

The one package of ``hlv_core`` that imports Dask (besides the command line's ``--dask``
option). Functions take a path (a folder of Parquet files, a glob of canonical CSVs) or a
``dask.dataframe.DataFrame`` and return the in-memory engine's result objects:

* :func:`load` -> :class:`ReducedDataset` (global dictionaries, the loader's rules and import
  report, the sparse item x label counts; ``docs/scaling.md``); every function below takes a
  :class:`ReducedDataset`, a path or a ``dask.dataframe.DataFrame`` (loaded first);
* :func:`summary` -> the dict of :meth:`hlv_core.io.Dataset.summary`;
* :func:`fingerprint` -> a cheap content fingerprint of the files (names, sizes, modification
  times; the dashboard keys a large dataset's results on it);
* :func:`alpha_report` -> :class:`hlv_core.agreement.AlphaResult`; :func:`agreement_result`
  -> the JSON of ``python -m hlv_core agreement``; :func:`kappa_summary`.

Computations run on the current Dask scheduler: open one with :func:`dask_client`
(``"local"`` or ``"tcp://HOST:PORT"``).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from . import analyses as _analyses
from .cluster import LOCAL_WORKERS, ClusterError, dask_client, on_cluster
from .partial import reduce_dataset
from .reading import COLUMNS, fingerprint, list_files, read_annotations, read_file
from .reduce import PAIR_STATS_MAX_ANNOTATORS, ReducedDataset

__all__ = [
    "COLUMNS",
    "ClusterError",
    "LOCAL_WORKERS",
    "PAIR_STATS_MAX_ANNOTATORS",
    "ReducedDataset",
    "agreement_result",
    "alpha_report",
    "dask_client",
    "fingerprint",
    "fleiss_kappa",
    "kappa_summary",
    "list_files",
    "load",
    "read_annotations",
    "read_file",
    "summary",
]


@on_cluster
def load(path_or_frame, *, name: str | None = None, keep_rows: bool = False) -> ReducedDataset:
    """Load a folder of Parquet files, a glob of canonical CSVs, one file, or a
    ``dask.dataframe.DataFrame`` (columns ``item_id, annotator_id, label``) on the current Dask
    scheduler, with the in-memory loader's rules; see :func:`partial.reduce_dataset`.

    Raises :class:`~hlv_core.io.DataError` (file and row) for bad input and
    :class:`ClusterError` when the cluster fails (no partial result). ``keep_rows``: keep the
    coded rows in the cluster's memory for :mod:`hlv_core.scale.pairs` (pairwise alpha, sigma,
    sigma_rnd).

    Parameters
    ----------
    path_or_frame : str, pathlib.Path or dask.dataframe.DataFrame
        A folder of Parquet files, a glob of canonical CSVs, one file, or a frame with columns
        ``item_id, annotator_id, label``.
    name : str, optional
        Dataset name (default: the file stem or folder name).
    keep_rows : bool, default False
        Keep the coded rows on the cluster for the pairwise analyses.

    Returns
    -------
    ReducedDataset
        Global dictionaries, sparse item x label counts and the import report.

    Raises
    ------
    DataError
        Bad input (file and row named).
    ClusterError
        The cluster failed (no partial result).

    References
    ----------
    .. [1] Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV)
       Files", RFC 4180, IETF.
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3 (the judgement matrix P and the prediction matrix Q).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    >>> data.labels, data.n_items  # doctest: +SKIP
    (('neg', 'pos'), 3)
    """
    if isinstance(path_or_frame, str | Path):
        frame, files = read_annotations(path_or_frame)
        text = str(path_or_frame).rstrip("/")
        default = PurePosixPath(text).stem if len(files) == 1 else PurePosixPath(text).name
        source = files[0] if len(files) == 1 else text
    else:
        frame, files, default, source = path_or_frame, None, "dask dataframe", None
    return reduce_dataset(frame, files, name=name or default, source=source,
                          keep_rows=keep_rows)


def _reduced(data) -> ReducedDataset:
    return data if isinstance(data, ReducedDataset) else load(data)


@on_cluster
def summary(data) -> dict:
    """:meth:`hlv_core.io.Dataset.summary` on Dask (``analyses.summary``).

    Parameters
    ----------
    data : ReducedDataset, str, pathlib.Path or dask.dataframe.DataFrame
        The reduced data, or a path / frame loaded first with :func:`load`.

    Returns
    -------
    dict
        The keys of :meth:`hlv_core.io.Dataset.summary`.

    Raises
    ------
    ClusterError
        The cluster failed.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3.1 (normalised entropy).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     facts = scale.summary(data)
    >>> facts["n_items"], facts["labels"]  # doctest: +SKIP
    (3, ['neg', 'pos'])
    """
    return _analyses.summary(_reduced(data))


@on_cluster
def alpha_report(data, *, level: str | None = None, n_boot: int = 1000, seed: int = 0,
                 ci: float = 0.95):
    """:func:`hlv_core.agreement.alpha_report` on Dask (``analyses.alpha_report``): alpha,
    bootstrap CI (item rows resampled), counts and explanation.

    Krippendorff's alpha from the reduced counts, ``alpha = 1 - D_o / D_e`` (coincidences of the
    item x label counts), with a percentile bootstrap over items.

    Parameters
    ----------
    data : ReducedDataset, str, pathlib.Path or dask.dataframe.DataFrame
        The reduced data, or a path / frame loaded first with :func:`load`.
    level : str, optional
        Level of measurement (default: the dataset's).
    n_boot : int, default 1000
        Bootstrap replicates.
    seed : int, default 0
        Seed of the bootstrap.
    ci : float, default 0.95
        Confidence level.

    Returns
    -------
    hlv_core.agreement.AlphaResult
        Alpha, CI, counts and explanation.

    Raises
    ------
    ClusterError
        The cluster failed.

    References
    ----------
    .. [1] K. Krippendorff (2011), "Computing Krippendorff's alpha-reliability".

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     result = scale.alpha_report(data, n_boot=200)
    >>> round(result.alpha, 4)  # doctest: +SKIP
    0.4444
    """
    return _analyses.alpha_report(_reduced(data), level=level, n_boot=n_boot, seed=seed, ci=ci)


@on_cluster
def agreement_result(data, *, level: str | None = None, n_boot: int = 1000,
                     seed: int = 0) -> dict:
    """The JSON of ``python -m hlv_core agreement`` on Dask (``analyses.agreement_result``).

    Parameters
    ----------
    data : ReducedDataset, str, pathlib.Path or dask.dataframe.DataFrame
        The reduced data, or a path / frame loaded first with :func:`load`.
    level : str, optional
        Level of measurement.
    n_boot : int, default 1000
        Bootstrap replicates.
    seed : int, default 0
        Seed of the bootstrap.

    Returns
    -------
    dict
        ``alpha, level, ci_low, ci_high, n_boot, ...`` and ``<name>_kappa``.

    Raises
    ------
    ClusterError
        The cluster failed.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School
       for Communication, University of Pennsylvania.

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     result = scale.agreement_result(data, n_boot=200)
    >>> sorted(result)[:3]  # doctest: +SKIP
    ['alpha', 'ci_high', 'ci_low']
    """
    return _analyses.agreement_result(_reduced(data), level=level, n_boot=n_boot, seed=seed)


@on_cluster
def kappa_summary(data) -> dict[str, float]:
    """:func:`hlv_core.agreement.kappa_summary` on Dask (``analyses.kappa_summary``).

    Parameters
    ----------
    data : ReducedDataset, str, pathlib.Path or dask.dataframe.DataFrame
        The reduced data, or a path / frame loaded first with :func:`load`.

    Returns
    -------
    dict of str to float
        ``fleiss`` always, ``cohen`` for two annotators, ``light`` for 3 to 60.

    Raises
    ------
    ClusterError
        The cluster failed.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     kappas = scale.kappa_summary(data)
    >>> sorted(kappas)  # doctest: +SKIP
    ['cohen', 'fleiss']
    """
    return _analyses.kappa_summary(_reduced(data))


@on_cluster
def fleiss_kappa(data) -> float:
    """:func:`hlv_core.agreement.fleiss_kappa` on Dask (``analyses.fleiss_kappa``).

    Parameters
    ----------
    data : ReducedDataset, str, pathlib.Path or dask.dataframe.DataFrame
        The reduced data, or a path / frame loaded first with :func:`load`.

    Returns
    -------
    float
        Fleiss' kappa.

    Raises
    ------
    ClusterError
        The cluster failed.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     kappa = scale.fleiss_kappa(data)
    >>> round(kappa, 4)  # doctest: +SKIP
    0.3333
    """
    return _analyses.fleiss_kappa(_reduced(data))
