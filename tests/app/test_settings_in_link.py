"""A page's settings travel in its address: a link (or a reload, a bookmark) that carries
``?<setting key>=<value>`` opens the page with that setting, and a value the setting cannot
take is ignored, never an error (``hlv_ui.widgets.SETTING``: Streamlit's query-parameter
binding). The browser side (the address follows a change) is ``tests/e2e/test_settings_kept_e2e.py``."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from .conftest import APP, open_page

# (page, widget kind, key, value(s) as the address spells them, the value the page then has);
# a tab is opened by its own key (``<page>.tab``), which is a setting too
LINKS = [
    ("home", "text_input", "home.filter", "I01", "I01"),
    ("agreement", "number_input", "agreement.min_shared", "5", 5),
    ("agreement", "selectbox", "agreement.level", "interval", "interval"),
    ("certainty", "multiselect", "certainty.curve_rel", ["1", "∞ (full trust)"],
     [1.0, float("inf")]),
    ("errors", "toggle", "errors.rerank", "true", True),
    ("errors", "number_input", "errors.top_n", "20", 20),
    ("soft_metrics", "slider", "soft_metrics.threshold", "0.6", 0.6),
    ("soft_metrics", "selectbox", "soft_metrics.item_model", "weak", "weak"),
    ("perspectives", "toggle", "perspectives.extended", "true", True),
    ("lewidi", "radio", "lewidi.task", "Task B: perspectivist (each annotator)", "pe"),
    ("graph", "number_input", "graph.min_shared", "3", 3),
]
TABS = {"agreement.min_shared": ("agreement.tab", "Pairs"),
        "soft_metrics.threshold": ("soft_metrics.tab", "Items"),
        "soft_metrics.item_model": ("soft_metrics.tab", "Items")}


def _opened_by_link(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    at.session_state["app.source"] = "case_review"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return open_page(at, page)


@pytest.mark.parametrize(("page", "kind", "key", "in_address", "value"), LINKS,
                         ids=[link[2] for link in LINKS])
def test_a_link_opens_the_page_with_its_settings(page, kind, key, in_address, value):
    params = {key: in_address}
    if key in TABS:
        params[TABS[key][0]] = TABS[key][1]
    plain = _opened_by_link(page, {TABS[key][0]: TABS[key][1]} if key in TABS else {})
    assert getattr(plain, kind)(key=key).value != value  # the link changes something
    linked = _opened_by_link(page, params)
    assert getattr(linked, kind)(key=key).value == value


@pytest.mark.parametrize(("page", "params", "kind", "key"), [
    ("agreement", {"agreement.level": "<b>bogus</b>"}, "selectbox", "agreement.level"),
    ("agreement", {"agreement.n_boot": "1000000000"}, "number_input", "agreement.n_boot"),
    ("agreement", {"agreement.n_boot": "ten"}, "number_input", "agreement.n_boot"),
    ("soft_metrics", {"soft_metrics.threshold": "7", "soft_metrics.tab": "Items"}, "slider",
     "soft_metrics.threshold"),
    ("errors", {"errors.rerank": "maybe"}, "toggle", "errors.rerank"),
    ("agreement", {"agreement.tab": "No such tab"}, None, None),
], ids=["option", "too-big", "not-a-number", "out-of-range", "not-a-bool", "tab"])
def test_a_value_a_setting_cannot_take_is_ignored(page, params, kind, key):
    plain = _opened_by_link(page, {k: v for k, v in params.items() if k.endswith(".tab")})
    linked = _opened_by_link(page, params)  # no exception (checked inside)
    if kind is not None:
        assert getattr(linked, kind)(key=key).value == getattr(plain, kind)(key=key).value
