"""The distributed engine (``hlv_core.scale``) on a real ``dask.distributed`` cluster: the same
numbers, reports and refusals as the in-memory engine on the same rows, with items split across
files. One cluster (2 in-process workers) per module; one test starts a scheduler and two
workers as separate processes on 127.0.0.1 and kills a worker mid-computation."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlv_core import scale
from hlv_core.agreement import alpha_report, kappa_summary
from hlv_core.cli import main
from hlv_core.io import DataError, load

ROOT = Path(__file__).resolve().parents[1]
LABELS = ("neg", "neu", "pos", "mixed")


def generate(n_items: int = 240, n_annotators: int = 12, seed: int = 0,
             labels=LABELS) -> pd.DataFrame:
    """Seeded long annotations: 2-6 annotators per item, a preferred label per item (60 %)."""
    rng = np.random.default_rng(seed)
    per_item = rng.integers(2, min(7, n_annotators + 1), size=n_items)
    item = np.repeat(np.arange(n_items), per_item)
    annotator = np.concatenate([rng.choice(n_annotators, size=k, replace=False)
                                for k in per_item])
    preferred = rng.integers(0, len(labels), size=n_items)[item]
    label = np.where(rng.random(len(item)) < 0.6, preferred,
                     rng.integers(0, len(labels), size=len(item)))
    frame = pd.DataFrame({"item_id": [f"it{i}" for i in item],
                          "annotator_id": [f"an{a}" for a in annotator],
                          "label": np.asarray(labels, dtype=object)[label]})
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # items split


def write_parts(frame: pd.DataFrame, folder: Path, n_files: int = 8, fmt: str = "parquet"
                ) -> tuple[Path, Path]:
    """``frame`` in ``n_files`` files ``part-NN`` (row blocks, in order) and the whole table as
    one CSV beside the folder (the in-memory oracle reads it)."""
    folder.mkdir(parents=True, exist_ok=True)
    for j, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        part = frame.iloc[rows]
        if fmt == "parquet":
            part.to_parquet(folder / f"part-{j:02d}.parquet", index=False)
        else:
            part.to_csv(folder / f"part-{j:02d}.csv", index=False)
    whole = folder.parent / f"{folder.name}_all.csv"
    frame.to_csv(whole, index=False)
    return folder, whole


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as dask_client:
        yield dask_client


def _agreement_in_memory(dataset, level=None, n_boot=1000, seed=0) -> dict:
    level = level or dataset.level
    values = dataset.numeric_label_map(level)
    rep = alpha_report(dataset.annotations, level=level, values=values, n_boot=n_boot,
                       seed=seed).as_dict()
    rep.pop("value_shares")
    rep.update({f"{k}_kappa": v for k, v in kappa_summary(dataset.annotations).items()})
    return rep


def _assert_same(distributed: dict, memory: dict, skip=("name",)) -> None:
    assert list(distributed) == list(memory)
    for key, value in memory.items():
        if key in skip:
            continue
        if isinstance(value, float) and key.startswith(("ci_",)):
            assert distributed[key] == pytest.approx(value, abs=0.005), key
        elif isinstance(value, float):
            assert distributed[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key
        else:
            assert distributed[key] == value, key


@pytest.fixture(scope="module")
def split_data(tmp_path_factory):
    frame = generate()
    folder, whole = write_parts(frame, tmp_path_factory.mktemp("pq") / "parts")
    files = {}
    for j, rows in enumerate(np.array_split(np.arange(len(frame)), 8)):
        for item in frame["item_id"].iloc[rows].unique():
            files.setdefault(item, set()).add(j)
    assert sum(len(v) > 1 for v in files.values()) > 50  # many items are split across files
    return folder, whole


def test_summary_alpha_and_kappas_equal_the_in_memory_engine(client, split_data):
    folder, whole = split_data
    data = scale.load(folder)
    memory = load(whole)
    _assert_same(scale.summary(data), memory.summary())
    assert data.report.to_frame().iloc[1:].equals(memory.report.to_frame().iloc[1:])
    distributed = scale.agreement_result(data)
    expected = _agreement_in_memory(memory)
    _assert_same(distributed, expected)
    assert "light_kappa" in distributed
    # annotator statistics: each annotator's label counts
    expected_counts = pd.crosstab(memory.annotations["annotator_id"].astype(str),
                                  memory.annotations["label"].astype(str))
    expected_counts = expected_counts.reindex(index=list(data.annotator_ids),
                                              columns=list(data.labels), fill_value=0)
    np.testing.assert_array_equal(data.annotator_counts.toarray(), expected_counts.to_numpy())
    # the bootstrap resamples item rows of the same counts with the same seed: equal CI
    assert distributed["ci_low"] == pytest.approx(expected["ci_low"], abs=1e-12)
    assert distributed["ci_high"] == pytest.approx(expected["ci_high"], abs=1e-12)


def test_csv_glob_ratings_at_every_level(client, tmp_path):
    frame = generate(n_items=150, n_annotators=2, seed=3, labels=("1", "2", "3", "4", "5"))
    frame = frame.drop_duplicates(["item_id", "annotator_id"])
    folder, whole = write_parts(frame, tmp_path / "csv", n_files=5, fmt="csv")
    data = scale.load(str(folder / "part-*.csv"))
    memory = load(whole)
    assert data.task == memory.task == "rating"
    _assert_same(scale.summary(data), memory.summary())
    for level in ("nominal", "ordinal", "interval", "ratio"):
        _assert_same(scale.agreement_result(data, level=level, n_boot=200, seed=4),
                     _agreement_in_memory(memory, level, n_boot=200, seed=4))
    assert "cohen_kappa" in scale.agreement_result(data, n_boot=10)
    assert scale.summary(str(folder / "part-*.csv")) == scale.summary(data)  # a path works too


def test_label_rules_run_on_the_global_dictionary(client, tmp_path):
    """Whitespace, spellings of one number and case variants: the same labels and report."""
    frame = generate(n_items=120, seed=5, labels=("1", "2", "3"))
    frame.loc[3, "label"] = "2.0"
    frame.loc[200, "label"] = " 3"
    frame.loc[7, "annotator_id"] = frame.loc[7, "annotator_id"] + " "
    folder, whole = write_parts(frame, tmp_path / "rules", n_files=6)
    data, memory = scale.load(folder), load(whole)
    assert data.labels == memory.labels
    assert data.report.notes == memory.report.notes
    assert any("merged" in note for note in data.report.notes)
    _assert_same(scale.summary(data), memory.summary())


@pytest.mark.slow
def test_ids_spelled_differently_across_files_are_made_one_as_in_memory(client, tmp_path):
    """NFC / NFD, an invisible character and a whitespace run in item and annotator ids, each
    spelling in another file: the same ids, counts, report lines and numbers as in memory."""
    frame = generate(n_items=120, seed=9)
    frame["item_id"] = frame["item_id"].str.replace("it", "caf\u00e9-", regex=False)
    rows = np.array_split(np.arange(len(frame)), 6)
    first = frame.loc[rows[0][0], "item_id"]
    at = [r for r in rows[4] if frame.loc[r, "item_id"] == first] or [rows[4][0]]
    frame.loc[at[0], "item_id"] = first.replace("\u00e9", "e\u0301")  # NFD, another file
    frame.loc[rows[2][3], "annotator_id"] = "an\u200b" + frame.loc[rows[2][3],
                                                                   "annotator_id"][2:]
    frame.loc[rows[5][1], "item_id"] = "lone  \u00a0item"  # a new id: respelled, no merge
    frame.loc[rows[3][2], "annotator_id"] = "an\u200b99"  # a new annotator spelled oddly
    folder, whole = write_parts(frame, tmp_path / "ids", n_files=6)
    data, memory = scale.load(folder), load(whole)
    notes = [n for n in memory.report.notes if n.startswith("look-alike")]
    assert [n.split(" made")[0] for n in notes] == [
        "look-alike spellings of item_id", "look-alike spellings of annotator_id"]
    assert data.report.notes == memory.report.notes
    assert list(data.annotator_ids) == sorted(memory.annotations["annotator_id"].unique())
    assert "an99" in data.annotator_ids and "lone item" in memory.annotations["item_id"].values
    _assert_same(scale.summary(data), memory.summary())
    assert data.content_hash() == memory.content_hash
    _assert_same(scale.agreement_result(data, n_boot=100),
                 _agreement_in_memory(memory, n_boot=100))
    frame.loc[rows[4][2], "annotator_id"] = "\u200b"  # respelled to empty: refused, file + row
    folder, whole = write_parts(frame, tmp_path / "ids_empty", n_files=6)
    error, expected = _error_of(scale.load, folder), _error_of(load, whole)
    assert error.problem == expected.problem and error.column == "annotator_id"
    assert error.source.endswith("part-04.parquet") and error.row == 4


def _error_of(fn, *args) -> DataError:
    with pytest.raises(DataError) as info:
        fn(*args)
    return info.value


def test_a_bad_label_in_the_seventh_file_is_named_with_file_and_row(client, tmp_path, capsys):
    frame = generate(n_items=200, seed=6)
    rows = np.array_split(np.arange(len(frame)), 8)
    frame.loc[rows[6][4], "label"] = "N/A"  # the 7th file, its 5th data row (line 6)
    folder, whole = write_parts(frame, tmp_path / "bad", n_files=8, fmt="csv")
    error = _error_of(scale.load, folder)
    assert error.source == str(folder / "part-06.csv")
    assert error.row == 6 and error.column == "label"
    memory = _error_of(load, whole)
    assert error.problem == memory.problem and error.fix == memory.fix
    assert memory.row == rows[6][4] + 2
    # the command line prints one line naming the file and row, exit 2
    assert main(["summary", str(folder), "--json", "--dask", client.scheduler.address]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line
    assert "part-06.csv" in line and "row 6" in line and "'N/A'" in line


def test_duplicates_and_conflicting_cells_are_found_across_files(client, tmp_path):
    frame = generate(n_items=200, seed=7)
    repeat = frame.iloc[[2]]
    dup = pd.concat([frame, repeat], ignore_index=True)  # the last file repeats row 2 of file 0
    folder, whole = write_parts(dup, tmp_path / "dup", n_files=4)
    error = _error_of(scale.load, folder)
    memory = _error_of(load, whole)
    assert error.problem == memory.problem
    assert error.source.endswith("part-03.parquet")
    assert error.row == len(np.array_split(np.arange(len(dup)), 4)[3]) + 1  # its last line
    conflict = repeat.assign(label=[x for x in LABELS if x != repeat["label"].iloc[0]][0])
    both = pd.concat([frame, conflict], ignore_index=True)
    folder, whole = write_parts(both, tmp_path / "conflict", n_files=4)
    error = _error_of(scale.load, folder)
    assert error.problem == _error_of(load, whole).problem
    assert "conflicting duplicates" in error.problem


def test_a_dask_dataframe_is_accepted_and_empty_ids_refused(client, split_data, tmp_path):
    import dask.dataframe as dd

    folder, whole = split_data
    ddf = dd.read_parquet(str(folder))
    _assert_same(scale.summary(scale.load(ddf)), load(whole).summary())
    frame = generate(n_items=60, seed=8)
    frame.loc[30, "item_id"] = ""
    folder, whole = write_parts(frame, tmp_path / "empty", n_files=3, fmt="csv")
    error = _error_of(scale.load, folder)
    assert error.problem == _error_of(load, whole).problem and error.column == "item_id"


def test_a_parquet_column_of_lists_gets_the_in_memory_one_line_error(client, tmp_path):
    """A list-typed id column in the 3rd file: the in-memory reader's message, file, row and
    column (no crash on unhashable arrays); a label column of lists is refused as multi-label."""
    frame = generate(n_items=60, seed=9)
    folder, _ = write_parts(frame, tmp_path / "lists", n_files=3)
    third = pd.read_parquet(folder / "part-02.parquet")
    third["annotator_id"] = [None, *[[a] for a in third["annotator_id"].iloc[1:]]]
    third.to_parquet(folder / "part-02.parquet", index=False)
    error = _error_of(scale.load, folder)
    memory = _error_of(lambda: load((folder / "part-02.parquet").read_bytes(),
                                     name="part-02.parquet"))
    assert (error.problem, error.fix, error.row, error.column) == (
        memory.problem, memory.fix, memory.row, memory.column) == (
        error.problem, error.fix, 2, "annotator_id")
    assert error.source == str(folder / "part-02.parquet") and "\n" not in str(error)
    folder, _ = write_parts(frame, tmp_path / "label_lists", n_files=3)
    second = pd.read_parquet(folder / "part-01.parquet")
    second.assign(label=[[x] for x in second["label"]]).to_parquet(
        folder / "part-01.parquet", index=False)
    error = _error_of(scale.load, folder)
    assert error.source.endswith("part-01.parquet") and error.column == "label"
    assert "multi-label" in error.problem and "without --dask" in error.fix


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(
    [chr(c) for c in range(128)] + ["\u00e9", "\u200b", "\u00a0", "\u3000"]), max_size=5),
    max_size=40, unique=True))
def test_the_respelling_screen_passes_every_value_the_loader_would_respell(values):
    """The loader and the distributed reader screen id dictionaries in pyarrow's kernels (RE2)
    before the spelling rule: the screen reads its pattern as Python's ``re`` does, and it
    flags every value whose normal spelling differs (so the respellings found are all of them)."""
    import re

    from hlv_core.io.spelling import (
        _ASCII_SUSPECT,
        normalise_spelling,
        respelling_candidates,
        spelling_changes,
    )

    index = pd.Index(sorted(values), dtype="str")
    screen = respelling_candidates(index)
    python = [not v.isascii() or re.search(_ASCII_SUSPECT, v) is not None for v in index]
    assert screen.tolist() == python
    assert all(flag for v, flag in zip(index, screen, strict=True)
               if normalise_spelling(v) != v)
    assert spelling_changes(index) == {v: normalise_spelling(v) for v in index
                                       if normalise_spelling(v) != v}


def test_parquet_dictionaries_become_sorted_categoricals_of_the_used_values(tmp_path):
    """Dictionary columns (several row groups, unused dictionary entries, nulls) are read as
    sorted ``str`` categories of the values that occur: the cells are those of the table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from hlv_core.scale.reading import read_file

    items = pa.array(["b", "a", None, "b", "\u00e9", "a b", "z"]).dictionary_encode()
    table = pa.table({"item_id": items, "annotator_id": list("xyzxyqr"),
                      "label": pa.array(["1", "2", "3", None, "5", "6", "7"])})
    table = table.filter(pa.array([True] * 6 + [False]))  # "z" stays in the dictionary
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=2)
    frame = read_file(str(tmp_path / "a.parquet"))
    assert frame["item_id"].cat.categories.tolist() == ["a", "a b", "b", "\u00e9"]
    assert frame["item_id"].astype(object).where(frame["item_id"].notna(), None).tolist() == \
        ["b", "a", None, "b", "\u00e9", "a b"]
    assert frame["label"].isna().tolist() == [False, False, False, True, False, False]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", *args], stdout=log.open("w"),
                            stderr=subprocess.STDOUT, env=env, cwd=ROOT)


