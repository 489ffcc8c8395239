"""The disagreement report (hlv_core.report): the numbers are the engine's, sections that do not
apply say why, the HTML references nothing outside itself, and every user string is text."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from hlv_core import balance
from hlv_core.agreement import alpha_from_counts, alpha_report
from hlv_core.io import load
from hlv_core.levels import level_options
from hlv_core.report import ReportSettings, build_report, esc, report_sections
from hlv_core.samples import load_sample
from hlv_core.scoring import score_models

from .conftest import shared_path

EVIL = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
BOLD = "<b>bold</b>"
BIDI = "abc\u202edef"
FIXED = "2026-01-01 00:00 UTC"


def _outside_plotly(html: str) -> str:
    """The document without the inlined plotly.js bundle (which holds URL strings of map tiles
    and attributions in its code; it requests none of them for bar charts and heatmaps)."""
    return re.sub(r'<script id="plotly-js">.*?</script>', "", html, flags=re.S)


@pytest.fixture(scope="module")
def case_review():
    return load_sample("case_review")


@pytest.fixture(scope="module")
def case_review_report(case_review):
    return build_report(case_review, generated=FIXED)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A canonical folder whose every user string is markup: labels, annotator ids (one with a
    right-to-left override), item texts, trait values and a model name."""
    folder = tmp_path_factory.mktemp("hostile")
    labels = [BOLD, EVIL, "plain"]
    annotators = [IMG, BIDI, "ann_c", "ann_d"]
    rng = np.random.default_rng(0)
    rows = [{"item_id": f"item_{i}{'<i>' if i == 0 else ''}", "annotator_id": a,
             "label": labels[int(rng.integers(0, 3))]}
            for i in range(12) for a in annotators]
    pd.DataFrame(rows).to_csv(folder / "annotations.csv", index=False)
    items = sorted({r["item_id"] for r in rows})
    pd.DataFrame({"item_id": items, "text": [f"text {EVIL} {i}" for i in items]}).to_csv(
        folder / "items.csv", index=False)
    pd.DataFrame({"annotator_id": annotators, "group": [EVIL, EVIL, "b", "b"]}).to_csv(
        folder / "annotators.csv", index=False)
    preds = [{"model": EVIL, "item_id": i, "label": lab, "prob": p}
             for i in items for lab, p in zip(labels, (0.5, 0.3, 0.2), strict=True)]
    pd.DataFrame(preds).to_csv(folder / "predictions.csv", index=False)
    return load(folder, name=f"dataset {EVIL}")


# ------------------------------------------------------------------------------- content
def test_every_section_applies_to_case_review(case_review):
    sections = report_sections(case_review, generated=FIXED)
    assert [s.key for s in sections] == ["overview", "labels", "agreement", "pairs", "sigma",
                                         "items", "certainty", "scores", "human_pool", "signal",
                                         "about"]
    assert all(s.applies for s in sections), [s.key for s in sections if not s.applies]
    assert sum(s.figures for s in sections) == 3


def test_numbers_are_the_engines(case_review, case_review_report):
    """alpha, its CI, sigma and a model score in the report equal the engine functions' values
    (the functions the Agreement and Annotator graph pages and the CLI call)."""
    html = case_review_report
    opts = level_options(case_review)
    rep = alpha_report(case_review.annotations, level=opts.default, n_boot=1000, seed=0,
                       values=opts.values(opts.default), multilabel=opts.multilabel)
    assert f"<div class=\"value\">{rep.alpha:.3f}</div>" in html
    assert f"[{rep.ci_low:.3f}, {rep.ci_high:.3f}]" in html
    sig = balance.sigma(case_review.annotations, level="nominal", min_shared=1)
    assert f"<div class=\"value\">{sig.sigma:.3f}</div>" in html
    scores = score_models(case_review, case_review.predictions, n_boot=200, seed=0)
    soft = scores[(scores["model"] == "calibrated") & (scores["metric"] == "soft_accuracy")]
    row = soft.iloc[0]
    assert f"{row['value']:.3f} [{row['lower']:.3f}, {row['upper']:.3f}]" in html
    for label, count in case_review.label_table()[["label", "annotations"]].itertuples(
            index=False):
        assert f"<td class=\"\">{label}</td><td class=\"num\">{count:,}</td>" in html


def test_glossary_text_and_camps_against_traits(case_review_report):
    html = case_review_report
    assert "Krippendorff&#x27;s alpha</strong>: Agreement among annotators beyond" in html
    assert "Cramér's V = 1.00" in html  # the two camps are the group trait
    assert "Item case_027" in html and "lawyer_03 (claimant-side" in html


def test_sections_that_do_not_apply_say_why():
    derm = {s.key: s for s in report_sections(load_sample("dermatology"), generated=FIXED)}
    for key in ("agreement", "pairs", "sigma", "scores"):
        assert not derm[key].applies
        assert "Not applicable to this dataset.</strong> " in derm[key].body
    assert "rankings" in derm["sigma"].body
    assert derm["certainty"].applies and "PrIRN" in derm["certainty"].body
    assert "derm_model_a" in derm["certainty"].body  # UA accuracy of the bundled models
    legal = {s.key: s for s in report_sections(load_sample("legal_areas"), generated=FIXED)}
    assert not legal["certainty"].applies and "multilabel" in legal["certainty"].body
    assert legal["sigma"].applies and legal["scores"].applies
    bare = dataclasses.replace(load_sample("ratings"), predictions=None)
    scores = {s.key: s for s in report_sections(bare, generated=FIXED)}["scores"]
    assert not scores.applies and "Upload predictions on the Overview page" in scores.body
    per_annotator = load_sample("ratings").predictions.assign(annotator_id="rater_01")
    scores = {s.key: s for s in report_sections(bare, per_annotator, generated=FIXED)}["scores"]
    assert not scores.applies and "per annotator (perspectivist)" in scores.body


