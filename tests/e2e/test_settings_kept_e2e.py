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


def test_a_data_bound_setting_shows_the_new_datasets_default_after_a_switch(page: Page, app_url):
    """The certainty prior follows the model that suits the data: after the sidebar switches to
    another vote-count dataset, the box shows (and the page uses) the default again, not the
    value chosen for the other dataset (the browser would keep showing it if only the server
    forgot it: the same widget on the same page)."""
    main = open_screen(page, app_url, "certainty")
    box = main.get_by_label("Prior weight per label", exact=True)
    expect(box).to_have_value("0.1000")
    box.fill("0.5")
    rerun(page, lambda: box.press("Enter"))
    expect(box).to_have_value("0.5000")

    wait_for_drawn(page)
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").click()
    rerun(page, page.get_by_role("option", name="Acceptability ratings (ordinal 1-5)").first.click)
    expect(page.get_by_test_id("stSidebar").get_by_text("In use: ratings")).to_be_visible()
    expect(box).to_have_value("0.1000")
