"""Large datasets on a Dask cluster: registration, the dataset list, Overview and Agreement.

An admin registers a large dataset in the server's config, in the same secrets file as the
admin list (``.streamlit/secrets.toml``, section ``[hlv_lens]``)::

    [hlv_lens.large_datasets.crowd2026]
    path = "/data/crowd2026"            # a folder of Parquet files (or a CSV glob)
    scheduler = "tcp://10.0.0.5:8786"   # a running Dask scheduler, or "local"
    title = "Crowd labels 2026"         # optional: the name shown in the dataset list

It then appears in the sidebar's dataset list as ``Cluster: <title>`` (selector value
``cluster:<key>``). The rows never come to this server: the Overview and Agreement pages run
:mod:`hlv_core.scale` on the cluster (the functions ``python -m hlv_core summary/agreement
--dask`` call), in a background thread with its own ``distributed.Client``, showing the
progress and a Stop button (Stop closes that client, so the scheduler drops its tasks).
Results are held per session under the dataset's **content fingerprint**
(:func:`hlv_core.scale.fingerprint`: every file's name, size and modification time, taken
before the files are read): when the folder changes on disk, the old numbers are no longer
shown and the page says so. Every other page needs the whole annotation table in this server's memory and says so
(:func:`refuse_on_cluster`, called by :func:`hlv_ui.state.require_dataset`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from hlv_core.io import LEVELS, DataError
from hlv_core.text import md

from .widgets import SETTING, download_table, forget_for_other_data, show_table

__all__ = [
    "CLUSTER_PREFIX",
    "ClusterJob",
    "LargeDataset",
    "cluster_agreement",
    "cluster_caption",
    "cluster_label",
    "cluster_overview",
    "cluster_sources",
    "large_in_use",
    "refuse_on_cluster",
    "registered",
]

CLUSTER_PREFIX = "cluster:"
JOBS_KEY = "hlv.cluster_jobs"  # (dataset key, what) -> ClusterJob of this session
DATA_KEY = "hlv.cluster_data"  # dataset key -> (fingerprint, ReducedDataset, summary dict)
#: (dataset key, fingerprint, level, n_boot, seed) -> agreement dict
RESULTS_KEY = "hlv.cluster_agreement"
STALE_KEY = "hlv.cluster_stale"  # dataset keys whose files changed since their last result
_POLL_S = 0.25
#: The titles last read from the config: the dataset list's labels are also built where the
#: secrets are not at hand (a test harness formatting the selector's value).
_TITLES: dict[str, str] = {}


@dataclass(frozen=True)
class LargeDataset:
    """One registered large dataset: its config ``key``, ``path`` (Parquet folder or CSV glob),
    ``scheduler`` (``"local"`` or ``"tcp://HOST:PORT"``), ``title`` and, when the entry cannot
    be used, the ``problem`` in words."""

    key: str
    path: str
    scheduler: str
    title: str
    problem: str | None = None


def _config() -> Mapping:
    try:
        section = st.secrets.to_dict().get("hlv_lens", {})
    except Exception:  # no or unreadable secrets.toml: nothing registered
        return {}
    entries = section.get("large_datasets", {}) if isinstance(section, Mapping) else {}
    return entries if isinstance(entries, Mapping) else {}


def registered() -> dict[str, LargeDataset]:
    """The large datasets of ``[hlv_lens.large_datasets.<key>]`` in the server's secrets, in
    config order; an entry without a path or with a scheduler address that is neither
    ``"local"`` nor ``scheme://host:port`` is kept with its ``problem``."""
    out = {}
    for key, entry in _config().items():
        entry = entry if isinstance(entry, Mapping) else {}
        path = str(entry.get("path", "")).strip()
        scheduler = str(entry.get("scheduler", "")).strip()
        title = str(entry.get("title", "")).strip() or str(key)
        problem = None
        if not path:
            problem = "no `path` (a folder of Parquet files) is set"
        elif scheduler != "local" and "://" not in scheduler:
            problem = ("`scheduler` must be \"local\" or a Dask scheduler address such as "
                       "tcp://host:8786")
        out[str(key)] = LargeDataset(str(key), path, scheduler, title, problem)
    _TITLES.update({key: large.title for key, large in out.items()})
    return out


