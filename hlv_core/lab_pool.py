"""The training lab on several processes: the same fits as :func:`hlv_core.lab.run_lab_full`,
spread over a pool of worker processes, so a full run takes a fraction of the wall time on a
machine with several cores (the CPU time is the same).

Kurniawan et al., "Training and Evaluating with Human Label Variation" (arXiv 2502.01891),
sections 4-5: every (method, seed) fit is independent of the others, so they can run anywhere.
The work is cut into units that keep every number identical to a run in one process:

* a convex method (:data:`hlv_core.lab.CONVEX_METHODS`) with all its seeds in one unit (it is
  trained once, from the first seed, and shared: the lab's ``convex_once`` protocol);
* a non-convex method one unit per seed;
* AE and AEh together, one unit per seed: AEh scores AE's fits with the hard ensemble rule,
  so one unit trains the low-rank ensemble once for both (two separate runs train it twice).

Each unit is :func:`~hlv_core.lab.run_lab_full` on its methods and seeds; the parts are put
back together per method (:func:`merge_lab_results`) into exactly the tables one run of that
method gives (only the ``seconds`` and ``timings`` differ). The TF-IDF matrices are computed
once, in the calling process, and handed to every worker. Longest units start first.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import queue
import sys
import types
from collections.abc import Callable, Collection, Iterator, Sequence

import pandas as pd

from . import lab
from .io import Dataset
from .targets import METHODS

__all__ = ["combine_lab_results", "default_jobs", "lab_units", "merge_lab_results", "run_lab_pool"]

#: CPU seconds of one seed of each method on md_agreement (bench/RESULTS.md, a quiet 2-core
#: box): only the order in which units start and the weights of the progress bar use them.
_SECONDS_PER_SEED = {"AE": 43.0, "LA-max": 21.0, "SMF1": 17.0, "SmF1": 14.0, "SLMV": 4.9,
                     "LA-min": 3.0, "JSD": 2.3}
_OTHER_SECONDS = 1.2  # each remaining (convex) method, trained once


def default_jobs() -> int:
    """Worker processes to use by default: the cores this process may run on, at most 8.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> default_jobs() >= 1
    True
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def lab_units(methods: Sequence[str], seeds: Sequence[int], *, convex_once: bool = True,
              whole: Collection[str] = ()) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    """The independent units of work of a lab run, longest first.

    A convex method with every seed (trained once when ``convex_once``), a non-convex method
    per seed, AE with AEh per seed (one ensemble fit scored both ways); the methods in
    ``whole`` (e.g. those the dataset cannot train: one "skipped" row) with every seed.

    Parameters
    ----------
    methods : sequence of str
        Methods of :data:`hlv_core.targets.METHODS`.
    seeds : sequence of int
        Seeds.
    convex_once : bool, default True
        As :func:`hlv_core.lab.run_lab_full`.
    whole : collection of str, default ()
        Methods kept in one unit with every seed.

    Returns
    -------
    list of (methods, seeds) tuples

    Examples
    --------
    >>> lab_units(["MV", "AE", "AEh", "SmF1"], [0, 1])
    [(('AE', 'AEh'), (0,)), (('AE', 'AEh'), (1,)), (('SmF1',), (0,)), (('SmF1',), (1,)), (('MV',), (0, 1))]
    """
    seeds = tuple(int(s) for s in seeds)
    chosen = [m for m in METHODS if m in set(methods)]
    groups: list[tuple[str, ...]] = []
    whole = set(whole)
    pair = "AE" in chosen and "AEh" in chosen and not {"AE", "AEh"} & whole
    for method in chosen:
        if method == "AEh" and pair:
            continue  # trained with AE
        groups.append(("AE", "AEh") if method == "AE" and pair else (method,))
    units = []
    for group in groups:
        if (convex_once and group[0] in lab.CONVEX_METHODS) or group[0] in whole:
            units.append((group, seeds))
        else:
            units.extend((group, (seed,)) for seed in seeds)
    return sorted(units, key=lambda unit: -_unit_cost(unit))  # stable: ties keep METHODS order


def _unit_cost(unit: tuple[tuple[str, ...], tuple[int, ...]]) -> float:
    group, seeds = unit
    per_seed = _SECONDS_PER_SEED.get(group[0])
    return _OTHER_SECONDS if per_seed is None else per_seed * len(seeds)