def slow_partition(path: str) -> pd.DataFrame:
    """A partition that takes a while to read (so a worker can be killed mid-computation)."""
    time.sleep(0.4)
    return scale.read_file(path)


@pytest.mark.slow
def test_separate_scheduler_and_workers_and_a_worker_killed_mid_run(tmp_path, capsys):
    frame = generate(n_items=300, seed=9)
    folder, whole = write_parts(frame, tmp_path / "sep", n_files=12)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                     str(port), "--no-dashboard"], tmp_path / "scheduler.log")]
    try:
        for i in range(2):
            procs.append(_start(["distributed.cli.dask_worker", address, "--nthreads", "1",
                                 "--no-dashboard", "--host", "127.0.0.1"],
                                tmp_path / f"worker{i}.log"))
        with Client(address, timeout="60s") as dask_client:
            dask_client.wait_for_workers(2, timeout=120)
            assert main(["agreement", str(folder), "--json", "--dask", address]) == 0
            _assert_same(json.loads(capsys.readouterr().out), _agreement_in_memory(load(whole)))
            import dask.dataframe as dd

            files = scale.list_files(folder)
            ddf = dd.from_map(slow_partition, files, meta=scale.read_file(files[0]).iloc[:0])
            with dask_client.as_current():
                future = _Background(scale.load, ddf)
                time.sleep(1.5)
                procs[1].kill()  # a worker dies mid-computation
                result, error = future.join()
        if error is not None:  # a clear error, never a partial number
            assert isinstance(error, scale.ClusterError), repr(error)
            assert "no result was produced" in str(error)
        else:
            _assert_same(scale.summary(result), load(whole).summary())
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(timeout=30)


