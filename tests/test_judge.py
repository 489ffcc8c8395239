"""The Alternative Annotator Test (Calderon, Reichart & Dror, ACL 2025, section 3).

The oracle below is a deliberately plain re-implementation written from the paper's description
(loops over annotators and items, scipy's ``ttest_1samp``, a loop BY step-up); the engine is
vectorised and must agree with it exactly on the paper's example datasets and on hs_brexit and
md_agreement.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hlv_core import judge
from hlv_core.io import load
from tests.conftest import shared_path

PAPER = {"mtbench": ("accuracy", 0.2), "wax": ("accuracy", 0.1),
         "cebab_stars": ("neg_rmse", 0.1), "lesion": ("neg_rmse", 0.15)}


# ------------------------------------------------------------------- the plain oracle
def _acc(x, others):
    return sum(1 for r in others if r == x) / len(others)


def _nrmse(x, others):
    return -float(np.sqrt(sum((x - r) ** 2 for r in others) / len(others)))


def _by_loop(p, q):
    m = len(p)
    c = sum(1.0 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: (np.isnan(p[i]), p[i]))
    k = 0
    for rank, i in enumerate(order, start=1):
        if not np.isnan(p[i]) and p[i] <= rank * q / (m * c):
            k = rank
    rejected = [False] * m
    for i in order[:k]:
        rejected[i] = True
    return rejected


def oracle_indicators(humans: dict, model, score, min_humans=2, min_items=30):
    """{annotator: list of d} for tested annotators, and the skipped ones."""
    per_item: dict = {}
    for h, anns in humans.items():
        for i in anns:
            per_item.setdefault(i, []).append(h)
    out, skipped = {}, []
    for h, anns in humans.items():
        ds = []
        for i, y in anns.items():
            label = model.get(h, {}).get(i) if isinstance(next(iter(model.values())), dict) \
                else model.get(i)
            if label is None or len(per_item[i]) < min_humans:
                continue
            others = [humans[o][i] for o in per_item[i] if o != h]
            if not others:  # the reference's mean of an empty list is NaN: nobody wins
                ds.append((0, 0))
                continue
            s_h, s_f = score(y, others), score(label, others)
            ds.append((int(s_h >= s_f) - int(s_f >= s_h), int(s_f >= s_h)))
        if len(ds) < min_items:
            skipped.append(h)
        else:
            out[h] = ds
    return out, skipped


def oracle_result(ind: dict, epsilon: float, q: float = 0.05):
    wins = {h: [w for _, w in v] for h, v in ind.items()}
    ind = {h: [d for d, _ in v] for h, v in ind.items()}
    names = list(ind)
    p_of = {}
    by_length: dict = {}
    for h in names:
        by_length.setdefault(len(ind[h]), []).append(h)
    with np.errstate(all="ignore"):
        for group in by_length.values():  # scipy's t-test, one call per sample size
            pv = stats.ttest_1samp(np.array([ind[h] for h in group], dtype=float), epsilon,
                                   axis=1, alternative="less").pvalue
            p_of.update(zip(group, np.atleast_1d(pv).astype(float).tolist(), strict=True))
    p = [p_of[h] for h in names]
    rej = _by_loop(p, q)
    rho = {h: float(np.mean(wins[h])) for h in names}
    return {"p": dict(zip(names, p, strict=True)), "rejected": dict(zip(names, rej, strict=True)),
            "omega": sum(rej) / len(rej), "rho": float(np.mean(list(rho.values()))),
            "rho_j": rho}


def assert_same(res: judge.AltTestResult, ref: dict, skipped: list):
    table = res.per_annotator.set_index("annotator")
    assert sorted(table.index) == sorted(ref["p"])
    assert sorted(res.skipped) == sorted(skipped)
    assert res.winning_rate == ref["omega"]
    assert abs(res.rho - ref["rho"]) <= 1e-12
    for h, p in ref["p"].items():
        got = table.at[h, "p_value"]
        if np.isnan(p):
            assert np.isnan(got), h
        else:
            assert got == pytest.approx(p, rel=1e-9, abs=1e-300), h
        assert bool(table.at[h, "rejected"]) == ref["rejected"][h], h
        assert abs(table.at[h, "rho_model"] - ref["rho_j"][h]) <= 1e-12


def _humans(frame: pd.DataFrame) -> dict:
    out: dict = {}
    for i, a, y in frame[["item_id", "annotator_id", "label"]].itertuples(index=False):
        out.setdefault(str(a), {})[str(i)] = y
    return out


# ---------------------------------------------------------------------- hand checks
def test_by_hand_check():
    assert judge.by_rejections([0.001, 0.01, 0.02, 0.5], 0.05).tolist() == [True, True, False,
                                                                             False]
    assert judge.by_rejections([0.5, 0.02, 0.001, 0.01], 0.05).tolist() == [False, False, True,
                                                                             True]
    # NaN never rejected but counts in m: thresholds 0.05 k / (3 * 11/6)
    assert judge.by_rejections([np.nan, 0.001, 0.02], 0.05).tolist() == [False, True, False]
    assert judge.by_rejections([], 0.05).size == 0


def _unanimous(n_items=40, n_ann=4):
    rows = [(f"i{i}", f"a{a}", "x" if i % 3 else "y") for i in range(n_items)
            for a in range(n_ann)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    model = {f"i{i}": ("x" if i % 3 else "y") for i in range(n_items)}
    return frame, model


def test_zero_variance_case():
    frame, model = _unanimous()
    at0 = judge.alt_test(frame, model, epsilon=0.0)
    assert at0.per_annotator["p_value"].isna().all()
    assert at0.winning_rate == 0.0 and not at0.passed and at0.rho == 1.0
    at1 = judge.alt_test(frame, model, epsilon=0.1)
    assert (at1.per_annotator["p_value"] == 0.0).all()
    assert at1.winning_rate == 1.0 and at1.passed


def test_scalar_scores_and_ties():
    assert judge.alignment_accuracy("a", ["a", "b", "a", "c"]) == 0.5
    assert judge.alignment_neg_rmse(3, [1, 5]) == -2.0
    assert judge.alignment_jaccard(frozenset("ab"), [frozenset("a"), frozenset()]) == 0.25
    # a model label outside the inventory never matches; the human wins every item
    frame, _ = _unanimous()
    res = judge.alt_test(frame, {f"i{i}": "zzz" for i in range(40)}, epsilon=0.2)
    assert res.rho == 0.0 and res.winning_rate == 0.0
    assert (res.per_annotator["mean_d"] == 1.0).all()


def test_skipped_and_no_annotator():
    frame, model = _unanimous(n_items=20)
    with pytest.raises(ValueError, match="no annotator can be tested"):
        judge.alt_test(frame, model)
    res = judge.alt_test(frame, model, min_items_per_annotator=10, epsilon=0.1)
    assert res.n_tested == 4
    small = frame[frame["annotator_id"].isin(["a0", "a1"])]
    res = judge.alt_test(small, model, min_items_per_annotator=10, epsilon=0.1)
    assert any("at least 3" in w for w in res.warnings)


def test_items_without_model_label_are_dropped():
    frame, model = _unanimous()
    model = {k: v for k, v in model.items() if k != "i0"}
    res = judge.alt_test(frame, model, epsilon=0.1)
    assert res.n_items_dropped == 1 and (res.per_annotator["n_items"] == 39).all()
    with pytest.raises(ValueError, match="no human annotation"):
        judge.alt_test(frame, {**model, "nope": "x"})


@st.composite
def _small_data(draw):
    n_items = draw(st.integers(12, 25))
    n_ann = draw(st.integers(3, 5))
    cells = draw(st.lists(st.tuples(st.booleans(), st.sampled_from("abc")),
                          min_size=n_items * n_ann, max_size=n_items * n_ann))
    rows = [(f"i{k // n_ann}", f"a{k % n_ann}", lab) for k, (keep, lab) in enumerate(cells)
            if keep or k % n_ann < 2]
    model = {f"i{i}": draw(st.sampled_from("abcd")) for i in range(n_items)}
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]), model


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(_small_data(), st.randoms(use_true_random=False))
def test_order_invariance_and_oracle(data, rnd):
    frame, model = data
    kwargs = {"epsilon": 0.1, "min_items_per_annotator": 5}
    try:
        res = judge.alt_test(frame, model, **kwargs)
    except ValueError:
        return
    perm = list(range(len(frame)))
    rnd.shuffle(perm)
    res2 = judge.alt_test(frame.iloc[perm], model, **kwargs)
    a = res.per_annotator.sort_values("annotator").reset_index(drop=True)
    b = res2.per_annotator.sort_values("annotator").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert (res.winning_rate, res.rho) == pytest.approx((res2.winning_rate, res2.rho), abs=1e-15)
    ind, skipped = oracle_indicators(_humans(frame), model, _acc, min_items=5)
    assert_same(res, oracle_result(ind, 0.1), skipped)


# -------------------------------------------------------------- the paper's datasets


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PAPER))
def test_alttest_examples_equal_the_oracle(name):
    folder = shared_path("data", "alttest_examples", name)
    humans = pd.read_csv(folder / "annotations.csv", dtype={"item_id": str,
                                                             "annotator_id": str})
    models = pd.read_csv(folder / "model_labels.csv", dtype={"item_id": str})
    scoring, paper_eps = PAPER[name]
    score = _acc if scoring == "accuracy" else _nrmse
    if scoring == "accuracy":
        humans["label"] = humans["label"].astype(str)
        models["label"] = models["label"].astype(str)
    hum = _humans(humans)
    for _model, rows in models.groupby("model", sort=False):
        labels = dict(zip(rows["item_id"], rows["label"], strict=True))
        ind, skipped = oracle_indicators(hum, labels, score)
        for eps in sorted({0.0, 0.1, 0.2, paper_eps}):
            res = judge.alt_test(humans, labels, epsilon=eps, scoring=scoring)
            assert_same(res, oracle_result(ind, eps), skipped)


def _lewidi(name):
    folder = shared_path("data", name)
    dataset = load(folder)
    items = pd.read_csv(folder / "items.csv", dtype=str)
    hard = dict(zip(items["item_id"], items["hard_label"], strict=True))
    models = {"hard_label": hard, "const0": dict.fromkeys(hard, "0"),
              "const1": dict.fromkeys(hard, "1")}
    return dataset, models


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hs_brexit", "md_agreement"])
def test_lewidi_sets_equal_the_oracle(name):
    dataset, models = _lewidi(name)
    frame = dataset.annotations.astype(str)
    hum = _humans(frame)
    for labels in models.values():
        ind, skipped = oracle_indicators(hum, labels, _acc)
        for eps in (0.0, 0.1, 0.2):
            res = judge.alt_test(dataset, labels, epsilon=eps)
            assert_same(res, oracle_result(ind, eps), skipped)
    if name == "md_agreement":
        assert len(res.skipped) > 0
        assert all("fewer than 30" in reason for reason in res.skipped.values())


@pytest.mark.slow
def test_leave_one_out_majority_on_hs_brexit():
    dataset, _ = _lewidi("hs_brexit")
    loo = judge.leave_one_out_majority(dataset)
    frame = dataset.annotations.astype(str)
    hum = _humans(frame)
    # the oracle's own leave-one-out majority (ties -> lowest inventory index "0")
    ref: dict = {}
    per_item: dict = {}
    for h, anns in hum.items():
        for i in anns:
            per_item.setdefault(i, []).append(h)
    for h, anns in hum.items():
        for i in anns:
            others = [hum[o][i] for o in per_item[i] if o != h]
            if others:
                ref.setdefault(h, {})[i] = max(dataset.labels, key=lambda lab, o=others: (
                    o.count(lab), -dataset.labels.index(lab)))
    assert loo == ref
    ind, skipped = oracle_indicators(hum, loo, _acc)
    for eps in (0.0, 0.1, 0.2):
        assert_same(judge.alt_test(dataset, loo, epsilon=eps), oracle_result(ind, eps), skipped)
        frame_form = judge.leave_one_out_majority(dataset, as_frame=True)
        assert_same(judge.alt_test(dataset, frame_form, epsilon=eps), oracle_result(ind, eps),
                    skipped)


def test_sweep_matches_single_runs():
    frame, model = _unanimous()
    noisy = dict(model)
    for k in list(noisy)[:8]:
        noisy[k] = "zzz"
    table = judge.alt_test_sweep(frame, {"good": model, "noisy": noisy}, [0.0, 0.1, 0.3])
    assert list(table["model"]) == ["good"] * 3 + ["noisy"] * 3
    for row in table.itertuples():
        res = judge.alt_test(frame, model if row.model == "good" else noisy, epsilon=row.epsilon)
        assert (row.winning_rate, row.rho, row.passed) == (res.winning_rate, res.rho, res.passed)


# ------------------------------------------------------------ scoring variants
def test_callable_equals_builtin_accuracy():
    frame, model = _unanimous()
    model = {k: ("x" if j % 4 else "y") for j, k in enumerate(model)}
    a = judge.alt_test(frame, model, epsilon=0.1)
    b = judge.alt_test(frame, model, epsilon=0.1, scoring=judge.alignment_accuracy)
    pd.testing.assert_frame_equal(a.per_annotator, b.per_annotator)


def test_multilabel_sets_and_jaccard():
    rows = []
    for i in range(35):
        for a in range(3):
            labs = ["p"] if (i + a) % 3 else ["p", "q"]
            rows += [(f"i{i}", f"a{a}", lab) for lab in labs]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    model = {f"i{i}": frozenset({"p"}) for i in range(35)}
    acc = judge.alt_test(frame, model, multilabel=True, epsilon=0.1)
    humans: dict = {}
    for i, a, lab in rows:
        humans.setdefault(a, {}).setdefault(i, set()).add(lab)
    humans = {a: {i: frozenset(s) for i, s in d.items()} for a, d in humans.items()}
    ind, skipped = oracle_indicators(humans, model, _acc)
    assert_same(acc, oracle_result(ind, 0.1), skipped)
    jac = judge.alt_test(frame, model, multilabel=True, scoring="jaccard", epsilon=0.1)
    ind, skipped = oracle_indicators(humans, model, judge.alignment_jaccard)
    assert_same(jac, oracle_result(ind, 0.1), skipped)
    with pytest.raises(ValueError, match="multi-label"):
        judge.alt_test(frame.drop_duplicates(["item_id", "annotator_id"]), model,
                       scoring="jaccard")


def test_multilabel_model_label_outside_the_inventory_is_kept():
    """A model set {p, zz} (zz not a human label) equals no human set and enlarges every union:
    the engine matches the pair-by-pair oracle on plain sets (Calderon et al. 2025, section 3)."""
    rows = []
    for i in range(35):
        for a in range(3):
            labs = ["p"] if (i + a) % 3 else ["p", "q"]
            rows += [(f"i{i}", f"a{a}", lab) for lab in labs]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    model = {f"i{i}": frozenset({"p", "zz"}) if i % 2 else frozenset({"p"}) for i in range(35)}
    humans: dict = {}
    for i, a, lab in rows:
        humans.setdefault(a, {}).setdefault(i, set()).add(lab)
    humans = {a: {i: frozenset(s) for i, s in d.items()} for a, d in humans.items()}
    for scoring, score in (("accuracy", _acc), ("jaccard", judge.alignment_jaccard)):
        got = judge.alt_test(frame, model, multilabel=True, scoring=scoring, epsilon=0.1)
        ind, skipped = oracle_indicators(humans, model, score)
        assert_same(got, oracle_result(ind, 0.1), skipped)
    # dropping zz would have let {p, zz} match the humans' {p}: the model then wins more often
    dropped = {k: frozenset({"p"}) for k in model}
    assert (judge.alt_test(frame, model, multilabel=True, epsilon=0.1).rho
            < judge.alt_test(frame, dropped, multilabel=True, epsilon=0.1).rho)


def test_wilcoxon_extension_matches_scipy():
    frame, model = _unanimous(n_items=40)
    model = {k: ("x" if j % 5 else "zzz") for j, k in enumerate(model)}
    rng = np.random.default_rng(3)
    frame = frame.assign(label=np.where(rng.random(len(frame)) < 0.2, "y", frame["label"]))
    res = judge.alt_test(frame, model, epsilon=0.1, test="wilcoxon")
    ind, _ = oracle_indicators(_humans(frame), model, _acc)
    for h, pairs in ind.items():
        ds = [d for d, _ in pairs]
        ref = stats.wilcoxon(np.array(ds) - 0.1, alternative="less", method="approx",
                             zero_method="wilcox", correction=False).pvalue
        got = res.per_annotator.set_index("annotator").at[h, "p_value"]
        assert got == pytest.approx(ref, rel=1e-9)


def test_neg_rmse_refuses_text_labels():
    frame, model = _unanimous()
    with pytest.raises(ValueError, match="numeric"):
        judge.alt_test(frame, model, scoring="neg_rmse")


@pytest.mark.slow
def test_counts_only_data_is_refused():
    dataset = load(shared_path("data", "chaosnli_calibration"))
    with pytest.raises(ValueError, match="annotator ids"):
        judge.alt_test(dataset, {})


def test_model_labels_from_predictions_forms():
    from hlv_core.samples import sample_path

    dataset = load(sample_path("case_review"))
    ann = dataset.annotations.astype(str)
    per = ann.assign(model="copy", prob=1.0)[["model", "item_id", "label", "prob",
                                               "annotator_id"]]
    labels = judge.model_labels_from_predictions(per, dataset, "copy")
    assert set(labels.columns) == {"annotator_id", "item_id", "label"}
    res = judge.alt_test(dataset, labels, epsilon=0.0)  # a copy of every annotator
    assert res.rho == 1.0 and res.per_annotator["p_value"].isna().all()
    items = judge.model_labels_from_predictions(dataset.predictions, dataset, "calibrated")
    assert len(items) == dataset.n_items and set(items.values()) <= set(dataset.labels)
    ml = load(sample_path("legal_areas"))
    sets = judge.model_labels_from_predictions(ml.predictions, ml, "overconfident")
    assert all(isinstance(v, frozenset) for v in sets.values())
    assert judge.alt_test(ml, sets, epsilon=0.1, min_items_per_annotator=10).n_tested > 0


def test_glossary_winning_rate_example():
    # 5 annotators, the model beats 3 of them: winning rate 0.6, passes
    assert judge.by_rejections([1e-6, 2e-6, 3e-6, 0.4, 0.9], 0.05).sum() / 5 == 0.6


def test_single_annotator_items_with_min_humans_1():
    frame, model = _unanimous(n_items=40, n_ann=3)
    extra = pd.DataFrame([(f"solo{i}", "a0", "x") for i in range(10)],
                         columns=["item_id", "annotator_id", "label"])
    frame = pd.concat([frame, extra], ignore_index=True)
    model = {**model, **{f"solo{i}": "x" for i in range(10)}}
    for scoring in ("accuracy", judge.alignment_accuracy):
        res = judge.alt_test(frame, model, epsilon=0.1, min_humans_per_item=1, scoring=scoring)
        ind, skipped = oracle_indicators(_humans(frame), model, _acc, min_humans=1)
        assert_same(res, oracle_result(ind, 0.1), skipped)
    assert judge.alt_test(frame, model, epsilon=0.1).n_items_dropped == 10


def test_constant_majority_on_label_sets():
    from hlv_core.samples import sample_path

    dataset = load(sample_path("legal_areas"))
    base = judge.constant_majority_labels(dataset)
    assert len(set(base.values())) == 1 and isinstance(next(iter(base.values())), frozenset)
    res = judge.alt_test(dataset, base, epsilon=0.1, min_items_per_annotator=10)
    assert 0.0 <= res.rho <= 1.0


def test_a_callable_sees_model_labels_in_the_datasets_spelling():
    """A Dataset holds label strings; integer model labels (1 for "1") reach a callable score as
    those strings, so the callable accuracy gives the built-in accuracy's result."""
    dataset, models = _lewidi("hs_brexit")
    as_ints = {item: int(label) for item, label in models["hard_label"].items()}
    built_in = judge.alt_test(dataset, as_ints, epsilon=0.1)
    seen = set()

    def accuracy(x, others):
        seen.add(type(x))
        return judge.alignment_accuracy(x, others)

    called = judge.alt_test(dataset, as_ints, epsilon=0.1, scoring=accuracy)
    assert seen == {str}
    assert called.winning_rate == built_in.winning_rate and called.rho == built_in.rho
    pd.testing.assert_frame_equal(called.per_annotator, built_in.per_annotator)


