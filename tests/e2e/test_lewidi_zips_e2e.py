"""LeWiDi scorer in a browser with two real-layout Codabench res.zip files of one team (real
CSC and Paraphrase gold), one with a bad file: the good files are scored, the bad one is listed
with its reason, the systems are named after the zips' folders and can be renamed."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import rerun, wait_for_app

from ..test_lewidi import gold_path
from ..test_lewidi_members import real_layout_zip


def test_two_res_zips_one_bad_file(page: Page, app_url: str, artifacts):
    page.set_viewport_size({"width": 1200, "height": 2400})
    page.goto(f"{app_url}/lewidi")
    main = page.get_by_test_id("stMain")
    gold_input = (main.get_by_test_id("stFileUploader").filter(has_text="Gold JSON")
                  .get_by_test_id("stFileUploaderDropzoneInput"))
    expect(gold_input).to_be_attached()
    golds = [{"name": p.name, "mimeType": "application/json", "buffer": p.read_bytes()}
             for p in (gold_path("CSC"), gold_path("Paraphrase"))]
    # each upload starts a run: the next upload waits until it has ended (on a busy machine a
    # second upload made while the first one's run was going was seen lost)
    rerun(page, lambda: gold_input.set_input_files(files=golds))
    good, _ = real_layout_zip("team_alpha_run1", bad=False, seed=1)
    bad, _ = real_layout_zip("team_alpha_run2", bad=True, seed=2)
    expect(main.get_by_text("CSC_test.json").first).to_be_visible()
    submissions = (main.get_by_test_id("stFileUploader").filter(has_text="Submissions")
                   .get_by_test_id("stFileUploaderDropzoneInput"))
    rerun(page, lambda: submissions.set_input_files(files=[
        {"name": "res.zip", "mimeType": "application/zip", "buffer": good},
        {"name": "res.zip", "mimeType": "application/zip", "buffer": bad}]))
    expect(main.get_by_text("Leaderboard", exact=True).first).to_be_visible(timeout=180_000)
    expect(main.get_by_text("1 file(s) not scored").first).to_be_visible()
    expect(main.get_by_text("team_alpha_run2: 1").first).to_be_visible()
    renamed = main.get_by_label("System 2 (res.zip)")
    expect(renamed).to_have_value("team_alpha_run2")
    expect(main.get_by_label("System 1 (res.zip)")).to_have_value("team_alpha_run1")
    wait_for_app(page)  # the status widget shows only after a run's first second
    renamed.fill("BERT soft loss")
    renamed.press("Enter")
    expect(main.locator(".js-plotly-plot").first.get_by_text("BERT soft loss").first
           ).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "lewidi_two_res_zips_1200.png"))
