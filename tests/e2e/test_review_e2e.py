"""Two reviewers judge cases (every model pair of a case on one screen) in two separate browser
contexts, one of them undoes her last case and judges it again; the meta-evaluation then shows
both. Runs its own server so the review database is a temporary file (HLV_REVIEW_DB)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from hlv_core.review import ReviewStore

from .conftest import running_app, wait_for_app

PAIRS = ["Output A or output B?", "Output A or output C?", "Output B or output C?"]


@pytest.fixture(scope="module")
def review_server(tmp_path_factory):
    db = tmp_path_factory.mktemp("review") / "reviews.sqlite3"
    with running_app({"HLV_REVIEW_DB": str(db)}, "server_review.log") as url:
        yield url, db


def _desk_name(page: Page, name: str) -> Locator:
    """Desk mode: name the reviewer once for this browser session."""
    main = page.get_by_test_id("stMain")
    name_box = main.get_by_label("Your name (fixed for this browser session)")
    expect(name_box).to_be_visible()
    name_box.fill(name)
    main.get_by_role("button", name="Start reviewing").click()
    expect(main.get_by_text("reviewing as").first).to_be_visible()
    return main


def _session_count(main: Locator, n: int) -> None:
    expect(main.get_by_test_id("stMetricValue").first).to_have_text(f"{n} of 20")


def _judge_case(main: Locator, choices: list[str], n: int, *, screenshot=None) -> None:
    """Skip the own label, answer the three pairs of the case, save; ``n`` cases done after."""
    skip = main.get_by_role("button", name="Skip")
    expect(skip).to_be_visible()
    # each click once the run before has ended: until then a widget keyed by the case can be
    # on the page twice (the one left from the run before, and the new one)
    wait_for_app(main.page)
    skip.click()
    expect(skip).to_have_count(0)
    # every output of the case side by side, blind
    for letter in "ABC":
        expect(main.get_by_text(f"Output {letter}", exact=True).first).to_be_visible()
    wait_for_app(main.page)
    for question, choice in zip(PAIRS, choices, strict=True):
        group = main.get_by_test_id("stRadio").filter(has_text=question)
        group.get_by_text(choice, exact=True).click()
        expect(group.get_by_role("radio", name=choice)).to_be_checked()
    save = main.get_by_role("button", name="Save judgements for this case")
    expect(save).to_be_enabled()
    if screenshot:
        main.screenshot(path=screenshot)
    save.click()
    _session_count(main, n)


@pytest.mark.slow
def test_case_pairs_together_undo_then_meta_evaluation(browser: Browser, review_server,
                                                       artifacts):
    url, db = review_server
    ann = browser.new_context(viewport={"width": 1400, "height": 1800})
    bob = browser.new_context(viewport={"width": 1400, "height": 1800})
    try:
        page = ann.new_page()
        page.goto(f"{url}/review")
        main = _desk_name(page, "Ann")
        _judge_case(main, ["A is more accurate", "C is more accurate", "Both acceptable"], 1,
                    screenshot=str(artifacts / "review_case.png"))
        # too few judgements: the meta-evaluation says how many more, no degenerate charts
        page.get_by_role("tab", name="Meta-evaluation").click()
        expect(main.get_by_text("7 more judgements needed")).to_be_visible()
        expect(main.locator(".js-plotly-plot").filter(visible=True)).to_have_count(0)
        main.screenshot(path=str(artifacts / "review_needed.png"))
        page.get_by_role("tab", name="Review").click()
        _judge_case(main, ["B is more accurate", "Neither acceptable", "B is more accurate"],
                    2)
        main.get_by_text("Your judgements on this dataset (6)").click()
        history = main.get_by_test_id("stDataFrame").filter(visible=True).last
        expect(history).to_be_visible()
        history.screenshot(path=str(artifacts / "review_history.png"))
        store = ReviewStore(db)
        assert len(store) == 6 and store.judgements()["item_id"].nunique() == 2
        last_case = store.judgements()["item_id"].iloc[-1]
        # undo: the last case is withdrawn (kept, marked) and comes back with its answers
        wait_for_app(page)
        main.get_by_role("button", name="Undo last judgement").click()
        expect(main.get_by_text("Undone: your judgements of case")).to_be_visible()
        _session_count(main, 1)
        assert len(store) == 3
        assert (store.judgements(include_undone=True)["undone_at"] != "").sum() == 3
        expect(main.get_by_role("heading", name=f"Case {last_case}")).to_be_visible()
        group = main.get_by_test_id("stRadio").filter(has_text=PAIRS[0])
        expect(group.get_by_role("radio", name="B is more accurate")).to_be_checked()
        wait_for_app(page)
        main.screenshot(path=str(artifacts / "review_undo.png"))
        group.get_by_text("A is more accurate", exact=True).click()
        expect(group.get_by_role("radio", name="A is more accurate")).to_be_checked()
        main.get_by_role("button", name="Save judgements for this case").click()
        _session_count(main, 2)
        assert len(store) == 6

        bob_page = bob.new_page()
        bob_page.goto(f"{url}/review")
        bob_main = _desk_name(bob_page, "Bob")
        for n, choices in enumerate([["A is more accurate", "A is more accurate",
                                      "B is more accurate"],
                                     ["B is more accurate", "A is more accurate",
                                      "Both acceptable"]], start=1):
            _judge_case(bob_main, choices, n)
        frame = store.judgements()
        assert sorted(frame["reviewer"].unique()) == ["Ann", "Bob"] and len(frame) == 12

        page = ann.new_page()
        page.goto(f"{url}/review")  # a new browser session: this browser remembers the name
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("reviewing as").first).to_be_visible()
        expect(main.get_by_text("Ann").first).to_be_visible()
        page.get_by_role("tab", name="Meta-evaluation").click()
        expect(main.get_by_text("by 2 reviewers")).to_be_visible()
        expect(main.get_by_text("Human scores (rank centrality)").first).to_be_visible()
        expect(main.get_by_test_id("stDataFrame").filter(visible=True).first).to_be_visible()
        trend = main.locator(".js-plotly-plot").filter(has_text="Metric value vs human score")
        expect(trend).to_be_visible()
        wait_for_app(page)
        main.screenshot(path=str(artifacts / "review_meta.png"))
        trend.screenshot(path=str(artifacts / "review_metric_trends.png"))
    finally:
        ann.close()
        bob.close()
