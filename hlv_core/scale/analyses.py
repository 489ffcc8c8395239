"""Summary, Krippendorff's alpha with its bootstrap CI and the kappas, on a
:class:`~hlv_core.scale.reduce.ReducedDataset` (the reduced item x label count matrix and the
kappas' pair tables): the same result objects and keys as the in-memory engine.

Alpha and its bootstrap are the in-memory functions (:func:`hlv_core.agreement.alpha_from_counts`,
:func:`hlv_core.agreement.bootstrap_alpha_from_counts`) on the reduced counts with the columns in
the in-memory order, so the value and, for the same seed, the replicates are the in-memory ones.
Bootstrap scheme (Krippendorff 2011; as in memory): resample the pairable items (rows of the
count matrix) with replacement, ``n_boot`` times; percentile CI.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..agreement import AlphaResult, alpha_from_counts, bootstrap_alpha_from_counts, explain_alpha
from ..io import LEVELS, DataError
from .reduce import ReducedDataset

__all__ = ["alpha_report", "agreement_result", "fleiss_kappa", "kappa_summary", "summary"]


def _entropy(counts, per_item: np.ndarray, n_labels: int) -> np.ndarray:
    """Per-item normalised entropy ``-sum_k P_ik ln P_ik / ln K`` with ``P = C / n_i``, over
    the stored (non-zero) counts only: no dense items x labels copy (each row's terms are added
    in column order, as a dense row sum adds them; the zero terms add nothing)."""
    counts = counts.tocsr()
    n_rows = counts.shape[0]
    total = np.zeros(n_rows)
    for lo in range(0, n_rows, 1 << 20):  # blocks of rows: small temporaries
        hi = min(lo + (1 << 20), n_rows)
        a, b = counts.indptr[lo], counts.indptr[hi]
        rows = np.repeat(np.arange(hi - lo), np.diff(counts.indptr[lo:hi + 1]))
        with np.errstate(divide="ignore", invalid="ignore"):
            p = counts.data[a:b].astype(float) / per_item[lo:hi].astype(float)[rows]
            terms = np.where(p > 0, p * np.log(p), 0.0)
        total[lo:hi] = np.bincount(rows, weights=terms, minlength=hi - lo)
    k = max(n_labels, 2)
    return -total / np.log(k)


def summary(data: ReducedDataset) -> dict:
    """The keys of :meth:`hlv_core.io.Dataset.summary`, from the reduced data (the content hash
    streams the row hashes from the partitions: call it with the cluster still open).

    Parameters
    ----------
    data : ReducedDataset
        The reduced data (:func:`hlv_core.scale.load`).

    Returns
    -------
    dict
        The keys of :meth:`hlv_core.io.Dataset.summary`.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3.1 (normalised entropy).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     facts = summary(data)
    >>> facts["n_items"], facts["labels"]  # doctest: +SKIP
    (3, ['neg', 'pos'])
    """
    per_item = data.n_annotators_per_item
    label_totals = np.asarray(data.counts.sum(axis=0)).ravel()
    entropy = _entropy(data.counts, per_item, data.n_labels)
    return {
        "name": data.name,
        "task": data.task,
        "level": data.level,
        "n_items": data.n_items,
        "n_annotators": data.n_annotators,
        "annotator_ids_known": True,
        "n_annotations": data.n_annotations,
        "n_labels": data.n_labels,
        "labels": list(data.labels),
        "annotators_per_item": {
            "min": int(per_item.min()) if per_item.size else 0,
            "median": float(np.median(per_item)) if per_item.size else 0.0,
            "max": int(per_item.max()) if per_item.size else 0,
        },
        "label_counts": {lab: int(c) for lab, c in zip(data.labels, label_totals, strict=True)},
        "mean_entropy": float(np.nanmean(entropy)) if data.n_items else float("nan"),
        "has_text": False,
        "has_predictions": False,
        "content_hash": data.content_hash(),
    }


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if np.isfinite(value) else None


def _columns(data: ReducedDataset, level: str) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Column order, domain and numbers of the in-memory alpha input: labels sorted as strings
    (nominal) or by their number (other levels: the label as a number, else its inventory
    position for ordinal; interval/ratio need numbers, as
    :meth:`hlv_core.io.Dataset.numeric_label_map`)."""
    labels = list(data.labels)
    if level == "nominal":
        order = np.argsort(np.asarray(labels, dtype=object), kind="stable")
        return order, [labels[i] for i in order], np.arange(len(labels), dtype=float)
    parsed = [_number(x) for x in labels]
    if any(v is None for v in parsed):
        if level in ("interval", "ratio"):
            bad = next(x for x, v in zip(labels, parsed, strict=True) if v is None)
            raise DataError(
                f"level {level} needs numeric labels; {bad!r} is not a number.",
                source=data.report.source, column="label",
                fix="choose nominal or ordinal, or give a numeric value per label (labels.csv "
                "column 'value' or schema.json 'values').",
            )
        parsed = list(range(len(labels)))
    numbers = np.asarray(parsed, dtype=float)
    order = np.argsort(numbers, kind="stable")
    return order, [labels[i] for i in order], numbers[order]


