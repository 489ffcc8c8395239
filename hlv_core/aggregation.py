"""Aggregating annotations into plausibilities (Stutz et al. 2023, sections 3-4): a distribution
lambda over the K classes per case, as a point estimate or as posterior samples.

* Inputs: :func:`model_data` (the counts or the selectors a model reads from a dataset),
  :func:`risk_vector` (risk group per class), selectors helpers.
* Point estimates: :func:`proportions`, :func:`irn` (Stutz et al., sec. 3: a block's weight 1/b
  shared by the block's classes; ``tie_split=False`` / :func:`irn_reference` = the authors'
  released ``irn.py``, full 1/b for every tied class), :func:`pl_mle`, :func:`point_estimate`.
* Samplers (Stutz et al., sec. 4): ``"dirichlet"`` Dir(r c + a0), ``"prirn"`` Dir(r IRN + a0),
  ``"pl"`` Plackett-Luce Gibbs sampler with every reader repeated r times; r = inf gives the
  point estimate repeated S times (:func:`sample_plausibilities`).
* :func:`topk_sets`: the top-k classes of scores (ties: lowest class index first,
  ``docs/conventions.md``).

The certainty measures and UA metrics on these samples are in :mod:`hlv_core.certainty`, which
re-exports the names of this module that users call.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import _plackett_luce as _pl
from ._plackett_luce import pl_gibbs
from .io import DataError

__all__ = [
    "DEFAULT_PRIOR",
    "MODELS",
    "check_sampler_args",
    "default_prior",
    "densify_samples",
    "irn",
    "irn_reference",
    "model_data",
    "pl_mle",
    "point_estimate",
    "proportions",
    "risk_vector",
    "sample_plausibilities",
    "selectors_from_opinions",
    "selectors_from_rankings_groups",
    "topk_sets",
]

MODELS = ("dirichlet", "prirn", "pl")

#: The one default Dirichlet pseudo-count a0 per label, by model (used by the engine, the CLI
#: and the Certainty page): 0.1 for vote counts (small, visible), 0.01 for PrIRN as in the
#: reference notebook of Stutz et al. (``colab_ua_accuracy.ipynb``: ``alpha = 0.01``). The
#: Plackett-Luce model has a Gamma prior instead (``pl_shape``, ``pl_rate``).
DEFAULT_PRIOR: dict[str, float] = {"dirichlet": 0.1, "prirn": 0.01, "pl": 0.1}


def default_prior(model: str) -> float:
    """The default prior a0 of ``model`` (:data:`DEFAULT_PRIOR`)."""
    if model not in DEFAULT_PRIOR:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    return DEFAULT_PRIOR[model]


# ---------------------------------------------------------------------------------- formats
def selectors_from_opinions(opinions) -> list:
    """Reference "opinions" format (readers x classes integer confidences per case; 0 =
    unranked, higher = ranked first, equal = tie; ``formats.py``) -> selectors."""
    out = []
    for case in opinions:
        arr = np.asarray(case)
        readers = []
        for row in np.atleast_2d(arr):
            levels = sorted({int(v) for v in row if v > 0}, reverse=True)
            readers.append([[int(c) for c in np.flatnonzero(row == v)] for v in levels])
        out.append(readers)
    return out


def selectors_from_rankings_groups(rankings, groups) -> list:
    """Reference rankings/groups arrays (cases x readers x classes; ``groups`` -1 = unranked,
    equal group = tie; ``irn.py``) -> selectors."""
    rk, gr = np.asarray(rankings), np.asarray(groups)
    out = []
    for rc, gc in zip(rk, gr, strict=True):
        readers = []
        for r, g in zip(rc, gc, strict=True):
            blocks = []
            for level in sorted({int(v) for v in g if v >= 0}):
                blocks.append([int(c) for c in r[g == level]])
            if blocks:
                readers.append(blocks)
        out.append(readers)
    return out


# ---------------------------------------------------------------------------------- point estimates
def proportions(counts) -> np.ndarray:
    """p_k = c_k / sum c per row (Stutz et al.); rows without annotations stay 0."""
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or np.any(c < 0):
        raise ValueError("counts must be a non-negative (N, K) array")
    s = c.sum(axis=1, keepdims=True)
    return np.divide(c, s, out=np.zeros_like(c), where=s > 0)


def irn(selectors, n_classes: int | None = None, *, tie_split: bool = True) -> np.ndarray:
    """Inverse rank normalisation (paper App. B.2) -> (N, K), rows sum to 1.

    Reader weight of block b (1-based): 1/b, shared by its classes: 1/(b |B_b|) (paper,
    default) or the full 1/b for each tied class (``tie_split=False``, reference
    ``irn.py::aggregate_irn``). Summed over readers, normalised after summing. Cases without any
    ranking: a row of zeros."""
    lay = _pl.build_layout(selectors, n_classes, with_super=False)
    w = 1.0 / (lay.block_pos + 1.0)
    if tie_split:
        w = w / lay.block_size
    entry_w = w[lay.entry_block]
    cls = lay.local_class[lay.entry_local]
    case = lay.local_case[lay.entry_local]
    out = np.zeros((lay.n_cases, lay.n_classes))
    np.add.at(out, (case, cls), entry_w)
    return proportions(out)


def irn_reference(selectors, n_classes: int | None = None) -> np.ndarray:
    """IRN exactly as the reference code (no tie split); see :func:`irn`."""
    return irn(selectors, n_classes, tie_split=False)


def pl_mle(selectors, n_classes: int | None = None, **kwargs) -> np.ndarray:
    """Plackett-Luce maximum-likelihood plausibilities (N, K); see
    :func:`hlv_core._plackett_luce.pl_mle` (EM-MM, Hunter 2004, exact for ties)."""
    return _pl.pl_mle(selectors, n_classes, **kwargs)


def point_estimate(model: str, data, *, n_classes: int | None = None,
                   tie_split: bool = True) -> np.ndarray:
    """The r = inf estimate of ``model``: proportions (dirichlet), IRN (prirn), PL MLE (pl)."""
    if model == "dirichlet":
        return proportions(data)
    if model == "prirn":
        return irn(data, n_classes, tie_split=tie_split)
    if model == "pl":
        return pl_mle(data, n_classes)
    raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")


# ---------------------------------------------------------------------------------- samplers
def check_sampler_args(reliability, n_samples) -> float:
    r = float(reliability)
    if not r > 0:
        raise ValueError(f"reliability must be > 0 (or inf), got {reliability}")
    if int(n_samples) != n_samples or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples}")
    return r


def _dirichlet(alpha: np.ndarray, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    g = rng.standard_gamma(np.broadcast_to(alpha[:, None, :], (alpha.shape[0], n_samples,
                                                                alpha.shape[1])))
    s = g.sum(axis=-1, keepdims=True)
    return g / np.where(s > 0, s, 1.0)


def sample_plausibilities(
    model: str,
    data,
    *,
    reliability: float,
    n_samples: int,
    seed: int = 0,
    prior: float | None = None,
    n_classes: int | None = None,
    tie_split: bool = True,
    burn_in: int = 100,
    n_chains: int = 10,
    pl_shape: float = 1.0,
    pl_rate: float = 1.0,
    unranked_split: str = "dirichlet",
    exact_superclass_prior: bool = False,
    return_info: bool = False,
    progress: Callable[[float], None] | None = None,
):
    """Samples lambda ~ p(lambda | annotations) as a normalised (N, S, K) array (Stutz et al.).

    * ``"dirichlet"`` (``data`` = (N, K) counts): Dir(r * c + prior) (paper App. A).
    * ``"prirn"`` (``data`` = selectors): Dir(r * IRN + prior), IRN normalised (paper App. B.3,
      ``irn.py::sample_prirn``). ``prior=None``: :func:`default_prior` of the model (0.1
      for Dirichlet, 0.01 for PrIRN as in the reference notebook).
    * ``"pl"`` (selectors): Gibbs sampler (:func:`pl_gibbs`), every reader repeated r times
      (integer r), prior Gamma(``pl_shape``, ``pl_rate``) = reference Gamma(1, 1), ``burn_in``
      iterations per chain, ``n_chains`` chains. The mass of the classes nobody ranked is split
      by a Dirichlet(1) draw (``unranked_split="dirichlet"``, reference) or equally.
    * ``reliability=inf``: the point estimate (:func:`point_estimate`) repeated S times.
    ``n_classes=None``: largest class id + 1. With ``return_info`` also returns a dict (ESS ...).
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    r = check_sampler_args(reliability, n_samples)
    prior = default_prior(model) if prior is None else float(prior)
    S = int(n_samples)
    rng = np.random.default_rng(seed)
    info: dict = {"model": model, "reliability": r, "n_samples": S, "seed": seed}
    if model == "dirichlet":
        counts = np.asarray(data, dtype=float)
        if counts.ndim != 2 or np.any(counts < 0):
            raise ValueError("dirichlet needs an (N, K) array of non-negative counts")
        if math.isinf(r):
            out = np.repeat(proportions(counts)[:, None, :], S, axis=1)
        else:
            if prior <= 0 and np.any(counts.sum(1) == 0):
                raise ValueError("prior must be > 0 when a row has no annotations")
            out = _dirichlet(r * counts + prior, S, rng)
    elif model == "prirn":
        base = irn(data, n_classes, tie_split=tie_split)
        if math.isinf(r):
            out = np.repeat(base[:, None, :], S, axis=1)
        else:
            if prior <= 0:
                raise ValueError("prior must be > 0 for PrIRN (classes nobody ranked)")
            out = _dirichlet(r * base + prior, S, rng)
    else:
        if unranked_split not in ("dirichlet", "equal"):
            raise ValueError("unranked_split must be 'dirichlet' or 'equal'")
        if math.isinf(r):
            base = pl_mle(data, n_classes)
            out = np.repeat(base[:, None, :], S, axis=1)
        else:
            if r != int(r):
                raise ValueError(
                    f"PL reliability is the number of times each reader is repeated: an integer "
                    f">= 1 (or inf), got {reliability}"
                )
            lay, local, pinfo = pl_gibbs(
                data, n_classes, repetitions=int(r), n_samples=S, seed=seed, burn_in=burn_in,
                n_chains=n_chains, shape=pl_shape, rate=pl_rate,
                exact_superclass_prior=exact_superclass_prior, progress=progress,
            )
            info.update(pinfo)
            out = densify_samples(lay, local, rng, unranked_split)
    return (out, info) if return_info else out


