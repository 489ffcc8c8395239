"""LeWiDi scorer in a browser on the synthetic demo: leaderboard with metric and task names in
words, one colour per system, the paired test explained."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import open_screen, wait_for_app


def test_lewidi_demo_leaderboard(page: Page, app_url: str, artifacts):
    main = open_screen(page, app_url, "lewidi")
    expect(main.get_by_text("Use the synthetic demo").first).to_be_visible()
    main.get_by_text("Use the synthetic demo").first.click()
    expect(main.get_by_text("Leaderboard", exact=True).first).to_be_visible()
    expect(main.get_by_text("Task A: soft labels").first).to_be_visible()
    expect(main.get_by_text("Manhattan distance (LeWiDi 2025, Task A) (lower is better)").first
           ).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    ci_plot = main.locator(".js-plotly-plot").first
    expect(ci_plot).to_be_visible()
    points = ci_plot.locator(".scatterlayer path.point")
    expect(points).to_have_count(3)  # plotly has drawn every system before they are read
    wait_for_app(page)
    colours = points.evaluate_all("els => els.map(e => e.style.fill)")
    assert len(colours) == 3 and len(set(colours)) == 3
    main.screenshot(path=str(artifacts / "lewidi_demo.png"))
    ci_plot.screenshot(path=str(artifacts / "lewidi_leaderboard_plot.png"))
