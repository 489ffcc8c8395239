"""A clinician opens "Certainty" on the dermatology sample, moves the reliability slider and sees
the per-case certainty histogram follow (Stutz et al.); switched to the 1-5 ratings sample in the
sidebar, the case view names the labels."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import open_screen, rerun, wait_for_app


@pytest.mark.slow  # about a minute: four tabs on the 1,947-case sample
def test_certainty_reliability_slider_updates_histogram(page: Page, app_url: str, artifacts):
    main = open_screen(page, app_url, "certainty", dataset="dermatology")
    # .filter/.first: during a rerun Streamlit briefly keeps the previous run's elements
    hist = main.locator(".st-key-certainty-hist .js-plotly-plot")
    expect(hist.filter(has_text="at reliability 10").first).to_be_visible()
    expect(main.locator(".st-key-certainty-sorted .js-plotly-plot").first).to_be_visible()
    metric = main.get_by_test_id("stMetric").filter(has_text="Ranked votes (paper's rule)").first
    expect(metric).to_be_visible()
    before = metric.get_by_test_id("stMetricValue").inner_text()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "certainty_dermatology.png"))

    slider = main.get_by_test_id("stSlider").filter(has_text="Reliability").first
    thumb = slider.get_by_role("slider")
    for _ in range(3):  # 10 -> 20 -> 30 -> 50: a stop sampled on demand
        rerun(page, lambda: thumb.press("ArrowRight"))
    expect(hist.filter(has_text="at reliability 50").first).to_be_visible()
    after_value = metric.get_by_test_id("stMetricValue")
    expect(after_value).not_to_have_text(before)
    assert float(after_value.inner_text()) > float(before)  # read once the run at 50 is done
    main.screenshot(path=str(artifacts / "certainty_slider_50.png"))
    # the case view is its own tab (it runs when opened)
    page.set_viewport_size({"width": 1400, "height": 5200})
    main.get_by_role("tab", name="Case view").click()
    expect(main.locator(".st-key-certainty-case_plot .js-plotly-plot").first).to_be_visible()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "certainty_full.png"))
    main.get_by_role("tab", name="Across reliabilities").click()
    curves = main.locator(".st-key-certainty-curves .js-plotly-plot").first
    expect(curves).to_be_visible()
    # ∞ is 1 by construction: not a tick of the curves (the axis drawn before it is read)
    ticks = curves.locator(".xtick text")
    expect(ticks.filter(has_text=re.compile(r"^50$"))).to_have_count(1)
    wait_for_app(page)
    expect(ticks.filter(has_text="∞")).to_have_count(0)
    curves.screenshot(path=str(artifacts / "certainty_curves.png"))
    # model accuracy: one colour per model, legend below the plot (not clipped)
    main.get_by_role("tab", name="Model accuracy").click()
    ua = main.locator(".st-key-certainty-ua .js-plotly-plot").first
    expect(ua.filter(has_text="derm_model_a")).to_be_visible()
    wait_for_app(page)
    ua.screenshot(path=str(artifacts / "certainty_model_accuracy.png"))
    # one reliability in detail (Stutz et al., Figure 7): the cases sorted, the draws binned
    for key in ("spread_cases", "spread_draws"):
        plot = main.locator(f".st-key-certainty-{key} .js-plotly-plot").first
        expect(plot.filter(has_text="derm_model_a")).to_be_visible()
    wait_for_app(page)
    main.locator(".st-key-certainty-spread_cases").first.screenshot(
        path=str(artifacts / "certainty_spread_cases.png"))
    main.locator(".st-key-certainty-spread_draws").first.screenshot(
        path=str(artifacts / "certainty_spread_draws.png"))

    # the sidebar switches this page to the 1-5 ratings sample: the case view's x axis shows
    # the labels as names (no -0.5 / 0.5 ticks)
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").click()
    page.get_by_role("option", name=re.compile("Acceptability ratings")).click()
    expect(page.get_by_test_id("stSidebar").get_by_text("In use: ratings").first).to_be_visible()
    expect(main.get_by_role("tab", name="Case view")).to_be_visible()
    # once the switch's run has ended: no tab bar left from the run before beside the new one
    wait_for_app(page)
    main.get_by_role("tab", name="Case view").click()
    plot = main.locator(".st-key-certainty-case_plot .js-plotly-plot").first
    expect(plot).to_be_visible()
    wait_for_app(page)
    ticks = plot.locator(".xtick text")  # the axis drawn (a label as a name) before it is read
    expect(ticks.filter(has_text=re.compile(r"^[1-5]$")).first).to_be_visible()
    assert set(ticks.all_text_contents()) <= {"1", "2", "3", "4", "5"}, ticks.all_text_contents()
    plot.screenshot(path=str(artifacts / "certainty_case_ratings.png"))
