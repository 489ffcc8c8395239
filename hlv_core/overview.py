"""The label distribution of a dataset as the Overview page shows it: annotations per label and
their share, from the same counts that ``python -m hlv_core summary`` prints (``label_counts`` of
:meth:`hlv_core.io.Dataset.summary`).
"""

from __future__ import annotations

import pandas as pd

from .io import Dataset

__all__ = ["label_table"]


def label_table(dataset: Dataset) -> pd.DataFrame:
    """One row per label in inventory order: ``label``, ``annotations`` = ``sum_i C_ik`` (the
    column sums of :meth:`Dataset.counts_array`, i.e. ``summary()["label_counts"]``) and
    ``share`` = annotations / all annotations (0 when there are none)."""
    counts = dataset.summary()["label_counts"]
    table = pd.DataFrame({"label": list(counts), "annotations": list(counts.values())})
    table["share"] = table["annotations"] / max(int(table["annotations"].sum()), 1)
    return table
