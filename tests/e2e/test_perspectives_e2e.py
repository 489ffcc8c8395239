"""A person builds a perspectivist split, downloads the test pairs, predicts them and uploads
the predictions; the comparison table and the per-trait view show the uploaded model. On an
upload where every model's F1 is 0 the comparison shows labelled zero bars and says why."""

from __future__ import annotations

import csv
import io

import numpy as np
from playwright.sync_api import Page, expect

from .conftest import annotations_input, open_screen, rerun, wait_for_app


def test_split_download_predict_upload_then_zero_f1_explained(page: Page, app_url: str, artifacts):
    main = open_screen(page, app_url, "perspectives")
    expect(main.get_by_text("Test instances").first).to_be_visible()
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
        files=[{"name": "always_<b>liable</b>.csv", "mimeType": "text/csv",
                "buffer": predictions.encode()}]
    )
    # tables are canvas grids; the comparison bar chart (SVG) names the uploaded model
    # the model's name with HTML tags is shown as typed (not bold, not &lt;b&gt;)
    chart = main.locator(".st-key-perspectives-cmp_chart .js-plotly-plot").first
    expect(chart.filter(has_text="upload: always_<b>liable</b>.csv")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    wait_for_app(page)
    chart.screenshot(path=str(artifacts / "perspectives_comparison.png"))
    rerun(page, page.get_by_role("tab", name="Per trait").click)  # a tab that runs when opened
    expect(main.locator(".js-plotly-plot").last).to_be_visible()
    main.screenshot(path=str(artifacts / "perspectives_upload.png"))
    trait = main.locator(".st-key-perspectives-trait_bars .js-plotly-plot").first
    expect(trait).to_be_visible()
    trait.screenshot(path=str(artifacts / "perspectives_trait_bars.png"))

    # then, in the same session, an upload with a rare positive class: every model's headline
    # F1 is 0; the comparison shows labelled zero bars and says why, instead of an empty chart
    rng = np.random.default_rng(7)
    rows = "item_id,annotator_id,label\n" + "".join(
        f"t{t:02d},u{u:02d},{int(rng.random() < 0.08)}\n" for t in range(30) for u in range(24))
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Overview", exact=True).click)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("240")
    page.get_by_text("Load your own data").click()
    annotations_input(page).set_input_files(files=[
        {"name": "rare.csv", "mimeType": "text/csv", "buffer": rows.encode()}])
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("30")
    # once the upload's run has finished (it sets the dataset in use), not during it
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Perspectives",
                                                                     exact=True).click)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Every model scores F1 = 0").first).to_be_visible()
    chart = main.locator(".st-key-perspectives-cmp_chart .js-plotly-plot").first
    expect(chart).to_be_visible()
    expect(chart.locator(".bartext").first).to_have_text("0.00")  # plotly has drawn the bars
    labels = chart.locator(".bartext").all_text_contents()
    assert labels and set(labels) == {"0.00"}, labels
    expect(page.get_by_test_id("stException")).to_have_count(0)
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "perspectives_zero_f1.png"))
    chart.screenshot(path=str(artifacts / "perspectives_zero_f1_chart.png"))
