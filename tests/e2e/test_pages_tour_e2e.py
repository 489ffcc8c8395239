"""Every page in a real browser: it renders without an exception box on its sample, and the
app makes no request outside localhost (the signed graph included: fully offline)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from hlv_core.samples import SAMPLES

from .conftest import wait_for_app

PAGES = [
    # (navigation title, sample title in the sidebar or None for the default, text that must
    # appear on the page)
    ("Agreement", None, "Krippendorff's α (nominal)"),
    ("Annotator graph", None, "Signed graph"),
    ("Items and annotators", "Acceptability ratings (ordinal 1-5)", "most contested first"),
    ("Perspectives", "Acceptability ratings (ordinal 1-5)", "1. Split"),
    ("Soft vs hard metrics", "Legal areas (multi-label)", "All metrics, every model"),
    ("Certainty", "Dermatology differential diagnoses (ranked, real)",
     "How certain each case is, at one reliability"),
    ("Case review", None, "Case review and meta-evaluation"),
    ("Training lab", None, "What this is."),
]


@pytest.mark.parametrize(("title", "sample", "marker"), PAGES)
def test_page_renders_offline_without_exception(offline_page, app_url, artifacts, title,
                                                sample, marker):
    page, outside = offline_page
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    if sample is not None:
        page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").click()
        page.get_by_role("option", name=sample).click()
        wait_for_app(page)
    # navigate inside the session (a full page load would start a new session)
    page.get_by_test_id("stSidebarNavLink").get_by_text(title, exact=True).click()
    main = page.get_by_test_id("stMain")
    # the first VISIBLE match: a term may also occur in a closed "What does this mean?" expander
    expect(main.get_by_text(marker).filter(visible=True).first).to_be_visible()
    wait_for_app(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(main.get_by_text("Not built yet")).to_have_count(0)
    if sample is not None:  # the sample chosen in the sidebar is still the session's dataset
        key = {v["title"]: k for k, v in SAMPLES.items()}[sample]
        expect(page.get_by_test_id("stSidebar")).to_contain_text(f"In use: {key}")
    main.screenshot(path=str(artifacts / f"tour_{title.lower().replace(' ', '_')}.png"))
    assert outside == [], f"requests left localhost: {outside[:5]}"


def test_signed_graph_draws_on_canvas_offline(offline_page, app_url, artifacts):
    page, outside = offline_page
    page.goto(f"{app_url}/graph")
    frame = page.frame_locator('[data-testid="stIFrame"] iframe, iframe').first
    expect(frame.locator("canvas").first).to_be_visible()
    assert outside == []


def test_training_lab_trains_and_plots_deltas(page: Page, app_url: str, artifacts):
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    page.get_by_test_id("stSidebarNavLink").get_by_text("Training lab", exact=True).click()
    main = page.get_by_test_id("stMain")
    main.get_by_role("button", name="Train", exact=True).click()
    expect(main.get_by_text("Scores with 95% intervals over seeds").first).to_be_visible(
        timeout=180_000)
    expect(main.locator(".js-plotly-plot").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "training_lab_deltas.png"))
