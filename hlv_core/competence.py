"""Annotator competence: Dawid-Skene, one-coin Dawid-Skene and MACE, vectorised over rows.

Input everywhere is the canonical long frame ``item_id, annotator_id, label`` (strings; one row
per given label, so a multi-label annotator has several rows on an item). Each fit returns a
:class:`CompetenceResult`.

Models
------
- :func:`dawid_skene`: Dawid & Skene (1979), full confusion matrix per annotator, EM run to a
  real fixed point (largest change of any posterior and any confusion entry below ``tol``),
  accelerated by SQUAREM (Varadhan & Roland 2008) unless ``accelerate=False``.
- :func:`one_coin_dawid_skene`: the same EM with one skill per annotator (the "one-coin" model).
- :func:`mace`: Hovy et al. (2013), *Learning Whom to Trust with MACE*, section 2: each annotator
  either knows the answer or guesses from a personal strategy; variational Bayes (default) or EM,
  seeded restarts.
- :func:`annotator_report`: one row per annotator with the numbers above plus majority and camp
  agreement, and a verdict ``reliable`` / ``unreliable`` / ``systematic`` / ``insufficient_data``.

Sufficient statistics (for callers that split the rows into partitions)
------------------------------------------------------------------------
The EM steps are separate private functions on count arrays, so a caller holding the rows in
several partitions can run the E-step per partition and add the statistics before one M-step:

- ``_pair_matrix(item_codes, annotator_codes, label_codes, n_items, n_annotators, n_labels)``:
  the sparse (items x annotators*labels) count matrix ``R`` of one partition (column
  ``a * K + l``). Item codes must be local to the partition (0..n_items-1); annotator and label
  codes global.
- ``_sufficient_stats(R, T) -> (counts, class_mass)``: ``counts[a, k, l]`` = sum over a's rows
  (i, l) of ``T[i, k]`` (true class k x observed label l, shape (A, K, K)) and
  ``class_mass[k] = sum_i T[i, k]`` (shape (K,)). Both add over partitions.
- ``_ds_m_step(counts, used, class_mass, n_items) -> (priors, pi)`` and
  ``_one_coin_m_step(counts, class_mass, n_items) -> (priors, pi, skill)``: parameters from the
  summed statistics; ``used[a, l]`` says whether annotator a ever gave label l (OR over partitions).
- ``_e_step(R, priors, pi) -> (T, loglik)``: posteriors of one partition's items and their
  marginal log-likelihood (add over partitions).
- ``_em_fixed_point(m_step, e_step, T, ...)`` with ``_squarem_maps(model, n_labels)``: the
  iterations and stopping rule (plain or SQUAREM) on the caller's steps; only priors and
  confusions (or skills) pass through it, the posteriors stay wherever the caller keeps them.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import digamma

from .io import LIMITS, DataError, limit

__all__ = [
    "CompetenceResult",
    "REPORT_THRESHOLDS",
    "annotator_report",
    "cap_note",
    "dawid_skene",
    "mace",
    "one_coin_dawid_skene",
    "sigma_camps",
    "subset_columns",
    "subset_items",
    "trait_camps",
]

#: Floor applied to counts and priors before a log (crowd-kit's and the spec's convention).
EPS = 1e-10


@dataclass
class CompetenceResult:
    """What a competence model estimated (:func:`dawid_skene`, :func:`one_coin_dawid_skene`, :func:`mace`).

    Attributes
    ----------
    model : str
        ``"ds"``, ``"one-coin"`` or ``"mace"``.
    posteriors : DataFrame
        Items x labels, P(true class | data); rows sum to 1.
    labels : Series
        Hard label per item (argmax; ties -> first label in ``label_order``).
    priors : Series
        Class prior p_k (MACE: the prior it was given, uniform by default).
    n_rows : Series
        Rows per annotator.
    n_iter : int
        EM iterations run (MACE: iterations per restart).
    converged : bool
        True when the stopping rule was met before ``max_iter`` (MACE: always True, fixed count).
    loglik : float
        Marginal log-likelihood sum_i log sum_k p_k prod_rows P(row | k) at the returned state.
    loglik_history : ndarray
        The marginal log-likelihood after every E-step.
    confusion : mapping or None
        Annotator -> DataFrame (true x observed, rows sum to 1 over the labels the annotator used).
    accuracy : Series or None
        DS: sum_k p_k pi_a[k, k].
    skill : Series or None
        One-coin: s_a.
    competence : Series or None
        MACE: P(knowing) per annotator (the variational value is sub-normalised, as MACE writes it).
    entropy : Series or None
        MACE: entropy (natural log) of each item's posterior.
    strategy : DataFrame or None
        MACE: annotators x labels guessing strategy theta_a.
    best_restart : int or None
        MACE: index of the restart kept.
    restart_loglik : ndarray or None
        MACE: final log marginal likelihood of every restart.
    confusion_array : ndarray or None
        (A, K, K) array behind ``confusion`` (annotators in ``n_rows.index`` order).
    label_order : tuple
        The label order (columns of ``posteriors``).

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", Journal of the Royal Statistical Society C (Applied
       Statistics) 28(1).
    .. [2] D. Hovy, T. Berg-Kirkpatrick, A. Vaswani and E. Hovy (2013), "Learning whom to
       trust with MACE", NAACL-HLT 2013, section 2.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 60)  # 60 items: three careful annotators and a coin-flipper
    >>> careful = np.where(rng.random((60, 3)) < 0.1, 1 - truth[:, None], truth[:, None])
    >>> labels = np.hstack([careful, rng.integers(0, 2, (60, 1))])
    >>> df = pd.DataFrame({"item_id": np.repeat([f"i{i:02d}" for i in range(60)], 4),
    ...                    "annotator_id": np.tile(["a0", "a1", "a2", "spammer"], 60),
    ...                    "label": np.where(labels.ravel() == 1, "pos", "neg")})
    >>> result = dawid_skene(df)
    >>> result.model, result.converged, result.label_order, result.posteriors.shape
    ('ds', True, ('neg', 'pos'), (60, 2))
    """

    model: str
    posteriors: pd.DataFrame
    labels: pd.Series
    priors: pd.Series
    n_rows: pd.Series
    n_iter: int
    converged: bool
    loglik: float
    loglik_history: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    confusion: dict | None = field(repr=False, default=None)
    accuracy: pd.Series | None = None
    skill: pd.Series | None = None
    competence: pd.Series | None = None
    entropy: pd.Series | None = None
    strategy: pd.DataFrame | None = None
    best_restart: int | None = None
    restart_loglik: np.ndarray | None = field(repr=False, default=None)
    confusion_array: np.ndarray | None = field(repr=False, default=None)
    label_order: tuple = ()


# ----------------------------------------------------------------------------------- encoding
@dataclass
class _Encoded:
    items: np.ndarray        # (N,) item ids, sorted
    annotators: np.ndarray   # (A,) annotator ids, sorted
    labels: tuple            # (K,) label order
    ii: np.ndarray           # (rows,) item code
    aa: np.ndarray           # (rows,) annotator code
    ll: np.ndarray           # (rows,) label code
    R: sp.csr_matrix         # (N, A*K) counts of (annotator, label) per item
    RT: sp.csr_matrix        # its transpose
    rows_per_item: np.ndarray  # (N,) rows per item
    row_pairs: tuple | None = field(default=None, repr=False)  # see :func:`_row_pairs`


def _encode(df: pd.DataFrame, labels=None, *, min_annotators: int = 2,
            min_labels: int = 2) -> _Encoded:
    if not isinstance(df, pd.DataFrame):
        raise ValueError("annotations must be a DataFrame with columns item_id, annotator_id, label")
    missing = [c for c in ("item_id", "annotator_id", "label") if c not in df.columns]
    if missing:
        raise ValueError(
            f"annotations: column(s) {', '.join(missing)} missing; expected the long format "
            "item_id, annotator_id, label"
        )
    if len(df) == 0:
        raise ValueError("annotations: no rows; load a dataset with at least one annotation")
    frame = df[["item_id", "annotator_id", "label"]]
    if frame.isna().to_numpy().any():
        bad = int(np.flatnonzero(frame.isna().to_numpy().any(axis=1))[0])
        raise ValueError(f"annotations: row {bad + 1} has an empty item_id, annotator_id or label; "
                         "drop the row (missing = no row)")
    ii, items = _factorize_sorted(frame["item_id"])
    aa, annotators = _factorize_sorted(frame["annotator_id"])
    ll_raw, present = _factorize_sorted(frame["label"])
    if labels is None:
        order = tuple(present.tolist())
        ll = ll_raw
    else:
        order = tuple(str(x) for x in labels)
        if len(set(order)) != len(order):
            raise ValueError("labels=: the label order lists a label twice")
        extra = sorted(set(present.tolist()) - set(order))
        if extra:
            raise ValueError(f"annotations: label '{extra[0]}' is not in labels=; add it to the order")
        ll = pd.Index(order).get_indexer(present)[ll_raw]
    if len(annotators) < min_annotators:
        raise ValueError(
            f"annotations: {len(annotators)} annotator(s); competence models compare annotators "
            f"with each other and need at least {min_annotators}"
        )
    if len(order) < min_labels:
        raise ValueError(
            f"annotations: only one label ('{order[0]}') in the data; with a single label there "
            "is nothing to estimate (every annotator agrees by construction)"
        )
    ii = ii.astype(np.int64)
    aa = aa.astype(np.int64)
    ll = np.asarray(ll, dtype=np.int64)
    # rows in one canonical order (item, annotator, label), so every sum over rows (MACE's
    # bincounts, the report's tallies) is the same for any row order of the input: items with
    # the same answers then stay exactly tied
    canon = np.lexsort((ll, aa, ii))
    ii, aa, ll = ii[canon], aa[canon], ll[canon]
    R = _pair_matrix(ii, aa, ll, len(items), len(annotators), len(order))
    return _Encoded(items, annotators, order, ii, aa, ll, R, R.T.tocsr(),
                    np.bincount(ii, minlength=len(items)).astype(float))


def _factorize_sorted(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the sorted unique values (as ``str``) of one column."""
    codes, uniques = pd.factorize(column.astype(str), sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


class _ConfusionMap(Mapping):
    """Annotator -> confusion DataFrame (true x observed), built on access from the array."""

    def __init__(self, pi: np.ndarray, annotators, labels) -> None:
        self._pi = pi
        self._pos = {a: j for j, a in enumerate(annotators)}
        self._labels = list(labels)

    def __getitem__(self, annotator) -> pd.DataFrame:
        j = self._pos[annotator]
        return pd.DataFrame(self._pi[j], index=pd.Index(self._labels, name="true", dtype=object),
                            columns=pd.Index(self._labels, name="observed", dtype=object))

    def __iter__(self):
        return iter(self._pos)

    def __len__(self) -> int:
        return len(self._pos)


def _pair_matrix(item_codes, annotator_codes, label_codes, n_items: int, n_annotators: int,
                 n_labels: int) -> sp.csr_matrix:
    """Sparse (n_items, n_annotators * n_labels) matrix of row counts; column ``a * K + l``."""
    cols = np.asarray(annotator_codes) * n_labels + np.asarray(label_codes)
    data = np.ones(len(cols), dtype=np.float64)
    R = sp.csr_matrix((data, (np.asarray(item_codes), cols)),
                      shape=(n_items, n_annotators * n_labels))
    R.sum_duplicates()
    return R


def _soft_majority(enc: _Encoded) -> np.ndarray:
    """T[i, k] = share of item i's rows with label k (ties stay split)."""
    K = len(enc.labels)
    counts = np.bincount(enc.ii * K + enc.ll, minlength=len(enc.items) * K).reshape(-1, K)
    return counts / counts.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------------- EM building blocks
def _sufficient_stats(R: sp.csr_matrix, T: np.ndarray, RT: sp.csr_matrix | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Expected counts from posteriors.

    Parameters
    ----------
    R : sparse (N, A*K)
        Row counts per item and (annotator, label) pair (see :func:`_pair_matrix`).
    RT : sparse (A*K, N), optional
        ``R.T`` as its own csr (``_Encoded.RT``): the same sums in the same order (items
        ascending), without transposing R on every call.
    T : ndarray (N, K)
        Posteriors of the same items.

    Returns
    -------
    counts : ndarray (A, K, K)
        ``counts[a, k, l]`` = sum over a's rows (i, l) of T[i, k] (true k x observed l).
    class_mass : ndarray (K,)
        sum_i T[i, k].
    """
    K = T.shape[1]
    flat = np.asarray((R.T if RT is None else RT) @ T)  # (A*K_obs, K_true)
    counts = flat.reshape(-1, K, K).transpose(0, 2, 1)
    return np.ascontiguousarray(counts), T.sum(axis=0)


def _ds_m_step(counts: np.ndarray, used: np.ndarray, class_mass: np.ndarray,
               n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Full Dawid-Skene M-step (Dawid & Skene 1979, section 2).

    p_k = class_mass_k / n_items; pi_a[k, l] = max(n_a[k, l], 1e-10) / sum_{l' used by a}
    max(n_a[k, l'], 1e-10); labels a never used get pi = 0.

    Parameters
    ----------
    counts : (A, K, K) expected counts (true x observed); used : (A, K) bool; class_mass : (K,).

    Returns
    -------
    priors : (K,), pi : (A, K, K)
    """
    priors = class_mass / n_items
    c = np.maximum(counts, EPS) * used[:, None, :]
    pi = c / c.sum(axis=2, keepdims=True)
    return priors, pi


def _one_coin_m_step(counts: np.ndarray, class_mass: np.ndarray,
                     n_items: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One-coin M-step: s_a = mean over a's rows of T[i, l] = trace(n_a) / sum(n_a).

    pi_a[k, k] = s_a, pi_a[k, l] = (1 - s_a) / (K - 1), clipped to [1e-10, 1 - 1e-10].

    Returns
    -------
    priors : (K,), pi : (A, K, K), skill : (A,)
    """
    total = counts.sum(axis=(1, 2))
    skill = np.trace(counts, axis1=1, axis2=2) / total
    return class_mass / n_items, _one_coin_pi(skill, counts.shape[1]), skill


def _one_coin_pi(skill: np.ndarray, n_labels: int) -> np.ndarray:
    """(A, K, K) confusion of the one-coin model: s_a on the diagonal, (1 - s_a) / (K - 1) off
    it, clipped to [1e-10, 1 - 1e-10]."""
    off = (1.0 - skill) / (n_labels - 1)
    pi = np.broadcast_to(off[:, None, None], (len(skill), n_labels, n_labels)).copy()
    idx = np.arange(n_labels)
    pi[:, idx, idx] = skill[:, None]
    np.clip(pi, EPS, 1 - EPS, out=pi)
    return pi


def _log_pi_flat(pi: np.ndarray) -> np.ndarray:
    """(A*K_obs, K_true) log pi with unused entries (pi = 0) as 0: they never meet a row."""
    A, K, _ = pi.shape
    with np.errstate(divide="ignore"):
        lp = np.log(pi)
    lp[~np.isfinite(lp)] = 0.0
    return lp.transpose(0, 2, 1).reshape(A * K, K)


def _e_step(R: sp.csr_matrix, priors: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, float]:
    """Dawid-Skene E-step.

    log T[i, k] = log max(p_k, 1e-10) + sum over i's rows (a, l) of log pi_a[k, l], normalised
    with log-sum-exp.

    Returns
    -------
    T : ndarray (N, K)
    loglik : float
        sum_i log sum_k p_k prod pi_a[k, l] (with the 1e-10 floor on p).
    """
    logp = np.log(np.maximum(priors, EPS))
    L = np.asarray(R @ _log_pi_flat(pi)) + logp
    T, norm = _normalise_logs(L)
    return T, float(norm.sum())


def _normalise_logs(L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise softmax of log-scores and the row log-sum-exp (max shifted, no overflow).

    Column by column for few labels (one vectorised pass per label instead of a reduction
    over a short last axis, about twice as fast): the maximum is exact in any order, and below
    8 labels numpy adds a row's entries one after another, as the loop does, so the numbers are
    the same to the last bit."""
    K = L.shape[1]
    if K >= 8:
        top = L.max(axis=1, keepdims=True)
        E = np.exp(L - top)
        s = E.sum(axis=1, keepdims=True)
        return E / s, (np.log(s) + top).ravel()
    top = L[:, 0].copy()
    for k in range(1, K):
        np.maximum(top, L[:, k], out=top)
    E = L - top[:, None]
    np.exp(E, out=E)
    s = E[:, 0].copy()
    for k in range(1, K):
        s += E[:, k]
    E /= s[:, None]
    np.log(s, out=s)
    s += top
    return E, s


def _crowdkit_elbo(enc: _Encoded, T: np.ndarray, priors: np.ndarray, pi: np.ndarray,
                   counts: np.ndarray | None = None) -> float:
    """crowd-kit 1.4.2's per-row 'ELBO' divided by the number of rows (its stopping quantity).

    sum over rows (i, a, l) of sum_k T[i, k] (log pi_a[k, l] + log max(p_k, 1e-10)) plus the
    entropy of max(T, 1e-10) summed over items; log p is added once per row, not per item.
    """
    logp = np.log(np.maximum(priors, EPS))
    if counts is None:
        counts, _ = _sufficient_stats(enc.R, T, enc.RT)      # (A, K, K) true x observed
    with np.errstate(divide="ignore"):
        lp = np.where(pi > 0, np.log(np.where(pi > 0, pi, 1.0)), 0.0)
    joint = float((counts * lp).sum() + (enc.rows_per_item @ T) @ logp)
    Tc = np.maximum(T, EPS)
    entropy = float(-(np.log(Tc) * Tc).sum())
    return (joint + entropy) / len(enc.ii)


def _hard_labels(T: np.ndarray) -> np.ndarray:
    return np.argmax(T, axis=1)     # first maximum = first label in order


def _used(enc: _Encoded) -> np.ndarray:
    K = len(enc.labels)
    used = np.zeros(len(enc.annotators) * K, dtype=bool)
    used[enc.aa * K + enc.ll] = True
    return used.reshape(-1, K)


#: the last few EM fits, keyed on the encoded rows and every option (see :func:`_run_em`)
_FITS: OrderedDict = OrderedDict()
_FITS_KEPT = 4
_FITS_MAX_BYTES = 16 << 20
_FITS_LOCK = threading.Lock()


def _encoding_key(enc: _Encoded) -> str:
    """SHA-256 of everything an EM fit reads: the coded rows and the id and label orders."""
    digest = hashlib.sha256()
    for codes in (enc.ii, enc.aa, enc.ll):
        digest.update(np.ascontiguousarray(codes, dtype=np.int64).tobytes())
    for names in (enc.items, enc.annotators, enc.labels):  # each list's length, then its ids
        digest.update(len(names).to_bytes(8, "little"))
        digest.update("\x1f".join(map(str, names)).encode("utf-8", "surrogatepass") + b"\x1e")
    return digest.hexdigest()


def _run_em(enc: _Encoded, model: str, *, max_iter: int, tol: float, init: str, stop: str,
            accelerate: bool = True):
    """:func:`_fit_em`, remembered for the last few (encoding, options): the same annotations
    fitted twice with the same options, e.g. the error ranking's Dawid-Skene posterior and the
    annotator report's, run once. Returns copies; a fit that did not converge warns each
    time."""
    key = (_encoding_key(enc), model, max_iter, tol, init, stop, accelerate)
    with _FITS_LOCK:
        found = _FITS.get(key)
        if found is not None:
            _FITS.move_to_end(key)
    if found is None:
        found = _fit_em(enc, model, max_iter=max_iter, tol=tol, init=init, stop=stop,
                        accelerate=accelerate)
        size = sum(x.nbytes for x in found if isinstance(x, np.ndarray))
        if size <= _FITS_MAX_BYTES:  # small fits only: a big one is not kept alive
            with _FITS_LOCK:
                _FITS[key] = found
                while len(_FITS) > _FITS_KEPT:
                    _FITS.popitem(last=False)
    T, priors, pi, skill, n_iter, converged, history = found
    if stop == "fixed_point" and not converged:
        warnings.warn(f"{model} EM did not converge in {max_iter} iterations (tol {tol:g})",
                      RuntimeWarning, stacklevel=3)
    return tuple(x.copy() if isinstance(x, np.ndarray) else x
                 for x in (T, priors, pi, skill, n_iter, converged, history))


#: SQUAREM's step length starts capped at 1 (plain EM) and the cap grows 4x each time it binds
#: (Varadhan and Roland 2008, section 6: the step.max0 = 1, mstep = 4 of their SQUAREM code)
_SQUAREM_STEP_GROWTH = 4.0


def _squarem_maps(model: str, n_labels: int):
    """(pack, unpack) of the parameters SQUAREM extrapolates (see :func:`_em_fixed_point`):
    Dawid-Skene the priors and every confusion entry, one-coin the priors and one skill per
    annotator (its confusion rebuilt as the M-step builds it). ``unpack(x, x2)`` gives valid
    (priors, pi), or None where x sets a probability that is positive in x2 to 0 or below."""
    if model == "ds":
        def pack(theta):
            return [theta[0], theta[1]]

        def unpack(x, like):
            priors, pi = x
            if ((priors <= 0) & (like[0] > 0)).any() or ((pi <= 0) & (like[1] > 0)).any():
                return None
            total = pi.sum(axis=-1, keepdims=True)
            return priors / priors.sum(), pi / np.where(total > 0, total, 1.0)
    else:
        def pack(theta):
            return [theta[0], theta[2]]

        def unpack(x, like):
            priors, skill = x
            if ((priors <= 0) & (like[0] > 0)).any():
                return None
            return priors / priors.sum(), _one_coin_pi(skill, n_labels)
    return pack, unpack


def _em_fixed_point(m_step, e_step, T_init, *, max_iter: int, tol: float,
                    accelerate: bool = True, pack=None, unpack=None):
    """EM iterations to a fixed point, plain or accelerated by SQUAREM.

    ``m_step(T) -> (priors, pi, skill)``; ``e_step(priors, pi, T_prev) -> (T, loglik, change)``
    with change = max |T - T_prev| (inf when ``T_prev`` is None). ``T`` is opaque here (an
    array, or a Dask caller's futures): only the small parameters (priors, pi) are combined.
    Returns ``(T, priors, pi, skill, n_iter, converged, loglik_history)``.

    Stopping rule, both ways: one EM step theta -> M(E(theta)) changes no posterior and no
    confusion entry by ``tol`` or more; the state returned is that step's result. ``n_iter``
    counts M-steps (each with an E-step's work) up to ``max_iter``.

    ``accelerate``: SQUAREM (Varadhan and Roland 2008, "Simple and globally convergent methods
    for accelerating the convergence of any EM algorithm", Scand. J. Statist. 35(2), scheme S3),
    on the parameters ``pack(theta)`` (a list of arrays; :func:`_squarem_maps`). From theta_0,
    two EM steps give theta_1 and theta_2; with r = theta_1 - theta_0 and v = theta_2 -
    2 theta_1 + theta_0, the step s = |r| / |v| (at least 1, at most a cap that grows 4x while
    it binds) gives theta' = theta_0 + 2 s r + s^2 v (an affine combination: distributions
    still sum to 1), and one EM step from theta' stabilises it (their section 4). Where
    ``unpack(theta', theta_2)`` finds theta' outside the parameter space (None), or the
    log-likelihood after the stabilising step is below theta_1's, s moves halfway to 1 and the
    cap shrinks 4x; s = 1 is plain EM (theta' = theta_2), so the log-likelihood never falls
    below the plain steps'. A cycle costs three M-steps and three E-steps, as three plain
    iterations do (four E-steps when the first try is refused). The fixed point is the plain
    EM's; the state returned differs from the plain run's by about the plain run's own
    distance to the fixed point (tol / (1 - rate) for a linear rate)."""
    if accelerate and (pack is None or unpack is None):
        raise ValueError("accelerate=True needs pack and unpack (see _squarem_maps)")
    history: list[float] = []
    n_iter = 0

    def em_step(T, pi_before):
        nonlocal n_iter
        n_iter += 1
        priors, pi, skill = m_step(T)
        T_new, loglik, d_t = e_step(priors, pi, T)
        d_pi = np.inf if pi_before is None else float(np.max(np.abs(pi - pi_before), initial=0.0))
        return (priors, pi, skill), T_new, loglik, bool(d_t < tol and d_pi < tol)

    theta, T, loglik, done = em_step(T_init, None)
    history.append(loglik)
    step_cap = 1.0
    while not done and n_iter < max_iter:
        theta1, T1, ll1, done = em_step(T, theta[1])
        history.append(ll1)
        if done or not accelerate or n_iter + 2 > max_iter:  # no room for a cycle: plain
            theta, T = theta1, T1
            continue
        n_iter += 1
        theta2 = m_step(T1)
        x0, x1, x2 = pack(theta), pack(theta1), pack(theta2)
        r = [b - a for a, b in zip(x0, x1, strict=True)]
        v = [c - 2.0 * b + a for a, b, c in zip(x0, x1, x2, strict=True)]
        v_norm = float(np.sqrt(sum(float(np.vdot(p, p)) for p in v)))
        r_norm = float(np.sqrt(sum(float(np.vdot(p, p)) for p in r)))
        step = r_norm / v_norm if v_norm > 0 else 1.0
        step = max(1.0, min(step_cap, step))
        if step == step_cap:
            step_cap *= _SQUAREM_STEP_GROWTH
        while True:
            if step == 1.0:
                priors_x, pi_x = theta2[0], theta2[1]
            else:
                found = unpack([a + (2.0 * step) * b + (step * step) * c
                                for a, b, c in zip(x0, r, v, strict=True)], x2)
                if found is None:  # left the parameter space
                    step_cap = max(1.0, step_cap / _SQUAREM_STEP_GROWTH)
                    step = 1.0 if step < 1.01 else (1.0 + step) / 2.0
                    continue
                priors_x, pi_x = found
            T_x, _, _ = e_step(priors_x, pi_x, None)
            theta_new, T_new, ll_new, done = em_step(T_x, pi_x)
            if ll_new >= ll1 - 1e-10 or step == 1.0:
                theta, T = theta_new, T_new
                history.append(ll_new)
                break
            step_cap = max(1.0, step_cap / _SQUAREM_STEP_GROWTH)
            if n_iter + 1 > max_iter:  # no room to back off: keep theta_1, the last good state
                theta, T, done = theta1, T1, False
                break
            step = 1.0 if step < 1.01 else (1.0 + step) / 2.0
    return T, *theta, n_iter, bool(done), np.asarray(history)


def _fit_em(enc: _Encoded, model: str, *, max_iter: int, tol: float, init: str, stop: str,
            accelerate: bool = True):
    if init != "soft_majority":  # the only start: T = each item's label shares (section 2)
        raise ValueError(f"init='{init}': use 'soft_majority' (EM starts from each item's "
                         "label shares; ties stay split)")
    if stop not in ("fixed_point", "crowdkit"):
        raise ValueError(f"stop='{stop}': use 'fixed_point' or 'crowdkit'")
    if max_iter < 1:
        raise ValueError("max_iter must be at least 1")
    N = len(enc.items)
    used = _used(enc)
    T = _soft_majority(enc)

    last = {}

    def m_step(T):
        counts, mass = _sufficient_stats(enc.R, T, enc.RT)
        last["counts"] = counts
        if model == "ds":
            priors, pi = _ds_m_step(counts, used, mass, N)
            return priors, pi, None
        return _one_coin_m_step(counts, mass, N)

    if stop == "crowdkit":  # crowd-kit's own loop and rule, never accelerated (cross-checks)
        history = []
        converged = False
        priors, pi, skill = m_step(T)
        loss = -np.inf
        n_iter = 0
        for it in range(1, max_iter + 1):
            n_iter = it
            T, ll = _e_step(enc.R, priors, pi)
            history.append(ll)
            priors, pi, skill = m_step(T)
            new_loss = _crowdkit_elbo(enc, T, priors, pi, last["counts"])
            if new_loss - loss < tol:
                converged = True
                break
            loss = new_loss
        return T, priors, pi, skill, n_iter, converged, np.asarray(history)

    def e_step(priors, pi, T_prev):
        T_new, loglik = _e_step(enc.R, priors, pi)
        change = np.inf if T_prev is None else float(np.max(np.abs(T_new - T_prev), initial=0.0))
        return T_new, loglik, change

    pack, unpack = _squarem_maps(model, len(enc.labels))
    return _em_fixed_point(m_step, e_step, T, max_iter=max_iter, tol=tol, accelerate=accelerate,
                           pack=pack, unpack=unpack)


def cap_note(result: CompetenceResult, name: str) -> str | None:
    """A plain-words note when ``result``'s EM stopped at its iteration cap before its fixed
    point (the stopping rule of :func:`dawid_skene`), for a page, a report or a terminal.

    Parameters
    ----------
    result : CompetenceResult
        A fit of :func:`dawid_skene`, :func:`one_coin_dawid_skene` or :func:`mace`.
    name : str
        The model's name as the note should say it.

    Returns
    -------
    str or None
        The note; None when the fit converged, and for MACE (a fixed number of iterations).

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", Journal of the Royal Statistical Society C (Applied
       Statistics) 28(1).

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"item_id": ["i1", "i1", "i2", "i2", "i3", "i3"],
    ...                      "annotator_id": ["a", "b", "a", "b", "a", "b"],
    ...                      "label": ["x", "y", "y", "y", "x", "x"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", RuntimeWarning)
    ...     capped = dawid_skene(rows, max_iter=1)
    >>> cap_note(capped, "Dawid-Skene")
    'Dawid-Skene EM stopped at its cap of 1 iterations before reaching its fixed point: its numbers are not final; raise the iteration cap.'
    >>> cap_note(dawid_skene(rows), "Dawid-Skene") is None
    True
    """
    if result.model == "mace" or result.converged:
        return None
    return (f"{name} EM stopped at its cap of {result.n_iter:,} iterations before reaching its "
            "fixed point: its numbers are not final; raise the iteration cap.")


def _package(enc: _Encoded, model: str, T, priors, pi, n_iter, converged, history,
             **extra) -> CompetenceResult:
    labs = list(enc.labels)
    items = pd.Index(enc.items, name="item_id", dtype=object)
    anns = pd.Index(enc.annotators, name="annotator_id", dtype=object)
    post = pd.DataFrame(T, index=items, columns=pd.Index(labs, name="label", dtype=object))
    hard = pd.Series(np.asarray(labs, dtype=object)[_hard_labels(T)], index=items, name="label")
    n_rows = pd.Series(np.bincount(enc.aa, minlength=len(anns)), index=anns, name="n_rows")
    loglik = float(history[-1]) if len(history) else float("nan")
    confusion = None if pi is None else _ConfusionMap(pi, enc.annotators, labs)
    return CompetenceResult(
        model=model, posteriors=post, labels=hard,
        priors=pd.Series(priors, index=pd.Index(labs, name="label", dtype=object), name="prior"),
        n_rows=n_rows, n_iter=int(n_iter), converged=bool(converged), loglik=loglik,
        loglik_history=np.asarray(history, dtype=float), confusion=confusion,
        confusion_array=pi, label_order=tuple(labs), **extra)


# ----------------------------------------------------------------------------------- public fits
def dawid_skene(df: pd.DataFrame, *, max_iter: int = 10_000, tol: float = 1e-10,
                init: str = "soft_majority", labels=None,
                stop: str = "fixed_point", accelerate: bool = True) -> CompetenceResult:
    """Dawid-Skene with a full confusion matrix per annotator, by EM (Dawid & Skene 1979).

    Model: z_i ~ p; annotator a answers l given z_i = k with probability pi_a[k, l].
    Start from the soft majority vote T[i, k] (share of item i's rows with label k), then
    alternate M-step (p_k = mean_i T[i, k]; pi_a[k, l] proportional to max(n_a[k, l], 1e-10)
    over the labels a used, with n_a[k, l] = sum over a's rows (i, l) of T[i, k]) and E-step
    (log T[i, k] = log p_k + sum_rows log pi_a[k, l], normalised).

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label`` (R rows).
    max_iter : int, default 10000
        Most EM iterations (a RuntimeWarning when reached without converging).
    tol : float, default 1e-10
        ``stop="fixed_point"``: stop when the largest change of any T and any pi entry between
        two iterations is below ``tol``. ``stop="crowdkit"``: crowd-kit 1.4.2's rule (its per-row
        ELBO gains less than ``tol``; use ``tol=1e-5, max_iter=100`` for its defaults), for
        cross-checks only: that quantity is not monotone and stops far from the fixed point.
    init : str, default "soft_majority"
        Initial posteriors: each item's label shares (ties stay split), the only start; any
        other value raises ``ValueError``.
    labels : sequence of str, optional
        Label order (default: sorted strings); fixes ties of the hard label (first wins).
    stop : {"fixed_point", "crowdkit"}, default "fixed_point"
        Stopping rule.
    accelerate : bool, default True
        ``stop="fixed_point"`` only: SQUAREM (Varadhan and Roland 2008, scheme S3), which
        extrapolates from two EM steps and stabilises with a third, never below the plain
        steps' log-likelihood; the same stopping rule and fixed point in fewer iterations (on
        md_agreement 538 instead of 7,796). The result differs from plain EM's by about the plain
        run's own distance to the fixed point (below 1e-8 on the project's datasets where both
        converge). False: plain EM, iteration by iteration.

    Returns
    -------
    CompetenceResult
        ``posteriors`` (N, K), ``labels``, ``priors``, ``confusion``, ``accuracy``
        (sum_k p_k pi_a[k, k]), ``n_rows``, ``n_iter``, ``converged``, ``loglik``.

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", Journal of the Royal Statistical Society C (Applied
       Statistics) 28(1).

    Examples
    --------
    The coin-flipper's accuracy is near chance and its confusion rows are near uniform:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 60)  # 60 items: three careful annotators and a coin-flipper
    >>> careful = np.where(rng.random((60, 3)) < 0.1, 1 - truth[:, None], truth[:, None])
    >>> labels = np.hstack([careful, rng.integers(0, 2, (60, 1))])
    >>> df = pd.DataFrame({"item_id": np.repeat([f"i{i:02d}" for i in range(60)], 4),
    ...                    "annotator_id": np.tile(["a0", "a1", "a2", "spammer"], 60),
    ...                    "label": np.where(labels.ravel() == 1, "pos", "neg")})
    >>> result = dawid_skene(df)
    >>> result.accuracy.round(2).to_dict()
    {'a0': 0.93, 'a1': 0.91, 'a2': 0.91, 'spammer': 0.45}
    >>> result.confusion["spammer"].round(2).to_numpy().tolist()
    [[0.48, 0.52], [0.57, 0.43]]
    """
    enc = _encode(df, labels)
    T, priors, pi, _, n_iter, conv, hist = _run_em(enc, "ds", max_iter=max_iter, tol=tol,
                                                   init=init, stop=stop, accelerate=accelerate)
    acc = np.einsum("k,akk->a", priors, pi)
    res = _package(enc, "ds", T, priors, pi, n_iter, conv, hist)
    res.accuracy = pd.Series(acc, index=res.n_rows.index, name="accuracy")
    return res


def one_coin_dawid_skene(df: pd.DataFrame, *, max_iter: int = 10_000, tol: float = 1e-10,
                         init: str = "soft_majority", labels=None,
                         stop: str = "fixed_point", accelerate: bool = True
                         ) -> CompetenceResult:
    """One-coin Dawid-Skene: one skill s_a per annotator, by EM.

    M-step: s_a = mean over a's rows (i, l) of T[i, l]; pi_a[k, k] = s_a and
    pi_a[k, l] = (1 - s_a) / (K - 1), clipped to [1e-10, 1 - 1e-10] (K = labels in the data).
    Priors, E-step and stopping rule as :func:`dawid_skene` (Dawid & Skene 1979 with the
    confusion matrix tied to one parameter).

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label``.
    max_iter, tol, init, labels, stop, accelerate
        As in :func:`dawid_skene`.

    Returns
    -------
    CompetenceResult
        ``skill`` (Series) in place of ``accuracy``, plus everything of :func:`dawid_skene`.

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", Journal of the Royal Statistical Society C (Applied
       Statistics) 28(1).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 60)  # 60 items: three careful annotators and a coin-flipper
    >>> careful = np.where(rng.random((60, 3)) < 0.1, 1 - truth[:, None], truth[:, None])
    >>> labels = np.hstack([careful, rng.integers(0, 2, (60, 1))])
    >>> df = pd.DataFrame({"item_id": np.repeat([f"i{i:02d}" for i in range(60)], 4),
    ...                    "annotator_id": np.tile(["a0", "a1", "a2", "spammer"], 60),
    ...                    "label": np.where(labels.ravel() == 1, "pos", "neg")})
    >>> one_coin_dawid_skene(df).skill.round(2).to_dict()
    {'a0': 0.93, 'a1': 0.91, 'a2': 0.91, 'spammer': 0.45}
    """
    enc = _encode(df, labels)
    T, priors, pi, skill, n_iter, conv, hist = _run_em(enc, "one-coin", max_iter=max_iter,
                                                       tol=tol, init=init, stop=stop,
                                                       accelerate=accelerate)
    res = _package(enc, "one-coin", T, priors, pi, n_iter, conv, hist)
    res.skill = pd.Series(skill, index=res.n_rows.index, name="skill")
    return res


# -------------------------------------------------------------------------------------- MACE
def _mace_e_step(enc: _Encoded, log_prior: np.ndarray, spam: np.ndarray, theta: np.ndarray):
    """MACE E-step: posteriors, log marginal likelihood and expected counts.

    Row likelihood under class k: b + s1 [k == l], b = g_a theta_a[l], s1 = spamming[a, 1].
    b, s1 and their logs depend on the row only through its (annotator, label) pair, so they
    are computed once per pair (A K values) and gathered to the rows: the same operations on
    the same numbers as row by row, a handful of logarithms instead of three per row.
    """
    N, K = len(enc.items), len(enc.labels)
    A = len(enc.annotators)
    pair, cell = _row_pairs(enc)
    b_pair = spam[:, 0, None] * theta  # (A, K)
    s1_pair = np.broadcast_to(spam[:, 1, None], (A, K))
    log_b = np.log(b_pair)
    b_s1 = b_pair + s1_pair
    base = np.bincount(enc.ii, weights=log_b.ravel()[pair], minlength=N)
    bonus = np.bincount(cell, weights=(np.log(b_s1) - log_b).ravel()[pair],
                        minlength=N * K).reshape(N, K)
    L = base[:, None] + bonus + log_prior
    T, norm = _normalise_logs(L)
    t_row = T.ravel()[cell]
    know = t_row * spam[enc.aa, 1] / b_s1.ravel()[pair]
    guess = 1.0 - know
    know_c = np.bincount(enc.aa, weights=know, minlength=A)
    guess_c = np.bincount(enc.aa, weights=guess, minlength=A)
    strat_c = np.bincount(pair, weights=guess, minlength=A * K).reshape(A, K)
    return T, float(norm.sum()), guess_c, know_c, strat_c


def _row_pairs(enc: _Encoded) -> tuple[np.ndarray, np.ndarray]:
    """(rows,) flat (annotator, label) index ``a K + l`` and (item, label) index ``i K + l`` of
    every row, computed once per encoding (every E-step of every restart reads them)."""
    if enc.row_pairs is None:
        K = len(enc.labels)
        enc.row_pairs = (enc.aa * K + enc.ll, enc.ii * K + enc.ll)
    return enc.row_pairs


def _mace_m_step(guess_c, know_c, strat_c, *, method: str, alpha: float, beta: float,
                 strategy_prior: float, smoothing: float):
    """MACE M-step (Hovy et al. 2013, section 2; variational update of their section 2.2).

    VB: value_j = exp(digamma(c_j + h_j)) / exp(digamma(sum_j (c_j + h_j))), priors (alpha, beta)
    on (guess, know) and ``strategy_prior`` on each strategy entry; not renormalised.
    EM: value_j = (c_j + smoothing) / sum (c + smoothing).
    """
    sc = np.stack([guess_c, know_c], axis=1)
    if method == "vb":
        h = np.array([alpha, beta])
        spam = np.exp(digamma(sc + h) - digamma((sc + h).sum(axis=1, keepdims=True)))
        th = strat_c + strategy_prior
        theta = np.exp(digamma(th) - digamma(th.sum(axis=1, keepdims=True)))
    else:
        spam = (sc + smoothing) / (sc + smoothing).sum(axis=1, keepdims=True)
        theta = (strat_c + smoothing) / (strat_c + smoothing).sum(axis=1, keepdims=True)
    return spam, theta


def _mace_run(enc: _Encoded, log_prior, spam, theta, n_iter: int, **m_options):
    """One MACE restart from a given start: E-step, then ``n_iter`` x (M-step, E-step).

    Returns the final (spamming, theta), the last log marginal likelihood and its history."""
    T, ll, g, k, s = _mace_e_step(enc, log_prior, spam, theta)
    hist = [ll]
    for _ in range(n_iter):
        spam, theta = _mace_m_step(g, k, s, **m_options)
        T, ll, g, k, s = _mace_e_step(enc, log_prior, spam, theta)
        hist.append(ll)
    return spam, theta, ll, hist


def mace(df: pd.DataFrame, *, n_restarts: int = 10, n_iter: int = 50, method: str = "vb",
         alpha: float = 0.5, beta: float = 0.5, strategy_prior: float = 10.0,
         init_noise: float = 0.5, smoothing: float | None = None, label_priors=None,
         seed: int = 0, labels=None) -> CompetenceResult:
    """MACE (Hovy et al. 2013, *Learning Whom to Trust with MACE*, section 2).

    z_i ~ uniform over K labels (or ``label_priors``); annotator a guesses with probability
    g_a = spamming[a, 0] (drawing from its strategy theta_a) and knows with 1 - g_a. Row
    likelihood under class k: ``g_a theta_a[l] + (1 - g_a) [k == l]``.

    Each restart draws spamming[a] = normalise(1 + init_noise U, 1 + init_noise U) and
    theta_a = normalise(1 + init_noise U) from ``numpy.random.default_rng(seed)`` (one generator,
    so restarts differ), runs one E-step and then ``n_iter`` times M-step + E-step. The restart
    with the highest log marginal likelihood is kept and a final E-step is run with it.

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label``.
    n_restarts : int, default 10
        Random restarts (>= 1).
    n_iter : int, default 50
        Iterations per restart (>= 0).
    method : {"vb", "em"}, default "vb"
        Variational Bayes (MACE's default) or EM.
    alpha, beta : float, default 0.5
        Beta prior on (guess, know) for ``"vb"``.
    strategy_prior : float, default 10.0
        Dirichlet prior on each strategy entry for ``"vb"``.
    init_noise : float, default 0.5
        Spread of the random starting values.
    smoothing : float, optional
        ``"em"`` add-constant (default 0.01 / K).
    label_priors : sequence of float, optional
        (K,) prior over classes in label order.
    seed : int, default 0
        Seed of the restarts.
    labels : sequence of str, optional
        Label order (default: sorted strings).

    Returns
    -------
    CompetenceResult
        ``competence`` (spamming[a, 1]), ``posteriors``, ``labels``, ``entropy`` (natural log),
        ``strategy`` (theta), ``best_restart``, ``loglik``.

    Raises
    ------
    ValueError
        Unknown ``method``, ``n_restarts < 1`` or ``n_iter < 0``.

    References
    ----------
    .. [2] D. Hovy, T. Berg-Kirkpatrick, A. Vaswani and E. Hovy (2013), "Learning whom to
       trust with MACE", NAACL-HLT 2013, section 2.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 60)  # 60 items: three careful annotators and a coin-flipper
    >>> careful = np.where(rng.random((60, 3)) < 0.1, 1 - truth[:, None], truth[:, None])
    >>> labels = np.hstack([careful, rng.integers(0, 2, (60, 1))])
    >>> df = pd.DataFrame({"item_id": np.repeat([f"i{i:02d}" for i in range(60)], 4),
    ...                    "annotator_id": np.tile(["a0", "a1", "a2", "spammer"], 60),
    ...                    "label": np.where(labels.ravel() == 1, "pos", "neg")})
    >>> mace(df, n_restarts=3, seed=0).competence.round(2).to_dict()
    {'a0': 0.85, 'a1': 0.82, 'a2': 0.81, 'spammer': 0.01}
    """
    if method not in ("vb", "em"):
        raise ValueError(f"method='{method}': use 'vb' or 'em'")
    if n_restarts < 1 or n_iter < 0:
        raise ValueError("n_restarts must be >= 1 and n_iter >= 0")
    enc = _encode(df, labels)
    A, K = len(enc.annotators), len(enc.labels)
    if label_priors is None:
        prior = np.full(K, 1.0 / K)
    else:
        prior = np.asarray(label_priors, dtype=float)
        if prior.shape != (K,) or np.any(prior < 0) or prior.sum() <= 0:
            raise ValueError(f"label_priors must be {K} non-negative numbers in label order")
        prior = prior / prior.sum()
    log_prior = np.log(np.maximum(prior, EPS))
    smooth = 0.01 / K if smoothing is None else float(smoothing)
    rng = np.random.default_rng(seed)
    best = None
    finals = []
    for r in range(n_restarts):
        spam = 1.0 + init_noise * rng.random((A, 2))
        spam /= spam.sum(axis=1, keepdims=True)
        theta = 1.0 + init_noise * rng.random((A, K))
        theta /= theta.sum(axis=1, keepdims=True)
        spam, theta, ll, hist = _mace_run(enc, log_prior, spam, theta, n_iter, method=method,
                                          alpha=alpha, beta=beta, strategy_prior=strategy_prior,
                                          smoothing=smooth)
        finals.append(ll)
        if best is None or ll > best[0]:
            best = (ll, r, spam.copy(), theta.copy(), hist)
    ll, r, spam, theta, hist = best
    T, ll, _, _, _ = _mace_e_step(enc, log_prior, spam, theta)
    res = _package(enc, "mace", T, prior, None, n_iter, True, np.asarray(hist))
    res.loglik = ll
    anns = res.n_rows.index
    res.competence = pd.Series(spam[:, 1], index=anns, name="competence")
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(T > 0, T * np.log(T), 0.0).sum(axis=1)
    res.entropy = pd.Series(ent, index=res.posteriors.index, name="entropy")
    res.strategy = pd.DataFrame(theta, index=anns,
                                columns=pd.Index(list(enc.labels), name="label", dtype=object))
    res.best_restart = int(r)
    res.restart_loglik = np.asarray(finals)
    return res


# ------------------------------------------------------------------------------ annotator report
#: Default verdict thresholds of :func:`annotator_report` (all adjustable by keyword).
REPORT_THRESHOLDS: dict = {
    # fewer rows than this -> "insufficient_data"
    "min_rows": 20,
    # "unreliable" when skill < 1/K + unreliable_fraction * (median skill - 1/K)
    # (0.5 = the midpoint between chance and the median annotator)
    "unreliable_fraction": 0.5,
    # rule (a): the annotator's dominant confusion cell >= cell_ratio x the median of that cell
    "cell_ratio": 2.5,
    # rule (b): own-camp agreement - majority agreement on the subset >= camp_gain
    "camp_gain": 0.1,
}


def _loo_agreement(ii, aa, ll, cell_of_row, n_items, K, group=None, n_groups=1):
    """Per row: credit for matching the majority of the *other* annotators on the item.

    ``group`` (per row) restricts "the others" to annotators of the same group (a camp).
    Returns (credit, defined) per row; ties among the others' top labels share credit 1/#tied.
    """
    g = np.zeros_like(ii) if group is None else group
    key = g * n_items + ii
    counts = np.bincount(key * K + ll, minlength=n_groups * n_items * K).reshape(-1, K)
    own = np.bincount(cell_of_row * K + ll, minlength=(cell_of_row.max() + 1) * K).reshape(-1, K)
    others = counts[key] - own[cell_of_row]
    top = others.max(axis=1)
    defined = top > 0
    is_top = (others == top[:, None]) & defined[:, None]
    n_top = np.maximum(is_top.sum(axis=1), 1)
    credit = is_top[np.arange(len(ll)), ll] / n_top
    return credit.astype(float), defined


def _top_peer_agreement(enc_cells: pd.DataFrame, n_top: int = 3, min_shared: int = 5):
    """Mean of each annotator's ``n_top`` highest raw pairwise agreements (share of shared items
    with the same label), over partners sharing >= ``min_shared`` items; sparse products."""
    ii, aa, ll = (enc_cells[c].to_numpy() for c in ("ii", "aa", "ll"))
    N, A, K = int(ii.max()) + 1, int(aa.max()) + 1, int(ll.max()) + 1
    # only annotators with >= min_shared items can share min_shared items with anyone: the
    # others never enter the pair products (a wide file of 10,000 annotators x 3 items has none)
    active = np.bincount(aa, minlength=A) >= min_shared
    keep = active[aa]
    ii, aa, ll = ii[keep], aa[keep], ll[keep]
    out = np.full(A, np.nan)
    if not len(ii):
        return out
    per_item = np.bincount(ii, minlength=N).astype(float)
    pairs = float((per_item * (per_item - 1) / 2).sum())  # upper bound on the pair entries
    if pairs > limit("pairs"):
        raise DataError(
            f"peer agreement of {int(active.sum()):,} annotators would need up to "
            f"{pairs:,.0f} annotator pairs, over the limit of {limit('pairs'):,} pairs "
            f"({LIMITS['pairs'][0]}).", source="<dataset>",
            fix=f"analyse a subset of annotators or items, or raise the limit: set "
            f"{LIMITS['pairs'][0]}={int(pairs * 1.1) + 1} (if the machine has the memory).")
    B = sp.csr_matrix((np.ones(len(ii)), (ii, aa)), shape=(N, A))
    X = sp.csr_matrix((np.ones(len(ii)), (ii * K + ll, aa)), shape=(N * K, A))
    shared = (B.T @ B).tocsr()
    agree = (X.T @ X).tocsr()
    shared.setdiag(0)
    shared.eliminate_zeros()
    eligible = shared.multiply(shared >= min_shared).tocsr()
    eligible.eliminate_zeros()
    inv = eligible.copy()
    inv.data = 1.0 / inv.data
    ratio = agree.multiply(inv).tocsr()        # agree / shared on eligible pairs only
    ratio.eliminate_zeros()
    n_elig = np.diff(eligible.indptr)
    indptr, data = ratio.indptr, ratio.data
    lengths = np.diff(indptr)
    # top values per row: sort each row's data descending via a lexsort on (row, -value)
    rows = np.repeat(np.arange(A), lengths)
    order = np.lexsort((-data, rows))
    rank = np.arange(len(order)) - np.repeat(indptr[:-1], lengths)
    keep = rank < n_top
    sums = np.bincount(rows[order][keep], weights=data[order][keep], minlength=A)
    denom = np.minimum(n_elig, n_top)
    ok = denom > 0
    out[ok] = sums[ok] / denom[ok]
    return out


def sigma_camps(df: pd.DataFrame) -> pd.Series:
    """Camp of each annotator from Basile's signed agreement graph.

    :func:`hlv_core.balance.camps` of :func:`hlv_core.balance.sigma` (nominal,
    ``min_shared`` 1, the paper's convention), as ``"<component>:<camp>"``; annotators without
    an edge get NaN. Multi-label cells are collapsed to label sets.

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label``.

    Returns
    -------
    pandas.Series
        Camp per annotator (index ``annotator_id``, name ``camp``).

    References
    ----------
    .. [3] V. Basile, "A measure of systematic disagreement", section 3 (the signed
       agreement graph and its camps).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 60)  # 60 items: three careful annotators and a coin-flipper
    >>> careful = np.where(rng.random((60, 3)) < 0.1, 1 - truth[:, None], truth[:, None])
    >>> labels = np.hstack([careful, rng.integers(0, 2, (60, 1))])
    >>> df = pd.DataFrame({"item_id": np.repeat([f"i{i:02d}" for i in range(60)], 4),
    ...                    "annotator_id": np.tile(["a0", "a1", "a2", "spammer"], 60),
    ...                    "label": np.where(labels.ravel() == 1, "pos", "neg")})
    >>> sigma_camps(df).to_dict()
    {'a0': '0:0', 'a1': '0:0', 'a2': '0:0', 'spammer': '0:1'}
    """
    from hlv_core import balance

    cells = balance.collapse_label_sets(df)
    result = balance.sigma(cells, level="nominal", min_shared=balance.PAPER_MIN_SHARED)
    table = balance.camps(result).table
    key = table["component"].astype(str) + ":" + table["camp"].astype(str)
    key = key.where(table["camp"].to_numpy() >= 0)
    return pd.Series(key.to_numpy(), index=pd.Index(table["annotator_id"].astype(str),
                                                     name="annotator_id"), name="camp")


def annotator_report(df: pd.DataFrame, *, camps=None, subset=None, traits=None,
                     min_rows: int = REPORT_THRESHOLDS["min_rows"],
                     unreliable_fraction: float = REPORT_THRESHOLDS["unreliable_fraction"],
                     cell_ratio: float = REPORT_THRESHOLDS["cell_ratio"],
                     camp_gain: float = REPORT_THRESHOLDS["camp_gain"],
                     rules: tuple = ("a", "b"), mace_restarts: int = 10, seed: int = 0,
                     max_iter: int = 10_000, tol: float = 1e-10) -> pd.DataFrame:
    """Who disagrees at random and who disagrees systematically: one row per annotator.

    Columns: ``n_rows``; ``skill`` (one-coin DS); ``ds_accuracy`` (sum_k p_k pi_a[k, k]);
    ``concentration`` (largest prior-weighted off-diagonal p_k pi_a[k, l] over the total
    off-diagonal weighted mass: 1/(K(K-1)) = errors spread evenly, 1 = one systematic confusion;
    reported, not used by the verdict); ``confusion_cell`` (the (true -> observed) cell holding
    the largest weighted off-diagonal mass) and ``cell_ratio`` (its pi over the median of that
    cell over annotators with >= ``min_rows`` rows); ``majority_agreement`` (leave-one-out: share
    of the annotator's rows equal to the majority label of the other annotators on the item, ties
    share credit 1/#tied); ``top3_peer_agreement`` (mean of the 3 highest raw pairwise agreements
    with annotators sharing >= 5 items); ``mace_competence``; with ``camps``: ``camp`` and
    ``camp_agreement`` (leave-one-out majority of the annotator's own camp); with ``subset``:
    ``majority_agreement_in`` / ``_out`` and ``camp_agreement_in``; ``traits`` columns; the
    verdict ``kind`` and the ``reason``.

    Verdict (defaults in :data:`REPORT_THRESHOLDS`, every one a keyword):
    ``insufficient_data`` when n_rows < ``min_rows``; ``unreliable`` when
    ``skill < 1/K + unreliable_fraction (median skill - 1/K)`` (the midpoint of chance and the
    median; the median, like that of each confusion cell, is over the annotators with at least
    ``min_rows`` rows, or over all annotators when none has that many); ``systematic`` when not unreliable and (a) ``cell_ratio`` >= 2.5 or (b) own-camp
    agreement exceeds majority agreement on ``subset`` by >= ``camp_gain``; else ``reliable``.
    Multi-label cells are collapsed to label sets first.

    Parameters
    ----------
    df : DataFrame
        Long annotations ``item_id, annotator_id, label``.
    camps : Series or mapping, optional
        Annotator -> camp (e.g. :func:`sigma_camps`).
    subset : boolean Series or collection of str, optional
        Items of interest (a mask indexed by ``item_id``, or item ids).
    traits : DataFrame, optional
        ``annotator_id`` + trait columns, joined to the report.
    min_rows : int, default 20
        Fewer rows -> ``insufficient_data``.
    unreliable_fraction : float, default 0.5
        Where between chance and the median skill the unreliable line lies.
    cell_ratio : float, default 2.5
        Rule (a) threshold.
    camp_gain : float, default 0.1
        Rule (b) threshold.
    rules : tuple of str, default ("a", "b")
        Which systematic rules apply.
    mace_restarts : int, default 10
        MACE restarts (0 skips MACE: ``mace_competence`` NaN; it never enters the verdict).
    seed : int, default 0
        Seed of MACE.
    max_iter, tol
        EM settings of :func:`dawid_skene`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``annotator_id``, the columns above. ``attrs``: ``skill_cut``, ``labels``
        and ``notes`` (plain notes: a column not computed, a fit stopped at ``max_iter``).

    References
    ----------
    .. [1] A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
       error-rates using the EM algorithm", Journal of the Royal Statistical Society C (Applied
       Statistics) 28(1).
    .. [2] D. Hovy, T. Berg-Kirkpatrick, A. Vaswani and E. Hovy (2013), "Learning whom to
       trust with MACE", NAACL-HLT 2013, section 2.
    .. [3] V. Basile, "A measure of systematic disagreement", section 3 (the signed
       agreement graph and its camps).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 60)  # 60 items: three careful annotators and a coin-flipper
    >>> careful = np.where(rng.random((60, 3)) < 0.1, 1 - truth[:, None], truth[:, None])
    >>> labels = np.hstack([careful, rng.integers(0, 2, (60, 1))])
    >>> df = pd.DataFrame({"item_id": np.repeat([f"i{i:02d}" for i in range(60)], 4),
    ...                    "annotator_id": np.tile(["a0", "a1", "a2", "spammer"], 60),
    ...                    "label": np.where(labels.ravel() == 1, "pos", "neg")})
    >>> report = annotator_report(df, mace_restarts=0)
    >>> report[["skill", "kind"]].round(2)  # doctest: +NORMALIZE_WHITESPACE
                  skill        kind
    annotator_id
    a0             0.93    reliable
    a1             0.91    reliable
    a2             0.91    reliable
    spammer        0.45  unreliable
    """
    from hlv_core import balance

    cells = balance.collapse_label_sets(df)
    oc = one_coin_dawid_skene(cells, max_iter=max_iter, tol=tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ds = dawid_skene(cells, max_iter=max_iter, tol=tol)
    mc = mace(cells, n_restarts=mace_restarts, seed=seed) if mace_restarts > 0 else None
    enc = _encode(cells)
    A, K, N = len(enc.annotators), len(enc.labels), len(enc.items)
    anns = pd.Index(enc.annotators, name="annotator_id", dtype=object)
    n_rows = np.bincount(enc.aa, minlength=A)
    # DS confusion: dominant weighted off-diagonal cell
    pi = ds.confusion_array
    w = ds.priors.to_numpy()[None, :, None] * pi
    off = ~np.eye(K, dtype=bool)
    w_off = np.where(off[None], w, 0.0)
    total_off = w_off.sum(axis=(1, 2))
    flat_arg = w_off.reshape(A, -1).argmax(axis=1)
    k_star, l_star = np.unravel_index(flat_arg, (K, K))
    with np.errstate(invalid="ignore", divide="ignore"):
        concentration = np.where(total_off > 0, w_off.reshape(A, -1).max(axis=1) / total_off,
                                 np.nan)
    enough = n_rows >= min_rows
    ref = enough if enough.any() else np.ones(A, dtype=bool)
    cell_median = np.median(pi[ref], axis=0)                     # (K, K)
    own_cell = pi[np.arange(A), k_star, l_star]
    med_cell = cell_median[k_star, l_star]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(med_cell > 0, own_cell / med_cell, np.inf)
    ratio = np.where(total_off > 0, ratio, np.nan)
    labs = np.asarray(enc.labels, dtype=object)
    cell_name = np.char.add(np.char.add(labs[k_star].astype(str), " -> "), labs[l_star].astype(str))
    # leave-one-out majority agreement (one row per cell after collapsing)
    cell_id = np.arange(len(enc.ii))
    credit, defined = _loo_agreement(enc.ii, enc.aa, enc.ll, cell_id, N, K)

    def per_annotator(mask):
        num = np.bincount(enc.aa, weights=credit * mask, minlength=A)
        den = np.bincount(enc.aa, weights=mask.astype(float), minlength=A)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / den, np.nan)

    out = pd.DataFrame({"n_rows": n_rows}, index=anns)
    out["skill"] = oc.skill.to_numpy()
    out["ds_accuracy"] = ds.accuracy.to_numpy()
    out["concentration"] = concentration
    out["confusion_cell"] = cell_name
    out["cell_ratio"] = ratio
    out["majority_agreement"] = per_annotator(defined)
    codes = pd.DataFrame({"ii": enc.ii, "aa": enc.aa, "ll": enc.ll})
    try:
        out["top3_peer_agreement"] = _top_peer_agreement(codes)
    except DataError as error:  # too many pairs: this column undefined, said in the notes
        out["top3_peer_agreement"] = np.nan
        out.attrs.setdefault("notes", []).append(
            f"top3_peer_agreement not computed: {error.problem}")
    out["mace_competence"] = mc.competence.to_numpy() if mc is not None else np.nan
    in_subset = None
    if subset is not None:
        items = pd.Index(enc.items)
        if isinstance(subset, pd.Series) and subset.dtype == bool:
            chosen = set(subset.index[subset.to_numpy()].astype(str))
        else:
            chosen = {str(x) for x in subset}
        in_item = items.isin(list(chosen))
        in_subset = in_item[enc.ii]
        out["majority_agreement_in"] = per_annotator(defined & in_subset)
        out["majority_agreement_out"] = per_annotator(defined & ~in_subset)
    if camps is not None:
        camp_s = pd.Series(camps)
        camp_s.index = camp_s.index.astype(str)
        camp_of = camp_s.reindex(anns)
        codes_c, uniq = pd.factorize(camp_of, use_na_sentinel=True)
        out["camp"] = camp_of.to_numpy()
        g_row = codes_c[enc.aa]
        has = g_row >= 0
        g = np.where(has, g_row, len(uniq))
        c_credit, c_def = _loo_agreement(enc.ii, enc.aa, enc.ll, cell_id, N, K, group=g,
                                         n_groups=len(uniq) + 1)
        c_def = c_def & has
        saved = credit
        credit = c_credit
        out["camp_agreement"] = per_annotator(c_def)
        if in_subset is not None:
            out["camp_agreement_in"] = per_annotator(c_def & in_subset)
        credit = saved
    if traits is not None and len(traits):
        t = traits.copy()
        t["annotator_id"] = t["annotator_id"].astype(str)
        t = t.drop_duplicates("annotator_id").set_index("annotator_id")
        t = t[[c for c in t.columns if c not in out.columns]]
        out = out.join(t)
    # verdicts
    skill = out["skill"].to_numpy()
    med_skill = float(np.median(skill[ref]))
    cut = 1.0 / K + unreliable_fraction * (med_skill - 1.0 / K)
    kind = np.full(A, "reliable", dtype=object)
    reason = np.full(A, "", dtype=object)
    rule_a = ("a" in rules) & (np.nan_to_num(ratio, nan=0.0) >= cell_ratio)
    rule_b = np.zeros(A, dtype=bool)
    if "b" in rules and "camp_agreement_in" in out and "majority_agreement_in" in out:
        gain = (out["camp_agreement_in"] - out["majority_agreement_in"]).to_numpy()
        rule_b = np.nan_to_num(gain, nan=-np.inf) >= camp_gain
    unrel = skill < cut
    kind[rule_a | rule_b] = "systematic"
    reason[rule_a] = [f"confusion {c} at {r:.1f}x the median annotator"
                      for c, r in zip(cell_name[rule_a], ratio[rule_a], strict=True)]
    reason[rule_b & ~rule_a] = "agrees with own camp on the subset more than with the majority"
    kind[unrel] = "unreliable"
    reason[unrel] = [f"skill {s:.3f} below {cut:.3f} (midway between chance and the median)"
                     for s in skill[unrel]]
    few = n_rows < min_rows
    kind[few] = "insufficient_data"
    reason[few] = [f"{n} rows (< {min_rows})" for n in n_rows[few]]
    out["kind"] = kind
    out["reason"] = reason
    out.attrs["skill_cut"] = cut
    out.attrs["labels"] = tuple(enc.labels)
    for fitted, name in ((oc, "One-coin Dawid-Skene"), (ds, "Dawid-Skene")):
        note = cap_note(fitted, name)
        if note:
            out.attrs.setdefault("notes", []).append(note)
    return out


# ------------------------------------------------------------------- the subset of rule (b)
def subset_columns(items: pd.DataFrame, *, max_values: int = 50,
                   key: str = "item_id") -> dict[str, list[str]]:
    """Items-table columns that can define the subset of the annotator report's rule (b), with
    their values: every column but ``item_id`` with 2 to ``max_values`` distinct values (text
    columns have one value per item and are left out).

    Rule (b) calls an annotator systematic when they agree with their own camp on a subset of
    items (e.g. one topic or domain) more than with the majority (camps from Basile's signed
    agreement graph; Dawid & Skene 1979 for the verdicts beside it).

    Parameters
    ----------
    items : DataFrame
        The items table (``item_id`` + item columns).
    max_values : int, default 50
        Most distinct values a subset column may have.
    key : str, default "item_id"
        The id column, never offered (``"annotator_id"`` lists the annotators table's traits
        that can define camps, :func:`trait_camps`).

    Returns
    -------
    dict of str to list of str
        Column -> its values (as strings, sorted), in column order.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3 (the signed agreement
       graph and its camps); A. P. Dawid and A. M. Skene (1979), Applied Statistics 28(1),
       section 2.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"item_id": ["i1", "i2", "i3"], "topic": ["a", "b", "a"],
    ...                       "text": ["x", "y", "z"]})
    >>> subset_columns(items)
    {'topic': ['a', 'b']}
    """
    out: dict[str, list[str]] = {}
    for column in items.columns:
        if column == key:
            continue
        values = items[column].dropna().astype(str).unique()
        if 2 <= len(values) <= max_values and len(values) < len(items):
            out[str(column)] = sorted(values)
    return out


def subset_items(items: pd.DataFrame, column: str, value: str) -> list[str]:
    """Ids of the items whose ``column`` equals ``value`` (compared as strings): the ``subset``
    of :func:`annotator_report`'s rule (b).

    Parameters
    ----------
    items : DataFrame
        The items table (``item_id`` + item columns).
    column : str
        An items column.
    value : str
        The value that selects the subset.

    Returns
    -------
    list of str
        Item ids, in table order.

    Raises
    ------
    ValueError
        Unknown column, or no item with that value (the message lists the choices).

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"item_id": ["i1", "i2", "i3"], "topic": ["a", "b", "a"]})
    >>> subset_items(items, "topic", "a")
    ['i1', 'i3']
    """
    if column not in items.columns or column == "item_id":
        usable = [c for c in items.columns if c != "item_id"]
        raise ValueError(f"the items table has no column {column!r}; "
                         + (f"use one of {usable}." if usable else
                            "give the dataset an items table with a column to select on."))
    chosen = items.loc[items[column].astype(str) == str(value), "item_id"].astype(str)
    if chosen.empty:
        values = sorted(items[column].dropna().astype(str).unique())
        raise ValueError(f"no item has {column} = {value!r}; use one of {values}.")
    return chosen.tolist()


def trait_camps(annotators: pd.DataFrame, column: str) -> pd.Series:
    """Camps from a known annotator trait (e.g. a demographic group) instead of the signed
    agreement graph: the ``camps`` of :func:`annotator_report`, so that rule (b) asks whether an
    annotator agrees with their own group on a subset of items more than with the majority.

    A perspectivist reading (Basile, "A measure of systematic disagreement", section 3: camps
    are groups that agree inside and disagree across; here the groups are given, not found).

    Parameters
    ----------
    annotators : DataFrame
        The annotators table (``annotator_id`` + trait columns).
    column : str
        The trait that defines the camps.

    Returns
    -------
    pandas.Series
        Camp (the trait's value as a string) per annotator, index ``annotator_id``, name
        ``camp``; an annotator with no value is NaN (in no camp).

    Raises
    ------
    ValueError
        Unknown column, or a trait with fewer than two values.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> traits = pd.DataFrame({"annotator_id": ["a", "b", "c"],
    ...                        "group": ["target", "control", "target"]})
    >>> trait_camps(traits, "group").to_dict()
    {'a': 'target', 'b': 'control', 'c': 'target'}
    """
    usable = [c for c in annotators.columns if c != "annotator_id"]
    if column not in usable:
        raise ValueError(f"the annotators table has no trait {column!r}; "
                         + (f"use one of {usable}." if usable else
                            "give the dataset an annotators table (annotator_id + traits)."))
    values = annotators[column]
    if values.dropna().astype(str).nunique() < 2:
        raise ValueError(f"the trait {column!r} has fewer than two values: no camps to "
                         "compare; choose a trait on which annotators differ.")
    camp = values.astype(str).where(values.notna())
    return pd.Series(camp.to_numpy(), index=pd.Index(
        annotators["annotator_id"].astype(str), name="annotator_id"), name="camp")
