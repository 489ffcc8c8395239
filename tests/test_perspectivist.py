"""Tests of hlv_core.perspectivist (PERSEVAL splits and metrics, Lo, Casola et al.)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlv_core import perspectivist as P
from hlv_core.io import DataError, build_dataset

from .conftest import shared_path

# --------------------------------------------------------------------------- a hand-made toy
TOY_PAIRS = [("u1", "t1"), ("u1", "t2"), ("u1", "t3"), ("u1", "t4"), ("u2", "t1"), ("u2", "t2"),
             ("u2", "t3"), ("u2", "t4"), ("u3", "t2"), ("u3", "t3"), ("u3", "t4")]
TOY_GOLD = ["0", "0", "0", "1", "1", "0", "1", "1", "0", "0", "0"]
TOY_PRED = ["0", "1", "1", "1", "0", "0", "0", "1", "0", "0", "0"]


def toy():
    gold = pd.DataFrame(TOY_PAIRS, columns=["annotator_id", "item_id"]).assign(label=TOY_GOLD)
    pred = gold.assign(label=TOY_PRED)
    traits = pd.DataFrame({"Gender": ["F", "M", "F"], "Generation": ["GenX", "GenY", "UNK"]},
                          index=pd.Index(["u1", "u2", "u3"], name="annotator_id"))
    return pred, gold, traits


def value(summary, level, label, metric):
    row = summary[(summary.level == level) & (summary.label == label) & (summary.metric == metric)]
    assert len(row) == 1
    return float(row["value"].iloc[0]), int(row["n_groups"].iloc[0])


def test_toy_reproduces_spec_numbers():
    pred, gold, traits = toy()
    s = P.evaluate(pred, gold, traits=traits).summary()
    assert list(s.columns) == ["level", "label", "metric", "value", "n_groups"]
    for metric in ("precision", "recall", "f1"):
        assert value(s, "global", "1", metric) == (pytest.approx(0.5), 1)
    assert value(s, "global", "0", "f1")[0] == pytest.approx(5 / 7)
    assert round(value(s, "global", "macro", "f1")[0], 3) == 0.607
    assert round(value(s, "global", "macro", "accuracy")[0], 3) == 0.636
    assert value(s, "user", "1", "f1") == (pytest.approx(0.5), 2)  # 2 of 3 users
    assert round(value(s, "user", "0", "f1")[0], 3) == 0.667
    assert round(value(s, "user", "macro", "accuracy")[0], 3) == 0.667
    assert value(s, "text", "1", "f1")[0] == pytest.approx(0.25)
    assert round(value(s, "text", "0", "f1")[0], 3) == 0.742
    assert value(s, "trait:Gender", "1", "f1") == (pytest.approx(0.5), 2)
    assert value(s, "trait:Generation", "1", "f1") == (pytest.approx(0.5), 2)  # UNK skipped
    assert round(value(s, "trait:Gender", "macro", "accuracy")[0], 3) == 0.607
    assert set(s.level) == {"global", "user", "text", "trait:Gender", "trait:Generation"}
    assert set(s.metric) == {"precision", "recall", "f1", "accuracy"}


def test_toy_report_tables_and_headline():
    pred, gold, traits = toy()
    report = P.evaluate(pred, gold, traits=traits)
    assert report.positive == "1"
    # u3 has no gold or predicted positives: class 1 absent, its macro = class-0 F1 = 1.0
    assert np.isnan(report.per_user.loc["u3", "f1:1"])
    assert report.per_user.loc["u3", "f1:macro"] == pytest.approx(1.0)
    assert report.per_trait.loc[("Gender", "F"), "n_users"] == 2
    assert ("Generation", "UNK") not in report.per_trait.index
    head = report.headline()
    assert head["label"] == "1" and head["f1"] == pytest.approx(0.5)
    assert head["user_f1"] == pytest.approx(0.5) and head["text_f1"] == pytest.approx(0.25)


def test_absent_zero_option_counts_every_group():
    pred, gold, traits = toy()
    s = P.evaluate(pred, gold, traits=traits, absent="zero").summary()
    assert value(s, "user", "1", "f1") == (pytest.approx(1 / 3), 3)


def test_user_id_text_id_columns_accepted():
    pred, gold, _ = toy()
    renamed = pred.rename(columns={"annotator_id": "user_id", "item_id": "text_id"})
    a = P.evaluate(renamed, gold).summary()
    b = P.evaluate(pred, gold).summary()
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------------- independent reference
def naive_group_scores(y, p, labels):
    """Per-class P/R/F1 of one group with scikit-learn's classification_report conventions."""
    out = {}
    present = [c for c in labels if c in set(y) | set(p)]
    for c in labels:
        if c not in present:
            out[c] = None
            continue
        tp = sum(1 for a, b in zip(y, p, strict=True) if a == c and b == c)
        npred = sum(1 for b in p if b == c)
        ngold = sum(1 for a in y if a == c)
        prec = tp / npred if npred else 0.0
        rec = tp / ngold if ngold else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        out[c] = (prec, rec, f1)
    macro = tuple(np.mean([out[c][i] for c in present]) for i in range(3))
    acc = sum(a == b for a, b in zip(y, p, strict=True)) / len(y)
    return out, macro, acc


