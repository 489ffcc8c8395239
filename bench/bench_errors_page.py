"""Benchmark: what the "Errors and perspectives" page computes on md_agreement, and the table
code every page runs on each rerun.

Run: ``python bench/bench_errors_page.py [--repeat 3] [--reference c22aa6b]``.

md_agreement: 53,764 rows, 10,753 items, 819 annotators, 2 labels.

In this process, best of ``--repeat`` CPU seconds on each side, alternating, results asserted
equal (``_timing.race``); the reference is the code a competent user writes, which is also
what this tree ran before:

1. ``balance.collapse_label_sets`` against a pandas ``groupby(...).agg("+".join)`` over every
   (item, annotator) cell: equal frames.
2. ``text.visible_frame`` of the items table (with the tweets) against ``visible_controls``
   mapped over every text cell, character by character: equal frames.
3. The page's choosers table against ``groupby(...).agg(", ".join)``: equal frames.

Against a reference commit (``--reference``, its ``hlv_core`` extracted with ``git archive``),
each side a fresh interpreter, alternating: the page's two fits, ``competence.annotator_report``
(one-coin and full Dawid-Skene, MACE, camps; 500 EM iterations, the page's default) and
``errors.error_scores`` (Dawid-Skene posterior), their tables asserted equal to the last bit.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
if "--child" not in sys.argv:  # a child imports the hlv_core its PYTHONPATH names
    sys.path.insert(0, str(ROOT))

from _timing import race  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "md_agreement"


def collapse_reference(annotations: pd.DataFrame) -> pd.DataFrame:
    frame = annotations[["item_id", "annotator_id", "label"]].astype(str)
    frame = frame.drop_duplicates().sort_values(["item_id", "annotator_id", "label"])
    return frame.groupby(["item_id", "annotator_id"], sort=True)["label"].agg("+".join) \
        .reset_index()


def visible_reference(frame: pd.DataFrame) -> pd.DataFrame:
    """Every text cell through the character-by-character check (the former path, kept in
    ``hlv_core.text`` for short text)."""
    from hlv_core.text import _visible_by_character as show

    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_object_dtype(out[column]) or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(lambda v: show(v) if isinstance(v, str) else v)
    return out


def _equal(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    return True


def child(out: str) -> None:
    """One fresh interpreter (its ``hlv_core`` first on the path): the page's two fits, CPU
    seconds on stdout, the tables pickled to ``out``."""
    import hlv_core
    from hlv_core import competence, errors
    from hlv_core.io import load

    print(Path(hlv_core.__file__).parent, file=sys.stderr)
    warnings.simplefilter("ignore", RuntimeWarning)
    dataset = load(DATA)
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    start = time.process_time()
    camps = competence.sigma_camps(annotations)
    report = competence.annotator_report(annotations, camps=camps, traits=dataset.annotators,
                                         seed=0, max_iter=500)
    scores = errors.error_scores(dataset.annotations, method="ds_posterior", seed=0,
                                 max_iter=500)
    print(time.process_time() - start)
    with open(out, "wb") as handle:
        pickle.dump((report, scores), handle)


def fits_against(reference: str, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = Path(tmp) / "ref"
        ref_dir.mkdir()
        archive = subprocess.run(["git", "archive", reference, "hlv_core"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(ref_dir)], input=archive, check=True)
        best = {"reference": float("inf"), "this tree": float("inf")}
        tables = {}
        for _ in range(repeat):
            for side, root in (("reference", ref_dir), ("this tree", ROOT)):
                out = str(Path(tmp) / f"{side}.pkl")
                load = os.getloadavg()[0]
                done = subprocess.run(
                    [sys.executable, __file__, "--child", out], capture_output=True, text=True,
                    check=True, env={**os.environ, "PYTHONPATH": str(root)})
                assert str(root / "hlv_core") in done.stderr.splitlines(), done.stderr
                text = done.stdout
                seconds = float(text.strip().splitlines()[-1])
                best[side] = min(best[side], seconds)
                print(f"  page fits   {side:9s} {seconds:6.2f} s CPU (load average {load:.1f} -> "
                      f"{os.getloadavg()[0]:.1f})", flush=True)
                with open(out, "rb") as handle:
                    tables[side] = pickle.load(handle)
        for new, old in zip(tables["this tree"], tables["reference"], strict=True):
            _equal(new, old)
        print(f"annotator report + error scores ({reference} -> this tree): "
              f"{best['reference']:.2f} -> {best['this tree']:.2f} s CPU, "
              f"{best['reference'] / best['this tree']:.2f}x; tables equal to the last bit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", default="c22aa6b",
                        help="commit whose hlv_core the page's fits are raced against")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    from hlv_core import balance, competence
    from hlv_core.errors import label_choosers
    from hlv_core.io import load
    from hlv_core.text import visible_frame
    from tests.test_errors_choosers import _definition as choosers_reference

    warnings.simplefilter("ignore", RuntimeWarning)
    dataset = load(DATA)
    annotations = dataset.annotations
    print(f"md_agreement: {len(annotations):,} rows, {dataset.n_items:,} items, "
          f"{dataset.n_annotators:,} annotators")
    results = []
    best = race("collapse sets", lambda: balance.collapse_label_sets(annotations),
                lambda: collapse_reference(annotations), args.repeat, same=_equal,
                sides=("engine", "groupby"))
    results.append(("collapse_label_sets", best["groupby"], best["engine"]))
    best = race("visible_frame", lambda: visible_frame(dataset.items),
                lambda: visible_reference(dataset.items), args.repeat, same=_equal,
                sides=("engine", "per-char"))
    results.append(("visible_frame (items)", best["per-char"], best["engine"]))
    report = competence.annotator_report(
        annotations[["item_id", "annotator_id", "label"]], camps=None,
        traits=dataset.annotators, seed=0, max_iter=50)
    best = race("choosers table", lambda: label_choosers(annotations, report),
                lambda: choosers_reference(annotations, report), args.repeat, same=_equal,
                sides=("page", "groupby"))
    results.append(("choosers table", best["groupby"], best["page"]))
    for name, ref, new in results:
        print(f"{name}: reference {ref:.3f} s, HLV Lens {new:.3f} s CPU: {ref / new:.1f}x; "
              "equal")
    fits_against(args.reference, max(1, args.repeat - 1))


if __name__ == "__main__":
    main()
