"""Tests of hlv_core.competence: Dawid-Skene, one-coin DS, MACE and the annotator report."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hlv_core import competence as C
from tests.conftest import shared_path

# crowd-kit 1.4.2 (the test-only oracle) uses pandas keywords that pandas 3 deprecates
pytestmark = pytest.mark.filterwarnings("ignore::Warning:crowdkit")


def read(*parts: str) -> pd.DataFrame:
    return pd.read_csv(shared_path("data", *parts), dtype=str, keep_default_na=False)


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])


# ----------------------------------------------------------------------- a loop-by-loop reference
def naive_ds(rows, labels, n_iter, one_coin=False):
    """Dawid-Skene written with Python loops over rows (the textbook algorithm, no arrays)."""
    items = sorted({r[0] for r in rows})
    anns = sorted({r[1] for r in rows})
    K = len(labels)
    used = {a: {r[2] for r in rows if r[1] == a} for a in anns}
    T = {}
    for i in items:
        mine = [r[2] for r in rows if r[0] == i]
        T[i] = [mine.count(lab) / len(mine) for lab in labels]
    for _ in range(n_iter):
        prior = [sum(T[i][k] for i in items) / len(items) for k in range(K)]
        pi = {}
        for a in anns:
            n = [[0.0] * K for _ in range(K)]
            for (i, b, lab) in rows:
                if b == a:
                    for k in range(K):
                        n[k][labels.index(lab)] += T[i][k]
            if one_coin:
                s = sum(n[k][k] for k in range(K)) / sum(map(sum, n))
                pi[a] = [[min(max(s if k == m else (1 - s) / (K - 1), 1e-10), 1 - 1e-10)
                          for m in range(K)] for k in range(K)]
            else:
                pi[a] = []
                for k in range(K):
                    row = [max(n[k][m], 1e-10) if labels[m] in used[a] else 0.0 for m in range(K)]
                    tot = sum(row)
                    pi[a].append([v / tot for v in row])
        for i in items:
            logs = [math.log(max(prior[k], 1e-10)) for k in range(K)]
            for (j, a, lab) in rows:
                if j == i:
                    for k in range(K):
                        logs[k] += math.log(pi[a][k][labels.index(lab)])
            m = max(logs)
            e = [math.exp(v - m) for v in logs]
            T[i] = [v / sum(e) for v in e]
    return T, pi, prior


SMALL = [("i1", "a", "x"), ("i1", "b", "x"), ("i1", "c", "y"),
         ("i2", "a", "y"), ("i2", "b", "y"), ("i2", "c", "y"),
         ("i3", "a", "x"), ("i3", "b", "y"), ("i3", "c", "x"),
         ("i4", "a", "z"), ("i4", "b", "x"), ("i4", "c", "z"),
         ("i5", "a", "x"), ("i5", "b", "x")]


@pytest.mark.parametrize("one_coin", [False, True])
def test_matches_loop_reference_after_fixed_iterations(one_coin):
    fn = C.one_coin_dawid_skene if one_coin else C.dawid_skene
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = fn(frame(SMALL), max_iter=7, accelerate=False)  # plain EM, step by step
    T, pi, prior = naive_ds(SMALL, ["x", "y", "z"], 7, one_coin=one_coin)
    for i in T:
        np.testing.assert_allclose(res.posteriors.loc[i].to_numpy(), T[i], atol=1e-12)
    for a in pi:
        np.testing.assert_allclose(res.confusion[a].to_numpy(), pi[a], atol=1e-12)
    np.testing.assert_allclose(res.priors.to_numpy(), prior, atol=1e-12)


def test_hand_example_first_m_step():
    # soft majority of SMALL: i1 (2/3 x, 1/3 y); annotator c answered y on i1, y on i2, x on i3
    enc = C._encode(frame(SMALL))
    T0 = C._soft_majority(enc)
    np.testing.assert_allclose(T0[0], [2 / 3, 1 / 3, 0])
    counts, mass = C._sufficient_stats(enc.R, T0)
    c = list(enc.annotators).index("c")
    # c's rows: i1 y, i2 y, i3 x, i4 z; T0: i1 (2/3,1/3,0), i2 (0,1,0), i3 (2/3,1/3,0), i4 (1/3,0,2/3)
    expected = np.array([[2 / 3, 2 / 3, 1 / 3], [1 / 3, 4 / 3, 0], [0, 0, 2 / 3]])
    np.testing.assert_allclose(counts[c], expected, atol=1e-15)
    priors, pi = C._ds_m_step(counts, C._used(enc), mass, 5)
    np.testing.assert_allclose(pi[c][0], np.array([2 / 3, 2 / 3, 1 / 3]) / (5 / 3))
    _, pi1, skill = C._one_coin_m_step(counts, mass, 5)
    assert skill[c] == pytest.approx((2 / 3 + 4 / 3 + 2 / 3) / 4)


def test_partitioned_statistics_add_up():
    """E-step per partition + summed statistics = one M-step on all rows (for split data)."""
    df = read("hs_brexit", "annotations.csv")
    enc = C._encode(df)
    T = C._soft_majority(enc)
    counts, mass = C._sufficient_stats(enc.R, T)
    half = len(enc.items) // 2
    c1, m1 = C._sufficient_stats(enc.R[:half], T[:half])
    c2, m2 = C._sufficient_stats(enc.R[half:], T[half:])
    np.testing.assert_allclose(c1 + c2, counts, atol=1e-9)
    priors, pi = C._ds_m_step(counts, C._used(enc), mass, len(enc.items))
    T_all, ll = C._e_step(enc.R, priors, pi)
    Ta, la = C._e_step(enc.R[:half], priors, pi)
    Tb, lb = C._e_step(enc.R[half:], priors, pi)
    np.testing.assert_allclose(np.vstack([Ta, Tb]), T_all, atol=1e-14)
    assert la + lb == pytest.approx(ll, rel=1e-12)


# --------------------------------------------------------------------------- section 9A / 9B
BINARY = [("hs_brexit", "annotations.csv"), ("armis", "annotations.csv"),
          ("convabuse", "annotations_binary.csv")]


def crowdkit_frame(df):
    return df.rename(columns={"item_id": "task", "annotator_id": "worker"})


@pytest.mark.parametrize("parts", BINARY)
@pytest.mark.parametrize("model", ["ds", "one-coin"])
def test_crowdkit_rule_reproduces_crowdkit_defaults(parts, model):
    ck = pytest.importorskip("crowdkit.aggregation")
    df = read(*parts)
    fn = C.dawid_skene if model == "ds" else C.one_coin_dawid_skene
    ours = fn(df, stop="crowdkit", tol=1e-5, max_iter=100)
    cls = ck.DawidSkene if model == "ds" else ck.OneCoinDawidSkene
    est = cls()
    theirs = est.fit_predict_proba(crowdkit_frame(df))
    theirs = theirs.reindex(index=ours.posteriors.index, columns=ours.posteriors.columns)
    np.testing.assert_allclose(theirs.to_numpy(), ours.posteriors.to_numpy(), atol=1e-8)
    assert ours.n_iter == len(est.loss_history_)


@pytest.mark.parametrize("parts", BINARY)
@pytest.mark.parametrize("model", ["ds", "one-coin"])
def test_fixed_point_is_crowdkits_fixed_point(parts, model):
    """Our converged state is a fixed point of crowd-kit's own E- and M-steps (one step each)."""
    ck = pytest.importorskip("crowdkit.aggregation")
    df = read(*parts)
    fn = C.dawid_skene if model == "ds" else C.one_coin_dawid_skene
    res = fn(df)
    assert res.converged and res.n_iter < 500
    data = crowdkit_frame(df)[["task", "worker", "label"]]
    post = res.posteriors.copy()
    post.index.name = "task"
    post.columns = pd.Index(list(post.columns), name="label")
    if model == "ds":
        errors = ck.DawidSkene._m_step(data, post)
        ours = pd.concat({a: m.T for a, m in res.confusion.items()}, names=["worker", "label"])
        ours = ours.reindex(errors.index)[errors.columns]
        np.testing.assert_allclose(errors.to_numpy(), ours.to_numpy(), atol=1e-6)
    else:
        skills = ck.OneCoinDawidSkene._m_step(data, post)
        np.testing.assert_allclose(skills.reindex(res.skill.index).to_numpy(),
                                   res.skill.to_numpy(), atol=1e-6)
        errors = ck.OneCoinDawidSkene._process_skills_to_errors(data, post, skills)
    again = ck.DawidSkene._e_step(data, res.priors.copy(), errors)
    again = again.reindex(index=res.posteriors.index, columns=res.posteriors.columns)
    np.testing.assert_allclose(again.to_numpy(), res.posteriors.to_numpy(), atol=1e-6)
    hard = again.to_numpy().argmax(axis=1)
    assert (np.asarray(res.posteriors.columns)[hard] == res.labels.to_numpy()).all()