def densify_samples(lay, local: np.ndarray, rng: np.random.Generator, split: str,
             cases: tuple[int, int] | None = None) -> np.ndarray:
    """(S, L) local normalised samples -> (N, S, K), or (c1 - c0, S, K) for the cases
    ``cases = (c0, c1)``; super-class mass split over its classes."""
    c0, c1 = (0, lay.n_cases) if cases is None else cases
    N, K, S = c1 - c0, lay.n_classes, local.shape[0]
    out = np.zeros((N, S, K))
    inside = (lay.local_case >= c0) & (lay.local_case < c1)
    ranked = (lay.local_class >= 0) & inside
    lc = lay.local_case - c0
    out[lc[ranked], :, lay.local_class[ranked]] = local[:, ranked].T
    sup = np.flatnonzero((lay.local_class < 0) & inside)
    if sup.size:
        sup_case = lc[sup]
        ranked_mask = np.zeros((N, K), dtype=bool)
        ranked_mask[lc[ranked], lay.local_class[ranked]] = True
        mask = ~ranked_mask[sup_case]
        if split == "equal":
            share = np.broadcast_to((mask / mask.sum(1, keepdims=True))[:, None, :],
                                    (len(sup_case), S, K))
        else:
            e = rng.standard_exponential((len(sup_case), S, K)) * mask[:, None, :]
            share = e / e.sum(-1, keepdims=True)
        out[sup_case] += share * local[:, sup].T[:, :, None]
    return out


