"""A curator exports the disagreement report from the sidebar and opens it offline: the file
renders its figures with every network request aborted, and user strings stay text."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import annotations_input

from .conftest import wait_for_app

pytestmark = pytest.mark.slow  # about a minute and a half: two reports built and opened

EVIL = "<script>alert(1)</script>"


def _export(page: Page, target: Path) -> Path:
    """Build the report in the sidebar, download it to ``target``."""
    sidebar = page.get_by_test_id("stSidebar")
    build = sidebar.get_by_role("button", name="Build disagreement report")
    download_button = sidebar.get_by_role("button", name="Download disagreement report (HTML)")
    for _ in range(3):  # a click on an element of a half-drawn first run can be lost
        # the sidebar as the last run left it: during a run it may still offer the download
        # of the report built for the dataset before
        wait_for_app(page)
        if download_button.count():
            break
        if build.count():
            build.click()
        try:
            expect(download_button).to_be_visible()
        except AssertionError:
            continue
    expect(download_button).to_be_visible()
    with page.expect_download() as info:
        download_button.click()
    info.value.save_as(target)
    return target


def _open_offline(browser: Browser, path: Path):
    """A fresh browser context that may load only file:// URLs: (page, blocked requests,
    console errors, dialogs)."""
    context = browser.new_context(viewport={"width": 1300, "height": 1400})
    blocked: list[str] = []

    def guard(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(path.resolve().as_uri())
    return page, blocked, errors, dialogs


def test_report_exported_opened_offline_and_markup_stays_text(offline_page, app_url: str, browser: Browser,
                                            artifacts):
    page, outside = offline_page
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    expect(page.locator(".js-plotly-plot")).to_have_count(4)  # run finished
    path = _export(page, artifacts / "report_case_review.html")
    page.mouse.move(700, 900)  # no tooltip over the sidebar
    wait_for_app(page)
    page.get_by_test_id("stSidebar").screenshot(path=str(artifacts / "report_sidebar.png"))
    assert outside == []
    assert path.name == "report_case_review.html" and path.stat().st_size > 1_000_000

    report, blocked, errors, dialogs = _open_offline(browser, path)
    expect(report.get_by_role("heading", name="Disagreement report")).to_be_visible()
    plots = report.locator(".js-plotly-plot")
    expect(plots).to_have_count(3)  # labels, entropy, pairwise heatmap
    expect(report.locator("#fig-heatmap .main-svg").first).to_be_visible()
    expect(report.locator("#fig-labels .xtick").first).to_be_visible()
    expect(report.get_by_text("Cramér's V = 1.00")).to_be_visible()
    expect(report.locator("#sec-scores table")).to_be_visible()
    report.wait_for_function("() => document.readyState === 'complete'")  # static page: no app state
    report.screenshot(path=str(artifacts / "report_case_review_top.png"))
    report.locator("#sec-pairs").screenshot(path=str(artifacts / "report_case_review_pairs.png"))
    assert blocked == [] and errors == [] and dialogs == []
    report.context.close()

    # then, in the same session, the report of an upload whose labels and ids are markup
    page.get_by_text("Load your own data").click()
    rows = ["item_id,annotator_id,label"]
    for item in ("q1", "q2", "q3", "q4"):
        rows += [f'{item},"{EVIL}",yes', f"{item},ann2,no", f"{item},ann3,{EVIL}",
                 f"{item},<b>ann4</b>,yes"]
    annotations_input(page).set_input_files(files=[{
        "name": "evil.csv", "mimeType": "text/csv", "buffer": "\n".join(rows).encode()}])
    expect(page.get_by_text("Loaded evil.csv").first).to_be_visible()
    path = _export(page, artifacts / "report_evil.html")
    assert outside == []

    report, blocked, errors, dialogs = _open_offline(browser, path)
    expect(report.locator(".js-plotly-plot").first).to_be_visible()
    items = report.locator("#sec-items")
    expect(items.get_by_text(EVIL).first).to_be_visible()  # shown as typed, never run
    expect(items.get_by_text("<b>ann4</b>").first).to_be_visible()
    assert report.locator("#sec-items b").count() == 0
    # plotly tick labels show the label verbatim too
    expect(report.locator("#fig-labels .xtick text", has_text=EVIL)).to_have_count(1)
    items.screenshot(path=str(artifacts / "report_evil_items.png"))
    assert blocked == [] and errors == [] and dialogs == []
    report.context.close()