@pytest.mark.slow
def test_fixed_point_matches_crowdkit_run_long_on_armis():
    ck = pytest.importorskip("crowdkit.aggregation")
    df = read("armis", "annotations.csv")
    ours = C.dawid_skene(df)
    est = ck.DawidSkene(n_iter=ours.n_iter + 40, tol=-np.inf)
    theirs = est.fit_predict_proba(crowdkit_frame(df))
    theirs = theirs.reindex(index=ours.posteriors.index, columns=ours.posteriors.columns)
    np.testing.assert_allclose(theirs.to_numpy(), ours.posteriors.to_numpy(), atol=1e-6)
    assert (est.labels_.reindex(ours.labels.index) == ours.labels).all()


def test_ds_differs_from_majority_and_loglik_monotone():
    df = read("hs_brexit", "annotations.csv")
    res = C.dawid_skene(df)
    ct = pd.crosstab(df["item_id"], df["label"]).reindex(res.labels.index)
    tied = ct.eq(ct.max(axis=1), axis=0).sum(axis=1) > 1
    differ = (ct.idxmax(axis=1) != res.labels) | tied
    assert differ.mean() > 0.05
    assert (np.diff(res.loglik_history) >= -1e-9).all()
    assert res.loglik == pytest.approx(res.loglik_history[-1])


