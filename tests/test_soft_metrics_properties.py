"""Property tests of hlv_core.soft_metrics (Kurniawan et al.): Theorem 1 (soft accuracy
<= PO-JSD), oracle metric(P, P) = 1, bounds, symmetry, one-hot reduction to hard metrics, soft
micro F1 = soft accuracy, invariance to permuting items and labels."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from hlv_core import soft_metrics as sm

SETTINGS = settings(max_examples=60, deadline=None)


def _normalise(raw: np.ndarray) -> np.ndarray:
    raw = raw + 1e-3 * (raw.sum(axis=1, keepdims=True) == 0)  # no all-zero rows
    return raw / raw.sum(axis=1, keepdims=True)


@st.composite
def pq(draw, *, multilabel: bool = False, min_rows: int = 2):
    n = draw(st.integers(min_rows, 12))
    k = draw(st.integers(2, 6))
    elems = st.floats(0, 1, allow_nan=False, allow_subnormal=False)
    # sparse entries (exact zeros) are common in real judgements
    P = draw(arrays(float, (n, k), elements=st.one_of(st.just(0.0), elems)))
    Q = draw(arrays(float, (n, k), elements=st.one_of(st.just(0.0), elems)))
    if not multilabel:
        P, Q = _normalise(P), _normalise(Q)
    return P, Q


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@SETTINGS
@given(pq())
def test_theorem1_soft_accuracy_le_po_jsd(data):
    P, Q = data
    assert sm.soft_accuracy(P, Q) <= sm.po_jsd(P, Q) + 1e-12
    items = sm.per_item(P, Q)
    assert (items["soft_overlap"] <= items["po_jsd"] + 1e-12).all()


@SETTINGS
@given(pq())
def test_bounds_and_micro_equals_accuracy(data):
    P, Q = data
    ev = _quiet(sm.evaluate, P, Q)
    for key, value in ev.items():
        if key == "entropy_correlation":
            assert np.isnan(value) or -1 - 1e-12 <= value <= 1 + 1e-12
        elif not np.isnan(value):
            assert -1e-12 <= value <= 1 + 1e-12, key
    assert ev["soft_micro_f1"] == np.float64(ev["soft_micro_f1"])
    assert abs(ev["soft_micro_f1"] - ev["soft_accuracy"]) < 1e-12
    assert ev["hard_micro_f1"] == ev["hard_accuracy"]


@SETTINGS
@given(pq(multilabel=True))
def test_multilabel_bounds_and_oracle(data):
    P, Q = data
    ev = _quiet(sm.evaluate, P, Q, multilabel=True)
    for key in ("hard_micro_f1", "hard_macro_f1", "soft_micro_f1", "po_jsd"):
        if not np.isnan(ev[key]):
            assert -1e-12 <= ev[key] <= 1 + 1e-12
    assert sm.po_jsd(P, P, multilabel=True) == 1.0
    assert sm.hard_micro_f1(P, P, multilabel=True) == 1.0
    assert sm.hard_macro_f1(P, P, multilabel=True) == 1.0


@SETTINGS
@given(pq())
def test_oracle_is_one(data):
    P, _ = data
    assert abs(sm.soft_accuracy(P, P) - 1) < 1e-12
    assert sm.po_jsd(P, P) == 1.0
    assert sm.hard_accuracy(P, P) == 1.0
    assert sm.hard_macro_f1(P, P) == 1.0
    assert abs(sm.soft_micro_f1(P, P) - 1) < 1e-12
    f1 = _quiet(sm.soft_macro_f1, P, P, skip_undefined=True)
    assert abs(f1 - 1) < 1e-12
    h = sm.normalised_entropy(P)
    if not (h == h[0]).all():
        assert abs(sm.entropy_correlation(P, P) - 1) < 1e-9


@SETTINGS
@given(pq())
def test_symmetry(data):
    P, Q = data
    assert abs(sm.soft_accuracy(P, Q) - sm.soft_accuracy(Q, P)) < 1e-12
    assert abs(sm.po_jsd(P, Q) - sm.po_jsd(Q, P)) < 1e-12
    assert abs(sm.soft_micro_f1(P, Q) - sm.soft_micro_f1(Q, P)) < 1e-12
    a = _quiet(sm.entropy_correlation, P, Q)
    b = _quiet(sm.entropy_correlation, Q, P)
    assert (np.isnan(a) and np.isnan(b)) or abs(a - b) < 1e-12
    assert sm.hard_accuracy(P, Q) == sm.hard_accuracy(Q, P)
    # precision and recall swap roles
    s1, s2 = _quiet(sm.soft_prfs, P, Q), _quiet(sm.soft_prfs, Q, P)
    np.testing.assert_allclose(s1["precision"], s2["recall"], equal_nan=True)


@SETTINGS
@given(st.integers(1, 15), st.integers(2, 5), st.integers(0, 10_000))
def test_one_hot_reduces_to_hard(n, k, seed):
    rng = np.random.default_rng(seed)
    eye = np.eye(k)
    P, Q = eye[rng.integers(0, k, n)], eye[rng.integers(0, k, n)]
    assert sm.soft_accuracy(P, Q) == sm.hard_accuracy(P, Q)
    # JSD of one-hots is 0 or exactly 1 bit
    assert abs(sm.po_jsd(P, Q) - sm.hard_accuracy(P, Q)) < 1e-12
    hard = sm.hard_prfs(P, Q)
    soft = _quiet(sm.soft_prfs, P, Q)
    present = (P.sum(axis=0) > 0) & (Q.sum(axis=0) > 0)
    np.testing.assert_allclose(soft["f1"][present], hard["f1"][present])
    np.testing.assert_allclose(soft["precision"][present], hard["precision"][present])


@SETTINGS
@given(pq(), st.integers(0, 10_000))
def test_permutation_invariance(data, seed):
    P, Q = data
    rng = np.random.default_rng(seed)
    rows = rng.permutation(len(P))
    ev = _quiet(sm.evaluate, P, Q, skip_undefined=True)
    ev_rows = _quiet(sm.evaluate, P[rows], Q[rows], skip_undefined=True)
    for key in ev:
        assert (np.isnan(ev[key]) and np.isnan(ev_rows[key])) or abs(ev[key] - ev_rows[key]) < 1e-9
    # permuting labels consistently: every label-symmetric metric is unchanged (argmax ties can
    # move with the label order, so hard metrics are compared only without ties)
    cols = rng.permutation(P.shape[1])
    ev_cols = _quiet(sm.evaluate, P[:, cols], Q[:, cols], skip_undefined=True)
    for key in ("soft_accuracy", "soft_micro_f1", "soft_macro_f1", "po_jsd", "entropy_correlation"):
        a, b = ev[key], ev_cols[key]
        assert (np.isnan(a) and np.isnan(b)) or abs(a - b) < 1e-9, key

    def untied(X):
        top = np.sort(X, axis=1)
        return (top[:, -1] > top[:, -2]).all()

    if untied(P) and untied(Q):
        for key in ("hard_accuracy", "hard_macro_f1"):
            assert abs(ev[key] - ev_cols[key]) < 1e-12, key
