"""In a real browser: a setting changed on one page is still there after a look at the Glossary,
in the tab the user left open; and it is written into the page's address, so a reload or a
colleague opening the link sees the same view."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

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


def test_a_link_carries_the_settings_and_the_open_tab(page: Page, app_url, browser: Browser,
                                                      artifacts):
    main = open_screen(page, app_url, "agreement")
    rerun(page, main.get_by_role("tab", name="Pairs").click)
    box = main.get_by_label("Minimum shared items per pair", exact=True)
    box.fill("5")
    rerun(page, lambda: box.press("Enter"))
    expect(main.get_by_text("share fewer than 5 items").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"/agreement\?.*agreement\.min_shared=5"))
    expect(page).to_have_url(re.compile(r"agreement\.tab=Pairs"))
    link = page.url

    _nav(page, "Glossary")  # another page's address carries none of these settings
    expect(main.get_by_label("Find a term")).to_be_visible()
    assert "agreement." not in page.url

    colleague = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    colleague.goto(link)  # a new session, as a reload, a bookmark or a shared link is
    theirs = colleague.get_by_test_id("stMain")
    expect(theirs.get_by_role("tab", name="Pairs")).to_have_attribute("aria-selected", "true")
    expect(theirs.get_by_label("Minimum shared items per pair", exact=True)).to_have_value("5")
    expect(theirs.get_by_text("share fewer than 5 items").first).to_be_visible()
    wait_for_drawn(colleague)
    colleague.screenshot(path=str(artifacts / "settings_in_link_agreement.png"))
    colleague.context.close()


def test_a_link_with_a_value_a_setting_cannot_take_opens_the_default(page: Page, app_url):
    main = open_screen(page, app_url, "agreement", **{"agreement.n_boot": "999999999",
                                                      "agreement.level": "<b>x</b>"})
    expect(main.get_by_label("Bootstrap replicates", exact=True)).to_have_value("1000")
    expect(page).not_to_have_url(re.compile(r"agreement\.n_boot"))  # dropped from the address
    expect(main.get_by_text("Something went wrong")).to_have_count(0)


def test_a_reload_opens_the_same_sample_with_the_same_settings(page: Page, app_url):
    """The address names a sample other than the default (``?dataset=ratings``) beside the
    settings, so a reload (a new session) or a bookmark opens that sample with them."""
    main = open_screen(page, app_url, "certainty")
    wait_for_drawn(page)
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").click()
    rerun(page, page.get_by_role("option", name="Acceptability ratings (ordinal 1-5)").first.click)
    expect(page.get_by_test_id("stSidebar").get_by_text("In use: ratings")).to_be_visible()
    expect(page).to_have_url(re.compile(r"dataset=ratings"))
    box = main.get_by_label("Prior weight per label", exact=True)
    box.fill("0.5")
    rerun(page, lambda: box.press("Enter"))
    expect(page).to_have_url(re.compile(r"certainty\.prior=0\.5"))

    page.reload()
    expect(page.get_by_test_id("stSidebar").get_by_text("In use: ratings")).to_be_visible()
    expect(main.get_by_label("Prior weight per label", exact=True)).to_have_value("0.5000")
