"""Agreement page in a real browser: the pairwise alpha heatmap renders (plotly), clicking a cell
or choosing two annotators lists where that pair disagreed; nothing leaves the app's origin."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from hlv_core.agreement import pair_disagreements, pairwise_alpha
from hlv_core.samples import load_sample

from .conftest import open_screen, rerun, wait_for_app, wait_for_drawn


def _open_pairs_tab(page: Page, app_url: str):
    main = open_screen(page, app_url, "agreement")
    expect(main.get_by_text("Krippendorff's α (nominal)").first).to_be_visible()
    main.get_by_role("tab", name="Pairs").click()
    heat = main.get_by_test_id("stPlotlyChart").filter(has_text="hierarchical clustering").first
    expect(heat).to_be_visible()
    return main, heat


def _selected_pair(main) -> tuple[str, str, int]:
    text = main.get_by_text(re.compile(r"share \d+ items; α = .* disagree on \d+ items")).first
    expect(text).to_be_visible()
    m = re.search(r"(\S+) and (\S+) share \d+ items; .*disagree on (\d+) items",
                  text.inner_text())
    assert m, text.inner_text()
    return m.group(1), m.group(2), int(m.group(3))


def test_heatmap_renders_a_cell_click_and_the_selectboxes_choose_the_pair(offline_page, app_url, artifacts):
    page, outside = offline_page
    main, heat = _open_pairs_tab(page, app_url)
    annotations = load_sample("case_review").annotations
    ids = sorted(annotations["annotator_id"].unique())

    # plotly drew the heatmap: an image layer plus one tick label per annotator on each axis
    expect(heat.locator("g.hm image, .heatmaplayer image").first).to_be_attached()
    # every tick drawn before they are read (a crowded axis is drawn thinned, then redrawn)
    expect(heat.locator("g.xtick text")).to_have_count(len(ids))
    wait_for_app(page)
    ticks = heat.locator("g.xtick text").all_text_contents()
    assert sorted(ticks) == ids
    heat.scroll_into_view_if_needed()
    wait_for_app(page)
    heat.screenshot(path=str(artifacts / "agreement_heatmap.png"))

    # the default pair (lowest alpha) is listed with its disagreements
    a, b, n = _selected_pair(main)
    assert n == len(pair_disagreements(annotations, a, b))

    # clicking a heatmap cell selects that pair
    a0, b0 = a, b
    heat.scroll_into_view_if_needed()
    wait_for_drawn(page)  # nothing drawn late above the heatmap moves it after it is measured
    box = heat.locator("rect.nsewdrag").first.bounding_box()
    assert box is not None
    # the top-left cell is (y0, x0) = an annotator with itself (blank); click row 0, column 1
    cell_w, cell_h = box["width"] / len(ticks), box["height"] / len(ticks)
    page.mouse.click(box["x"] + 1.5 * cell_w, box["y"] + 0.5 * cell_h)
    # rows and columns share one order (the y axis is reversed: row 0 is at the top); the
    # ticks read before the click (the click's run redraws the heatmap)
    want = (ticks[0], ticks[1])
    expect(main.get_by_text(f"{want[0]} and {want[1]} share").first).to_be_visible()
    a1, b1, n1 = _selected_pair(main)
    assert (a1, b1) == want != (a0, b0)
    # the pickers are keyed by the pair shown: until the click's run ends the old and the new
    # "Annotator A" picker are both on the page (CI once clicked into that moment)
    wait_for_app(page)

    # choose another pair with the two selectboxes
    pairs = pairwise_alpha(annotations).dropna(subset=["alpha"]).sort_values("alpha")
    target = pairs.iloc[-1]  # the most agreeing pair: certainly not the default
    for label, value, now in (("Annotator A", target["annotator_a"], a1),
                              ("Annotator B", target["annotator_b"], b1)):
        if value == now:
            continue  # already chosen: a pick would start no run
        main.get_by_test_id("stSelectbox").filter(has_text=label).click()
        page.keyboard.type(value)
        rerun(page, lambda: page.keyboard.press("Enter"))  # each pick's run before the next
    expected = pair_disagreements(annotations, target["annotator_a"], target["annotator_b"])
    expect(main.get_by_text(
        f"{target['annotator_a']} and {target['annotator_b']} share").first
    ).to_be_visible()
    a2, b2, n2 = _selected_pair(main)
    assert (a2, b2) == (target["annotator_a"], target["annotator_b"])
    assert n2 == len(expected) > 0
    # the table of disagreements lists those items (first rows visible in the grid)
    table = main.get_by_test_id("stDataFrame").filter(visible=True).last  # other tabs hold tables too
    expect(table).to_be_visible()
    table.scroll_into_view_if_needed()
    wait_for_app(page)
    main.get_by_text("Where a pair disagreed").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "agreement_pair_disagreements.png"))

    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert outside == [], f"requests left the app origin: {outside[:5]}"
