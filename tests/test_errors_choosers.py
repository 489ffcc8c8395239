"""The choosers table beside each possible error (who chose each label of each item, and their
kinds; Weber-Genzel et al. 2024, section 5) equals its definition, a join of every (item, label)
group in row order, for any rows."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core.errors import label_choosers

KINDS = ["reliable", "systematic", "unreliable"]


def _definition(annotations: pd.DataFrame, report: pd.DataFrame) -> pd.DataFrame:
    rows = annotations[["item_id", "annotator_id", "label"]].astype(str).drop_duplicates()
    kind = report["kind"].reindex(rows["annotator_id"]).fillna("insufficient_data").to_numpy()
    rows = rows.assign(who=rows["annotator_id"] + " (" + kind + ")",
                       n_systematic=(kind == "systematic").astype(int),
                       n_unreliable=(kind == "unreliable").astype(int))
    groups = rows.groupby(["item_id", "label"], sort=False)
    return pd.DataFrame({"choosers": groups["who"].agg(", ".join),
                         "systematic_choosers": groups["n_systematic"].sum(),
                         "unreliable_choosers": groups["n_unreliable"].sum()}).reset_index()


@given(st.lists(st.tuples(st.sampled_from(["i2", "i1", "i10"]), st.sampled_from(["b", "a", "c"]),
                          st.sampled_from(["x", "y"])), min_size=1, max_size=30),
       st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(KINDS)))
@settings(max_examples=150, deadline=None)
def test_label_choosers_equals_its_definition(rows, kinds):
    annotations = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    report = pd.DataFrame({"kind": pd.Series(kinds, dtype=object)})
    pd.testing.assert_frame_equal(label_choosers(annotations, report),
                                  _definition(annotations, report))
