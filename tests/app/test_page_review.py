"""Case review page: a full review round, meta-evaluation, import/export, hostile text."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from hlv_core import review, samples
from hlv_ui.auth import DESK_KEY

from .conftest import APP, open_page

HOSTILE = "<script>alert('x')</script> '); DROP TABLE judgements; --"


@pytest.fixture
def review_db(tmp_path, monkeypatch):
    path = tmp_path / "reviews.sqlite3"
    monkeypatch.setenv("HLV_REVIEW_DB", str(path))
    return path


def _dataset_hash(name="case_review"):
    return samples.load_sample(name).content_hash


def plain(markdown: str) -> str:
    """The text a markdown source renders (backslash escapes removed)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _markdown_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def desk(at, name: str):
    """Desk mode: name the reviewer once through the page's form."""
    at.text_input(key="review.desk_name").set_value(name)
    _submit(at)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _submit(at):
    submit = next(b for b in at.button if b.label == "Start reviewing")
    submit.click().run()


def test_desk_mode_names_the_reviewer_once(review_db, app):
    open_page(app, "review")
    assert any("Desk mode" in i.value for i in app.info)
    assert not app.tabs  # nothing to review before the name is given
    assert review_db.exists()
    desk(app, "Ann")
    assert app.session_state[DESK_KEY] == "Ann"
    assert any("not shared safely" in w.value for w in app.warning)
    # the name cannot be changed in this browser session: no name box any more
    assert not [t for t in app.text_input if t.key in ("review.desk_name", "review.reviewer")]


def test_full_review_round(review_db, app):
    open_page(app, "review")
    desk(app, "Ann")
    assert not app.exception
    # own labels first: no model output visible yet
    assert "Output A" not in _markdown_text(app)
    app.multiselect(key="review.own_labels").set_value(["liable"]).run()
    app.button(key="review.own_save").click().run()
    assert not app.exception
    text = _markdown_text(app)
    assert "Output A" in text and "Output B" in text
    for model in ("calibrated", "overconfident", "weak"):  # model names are hidden
        assert model not in text
    first = app.session_state["review.proposal"]
    app.text_area(key="review.comment").set_value(HOSTILE).run()
    app.button(key="review.choice.A").click().run()
    assert not app.exception
    store = review.ReviewStore(review_db)
    rows = store.judgements()
    assert len(rows) == 1
    row = rows.iloc[0]
    assert (row["reviewer"], row["item_id"], row["model_a"], row["model_b"], row["choice"]) == (
        "Ann", first["item_id"], first["model_a"], first["model_b"], "A")
    assert row["comment"] == HOSTILE and row["dataset"] == _dataset_hash()
    assert store.own_labels().iloc[0]["labels"] == ["liable"]
    assert {m.label: m.value for m in app.metric}["Your judgements"] == "1"
    assert "<script>" not in _markdown_text(app)
    # keep judging with own labels switched off: every proposal is new, pairs stay balanced
    app.toggle(key="review.own_first").set_value(False).run()
    if not app.session_state["review.proposal"]["own_done"]:
        app.button(key="review.own_skip").click().run()
    seen = {(first["item_id"], frozenset((first["model_a"], first["model_b"])))}
    for k in range(5):
        proposal = app.session_state["review.proposal"]
        key = (proposal["item_id"], frozenset((proposal["model_a"], proposal["model_b"])))
        assert key not in seen
        seen.add(key)
        app.button(key=f"review.choice.{review.CHOICES[k % 4]}").click().run()
        assert not app.exception
    assert len(store.judgements()) == 6
    _, comps = store.pair_counts(["calibrated", "overconfident", "weak"])
    assert set(comps[np.triu_indices(3, 1)]) == {2}
    assert {m.label: m.value for m in app.metric}["Your judgements"] == "6"
    # a second reviewer in a fresh browser session sees the meta-evaluation of both
    bob = AppTest.from_file(str(APP), default_timeout=120)
    bob.run()
    desk(open_page(bob, "review"), "Bob")
    assert {m.label: m.value for m in bob.metric}["Your judgements"] == "0"
    assert "by **1** reviewers" in _markdown_text(bob)