def naive_level(frame, key, labels):
    per = {}
    for g, rows in frame.groupby(key):
        per[g] = naive_group_scores(list(rows["gold"]), list(rows["pred"]), labels)
    res = {}
    for j, metric in enumerate(("precision", "recall", "f1")):
        for c in labels:
            vals = [v[0][c][j] for v in per.values() if v[0][c] is not None]
            res[(c, metric)] = (np.mean(vals) if vals else np.nan, len(vals))
        res[("macro", metric)] = (np.mean([v[1][j] for v in per.values()]), len(per))
    res[("macro", "accuracy")] = (np.mean([v[2] for v in per.values()]), len(per))
    return res


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4))
def test_matches_naive_loops(seed, k):
    rng = np.random.default_rng(seed)
    labels = [f"c{i}" for i in range(k)]
    users = [f"u{i}" for i in range(rng.integers(2, 7))]
    texts = [f"t{i}" for i in range(rng.integers(2, 9))]
    pairs = [(u, t) for u in users for t in texts if rng.random() < 0.7] or [(users[0], texts[0])]
    gold = pd.DataFrame(pairs, columns=["annotator_id", "item_id"])
    gold["label"] = rng.choice(labels, len(gold))
    pred = gold.assign(label=rng.choice(labels, len(gold)))
    traits = pd.DataFrame({"g": rng.choice(["a", "b", "UNK"], len(users))}, index=users)
    report = P.evaluate(pred, gold, traits=traits, labels=labels)
    s = report.summary().set_index(["level", "label", "metric"])
    frame = gold.rename(columns={"label": "gold"}).assign(pred=pred["label"].to_numpy())
    frame["g"] = frame["annotator_id"].map(traits["g"])
    frame["all"] = "all"
    checks = [("global", "all", frame), ("user", "annotator_id", frame),
              ("text", "item_id", frame), ("trait:g", "g", frame[frame["g"] != "UNK"])]
    for level, key, sub in checks:
        if level.startswith("trait") and sub.empty:
            assert level not in set(s.index.get_level_values(0))
            continue
        for (label, metric), (expected, n) in naive_level(sub, key, labels).items():
            got = s.loc[(level, label, metric)]
            if np.isnan(expected):
                assert np.isnan(got["value"]) and got["n_groups"] == 0
            else:
                assert got["value"] == pytest.approx(expected, abs=1e-12)
                assert got["n_groups"] == n


# --------------------------------------------------------------------------- bad predictions
def test_predictions_in_the_gold_order_score_as_shuffled_ones():
    """Predictions naming the gold's pairs row for row are matched on the gold's codes alone;
    the same predictions shuffled take the joint coding: the same report. Duplicate gold
    pairs are refused either way."""
    ds = make_dataset(np.random.default_rng(9), 10, 15, 0.6)
    sp = P.make_splits(ds, adaptation="test", seed=1, extended=True)
    pred = sp.test.assign(label=np.random.default_rng(0).choice(["0", "1"], len(sp.test)))
    a = P.evaluate(pred, sp.test, traits=sp.traits)
    b = P.evaluate(pred.sample(frac=1.0, random_state=2), sp.test, traits=sp.traits)
    for part in ("global_", "per_user", "per_text", "per_trait", "instances"):
        pd.testing.assert_frame_equal(getattr(a, part), getattr(b, part))
    dup = pd.concat([sp.test, sp.test.iloc[:2]], ignore_index=True)
    with pytest.raises(DataError, match="duplicate"):
        P.evaluate(dup, dup)


