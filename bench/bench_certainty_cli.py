"""Benchmark: the default Plackett-Luce certainty command, this tree against a reference commit.

Run: ``python bench/bench_certainty_cli.py [--reference COMMIT] [--repeat N]``. Runs
``python -m hlv_core certainty sample_data/dermatology/dermatology_selectors.json --model pl``
(reliabilities 1, 3, 10, inf; 100 samples; seed 0) in child processes, the reference commit's
``hlv_core`` (extracted with ``git archive``) and this tree's alternately, best of N on both
sides. CPU = user + system time of the child (``resource.getrusage(RUSAGE_CHILDREN)``), wall =
``perf_counter``. The printed tables of both sides are asserted identical; the load average is
printed with every round.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["-m", "hlv_core", "certainty",
        str(ROOT / "sample_data" / "dermatology" / "dermatology_selectors.json"), "--model", "pl"]


def run(cwd: Path) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of one run of the command with ``cwd`` on the path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, *ARGS], cwd=cwd, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(cwd)}).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", default="aed90c4", help="commit of the reference code")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = Path(tmp)
        archive = subprocess.run(["git", "archive", args.reference, "hlv_core"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(ref_dir)], input=archive, check=True)
        best = {"reference": (float("inf"), float("inf")), "new": (float("inf"), float("inf"))}
        outputs = {}
        for i in range(args.repeat):
            for name, cwd in (("reference", ref_dir), ("new", ROOT)):
                load = os.getloadavg()[0]
                cpu, wall, out = run(cwd)
                outputs[name] = out
                best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
                print(f"round {i + 1} {name:9s}: {cpu:6.2f} s CPU, {wall:6.2f} s wall "
                      f"(load average {load:.1f})", flush=True)
    assert outputs["reference"] == outputs["new"], "printed tables differ"
    (rc, rw), (nc, nw) = best["reference"], best["new"]
    print(f"best of {args.repeat}: reference {args.reference} {rc:.2f} s CPU ({rw:.2f} s wall); "
          f"this tree {nc:.2f} s CPU ({nw:.2f} s wall); {rc / nc:.1f}x less CPU; printed "
          f"tables identical")
    print(outputs["new"])


if __name__ == "__main__":
    main()