class _Background:
    """Run ``fn(*args)`` in a thread (the test kills a worker meanwhile)."""

    def __init__(self, fn, *args):
        import contextvars
        import threading

        self.result = self.error = None
        context = contextvars.copy_context()
        self.thread = threading.Thread(target=context.run, args=(self._run, fn, args))
        self.thread.start()

    def _run(self, fn, args):
        try:
            self.result = fn(*args)
        except Exception as exc:  # recorded, checked by the test
            self.error = exc

    def join(self):
        self.thread.join(timeout=240)
        assert not self.thread.is_alive()
        return self.result, self.error


def test_the_command_line_gives_the_in_memory_json(client, split_data, capsys):
    folder, whole = split_data
    address = client.scheduler.address
    assert main(["summary", str(folder), "--json", "--dask", address]) == 0
    distributed = json.loads(capsys.readouterr().out)
    assert main(["summary", str(whole), "--json"]) == 0
    _assert_same(distributed, json.loads(capsys.readouterr().out))
    assert main(["agreement", str(folder), "--json", "--dask", address, "--n-boot", "300"]) == 0
    distributed = json.loads(capsys.readouterr().out)
    assert main(["agreement", str(whole), "--json", "--n-boot", "300"]) == 0
    _assert_same(distributed, json.loads(capsys.readouterr().out))


