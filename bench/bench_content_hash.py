"""Benchmark: the content hash of a string dictionary, pandas against the compiled kernel
(``hlv_core._kernels.string_hashes``, numba), same process.

    python bench/bench_content_hash.py [--ids 5000000] [--repeat 5] [--file-rows 0] [--scale]

The dictionary is ``--ids`` distinct annotator ids spelled as ``bench_bigfile.py``'s generator
spells them (``an0`` .. ``an4999999``), held as the loader holds a categorical column's
categories: a pyarrow-backed ``str`` index. Timed with ``time.process_time``, best of N,
alternating:

* pandas: what ``Dataset.content_hash`` did before the kernel, ``pd.util.hash_array`` of the
  categories as Python strings (``np.asarray(..., dtype=object)`` in slices of 2**18,
  ``categorize=False``);
* kernel: ``hlv_core.io.dataset._compiled_strings_hash`` (the categories' Arrow buffers to the
  kernel, no Python string).

Also printed, once each: pandas' hashing alone on a prebuilt object array (the Python strings
made beforehand, not timed), and the first kernel call in this process (numba's import and the
cached machine code loaded, or compiled when the cache is cold) and in a fresh process with an
empty numba cache (compiling). With ``--file-rows N`` the big-file generator's CSV of N rows is
loaded and ``Dataset.content_hash`` timed with the kernel and under ``reference_only()``. With
``--scale`` the distributed content hash's string hash (``hlv_core.scale.reduce._hash_strings``,
the kernel) is timed against its former body (``hash_array`` of the whole dictionary as one
object array) on the same ids, given as the ``str`` index of a file's ids and as the object
array of a shuffled partition's items. Every pair of results is asserted equal; the load average
is printed beside every figure.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import cpu, load_avg  # noqa: E402  (bench/ is on sys.path when run as a script)
from _timing import race as timed_race  # noqa: E402

from hlv_core._compiled import kernels, reference_only  # noqa: E402
from hlv_core.io.dataset import _compiled_strings_hash, _utf8_buffers  # noqa: E402

FIRST_CALL = """
import time
start = time.process_time()
import pyarrow as pa
from hlv_core._compiled import kernels
from hlv_core.io.dataset import _utf8_buffers
kernels().string_hashes(*_utf8_buffers(pa.array(["an1"], pa.large_string())))
print(time.process_time() - start)
"""


def pandas_hash(categories: pd.Index) -> np.ndarray:
    """The content hash's former path: pandas over Python strings, in slices of 2**18."""
    step = 1 << 18
    return np.concatenate([np.zeros(0, dtype=np.uint64)] + [
        pd.util.hash_array(np.asarray(categories[start:start + step], dtype=object),
                           categorize=False)
        for start in range(0, len(categories), step)])


def hash_alone(categories: pd.Index) -> None:
    """pandas' ``hash_array`` on the ids made Python strings beforehand (not timed)."""
    objects = np.asarray(categories, dtype=object)
    t, ref = cpu(lambda: pd.util.hash_array(objects, categorize=False))
    print(f"pandas' hash_array alone on a prebuilt object array: {t:.3f} s CPU "
          f"({t / len(objects) * 1e9:.0f} ns a string; load average {load_avg()})")
    assert np.array_equal(ref, _compiled_strings_hash(categories))


def race(name, new, ref, repeat, per=None):
    """Best of ``repeat`` CPU seconds of both sides, alternating; results asserted equal."""
    def equal(a, b) -> bool:
        return (a == b) if isinstance(a, str) else (a.dtype == b.dtype and np.array_equal(a, b))

    best = timed_race(name, new, ref, repeat, same=equal, sides=("kernel", "pandas"), digits=3)
    each = (f" ({best['kernel'] / per * 1e9:.0f} vs {best['pandas'] / per * 1e9:.0f} ns a "
            "string)") if per else ""
    print(f"{name}: kernel {best['kernel']:.3f} s, pandas {best['pandas']:.3f} s CPU (best of "
          f"{repeat}): {best['pandas'] / best['kernel']:.1f}x{each}; equal", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ids", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--file-rows", type=int, default=0)
    parser.add_argument("--scale", action="store_true",
                        help="also the distributed content hash's string hash")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        before = load_avg()
        cold = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()
    print(f"first kernel call in a fresh process, empty numba cache (import + compile): "
          f"{float(cold):.2f} s CPU (load average {before} -> {load_avg()})")
    t, compiled = cpu(kernels)
    if compiled is None:
        sys.exit("numba is not installed: nothing to compare")
    t2, _ = cpu(lambda: compiled.string_hashes(*_utf8_buffers(pa.array(["an1"],
                                                                         pa.large_string()))))
    print(f"this process: numba's import {t:.2f} s CPU; first kernel call (cached machine code "
          f"loaded) {t2:.2f} s CPU (load average {load_avg()})")

    ids = np.char.add("an", np.arange(args.ids).astype(str))
    categories = pd.Index(ids, dtype="str")
    del ids
    print(f"{len(categories):,} distinct ids ({categories[0]} .. {categories[-1]}), "
          f"{categories.dtype} ({categories.dtype.storage}), "
          f"{categories.str.len().to_numpy().mean():.1f} bytes an id on average")
    race("dictionary", lambda: _compiled_strings_hash(categories),
         lambda: pandas_hash(categories), args.repeat, per=len(categories))
    hash_alone(categories)

    if args.scale:
        from hlv_core.scale.reduce import _hash_strings

        def former(values):  # the distributed path's string hash before the kernel
            return pd.util.hash_array(np.asarray(values, dtype=object), categorize=False)

        race("scale str", lambda: _hash_strings(categories), lambda: former(categories),
             args.repeat, per=len(categories))
        objects = np.asarray(categories, dtype=object)
        race("scale object", lambda: _hash_strings(objects), lambda: former(objects),
             args.repeat, per=len(objects))
        del objects

    if args.file_rows:
        sys.path.insert(0, str(ROOT / "bench"))
        from bench_bigfile import generate

        from hlv_core.io import load

        path = Path(f"/tmp/hlv_content_hash_{args.file_rows}.csv")
        if not path.exists():
            generate(path, args.file_rows)
        dataset = load(path)
        print(f"{path.name}: {len(dataset.annotations):,} rows, {dataset.n_items:,} items, "
              f"{dataset.n_annotators:,} annotators (load average {load_avg()})")

        def fresh_hash():
            dataset.__dict__.pop("content_hash", None)
            return dataset.content_hash

        def reference_hash():
            with reference_only():
                return fresh_hash()

        race("content_hash", fresh_hash, reference_hash, args.repeat)


if __name__ == "__main__":
    main()