@pytest.mark.parametrize("settings, message", [
    ({"epsilon": float("nan")}, "epsilon must be a finite number"),
    ({"epsilon": -0.1}, "epsilon must be a finite number"),
    ({"q_fdr": 0.0}, "q_fdr"),
    ({"q_fdr": 1.5}, "q_fdr"),
    ({"min_humans_per_item": 0}, "min_humans_per_item"),
    ({"min_items_per_annotator": 2.5}, "min_items_per_annotator"),
])
def test_settings_without_meaning_are_refused(settings, message):
    """A NaN epsilon used to give NaN p-values and a silent winning rate of 0."""
    frame = pd.DataFrame({"item_id": np.repeat(["i1", "i2"], 3), "annotator_id": ["a", "b", "c"] * 2,
                          "label": ["x", "x", "y", "y", "y", "x"]})
    with pytest.raises(ValueError, match=message):
        judge.alt_test(frame, {"i1": "x", "i2": "y"}, **settings)
    sweep = {k: v for k, v in settings.items() if k != "epsilon"}
    epsilons = [settings["epsilon"]] if "epsilon" in settings else [0.1]
    with pytest.raises(ValueError, match=message):
        judge.alt_test_sweep(frame, {"m": {"i1": "x", "i2": "y"}}, epsilons, **sweep)
