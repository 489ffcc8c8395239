"""Case-at-a-time review (Kurniawan et al., section 6.1): which case a reviewer judges next with
all its model pairs on one screen, the reviewer's readable history, and whether there are
enough judgements for the meta-evaluation. Pure functions over judgement tables
(:meth:`hlv_core.review_store.ReviewStore.judgements`); re-exported by :mod:`hlv_core.review`."""

from __future__ import annotations

import itertools
import string
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "MIN_JUDGEMENTS",
    "CaseProposal",
    "Sufficiency",
    "history_table",
    "judgement_sufficiency",
    "next_case",
    "output_letters",
    "readable_time",
]

MIN_JUDGEMENTS = 10
"""Fewest judgements before the meta-evaluation shows scores (with every model pair compared
at least once, :func:`judgement_sufficiency`)."""


class CaseProposal(NamedTuple):
    """One case to judge, made by :func:`next_case`.

    Parameters
    ----------
    item_id : str
        The item (case).
    models : tuple of str
        Models in display order (output A, B, C, ...).
    pairs : tuple of (str, str)
        The (left, right) model pairs to judge on this screen (left = earlier letter).
    remaining_cases : int
        Cases with at least one pair this reviewer has not judged yet.
    total_cases : int
        Cases in all.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1 (the pairwise judgement task).

    Examples
    --------
    >>> proposal = CaseProposal("i1", ("m2", "m1"), (("m2", "m1"),), 3, 5)
    >>> dict(zip(output_letters(len(proposal.models)), proposal.models))
    {'A': 'm2', 'B': 'm1'}
    """

    item_id: str
    models: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    remaining_cases: int  # cases with at least one pair this reviewer has not judged yet
    total_cases: int


def output_letters(n: int) -> list[str]:
    """Names of ``n`` anonymous outputs: A, B, ..., Z, AA, AB, ...

    Parameters
    ----------
    n : int
        Number of outputs.

    Returns
    -------
    list of str
        ``n`` names.

    Examples
    --------
    >>> output_letters(3), output_letters(28)[-2:]
    (['A', 'B', 'C'], ['AA', 'AB'])
    """
    letters = list(string.ascii_uppercase)
    out = []
    for k in range(n):
        out.append(letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26])
    return out


def _pair_keys(frame: pd.DataFrame) -> pd.Series:
    lo = np.minimum(frame["model_a"].to_numpy(dtype=object), frame["model_b"].to_numpy(dtype=object))
    hi = np.maximum(frame["model_a"].to_numpy(dtype=object), frame["model_b"].to_numpy(dtype=object))
    return pd.Series(list(zip(lo, hi, strict=True)), index=frame.index, dtype=object)


