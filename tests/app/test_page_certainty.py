"""AppTest of the Certainty page (Stutz et al.)."""

from __future__ import annotations

import base64
import json
import math

import numpy as np

from hlv_core.samples import load_sample

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
    assert at.multiselect(key="certainty.models.counts").value == ["dirichlet"]
    traces = _traces(at)
    assert traces and all(len(t) > 0 for t in traces)
    assert [m.label for m in at.metric] == ["Vote counts"]
    assert any(m.value == "**Average certainty of the top label**" for m in at.markdown)
    # the reliability slider lives in a fragment: move it to infinity -> certainty 1
    at.select_slider(key="certainty.reliability").set_value(math.inf).run()
    assert not at.exception, [e.value for e in at.exception]
    values = [m.value for m in at.metric]
    assert "1.000" in values


def test_certainty_page_dermatology_defaults(app):
    """The bundled 1,947-case ranking sample with the page's defaults (PrIRN, compact sampler,
    200 samples, six reliabilities)."""
    at = open_page(app, "certainty", "dermatology")
    assert at.multiselect(key="certainty.models.ranking").value == ["prirn"]
    per_example = _traces(at)  # histogram, 2 risk histograms
    metric = next(m for m in at.metric if m.label == "Ranked votes (paper's rule)")
    before = metric.value
    captions = " ".join(c.value for c in at.caption)
    assert "leave-one-reader-out agreement" in captions
    # a reliability that is not on the curves: sampled on demand inside the fragment
    at.select_slider(key="certainty.reliability").set_value(500).run()
    assert not at.exception, [e.value for e in at.exception]
    after = next(m for m in at.metric if m.label == "Ranked votes (paper's rule)").value
    assert float(after) > float(before)
    curves = _traces(_open_tab(at, "Across reliabilities"))
    curve = curves[0]
    assert {t["line"]["dash"] for t in curve} >= {"solid", "dot", "dash"}  # top-1/2/3
    certainty = np.concatenate([_values(t["y"]) for t in curve])
    # 1 at infinity by construction: not drawn; low at r = 1
    assert certainty.max() < 1.0 and certainty.min() < 0.2
    xs = np.concatenate([_values(t["x"]) for t in curve])
    assert np.isfinite(xs).all() and xs.max() == 50
    # UA average overlap (depth 3) and the deterministic reference line
    _open_tab(at, "Model accuracy")
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
    at.session_state["certainty.models.ranking"] = ["prirn", "pl"]
    at.session_state["certainty.samples"] = 100
    at.session_state["certainty.curve_rel"] = [2, 30, math.inf]
    at.switch_page("pages/certainty/page.py").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    _open_tab(at, "Across reliabilities")
    names = {t["name"] for t in _traces(at)[0]}
    assert any("Plackett" in n for n in names) and any("Ranked votes" in n for n in names)
    captions = " ".join(c.value for c in at.caption)
    assert "PL effective sample size" in captions
    assert "whole-number reliabilities up to 10" in captions  # r = 30 skipped for PL only
    # the slider at a PL-only-invalid stop still shows PrIRN; the PL case view works
    _open_tab(at, "One reliability")
    at.select_slider(key="certainty.reliability").set_value(30).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.label for m in at.metric] == ["Ranked votes (paper's rule)"]  # not Plackett-Luce
    _open_tab(at, "Case view")
    at.selectbox(key="certainty.case_model").set_value("pl").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("reader" in df.value.columns for df in at.dataframe)


def test_certainty_page_multilabel_sample_warns(app):
    at = open_page(app, "certainty", "legal_areas")
    assert not at.exception
    assert at.warning, "a multilabel sample must get a warning, not an error"


# ------------------------------------------------------------------ plain words, charts
def _small_dataset(labels=("0", "1")):
    """Six cases, four annotators, the given labels (binary by default): a tiny upload."""
    from hlv_core.io import load

    rng = np.random.default_rng(3)
    rows = ["item_id,annotator_id,label"] + [
        f"case{i},a{j},{labels[int(rng.random() < 0.3 + 0.1 * i)]}"
        for i in range(6) for j in range(4)]
    return load(("\n".join(rows) + "\n").encode(), name="tiny.csv")


def _layouts(at) -> list:
    return [json.loads(chart.proto.spec)["layout"] for chart in at.get("plotly_chart")]


