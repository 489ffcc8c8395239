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
    t_views = best_of(lambda: (ds.judgements_array(), ds.entropy(), ds.item_table()), 5)
    rows = len(ds.annotations)
    print(f"md_agreement: {rows} rows, {ds.n_items} items, {ds.n_annotators} annotators")
    print(f"pandas.read_csv alone           {t_pandas * 1e3:8.1f} ms   (1.00x)")
    print(f"hlv_core.io.load(annotations)   {t_load * 1e3:8.1f} ms   ({t_load / t_pandas:.2f}x)")
    print(f"hlv_core.io.load(folder + items){t_folder * 1e3:8.1f} ms   "
          f"({t_folder / t_pandas:.2f}x)")
    print(f"views: P, entropy, item table   {t_views * 1e3:8.1f} ms")
    # reference for P: what a pandas user writes (crosstab of the long table, row-normalised)
    frame = pd.read_csv(annotations, dtype=str, keep_default_na=False)

    def pandas_p():
        tab = pd.crosstab(frame["item_id"], frame["label"], normalize="index")
        return tab.reindex(index=ds.item_ids, columns=list(ds.labels), fill_value=0.0).to_numpy()

    t_ref = best_of(pandas_p, 5)
    t_p = best_of(ds.judgements_array, 5)
    np.testing.assert_allclose(ds.judgements_array(), pandas_p(), rtol=0, atol=1e-12)
    print(f"P: Dataset.judgements_array {t_p * 1e3:.1f} ms (integer codes built at load) vs "
          f"pandas crosstab(normalize='index') {t_ref * 1e3:.1f} ms ({t_ref / t_p:.0f}x; equal "
          f"values asserted)")
    print(f"read + P end to end: load(annotations) + P {(t_load + t_p) * 1e3:.1f} ms vs read_csv "
          f"+ crosstab {(t_pandas + t_ref) * 1e3:.1f} ms ({(t_pandas + t_ref) / (t_load + t_p):.2f}x)")

if __name__ == "__main__":
    main()
