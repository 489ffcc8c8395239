"""The look-alike spelling screen over a big id dictionary: ``spelling_changes`` (pyarrow's RE2
kernels flag the few values the rule may change; Python decides on those) against two fair
references run in the same process on the same values, best of N CPU seconds, results equal:

- the rule applied to every value in Python (``{v: normalise_spelling(v)}`` where it differs);
- a pandas screen, ``Index.str.isascii()`` and ``Index.str.contains`` with the rule's pattern
  written with Python's ``\\s`` (pandas runs ``re.search`` value by value for it), then the rule on
  the flagged values (the screen the loader used before).

    python bench/bench_spelling.py                # 5 M distinct ids, 1 in 1,000 look-alikes
    python bench/bench_spelling.py --values 500000 --repeats 5
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlv_core.io.spelling import normalise_spelling, spelling_changes  # noqa: E402

#: The screen the loader used before, in Python's ``re`` syntax.
_PANDAS_SCREEN = r"\s\s|[\t\n\r\f\v\x1c-\x1f]|^\s|\s$"


def make_values(n: int, seed: int = 3) -> pd.Index:
    """``n`` distinct ids like a crowd file's (``an123456``), one in 1,000 a look-alike (two
    spaces, a trailing tab, an NFD accent or a zero-width space)."""
    rng = np.random.default_rng(seed)
    ids = np.char.add("an", np.arange(n).astype(str)).astype(object)
    odd = rng.choice(n, size=max(n // 1000, 1), replace=False)
    forms = ["{}  x", "{}\t", "cafe\u0301{}", "{}\u200b"]
    for position, where in enumerate(odd):
        ids[where] = forms[position % len(forms)].format(ids[where])
    return pd.Index(ids, dtype="str")


def python_rule(values: pd.Index) -> dict[str, str]:
    changes = {}
    for value in values:
        normal = normalise_spelling(value)
        if normal != value:
            changes[value] = normal
    return changes


def pandas_screen(values: pd.Index) -> dict[str, str]:
    flagged = ~np.asarray(values.str.isascii(), dtype=bool)
    flagged |= np.asarray(values.str.contains(_PANDAS_SCREEN, regex=True), dtype=bool)
    return python_rule(values[flagged])


def best_cpu(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    values = make_values(args.values)
    assert re.compile(_PANDAS_SCREEN)  # the reference pattern compiles
    ours, found = best_cpu(lambda: spelling_changes(values), args.repeats)
    screen, by_pandas = best_cpu(lambda: pandas_screen(values), args.repeats)
    rule, by_python = best_cpu(lambda: python_rule(values), max(1, args.repeats - 1))
    assert found == by_pandas == by_python, "the three give different respellings"
    print(f"{len(values):,} distinct values, {len(found):,} respelled (equal on all three sides)")
    print(f"spelling_changes (pyarrow screen):   {ours:7.3f} s CPU (best of {args.repeats})")
    print(f"pandas str screen + rule:            {screen:7.3f} s CPU -> {screen / ours:5.1f}x")
    print(f"rule on every value (Python loop):   {rule:7.3f} s CPU -> {rule / ours:5.1f}x")


if __name__ == "__main__":
    main()