def next_case(
    judgements: pd.DataFrame,
    reviewer: str,
    items: Sequence[str],
    models: Sequence[str],
    *,
    entropy: Sequence[float] | None = None,
    seed: int | None = None,
    max_pairs: int | None = None,
) -> CaseProposal | None:
    """The next case for ``reviewer`` with every model pair of it they have not judged yet (Kurniawan et al., section 6.1).

    Case order: a case the reviewer has started (some pairs judged) first, then contested
    first (highest human label ``entropy``), then the fewest judgements of the case by anyone,
    then at random. The pairs of the case: those the reviewer has not judged, fewest judgements
    of the pair overall first, at most ``max_pairs`` (the rest come back on a later screen of
    the same case). The outputs are shown in a random order (blinding).

    Parameters
    ----------
    judgements : pandas.DataFrame
        The dataset's judgements, all reviewers (``reviewer, item_id, model_a, model_b``;
        undone ones left out).
    reviewer : str
        Who is reviewing.
    items : sequence of str
        The cases.
    models : sequence of str
        The models compared (at least two).
    entropy : sequence of float, optional
        Human label entropy per item, aligned with ``items``.
    seed : int, optional
        Seed of the random order (reproducible when given).
    max_pairs : int, optional
        Most pairs on one screen.

    Returns
    -------
    CaseProposal or None
        None when every pair of every case is judged by this reviewer.

    Raises
    ------
    ValueError
        ``entropy`` not one value per item.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 6.1 (the human judgement collection).

    Examples
    --------
    Ann has judged m1 vs m2 on i1, so she finishes i1 first with its two other pairs:

    >>> import pandas as pd
    >>> judgements = pd.DataFrame({
    ...     "id": [1, 2], "reviewer": ["ann", "bob"], "item_id": ["i1", "i1"],
    ...     "model_a": ["m1", "m2"], "model_b": ["m2", "m3"], "choice": ["A", "both"],
    ...     "comment": ["sharper", "close"],
    ...     "created_at": ["2026-11-25T14:03:27+00:00", "2026-11-25T15:00:00+00:00"]})
    >>> proposal = next_case(judgements, "ann", ["i1", "i2"], ["m1", "m2", "m3"], seed=0)
    >>> proposal.item_id, sorted(map(sorted, proposal.pairs)), proposal.remaining_cases
    ('i1', [['m1', 'm3'], ['m2', 'm3']], 2)
    """
    items = [str(x) for x in items]
    models = sorted(dict.fromkeys(str(m) for m in models))
    if len(models) < 2 or not items:
        return None
    rng = np.random.default_rng(seed)
    pairs = list(itertools.combinations(models, 2))
    ent = np.zeros(len(items)) if entropy is None else np.asarray(entropy, dtype=float)
    if ent.shape != (len(items),):
        raise ValueError(f"entropy must have one value per item ({len(items)}).")
    ent = np.nan_to_num(ent, nan=-np.inf)
    per_item = pd.Series(0, index=pd.Index(items), dtype=np.int64)
    per_pair = dict.fromkeys(pairs, 0)
    seen: dict[str, set] = {}
    if not judgements.empty:
        keys = _pair_keys(judgements)
        ok = keys.isin(pairs) & judgements["item_id"].isin(items)
        rows = judgements[ok]
        per_item = per_item.add(rows["item_id"].value_counts(), fill_value=0).astype(np.int64)
        for key, count in keys[ok].value_counts().items():
            per_pair[key] = int(count)
        mine = rows[rows["reviewer"] == reviewer]
        for item, key in zip(mine["item_id"], keys[mine.index], strict=True):
            seen.setdefault(item, set()).add(key)
    open_pairs = {i: [p for p in pairs if p not in seen.get(i, ())] for i in items}
    candidates = np.array([k for k, i in enumerate(items) if open_pairs[i]], dtype=np.int64)
    if candidates.size == 0:
        return None
    counts = per_item.reindex(items).to_numpy()[candidates]
    started = np.array([items[k] in seen for k in candidates])  # finish a started case first
    order = np.lexsort((rng.random(candidates.size), counts, -ent[candidates], ~started))
    item = items[int(candidates[order[0]])]
    todo = open_pairs[item]
    tiebreak = rng.random(len(todo))
    todo = [todo[k] for k in np.lexsort((tiebreak, [per_pair[p] for p in todo]))]
    if max_pairs is not None:
        todo = todo[: max(1, int(max_pairs))]
    shown = [str(m) for m in rng.permutation(sorted({m for p in todo for m in p}))]
    rank = {m: k for k, m in enumerate(shown)}
    ordered = sorted((tuple(sorted(p, key=rank.get)) for p in todo),
                     key=lambda p: (rank[p[0]], rank[p[1]]))
    return CaseProposal(item, tuple(shown), tuple(ordered), int(candidates.size), len(items))


def readable_time(value: str) -> str:
    """A stored UTC timestamp as people read it: ``"2026-11-25 14:03 UTC"``.

    Parameters
    ----------
    value : str
        ISO 8601 timestamp.

    Returns
    -------
    str
        Minutes resolution, no microseconds; ``""`` for empty or unreadable values.

    Examples
    --------
    >>> readable_time("2026-11-25T14:03:27.5+00:00"), readable_time("not a time")
    ('2026-11-25 14:03 UTC', '')
    """
    stamp = pd.to_datetime(value, utc=True, errors="coerce", format="ISO8601")
    return "" if pd.isna(stamp) else stamp.strftime("%Y-%m-%d %H:%M UTC")


