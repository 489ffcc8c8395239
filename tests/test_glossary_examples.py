"""Every glossary entry (the pages' "What does this mean?" texts, the Glossary page and the
report) names its source section, and its worked example is computed here by the engine
function that the pages and the CLI use."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from hlv_core import aggregation, certainty, lewidi, soft_metrics
from hlv_core.glossary import TERMS, term
from hlv_core.io import build_dataset

SOURCE = re.compile(r"section \d|App\. [A-Z]|chapter \d|[A-Z][a-z]+ \(?(19|20)\d\d\b|"
                    r"docs/conventions\.md|"
                    r"LeWiDi 20\d\d")


@pytest.mark.parametrize("key", sorted(TERMS))
def test_every_entry_names_its_source(key):
    assert SOURCE.search(term(key).technical), term(key).technical


def _dataset(votes: list[str]) -> object:
    rows = pd.DataFrame({"item_id": "i", "annotator_id": [f"a{j}" for j in range(len(votes))],
                         "label": votes})
    return build_dataset(rows, source="example", format="example")


def test_certainty_is_the_largest_share_of_sample_top_labels():
    text = term("certainty")
    assert "3/5 = 0.60" in text.example and "section 2.3" in text.technical
    assert "point estimate's top label" not in text.technical
    # 5 draws over (eczema, psoriasis, acne): top labels e, e, e, p, a
    top = np.array([[[0], [0], [0], [1], [2]]])
    assert certainty.certainty_from_top(top, k=1)[0] == pytest.approx(0.6)
    # the largest share, whichever label the point estimate would put first
    samples = np.array([[[0.2, 0.5, 0.3], [0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]])
    assert certainty.annotation_certainty(samples, k=1)[0] == pytest.approx(2 / 3)


def test_irn_is_normalised_once_after_summing_readers():
    text = term("irn")
    assert "0.8" in text.example and "never per reader" in text.technical
    assert "App. B.2" in text.technical
    readers = [[[[0], [1]], [[0]]]]  # reader 1: (eczema, psoriasis), reader 2: (eczema)
    np.testing.assert_allclose(aggregation.irn(readers, 2)[0], [0.8, 0.2])
    per_reader = (np.array([2 / 3, 1 / 3]) + np.array([1.0, 0.0])) / 2
    assert not np.allclose(per_reader, [0.8, 0.2])  # the reading the paper rules out


def test_reliability_example_for_vote_counts_and_prirn():
    text = term("reliability")
    assert "Dirichlet(8 + prior, 2 + prior)" in text.example and "App. B.3" in text.technical
    prior = aggregation.default_prior("prirn")
    draws = aggregation.sample_plausibilities("prirn", [[[[0], [1]], [[0]]]], reliability=10,
                                              n_samples=40_000, seed=1, n_classes=2)
    expected = (8 + prior) / (10 + 2 * prior)  # Dir(r * IRN + a0): IRN 0.8 / 0.2, r = 10
    assert draws[0, :, 0].mean() == pytest.approx(expected, abs=0.005)
    counts = np.array([[2, 0]])  # two annotators say eczema, reliability 10: weigh like 20
    votes = aggregation.sample_plausibilities("dirichlet", counts, reliability=10,
                                              n_samples=40_000, seed=1)
    a0 = aggregation.default_prior("dirichlet")
    assert votes[0, :, 0].mean() == pytest.approx((20 + a0) / (20 + 2 * a0), abs=0.005)


def test_ua_accuracy_example():
    text = term("ua_accuracy")
    assert "section 2.4" in text.technical and "0.7" in text.example
    samples = np.zeros((1, 10, 2))
    samples[0, :7] = [0.6, 0.4]  # eczema first in 7 of 10 draws
    samples[0, 7:] = [0.3, 0.7]
    assert certainty.ua_accuracy(samples, np.array([[0.9, 0.1]]), k=1) == pytest.approx(0.7)


def test_multilabel_chance_agreement_text_says_simulated_datasets():
    text = term("multilabel_agreement")
    assert "shuffling" not in text.meaning and "simulated datasets" in text.meaning
    assert "section 4" in text.technical


def test_soft_metric_examples():
    assert "= 0.9" in term("soft_metric").example
    assert soft_metrics.soft_accuracy(np.array([[0.6, 0.4]]), np.array([[0.7, 0.3]])) == \
        pytest.approx(0.9)
    assert "0.69" in term("jsd").example
    assert soft_metrics.po_jsd(np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]])) == \
        pytest.approx(0.69, abs=0.005)
    assert "= 0.4" in term("lewidi_soft").example
    assert lewidi.manhattan_distance(np.array([[0.5, 0.5]]), np.array([[0.7, 0.3]]))[0] == \
        pytest.approx(0.4)


def test_item_level_examples():
    assert "so 0.40" in term("pair_agreement").example
    assert _dataset(["yes"] * 3 + ["no"] * 2).pair_agreement_array()[0] == pytest.approx(0.4)
    assert "0.80" in term("majority_share").example
    four_of_five = _dataset(["offensive"] * 4 + ["not"])
    assert four_of_five.judgements_array().max() == pytest.approx(0.8)
    assert "5 / 5: entropy 1.00; votes 9 / 1: 0.47" in term("item_entropy").example
    assert _dataset(["a"] * 5 + ["b"] * 5).entropy().iloc[0] == pytest.approx(1.0)
    assert _dataset(["a"] * 9 + ["b"]).entropy().iloc[0] == pytest.approx(0.47, abs=0.005)