def cluster_sources() -> list[str]:
    """Selector values of the registered large datasets."""
    return [f"{CLUSTER_PREFIX}{key}" for key in registered()]


def cluster_label(source: str) -> str:
    """What the dataset list shows for a selector value ``cluster:<key>``."""
    key = source[len(CLUSTER_PREFIX):]
    large = registered().get(key)
    title = large.title if large else _TITLES.get(key)
    return f"Cluster: {title}" if title else "Cluster dataset (no longer registered)"


def large_in_use() -> LargeDataset | None:
    """The large dataset selected in the sidebar, or None (an in-memory dataset is in use)."""
    from .state import CLUSTER_KEY

    source = st.session_state.get(CLUSTER_KEY)
    if not isinstance(source, str) or not source.startswith(CLUSTER_PREFIX):
        return None
    return registered().get(source[len(CLUSTER_PREFIX):])


def cluster_caption() -> bool:
    """Sidebar caption for a large dataset in use; True when one is in use."""
    large = large_in_use()
    if large is None:
        return False
    st.caption(f"In use: **{md(large.title)}** · on the Dask cluster "
               f"{md(large.scheduler)} · Overview and Agreement only")
    return True


def refuse_on_cluster() -> None:
    """On a page that needs the whole table in memory: when a large dataset is in use, say
    so and why, and stop the page."""
    large = large_in_use()
    if large is None:
        return
    st.info(
        f"**{md(large.title)}** is a large dataset on a Dask cluster: its rows stay on the "
        "cluster and only the counts per item and label come to this server. This page needs "
        "the whole annotation table in this server's memory (it looks at single annotations: "
        "items, annotators and their labels one by one), so it does not run on it. "
        "**Overview** and **Agreement** run on the cluster; for this page, pick an in-memory "
        "dataset in the sidebar, e.g. one Parquet file of this dataset uploaded on the "
        "Overview page.", icon=":material/dns:")
    st.stop()


# ------------------------------------------------------------------------------------ jobs


def _local_scheduler() -> str:
    """The address of this server's local Dask cluster (started once, shared)."""
    return _local_cluster()[0].scheduler_address


@st.cache_resource(show_spinner="Starting a local Dask cluster…")
def _local_cluster() -> tuple:
    """(the server's ``LocalCluster``,): a tuple, as a cluster object is awaitable, which
    Streamlit's resource cache refuses to hold."""
    import logging

    from distributed import LocalCluster

    from hlv_core.scale import LOCAL_WORKERS

    return (LocalCluster(n_workers=LOCAL_WORKERS, threads_per_worker=1, processes=True,
                         dashboard_address=None, silence_logs=logging.ERROR),)


def _task_counts(dask_scheduler=None) -> tuple[int, int]:
    """(finished, known) tasks on the scheduler (run there by ``Client.run_on_scheduler``)."""
    states = [ts.state for ts in dask_scheduler.tasks.values()]
    return sum(s == "memory" for s in states), len(states)


