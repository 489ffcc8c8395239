"""The distributed engine (``hlv_core.scale``) against the in-memory engine: load + summary +
nominal alpha with a 1,000-replicate bootstrap CI, CPU, wall and peak memory of every process.

Run:
    python bench/bench_scale.py                      # 10 M rows, 10 Parquet files
    python bench/bench_scale.py --rows 100000000     # 100 M rows (no in-memory run past 20 M)

Data (seeded), written by a separate generator process two files at a time (never the whole
table in memory): ``rows-per-file / 10`` items per file with 5..15 annotators each (mean 10) from
a pool of ``--pool`` annotator ids (default 100,000: a crowd platform), labels 0..4 with a
preferred label per item (60 %) and uniform noise; files of ``--rows-per-file`` rows (default
1 M) in pairs with their own seed, 10 % of each file's rows moved to the other file of its pair,
so items are split across files and the 10 M set is byte for byte the first 10 files of the
100 M set (the 10 M run's check against the in-memory engine is the 100 M set's subsample check).
Up to 20 M rows the same rows are also written as one CSV for the in-memory engine
(``hlv_core.io.load``, its fastest reader).

Processes: a scheduler and ``--workers`` workers (1 thread each, ``--memory-limit`` each)
started as separate processes (``python -m distributed.cli.dask_scheduler`` / ``dask_worker``)
and a client process running ``hlv_core.scale`` (every step on the cluster); each one's CPU
(user + system) and peak resident memory (``VmHWM``) is reported, and a monitor samples them
every 10 s with the scheduler's finished tasks by kind (``progress_<rows>.log``): the compute
seconds per partition of every step, and where a run stopped by ``--max-wall`` got to. The
in-memory engine runs in its own fresh process. Values are asserted equal (counts and content
hash identical, alpha to 1e-12, CI endpoints to 0.005).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _file_rows(rng, first: int, n_items: int, pool: int, annotators, items_text):
    """One file's own rows before the exchange: ``n_items`` items from ``first``, 5..15
    distinct annotators each, labels 0..4 (a preferred label per item 60 % of the time)."""
    import pyarrow as pa

    per_item = rng.integers(5, 16, size=n_items)
    local = np.repeat(np.arange(n_items), per_item)
    # distinct annotators within an item: pool offsets without repeats inside the item
    start = rng.integers(0, pool, size=n_items)[local]
    within = np.arange(len(local)) - np.repeat(np.cumsum(per_item) - per_item, per_item)
    annot = (start + within * 7919) % pool
    preferred = rng.integers(0, 5, size=n_items)[local]
    label = np.where(rng.random(len(local)) < 0.6, preferred, rng.integers(0, 5, size=len(local)))
    items = pa.array(np.char.add("it", np.arange(first, first + n_items).astype(str)))
    return pa.table({
        "item_id": pa.DictionaryArray.from_arrays(pa.array(local, pa.int32()), items),
        "annotator_id": pa.DictionaryArray.from_arrays(pa.array(annot, pa.int32()), annotators),
        "label": pa.DictionaryArray.from_arrays(pa.array(label, pa.int32()), items_text),
    })


def generate(folder: Path, rows: int, *, pool: int, rows_per_file: int, seed: int = 29,
             csv: Path | None = None) -> None:
    """Write the seeded Parquet files (and, with ``csv``, the same rows as one CSV), two files at
    a time: never more than two files' rows in memory.

    Files come in pairs (0-1, 2-3, ...), each pair from its own seed ``(seed, pair)``: 10 % of
    each file's rows move to the other file of its pair, so items are split across files, and
    the first ``2n`` files of a larger set are byte for byte the ``2n``-file set (the 10 M set is
    the first 10 files of the 100 M set: a subsample the in-memory engine can check).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    n_files = max(rows // rows_per_file, 1)
    per_file = max(rows_per_file // 10, 1)  # mean 10 annotators an item
    annotators = pa.array(np.char.add("an", np.arange(pool).astype(str)))
    labels = pa.array([str(k) for k in range(5)])
    writer = None
    for pair in range(0, n_files, 2):
        rng = np.random.default_rng([seed, pair // 2])
        own = [_file_rows(rng, j * per_file, per_file, pool, annotators, labels)
               for j in range(pair, min(pair + 2, n_files))]
        if len(own) == 2:
            moved = [pa.array(rng.random(t.num_rows) < 0.1) for t in own]
            own = [pa.concat_tables([own[0].filter(pa.compute.invert(moved[0])),
                                     own[1].filter(moved[1])]).unify_dictionaries(),
                   pa.concat_tables([own[1].filter(pa.compute.invert(moved[1])),
                                     own[0].filter(moved[0])]).unify_dictionaries()]
        for j, table in enumerate(own):
            table = table.combine_chunks()
            pq.write_table(table, folder / f"part-{pair + j:04d}.parquet")
            if csv is not None:
                if writer is None:
                    writer = pacsv.CSVWriter(csv, table.schema, write_options=pacsv.WriteOptions(
                        quoting_style="none"))
                writer.write_table(table)
        del own
    if writer is not None:
        writer.close()


def _peak_and_cpu(pid: int) -> tuple[float, float]:
    """(peak resident bytes, CPU seconds) of a running process (Linux /proc)."""
    import psutil

    with open(f"/proc/{pid}/status") as fh:
        hwm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM"))
    cpu = psutil.Process(pid).cpu_times()
    return hwm, cpu.user + cpu.system


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tally_plugin():
    """A scheduler plugin counting finished tasks and their compute seconds by task prefix
    (``read_file``, ``scan_codes``, ``code_rows``, ``reduce_bucket``; with kept rows the
    shuffle's): where a run is and how long one partition takes, even if it is stopped."""
    from distributed.diagnostics.plugin import SchedulerPlugin
    from distributed.utils import key_split

    class Tally(SchedulerPlugin):
        name = "hlv-bench-tally"

        def __init__(self):
            self.done: dict[str, list[float]] = {}

        def transition(self, key, start, finish, *args, **kwargs):
            if start == "processing" and finish == "memory":
                seconds = sum(s["stop"] - s["start"] for s in kwargs.get("startstops", ())
                              if s.get("action") == "compute")
                entry = self.done.setdefault(key_split(key), [0, 0.0])
                entry[0] += 1
                entry[1] += seconds

    return Tally()


def _tally(dask_scheduler=None) -> dict:
    plugin = dask_scheduler.plugins.get("hlv-bench-tally")
    return {} if plugin is None else {k: list(v) for k, v in plugin.done.items()}


class _Monitor(threading.Thread):
    """Samples every process's resident memory and CPU, and the scheduler's task tally, every
    ``every`` seconds into ``log`` (one line each), keeping the last sample and the peaks."""

    def __init__(self, procs: dict, client, log: Path, every: float = 10.0):
        super().__init__(daemon=True)
        self.procs, self.client, self.log, self.every = procs, client, log, every
        self.halt = threading.Event()
        self.last: dict = {}
        self.started = time.perf_counter()

    def sample(self) -> dict:
        import psutil

        now = {"t": round(time.perf_counter() - self.started, 1),
               "load": _load()}
        for name, pid in self.procs.items():
            try:
                proc = psutil.Process(pid)
                cpu = proc.cpu_times()
                now[name] = (round(proc.memory_info().rss / 2**30, 2),
                             round(cpu.user + cpu.system, 1))
            except psutil.Error:
                now[name] = None
        with contextlib.suppress(Exception):  # the scheduler gone: memory and CPU only
            now["tasks"] = self.client.run_on_scheduler(_tally)
        return now

    def run(self) -> None:
        with self.log.open("a") as fh:
            while not self.halt.wait(self.every):
                self.last = self.sample()
                fh.write(json.dumps(self.last) + "\n")
                fh.flush()


def _client(address: str, folder: str) -> None:
    """The client process: load + summary + nominal alpha with 1,000 replicates, all on the
    cluster; each step's end on stderr as it happens; the results as JSON on stdout."""
    from hlv_core import scale

    start = time.perf_counter()

    def mark(step: str) -> float:
        seconds = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_SELF)
        print(f"client: {step} done at {seconds:.1f} s (client CPU "
              f"{usage.ru_utime + usage.ru_stime:.1f} s, peak {usage.ru_maxrss / 2**20:.2f} GiB)",
              file=sys.stderr, flush=True)
        return seconds

    with scale.dask_client(address):
        data = scale.load(folder)
        t_load = mark("load (dictionaries, partial sums per item bucket, counts)")
        summary = scale.summary(data)
        t_summary = mark("summary (streamed content hash)")
        result = scale.agreement_result(data, level="nominal", n_boot=1000, seed=0)
        total = mark("nominal alpha + 1,000-replicate CI")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"load_s": t_load, "summary_s": t_summary - t_load,
                      "alpha_s": total - t_summary, "total_s": total,
                      "cpu_s": usage.ru_utime + usage.ru_stime,
                      "peak_bytes": usage.ru_maxrss * 1024, "summary": summary,
                      "agreement": result}, default=float))


