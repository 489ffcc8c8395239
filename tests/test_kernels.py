"""The compiled kernels (``hlv_core._kernels``, numba) against the numpy reference paths: every
pair statistic, pairwise alpha, triangle count and sigma table equal bit for bit; numba never
imported at import time; the reference runs where numba is missing."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlv_core import _alpha, _compiled, balance
from hlv_core._compiled import kernels, reference_only
from hlv_core.agreement import prepare_alpha_input

from .conftest import ROOT

pytest.importorskip("numba")


@pytest.fixture(autouse=True, scope="module")
def _kernels_at_any_size():
    """The kernels serve only big tasks (``MIN_COMPILED_WORK``); here every size goes to them."""
    before = _compiled.MIN_COMPILED_WORK
    _compiled.MIN_COMPILED_WORK = 0
    yield
    _compiled.MIN_COMPILED_WORK = before


def _crowd(seed: int, n_items: int, n_ann: int, fill: float, n_labels: int,
           lonely: bool) -> pd.DataFrame:
    """A random long table; ``lonely`` adds an annotator with one item and an item with one
    annotator."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n_items, n_ann)) < fill
    item, ann = np.nonzero(mask)
    labels = rng.integers(0, n_labels, len(item))
    frame = pd.DataFrame({"item_id": [f"i{i:03d}" for i in item],
                          "annotator_id": [f"a{a:03d}" for a in ann],
                          "label": [str(v + 1) for v in labels]})
    if lonely:
        extra = pd.DataFrame({"item_id": ["i000", "solo"], "annotator_id": ["z_one", "a000"],
                              "label": ["1", "2"]})
        frame = pd.concat([frame, extra], ignore_index=True)
    return frame


def _assert_same_arrays(ref, new, what):
    assert type(ref) is type(new), what
    assert ref.dtype == new.dtype and ref.shape == new.shape, what
    assert np.array_equal(ref, new, equal_nan=ref.dtype.kind == "f"), what


def _both(fn):
    """``fn()`` on the compiled path and on the numpy reference."""
    assert kernels() is not None
    new = fn()
    with reference_only():
        assert kernels() is None
        ref = fn()
    return ref, new


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n_items=st.integers(0, 25), n_ann=st.integers(1, 12),
       fill=st.floats(0.05, 1.0), n_labels=st.integers(1, 6),
       level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
       min_shared=st.integers(1, 3), lonely=st.booleans(), table=st.booleans())
def test_pairwise_alpha_and_sigma_equal_the_reference(seed, n_items, n_ann, fill, n_labels,
                                                      level, min_shared, lonely, table):
    """``table``: the kernel's per-partner table, else its instance buffer (the route for many
    annotators times many values)."""
    if not table:
        _alpha._PARTNER_TABLE_LIMIT, before = 0, _alpha._PARTNER_TABLE_LIMIT
        try:
            _check_crowd(seed, n_items, n_ann, fill, n_labels, level, min_shared, lonely)
        finally:
            _alpha._PARTNER_TABLE_LIMIT = before
        return
    _check_crowd(seed, n_items, n_ann, fill, n_labels, level, min_shared, lonely)


def _check_crowd(seed, n_items, n_ann, fill, n_labels, level, min_shared, lonely):
    frame = _crowd(seed, n_items, n_ann, fill, n_labels, lonely)
    if frame.empty:
        data = prepare_alpha_input(frame, level=level)
        ref, new = _both(lambda: _alpha.pairwise_alpha_arrays(data, method="instances"))
        assert len(ref) == len(new) == 0
        return
    data = prepare_alpha_input(frame, level=level)
    if level != "interval":  # interval alpha uses value products, no pair counts
        need = "nominal" if level == "nominal" else "marginals"
        ref = _alpha._pair_counts_instances(data, need)
        new = _alpha._pair_counts_compiled(data, need, kernels())
        for i, (x, y) in enumerate(zip(ref, new, strict=True)):
            _assert_same_arrays(x, y, (need, i))
    ref, new = _both(lambda: _alpha.pairwise_alpha_arrays(data, min_shared=min_shared,
                                                          method="instances"))
    for field in ("a", "b", "n_shared", "alpha"):
        _assert_same_arrays(getattr(ref, field), getattr(new, field), field)
    ref, new = _both(lambda: balance.sigma(frame, level=level, min_shared=min_shared))
    _assert_same_sigma(ref, new)
    ref, new = _both(lambda: balance.estimate_sigma_cost(frame))
    assert ref == new