def _populate(path, dataset_hash, *, skip_pair=None, n=12):
    """Synthetic expert judgements: calibrated > overconfident > weak, with some ties."""
    rng = np.random.default_rng(0)
    quality = {"calibrated": 2.0, "overconfident": 1.0, "weak": 0.0}
    rows = []
    for a, b in [("calibrated", "overconfident"), ("calibrated", "weak"),
                 ("overconfident", "weak")]:
        if skip_pair and {a, b} == set(skip_pair):
            continue
        for i in range(n):
            p_a = 1 / (1 + np.exp(quality[b] - quality[a]))
            u = rng.random()
            choice = "both" if u < 0.15 else ("A" if rng.random() < p_a else "B")
            rows.append(dict(reviewer=f"r{i % 3}", item_id=f"case_{i + 1:03d}", model_a=a,
                             model_b=b, choice=choice, comment="", dataset=dataset_hash))
    review.ReviewStore(path).add_many(rows)


def test_meta_evaluation_tables_and_plots(review_db, app):
    h = _dataset_hash()
    _populate(review_db, h)
    desk(open_page(app, "review"), "Ann")
    frames = [d.value for d in app.dataframe]
    scores = next(f for f in frames if "score_in_denominator" in f.columns)
    wins, comps = review.ReviewStore(review_db).pair_counts(
        ["calibrated", "overconfident", "weak"], dataset=h)
    expected = review.rank_centrality(wins, comps)
    np.testing.assert_allclose(scores.set_index("model").loc[
        ["calibrated", "overconfident", "weak"], "score_in_denominator"], expected, atol=1e-12)
    np.testing.assert_allclose(
        scores.set_index("model").loc[["calibrated", "overconfident", "weak"],
                                      "score_decisive_only"],
        review.rank_centrality(wins, comps, ties="decisive_only"), atol=1e-12)
    pairs = next(f for f in frames if "model_1_wins" in f.columns)
    assert pairs["n"].tolist() == [12, 12, 12]
    corr = next(f for f in frames if "p_value" in f.columns)
    assert {"soft_accuracy", "po_jsd", "hard_accuracy", "entropy_correlation"} <= set(
        corr["metric"])
    assert (corr["alternative"] == "two-sided").all()
    assert corr["test"].str.startswith("exact permutation (6").all()
    specs = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    kinds = {t["type"] for s in specs for t in s["data"]}
    assert {"bar", "scatter"} <= kinds
    labels = [b.label for b in app.get("download_button")]
    assert "Download all judgements (CSV, admin)" in labels  # the desk user owns the store
    assert "Download correlations" in labels
    assert not [w for w in app.warning if "regularised" in w.value]  # connected graph
    app.radio(key="review.alternative").set_value("greater").run()
    corr2 = next(d.value for d in app.dataframe if "p_value" in d.value.columns)
    assert (corr2["alternative"] == "greater").all()


def test_non_unique_ranking_is_regularised_with_a_warning(review_db, app):
    # calibrated and overconfident both beat weak, never met: two unbeaten models
    h = _dataset_hash()
    rows = [dict(reviewer="r", item_id=f"case_00{i}", model_a=m, model_b="weak",
                 choice="A", dataset=h) for i in range(1, 4) for m in ("calibrated",
                                                                       "overconfident")]
    review.ReviewStore(review_db).add_many(rows)
    desk(open_page(app, "review"), "Ann")
    warnings_text = plain(" ".join(w.value for w in app.warning))
    assert "regularised with 0.1" in warnings_text
    scores = next(d.value for d in app.dataframe if "score_in_denominator" in d.value.columns)
    assert scores["regularize_in_denominator"].tolist() == [0.1] * 3
    # explicit regularisation: no warning
    app.number_input(key="review.regularize").set_value(0.5).run()
    assert not [w for w in app.warning if "regularised" in w.value]


