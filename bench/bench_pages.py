"""Benchmark: first render and rerun of every page, through Streamlit's AppTest.

Run: ``python bench/bench_pages.py [--repeat N] [--pages home,agreement,...] [--on-demand]``.

md_agreement (10,753 items, 819 annotators, ../shared/data/md_agreement) is put into the session
as a loaded dataset, with 3 models' item-level predictions (synthetic: the annotators' label
shares mixed with noise, seed 0), the way an uploaded file sits in the session. For each page:

* first render: every Streamlit cache cleared, then ``switch_page`` + ``run()`` (what a person
  opening the page for the first time waits for);
* rerun: ``run()`` again with nothing changed (the cost of any widget interaction that only
  reads cached results, a lower bound for slider / selection changes).

CPU time is ``time.process_time`` of this process (AppTest runs the script in a thread of it;
other jobs on the box disturb it least); wall is ``time.perf_counter``. Best of ``--repeat``
(default 1) runs of each. The goal: first render < 2 s CPU, interactions < 300 ms.

``--browser`` measures in chromium instead (``bench/_browser.py``): the app's first open and
the Annotator graph's first open by a link and its revisits, server CPU and wall time.

``--on-demand`` times instead the heavy parts that wait for the user (a tab opened, a toggle
switched on; ``ON_DEMAND``): one ``run()`` after the page's first render.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.logger import set_log_level  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from hlv_core.io import load, load_predictions  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "md_agreement"
PAGES = ["home", "soft_metrics", "certainty", "agreement", "perspectives", "graph", "explorer",
         "errors",
         "review", "training_lab", "lewidi", "glossary"]
GOAL_FIRST, GOAL_RERUN = 2.0, 0.3
#: Parts that run on demand (a tab opened, a toggle switched on): (page, what, session-state
#: changes). Timed as one ``run()`` after the page's first render, caches warm from it.
ON_DEMAND = [
    ("agreement", "Pairs tab (pairwise α, heatmap)", {"agreement.tab": "Pairs"}),
    ("graph", "σ_rnd toggle (10 random matrices)", {"graph.rnd": True}),
    ("graph", "spring layout toggle", {"graph.spring": True}),
    ("soft_metrics", "bootstrap CIs toggle (500 x 3 models)", {"soft_metrics.ci": True}),
    ("soft_metrics", "Items tab", {"soft_metrics.tab": "Items"}),
    ("certainty", "Across reliabilities tab (4 sweeps)", {"certainty.tab": "Across reliabilities"}),
    ("certainty", "Model accuracy tab", {"certainty.tab": "Model accuracy"}),
    ("certainty", "Case view tab", {"certainty.tab": "Case view"}),
    ("perspectives", "Per text tab", {"perspectives.tab": "Per text"}),
]


def predictions_for(dataset, n_models: int = 3, seed: int = 0) -> pd.DataFrame:
    """``n_models`` item-level prediction tables (long: model, item_id, label, prob), validated
    by ``load_predictions`` like an upload."""
    rng = np.random.default_rng(seed)
    p = dataset.judgements_array()
    frames = []
    for m in range(n_models):
        noise = rng.dirichlet(np.ones(p.shape[1]), size=p.shape[0])
        q = (1 - 0.3 * (m + 1)) * p + 0.3 * (m + 1) * noise
        q = q / q.sum(axis=1, keepdims=True)
        wide = pd.DataFrame(q, columns=list(dataset.labels))
        wide.insert(0, "item_id", list(dataset.item_ids))
        raw = wide.to_csv(index=False).encode()
        frames.append(load_predictions(io.BytesIO(raw), dataset, name=f"model_{m + 1}.csv"))
    return pd.concat(frames, ignore_index=True)


def timed_run(at: AppTest) -> tuple[float, float]:
    c, w = time.process_time(), time.perf_counter()
    at.run()
    return time.process_time() - c, time.perf_counter() - w


def bench_page(page: str, dataset, preds: pd.DataFrame) -> tuple[float, float, float, float, str]:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.session_state["hlv.dataset"] = dataset
    at.session_state["hlv.predictions"] = preds
    st.cache_data.clear()
    st.cache_resource.clear()
    at.switch_page(f"pages/{page}/page.py")
    first = timed_run(at)
    note = "" if not at.exception else f"exception: {at.exception[0].value}"
    rerun = timed_run(at)
    return (*first, *rerun, note)


def bench_on_demand(page: str, changes: dict, dataset, preds: pd.DataFrame
                    ) -> tuple[float, float, str]:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.session_state["hlv.dataset"] = dataset
    at.session_state["hlv.predictions"] = preds
    st.cache_data.clear()
    st.cache_resource.clear()
    at.switch_page(f"pages/{page}/page.py")
    at.run()
    for key, value in changes.items():
        at.session_state[key] = value
    cpu, wall = timed_run(at)
    note = "" if not at.exception else f"exception: {at.exception[0].value}"
    return cpu, wall, note


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--on-demand", action="store_true",
                        help="time the parts that run on demand instead (tabs, toggles)")
    parser.add_argument("--browser", action="store_true",
                        help="time in chromium instead: the app's first open, the Annotator "
                             "graph's first open by a link and its revisits (bench/_browser.py)")
    args = parser.parse_args()
    if args.browser:
        from _browser import measure  # bench/ is this script's folder

        load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"chromium, a fresh streamlit server per first open, best of {args.repeat}; "
              f"load average at start {load_avg}")
        print()
        print("| open | server CPU (s) | wall (s) |")
        print("| --- | --- | --- |")
        for name, cpu, wall in measure(DATA, repeat=args.repeat):
            print(f"| {name} | {cpu:.2f} | {wall:.2f} |", flush=True)
        return
    set_log_level("error")  # AppTest's bare-mode warnings
    os.environ.setdefault("HLV_REVIEW_DB", str(Path(tempfile.mkdtemp()) / "reviews.sqlite3"))
    dataset = load(DATA, name="md_agreement")
    preds = predictions_for(dataset)
    print(f"md_agreement: {dataset.n_items:,} items, {dataset.annotations['annotator_id'].nunique():,}"
          f" annotators, {len(dataset.annotations):,} annotations; 3 models' predictions; best of "
          f"{args.repeat}")
    print()
    if args.on_demand:
        print("| page | on demand | CPU (s) | wall (s) |")
        print("| --- | --- | --- | --- |")
        for page, what, changes in ON_DEMAND:
            if page in args.pages.split(","):
                cpu, wall, note = bench_on_demand(page, changes, load(DATA, name="md_agreement"),
                                                  preds)
                print(f"| {page} | {what} | {cpu:.2f} | {wall:.2f} |{' ' + note if note else ''}",
                      flush=True)
        return
    print("| page | first render CPU (s) | first render wall (s) | rerun CPU (s) | rerun wall (s) "
          "| goal met (first < 2 s, rerun < 0.3 s CPU) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for page in args.pages.split(","):
        best = None
        for _ in range(args.repeat):
            # a freshly loaded Dataset per run (outside the timing): views the engine memoises on
            # the object (codes, counts, alpha preparation) must not carry over between pages
            res = bench_page(page, load(DATA, name="md_agreement"), preds)
            best = res if best is None else tuple(min(a, b) for a, b in zip(best[:4], res[:4],
                                                                           strict=True)) + res[4:]
        fc, fw, rc, rw, note = best
        ok = "yes" if fc < GOAL_FIRST and rc < GOAL_RERUN else "no"
        print(f"| {page} | {fc:.2f} | {fw:.2f} | {rc:.2f} | {rw:.2f} | {ok}{' ' + note if note else ''} |",
              flush=True)


if __name__ == "__main__":
    main()
