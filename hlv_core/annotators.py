"""Items and annotators one at a time: what each annotator answered, how often they side with the
majority, their agreement with the others and their camp, and how much the annotators of one item
agree. The numbers of the "Items and annotators" page and of the ``annotator`` / ``item``
commands.

Conventions (``docs/conventions.md``, "Items and annotators"):

* An annotator's **answer** on an item is their label (multi-class, rating), their label set in
  inventory order joined by ``|`` (multi-label), or their ranking written ``a > b = c`` (ranking:
  ``>`` between rank blocks, ``=`` inside a tie).
* The **majority** of an item is :meth:`Dataset.majority_label` (ties go to the lowest label in
  the inventory; multi-label: the labels chosen by more than half of the annotators) computed on
  every annotator of the item, the annotator themself included: the label every page shows as the
  item's majority.
* Agreement with the majority is counted only on items with at least two annotators (an item's
  only annotator always is its majority). Ranking data: an annotator agrees when the majority
  label is in their top block.
* **Per-item agreement** is the share of the item's annotator pairs who gave the same answer
  (multi-label: per label as yes / no, averaged over the labels someone ticked, as
  :meth:`Dataset.pair_agreement_array`; ranking: the same top block),
  ``P_i = sum_v c_v (c_v - 1) / (n_i (n_i - 1))`` with ``c_v`` the annotators giving answer ``v``
  and ``n_i`` the item's annotators (Fleiss 1971, the per-item term of Fleiss' kappa); undefined
  (NaN) with fewer than two annotators.
* Mean pairwise alpha of an annotator: :func:`hlv_core.agreement.annotator_mean_agreement`, shown
  with its support (defined pairs, items shared); :func:`mean_alpha_with_support` marks the
  annotators with fewer than ``min_pairs`` defined pairs (default :data:`MIN_PAIRS`) so that a
  ranking is not led by annotators with one or two pairs.
* Camps: :func:`hlv_core.balance.camps` of Basile's signed graph under the paper's conventions
  (nominal alpha, ``min_shared`` 1); ``-1`` = the annotator has no edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import agreement, balance
from .io import Dataset
from .levels import level_options
from .pair_matrix import check_pairs

#: Up to this many ids a miss suggests the closest spellings (difflib); above it, ids that
#: contain the query (a fuzzy match over millions of ids would make a typo cost seconds).
_CLOSE_MATCH_LIMIT = 20_000


def _find_id(query: str, known: np.ndarray, what: str) -> str:
    """``query`` as one of the ``known`` ids: itself, else the one id with the same look-alike
    spelling (:func:`hlv_core.io.spelling.normalise_spelling`: NFC, format characters,
    whitespace runs); else a ValueError naming up to three close ids and how to list them."""
    import difflib

    from .io.spelling import normalise_spelling

    if (known == query).any():
        return query
    normal = normalise_spelling(query)  # the loader gave every id this spelling
    if normal and (known == normal).any():
        return normal
    if len(known) <= _CLOSE_MATCH_LIMIT:
        folded: dict[str, str] = {}  # compared without case: 'LAWYER_01' finds 'lawyer_01'
        for k in known:
            folded.setdefault(str(k).casefold(), str(k))
        near = [folded[m] for m in difflib.get_close_matches(normal.casefold(), list(folded),
                                                             n=3, cutoff=0.6)]
    elif normal:
        near = sorted(str(k) for k in known[np.char.find(known.astype(str), normal) >= 0])[:3]
    else:
        near = []
    hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
    raise ValueError(f"no {what} {query!r} in this dataset{hint} (it has {len(known):,} "
                     f"{what}s; without --id the command lists them)")

__all__ = [
    "MIN_PAIRS",
    "AnnotatorProfile",
    "ItemView",
    "annotator_camps",
    "annotator_cells",
    "annotator_pairs",
    "annotator_profile",
    "annotator_table",
    "confusion_vs_majority",
    "item_agreement",
    "item_overview",
    "item_view",
    "majority_agreement",
    "mean_alpha_with_support",
]

#: Default minimum number of defined pairwise alphas before an annotator's mean alpha is ranked.
MIN_PAIRS = 5


def annotator_cells(dataset: Dataset) -> pd.DataFrame:
    r"""One row per (item, annotator) cell: the answer, the item's majority and whether they agree.

    The answer is the label (multi-class, rating), the label set joined by ``|`` in inventory
    order (multi-label), or the ranking written ``a > b = c`` (ranking); ``top`` is the top
    block of a ranking and the answer itself otherwise; the majority is
    :meth:`~hlv_core.io.Dataset.majority_label` on every annotator of the item (ties to the
    lowest inventory index). ``agrees`` is computed for every cell; callers keep
    ``n_annotators >= 2``.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.

    Returns
    -------
    pandas.DataFrame
        ``item_id, annotator_id, answer, top, majority, n_annotators, agrees``; rows in the
        order of the items, then of the annotators' first annotation.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the majority-vote target MV; ties to the lowest label index).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> annotator_cells(dataset).head(3)
      item_id annotator_id answer  top majority  n_annotators  agrees
    0      i1            a    pos  pos      pos             3    True
    1      i1            b    pos  pos      pos             3    True
    2      i1            c    neg  neg      pos             3   False
    """
    ann = dataset.annotations
    pos = {label: i for i, label in enumerate(dataset.labels)}
    frame = pd.DataFrame({
        "item_id": ann["item_id"].astype(str).to_numpy(),
        "annotator_id": ann["annotator_id"].astype(str).to_numpy(),
        "label": ann["label"].astype(str).to_numpy(),
    })
    frame["pos"] = frame["label"].map(pos).fillna(len(pos)).astype(int)
    ranking = dataset.task == "ranking" and "rank" in ann.columns
    frame["rank"] = (ann["rank"].to_numpy(dtype="float64", na_value=np.inf) if ranking
                     else 0.0)
    frame = frame.sort_values(["item_id", "annotator_id", "rank", "pos"], kind="stable")
    keys = ["item_id", "annotator_id"]
    first = ~frame.duplicated(keys)
    if ranking:
        same_block = (~first) & (frame["rank"].to_numpy() == frame["rank"].shift().to_numpy())
        sep = np.where(first, "", np.where(same_block, " = ", " > "))
        top = frame["rank"] == frame.groupby(keys, sort=False)["rank"].transform("min")
    else:
        sep = np.where(first, "", "|")
        top = pd.Series(True, index=frame.index)
    if ranking or not first.all():
        frame["piece"] = sep + frame["label"].to_numpy(dtype=object)
        grouped = frame.groupby(keys, sort=False)
        cells = grouped["piece"].agg("".join).rename("answer").reset_index()
    else:  # one label per cell (the usual case): the answer is the label, no string joins
        cells = frame[keys].assign(answer=frame["label"].to_numpy()).reset_index(drop=True)
    cells["top"] = (cells["answer"].str.split(" > ").str[0] if ranking else cells["answer"])

    majority = dataset.majority_label()
    majority.index = majority.index.astype(str)
    n_per_item = pd.Series(dataset.annotators_per_item_array(),
                           index=dataset.item_ids.astype(str))
    cells["majority"] = cells["item_id"].map(majority).fillna("")
    cells["n_annotators"] = cells["item_id"].map(n_per_item).fillna(0).astype(int)
    if ranking:
        hit = top & (frame["label"] == frame["item_id"].map(majority))
        agrees = hit.groupby([frame["item_id"], frame["annotator_id"]], sort=False).any()
        cells["agrees"] = agrees.to_numpy()
    else:
        cells["agrees"] = cells["answer"] == cells["majority"]
    order = pd.Series(np.arange(dataset.n_items), index=dataset.item_ids.astype(str))
    cells = cells.iloc[np.argsort(cells["item_id"].map(order).to_numpy(), kind="stable")]
    return cells.reset_index(drop=True)


def item_agreement(dataset: Dataset, cells: pd.DataFrame | None = None) -> pd.Series:
    r"""Per-item agreement ``P_i``: the share of the item's annotator pairs who gave the same answer (Fleiss 1971).

    ``P_i = sum_v c_v (c_v - 1) / (n_i (n_i - 1))`` with ``c_v`` the annotators giving answer
    ``v`` and ``n_i`` the item's annotators (the per-item term of Fleiss' kappa); NaN with
    fewer than two annotators. Multi-class, rating and multi-label data use
    :meth:`~hlv_core.io.Dataset.pair_agreement_array` (multi-label: each label a yes / no
    question, averaged over the labels someone ticked); ranking data the same formula over the
    annotators' top blocks.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells` (ranking only; computed when not given).

    Returns
    -------
    pandas.Series
        ``pair_agreement`` indexed by ``item_id`` in dataset order.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5) (the per-item agreement P_i).

    Examples
    --------
    Item i1 has two ``pos`` and one ``neg``: one agreeing pair of three, (2 * 1) / (3 * 2):

    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> item_agreement(dataset).round(3).to_dict()
    {'i1': 0.333, 'i2': 1.0, 'i3': 0.5}
    """
    ids = dataset.item_ids.astype(str)
    index = pd.Index(ids, name="item_id")
    if dataset.task != "ranking":
        return pd.Series(dataset.pair_agreement_array(), index=index, name="pair_agreement")
    cells = annotator_cells(dataset) if cells is None else cells
    c = cells.groupby(["item_id", "top"], sort=False).size()
    pairs_same = (c * (c - 1)).groupby(level="item_id").sum()
    n = cells.groupby("item_id", sort=False).size()
    n = n.reindex(ids).fillna(0).to_numpy(dtype=float)
    same = pairs_same.reindex(ids).fillna(0).to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(n >= 2, same / (n * (n - 1)), np.nan)
    return pd.Series(value, index=index, name="pair_agreement")


def item_overview(dataset: Dataset, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    r"""The item table, most contested first, with the per-item agreement of every task.

    :meth:`~hlv_core.io.Dataset.item_table` whose ``pair_agreement`` column also covers
    ranking data (top blocks, :func:`item_agreement`). With ``c_ik`` the annotators of item i
    choosing label k, ``n_i = sum_k c_ik`` and ``P_ik = c_ik / n_i``:

    .. math::

        \text{majority\_share}_i = \max_k P_{ik}, \qquad
        \text{pair\_agreement}_i = P_i = \frac{\sum_k c_{ik} (c_{ik} - 1)}{n_i (n_i - 1)},
        \qquad \text{entropy}_i = \eta_i = -\sum_k \frac{P_{ik} \ln P_{ik}}{\ln K}

    ``P_i`` is the per-item observed agreement of Fleiss' kappa (NaN for ``n_i < 2``; ranking
    data: the same over the annotators' top blocks; multi-label: each label a yes / no
    question, averaged over the labels someone ticked); ``eta_i`` is the normalised entropy of
    Kurniawan et al., section 3.1 (multi-label: the mean binary entropy of section 3.2).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells` (ranking only).

    Returns
    -------
    pandas.DataFrame
        ``item_id, n_annotators, majority, majority_share, pair_agreement, entropy`` (+ the
        dataset's item columns).

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5) (the per-item agreement P_i).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.1 (the normalised entropy
       ``eta_i``).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> item_overview(dataset)[["item_id", "majority", "pair_agreement"]].round(3)
      item_id majority  pair_agreement
    0      i1      pos           0.333
    1      i3      neg           0.500
    2      i2      neg           1.000
    """
    table = dataset.item_table()
    if dataset.task == "ranking":
        agree = item_agreement(dataset, cells)
        table["pair_agreement"] = table["item_id"].astype(str).map(agree).to_numpy()
    return table.reset_index(drop=True)


def majority_agreement(dataset: Dataset, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    r"""How often each annotator sides with the item's majority.

    ``majority_agreement = n_agree / n_compared`` over the annotator's items with at least two
    annotators (NaN when nothing is compared); one grouped pass over :func:`annotator_cells`.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells` (computed when not given).

    Returns
    -------
    pandas.DataFrame
        ``annotator_id, n_items, n_compared, n_agree, majority_agreement``, rows in
        ``dataset.annotator_ids`` order.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the majority-vote target MV; ties to the lowest label index).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> majority_agreement(dataset).round(3)
      annotator_id  n_items  n_compared  n_agree  majority_agreement
    0            a        3           3        2               0.667
    1            b        3           3        3               1.000
    2            c        3           3        2               0.667
    3            d        1           1        1               1.000
    """
    cells = annotator_cells(dataset) if cells is None else cells
    compared = cells["n_annotators"] >= 2
    frame = pd.DataFrame({
        "annotator_id": cells["annotator_id"],
        "n_items": 1,
        "n_compared": compared.astype(int),
        "n_agree": (compared & cells["agrees"]).astype(int),
    })
    out = frame.groupby("annotator_id", sort=False)[["n_items", "n_compared", "n_agree"]].sum()
    out = out.reindex(dataset.annotator_ids.astype(str)).fillna(0).astype(int)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["majority_agreement"] = np.where(out["n_compared"] > 0,
                                             out["n_agree"] / out["n_compared"], np.nan)
    out.index.name = "annotator_id"
    return out.reset_index()


def confusion_vs_majority(dataset: Dataset, annotator_id: str,
                          cells: pd.DataFrame | None = None) -> pd.DataFrame:
    r"""How one annotator's answers line up with the majority, on items with >= 2 annotators.

    Multi-class, rating, ranking: counts with rows = the majority label (every label of the
    inventory, in order) and columns = the annotator's answer (ranking: the first label of
    their top block). Multi-label: one row per label, columns ``both``, ``majority only``,
    ``annotator only``, ``neither``.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    annotator_id : str
        The annotator.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells`.

    Returns
    -------
    pandas.DataFrame
        Integer counts (index ``majority``, columns ``annotator``; multi-label: index
        ``label``).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the majority-vote target MV; ties to the lowest label index).

    Examples
    --------
    Annotator a said ``pos`` on i3, where the majority says ``neg``:

    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> confusion_vs_majority(dataset, "a").to_numpy().tolist()
    [[1, 1], [0, 1]]
    """
    cells = annotator_cells(dataset) if cells is None else cells
    mine = cells[(cells["annotator_id"] == str(annotator_id)) & (cells["n_annotators"] >= 2)]
    labels = list(dataset.labels)
    if dataset.task == "multilabel":
        chosen = mine["answer"].str.split("|")
        major = mine["majority"].map(lambda s: s.split("|") if s else [])
        rows = []
        for label in labels:
            a = chosen.map(lambda s, label=label: label in s).to_numpy(dtype=bool)
            m = major.map(lambda s, label=label: label in s).to_numpy(dtype=bool)
            rows.append({"label": label, "both": int((a & m).sum()),
                         "majority only": int((m & ~a).sum()),
                         "annotator only": int((a & ~m).sum()),
                         "neither": int((~a & ~m).sum())})
        return pd.DataFrame(rows).set_index("label")
    answer = mine["top"]
    if dataset.task == "ranking":
        answer = answer.str.split(" = ").str[0]
    columns = labels + sorted(set(answer) - set(labels))
    table = pd.crosstab(pd.Categorical(mine["majority"], categories=labels),
                        pd.Categorical(answer, categories=columns), dropna=False)
    table.index.name, table.columns.name = "majority", "annotator"
    return table.astype(int)


def annotator_pairs(dataset: Dataset, *, level: str | None = None,
                    min_shared: int = 2) -> pd.DataFrame:
    r"""Pairwise Krippendorff's alpha of every annotator pair of the dataset.

    :func:`hlv_core.agreement.pairwise_alpha` at ``level`` (default: the dataset's default
    level, :func:`hlv_core.levels.level_options`); pairs sharing fewer than ``min_shared``
    items get NaN.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multi-class, rating or multi-label data.
    level : str, optional
        ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
    min_shared : int, default 2
        Fewest shared items of a defined pair.

    Returns
    -------
    pandas.DataFrame
        ``annotator_a, annotator_b, n_shared, alpha``.

    Raises
    ------
    hlv_core.io.DataError
        Too many annotator pairs for the pair limit.

    References
    ----------
    .. [1] K. Krippendorff (2011), "Computing Krippendorff's alpha-reliability", University
       of Pennsylvania.

    Examples
    --------
    Annotators a and b agree on 2 of their 3 shared items: D_o = 2/6, D_e = 18/30, alpha =
    1 - D_o / D_e = 4/9:

    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> annotator_pairs(dataset).head(3).round(4)
      annotator_a annotator_b  n_shared   alpha
    0           a           b         3  0.4444
    1           a           c         3 -0.2500
    2           a           d         1     NaN
    """
    opts = level_options(dataset)
    level = opts.resolve(level)
    check_pairs(dataset.annotations, what="pairwise alpha", source=dataset.name)
    return agreement.pairwise_alpha(dataset.annotations, level=level, min_shared=min_shared,
                                    values=opts.values(level), multilabel=opts.multilabel)


def annotator_camps(dataset: Dataset) -> pd.Series:
    r"""Camp of each annotator under Basile's conventions (0, 1; -1 without an edge).

    :func:`hlv_core.balance.camps` of :func:`hlv_core.balance.sigma` (nominal alpha,
    ``min_shared`` 1).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task with annotator ids.

    Returns
    -------
    pandas.Series
        ``camp`` indexed by annotator id.

    Raises
    ------
    hlv_core.io.DataError
        Too many annotator pairs for the pair limit.

    References
    ----------
    .. [1] V. Basile, "A measure of systematic disagreement", section 3 (the signed agreement
       graph: an edge + when pairwise alpha >= overall alpha; camps of its balanced two-colouring).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> annotator_camps(dataset).to_dict()
    {'a': 0, 'b': 0, 'c': 1, 'd': 1}
    """
    check_pairs(dataset.annotations, what="the annotator graph (camps)", source=dataset.name)
    result = balance.sigma(dataset.annotations, level="nominal",
                           min_shared=balance.PAPER_MIN_SHARED,
                           multilabel=level_options(dataset).multilabel)
    return balance.camps(result).camps.rename("camp")


def mean_alpha_with_support(pairs: pd.DataFrame, min_pairs: int = MIN_PAIRS) -> pd.DataFrame:
    r"""Each annotator's mean pairwise alpha with its support.

    :func:`hlv_core.agreement.annotator_mean_agreement` plus ``enough_support`` (at least
    ``min_pairs`` defined pairwise alphas), so that a ranking is not led by annotators with one
    or two pairs. Annotators with enough support come first (lowest mean first), then the
    others. With ``D_a`` the annotators b whose pairwise alpha ``alpha_ab`` with a is defined
    (Krippendorff 2011 on the items they share):

    .. math::

        \text{mean\_alpha}_a = \frac{1}{|D_a|} \sum_{b \in D_a} \alpha_{ab}, \qquad
        \text{enough\_support}_a = [\, |D_a| \ge \text{min\_pairs} \,]

    (``n_pairs_defined`` is ``|D_a|``; NaN mean when ``D_a`` is empty.)

    Parameters
    ----------
    pairs : pandas.DataFrame
        :func:`annotator_pairs` (``annotator_a, annotator_b, n_shared, alpha``).
    min_pairs : int, default :data:`MIN_PAIRS`
        Fewest defined pairs.

    Returns
    -------
    pandas.DataFrame
        ``annotator_id, mean_alpha, n_pairs_defined, n_shared_total, ..., enough_support``.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania (alpha of one annotator pair).
    .. [2] V. Basile, "A Measure of Systematic Disagreement", section 3 (annotators read
       through their pairwise alphas).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> table = mean_alpha_with_support(annotator_pairs(dataset), min_pairs=2)
    >>> table[["annotator_id", "mean_alpha", "enough_support"]].round(4)
      annotator_id  mean_alpha  enough_support
    0            c     -0.1250            True
    1            a      0.0972            True
    2            b      0.2222            True
    3            d         NaN           False
    """
    means = agreement.annotator_mean_agreement(pairs)
    means["enough_support"] = means["n_pairs_defined"] >= int(min_pairs)
    return means.sort_values(["enough_support", "mean_alpha", "annotator_id"],
                             ascending=[False, True, True], na_position="last",
                             kind="stable").reset_index(drop=True)


def annotator_table(dataset: Dataset, *, pairs: pd.DataFrame | None = None,
                    camps: pd.Series | None = None,
                    cells: pd.DataFrame | None = None) -> pd.DataFrame:
    r"""One row per annotator for browsing.

    :func:`majority_agreement`, then (when given) the mean pairwise alpha with its support
    (``mean_alpha, n_pairs_defined, n_shared_total``) and the camp, then the annotator's traits.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    pairs : pandas.DataFrame, optional
        :func:`annotator_pairs`.
    camps : pandas.Series, optional
        :func:`annotator_camps`.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells`.

    Returns
    -------
    pandas.DataFrame
        One row per annotator.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 4 (the majority-vote target MV; ties to the lowest label index).
    .. [2] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School
       for Communication, University of Pennsylvania.
    .. [3] V. Basile, "A Measure of Systematic Disagreement", section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> table = annotator_table(dataset, pairs=annotator_pairs(dataset),
    ...                         camps=annotator_camps(dataset))
    >>> table[["annotator_id", "majority_agreement", "n_pairs_defined", "camp"]].round(3)
      annotator_id  majority_agreement  n_pairs_defined  camp
    0            a               0.667                2     0
    1            b               1.000                2     0
    2            c               0.667                2     1
    3            d               1.000                0     1
    """
    table = majority_agreement(dataset, cells)
    if pairs is not None:
        means = agreement.annotator_mean_agreement(pairs)
        table = table.merge(means[["annotator_id", "mean_alpha", "n_pairs_defined",
                                   "n_shared_total"]], on="annotator_id", how="left")
        for column in ("n_pairs_defined", "n_shared_total"):
            table[column] = table[column].fillna(0).astype(int)
    if camps is not None:
        camp_of = pd.Series(camps.to_numpy(), index=camps.index.astype(str))
        table["camp"] = table["annotator_id"].map(camp_of).fillna(-1).astype(int)
    traits = dataset.annotators.assign(annotator_id=dataset.annotators["annotator_id"].astype(str))
    return table.merge(traits, on="annotator_id", how="left")


@dataclass(frozen=True)
class AnnotatorProfile:
    r"""What :func:`annotator_profile` returns.

    Attributes
    ----------
    annotator_id : str
        The annotator.
    n_items, n_compared, n_agree : int
        Items labelled, of those with >= 2 annotators, and of those where the answer is the
        majority.
    majority_agreement : float
        ``n_agree / n_compared``.
    mean_alpha : float
        Mean pairwise alpha (NaN when no pairs were given).
    n_pairs_defined, n_shared_total : int
        Its support (0 when no pairs were given).
    camp : int or None
        Camp (-1: no edge; None when camps were not given).
    traits : dict
        The annotator's traits.
    label_shares : pandas.DataFrame
        ``label, annotator, everyone``: share of the annotator's and of all annotations.
    confusion : pandas.DataFrame
        :func:`confusion_vs_majority`.
    disagreements : pandas.DataFrame
        ``item_id, answer, majority, n_annotators`` where the answer is not the majority.
    pairs : pandas.DataFrame
        The annotator's pairs ``other, n_shared, alpha`` (most shared first).

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School
       for Communication, University of Pennsylvania.
    .. [2] V. Basile, "A Measure of Systematic Disagreement", section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> profile = annotator_profile(dataset, "a")
    >>> profile.n_agree, profile.n_compared, profile.disagreements["item_id"].tolist()
    (2, 3, ['i3'])
    """

    annotator_id: str
    n_items: int
    n_compared: int
    n_agree: int
    majority_agreement: float
    mean_alpha: float
    n_pairs_defined: int
    n_shared_total: int
    camp: int | None
    traits: dict
    label_shares: pd.DataFrame
    confusion: pd.DataFrame
    disagreements: pd.DataFrame
    pairs: pd.DataFrame = field(default_factory=pd.DataFrame)


def annotator_profile(dataset: Dataset, annotator_id: str, *, pairs: pd.DataFrame | None = None,
                      camps: pd.Series | None = None,
                      cells: pd.DataFrame | None = None) -> AnnotatorProfile:
    r"""Everything the explorer shows about one annotator.

    The two numbers: the share of the annotator's compared items (items with at least two
    annotators) on which its answer equals the item's majority (:func:`majority_agreement`),
    and its mean pairwise alpha over the ``D_a`` other annotators b with a defined alpha
    ``alpha_ab`` (Krippendorff 2011 on the items a and b share; Basile, section 3):

    .. math::

        \text{majority\_agreement} = \frac{n_\text{agree}}{n_\text{compared}}, \qquad
        \text{mean\_alpha} = \bar\alpha_a = \frac{1}{|D_a|} \sum_{b \in D_a} \alpha_{ab}

    ``label_shares`` are the annotator's share of each label beside everyone's.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    annotator_id : str
        The annotator.
    pairs : pandas.DataFrame, optional
        :func:`annotator_pairs` (or any :func:`hlv_core.agreement.pairwise_alpha` table).
    camps : pandas.Series, optional
        :func:`annotator_camps`.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells` (computed when not given; the others are left out of the
        profile when omitted).

    Returns
    -------
    AnnotatorProfile
        Majority agreement, mean alpha with support, camp, traits, label shares, confusion
        against the majority, disagreements and pairs.

    Raises
    ------
    ValueError
        Unknown annotator.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania (alpha of one annotator pair).
    .. [2] V. Basile, "A Measure of Systematic Disagreement", section 3 (annotators read
       through their pairwise alphas).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> profile = annotator_profile(dataset, "a", pairs=annotator_pairs(dataset))
    >>> round(profile.majority_agreement, 3), round(profile.mean_alpha, 4)
    (0.667, 0.0972)
    >>> profile.label_shares.round(3)
      label  annotator  everyone
    0   neg      0.333       0.7
    1   pos      0.667       0.3
    """
    annotator_id = _find_id(str(annotator_id), np.asarray(dataset.annotator_ids.astype(str)),
                            "annotator")
    cells = annotator_cells(dataset) if cells is None else cells
    row = majority_agreement(dataset, cells).set_index("annotator_id").loc[annotator_id]
    ann = dataset.annotations
    own = ann.loc[ann["annotator_id"].astype(str) == annotator_id, "label"].astype(str)
    everyone = ann["label"].astype(str).value_counts(normalize=True)
    labels = list(dataset.labels)
    shares = pd.DataFrame({
        "label": labels,
        "annotator": own.value_counts(normalize=True).reindex(labels).fillna(0.0).to_numpy(),
        "everyone": everyone.reindex(labels).fillna(0.0).to_numpy(),
    })
    mine = cells[(cells["annotator_id"] == annotator_id) & (cells["n_annotators"] >= 2)]
    disagreements = mine.loc[~mine["agrees"], ["item_id", "answer", "majority",
                                                "n_annotators"]].reset_index(drop=True)
    mean_alpha, n_defined, n_shared = float("nan"), 0, 0
    own_pairs = pd.DataFrame(columns=["other", "n_shared", "alpha"])
    if pairs is not None and len(pairs):
        means = agreement.annotator_mean_agreement(pairs).set_index("annotator_id")
        if annotator_id in means.index:
            m = means.loc[annotator_id]
            mean_alpha = float(m["mean_alpha"])
            n_defined, n_shared = int(m["n_pairs_defined"]), int(m["n_shared_total"])
        a, b = pairs["annotator_a"].astype(str), pairs["annotator_b"].astype(str)
        hit = (a == annotator_id) | (b == annotator_id)
        own_pairs = pd.DataFrame({
            "other": np.where(a[hit] == annotator_id, b[hit], a[hit]),
            "n_shared": pairs.loc[hit, "n_shared"].to_numpy(),
            "alpha": pairs.loc[hit, "alpha"].to_numpy(),
        }).sort_values(["n_shared", "other"], ascending=[False, True]).reset_index(drop=True)
    camp = None
    if camps is not None:
        camp_of = pd.Series(camps.to_numpy(), index=camps.index.astype(str))
        camp = int(camp_of.get(annotator_id, -1))
    traits_row = dataset.annotators[dataset.annotators["annotator_id"].astype(str)
                                    == annotator_id]
    traits = ({} if traits_row.empty else
              {k: v for k, v in traits_row.iloc[0].items() if k != "annotator_id"})
    return AnnotatorProfile(
        annotator_id=annotator_id, n_items=int(row["n_items"]),
        n_compared=int(row["n_compared"]), n_agree=int(row["n_agree"]),
        majority_agreement=float(row["majority_agreement"]), mean_alpha=mean_alpha,
        n_pairs_defined=n_defined, n_shared_total=n_shared, camp=camp, traits=traits,
        label_shares=shares, confusion=confusion_vs_majority(dataset, annotator_id, cells),
        disagreements=disagreements, pairs=own_pairs,
    )


@dataclass(frozen=True)
class ItemView:
    r"""What :func:`item_view` returns.

    Attributes
    ----------
    item_id : str
        The item.
    text : str or None
        The item's text (None when the data has none).
    annotations : pandas.DataFrame
        One row per annotator: ``annotator_id, answer, agrees`` (with the majority), then
        traits.
    soft_label : pandas.DataFrame
        ``label, share, count``.
    majority : str
        The majority label.
    agreement : float
        Per-item agreement (:func:`item_agreement`).
    entropy : float
        Normalised entropy of the soft label.
    n_annotators : int
        Annotators of the item.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 3.1 (normalised entropy).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> view = item_view(dataset, "i3")
    >>> view.majority, view.agreement, view.n_annotators
    ('neg', 0.5, 4)
    """

    item_id: str
    text: str | None
    annotations: pd.DataFrame
    soft_label: pd.DataFrame
    majority: str
    agreement: float
    entropy: float
    n_annotators: int


def item_view(dataset: Dataset, item_id: str, cells: pd.DataFrame | None = None) -> ItemView:
    r"""Everything the explorer shows about one item.

    The soft label is row ``i`` of :meth:`~hlv_core.io.Dataset.judgements_array` with the
    counts of :meth:`~hlv_core.io.Dataset.counts_array`; the agreement is ``P_i`` of
    :func:`item_agreement` (Fleiss 1971) and the entropy the normalised entropy of the soft
    label (Kurniawan et al., section 3.1). With ``n_i`` the item's annotators, ``P_ik`` its
    soft label and ``c_v`` the annotators giving answer v (the label; multi-label: the same
    label set; ranking: the same top block, :func:`annotator_cells`):

    .. math::

        \text{agreement} = P_i = \frac{\sum_v c_v (c_v - 1)}{n_i (n_i - 1)}, \qquad
        \text{entropy} = -\sum_k \frac{P_{ik} \ln P_{ik}}{\ln K}

    (``agreement`` is NaN for ``n_i < 2``; multi-label entropy: the mean binary entropy of
    section 3.2.)

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any task.
    item_id : str
        The item.
    cells : pandas.DataFrame, optional
        :func:`annotator_cells`.

    Returns
    -------
    ItemView
        Text, annotations, soft label, majority, agreement, entropy.

    Raises
    ------
    ValueError
        Unknown item.

    References
    ----------
    .. [1] J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5) (the per-item agreement P_i).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 3.1 (the normalised entropy
       ``eta_i``).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> view = item_view(dataset, "i3")
    >>> view.soft_label
      label  share  count
    0   neg   0.75      3
    1   pos   0.25      1
    >>> round(view.entropy, 4)
    0.8113
    """
    ids = np.asarray(dataset.item_ids.astype(str))
    item_id = _find_id(str(item_id), ids, "item")
    i = int(np.flatnonzero(ids == item_id)[0])
    cells = annotator_cells(dataset) if cells is None else cells
    mine = cells[cells["item_id"] == item_id]
    traits = dataset.annotators.assign(annotator_id=dataset.annotators["annotator_id"].astype(str))
    table = mine[["annotator_id", "answer", "agrees"]].merge(traits, on="annotator_id",
                                                              how="left")
    soft = pd.DataFrame({"label": list(dataset.labels),
                         "share": dataset.judgements_array()[i],
                         "count": dataset.counts_array()[i]})
    c = mine.groupby("top").size().to_numpy(dtype=float)
    n = float(len(mine))
    agree = float((c * (c - 1)).sum() / (n * (n - 1))) if n >= 2 else float("nan")
    text = None
    if "text" in dataset.items.columns:
        value = dataset.items["text"].iloc[i]
        text = None if pd.isna(value) else str(value)
    return ItemView(
        item_id=item_id, text=text, annotations=table.reset_index(drop=True), soft_label=soft,
        majority=str(dataset.majority_label().iloc[i]), agreement=agree,
        entropy=float(dataset.entropy().iloc[i]), n_annotators=int(len(mine)),
    )
