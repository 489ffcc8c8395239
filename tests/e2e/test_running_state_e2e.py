"""A long rerun shows Streamlit's running status ("Running..." with a Stop
button; ``client.toolbarMode = "viewer"`` keeps it) and Stop ends the run."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from .conftest import wait_for_app


@pytest.mark.slow
def test_long_run_shows_running_state_and_stop_ends_it(page: Page, app_url: str, artifacts):
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    page.get_by_test_id("stSidebarNavLink").get_by_text("Training lab", exact=True).click()
    train = page.get_by_test_id("stBaseButton-primaryFormSubmit")
    expect(train).to_be_visible()
    # every method, five seeds from a seed no other test used (results are cached per seed)
    page.get_by_role("spinbutton", name="Repeats per method (random starts)").fill("5")
    page.get_by_role("spinbutton", name="First random seed").fill(str(random.randint(100, 9_000)))
    train.click()

    status = page.get_by_test_id("stStatusWidget")
    expect(status.get_by_test_id("stStatusWidgetRunningIcon")).to_be_visible(timeout=15_000)
    expect(status.get_by_role("img", name="Running...")).to_be_visible()
    stop = status.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    progress = page.get_by_test_id("stProgress")
    expect(progress).to_contain_text("training", ignore_case=True)
    expect(status.get_by_test_id("stStatusWidgetRunningIcon")).to_be_visible()
    # the whole run takes ~9 s on a quiet 2-core box: stop it early (no waiting here), so that a
    # fast machine cannot finish it before the click
    status.screenshot(path=str(artifacts / "running_state_widget.png"))

    stop.click()
    page.screenshot(path=str(artifacts / "running_state.png"))
    expect(status.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0)
    wait_for_app(page)
    expect(progress).to_contain_text("Stopped after")  # no stale "time left" after Stop
    stopped_at = progress.inner_text()
    assert "done" not in stopped_at and "left" not in stopped_at
    page.wait_for_timeout(3_000)  # observation window: a stopped run draws nothing more
    assert progress.inner_text() == stopped_at  # nothing runs on in the background
    assert page.locator(".js-plotly-plot").count() == 0  # no results drawn
    expect(status.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0)
    page.screenshot(path=str(artifacts / "running_state_stopped.png"))