def test_missing_and_extra_pairs_are_named():
    pred, gold, _ = toy()
    with pytest.raises(DataError, match=r"1 test \(user, text\) pair\(s\) have no prediction: "
                                        r"\(u3, t4\)"):
        P.evaluate(pred.iloc[:-1], gold)
    extra = pd.concat([pred, pd.DataFrame([{"annotator_id": "u9", "item_id": "t1",
                                            "label": "0"}])])
    with pytest.raises(DataError, match=r"not in the test set: \(u9, t1\)"):
        P.evaluate(extra, gold)


def test_duplicate_unknown_label_and_columns():
    pred, gold, _ = toy()
    with pytest.raises(DataError, match="duplicate"):
        P.evaluate(pd.concat([pred, pred.iloc[:1]]), gold)
    bad = pred.copy()
    bad.loc[0, "label"] = "maybe"
    with pytest.raises(DataError, match="'maybe'"):
        P.evaluate(bad, gold)
    with pytest.raises(DataError, match="lacks column"):
        P.evaluate(pred.drop(columns="item_id"), gold)
    with pytest.raises(ValueError, match="absent"):
        P.evaluate(pred, gold, absent="nope")


# --------------------------------------------------------------------------- splits
def make_dataset(rng, n_users, n_items, density, traits=True, k=2):
    rows = [(f"i{i}", f"a{u}", str(rng.integers(k))) for u in range(n_users)
            for i in range(n_items) if rng.random() < density or i == u % n_items]
    ann = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    annotators = None
    if traits:
        ids = sorted(ann["annotator_id"].unique())
        annotators = pd.DataFrame({"annotator_id": ids,
                                   "group": rng.choice(["x", "y"], len(ids))})
    return build_dataset(ann, source="synthetic", format="canonical", annotators=annotators,
                         labels=[str(i) for i in range(k)])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_users=st.integers(3, 14), n_items=st.integers(4, 30),
       density=st.floats(0.3, 1.0), share=st.floats(0.1, 0.5),
       reserve=st.sampled_from([0.0, 0.3, "auto"]))
def test_split_invariants(seed, n_users, n_items, density, share, reserve):
    rng = np.random.default_rng(seed)
    ds = make_dataset(rng, n_users, n_items, density)
    all_pairs = set(map(tuple, ds.annotations[["annotator_id", "item_id"]].to_numpy()))
    tests = []
    for mode in P.ADAPTATION_MODES:
        for extended in (False, True):
            try:
                sp = P.make_splits(ds, test_user_share=share, adaptation=mode, extended=extended,
                                   seed=seed, train_only_text_share=reserve)
            except DataError:
                continue  # e.g. nothing left to train on for this random draw
            sp.check()
            tr = set(sp.train["annotator_id"])
            te = set(sp.test["annotator_id"])
            assert te == set(sp.test_users)
            if mode in (False, "test"):
                assert not tr & te
            else:
                assert te <= tr
            if mode is False:
                assert sp.adaptation.empty
            if mode == "test":
                assert set(sp.adaptation["annotator_id"]) == te
            assert not set(sp.adaptation_labels()["item_id"]) & set(sp.test["item_id"])
            if not extended:
                assert not set(sp.train["item_id"]) & set(sp.test["item_id"])
            pairs = [set(map(tuple, f[["annotator_id", "item_id"]].to_numpy()))
                     for f in (sp.train, sp.adaptation, sp.test)]
            assert not (pairs[0] & pairs[1] or pairs[0] & pairs[2] or pairs[1] & pairs[2])
            assert pairs[0] | pairs[1] | pairs[2] <= all_pairs
            # labels are the dataset's labels for those pairs
            merged = sp.test.merge(ds.annotations, on=["annotator_id", "item_id"])
            assert (merged["label_x"] == merged["label_y"]).all()
            sizes = sp.sizes().set_index("split")
            assert sizes.loc["test", "instances"] == len(sp.test)
            tests.append(sp.test)
    for other in tests[1:]:  # the test split is the same in every variant
        pd.testing.assert_frame_equal(other, tests[0])


