"""Multi-label agreement with bootstrapped expected agreement (Marchal, Scholman, Yung, Demberg,
COLING 2022) and the simulator of its section 5. More than two coders: the mean over coder pairs
(``docs/conventions.md``, multi-label agreement with more than two coders).
Internal module: public names are re-exported by :mod:`hlv_core.agreement`.

Per item, for the label sets S1 (coder 1, the reference) and S2:

* soft-match = [S1 & S2 non-empty]; augmented = |S1 & S2| / (|S1| |S2|) (Rosenberg & Binkowski
  2004, equal weights); precision = |S1 & S2| / |S2|; recall = |S1 & S2| / |S1|;
  F1 = 2 |S1 & S2| / (|S1| + |S2|). Observed P_o = mean over items; adjusted = (P_o - P_e)/(1 - P_e).
* Expected agreement P_e of soft-match kappa / pi (``soft_match_expected``):

  - ``"reduced"`` (default, the paper's section 3.1 and footnote 3): each item is first reduced
    to one label per coder: the intersecting label when the sets share exactly one; where they
    share none or two or more, "a single label is sampled", and footnote 3 computes the expected
    agreement of those items "with the same method as for augmented kappa", i.e. coder c's label
    l gets weight 1/|S_c| (the expectation of sampling one label uniformly from its set, so no
    random draw is needed). Marginals r_c(l) = mean over items of these weights;
    kappa: P_e = sum_l r1(l) r2(l); pi: pooled r = (r1 + r2) / 2, P_e = sum_l r(l)^2.
  - ``"label_shares"`` (our earlier reading, kept by name): raw shares ``q_c`` = counts / total
    labels of coder c, kappa P_e = ``sum_l q1(l) q2(l)``, pi pooled shares ``sum_l q(l)^2``.

  Observed soft-match agreement is the same either way (intersection non-empty).
* Other expected agreements:
  augmented kappa: Rosenberg & Binkowski marginals ``p_c(l) = mean_i w_c(l)``, ``w = 1/|S_c|``
  (reproduces 7/18 = .389 on Table 1); boot-*: mean over B bootstrap replicates in which each
  coder's sets are redrawn item by item: set size from the coder's empirical size distribution,
  labels without replacement with probability proportional to ``q_c`` (sequential weighted draws,
  implemented by the equivalent exponential-race top-k; Efraimidis & Spirakis 2006).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "MULTILABEL_MEASURES",
    "SOFT_MATCH_EXPECTED",
    "average_multilabel_pairs",
    "soft_match_reduction",
    "multilabel_agreement",
    "multilabel_agreement_pairs",
    "simulate_multilabel",
    "simulation_curves",
    "simulation_vs_paper",
]

MULTILABEL_MEASURES = (
    "soft_match_kappa",
    "soft_match_pi",
    "augmented_kappa",
    "boot_match",
    "boot_precision",
    "boot_recall",
    "boot_f1",
    "boot_augmented",
)
_BOOT = {
    "boot_match": "soft_match",
    "boot_precision": "precision",
    "boot_recall": "recall",
    "boot_f1": "f1",
    "boot_augmented": "augmented",
}
_COLUMNS = ["observed", "expected", "adjusted", "sd"]
#: soft-match expected-agreement variants: the paper's reduction (default) and raw label shares
SOFT_MATCH_EXPECTED = ("reduced", "label_shares")


def soft_match_reduction(s1: np.ndarray, s2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item label weights of the paper's soft-match reduction (Marchal et al., section 3.1, footnote 3).

    Where the two sets intersect in exactly one label both coders get that label (weight 1);
    elsewhere (no or several intersecting labels) each coder spreads weight ``1/|S_c|`` over
    its own set (footnote 3: the augmented-kappa method, the expectation of sampling one of its
    labels). Rows with an empty set get weight 0.

    Parameters
    ----------
    s1, s2 : numpy.ndarray
        (..., N, K) boolean label sets of two coders.

    Returns
    -------
    r1, r2 : numpy.ndarray
        (..., N, K) float weights summing to 1 per (non-empty) item.

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.

    Examples
    --------
    Table 1's items: item 1 reduces to A, item 2 to B, item 3 (two shared labels) spreads:

    >>> import numpy as np
    >>> s1 = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 0]], dtype=bool)
    >>> s2 = np.array([[1, 1, 0], [0, 1, 1], [1, 1, 0]], dtype=bool)
    >>> r1, r2 = soft_match_reduction(s1, s2)
    >>> r2
    array([[1. , 0. , 0. ],
           [0. , 1. , 0. ],
           [0.5, 0.5, 0. ]])
    """
    s1 = np.asarray(s1, dtype=bool)
    s2 = np.asarray(s2, dtype=bool)
    inter = s1 & s2
    single = (inter.sum(axis=-1) == 1)[..., None]
    k1 = np.maximum(s1.sum(axis=-1, keepdims=True), 1)
    k2 = np.maximum(s2.sum(axis=-1, keepdims=True), 1)
    r1 = np.where(single, inter, s1 / k1).astype(float)
    r2 = np.where(single, inter, s2 / k2).astype(float)
    return r1, r2