def alpha_report(data: ReducedDataset, *, level: str | None = None, n_boot: int = 1000,
                 seed: int = 0, ci: float = 0.95) -> AlphaResult:
    """:func:`hlv_core.agreement.alpha_report` on the reduced counts (same fields, same values;
    ``level`` None = the dataset's level).

    Krippendorff's alpha from the reduced counts, ``alpha = 1 - D_o / D_e`` (coincidences of the
    item x label counts), with a percentile bootstrap over items.

    Parameters
    ----------
    data : ReducedDataset
        The reduced data (:func:`hlv_core.scale.load`).
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

    References
    ----------
    .. [1] K. Krippendorff (2011), "Computing Krippendorff's alpha-reliability".

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     result = alpha_report(data, n_boot=200)
    >>> round(result.alpha, 4)  # doctest: +SKIP
    0.4444
    """
    level = level or data.level
    if level not in LEVELS:
        raise ValueError(f"level {level!r} is not available for this {data.task} dataset; "
                         f"choose one of {list(LEVELS)}.")
    order, domain, numbers = _columns(data, level)
    # the counts as stored (int64) where the columns are already in order: no copy
    counts = data.counts if np.array_equal(order, np.arange(len(order))) else \
        data.counts[:, order]
    n_u = np.asarray(counts.sum(axis=1)).ravel()
    pairable = n_u >= 2
    value_counts = np.asarray(counts.T @ pairable.astype(np.int64)).ravel()  # no row copy
    total = value_counts.sum()
    shares = {lab: float(c / total) for lab, c in zip(domain, value_counts, strict=True)
              } if total else {}
    alpha = alpha_from_counts(counts, numbers, level=level)
    reps = (bootstrap_alpha_from_counts(counts, numbers, level=level, n_boot=n_boot, seed=seed)
            if n_boot > 0 and not np.isnan(alpha) else np.zeros(0))
    lo = hi = float("nan")
    if len(reps) and np.isfinite(reps).any():
        tail = (1.0 - ci) / 2.0 * 100.0
        lo, hi = (float(x) for x in np.nanpercentile(reps, [tail, 100.0 - tail]))
    n_items, n_values = int(pairable.sum()), int(n_u[pairable].sum())
    return AlphaResult(
        alpha=float(alpha), level=level, ci_low=lo, ci_high=hi, n_boot=int(n_boot),
        seed=int(seed), n_items=data.n_items, n_pairable_items=n_items,
        n_pairable_values=n_values, n_annotators=data.n_annotators, value_shares=shares,
        explanation=explain_alpha(alpha, n_pairable_items=n_items, n_pairable_values=n_values,
                                  n_annotators=data.n_annotators, value_shares=shares),
        replicates=reps,
    )


