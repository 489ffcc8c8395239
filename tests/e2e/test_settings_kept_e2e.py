"""In a real browser: a setting changed on one page is still there after a look at the Glossary,
in the tab the user left open."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import open_screen, rerun, wait_for_drawn


def _nav(page: Page, title: str) -> None:
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text(title, exact=True).click)


def test_a_setting_and_its_tab_survive_a_trip_to_the_glossary(page: Page, app_url, artifacts):
    main = open_screen(page, app_url, "agreement")
    rerun(page, main.get_by_role("tab", name="Pairs").click)
    box = main.get_by_label("Minimum shared items per pair", exact=True)
    expect(box).to_have_value("2")
    box.fill("5")
    rerun(page, lambda: box.press("Enter"))
    expect(main.get_by_text("share fewer than 5 items").first).to_be_visible()

    _nav(page, "Glossary")
    expect(main.get_by_label("Find a term")).to_be_visible()
    _nav(page, "Agreement")

    expect(main.get_by_role("tab", name="Pairs")).to_have_attribute("aria-selected", "true")
    expect(main.get_by_label("Minimum shared items per pair", exact=True)).to_have_value("5")
    expect(main.get_by_text("share fewer than 5 items").first).to_be_visible()
    wait_for_drawn(page)
    page.screenshot(path=str(artifacts / "settings_kept_agreement.png"), full_page=False)
