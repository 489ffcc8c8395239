"""Big files: a seeded 10 M-row annotation CSV, loaded by ``hlv_core.io.load`` and followed by
``summary()`` and Krippendorff's alpha, timed with its peak memory in a fresh process, against a
plain ``pandas.read_csv`` of the same file (best of N, same Dataset counts checked).

Run:
    python bench/bench_bigfile.py                 # 10 M rows (default), writes /tmp/hlv_big_10M.csv
    python bench/bench_bigfile.py --rows 1000000  # another size
    python bench/bench_bigfile.py --kernels-off   # also without the compiled kernels, alternating
    python bench/bench_bigfile.py --child PATH    # one measured run (used by the parent)

The file is generated in a process of its own before any measured child starts: the children's
peak RSS would otherwise start at the generator's (Linux carries ``ru_maxrss`` across fork/exec).

``--generator crowd`` measures ``bench_scale.py``'s crowd-platform file instead (``rows / 10``
items, 5..15 annotators each from a pool of 100,000 ids: at 10 M rows 100,000 annotators, where
annotators meet again and again, as on a crowd platform; ``/tmp/hlv_crowd_10M.csv``).

The default file: ``rows / 10`` items, each with 5..15 annotators (mean 10) drawn from a pool of ``rows /
2`` annotator ids (10 M rows: 1 M items, 5 M ids of which ~4.3 M occur, ~199 MiB); labels 0..4
with a per-item preferred label (60 %) and uniform noise, so alpha is moderate, not 0 or 1.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(path: Path, rows: int, seed: int = 15) -> Path:
    """Write the seeded synthetic long CSV ``item_id, annotator_id, label`` (about ``rows``
    rows; unique (item, annotator) cells so the file is valid multiclass data)."""
    rng = np.random.default_rng(seed)
    n_items = max(rows // 10, 1)
    pool = max(rows // 2, 16)
    per_item = rng.integers(5, 16, size=n_items)
    item = np.repeat(np.arange(n_items), per_item)
    annot = rng.integers(0, pool, size=len(item))
    # drop repeated (item, annotator) cells (rare with a big pool)
    key = item.astype(np.int64) * pool + annot
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(len(key), dtype=bool)
    keep[first] = True
    item, annot = item[keep], annot[keep]
    preferred = rng.integers(0, 5, size=n_items)[item]
    noise = rng.integers(0, 5, size=len(item))
    label = np.where(rng.random(len(item)) < 0.6, preferred, noise)
    import pyarrow as pa
    import pyarrow.csv as pacsv

    item_txt = np.char.add("it", item.astype(str))
    annot_txt = np.char.add("an", annot.astype(str))
    table = pa.table(
        {"item_id": item_txt, "annotator_id": annot_txt, "label": label.astype(str)}
    )
    pacsv.write_csv(table, path, pacsv.WriteOptions(quoting_style="none"))
    return path


def _child(path: str, reference: bool = False) -> None:
    """One measured run in a fresh process: load + summary + alpha; prints JSON. ``reference``:
    inside ``hlv_core._compiled.reference_only()`` (no compiled kernel: the dictionary parse and
    pandas' string hash, the path before the compiled factorisation and hash)."""
    import contextlib

    from hlv_core._compiled import reference_only
    from hlv_core.agreement import krippendorff_alpha
    from hlv_core.io import load

    start = time.perf_counter()
    with reference_only() if reference else contextlib.nullcontext():
        dataset = load(path)
    t_load = time.perf_counter() - start
    with reference_only() if reference else contextlib.nullcontext():
        summary = dataset.summary()
    t_summary = time.perf_counter() - start
    alpha = krippendorff_alpha(dataset.annotations)
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = usage.ru_maxrss * 1024
    print(json.dumps({
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "load_s": t_load, "summary_s": t_summary - t_load, "alpha_s": total - t_summary,
        "total_s": total, "peak_bytes": peak, "alpha": alpha,
        "n_annotations": summary["n_annotations"], "n_items": summary["n_items"],
        "n_annotators": summary["n_annotators"], "label_counts": summary["label_counts"],
    }))


def _reference(path: str) -> None:
    """Plain pandas in a fresh process: read_csv, then the same counts; prints JSON."""
    import pandas as pd

    start = time.perf_counter()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    counts = {
        "n_annotations": len(frame),
        "n_items": int(frame["item_id"].nunique()),
        "n_annotators": int(frame["annotator_id"].nunique()),
        "label_counts": {k: int(v) for k, v in frame["label"].value_counts().sort_index().items()},
    }
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"total_s": total, "cpu_s": usage.ru_utime + usage.ru_stime,
                      "peak_bytes": usage.ru_maxrss * 1024, **counts}))


def _polars(path: str) -> None:
    """polars in a fresh process (all its threads; CPU = user + sys of all): read_csv with
    string columns, then the same counts as :func:`_reference`; prints JSON."""
    import polars as pl

    start = time.perf_counter()
    frame = pl.read_csv(path, schema={"item_id": pl.String, "annotator_id": pl.String,
                                      "label": pl.String})
    labels = frame["label"].value_counts()
    counts = {
        "n_annotations": frame.height,
        "n_items": int(frame["item_id"].n_unique()),
        "n_annotators": int(frame["annotator_id"].n_unique()),
        "label_counts": {str(k): int(v) for k, v in sorted(zip(
            labels["label"].to_list(), labels["count"].to_list(), strict=True))},
    }
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"total_s": total, "cpu_s": usage.ru_utime + usage.ru_stime,
                      "peak_bytes": usage.ru_maxrss * 1024, **counts}))


