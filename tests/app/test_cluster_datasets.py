"""Large datasets on a Dask cluster in the app: an admin registers one in the server's secrets,
it appears in the dataset list, Overview and Agreement compute on the cluster (the numbers of
the in-memory engine on the same rows), and every other page says it needs the rows in memory.
One in-process Dask cluster (2 workers) for the module; the app connects to its address."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from distributed import LocalCluster
from streamlit.testing.v1 import AppTest

from hlv_core.agreement import alpha_report, kappa_summary
from hlv_core.io import load

APP = Path(__file__).resolve().parents[2] / "app.py"


def _write(folder: Path, n_items: int = 150, seed: int = 2) -> Path:
    """Seeded ratings split over 4 Parquet files (items split across files); returns the
    whole table as one CSV (the in-memory oracle)."""
    rng = np.random.default_rng(seed)
    per_item = rng.integers(2, 6, size=n_items)
    item = np.repeat(np.arange(n_items), per_item)
    annotator = np.concatenate([rng.choice(9, size=k, replace=False) for k in per_item])
    label = np.clip(rng.integers(1, 6, size=n_items)[item]
                    + rng.integers(-1, 2, size=len(item)), 1, 5)
    frame = pd.DataFrame({"item_id": [f"it{i}" for i in item],
                          "annotator_id": [f"an{a}" for a in annotator],
                          "label": label.astype(str)}).sample(frac=1.0, random_state=seed)
    folder.mkdir()
    for j, rows in enumerate(np.array_split(np.arange(len(frame)), 4)):
        frame.iloc[rows].to_parquet(folder / f"part-{j}.parquet", index=False)
    whole = folder.parent / "whole.csv"
    frame.to_csv(whole, index=False)
    return whole


@pytest.fixture(scope="module")
def scheduler():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def registered(tmp_path, scheduler):
    whole = _write(tmp_path / "big")
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.secrets["hlv_lens"] = {"large_datasets": {
        "big": {"path": str(tmp_path / "big"), "scheduler": scheduler,
                "title": "Big *crowd*"},
        "broken": {"scheduler": scheduler},
    }}
    at.run()
    assert not at.exception, at.exception
    return at, whole


def _use(at, source: str) -> None:
    """Pick ``source`` in the sidebar's dataset list (after the first run AppTest reruns only
    the page, without the sidebar: then what the list's callback records is set directly)."""
    try:
        box = at.selectbox(key="app.source")
    except KeyError:
        at.session_state["hlv.cluster_in_use"] = source
        at.run()
    else:
        box.set_value(source).run()
    assert not at.exception, at.exception