def test_unjudged_models_are_left_out(review_db, app):
    h = _dataset_hash()
    rows = [dict(reviewer="r", item_id=f"case_00{i}", model_a="calibrated", model_b="weak",
                 choice=c, dataset=h) for i, c in zip(range(1, 5), "ABAA", strict=True)]
    review.ReviewStore(review_db).add_many(rows)
    desk(open_page(app, "review"), "Ann")
    assert any("overconfident" in i.value for i in app.info)
    scores = next(d.value for d in app.dataframe if "score_in_denominator" in d.value.columns)
    assert scores["model"].tolist() == ["calibrated", "weak"]


def test_import_csv_and_bad_import(review_db, app, tmp_path):
    h = _dataset_hash()
    source = tmp_path / "other.sqlite3"
    _populate(source, h, n=4)
    out = tmp_path / "export.csv"
    review.ReviewStore(source).export_csv(out)
    desk(open_page(app, "review"), "Ann")
    app.file_uploader(key="review.import").set_value(("export.csv", out.read_bytes(),
                                                      "text/csv")).run()
    assert not app.exception
    assert any("Imported 12 new judgements" in s.value for s in app.success)
    assert len(review.ReviewStore(review_db)) == 12
    bad = b"reviewer,item_id,model_a,model_b,choice\nann,case_001,weak,calibrated,maybe\n"
    app.file_uploader(key="review.import").set_value(("bad.csv", bad, "text/csv")).run()
    assert not app.exception
    assert "bad.csv" in app.error[0].value and "row 2" in app.error[0].value
    assert len(review.ReviewStore(review_db)) == 12


def test_hostile_reviewer_name_rendered_escaped(review_db, app):
    desk(open_page(app, "review"), "<b>x</b><script>1</script>")
    app.button(key="review.own_skip").click().run()
    app.button(key="review.choice.neither").click().run()
    assert not app.exception
    assert review.ReviewStore(review_db).judgements()["reviewer"].tolist() == [
        "<b>x</b><script>1</script>"]
    for markdown in app.markdown:
        assert "<script>" not in markdown.value


@pytest.mark.parametrize("name", list(samples.SAMPLES))
def test_every_sample_opens(review_db, app, name):
    desk(open_page(app, "review", name), "Ann")
    if app.button(key="review.own_skip") is not None:
        app.button(key="review.own_skip").click().run()
        app.button(key="review.choice.B").click().run()
        assert not app.exception
        assert len(review.ReviewStore(review_db)) == 1


# ------------------------------------------------------------------ team mode (OIDC login)

ALICE, BOB, ADMIN = "alice@example.org", "bob@example.org", "admin@example.org"
TEAM_SECRETS = {
    "auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32,
             "client_id": "hlv", "client_secret": "s",
             "server_metadata_url": "https://idp.invalid/.well-known/openid-configuration"},
    "hlv_lens": {"admins": [ADMIN.upper()]},  # compared case-insensitively
}


