"""Benchmark: Dawid-Skene and one-coin DS to their fixed point, SQUAREM against plain EM.

Run: ``python bench/bench_em_acceleration.py [--repeat 3] [--data md_agreement multipico csc]``.

The reference is the plain EM iteration (``accelerate=False``), the textbook algorithm a
competent user runs to convergence, with this project's own vectorised steps on both sides (per
iteration already ~40x faster than crowd-kit 1.4.2: ``bench/bench_competence.py``). Both run
the public fits (``competence.dawid_skene`` / ``one_coin_dawid_skene``, tol 1e-10, at most
10,000 iterations) in this process, alternating, best of ``--repeat`` CPU seconds a side, the
fit memo cleared before every run. Where both converge, the posteriors and confusions are
asserted equal to 1e-7 and the hard labels identical; where plain EM stops at its cap without
converging, that is printed and only the accelerated fit's convergence is asserted.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import race  # noqa: E402

from hlv_core import competence as C  # noqa: E402

FITS = {"ds": C.dawid_skene, "one-coin": C.one_coin_dawid_skene}


def fit(fn, frame: pd.DataFrame, accelerate: bool) -> C.CompetenceResult:
    C._FITS.clear()  # no remembered fit: every run does the work
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(frame, accelerate=accelerate)


def same(fast: C.CompetenceResult, plain: C.CompetenceResult) -> bool:
    """Equal fits where both converged (plain EM at its cap: the accelerated one converged)."""
    if not plain.converged:
        return fast.converged
    return bool(fast.converged
                and np.abs(fast.posteriors.to_numpy() - plain.posteriors.to_numpy()).max() < 1e-7
                and np.abs(fast.confusion_array - plain.confusion_array).max() < 1e-7
                and fast.labels.equals(plain.labels))


def compare(name: str, frame: pd.DataFrame, model: str, repeat: int) -> None:
    fn = FITS[model]
    outs: dict[str, C.CompetenceResult] = {}

    def fast_run():
        outs["fast"] = fit(fn, frame, True)
        return outs["fast"]

    def plain_run():
        outs["plain"] = fit(fn, frame, False)
        return outs["plain"]

    best = race(f"{name} {model}", fast_run, plain_run, repeat, same=same,
                sides=("SQUAREM", "plain"))
    fast, plain = outs["fast"], outs["plain"]
    gap = np.abs(fast.posteriors.to_numpy() - plain.posteriors.to_numpy()).max()
    print(f"{name} {model}: SQUAREM {fast.n_iter:,} iterations "
          f"({'converged' if fast.converged else 'NOT converged'}), {best['SQUAREM']:.2f} s CPU; "
          f"plain {plain.n_iter:,} iterations "
          f"({'converged' if plain.converged else 'stopped at the cap'}), {best['plain']:.2f} s "
          f"CPU; {best['plain'] / best['SQUAREM']:.1f}x less CPU; max |posterior difference| "
          f"{gap:.1e}; log-likelihood {fast.loglik:.6f} vs {plain.loglik:.6f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", nargs="+", default=["md_agreement", "multipico", "csc"])
    args = parser.parse_args()
    for name in args.data:
        path = ROOT.parent / "shared" / "data" / name / "annotations.csv"
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        print(f"{name}: {len(frame):,} rows, {frame['item_id'].nunique():,} items, "
              f"{frame['annotator_id'].nunique():,} annotators, {frame['label'].nunique()} labels")
        for model in FITS:
            compare(name, frame, model, args.repeat)


if __name__ == "__main__":
    main()