def test_counts_only_data_gets_the_overall_alpha():
    counts = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c", "c"],
                           "label": ["x", "y", "x", "y", "x", "y"],
                           "count": [3, 1, 0, 4, 2, 2]})
    dataset = load(counts.to_csv(index=False).encode(), format="counts", name="counts.csv")
    sections = {s.key: s for s in report_sections(dataset, generated=FIXED)}
    expected = alpha_from_counts(dataset.counts_array(), level="nominal")
    assert f"{expected:.3f}" in sections["agreement"].body
    assert not sections["pairs"].applies and not sections["sigma"].applies
    assert "Label counts: x: 3, y: 1" in sections["items"].body


def test_sigma_respects_the_cost_guard(case_review):
    settings = ReportSettings(max_pair_instances=10)
    sigma = {s.key: s for s in report_sections(case_review, settings=settings,
                                               generated=FIXED)}["sigma"]
    assert not sigma.applies and "cost guard refused" in sigma.body


# ------------------------------------------------------------------------------- offline
def test_report_references_nothing_outside_itself(case_review_report):
    html = case_review_report
    assert html.count('<script id="plotly-js">') == 1  # plotly.js inlined once
    rest = _outside_plotly(html)
    assert "http://" not in rest and "https://" not in rest
    assert not re.search(r"<script[^>]*\ssrc=|<link\b|<img\b|<iframe\b|@import|url\(", rest,
                         re.I)
    assert "Content-Security-Policy" in rest and "default-src 'none'" in rest
    assert re.findall(r'href="([^"]*)"', rest) and all(
        h.startswith("#") for h in re.findall(r'href="([^"]*)"', rest))


def test_no_plotly_bundle_without_figures(case_review):
    from hlv_core.report import Section, render_report

    html = render_report(case_review, [Section("x", "Only text", "<p>text</p>")])
    assert "plotly-js" not in html and "Only text" in html


# ------------------------------------------------------------------------------- escaping
def test_every_user_string_is_text(hostile):
    html = build_report(hostile, generated=FIXED)
    sections = {s.key: s for s in report_sections(hostile, generated=FIXED)}
    assert all(s.applies for s in sections.values()), [
        k for k, s in sections.items() if not s.applies]
    for raw in (EVIL, IMG, BOLD, "<i>"):
        assert raw not in html, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as text
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    # the loader's spelling rule removed the invisible bidi override from the id (reported)
    assert "\u202e" not in html and "abcdef" in html
    # plotly labels: escaped once, so the chart shows "<b>bold</b>" verbatim
    assert '"&lt;b&gt;bold&lt;\\u002fb&gt;"' in html
    assert "&amp;lt;" not in _outside_plotly(html)  # never double-escaped in the text


def test_esc_shortens_and_escapes():
    assert esc("<a>" * 10, limit=6) == "&lt;a&gt;&lt;a&gt; …"
    assert esc('"quoted"') == "&quot;quoted&quot;"


# ------------------------------------------------------------------------------- time
@pytest.mark.slow
def test_md_agreement_report():
    """MD-Agreement (10,753 items, 819 annotators): the whole report builds (its time is measured
    in bench/, never asserted here)."""
    dataset = load(shared_path("data", "md_agreement"))
    html = build_report(dataset, generated=FIXED)
    assert "0.494" in html  # Basile's sigma of MD-Agreement (paper Table 2)
    # pairs on a handful of shared items are too noisy to be listed as the most disagreeing
    table = re.search(r"sharing at least 20 items\)</h3>(.*?)</table>", html, re.S).group(1)
    shared = [int(n) for n in re.findall(r'<td class="num">(\d+)</td><td class="num">-?\d',
                                          table)]
    assert len(shared) == 10 and min(shared) >= 20


def test_report_figures_use_plotly_template_even_inside_streamlit():
    """Importing streamlit makes its placeholder-colour template plotly's default; the report
    must not carry it (offline, nothing would replace the placeholders)."""
    import plotly.io as pio
    import streamlit  # noqa: F401  (registers the "streamlit" template)

    from hlv_core.report import build_report
    from hlv_core.samples import load_sample

    previous = pio.templates.default
    pio.templates.default = "streamlit"
    try:
        html_text = build_report(load_sample("case_review"))
    finally:
        pio.templates.default = previous
    assert '"colorway":["#000001"' not in html_text
    assert '"colorway":["#636efa"' in html_text


def test_human_pool_section_when_models_are_loaded():
    from hlv_core.judging import alt_test_summary, run_alt_tests
    from hlv_core.report import report_sections
    from hlv_core.samples import sample_path

    dataset = load(sample_path("case_review"))
    sections = {s.key: s for s in report_sections(dataset)}
    pool = sections["human_pool"]
    assert pool.applies
    assert "constant majority (baseline)" in pool.body and "human ceiling" in pool.body.lower()
    summary = alt_test_summary(run_alt_tests(dataset, dataset.predictions, epsilon=0.2)[0])
    assert f"{summary['rho'].iloc[0]:.3f}" in pool.body
    bare = dataclasses.replace(dataset, predictions=None)
    assert not {s.key: s for s in report_sections(bare)}["human_pool"].applies