def fleiss_kappa(data: ReducedDataset) -> float:
    """Fleiss' kappa (Fleiss 1971) from the reduced counts, items with >= 2 ratings:
    ``P_i = sum_c n_ic (n_ic - 1) / (n_i (n_i - 1))``, ``P_e = sum_c p_c^2``,
    ``kappa = (mean_i P_i - P_e) / (1 - P_e)``; as :func:`hlv_core.agreement.fleiss_kappa`.

    Parameters
    ----------
    data : ReducedDataset
        The reduced data (:func:`hlv_core.scale.load`).

    Returns
    -------
    float
        Fleiss' kappa.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     kappa = fleiss_kappa(data)
    >>> round(kappa, 4)  # doctest: +SKIP
    0.3333
    """
    order, _, _ = _columns(data, "nominal")
    counts = data.counts[:, order].toarray().astype(float)
    n_i = counts.sum(axis=1)
    counts, n_i = counts[n_i >= 2], n_i[n_i >= 2]
    if len(n_i) == 0:
        return float("nan")
    p_bar = (((counts * (counts - 1)).sum(axis=1)) / (n_i * (n_i - 1))).mean()
    p_c = counts.sum(axis=0) / n_i.sum()
    p_e = float(p_c @ p_c)
    return float("nan") if p_e >= 1.0 else float((p_bar - p_e) / (1.0 - p_e))


def _pair_kappas(pairs: dict, min_shared: int) -> np.ndarray:
    """Cohen's kappa (Cohen 1960) of every pair a < b with ``n_ab >= min_shared`` from the
    reduced pair tables: ``P_o = agree_ab / n_ab``, ``P_e = sum_c A_c[a,b] A_c[b,a] / n_ab^2``."""
    shared, agree, by_label = pairs["shared"], pairs["agree"], pairs["by_label"]
    a, b = np.triu_indices(shared.shape[0], k=1)
    n = shared[a, b]
    keep = n >= max(min_shared, 1)
    a, b, n = a[keep], b[keep], n[keep]
    p_e = np.zeros(len(a))
    for c in range(by_label.shape[0]):
        p_e += (by_label[c][a, b] / n) * (by_label[c][b, a] / n)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (agree[a, b] / n - p_e) / (1.0 - p_e)
    kappa[p_e >= 1.0] = np.nan
    return kappa


def kappa_summary(data: ReducedDataset) -> dict[str, float]:
    """:func:`hlv_core.agreement.kappa_summary` on the reduced data: ``fleiss`` always,
    ``cohen`` for exactly two annotators, ``light`` (mean pairwise Cohen over pairs sharing
    >= 2 items) for 3 to 60 annotators.

    Parameters
    ----------
    data : ReducedDataset
        The reduced data (:func:`hlv_core.scale.load`).

    Returns
    -------
    dict of str to float
        ``fleiss`` always, ``cohen`` for two annotators, ``light`` for 3 to 60.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5).

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     kappas = kappa_summary(data)
    >>> sorted(kappas)  # doctest: +SKIP
    ['cohen', 'fleiss']
    """
    out = {"fleiss": fleiss_kappa(data)}
    if data.pairs is None:
        return out
    if data.n_annotators == 2:
        kappa = _pair_kappas(data.pairs, 1)
        out["cohen"] = float(kappa[0]) if len(kappa) else float("nan")
    else:
        kappa = pd.Series(_pair_kappas(data.pairs, 2))
        out["light"] = float(kappa.mean()) if len(kappa) else float("nan")
    return out


def agreement_result(data: ReducedDataset, *, level: str | None = None, n_boot: int = 1000,
                     seed: int = 0) -> dict:
    """The JSON of ``python -m hlv_core agreement FILE``: the alpha report without
    ``value_shares``, then the kappas as ``<name>_kappa``.

    Parameters
    ----------
    data : ReducedDataset
        The reduced data (:func:`hlv_core.scale.load`).
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

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School
       for Communication, University of Pennsylvania.

    Examples
    --------
    >>> from hlv_core import scale
    >>> with scale.dask_client("local"):  # doctest: +SKIP
    ...     data = scale.load("annotations/*.csv")
    ...     result = agreement_result(data, n_boot=200)
    >>> sorted(result)[:3]  # doctest: +SKIP
    ['alpha', 'ci_high', 'ci_low']
    """
    rep = alpha_report(data, level=level, n_boot=n_boot, seed=seed)
    result = {k: v for k, v in rep.as_dict().items() if k != "value_shares"}
    result.update({f"{name}_kappa": value for name, value in kappa_summary(data).items()})
    return result
