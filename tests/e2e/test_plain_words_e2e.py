"""In a real browser: concepts are explained where they appear (a plain caption,
then "What do these mean?" one click deeper), the Glossary is one click further, and no page
speaks in internal labels such as "seed 002"."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import open_screen, rerun, wait_for_drawn

PAGES = ["Overview", "Soft vs hard metrics", "Certainty", "Agreement", "Perspectives",
         "Annotator graph", "Items and annotators", "Case review", "Training lab",
         "LeWiDi scorer", "Glossary"]


def test_explanations_glossary_and_no_page_speaks_in_seed_numbers(page: Page, app_url: str, artifacts):
    main = open_screen(page, app_url, "agreement")
    expect(main.get_by_role("heading", name="Agreement").first).to_be_visible()
    expander = main.get_by_test_id("stExpander").filter(has_text="What do these mean?").first
    # plain words first, the reading and the formula only after one click
    expect(main.get_by_text("Agreement among annotators beyond what chance would give").first
           ).to_be_visible()
    reading = expander.get_by_text("How to read it").first
    expect(reading).to_be_hidden()
    wait_for_drawn(page)  # what is drawn late first: it may redraw the page around the link
    expander.get_by_text("What do these mean?").click()
    expect(reading).to_be_visible()
    expander.screenshot(path=str(artifacts / "plain_words_expander.png"))
    rerun(page, expander.get_by_text("All terms in the Glossary").click)
    expect(main.get_by_role("heading", name="Glossary")).to_be_visible()
    expect(main.get_by_text("Systematicity (sigma)").first).to_be_visible()
    main.get_by_role("textbox", name="Find a term").fill("certainty")
    rerun(page, lambda: main.get_by_role("textbox", name="Find a term").press("Enter"))
    expect(main.get_by_text("Annotation certainty").first).to_be_visible()
    expect(main.get_by_text("Systematicity (sigma)")).to_have_count(0)
    page.screenshot(path=str(artifacts / "glossary.png"), full_page=True)

    # then every page, in the same session: none speaks in internal labels ("seed 002")
    internal = re.compile(r"\bseed[ -]?00\d\b", re.IGNORECASE)
    for title in PAGES:
        # the page before stays drawn until the new run starts: wait for the new page's run
        rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text(title, exact=True).click)
        main = page.get_by_test_id("stMain")
        expect(main.locator("h1").first).to_be_visible()
        text = main.inner_text()
        assert not internal.search(text), (title, internal.search(text).group(0))
        expect(page.get_by_test_id("stException")).to_have_count(0)