def test_split_is_seeded():
    ds = make_dataset(np.random.default_rng(1), 20, 40, 0.5)
    a = P.make_splits(ds, seed=3, extended=True)
    b = P.make_splits(ds, seed=3, extended=True)
    c = P.make_splits(ds, seed=4, extended=True)
    pd.testing.assert_frame_equal(a.test, b.test)
    assert a.test_users != c.test_users or not a.test.equals(c.test)
    assert a.settings()["seed"] == 3


def test_split_codes_kept_for_the_last_dataset_give_the_same_splits():
    from hlv_core.perspectivist.splits import long_annotations

    ds = make_dataset(np.random.default_rng(7), 8, 12, 0.6)
    first = P.make_splits(ds, seed=2, extended=True)
    long = long_annotations(ds)
    long["label"] = "changed"  # the caller's copy: the kept table is not touched
    other = make_dataset(np.random.default_rng(8), 9, 10, 0.7)
    for dataset in (ds, other, ds):  # kept, replaced by another dataset's, coded again
        again = P.make_splits(dataset, seed=2, extended=True)
        if dataset is ds:
            for part in ("train", "adaptation", "test"):
                pd.testing.assert_frame_equal(getattr(again, part), getattr(first, part))
    assert (long_annotations(ds)["label"] != "changed").all()


def test_unnamed_without_adaptation_is_refused_with_reason():
    ds = make_dataset(np.random.default_rng(2), 10, 20, 0.6, traits=False)
    with pytest.raises(DataError, match="would know nothing about the test users"):
        P.make_splits(ds, extended=True)
    sp = P.make_splits(ds, extended=True, baseline=True)
    assert not sp.named and sp.traits is None
    sp = P.make_splits(ds, extended=True, adaptation="test")
    assert not sp.named
    with pytest.raises(DataError, match="no annotator traits"):
        P.make_splits(ds, named=True, adaptation="test")
    named = make_dataset(np.random.default_rng(2), 10, 20, 0.6)
    with pytest.raises(DataError, match="would know nothing"):
        P.make_splits(named, named=False)


def test_bad_arguments():
    ds = make_dataset(np.random.default_rng(3), 10, 20, 0.6)
    with pytest.raises(ValueError, match="adaptation"):
        P.make_splits(ds, adaptation=True)
    with pytest.raises(ValueError, match="test_user_share"):
        P.make_splits(ds, test_user_share=1.0)
    with pytest.raises(ValueError, match="adaptation_share"):
        P.make_splits(ds, adaptation="test", adaptation_share=0.0)


def test_dense_strict_split_needs_reserve():
    ds = make_dataset(np.random.default_rng(4), 6, 30, 1.0)  # every annotator labels every text
    with pytest.raises(DataError, match="no training labels left"):
        P.make_splits(ds, adaptation_share=0.0)  # every text is a test text
    sp = P.make_splits(ds, train_only_text_share="auto")
    assert 0 < sp.train_only_text_share <= 0.9
    assert len(sp.test) <= 0.2 * (len(sp.train) + len(sp.test))


def test_check_catches_violations():
    ds = make_dataset(np.random.default_rng(5), 12, 30, 0.6)
    sp = P.make_splits(ds, adaptation="test")
    leak = pd.concat([sp.train, sp.test.iloc[:1]])
    with pytest.raises(ValueError, match="overlap"):
        dataclasses.replace(sp, train=leak).check()
    overlap = pd.concat([sp.adaptation, sp.test.iloc[:1].assign(annotator_id=sp.test_users[0])])
    bad = dataclasses.replace(sp, _adaptation_pool=overlap, adaptation=overlap)
    with pytest.raises(ValueError, match="split check failed"):
        bad.check()
    with pytest.raises(ValueError, match="adaptation=False"):
        dataclasses.replace(sp, adaptation_mode=False).check()


@functools.cache
def _coded_toy():
    """A small dataset, one of its splits and its coded annotations (built once)."""
    from hlv_core.perspectivist.splits import _coded_annotations

    ds = make_dataset(np.random.default_rng(6), 6, 8, 0.6)
    return P.make_splits(ds, adaptation="test", seed=0, extended=True), _coded_annotations(ds)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), mode=st.sampled_from(P.ADAPTATION_MODES),
       extended=st.booleans(), leak=st.booleans())
