"""AppTest of the "Errors and perspectives" page: ranking, item detail, verdicts that persist,
the annotator map and report, clear messages on data it cannot analyse."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import pytest

from hlv_core.verdict_store import VerdictStore

from ..conftest import shared_path
from .conftest import open_page


@pytest.fixture(autouse=True)
def _dbs(tmp_path, monkeypatch):
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "reviews.sqlite3"))
    monkeypatch.setenv("HLV_VERDICT_DB", str(tmp_path / "verdicts.sqlite3"))


def _upload(app, name: str, raw: bytes) -> None:
    app.file_uploader(key="home.upload").set_value((name, raw, "application/zip")).run()
    assert not app.exception, [e.value for e in app.exception]


def _zip_of(folder) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.iterdir():
            if path.stem in ("annotations", "items", "annotators"):
                archive.write(path, path.name)
    return buffer.getvalue()


def _texts(at) -> str:
    return " ".join(str(m.value) for m in [*at.markdown, *at.caption, *at.info, *at.warning,
                                            *at.error, *at.success])


def test_page_on_a_sample_with_verdict_saved(app):
    at = open_page(app, "errors", "case_review")
    assert at.title[0].value == "Errors and perspectives"
    assert "never a verdict" in _texts(at)
    assert len(at.dataframe) >= 3
    # desk mode: name once, then record a verdict on the selected label
    at.text_input(key="errors.desk_name").set_value("Rita")
    forms = [b for b in at.button if "Start" in str(b.label)]
    forms[0].click().run()
    assert not at.exception
    radios = [r for r in at.radio if r.key and r.key.startswith("errors.verdict.")]
    radios[0].set_value("variation")
    [b for b in at.button if "Save verdict" in str(b.label)][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Saved" in _texts(at)
    rows = VerdictStore().verdicts()
    assert len(rows) == 1 and rows["reviewer"].iloc[0] == "Rita"
    assert rows["verdict"].iloc[0] == "variation"


def test_page_on_planted_camps_calls_spammers_unreliable(app):
    _upload(app, "planted_camps.zip", _zip_of(shared_path("data", "planted_camps")))
    app.switch_page("pages/errors/page.py").run()
    assert not app.exception, [e.value for e in app.exception]
    roles = pd.read_csv(shared_path("data", "planted_camps", "annotators.csv"), dtype=str)
    tables = [d.value for d in app.dataframe]
    report = next(t for t in tables if "kind" in t.columns and "skill" in t.columns)
    kinds = report.set_index("annotator_id")["kind"]
    spam = roles.loc[roles["role"] == "spammer", "annotator_id"]
    assert (kinds.reindex(spam) == "unreliable").all()
    assert "perspective" in _texts(app)
    # the camp rule (b) needs a subset of items: choosing topic = T1 passes it to the engine
    assert "majority_agreement_in" not in report.columns
    app.selectbox(key="errors.subset_column").set_value("topic").run()
    app.selectbox(key="errors.subset_value").set_value("T1").run()
    assert not app.exception, [e.value for e in app.exception]
    report = next(d.value for d in app.dataframe
                  if "kind" in d.value.columns and "skill" in d.value.columns)
    from hlv_core import competence
    from hlv_core.io import load

    dataset = load(shared_path("data", "planted_camps"))
    subset = competence.subset_items(dataset.items, "topic", "T1")
    want = competence.annotator_report(
        dataset.annotations[["item_id", "annotator_id", "label"]],
        camps=competence.sigma_camps(dataset.annotations[["item_id", "annotator_id", "label"]]),
        subset=subset, traits=dataset.annotators, mace_restarts=10)
    got = report.set_index("annotator_id")
    pd.testing.assert_series_equal(got["majority_agreement_in"],
                                   want["majority_agreement_in"].reindex(got.index),
                                   check_names=False, check_index_type=False)
    assert (got["kind"] == want["kind"].reindex(got.index)).all()
    # camps from a known annotator trait: the engine's trait_camps, named under the map
    app.selectbox(key="errors.camps_from").set_value("role").run()
    assert not app.exception, [e.value for e in app.exception]
    report = next(d.value for d in app.dataframe
                  if "kind" in d.value.columns and "skill" in d.value.columns)
    roles = dataset.annotators.set_index("annotator_id")["role"]
    assert (report.set_index("annotator_id")["camp"] == roles.reindex(
        report["annotator_id"]).to_numpy()).all()
    assert "camps from the annotator trait *role*" in _texts(app)


def test_page_on_varierr_with_explanations_and_gold(app):
    folder = shared_path("data", "varierrnli")
    _upload(app, "varierrnli.zip", _zip_of(folder))
    app.switch_page("pages/errors/page.py").run()
    assert not app.exception
    app.file_uploader(key="errors.up_expl").set_value(
        ("explanations.csv", (folder / "explanations.csv").read_bytes(), "text/csv"))
    app.file_uploader(key="errors.up_gold").set_value(
        ("errors.csv", (folder / "errors.csv").read_bytes(), "text/csv")).run()
    assert not app.exception, [e.value for e in app.exception]
    tables = [d.value for d in app.dataframe]
    assert any("explanation" in t.columns for t in tables)
    ev = next(t for t in tables if "ap" in t.columns)
    assert ev["ap"].iloc[0] > 0.5   # ds_posterior on VariErr: 0.514


@pytest.mark.parametrize("rows, words", [
    ("item_id,annotator_id,label\n1,a,x\n1,b,x\n2,a,x\n2,b,x\n", "same label"),
])
def test_bad_data_gives_a_clear_message(app, rows, words):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("annotations.csv", rows)
    _upload(app, "tiny.zip", buffer.getvalue())
    app.switch_page("pages/errors/page.py").run()
    assert not app.exception
    assert words in _texts(app)


@pytest.mark.slow
def test_ten_thousand_annotators_get_a_clear_message(app):
    rows = "\n".join(f"{i},r{a},{'x' if (a + i) % 3 else 'y'}"
                     for a in range(10_000) for i in range(2))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("annotations.csv", "item_id,annotator_id,label\n" + rows + "\n")
    _upload(app, "crowd.zip", buffer.getvalue())
    app.switch_page("pages/errors/page.py").run()
    assert not app.exception
    assert "10,000 annotators" in _texts(app) and "command line" in _texts(app)
    assert not app.dataframe


def test_page_limits_one_annotator():
    from types import SimpleNamespace

    from pages.errors.views import page_limits

    one = SimpleNamespace(annotations=pd.DataFrame(
        {"item_id": ["1", "2"], "annotator_id": ["a", "a"], "label": ["x", "y"]}))
    assert "one annotator" in page_limits(one).lower()


@pytest.mark.parametrize("key", ["errors.up_expl", "errors.up_val"])
def test_optional_file_without_its_columns_gives_one_clear_error(app, key):
    """Explanations and peer validity judgments (Weber-Genzel et al., section 5) missing their
    columns: one error naming them, instead of a file silently ignored."""
    at = open_page(app, "errors", "case_review")
    at.file_uploader(key=key).set_value(("wrong.csv", b"foo,bar\n1,2\n", "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "missing" in at.error[0].value, [e.value for e in at.error]


def test_the_page_fits_dawid_skene_once(app, monkeypatch):
    """The ranking (Dawid-Skene posterior, the default) and the annotator report fit the same
    model to the same annotations: the page runs that EM once (``competence`` keeps it)."""
    import streamlit as st

    from hlv_core import competence

    st.cache_data.clear()
    monkeypatch.setattr(competence, "_FITS", competence.OrderedDict())
    fits = []
    real = competence._fit_em
    monkeypatch.setattr(competence, "_fit_em",
                        lambda *a, **k: (fits.append(a[1]), real(*a, **k))[1])
    at = open_page(app, "errors", "case_review")
    assert len(at.dataframe) >= 3
    assert sorted(fits) == ["ds", "one-coin"]


def test_an_em_stopped_at_the_cap_is_said_on_the_page(app):
    """With "Most EM iterations" below what the fit needs, the page says that its numbers are
    not the fixed point yet; at the default cap (the CLI's) it says nothing."""
    _upload(app, "paraphrase.zip", _zip_of(shared_path("data", "paraphrase")))
    at = app.switch_page("pages/errors/page.py").run()  # full Dawid-Skene: 612 iterations
    assert not at.exception, [e.value for e in at.exception]
    assert not any("stopped at its cap" in str(w.value) for w in at.warning)
    at.number_input(key="errors.max_iter").set_value(50).run()
    assert not at.exception, [e.value for e in at.exception]
    words = " ".join(str(w.value) for w in at.warning)
    assert "stopped at its cap of 50 iterations" in words, words
