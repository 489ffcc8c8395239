"""The sidebar's dataset box names the dataset in use after every click-through (Overview ->
item, explorer back, Agreement -> annotator pair, Annotator graph -> profile, explainer ->
Glossary), after a deep link, and picking an entry always switches (also the first pick after
a page load, which Streamlit used to hand back as the old value)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import app_run_number, rerun, wait_for_app, wait_for_drawn

RATINGS = "Acceptability ratings (ordinal 1-5)"
LEGAL = "Legal areas (multi-label)"


def _box(page: Page):
    return page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first


def _expect_in_use(page: Page, title: str, name: str) -> None:
    expect(_box(page).locator("input")).to_have_value(title)
    expect(page.get_by_test_id("stSidebar").get_by_text(re.compile(rf"^In use: {name} ·"))
           ).to_be_visible()


def _pick(page: Page, title: str) -> None:
    """Pick a dataset in the box once the page has finished its run; wait for the pick's run."""
    wait_for_app(page)
    _box(page).click()
    rerun(page, page.get_by_role("option", name=title, exact=True).click)


def _nav(page: Page, title: str) -> None:
    """Go to a page by the sidebar once the current page has finished its run (as a person
    does: a click while a click-through is still running races two page switches), and wait
    until the new page's run has finished."""
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text(title, exact=True).click)


def _click_page_link(page: Page, link) -> None:
    """Click a page link and wait for the new page's run; clicked again only when no run
    started within 30 s. This link, just shown by opening its expander, sometimes starts no
    run on the first click (these steps in a loop on a quiet box: about 1 in 10; a second
    click always took; the cause was not found), and the link is not what this test checks."""
    for attempt in range(3):
        number, address = app_run_number(page), page.url
        try:
            rerun(page, link.click, timeout=30_000)
            return
        except PlaywrightTimeoutError:
            if app_run_number(page) > number or page.url != address:
                wait_for_app(page)  # it took, its run is slow: never click twice
                return
            if attempt == 2:
                raise


def test_the_box_follows_every_click_through(page: Page, app_url: str, artifacts):
    page.set_viewport_size({"width": 1200, "height": 1400})
    page.goto(app_url)
    main = page.get_by_test_id("stMain")
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    _pick(page, RATINGS)  # the first pick after the page load
    _expect_in_use(page, RATINGS, "ratings")
    # the run number the waits read: drawn, one per run, hidden and taking no space
    assert app_run_number(page) >= 2
    assert page.locator(".st-key-hlv_run_marker").bounding_box() is None

    # Overview -> item; the explorer's run (waited for) writes its parameters
    rerun(page, main.get_by_text("Open in Items and annotators").first.click)
    expect(page).to_have_url(re.compile(r"/explorer\?item="))
    _expect_in_use(page, RATINGS, "ratings")
    main.get_by_role("button", name="All items and annotators").first.click()
    expect(main.get_by_role("tab", name="Annotators")).to_be_visible()
    _expect_in_use(page, RATINGS, "ratings")

    _nav(page, "Agreement")  # Agreement -> a pair's profile
    pairs_tab = main.get_by_role("tab", name="Pairs")
    expect(pairs_tab).to_be_visible()
    pairs_tab.click()
    pair_link = main.get_by_role("link", name=re.compile(r"profile, compared with")).first
    expect(pair_link).to_be_visible()
    rerun(page, pair_link.click)
    expect(page).to_have_url(re.compile(r"/explorer\?annotator=.*&with="))
    _expect_in_use(page, RATINGS, "ratings")

    _nav(page, "Annotator graph")  # graph -> an annotator's profile
    chooser = main.get_by_role("combobox", name="Open an annotator's profile")
    expect(chooser).to_be_visible()
    # the list closes on any scroll of the page: the click's own scroll into view (its event
    # arrives after the list opened) or a chart or table drawn late above; both done first
    wait_for_drawn(page)
    chooser.scroll_into_view_if_needed()
    chooser.click()
    page.get_by_role("option").first.click()
    profile = main.get_by_role("link", name=re.compile(r"^Open the profile of"))
    expect(profile).to_be_visible()
    rerun(page, profile.click)
    expect(page).to_have_url(re.compile(r"/explorer\?annotator="))
    _expect_in_use(page, RATINGS, "ratings")

    _nav(page, "Overview")  # an explainer -> the Glossary
    expect(page).not_to_have_url(re.compile(r"/explorer"))
    wait_for_drawn(page)  # the charts and tables drawn late first: nothing moves the link
    main.get_by_text("What do these mean?").first.click()
    _click_page_link(page, main.get_by_role("link", name="All terms in the Glossary").first)
    expect(page).to_have_url(re.compile(r"/glossary"))
    _expect_in_use(page, RATINGS, "ratings")

    _pick(page, LEGAL)  # picking switches, also back to the previous one
    _expect_in_use(page, LEGAL, "legal_areas")
    _pick(page, RATINGS)
    _expect_in_use(page, RATINGS, "ratings")
    page.get_by_test_id("stSidebar").screenshot(path=str(artifacts / "dataset_box_1200.png"))

    # a deep link (a new session) selects its dataset in the box too
    page.goto(f"{app_url}/explorer?dataset=legal_areas&item=req_001")
    _expect_in_use(page, LEGAL, "legal_areas")
    expect(main.get_by_text("req_001").first).to_be_visible()