def test_code_level_checks_agree_with_the_frame_checks(seed, mode, extended, leak):
    """make_splits checks its splits on integer codes; on random row masks (some with a row in
    two splits) the code-level rules hold exactly when ``check()`` on the frames passes."""
    from hlv_core.perspectivist.splits import _checks_hold

    base, (ann, item_code, _, user_code, _) = _coded_toy()
    rng = np.random.default_rng(seed)
    # splits built as make_splits builds them (test users; adaptation / reserved texts), then
    # with ``leak`` one random row put into the test split as well
    test_user = rng.random(user_code.max() + 1) < 0.4
    adapt_text, reserved = (rng.random(item_code.max() + 1) < p for p in (0.3, 0.2))
    on_test_user, kept = test_user[user_code], ~reserved[item_code]
    adapt_m = on_test_user & adapt_text[item_code] & kept
    test_m = on_test_user & ~adapt_text[item_code] & kept
    train_m = ~on_test_user
    if not extended:
        train_m &= ~np.isin(item_code, item_code[test_m])
    if leak:
        test_m[rng.integers(len(test_m))] = True
    parts = [train_m, adapt_m] if mode == "train" else [train_m]
    pool = ann[adapt_m].reset_index(drop=True)
    test = ann[test_m].reset_index(drop=True)
    sp = dataclasses.replace(
        base, train=pd.concat([ann[m] for m in parts]).reset_index(drop=True),
        adaptation=pool if mode == "test" else pool.iloc[:0], test=test,
        test_users=tuple(sorted(set(test["annotator_id"]))), adaptation_mode=mode,
        extended=extended, _adaptation_pool=pool)
    try:
        sp.check()
        passes = True
    except ValueError:
        passes = False
    assert _checks_hold(parts, adapt_m, test_m, mode, extended, item_code, user_code) == passes


def test_multilabel_refused():
    ann = pd.DataFrame({"item_id": ["i1", "i1", "i2"], "annotator_id": ["a", "a", "b"],
                        "label": ["x", "y", "x"]})
    ds = build_dataset(ann, source="ml", format="canonical", task="multilabel")
    with pytest.raises(DataError, match="one label per"):
        P.make_splits(ds, baseline=True)


# --------------------------------------------------------------------------- baselines
def _split_from_tables(train, test, adaptation=None, traits=None, mode=False, labels=("0", "1")):
    adaptation = adaptation if adaptation is not None else train.iloc[:0]
    return P.PerspectivistSplits(
        train=train, adaptation=adaptation if mode == "test" else adaptation.iloc[:0],
        test=test, train_users=tuple(sorted(set(train["annotator_id"]))),
        test_users=tuple(sorted(set(test["annotator_id"]))), labels=labels, traits=traits,
        adaptation_mode=mode, extended=True, named=traits is not None, seed=0,
        test_user_share=0.2, adaptation_share=0.05, train_only_text_share=0.0,
        _adaptation_pool=adaptation,
    )


def frame(rows):
    return pd.DataFrame(rows, columns=["annotator_id", "item_id", "label"])