class ClusterJob:
    """One computation on the cluster in a background thread with its own client.

    ``work(job)`` runs in the thread with the client as the current Dask scheduler and reports
    its steps with :meth:`step`; :meth:`stop` closes the client (the scheduler drops the
    client's tasks) and the job ends as stopped, without a result."""

    def __init__(self, address: str, work: Callable[[ClusterJob], object], n_steps: int):
        self.address = address
        self.work = work
        self.n_steps = max(int(n_steps), 1)
        self.stage, self.done_steps = "connecting to the Dask scheduler", 0
        self.result = None
        self.error: BaseException | None = None
        self.stopped = False
        self.started = time.monotonic()
        self.elapsed: float | None = None
        self._client = None
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True, name="hlv-cluster-job")
        self.thread.start()

    def _run(self) -> None:
        from distributed import Client

        from hlv_core.scale import ClusterError

        try:
            try:
                client = Client(self.address, timeout="20s", set_as_default=False)
            except OSError as error:
                raise ClusterError(f"cannot reach the Dask scheduler at {self.address!r} "
                                   f"({error}).") from None
            with self._lock:
                self._client = client
                if self.stopped:
                    client.close()
                    return
            with client.as_current():
                self.result = self.work(self)
        except BaseException as error:  # shown on the page (a data error, a lost cluster)
            if not self.stopped:
                self.error = error
        finally:
            self.elapsed = time.monotonic() - self.started
            with self._lock:
                if self._client is not None:
                    self._client.close()

    def step(self, stage: str) -> None:
        """The thread starts its next step (``stage`` in words)."""
        if self.stage != "connecting to the Dask scheduler":
            self.done_steps += 1
        self.stage = stage

    def stop(self) -> None:
        """Cancel: close the client (its tasks are released on the cluster)."""
        with self._lock:
            self.stopped = True
            if self._client is not None:
                self._client.close()

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def progress(self) -> tuple[float, str]:
        """(fraction, words): steps done plus the share of the scheduler's known tasks that
        are finished within the current step."""
        within, tasks = 0.0, ""
        client = self._client
        if client is not None and not self.stopped:
            try:
                finished, known = client.run_on_scheduler(_task_counts)
                if known:
                    within, tasks = finished / known, f" · {finished:,} of {known:,} tasks"
            except Exception:  # the client closed meanwhile: the step text alone
                pass
        fraction = min((self.done_steps + within) / self.n_steps, 1.0)
        seconds = time.monotonic() - self.started
        return fraction, (f"Step {min(self.done_steps + 1, self.n_steps)} of {self.n_steps}: "
                          f"{self.stage}{tasks} · {seconds:.0f} s")


def _jobs() -> dict:
    return st.session_state.setdefault(JOBS_KEY, {})


def _start(large: LargeDataset, what: str, work, n_steps: int) -> None:
    """Start a job and redraw the page (its progress replaces the start button)."""
    address = _local_scheduler() if large.scheduler == "local" else large.scheduler
    _jobs()[(large.key, what)] = ClusterJob(address, work, n_steps)
    st.rerun()


def _follow(large: LargeDataset, what: str, key: str):
    """Show a job's progress with a Stop button until it ends; then its result (or None,
    after showing why there is none)."""
    job = _jobs().get((large.key, what))
    if job is None:
        return None
    if job.running:
        st.button("Stop", key=f"{key}.stop", icon=":material/stop_circle:", on_click=job.stop,
                  help="Cancel the computation on the cluster (no partial result is kept).")
        bar = st.progress(0.0, text="Starting…")
        while job.running:
            fraction, text = job.progress()
            bar.progress(fraction, text=text)
            time.sleep(_POLL_S)
        st.rerun()  # the page drawn again with the result, without the progress and Stop
    del _jobs()[(large.key, what)]
    if job.stopped:
        st.warning("Stopped: the computation on the cluster was cancelled; no result.",
                   icon=":material/stop_circle:")
        return None
    if job.error is not None:
        _show_error(job.error)
        return None
    st.caption(f"Computed on the cluster in {job.elapsed:.1f} s.")
    return job.result


def _show_error(error: BaseException) -> None:
    from hlv_core.scale import ClusterError
    from hlv_core.scale.cluster import cluster_failure

    if isinstance(error, DataError):
        from .state import show_data_error

        show_data_error(error)
        return
    failure = error if isinstance(error, ClusterError) else cluster_failure(error)
    if failure is None and isinstance(error, ValueError):
        failure = error
    if failure is None:
        raise error
    st.error(f"**The cluster could not finish.** {md(failure)}", icon=":material/error:")