def _axis_title(layout: dict, axis: str) -> str:
    title = layout.get(axis, {}).get("title", {})
    return title.get("text", "") if isinstance(title, dict) else str(title)


def _open_with(app, dataset, predictions=None):
    at = app
    at.session_state["hlv.dataset"] = dataset
    if predictions is not None:
        at.session_state["hlv.predictions"] = predictions
    at.switch_page("pages/certainty/page.py").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_plain_model_names_and_explanations(app):
    """Technical names (PrIRN, prior a0, Gamma(1, 1), burn-in) only one click deeper."""
    at = open_page(app, "certainty", "dermatology")
    select = at.multiselect(key="certainty.models.ranking")
    assert select.label == "How the annotations are combined"
    shown = list(select.options)  # AppTest lists the labels shown
    assert shown == ["Ranked votes (paper's rule)", "Ranked votes (released code's rule)",
                     "Full rankings (Plackett-Luce)"]
    assert at.number_input(key="certainty.prior").label == "Prior weight per label"
    deeper = {c.value for e in at.expander for c in e.caption}
    outside = " ".join(c.value for c in at.main.caption if c.value not in deeper) + " ".join(
        m.label for m in at.metric)
    for jargon in ("PrIRN", "Gamma(1, 1)", "burn-in", "prior a0"):
        assert jargon not in outside
    technical = next(e for e in at.expander if e.label == "How the models work (technical)")
    text = " ".join(m.value for m in technical.markdown)
    assert "PrIRN" in text and "Gamma(1, 1)" in text and "100 burn-in" in text
    labels = [e.label for e in at.expander]
    assert "What do these mean?" in labels  # certainty + reliability explained in plain words
    glossary = " ".join(m.value for m in at.markdown)
    assert "Annotation certainty" in glossary and "Reliability" in glossary


def test_case_view_labels_are_categories_and_axes_titled(app):
    """Labels 0/1 are categories (no -0.5 / 0.5 ticks); every plot has axis titles; counts
    have whole-number ticks; nothing 1 by construction is drawn."""
    at = _open_with(app, _small_dataset())
    histogram, ordered = _layouts(at)  # per-case histogram (6 cases), the cases sorted
    for layout in (histogram, ordered):
        assert _axis_title(layout, "xaxis") and _axis_title(layout, "yaxis")
    assert histogram["yaxis"]["dtick"] == 1 and histogram["yaxis"]["tickformat"] == ",d"
    assert _axis_title(ordered, "xaxis") == "cases, sorted by Vote counts"
    assert list(ordered["yaxis"]["range"]) == [0, 1.02]
    _open_tab(at, "Across reliabilities")
    curves = _traces(at)[0]
    assert all(np.isfinite(_values(t["x"])).all() for t in curves)  # no ∞ point
    assert {t["name"] for t in curves} == {"Vote counts, top-1"}  # K = 2: top-2 is always 1
    _open_tab(at, "Case view")
    layout = _layouts(at)[0]
    assert layout["xaxis"]["type"] == "category"
    assert _axis_title(layout, "xaxis") == "label" and _axis_title(layout, "yaxis")
    bars = _traces(at)[0][0]
    assert set(bars["x"]) == {"0", "1"}


def test_model_accuracy_without_predictions_says_how_to_get_them(app):
    dataset = _small_dataset()
    at = _open_with(app, dataset)
    _open_tab(at, "Model accuracy")
    assert any("needs model predictions" in i.value for i in at.info)
    links = {link.proto.label: link.proto.page for link in at.get("page_link")}
    assert links["Upload predictions on the Overview"] == "home"
    assert links["Train models in the Training lab"] in ("training_lab", "training-lab")


def test_user_strings_verbatim_and_one_colour_per_model(app):
    """A label and a model named with HTML tags are shown as typed (escaped once for plotly);
    each model keeps the session's colour."""
    import pandas as pd

    dataset = _small_dataset(labels=("<b>yes</b>", "no"))
    rows = []
    for i, item in enumerate(dataset.item_ids):
        for model, p in (("<i>m1</i>", 0.2 + 0.1 * i), ("plain", 0.5)):
            rows += [(model, item, "<b>yes</b>", p), (model, item, "no", 1 - p)]
    preds = pd.DataFrame(rows, columns=["model", "item_id", "label", "prob"])
    at = _open_with(app, dataset, preds)
    _open_tab(at, "Model accuracy")
    traces = _traces(at)[0]
    names = {t["name"] for t in traces}
    assert "&lt;i&gt;m1&lt;/i&gt; · Vote counts" in names
    colours = at.session_state["hlv.model_colours"]
    by_name = {t["name"].split(" · ")[0]: t["line"]["color"] for t in traces}
    assert by_name["&lt;i&gt;m1&lt;/i&gt;"] == colours["<i>m1</i>"]
    assert by_name["plain"] == colours["plain"] != colours["<i>m1</i>"]
    _open_tab(at, "Case view")
    assert "&lt;b&gt;yes&lt;/b&gt;" in set(_traces(at)[0][0]["x"])


