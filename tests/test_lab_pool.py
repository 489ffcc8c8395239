"""hlv_core.lab_pool: the training lab spread over worker processes gives every table and
number one run in this process gives (Kurniawan et al., sections 4-5)."""

from __future__ import annotations

import multiprocessing
import pickle
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from hlv_core import lab, lab_pool
from hlv_core.io import DataError, build_dataset
from hlv_core.training import METHODS

from .test_lab import _tiny, tiny_folder


def _films(n: int = 90, seed: int = 0):
    """n items, 5 annotators (4 per item), 3 labels; the text mostly says the label."""
    rng = np.random.default_rng(seed)
    kinds = rng.choice(["good", "bad", "fine"], n)
    rows = []
    for i, kind in enumerate(kinds):
        for annot in rng.choice(["a", "b", "c", "d", "e"], 4, replace=False):
            label = kind if rng.random() < 0.7 else rng.choice(["good", "bad", "fine"])
            rows.append((f"i{i:03d}", annot, label))
    items = pd.DataFrame({"item_id": [f"i{i:03d}" for i in range(n)],
                          "text": [f"a {k} film, take {i % 5}" for i, k in enumerate(kinds)]})
    return build_dataset(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                         items=items, source="films", format="memory", name="films")


def _assert_same(serial: lab.LabResult, pooled: lab.LabResult) -> None:
    pd.testing.assert_frame_equal(serial.results, pooled.results)
    pd.testing.assert_frame_equal(serial.predictions, pooled.predictions)
    pd.testing.assert_frame_equal(serial.fits.drop(columns="seconds", errors="ignore"),
                                  pooled.fits.drop(columns="seconds", errors="ignore"))
    assert serial.protocol == pooled.protocol
    assert set(serial.timings) == set(pooled.timings)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [2, 1])
def test_pool_equals_one_run_per_method_cross_validation(jobs):
    """No split column: 3 folds, two seeds; convex, non-convex, AE with AEh, SLMV's two heads."""
    dataset = _films()
    methods = ["MV", "SL", "JSD", "AE", "AEh", "SLMV", "LA-max"]
    seen = []
    pooled = lab_pool.run_lab_pool(dataset, methods, seeds=(0, 1), n_jobs=jobs, n_folds=3,
                                   on_result=lambda m, r: seen.append(m),
                                   progress=lambda f, m: seen.append((round(f, 6), m)))
    assert list(pooled) == [m for m in METHODS if m in methods]  # the methods' own order
    assert sorted(m for m in seen if isinstance(m, str)) == sorted(methods)
    fractions = [f for f, _ in (s for s in seen if isinstance(s, tuple))]
    assert fractions and all(0 <= f <= 1 for f in fractions) and fractions[-1] == 1.0
    for method in methods:
        serial = lab.run_lab_full(dataset, methods=[method], seeds=[0, 1], reference=False,
                                  n_folds=3)
        _assert_same(serial, pooled[method])


def test_pool_equals_one_run_with_a_split_and_skips():
    """The dataset's own split; AE / AEh / AR skipped without annotator identities: one
    'skipped' row each, as one run gives."""
    anon = replace(_tiny(), annotator_ids_known=False)
    methods = ["MV", "AR", "AE", "AEh", "SmF1"]
    pooled = lab_pool.run_lab_pool(anon, methods, seeds=(3, 5), n_jobs=2)
    for method in methods:
        serial = lab.run_lab_full(anon, methods=[method], seeds=[3, 5], reference=False)
        _assert_same(serial, pooled[method])
    assert pooled["AE"].results["metric"].tolist() == ["skipped"]


