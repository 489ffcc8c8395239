"""Radio options render markdown (Streamlit 1.67 docs of ``st.radio``), so a label from the data
is shown through ``format_func=md``: ``**not**_liable`` stays those characters, never bold
text or a link. Pages: Perspectives (the per-group score, Lo, Casola et al., section 5) and
Case review (the reviewer's own label first, Kurniawan et al., section 6)."""

from __future__ import annotations

import io
import zipfile

import pytest

from hlv_core.samples import sample_path

from .conftest import open_page

HOSTILE = "**not**_liable"


@pytest.fixture(autouse=True)
def _review_db(tmp_path, monkeypatch):
    monkeypatch.setenv("HLV_REVIEW_DB", str(tmp_path / "reviews.sqlite3"))


def _upload_hostile(app, *, binary: bool = False):
    """case_review with ``not_liable`` renamed; ``binary``: 'unclear' merged into 'liable' (no
    predictions), so the hostile label is the positive class of a binary task."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sample_path("case_review").glob("*.csv"):
            if binary and path.stem == "predictions":
                continue
            text = path.read_text(encoding="utf-8").replace("not_liable", HOSTILE)
            if binary:
                text = text.replace(",unclear", ",liable").replace("unclear\n", "")
            archive.writestr(path.name, text)
    app.file_uploader(key="home.upload").set_value(
        ("hostile.zip", buffer.getvalue(), "application/zip")).run()
    assert not app.exception, [e.value for e in app.exception]
    assert HOSTILE in app.session_state["hlv.dataset"].labels


def _options(at) -> list[str]:
    return [str(o) for r in at.radio for o in r.options]


def test_perspectives_score_options_escape_the_label(app):
    _upload_hostile(app, binary=True)
    at = open_page(app, "perspectives")
    options = _options(at)
    assert any("not" in o for o in options)  # the headline label is the hostile one here
    assert not any(HOSTILE in o for o in options), options


def test_review_own_label_options_escape_the_label(app):
    _upload_hostile(app)
    at = open_page(app, "review")
    at.text_input(key="review.desk_name").set_value("Ann")
    next(b for b in at.button if b.label == "Start reviewing").click().run()
    assert not at.exception, [e.value for e in at.exception]
    radio = next(r for r in at.radio if r.label == "The label that applies")
    assert not any(HOSTILE in str(o) for o in radio.options), radio.options
    assert any("not" in str(o) for o in radio.options)
