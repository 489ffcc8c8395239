"""A person builds a perspectivist split, downloads the test pairs, predicts them and uploads
the predictions; the comparison table and the per-trait view show the uploaded model."""

from __future__ import annotations

import csv
import io

from playwright.sync_api import Page, expect


def test_split_download_predict_upload(page: Page, app_url: str, artifacts):
    page.goto(app_url)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240", timeout=60_000)
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Perspectives").click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Test instances").first).to_be_visible(timeout=60_000)
    with page.expect_download() as download_info:
        main.get_by_role("button", name="Download test pairs to predict (CSV)").click()
    path = artifacts / "perspectives_test_pairs.csv"
    download_info.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert rows, "the downloaded test pairs are empty"
    id_user = "annotator_id" if "annotator_id" in rows[0] else "user_id"
    id_text = "item_id" if "item_id" in rows[0] else "text_id"
    predictions = "annotator_id,item_id,label\n" + "".join(
        f"{r[id_user]},{r[id_text]},liable\n" for r in rows
    )
    main.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        files=[{"name": "always_liable.csv", "mimeType": "text/csv",
                "buffer": predictions.encode()}]
    )
    # tables are canvas grids; the comparison bar chart (SVG) names the uploaded model
    expect(main.locator(".js-plotly-plot").filter(has_text="always_liable").first
           ).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_role("tab", name="Per trait").click()
    expect(main.locator(".js-plotly-plot").last).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1500)
    main.screenshot(path=str(artifacts / "perspectives_upload.png"))