def test_units_longest_first_and_ae_with_aeh():
    units = lab_pool.lab_units(["MV", "SL", "AE", "AEh", "LA-max", "JSD"], [0, 1, 2])
    assert units[:3] == [(("AE", "AEh"), (0,)), (("AE", "AEh"), (1,)), (("AE", "AEh"), (2,))]
    assert (("MV",), (0, 1, 2)) in units and (("SL",), (0, 1, 2)) in units
    assert [u for u in units if u[0] == ("JSD",)] == [(("JSD",), (s,)) for s in (0, 1, 2)]
    assert lab_pool.lab_units(["MV"], [0, 1], convex_once=False) == [
        (("MV",), (0,)), (("MV",), (1,))]
    assert lab_pool.lab_units(["AE", "AEh"], [0], whole=["AE", "AEh"]) == [
        (("AE",), (0,)), (("AEh",), (0,))]


def test_errors_before_any_worker_and_across_processes():
    no_text = build_dataset(pd.DataFrame({"item_id": ["i1", "i1"], "annotator_id": ["a", "b"],
                                          "label": ["x", "y"]}), source="t", format="memory")
    with pytest.raises(DataError, match="carry no texts"):
        lab_pool.run_lab_pool(no_text, ["MV"], n_jobs=2)
    with pytest.raises(ValueError, match="unknown method"):
        lab_pool.run_lab_pool(_tiny(), ["XX"], n_jobs=2)
    with pytest.raises(ValueError, match="at least one seed"):
        lab_pool.run_lab_pool(_tiny(), ["MV"], seeds=(), n_jobs=2)
    error = DataError("no texts", source="a.csv", row=3, column="text", fix="add one")
    again = pickle.loads(pickle.dumps(error))  # how a worker's error reaches the caller
    assert (str(again), again.row, again.column, again.fix) == (str(error), 3, "text", "add one")


def test_a_stopped_run_stops_its_workers():
    """The progress callback raising (Streamlit's Stop does) ends the pool; what finished
    before was handed over."""
    kept = []

    class Stop(Exception):
        pass

    def progress(fraction, message):
        if kept:
            raise Stop

    with pytest.raises(Stop):
        lab_pool.run_lab_pool(_films(60), ["MV", "SL", "JSD", "SmF1"], seeds=(0, 1), n_jobs=2,
                              n_folds=2, progress=progress,
                              on_result=lambda m, r: kept.append(m))
    assert kept
    assert not multiprocessing.active_children()  # every worker ended


@pytest.mark.slow
def test_combined_equals_one_run_of_every_method():
    """combine_lab_results of the pool's parts = one run_lab_full of all the methods (MV added
    as the reference, a skipped method, two seeds, folds)."""
    dataset = replace(_films(60), annotator_ids_known=False)
    methods = ["SL", "AR", "SLMV", "SmF1"]
    one = lab.run_lab_full(dataset, methods=methods, seeds=[0, 1], n_folds=2)
    parts = lab_pool.run_lab_pool(dataset, ["MV", *methods], seeds=(0, 1), n_jobs=2, n_folds=2)
    whole = lab_pool.combine_lab_results(parts, reference_added=True)
    _assert_same(one, whole)
    assert list(one.timings) == list(whole.timings)


def test_cli_jobs_prints_the_same_numbers(tmp_path, capsys):
    import json

    from hlv_core.cli import main

    folder = tiny_folder(tmp_path)
    payloads = []
    for jobs in ("1", "2"):
        assert main(["lab", str(folder), "--methods", "SL", "JSD", "--seeds", "0", "1",
                     "--jobs", jobs, "--json"]) == 0
        payloads.append(json.loads(capsys.readouterr().out))
    assert payloads[0] == payloads[1]
    assert {r["method"] for r in payloads[0]["results"]} == {"MV", "SL", "JSD"}


def test_workers_get_every_folds_features():
    """Five folds (more than the feature cache keeps): every fold's matrix is handed over, each
    equal to what text_features gives."""
    dataset = _films(50)
    folds, _ = lab.lab_folds(dataset, n_folds=5)
    features = lab._fold_features(dataset, folds)
    assert len(features) == 5
    texts = dataset.items["text"].to_numpy(dtype=object)
    first = lab.text_features(texts[folds[0]["train"]], texts)
    assert any((m != first).nnz == 0 and m.shape == first.shape for m in features.values())
