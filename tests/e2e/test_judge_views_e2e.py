"""A person opens "Soft vs hard metrics" -> "Against the human pool" and sees the human ceiling
beside the model, the alternative annotator test with its baseline and curve, and calibration to
humans (reliability diagram, DistCE histogram)."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def _running_done(page: Page) -> None:
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)


def test_human_pool_views(page: Page, app_url: str, artifacts):
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    page.get_by_test_id("stSidebarNavLink").get_by_text("Soft vs hard metrics", exact=True).click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("All metrics, every model").first).to_be_visible()
    page.get_by_role("tab", name="Against the human pool").click()
    ceiling = main.locator(".js-plotly-plot").filter(has_text="Every annotator against").first
    expect(ceiling).to_be_visible()
    expect(main.get_by_text("zero entropy").first).to_be_attached()
    _running_done(page)
    main.screenshot(path=str(artifacts / "judge_ceiling.png"))
    ceiling.scroll_into_view_if_needed()
    ceiling.screenshot(path=str(artifacts / "judge_ceiling_plot.png"))

    main.get_by_text("Can the model replace an annotator?").first.click()
    curve = main.locator(".js-plotly-plot").filter(has_text="Winning rate versus epsilon").first
    expect(curve).to_be_visible()
    expect(main.get_by_text("constant majority (baseline)").first).to_be_attached()
    _running_done(page)
    main.screenshot(path=str(artifacts / "judge_alt_test.png"))
    curve.scroll_into_view_if_needed()
    curve.screenshot(path=str(artifacts / "judge_alt_test_curve.png"))

    main.get_by_text("Calibration to humans").first.click()
    diagram = main.locator(".js-plotly-plot").filter(has_text="Reliability diagram").first
    expect(diagram).to_be_visible()
    expect(main.locator(".js-plotly-plot").filter(has_text="DistCE per item").first
           ).to_be_visible()
    _running_done(page)
    main.screenshot(path=str(artifacts / "judge_calibration.png"))
    diagram.scroll_into_view_if_needed()
    diagram.screenshot(path=str(artifacts / "judge_reliability.png"))