def _per_item(s1: np.ndarray, s2: np.ndarray) -> dict[str, np.ndarray]:
    """Per-item measures for boolean set arrays (..., N, K) (coder 1 = reference)."""
    inter = np.logical_and(s1, s2).sum(axis=-1).astype(float)
    k1 = s1.sum(axis=-1).astype(float)
    k2 = s2.sum(axis=-1).astype(float)
    return {
        "soft_match": (inter > 0).astype(float),
        "augmented": inter / (k1 * k2),
        "precision": inter / k2,
        "recall": inter / k1,
        "f1": 2.0 * inter / (k1 + k2),
    }


def _adjust(p_o: float, p_e: float) -> float:
    if not np.isfinite(p_e) or p_e >= 1.0:
        return float("nan")
    return float((p_o - p_e) / (1.0 - p_e))


def _simulate_sets(
    sizes: np.ndarray, shares: np.ndarray, n_items: int, n_rep: int, rng: np.random.Generator
) -> np.ndarray:
    """(n_rep, n_items, K) boolean simulated label sets of one coder."""
    k = len(shares)
    size = sizes[rng.integers(0, len(sizes), size=(n_rep, n_items))]
    size = np.minimum(size, int((shares > 0).sum()))
    with np.errstate(divide="ignore"):
        keys = rng.standard_exponential((n_rep, n_items, k)) / shares
    return _smallest(keys, size)