@pytest.mark.slow
def test_pairwise_alpha_sigma_and_sigma_rnd_equal_the_in_memory_engine(client, split_data):
    from hlv_core.agreement import pairwise_alpha
    from hlv_core.balance import sigma, sigma_random
    from hlv_core.scale import pairs

    folder, whole = split_data
    data = scale.load(folder, keep_rows=True)
    memory = load(whole).annotations
    for min_shared in (1, 2):
        distributed = pairs.pairwise_alpha(data, min_shared=min_shared)
        expected = pairwise_alpha(memory, level="nominal", min_shared=min_shared)
        pd.testing.assert_frame_equal(distributed, expected)
        assert distributed.attrs == expected.attrs
    for min_shared, tile in ((1, 5), (2, 64)):  # 3 x 3 tiles of the 12 annotators, one tile
        result = pairs.sigma(data, min_shared=min_shared, tile=tile)
        expected = sigma(memory, min_shared=min_shared)
        _assert_same(result.summary(), expected.summary(), skip=())
        pd.testing.assert_frame_equal(result.pairs, expected.pairs)
    rnd = pairs.sigma_random(data, n_repeats=2, seed=11)
    expected = sigma_random(memory, n_repeats=2, seed=11)
    np.testing.assert_array_equal(rnd.values, expected.values)
    np.testing.assert_array_equal(rnd.n_triangles, expected.n_triangles)
    assert rnd.mean == pytest.approx(expected.mean, abs=1e-12)


