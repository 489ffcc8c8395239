"""The worked examples of the remaining glossary entries, computed by the engine functions the
pages and the CLI use (the first eleven: ``tests/test_glossary_examples.py``). Every entry is
covered by one of the two files (:func:`test_every_entry_has_its_example_computed`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hlv_core import aggregation, agreement, annotators, balance, calibration, lewidi, review
from hlv_core import soft_metrics as sm
from hlv_core.glossary import TERMS, term
from hlv_core.io import build_dataset, load

#: Entries computed in tests/test_glossary_examples.py.
FIRST_FILE = {"certainty", "irn", "reliability", "ua_accuracy", "multilabel_agreement",
              "soft_metric", "jsd", "lewidi_soft", "pair_agreement", "majority_share",
              "item_entropy"}
COVERED: set[str] = set()


def covers(*keys: str):
    COVERED.update(keys)

    def mark(test):
        return test
    return mark


def _rows(cells: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(cells, columns=["item_id", "annotator_id", "label"])


def _two_raters(pairs: list[tuple[str, str, int]]) -> pd.DataFrame:
    """``(label of a, label of b, how many items)`` -> long annotations of a and b."""
    cells, n = [], 0
    for la, lb, count in pairs:
        for _ in range(count):
            cells += [(f"i{n}", "a", la), (f"i{n}", "b", lb)]
            n += 1
    return _rows(cells)


@covers("soft_label", "majority_label")
def test_soft_label_and_majority_label():
    assert "60% / 40%" in term("soft_label").example
    ds = build_dataset(_rows([("t", f"a{j}", "offensive" if j < 3 else "not offensive")
                              for j in range(5)]), source="x", format="x")
    soft = dict(zip(ds.labels, ds.judgements_array()[0], strict=True))
    assert soft == {"not offensive": pytest.approx(0.4), "offensive": pytest.approx(0.6)}
    assert "3 'yes' / 2 'no' and 5 'yes' / 0 'no' both become 'yes'" in \
        term("majority_label").example
    votes = [("i1", f"a{j}", "yes" if j < 3 else "no") for j in range(5)] + \
        [("i2", f"a{j}", "yes") for j in range(5)]
    ds = build_dataset(_rows(votes), source="x", format="x", labels=["yes", "no"])
    assert list(ds.majority_label()) == ["yes", "yes"]


@covers("hard_metric", "entropy_correlation")
def test_hard_metric_and_entropy_correlation():
    P = np.array([[0.6, 0.4], [0.2, 0.8], [0.5, 0.5], [1.0, 0.0]])
    Q = np.array([[0.9, 0.1], [0.3, 0.7], [0.1, 0.9], [0.8, 0.2]])
    # top labels: 0=0, 1=1, item 3 (tie -> first label 0) vs 1, 0=0 -> 3 of 4
    assert sm.hard_accuracy(P, Q) == pytest.approx(0.75)
    assert "close to 1" in term("entropy_correlation").example
    humans = np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0], [0.0, 1.0], [0.9, 0.1]])
    model = np.array([[0.5, 0.5], [0.5, 0.5], [0.98, 0.02], [0.03, 0.97], [0.97, 0.03]])
    assert sm.entropy_correlation(humans, model) > 0.9


@covers("alpha")
def test_alpha_example_ninety_percent_against_fifty():
    assert "alpha = 1 − 0.1/0.5 = 0.8" in term("alpha").example
    ann = _two_raters([("x", "x", 45), ("y", "y", 45), ("x", "y", 5), ("y", "x", 5)])
    # 100 items, 90% agreement, both labels 50%: 1 - 0.1 / (100*100*2 / (200*199))
    assert agreement.krippendorff_alpha(ann) == pytest.approx(1 - 0.1 / (20_000 / 39_800))
    assert agreement.krippendorff_alpha(ann) == pytest.approx(0.8, abs=0.005)


@covers("kappa")
def test_kappa_example():
    assert "kappa = 0.6" in term("kappa").example
    ann = _two_raters([("x", "x", 40), ("y", "y", 40), ("x", "y", 10), ("y", "x", 10)])
    assert agreement.cohen_kappa(ann) == pytest.approx(0.6)


@covers("pairwise_alpha")
def test_opposite_labels_give_a_strongly_negative_pairwise_alpha():
    ann = _two_raters([("x", "y", 5), ("y", "x", 5)])
    pairs = agreement.pairwise_alpha(ann)
    assert pairs["alpha"].iloc[0] < -0.8


def _two_camps(n_items: int = 12) -> pd.DataFrame:
    """Camp L (l1..l3) and camp R (r1..r3): each camp agrees inside, the camps split on every
    other item."""
    cells = []
    for i in range(n_items):
        left = "hate" if i % 3 else "none"
        right = "none" if i % 2 else left
        cells += [(f"i{i}", f"l{j}", left) for j in range(3)]
        cells += [(f"i{i}", f"r{j}", right) for j in range(3)]
    return _rows(cells)


@covers("sigma", "camps")
def test_two_camps_give_a_high_sigma_and_two_camps():
    result = balance.sigma(_two_camps(), min_shared=2)
    assert result.sigma > 0.9
    table = balance.camps(result).table.set_index("annotator_id")["camp"]
    assert len({table[f"l{j}"] for j in range(3)}) == 1
    assert len({table[f"r{j}"] for j in range(3)}) == 1
    assert table["l0"] != table["r0"]
    # balanced: the unique split (not a spectral approximation)
    assert "every cycle is balanced" in term("camps").technical
    assert result.n_unbalanced == 0


@covers("plausibility", "plackett_luce")
def test_plausibility_draws_and_plackett_luce_symmetry():
    assert "1,000 draws" in term("plausibility").example
    draws = aggregation.sample_plausibilities("dirichlet", np.array([[7, 3]]), reliability=1,
                                              n_samples=1000, seed=0)
    assert draws.shape == (1, 1000, 2)
    first = (draws[0].argmax(axis=1) == 0).mean()
    assert 0.8 < first < 0.95  # eczema (7 of 10 votes) first in most draws, not all
    assert "equally plausible" in term("plackett_luce").example
    readers = [[[[0], [1]], [[1], [0]]]]  # reader 1: A before B; reader 2: B before A
    pl = aggregation.sample_plausibilities("pl", readers, reliability=1, n_samples=4000,
                                           seed=0, n_classes=2)
    mean = pl[0].mean(axis=0)
    assert mean[0] == pytest.approx(mean[1], abs=0.03)


@covers("prior")
def test_prior_example_adds_up_to_forty_annotators():
    assert "400 possible diagnoses, a prior of 0.1 each adds up to 40" in term("prior").example
    assert aggregation.default_prior("dirichlet") == 0.1
    assert aggregation.default_prior("prirn") == 0.01
    assert "0.1 for vote counts, 0.01 for PrIRN" in term("prior").technical
    assert 400 * aggregation.default_prior("dirichlet") == pytest.approx(40)


@covers("rank_centrality")
def test_rank_centrality_example():
    # the paper describes rank centrality in its experimental setup (section 6.1)
    assert "section 6.1" in term("rank_centrality").technical
    # models A, B, C: A beat B, B beat C (wins[i, j] = j beat i)
    wins = np.zeros((3, 3))
    wins[1, 0] = 1  # A beat B
    wins[2, 1] = 1  # B beat C
    comps = wins + wins.T
    scores = review.rank_centrality(wins, comps, regularize=0.1)
    assert list(np.argsort(-scores)) == [0, 1, 2]


@covers("training_method")
def test_training_method_targets_for_three_yes_two_no():
    from hlv_core import targets

    ds = build_dataset(_rows([("i1", f"a{j}", "yes" if j < 3 else "no") for j in range(5)]),
                       source="x", format="x", labels=["yes", "no"])
    mv = targets.mv_targets(ds)
    sl = targets.sl_targets(ds)
    rep = targets.rel_targets(ds)
    text = term("training_method").example
    assert "'yes'" in text and "60/40" in text and "five examples" in text
    assert mv[["yes", "no"]].to_numpy().tolist() == [[1.0, 0.0]]      # majority: 'yes'
    np.testing.assert_allclose(sl[["yes", "no"]].to_numpy(), [[0.6, 0.4]])  # soft: 60/40
    assert len(rep) == 5 and rep["yes"].sum() == 3                  # repeated: 5 examples


@covers("coverage")
def test_coverage_counts_the_items_with_predictions():
    from hlv_core import scoring

    cells = [(f"i{i}", f"a{j}", "xy"[(i + j) % 2]) for i in range(8) for j in range(3)]
    ds = build_dataset(_rows(cells), source="x", format="x")
    preds = pd.DataFrame([("m", f"i{i}", lab, 0.5) for i in range(6) for lab in ("x", "y")],
                         columns=["model", "item_id", "label", "prob"])
    table = scoring.score_models(ds, preds)
    assert "6 of 8 items" in term("coverage").example
    assert set(table["n_items"]) == {6} and set(table["n_items_total"]) == {8}


@covers("task", "level")
def test_task_and_level_examples(tmp_path):
    ranked = "item_id,annotator_id,label,rank\ni1,a,eczema,1\ni1,a,acne,2\ni1,b,acne,1\n"
    assert load(ranked.encode(), name="r.csv").task == "ranking"
    # ordinal: 1 vs 5 disagrees more than 4 vs 5 (the same agreement otherwise)
    base = [(f"i{i}", a, str(1 + (i % 5))) for i in range(10) for a in ("a", "b")]
    far = _rows(base + [("x", "a", "1"), ("x", "b", "5")])
    near = _rows(base + [("x", "a", "4"), ("x", "b", "5")])
    assert agreement.krippendorff_alpha(far, level="ordinal") < \
        agreement.krippendorff_alpha(near, level="ordinal")
    assert agreement.krippendorff_alpha(far, level="nominal") == pytest.approx(
        agreement.krippendorff_alpha(near, level="nominal"))


@covers("lewidi_pe")
def test_lewidi_pe_example():
    assert "error rate 0.25" in term("lewidi_pe").example
    target = np.array([[0, 1, 1, 0]], dtype=float)
    pred = np.array([[0, 1, 1, 1]], dtype=float)
    assert lewidi.error_rate_items(pred, target, np.array([4]))[0] == pytest.approx(0.25)


@covers("adaptation")
def test_adaptation_default_share():
    import inspect

    from hlv_core.perspectivist import splits

    assert "5%" in term("adaptation").example
    share = inspect.signature(splits.make_splits).parameters["adaptation_share"].default
    assert share == 0.05


@covers("majority_agreement")
def test_majority_agreement_seventy_of_a_hundred():
    assert "70 of 100" in term("majority_agreement").example
    cells = [(f"i{i}", a, "x") for i in range(100) for a in ("b", "c")]
    cells += [(f"i{i}", "a", "x" if i < 70 else "y") for i in range(100)]
    ds = build_dataset(_rows(cells), source="x", format="x")
    table = annotators.majority_agreement(ds).set_index("annotator_id")
    column = [c for c in table.columns if "agree" in c and table[c].dtype.kind == "f"][0]
    assert table.loc["a", column] == pytest.approx(0.70)


@covers("dist_ce", "ent_ce", "rank_cs", "ece_majority")
def test_calibration_examples():
    assert "distance 0.3" in term("dist_ce").example
    assert calibration.dist_ce(np.array([[1, 1]]), np.array([[0.8, 0.2]])) == \
        pytest.approx(0.3)
    assert "entropy 0.69" in term("ent_ce").example and "gap 0.64" in term("ent_ce").example
    gap = calibration.ent_ce(np.array([[1, 1]]), np.array([[0.99, 0.01]]))
    assert gap == pytest.approx(0.64, abs=0.005)
    # neutral > entailment > contradiction vs neutral > contradiction > entailment
    humans = np.array([[1, 2, 5]])  # counts of contradiction, entailment, neutral
    model = np.array([[0.3, 0.1, 0.6]])
    assert calibration.rank_cs(humans, model) == 0.0
    assert calibration.rank_cs(humans, np.array([[0.1, 0.3, 0.6]])) == 1.0
    assert "error of 0.4" in term("ece_majority").example
    C = np.tile([[3, 2]], (20, 1))
    Q = np.tile([[0.6, 0.4]], (20, 1))
    assert calibration.ece(C, Q) == pytest.approx(0.4)


@covers("annotator_skill")
def test_one_coin_skill_careful_and_coin_flip():
    from hlv_core.competence import one_coin_dawid_skene

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 400)
    cells = []
    for i, t in enumerate(truth):
        for j in range(5):
            careful = t if rng.random() < 0.95 else 1 - t
            cells.append((f"i{i}", f"careful{j}", "ab"[careful]))
        cells.append((f"i{i}", "coin", "ab"[rng.integers(0, 2)]))
    skill = one_coin_dawid_skene(_rows(cells)).skill
    assert skill["coin"] == pytest.approx(0.5, abs=0.06)
    assert skill[[f"careful{j}" for j in range(5)]].mean() == pytest.approx(0.95, abs=0.03)


def _noisy(n_items: int = 60, flips=(0.0, 0.0, 0.3, 0.3, 0.45), seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    cells = [(f"i{i}", f"h{j}", "ab"[t if rng.random() >= f else 1 - t])
             for i, t in enumerate(truth) for j, f in enumerate(flips)]
    return _rows(cells), {f"i{i}": "ab"[t] for i, t in enumerate(truth)}


@covers("alt_test", "winning_rate", "advantage_probability", "alt_epsilon")
def test_alt_test_examples():
    from hlv_core import judge

    assert "winning rate 0.6" in term("alt_test").example
    # 3 of 5 annotators rejected by Benjamini-Yekutieli: omega = 3/5 = 0.6 >= 0.5, passes
    rejected = judge.by_rejections([1e-6, 1e-6, 1e-6, 0.9, 0.9], q=0.05)
    assert rejected.sum() == 3 and rejected.mean() == pytest.approx(0.6)
    ann, truth = _noisy()
    result = judge.alt_test(ann, truth, epsilon=0.1)
    table = result.per_annotator
    assert result.winning_rate == pytest.approx(table["rejected"].mean())
    assert result.passed == (result.winning_rate >= 0.5)
    assert "rho = 0.8" in term("advantage_probability").example
    assert result.rho == pytest.approx(table["rho_model"].mean())
    # the model (the truth) is at least as good as the noisiest annotator on most items
    assert table.set_index("annotator").loc["h4", "rho_model"] > 0.5
    # a larger epsilon allows the model more lost duels: never fewer rejections
    assert "Epsilon 0.1" in term("alt_epsilon").example
    loose = judge.alt_test(ann, truth, epsilon=0.3)
    assert loose.per_annotator["rejected"].sum() >= table["rejected"].sum()
    # H0 is 'the human is better by at least epsilon': equality is not a win. A model that
    # copies every annotator ties every duel (d = 0): at epsilon 0 it beats no one, at 0.1 all
    assert "better by at least epsilon" in term("winning_rate").technical
    assert "worse by less than epsilon" in term("alt_test").reading
    copies = _rows([(f"i{i}", f"h{j}", "ab"[i % 2]) for i in range(40) for j in range(4)])
    copy_model = {f"i{i}": "ab"[i % 2] for i in range(40)}
    assert judge.alt_test(copies, copy_model, epsilon=0.0).winning_rate == 0.0
    assert judge.alt_test(copies, copy_model, epsilon=0.1).winning_rate == 1.0


@covers("bootstrap_ci", "paired_bootstrap")
def test_bootstrap_examples():
    assert "1,000 resamples" in term("bootstrap_ci").example
    values = np.random.default_rng(0).normal(0.71, 0.15, 400)
    ci = lewidi.bootstrap_ci(values, n_boot=1000, seed=0)
    assert ci["lower"] < ci["mean"] < ci["upper"] and ci["n_boot"] == 1000
    assert ci["upper"] - ci["lower"] == pytest.approx(2 * 1.96 * 0.15 / 20, rel=0.2)
    assert "p = (1 + #{|d* − d| ≥ |d|}) / (B + 1)" in term("paired_bootstrap").technical
    a = np.random.default_rng(1).normal(0.210, 0.1, 300)
    b = a + np.random.default_rng(2).normal(0.004, 0.05, 300)
    test = lewidi.paired_bootstrap(a, b, n_boot=999, seed=0)
    assert test["diff"] == pytest.approx((b - a).mean())
    assert (test["p_value"] * 1000) == pytest.approx(round(test["p_value"] * 1000))
    assert test["lower"] < 0 < test["upper"] and test["p_value"] > 0.05  # not separable


@covers("human_ceiling")
def test_human_ceiling_example():
    from hlv_core.ceiling import human_ceiling

    ann, truth = _noisy(n_items=40, flips=(0.1, 0.1, 0.1, 0.1, 0.1))
    ds = build_dataset(ann, source="x", format="x")
    model = np.array([[float(truth[i] == lab) for lab in ds.labels] for i in ds.item_ids])
    result = human_ceiling(ann, model=model, n_boot=50)
    hard = result.per_annotator.query("metric == 'hard_accuracy'")["value"]
    model = result.model_same_targets.loc["hard_accuracy", "model"]
    assert "inside the human range" in term("human_ceiling").example
    assert 0.7 < hard.min() <= hard.max() < 1.0 and model >= hard.min()


@covers("perseval", "perseval_task")
def test_perseval_named_when_traits_exist():
    from hlv_core.perspectivist import splits

    cells = [(f"t{i}", f"u{j}", "xy"[(i * j) % 2]) for i in range(20) for j in range(10)]
    ds = build_dataset(_rows(cells), source="x", format="x")
    assert "Named when the dataset has annotator traits" in term("perseval_task").technical
    assert splits.make_splits(ds, seed=0, adaptation="test").named is False
    assert "poorly for the annotators who often dissent" in term("perseval").example


@covers("possible_error", "annotator_verdict", "support", "review_judgement")
def test_qualitative_entries_follow_the_engine(tmp_path):
    from hlv_core import errors
    from hlv_core.competence import annotator_report
    from hlv_core.review import ReviewStore

    # possible error: the lone dissent of a usually agreeing annotator ranks first
    ann, _ = _noisy(n_items=40, flips=(0.0, 0.0, 0.0, 0.05))
    scores = errors.error_scores(ann, method="label_count")
    assert scores["score"].max() > scores["score"].min()
    # annotator verdict: a coin-flipping annotator is unreliable, the careful ones are not
    ann, _ = _noisy(n_items=60, flips=(0.02, 0.02, 0.02, 0.02, 0.5), seed=3)
    report = annotator_report(ann, mace_restarts=0)
    assert report.loc["h4", "kind"] == "unreliable"
    assert (report.loc[["h0", "h1", "h2", "h3"], "kind"] != "unreliable").all()
    # the camp rule is off without a subset of items, on with one
    assert "off without a subset" in term("annotator_verdict").technical
    assert "majority_agreement_in" not in report.columns
    camps = {"h0": "x", "h1": "x", "h2": "y", "h3": "y", "h4": "y"}
    with_subset = annotator_report(ann, camps=camps, subset=["i0", "i1", "i2"],
                                   mace_restarts=0)
    assert {"majority_agreement_in", "camp_agreement_in"} <= set(with_subset.columns)
    # support: one pair sharing 3 items is not enough support
    pairs = pd.DataFrame({"annotator_a": ["a"], "annotator_b": ["b"], "n_shared": [3],
                          "alpha": [0.95]})
    support = annotators.mean_alpha_with_support(pairs, min_pairs=2)
    assert not support["enough_support"].any()
    # review judgement: only the latest judgement of a case and pair counts
    store = ReviewStore(tmp_path / "r.sqlite3")
    store.add("me", "case 12", "A", "C", "A")
    store.add("me", "case 12", "A", "C", "B")
    rows = store.judgements()
    assert "only your latest judgement" in term("review_judgement").technical
    latest = review.latest_judgements(rows)
    assert latest["choice"].tolist() == ["B"]


def test_possible_error_example_ranks_the_often_alone_chooser_first():
    """The glossary's VariErr example (Weber-Genzel et al. 2024, section 5): 'contradiction'
    chosen by one of four annotators who often stands alone elsewhere ranks above the same lone
    label from one who rarely does, and above the label chosen by a camp of two."""
    from hlv_core import errors

    assert "who often stands alone elsewhere, ranks high" in " ".join(
        term("possible_error").example.split())
    rng = np.random.default_rng(7)
    truth = rng.choice(["entailment", "neutral"], 80)
    cells = []
    for i, t in enumerate(truth):
        for j, flip in enumerate((0.0, 0.0, 0.02, 0.4)):  # h3 often stands alone, h2 rarely
            other = "neutral" if t == "entailment" else "entailment"
            cells.append((f"i{i}", f"h{j}", other if rng.random() < flip else t))
    cells += [("x_often", h, "entailment") for h in ("h0", "h1", "h2")]
    cells += [("x_often", "h3", "contradiction")]
    cells += [("x_rarely", h, "entailment") for h in ("h0", "h1", "h3")]
    cells += [("x_rarely", "h2", "contradiction")]
    cells += [("x_camp", h, "entailment") for h in ("h0", "h1")]
    cells += [("x_camp", h, "contradiction") for h in ("h2", "h3")]
    ann = _rows(cells)
    for method in ("ds_posterior", "annotator_singleton"):
        scores = errors.error_scores(ann, method=method).set_index(["item_id", "label"])["score"]
        often = scores[("x_often", "contradiction")]
        assert often > scores[("x_rarely", "contradiction")], method
        assert often > scores[("x_camp", "contradiction")], method


def test_every_entry_has_its_example_computed():
    missing = set(TERMS) - COVERED - FIRST_FILE
    assert not missing, f"glossary entries without a computed example: {sorted(missing)}"
