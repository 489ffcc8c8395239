"""A person opens the app, sees the sample overview, uploads a CSV and sees its overview."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import annotations_input

from .conftest import rerun, wait_for_app


def _pick(page: Page, selector, option: str) -> None:
    """Pick a dataset in the sidebar once the page's run is done; wait for the pick's run."""
    wait_for_app(page)
    selector.click()
    rerun(page, page.get_by_role("option", name=option).first.click)


def test_upload_survives_switching_to_a_sample_and_back(page: Page, app_url: str, artifacts):
    """The sample's overview; an upload is drawn (its HTML-looking annotator name as text), named
    after its file, listed in the sidebar beside the samples, kept when a sample is picked and
    the pages are walked, and picked again from the sidebar; renaming it renames it there."""
    page.goto(app_url)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Items", exact=True).first).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    page.get_by_text("Load your own data").click()
    expect(page.get_by_text("a reload of the page clears them")).to_be_visible()
    csv = (b"item_id,annotator_id,label\n"
           b"q1,<b>ann1</b>,yes\nq1,ann2,no\nq2,<b>ann1</b>,yes\nq2,ann2,yes\nq3,ann2,no\n"
           b"q3,<b>ann1</b>,no\n")
    annotations_input(page).set_input_files(
        files=[{"name": "ward_triage.csv", "mimeType": "text/csv", "buffer": csv}])
    expect(page.get_by_text("Loaded ward_triage.csv").first).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")
    expect(page.locator(".js-plotly-plot").nth(2)).to_be_visible()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "overview_upload.png"))
    # the HTML-looking annotator name is data, never markup
    assert page.locator("b", has_text="ann1").count() == 0
    selector = sidebar.get_by_test_id("stSelectbox")
    chosen = sidebar.get_by_role("combobox", name="Dataset")
    expect(chosen).to_have_value("Uploaded: ward_triage")
    expect(sidebar.get_by_text("In use: ward_triage")).to_be_visible()
    sidebar.screenshot(path=str(artifacts / "sidebar_upload_in_use.png"))

    _pick(page, selector, "Legal areas (multi-label)")
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("180")
    expect(sidebar.get_by_text("In use: legal_areas")).to_be_visible()
    main.screenshot(path=str(artifacts / "overview_legal.png"))

    _pick(page, selector, "Uploaded: ward_triage")  # the upload is still listed
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")
    expect(sidebar.get_by_text("In use: ward_triage")).to_be_visible()

    # renaming the upload renames it in the sidebar
    name_box = page.get_by_role("textbox", name="Name of this upload")
    name_box.fill("Ward 3 triage")
    name_box.press("Enter")
    expect(sidebar.get_by_text("In use: Ward 3 triage")).to_be_visible()
    expect(chosen).to_have_value("Uploaded: Ward 3 triage")
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "overview_upload_renamed.png"))
    _pick(page, selector, "Ratings")  # the renamed upload is still a working choice
    expect(sidebar.get_by_text("In use: ratings")).to_be_visible()
    _pick(page, selector, "Uploaded: Ward 3 triage")
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")
    expect(sidebar.get_by_text("In use: Ward 3 triage")).to_be_visible()
    # the dataset picked stays the session's dataset across pages
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Agreement", exact=True).click)
    expect(page).to_have_url(f"{app_url}/agreement")
    expect(sidebar.get_by_text("In use: Ward 3 triage")).to_be_visible()
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Overview", exact=True).click)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")


def test_clear_answers_to_a_workbook_and_an_image_then_labels_verbatim(page: Page, app_url: str,
                                                                        artifacts):
    """In the browser: the uploader accepts .xlsx / .ods (no MIME refusal) and the app says
    "export as CSV"; a PNG renamed .csv is named as an image; then an upload's labels are drawn
    as typed."""
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    page.get_by_text("Load your own data").click()
    workbook = b"PK\x03\x04[Content_Types].xml" + bytes(64)
    annotations_input(page).set_input_files(files=[{
        "name": "ward.xlsx", "buffer": workbook,
        "mimeType": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}])
    alert = page.get_by_test_id("stAlertContentError")
    expect(alert).to_contain_text("export the sheet as CSV")
    wait_for_app(page)  # each next upload once the run before has ended
    page.get_by_test_id("stMain").get_by_test_id("stFileUploader").first.screenshot(
        path=str(artifacts / "overview_xlsx_answer.png"))
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    annotations_input(page).set_input_files(
        files=[{"name": "scan.csv", "mimeType": "text/csv", "buffer": png}])
    expect(alert).to_contain_text("looks like a PNG image")
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    wait_for_app(page)
    page.get_by_test_id("stMain").screenshot(path=str(artifacts / "overview_png_answer.png"))

    # then a good upload: a label written `<b>x</b>` is drawn as typed (not bold, not
    # `&lt;b&gt;`), and 0 / 1 labels are categories without -0.5 / 0.5 ticks
    csv = (b"item_id,annotator_id,label\n1,a,<b>x</b>\n1,b,0\n2,a,1\n2,b,<b>x</b>\n"
           b"3,a,0\n3,b,1\n")
    annotations_input(page).set_input_files(
        files=[{"name": "tags.csv", "mimeType": "text/csv", "buffer": csv}])
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")
    chart = page.locator(".js-plotly-plot").first
    expect(chart).to_be_visible()
    wait_for_app(page)
    # retried: the chart may be the sample's until redrawn, and plotly draws after the run
    expect(chart.locator(".xtick text")).to_have_text(["0", "1", "<b>x</b>"])
    assert chart.locator(".xtick text b").count() == 0  # not rendered as bold markup
    y_ticks = chart.locator(".ytick text").all_text_contents()
    assert all(t.replace(",", "").isdigit() for t in y_ticks), y_ticks
    chart.screenshot(path=str(artifacts / "overview_label_chart_verbatim.png"))
