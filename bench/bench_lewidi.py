"""Benchmark of hlv_core.lewidi on the real LeWiDi 2025 MP test gold (3756 items).

    python bench/bench_lewidi.py [--n-boot 1000] [--systems 5]

1. Scoring: ``score_results`` on constructed MP Task A and Task B files (parse + align +
   per-item values) vs a plain per-item Python loop of the organisers' formulas (values
   checked equal).
2. Bootstrap for a leaderboard: the resampled means of S systems' per-item values over B
   resamples (``_resample_means``: draw-count weights W (B, N), ``W @ X / N``, the same
   resamples for every system) vs a plain loop over resamples (``X[idx].mean(axis=0)``) with
   the same draws (values checked equal).
Needs ../shared/data/lewidi2025 next to the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_of  # noqa: E402

from hlv_core import lewidi  # noqa: E402

GOLD = ROOT.parent / "shared" / "data" / "lewidi2025" / "MP" / "MP_test.json"


def naive_soft(gold: dict, lines: list[str]) -> float:
    preds = {k: json.loads(v) for k, v in (line.split("\t") for line in lines)}
    d = [round(sum(abs(p - t) for p, t in zip(preds[k], rec["soft_label"].values(),
                                              strict=True)), 5) for k, rec in gold.items()]
    return round(sum(d) / len(d), 5)


def naive_pe(gold: dict, lines: list[str]) -> float:
    preds = {k: json.loads(v) for k, v in (line.split("\t") for line in lines)}
    out = []
    for k, rec in gold.items():
        t = [int(v) for v in rec["annotations"].values()]
        out.append(round(sum(abs(a - b) for a, b in zip(t, preds[k], strict=True)) / len(t), 5))
    return float(np.mean(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=5)
    args = parser.parse_args()
    if not GOLD.exists():
        sys.exit(f"gold file not found: {GOLD}")
    gold = json.loads(GOLD.read_text())
    loaded = lewidi.load_gold(GOLD)
    rng = np.random.default_rng(0)
    soft_lines = [f"{k}\t[{1 - p:.6f}, {p:.6f}]" for k, p in zip(gold, rng.random(len(gold)),
                                                                  strict=True)]
    pe_lines = [f"{k}\t{json.dumps(rng.integers(0, 2, len(r['annotations'])).tolist())}"
                for k, r in gold.items()]
    soft_raw = ("\n".join(soft_lines) + "\n").encode()
    pe_raw = ("\n".join(pe_lines) + "\n").encode()
    print(f"MP test gold: {loaded.n_items} items")
    for task, raw, lines, naive in (("soft", soft_raw, soft_lines, naive_soft),
                                    ("pe", pe_raw, pe_lines, naive_pe)):
        ours = lewidi.score(loaded, raw, name=f"mp_test_{task}.tsv")["score"]
        ref = naive(gold, lines)
        assert abs(ours - ref) <= 1e-12, (ours, ref)
        t_ours = best_of(lambda raw=raw, task=task: lewidi.score(loaded, raw,
                                                                   name=f"mp_test_{task}.tsv"))
        t_naive = best_of(lambda lines=lines, naive=naive: naive(gold, lines))
        print(f"score Task {task}: hlv_core {t_ours * 1e3:.1f} ms, plain loop "
              f"{t_naive * 1e3:.1f} ms (ratio {t_naive / t_ours:.2f}x), score {ours}")

    X = rng.random((loaded.n_items, args.systems))
    B, N = args.n_boot, loaded.n_items

    def plain_loop():
        r = np.random.default_rng(0)
        chunk = max(1, min(B, 2_000_000 // N))
        out, done = [], 0
        while done < B:  # the same draws as _resample_means
            b = min(chunk, B - done)
            for idx in r.integers(0, N, size=(b, N)):
                out.append(X[idx].mean(axis=0))
            done += b
        return np.array(out)

    fast = lewidi._resample_means(X, B, 0)
    np.testing.assert_allclose(fast, plain_loop(), rtol=1e-10)
    t_fast = best_of(lambda: lewidi._resample_means(X, B, 0))
    t_loop = best_of(plain_loop)
    print(f"bootstrap B={B}, S={args.systems} systems, N={N}: vectorised {t_fast * 1e3:.1f} ms, "
          f"loop {t_loop * 1e3:.1f} ms (ratio {t_loop / t_fast:.2f}x)")


if __name__ == "__main__":
    main()