def _table(at, column: str) -> pd.DataFrame:
    """The first table on the page with ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.slow
def test_a_registered_dataset_is_listed_and_its_overview_runs_on_the_cluster(registered):
    at, whole = registered
    box = at.selectbox(key="app.source")
    assert {"Cluster: Big *crowd*", "Cluster: broken"} <= set(box.options)  # shown labels
    _use(at, "cluster:big")
    assert not at.exception, at.exception
    assert any("Big \\*crowd\\*" in c.value for c in at.subheader)  # user text escaped
    at.button(key="cluster.overview.load").click().run()
    assert not at.exception, at.exception
    expected = load(whole).summary()
    metrics = _metrics(at)
    assert metrics["Items"] == f"{expected['n_items']:,}"
    assert metrics["Annotators"] == f"{expected['n_annotators']:,}"
    assert metrics["Annotations"] == f"{expected['n_annotations']:,}"
    assert metrics["Mean entropy"] == f"{expected['mean_entropy']:.3f}"
    assert any(expected["content_hash"] in c.value for c in at.caption)
    labels = _table(at, "annotations")
    assert dict(zip(labels["label"], labels["annotations"], strict=True)) == \
        expected["label_counts"]
    # a broken registration says what is wrong instead of trying
    _use(at, "cluster:broken")
    assert any("no `path`" in e.value for e in at.error)


@pytest.mark.slow
def test_a_folder_that_changes_on_disk_is_computed_again_not_shown_stale(registered, tmp_path):
    """Results are held under the files' fingerprint (names, sizes, modification times): a
    rewritten file hides the old numbers with a note, and the next computation has the new."""
    at, whole = registered
    _use(at, "cluster:big")
    at.button(key="cluster.overview.load").click().run()
    assert not at.exception, at.exception
    before = load(whole).summary()
    assert _metrics(at)["Annotations"] == f"{before['n_annotations']:,}"
    part = tmp_path / "big" / "part-3.parquet"
    frame = pd.read_parquet(part)
    frame.iloc[: len(frame) // 2].to_parquet(part, index=False)  # half of the last file
    at.run()
    assert not at.exception, at.exception
    assert "Annotations" not in _metrics(at)  # the old numbers are gone
    assert any("changed on disk" in i.value for i in at.info)
    at.button(key="cluster.overview.load").click().run()
    assert not at.exception, at.exception
    parts = sorted((tmp_path / "big").glob("*.parquet"))
    after = load(pd.concat([pd.read_parquet(p) for p in parts]).to_csv(index=False).encode(),
                 name="whole.csv").summary()
    assert after["n_annotations"] < before["n_annotations"]
    metrics = _metrics(at)
    assert metrics["Annotations"] == f"{after['n_annotations']:,}"
    assert metrics["Items"] == f"{after['n_items']:,}"
    assert not any("changed on disk" in i.value for i in at.info)


@pytest.mark.slow
def test_agreement_runs_on_the_cluster_and_other_pages_refuse(registered):
    at, whole = registered
    _use(at, "cluster:big")
    at.switch_page("pages/agreement/page.py").run()
    assert not at.exception, at.exception
    at.button(key="cluster.agreement.load").click().run()  # the rows reduced on the cluster
    assert not at.exception, at.exception
    assert at.selectbox(key="cluster.agreement.level").value == "ordinal"  # ratings
    at.number_input(key="cluster.agreement.n_boot").set_value(200)
    at.button(key="cluster.agreement.run").click().run()
    assert not at.exception, at.exception
    dataset = load(whole)
    expected = alpha_report(dataset.annotations, level="ordinal",
                            values=dataset.numeric_label_map("ordinal"), n_boot=200, seed=0)
    table = _table(at, "measure").set_index("measure")["value"]
    assert float(table["alpha"]) == pytest.approx(expected.alpha, abs=1e-12)
    assert float(table["ci_low"]) == pytest.approx(expected.ci_low, abs=0.005)
    assert float(table["ci_high"]) == pytest.approx(expected.ci_high, abs=0.005)
    for name, value in kappa_summary(dataset.annotations).items():
        assert float(table[f"{name}_kappa"]) == pytest.approx(value, abs=1e-12)
    assert _metrics(at)["Krippendorff's α (ordinal)"] == f"{expected.alpha:.3f}"
    assert any("seed 0" in c.value for c in at.caption)
    for page in ("explorer", "graph"):
        at.switch_page(f"pages/{page}/page.py").run()
        assert not at.exception, at.exception
        assert any("needs the whole annotation table" in i.value for i in at.info), page


def test_stop_cancels_the_job_on_the_cluster_and_keeps_no_result(scheduler):
    import dask

    from hlv_ui.cluster_ui import ClusterJob

    def work(job):
        job.step("sleeping on a worker")
        return dask.compute(*[dask.delayed(time.sleep)(3) for _ in range(4)])

    job = ClusterJob(scheduler, work, n_steps=1)
    while job.stage != "sleeping on a worker":
        time.sleep(0.05)
    fraction, text = job.progress()
    assert 0.0 <= fraction < 1.0 and text.startswith("Step 1 of 1: sleeping on a worker")
    job.stop()
    job.thread.join(timeout=60)
    assert not job.running
    # an uncancelled compute would have returned its sleeps as the result
    assert job.stopped and job.result is None and job.error is None
