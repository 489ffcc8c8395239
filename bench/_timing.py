"""Shared timing helper for the benchmark scripts (run as ``python bench/bench_*.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeats: int = 3) -> float:
    """Best wall-clock time of ``repeats`` calls of ``fn`` in seconds (least disturbed run)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def cpu(fn: Callable[[], object]) -> tuple[float, object]:
    """(CPU seconds of this process, result) of one call of ``fn``."""
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def load_avg() -> str:
    """The 1-minute load average, printed beside every timing."""
    import os

    return f"{os.getloadavg()[0]:.1f}"


def race(name: str, new: Callable[[], object], ref: Callable[[], object], repeat: int, *,
         same: Callable[[object, object], bool], sides: tuple[str, str] = ("kernel", "numpy"),
         digits: int = 2) -> dict[str, float]:
    """Best of ``repeat`` CPU seconds of ``new`` and ``ref``, alternating, each round printed
    with the load average; the two results asserted ``same``. Returns the best times by side."""
    best = {side: float("inf") for side in sides}
    outs: dict[str, object] = {}
    for _ in range(repeat):
        for side, fn in zip(sides, (new, ref), strict=True):
            before = load_avg()
            t, outs[side] = cpu(fn)
            best[side] = min(best[side], t)
            print(f"  {name:18s} {side:6s} {t:6.{digits}f} s CPU (load average {before} -> "
                  f"{load_avg()})", flush=True)
    assert same(outs[sides[0]], outs[sides[1]]), name
    return best
