"""PERSEVAL splits (Lo, Casola et al., section 3): annotator traits and user-disjoint train /
adaptation / test splits of a dataset's (user, text) instances.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from ..io import DataError, Dataset

__all__ = [
    "ADAPTATION_MODES",
    "PAIR_KEYS",
    "SPLIT_COLUMNS",
    "UNKNOWN_TRAIT_VALUES",
    "PerspectivistSplits",
    "long_annotations",
    "make_splits",
    "trait_table",
]

ADAPTATION_MODES = (False, "train", "test")
#: trait values treated as unknown (skipped in trait-level metrics); "UNK" is the reference
#: library's marker, "DATA_EXPIRED" is how Prolific metadata (MultiPICo) marks withdrawn values.
UNKNOWN_TRAIT_VALUES = ("UNK", "DATA_EXPIRED", "")
PAIR_KEYS = ["annotator_id", "item_id"]
SPLIT_COLUMNS = ["annotator_id", "item_id", "label"]



# ----------------------------------------------------------------------------------- traits
def trait_table(
    annotators: pd.DataFrame | None,
    *,
    max_numeric_values: int = 12,
    n_bins: int = 4,
    unknown_values: tuple[str, ...] = UNKNOWN_TRAIT_VALUES,
) -> pd.DataFrame:
    r"""Annotator traits as strings, indexed by ``annotator_id`` (missing or unknown -> NA).

    .. math:: \text{bin}(x) = q \iff x \in [Q_{q}, Q_{q+1}) \text{ (quantile bins of many-valued numbers)}

    PERSEVAL, section 3.2 (user representation by traits; it maps age to generations, here
    numeric traits with more than ``max_numeric_values`` values get ``n_bins`` quantile bins).

    Parameters
    ----------
    annotators : pandas.DataFrame or None
        ``annotator_id`` plus trait columns.
    max_numeric_values : int, default 12
    n_bins : int, default 4
    unknown_values : tuple of str

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> table = trait_table(pd.DataFrame({"annotator_id": ["a", "b"], "group": ["x", "UNK"]}))
    >>> table["group"].isna().tolist()
    [False, True]
    """
    if annotators is None or "annotator_id" not in annotators.columns:
        return pd.DataFrame(index=pd.Index([], name="annotator_id", dtype=object))
    frame = annotators.copy()
    frame["annotator_id"] = frame["annotator_id"].astype(str)
    frame = frame.drop_duplicates("annotator_id").set_index("annotator_id")
    out = {}
    for column in frame.columns:
        raw = frame[column]
        text = raw.astype(object).where(raw.notna(), None)
        text = text.map(lambda v: None if v is None else str(v).strip())
        text = text.where(~text.isin(list(unknown_values)), None)
        known = text.dropna()
        if known.empty:
            continue
        numeric = pd.to_numeric(known, errors="coerce")
        if numeric.notna().all() and numeric.nunique() > max_numeric_values:
            values = pd.to_numeric(text, errors="coerce")
            binned = pd.qcut(values, q=n_bins, duplicates="drop")
            labels = binned.astype(object).map(
                lambda iv: None if not isinstance(iv, pd.Interval)
                else f"{iv.left:g}-{iv.right:g}"
            )
            text = labels
        out[column] = text.astype(object)
    result = pd.DataFrame(out, index=frame.index)
    result.index.name = "annotator_id"
    return result


def _has_traits(traits: pd.DataFrame) -> bool:
    return traits.shape[1] > 0 and bool(traits.notna().to_numpy().any())


# ----------------------------------------------------------------------------------- splits
@dataclass(frozen=True)
class PerspectivistSplits:
    r"""User-disjoint PERSEVAL splits (long tables ``annotator_id, item_id, label``).

    .. math:: U_{\mathrm{test}} \cap A_{\mathrm{train}} = \varnothing

    PERSEVAL, section 3.1 (test users disjoint from training annotators), with the adaptation
    scenarios and the extended training set of sections 3.1-3.3.

    Attributes
    ----------
    train, adaptation, test : pandas.DataFrame
        Training labels, the test users' adaptation labels (``adaptation="test"``), the labels to
        predict.
    train_users, test_users : tuple of str
    labels : tuple of str
        Label inventory.
    traits : pandas.DataFrame or None
        :func:`trait_table` of the annotators.
    adaptation_mode : {False, "train", "test"}
    extended, named : bool
    seed : int
    test_user_share, adaptation_share, train_only_text_share : float
        The settings used.
    dropped_users, notes : tuple of str
        Test users dropped (too few labels) and why.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Sections 3.1-3.3.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> dataset = load_sample("case_review")
    >>> splits = make_splits(dataset, seed=0, baseline=True)
    >>> set(splits.test.annotator_id) & set(splits.train.annotator_id)
    set()
    """

    train: pd.DataFrame
    adaptation: pd.DataFrame
    test: pd.DataFrame
    train_users: tuple[str, ...]
    test_users: tuple[str, ...]
    labels: tuple[str, ...]
    traits: pd.DataFrame | None
    adaptation_mode: Literal[False, "train", "test"]
    extended: bool
    named: bool
    seed: int
    test_user_share: float
    adaptation_share: float
    train_only_text_share: float
    dropped_users: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    _adaptation_pool: pd.DataFrame = field(default=None, repr=False)  # type: ignore[assignment]

    def sizes(self) -> pd.DataFrame:
        """Users, texts and instances of each split (the reference library's statistics)."""
        rows = []
        for name, frame in (("train", self.train), ("adaptation", self.adaptation),
                            ("test", self.test)):
            rows.append({
                "split": name,
                "users": int(frame["annotator_id"].nunique()),
                "texts": int(frame["item_id"].nunique()),
                "instances": len(frame),
            })
        return pd.DataFrame(rows)

    def table(self) -> pd.DataFrame:
        """All splits in one long table with a ``split`` column (for the CSV download)."""
        parts = [frame.assign(split=name) for name, frame in
                 (("train", self.train), ("adaptation", self.adaptation), ("test", self.test))]
        return pd.concat(parts, ignore_index=True)[["split", *SPLIT_COLUMNS]]

    def settings(self) -> dict:
        """The arguments that reproduce this split (stored with every export)."""
        return {
            "test_user_share": self.test_user_share,
            "adaptation": self.adaptation_mode,
            "extended": self.extended,
            "named": self.named,
            "seed": self.seed,
            "adaptation_share": self.adaptation_share,
            "train_only_text_share": self.train_only_text_share,
            "dropped_users": list(self.dropped_users),
        }

    def adaptation_labels(self) -> pd.DataFrame:
        """The test users' adaptation labels, wherever the mode put them (empty when False)."""
        if self.adaptation_mode is False:
            return self.test.iloc[:0]
        return self._adaptation_pool

    def test_traits(self) -> pd.DataFrame | None:
        """Traits of the test users (``None`` for unnamed splits)."""
        if self.traits is None:
            return None
        return self.traits.reindex(list(self.test_users))

    def check(self) -> None:
        """Enforce the reference library's split checks (``check_splits``), fixed and extended.

        * adaptation=False: the adaptation split is empty;
        * adaptation False/"test": training annotators and test users are disjoint;
        * adaptation="train": every test user has training labels (their adaptation labels);
        * adaptation texts and test texts are disjoint; every test user has >= 1 test label and,
          with "test", >= 1 adaptation label (the reference checks only the last user);
        * extended=False: training texts and test texts are disjoint;
        * no (user, text) pair is in two splits.

        Raises ``ValueError`` naming the violated rule.
        """
        train_users = _id_set(self.train["annotator_id"])
        test_users = set(self.test_users)
        if _id_set(self.test["annotator_id"]) != test_users:
            raise ValueError("split check failed: some test users have no test label.")
        if self.adaptation_mode is False and len(self.adaptation):
            raise ValueError("split check failed: adaptation=False but the adaptation split "
                             "is not empty.")
        if self.adaptation_mode in (False, "test"):
            if train_users & test_users:
                raise ValueError("split check failed: training annotators and test users "
                                 f"overlap ({sorted(train_users & test_users)[:5]}).")
            if train_users & _id_set(self.adaptation["annotator_id"]):
                raise ValueError("split check failed: adaptation users are training "
                                 "annotators.")
        if self.adaptation_mode == "train" and not test_users <= train_users:
            raise ValueError("split check failed: adaptation='train' but test users "
                             f"{sorted(test_users - train_users)[:5]} have no training label.")
        if self.adaptation_mode == "test" and _id_set(self.adaptation["annotator_id"]) != test_users:
            raise ValueError("split check failed: some test users have no adaptation label.")
        adapt = self.adaptation_labels()
        shared = _shared_ids(adapt["item_id"], self.test["item_id"])
        if shared:
            raise ValueError("split check failed: adaptation and test texts overlap "
                             f"({shared[:5]}).")
        if not self.extended:
            shared = _shared_ids(self.train["item_id"], self.test["item_id"])
            if shared:
                raise ValueError("split check failed: extended=False but training and test "
                                 f"texts overlap ({shared[:5]}).")
        pairs = pd.concat([self.train[PAIR_KEYS], self.adaptation[PAIR_KEYS], self.test[PAIR_KEYS]])
        if pairs.duplicated().any():
            raise ValueError("split check failed: a (user, text) pair is in two splits.")


def _shared_ids(a: pd.Series, b: pd.Series) -> list:
    """The ids found in both columns, sorted (coded together: no Python object per distinct
    id, only for the shared ones)."""
    ua, ub = a.drop_duplicates(), b.drop_duplicates()
    if not len(ua) or not len(ub):
        return []
    codes, uniques = pd.factorize(pd.concat([ua, ub], ignore_index=True))
    both = np.intersect1d(codes[:len(ua)], codes[len(ua):])
    return sorted(uniques.take(both).tolist())


def _id_set(column: pd.Series) -> set:
    """The distinct ids of a column as a Python set (distinct values first: no Python object
    per row of an Arrow string column)."""
    return set(column.drop_duplicates().to_numpy())


def long_annotations(dataset: Dataset) -> pd.DataFrame:
    r"""The dataset's annotations as one label per (user, text).

    .. math:: \{(u, t, y_{ut})\}

    the annotation-level instances of PERSEVAL (section 3); multi-label and ranking data raise a
    :class:`~hlv_core.io.DataError`.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset

    Returns
    -------
    pandas.DataFrame
        ``annotator_id, item_id, label``.

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Section 3.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> sorted(long_annotations(load_sample("case_review")).columns)[:2]
    ['annotator_id', 'item_id']
    """
    return _coded_annotations(dataset)[0].copy()


def _str_column(column: pd.Series) -> tuple[pd.Series, np.ndarray, pd.Index]:
    """``column.astype(str)`` (on a RangeIndex) with its factorisation (codes in order of
    first appearance, distinct values). A categorical column is decoded from its codes: the
    categories turned into strings once and taken by code, and the factorisation made on the
    integer codes (the same as on the strings while the category strings are distinct)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cats = column.cat.categories.astype(str)
        codes = column.cat.codes.to_numpy()
        if cats.is_unique and (codes >= 0).all():
            code, first = pd.factorize(codes)
            return (pd.Series(cats.array.take(codes), name=column.name),
                    code, cats[first])
    values = column.astype(str).reset_index(drop=True)
    code, uniques = pd.factorize(values)
    return values, code, uniques


_CODED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # the last dataset's codes


def _coded_annotations(dataset: Dataset):
    """(long annotations as :func:`long_annotations` returns them, item codes, distinct item
    ids, user codes, distinct user ids): the integer codes every split is built on. Kept for
    the last dataset coded (a Dataset is immutable; the code arrays are read-only and the
    table is only ever sliced into new frames), so a change of split settings does not decode
    the annotations again."""
    found = _CODED.get(dataset)
    if found is None:
        found = _code_annotations(dataset)
        for array in found[1::2]:
            array.setflags(write=False)
        _CODED.clear()
        _CODED[dataset] = found
    return found


def _check_users_and_labels(dataset: Dataset) -> None:
    """One label per (user, text) and users linked across texts, or a DataError naming which
    (checked before any split setting, so counts data is told what it lacks)."""
    if dataset.task not in ("multiclass", "rating"):
        raise DataError(
            f"perspectivist evaluation needs one label per (user, text); dataset "
            f"'{dataset.name}' is {dataset.task}.",
            source=dataset.report.source,
            column="label",
            fix="use a multiclass or rating dataset (one label per annotator and item).",
        )
    if not dataset.annotator_ids_known:
        raise DataError(
            f"dataset '{dataset.name}' has anonymous annotations; users cannot be split.",
            source=dataset.report.source,
            column="annotator_id",
            fix="load a file where annotator ids are linked across items.",
        )


def _code_annotations(dataset: Dataset):
    _check_users_and_labels(dataset)
    source = dataset.annotations
    coded = {c: _str_column(source[c]) for c in SPLIT_COLUMNS}
    ann = pd.DataFrame({c: coded[c][0] for c in SPLIT_COLUMNS})
    _, item_code, item_ids = coded["item_id"]
    _, user_code, user_ids = coded["annotator_id"]
    key = item_code.astype(np.int64) * max(len(user_ids), 1) + user_code
    dup = pd.Series(key).duplicated().to_numpy()
    if dup.any():
        row = ann[dup].iloc[0]
        raise DataError(
            f"annotator {row['annotator_id']!r} gave item {row['item_id']!r} more than one "
            "label; perspectivist evaluation needs one label per (user, text).",
            source=dataset.report.source,
            column="label",
        )
    return ann, item_code, item_ids, user_code, user_ids


def _assemble(
    item_code: np.ndarray,
    user_code: np.ndarray,
    n_users: int,
    test_mask_user: np.ndarray,
    reserved_text: np.ndarray,
    adapt_row_order: np.ndarray,
    adaptation_share: float,
    min_adaptation: int,
    min_test: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row masks of the training users, adaptation rows and test rows, and the dropped test
    users' codes (in order of first appearance), on integer item / user codes of ``ann``."""
    pool = test_mask_user & ~reserved_text  # test users' labels on non-reserved texts
    pool_idx = np.flatnonzero(pool)
    # adaptation texts: texts of a random adaptation_share of the pooled *annotations*
    # (reference: popular texts are likelier), then adaptation for every test user who labelled
    # them. adapt_row_order is a fixed random priority for every row, so the draw is nested
    # across reserve shares and reproducible.
    n_adapt = int(adaptation_share * pool_idx.size)
    if adaptation_share > 0 and pool_idx.size:
        n_adapt = max(1, n_adapt)
    chosen = pool_idx[np.argsort(adapt_row_order[pool_idx], kind="stable")[:n_adapt]]
    text_chosen = np.zeros(int(item_code.max(initial=-1)) + 1, dtype=bool)
    text_chosen[item_code[chosen]] = True
    adapt_texts = text_chosen[item_code]
    adapt_rows = pool & adapt_texts
    test_rows = pool & ~adapt_texts
    n_test = np.bincount(user_code[test_rows], minlength=n_users)
    n_adapt_u = np.bincount(user_code[adapt_rows], minlength=n_users)
    test_user_codes = pd.unique(user_code[test_mask_user])  # order of first appearance
    ok = (n_test[test_user_codes] >= min_test) & (n_adapt_u[test_user_codes] >= min_adaptation)
    dropped = test_user_codes[~ok]
    is_dropped = np.zeros(n_users, dtype=bool)
    is_dropped[dropped] = True
    keep = ~is_dropped[user_code]
    return ~test_mask_user, adapt_rows & keep, test_rows & keep, dropped


def _stratified_test_users(users, traits, column, share, rng, dataset) -> np.ndarray:
    """Test users drawn per value of trait ``column`` (vectorised with a random key per user)."""
    if column not in traits.columns:
        raise DataError(
            f"cannot stratify by {column!r}: not a trait column ({list(traits.columns)}).",
            source=dataset.report.source,
            column=column,
            fix="choose one of the annotators table's trait columns.",
        )
    groups = traits[column].reindex(users).astype(object).where(
        traits[column].reindex(users).notna(), "(unknown)").to_numpy()
    frame = pd.DataFrame({"user": users, "group": groups, "key": rng.random(users.size)})
    sizes = frame.groupby("group")["user"].transform("size").to_numpy()
    quota = np.where(sizes >= 2, np.maximum(1, np.rint(share * sizes)), 0)
    rank = frame.groupby("group")["key"].rank(method="first").to_numpy() - 1
    chosen = frame["user"].to_numpy()[rank < quota]
    if chosen.size == 0 or chosen.size >= users.size:
        raise DataError(
            f"stratifying by {column!r} leaves no training or no test users.",
            source=dataset.report.source,
            column=column,
            fix="lower or raise the test-user share, or do not stratify.",
        )
    return np.sort(chosen)


def make_splits(
    dataset: Dataset,
    *,
    test_user_share: float = 0.2,
    adaptation: Literal[False, "train", "test"] = False,
    extended: bool = False,
    seed: int = 0,
    named: bool | None = None,
    baseline: bool = False,
    adaptation_share: float = 0.05,
    train_only_text_share: float | Literal["auto"] = 0.0,
    max_test_share: float = 0.2,
    min_test: int = 1,
    min_adaptation: int | None = None,
    stratify: str | None = None,
) -> PerspectivistSplits:
    r"""PERSEVAL splits: test users disjoint from the training annotators.

    .. math:: n_{\mathrm{test}} = \mathrm{round}(\mathrm{test\_user\_share} \cdot n_{\mathrm{users}}),
       \quad U_{\mathrm{test}} \cap A_{\mathrm{train}} = \varnothing

    Lo, Casola et al. (2025), section 3.1 (user-disjoint split, adaptation texts), 3.3 (extended
    training set). Protocol, seeded with ``numpy.random.default_rng(seed)`` (the reference uses
    Python ``random`` with seed 42, so the exact users differ): draw the test users; reserve
    ``train_only_text_share`` of the texts for training; pick adaptation texts from a random
    ``adaptation_share`` of the test users' annotations; drop test users below ``min_test`` /
    ``min_adaptation``; ``adaptation="train"`` adds adaptation labels to training, ``"test"``
    keeps them apart; ``extended=False`` removes training labels of test texts. ``stratify``
    draws the test users per trait value.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass or rating data.
    test_user_share : float, default 0.2
    adaptation : {False, "train", "test"}, default False
    extended : bool, default False
    seed : int, default 0
    named : bool, optional
        Named task (default: whether the dataset has traits).
    baseline : bool, default False
        Allow the unnamed task without adaptation.
    adaptation_share : float, default 0.05
    train_only_text_share : float or "auto", default 0.0
    max_test_share : float, default 0.2
    min_test : int, default 1
    min_adaptation : int, optional
    stratify : str, optional
        Trait column.

    Returns
    -------
    PerspectivistSplits

    References
    ----------
    .. [1] Lo, Casola, Sezerer, Basile et al. (2025). "PERSEVAL: A Framework for Perspectivist
       Classification Evaluation". EMNLP 2025. Sections 3.1 and 3.3.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> dataset = load_sample("case_review")
    >>> splits = make_splits(dataset, seed=0, baseline=True)
    >>> print(len(splits.train), len(splits.test), splits.test.annotator_id.nunique())
    325 275 2
    """
    if adaptation not in ADAPTATION_MODES or isinstance(adaptation, bool) and adaptation:
        raise ValueError(f"adaptation must be False, 'train' or 'test'; got {adaptation!r}.")
    if not 0.0 < float(test_user_share) < 1.0:
        raise ValueError(f"test_user_share must be in (0, 1); got {test_user_share!r}.")
    if not 0.0 <= float(adaptation_share) < 1.0:
        raise ValueError(f"adaptation_share must be in [0, 1); got {adaptation_share!r}.")
    if adaptation is not False and adaptation_share <= 0:
        raise ValueError("adaptation 'train'/'test' needs adaptation_share > 0.")
    if train_only_text_share != "auto" and not 0.0 <= float(train_only_text_share) < 1.0:
        raise ValueError("train_only_text_share must be in [0, 1) or 'auto'; got "
                         f"{train_only_text_share!r}.")
    _check_users_and_labels(dataset)
    traits = trait_table(dataset.annotators)
    has_traits = _has_traits(traits)
    if named is None:
        named = has_traits
    if named and not has_traits:
        raise DataError(
            f"named=True but dataset '{dataset.name}' has no annotator traits.",
            source=dataset.report.source,
            column="annotators",
            fix="add an annotators table with trait columns, or use the unnamed task.",
        )
    if not named and adaptation is False and not baseline:
        raise DataError(
            "unnamed users without adaptation: the model would know nothing about the test "
            "users (no traits and none of their labels), so PERSEVAL refuses this setting.",
            source=dataset.report.source,
            column="adaptation",
            fix="choose adaptation='train' or 'test' (a few labels of each test user), use the "
            "named task (annotator traits), or set baseline=True for a user-agnostic baseline.",
        )
    # integer codes once: every split variant below is mask arithmetic on them; the ids are
    # sorted as Arrow sorts them (UTF-8 bytes: the order of Python's sorted on the strings)
    # and turned into Python strings only where a result names them
    ann, item_code, item_uniques, user_code, user_uniques = _coded_annotations(dataset)
    user_order = np.asarray(user_uniques.argsort(), dtype=np.int64)  # sorted rank -> code
    users = np.asarray(user_uniques.take(user_order), dtype=object)
    if users.size < 2:
        raise DataError(
            f"dataset '{dataset.name}' has {users.size} annotator(s); a user-disjoint split "
            "needs at least 2.",
            source=dataset.report.source,
            column="annotator_id",
        )
    rng = np.random.default_rng(seed)
    n_users = len(user_uniques)
    is_test_user = np.zeros(n_users, dtype=bool)
    if stratify is None:
        n_test = int(np.clip(round(test_user_share * users.size), 1, users.size - 1))
        # the same draw as rng.choice(users, ...) (choice takes positions, then the items)
        test_rank = np.sort(rng.choice(users.size, size=n_test, replace=False))
        is_test_user[user_order[test_rank]] = True
        test_users = users[test_rank]  # sorted, as the ranks are
    else:
        test_users = _stratified_test_users(users, traits, stratify, test_user_share, rng,
                                            dataset)
        is_test_user[pd.Index(user_uniques).get_indexer(test_users)] = True
    n_texts = len(item_uniques)
    text_rank = np.empty(n_texts, dtype=np.int64)  # code -> sorted rank
    text_rank[np.asarray(item_uniques.argsort(), dtype=np.int64)] = np.arange(n_texts)
    # position of every sorted text in a random permutation of them (the same draw as
    # permuting the text array): a text's priority for the training-only reserve
    perm = rng.permutation(n_texts)
    priority_of_rank = np.empty(n_texts, dtype=np.int64)
    priority_of_rank[perm] = np.arange(n_texts)
    text_priority = priority_of_rank[text_rank][item_code]
    adapt_row_order = rng.permutation(len(ann))
    test_mask_user = is_test_user[user_code]
    if min_adaptation is None:
        min_adaptation = 1 if adaptation_share > 0 else 0

    def build(share: float, mode, strict: bool):
        """(train rows in order, adaptation mask, test mask, dropped user codes): training
        users' rows then, with ``mode="train"``, the adaptation rows."""
        reserved = text_priority < int(share * n_texts)
        train_m, adapt_m, test_m, dropped_codes = _assemble(
            item_code, user_code, n_users, test_mask_user, reserved, adapt_row_order,
            adaptation_share, min_adaptation, min_test,
        )
        parts = [train_m, adapt_m] if mode == "train" else [train_m]
        if strict:
            test_text = np.zeros(int(item_code.max(initial=-1)) + 1, dtype=bool)
            test_text[item_code[test_m]] = True
            parts = [m & ~test_text[item_code] for m in parts]
        return parts, adapt_m, test_m, dropped_codes

    if train_only_text_share == "auto":
        # chosen on the strict, no-adaptation variant so that the test split stays the same
        # across adaptation modes and extended/strict (PERSEVAL 3.4)
        share = 0.0
        for share in np.round(np.arange(0.0, 0.91, 0.05), 2):
            parts, _, test_m, _ = build(float(share), False, True)
            n_train = sum(int(m.sum()) for m in parts)
            n_test_rows = int(test_m.sum())
            total = n_train + n_test_rows
            if n_test_rows and n_train and n_test_rows <= max_test_share * total:
                break
        share = float(share)
    else:
        share = float(train_only_text_share)
    parts, adapt_m, test_m, dropped_codes = build(share, adaptation, not extended)
    train_rows = pd.concat([ann[m] for m in parts]) if len(parts) > 1 else ann[parts[0]]
    adapt_rows = ann[adapt_m]
    test_rows = ann[test_m]
    dropped = np.asarray(user_uniques[dropped_codes], dtype=object)
    notes = []
    if len(dropped):
        notes.append(
            f"{len(dropped)} test user(s) dropped: fewer than {min_test} test or "
            f"{min_adaptation} adaptation label(s) ({', '.join(map(str, dropped[:5]))}"
            f"{', ...' if len(dropped) > 5 else ''})."
        )
    if test_rows.empty:
        raise DataError(
            "no test instances left: every test user lacks test labels after the split.",
            source=dataset.report.source,
            fix="lower adaptation_share or train_only_text_share, or raise test_user_share.",
        )
    if train_rows.empty:
        raise DataError(
            "no training labels left: every text was labelled by a test user and the strict "
            "split (extended=False) removes those texts from training.",
            source=dataset.report.source,
            fix="use extended=True, or reserve texts for training with train_only_text_share "
            "(or 'auto').",
        )
    user_rank = np.empty(n_users, dtype=np.int64)
    user_rank[user_order] = np.arange(n_users)
    kept = np.zeros(n_users, dtype=bool)
    kept[user_rank[user_code[test_m]]] = True
    kept_test = tuple(users[kept].tolist())  # sorted
    train_users = tuple(users[~is_test_user[user_order]].tolist())
    adapt_pool = adapt_rows.reset_index(drop=True)
    splits = PerspectivistSplits(
        train=train_rows.reset_index(drop=True),
        adaptation=adapt_pool if adaptation == "test" else adapt_pool.iloc[:0],
        test=test_rows.reset_index(drop=True),
        train_users=train_users,
        test_users=kept_test,
        labels=tuple(dataset.labels),
        traits=traits if named else None,
        adaptation_mode=adaptation,
        extended=bool(extended),
        named=bool(named),
        seed=int(seed),
        test_user_share=float(test_user_share),
        adaptation_share=float(adaptation_share),
        train_only_text_share=share,
        dropped_users=tuple(str(x) for x in dropped),
        notes=tuple(notes),
        _adaptation_pool=adapt_pool,
    )
    if not _checks_hold(parts, adapt_m, test_m, adaptation, bool(extended), item_code,
                        user_code):
        splits.check()  # a rule fails: the frame-level check names it
    return splits


def _checks_hold(parts: list[np.ndarray], adapt_m: np.ndarray, test_m: np.ndarray, mode,
                 extended: bool, item_code: np.ndarray, user_code: np.ndarray) -> bool:
    """Whether every rule of :meth:`PerspectivistSplits.check` holds for the splits
    :func:`make_splits` builds from these row masks of the coded annotations (training rows
    = the union of ``parts``, adaptation split = ``adapt_m`` with mode "test", adaptation
    labels = ``adapt_m`` unless the mode is False, test = ``test_m``). The same rules on
    integer codes: two ids are equal exactly when their codes are, and the annotations hold
    every (user, text) pair once, so a pair is in two splits exactly when a row is."""
    n_rows = len(user_code)
    none = np.zeros(n_rows, dtype=bool)
    adapt_split = adapt_m if mode == "test" else none
    adapt_labels = adapt_m if mode is not False else none
    member = adapt_split.astype(np.int8) + test_m
    for m in parts:
        member += m
    if member.max(initial=0) > 1:  # a (user, text) pair in two splits
        return False
    train_m = np.logical_or.reduce(parts) if parts else none
    n_users = int(user_code.max(initial=-1)) + 1
    n_texts = int(item_code.max(initial=-1)) + 1

    def users(mask):
        return np.bincount(user_code[mask], minlength=n_users) > 0

    def texts(mask):
        return np.bincount(item_code[mask], minlength=n_texts) > 0

    train_u, test_u, adapt_u = users(train_m), users(test_m), users(adapt_split)
    if mode in (False, "test") and ((train_u & test_u).any() or (train_u & adapt_u).any()):
        return False
    if mode == "train" and (test_u & ~train_u).any():
        return False
    if mode == "test" and not np.array_equal(adapt_u, test_u):
        return False
    test_t = texts(test_m)
    if (texts(adapt_labels) & test_t).any():
        return False
    return extended or not (texts(train_m) & test_t).any()