def _run(mode: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, mode, str(path)], capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"{mode} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of N fresh processes")
    parser.add_argument("--child", metavar="PATH")
    parser.add_argument("--child-reference", metavar="PATH",
                        help="one run without the compiled kernels (used by the parent)")
    parser.add_argument("--kernels-off", action="store_true",
                        help="also time hlv without its compiled kernels, alternating")
    parser.add_argument("--reference", metavar="PATH")
    parser.add_argument("--polars", metavar="PATH", help="the polars reference (one child)")
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--generate", metavar="PATH", help="only write the file (used by the parent)")
    parser.add_argument("--generator", choices=("bigfile", "crowd"), default="bigfile",
                        help="crowd: bench_scale.py's crowd-platform file (100,000 annotators)")
    args = parser.parse_args()
    if args.generate:
        generate(Path(args.generate), args.rows)
        return None
    if args.child:
        return _child(args.child)
    if args.child_reference:
        return _child(args.child_reference, reference=True)
    if args.reference:
        return _reference(args.reference)
    if args.polars:
        return _polars(args.polars)
    stem = "hlv_big" if args.generator == "bigfile" else "hlv_crowd"
    path = Path(f"/tmp/{stem}_{args.rows // 1_000_000 or args.rows}"
                f"{'M' if args.rows >= 1_000_000 else ''}.csv")
    if not path.exists():
        # in a child of its own: Linux keeps the largest ru_maxrss of a process across fork and
        # exec, so generating here (a few GiB) would be reported as every later child's peak
        t0 = time.perf_counter()
        if args.generator == "bigfile":
            subprocess.run([sys.executable, __file__, "--generate", str(path), "--rows",
                            str(args.rows)], check=True)
        else:  # the sigma benchmark's crowd file, written the same way (a process of its own)
            sys.path.insert(0, str(ROOT / "bench"))
            from bench_sigma_big import generate as generate_crowd

            generate_crowd(path, args.rows, "crowd", 100_000)
        print(f"wrote {path} in {time.perf_counter() - t0:.1f} s (separate process)")
    size = path.stat().st_size
    runs, offs = [], []
    for _ in range(args.repeats):  # alternating when both sides run
        runs.append(_run("--child", path))
        if args.kernels_off:
            offs.append(_run("--child-reference", path))
    if offs:
        for key in ("n_annotations", "n_items", "n_annotators", "label_counts", "alpha"):
            assert offs[0][key] == runs[0][key], (key, offs[0][key], runs[0][key])
        off = min(offs, key=lambda r: r["total_s"])
        print(f"hlv without compiled kernels (best of {args.repeats}): {off['total_s']:.1f} s "
              f"(load {off['load_s']:.1f}, summary {off['summary_s']:.1f}, alpha "
              f"{off['alpha_s']:.1f}), CPU {min(r['cpu_s'] for r in offs):.1f} s; peak RSS "
              f"{max(r['peak_bytes'] for r in offs) / 2**30:.2f} GiB; counts and alpha equal")
    best = min(runs, key=lambda r: r["total_s"])
    print(f"file {path}: {size / 2**20:.0f} MiB, {best['n_annotations']:,} rows, "
          f"{best['n_items']:,} items, {best['n_annotators']:,} annotators; alpha "
          f"{best['alpha']:.4f}")
    print(f"hlv load + summary + alpha (best of {args.repeats} fresh processes): "
          f"{best['total_s']:.1f} s (load {best['load_s']:.1f}, summary "
          f"{best['summary_s']:.1f}, alpha {best['alpha_s']:.1f}), CPU "
          f"{min(r['cpu_s'] for r in runs):.1f} s (incl. imports); peak RSS "
          f"{max(r['peak_bytes'] for r in runs) / 2**30:.2f} GiB "
          f"({max(r['peak_bytes'] for r in runs) / best['n_annotations']:.0f} B/row)")
    if args.no_reference:
        return None
    refs = [_run("--reference", path) for _ in range(args.repeats)]
    ref = min(refs, key=lambda r: r["total_s"])
    for key in ("n_annotations", "n_items", "n_annotators", "label_counts"):
        assert ref[key] == best[key], (key, ref[key], best[key])
    print(f"pandas.read_csv(dtype=str) + nunique/value_counts (best of {args.repeats}): "
          f"{ref['total_s']:.1f} s, CPU {min(r['cpu_s'] for r in refs):.1f} s; peak RSS {max(r['peak_bytes'] for r in refs) / 2**30:.2f} GiB"
          f"  -> hlv/pandas time ratio {best['total_s'] / ref['total_s']:.2f}x; counts equal")
    try:
        import polars  # noqa: F401  (benchmark reference only: bench/requirements.txt)
    except ImportError:
        print("polars not installed (pip install -r bench/requirements.txt): no polars reference")
        return None
    pols = [_run("--polars", path) for _ in range(args.repeats)]
    for run in pols:
        for key in ("n_annotations", "n_items", "n_annotators", "label_counts"):
            assert run[key] == best[key], (key, run[key], best[key])
    hlv_cpu, pol_cpu = min(r["cpu_s"] for r in runs), min(r["cpu_s"] for r in pols)
    print(f"polars read_csv + n_unique/value_counts (best of {args.repeats}): "
          f"{min(r['total_s'] for r in pols):.1f} s, CPU {pol_cpu:.1f} s (all threads, incl. "
          f"import); peak RSS {max(r['peak_bytes'] for r in pols) / 2**30:.2f} GiB -> hlv load + "
          f"summary + alpha / polars load + counts CPU ratio {hlv_cpu / pol_cpu:.2f}x; counts equal")
    return None


if __name__ == "__main__":
    main()
