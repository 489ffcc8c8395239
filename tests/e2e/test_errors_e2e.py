"""Errors and perspectives in a real browser on real data (uploaded as a zip of the canonical
files): the ranking, one label in context, the annotator map with a click through to the
annotator's profile. Screenshots in tests/artifacts/errors_<name>.png."""

from __future__ import annotations

import io
import re
import zipfile

from playwright.sync_api import Page, expect

from tests.conftest import shared_path
from tests.e2e.conftest import annotations_input, wait_for_app


def _zip_of(name: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in shared_path("data", name).iterdir():
            if path.stem in ("annotations", "items", "annotators"):
                archive.write(path, path.name)
    return buffer.getvalue()


def _open_errors_page(page: Page, app_url: str, name: str):
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    page.get_by_text("Load your own data").click()
    annotations_input(page).set_input_files(
        files=[{"name": f"{name}.zip", "mimeType": "application/zip", "buffer": _zip_of(name)}])
    expect(page.get_by_text(f"Loaded {name}.zip").first).to_be_visible()
    # once the upload's run has finished (it sets the dataset in use), not during it
    wait_for_app(page)
    page.get_by_test_id("stSidebarNavLink").get_by_text("Errors and perspectives", exact=True).click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Errors and perspectives")).to_be_visible()
    heading = main.get_by_role("heading", name=re.compile("3. Annotators"))
    expect(heading).to_be_visible(timeout=300_000)
    wait_for_app(page, timeout=300_000)  # the status widget shows only after a run's first second
    return main


# One real dataset in the browser (the one with planted camps); real data of every kind is
# covered page-level by AppTest (tests/app/test_page_errors.py,
# tests/app/test_pages_on_real_data.py), which computes the same tables.
def test_errors_page_on_real_data_and_map_click_opens_the_profile(offline_page, app_url,
                                                                   artifacts):
    page, outside = offline_page
    main = _open_errors_page(page, app_url, "planted_camps")
    expect(main.get_by_text("Possible error", exact=False).first).to_be_visible()
    expect(main.locator(".js-plotly-plot").first).to_be_visible()
    expect(main.get_by_text(re.compile(r"score .*, rank \d+ of \d+")).first).to_be_visible()
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "errors_planted_camps.png"), full_page=True)
    assert not outside, outside

    # a click on a point of the annotator map offers that annotator's profile
    plot = main.locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    point = plot.locator(".scatterlayer .trace .points path").first
    expect(point).to_be_visible()
    point.click(force=True)
    link = main.get_by_role("link", name=re.compile("Open the profile of"))
    expect(link.first).to_be_visible()
    wait_for_app(page)  # the click's run has drawn the link: let it finish before leaving
    page.screenshot(path=str(artifacts / "errors_map_click.png"))
    link.first.click()
    expect(page).to_have_url(re.compile(r"/explorer\?annotator="))