def test_baselines_by_hand():
    train = frame([("a", "t1", "1"), ("b", "t1", "1"), ("c", "t1", "0"),
                   ("a", "t2", "0"), ("b", "t2", "1"),  # tie -> lowest index "0"
                   ("c", "t3", "0"), ("a", "t4", "0")])
    test = frame([("x", "t1", "0"), ("x", "t2", "1"), ("y", "t1", "1"), ("y", "t5", "1")])
    adapt = frame([("x", "t9", "1"), ("y", "t8", "0"), ("y", "t7", "0")])
    traits = pd.DataFrame({"side": ["L", "L", "R", "R", "UNK"]},
                          index=pd.Index(["a", "b", "c", "x", "y"], name="annotator_id"))
    sp = _split_from_tables(train, test, adapt, traits, mode="test")
    mv = P.majority_baseline(sp).set_index(["annotator_id", "item_id"])["label"]
    # t1 majority 1; t2 tie -> "0"; t5 unseen -> training majority "0" (5 of 7)
    assert mv.to_dict() == {("x", "t1"): "1", ("x", "t2"): "0", ("y", "t1"): "1",
                            ("y", "t5"): "0"}
    tm = P.trait_majority_baseline(sp, "side").set_index(["annotator_id", "item_id"])["label"]
    # x is R: on t1 the R annotators (c) say 0; on t2 no R annotator -> text majority (tie) 0
    # y is UNK: text majority on t1 = 1; t5 -> training majority 0
    assert tm.to_dict() == {("x", "t1"): "0", ("x", "t2"): "0", ("y", "t1"): "1",
                            ("y", "t5"): "0"}
    um = P.user_majority_baseline(sp).set_index(["annotator_id", "item_id"])["label"]
    assert um.to_dict() == {("x", "t1"): "1", ("x", "t2"): "1", ("y", "t1"): "0",
                            ("y", "t5"): "0"}
    models, skipped = P.run_baselines(sp)
    assert set(models) == {"majority vote", "trait majority (side)", "user majority"}
    assert not skipped
    no_adapt = _split_from_tables(train, test, traits=None, mode=False)
    with pytest.raises(ValueError, match="adaptation"):
        P.user_majority_baseline(no_adapt)
    models, skipped = P.run_baselines(no_adapt)
    assert set(models) == {"majority vote"} and set(skipped) == {"trait majority",
                                                                  "user majority"}
    table = P.compare_models(models, test)
    assert list(table.columns) == ["model", "level", "label", "metric", "value", "n_groups"]


# --------------------------------------------------------------------------- beyond the reference
def test_bootstrap_users_seeded_and_consistent():
    pred, gold, traits = toy()
    a = P.bootstrap_users(pred, gold, traits=traits, n_boot=300, seed=1)
    b = P.bootstrap_users(pred, gold, traits=traits, n_boot=300, seed=1)
    c = P.bootstrap_users(pred, gold, traits=traits, n_boot=300, seed=2)
    pd.testing.assert_frame_equal(a, b)
    assert not a["low"].equals(c["low"]) or not a["sd"].equals(c["sd"])
    summary = P.evaluate(pred, gold, traits=traits).summary()
    key = ["label", "metric"]
    glob = a[a.level == "global"].merge(summary[summary.level == "global"], on=key)
    assert np.allclose(glob["estimate"], glob["value"], equal_nan=True)
    user = a[a.level == "user"].merge(summary[summary.level == "user"], on=key)
    assert np.allclose(user["estimate"], user["value"], equal_nan=True)
    dim = a[(a.level == "trait:Gender") & (a.group == "mean")].merge(
        summary[summary.level == "trait:Gender"], on=key)
    assert np.allclose(dim["estimate"], dim["value"], equal_nan=True)
    ok = a.dropna(subset=["low", "high"])
    assert (ok["low"] <= ok["high"] + 1e-12).all()
    assert set(a[a.level == "trait:Gender"]["group"]) == {"F", "M", "mean"}


def test_bootstrap_replicate_equals_resampled_data():
    """The vectorised weights give the same global F1 as literally resampling users."""
    rng = np.random.default_rng(7)
    users = [f"u{i}" for i in range(8)]
    gold = pd.DataFrame([(u, f"t{j}") for u in users for j in range(6)],
                        columns=["annotator_id", "item_id"])
    gold["label"] = rng.choice(["0", "1"], len(gold))
    pred = gold.assign(label=rng.choice(["0", "1"], len(gold)))
    out = P.bootstrap_users(pred, gold, n_boot=1, seed=11, ci=0.5)
    w = np.random.default_rng(11).multinomial(8, np.full(8, 1 / 8), size=1)[0]
    picked = np.repeat(np.arange(8), w)
    frames = [gold.assign(pred=pred["label"]).query("annotator_id == @u").assign(copy=i)
              for i, u in enumerate(np.array(users)[picked])]
    data = pd.concat(frames)
    scores, macro, acc = naive_group_scores(list(data["label"]), list(data["pred"]), ["0", "1"])
    row = out[(out.level == "global") & (out.label == "1") & (out.metric == "f1")]
    assert row["low"].iloc[0] == pytest.approx(scores["1"][2])
    row = out[(out.level == "global") & (out.metric == "accuracy")]
    assert row["low"].iloc[0] == pytest.approx(acc)