def topk_sets(scores, k: int) -> np.ndarray:
    """Indices of the k largest entries along the last axis, in decreasing order; ties: lowest
    class index first (stable sort of -scores)."""
    x = np.asarray(scores, dtype=float)
    K = x.shape[-1]
    if not 1 <= k <= K:
        raise ValueError(f"k must be in 1..{K}, got {k}")
    if k == 1:
        return np.argmax(x, axis=-1)[..., None]
    if k < K // 4:
        part = np.argpartition(-x, k - 1, axis=-1)[..., :k]
        # boundary ties: make the tie-break exact by checking the k-th value
        vals = np.take_along_axis(x, part, -1)
        kth = vals.min(-1, keepdims=True)
        n_above = (x > kth).sum(-1)
        n_tie_in = (vals == kth).sum(-1)
        n_tie_all = (x == kth).sum(-1)
        exact = (n_above + n_tie_all == k) | (n_tie_in == n_tie_all)
        if not np.all(exact):
            bad = ~exact
            part[bad] = np.argsort(-x[bad], axis=-1, kind="stable")[..., :k]
        vals = np.take_along_axis(x, part, -1)
        order = np.lexsort((part, -vals), axis=-1)
        return np.take_along_axis(part, order, -1)
    return np.argsort(-x, axis=-1, kind="stable")[..., :k]


def model_data(dataset, model: str):
    """The sampler input of ``model`` for ``dataset``: counts (dirichlet) or selectors."""
    if model == "dirichlet":
        return dataset.counts_array()
    if dataset.task != "ranking":
        raise DataError(
            f"model {model!r} needs ranked data (partial rankings); this dataset is "
            f"{dataset.task}.", source=dataset.name, fix="use --model dirichlet.")
    return dataset.selectors()


def risk_vector(dataset) -> np.ndarray | None:
    """Risk group per label (inventory order) from ``dataset.extra['risk']``, or None."""
    risk = dataset.extra.get("risk") if dataset.extra else None
    if not risk:
        return None
    try:
        return np.array([int(float(risk[label])) for label in dataset.labels])
    except (KeyError, ValueError):
        return None
