"""Case review in desk mode in a browser: the reviewer name survives a reload (this browser
remembers it) with the desk-mode warning, until "Not you?"; the outputs of a case line up
label by label (screenshot)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import wait_for_app

WAIT = 120_000


def test_desk_name_survives_a_reload_and_outputs_line_up(page: Page, app_url: str, artifacts):
    page.set_viewport_size({"width": 1200, "height": 1800})
    page.goto(f"{app_url}/review")
    main = page.get_by_test_id("stMain")
    name = main.get_by_label("Your name (fixed for this browser session)")
    expect(name).to_be_visible(timeout=WAIT)
    name.fill("Desk Reviewer")
    main.get_by_role("button", name="Start reviewing").click()
    expect(main.get_by_text("Reviewer Desk Reviewer").first).to_be_visible(timeout=WAIT)
    page.wait_for_function("() => document.cookie.includes('hlv_desk_reviewer=')")  # written by the page's script
    page.reload()
    expect(main.get_by_text("Reviewer Desk Reviewer").first).to_be_visible(timeout=WAIT)
    expect(main.get_by_text("this browser remembers the name").first).to_be_visible()
    assert main.get_by_label("Your name (fixed for this browser session)").count() == 0
    main.get_by_role("button", name="Skip").first.click()
    expect(main.get_by_text("Output C", exact=True).first).to_be_visible(timeout=WAIT)
    wait_for_app(page)  # the status widget shows only after a run's first second
    main.screenshot(path=str(artifacts / "review_case_side_by_side_1200.png"), timeout=WAIT)
    main.get_by_role("button", name="Not you? Forget this name in this browser").click()
    expect(main.get_by_label("Your name (fixed for this browser session)")).to_be_visible(
        timeout=WAIT)
    # the run's script clears the cookie: a reload before it has run would still remember
    page.wait_for_function("() => !document.cookie.includes('hlv_desk_reviewer=')")
    page.reload()
    expect(main.get_by_label("Your name (fixed for this browser session)")).to_be_visible(
        timeout=WAIT)
