"""A person opens "Soft vs hard metrics" and sees the metrics table and the charts."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def test_soft_metrics_page_shows_table_and_chart(page: Page, app_url: str, artifacts):
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240", timeout=60_000)
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Soft vs hard metrics").click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("All metrics, every model").first).to_be_visible(timeout=60_000)
    expect(main.get_by_test_id("stDataFrame").first).to_be_visible(timeout=60_000)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1000)
    main.screenshot(path=str(artifacts / "soft_metrics_models.png"))
    page.get_by_role("tab", name="Figure 1 explainer").click()
    expect(main.get_by_text("Soft accuracy", exact=True).first).to_be_visible(timeout=30_000)
    expect(main.get_by_test_id("stMetricValue").filter(has_text="0.7000").first).to_be_visible()
    page.get_by_role("tab", name="Table 2 simulator").click()
    page.get_by_role("button", name="Run simulation").click()
    expect(main.get_by_text("K=10, α=10, β=10, B=500, rows=1000, seed 0").first).to_be_visible(
        timeout=60_000)
    expect(main.locator(".js-plotly-plot").filter(has_text="Correlation across pairs").first
           ).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1500)
    main.screenshot(path=str(artifacts / "soft_metrics_simulator.png"))