def test_trait_gaps():
    pred, gold, traits = toy()
    gaps = P.evaluate(pred, gold, traits=traits).trait_gaps(metric="accuracy")
    g = gaps.set_index("dimension").loc["Gender"]
    # F: u1 (2/4) + u3 (3/3) -> 5/7; M: u2 2/4
    assert g["best_value"] == "F" and g["best"] == pytest.approx(5 / 7)
    assert g["worst_value"] == "M" and g["gap"] == pytest.approx(5 / 7 - 0.5)
    with pytest.raises(ValueError):
        P.trait_gaps(P.evaluate(pred, gold, traits=traits), metric="f1", label="zzz")


def test_lewidi_scores_by_hand():
    gold = frame([("a", "t1", "1"), ("b", "t1", "3"), ("a", "t2", "6")])
    pred = frame([("a", "t1", "2"), ("b", "t1", "3"), ("a", "t2", "1")])
    labels = ["1", "2", "3", "4", "5", "6"]
    out = P.lewidi_scores(pred, gold, labels=labels)
    # t1: errors 1/2, distances (1 + 0)/2/6; t2: error 1, distance 5/6
    assert out["error_rate"] == pytest.approx((0.5 + 1.0) / 2)
    assert out["normalised_absolute_distance"] == pytest.approx((1 / 12 + 5 / 6) / 2)
    assert out["scale"] == 6
    rounded = P.lewidi_scores(pred, gold, labels=labels, decimals=2)
    assert rounded["normalised_absolute_distance"] == round((0.08 + 0.83) / 2, 2)


def test_soft_user_scores():
    gold = frame([("a", "t1", "1"), ("a", "t2", "3"), ("b", "t1", "2")])
    soft = pd.DataFrame({"annotator_id": ["a", "a", "a", "b"], "item_id": ["t1", "t1", "t2", "t1"],
                         "label": ["1", "3", "3", "2"], "prob": [0.5, 0.5, 1.0, 1.0]})
    out = P.soft_user_scores(soft, gold, labels=["1", "2", "3"])
    assert out.loc["a", "soft_accuracy"] == pytest.approx((0.5 + 1.0) / 2)
    assert out.loc["a", "abs_error"] == pytest.approx((0.5 * 2) / 2)
    assert out.loc["b", "soft_accuracy"] == 1.0 and out.loc["b", "n"] == 1
    with pytest.raises(DataError, match="no prediction"):
        P.soft_user_scores(soft[soft.annotator_id == "a"], gold, labels=["1", "2", "3"])
    with pytest.raises(DataError, match="sum to"):
        P.soft_user_scores(soft.assign(prob=0.4), gold, labels=["1", "2", "3"])


def test_trait_table_bins_numeric_traits():
    annotators = pd.DataFrame({"annotator_id": [f"a{i}" for i in range(40)],
                               "age": [str(18 + i) for i in range(39)] + ["DATA_EXPIRED"],
                               "gender": ["F", "M"] * 20, "empty": [None] * 40})
    t = P.trait_table(annotators)
    assert list(t.columns) == ["age", "gender"]
    assert t["age"].nunique() == 4 and pd.isna(t.loc["a39", "age"])


# --------------------------------------------------------------------------- real data
def load_real(name):
    folder = shared_path("data", name)
    ann = pd.read_csv(folder / "annotations.csv", dtype=str)
    annotators = pd.read_csv(folder / "annotators.csv", dtype=str)
    return build_dataset(ann, source=name, format="canonical", annotators=annotators)


def test_multipico_end_to_end():
    ds = load_real("multipico")
    sp = P.make_splits(ds, adaptation="test", seed=0)
    sizes = sp.sizes().set_index("split")
    assert sizes.loc["test", "users"] == len(sp.test_users) > 50
    assert not set(sp.train["item_id"]) & set(sp.test["item_id"])
    models, skipped = P.run_baselines(sp, dimensions=["gender"])
    assert not skipped
    table = P.compare_models(models, sp.test, traits=sp.test_traits(), labels=ds.labels)
    f1 = table[(table.level == "user") & (table.label == "1") & (table.metric == "f1")]
    f1 = f1.set_index("model")["value"]
    # knowing a few labels of each user beats ignoring them on MultiPICo
    assert f1["user majority"] > f1["majority vote"]
    report = P.evaluate(models["user majority"], sp.test, traits=sp.test_traits(),
                        labels=ds.labels)
    assert report.per_user.shape[0] == len(sp.test_users)
    assert {"trait:gender", "trait:age"} <= set(report.summary().level)