def _assert_same_sigma(ref, new):
    assert ref.summary() == new.summary() or (
        np.isnan(ref.alpha) and str(ref.summary()) == str(new.summary()))
    for name in ("edges", "pairs", "nodes"):
        pd.testing.assert_frame_equal(getattr(ref, name), getattr(new, name), check_exact=True)
    assert (ref.adjacency != new.adjacency).nnz == 0


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 60), density=st.floats(0.02, 1.0), pos=st.floats(0.0, 1.0),
       seed=st.integers(0, 10**6))
def test_triangle_counts_equal_the_reference(n, density, pos, seed):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < density, 1)
    S = np.where(upper, np.where(rng.random((n, n)) < pos, 1, -1), 0)
    S = sp.csr_matrix(S + S.T)
    ref, new = _both(lambda: balance.count_triangles(S, dense=False))
    for field in ("n_triangles", "n_balanced", "n_unbalanced"):
        assert getattr(ref, field) == getattr(new, field)
    for field in ("node_balanced", "node_unbalanced", "edge_rows", "edge_cols",
                  "edge_balanced", "edge_unbalanced"):
        _assert_same_arrays(getattr(ref, field), getattr(new, field), field)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_real_dataset_sigma_equal_the_reference(data_dir, level):
    """MD-Agreement (paper Table 2: sigma .494 at the paper's conventions): every table equal."""
    frame = pd.read_csv(data_dir / "md_agreement" / "annotations.csv", dtype=str,
                        keep_default_na=False)
    ref, new = _both(lambda: balance.sigma(frame, level=level))
    _assert_same_sigma(ref, new)
    assert new.n_triangles > 1000
    if level == "nominal":
        assert round(new.sigma, 3) == 0.494


@pytest.mark.slow
def test_wide_codes_equal_the_reference(monkeypatch):
    """The kernel's int64 route (annotator and value codes past 30 bits: its first use
    compiles a second specialization once, then cached) gives the reference's statistics."""
    monkeypatch.setattr(_alpha, "_INT32_FIELDS", -1)
    for level, need in (("nominal", "nominal"), ("ordinal", "marginals")):
        data = prepare_alpha_input(_crowd(3, 30, 12, 0.5, 5, True), level=level)
        ref = _alpha._pair_counts_instances(data, need)
        new = _alpha._pair_counts_compiled(data, need, kernels())
        for i, (x, y) in enumerate(zip(ref, new, strict=True)):
            _assert_same_arrays(x, y, (need, i))


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, check=True)
    return out.stdout.strip()


def test_numba_is_not_imported_until_a_kernel_runs():
    code = (
        "import sys\n"
        "import hlv_core, hlv_core.balance, hlv_core.agreement, hlv_core.cli\n"
        "print('numba' in sys.modules)\n"
        "import pandas as pd\n"
        "frame = pd.DataFrame({'item_id': list('aabbcc'), 'annotator_id': list('xyyzxz'),\n"
        "                      'label': list('110101')})\n"
        "hlv_core.balance.sigma(frame)\n"
        "print('numba' in sys.modules)\n"  # a small task: numpy, no numba
        "import hlv_core._compiled as c\n"
        "c.MIN_COMPILED_WORK = 0\n"
        "hlv_core.balance.sigma(frame)\n"
        "print('numba' in sys.modules)\n"
    )
    assert _run(code).split() == ["False", "False", "True"]


def test_the_reference_runs_where_numba_is_missing():
    """numba unimportable: :func:`kernels` answers None and sigma gives the same result."""
    code = (
        "import sys\n"
        "sys.modules['numba'] = None  # import numba raises ImportError\n"
        "import pandas as pd\n"
        "from hlv_core import balance\n"
        "from hlv_core._compiled import kernels\n"
        "frame = pd.DataFrame({'item_id': list('aaabbbccc'), 'annotator_id': list('xyzxyzxyz'),\n"
        "                      'label': list('110101011')})\n"
        "r = balance.sigma(frame)\n"
        "print(kernels() is None, r.n_triangles, r.n_balanced)\n"
    )
    frame = pd.DataFrame({"item_id": list("aaabbbccc"), "annotator_id": list("xyzxyzxyz"),
                          "label": list("110101011")})
    r = balance.sigma(frame)
    assert _run(code).split() == ["True", str(r.n_triangles), str(r.n_balanced)]


def test_small_tasks_stay_on_numpy():
    """Below the threshold no kernel (no numba import, no compile) is used."""
    _compiled.MIN_COMPILED_WORK = 1_000_000
    try:
        assert kernels(999_999) is None
        assert kernels(1_000_000) is not None and kernels() is not None
    finally:
        _compiled.MIN_COMPILED_WORK = 0
