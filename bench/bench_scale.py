"""The distributed engine (``hlv_core.scale``) against the in-memory engine: load + summary +
nominal alpha with a 1,000-replicate bootstrap CI, CPU, wall and peak memory of every process.

Run:
    python bench/bench_scale.py                      # 10 M rows, 10 Parquet files
    python bench/bench_scale.py --rows 100000000     # 100 M rows (no in-memory run past 20 M)

Data (seeded): ``rows / 10`` items with 5..15 annotators each (mean 10) from a pool of
``--pool`` annotator ids (default 100,000: a crowd platform), labels 0..4 with a preferred label
per item (60 %) and uniform noise; files of ``--rows-per-file`` rows (default 1 M), 10 % of each
file's rows moved to the next file, so items are split across files. The same rows are written
once as one CSV for the in-memory engine (``hlv_core.io.load``, its fastest reader).

Processes: a scheduler and ``--workers`` workers (1 thread each, ``--memory-limit`` each)
started as separate processes (``python -m distributed.cli.dask_scheduler`` / ``dask_worker``)
and a client process running ``hlv_core.scale``; each one's CPU (user + system) and peak
resident memory (``VmHWM``) is reported. The in-memory engine runs in its own fresh process.
Values are asserted equal (counts identical, alpha to 1e-12, CI endpoints to 0.005).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(folder: Path, rows: int, *, pool: int, rows_per_file: int, seed: int = 29,
             csv: Path | None = None) -> None:
    """Write the seeded Parquet files (and, with ``csv``, the same rows as one CSV)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_files = max(rows // rows_per_file, 1)
    items_per_file = max(rows // 10 // n_files, 1)
    carry = None
    writer = None
    for j in range(n_files):
        first = j * items_per_file
        per_item = rng.integers(5, 16, size=items_per_file)
        item = np.repeat(np.arange(first, first + items_per_file), per_item)
        # distinct annotators within an item: pool offsets without repeats inside the item
        start = rng.integers(0, pool, size=items_per_file)[item - first]
        within = np.arange(len(item)) - np.repeat(np.cumsum(per_item) - per_item, per_item)
        annot = (start + within * 7919) % pool
        preferred = rng.integers(0, 5, size=items_per_file)[item - first]
        label = np.where(rng.random(len(item)) < 0.6, preferred,
                         rng.integers(0, 5, size=len(item)))
        table = pa.table({"item_id": np.char.add("it", item.astype(str)),
                          "annotator_id": np.char.add("an", annot.astype(str)),
                          "label": label.astype(str)})
        moved = rng.random(table.num_rows) < 0.1
        stay, move = table.filter(pa.array(~moved)), table.filter(pa.array(moved))
        if carry is not None:
            stay = pa.concat_tables([carry, stay])
        carry = move
        if j == n_files - 1:
            stay = pa.concat_tables([stay, carry])
        pq.write_table(stay, folder / f"part-{j:04d}.parquet")
        if csv is not None:
            if writer is None:
                writer = pacsv.CSVWriter(csv, stay.schema,
                                         write_options=pacsv.WriteOptions(quoting_style="none"))
            writer.write_table(stay)
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


def _client(address: str, folder: str) -> None:
    """The client process: load + summary + nominal alpha with 1,000 replicates; prints JSON."""
    from hlv_core import scale

    start = time.perf_counter()
    with scale.dask_client(address):
        data = scale.load(folder)
    t_load = time.perf_counter() - start
    summary = scale.summary(data)
    result = scale.agreement_result(data, level="nominal", n_boot=1000, seed=0)
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"load_s": t_load, "total_s": total,
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


def run_distributed(folder: Path, workers: int, memory_limit: str, log: Path) -> dict:
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = [sys.executable, "-m"]
    procs = {"scheduler": subprocess.Popen(
        [*start, "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--no-dashboard"], stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)}
    try:
        time.sleep(3)
        for i in range(workers):
            procs[f"worker {i + 1}"] = subprocess.Popen(
                [*start, "distributed.cli.dask_worker", address, "--nthreads", "1",
                 "--memory-limit", memory_limit, "--no-dashboard", "--no-nanny",
                 "--host", "127.0.0.1",
                 "--local-directory", str(log.parent / f"dask-worker-{i}")],
                stdout=log.open("a"), stderr=subprocess.STDOUT, env=env)
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
        wall = time.perf_counter()
        out = _json_of(subprocess.run(
            [sys.executable, __file__, "--client", address, str(folder)],
            capture_output=True, text=True, env=env))
        out["wall_s"] = time.perf_counter() - wall
        out["processes"] = {name: _peak_and_cpu(p.pid) for name, p in procs.items()}
        return out
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()


def _check(distributed: dict, memory: dict) -> None:
    a, b = distributed["summary"], memory["summary"]
    for key in ("n_items", "n_annotators", "n_annotations", "labels", "label_counts",
                "annotators_per_item", "task", "level"):
        assert a[key] == b[key], (key, a[key], b[key])
    assert abs(a["mean_entropy"] - b["mean_entropy"]) < 1e-12
    x, y = distributed["agreement"], memory["agreement"]
    assert abs(x["alpha"] - y["alpha"]) < 1e-12, (x["alpha"], y["alpha"])
    assert abs(x["ci_low"] - y["ci_low"]) < 0.005 and abs(x["ci_high"] - y["ci_high"]) < 0.005


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rows-per-file", type=int, default=1_000_000)
    parser.add_argument("--pool", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="4GB", help="per worker")
    parser.add_argument("--dir", default="/tmp/hlv_scale")
    parser.add_argument("--no-memory", action="store_true", help="skip the in-memory engine")
    parser.add_argument("--client", nargs=2, metavar=("ADDRESS", "FOLDER"))
    parser.add_argument("--memory", metavar="CSV")
    args = parser.parse_args()
    if args.client:
        return _client(*args.client)
    if args.memory:
        return _memory(args.memory)
    base = Path(args.dir)
    tag = f"{args.rows // 1_000_000}M" if args.rows >= 1_000_000 else str(args.rows)
    folder, csv = base / f"parts_{tag}", base / f"all_{tag}.csv"
    in_memory = not args.no_memory and args.rows <= 20_000_000
    if not folder.exists():
        t0 = time.perf_counter()
        generate(folder, args.rows, pool=args.pool, rows_per_file=args.rows_per_file,
                 csv=csv if in_memory else None)
        print(f"wrote {folder} in {time.perf_counter() - t0:.0f} s")
    size = sum(p.stat().st_size for p in folder.iterdir())
    dist = run_distributed(folder, args.workers, args.memory_limit, base / f"dask_{tag}.log")
    s, a = dist["summary"], dist["agreement"]
    print(f"{tag} rows: {len(list(folder.iterdir()))} Parquet files, {size / 2**20:.0f} MiB; "
          f"{s['n_annotations']:,} rows, {s['n_items']:,} items, {s['n_annotators']:,} "
          f"annotators; nominal alpha {a['alpha']:.6f} [{a['ci_low']:.4f}, {a['ci_high']:.4f}]")
    print(f"dask ({args.workers} workers x 1 thread, {args.memory_limit} each): wall "
          f"{dist['wall_s']:.1f} s (client: load {dist['load_s']:.1f} s, total "
          f"{dist['total_s']:.1f} s)")
    client_peak = dist["peak_bytes"]
    print(f"  client     CPU {dist['cpu_s']:7.1f} s  peak {client_peak / 2**30:5.2f} GiB")
    for name, (peak, cpu) in dist["processes"].items():
        print(f"  {name:<10} CPU {cpu:7.1f} s  peak {peak / 2**30:5.2f} GiB")
    n_files = len(list(folder.iterdir()))
    all_cpu = dist["cpu_s"] + sum(cpu for _, cpu in dist["processes"].values())
    per_part = all_cpu / n_files
    print(f"per partition ({s['n_annotations'] / n_files / 1e6:.2f} M rows): {per_part:.1f} CPU s "
          f"over all processes, {s['n_annotations'] / all_cpu / 1e6:.3f} M rows per CPU second; "
          f"at this rate 100 M rows need {per_part * 1e8 / (s['n_annotations'] / n_files) / 60:.0f}"
          " CPU minutes (an extrapolation, not a measurement)")
    if not in_memory:
        print("in-memory engine: not run at this size")
        return None
    mem = _json_of(subprocess.run([sys.executable, __file__, "--memory", str(csv)],
                                  capture_output=True, text=True))
    _check(dist, mem)
    total_cpu = dist["cpu_s"] + sum(cpu for _, cpu in dist["processes"].values())
    print(f"in memory (one process): wall {mem['total_s']:.1f} s (load {mem['load_s']:.1f} s), "
          f"CPU {mem['cpu_s']:.1f} s, peak {mem['peak_bytes'] / 2**30:.2f} GiB")
    print(f"dask / in-memory: wall {dist['wall_s'] / mem['total_s']:.2f}x, CPU (all processes) "
          f"{total_cpu / mem['cpu_s']:.2f}x, largest process peak "
          f"{max([client_peak, *(p for p, _ in dist['processes'].values())]) / mem['peak_bytes']:.2f}x"
          "; values equal (counts identical, alpha to 1e-12, CI to 0.005)")
    return None


if __name__ == "__main__":
    main()
