"""Bundled samples: every one loads, has predictions that fit, and regenerates identically."""

from __future__ import annotations

import dataclasses

import pytest

from hlv_core import samples


@pytest.mark.parametrize("name", list(samples.SAMPLES))
def test_every_sample_loads_with_predictions(name):
    ds = samples.load_sample(name)
    assert ds.task == samples.SAMPLES[name]["task"]
    assert ds.predictions is not None and ds.predictions["model"].nunique() >= 2
    assert set(ds.predictions["item_id"]) <= set(ds.item_ids)
    assert (samples.sample_path(name) / "README.md").exists()


def test_generators_are_deterministic(tmp_path):
    samples.write_samples(root=tmp_path)
    for name in ("case_review", "legal_areas", "ratings"):
        for table in ("annotations", "items", "annotators", "predictions"):
            fresh = (tmp_path / name / f"{table}.csv").read_bytes()
            bundled = (samples.sample_path(name) / f"{table}.csv").read_bytes()
            assert fresh == bundled, f"{name}/{table}.csv differs from its generator"


def test_case_review_camps_disagree_systematically():
    ds = samples.load_sample("case_review")
    ann = ds.annotations.merge(ds.annotators, on="annotator_id")
    contested = set(ds.items.loc[ds.items["contested"] == "yes", "item_id"])
    sub = ann[ann["item_id"].isin(contested)]
    share = sub.groupby("group")["label"].apply(lambda s: (s == "liable").mean())
    assert share["claimant-side"] - share["defence-side"] > 0.3


def test_comparison_datasets_samples_and_current():
    """The Figure 2 comparison: samples with annotator ids (no ranking), the current data marked."""
    bundled = samples.comparison_datasets()
    expected = {name for name, info in samples.SAMPLES.items() if info.get("task") != "ranking"
                and samples.load_sample(name).annotator_ids_known}
    assert set(bundled) == expected and expected
    current = samples.load_sample(sorted(expected)[0])
    marked = samples.comparison_datasets(current)
    assert f"{current.name} (current)" in marked and len(marked) == len(expected)
    upload = dataclasses.replace(current, name="my upload")
    with_upload = samples.comparison_datasets(upload)
    assert with_upload["my upload (current)"] is upload and len(with_upload) == len(expected) + 1
