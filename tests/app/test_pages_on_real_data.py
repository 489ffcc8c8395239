"""Every page on real data of every kind, uploaded as a person would (a zip of the canonical
files from ../shared/data): no page may raise, whatever the task type or missing annotator ids."""

from __future__ import annotations

import io
import zipfile

import pytest

from ..conftest import shared_path

PAGES = ["home", "soft_metrics", "certainty", "agreement", "perspectives", "graph", "explorer",
         "errors", "review", "training_lab"]
DATASETS = {
    "hs_brexit": 1120,   # multiclass, traits, texts
    "varierrnli": 500,   # multi-label
    "paraphrase": 500,   # rating -5..5, four annotators with traits
    "cifar10h": 10000,   # counts only: no annotator ids
}


def _zip_of(name: str) -> bytes:
    folder = shared_path("data", name)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.iterdir():
            if path.stem in ("annotations", "items", "annotators", "label_counts"):
                archive.write(path, path.name)
    return buffer.getvalue()


@pytest.fixture(autouse=True)
def _review_db(tmp_path, monkeypatch):
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "reviews.sqlite3"))


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_page_survives_real_uploaded_data(app, name):
    raw = _zip_of(name)
    app.file_uploader(key="home.upload").set_value((f"{name}.zip", raw, "application/zip")).run()
    assert not app.exception
    assert app.session_state["hlv.dataset"].n_items == DATASETS[name]
    for page in PAGES:
        app.switch_page(f"pages/{page}/page.py").run()
        assert not app.exception, (page, [e.value for e in app.exception])
        assert app.session_state["hlv.dataset"].name == name, page
