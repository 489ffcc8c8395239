"""AppTest of the Certainty page (Stutz et al.)."""

from __future__ import annotations

import base64
import json
import math

import numpy as np

from .conftest import open_page


def _values(value) -> np.ndarray:
    """Plotly JSON arrays may be binary-encoded ({"dtype", "bdata", "shape"})."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value, dtype=float)


def _traces(at) -> list:
    return [json.loads(chart.proto.spec)["data"] for chart in at.get("plotly_chart")]


def _open_tab(at, name: str):
    """Open a tab of the page (hidden tabs do not run)."""
    at.session_state["certainty.tab"] = name
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_certainty_page_counts_sample(app):
    at = open_page(app, "certainty", "case_review")
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="certainty.models").value == ["dirichlet"]
    traces = _traces(at)
    assert traces and all(len(t) > 0 for t in traces)
    metrics = [m.label for m in at.metric]
    assert any("mean top-1 certainty" in label for label in metrics)
    # the reliability slider lives in a fragment: move it to infinity -> certainty 1
    at.select_slider(key="certainty.reliability").set_value(math.inf).run()
    assert not at.exception, [e.value for e in at.exception]
    values = [m.value for m in at.metric]
    assert "1.000" in values


def test_certainty_page_dermatology_defaults(app):
    """The bundled 1,947-case ranking sample with the page's defaults (PrIRN, compact sampler,
    200 samples, six reliabilities)."""
    at = open_page(app, "certainty", "dermatology")
    assert at.multiselect(key="certainty.models").value == ["prirn"]
    per_example = _traces(at)  # histogram, 2 risk histograms
    metric = next(m for m in at.metric if "mean top-1 certainty" in m.label)
    before = metric.value
    captions = " ".join(c.value for c in at.caption)
    assert "leave-one-reader-out agreement" in captions
    # a reliability that is not on the curves: sampled on demand inside the fragment
    at.select_slider(key="certainty.reliability").set_value(500).run()
    assert not at.exception, [e.value for e in at.exception]
    after = next(m for m in at.metric if "mean top-1 certainty" in m.label).value
    assert float(after) > float(before)
    curves = _traces(_open_tab(at, "Across reliabilities"))
    curve = curves[0]
    assert {t["line"]["dash"] for t in curve} >= {"solid", "dot", "dash"}  # top-1/2/3
    certainty = np.concatenate([_values(t["y"]) for t in curve])
    assert certainty.max() == 1.0 and certainty.min() < 0.2  # 1 at infinity, low at r = 1
    # UA average overlap (depth 3) and the deterministic reference line
    _open_tab(at, "UA accuracy")
    at.radio(key="certainty.metric").set_value("ua_average_overlap").run()
    assert not at.exception, [e.value for e in at.exception]
    ua = _traces(at)[0]
    assert {t["name"].split(" · ")[0] for t in ua} >= {"derm_model_a", "derm_model_b"}
    # case view lists readers' blocks with condition names, most uncertain case first
    case_view = _traces(_open_tab(at, "Case view"))
    frames = [df.value for df in at.dataframe]
    assert any("reader" in f.columns for f in frames)
    # curves, histogram, 2 risk histograms, UA accuracy, case view
    assert len(per_example) + len(curves) + 1 + len(case_view) >= 6


def test_certainty_page_plackett_luce_on_a_ranking_upload(app, tmp_path):
    """PL (Gibbs) on 80 real dermatology cases loaded as the session's dataset (the full sample
    takes tens of seconds per reliability, see bench/RESULTS.md)."""
    from hlv_core.io import load

    from ..conftest import shared_path

    folder = shared_path("data", "dermatology_ddx")
    cases = json.loads((folder / "dermatology_selectors.json").read_text())[:80]
    path = tmp_path / "derm80_selectors.json"
    path.write_text(json.dumps(cases))
    at = app
    at.session_state["hlv.dataset"] = load(path)
    at.session_state["certainty.models"] = ["prirn", "pl"]
    at.session_state["certainty.samples"] = 100
    at.session_state["certainty.curve_rel"] = [2, 30, math.inf]
    at.switch_page("pages/certainty.py").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    _open_tab(at, "Across reliabilities")
    names = {t["name"] for t in _traces(at)[0]}
    assert any("Plackett" in n for n in names) and any("PrIRN" in n for n in names)
    captions = " ".join(c.value for c in at.caption)
    assert "PL effective sample size" in captions
    assert "integer reliabilities up to 10" in captions  # r = 30 skipped for PL only
    # the slider at a PL-only-invalid stop still shows PrIRN; the PL case view works
    _open_tab(at, "One reliability")
    at.select_slider(key="certainty.reliability").set_value(30).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len([m for m in at.metric if "mean top-1 certainty" in m.label]) == 1
    _open_tab(at, "Case view")
    at.selectbox(key="certainty.case_model").set_value("pl").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("reader" in df.value.columns for df in at.dataframe)


def test_certainty_page_multilabel_sample_warns(app):
    at = open_page(app, "certainty", "legal_areas")
    assert not at.exception
    assert at.warning, "a multilabel sample must get a warning, not an error"