@pytest.mark.slow
def test_md_agreement_one_coin_converges_and_is_crowdkits_fixed_point():
    df = read("md_agreement", "annotations.csv")
    res = C.one_coin_dawid_skene(df)
    assert res.converged and res.n_iter < 3000
    ck = pytest.importorskip("crowdkit.aggregation")
    data = crowdkit_frame(df)[["task", "worker", "label"]]
    post = res.posteriors.copy()
    post.index.name = "task"
    skills = ck.OneCoinDawidSkene._m_step(data, post).reindex(res.skill.index)
    big = res.n_rows >= 200
    np.testing.assert_allclose(skills[big].to_numpy(), res.skill[big].to_numpy(), atol=1e-6)
    assert (np.diff(res.loglik_history) >= -1e-9).all()
    # crowd-kit's default DS (its own stopping rule) reproduced with stop="crowdkit"
    ours = C.dawid_skene(df, stop="crowdkit", tol=1e-5, max_iter=100)
    theirs = ck.DawidSkene().fit_predict_proba(crowdkit_frame(df))
    theirs = theirs.reindex(index=ours.posteriors.index, columns=ours.posteriors.columns)
    np.testing.assert_allclose(theirs.to_numpy(), ours.posteriors.to_numpy(), atol=1e-8)


# ---------------------------------------------------------------------------------- MACE (9C)
@pytest.mark.parametrize("name", ["hs_brexit", "armis"])
def test_mace_seeds_agree(name):
    df = read(name, "annotations.csv")
    runs = [C.mace(df, seed=s) for s in (0, 1)]
    assert (runs[0].labels == runs[1].labels).all()
    assert (runs[0].competence - runs[1].competence).abs().max() < 1e-3
    np.testing.assert_allclose(runs[0].posteriors.sum(axis=1), 1.0)


def test_mace_restarts_differ_and_seed_reproduces():
    df = frame(SMALL)
    a = C.mace(df, n_restarts=4, n_iter=0, seed=5)
    b = C.mace(df, n_restarts=4, n_iter=0, seed=5)
    pd.testing.assert_series_equal(a.competence, b.competence)
    assert len(np.unique(a.restart_loglik)) == 4           # every restart starts elsewhere
    assert a.best_restart == int(np.argmax(a.restart_loglik))
    c = C.mace(df, n_restarts=4, n_iter=0, seed=6)
    assert not np.allclose(a.restart_loglik, c.restart_loglik)


