"""One-coin and full Dawid-Skene on Dask: every EM step a map-reduce over the partitions.

The model and its steps are those of :mod:`hlv_core.competence` (Dawid & Skene 1979, section 2;
the one-coin model with one skill per annotator), whose per-step functions are written for
callers that hold the rows in partitions: ``_pair_matrix`` (a partition's items x
(annotator, label) counts R_b), ``_sufficient_stats`` (expected counts and class mass: they add
over partitions), ``_ds_m_step`` / ``_one_coin_m_step`` (parameters from the summed statistics)
and ``_e_step`` (a partition's posteriors and log-likelihood: it adds over partitions).

The rows stay in the cluster (:func:`hlv_core.scale.load` with ``keep_rows=True``, partitions
holding whole items). One iteration of the fixed-point rule of the in-memory fit:

1. map: ``(counts_b, mass_b) = _sufficient_stats(R_b, T_b)``; reduce: sum (a tree of tasks);
2. client: the M-step on the sums (small: annotators x labels x labels);
3. map: ``(T_b', loglik_b) = _e_step(R_b, priors, pi)`` and ``max |T_b' - T_b|``; reduce:
   sum of the log-likelihoods, max of the changes;

stopping when the largest change of any posterior and of any confusion entry is below
``tol``, as in memory. The posteriors T_b stay on the workers between iterations (futures).
The iterations are driven by the in-memory fit's ``_em_fixed_point`` (plain or SQUAREM): it
extrapolates only the small parameters (priors, confusions or skills) on the client, so the
accelerated fit also equals the in-memory one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .cluster import on_cluster
from .reduce import ReducedDataset

__all__ = ["dawid_skene", "one_coin_dawid_skene"]


def _steps():
    from .. import competence  # the in-memory engine's documented per-step functions

    return competence


def _partition(frame: pd.DataFrame, annotator_ids: pd.Index, label_order: np.ndarray,
               n_labels: int):
    """(item ids sorted, R_b, its column sums (rows per annotator and label), T_b soft majority)
    of one partition; labels recoded from inventory positions to the sorted label order of the
    in-memory fit."""
    steps = _steps()
    items, item = np.unique(frame["item_id"].to_numpy(dtype=object).astype(str),
                            return_inverse=True)
    annotator = frame["annotator"].to_numpy().astype(np.int64)
    label = label_order[frame["label"].to_numpy().astype(np.int64)]
    R = steps._pair_matrix(item, annotator, label, len(items), len(annotator_ids), n_labels)
    column_sums = np.asarray(R.sum(axis=0)).ravel()
    counts = np.bincount(item * n_labels + label, minlength=len(items) * n_labels)
    counts = counts.reshape(-1, n_labels).astype(float)
    T = counts / counts.sum(axis=1, keepdims=True)
    return items, R, column_sums, T


def _stats(part, T):
    return _steps()._sufficient_stats(part[1], T)


def _add_stats(a, b):
    return a[0] + b[0], a[1] + b[1]


def _e(part, priors, pi, T_old):
    T, loglik = _steps()._e_step(part[1], priors, pi)
    change = np.inf  # an extrapolated point (SQUAREM): no previous posteriors to compare
    if T_old is not None:
        change = float(np.max(np.abs(T - T_old), initial=0.0))
    return T, loglik, change


def _fit(data: ReducedDataset, model: str, *, max_iter: int, tol: float, accelerate: bool):
    from distributed import get_client

    client = get_client()
    steps = _steps()
    rows = data.extra.get("rows")
    if rows is None:
        raise ValueError("Dawid-Skene on Dask needs the rows: load with keep_rows=True")
    if max_iter < 1:
        raise ValueError("max_iter must be at least 1")
    labels = sorted(data.labels)  # the in-memory fit's label order (sorted strings)
    position = {lab: i for i, lab in enumerate(labels)}
    label_order = np.array([position[x] for x in data.labels], dtype=np.int64)
    k = len(labels)
    parts = client.compute(rows.to_delayed())
    parts = [client.submit(_partition, p, data.annotator_ids, label_order, k, pure=False)
             for p in parts]
    Ts = [client.submit(lambda part: part[3], p) for p in parts]
    column_sums = sum(client.gather([client.submit(lambda part: part[2], p) for p in parts]))
    used = column_sums.reshape(-1, k) > 0
    n_rows = column_sums.reshape(-1, k).sum(axis=1).astype(np.int64)
    n_items = data.n_items

    def m_step(Ts):
        stats = [client.submit(_stats, p, t) for p, t in zip(parts, Ts, strict=True)]
        while len(stats) > 1:
            stats = [client.submit(_add_stats, stats[i], stats[i + 1])
                     if i + 1 < len(stats) else stats[i] for i in range(0, len(stats), 2)]
        counts, mass = stats[0].result()
        if model == "ds":
            priors, pi = steps._ds_m_step(counts, used, mass, n_items)
            return priors, pi, None
        return steps._one_coin_m_step(counts, mass, n_items)

    def e_step(priors, pi, Ts_before):
        before = [None] * len(parts) if Ts_before is None else Ts_before
        outs = [client.submit(_e, p, priors, pi, t) for p, t in zip(parts, before, strict=True)]
        small = client.gather([client.submit(lambda o: (o[1], o[2]), o) for o in outs])
        Ts_new = [client.submit(lambda o: o[0], o) for o in outs]
        change = max((x for _, x in small), default=0.0) if Ts_before is not None else np.inf
        return Ts_new, sum(x for x, _ in small), change

    pack, unpack = steps._squarem_maps(model, k)
    Ts, priors, pi, skill, n_iter, converged, history = steps._em_fixed_point(
        m_step, e_step, Ts, max_iter=max_iter, tol=tol, accelerate=accelerate, pack=pack,
        unpack=unpack)
    if not converged:
        warnings.warn(f"{model} EM did not converge in {max_iter} iterations (tol {tol:g})",
                      RuntimeWarning, stacklevel=3)
    item_ids = client.gather([client.submit(lambda part: part[0], p) for p in parts])
    T = np.concatenate(client.gather(Ts)) if Ts else np.zeros((0, k))
    items = np.concatenate(item_ids) if item_ids else np.zeros(0, dtype=str)
    order = np.argsort(items, kind="stable")
    return (items[order], labels, T[order], priors, pi, skill, n_iter, converged,
            np.asarray(history), n_rows)


def _result(data: ReducedDataset, model: str, fitted):
    items, labels, T, priors, pi, skill, n_iter, converged, history, rows = fitted
    steps = _steps()
    labs = list(labels)
    index = pd.Index(items, name="item_id", dtype=object)
    anns = pd.Index(np.asarray(data.annotator_ids, dtype=object), name="annotator_id",
                    dtype=object)
    label_index = pd.Index(labs, name="label", dtype=object)
    post = pd.DataFrame(T, index=index, columns=label_index)
    hard = pd.Series(np.asarray(labs, dtype=object)[np.argmax(T, axis=1)], index=index,
                     name="label")
    n_rows = pd.Series(rows, index=anns, name="n_rows")
    confusion = {a: pd.DataFrame(pi[j], index=pd.Index(labs, name="true", dtype=object),
                                 columns=pd.Index(labs, name="observed", dtype=object))
                 for j, a in enumerate(anns)}
    result = steps.CompetenceResult(
        model=model, posteriors=post, labels=hard,
        priors=pd.Series(priors, index=label_index, name="prior"), n_rows=n_rows,
        n_iter=int(n_iter), converged=bool(converged),
        loglik=float(history[-1]) if len(history) else float("nan"),
        loglik_history=history, confusion=confusion, confusion_array=pi,
        label_order=tuple(labs),
    )
    if model == "ds":
        result.accuracy = pd.Series(np.einsum("k,akk->a", priors, pi), index=anns,
                                    name="accuracy")
    else:
        result.skill = pd.Series(skill, index=anns, name="skill")
    return result


@on_cluster
def dawid_skene(data: ReducedDataset, *, max_iter: int = 10_000, tol: float = 1e-10,
                accelerate: bool = True):
    """:func:`hlv_core.competence.dawid_skene` (full confusion matrices, fixed-point stopping)
    on Dask; returns its :class:`~hlv_core.competence.CompetenceResult`.

    The EM steps run on the partitions' sufficient statistics (summed over partitions before
    each M-step), so the result equals the in-memory fit (Dawid & Skene 1979).

    Parameters
    ----------
    data : ReducedDataset
        Loaded with ``keep_rows=True``.
    max_iter : int, default 10000
        Most EM iterations.
    tol : float, default 1e-10
        Fixed-point tolerance.
    accelerate : bool, default True
        SQUAREM (Varadhan and Roland 2008) as in memory: each extrapolation a few small
        arrays on the client, the EM steps on the partitions; False: plain EM.

    Returns
    -------
    hlv_core.competence.CompetenceResult
        Posteriors, confusion matrices, accuracy.

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", JRSS C 28(1).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     result = dawid_skene(data)
    """
    return _result(data, "ds", _fit(data, "ds", max_iter=max_iter, tol=tol,
                        accelerate=accelerate))


@on_cluster
def one_coin_dawid_skene(data: ReducedDataset, *, max_iter: int = 10_000, tol: float = 1e-10,
                         accelerate: bool = True):
    """:func:`hlv_core.competence.one_coin_dawid_skene` on Dask (one skill per annotator).

    Parameters
    ----------
    data : ReducedDataset
        Loaded with ``keep_rows=True``.
    max_iter : int, default 10000
        Most EM iterations.
    tol : float, default 1e-10
        Fixed-point tolerance.
    accelerate : bool, default True
        SQUAREM (Varadhan and Roland 2008) as in memory: each extrapolation a few small
        arrays on the client, the EM steps on the partitions; False: plain EM.

    Returns
    -------
    hlv_core.competence.CompetenceResult
        Posteriors and ``skill`` per annotator.

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", JRSS C 28(1).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv", keep_rows=True)
    ...     skill = one_coin_dawid_skene(data).skill
    """
    return _result(data, "one-coin", _fit(data, "one-coin", max_iter=max_iter, tol=tol,
                              accelerate=accelerate))
