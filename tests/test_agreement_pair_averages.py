"""hlv_core.agreement: Light's kappa and the multi-label mean over coder pairs, equal to the
Agreement page's and multilabel_agreement's numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import agreement
from hlv_core.agreement import average_multilabel_pairs, kappa_summary, lights_kappa
from hlv_core.samples import load_sample


def _page_kappas(annotations):
    """Copy of ``compute_kappas`` in pages/agreement.py (commit 06b6ab3)."""
    out = {"fleiss": agreement.fleiss_kappa(annotations)}
    ids = annotations["annotator_id"].unique()
    if len(ids) == 2:
        out["cohen"] = agreement.cohen_kappa(annotations)
    elif len(ids) <= 60:
        pk = agreement.pairwise_cohen_kappa(annotations)
        out["light"] = float(pk["kappa"].mean()) if len(pk) else float("nan")
    return out


@pytest.mark.parametrize("name", ["case_review", "ratings"])
@pytest.mark.parametrize("n_annotators", [2, 5, None])
def test_kappa_summary_equals_the_agreement_page(name, n_annotators):
    ann = load_sample(name).annotations
    if n_annotators is not None:
        keep = sorted(ann["annotator_id"].unique())[:n_annotators]
        ann = ann[ann["annotator_id"].isin(keep)]
    assert kappa_summary(ann) == _page_kappas(ann)


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


def _page_average(per_pair):
    """Copy of the averaging in the Multi-label tab of pages/agreement.py (commit 06b6ab3)."""
    cols = ["observed", "expected", "adjusted", "sd"]
    sym = per_pair.copy()
    pr = sym["measure"].isin(["boot_precision", "boot_recall"])
    n_pairs = len(sym[["coder_1", "coder_2"]].drop_duplicates())
    if n_pairs > 1:
        sym.loc[pr, cols] = sym[pr].groupby(["coder_1", "coder_2"])[cols].transform(
            "mean").to_numpy()
    averaged = sym.groupby("measure", sort=False)[cols].mean().loc[
        list(agreement.MULTILABEL_MEASURES)].reset_index()
    averaged.insert(0, "n_pairs", n_pairs)
    return averaged


@pytest.mark.parametrize("n_coders", [2, 3, None])
def test_average_multilabel_pairs_equals_engine_and_page(n_coders):
    ann = load_sample("legal_areas").annotations
    if n_coders is not None:
        keep = sorted(ann["annotator_id"].unique())[:n_coders]
        ann = ann[ann["annotator_id"].isin(keep)]
    per_pair = agreement.multilabel_agreement_pairs(ann, n_boot=20, seed=4)
    new = average_multilabel_pairs(per_pair)
    engine = agreement.multilabel_agreement(ann, n_boot=20, seed=4)
    pd.testing.assert_frame_equal(new, engine)
    page = _page_average(per_pair).set_index("measure")
    cols = ["observed", "expected", "adjusted", "sd"]
    pd.testing.assert_frame_equal(new[cols], page[cols])
    assert (new["n_pairs"] == page["n_pairs"]).all()
    if n_coders is None or n_coders > 2:  # precision and recall coincide after symmetrising
        assert new.loc["boot_precision", "observed"] == pytest.approx(
            new.loc["boot_recall", "observed"])
