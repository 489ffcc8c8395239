"""Start-up cost of ``python -m hlv_core``: the command line as it is (imports only the module of
the command it runs) against the eager reference (every command module and its engine imported
before parsing, as the parser was built before), each in a fresh interpreter.

    python bench/bench_cli_import.py [--repeats 5]

CPU seconds of the child (user + system, ``RUSAGE_CHILDREN``), best of N on both sides,
alternating; the output (stdout, exit status) of both sides asserted equal.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core.samples import sample_path  # noqa: E402

EAGER = ("import sys\nfrom hlv_core.cli import build_parser, main\nbuild_parser()\n"
         "sys.exit(main(sys.argv[1:]))\n")


def _run(argv: list[str], eager: bool) -> tuple[float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [sys.executable, "-c", EAGER, *argv] if eager else [sys.executable, "-m", "hlv_core",
                                                              *argv]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.returncode, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    derm = str(sample_path("dermatology"))
    cases = {
        "--help": ["--help"],
        "summary (ratings sample)": ["summary", str(sample_path("ratings"))],
        "certainty (dermatology sample, --model prirn --samples 20)":
            ["certainty", derm, "--model", "prirn", "--samples", "20", "--seed", "0"],
    }
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| command | eager reference (CPU s) | lazy (CPU s) | ratio |")
    print("| --- | --- | --- | --- |")
    for name, argv in cases.items():
        best = {True: float("inf"), False: float("inf")}
        outputs = {}
        for _ in range(args.repeats):
            for eager in (True, False):
                cpu, rc, out = _run(argv, eager)
                best[eager] = min(best[eager], cpu)
                outputs.setdefault(eager, (rc, out))
                assert (rc, out) == outputs[eager], f"{name}: output changed between runs"
        assert outputs[True] == outputs[False], f"{name}: eager and lazy outputs differ"
        assert outputs[True][0] == 0, f"{name}: exit status {outputs[True][0]}"
        print(f"| `{name}` | {best[True]:.2f} | {best[False]:.2f} | "
              f"{best[True] / best[False]:.1f}x |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