@pytest.mark.slow
def test_pairwise_alpha_and_sigma_at_every_other_level_equal_the_in_memory_engine(client,
                                                                                  tmp_path):
    from hlv_core.agreement import pairwise_alpha
    from hlv_core.balance import sigma, sigma_random
    from hlv_core.scale import pairs

    frame = generate(n_items=200, n_annotators=10, seed=12,
                     labels=("1", "2", "3", "5", "8"))  # ratings, unequal steps
    folder, whole = write_parts(frame, tmp_path / "ratings", n_files=5)
    data = scale.load(folder, keep_rows=True)
    memory = load(whole).annotations
    nominal = pairs.pairwise_alpha(data, min_shared=2)["alpha"]
    for level in ("ordinal", "interval", "ratio"):
        distributed = pairs.pairwise_alpha(data, level=level, min_shared=2)
        expected = pairwise_alpha(memory, level=level, min_shared=2)
        assert distributed["alpha"].notna().sum() > 20
        assert (distributed["alpha"] - nominal).abs().max() > 0.01  # the level matters
        pd.testing.assert_frame_equal(distributed, expected, check_exact=False, rtol=0,
                                      atol=1e-12)
        assert distributed.attrs == expected.attrs
        result = pairs.sigma(data, level=level, min_shared=2, tile=4)
        expected = sigma(memory, level=level, min_shared=2)
        _assert_same(result.summary(), expected.summary(), skip=())
        assert result.n_triangles > 0 and 0 < result.n_neg_edges < len(result.pairs)
        pd.testing.assert_frame_equal(result.pairs, expected.pairs, check_exact=False, rtol=0,
                                      atol=1e-12)
    rnd = pairs.sigma_random(data, n_repeats=2, seed=3, level="ordinal")
    expected = sigma_random(memory, n_repeats=2, seed=3, level="ordinal")
    np.testing.assert_array_equal(rnd.n_triangles, expected.n_triangles)
    np.testing.assert_allclose(rnd.values, expected.values, rtol=0, atol=1e-12)
    assert rnd.level == expected.level == "ordinal"