def test_mace_hand_example_one_e_step():
    # two annotators, one item, K = 2: spamming (g, 1-g) and strategy theta fixed by hand
    enc = C._encode(frame([("i", "a", "x"), ("i", "b", "y")]))
    spam = np.array([[0.2, 0.8], [0.6, 0.4]])
    theta = np.array([[0.5, 0.5], [0.3, 0.7]])
    T, ll, g, k, s = C._mace_e_step(enc, np.log([0.5, 0.5]), spam, theta)
    # class x: a knows-or-guesses x: 0.2*0.5 + 0.8; b guesses y: 0.6*0.7
    lx = (0.1 + 0.8) * 0.42
    ly = 0.1 * (0.42 + 0.4)
    assert T[0, 0] == pytest.approx(lx / (lx + ly))
    assert ll == pytest.approx(math.log(0.5 * lx + 0.5 * ly))
    know_a = T[0, 0] * 0.8 / (0.1 + 0.8)
    assert k[0] == pytest.approx(know_a)
    assert g[0] == pytest.approx(1 - know_a)
    assert s[0, 0] == pytest.approx(1 - know_a)


def test_mace_vb_m_step_formula():
    from scipy.special import digamma
    spam, theta = C._mace_m_step(np.array([2.0]), np.array([3.0]), np.array([[1.0, 1.0]]),
                                 method="vb", alpha=0.5, beta=0.5, strategy_prior=10.0,
                                 smoothing=0.0)
    assert spam[0, 1] == pytest.approx(math.exp(digamma(3.5) - digamma(6.0)))
    assert spam.sum() < 1  # sub-normalised, as MACE writes it
    assert theta[0, 0] == pytest.approx(math.exp(digamma(11.0) - digamma(22.0)))


# ----------------------------------------------------------------------- section 9F properties
rows_strategy = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 4), st.integers(0, 2)), min_size=12, max_size=40,
    unique_by=lambda r: (r[0], r[1]))


def _df(rows):
    return frame([(f"i{i}", f"a{a}", f"l{lab}") for i, a, lab in rows])