def _memory(path: str) -> None:
    """The in-memory engine in a fresh process: the same three steps; prints JSON."""
    from hlv_core.agreement import alpha_report
    from hlv_core.io import load

    start = time.perf_counter()
    dataset = load(path)
    t_load = time.perf_counter() - start
    summary = dataset.summary()
    rep = alpha_report(dataset.annotations, level="nominal", n_boot=1000, seed=0).as_dict()
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"load_s": t_load, "total_s": total,
                      "cpu_s": usage.ru_utime + usage.ru_stime,
                      "peak_bytes": usage.ru_maxrss * 1024, "summary": summary,
                      "agreement": rep}, default=float))


def _json_of(proc: subprocess.CompletedProcess) -> dict:
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _generate_process(folder: str, rows: int, pool: int, rows_per_file: int, csv: str) -> None:
    """The generator in its own process; prints its wall, CPU and peak as JSON."""
    start = time.perf_counter()
    generate(Path(folder), rows, pool=pool, rows_per_file=rows_per_file,
             csv=Path(csv) if csv else None)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"wall_s": time.perf_counter() - start,
                      "cpu_s": usage.ru_utime + usage.ru_stime,
                      "peak_bytes": usage.ru_maxrss * 1024}))


def run_distributed(folder: Path, workers: int, memory_limit: str, base: Path, tag: str,
                    max_wall: float) -> dict:
    """Scheduler, workers and client as separate processes; the client stopped after
    ``max_wall`` seconds (then ``stopped`` is True and ``reached`` holds the monitor's last
    sample: memory, CPU and the finished tasks by kind)."""
    from distributed import Client

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = [sys.executable, "-m"]
    log = base / f"dask_{tag}.log"
    procs = {"scheduler": subprocess.Popen(
        [*start, "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--no-dashboard"], stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)}
    try:
        time.sleep(3)
        for i in range(workers):
            procs[f"worker {i + 1}"] = subprocess.Popen(
                [*start, "distributed.cli.dask_worker", address, "--nthreads", "1",
                 "--memory-limit", memory_limit, "--no-dashboard", "--no-nanny",
                 "--host", "127.0.0.1", "--local-directory", str(base / f"dask-worker-{i}")],
                stdout=log.open("a"), stderr=subprocess.STDOUT, env=env)
        with Client(address, timeout="60s") as watcher:
            watcher.wait_for_workers(workers, timeout=120)
            watcher.register_plugin(_tally_plugin())
            out_path, err_path = base / f"client_{tag}.json", base / f"client_{tag}.log"
            wall = time.perf_counter()
            client = subprocess.Popen(
                [sys.executable, __file__, "--client", address, str(folder)],
                stdout=out_path.open("w"), stderr=err_path.open("w"), env=env)
            monitor = _Monitor({**{n: p.pid for n, p in procs.items()}, "client": client.pid},
                               watcher, base / f"progress_{tag}.log")
            monitor.start()
            try:
                client.wait(timeout=max_wall)
                stopped = False
            except subprocess.TimeoutExpired:
                stopped = True
                final = monitor.sample()  # before anything is killed
                client.kill()
                client.wait()
            monitor.halt.set()
            elapsed = time.perf_counter() - wall
            tally = watcher.run_on_scheduler(_tally)
            processes = {name: _peak_and_cpu(p.pid) for name, p in procs.items()}
        steps = err_path.read_text().splitlines()
        if stopped:
            return {"stopped": True, "wall_s": elapsed, "reached": final, "tasks": tally,
                    "steps": [s for s in steps if s.startswith("client:")],
                    "processes": processes}
        if client.returncode:
            raise SystemExit("\n".join(steps[-40:]))
        out = json.loads(out_path.read_text().strip().splitlines()[-1])
        out.update(stopped=False, wall_s=elapsed, tasks=tally, processes=processes,
                   steps=[s for s in steps if s.startswith("client:")])
        return out
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()


