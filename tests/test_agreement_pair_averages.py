"""hlv_core.agreement: Light's kappa, kappa_summary and the multi-label mean over coder pairs
(equal to multilabel_agreement's numbers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import agreement
from hlv_core.agreement import average_multilabel_pairs, kappa_summary, lights_kappa
from hlv_core.samples import load_sample


@pytest.mark.parametrize("name", ["case_review", "ratings"])
@pytest.mark.parametrize("n_annotators", [2, 5, None])
def test_kappa_summary_names_the_kappa_of_its_coders(name, n_annotators):
    """Fleiss' kappa always; Cohen's for two coders; Light's (mean pairwise Cohen) for more."""
    ann = load_sample(name).annotations
    if n_annotators is not None:
        keep = sorted(ann["annotator_id"].unique())[:n_annotators]
        ann = ann[ann["annotator_id"].isin(keep)]
    summary = kappa_summary(ann)
    assert summary["fleiss"] == agreement.fleiss_kappa(ann)
    if ann["annotator_id"].nunique() == 2:
        assert set(summary) == {"fleiss", "cohen"}
        assert summary["cohen"] == agreement.cohen_kappa(ann)
    else:
        assert set(summary) == {"fleiss", "light"}
        assert summary["light"] == pytest.approx(lights_kappa(ann), abs=1e-12, nan_ok=True)


def test_lights_kappa_is_the_mean_of_pairwise_cohen():
    ann = load_sample("case_review").annotations
    ids = sorted(ann["annotator_id"].unique())[:4]
    values = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            sub = ann[ann["annotator_id"].isin([a, b])]
            if sub.groupby("item_id")["annotator_id"].nunique().eq(2).sum() >= 2:
                values.append(agreement.cohen_kappa(sub, a, b))
    assert lights_kappa(ann[ann["annotator_id"].isin(ids)]) == pytest.approx(
        np.nanmean(values), abs=1e-12)
    empty = pd.DataFrame({"item_id": ["i1", "i2"], "annotator_id": ["a", "b"],
                          "label": ["x", "y"]})
    assert np.isnan(lights_kappa(empty))
    assert "light" not in kappa_summary(ann, max_light=3)


@pytest.mark.parametrize("n_coders", [2, 3, None])
def test_average_multilabel_pairs_equals_the_engine(n_coders):
    ann = load_sample("legal_areas").annotations
    if n_coders is not None:
        keep = sorted(ann["annotator_id"].unique())[:n_coders]
        ann = ann[ann["annotator_id"].isin(keep)]
    per_pair = agreement.multilabel_agreement_pairs(ann, n_boot=20, seed=4)
    new = average_multilabel_pairs(per_pair)
    engine = agreement.multilabel_agreement(ann, n_boot=20, seed=4)
    pd.testing.assert_frame_equal(new, engine)
    n_pairs = len(per_pair[["coder_1", "coder_2"]].drop_duplicates())
    assert (new["n_pairs"] == n_pairs).all()
    assert list(new.index) == list(agreement.MULTILABEL_MEASURES)
    cols = ["observed", "expected", "adjusted", "sd"]
    plain = per_pair[~per_pair["measure"].isin(["boot_precision", "boot_recall"])]
    for measure, rows in plain.groupby("measure"):  # the mean over coder pairs
        np.testing.assert_allclose(new.loc[measure, cols].to_numpy(dtype=float),
                                   rows[cols].mean().to_numpy(dtype=float), equal_nan=True)
    if n_coders is None or n_coders > 2:  # precision and recall coincide after symmetrising
        assert new.loc["boot_precision", "observed"] == pytest.approx(
            new.loc["boot_recall", "observed"])