def _part_of(result: lab.LabResult, method: str) -> lab.LabResult:
    """The rows of one method (SLMV with its SLMV-soft rows) of a unit's result."""
    names = {method, lab.SLMV_SOFT} if method == "SLMV" else {method}

    def rows(table: pd.DataFrame) -> pd.DataFrame:
        if table.empty or "method" not in table:
            return table
        return table[table["method"].isin(names)].reset_index(drop=True)

    return lab.LabResult(rows(result.results), rows(result.predictions), rows(result.fits),
                         result.protocol,
                         {m: s for m, s in result.timings.items() if m in names})


def _stacked(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The non-empty tables one below the other (the first, empty, when all are empty: it keeps
    the columns)."""
    tables = [t for t in tables if not t.empty] or tables[:1]
    return pd.concat(tables, ignore_index=True)


def merge_lab_results(parts: Sequence[lab.LabResult], *, protocol: str) -> lab.LabResult:
    """One method's result from the results of its units (one per seed), in seed order.

    The tables come out exactly as one :func:`hlv_core.lab.run_lab_full` run of the method with
    every seed gives them (results by method and seed, fits by fold and seed, predictions by
    seed); ``timings`` are summed.

    Parameters
    ----------
    parts : sequence of LabResult
        The parts, in seed order.
    protocol : str
        The protocol text of the whole run.

    Returns
    -------
    LabResult

    Examples
    --------
    >>> import pandas as pd
    >>> part = lambda seed: lab.LabResult(
    ...     pd.DataFrame({"method": ["JSD"], "seed": [seed], "metric": ["po_jsd"],
    ...                   "value": [0.1 * seed], "delta_vs_mv": [float("nan")], "note": [""]}),
    ...     pd.DataFrame(columns=["method", "seed", "item_id", "label", "prob"]),
    ...     pd.DataFrame({"method": ["JSD"], "seed": [seed], "fold": [0]}), "split", {"JSD": 1.0})
    >>> merged = merge_lab_results([part(0), part(1)], protocol="split")
    >>> merged.results["seed"].tolist(), merged.timings
    ([0, 1], {'JSD': 2.0})
    """
    if len(parts) == 1:
        only = parts[0]
        return lab.LabResult(only.results, only.predictions, only.fits, protocol, only.timings)

    results = lab._in_method_order(_stacked([p.results for p in parts]), ["method", "seed"])
    fits = _stacked([p.fits for p in parts])
    if not fits.empty:
        fits = fits.sort_values(["fold", "seed"], kind="stable", ignore_index=True)
    predictions = _stacked([p.predictions for p in parts])
    timings: dict[str, float] = {}
    for part in parts:
        for method, seconds in part.timings.items():
            timings[method] = timings.get(method, 0.0) + seconds
    return lab.LabResult(results, predictions, fits, protocol, timings)


def combine_lab_results(parts: dict[str, lab.LabResult], *,
                        reference_added: bool = False) -> lab.LabResult:
    """One lab result for several methods, as one :func:`hlv_core.lab.run_lab_full` run of
    them all gives it: rows in the methods' order, deltas against MV recomputed (Kurniawan
    et al., section 5.2), fits by fold, seed and method, predictions by seed and method.

    Parameters
    ----------
    parts : dict of str to LabResult
        Each method's result (:func:`run_lab_pool`).
    reference_added : bool, default False
        MV was added as the reference (not asked for): its rows say so, as in one run.

    Returns
    -------
    LabResult

    Examples
    --------
    >>> import pandas as pd
    >>> def part(method, value):
    ...     return lab.LabResult(
    ...         pd.DataFrame({"method": [method], "seed": [0], "metric": ["po_jsd"],
    ...                       "value": [value], "delta_vs_mv": [float("nan")], "note": [""]}),
    ...         pd.DataFrame(columns=["method", "seed", "item_id", "label", "prob"]),
    ...         pd.DataFrame({"method": [method], "seed": [0], "fold": [0]}), "split",
    ...         {method: 1.0})
    >>> whole = combine_lab_results({"SL": part("SL", 0.75), "MV": part("MV", 0.5)})
    >>> whole.results[["method", "delta_vs_mv"]].values.tolist()
    [['MV', 0.0], ['SL', 0.25]]
    """
    chosen = [m for m in METHODS if m in parts]
    if not chosen:
        raise ValueError("no parts to combine.")

    def stacked(name: str) -> pd.DataFrame:
        return _stacked([getattr(parts[m], name) for m in chosen])

    results = stacked("results")
    if reference_added:
        mv = (results["method"] == "MV") & (results["metric"] != "skipped")
        results.loc[mv, "note"] = [
            "; ".join(x for x in ("added as the reference of the deltas", note) if x)
            for note in results.loc[mv, "note"]]
    ran = results[results["metric"] != "skipped"]
    results = pd.concat([lab.compute_deltas(ran), results[results["metric"] == "skipped"]],
                        ignore_index=True) if len(ran) else results
    results = lab._in_method_order(results, ["method", "seed"])
    fits = stacked("fits")
    if not fits.empty:
        fits = lab._in_method_order(fits, ["fold", "seed", "method"])
    predictions = stacked("predictions")
    if not predictions.empty:
        predictions = lab._in_method_order(predictions, ["seed", "method"])
    timings = {m: s for method in chosen for m, s in parts[method].timings.items()}
    return lab.LabResult(results, predictions, fits, parts[chosen[0]].protocol, timings)


# ------------------------------------------------------------------------------ worker side
def _worker(dataset: Dataset, options: dict, features: dict, tasks, events) -> None:
    """A worker process: train the units it takes from ``tasks`` until it takes None; every
    message goes to ``events``: ("progress", unit, fraction, text), ("done", unit, result) or
    ("error", unit, exception)."""
    lab._prime_features(features)
    while (task := tasks.get()) is not None:
        index, methods, seeds = task

        def progress(fraction: float, message: str, index: int = index) -> None:
            events.put(("progress", index, fraction, message))

        try:
            result = lab.run_lab_full(dataset, methods=list(methods), seeds=list(seeds),
                                      reference=False, progress=progress, **options)
        except Exception as error:  # handed to the caller, raised there
            try:
                pickle.dumps(error)
            except Exception:  # an error that cannot travel: its words do
                error = RuntimeError(f"{type(error).__name__}: {error}")
            events.put(("error", index, error))
            return
        events.put(("done", index, result))


#: How workers start (None: forkserver where there is one, else spawn). The benchmark sets
#: "spawn" so that the workers are children of the caller and their CPU time is counted.
_START_METHOD: str | None = None


def _context():
    """forkserver where there is one (safe beside the threads of a web server), else spawn."""
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context(
        _START_METHOD or ("forkserver" if "forkserver" in methods else "spawn"))
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["hlv_core.lab"])  # workers start with the lab imported
    return ctx


@contextlib.contextmanager
def _no_main_to_rerun() -> Iterator[None]:
    """While workers start, ``__main__`` is a bare module: a spawned or forkserver worker
    re-runs the caller's main script otherwise, and Streamlit runs the page itself as
    ``__main__`` (the worker would train again, recursively). The workers only need
    :mod:`hlv_core`."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def run_lab_pool(
    dataset: Dataset,
    methods: Sequence[str],
    *,
    seeds: Sequence[int] = (0,),
    n_jobs: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    on_result: Callable[[str, lab.LabResult], None] | None = None,
    name: Callable[[str], str] = str,
    **options,
) -> dict[str, lab.LabResult]:
    """Train each method as :func:`hlv_core.lab.run_lab_full` does, on ``n_jobs`` processes.

    The result of every method equals ``run_lab_full(dataset, methods=[method], seeds=seeds,
    reference=False, **options)`` (every table and number; only ``seconds`` and ``timings``
    differ), Kurniawan et al., sections 4-5.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations whose items have texts.
    methods : sequence of str
        Methods to train (MV is not added).
    seeds : sequence of int, default (0,)
        Seeds.
    n_jobs : int, optional
        Worker processes; None or 1 trains in this process, -1 uses :func:`default_jobs`.
        Never more than there are units of work.
    progress : callable, optional
        ``progress(fraction, message)`` while training (from this process).
    on_result : callable, optional
        ``on_result(method, result)`` as soon as a method's every unit is done (so a caller
        can keep what is finished if the run is stopped).
    name : callable, default str
        How a method is named in the progress messages (e.g. its name in words).
    **options
        Other keywords of :func:`hlv_core.lab.run_lab_full` (folds, L2 grid, caps...).

    Returns
    -------
    dict of str to LabResult
        One result per method, in :data:`hlv_core.targets.METHODS` order.

    Raises
    ------
    hlv_core.io.DataError
        As :func:`hlv_core.lab.run_lab_full` (checked before any worker starts).
    ValueError
        Unknown methods or options.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", sections 4 (methods) and 5 (protocol).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"i{i:02d}" for i in range(40)]
    >>> word = np.where(np.arange(40) % 2 == 0, "good", "bad")
    >>> labels = np.where(rng.random((40, 3)) < 0.2, "meh", word[:, None])
    >>> annotations = pd.DataFrame({"item_id": np.repeat(ids, 3),
    ...                             "annotator_id": np.tile(["a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel()})
    >>> items = pd.DataFrame({"item_id": ids, "text": [f"a {w} film" for w in word]})
    >>> dataset = build_dataset(annotations, items=items, source="films", format="long")
    >>> parts = run_lab_pool(dataset, ["MV", "JSD"], seeds=(0, 1))
    >>> list(parts), parts["JSD"].fits["seed"].tolist()[:2]
    (['MV', 'JSD'], [0, 1])
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(METHODS)}.")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("give at least one seed.")
    lab._check_lab_dataset(dataset)
    convex_once = bool(options.get("convex_once", True))
    skipped = [m for m in methods if lab.skip_reason(dataset, m) is not None]
    units = lab_units(methods, seeds, convex_once=convex_once, whole=skipped)
    jobs = 1 if n_jobs in (None, 0, 1) else default_jobs() if n_jobs < 0 else int(n_jobs)
    jobs = max(1, min(jobs, len(units)))
    folds, base = lab.lab_folds(dataset, n_folds=options.get("n_folds", 5),
                                dev_share=options.get("dev_share", 0.1),
                                split_seed=options.get("split_seed", 0))
    protocol = base + lab._convex_once_note(seeds, convex_once)

    weights = [_unit_cost(u) for u in units]
    total = sum(weights)
    share = [0.0] * len(units)
    latest = [""] * len(units)
    done_parts: dict[int, lab.LabResult] = {}
    merged: dict[str, lab.LabResult] = {}
    chosen = [m for m in METHODS if m in set(methods)]
    unit_of = {m: [i for i, (group, _) in enumerate(units) if m in group] for m in chosen}

    def report(idle: str = "starting") -> None:
        if progress is None:
            return
        busy = [latest[i] for i in range(len(units)) if latest[i] and i not in done_parts]
        fraction = sum(w * s for w, s in zip(weights, share, strict=True)) / total
        progress(min(fraction, 1.0), " · ".join(busy[:3]) or idle)

    def finished(index: int, result: lab.LabResult) -> None:
        done_parts[index] = result
        share[index] = 1.0
        for method in units[index][0]:
            if method in merged or not all(i in done_parts for i in unit_of[method]):
                continue
            parts = [_part_of(done_parts[i], method) for i in unit_of[method]]
            parts.sort(key=lambda p: min(p.fits["seed"]) if not p.fits.empty else 0)
            merged[method] = merge_lab_results(parts, protocol=protocol)
            if on_result is not None:
                on_result(method, merged[method])

    def label(index: int, message: str) -> str:
        group, unit_seeds = units[index]
        which = (f"seed {unit_seeds[0]}" if len(unit_seeds) == 1
                 else "seeds " + ", ".join(map(str, unit_seeds)))
        step = message.rsplit(", ", 1)[-1] if "L2 " in message else ""
        return f"{' + '.join(map(name, group))}, {which}" + (f" ({step})" if step else "")

    if jobs == 1:
        for index, (group, unit_seeds) in enumerate(units):
            def step(fraction: float, message: str, index: int = index) -> None:
                share[index], latest[index] = fraction, label(index, message)
                report()
            finished(index, lab.run_lab_full(dataset, methods=list(group), seeds=unit_seeds,
                                             reference=False, progress=step, **options))
            report()
        return {m: merged[m] for m in chosen}

    # every fold's features once, here; the workers get them with the dataset
    report(f"text features of {len(folds)} {'fold' if len(folds) == 1 else 'folds'}")
    features = lab._fold_features(dataset, folds)
    ctx = _context()
    tasks, events = ctx.Queue(), ctx.Queue()
    for index, (group, unit_seeds) in enumerate(units):
        tasks.put((index, group, unit_seeds))
    for _ in range(jobs):
        tasks.put(None)
    workers = [ctx.Process(target=_worker, args=(dataset, options, features, tasks, events),
                           daemon=True) for _ in range(jobs)]
    try:
        with _no_main_to_rerun():
            for process in workers:
                process.start()
        quiet_after_exit = 0
        while len(done_parts) < len(units):
            try:
                kind, index, *payload = events.get(timeout=0.25)
            except queue.Empty:
                lost = [p for p in workers if p.exitcode not in (None, 0)]
                quiet_after_exit += all(p.exitcode is not None for p in workers)
                if lost or quiet_after_exit > 4:  # (a last message may still be in transit)
                    raise RuntimeError(
                        "a training process ended unexpectedly (exit code "
                        f"{(lost or workers)[0].exitcode}; "
                        "out of memory?); train again with fewer processes.") from None
                report()
                continue
            if kind == "error":
                raise payload[0]
            if kind == "progress":
                share[index], latest[index] = payload[0], label(index, payload[1])
            else:
                finished(index, payload[0])
            report()
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
        for process in workers:
            process.join()
        tasks.close()
        events.close()
    return {m: merged[m] for m in chosen}