def _check(distributed: dict, memory: dict) -> None:
    a, b = distributed["summary"], memory["summary"]
    for key in ("n_items", "n_annotators", "n_annotations", "labels", "label_counts",
                "annotators_per_item", "task", "level", "content_hash"):
        assert a[key] == b[key], (key, a[key], b[key])
    assert abs(a["mean_entropy"] - b["mean_entropy"]) < 1e-12
    x, y = distributed["agreement"], memory["agreement"]
    assert abs(x["alpha"] - y["alpha"]) < 1e-12, (x["alpha"], y["alpha"])
    assert abs(x["ci_low"] - y["ci_low"]) < 0.005 and abs(x["ci_high"] - y["ci_high"]) < 0.005


def _load() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def _gib(n: float) -> str:
    return f"{n / 2**30:5.2f} GiB"


def _per_partition(tasks: dict, n_files: int, rows: float) -> None:
    """Compute seconds per partition by task kind, from the scheduler's tally."""
    total = 0.0
    for prefix, (count, seconds) in sorted(tasks.items(), key=lambda kv: -kv[1][1]):
        if seconds >= 0.5:
            print(f"  {prefix:<34} {count:6d} tasks {seconds:8.1f} s compute "
                  f"({seconds / n_files:6.2f} s a partition)")
        total += seconds
    print(f"  all tasks: {total:.1f} s compute = {total / n_files:.2f} s a partition of "
          f"{rows / n_files / 1e6:.2f} M rows ({rows / n_files / max(total / n_files, 1e-9) / 1e6:.3f}"
          " M rows per compute second on a worker)")


