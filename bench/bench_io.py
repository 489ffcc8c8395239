"""Load time of md_agreement (53,764 annotation rows) through hlv_core.io.load, against
pandas.read_csv alone on the same file, in the same run.

Run: python bench/bench_io.py [path/to/shared/data]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import best_of  # noqa: E402  (bench/ is on sys.path when run as a script)

from hlv_core.io import load  # noqa: E402


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
    annotations = data / "md_agreement" / "annotations.csv"
    folder = data / "md_agreement"
    t_pandas = best_of(lambda: pd.read_csv(annotations, dtype=str, keep_default_na=False), 5)
    t_load = best_of(lambda: load(annotations), 5)
    t_folder = best_of(lambda: load(folder), 5)
    ds = load(folder)
    t_views = best_of(lambda: (ds.judgements_array(), ds.entropy(), ds.item_table()))
    rows = len(ds.annotations)
    print(f"md_agreement: {rows} rows, {ds.n_items} items, {ds.n_annotators} annotators")
    print(f"pandas.read_csv alone           {t_pandas * 1e3:8.1f} ms   (1.00x)")
    print(f"hlv_core.io.load(annotations)   {t_load * 1e3:8.1f} ms   ({t_load / t_pandas:.2f}x)")
    print(f"hlv_core.io.load(folder + items){t_folder * 1e3:8.1f} ms   "
          f"({t_folder / t_pandas:.2f}x)")
    print(f"views: P, entropy, item table   {t_views * 1e3:8.1f} ms")
    # naive P for comparison: a Python loop over items
    def naive_p():
        out = np.zeros((ds.n_items, ds.n_labels))
        index = {x: i for i, x in enumerate(ds.labels)}
        for row, (_, group) in enumerate(ds.annotations.groupby("item_id", sort=False)):
            for label in group["label"]:
                out[row, index[label]] += 1
        return out
    t_naive = best_of(naive_p, repeats=1)
    t_p = best_of(ds.judgements_array)
    print(f"P vectorised {t_p * 1e3:.1f} ms vs per-item loop {t_naive * 1e3:.1f} ms "
          f"({t_naive / t_p:.0f}x faster)")


if __name__ == "__main__":
    main()
