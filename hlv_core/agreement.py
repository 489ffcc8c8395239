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
    """Krippendorff's alpha of long annotations (``item_id, annotator_id, label``).

    ``alpha = 1 - (n - 1) * sum_ck o_ck delta_ck / sum_ck n_c n_k delta_ck`` with coincidences
    ``o_ck = sum_u (n_uc n_uk - [c=k] n_uc) / (n_u - 1)`` computed from per-item value counts (never
    a dense annotators x items matrix; ``docs/conventions.md``, alpha computation). Krippendorff (2011)

    ``level``: ``"nominal"`` (default, always explicit), ``"ordinal"``, ``"interval"``, ``"ratio"``.
    For the last three the labels are numbers: parsed from the label strings, or given by ``values``
    (a mapping label -> number, or the labels listed in their order -> 0, 1, 2, ...); ordinal
    values are ordered by number. ``multilabel="set"`` turns each annotator's label set on an item
    into one nominal value (otherwise several labels per cell raise ValueError).

    Returns NaN when alpha is undefined (no item with two values, or every pairable value equal);
    :func:`explain_alpha` says why in words.
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
    """Krippendorff's alpha of every annotator pair (two-row sub-matrix), sparse closed forms.

    Spec section 1.3 (M = annotator x item 0/1 matrix, X_c = indicator of value c, n_ij = (M M^T)_ij,
    n = 2 n_ij):

    * nominal: ``alpha_ij = 1 - (n - 1) 2 d_ij / (n^2 - sum_c m_c^2)`` with disagreements d_ij and
      the pair's value counts ``m_c = (X_c M^T)_ij + (X_c M^T)_ji``;
    * interval: ``alpha_ij = 1 - (n - 1) sum (a - b)^2 / (n s2 - s1^2)``;
    * ordinal / ratio: cross-coincidences ``C_ck = (X_c X_k^T)_ij + (X_c X_k^T)_ji`` and
      ``alpha_ij = 1 - (n - 1) sum_{c<k} C_ck delta_ck / sum_{c<k} m_c m_k delta_ck`` (ordinal
      delta from the pair's own marginals, as the two-row ``krippendorff`` call with the full
      value domain).

    Returns a DataFrame with one row per pair sharing at least one item, ``annotator_a <
    annotator_b`` (sorted ids), columns ``annotator_a, annotator_b, n_shared, alpha``. ``alpha`` is
    NaN where the pair shares fewer than ``min_shared`` items (default 2: one shared item can never
    give a positive alpha) or is undefined (all shared values identical). Pairs sharing no item are
    not listed. ``frame.attrs`` holds ``n_pairs_below_min_shared`` and ``n_pairs_undefined``.
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
    """Overall alpha (:func:`krippendorff_alpha`) and all-pairs alpha (:func:`pairwise_alpha`)
    from a single preparation of the long table (ids and labels coded once).

    Equal, value for value, to calling the two functions separately. For repeated calls on
    re-assigned annotators (sigma_rnd) work on the codes: :func:`prepare_alpha_input`, then
    ``AlphaInput.with_annotators`` and :func:`alpha_and_pairwise_codes`."""
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
    """(n_boot,) alpha of item bootstrap resamples (items drawn with replacement; seedable).

    Vectorised over replicates (alpha's sums are linear in per-item contributions). NaN entries are
    undefined replicates. Use percentiles for a CI (:func:`alpha_report`)."""
    data = prepare_alpha_input(annotations, level=level, values=values, multilabel=multilabel)
    return bootstrap_alpha_from_counts(
        data.counts(), data.numbers, level=level, n_boot=n_boot, seed=seed
    )


# ----------------------------------------------------------------------------------------------
# explanations


@dataclass
class AlphaResult:
    """Overall alpha with its bootstrap CI and a plain-words explanation."""

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
    """Plain-words reading of alpha; says why when it is undefined or <= 0."""
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
    """Alpha, percentile bootstrap CI over items, counts and a plain-words explanation.

    Never raises for data that is merely uninformative (one annotator, one label, no pairable
    items): alpha is NaN and ``explanation`` says why. Bad arguments still raise ValueError."""
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
    """Per annotator: mean pairwise alpha over its defined pairs, number of pairs, items shared.

    ``pairs``: output of :func:`pairwise_alpha`. Sorted by mean alpha (lowest first)."""
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
    """Items both annotators labelled where their labels differ: ``item_id, label_a, label_b``.

    Multi-label cells are compared as sorted label sets joined by ``";"``."""
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
    """Cohen's kappa of two annotators on the items both labelled.

    ``kappa = (P_o - P_e) / (1 - P_e)``, ``P_e = sum_c p_a(c) p_b(c)`` (each annotator's own label
    shares; Cohen 1960). With exactly two annotators the ids may be omitted. NaN when undefined
    (no shared item, or both always use one and the same label: P_e = 1)."""
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
    """Cohen's kappa for every annotator pair sharing at least ``min_shared`` items
    (columns ``annotator_a, annotator_b, n_shared, kappa``, pairs in sorted-id order); the mean of
    ``kappa`` is Light's kappa. Same formula as :func:`cohen_kappa` per pair.

    All pairs at once from sparse float64 products over the (items x annotators) one-hot tables
    (``M`` any label, ``X_c`` label c): ``n_ab = (M'M)_ab``, observed agreements
    ``sum_c (X_c'X_c)_ab``, and a's count of label c on the items shared with b,
    ``A_c = X_c'M``, so ``P_e = sum_c A_c[a,b] A_c[b,a] / n_ab^2``. Cost and memory grow with the
    (item, annotator pair) instances: above ``max_bytes`` a ``ValueError`` says so up front."""
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
    """Fleiss' kappa from per-item label counts (Fleiss 1971), items with >= 2 ratings.

    ``P_i = sum_c n_ic (n_ic - 1) / (n_i (n_i - 1))``, ``P_bar = mean_i P_i``,
    ``p_c = sum_i n_ic / sum_i n_i``, ``P_e = sum_c p_c^2``, ``kappa = (P_bar - P_e)/(1 - P_e)``.
    With unequal numbers of ratings per item this is the usual generalisation (per-item agreement
    averaged with equal item weights). NaN when undefined."""
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
    """Light's kappa: ``mean_{a<b} kappa_ab`` over the annotator pairs sharing at least
    ``min_shared`` items, ``kappa_ab`` = Cohen's kappa on the items both labelled
    (:func:`pairwise_cohen_kappa`). NaN pairs (P_e = 1) are skipped by the
    mean; NaN when no pair qualifies. ``annotations``: long ``item_id, annotator_id, label``."""
    pairs = pairwise_cohen_kappa(annotations, min_shared=min_shared)
    return float(pairs["kappa"].mean()) if len(pairs) else float("nan")


def kappa_summary(annotations: pd.DataFrame, *, max_light: int = LIGHT_MAX_ANNOTATORS
                  ) -> dict[str, float]:
    """The kappas shown beside alpha: ``fleiss`` always (Fleiss 1971); ``cohen`` with exactly two
    annotators (Cohen 1960); ``light`` (:func:`lights_kappa`) with 3 to ``max_light``
    annotators. Single-label data only (a ``ValueError`` otherwise, as the kappas raise)."""
    out = {"fleiss": fleiss_kappa(annotations)}
    n_annotators = annotations["annotator_id"].nunique()
    if n_annotators == 2:
        out["cohen"] = cohen_kappa(annotations)
    elif n_annotators <= max_light:
        out["light"] = lights_kappa(annotations)
    return out
