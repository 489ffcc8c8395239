"""Inter-annotator agreement: Krippendorff's alpha (overall, bootstrap CI, all pairs), Cohen's and
Fleiss' kappa, multi-label agreement with bootstrapped chance agreement (Marchal et al.),
and plain-words explanations of low or undefined alpha.

Alpha follows Krippendorff (2011) with an explicit level of measurement, computed from value
counts, with sparse all-pairs statistics (``docs/conventions.md``, alpha computation); the
multi-label measures follow Marchal et al. (sections 3-4; mean over coder pairs:
``docs/conventions.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from ._alpha import (
    ALPHA_LEVELS,
    AlphaInput,
    PairAlpha,
    alpha_and_pairwise_codes,
    alpha_from_counts,
    alpha_of_input,
    bootstrap_alpha_from_counts,
    pairwise_alpha_arrays,
    prepare_alpha_input,
)
from ._multilabel import (
    MULTILABEL_MEASURES,
    SOFT_MATCH_EXPECTED,
    average_multilabel_pairs,
    multilabel_agreement,
    multilabel_agreement_pairs,
    simulate_multilabel,
    simulation_curves,
    simulation_vs_paper,
    soft_match_reduction,
)
from .pair_matrix import PairMatrix, cluster_order, most_active, pairwise_matrix

__all__ = [
    "ALPHA_LEVELS",
    "MULTILABEL_MEASURES",
    "AlphaInput",
    "AlphaResult",
    "KAPPA_MAX_BYTES",
    "LIGHT_MAX_ANNOTATORS",
    "PairMatrix",
    "average_multilabel_pairs",
    "cluster_order",
    "kappa_summary",
    "lights_kappa",
    "most_active",
    "pairwise_matrix",
    "PairAlpha",
    "alpha_and_pairwise",
    "alpha_and_pairwise_codes",
    "alpha_from_counts",
    "alpha_of_input",
    "alpha_report",
    "annotator_mean_agreement",
    "bootstrap_alpha",
    "cohen_kappa",
    "explain_alpha",
    "fleiss_kappa",
    "krippendorff_alpha",
    "SOFT_MATCH_EXPECTED",
    "multilabel_agreement",
    "multilabel_agreement_pairs",
    "pair_disagreements",
    "pairwise_alpha",
    "pairwise_alpha_arrays",
    "pairwise_cohen_kappa",
    "prepare_alpha_input",
    "simulate_multilabel",
    "simulation_curves",
    "simulation_vs_paper",
    "soft_match_reduction",
]

Values = Mapping[str, float] | Sequence[str] | None


def krippendorff_alpha(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    values: Values = None,
    multilabel: str = "error",
) -> float:
    r"""Krippendorff's alpha of long annotations.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    Krippendorff (2011): coincidences from the per-item value counts :math:`n_{uc}` (units with
    at least two values), marginals :math:`n_c`, distances nominal :math:`[c \ne k]`, interval
    :math:`(v_c - v_k)^2`, ratio :math:`((v_c - v_k)/(v_c + v_k))^2`, ordinal
    :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`. Computed from value counts, never from a dense
    annotators x items matrix. NaN when undefined (no item with two values, or every pairable value
    equal); :func:`explain_alpha` says why.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (always explicit).
    values : mapping of str to float, or sequence of str, optional
        Numbers of the labels for non-nominal levels (default: parsed from the label strings).
    multilabel : {"error", "set"}, default "error"
        ``"set"`` turns an annotator's label set on an item into one nominal value.

    Returns
    -------
    float
        alpha in [-1, 1], or NaN.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> for level in ["nominal", "ordinal", "interval", "ratio"]:
    ...     print(level, round(krippendorff_alpha(annotations, level=level), 3))
    nominal 0.743
    ordinal 0.815
    interval 0.849
    ratio 0.797
    """
    data = prepare_alpha_input(annotations, level=level, values=values, multilabel=multilabel)
    return alpha_of_input(data)


def pairwise_alpha(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    min_shared: int = 2,
    values: Values = None,
    multilabel: str = "error",
) -> pd.DataFrame:
    r"""Krippendorff's alpha of every annotator pair on the items both labelled.

    .. math:: \alpha_{ab} = 1 - (n - 1) \frac{2\, d_{ab}}{n^2 - \sum_c m_c^2}, \quad n = 2\, n_{ab}

    (nominal; :math:`n_{ab}` shared items, :math:`d_{ab}` disagreements, :math:`m_c` the pair's
    count of value c), the two-row alpha of Krippendorff (2011) in closed form from sparse products
    of the annotator x item indicator matrices; interval, ordinal and ratio use the pair's value
    sums and cross-coincidences the same way. Basile ("A Measure of Systematic Disagreement"),
    section 3, builds the annotator graph from these values.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (always explicit).
    min_shared : int, default 2
        Pairs sharing fewer items get NaN (one shared item never gives a positive alpha).
    values : mapping of str to float, or sequence of str, optional
        Numbers of the labels for non-nominal levels (default: parsed from the label strings).
    multilabel : {"error", "set"}, default "error"
        ``"set"`` turns an annotator's label set on an item into one nominal value.

    Returns
    -------
    pandas.DataFrame
        One row per pair sharing at least one item (``annotator_a < annotator_b``), columns
        ``annotator_a, annotator_b, n_shared, alpha``; ``attrs`` holds
        ``n_pairs_below_min_shared`` and ``n_pairs_undefined``.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Basile. "A Measure of Systematic Disagreement" (sigma). Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(pairwise_alpha(annotations).round(3).to_string(index=False))
    annotator_a annotator_b  n_shared  alpha
              A           B         9  0.852
              A           C         8  0.489
              A           D         9  0.857
              B           C         9  0.557
              B           D        10  0.876
              C           D        10  0.627
    """
    data = prepare_alpha_input(annotations, level=level, values=values, multilabel=multilabel)
    return _pairs_frame(data, pairwise_alpha_arrays(data, min_shared=min_shared), level)


def _pairs_frame(data: AlphaInput, pairs: PairAlpha, level: str) -> pd.DataFrame:
    frame = pairs.frame(data.annotator_ids)
    below = frame["n_shared"] < pairs.min_shared
    frame.attrs["level"] = level
    frame.attrs["min_shared"] = int(pairs.min_shared)
    frame.attrs["n_pairs_below_min_shared"] = int(below.sum())
    frame.attrs["n_pairs_undefined"] = int((~below & frame["alpha"].isna()).sum())
    return frame


def alpha_and_pairwise(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    min_shared: int = 2,
    values: Values = None,
    multilabel: str = "error",
) -> tuple[float, pd.DataFrame]:
    r"""Overall alpha and all-pairs alpha from one preparation of the long table.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    overall (:func:`krippendorff_alpha`) and per pair (:func:`pairwise_alpha`), Krippendorff
    (2011); equal, value for value, to the two calls separately.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (always explicit).
    min_shared : int, default 2
        As in :func:`pairwise_alpha`.
    values : mapping of str to float, or sequence of str, optional
        Numbers of the labels for non-nominal levels (default: parsed from the label strings).
    multilabel : {"error", "set"}, default "error"
        ``"set"`` turns an annotator's label set on an item into one nominal value.

    Returns
    -------
    alpha : float
    pairs : pandas.DataFrame
        As :func:`pairwise_alpha`.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> alpha, pairs = alpha_and_pairwise(annotations)
    >>> print(round(alpha, 3), len(pairs))
    0.743 6
    """
    data = prepare_alpha_input(annotations, level=level, values=values, multilabel=multilabel)
    alpha, pairs = alpha_and_pairwise_codes(data, min_shared=min_shared)
    return alpha, _pairs_frame(data, pairs, level)


def bootstrap_alpha(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    n_boot: int = 1000,
    seed: int = 0,
    values: Values = None,
    multilabel: str = "error",
) -> np.ndarray:
    r"""Alpha of item bootstrap resamples (items drawn with replacement).

    .. math:: \alpha^*_b = \alpha\big(\{u^*_{b,1}, \dots, u^*_{b,N}\}\big), \quad u^*_{b,j}
       \sim \mathrm{Uniform}(\text{pairable items})

    Krippendorff (2011), alpha as in :func:`krippendorff_alpha`; Efron and Tibshirani (1993),
    chapter 6 (bootstrap over the units). Vectorised: alpha's sums are linear in per-item
    contributions, so a replicate is a weight vector over items. NaN entries are undefined
    replicates; percentiles give the CI of :func:`alpha_report`.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (always explicit).
    n_boot : int, default 1000
        Number of replicates.
    seed : int, default 0
        Seed of the resampling.
    values : mapping of str to float, or sequence of str, optional
        Numbers of the labels for non-nominal levels (default: parsed from the label strings).
    multilabel : {"error", "set"}, default "error"
        ``"set"`` turns an annotator's label set on an item into one nominal value.

    Returns
    -------
    ndarray of shape (n_boot,)

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Efron and Tibshirani (1993). "An Introduction to the Bootstrap". Chapter 6.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(bootstrap_alpha(annotations, n_boot=5, seed=0).round(3))
    [0.448 1.    0.776 0.84  0.806]
    """
    data = prepare_alpha_input(annotations, level=level, values=values, multilabel=multilabel)
    return bootstrap_alpha_from_counts(
        data.counts(), data.numbers, level=level, n_boot=n_boot, seed=seed
    )


# ----------------------------------------------------------------------------------------------
# explanations


@dataclass
class AlphaResult:
    r"""Overall alpha with its bootstrap confidence interval and a plain-words explanation.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    Krippendorff (2011); the interval is the percentile interval of :func:`bootstrap_alpha`.

    Attributes
    ----------
    alpha : float
    level : str
    ci_low, ci_high : float
        Percentile bootstrap interval (NaN when no replicate is defined).
    n_boot, seed : int
    n_items, n_pairable_items, n_pairable_values, n_annotators : int
    value_shares : dict of str to float
        Share of each label among the pairable values.
    explanation : str
        Plain-words reading (:func:`explain_alpha`).
    replicates : ndarray of shape (n_boot,)

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = alpha_report(annotations, n_boot=200, seed=0)
    >>> print(round(result.alpha, 3), result.n_pairable_items, result.n_pairable_values)
    0.743 11 40
    """

    alpha: float
    level: str
    ci_low: float
    ci_high: float
    n_boot: int
    seed: int
    n_items: int
    n_pairable_items: int
    n_pairable_values: int
    n_annotators: int
    value_shares: dict[str, float] = field(default_factory=dict)
    explanation: str = ""
    replicates: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def as_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "replicates"}
        return out


def explain_alpha(
    alpha: float,
    *,
    n_pairable_items: int,
    n_pairable_values: int,
    n_annotators: int,
    value_shares: Mapping[str, float],
) -> str:
    r"""Plain-words reading of alpha; says why when it is undefined or not positive.

    .. math:: \alpha \ge 0.800: \text{reliable}; \quad 0.667 \le \alpha < 0.800:
       \text{tentative conclusions}

    Krippendorff's (2004) thresholds (Content Analysis, 2nd ed., chapter 11) for the value of
    :func:`krippendorff_alpha`.

    Parameters
    ----------
    alpha : float
    n_pairable_items, n_pairable_values, n_annotators : int
        Counts of the data (for the undefined cases).
    value_shares : mapping of str to float
        Share of each label (a single label makes alpha undefined).

    Returns
    -------
    str

    References
    ----------
    .. [1] Krippendorff (2004). "Content Analysis: An Introduction to Its Methodology", 2nd ed.
       Chapter 11 (reliability: standards for data reliability).
    .. [2] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    >>> print(explain_alpha(0.743, n_pairable_items=11, n_pairable_values=40, n_annotators=4,
    ...                     value_shares={"1": 0.5, "2": 0.5}))
    Alpha = 0.743: acceptable for tentative conclusions (0.667 <= alpha < 0.8).
    """
    shares = dict(value_shares)
    top_label, top_share = (max(shares.items(), key=lambda kv: kv[1]) if shares else ("", 0.0))
    if n_annotators < 2:
        return (
            "Alpha is undefined: there is only one annotator, so no two judgements of the same item "
            "can be compared."
        )
    if n_pairable_items == 0:
        return (
            "Alpha is undefined: no item was labelled by two or more annotators, so there are no "
            "pairable values to compare."
        )
    if np.isnan(alpha):
        if len([s for s in shares.values() if s > 0]) <= 1:
            return (
                f"Alpha is undefined: every pairable judgement is the same label ({top_label!r}). "
                "With no variation there is no expected disagreement to compare against; agreement "
                "is trivially perfect but says nothing about reliability."
            )
        return "Alpha is undefined: there is no expected disagreement among the pairable values."
    notes = []
    if top_share >= 0.9:
        notes.append(
            f"One label dominates ({top_label!r}: {top_share:.0%} of pairable values), so chance "
            "agreement is already high and the few disagreements weigh heavily; alpha punishes "
            "them (the 'paradox' of high raw agreement with low alpha)."
        )
    if n_pairable_values < 20:
        notes.append(
            f"Only {n_pairable_values} pairable values: the estimate is very uncertain."
        )
    if alpha <= 0:
        head = (
            f"Alpha = {alpha:.3f} <= 0: annotators agree no more than (or less than) chance would "
            "predict from how often each label is used. "
        )
        if alpha < 0:
            head += "Negative values mean systematic disagreement (annotators tend to pick different labels on the same item). "
        return (head + " ".join(notes)).strip()
    if alpha >= 0.8:
        head = f"Alpha = {alpha:.3f}: high agreement (Krippendorff's usual threshold for reliable data is 0.8). "
    elif alpha >= 0.667:
        head = f"Alpha = {alpha:.3f}: acceptable for tentative conclusions (0.667 <= alpha < 0.8). "
    else:
        head = (
            f"Alpha = {alpha:.3f}: low agreement. In human-label-variation data this can reflect "
            "genuine differences of perspective rather than noise. "
        )
    return (head + " ".join(notes)).strip()


def alpha_report(
    annotations: pd.DataFrame,
    *,
    level: str = "nominal",
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
    values: Values = None,
    multilabel: str = "error",
) -> AlphaResult:
    r"""Alpha, its percentile bootstrap CI over items, counts and a plain-words explanation.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}
       {\sum_{c,k} n_c n_k\, \delta_{ck}}, \quad o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{n_u - 1}

    Krippendorff (2011) for alpha; percentile interval of :func:`bootstrap_alpha` (Efron and
    Tibshirani 1993, chapter 13). The Agreement screen's headline number. Never raises for data
    that is merely uninformative (alpha is NaN and ``explanation`` says why).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement (always explicit).
    n_boot : int, default 1000
        Bootstrap replicates (0 = no interval).
    seed : int, default 0
        Seed of the resampling.
    ci : float, default 0.95
        Coverage of the interval.
    values : mapping of str to float, or sequence of str, optional
        Numbers of the labels for non-nominal levels (default: parsed from the label strings).
    multilabel : {"error", "set"}, default "error"
        ``"set"`` turns an annotator's label set on an item into one nominal value.

    Returns
    -------
    AlphaResult

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Efron and Tibshirani (1993). "An Introduction to the Bootstrap". Chapter 13.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> result = alpha_report(annotations, n_boot=200, seed=0)
    >>> print(round(result.alpha, 3), round(result.ci_low, 2), round(result.ci_high, 2))
    0.743 0.39 1.0
    """
    data = prepare_alpha_input(annotations, level=level, values=values, multilabel=multilabel)
    counts = data.counts()
    n_u = np.asarray(counts.sum(axis=1)).ravel()
    pairable = n_u >= 2
    value_counts = np.asarray(counts[pairable].sum(axis=0)).ravel()
    total = value_counts.sum()
    shares = {
        lab: float(c / total) for lab, c in zip(data.domain, value_counts, strict=True)
    } if total else {}
    alpha = alpha_from_counts(counts, data.numbers, level=level)
    reps = (
        bootstrap_alpha_from_counts(counts, data.numbers, level=level, n_boot=n_boot, seed=seed)
        if n_boot > 0 and not np.isnan(alpha)
        else np.zeros(0)
    )
    lo = hi = float("nan")
    if len(reps) and np.isfinite(reps).any():
        tail = (1.0 - ci) / 2.0 * 100.0
        lo, hi = (float(x) for x in np.nanpercentile(reps, [tail, 100.0 - tail]))
    n_ann_pairable = len(np.unique(data.annotator[pairable[data.item]])) if len(data.item) else 0
    return AlphaResult(
        alpha=float(alpha),
        level=level,
        ci_low=lo,
        ci_high=hi,
        n_boot=int(n_boot),
        seed=int(seed),
        n_items=data.n_items,
        n_pairable_items=int(pairable.sum()),
        n_pairable_values=int(n_u[pairable].sum()),
        n_annotators=data.n_annotators,
        value_shares=shares,
        explanation=explain_alpha(
            alpha,
            n_pairable_items=int(pairable.sum()),
            n_pairable_values=int(n_u[pairable].sum()),
            n_annotators=max(data.n_annotators, n_ann_pairable),
            value_shares=shares,
        ),
        replicates=reps,
    )


def annotator_mean_agreement(pairs: pd.DataFrame) -> pd.DataFrame:
    r"""Per annotator: mean pairwise alpha over its defined pairs.

    .. math:: \bar\alpha_a = \frac{1}{|\{b : \alpha_{ab} \text{ defined}\}|} \sum_{b} \alpha_{ab}

    Pairwise alpha of Krippendorff (2011) as in :func:`pairwise_alpha` (Basile, section 3,
    reads annotators through these values).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Output of :func:`pairwise_alpha`.

    Returns
    -------
    pandas.DataFrame
        ``annotator_id, mean_alpha, n_pairs_defined, n_pairs, n_shared_total``, lowest mean first.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.
    .. [2] Basile. "A Measure of Systematic Disagreement". Section 3.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> means = annotator_mean_agreement(pairwise_alpha(annotations))
    >>> print(means[["annotator_id", "mean_alpha"]].round(3).to_string(index=False))
    annotator_id  mean_alpha
               C       0.558
               A       0.733
               B       0.762
               D       0.787
    """
    both = pd.concat(
        [
            pairs.rename(columns={"annotator_a": "annotator_id", "annotator_b": "other"}),
            pairs.rename(columns={"annotator_b": "annotator_id", "annotator_a": "other"}),
        ],
        ignore_index=True,
    )
    grouped = both.groupby("annotator_id")
    out = pd.DataFrame(
        {
            "mean_alpha": grouped["alpha"].mean(),
            "n_pairs_defined": grouped["alpha"].count(),
            "n_pairs": grouped["alpha"].size(),
            "n_shared_total": grouped["n_shared"].sum(),
        }
    ).reset_index()
    return out.sort_values(["mean_alpha", "annotator_id"], na_position="last").reset_index(drop=True)


def pair_disagreements(annotations: pd.DataFrame, annotator_a: str, annotator_b: str) -> pd.DataFrame:
    r"""Items both annotators labelled where their labels differ.

    .. math:: \{u : x_{au} \ne x_{bu}\}, \quad d_{ab} = |\{u : x_{au} \ne x_{bu}\}|

    the disagreements :math:`d_{ab}` behind the pair's nominal alpha (Krippendorff 2011, see
    :func:`pairwise_alpha`). Multi-label cells are compared as sorted label sets joined by ``";"``.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    annotator_a, annotator_b : str
        The two annotators.

    Returns
    -------
    pandas.DataFrame
        ``item_id, label_a, label_b``.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(pair_disagreements(annotations, "A", "C").to_string(index=False))
    item_id label_a label_b
         u2       2       3
         u6       1       3
         u8       1       2
    """
    frame = annotations[["item_id", "annotator_id", "label"]].astype(str)
    frame = frame[frame["annotator_id"].isin([str(annotator_a), str(annotator_b)])]
    cells = (
        frame.sort_values("label")
        .groupby(["item_id", "annotator_id"])["label"]
        .agg(";".join)
        .unstack("annotator_id")
    )
    if str(annotator_a) not in cells.columns or str(annotator_b) not in cells.columns:
        return pd.DataFrame(columns=["item_id", "label_a", "label_b"])
    both = cells[[str(annotator_a), str(annotator_b)]].dropna()
    both.columns = ["label_a", "label_b"]
    diff = both[both["label_a"] != both["label_b"]]
    return diff.reset_index().rename(columns={"index": "item_id"})[["item_id", "label_a", "label_b"]]


# ----------------------------------------------------------------------------------------------
# kappas


def _single_label(annotations: pd.DataFrame) -> pd.DataFrame:
    data = annotations[["item_id", "annotator_id", "label"]].dropna().astype(str)
    if data.duplicated(["item_id", "annotator_id"]).any():
        raise ValueError(
            "kappa needs one label per (item, annotator); this data has several (multi-label: use "
            "multilabel_agreement)"
        )
    return data


def _cohen_from_cells(a: np.ndarray, b: np.ndarray, n_labels: int) -> tuple[float, int]:
    n = len(a)
    if n == 0:
        return float("nan"), 0
    p_o = float(np.mean(a == b))
    pa = np.bincount(a, minlength=n_labels) / n
    pb = np.bincount(b, minlength=n_labels) / n
    p_e = float(pa @ pb)
    if p_e >= 1.0:
        return float("nan"), n
    return (p_o - p_e) / (1.0 - p_e), n


def cohen_kappa(
    annotations: pd.DataFrame, annotator_a: str | None = None, annotator_b: str | None = None
) -> float:
    r"""Cohen's kappa of two annotators on the items both labelled.

    .. math:: \kappa = \frac{P_o - P_e}{1 - P_e}, \quad P_e = \sum_c p_a(c)\, p_b(c)

    Cohen (1960), the coefficient kappa (each annotator's own label shares). With exactly two
    annotators the ids may be omitted. NaN when undefined (no shared item, or P_e = 1).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    annotator_a, annotator_b : str, optional
        The two annotators.

    Returns
    -------
    float

    References
    ----------
    .. [1] Cohen (1960). "A coefficient of agreement for nominal scales". Educational and
       Psychological Measurement 20(1).

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(round(cohen_kappa(annotations, "A", "B"), 4))
    0.8448
    """
    data = _single_label(annotations)
    ids = sorted(data["annotator_id"].unique())
    if annotator_a is None or annotator_b is None:
        if len(ids) != 2:
            raise ValueError(
                f"cohen_kappa needs two annotators; the data has {len(ids)}: name annotator_a and "
                "annotator_b (or use pairwise_cohen_kappa / fleiss_kappa)"
            )
        annotator_a, annotator_b = ids
    for who in (annotator_a, annotator_b):
        if str(who) not in ids:
            raise ValueError(f"unknown annotator {who!r}")
    codes, _ = pd.factorize(data["label"], sort=True)
    data = data.assign(code=codes)
    wide = data.pivot(index="item_id", columns="annotator_id", values="code")
    pair = wide[[str(annotator_a), str(annotator_b)]].dropna().to_numpy(dtype=np.int64)
    return _cohen_from_cells(pair[:, 0], pair[:, 1], int(codes.max()) + 1 if len(codes) else 0)[0]


#: Memory bound of :func:`pairwise_cohen_kappa` (bytes of its sparse pair tables).
KAPPA_MAX_BYTES = 2 * 1024**3


def pairwise_cohen_kappa(
    annotations: pd.DataFrame, *, min_shared: int = 2, max_bytes: int = KAPPA_MAX_BYTES
) -> pd.DataFrame:
    r"""Cohen's kappa of every annotator pair sharing at least ``min_shared`` items.

    .. math:: \kappa_{ab} = \frac{P_o - P_e}{1 - P_e}, \quad P_e = \frac{\sum_c A_c[a,b]\,
       A_c[b,a]}{n_{ab}^2}

    Cohen (1960), the coefficient kappa, per pair on the shared items, all pairs at once from
    sparse products (:math:`A_c[a,b]` = a's count of label c on the items shared with b); the mean of ``kappa`` is
    Light's kappa (Light 1971).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    min_shared : int, default 2
        Minimum shared items.
    max_bytes : int
        Memory bound of the pair instances (``ValueError`` above it).

    Returns
    -------
    pandas.DataFrame
        ``annotator_a, annotator_b, n_shared, kappa``.

    References
    ----------
    .. [1] Cohen (1960). "A coefficient of agreement for nominal scales". Educational and
       Psychological Measurement 20(1).
    .. [2] Light (1971). "Measures of response agreement for qualitative data". Psychological
       Bulletin 76(5).

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(pairwise_cohen_kappa(annotations)["kappa"].round(3).tolist())
    [0.845, 0.478, 0.85, 0.542, 0.87, 0.615]
    """
    data = _single_label(annotations)
    item, _ = pd.factorize(data["item_id"])
    ann, ids = pd.factorize(data["annotator_id"], sort=True)
    lab, labels = pd.factorize(data["label"], sort=True)
    cols = ["annotator_a", "annotator_b", "n_shared", "kappa"]
    n_ann, n_lab = len(ids), len(labels)
    if n_ann < 2:
        return pd.DataFrame(columns=cols)
    per_item = np.bincount(item).astype(np.float64)
    instances = float((per_item * (per_item - 1) / 2).sum())
    pairs_bound = min(instances, n_ann * (n_ann - 1) / 2)
    need = 8.0 * 2 * (instances + (n_lab + 3) * pairs_bound)  # products + per-label tables
    if need > max_bytes:
        raise ValueError(
            f"pairwise_cohen_kappa on {n_ann:,} annotators and {n_lab} labels would need about "
            f"{need / 1024**3:.1f} GiB ({instances:,.0f} item-level annotator pairs), over the "
            f"limit of {max_bytes / 1024**3:.1f} GiB: use Fleiss' kappa or alpha, or restrict "
            "the annotators"
        )
    n_items = int(item.max()) + 1
    ones = np.ones(len(item))
    m = sparse.csr_matrix((ones, (item, ann)), shape=(n_items, n_ann))
    shared = sparse.triu(m.T @ m, k=1).tocoo()
    keep = shared.data >= min_shared
    a, b, n = shared.row[keep], shared.col[keep], shared.data[keep]
    order = np.lexsort((b, a))
    a, b, n = a[order].astype(np.int64), b[order].astype(np.int64), n[order]

    def at(mat, r, c) -> np.ndarray:
        """Entries mat[r, c] of a sparse matrix (0 where absent), vectorised."""
        csr = sparse.csr_matrix(mat)
        csr.sum_duplicates()
        csr.sort_indices()
        key = r * n_ann + c
        rows = np.repeat(np.arange(csr.shape[0], dtype=np.int64), np.diff(csr.indptr))
        keys = rows * n_ann + csr.indices
        pos = np.minimum(np.searchsorted(keys, key), max(len(keys) - 1, 0))
        hit = (keys[pos] == key) if len(keys) else np.zeros(len(key), dtype=bool)
        return np.where(hit, csr.data[pos] if len(keys) else 0.0, 0.0)

    z = sparse.csr_matrix((ones, (item * n_lab + lab, ann)), shape=(n_items * n_lab, n_ann))
    agree = at(z.T @ z, a, b)
    p_e = np.zeros(len(a))
    for c in range(n_lab):  # loop over labels only (vectorised over pairs)
        sel = lab == c
        xc = sparse.csr_matrix((ones[sel], (item[sel], ann[sel])), shape=(n_items, n_ann))
        ac = xc.T @ m
        p_e += (at(ac, a, b) / n) * (at(ac, b, a) / n)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (agree / n - p_e) / (1.0 - p_e)
    kappa[p_e >= 1.0] = np.nan
    names = np.asarray(ids, dtype=object).astype(str)
    return pd.DataFrame(
        {"annotator_a": names[a], "annotator_b": names[b], "n_shared": n.astype(np.int64),
         "kappa": kappa},
        columns=cols,
    )


def fleiss_kappa(annotations: pd.DataFrame) -> float:
    r"""Fleiss' kappa from per-item label counts (items with at least 2 ratings).

    .. math:: P_i = \frac{\sum_c n_{ic}(n_{ic} - 1)}{n_i (n_i - 1)}, \quad
       p_c = \frac{\sum_i n_{ic}}{\sum_i n_i}, \quad
       \kappa = \frac{\bar P - \sum_c p_c^2}{1 - \sum_c p_c^2}

    Fleiss (1971), the kappa for many raters; with unequal numbers of ratings per item, the usual
    generalisation (per-item agreement averaged with equal item weights). NaN when undefined.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).

    Returns
    -------
    float

    References
    ----------
    .. [1] Fleiss (1971). "Measuring nominal scale agreement among many raters". Psychological
       Bulletin 76(5), 378-382.

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(round(fleiss_kappa(annotations), 4))
    0.7608
    """
    data = _single_label(annotations)
    item_codes, _ = pd.factorize(data["item_id"])
    lab_codes, labels = pd.factorize(data["label"], sort=True)
    counts = np.zeros((item_codes.max() + 1 if len(item_codes) else 0, len(labels)))
    np.add.at(counts, (item_codes, lab_codes), 1.0)
    n_i = counts.sum(axis=1)
    counts = counts[n_i >= 2]
    n_i = n_i[n_i >= 2]
    if len(n_i) == 0:
        return float("nan")
    p_i = ((counts * (counts - 1)).sum(axis=1)) / (n_i * (n_i - 1))
    p_bar = p_i.mean()
    p_c = counts.sum(axis=0) / n_i.sum()
    p_e = float(p_c @ p_c)
    if p_e >= 1.0:
        return float("nan")
    return float((p_bar - p_e) / (1.0 - p_e))


#: Light's kappa loops over annotator pairs; above this many annotators it is not computed.
LIGHT_MAX_ANNOTATORS = 60


def lights_kappa(annotations: pd.DataFrame, *, min_shared: int = 2) -> float:
    r"""Light's kappa: the mean of Cohen's kappa over annotator pairs.

    .. math:: \kappa_L = \frac{1}{|\mathcal{P}|} \sum_{(a,b) \in \mathcal{P}} \kappa_{ab}

    Light (1971), with :math:`\kappa_{ab}` Cohen's (1960) kappa on the items both labelled and
    :math:`\mathcal{P}` the pairs sharing at least ``min_shared`` items (undefined pairs skipped).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    min_shared : int, default 2
        Minimum shared items.

    Returns
    -------
    float

    References
    ----------
    .. [1] Light (1971). "Measures of response agreement for qualitative data". Psychological
       Bulletin 76(5).
    .. [2] Cohen (1960). "A coefficient of agreement for nominal scales". Educational and
       Psychological Measurement 20(1).

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> print(round(lights_kappa(annotations), 4))
    0.7002
    """
    pairs = pairwise_cohen_kappa(annotations, min_shared=min_shared)
    return float(pairs["kappa"].mean()) if len(pairs) else float("nan")


def kappa_summary(annotations: pd.DataFrame, *, max_light: int = LIGHT_MAX_ANNOTATORS
                  ) -> dict[str, float]:
    r"""The kappas shown beside alpha on the Agreement screen.

    .. math:: \kappa = \frac{\bar P - P_e}{1 - P_e} \text{ (Fleiss)}, \quad
       \kappa = \frac{P_o - P_e}{1 - P_e} \text{ (Cohen)}, \quad
       \kappa_L = \mathrm{mean}_{a<b}\, \kappa_{ab} \text{ (Light)}

    ``fleiss`` always (Fleiss 1971, :func:`fleiss_kappa`); ``cohen`` with exactly two annotators
    (Cohen 1960); ``light`` (Light 1971, :func:`lights_kappa`) with 3 to ``max_light``
    annotators. Single-label data only.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item_id, annotator_id, label`` (one row per annotation).
    max_light : int
        Most annotators for Light's kappa.

    Returns
    -------
    dict of str to float

    References
    ----------
    .. [1] Fleiss (1971). "Measuring nominal scale agreement among many raters".
    .. [2] Cohen (1960). "A coefficient of agreement for nominal scales". Educational and
       Psychological Measurement 20(1).
    .. [3] Light (1971). "Measures of response agreement for qualitative data".

    Examples
    --------
    Krippendorff's (2011) worked example: 4 observers, 12 units, missing values ("."):

    >>> import pandas as pd
    >>> rows = {"A": "1 2 3 3 2 1 4 1 2 . . .", "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    ...         "C": ". 3 3 3 2 3 4 2 2 5 1 .", "D": "1 2 3 3 2 4 4 1 2 5 1 ."}
    >>> annotations = pd.DataFrame(
    ...     [(f"u{j + 1}", a, v) for a, s in rows.items() for j, v in enumerate(s.split())
    ...      if v != "."], columns=["item_id", "annotator_id", "label"])
    >>> {k: round(v, 4) for k, v in kappa_summary(annotations).items()}
    {'fleiss': 0.7608, 'light': 0.7002}
    """
    out = {"fleiss": fleiss_kappa(annotations)}
    n_annotators = annotations["annotator_id"].nunique()
    if n_annotators == 2:
        out["cohen"] = cohen_kappa(annotations)
    elif n_annotators <= max_light:
        out["light"] = lights_kappa(annotations)
    return out