def _same_files(small: Path, large: Path) -> bool | None:
    """Whether the files of ``small`` are byte for byte the first files of ``large`` (None when
    ``small`` is missing)."""
    import hashlib

    if not small.exists():
        return None
    names = sorted(p.name for p in small.iterdir())
    return all(hashlib.md5((small / n).read_bytes()).digest()
               == hashlib.md5((large / n).read_bytes()).digest() for n in names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rows-per-file", type=int, default=1_000_000)
    parser.add_argument("--pool", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="4GB", help="per worker")
    parser.add_argument("--dir", default="/tmp/hlv_scale")
    parser.add_argument("--max-wall", type=float, default=3600.0,
                        help="stop the Dask client after this many seconds and report how far "
                        "it got")
    parser.add_argument("--no-memory", action="store_true", help="skip the in-memory engine")
    parser.add_argument("--client", nargs=2, metavar=("ADDRESS", "FOLDER"))
    parser.add_argument("--memory", metavar="CSV")
    parser.add_argument("--generate", nargs=2, metavar=("FOLDER", "CSV"))
    args = parser.parse_args()
    if args.client:
        return _client(*args.client)
    if args.memory:
        return _memory(args.memory)
    if args.generate:
        return _generate_process(args.generate[0], args.rows, args.pool, args.rows_per_file,
                                 args.generate[1])
    base = Path(args.dir)
    base.mkdir(parents=True, exist_ok=True)
    tag = f"{args.rows // 1_000_000}M" if args.rows >= 1_000_000 else str(args.rows)
    folder, csv = base / f"parts_{tag}", base / f"all_{tag}.csv"
    in_memory = not args.no_memory and args.rows <= 20_000_000
    print(f"load average at the start: {_load()}", flush=True)
    if not folder.exists():
        gen = _json_of(subprocess.run(
            [sys.executable, __file__, "--rows", str(args.rows), "--pool", str(args.pool),
             "--rows-per-file", str(args.rows_per_file), "--generate", str(folder),
             str(csv) if in_memory else ""], capture_output=True, text=True))
        print(f"generator (own process, two files at a time): wrote {folder} in "
              f"{gen['wall_s']:.0f} s wall, {gen['cpu_s']:.0f} s CPU, peak "
              f"{_gib(gen['peak_bytes'])}", flush=True)
    n_files = len(list(folder.iterdir()))
    size = sum(p.stat().st_size for p in folder.iterdir())
    dist = run_distributed(folder, args.workers, args.memory_limit, base, tag, args.max_wall)
    (base / f"result_{tag}.json").write_text(json.dumps(dist, default=float, indent=1))
    print(f"load average at the end of the Dask run: {_load()}")
    print(f"dask ({args.workers} workers x 1 thread, {args.memory_limit} each): wall "
          f"{dist['wall_s']:.1f} s")
    for step in dist["steps"]:
        print("  " + step)
    client_peak = dist.get("peak_bytes", 0.0)
    if not dist["stopped"]:
        print(f"  client     CPU {dist['cpu_s']:7.1f} s  peak {_gib(client_peak)}")
    for name, (peak, cpu) in dist["processes"].items():
        print(f"  {name:<10} CPU {cpu:7.1f} s  peak {_gib(peak)}")
    rows = args.rows if dist["stopped"] else dist["summary"]["n_annotations"]
    _per_partition(dist["tasks"], n_files, rows)
    if dist["stopped"]:
        print(f"STOPPED after {dist['wall_s']:.0f} s (--max-wall): {tag} rows not measured; "
              f"last sample (GiB resident, CPU s): {json.dumps(dist['reached'])}")
        return None
    s, a = dist["summary"], dist["agreement"]
    all_cpu = dist["cpu_s"] + sum(cpu for _, cpu in dist["processes"].values())
    largest = max([client_peak, *(p for p, _ in dist["processes"].values())])
    print(f"{tag} rows: {n_files} Parquet files, {size / 2**20:.0f} MiB; "
          f"{s['n_annotations']:,} rows, {s['n_items']:,} items, {s['n_annotators']:,} "
          f"annotators; nominal alpha {a['alpha']:.6f} [{a['ci_low']:.4f}, {a['ci_high']:.4f}]; "
          f"all processes CPU {all_cpu:.1f} s, largest peak {_gib(largest)}")
    if not in_memory:
        small = base / "parts_10M"
        same = _same_files(small, folder)
        print("10 M subsample: " + (
            f"{small} not there (run the 10 M benchmark first)" if same is None else
            "the 10 M set is byte for byte the first 10 files of this set; the 10 M run checks "
            "it against the in-memory engine" if same else
            "the 10 M set differs from this set's first files (different generator settings)"))
        return None
    mem = _json_of(subprocess.run([sys.executable, __file__, "--memory", str(csv)],
                                  capture_output=True, text=True))
    _check(dist, mem)
    print(f"in memory (one process): wall {mem['total_s']:.1f} s (load {mem['load_s']:.1f} s), "
          f"CPU {mem['cpu_s']:.1f} s, peak {_gib(mem['peak_bytes'])}")
    print(f"dask / in-memory: wall {dist['wall_s'] / mem['total_s']:.2f}x, CPU (all processes) "
          f"{all_cpu / mem['cpu_s']:.2f}x, largest process peak "
          f"{largest / mem['peak_bytes']:.2f}x; values equal (counts and content hash identical, "
          "alpha to 1e-12, CI to 0.005)")
    print(f"load average at the end: {_load()}")
    return None


if __name__ == "__main__":
    main()
