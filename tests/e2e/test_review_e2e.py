"""Two reviewers judge cases in two separate browser contexts; the meta-evaluation then shows
both. Runs its own server so the review database is a temporary file (HLV_REVIEW_DB)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from hlv_core.review import ReviewStore

from .conftest import running_app


@pytest.fixture(scope="module")
def review_server(tmp_path_factory):
    db = tmp_path_factory.mktemp("review") / "reviews.sqlite3"
    with running_app({"HLV_REVIEW_DB": str(db)}, "server_review.log") as url:
        yield url, db


def _desk_name(page: Page, name: str):
    """Desk mode: name the reviewer once for this browser session."""
    main = page.get_by_test_id("stMain")
    name_box = main.get_by_label("Your name (fixed for this browser session)")
    expect(name_box).to_be_visible(timeout=60_000)
    name_box.fill(name)
    main.get_by_role("button", name="Start reviewing").click()
    expect(main.get_by_text("reviewing as").first).to_be_visible(timeout=60_000)
    return main


def _judge(page: Page, url: str, name: str, choices: list[str]) -> None:
    page.goto(f"{url}/review")
    main = _desk_name(page, name)
    skip = main.get_by_role("button", name="Skip")
    for n, choice in enumerate(choices, start=1):
        button = main.get_by_role("button", name=choice)
        # each case first asks for the reviewer's own labels (skipped here)
        expect(skip.or_(button).first).to_be_visible(timeout=60_000)
        if skip.first.is_visible():
            skip.first.click()
            expect(skip).to_have_count(0, timeout=60_000)
        # .first: during a rerun Streamlit briefly keeps the previous run's elements (stale)
        expect(main.get_by_text("Output A", exact=True).first).to_be_visible(timeout=60_000)
        expect(main.get_by_text("Output B", exact=True).first).to_be_visible()
        button.first.click()
        expect(main.get_by_test_id("stMetricValue").first).to_have_text(str(n), timeout=60_000)


def test_two_reviewers_then_meta_evaluation(browser: Browser, review_server, artifacts):
    url, db = review_server
    ann = browser.new_context(viewport={"width": 1400, "height": 1800})
    bob = browser.new_context(viewport={"width": 1400, "height": 1800})
    try:
        _judge(ann.new_page(), url, "Ann", ["A is more accurate", "B is more accurate",
                                            "Both acceptable"])
        _judge(bob.new_page(), url, "Bob", ["Neither acceptable", "A is more accurate",
                                            "A is more accurate"])
        frame = ReviewStore(db).judgements()
        assert sorted(frame["reviewer"].unique()) == ["Ann", "Bob"]
        assert len(frame) == 6
        page = ann.new_page()
        page.goto(f"{url}/review")  # a new browser session: the desk name is asked again
        main = _desk_name(page, "Ann")
        page.get_by_role("tab", name="Meta-evaluation").click()
        expect(main.get_by_text("by 2 reviewers")).to_be_visible(timeout=60_000)
        expect(main.get_by_text("Human scores (rank centrality)")).to_be_visible()
        # .filter(visible=True): the Review tab (hidden now) holds Ann's own judgements table
        expect(main.get_by_test_id("stDataFrame").filter(visible=True).first).to_be_visible(
            timeout=60_000)
        trend = main.locator(".js-plotly-plot").filter(has_text="Metric value vs human score")
        expect(trend).to_be_visible(timeout=60_000)
        page.wait_for_timeout(1000)
        main.screenshot(path=str(artifacts / "review_meta.png"))
        trend.screenshot(path=str(artifacts / "review_metric_trends.png"))
    finally:
        ann.close()
        bob.close()
