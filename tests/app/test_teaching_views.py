"""The Figure 1 explainer and Table 2 simulator open with a one-line take-away, controls named
for what they do, and the paper's notation one click deeper (Kurniawan et al.)."""

from __future__ import annotations

from .conftest import open_page
from .test_page_soft_metrics import _open_tab


def test_take_aways_plain_controls_and_notation_deeper(app):
    at = open_page(app, "soft_metrics", "case_review")
    at = _open_tab(at, "Figure 1 explainer")
    first = next(m for m in at.markdown if m.value.startswith("**Take-away:**"))
    assert "JS similarity" in first.value and "soft accuracy" in first.value
    labels = [s.label for s in at.slider]
    assert "How people split: share who chose the positive label" in labels
    assert "What the model predicts: its probability of the positive label" in labels
    assert any(e.label.startswith("The paper's notation") for e in at.expander)
    at = _open_tab(at, "Table 2 simulator")
    assert any(m.value.startswith("**Take-away:**") and "rank models alike" in m.value
               for m in at.markdown)
    names = [n.label for n in at.number_input]
    assert {"Number of labels", "Evenness of people's answers", "Evenness of model outputs",
            "Simulated models", "Items per model", "Random seed"} <= set(names)
    assert not {"K", "α", "β", "B pairs", "rows"} & set(names)
    notation = next(e for e in at.expander if e.label.startswith("The paper's notation"))
    assert "Dirichlet" in " ".join(m.value for m in notation.markdown)
