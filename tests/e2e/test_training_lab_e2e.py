"""Training lab in a browser: the progress bar names the method in words and shows the time
elapsed and left while training, beside Streamlit's running status ("Running..." with a Stop
button); Stop interrupts the run (the script thread watches the worker processes and ends
them) and the bar then says "Stopped", never a stale time left, and nothing more is drawn;
Train again resumes from the methods already trained and draws the delta plot."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from .conftest import open_screen, wait_for_app


@pytest.mark.slow
def test_progress_shows_time_left_and_stop_interrupts(page: Page, app_url: str, artifacts):
    main = open_screen(page, app_url, "training-lab")
    repeats = main.get_by_role("spinbutton", name="Repeats per method (random starts)")
    expect(repeats).to_be_visible()
    repeats.fill("5")
    main.get_by_role("button", name="Train", exact=True).click()
    bar = main.get_by_test_id("stProgress")
    # what runs, in words, on the worker processes: "... · Soft labelling (SL), seed 2 (L2 2/3)"
    expect(bar).to_contain_text(re.compile(r"Training \d+ methods \(\d+ done\) · .+ \(\w+\), seeds? \d+"))
    expect(bar).to_contain_text(re.compile(r"elapsed · about .+ left"))
    expect(main.get_by_text("Training runs here, in this page").first).to_be_visible()
    main.screenshot(path=str(artifacts / "training_lab_progress.png"))  # mid-run: no idle wait
    # Streamlit's running status stays visible (``client.toolbarMode = "viewer"`` keeps it)
    status = page.get_by_test_id("stStatusWidget")
    expect(status.get_by_test_id("stStatusWidgetRunningIcon")).to_be_visible()
    expect(status.get_by_role("img", name="Running...")).to_be_visible()
    status.screenshot(path=str(artifacts / "running_state_widget.png"))

    status.get_by_role("button", name="Stop").click()
    expect(status.get_by_role("button", name="Stop")).to_have_count(0)
    # the bar says it stopped and what is kept; no stale "about ... left"
    expect(bar).to_contain_text(re.compile(r"Stopped after .+: \d+ of \d+ methods trained"))
    expect(bar).not_to_contain_text("left")
    stopped_at = bar.inner_text()
    time.sleep(3)  # observation window: a stopped run draws nothing more
    assert bar.inner_text() == stopped_at  # nothing runs on in the background
    main.screenshot(path=str(artifacts / "training_lab_stopped.png"))
    expect(main.get_by_text("Scores with 95% intervals")).to_have_count(0)
    assert page.locator(".js-plotly-plot").count() == 0  # no results drawn
    expect(status.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)

    main.get_by_role("button", name="Train", exact=True).click()  # resumes
    expect(main.get_by_text("Scores with 95% intervals").first).to_be_visible(timeout=300_000)
    delta = main.locator(".js-plotly-plot").filter(has_text="Difference to majority voting")
    expect(delta.first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(main.get_by_text("Training runs here, in this page")).to_have_count(0)  # done: gone
    delta.first.scroll_into_view_if_needed()
    wait_for_app(page)
    delta.first.screenshot(path=str(artifacts / "training_lab_delta_plot.png"))
