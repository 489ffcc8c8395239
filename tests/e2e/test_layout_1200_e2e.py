"""At 1200 px in a browser: the teaching views open with a take-away; 15 Training lab models on
Soft vs hard metrics give one group switch, one coverage warning and a rank grid with one row
per model; a long dataset name in the sidebar is cut with an ellipsis and whole on hover
(title); the dermatology Overview's metrics and dataset name fit."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from hlv_core.samples import load_sample
from hlv_core.training import METHODS

from .conftest import annotations_input, open_screen, rerun, wait_for_app

WAIT = 120_000
LONG = "annual_review_of_contested_tenancy_decisions_2025_second_round_final_v3"


def _lab_csv() -> bytes:
    """15 lab models' predictions on the first 60% of case_review's items."""
    dataset = load_sample("case_review")
    rng = np.random.default_rng(1)
    items = list(dataset.item_ids[: int(dataset.n_items * 0.6)])
    k = len(dataset.labels)
    frames = [pd.DataFrame({"item_id": np.repeat(items, k), "label": np.tile(list(dataset.labels),
                            len(items)), "prob": rng.dirichlet(np.ones(k), len(items)).ravel(),
                            "model": f"lab {m}"}) for m in [*METHODS, "SLMV-soft"]]
    out = io.StringIO()
    pd.concat(frames).to_csv(out, index=False, float_format="%.17g")
    return out.getvalue().encode()


@pytest.mark.slow
def test_long_name_and_fifteen_lab_models_at_1200(page: Page, app_url: str, artifacts):
    page.set_viewport_size({"width": 1200, "height": 1600})
    main = open_screen(page, app_url, "soft-metrics")
    sidebar = page.get_by_test_id("stSidebar")
    # the teaching views open with a one-line take-away, controls named for what they do
    for tab, marker, shot in (
            ("Figure 1 explainer", "How people split", "teaching_figure1_1200.png"),
            ("Table 2 simulator", "Evenness of people's answers", "teaching_table2_1200.png")):
        page.get_by_role("tab", name=tab).click()
        expect(main.get_by_text("Take-away:").first).to_be_visible(timeout=WAIT)
        expect(main.get_by_text(marker).first).to_be_visible(timeout=WAIT)
        wait_for_app(page)
        main.screenshot(path=str(artifacts / shot))
    rerun(page, page.get_by_role("tab", name="Models").click)  # a tab that runs when opened

    upload = main.get_by_test_id("stFileUploader").first.get_by_test_id(
        "stFileUploaderDropzoneInput")
    rerun(page, lambda: upload.set_input_files(files=[
        {"name": "lab.csv", "mimeType": "text/csv", "buffer": _lab_csv()}]))
    expect(main.get_by_text("Added predictions of 15 model(s)").first).to_be_visible(timeout=WAIT)
    expect(main.get_by_text("Show the 15 training lab models").first).to_be_visible()
    wait_for_app(page)
    coverage = main.get_by_test_id("stAlert").filter(
        has_text=re.compile(r"15 training lab models.*are scored on"))
    expect(coverage).to_have_count(1)  # one warning for the group, none per model
    expect(main.get_by_test_id("stAlert").filter(has_text="lab SL is scored")).to_have_count(0)
    grid = main.locator(".js-plotly-plot").filter(has_text="Rank of each model").first
    # 15 lab models + the 3 bundled ones: wait until Plotly has drawn every row (the grid is
    # redrawn after the app goes idle, e.g. when its margins are fitted to the names)
    try:
        expect(grid.locator(".ytick text")).to_have_count(18, timeout=WAIT)
    except AssertionError as missing:  # say which rows were drawn, and keep the picture
        page.screenshot(path=str(artifacts / "rank_grid_rows_missing.png"), full_page=True)
        drawn = grid.evaluate("g => [...g.querySelectorAll('.ytick text')].map(t => t.textContent)")
        raise AssertionError(f"rows drawn: {drawn}") from missing
    for name in ("lab SLMV-soft", "calibrated", "overconfident", "weak"):
        expect(grid.locator(".ytick").filter(
            has_text=re.compile(rf"(^|\s){re.escape(name)}$"))).to_have_count(1, timeout=WAIT)
    rows = grid.evaluate("g => [...new Set([...g.querySelectorAll('.ytick')].map(t => "
                         "t.textContent.trim()))]")
    assert len([r for r in rows if "lab " in r]) == 15, rows  # one row per lab model
    assert {"calibrated", "overconfident", "weak"} <= {r.lstrip("\u25cf ") for r in rows}
    grid.scroll_into_view_if_needed()
    wait_for_app(page)
    grid.screenshot(path=str(artifacts / "rank_grid_15_models_1200.png"))

    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Overview", exact=True).click)
    page.get_by_text("Load your own data").click()
    rows = "".join(f"q{i},a{j},{'yes' if (i + j) % 3 else 'no'}\n"
                   for i in range(20) for j in range(3))
    annotations_input(page).set_input_files(files=[{
        "name": f"{LONG}.csv", "mimeType": "text/csv",
        "buffer": ("item_id,annotator_id,label\n" + rows).encode()}])
    name = sidebar.locator(".hlv-in-use-name")
    expect(name).to_have_attribute("title", LONG, timeout=WAIT)
    wait_for_app(page)
    scroll, client, overflow = name.evaluate(
        "e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).textOverflow]")
    assert scroll > client and overflow == "ellipsis"  # cut, with an ellipsis, on one line
    box = sidebar.get_by_role("combobox", name="Dataset")
    assert box.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
    sidebar.screenshot(path=str(artifacts / "sidebar_long_name_1200.png"))

    # a link to a bundled dataset opens its Overview at 1200 px (ranked data: no alpha shown)
    page.goto(f"{app_url}/?dataset=dermatology")
    expect(sidebar.get_by_text("In use: dermatology").first).to_be_visible(timeout=WAIT)
    expect(main.get_by_test_id("stMetricValue").nth(1)).to_have_text("—", timeout=WAIT)
    expect(main.locator(".js-plotly-plot").nth(2)).to_be_visible(timeout=WAIT)
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "dermatology_overview_1200.png"))
