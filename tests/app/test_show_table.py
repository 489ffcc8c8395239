"""hlv_ui.widgets.show_table: every page's tables show control and bidi characters of user
strings as <U+XXXX> (cells, index, header, Styler), numbers unchanged."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script():
    import pandas as pd

    from hlv_ui.widgets import show_table

    frame = pd.DataFrame({"name\u202e": ["abc\u202edef", "plain"], "score": [0.5, 1.25]},
                         index=["ann\u2066", "b"])
    show_table(frame)
    show_table(frame.style.format(precision=1))
    show_table(frame.reset_index(), hide_index=True)


def test_controls_visible_in_every_table():
    at = AppTest.from_function(_script).run()
    assert not at.exception
    plain, styled, flat = (d.value for d in at.dataframe)
    for shown in (plain, styled):
        assert list(shown.index) == ["ann<U+2066>", "b"]
        assert list(shown.columns) == ["name<U+202E>", "score"]
        assert list(shown["name<U+202E>"]) == ["abc<U+202E>def", "plain"]
        assert list(shown["score"]) == [0.5, 1.25]
    assert list(flat["index"]) == ["ann<U+2066>", "b"]