def _usable(df):
    return df["annotator_id"].nunique() >= 2 and df["label"].nunique() >= 2


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rows_strategy, st.randoms(use_true_random=False))
def test_permuting_and_renaming_change_nothing(rows, rnd):
    df = _df(rows)
    if not _usable(df):
        return
    perm = df.sample(frac=1.0, random_state=rnd.randint(0, 10_000)).reset_index(drop=True)
    renamed = df.assign(item_id="x" + df["item_id"], annotator_id="z" + df["annotator_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for fn in (C.dawid_skene, C.one_coin_dawid_skene):
            a, b = fn(df, max_iter=200), fn(perm, max_iter=200)
            c = fn(renamed, max_iter=200)
            np.testing.assert_allclose(a.posteriors.to_numpy(), b.posteriors.to_numpy(), atol=1e-12)
            np.testing.assert_allclose(a.posteriors.to_numpy(), c.posteriors.to_numpy(), atol=1e-12)
            np.testing.assert_allclose(a.confusion_array, b.confusion_array, atol=1e-12)
        m1, m2 = C.mace(df, n_restarts=2, n_iter=10), C.mace(perm, n_restarts=2, n_iter=10)
        np.testing.assert_allclose(m1.competence.to_numpy(), m2.competence.to_numpy(), atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(rows_strategy)
@example(rows=[(2, 1, 0), (0, 0, 0), (0, 1, 1), (0, 2, 0), (0, 3, 0), (0, 4, 0), (1, 0, 0),
               (1, 1, 0), (1, 2, 0), (1, 3, 0), (2, 0, 0), (3, 0, 0)])  # apart by 1.2e-5 before
def test_duplicated_annotator_gets_the_same_competence(rows):
    df = _df(rows)
    if not _usable(df):
        return
    first = df["annotator_id"].iloc[0]
    copy = df[df["annotator_id"] == first].assign(annotator_id="copy")
    both = pd.concat([df, copy], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        oc = C.one_coin_dawid_skene(both, max_iter=300)
        ds = C.dawid_skene(both, max_iter=300)
    assert oc.skill[first] == pytest.approx(oc.skill["copy"], abs=1e-12)
    assert ds.accuracy[first] == pytest.approx(ds.accuracy["copy"], abs=1e-12)
    # from equal starting values (no random spread): the copy's updates are the original's.
    # With MACE's random starts the two begin apart and 20 iterations need not bring them within
    # 1e-6 (hypothesis found 0.316436 vs 0.316448)
    m = C.mace(both, n_restarts=2, n_iter=20, init_noise=0.0)
    assert m.competence[first] == pytest.approx(m.competence["copy"], abs=1e-6)


def test_all_agree_gives_accuracy_one():
    rows = [(f"i{i}", a, "pos" if i % 3 else "neg") for i in range(30) for a in "abcd"]
    res = C.dawid_skene(frame(rows))
    assert (res.accuracy > 1 - 1e-8).all() and (res.accuracy <= 1).all()
    truth = pd.Series(["pos" if i % 3 else "neg" for i in range(30)],
                      index=[f"i{i}" for i in range(30)])
    assert (res.labels == truth.reindex(res.labels.index)).all()
    for item, lab in truth.items():
        assert res.posteriors.loc[item, lab] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("fn", [C.dawid_skene, C.one_coin_dawid_skene, C.mace])
def test_bad_input_raises_clear_errors(fn):
    with pytest.raises(ValueError, match="at least 2"):
        fn(frame([("i1", "a", "x"), ("i2", "a", "y")]))
    with pytest.raises(ValueError, match="only one label"):
        fn(frame([("i1", "a", "x"), ("i1", "b", "x")]))
    with pytest.raises(ValueError, match="missing"):
        fn(pd.DataFrame({"item": ["i"]}))


@pytest.mark.parametrize("fn", [C.dawid_skene, C.one_coin_dawid_skene])
def test_an_initialisation_other_than_soft_majority_is_refused(fn):
    """EM starts from each item's label shares (Dawid & Skene 1979, section 2): a start that
    would silently run as soft majority ('majority') is refused rather than renamed."""
    rows = [(f"i{i}", a, "xy"[(i + (a == "c")) % 2]) for i in range(6) for a in "abc"]
    for init in ("majority", "random"):
        with pytest.raises(ValueError, match="use 'soft_majority'"):
            fn(frame(rows), init=init)
    assert fn(frame(rows), init="soft_majority").converged


def test_skill_median_counts_only_annotators_with_enough_rows():
    """The unreliable line 1/K + f (median skill - 1/K) takes the median over annotators with
    at least min_rows rows (Dawid & Skene 1979, section 2, for the skills): ten annotators
    with 5 random labels each do not pull the line down."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 60)
    rows = [(f"i{i}", f"good{a}", "xy"[t if rng.random() > 0.1 else 1 - t])
            for i, t in enumerate(truth) for a in range(4)]
    rows += [(f"i{i}", f"rare{a}", "xy"[rng.integers(0, 2)])
             for a in range(10) for i in rng.choice(60, 5, replace=False)]
    report = C.annotator_report(frame(rows), mace_restarts=0)
    enough = report["n_rows"] >= C.REPORT_THRESHOLDS["min_rows"]
    assert enough.sum() == 4
    median = float(np.median(report.loc[enough, "skill"]))
    assert report.attrs["skill_cut"] == pytest.approx(0.5 + 0.5 * (median - 0.5))
    assert (report.loc[~enough, "kind"] == "insufficient_data").all()


def test_known_camps_and_their_topic_find_more_of_the_planted_minority():
    """Rule (b) with camps from a known trait (here the planted role) on the topic where the
    minority diverges: more minority members are systematic and no one else is added (Basile,
    section 3, camps; the planted data's README states the roles)."""
    from hlv_core.io import load

    dataset = load(shared_path("data", "planted_camps"))
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    roles = dataset.annotators.set_index("annotator_id")["role"].astype(str)
    items = dataset.items.set_index("item_id")
    # the minority's topic, from the truth: where its members miss the true label most often
    rows = annotations.join(items, on="item_id")
    rows = rows[rows["annotator_id"].map(roles) == "minority"]
    topic = (rows["label"].astype(str) != rows["true_label"].astype(str)).groupby(
        rows["topic"]).mean().idxmax()
    camps = C.trait_camps(dataset.annotators, "role")
    assert camps.to_dict() == roles.to_dict()
    plain = C.annotator_report(annotations, camps=camps, mace_restarts=0)
    ruled = C.annotator_report(annotations, camps=camps, mace_restarts=0,
                               subset=C.subset_items(dataset.items, "topic", str(topic)))
    added = (ruled["kind"] == "systematic") & (plain["kind"] != "systematic")
    assert added.sum() >= 2 and (roles.reindex(added[added].index) == "minority").all()
    assert ((plain["kind"] == "systematic") <= (ruled["kind"] == "systematic")).all()
    with pytest.raises(ValueError, match="no trait 'colour'"):
        C.trait_camps(dataset.annotators, "colour")
    with pytest.raises(ValueError, match="fewer than two values"):
        C.trait_camps(dataset.annotators.assign(role="x"), "role")


def test_label_order_fixes_ties():
    # one item, two annotators disagreeing symmetrically: posteriors tie, first label wins
    rows = [("i1", "a", "x"), ("i1", "b", "y"), ("i2", "a", "y"), ("i2", "b", "x")]
    a = C.dawid_skene(frame(rows), labels=["y", "x"])
    assert list(a.posteriors.columns) == ["y", "x"]
    assert (a.labels == "y").all()


def test_not_converged_warns():
    df = read("hs_brexit", "annotations.csv")
    with pytest.warns(RuntimeWarning, match="did not converge"):
        res = C.dawid_skene(df, max_iter=3)
    assert not res.converged and res.n_iter == 3


# ---------------------------------------------------------------------------- section 9E report
def test_planted_camps_roles():
    from sklearn.metrics import roc_auc_score
    df = read("planted_camps", "annotations.csv")
    roles = read("planted_camps", "annotators.csv").set_index("annotator_id")["role"]
    truth = read("planted_camps", "items.csv").set_index("item_id")["true_label"]
    rep = C.annotator_report(df, rules=("a",))
    role = roles.reindex(rep.index)
    kind = rep["kind"]
    assert (kind[role == "spammer"] == "unreliable").all()
    assert not (kind[role == "minority"] == "unreliable").any()
    assert (kind[role == "minority"] == "systematic").mean() >= 0.6
    assert (kind[role == "mainstream"] == "systematic").mean() <= 0.1
    sm = role.isin(["spammer", "minority"])
    assert roc_auc_score(role[sm] == "spammer", -rep["skill"][sm]) == 1.0
    ds = C.dawid_skene(df)
    mm = role.isin(["mainstream", "minority"])
    cell = pd.Series({a: m.loc["0", "1"] for a, m in ds.confusion.items()})
    assert roc_auc_score(role[mm] == "minority", cell.reindex(rep.index)[mm]) >= 0.95
    assert (ds.labels == truth.reindex(ds.labels.index)).mean() >= 0.98


@pytest.mark.slow
def test_report_columns_thresholds_and_camps():
    df = read("planted_camps", "annotations.csv")
    items = read("planted_camps", "items.csv")
    roles = read("planted_camps", "annotators.csv").set_index("annotator_id")["role"]
    # the camp given by the truth: rule (b) must find the minority on its topic
    camps = roles.map(lambda r: "m" if r == "minority" else "x")
    subset_topics = []
    rep0 = C.annotator_report(df, camps=camps, mace_restarts=2)
    assert {"skill", "ds_accuracy", "concentration", "majority_agreement",
            "top3_peer_agreement", "mace_competence", "camp_agreement", "kind"} <= set(rep0)
    assert rep0["top3_peer_agreement"].between(0, 1).all()
    assert rep0["concentration"].between(0, 1).all()
    for topic in sorted(items["topic"].unique()):
        subset = items.loc[items["topic"] == topic, "item_id"]
        rep = C.annotator_report(df, camps=camps, subset=subset, rules=("b",), mace_restarts=2)
        share = (rep["kind"][roles.reindex(rep.index) == "minority"] == "systematic").mean()
        subset_topics.append(share)
    assert max(subset_topics) >= 0.8          # on the camp's topic
    assert sorted(subset_topics)[-2] <= 0.2   # not on the others
    strict = C.annotator_report(df, min_rows=10_000, mace_restarts=1)
    assert (strict["kind"] == "insufficient_data").all()


def test_loo_majority_agreement_hand_example():
    rows = [("i1", "a", "x"), ("i1", "b", "x"), ("i1", "c", "y"),
            ("i2", "a", "x"), ("i2", "b", "y")]
    enc = C._encode(frame(rows))
    credit, defined = C._loo_agreement(enc.ii, enc.aa, enc.ll, np.arange(5), 2, 2)
    # i1: a vs others {b:x, c:y} tie -> 1/2; b -> 1/2; c vs {x, x} -> 0; i2: a vs {y} -> 0; b -> 0
    np.testing.assert_allclose(credit, [0.5, 0.5, 0, 0, 0])
    assert defined.all()


def test_mace_steps_match_crowdkit_from_the_same_start():
    """crowd-kit's MACE (VB) and ours agree when started from the same values (its restarts all
    use one random_state, so we feed its start into our restart loop)."""
    ck = pytest.importorskip("crowdkit.aggregation")
    import scipy.stats as sps

    df = read("armis", "annotations.csv")
    data = crowdkit_frame(df).sort_values(["worker", "label", "task"]).reset_index(drop=True)
    est = ck.MACE(n_restarts=1, n_iter=3, random_state=0).fit(data)
    enc = C._encode(df)
    A, K = len(enc.annotators), len(enc.labels)
    spam = sps.uniform(1, 1.5).rvs(size=(A, 2), random_state=0)
    theta = sps.uniform(1, 1.5).rvs(size=(A, K), random_state=0)
    spam /= spam.sum(axis=1, keepdims=True)
    theta /= theta.sum(axis=1, keepdims=True)
    workers = pd.Index(pd.factorize(data["worker"])[1])
    labels = pd.Index(pd.factorize(data["label"])[1]).astype(str)
    rows = workers.get_indexer(pd.Index(enc.annotators))
    cols = labels.get_indexer(pd.Index(enc.labels))
    log_prior = np.log(np.full(K, 1.0 / K))
    spam, theta, _, _ = C._mace_run(enc, log_prior, spam[rows], theta[rows][:, cols], 3,
                                    method="vb", alpha=0.5, beta=0.5, strategy_prior=10.0,
                                    smoothing=0.01 / K)
    np.testing.assert_allclose(est.spamming_[rows, 1], spam[:, 1], atol=1e-12)
    T, *_ = C._mace_e_step(enc, log_prior, spam, theta)
    theirs = est.probas_.copy()
    theirs.columns = theirs.columns.astype(str)
    theirs = theirs.reindex(index=enc.items, columns=list(enc.labels)).to_numpy()
    np.testing.assert_allclose(theirs, T, atol=1e-12)


def test_a_repeated_fit_is_remembered_copied_and_still_warns(monkeypatch):
    """The same annotations fitted twice with the same options run EM once (the errors page's
    ranking and its annotator report both fit Dawid-Skene); each caller gets its own arrays,
    and a fit that stopped at the iteration cap warns both times."""
    competence = C
    monkeypatch.setattr(competence, "_FITS", competence.OrderedDict())
    fits = []
    real = competence._fit_em
    monkeypatch.setattr(competence, "_fit_em",
                        lambda *a, **k: (fits.append(a[1]), real(*a, **k))[1])
    rows = [("i1", "a", "x"), ("i1", "b", "y"), ("i1", "c", "x"), ("i2", "a", "y"),
            ("i2", "b", "y"), ("i2", "c", "x"), ("i3", "a", "x"), ("i3", "b", "x")]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = competence.dawid_skene(frame, max_iter=2)
        first.posteriors.iloc[0, 0] = -1.0  # a caller's own copy
        again = competence.dawid_skene(frame.sample(frac=1.0, random_state=1), max_iter=2)
        other = competence.dawid_skene(frame, max_iter=3)
        remembered = competence.dawid_skene(frame, max_iter=2)
    assert fits == ["ds", "ds"]  # max_iter=2 once (rows in another order too), max_iter=3 once
    assert again.posteriors.iloc[0, 0] != -1.0
    assert again.posteriors.equals(remembered.posteriors)
    assert other.n_iter == 3
    assert sum("did not converge" in str(w.message) for w in caught) >= 3
