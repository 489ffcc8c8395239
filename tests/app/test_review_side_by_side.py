"""Case review for side-by-side judging: every output of a case lists the same labels in the
inventory order (rows line up); no database path or dataset fingerprint on screen."""

from __future__ import annotations

import pytest

from .conftest import open_page
from .test_page_review import desk


@pytest.fixture
def review_db(tmp_path, monkeypatch):
    path = tmp_path / "reviews.sqlite3"
    monkeypatch.setenv("HLV_REVIEW_DB", str(path))
    return path


def test_outputs_line_up_and_no_paths_on_screen(review_db, app):
    at = desk(open_page(app, "review"), "Ann")
    at.button(key="review.own_skip").click().run()
    assert not at.exception
    inventory = list(at.session_state["hlv.dataset"].labels)
    tables = [d.value for d in at.dataframe if list(d.value.columns) == ["label", "probability"]]
    assert len(tables) == 3  # outputs A, B, C
    rows = [t["label"].tolist() for t in tables]
    assert rows[0] == rows[1] == rows[2]
    assert rows[0] == [x for x in inventory if x in rows[0]]
    texts = " ".join([c.value for c in at.caption] + [m.value for m in at.markdown]
                     + [w.value for w in at.warning] + [i.value for i in at.info])
    assert str(review_db) not in texts and "fingerprint" not in texts
    assert "Review database" not in texts
    assert at.session_state["hlv.dataset"].content_hash[:12] not in texts
