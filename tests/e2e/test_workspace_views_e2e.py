"""Screenshots at 1200 px of views changed for the team's workspace: the teaching views (a
take-away first, plain control names) and the dermatology Overview (metrics and the sidebar's
dataset name fit)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import wait_for_app

WAIT = 120_000


def test_teaching_views_and_dermatology_overview(page: Page, app_url: str, artifacts):
    page.set_viewport_size({"width": 1200, "height": 1500})
    page.goto(app_url)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_test_id("stMetricValue").first).to_be_visible(timeout=WAIT)
    page.get_by_test_id("stSidebarNavLink").get_by_text("Soft vs hard metrics", exact=True).click()
    for tab, marker, shot in (
            ("Figure 1 explainer", "How people split", "teaching_figure1_1200.png"),
            ("Table 2 simulator", "Evenness of people's answers", "teaching_table2_1200.png")):
        page.get_by_role("tab", name=tab).click(timeout=WAIT)
        expect(main.get_by_text("Take-away:").first).to_be_visible(timeout=WAIT)
        expect(main.get_by_text(marker).first).to_be_visible(timeout=WAIT)
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=WAIT)
        main.screenshot(path=str(artifacts / shot), timeout=WAIT)
    page.goto(f"{app_url}/?dataset=dermatology")
    expect(main.get_by_test_id("stMetricValue").first).to_be_visible(timeout=WAIT)
    expect(page.get_by_test_id("stSidebar").get_by_text("In use: dermatology").first
           ).to_be_visible(timeout=WAIT)
    expect(main.get_by_test_id("stMetricValue").nth(1)).to_have_text("—", timeout=WAIT)
    expect(main.locator(".js-plotly-plot").nth(2)).to_be_visible(timeout=WAIT)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=WAIT)
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "dermatology_overview_1200.png"), timeout=WAIT)