def _load_steps(large: LargeDataset, job: ClusterJob):
    """Load (two passes over the files) and the summary with its content hash."""
    from hlv_core import scale

    job.step("reading the files, global dictionaries, shuffle by item and counts")
    data = scale.load(large.path, name=large.title)
    job.step("summary and content hash (row hashes streamed from the files)")
    return data, scale.summary(data)


def _header(large: LargeDataset) -> bool:
    """The large dataset's heading; False (after saying why) when its entry is unusable."""
    st.subheader(md(large.title))
    where = ("a local Dask cluster on this server" if large.scheduler == "local"
             else f"the Dask cluster {md(large.scheduler)}")
    st.caption(f"Large dataset on {where} · files: "
               f"{md(large.path)}. The rows stay on the cluster; this server receives only the "
               "counts per item and label.")
    if large.problem:
        st.error(f"**This large dataset's server config cannot be used:** {large.problem} "
                 f"(`[hlv_lens.large_datasets.{md(large.key)}]` in the server's secrets).",
                 icon=":material/error:")
        return False
    return True


# --------------------------------------------------------------------------------- pages


def cluster_overview() -> None:
    """The Overview page for a large dataset (then the page stops); nothing otherwise."""
    large = large_in_use()
    if large is None:
        return
    if _header(large):
        _overview(large)
    st.stop()


def _overview(large: LargeDataset) -> None:
    held = _loaded(large, "cluster.overview", "Compute the overview on the cluster")
    if held is None:
        return
    if (large.key, "load") not in _jobs() and st.button(
            "Recompute on the cluster", key="cluster.overview.rerun", icon=":material/refresh:",
            help="Read the files again (a change the fingerprint of names, sizes and "
            "modification times does not see)."):
        st.session_state[DATA_KEY].pop(large.key, None)
        st.rerun()
    _, data, summary = held
    cols = st.columns(5)
    cols[0].metric("Items", f"{summary['n_items']:,}")
    cols[1].metric("Annotators", f"{summary['n_annotators']:,}")
    cols[2].metric("Annotations", f"{summary['n_annotations']:,}")
    cols[3].metric("Labels", summary["n_labels"])
    cols[4].metric("Mean entropy", f"{summary['mean_entropy']:.3f}")
    per_item = summary["annotators_per_item"]
    st.caption(f"Task **{summary['task']}** · level of measurement **{summary['level']}** · "
               f"annotators per item min {per_item['min']}, median {per_item['median']:g}, "
               f"max {per_item['max']} · content hash `{summary['content_hash']}` · "
               f"{len(data.files):,} file(s)")
    labels = pd.DataFrame({"label": list(summary["label_counts"]),
                           "annotations": list(summary["label_counts"].values())})
    st.markdown("**Label counts**")
    show_table(labels, hide_index=True, width="stretch", key="cluster.labels")
    download_table(labels, f"{large.key}_labels.csv", key="cluster.dl.labels",
                   label="Download label counts (CSV)")
    with st.expander("Import report", expanded=False):
        report = data.report.to_frame()
        show_table(report, hide_index=True, width="stretch", key="cluster.report")
        download_table(report, f"{large.key}_import_report.csv", key="cluster.dl.report",
                       label="Download import report (CSV)")


def cluster_agreement() -> None:
    """The Agreement page for a large dataset (then the page stops); nothing otherwise."""
    large = large_in_use()
    if large is None:
        return
    if _header(large):
        _agreement(large)
    st.stop()


def _forget(large: LargeDataset) -> None:
    """Drop the session's results of ``large`` (its files changed) and remember to say so."""
    st.session_state.setdefault(DATA_KEY, {}).pop(large.key, None)
    results = st.session_state.setdefault(RESULTS_KEY, {})
    for wanted in [w for w in results if w[0] == large.key]:
        del results[wanted]
    st.session_state.setdefault(STALE_KEY, set()).add(large.key)