@pytest.mark.slow
def test_dawid_skene_and_one_coin_as_map_reduce_em_equal_the_in_memory_fit(client, split_data):
    competence = pytest.importorskip("hlv_core.competence")  # the in-memory engine (oracle)
    from hlv_core.scale import competence as scaled

    folder, whole = split_data
    data = scale.load(folder, keep_rows=True)
    memory = load(whole).annotations
    for fit, name in ((scaled.dawid_skene, "dawid_skene"),
                      (scaled.one_coin_dawid_skene, "one_coin_dawid_skene")):
        result = fit(data, max_iter=15, tol=1e-9)
        with pytest.warns(RuntimeWarning) if not result.converged else _nothing():
            expected = getattr(competence, name)(memory, max_iter=15, tol=1e-9)
        assert result.n_iter == expected.n_iter and result.converged == expected.converged
        pd.testing.assert_frame_equal(result.posteriors, expected.posteriors, atol=1e-9, rtol=0)
        pd.testing.assert_series_equal(result.labels, expected.labels)
        pd.testing.assert_series_equal(result.n_rows, expected.n_rows, check_dtype=False)
        np.testing.assert_allclose(result.confusion_array, expected.confusion_array, atol=1e-9)
        assert result.loglik == pytest.approx(expected.loglik, rel=1e-10)
        other = result.accuracy if name == "dawid_skene" else result.skill
        mine = expected.accuracy if name == "dawid_skene" else expected.skill
        pd.testing.assert_series_equal(other, mine, atol=1e-9, rtol=0)
    # to the fixed point SQUAREM-accelerated (the default), and 15 plain steps: as in memory
    for accelerate, cap in ((True, 10_000), (False, 15)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = scaled.dawid_skene(data, accelerate=accelerate, max_iter=cap)
            expected = competence.dawid_skene(memory, accelerate=accelerate, max_iter=cap)
        assert result.converged == expected.converged == accelerate
        assert result.n_iter == expected.n_iter
        pd.testing.assert_frame_equal(result.posteriors, expected.posteriors, atol=1e-9, rtol=0)
        np.testing.assert_allclose(result.confusion_array, expected.confusion_array, atol=1e-9)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), n_files=st.integers(1, 6), numeric=st.booleans())