def team_app(email: str | None) -> AppTest:
    """The app in team mode, signed in as ``email`` (None: a visitor not logged in)."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.secrets = TEAM_SECRETS
    at.user = {"is_logged_in": False} if email is None else {
        "is_logged_in": True, "email": email, "name": email.split("@")[0]}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_team_mode_visitor_sees_only_the_login(review_db):
    at = team_app(None)
    assert [b.label for b in at.button] == ["Log in"]
    assert not at.selectbox and not at.tabs and not at.metric and not at.dataframe


def test_team_mode_reviewer_is_the_signed_in_email(review_db):
    alice = open_page(team_app(ALICE), "review")
    assert not [t for t in alice.text_input if "name" in t.label.lower()]  # no name box
    assert not [w for w in alice.warning if "Desk mode" in w.value]
    alice.button(key="review.own_skip").click().run()
    alice.text_area(key="review.comment").set_value("alice only").run()
    alice.button(key="review.choice.A").click().run()
    assert not alice.exception
    rows = review.ReviewStore(review_db).judgements()
    assert rows["reviewer"].tolist() == [ALICE] and rows["comment"].tolist() == ["alice only"]
    labels = [b.label for b in alice.get("download_button")]
    assert "Download my judgements (CSV)" in labels
    assert "Download all judgements (CSV, admin)" not in labels

    bob = open_page(team_app(BOB), "review")
    assert {m.label: m.value for m in bob.metric}["Your judgements"] == "0"
    assert "by **1** reviewers" in _markdown_text(bob)  # the shared ranking counts Alice
    for frame in (d.value for d in bob.dataframe):
        assert not frame.astype(str).isin(["alice only", ALICE]).any().any()
    assert "alice only" not in _markdown_text(bob)
    labels = [b.label for b in bob.get("download_button")]
    assert "Download all judgements (CSV, admin)" not in labels
    assert "Download reviewers' own labels (CSV, admin)" not in labels
    assert not [u for u in bob.get("file_uploader") if u.proto.label.startswith("Import")]
    assert not [t for t in bob.toggle if t.key == "review.only_here"]  # no cross-dataset

    admin = open_page(team_app(ADMIN), "review")
    labels = [b.label for b in admin.get("download_button")]
    assert "Download all judgements (CSV, admin)" in labels
    assert [u for u in admin.get("file_uploader") if u.proto.label.startswith("Import")]


def test_full_disk_keeps_the_judgement_for_a_retry(review_db, app, monkeypatch):
    desk(open_page(app, "review"), "Ann")
    app.button(key="review.own_skip").click().run()
    proposal = dict(app.session_state["review.proposal"])
    original = review.ReviewStore._open

    def full(self):  # a real SQLITE_FULL: no page may be added to the file
        con = original(self)
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        con.execute(f"PRAGMA max_page_count = {pages}")
        return con

    monkeypatch.setattr(review.ReviewStore, "_open", full)
    app.text_area(key="review.comment").set_value("y" * 5000).run()
    app.button(key="review.choice.B").click().run()
    assert not app.exception
    assert len(review.ReviewStore(review_db)) == 0
    error = plain(" ".join(e.value for e in app.error))
    assert "not saved" in error and "disk is full" in error
    pending = app.session_state["review.pending"]
    assert (pending["item_id"], pending["choice"], pending["comment"]) == (
        proposal["item_id"], "B", "y" * 5000)
    monkeypatch.setattr(review.ReviewStore, "_open", original)  # space freed
    app.button(key="review.retry").click().run()
    assert not app.exception
    rows = review.ReviewStore(review_db).judgements()
    assert rows[["item_id", "choice", "comment"]].values.tolist() == [
        [proposal["item_id"], "B", "y" * 5000]]
    assert "review.pending" not in app.session_state


@pytest.mark.parametrize("kind", ["folder", "not a database"])
def test_unusable_database_is_one_clear_message(tmp_path, monkeypatch, app, kind):
    path = tmp_path / "r.sqlite3"
    if kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"not sqlite" * 100)
    monkeypatch.setenv("HLV_REVIEW_DB", str(path))
    open_page(app, "review")
    assert not app.exception
    assert "cannot be used" in app.error[0].value and "HLV_REVIEW_DB" in app.error[0].value


def test_team_mode_without_an_email_claim_never_falls_back_to_a_name_box(review_db):
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.secrets = TEAM_SECRETS
    at.user = {"is_logged_in": True, "sub": "12345"}
    at.run()
    open_page(at, "review")
    assert any("did not include an e-mail" in e.value for e in at.error)
    assert not at.text_input and not at.tabs
