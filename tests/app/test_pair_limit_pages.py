"""Pages refuse pairwise structures over the limit early, with the estimate and the variable
that raises it (HLV_MAX_PAIRS), instead of building them: the Agreement page's Pairs tab and
the Items and annotators page."""

from __future__ import annotations

from .conftest import open_page


def test_agreement_pairs_tab_says_the_pairs_are_over_the_limit(app, monkeypatch):
    monkeypatch.setenv("HLV_MAX_PAIRS", "3")
    at = open_page(app, "agreement", "case_review")
    at.session_state["agreement.tab"] = "Pairs"
    at.run()
    assert not at.exception
    text = " ".join(e.value for e in at.error)
    assert "HLV_MAX_PAIRS" in text and "pairs" in text
    assert not [c for c in at.get("plotly_chart")
                if "heatmap" in str(c.proto.spec)]  # no pair matrix was drawn


def test_agreement_pairs_tab_within_the_limit_draws_the_heatmap(app):
    at = open_page(app, "agreement", "case_review")
    at.session_state["agreement.tab"] = "Pairs"
    at.run()
    assert not at.exception and not [e for e in at.error if "HLV_MAX_PAIRS" in e.value]