def test_any_split_into_files_gives_the_in_memory_numbers(client, tmp_path_factory, seed, n_files,
                                                          numeric):
    """Property: however the rows are shuffled and cut into files, the summary (counts, content
    hash) and alpha with its CI are the in-memory ones."""
    labels = ("1", "2", "3") if numeric else ("a", "b", "c", "d")
    frame = generate(n_items=40, n_annotators=5, seed=seed, labels=labels)
    folder, whole = write_parts(frame, tmp_path_factory.mktemp("prop") / "parts", n_files=n_files,
                                fmt="csv" if seed % 2 else "parquet")
    data, memory = scale.load(folder), load(whole)
    _assert_same(scale.summary(data), memory.summary())
    _assert_same(scale.agreement_result(data, n_boot=100, seed=seed),
                 _agreement_in_memory(memory, n_boot=100, seed=seed))


def test_a_lost_worker_becomes_one_clear_error_and_data_errors_pass_unchanged():
    from types import SimpleNamespace

    from distributed import KilledWorker

    from hlv_core.scale.cluster import on_cluster

    @on_cluster
    def lost():
        raise KilledWorker("('read-1', 0)", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)

    @on_cluster
    def bad():
        raise DataError("bad label", source="part-06.csv", row=6)

    with pytest.raises(scale.ClusterError, match="no result was produced"):
        lost()
    with pytest.raises(DataError, match="row 6"):
        bad()
    assert issubclass(scale.ClusterError, OSError)  # the command line: one line, exit 2


@pytest.mark.slow
def test_the_load_without_a_shuffle_equals_the_shuffled_load(client, tmp_path):
    """The partial sums per item bucket (no shuffle) give the shuffled load's reduced data:
    one item in every file, a file holding only items first seen in earlier files (an empty
    bucket), an annotator spelled with surrounding whitespace in one file."""
    frame = generate(n_items=60, n_annotators=6, seed=3)
    spread = pd.DataFrame({"item_id": "everywhere", "annotator_id": [f"an{a}" for a in range(6)],
                           "label": ["neg", "pos", "pos", "neu", "neg", "pos"]})
    late = frame[frame["item_id"].isin(["it1", "it2"])]  # rows of items seen in file 0
    early = frame[~frame.index.isin(late.index)]
    folder = tmp_path / "parts"
    folder.mkdir()
    blocks = np.array_split(np.arange(len(early)), 5)
    for j, rows in enumerate(blocks):
        part = pd.concat([early.iloc[rows], spread.iloc[[j]]], ignore_index=True)
        if j == 2:
            part.loc[0, "annotator_id"] = f" {part.loc[0, 'annotator_id']} "
        part.to_parquet(folder / f"part-{j:02d}.parquet", index=False)
    first_items = set(early.iloc[blocks[0]]["item_id"])
    tail = pd.concat([late[late["item_id"].isin(first_items)], spread.iloc[[5]]])
    tail.to_parquet(folder / "part-05.parquet", index=False)
    fast, shuffled = scale.load(folder), scale.load(folder, keep_rows=True)
    assert (fast.counts != shuffled.counts).nnz == 0 and fast.counts.shape == shuffled.counts.shape
    assert (fast.annotator_counts != shuffled.annotator_counts).nnz == 0
    np.testing.assert_array_equal(fast.n_annotators_per_item, shuffled.n_annotators_per_item)
    assert list(fast.annotator_ids) == list(shuffled.annotator_ids)
    assert fast.labels == shuffled.labels and fast.n_annotations == shuffled.n_annotations
    assert fast.report.notes == shuffled.report.notes and fast.report.notes
    assert fast.content_hash() == shuffled.content_hash()