def history_table(judgements: pd.DataFrame, *, reveal_models: bool = True) -> pd.DataFrame:
    """A reviewer's own judgements, newest first, for reading.

    With ``reveal_models=False`` (blinding kept after judging) one row per saved case, no model
    names.

    Parameters
    ----------
    judgements : pandas.DataFrame
        The reviewer's rows of :meth:`~hlv_core.review_store.ReviewStore.judgements`.
    reveal_models : bool, default True
        Show model names and the judgement in words.

    Returns
    -------
    pandas.DataFrame
        ``When, Case, Models compared, Judgement, Comment`` (Judgement: "x more accurate",
        "Both acceptable", "Neither acceptable"); blinded: ``When, Case, Pairs judged,
        Comment``.

    Examples
    --------
    >>> import pandas as pd
    >>> judgements = pd.DataFrame({
    ...     "id": [1, 2], "reviewer": ["ann", "bob"], "item_id": ["i1", "i1"],
    ...     "model_a": ["m1", "m2"], "model_b": ["m2", "m3"], "choice": ["A", "both"],
    ...     "comment": ["sharper", "close"],
    ...     "created_at": ["2026-11-25T14:03:27+00:00", "2026-11-25T15:00:00+00:00"]})
    >>> history_table(judgements)[["When", "Models compared", "Judgement"]]
                       When Models compared         Judgement
    0  2026-11-25 15:00 UTC        m2 vs m3   Both acceptable
    1  2026-11-25 14:03 UTC        m1 vs m2  m1 more accurate
    """
    if judgements.empty:
        cols = ["When", "Case", "Models compared", "Judgement", "Comment"] if reveal_models \
            else ["When", "Case", "Pairs judged", "Comment"]
        return pd.DataFrame(columns=cols)
    frame = judgements.sort_values("id", ascending=False)
    when = frame["created_at"].map(readable_time)
    if not reveal_models:
        group = frame["batch"].where(frame["batch"].astype(bool), frame["id"].astype(str)) \
            if "batch" in frame.columns else frame["id"].astype(str)
        out = pd.DataFrame({"When": when, "Case": frame["item_id"], "group": group,
                            "Comment": frame["comment"]})
        sizes = out.groupby("group", sort=False).size()
        out = out.drop_duplicates("group")
        out.insert(2, "Pairs judged", out["group"].map(sizes).astype(int))
        return out.drop(columns="group").reset_index(drop=True)
    words = {"both": "Both acceptable", "neither": "Neither acceptable"}
    verdict = [f"{a if c == 'A' else b} more accurate" if c in ("A", "B") else words[c]
               for a, b, c in zip(frame["model_a"], frame["model_b"], frame["choice"],
                                  strict=True)]
    return pd.DataFrame({
        "When": when.to_numpy(), "Case": frame["item_id"].to_numpy(),
        "Models compared": (frame["model_a"] + " vs " + frame["model_b"]).to_numpy(),
        "Judgement": verdict, "Comment": frame["comment"].to_numpy(),
    })


class Sufficiency(NamedTuple):
    """Whether the judgements support a meta-evaluation (:func:`judgement_sufficiency`).

    Parameters
    ----------
    enough : bool
        True when human scores can be shown.
    needed : int
        More judgements needed at the least (0 when enough).
    n_judgements : int
        Judgements of these models.
    missing_pairs : tuple of (str, str)
        Model pairs never compared.
    rule : str
        The rule in words.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> Sufficiency(False, 2, 8, (), "rule").needed
    2
    """

    enough: bool
    needed: int  # more judgements needed at the least (0 when enough)
    n_judgements: int
    missing_pairs: tuple[tuple[str, str], ...]  # model pairs never compared
    rule: str  # the rule in words


def judgement_sufficiency(judgements: pd.DataFrame, models: Sequence[str], *,
                          min_judgements: int = MIN_JUDGEMENTS) -> Sufficiency:
    """Whether there are enough judgements for human scores.

    Enough when every pair of ``models`` was compared at least once and there are at least
    ``min_judgements`` judgements of these models (rows as given; pass each reviewer's
    latest). ``needed = max(min_judgements - n, pairs never compared)``: every missing pair
    needs one judgement, and each counts towards the total.

    Parameters
    ----------
    judgements : pandas.DataFrame
        Judgement rows with ``model_a, model_b``.
    models : sequence of str
        The models scored.
    min_judgements : int, default :data:`MIN_JUDGEMENTS`
        Fewest judgements.

    Returns
    -------
    Sufficiency
        The verdict, what is missing and the rule in words.

    References
    ----------
    .. [1] S. Negahban, S. Oh and D. Shah (2012), "Iterative ranking from pair-wise comparisons",
       NeurIPS 2012 (rank centrality).
    .. [2] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", section 6.1.

    Examples
    --------
    >>> import pandas as pd
    >>> judgements = pd.DataFrame({
    ...     "id": [1, 2], "reviewer": ["ann", "bob"], "item_id": ["i1", "i1"],
    ...     "model_a": ["m1", "m2"], "model_b": ["m2", "m3"], "choice": ["A", "both"],
    ...     "comment": ["sharper", "close"],
    ...     "created_at": ["2026-11-25T14:03:27+00:00", "2026-11-25T15:00:00+00:00"]})
    >>> s = judgement_sufficiency(judgements, ["m1", "m2", "m3"], min_judgements=3)
    >>> s.enough, s.needed, s.missing_pairs
    (False, 1, (('m1', 'm3'),))
    """
    models = sorted(dict.fromkeys(str(m) for m in models))
    pairs = list(itertools.combinations(models, 2))
    rule = (f"human scores need every pair of the {len(models)} models compared at least once "
            f"and at least {min_judgements} judgements")
    if len(pairs) == 0:
        return Sufficiency(False, 0, 0, (), "human scores need at least two models")
    if judgements.empty:
        n, compared = 0, set()
    else:
        keys = _pair_keys(judgements)
        keys = keys[keys.isin(pairs)]
        n, compared = len(keys), set(keys)
    missing = tuple(p for p in pairs if p not in compared)
    needed = max(min_judgements - n, len(missing), 0)
    return Sufficiency(needed == 0, int(needed), int(n), missing, rule)
