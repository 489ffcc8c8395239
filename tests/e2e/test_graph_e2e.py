"""Annotator graph in a real browser, with every request outside the app's origin blocked: the
pyvis/vis-network canvas draws inside its iframe, every annotator is a node, hovering a node
shows its tooltip, the legend is there, and the Figure 2 comparison scatter renders; then an
uploaded annotator named like markup is drawn and hovered as typed."""

from __future__ import annotations

from playwright.sync_api import Frame, Page, expect

from hlv_core.samples import load_sample

from .conftest import (
    APP_TIMEOUT_MS,
    annotations_input,
    open_screen,
    rerun,
    wait_for_app,
    wait_for_drawn,
)


def _open_graph(page: Page, app_url: str):
    main = open_screen(page, app_url, "graph")
    expect(main.get_by_role("heading", name="Signed graph")).to_be_visible()
    return main


def _network_frame(page: Page) -> Frame:
    """The iframe whose document holds the vis-network graph, once it has drawn (waits on the
    app's state and on the graph itself, never a fixed time)."""
    wait_for_app(page)
    handle = page.locator('[data-testid="stIFrame"] iframe, iframe').first.element_handle()
    frame = handle.content_frame()
    assert frame is not None, "the graph iframe has no document"
    frame.wait_for_function(
        "() => typeof network !== 'undefined' && network !== null"
        " && document.querySelector('#mynetwork canvas') !== null",
        timeout=APP_TIMEOUT_MS,
    )
    return frame


def test_graph_canvas_hover_legend_compare_scatter_and_verbatim_names_offline(offline_page, app_url, artifacts):
    page, outside = offline_page
    main = _open_graph(page, app_url)
    iframe = page.frame_locator('[data-testid="stIFrame"] iframe, iframe').first
    canvas = iframe.locator("#mynetwork canvas").first
    expect(canvas).to_be_visible()
    frame = _network_frame(page)

    # every annotator of the default sample is a node, labelled with its id
    expected = sorted(map(str, load_sample("case_review").annotator_ids))
    labels = sorted(frame.evaluate("() => nodes.get().map(n => n.label)"))
    assert labels == expected
    n_edges = frame.evaluate("() => edges.get().length")
    assert n_edges > 0
    dashed = frame.evaluate("() => edges.get().filter(e => e.dashes).length")
    assert 0 < dashed < n_edges  # both + (solid) and - (dashed) edges are drawn

    # the canvas really has pixels drawn (not a blank white rectangle); vis-network draws on
    # an animation frame after it is created, so wait for the drawing rather than read once
    frame.wait_for_function(
        """() => {
            const c = document.querySelector('#mynetwork canvas');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 16) {
                if (d[i + 3] > 0 && !(d[i] > 240 && d[i + 1] > 240 && d[i + 2] > 240)) n++;
            }
            return n > 500;
        }""",
        timeout=APP_TIMEOUT_MS,
    )

    # legend inside the iframe
    legend = iframe.locator("#hlv-legend").first
    expect(legend).to_be_visible()
    expect(legend).to_contain_text("camp 0")
    expect(legend).to_contain_text("− edge")

    # hover the first node: vis-network shows its title in a tooltip
    frame.evaluate("() => network.stopSimulation()")
    wait_for_drawn(page)  # nothing drawn late above the canvas moves it after it is measured
    node_id = frame.evaluate("() => nodes.getIds()[0]")
    point = frame.evaluate(
        "(id) => { const p = network.getPositions([id])[id]; return network.canvasToDOM(p); }",
        node_id,
    )
    box = canvas.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    wait_for_app(page)
    page.mouse.move(box["x"] + point["x"] + 1, box["y"] + point["y"] + 1)
    tooltip = iframe.locator("div.vis-tooltip").first
    expect(tooltip).to_be_visible(timeout=APP_TIMEOUT_MS)
    expect(tooltip).to_contain_text("annotations:")
    expect(tooltip).to_contain_text("camp")
    main.screenshot(path=str(artifacts / "graph_page.png"))
    canvas.screenshot(path=str(artifacts / "graph_canvas_hover.png"))


    # then, on the same page, the Figure 2 comparison of the samples
    main.get_by_text("Compare datasets: α vs σ").click()
    main.get_by_text("Compute the comparison").click()
    chart = main.get_by_test_id("stPlotlyChart").filter(has_text="Figure 2").first
    expect(chart).to_be_visible()
    # one labelled point per dataset (text of the sigma trace), paper reference points too
    texts = chart.locator("g.textpoint text")
    expect(texts.filter(has_text="case_review").first).to_be_attached()
    expect(texts.filter(has_text="ratings").first).to_be_attached()
    expect(chart).to_contain_text("σ in the paper")
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(artifacts / "graph_compare_scatter.png"))

    # then an upload whose annotator is called ``<b>ann&1</b>``: drawn and hovered as exactly
    # that text, not bold, not ``&lt;b&gt;`` (escaped twice), no ``<b>`` in the tooltip
    evil = "<b>ann&1</b>"
    rows = ["item_id,annotator_id,label"]
    for item in range(6):
        for j, name in enumerate([evil, "b", "c", "d"]):
            rows.append(f'{item},"{name}",{(item + (j // 2)) % 2}')
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Overview", exact=True).click)
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    page.get_by_text("Load your own data").click()
    annotations_input(page).set_input_files(files=[{
        "name": "verbatim.csv", "mimeType": "text/csv",
        "buffer": ("\n".join(rows) + "\n").encode()}])
    expect(page.get_by_text("Loaded verbatim.csv").first).to_be_visible()
    # once the upload's run has finished (it sets the dataset in use), not during it
    rerun(page, page.get_by_test_id("stSidebarNavLink").get_by_text("Annotator graph",
                                                                     exact=True).click)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Signed graph")).to_be_visible()
    frame = _network_frame(page)
    # the graph drawn is the upload's (not the sample's graph drawn before)
    frame.wait_for_function(f"() => nodes.get().some(n => n.label === {evil!r})",
                            timeout=APP_TIMEOUT_MS)
    labels = frame.evaluate("() => nodes.get().map(n => n.label)")
    assert evil in labels and not any("&lt;" in str(x) or "&amp;" in str(x) for x in labels)
    frame.evaluate("() => network.stopSimulation()")
    wait_for_drawn(page)
    node_id = frame.evaluate(f"() => nodes.get().find(n => n.label === {evil!r}).id")
    point = frame.evaluate(
        "(id) => { const p = network.getPositions([id])[id]; return network.canvasToDOM(p); }",
        node_id)
    canvas = page.frame_locator('[data-testid="stIFrame"] iframe, iframe').first.locator(
        "#mynetwork canvas").first
    box = canvas.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    wait_for_app(page)
    page.mouse.move(box["x"] + point["x"] + 1, box["y"] + point["y"] + 1)
    tooltip = page.frame_locator('[data-testid="stIFrame"] iframe, iframe').first.locator(
        "div.vis-tooltip").first
    expect(tooltip).to_be_visible(timeout=APP_TIMEOUT_MS)
    expect(tooltip).to_contain_text(evil)  # innerText: the literal characters
    assert tooltip.locator("b").count() == 0
    canvas.screenshot(path=str(artifacts / "graph_verbatim_labels.png"))
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert outside == []