def test_the_content_hash_is_the_same_with_the_compiled_string_hash(client, tmp_path,
                                                                    monkeypatch):
    """The string dictionaries of the distributed content hash (each file's ids, the shuffled
    partitions' items, the global annotators and labels) hashed by the compiled SipHash kernel
    (Aumasson and Bernstein, section 2), forced on at every size, and by pandas under
    ``reference_only()``: the same hash, the in-memory one, with and without the shuffle."""
    pytest.importorskip("numba")
    from hlv_core import _compiled, _kernels

    frame = generate(n_items=80, n_annotators=7, seed=11)
    frame["item_id"] = frame["item_id"].str.replace("it", "caf\u00e9-", regex=False)
    frame["annotator_id"] = frame["annotator_id"].str.replace("an", "\u65e5\u672c", regex=False)
    frame["label"] = frame["label"].str.replace("neu", "neutr\u00e9", regex=False)
    folder, whole = write_parts(frame, tmp_path / "parts", n_files=5)
    with _compiled.reference_only():
        expected = load(whole).content_hash
    sizes: list[int] = []
    compiled = _kernels.string_hashes

    def counted(data, offsets):
        sizes.append(len(offsets) - 1)
        return compiled(data, offsets)

    monkeypatch.setattr(_kernels, "string_hashes", counted)
    monkeypatch.setattr(_compiled, "MIN_COMPILED_WORK", 0)
    assert load(whole).content_hash == expected
    for keep_rows in (False, True):
        sizes.clear()
        assert scale.load(folder, keep_rows=keep_rows).content_hash() == expected, keep_rows
        assert sum(sizes) >= 80 + 7  # the kernel hashed every item and annotator id
        sizes.clear()
        with _compiled.reference_only():
            assert scale.load(folder, keep_rows=keep_rows).content_hash() == expected, keep_rows
        assert sizes == []


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_bootstrap_profiles_from_row_keys_equal_the_dense_unique(seed):
    from scipy import sparse

    from hlv_core._alpha import _profiles

    rng = np.random.default_rng(seed)
    dense = rng.integers(0, rng.integers(1, 20), size=(rng.integers(1, 60),
                                                        rng.integers(1, 8))).astype(float)
    profiles, freq = _profiles(sparse.csr_matrix(dense))
    expected, expected_freq = np.unique(dense, axis=0, return_counts=True)
    np.testing.assert_array_equal(profiles, expected)
    np.testing.assert_array_equal(freq, expected_freq)


_SPELLINGS = ["pos", "neg", "Pos", "3", "3.0", "03", "4", "n/a", "NA", "", "1e999", "inf",
              "x\u200b", "x", "a  b", "a b", "caf\u00e9", "cafe\u0301"]


@settings(max_examples=25, deadline=None)
@given(chosen=st.lists(st.sampled_from(_SPELLINGS), min_size=1, max_size=5, unique=True),
       repeats=st.lists(st.integers(1, 4), min_size=5, max_size=5))
def test_label_rules_on_the_dictionary_decide_as_on_the_rows(chosen, repeats):
    """When the loader's label rules change nothing on one row per distinct label, they change
    nothing on the rows either (the distributed load then skips expanding the rows)."""
    from hlv_core.io import ImportReport
    from hlv_core.io.dataset import apply_label_rules
    from hlv_core.scale.reduce import _rules_change_nothing

    names = pd.Index(sorted(chosen), dtype=str)
    rank = names.get_indexer(chosen).astype(np.int32)  # in order of first appearance
    rows = np.repeat(rank, repeats[:len(chosen)])
    report = ImportReport("x.csv", "canonical")
    column = pd.Series(pd.Categorical.from_codes(rows, names))
    try:
        ann, _ = apply_label_rules(pd.DataFrame({"label": column}), None, report, "x.csv", 0)
        unchanged = not report.notes and ann["label"].astype(str).tolist() == list(names[rows])
    except DataError:
        unchanged = False
    assert _rules_change_nothing(rank, names, "x.csv") == unchanged


def test_sigma_exact_tie_is_a_plus_edge_as_in_memory(tmp_path):
    """The hand-computed tie of tests/test_balance.py (alpha = 0 and three pairs with
    alpha_ij = 0, two of them "+" only as ties): the same signs on the scale path."""
    from hlv_core.scale import pairs

    rows = [("i0", "a0", "0"), ("i1", "a0", "1"), ("i2", "a0", "1"), ("i0", "a1", "0"),
            ("i1", "a1", "0"), ("i2", "a1", "0"), ("i0", "a2", "1"), ("i1", "a2", "1"),
            ("i2", "a2", "1"), ("i0", "a3", "0"), ("i2", "a3", "1")]
    folder, _ = write_parts(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                            tmp_path / "tie", n_files=1)
    result = pairs.sigma(scale.load(folder, keep_rows=True))
    assert (result.n_pos_edges, result.n_neg_edges) == (4, 2)
    assert (result.n_balanced, result.n_triangles) == (2, 4)