def _smallest(keys: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Boolean mask of the ``size`` smallest keys along the last axis (keys are a.s. distinct).

    The exponential race: label l wins with key E_l / q_l, E ~ Exp(1); the k smallest keys are a
    sample of k labels by sequential draws proportional to q without replacement."""
    top = int(size.max()) if size.size else 0
    if top == 0:
        return np.zeros(keys.shape, dtype=bool)
    k = keys.shape[-1]
    smallest = np.partition(keys, list(range(min(top, k))), axis=-1)[..., :top] if top < k else (
        np.sort(keys, axis=-1)
    )
    threshold = np.take_along_axis(smallest, np.maximum(size - 1, 0)[..., None], axis=-1)
    return (keys <= threshold) & (size[..., None] > 0)


def _check_soft_match_expected(soft_match_expected: str) -> None:
    if soft_match_expected not in SOFT_MATCH_EXPECTED:
        raise ValueError(
            f"soft_match_expected must be one of {SOFT_MATCH_EXPECTED}, got {soft_match_expected!r}"
        )


def _pair_table(
    s1: np.ndarray, s2: np.ndarray, *, n_boot: int, rng: np.random.Generator,
    soft_match_expected: str = "reduced",
) -> pd.DataFrame:
    """Observed/expected/adjusted/sd of every measure for one coder pair (N, K) boolean sets."""
    n_items, k = s1.shape
    per = _per_item(s1, s2)
    obs = {m: float(v.mean()) for m, v in per.items()}
    rows: dict[str, tuple[float, float, float, float]] = {}
    q1 = s1.sum(axis=0) / s1.sum()
    q2 = s2.sum(axis=0) / s2.sum()
    p1 = (s1 / s1.sum(axis=1, keepdims=True)).mean(axis=0)
    p2 = (s2 / s2.sum(axis=1, keepdims=True)).mean(axis=0)
    if soft_match_expected == "reduced":
        r1, r2 = soft_match_reduction(s1, s2)
        m1, m2 = r1.mean(axis=0), r2.mean(axis=0)
        pooled = (m1 + m2) / 2.0
    else:
        m1, m2 = q1, q2
        pooled = (s1.sum(axis=0) + s2.sum(axis=0)) / (s1.sum() + s2.sum())
    for name, p_o, p_e in (
        ("soft_match_kappa", obs["soft_match"], float(m1 @ m2)),
        ("soft_match_pi", obs["soft_match"], float(pooled @ pooled)),
        ("augmented_kappa", obs["augmented"], float(p1 @ p2)),
    ):
        rows[name] = (p_o, p_e, _adjust(p_o, p_e), float("nan"))
    if n_boot > 0:
        sizes1 = s1.sum(axis=1)
        sizes2 = s2.sum(axis=1)
        chunk = max(1, min(n_boot, int(4e6 // max(n_items * k, 1))))
        reps = {m: np.empty(n_boot) for m in per}
        for start in range(0, n_boot, chunk):
            b = min(chunk, n_boot - start)
            sim1 = _simulate_sets(sizes1, q1, n_items, b, rng)
            sim2 = _simulate_sets(sizes2, q2, n_items, b, rng)
            for m, v in _per_item(sim1, sim2).items():
                reps[m][start : start + b] = v.mean(axis=-1)
        for name, base in _BOOT.items():
            p_e = float(reps[base].mean())
            sd = float(reps[base].std(ddof=1)) if n_boot > 1 else float("nan")
            rows[name] = (obs[base], p_e, _adjust(obs[base], p_e), sd)
    else:
        for name, base in _BOOT.items():
            rows[name] = (obs[base], float("nan"), float("nan"), float("nan"))
    table = pd.DataFrame.from_dict(rows, orient="index", columns=_COLUMNS)
    table.index.name = "measure"
    return table.loc[list(MULTILABEL_MEASURES)]


def _set_cells(annotations: pd.DataFrame):
    """Boolean label-set matrix per (item, annotator) cell."""
    if not isinstance(annotations, pd.DataFrame):
        raise ValueError("annotations must be a DataFrame with columns item_id, annotator_id, label")
    missing = [c for c in ("item_id", "annotator_id", "label") if c not in annotations.columns]
    if missing:
        raise ValueError(f"annotations lack the column(s) {', '.join(missing)}")
    frame = annotations[["item_id", "annotator_id", "label"]].dropna().astype(str)
    cell_keys = frame["item_id"] + "\x1f" + frame["annotator_id"]
    cell_codes, _ = pd.factorize(cell_keys)
    nonempty = frame["label"].str.strip() != ""
    labels = sorted(frame.loc[nonempty, "label"].unique())
    lab_index = {x: i for i, x in enumerate(labels)}
    cells = frame.assign(cell=cell_codes).drop_duplicates("cell")[["cell", "item_id", "annotator_id"]]
    cells = cells.sort_values("cell").reset_index(drop=True)
    sets = np.zeros((len(cells), len(labels)), dtype=bool)
    sel = nonempty.to_numpy()
    sets[cell_codes[sel], frame.loc[nonempty, "label"].map(lab_index).to_numpy()] = True
    return cells, sets, labels


def multilabel_agreement_pairs(
    annotations: pd.DataFrame,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    coders: Sequence[str] | None = None,
    min_shared: int = 1,
    soft_match_expected: str = "reduced",
    progress=None,
) -> pd.DataFrame:
    """Multi-label agreement of every coder pair (Marchal et al., sections 3-4).

    Each pair is analysed on the items both labelled with non-empty sets; per item
    soft-match = ``[S1 & S2 non-empty]``, augmented = ``|S1 & S2| / (|S1| |S2|)``, precision =
    ``|S1 & S2| / |S2|``, recall = ``|S1 & S2| / |S1|``, F1 = ``2 |S1 & S2| / (|S1| + |S2|)``;
    observed P_o = mean over items; adjusted = ``(P_o - P_e) / (1 - P_e)``. Expected agreement:
    soft-match from the reduced marginals (:func:`soft_match_reduction`) or raw label shares;
    augmented kappa from Rosenberg & Binkowski marginals; boot-* the mean over ``n_boot``
    bootstrap replicates of each coder's sets (set size from the coder's own size
    distribution, labels without replacement with probability proportional to its label
    shares). One ``numpy.random.Generator(seed)`` drives all pairs in order.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id, label`` (one row per chosen label).
    n_boot : int, default 1000
        Bootstrap replicates B (>= 0).
    seed : int, default 0
        Seed of the replicates.
    coders : sequence of str, optional
        Coders in order (default sorted ids); the first of a pair is the reference of
        precision/recall.
    min_shared : int, default 1
        Fewest shared items of an analysed pair.
    soft_match_expected : {"reduced", "label_shares"}, default "reduced"
        Expected agreement of ``soft_match_kappa`` / ``soft_match_pi``.
    progress : callable, optional
        ``progress(done, total)`` after each pair.

    Returns
    -------
    pandas.DataFrame
        ``coder_1, coder_2, n_items, measure, observed, expected, adjusted, sd``;
        ``attrs``: ``n_boot, seed, labels, soft_match_expected`` and ``n_items_empty_set``
        (items both coders of a pair labelled but left out because one set is empty, summed
        over the pairs).

    Raises
    ------
    ValueError
        No rows, fewer than two coders, unknown coders, or no pair sharing an item.

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.
    .. [2] A. Rosenberg and E. Binkowski (2004), "Augmenting the kappa statistic to determine
       interannotator reliability for multiply labeled data points", HLT-NAACL 2004.

    Examples
    --------
    >>> import pandas as pd
    >>> table1 = pd.DataFrame({  # Marchal et al., Table 1: items 1-3 of coders c1 and c2
    ...     "item_id": ["1", "1", "1", "2", "2", "2", "2", "3", "3", "3", "3"],
    ...     "annotator_id": ["c1", "c2", "c2", "c1", "c1", "c2", "c2", "c1", "c1", "c2", "c2"],
    ...     "label": ["A", "A", "B", "A", "B", "B", "C", "A", "B", "A", "B"]})
    >>> pairs = multilabel_agreement_pairs(table1, n_boot=200, seed=0)
    >>> pairs[["coder_1", "coder_2", "measure", "observed"]].head(3).round(3)
      coder_1 coder_2           measure  observed
    0      c1      c2  soft_match_kappa     1.000
    1      c1      c2     soft_match_pi     1.000
    2      c1      c2   augmented_kappa     0.417
    """
    if n_boot < 0:
        raise ValueError("n_boot must be >= 0")
    _check_soft_match_expected(soft_match_expected)
    if not isinstance(annotations, pd.DataFrame) or len(annotations) == 0:
        raise ValueError("multi-label agreement needs annotations: the table has 0 rows "
                         "(columns item_id, annotator_id, label).")
    cells, sets, labels = _set_cells(annotations)
    if len(labels) == 0:
        raise ValueError("no labels: every annotation is empty")
    ids = sorted(cells["annotator_id"].unique()) if coders is None else [str(c) for c in coders]
    unknown = [c for c in ids if c not in set(cells["annotator_id"])]
    if unknown:
        raise ValueError(f"unknown coder(s) {unknown!r}")
    if len(ids) < 2:
        raise ValueError(
            f"multi-label agreement needs at least two coders; the data has {len(ids)}"
        )
    nonempty = sets.any(axis=1)
    item_codes, _ = pd.factorize(cells["item_id"])
    ann_pos = {a: i for i, a in enumerate(ids)}
    ann_codes = cells["annotator_id"].map(ann_pos).to_numpy(dtype=float)
    keep = nonempty & ~np.isnan(ann_codes)
    n_items_all = int(item_codes.max()) + 1 if len(item_codes) else 0
    grid = np.full((n_items_all, len(ids)), -1, dtype=np.int64)
    grid[item_codes[keep], ann_codes[keep].astype(np.int64)] = np.flatnonzero(keep)
    # every cell of a chosen coder, empty sets included: counts the items a pair drops because
    # one of its two sets is empty
    chosen = ~np.isnan(ann_codes)
    has_cell = np.zeros((n_items_all, len(ids)), dtype=bool)
    has_cell[item_codes[chosen], ann_codes[chosen].astype(np.int64)] = True
    n_empty = 0
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(len(ids)) for j in range(i + 1, len(ids))]
    frames = []
    for done, (i, j) in enumerate(pairs, start=1):
        both = (grid[:, i] >= 0) & (grid[:, j] >= 0)
        n_empty += int((has_cell[:, i] & has_cell[:, j]).sum() - both.sum())
        if both.sum() >= max(min_shared, 1):
            table = _pair_table(sets[grid[both, i]], sets[grid[both, j]], n_boot=n_boot, rng=rng,
                                soft_match_expected=soft_match_expected)
            table = table.reset_index()
            table.insert(0, "n_items", int(both.sum()))
            table.insert(0, "coder_2", ids[j])
            table.insert(0, "coder_1", ids[i])
            frames.append(table)
        if progress is not None:
            progress(done, len(pairs))
    if not frames:
        raise ValueError(
            "no coder pair labelled the same item with non-empty label sets: nothing to compare"
        )
    out = pd.concat(frames, ignore_index=True)
    out.attrs.update({"n_boot": int(n_boot), "seed": int(seed), "labels": list(labels),
                      "soft_match_expected": soft_match_expected,
                      "n_items_empty_set": n_empty})
    return out


def multilabel_agreement(
    annotations: pd.DataFrame,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    coders: Sequence[str] | None = None,
    min_shared: int = 1,
    soft_match_expected: str = "reduced",
    progress=None,
) -> pd.DataFrame:
    """Multi-label agreement table (Marchal et al., sections 3-4): rows = measures.

    Measures: ``soft_match_kappa`` (Cohen-style per-coder marginals), ``soft_match_pi``
    (pooled marginals), ``augmented_kappa`` (Rosenberg & Binkowski per-item weights),
    ``boot_match``, ``boot_precision``, ``boot_recall``, ``boot_f1``, ``boot_augmented``
    (expected agreement from ``n_boot`` seeded bootstrap replicates, ``sd`` = replicate sd);
    formulas in :func:`multilabel_agreement_pairs`. More than two coders: every pair on the
    items both labelled, then the unweighted mean over pairs (:func:`average_multilabel_pairs`).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long ``item_id, annotator_id, label``.
    n_boot, seed, coders, min_shared, soft_match_expected, progress
        As in :func:`multilabel_agreement_pairs`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``measure``: ``observed, expected, adjusted, sd, n_pairs, n_pairs_defined,
        n_items``;
        ``attrs``: ``n_boot, seed, n_pairs, labels, n_items_empty_set``.

    Raises
    ------
    ValueError
        As :func:`multilabel_agreement_pairs`.

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.
    .. [2] A. Rosenberg and E. Binkowski (2004), "Augmenting the kappa statistic to determine
       interannotator reliability for multiply labeled data points", HLT-NAACL 2004.

    Examples
    --------
    The paper's Table 1: augmented observed agreement (.50 + .25 + .50) / 3 and expected
    agreement 7/18 = .389 (section 3.2):

    >>> import pandas as pd
    >>> table1 = pd.DataFrame({  # Marchal et al., Table 1: items 1-3 of coders c1 and c2
    ...     "item_id": ["1", "1", "1", "2", "2", "2", "2", "3", "3", "3", "3"],
    ...     "annotator_id": ["c1", "c2", "c2", "c1", "c1", "c2", "c2", "c1", "c1", "c2", "c2"],
    ...     "label": ["A", "A", "B", "A", "B", "B", "C", "A", "B", "A", "B"]})
    >>> table = multilabel_agreement(table1, n_boot=200, seed=0)
    >>> table.loc["augmented_kappa", ["observed", "expected"]].round(3).tolist()
    [0.417, 0.389]
    >>> table.loc["soft_match_kappa", ["observed", "expected", "adjusted"]].tolist()
    [1.0, 0.5, 1.0]
    """
    pairs = multilabel_agreement_pairs(
        annotations, n_boot=n_boot, seed=seed, coders=coders, min_shared=min_shared,
        soft_match_expected=soft_match_expected, progress=progress,
    )
    return average_multilabel_pairs(pairs)


def average_multilabel_pairs(per_pair: pd.DataFrame) -> pd.DataFrame:
    """Mean over coder pairs of the per-pair multi-label table.

    One pair: that pair's rows. Several: precision and recall are first averaged over both
    orientations of each pair (coder 1 as reference is arbitrary among many, so they
    coincide), then every column is the unweighted mean over pairs; a pair without adjusted
    agreement (expected agreement 1) is left out of the adjusted mean, and ``n_pairs_defined``
    counts the pairs behind it.

    Parameters
    ----------
    per_pair : pandas.DataFrame
        :func:`multilabel_agreement_pairs`.

    Returns
    -------
    pandas.DataFrame
        Rows = measures in :data:`MULTILABEL_MEASURES` order; columns ``observed, expected,
        adjusted, sd, n_pairs, n_pairs_defined, n_items`` (``n_pairs_defined``: pairs with a
        defined adjusted agreement; ``n_items`` summed over pairs).

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.

    Examples
    --------
    >>> import pandas as pd
    >>> table1 = pd.DataFrame({  # Marchal et al., Table 1: items 1-3 of coders c1 and c2
    ...     "item_id": ["1", "1", "1", "2", "2", "2", "2", "3", "3", "3", "3"],
    ...     "annotator_id": ["c1", "c2", "c2", "c1", "c1", "c2", "c2", "c1", "c1", "c2", "c2"],
    ...     "label": ["A", "A", "B", "A", "B", "B", "C", "A", "B", "A", "B"]})
    >>> pairs = multilabel_agreement_pairs(table1, n_boot=200, seed=0)
    >>> average_multilabel_pairs(pairs).equals(multilabel_agreement(table1, n_boot=200, seed=0))
    True
    """
    n_pairs = int(per_pair[["coder_1", "coder_2"]].drop_duplicates().shape[0])
    if n_pairs == 1:
        table = per_pair.set_index("measure")[_COLUMNS].copy()
        table["n_pairs"] = 1
        table["n_pairs_defined"] = table["adjusted"].notna().astype(int)
        table["n_items"] = int(per_pair["n_items"].iloc[0])
    else:
        sym = per_pair.copy()
        pr = sym["measure"].isin(["boot_precision", "boot_recall"])
        both = sym[pr].groupby(["coder_1", "coder_2"])[_COLUMNS].transform("mean")
        sym.loc[pr, _COLUMNS] = both.to_numpy()
        grouped = sym.groupby("measure", sort=False)
        table = grouped[_COLUMNS].mean()
        table["n_pairs"] = grouped.size()
        table["n_pairs_defined"] = grouped["adjusted"].count()
        table["n_items"] = grouped["n_items"].sum()
        table = table.loc[list(MULTILABEL_MEASURES)]
    table.index.name = "measure"
    table.attrs.update({"n_pairs": n_pairs, "labels": per_pair.attrs.get("labels", []),
                        "n_boot": per_pair.attrs.get("n_boot"), "seed": per_pair.attrs.get("seed")})
    for key in ("soft_match_expected", "n_items_empty_set"):
        if key in per_pair.attrs:
            table.attrs[key] = per_pair.attrs[key]
    return table


# ----------------------------------------------------------------------------------------------
# simulator (Marchal et al., section 5)


def _label_probs(n_categories: int, label_skew: float) -> np.ndarray:
    p = (np.arange(1, n_categories + 1, dtype=float)) ** (-float(label_skew))
    return p / p.sum()


def _draw_avoiding(
    probs: np.ndarray, avoid: np.ndarray, size: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """(N, K) sets of ``size`` labels drawn without replacement proportional to ``probs``, never
    using labels in ``avoid`` (N, K)."""
    n, k = avoid.shape
    w = np.where(avoid, 0.0, probs[None, :])
    with np.errstate(divide="ignore"):
        keys = rng.standard_exponential((n, k)) / w
    size = np.minimum(size, (w > 0).sum(axis=1))
    return _smallest(keys, size)


def simulate_multilabel(
    *,
    n_items: int = 100,
    n_categories: int = 5,
    double_share: float = 0.0,
    agreement: float = 0.75,
    label_skew: float = 0.0,
    seed: int | np.random.Generator = 0,
) -> pd.DataFrame:
    """One simulated two-coder multi-label data set (Marchal et al., section 5), long format.

    Construction (HLV Lens where the paper is silent): exactly ``round(agreement * n_items)``
    items (random) have intersecting sets; each coder independently gives two labels on exactly
    ``round(double_share * n_items)`` random items, one otherwise. Labels follow
    ``p_k ∝ k^-label_skew`` (0 = equal probability, the paper's set-up). Agreeing item: a
    shared label ~ p, each coder's second label (if any) ~ p without the shared one.
    Disagreeing item: coder 1's set ~ p, coder 2's set ~ p avoiding coder 1's labels.

    Parameters
    ----------
    n_items : int, default 100
        Items.
    n_categories : int, default 5
        Labels (>= 4 when doubles and disagreements both occur).
    double_share : float, default 0.0
        Share of items where each coder gives two labels.
    agreement : float, default 0.75
        Share of items with intersecting sets.
    label_skew : float, default 0.0
        Skew of the label distribution.
    seed : int or numpy.random.Generator, default 0
        Seed or generator.

    Returns
    -------
    pandas.DataFrame
        ``item_id, annotator_id, label`` (coders ``c1``, ``c2``).

    Raises
    ------
    ValueError
        Fewer than 2 categories, shares outside [0, 1], or doubles with disagreement and
        fewer than 4 categories.

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.

    Examples
    --------
    >>> data = simulate_multilabel(n_items=6, double_share=0.5, agreement=0.5, seed=0)
    >>> data.groupby("annotator_id").size().to_dict()
    {'c1': 9, 'c2': 9}
    """
    if n_categories < 2:
        raise ValueError("n_categories must be at least 2")
    if not (0.0 <= double_share <= 1.0 and 0.0 <= agreement <= 1.0):
        raise ValueError("double_share and agreement are shares between 0 and 1")
    if double_share > 0 and agreement < 1 and n_categories < 4:
        raise ValueError("double labels with disagreement need at least 4 categories")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    k = n_categories
    probs = _label_probs(k, label_skew)
    n_agree = int(round(agreement * n_items))
    agree = np.zeros(n_items, dtype=bool)
    agree[rng.permutation(n_items)[:n_agree]] = True
    n_double = int(round(double_share * n_items))
    size1 = np.ones(n_items, dtype=np.int64)
    size2 = np.ones(n_items, dtype=np.int64)
    size1[rng.permutation(n_items)[:n_double]] = 2
    size2[rng.permutation(n_items)[:n_double]] = 2
    none = np.zeros((n_items, k), dtype=bool)
    shared = _draw_avoiding(probs, none, np.ones(n_items, dtype=np.int64), rng)
    extra1 = _draw_avoiding(probs, shared, size1 - 1, rng)
    extra2 = _draw_avoiding(probs, shared, size2 - 1, rng)
    set1_dis = _draw_avoiding(probs, none, size1, rng)
    set2_dis = _draw_avoiding(probs, set1_dis, size2, rng)
    s1 = np.where(agree[:, None], shared | extra1, set1_dis)
    s2 = np.where(agree[:, None], shared | extra2, set2_dis)
    names = np.array([chr(ord("A") + i) if k <= 26 else f"L{i + 1}" for i in range(k)], dtype=object)
    rows = []
    for coder, s in (("c1", s1), ("c2", s2)):
        item, lab = np.nonzero(s)
        rows.append(pd.DataFrame({
            "item_id": [f"item{i + 1:04d}" for i in item],
            "annotator_id": coder,
            "label": names[lab],
        }))
    return pd.concat(rows, ignore_index=True)


def simulation_curves(
    *,
    n_categories: int = 5,
    double_shares: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
    agreements: Sequence[float] = (0.6, 0.75, 0.9),
    n_items: int = 100,
    n_datasets: int = 20,
    n_boot: int = 100,
    label_skew: float = 0.0,
    seed: int = 0,
    soft_match_expected: str = "reduced",
    progress=None,
) -> pd.DataFrame:
    """Figure-1-style curves of Marchal et al. (section 5).

    For every (agreement, double_share) the mean over ``n_datasets`` simulated data sets
    (:func:`simulate_multilabel`) of each measure's observed, expected and adjusted agreement
    (paper: 100 data sets x 100 bootstrap replicates, 100 items, 5 categories).

    Parameters
    ----------
    n_categories : int, default 5
        Labels.
    double_shares : sequence of float, default (0.0, 0.25, 0.5, 0.75, 1.0)
        Shares of double-labelled items.
    agreements : sequence of float, default (0.6, 0.75, 0.9)
        Shares of intersecting items.
    n_items : int, default 100
        Items per data set.
    n_datasets : int, default 20
        Data sets per setting.
    n_boot : int, default 100
        Bootstrap replicates per data set.
    label_skew : float, default 0.0
        Skew of the label distribution.
    seed : int, default 0
        Seed of everything.
    soft_match_expected : {"reduced", "label_shares"}, default "reduced"
        As in :func:`multilabel_agreement`.
    progress : callable, optional
        ``progress(done, total)`` after each setting.

    Returns
    -------
    pandas.DataFrame
        ``agreement, double_share, n_categories, entropy, measure, observed, expected,
        adjusted`` (entropy in bits of the generating label distribution).

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.

    Examples
    --------
    No doubles, 75% intersection, 5 equally likely labels: expected boot-match near 1/5:

    >>> curves = simulation_curves(double_shares=(0.0,), agreements=(0.75,), n_datasets=5,
    ...                            n_boot=20, seed=0)
    >>> row = curves.set_index("measure").loc["boot_match"]
    >>> round(float(row.observed), 2), round(float(row.expected), 2), round(float(row.adjusted), 2)
    (0.75, 0.21, 0.68)
    """
    _check_soft_match_expected(soft_match_expected)
    rng = np.random.default_rng(seed)
    probs = _label_probs(n_categories, label_skew)
    entropy = float(-(probs * np.log2(probs)).sum())
    frames = []
    settings = [(a, d) for a in agreements for d in double_shares]
    for done, (a, d) in enumerate(settings, start=1):
        tables = []
        for _ in range(n_datasets):
            data = simulate_multilabel(
                n_items=n_items, n_categories=n_categories, double_share=d, agreement=a,
                label_skew=label_skew, seed=rng,
            )
            cells, sets, _ = _set_cells(data)
            grid = cells.assign(row=np.arange(len(cells))).pivot(
                index="item_id", columns="annotator_id", values="row"
            )
            s1 = sets[grid["c1"].to_numpy(dtype=np.int64)]
            s2 = sets[grid["c2"].to_numpy(dtype=np.int64)]
            # align to the full label inventory (a label may be unused in a small data set)
            tables.append(_pair_table(s1, s2, n_boot=n_boot, rng=rng,
                                      soft_match_expected=soft_match_expected))
        mean = pd.concat(tables).groupby(level=0, sort=False)[["observed", "expected", "adjusted"]].mean()
        mean = mean.reset_index()
        mean.insert(0, "entropy", entropy)
        mean.insert(0, "n_categories", n_categories)
        mean.insert(0, "double_share", d)
        mean.insert(0, "agreement", a)
        frames.append(mean)
        if progress is not None:
            progress(done, len(settings))
    return pd.concat(frames, ignore_index=True)


#: Marchal et al. (2022), section 5 claims (equal label probabilities, 100 items): (claim, measure,
#: statistic, agreement, double_share, n_categories, paper value). Approximate ("~") values in
#: the text are given as printed.
PAPER_SIMULATION = (
    ("adjusted, no doubles, 60% intersection", "boot_match", "adjusted", 0.6, 0.0, 5, 0.50),
    ("adjusted, no doubles, 75% intersection", "boot_match", "adjusted", 0.75, 0.0, 5, 0.69),
    ("adjusted, no doubles, 90% intersection", "boot_match", "adjusted", 0.9, 0.0, 5, 0.87),
    ("expected boot-match, no doubles", "boot_match", "expected", None, 0.0, 5, 0.20),
    ("expected boot-match, all doubles", "boot_match", "expected", None, 1.0, 5, 0.70),
    ("adjusted boot-match, all doubles, 75%", "boot_match", "adjusted", 0.75, 1.0, 5, 0.17),
    ("expected soft-match (every setting)", "soft_match_kappa", "expected", None, None, 5, 0.21),
    ("expected boot-match, no doubles", "boot_match", "expected", None, 0.0, 10, 0.11),
    ("expected boot-match, all doubles", "boot_match", "expected", None, 1.0, 10, 0.38),
    ("adjusted boot-match, all doubles, 75%", "boot_match", "adjusted", 0.75, 1.0, 10, 0.60),
)


def simulation_vs_paper(curves: pd.DataFrame) -> pd.DataFrame:
    """The paper's simulation claims beside the same statistic of a simulation run (Marchal et al., section 5).

    Mean over the settings a claim covers when it names no agreement or double share; only the
    claims for the curves' number of categories; with skewed labels (entropy below the maximum)
    the paper's values do not apply and the table is empty.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`simulation_curves`.

    Returns
    -------
    pandas.DataFrame
        ``claim, measure, statistic, paper, this_run``.

    References
    ----------
    .. [1] M. Marchal, M. Scholman, F. Yung and V. Demberg (2022), "Establishing annotation
       quality in multi-label annotations", COLING 2022, sections 3-5.

    Examples
    --------
    >>> curves = simulation_curves(double_shares=(0.0,), agreements=(0.75,), n_datasets=5,
    ...                            n_boot=20, seed=0)
    >>> simulation_vs_paper(curves)[["claim", "paper"]]
                                        claim  paper
    0  adjusted, no doubles, 75% intersection   0.69
    1         expected boot-match, no doubles   0.20
    2     expected soft-match (every setting)   0.21
    """
    columns = ["claim", "measure", "statistic", "paper", "this_run"]
    if curves.empty:
        return pd.DataFrame(columns=columns)
    k = int(curves["n_categories"].iloc[0])
    if float(curves["entropy"].iloc[0]) < np.log2(k) - 1e-9:
        return pd.DataFrame(columns=columns)
    rows = []
    for claim, measure, stat, agreement, double, n_cat, paper in PAPER_SIMULATION:
        if n_cat != k:
            continue
        sel = curves["measure"] == measure
        if agreement is not None:
            sel &= np.isclose(curves["agreement"], agreement)
        if double is not None:
            sel &= np.isclose(curves["double_share"], double)
        if not sel.any():
            continue
        rows.append({"claim": claim, "measure": measure, "statistic": stat, "paper": paper,
                     "this_run": float(curves.loc[sel, stat].mean())})
    return pd.DataFrame(rows, columns=columns)