def _loaded(large: LargeDataset, key: str, label: str):
    """``(fingerprint, ReducedDataset, summary)`` once the rows were reduced on the cluster (a
    button starts it, with progress and Stop) and the files still have that fingerprint, else
    None (after saying that the files changed, when they did)."""
    from hlv_core.scale import fingerprint

    try:
        now = fingerprint(large.path)  # before the files are read: a change meanwhile shows
    except DataError as error:
        from .state import show_data_error

        show_data_error(error)
        return None
    loaded = st.session_state.setdefault(DATA_KEY, {})
    if large.key in loaded and loaded[large.key][0] != now:
        _forget(large)
    if large.key not in loaded and (large.key, "load") not in _jobs():
        if large.key in st.session_state.get(STALE_KEY, ()):
            st.info("The files of this dataset changed on disk (names, sizes or modification "
                    "times) since its numbers were computed: those numbers are no longer shown. "
                    "Compute them again on the cluster.", icon=":material/update:")
        if st.button(label, type="primary", key=f"{key}.load", icon=":material/play_arrow:"):
            _start(large, "load", lambda job: (now, *_load_steps(large, job)), 2)
    result = _follow(large, "load", f"{key}.loading")
    if result is not None:
        loaded[large.key] = result
        if result[0] != now:  # the files changed while they were read
            _forget(large)
            st.rerun()
        st.session_state.setdefault(STALE_KEY, set()).discard(large.key)
    return loaded.get(large.key)


def _agreement(large: LargeDataset) -> None:
    from hlv_core import scale

    held = _loaded(large, "cluster.agreement", "Reduce the rows on the cluster")
    if held is None:
        return
    stamp, data = held[0], held[1]
    levels = list(LEVELS) if data.task == "rating" else ["nominal"]
    c1, c2, c3 = st.columns(3)
    forget_for_other_data("cluster.agreement.level", large.key, data.level)
    level = c1.selectbox("Level of measurement", levels, index=levels.index(data.level),
                         key="cluster.agreement.level", **SETTING)
    n_boot = int(c2.number_input("Bootstrap replicates", 0, 5000, 1000, 100,
                                 key="cluster.agreement.n_boot", **SETTING))
    seed = int(c3.number_input("Seed", 0, 2**31 - 1, 0, 1, key="cluster.agreement.seed",
                               **SETTING))
    wanted = (large.key, stamp, level, n_boot, seed)
    results = st.session_state.setdefault(RESULTS_KEY, {})

    def work(job: ClusterJob):
        job.step(f"alpha with {n_boot:,} bootstrap replicates (item rows of the reduced "
                 "counts) and the kappas")
        return wanted, scale.agreement_result(data, level=level, n_boot=n_boot, seed=seed)

    idle = wanted not in results and (large.key, "agreement") not in _jobs()
    if idle and st.button("Compute agreement", type="primary", key="cluster.agreement.run",
                          icon=":material/play_arrow:"):
        _start(large, "agreement", work, 1)
    done = _follow(large, "agreement", "cluster.agreement")
    if done is not None:
        results[done[0]] = done[1]
    result = results.get(wanted)
    if result is None:
        return
    alpha = result["alpha"]
    ci = (f"95% CI {result['ci_low']:.3f} – {result['ci_high']:.3f} ({n_boot:,} bootstrap "
          f"replicates, seed {seed})" if n_boot and result["ci_low"] == result["ci_low"]
          else "no bootstrap CI")
    st.metric(f"Krippendorff's α ({level})", "undefined" if alpha != alpha else f"{alpha:.3f}")
    st.caption(f"{ci} · {result['n_pairable_items']:,} pairable items, "
               f"{result['n_pairable_values']:,} values. "
               "Bootstrap: the item rows of the reduced item x label counts resampled with "
               "replacement (Krippendorff 2011).")
    if result.get("explanation"):
        st.markdown(md(result["explanation"]))
    table = pd.DataFrame({"measure": list(result), "value": [str(v) for v in result.values()]})
    show_table(table, hide_index=True, width="stretch", key="cluster.agreement.table")
    download_table(table, f"{large.key}_agreement_{level}.csv", key="cluster.dl.agreement",
                   label="Download agreement (CSV)")
