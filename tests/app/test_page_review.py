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


def has(at, kind: str, key: str) -> bool:
    """Whether the page shows a widget of ``kind`` (e.g. "radio") with ``key``."""
    return any(getattr(e, "key", None) == key for e in getattr(at, kind))


def judge_case(at, choices=None, *, skip_own=True):
    """Answer every pair of the case on screen (own labels skipped) and save it; returns the
    proposal that was judged."""
    if skip_own and has(at, "button", "review.own_skip"):
        at.button(key="review.own_skip").click().run()
    proposal = dict(at.session_state["review.proposal"])
    for k in range(len(proposal["pairs"])):
        choice = review.CHOICES[k % 4] if choices is None else choices[k]
        at.radio(key=f"review.pair.{k}").set_value(choice).run()
    at.button(key="review.save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return proposal


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_full_review_round(review_db, app):
    open_page(app, "review")
    desk(app, "Ann")
    assert not app.exception
    # own label first, as a radio (single-label task): no model output visible yet
    assert "Output A" not in _markdown_text(app)
    assert not has(app, "multiselect", "review.own_labels")
    own = app.radio(key="review.own_labels")
    assert own.value is None and list(own.options) == ["liable", "not_liable", "unclear"]
    assert app.button(key="review.own_save").disabled  # nothing chosen yet
    own.set_value("liable").run()
    app.button(key="review.own_save").click().run()
    assert not app.exception
    text = _markdown_text(app)
    for letter in "ABC":  # every model of the case, side by side
        assert f"Output {letter}" in text
    for model in ("calibrated", "overconfident", "weak"):  # model names are hidden
        assert model not in text
    first = dict(app.session_state["review.proposal"])
    assert len(first["pairs"]) == 3
    assert [r.label for r in app.radio if r.key.startswith("review.pair.")] == [
        "Output A or output B?", "Output A or output C?", "Output B or output C?"]
    assert app.button(key="review.save").disabled  # not every pair answered
    app.text_area(key="review.comment").set_value(HOSTILE).run()
    judge_case(app, ["A", "B", "both"])
    store = review.ReviewStore(review_db)
    rows = store.judgements()
    assert len(rows) == 3 and rows["batch"].nunique() == 1
    expected = [[a, b, c] for (a, b), c in zip(first["pairs"], ["A", "B", "both"], strict=True)]
    assert rows[["model_a", "model_b", "choice"]].values.tolist() == expected
    assert set(rows["item_id"]) == {first["item_id"]}
    assert (rows["comment"] == HOSTILE).all() and (rows["dataset"] == _dataset_hash()).all()
    assert store.own_labels().iloc[0]["labels"] == ["liable"]
    assert _metrics(app)["Your judgements"] == "3"
    assert _metrics(app)["Cases this session"] == "1 of 20"
    assert "<script>" not in _markdown_text(app)
    # the next case is new and asks for the own label again (once per case)
    second = app.session_state["review.proposal"]
    assert second["item_id"] != first["item_id"] and not second["own_done"]
    for _ in range(2):
        judge_case(app)
    assert len(store.judgements()) == 9
    assert store.judgements()["item_id"].nunique() == 3
    _, comps = store.pair_counts(["calibrated", "overconfident", "weak"])
    assert set(comps[np.triu_indices(3, 1)]) == {3}
    assert _metrics(app)["Cases this session"] == "3 of 20"
    # a second reviewer in a fresh browser session sees the meta-evaluation of both
    bob = AppTest.from_file(str(APP), default_timeout=120)
    bob.run()
    desk(open_page(bob, "review"), "Bob")
    assert _metrics(bob)["Your judgements"] == "0"
    assert _metrics(bob)["Cases this session"] == "0 of 20"
    assert "by **1** reviewer." in _markdown_text(bob)


def test_own_labels_are_not_asked_twice_for_a_case(review_db, app):
    desk(open_page(app, "review"), "Ann")
    app.number_input(key="review.max_pairs").set_value(1).run()
    app.radio(key="review.own_labels").set_value("unclear").run()
    app.button(key="review.own_save").click().run()
    first = judge_case(app, ["A"])
    again = app.session_state["review.proposal"]
    # the same contested case comes back for its other pairs, without the own-label question
    assert again["item_id"] == first["item_id"] and again["own_done"]
    assert not has(app, "radio", "review.own_labels")
    assert {frozenset(p) for p in again["pairs"]}.isdisjoint({frozenset(first["pairs"][0])})
    # remembered across browser sessions too: the stored own label counts
    other = AppTest.from_file(str(APP), default_timeout=120)
    other.run()
    desk(open_page(other, "review"), "Ann")
    assert other.session_state["review.proposal"]["item_id"] == first["item_id"]
    assert other.session_state["review.proposal"]["own_done"]
    assert len(review.ReviewStore(review_db).own_labels()) == 1


def test_multilabel_own_labels_use_a_multiselect(review_db, app):
    desk(open_page(app, "review", "legal_areas"), "Ann")
    assert not has(app, "radio", "review.own_labels")
    app.multiselect(key="review.own_labels").set_value(["Housing and tenancies"]).run()
    app.button(key="review.own_save").click().run()
    assert review.ReviewStore(review_db).own_labels().iloc[0]["labels"] == [
        "Housing and tenancies"]


def test_undo_withdraws_only_the_last_case_and_shows_it_again(review_db, app):
    desk(open_page(app, "review"), "Ann")
    app.toggle(key="review.own_first").set_value(False).run()
    assert not has(app, "button", "review.own_skip")
    judge_case(app, ["A", "A", "A"])
    app.text_area(key="review.comment").set_value("second thoughts").run()
    last = judge_case(app, ["B", "neither", "both"])
    store = review.ReviewStore(review_db)
    assert len(store) == 6
    assert _metrics(app)["Cases this session"] == "2 of 20"
    app.button(key="review.undo").click().run()
    assert not app.exception
    assert len(store) == 3  # only the last case is withdrawn
    withdrawn = store.judgements(include_undone=True)
    withdrawn = withdrawn[withdrawn["undone_at"] != ""]
    assert set(withdrawn["item_id"]) == {last["item_id"]} and len(withdrawn) == 3
    assert any("Undone" in i.value for i in app.info)
    assert _metrics(app)["Cases this session"] == "1 of 20"
    assert not has(app, "button", "review.undo")  # one step: the last judgement only
    # the same case is back, with the previous answers and comment filled in
    assert app.session_state["review.proposal"]["item_id"] == last["item_id"]
    assert [app.radio(key=f"review.pair.{k}").value for k in range(3)] == [
        "B", "neither", "both"]
    assert app.text_area(key="review.comment").value == "second thoughts"
    app.radio(key="review.pair.0").set_value("A").run()
    app.button(key="review.save").click().run()
    live = store.judgements()
    assert len(live) == 6
    assert live[live["item_id"] == last["item_id"]]["choice"].tolist() == ["A", "neither", "both"]


def test_session_target_and_readable_history(review_db, app):
    desk(open_page(app, "review"), "Ann")
    app.number_input(key="review.target").set_value(2).run()
    progress = app.get("progress")[0]
    assert "0 of 2 cases" in progress.proto.text
    judge_case(app, ["A", "B", "both"])
    judge_case(app)
    assert _metrics(app)["Cases this session"] == "2 of 2"
    assert "2 of 2 cases" in app.get("progress")[0].proto.text
    assert any("Session target reached" in s.value for s in app.success)
    history = next(d.value for d in app.dataframe if "When" in d.value.columns)
    assert len(history) == 6
    assert history["When"].str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").all()
    assert set(history["Judgement"]) >= {"Both acceptable"}
    assert history["Models compared"].str.contains("calibrated|overconfident|weak").all()
    app.toggle(key="review.reveal").set_value(False).run()
    blind = next(d.value for d in app.dataframe if "When" in d.value.columns)
    assert blind.columns.tolist() == ["When", "Case", "Pairs judged", "Comment"]
    assert blind["Pairs judged"].tolist() == [3, 3]


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
    # the other convention is one click deeper, in its own table
    assert "score_decisive_only" not in scores.columns
    decisive = next(f for f in frames if "score_decisive_only" in f.columns)
    np.testing.assert_allclose(
        decisive.set_index("model").loc[["calibrated", "overconfident", "weak"],
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
    assert "Download judgements per pair" in labels
    assert not [w for w in app.warning if "regularised" in w.value]  # connected graph
    app.radio(key="review.alternative").set_value("greater").run()
    corr2 = next(d.value for d in app.dataframe if "p_value" in d.value.columns)
    assert (corr2["alternative"] == "greater").all()


def test_non_unique_ranking_is_regularised_with_a_warning(review_db, app):
    # calibrated and overconfident both beat weak and only tie with each other: two unbeaten
    # models, so rank centrality has no unique solution although every pair was compared
    h = _dataset_hash()
    rows = [dict(reviewer="r", item_id=f"case_00{i}", model_a=m, model_b="weak",
                 choice="A", dataset=h) for i in range(1, 5) for m in ("calibrated",
                                                                       "overconfident")]
    rows += [dict(reviewer="r", item_id=f"case_00{i}", model_a="calibrated",
                  model_b="overconfident", choice="both", dataset=h) for i in range(1, 3)]
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
    rows = [dict(reviewer="r", item_id=f"case_{i:03d}", model_a="calibrated", model_b="weak",
                 choice=c, dataset=h) for i, c in zip(range(1, 11), "ABAAABAAAB", strict=True)]
    review.ReviewStore(review_db).add_many(rows)
    desk(open_page(app, "review"), "Ann")
    assert any("overconfident" in i.value for i in app.info)
    scores = next(d.value for d in app.dataframe if "score_in_denominator" in d.value.columns)
    assert scores["model"].tolist() == ["calibrated", "weak"]
    assert any("at least 3 models" in i.value for i in app.info)  # no correlation of two


def test_too_few_judgements_say_how_many_more_instead_of_plots(review_db, app):
    h = _dataset_hash()
    rows = [dict(reviewer="r", item_id="case_001", model_a="calibrated", model_b="weak",
                 choice="A", dataset=h),
            dict(reviewer="r", item_id="case_002", model_a="overconfident", model_b="weak",
                 choice="both", dataset=h)]
    review.ReviewStore(review_db).add_many(rows)
    desk(open_page(app, "review"), "Ann")
    need = plain(" ".join(w.value for w in app.warning))
    assert "8 more judgements needed" in need
    assert "every pair of the 3 models compared at least once" in need
    assert "at least 10 judgements" in need and "calibrated vs overconfident" in need
    assert not app.get("plotly_chart")  # no degenerate charts
    assert not [d for d in app.dataframe if "score_in_denominator" in d.value.columns]
    pairs = next(d.value for d in app.dataframe if "model_1_wins" in d.value.columns)
    assert pairs["n"].tolist() == [0, 1, 1]


def test_all_ties_give_no_float_noise_axes_and_no_empty_charts(review_db, app):
    h = _dataset_hash()
    rows = [dict(reviewer="r", item_id=f"case_{i:03d}", model_a=a, model_b=b, choice="both",
                 dataset=h) for i in range(1, 5)
            for a, b in [("calibrated", "overconfident"), ("calibrated", "weak"),
                         ("overconfident", "weak")]]
    review.ReviewStore(review_db).add_many(rows)
    desk(open_page(app, "review"), "Ann")
    assert not [w for w in app.warning if "more judgements needed" in w.value]
    specs = {c.proto.id: json.loads(c.proto.spec) for c in app.get("plotly_chart")}
    assert len(specs) == 1  # the scores only: no correlation charts of constant scores
    (spec,) = specs.values()
    axis = spec["layout"]["yaxis"]
    assert axis["tickformat"] == ".2f" and axis["range"][0] == 0
    assert any("No correlation can be computed yet" in i.value for i in app.info)


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
    judge_case(app, ["neither"] * 3)
    assert review.ReviewStore(review_db).judgements()["reviewer"].tolist() == [
        "<b>x</b><script>1</script>"] * 3
    for markdown in app.markdown:
        assert "<script>" not in markdown.value


@pytest.mark.parametrize("name", list(samples.SAMPLES))
def test_every_sample_opens(review_db, app, name):
    desk(open_page(app, "review", name), "Ann")
    if has(app, "button", "review.own_skip"):
        judged = judge_case(app, ["B"] * 10)
        assert len(review.ReviewStore(review_db)) == len(judged["pairs"])


# ------------------------------------------------------------------ team mode (OIDC login)

ALICE, BOB, ADMIN = "alice@example.org", "bob@example.org", "admin@example.org"
STRONG_SECRET = "9f3c1e7a52b84d06e1a7c3f95d28b40e6c71a9f2d3b58e04a6c9d1f7b2e83a50"  # test-only
TEAM_SECRETS = {
    "auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": STRONG_SECRET,
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
    judge_case(alice, ["A"] * 3)
    rows = review.ReviewStore(review_db).judgements()
    assert rows["reviewer"].tolist() == [ALICE] * 3
    assert rows["comment"].tolist() == ["alice only"] * 3
    labels = [b.label for b in alice.get("download_button")]
    assert "Download my judgements (CSV)" in labels
    assert "Download all judgements (CSV, admin)" not in labels

    bob = open_page(team_app(BOB), "review")
    assert _metrics(bob)["Your judgements"] == "0"
    assert "by **1** reviewer." in _markdown_text(bob)  # the shared ranking counts Alice
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


def test_full_disk_keeps_the_case_for_a_retry(review_db, app, monkeypatch):
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
    judge_case(app, ["B", "A", "both"])
    assert len(review.ReviewStore(review_db)) == 0
    error = plain(" ".join(e.value for e in app.error))
    assert "not saved" in error and "disk is full" in error
    pending = app.session_state["review.pending"]
    assert (pending["item_id"], pending["comment"]) == (proposal["item_id"], "y" * 5000)
    assert [j[2] for j in pending["judgements"]] == ["B", "A", "both"]
    monkeypatch.setattr(review.ReviewStore, "_open", original)  # space freed
    app.button(key="review.retry").click().run()
    assert not app.exception
    rows = review.ReviewStore(review_db).judgements()
    assert rows[["item_id", "choice", "comment"]].values.tolist() == [
        [proposal["item_id"], c, "y" * 5000] for c in ["B", "A", "both"]]
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


def test_single_label_with_hundreds_of_labels_uses_a_selectbox(review_db, app):
    desk(open_page(app, "review", "dermatology"), "Ann")
    if not has(app, "button", "review.own_skip"):
        pytest.skip("the dermatology sample has fewer than two models with predictions")
    assert not has(app, "radio", "review.own_labels")
    assert not has(app, "multiselect", "review.own_labels")
    box = app.selectbox(key="review.own_labels")
    assert box.value is None and len(box.options) > 100
    box.set_value(box.options[3]).run()
    app.button(key="review.own_save").click().run()
    assert review.ReviewStore(review_db).own_labels().iloc[0]["labels"] == [box.options[3]]


def test_a_new_case_after_a_dataset_switch_starts_blank(review_db, app):
    desk(open_page(app, "review", "legal_areas"), "Ann")
    app.button(key="review.own_skip").click().run()
    app.radio(key="review.pair.0").set_value(review.CHOICES[0]).run()
    app.text_area(key="review.comment").input("about a legal case").run()
    app.switch_page("pages/glossary/page.py").run()
    app.session_state["app.source"] = "case_review"
    del app.session_state["hlv.dataset"]
    app.switch_page("pages/review/page.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.session_state["review.proposal"]["dataset"] == _dataset_hash()
    app.button(key="review.own_skip").click().run()
    assert app.radio(key="review.pair.0").value is None  # the new case starts blank
    assert app.text_area(key="review.comment").value == ""
