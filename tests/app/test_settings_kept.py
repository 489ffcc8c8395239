"""A user's settings survive a look at another page: change a setting, open the Glossary,
come back, and the page shows the setting as it was left (Streamlit used to reset every
widget of a page that was not drawn to its default)."""

from __future__ import annotations

import pytest

from hlv_ui.auth import DESK_KEY

from .conftest import open_page

GLOSSARY = "pages/glossary/page.py"


def _away_and_back(at, page: str):
    at.switch_page(GLOSSARY).run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page(f"pages/{page}/page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _set(at, kind: str, key: str, value):
    widget = getattr(at, kind)(key=key)
    (widget.input(value) if kind == "text_input" else widget.set_value(value)).run()
    assert not at.exception, [e.value for e in at.exception]


# (page, tab to open or None, widget kind, key, a value other than the default)
SETTINGS = [
    ("home", None, "text_input", "home.filter", "I01"),
    ("agreement", "Pairs", "number_input", "agreement.min_shared", 5),
    ("certainty", None, "multiselect", "certainty.curve_rel", [1.0]),
    ("errors", None, "toggle", "errors.rerank", True),
    ("errors", None, "number_input", "errors.top_n", 20),
    ("soft_metrics", "Items", "slider", "soft_metrics.threshold", 0.6),
    ("soft_metrics", "Items", "selectbox", "soft_metrics.item_model", "weak"),
    ("perspectives", None, "toggle", "perspectives.extended", True),
    ("lewidi", None, "radio", "lewidi.task", "pe"),
    ("graph", None, "number_input", "graph.min_shared", 3),
]


@pytest.mark.parametrize(("page", "tab", "kind", "key", "value"), SETTINGS,
                         ids=[s[3] for s in SETTINGS])
def test_a_setting_survives_a_trip_to_the_glossary(app, page, tab, kind, key, value):
    at = open_page(app, page, "case_review")
    if tab is not None:
        at.session_state[f"{page}.tab"] = tab
        at.run()
    default = getattr(at, kind)(key=key).value
    assert default != value
    _set(at, kind, key, value)
    _away_and_back(at, page)
    assert getattr(at, kind)(key=key).value == value  # the tab, too, is the one left open


def test_a_setting_in_a_closed_tab_survives_the_tab_being_closed(app):
    at = open_page(app, "soft_metrics", "case_review")
    at.session_state["soft_metrics.tab"] = "Items"
    at.run()
    _set(at, "slider", "soft_metrics.threshold", 0.65)
    at.session_state["soft_metrics.tab"] = "Classes"  # the Items tab does not run now
    at.run()
    assert "soft_metrics.threshold" not in [w.key for w in at.slider]
    at.session_state["soft_metrics.tab"] = "Items"
    at.run()
    assert at.slider(key="soft_metrics.threshold").value == 0.65


def test_a_kept_slider_beyond_another_datasets_bounds_starts_at_its_default(app):
    at = open_page(app, "agreement", "case_review")
    at.session_state["agreement.tab"] = "Pairs"
    at.run()
    slider = at.slider(key="agreement.min_pairs")
    high = slider.max
    _set(at, "slider", "agreement.min_pairs", high)
    _switch_dataset_away(at, "agreement", "ratings")  # fewer annotators: a lower maximum
    now = at.slider(key="agreement.min_pairs")
    assert now.max < high
    assert now.value <= now.max


def _switch_dataset_away(at, page: str, sample: str):
    """Open the Glossary, switch the dataset there, come back to ``page``."""
    at.switch_page(GLOSSARY).run()
    return open_page(at, page, sample)


def test_a_setting_whose_default_follows_the_data_starts_afresh_on_other_data(app):
    at = open_page(app, "agreement", "ratings")
    default = at.selectbox(key="agreement.level").value
    other = next(v for v in at.selectbox(key="agreement.level").options if v != default)
    _set(at, "selectbox", "agreement.level", other)
    _away_and_back(at, "agreement")
    assert at.selectbox(key="agreement.level").value == other  # same data: kept
    _switch_dataset_away(at, "agreement", "case_review")
    assert at.selectbox(key="agreement.level").value == "nominal"  # the new data's default


SAMPLE_CYCLE = ["case_review", "legal_areas", "ratings", "dermatology", "case_review"]
PAGES = ["home", "soft_metrics", "certainty", "agreement", "perspectives", "graph", "explorer",
         "errors", "review", "training_lab", "lewidi"]


def _change_every_setting(at, page: str) -> int:
    """Move every number, slider, switch, text box and multi-choice of the page (in every lazy
    tab) away from its value; returns how many changed. Selectboxes and radios are left out:
    AppTest sets them by formatted label, which a format function may not map back."""
    changed = 0
    tabs = [t.label for t in at.tabs] if f"{page}.tab" in at.session_state else [None]
    for tab in tabs:
        if tab is not None:
            at.session_state[f"{page}.tab"] = tab
            at.run()
        for kind in ("number_input", "slider", "toggle", "checkbox", "text_input", "multiselect"):
            for widget in list(getattr(at, kind)):
                if not getattr(widget, "key", None) or widget.key.startswith("review.desk"):
                    continue
                if kind == "number_input":
                    top = widget.max if widget.max is not None and widget.max < 1e6 else None
                    widget.set_value(top if top is not None else (widget.value or 0) + 1)
                elif kind == "slider":
                    value = widget.value
                    widget.set_value((widget.min, widget.max) if isinstance(value, tuple)
                                     else widget.max)
                elif kind in ("toggle", "checkbox"):
                    widget.set_value(not widget.value)
                elif kind == "text_input":
                    widget.input("z")
                elif len(widget.value) > 1:
                    widget.set_value(list(widget.value)[-1:])
                else:
                    continue
                at.run()
                assert not at.exception, (kind, widget.key, [e.value for e in at.exception])
                changed += 1
    return changed


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_kept_settings_never_break_a_page_on_other_data(app, page):
    """Settings moved to their extremes on one sample are kept while the user switches the
    sample on another page; every sample then opens the page without an error."""
    changed = 0
    app.session_state[DESK_KEY] = "Ann"  # the Case review's reviewer (desk mode)
    for sample in SAMPLE_CYCLE:
        at = _switch_dataset_away(app, page, sample)  # asserts the page opened cleanly
        changed += _change_every_setting(at, page)
    assert changed > 0
