"""AppTest of pages/glossary.py and of the plain-words layer (hlv_core.glossary)."""

from __future__ import annotations

import pytest

from hlv_core import glossary
from hlv_core.lab import METHODS
from hlv_core.soft_metrics import METRIC_INFO

from .conftest import open_page


def test_every_metric_and_method_has_a_human_name():
    assert set(METRIC_INFO) <= set(glossary.METRIC_NAMES)
    assert set(METHODS) == set(glossary.METHOD_NAMES)
    assert glossary.method_label("SL") == "Soft labelling (SL)"
    assert glossary.metric_label("po_jsd") == "JS similarity (1 − JSD)"
    assert glossary.metric_label("class_x_f1") == "class x f1"


def test_every_term_is_complete_and_unknown_keys_name_the_valid_ones():
    for key, entry in glossary.TERMS.items():
        for field in ("title", "meaning", "reading", "example", "technical"):
            assert len(getattr(entry, field)) > 10 or field == "title", (key, field)
    with pytest.raises(KeyError, match="known:"):
        glossary.term("no-such-term")


def test_glossary_page_lists_terms_and_filters(app):
    at = open_page(app, "glossary")
    text = "\n".join(m.value for m in at.markdown)
    assert "Krippendorff's alpha" in text and "Systematicity (sigma)" in text
    at.text_input[0].input("certainty").run()
    text = "\n".join(m.value for m in at.markdown)
    assert "Annotation certainty" in text and "Systematicity" not in text
    at.text_input[0].input("zzzz-nothing").run()
    assert at.info and "No term matches" in at.info[0].value
