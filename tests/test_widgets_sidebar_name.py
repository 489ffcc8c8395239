"""The sidebar's in-use line: a user's dataset name stays text in the markdown and in the
hover title."""

from __future__ import annotations

import re

from hlv_ui.widgets import SIDEBAR_CSS, in_use_markdown


def test_names_stay_text_in_the_line_and_the_title():
    line = in_use_markdown('<img src=x onerror="alert(1)">_a_', "multiclass", 1200, 53764)
    assert not re.search(r"(?<!\\)<img", line)  # markdown-escaped: shown, never markup
    assert 'title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;_a_"' in line
    assert r'**\<img src=x onerror="alert(1)"\>\_a\_**</span>' in line
    assert line.endswith(" · multiclass · 1,200 items · 53,764 annotations")


def test_long_names_are_cut_with_an_ellipsis_by_css():
    assert "text-overflow:ellipsis" in SIDEBAR_CSS and "hlv-in-use-name" in SIDEBAR_CSS
    assert 'input[role="combobox"]' in SIDEBAR_CSS