def test_armis_dense_named():
    ds = load_real("armis")
    sp = P.make_splits(ds, train_only_text_share="auto")
    assert len(sp.test_users) == 1 and sp.named
    models, skipped = P.run_baselines(sp)
    assert "trait majority (group)" in models and "user majority" in skipped
    for preds in models.values():
        P.evaluate(preds, sp.test, traits=sp.test_traits(), labels=ds.labels)


# --------------------------------------------------------------------------- command line
def test_cli_perspectives_and_split(tmp_path, capsys):
    import json

    from hlv_core.cli import main

    folder = shared_path("data", "armis")
    args = [str(folder / "annotations.csv"), "--traits", str(folder / "annotators.csv")]
    assert main(["perspectives", *args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["named"] is True and out["settings"]["seed"] == 0
    models = {row["model"] for row in out["summary"]}
    assert {"majority vote", "trait majority (group)"} <= models
    assert main(["split", *args, "--out", str(tmp_path), "--adaptation", "test"]) == 0
    test = pd.read_csv(tmp_path / "test.csv", dtype=str)
    adapt = pd.read_csv(tmp_path / "adaptation.csv", dtype=str)
    assert len(test) and len(adapt) and not set(test["item_id"]) & set(adapt["item_id"])
    capsys.readouterr()
    preds = test.assign(label="0")
    preds.to_csv(tmp_path / "preds.csv", index=False)
    assert main(["perspectives", *args, "--adaptation", "test", "--predictions",
                 str(tmp_path / "preds.csv")]) == 0
    assert "preds" in capsys.readouterr().out
    preds.iloc[1:].to_csv(tmp_path / "short.csv", index=False)
    assert main(["perspectives", *args, "--adaptation", "test", "--predictions",
                 str(tmp_path / "short.csv")]) == 2
    assert "have no prediction" in capsys.readouterr().err
    md = shared_path("data", "md_agreement", "annotations.csv")
    assert main(["perspectives", str(md)]) == 2
    assert "would know nothing" in capsys.readouterr().err


def test_stratified_test_users_cover_every_trait_value():
    from hlv_core.samples import load_sample

    dataset = load_sample("case_review")
    plain = P.make_splits(dataset, test_user_share=0.2, seed=0)
    strat = P.make_splits(dataset, test_user_share=0.2, seed=0, stratify="group")
    groups = dataset.annotators.set_index("annotator_id")["group"]
    assert set(groups[list(strat.test_users)]) == {"claimant-side", "defence-side"}
    assert len(strat.test_users) == 2 and len(plain.test_users) == 2
    strat.check()
    with pytest.raises(DataError, match="not a trait column"):
        P.make_splits(dataset, stratify="shoe_size")


def test_evaluate_with_no_rows_is_a_clear_error():
    empty = pd.DataFrame({"annotator_id": [], "item_id": [], "label": []}, dtype=str)
    with pytest.raises(DataError, match="0 rows"):
        P.evaluate(empty, empty)


def test_counts_and_multilabel_data_are_told_what_they_lack_first(tmp_path):
    """Label counts have no users to split and multi-label data no single label per (user,
    text): ``make_splits`` says so before any split setting is judged (counts data used to
    hear about adaptation settings it could never meet)."""
    from hlv_core.io import load

    counts = tmp_path / "label_counts.csv"
    counts.write_text("item_id,label,count\n" + "".join(
        f"t{i},yes,{2 + i % 3}\nt{i},no,{1 + i % 2}\n" for i in range(20)), encoding="utf-8")
    with pytest.raises(DataError, match="anonymous annotations; users cannot be split"):
        P.make_splits(load(counts))
    rows = [(f"t{i}", f"u{a}", lab) for i in range(20) for a in range(4)
            for lab in (["x", "y"] if (i + a) % 3 == 0 else ["x"])]
    multilabel = build_dataset(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
                               source="m.csv", format="canonical", task="multilabel")
    with pytest.raises(DataError, match="needs one label per \\(user, text\\)"):
        P.make_splits(multilabel)
