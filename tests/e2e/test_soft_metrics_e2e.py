"""A person opens "Soft vs hard metrics" and sees the metrics table and the charts (human metric
names, legend below the plot, the item drill-down), then the explainer and the simulator, then
"Against the human pool": the human ceiling beside the model, the alternative annotator test
with its baseline and curve, and calibration to humans (reliability diagram, DistCE
histogram)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from hlv_core.samples import load_sample

from .conftest import open_screen, rerun, wait_for_app


def _settled_at_most(page: Page, plot, measure: str, limit: float) -> float:
    """``measure`` (JS, a function of the figure's element) once it is at most ``limit``, or
    its value when the wait runs out: Plotly redraws after the app's run has ended (e.g. when it
    fits the margins), so one measurement can catch the figure before its final layout."""
    wait_for_app(page)
    with contextlib.suppress(PlaywrightTimeoutError):  # then the assertion says by how much
        page.wait_for_function(f"p => p.isConnected && ({measure})(p) <= {limit}",
                               arg=plot.element_handle())
    return plot.evaluate(measure)


def test_soft_metrics_page_shows_table_and_chart(page: Page, app_url: str, artifacts):
    main = open_screen(page, app_url, "soft-metrics")
    expect(main.get_by_text("All metrics, every model").first).to_be_visible()
    expect(main.get_by_test_id("stDataFrame").first).to_be_visible()
    rank_plot = main.locator(".js-plotly-plot").filter(has_text="Rank of each model").first
    expect(rank_plot).to_be_visible()
    # human metric names on the axis, a horizontal legend with every model, nothing clipped
    expect(rank_plot.locator(".xtick").filter(has_text="Soft accuracy").first).to_be_attached()
    expect(rank_plot.locator(".xtick").filter(has_text="soft_accuracy")).to_have_count(0)
    expect(rank_plot.locator(".legend .traces")).to_have_count(3)
    # both boxes measured in one script: two separate measurements could straddle a re-layout
    # above the chart (the page moving down between them)
    legend_overhang = _settled_at_most(
        page, rank_plot, "plot => plot.querySelector('.legend').getBoundingClientRect().bottom"
        " - plot.getBoundingClientRect().bottom", 1)
    assert legend_overhang <= 1, f"the legend ends {legend_overhang:.0f} px below the figure"
    # the plain-words explanation opens one click deeper
    main.get_by_text("What do these mean?").first.click()
    expect(main.get_by_text("How to read it:").first).to_be_visible()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "soft_metrics_models.png"))
    rank_plot.scroll_into_view_if_needed()
    rank_plot.screenshot(path=str(artifacts / "soft_metrics_rank_plot.png"))

    page.get_by_role("tab", name="Items").click()
    expect(main.get_by_text("Item drill-down").first).to_be_visible()
    expect(main.locator(".js-plotly-plot").filter(has_text="Human judgements vs model").first
           ).to_be_visible()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "soft_metrics_items.png"))
    drill = main.locator(".js-plotly-plot").filter(has_text="Human judgements vs model").first
    drill.scroll_into_view_if_needed()
    drill.screenshot(path=str(artifacts / "soft_metrics_item_drilldown.png"))
    scatter = main.locator(".js-plotly-plot").filter(has_text="Per-item soft overlap").first
    scatter.scroll_into_view_if_needed()
    scatter.screenshot(path=str(artifacts / "soft_metrics_item_scatter.png"))
    page.get_by_role("tab", name="Classes").click()
    classes = main.locator(".js-plotly-plot").filter(has_text="Class-wise soft").first
    expect(classes).to_be_visible()
    wait_for_app(page)
    classes.screenshot(path=str(artifacts / "soft_metrics_classes.png"))

    page.get_by_role("tab", name="Figure 1 explainer").click()
    expect(main.get_by_text("Soft accuracy", exact=True).first).to_be_visible()
    expect(main.get_by_test_id("stMetricValue").filter(has_text="0.7000").first).to_be_visible()
    # the button is drawn by the tab's run: click it once that run has finished
    rerun(page, page.get_by_role("tab", name="Table 2 simulator").click)
    page.get_by_role("button", name="Run simulation").click()
    expect(main.get_by_text("K=10, α=10, β=10, B=500, rows=1000, seed 0").first).to_be_visible()
    expect(main.locator(".js-plotly-plot").filter(has_text="Correlation across pairs").first
           ).to_be_visible()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "soft_metrics_simulator.png"))

    # the models against the human pool: ceiling, replace-an-annotator, calibration
    page.get_by_role("tab", name="Against the human pool").click()
    ceiling = main.locator(".js-plotly-plot").filter(has_text="Every annotator against").first
    expect(ceiling).to_be_visible()
    expect(main.get_by_text("zero entropy").first).to_be_attached()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "judge_ceiling.png"))
    ceiling.scroll_into_view_if_needed()
    ceiling.screenshot(path=str(artifacts / "judge_ceiling_plot.png"))

    main.get_by_text("Can the model replace an annotator?").first.click()
    curve = main.locator(".js-plotly-plot").filter(has_text="Winning rate versus epsilon").first
    expect(curve).to_be_visible()
    expect(main.get_by_text("constant majority (baseline)").first).to_be_attached()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "judge_alt_test.png"))
    curve.scroll_into_view_if_needed()
    curve.screenshot(path=str(artifacts / "judge_alt_test_curve.png"))

    main.get_by_text("Calibration to humans").first.click()
    diagram = main.locator(".js-plotly-plot").filter(has_text="Reliability diagram").first
    expect(diagram).to_be_visible()
    expect(main.locator(".js-plotly-plot").filter(has_text="DistCE per item").first
           ).to_be_visible()
    wait_for_app(page)
    main.screenshot(path=str(artifacts / "judge_calibration.png"))
    diagram.scroll_into_view_if_needed()
    diagram.screenshot(path=str(artifacts / "judge_reliability.png"))


def _many_models_csv(n_models: int) -> bytes:
    """Predictions of ``n_models`` random models (one named ``<b>bold</b>``) on case_review."""
    dataset = load_sample("case_review")
    rng = np.random.default_rng(0)
    names = [f"model {k:02d}" for k in range(1, n_models)] + ["<b>bold</b>"]
    rows = ["item_id,label,prob,model"]
    for name in names:
        probs = rng.dirichlet(np.ones(len(dataset.labels)), size=dataset.n_items)
        for item, row in zip(dataset.item_ids, probs, strict=True):
            row = np.round(row, 6)
            row[-1] = round(1 - row[:-1].sum(), 6)
            rows += [f"{item},{label},{p:.6f},{name}" for label, p in
                     zip(dataset.labels, row, strict=True)]
    return "\n".join(rows).encode()


@pytest.mark.slow
def test_many_models_rank_grid_names_verbatim(page: Page, app_url: str, artifacts):
    """15 uploaded models + 3 bundled: past six models the rank chart is a grid with one row per
    model (a line chart's legend of 18 would be unreadable), every row named by its model in the
    model's colour, inside the figure, and a model named <b>bold</b> shows as typed."""
    main = open_screen(page, app_url, "soft-metrics")
    expect(main.get_by_text("All metrics, every model").first).to_be_visible()
    uploader = (main.get_by_test_id("stFileUploader").filter(has_text="Add predictions")
                .get_by_test_id("stFileUploaderDropzoneInput"))
    uploader.set_input_files(files=[{"name": "many.csv", "mimeType": "text/csv",
                                     "buffer": _many_models_csv(15)}])
    expect(main.get_by_text("Added predictions of 15 model(s)").first).to_be_visible()
    rank_plot = main.locator(".js-plotly-plot").filter(has_text="Rank of each model").first
    rows = rank_plot.locator(".ytick text")
    expect(rows).to_have_count(18)
    expect(rank_plot.locator(".ytick").get_by_text("<b>bold</b>", exact=False)).to_have_count(1)
    # measured in one script, so a re-layout cannot fall between the figure's box and a name's
    names_overhang = _settled_at_most(
        page, rank_plot, "plot => plot.getBoundingClientRect().left - Math.min(...[...plot"
        ".querySelectorAll('.ytick text')].map(t => t.getBoundingClientRect().left))", 1)
    assert names_overhang <= 1, "a model name is cut at the figure's left edge"
    colours = rank_plot.locator(".ytick text tspan[style]").evaluate_all(
        "els => els.map(e => e.getAttribute('style'))")
    assert len(set(colours)) == 18
    rank_plot.scroll_into_view_if_needed()
    wait_for_app(page)
    rank_plot.screenshot(path=str(artifacts / "soft_metrics_rank_plot_18_models.png"))
