"""In a real browser: on a big real dataset (MD-Agreement, 10,753 items, 819
annotators) no metric value is cut off ("10,7...", "3,018 + / ...") on the pages that show
counts, at a laptop-sized window."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import shared_path

from .conftest import annotations_input, rerun, wait_for_app

PAGES = [("Overview", None), ("Agreement", "Krippendorff"), ("Annotator graph", "Signed graph"),
         ("Perspectives", "1. Split")]

# every visible metric value and label, and every element inside them (Streamlit truncates with
# an ellipsis on an inner element): [text, scrollWidth, clientWidth]
CUT_OFF = """() => Array.from(document.querySelectorAll(
    '[data-testid="stMetricValue"], [data-testid="stMetricLabel"]'))
  .filter(el => el.offsetParent !== null)
  .flatMap(el => [el, ...el.querySelectorAll('*')])
  .map(el => [el.innerText, el.scrollWidth, el.clientWidth])"""


@pytest.mark.slow
def test_metric_values_are_not_cut_off_on_md_agreement(page: Page, app_url: str, artifacts):
    path = shared_path("data", "md_agreement", "annotations.csv")
    page.set_viewport_size({"width": 1200, "height": 1400})
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    page.get_by_text("Load your own data").click()
    annotations_input(page).set_input_files(str(path))
    expect(page.get_by_text("Loaded annotations.csv").first).to_be_visible()
    for title, marker in PAGES:
        if title != "Overview":  # the upload lands on the Overview
            # the page before stays drawn until the new page's run starts: wait for that run
            rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text(title, exact=True).click)
        main = page.get_by_test_id("stMain")
        if marker:
            expect(main.get_by_text(marker).filter(visible=True).first).to_be_visible(
                timeout=120_000)
        wait_for_app(page)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        values = page.evaluate(CUT_OFF)
        assert values, title
        cut = [v for v in values if v[1] > v[2] + 1]
        page.screenshot(path=str(artifacts / f"layout_{title.lower().replace(' ', '_')}.png"))
        assert not cut, (title, cut)
