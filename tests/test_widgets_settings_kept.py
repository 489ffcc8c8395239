"""Settings survive a trip to another page and travel in the page's address: every keyed input
widget the app draws is a setting (``**SETTING``: kept for the session and bound to a query
parameter), except the few listed below with the reason; and a slider's kept value outside the
bounds it is drawn with now falls back to the default."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
INPUT_WIDGETS = {"selectbox", "multiselect", "slider", "select_slider", "number_input",
                 "checkbox", "toggle", "radio", "text_input", "text_area", "segmented_control",
                 "pills"}
#: (file, key expression) -> why the widget is not kept when it is not drawn
NOT_KEPT = {
    ("app.py", "SOURCE_KEY"): "the sidebar's dataset box is drawn on every page",
    ("pages/explorer/views.py", "f'explorer.other.{other}'"): "its choice lives in the address",
    ("hlv_ui/auth.py", "f'{key}.desk_name'"): "a name typed into a form is sent on submit only",
    ("pages/errors/views.py", "f'{key}.choice'"): "a verdict form is sent on submit only",
    ("pages/errors/views.py", "f'{key}.comment'"): "a verdict form is sent on submit only",
    ("hlv_ui/library_ui.py", "f'library.confirm.{entry.id}'"): "a deletion is confirmed afresh",
    # a review case's answers: with persist_state a click on a pair's radio did not stick in
    # one browser run in four (Streamlit restoring the kept value; the case is saved per case)
    ("pages/review/round_views.py", "f'{KEY}.own_labels'"): "a review case's own labels",
    ("pages/review/round_views.py", "pair_key(k)"): "a review case's answer on a pair",
    ("pages/review/round_views.py", "f'{KEY}.comment'"): "a review case's comment",
}
#: (file, key expression) -> why the widget is kept for the session but not written into the
#: address (``persist_state=KEPT`` without ``bind``)
NOT_IN_LINK = {
    ("pages/home/upload_views.py", "'home.format'"): "describes this session's upload",
    ("pages/home/upload_views.py", "'home.task'"): "describes this session's upload",
    ("pages/home/upload_views.py", "'home.level'"): "describes this session's upload",
    ("pages/home/upload_views.py", "f'home.upload_name.{upload_id}'"): "a name being typed",
    ("hlv_ui/library_ui.py", "name_key"): "a name being typed (a rename)",
    ("pages/lewidi/views.py", "key"): "a name being typed for an uploaded submission",
    ("hlv_ui/model_groups.py", "widget_key"): "mirrors a session-wide switch, set every run",
    ("pages/training_lab/page.py", "'lab.send_pick'"): "names this session's trained models",
    ("pages/training_lab/page.py", "'lab.jobs'"): "worker processes: the reader's machine",
}


def _keyed_widgets():
    """(file, key expression, persist_state expression or None) of every ``<x>.<widget>(...,
    key=...)`` call (``st``, a column, a container) in the app, its pages and the UI package."""
    files = [ROOT / "app.py", *sorted((ROOT / "pages").rglob("*.py")),
             *sorted((ROOT / "hlv_ui").glob("*.py"))]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in INPUT_WIDGETS):  # st.<widget>, a column's, ...
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            if "key" in keywords:
                kept = keywords.get("persist_state", keywords.get(None))  # or **SETTING
                assert "bind" not in keywords  # bound through SETTING only
                yield (path.relative_to(ROOT).as_posix(), ast.unparse(keywords["key"]),
                       None if kept is None else ast.unparse(kept))


def test_every_keyed_setting_is_kept_for_the_session():
    widgets = list(_keyed_widgets())
    assert len(widgets) > 100  # the scan sees the app's widgets, in columns too
    not_kept = [(f, k) for f, k, kept in widgets if kept is None]
    assert sorted(set(not_kept) - set(NOT_KEPT)) == []
    assert sorted(set(NOT_KEPT) - set(not_kept)) == []  # the list names only real exceptions
    assert {kept for _, _, kept in widgets if kept is not None} == {"SETTING", "KEPT"}


def test_every_setting_is_in_the_address_but_the_listed_ones():
    widgets = list(_keyed_widgets())
    kept_only = [(f, k) for f, k, kept in widgets if kept == "KEPT"]
    assert sorted(set(kept_only) - set(NOT_IN_LINK)) == []
    assert sorted(set(NOT_IN_LINK) - set(kept_only)) == []
    assert sum(kept == "SETTING" for _, _, kept in widgets) > 100


def test_a_setting_is_kept_for_the_session_and_bound_to_the_address():
    from hlv_ui.widgets import KEPT, SETTING

    assert KEPT == "session"
    assert SETTING == {"persist_state": "session", "bind": "query-params"}


def _slider_app() -> None:
    import streamlit as st

    from hlv_ui.widgets import KEPT, forget_outside

    high = st.session_state.get("high", 100)
    if st.session_state.get("where", "a") == "a":
        forget_outside("s", 1, high)
        forget_outside("pair", 1, high)
        st.slider("s", 1, high, 3, key="s", persist_state=KEPT)
        st.slider("pair", 1, high, (2, 5), key="pair", persist_state=KEPT)
    st.button("again")


@pytest.mark.parametrize(("key", "value", "high", "kept"), [
    ("s", 80, 100, 80), ("s", 80, 50, 3),  # a value
    ("pair", (4, 90), 100, (4, 90)), ("pair", (4, 90), 50, (2, 5)),  # a range: one end out
])
def test_a_kept_slider_value_outside_new_bounds_falls_back_to_the_default(key, value, high,
                                                                           kept):
    app = AppTest.from_function(_slider_app).run()
    app.slider(key=key).set_value(value).run()
    app.session_state["where"] = "b"  # the slider is not drawn: Streamlit keeps its value
    app.button[0].click().run()
    app.session_state["high"] = high
    app.session_state["where"] = "a"
    app.button[0].click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.slider(key=key).value == kept


def _level_app() -> None:
    import streamlit as st

    from hlv_ui.widgets import KEPT, forget_for_other_data

    data = st.session_state.get("data", "A")
    if st.session_state.get("where", "page") == "page":
        levels = ["nominal", "ordinal", "interval"]
        default = {"A": 0, "B": 2}[data]
        forget_for_other_data("level", data, levels[default])
        st.selectbox("level", levels, index=default, key="level", persist_state=KEPT)
    st.button("again")


def _come_back(app, data: str) -> None:
    app.session_state["where"] = "elsewhere"
    app.button[0].click().run()
    app.session_state["data"] = data
    app.session_state["where"] = "page"
    app.button[0].click().run()
    assert not app.exception, [e.value for e in app.exception]


def test_a_data_bound_setting_is_kept_for_the_same_data_only():
    app = AppTest.from_function(_level_app).run()
    app.selectbox(key="level").set_value("ordinal").run()
    _come_back(app, "A")
    assert app.selectbox(key="level").value == "ordinal"  # same data: the user's choice
    _come_back(app, "B")
    assert app.selectbox(key="level").value == "interval"  # other data: its own default
    app.selectbox(key="level").set_value("nominal").run()
    _come_back(app, "B")
    assert app.selectbox(key="level").value == "nominal"


def test_a_value_set_before_the_first_run_is_not_forgotten():
    app = AppTest.from_function(_level_app)
    app.session_state["level"] = "interval"  # as a test or a deep link may preset it
    app.run()
    assert app.selectbox(key="level").value == "interval"


def test_every_setting_a_link_can_set_is_bounded():
    # a link is anyone's input: a number without a bound or a text without a length would let
    # a link ask for a billion bootstrap replicates or a megabyte of search text
    files = [ROOT / "app.py", *sorted((ROOT / "pages").rglob("*.py")),
             *sorted((ROOT / "hlv_ui").glob("*.py"))]
    unbounded = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and any(k.arg is None and ast.unparse(k.value) == "SETTING"
                            for k in node.keywords)):
                continue
            named = {k.arg for k in node.keywords}
            if node.func.attr == "number_input":
                bounded = ((len(node.args) >= 2 or "min_value" in named)
                           and (len(node.args) >= 3 or "max_value" in named))
            elif node.func.attr in ("text_input", "text_area"):
                bounded = "max_chars" in named
            else:  # options, or a slider's own range
                bounded = True
            if not bounded:
                unbounded.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert unbounded == []
