"""Benchmark: the engine work of one split-setting change on the Perspectives page (PERSEVAL,
Lo, Casola et al.), this tree against a reference commit.

Run: ``python bench/bench_split_change.py [--reference COMMIT] [--repeat N]``. On md_agreement
(../shared/data/md_agreement) a settings change re-runs, uncached: ``make_splits`` (the page's
defaults: adaptation "train", reserve "auto"; seeds 1, 2, 3 for three changes), the baselines,
``evaluate`` of every model (the baselines and 3 item-level models applied to every test user)
and the comparison table. Each side runs in a fresh child process (the reference commit's
``hlv_core`` extracted with ``git archive``), warmed by one change at seed 0, then best of N
per change with ``time.process_time``; the split tables, the comparison table and every report's
summary are asserted equal between the sides.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "md_agreement"

CHILD = r"""
import hashlib, json, sys, time
import numpy as np, pandas as pd
sys.path.insert(0, sys.argv[1])
from hlv_core.io import load
from hlv_core import perspectivist as P
dataset = load(sys.argv[2])
repeat = int(sys.argv[3])
labels = tuple(dataset.labels)
rng = np.random.default_rng(0)
p = dataset.judgements_array()
rows = []
for m in range(3):  # item-level models: label shares mixed with noise (as bench_pages.py)
    q = 0.7 * p + 0.3 * rng.dirichlet(np.ones(p.shape[1]), size=p.shape[0])
    for j, lab in enumerate(labels):
        rows.append(pd.DataFrame({"model": f"model {m}", "item_id": list(dataset.item_ids),
                                  "label": lab, "prob": q[:, j]}))
item_preds = pd.concat(rows, ignore_index=True)

def change(seed):
    splits = P.make_splits(dataset, test_user_share=0.2, adaptation="train", seed=seed,
                           train_only_text_share="auto")
    models, _ = P.run_baselines(splits)
    per_user, _ = P.item_predictions_per_user(item_preds, splits.test, labels)
    models.update(per_user)
    reports = {n: P.evaluate(f, splits.test, traits=splits.traits, labels=labels)
               for n, f in models.items()}
    table = P.headline_table(pd.concat([r.summary().assign(model=n) for n, r in reports.items()],
                                       ignore_index=True), labels)
    return splits, reports, table

change(0)
out = {"cpu": [], "digest": []}
for seed in (1, 2, 3):
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        splits, reports, table = change(seed)
        best = min(best, time.process_time() - t)
    h = hashlib.sha256()
    h.update(splits.table().to_csv(index=False).encode())
    h.update(table.to_csv(index=False).encode())
    for n in sorted(reports):
        h.update(reports[n].summary().to_csv(index=False).encode())
    out["cpu"].append(best)
    out["digest"].append(h.hexdigest())
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", default="aed90c4")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.reference, "hlv_core"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for name, code in (("reference", Path(tmp)), ("new", ROOT)):
            load = os.getloadavg()[0]
            run = subprocess.run([sys.executable, "-c", CHILD, str(code), str(DATA),
                                  str(args.repeat)], capture_output=True, text=True, check=True)
            results[name] = json.loads(run.stdout.strip().splitlines()[-1])
            cpu = ", ".join(f"{c:.3f}" for c in results[name]["cpu"])
            print(f"{name:9s}: split changes (seeds 1, 2, 3) {cpu} s CPU, best of "
                  f"{args.repeat} each (load average {load:.1f})", flush=True)
    assert results["reference"]["digest"] == results["new"]["digest"], "results differ"
    ref, new = max(results["reference"]["cpu"]), max(results["new"]["cpu"])
    print(f"slowest change: reference {args.reference} {ref:.3f} s CPU, this tree {new:.3f} s "
          f"CPU ({ref / new:.1f}x); split tables, comparison table and every report equal")


if __name__ == "__main__":
    main()
