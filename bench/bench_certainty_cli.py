"""Benchmark: the default Plackett-Luce certainty command, this tree against a reference commit.

Run: ``python bench/bench_certainty_cli.py [--reference COMMIT] [--repeat N]``. Runs
``python -m hlv_core certainty sample_data/dermatology/dermatology_selectors.json --model pl``
(reliabilities 1, 3, 10, inf; 100 samples; seed 0) in child processes, the reference commit's
``hlv_core`` (extracted with ``git archive``) and this tree's alternately, best of N on both
sides. CPU = user + system time of the child (``resource.getrusage(RUSAGE_CHILDREN)``), wall =
``perf_counter``. The load average is printed with every round.

Equality: with ``--exact`` the printed tables of both sides are asserted identical (same random
stream). Otherwise (the Gibbs sampler's counts scheme draws the same posterior from another
random stream) every printed number of this tree must lie within ``--tolerance`` of the
reference's, and the reference is also run once at seed 1 to show its own seed-to-seed spread
(the Monte Carlo error the difference is compared with).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["-m", "hlv_core", "certainty",
        str(ROOT / "sample_data" / "dermatology" / "dermatology_selectors.json"), "--model", "pl"]


def run(cwd: Path, seed: int = 0) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of one run of the command with ``cwd`` on the path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, *ARGS, "--seed", str(seed)], cwd=cwd,
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(cwd)}).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out


def table(out: str) -> pd.DataFrame:
    """The printed certainty table (reliability x columns) of one run."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Mean annotation"))
    body = [line for line in lines[start + 1:] if line.strip()]
    header = body[0].split()
    rows = [line.split() for line in body[2:2 + 4]]
    frame = pd.read_csv(io.StringIO("\n".join(",".join(r) for r in rows)), header=None)
    frame.columns = ["reliability", *header]
    return frame.set_index("reliability")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", default="d9fe237", help="commit of the reference code")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--exact", action="store_true", help="assert identical tables")
    parser.add_argument("--tolerance", type=float, default=0.02)
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
        if not args.exact:
            outputs["reference seed 1"] = run(ref_dir, seed=1)[2]
    (rc, rw), (nc, nw) = best["reference"], best["new"]
    if args.exact:
        assert outputs["reference"] == outputs["new"], "printed tables differ"
        check = "printed tables identical"
    else:
        ref, new, ref1 = (table(outputs[k]) for k in ("reference", "new", "reference seed 1"))
        diff = (new - ref).abs().to_numpy().max()
        spread = (ref1 - ref).abs().to_numpy().max()
        print("this tree minus reference (seed 0):\n" + (new - ref).round(4).to_string())
        print("reference seed 1 minus seed 0:\n" + (ref1 - ref).round(4).to_string())
        assert diff <= args.tolerance, f"printed numbers differ by {diff:.4f}"
        check = (f"printed numbers within {diff:.4f} of the reference's (its own seed 0 vs 1 "
                 f"spread: {spread:.4f}; tolerance {args.tolerance})")
    print(f"best of {args.repeat}: reference {args.reference} {rc:.2f} s CPU ({rw:.2f} s wall); "
          f"this tree {nc:.2f} s CPU ({nw:.2f} s wall); {rc / nc:.1f}x less CPU; {check}")
    print(outputs["new"])


if __name__ == "__main__":
    main()
