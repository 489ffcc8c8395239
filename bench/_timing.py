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
