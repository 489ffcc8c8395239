"""Items and annotators in a real browser: an item opened from a pair's disagreement row on the
Agreement page, and deep links (``/explorer?annotator=...``) that open a profile whose rows open
items. Nothing leaves the app's origin."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from hlv_core import annotators
from hlv_core.agreement import pair_disagreements
from hlv_core.samples import load_sample

from .conftest import open_screen, runs_started, wait_for_app, wait_for_drawn


def _click_first_row(page: Page, grid, opened) -> None:
    """Select the first data row of a selectable ``st.dataframe`` (its row-marker column) until
    ``opened`` (a locator) shows: on a busy machine the grid may still be drawing the first
    time. Clicked again only if no run started after a click (a second click on a row that
    took would unselect it)."""
    for _ in range(4):
        grid.scroll_into_view_if_needed()
        wait_for_drawn(page)  # the grid and everything above it drawn: the row stays put
        box = grid.bounding_box()
        assert box is not None
        grid.hover()
        started = runs_started(page)
        page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
        try:
            expect(opened).to_be_visible(timeout=30_000)
            return
        except AssertionError:
            if runs_started(page) > started:
                break  # the click took; its run is slow
    expect(opened).to_be_visible()


def test_item_opened_from_a_disagreement_row_then_an_annotator_link(offline_page, app_url, artifacts):
    page, outside = offline_page
    main = open_screen(page, app_url, "agreement")
    expect(main.get_by_text("Krippendorff's α (nominal)").first).to_be_visible()
    main.get_by_role("tab", name="Pairs").click()
    sentence = main.get_by_text(re.compile(r"share \d+ items; α = .* disagree on \d+ items")).first
    expect(sentence).to_be_visible()
    m = re.search(r"(\S+) and (\S+) share", sentence.inner_text())
    assert m
    data = load_sample("case_review")
    diff = pair_disagreements(data.annotations, m.group(1), m.group(2))
    first = str(diff["item_id"].iloc[0])
    grid = main.get_by_test_id("stDataFrame").filter(visible=True).last
    expect(grid).to_be_visible()
    page.screenshot(path=str(artifacts / "agreement_disagreement_rows.png"))
    _click_first_row(page, grid, main.get_by_role("heading", name=f"Item {first}"))

    # the explorer opens on that item, with every annotation
    expect(page).to_have_url(re.compile(rf"/explorer\?item={re.escape(first)}$"))
    view = annotators.item_view(data, first)
    metric = main.get_by_test_id("stMetric").filter(has_text="Annotators").first
    expect(metric).to_contain_text(str(view.n_annotators))
    expect(main.get_by_text(f"Every annotation ({view.n_annotators})")).to_be_visible()
    expect(main.get_by_test_id("stCode").first).to_contain_text(f"/explorer?item={first}")
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "explorer_item.png"), full_page=True)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert outside == [], f"requests left the app origin: {outside[:5]}"

    # a colleague's link to an annotator opens that annotator's profile
    page.goto(f"{app_url}/explorer?annotator=lawyer_01")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Annotator lawyer_01")).to_be_visible()
    data = load_sample("case_review")
    profile = annotators.annotator_profile(data, "lawyer_01")
    metric = main.get_by_test_id("stMetric").filter(has_text="Agrees with the majority").first
    expect(metric).to_contain_text(f"{profile.majority_agreement:.0%}")
    expect(main.get_by_test_id("stPlotlyChart")).to_have_count(2)
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "explorer_annotator.png"), full_page=True)

    # a row of "Items where they differ from the majority" opens that item
    grid = main.get_by_test_id("stDataFrame").first
    first = str(profile.disagreements["item_id"].iloc[0])
    _click_first_row(page, grid, main.get_by_role("heading", name=f"Item {first}"))
    expect(page).to_have_url(re.compile(rf"/explorer\?item={re.escape(first)}$"))
    # back to the landing tables, once the item's run (it sets the address) has finished
    wait_for_app(page)
    main.get_by_role("button", name="All items and annotators").click()
    expect(main.get_by_role("tab", name="Annotators")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert outside == [], f"requests left the app origin: {outside[:5]}"