def test_only_infinity_is_explained_not_drawn(app):
    """At reliability ∞ every certainty is 1 by construction: the curves tab says so instead
    of drawing a flat line, and the one-reliability tab says why every case is at 1."""
    at = open_page(app, "certainty", "case_review")
    at.session_state["certainty.curve_rel"] = [math.inf]
    at.run()
    at.select_slider(key="certainty.reliability").set_value(math.inf).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("1 by construction" in c.value for c in at.caption)
    _open_tab(at, "Across reliabilities")
    assert any("Only reliability ∞ is chosen" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_switching_from_a_ranked_to_a_counts_dataset_keeps_a_model_chosen(app):
    """Dermatology (ranked) then the ratings sample on the same page: the counts family starts
    from its default instead of an empty selection ("Choose at least one way...")."""
    at = open_page(app, "certainty", "dermatology")
    at.session_state["certainty.models.ranking"] = ["pl"]
    at.session_state["hlv.dataset"] = load_sample("ratings")
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="certainty.models.counts").value == ["dirichlet"]
    assert not any("Choose at least one way" in i.value for i in at.info)


def test_model_accuracy_spread_over_cases_and_draws(app):
    """Stutz et al., Figure 7 (middle, right): at one reliability, each case's UA accuracy
    sorted and the dataset value of every draw as a histogram; both views agree with the curve
    above (their means are its point) and come as CSV."""
    import pandas as pd

    dataset = _small_dataset()
    rows = []
    for i, item in enumerate(dataset.item_ids):
        for model, p in (("<i>m1</i>", 0.2 + 0.1 * i), ("plain", 0.6)):
            rows += [(model, item, "1", p), (model, item, "0", 1 - p)]
    at = _open_with(app, dataset, pd.DataFrame(rows, columns=["model", "item_id", "label",
                                                              "prob"]))
    _open_tab(at, "Model accuracy")
    slider = at.select_slider(key="certainty.spread_rel")
    at = slider.set_value(1.0).run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    curve, cases, draws = _traces(at)[:3]
    at_one = {t["name"]: _values(t["y"])[list(_values(t["x"])).index(1.0)] for t in curve}
    n_samples = at.select_slider(key="certainty.samples").value
    assert {t["name"] for t in cases} == {t["name"] for t in draws} == set(at_one)
    for t in cases:
        y = _values(t["y"])
        assert y.size == dataset.n_items and np.all(np.diff(y) >= 0)
        assert abs(y.mean() - at_one[t["name"]]) < 1e-12
    for t in draws:
        x = _values(t["x"])
        assert x.size == n_samples and abs(x.mean() - at_one[t["name"]]) < 1e-12
    names = {b.proto.label for b in at.get("download_button")}
    assert {"Download the values per case (CSV)", "Download the values per draw (CSV)"} <= names


def test_sorted_cases_keep_the_first_models_case_order():
    """Stutz et al., Figure 7, left: the cases sorted by the first model's certainty, the
    second model drawn in that same case order (not sorted on its own)."""
    import pandas as pd

    from pages.certainty.figures import sorted_cases_figure

    per_case = pd.DataFrame({
        "model": ["pl"] * 4 + ["prirn"] * 4, "case": [0, 1, 2, 3] * 2,
        "certainty_top1": [0.9, 0.2, 0.5, 0.2, 0.1, 0.8, 0.4, 0.3]})
    first, second = json.loads(sorted_cases_figure(per_case, "certainty_top1", "c").to_json())[
        "data"]
    assert list(_values(first["y"])) == [0.2, 0.2, 0.5, 0.9]  # cases 1, 3, 2, 0
    assert list(_values(second["y"])) == [0.8, 0.3, 0.4, 0.1]
    assert list(_values(first["x"])) == [1, 2, 3, 4]
