"""Perspectivist evaluation (PERSEVAL, seed 003): user-disjoint splits and per-(user, text) metrics.

Source: Lo, Casola, Sezerer, Basile et al., "PERSEVAL" (EMNLP 2025; seed 003) and the spec
``../shared/spec/agreement_balance_perspectivist.md`` section 3, binding decision 8 of the spec
README. LeWiDi 2025 perspectivist scores: ``soft_metrics.md`` section 11.

An *instance* is a (user, text) pair with that user's label. The users a model is tested on are
disjoint from the annotators of the training data (:func:`make_splits`). :func:`evaluate` reports
precision / recall / F1 per class and macro, and accuracy, at four levels:

* global: all test instances pooled;
* user: per test user, then the unweighted mean over users;
* text: per test text, then the unweighted mean over texts;
* trait: per trait value (instances of the test users with that value pooled), then the
  unweighted mean over the values of each trait dimension (unknown values skipped).

Per-group scores follow the reference library (scikit-learn ``classification_report`` with
``zero_division=0``): a class absent from a group's gold labels *and* predictions is not in that
group's report, so its group mean averages over the groups where it occurs and the number of
groups used is reported (``n_groups``). A group's macro score is the mean over its present
classes. ``absent="zero"`` counts absent classes as 0 instead (an option, never the default).

Everything is vectorised: per-group confusion counts come from one ``np.bincount`` per level,
bootstrap replicates from one multinomial weight matrix over users.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from hlv_core.io import DataError, Dataset, order_labels

__all__ = [
    "ADAPTATION_MODES",
    "METRICS",
    "UNKNOWN_TRAIT_VALUES",
    "PerspectivistReport",
    "PerspectivistSplits",
    "bootstrap_users",
    "compare_models",
    "evaluate",
    "gold_for_pairs",
    "lewidi_scores",
    "majority_baseline",
    "make_splits",
    "run_baselines",
    "soft_user_scores",
    "trait_gaps",
    "trait_majority_baseline",
    "trait_table",
    "user_majority_baseline",
]

ADAPTATION_MODES = (False, "train", "test")
METRICS = ("precision", "recall", "f1")
#: trait values treated as unknown (skipped in trait-level metrics); "UNK" is the reference
#: library's marker, "DATA_EXPIRED" is how Prolific metadata (MultiPICo) marks withdrawn values.
UNKNOWN_TRAIT_VALUES = ("UNK", "DATA_EXPIRED", "")
_KEYS = ["annotator_id", "item_id"]
_SPLIT_COLUMNS = ["annotator_id", "item_id", "label"]


# ----------------------------------------------------------------------------------- traits
def trait_table(
    annotators: pd.DataFrame | None,
    *,
    max_numeric_values: int = 12,
    n_bins: int = 4,
    unknown_values: tuple[str, ...] = UNKNOWN_TRAIT_VALUES,
) -> pd.DataFrame:
    """Annotator traits as strings, indexed by ``annotator_id`` (missing/unknown -> NA).

    Numeric trait columns with more than ``max_numeric_values`` distinct values (e.g. age) are
    binned into ``n_bins`` quantile bins labelled with their ranges ([OURS]: PERSEVAL maps age to
    generations; a generic dashboard cannot know the cut points, quantiles give groups of similar
    size). Columns with no known value are dropped.
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
    """User-disjoint PERSEVAL splits (long DataFrames ``annotator_id, item_id, label``).

    ``train`` holds the training annotators' labels (+ the test users' adaptation labels when
    ``adaptation == "train"``); ``adaptation`` the test users' adaptation labels when
    ``adaptation == "test"`` (empty otherwise); ``test`` the test users' labels to predict. The
    test split does not depend on ``adaptation`` or ``extended`` for a given seed (PERSEVAL 3.4).
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
        return pd.concat(parts, ignore_index=True)[["split", *_SPLIT_COLUMNS]]

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
        train_users = set(self.train["annotator_id"])
        test_users = set(self.test_users)
        if set(self.test["annotator_id"]) != test_users:
            raise ValueError("split check failed: some test users have no test label.")
        if self.adaptation_mode is False and len(self.adaptation):
            raise ValueError("split check failed: adaptation=False but the adaptation split "
                             "is not empty.")
        if self.adaptation_mode in (False, "test"):
            if train_users & test_users:
                raise ValueError("split check failed: training annotators and test users "
                                 f"overlap ({sorted(train_users & test_users)[:5]}).")
            if train_users & set(self.adaptation["annotator_id"]):
                raise ValueError("split check failed: adaptation users are training "
                                 "annotators.")
        if self.adaptation_mode == "train" and not test_users <= train_users:
            raise ValueError("split check failed: adaptation='train' but test users "
                             f"{sorted(test_users - train_users)[:5]} have no training label.")
        if self.adaptation_mode == "test" and set(self.adaptation["annotator_id"]) != test_users:
            raise ValueError("split check failed: some test users have no adaptation label.")
        adapt = self.adaptation_labels()
        shared = set(adapt["item_id"]) & set(self.test["item_id"])
        if shared:
            raise ValueError("split check failed: adaptation and test texts overlap "
                             f"({sorted(shared)[:5]}).")
        if not self.extended:
            shared = set(self.train["item_id"]) & set(self.test["item_id"])
            if shared:
                raise ValueError("split check failed: extended=False but training and test "
                                 f"texts overlap ({sorted(shared)[:5]}).")
        pairs = pd.concat([self.train[_KEYS], self.adaptation[_KEYS], self.test[_KEYS]])
        if pairs.duplicated().any():
            raise ValueError("split check failed: a (user, text) pair is in two splits.")


def _long_annotations(dataset: Dataset) -> pd.DataFrame:
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
    ann = dataset.annotations[_SPLIT_COLUMNS].astype(str)
    dup = ann.duplicated(_KEYS)
    if dup.any():
        row = ann[dup].iloc[0]
        raise DataError(
            f"annotator {row['annotator_id']!r} gave item {row['item_id']!r} more than one "
            "label; perspectivist evaluation needs one label per (user, text).",
            source=dataset.report.source,
            column="label",
        )
    return ann.reset_index(drop=True)


def _assemble(
    ann: pd.DataFrame,
    test_mask_user: np.ndarray,
    reserved_text: np.ndarray,
    adapt_row_order: np.ndarray,
    adaptation_share: float,
    min_adaptation: int,
    min_test: int,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Train rows (training users), adaptation rows, test rows and the dropped-user mask."""
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
    adapt_texts = np.zeros(len(ann), dtype=bool)
    if chosen.size:
        adapt_texts = ann["item_id"].isin(ann["item_id"].to_numpy()[chosen]).to_numpy()
    adapt_rows = pool & adapt_texts
    test_rows = pool & ~adapt_texts
    users = ann["annotator_id"]
    n_test = users[test_rows].value_counts()
    n_adapt_u = users[adapt_rows].value_counts()
    test_user_ids = pd.Index(pd.unique(users[test_mask_user]))
    ok = (n_test.reindex(test_user_ids, fill_value=0) >= min_test) & (
        n_adapt_u.reindex(test_user_ids, fill_value=0) >= min_adaptation
    )
    dropped = test_user_ids[~ok.to_numpy()]
    keep = ~users.isin(dropped).to_numpy()
    return (
        ann[~test_mask_user],
        ann[adapt_rows & keep],
        ann[test_rows & keep],
        np.asarray(dropped, dtype=object),
    )


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
    """PERSEVAL splits: test users disjoint from training annotators (seed 003 section 3; spec 3.1-3.2).

    Protocol (vectorised, seedable with ``numpy.random.default_rng(seed)``; the reference uses
    Python ``random`` with seed 42, so the exact users differ):

    1. ``n_test = round(test_user_share * n_users)`` (at least 1, at most n_users - 1) test users
       are drawn from the sorted annotator ids.
    2. ``train_only_text_share`` of the texts (random) are reserved for training (the reference
       does this for dense data such as HS-Brexit); test users' labels on them are dropped.
       ``"auto"`` picks the smallest share on the grid 0, .05, ..., .9 that keeps test instances
       <= ``max_test_share`` of (training + test) instances (the fork's ``auto_split``).
    3. Adaptation texts: the texts of a random ``adaptation_share`` of the test users' remaining
       annotations; they are adaptation texts for every test user who labelled them, all other
       texts of test users are test texts. This is done for every ``adaptation`` mode so the test
       split is the same across modes.
    4. Test users with fewer than ``min_test`` test labels or fewer than ``min_adaptation``
       (default 1 when ``adaptation_share > 0``) adaptation labels are dropped (reported).
    5. ``adaptation="train"`` adds the adaptation labels to training; ``"test"`` keeps them as a
       separate split; ``False`` discards them.
    6. ``extended=False`` (strict) removes every training label of a test text; ``True`` keeps
       labels of test texts given by training annotators.

    ``stratify`` (a trait column) draws the test users per trait value instead of from all users
    at once: ``max(1, round(test_user_share * n_value))`` from every value with at least two
    users (unknown values form one group), so every group is represented among the test users
    (the reference stratifies HS-Brexit by group).

    ``named`` (default: whether the dataset has annotator traits) selects the named task; the
    unnamed task without adaptation is refused (the model would know nothing about the test
    users) unless ``baseline=True``. The reference checks (:meth:`PerspectivistSplits.check`)
    run on the result.

    Raises :class:`~hlv_core.io.DataError` for unusable data or settings.
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
    ann = _long_annotations(dataset)
    users = np.array(sorted(pd.unique(ann["annotator_id"])), dtype=object)
    if users.size < 2:
        raise DataError(
            f"dataset '{dataset.name}' has {users.size} annotator(s); a user-disjoint split "
            "needs at least 2.",
            source=dataset.report.source,
            column="annotator_id",
        )
    rng = np.random.default_rng(seed)
    if stratify is None:
        n_test = int(np.clip(round(test_user_share * users.size), 1, users.size - 1))
        test_users = np.sort(rng.choice(users, size=n_test, replace=False))
    else:
        test_users = _stratified_test_users(users, traits, stratify, test_user_share, rng,
                                            dataset)
    texts = np.array(sorted(pd.unique(ann["item_id"])), dtype=object)
    text_perm = pd.Series(np.arange(texts.size), index=rng.permutation(texts))
    text_priority = text_perm.reindex(ann["item_id"]).to_numpy()
    adapt_row_order = rng.permutation(len(ann))
    test_mask_user = ann["annotator_id"].isin(test_users).to_numpy()
    if min_adaptation is None:
        min_adaptation = 1 if adaptation_share > 0 else 0

    def build(share: float, mode, strict: bool):
        reserved = text_priority < int(share * texts.size)
        train_rows, adapt_rows, test_rows, dropped = _assemble(
            ann, test_mask_user, reserved, adapt_row_order, adaptation_share,
            min_adaptation, min_test,
        )
        if mode == "train":
            train_rows = pd.concat([train_rows, adapt_rows])
        if strict:
            train_rows = train_rows[~train_rows["item_id"].isin(set(test_rows["item_id"]))]
        return train_rows, adapt_rows, test_rows, dropped

    if train_only_text_share == "auto":
        # chosen on the strict, no-adaptation variant so that the test split stays the same
        # across adaptation modes and extended/strict (PERSEVAL 3.4)
        share = 0.0
        for share in np.round(np.arange(0.0, 0.91, 0.05), 2):
            train_rows, _, test_rows, _ = build(float(share), False, True)
            total = len(train_rows) + len(test_rows)
            if len(test_rows) and len(train_rows) and len(test_rows) <= max_test_share * total:
                break
        share = float(share)
    else:
        share = float(train_only_text_share)
    train_rows, adapt_rows, test_rows, dropped = build(share, adaptation, not extended)
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
    kept_test = tuple(sorted(pd.unique(test_rows["annotator_id"])))
    train_users = tuple(u for u in users if u not in set(test_users))
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
    splits.check()
    return splits


# ----------------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class _Prepared:
    """Validated instances as integer codes (one row per (user, text) pair)."""

    users: pd.Index
    texts: pd.Index
    labels: tuple[str, ...]
    user_code: np.ndarray
    text_code: np.ndarray
    y: np.ndarray
    p: np.ndarray
    frame: pd.DataFrame  # annotator_id, item_id, gold, pred


def _standardise(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"{what} must be a DataFrame with columns annotator_id, item_id, label.",
                        source=what)
    out = frame.rename(columns={"user_id": "annotator_id", "text_id": "item_id",
                                "prediction": "label", "predictions": "label"})
    missing = [c for c in _SPLIT_COLUMNS if c not in out.columns]
    if missing:
        raise DataError(
            f"{what} lacks column(s) {missing}; found {list(frame.columns)}.",
            source=what,
            row=1,
            column=missing[0],
            fix="use columns annotator_id (or user_id), item_id (or text_id), label.",
        )
    out = out[_SPLIT_COLUMNS + [c for c in ("prob",) if c in out.columns]].copy()
    for column in _SPLIT_COLUMNS:
        empty = out[column].isna()
        if empty.any():
            raise DataError(f"{what} has {int(empty.sum())} empty {column} cell(s).",
                            source=what, row=int(np.flatnonzero(empty.to_numpy())[0]) + 2,
                            column=column, fix="fill or drop those rows.")
        out[column] = out[column].astype(str).str.strip()
    return out


def _pairs_text(frame: pd.DataFrame, limit: int = 5) -> str:
    shown = [f"({u}, {t})" for u, t in frame[_KEYS].head(limit).itertuples(index=False)]
    more = f" and {len(frame) - limit} more" if len(frame) > limit else ""
    return ", ".join(shown) + more


def _check_pairs(pred: pd.DataFrame, true: pd.DataFrame) -> pd.DataFrame:
    """Outer-join predictions and gold on (user, text); missing or extra pairs raise a
    :class:`DataError` that names them (decision 8)."""
    merged = true.merge(pred[[c for c in _SPLIT_COLUMNS if c in pred.columns]], on=_KEYS,
                        how="outer", suffixes=("_gold", "_pred"), indicator=True)
    missing = merged[merged["_merge"] == "left_only"]
    extra = merged[merged["_merge"] == "right_only"]
    if len(missing) or len(extra):
        parts = []
        if len(missing):
            parts.append(f"{len(missing)} test (user, text) pair(s) have no prediction: "
                         f"{_pairs_text(missing)}")
        if len(extra):
            parts.append(f"{len(extra)} predicted pair(s) are not in the test set: "
                         f"{_pairs_text(extra)}")
        raise DataError(
            "; ".join(parts) + ".",
            source="predictions",
            column="annotator_id, item_id",
            fix="predict exactly one label for every (user, text) pair of the test split.",
        )
    return merged


def _prepare(predictions: pd.DataFrame, gold: pd.DataFrame,
             labels: tuple[str, ...] | list[str] | None) -> _Prepared:
    pred = _standardise(predictions, "predictions")
    true = _standardise(gold, "gold")
    for frame, what in ((true, "gold"), (pred, "predictions")):
        dup = frame.duplicated(_KEYS)
        if dup.any():
            raise DataError(
                f"{what} has {int(dup.sum())} duplicate (user, text) pair(s): "
                f"{_pairs_text(frame[dup])}.",
                source=what, row=int(np.flatnonzero(dup.to_numpy())[0]) + 2, column="label",
                fix="keep one label per (user, text).",
            )
    merged = _check_pairs(pred, true)
    if labels is None:
        labels = order_labels(true["label"].unique())
    labels = tuple(str(x) for x in labels)
    index = pd.Index(labels)
    y = index.get_indexer(merged["label_gold"])
    p = index.get_indexer(merged["label_pred"])
    for codes, column, what in ((y, "label_gold", "gold"), (p, "label_pred", "predictions")):
        bad = codes < 0
        if bad.any():
            unknown = sorted(pd.unique(merged.loc[bad, column]))[:5]
            raise DataError(
                f"{what} use label(s) {unknown} outside the label inventory {list(labels)} "
                f"({int(bad.sum())} row(s)).",
                source=what, column="label",
                fix="use the dataset's label strings exactly.",
            )
    users = pd.Index(sorted(pd.unique(merged["annotator_id"])), name="annotator_id")
    texts = pd.Index(sorted(pd.unique(merged["item_id"])), name="item_id")
    frame = pd.DataFrame({
        "annotator_id": merged["annotator_id"].to_numpy(),
        "item_id": merged["item_id"].to_numpy(),
        "gold": merged["label_gold"].to_numpy(),
        "pred": merged["label_pred"].to_numpy(),
    })
    return _Prepared(
        users=users, texts=texts, labels=labels,
        user_code=users.get_indexer(merged["annotator_id"]),
        text_code=texts.get_indexer(merged["item_id"]),
        y=y, p=p, frame=frame,
    )


def _group_counts(group: np.ndarray, y: np.ndarray, p: np.ndarray, n_groups: int,
                  k: int) -> np.ndarray:
    """(G, 3, K) confusion counts per group and class: true positives, gold count, predicted
    count. Rows with group < 0 are ignored."""
    keep = group >= 0
    g, yy, pp = group[keep], y[keep], p[keep]
    size = n_groups * k
    tp = np.bincount(g[yy == pp] * k + yy[yy == pp], minlength=size)
    gold = np.bincount(g * k + yy, minlength=size)
    pred = np.bincount(g * k + pp, minlength=size)
    return np.stack([tp, gold, pred], axis=0).reshape(3, n_groups, k).transpose(1, 0, 2)


def _scores(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Per-class P/R/F1 (zero_division 0; NaN where the class is absent from gold and
    predictions) and accuracy from (..., 3, K) counts.

    precision = TP / #pred, recall = TP / #gold, F1 = 2 TP / (#gold + #pred), accuracy =
    sum TP / n (scikit-learn ``classification_report`` with ``zero_division=0``)."""
    tp, gold, pred = (counts[..., i, :].astype(float) for i in range(3))
    present = (gold + pred) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(pred > 0, tp / pred, 0.0)
        recall = np.where(gold > 0, tp / gold, 0.0)
        f1 = np.where(present, 2 * tp / (gold + pred), 0.0)
        n = gold.sum(axis=-1)
        accuracy = np.where(n > 0, tp.sum(axis=-1) / n, np.nan)
    out = {}
    for name, values in (("precision", precision), ("recall", recall), ("f1", f1)):
        values = np.where(present, values, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            macro = np.nanmean(values, axis=-1)
        out[name] = values
        out[f"{name}_macro"] = macro
    out["accuracy"] = accuracy
    out["n"] = n
    return out


def _level_frame(counts: np.ndarray, index: pd.Index, labels: tuple[str, ...]) -> pd.DataFrame:
    s = _scores(counts)
    data = {"n": s["n"].astype(int), "accuracy": s["accuracy"]}
    for metric in METRICS:
        for j, label in enumerate(labels):
            data[f"{metric}:{label}"] = s[metric][:, j]
        data[f"{metric}:macro"] = s[f"{metric}_macro"]
    return pd.DataFrame(data, index=index)


def _is_unknown(values: pd.Series) -> np.ndarray:
    return (values.isna() | values.astype(str).isin(list(UNKNOWN_TRAIT_VALUES))).to_numpy()


@dataclass(frozen=True)
class PerspectivistReport:
    """Result of :func:`evaluate`.

    Each level table has one row per group and columns ``n`` (instances), ``accuracy`` and
    ``<metric>:<label>`` for metric in precision/recall/f1 and label in the inventory plus
    ``macro`` (NaN = class absent from the group's gold and predictions).
    ``global_`` has one row (``"all"``); ``per_user`` is indexed by ``annotator_id``,
    ``per_text`` by ``item_id``, ``per_trait`` by (``dimension``, ``value``) with ``n_users``.
    """

    global_: pd.DataFrame
    per_user: pd.DataFrame
    per_text: pd.DataFrame
    per_trait: pd.DataFrame
    labels: tuple[str, ...]
    positive: str | None
    absent: str = "skip"
    instances: pd.DataFrame = field(default=None, repr=False)  # type: ignore[assignment]

    def _levels(self) -> list[tuple[str, pd.DataFrame]]:
        levels = [("global", self.global_), ("user", self.per_user), ("text", self.per_text)]
        if len(self.per_trait):
            for dim, frame in self.per_trait.groupby(level="dimension", sort=False):
                levels.append((f"trait:{dim}", frame))
        return levels

    def summary(self) -> pd.DataFrame:
        """Tidy table: ``level, label, metric, value, n_groups``.

        ``value`` is the unweighted mean over the level's groups where the class occurs
        (``n_groups`` of them; 1 for global); with ``absent="zero"`` absent classes count as 0
        and ``n_groups`` is every group. Accuracy is reported once per level under label
        ``"macro"`` (it is not per class)."""
        rows = []
        columns = [f"{m}:{lab}" for m in METRICS for lab in (*self.labels, "macro")]
        for level, frame in self._levels():
            values = frame[["accuracy", *columns]]
            if self.absent == "zero":
                values = values.fillna(0.0)
            means = values.mean(axis=0, skipna=True)
            counts = values.notna().sum(axis=0)
            rows.append((level, "macro", "accuracy", float(means["accuracy"]),
                         int(counts["accuracy"])))
            for column in columns:
                metric, label = column.split(":", 1)
                value = float(means[column]) if counts[column] else float("nan")
                rows.append((level, label, metric, value, int(counts[column])))
        return pd.DataFrame(rows, columns=["level", "label", "metric", "value", "n_groups"])

    def headline(self) -> dict[str, float]:
        """The paper's headline: positive-class P/R/F1 for binary tasks, macro otherwise, plus
        user- and text-level F1 of the same kind."""
        label = self.positive if self.positive is not None else "macro"
        s = self.summary().set_index(["level", "label", "metric"])["value"]
        return {
            "label": label,
            "precision": s[("global", label, "precision")],
            "recall": s[("global", label, "recall")],
            "f1": s[("global", label, "f1")],
            "user_f1": s[("user", label, "f1")],
            "text_f1": s[("text", label, "f1")],
        }

    def trait_gaps(self, metric: str = "f1", label: str = "macro") -> pd.DataFrame:
        """Best- minus worst-served trait value per dimension (see :func:`trait_gaps`)."""
        return trait_gaps(self, metric=metric, label=label)


def evaluate(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    traits: pd.DataFrame | None = None,
    labels: tuple[str, ...] | list[str] | None = None,
    positive: str | None = None,
    absent: Literal["skip", "zero"] = "skip",
) -> PerspectivistReport:
    """PERSEVAL metrics of per-(user, text) predictions (seed 003 section 5; spec 3.4, decision 8).

    Parameters
    ----------
    predictions, gold : DataFrame
        Columns ``annotator_id`` (or ``user_id``), ``item_id`` (or ``text_id``), ``label``.
        Exactly the same (user, text) pairs: missing or extra pairs raise
        :class:`~hlv_core.io.DataError` naming them; so do duplicate pairs and unknown labels.
    traits : DataFrame, optional
        Indexed by ``annotator_id`` (or with that column), one column per trait dimension;
        values in :data:`UNKNOWN_TRAIT_VALUES` or missing are skipped.
    labels : sequence, optional
        Label inventory (default: sorted gold labels, numeric order for numbers).
    positive : str, optional
        The positive class of a binary task (default: the second label of a two-label
        inventory, "1" for 0/1); ``None`` for multi-class tasks.
    absent : "skip" | "zero"
        Group means skip classes absent from a group (reference) or count them as 0.
    """
    if absent not in ("skip", "zero"):
        raise ValueError(f"absent must be 'skip' or 'zero'; got {absent!r}.")
    for name, frame in (("predictions", predictions), ("gold", gold)):
        if not isinstance(frame, pd.DataFrame) or len(frame) == 0:
            raise DataError(
                f"the {name} table has 0 rows; there is nothing to score.",
                source=name,
                fix="pass per-(user, text) rows with columns annotator_id, item_id, label.",
            )
    prep = _prepare(predictions, gold, labels)
    k = len(prep.labels)
    if positive is None and k == 2:
        positive = prep.labels[1]
    if positive is not None and positive not in prep.labels:
        raise ValueError(f"positive class {positive!r} is not in {list(prep.labels)}.")
    n = len(prep.y)
    global_ = _level_frame(_group_counts(np.zeros(n, dtype=np.int64), prep.y, prep.p, 1, k),
                           pd.Index(["all"], name="group"), prep.labels)
    per_user = _level_frame(
        _group_counts(prep.user_code, prep.y, prep.p, len(prep.users), k), prep.users,
        prep.labels)
    per_text = _level_frame(
        _group_counts(prep.text_code, prep.y, prep.p, len(prep.texts), k), prep.texts,
        prep.labels)
    per_trait = _trait_frames(prep, traits)
    instances = prep.frame
    return PerspectivistReport(
        global_=global_, per_user=per_user, per_text=per_text, per_trait=per_trait,
        labels=prep.labels, positive=positive, absent=absent, instances=instances,
    )


def _traits_frame(traits: pd.DataFrame | None) -> pd.DataFrame | None:
    if traits is None:
        return None
    frame = traits
    if "annotator_id" in frame.columns:
        frame = frame.set_index("annotator_id")
    frame = frame.copy()
    frame.index = frame.index.astype(str)
    return frame


def _trait_codes(prep: _Prepared, traits: pd.DataFrame | None):
    """Yield (dimension, value index, (U,) value code per user, -1 = unknown)."""
    frame = _traits_frame(traits)
    if frame is None:
        return
    frame = frame.reindex(prep.users)
    for dim in frame.columns:
        column = frame[dim]
        unknown = _is_unknown(column)
        values = column.astype(object).where(~unknown, None)
        known = values.dropna().astype(str)
        if known.empty:
            continue
        index = pd.Index(sorted(known.unique()), name="value")
        codes = np.full(len(prep.users), -1, dtype=np.int64)
        codes[~unknown] = index.get_indexer(values[~unknown].astype(str))
        yield str(dim), index, codes


def _trait_frames(prep: _Prepared, traits: pd.DataFrame | None) -> pd.DataFrame:
    k = len(prep.labels)
    frames = []
    for dim, index, codes in _trait_codes(prep, traits):
        group = codes[prep.user_code]
        frame = _level_frame(_group_counts(group, prep.y, prep.p, len(index), k), index,
                             prep.labels)
        frame.insert(1, "n_users", np.bincount(codes[codes >= 0], minlength=len(index)))
        frame = frame[frame["n"] > 0]
        frame.index = pd.MultiIndex.from_product([[dim], frame.index],
                                                 names=["dimension", "value"])
        frames.append(frame)
    if not frames:
        columns = ["n", "n_users", "accuracy"] + [
            f"{m}:{lab}" for m in METRICS for lab in (*prep.labels, "macro")]
        return pd.DataFrame(columns=columns, index=pd.MultiIndex.from_arrays(
            [[], []], names=["dimension", "value"]))
    return pd.concat(frames)


def trait_gaps(report: PerspectivistReport, *, metric: str = "f1",
               label: str = "macro") -> pd.DataFrame:
    """Gap between the best- and worst-served trait value of each dimension [OURS].

    ``gap = max_v score_v - min_v score_v`` over the dimension's known values with a defined
    score (``metric`` of ``label``, or ``metric="accuracy"``). Columns ``dimension, best_value,
    best, worst_value, worst, gap, n_values``."""
    column = "accuracy" if metric == "accuracy" else f"{metric}:{label}"
    if column not in report.per_trait.columns:
        raise ValueError(f"unknown metric/label {metric!r}/{label!r}.")
    rows = []
    for dim, frame in report.per_trait.groupby(level="dimension", sort=False):
        scores = frame[column].droplevel("dimension").dropna()
        if scores.empty:
            continue
        best, worst = scores.idxmax(), scores.idxmin()
        rows.append({"dimension": dim, "best_value": best, "best": float(scores[best]),
                     "worst_value": worst, "worst": float(scores[worst]),
                     "gap": float(scores[best] - scores[worst]), "n_values": len(scores)})
    return pd.DataFrame(rows, columns=["dimension", "best_value", "best", "worst_value",
                                       "worst", "gap", "n_values"])


# ----------------------------------------------------------------------------------- bootstrap
def bootstrap_users(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    traits: pd.DataFrame | None = None,
    labels: tuple[str, ...] | list[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> pd.DataFrame:
    """Percentile bootstrap CIs over test users (cluster bootstrap; [OURS], spec decision 9).

    One replicate draws U users with replacement (multinomial weights ``W``, shape (B, U));
    every score is recomputed from weighted per-user confusion counts: global (pooled counts
    ``W @ C``), user-level (weighted mean of per-user scores over users where the class occurs)
    and each trait value (counts of that value's resampled users pooled) and its dimension mean.
    Returns ``level, group, label, metric, estimate, low, high, sd, n_boot, seed`` with
    ``group`` = ``"all"`` (global / level means) or the trait value.
    """
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1.")
    if not 0 < ci < 1:
        raise ValueError("ci must be in (0, 1).")
    prep = _prepare(predictions, gold, labels)
    k = len(prep.labels)
    n_users = len(prep.users)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n_users, np.full(n_users, 1.0 / n_users), size=n_boot).astype(float)
    counts_u = _group_counts(prep.user_code, prep.y, prep.p, n_users, k)  # (U, 3, K)
    flat = counts_u.reshape(n_users, -1).astype(float)
    rows: list[dict] = []
    alpha = (1 - ci) / 2

    def add(level: str, group: str, point: dict, reps: dict) -> None:
        for metric in ("accuracy", *METRICS):
            if metric == "accuracy":
                items = [("macro", point["accuracy"], reps["accuracy"])]
            else:
                items = [(lab, point[metric][..., j], reps[metric][..., j])
                         for j, lab in enumerate(prep.labels)]
                items.append(("macro", point[f"{metric}_macro"], reps[f"{metric}_macro"]))
            for lab, est, rep in items:
                rep = np.asarray(rep, dtype=float)
                finite = rep[np.isfinite(rep)]
                low, high = (np.quantile(finite, [alpha, 1 - alpha]) if finite.size
                             else (np.nan, np.nan))
                rows.append({"level": level, "group": group, "label": lab, "metric": metric,
                             "estimate": float(np.asarray(est).ravel()[0]) if np.size(est)
                             else float("nan"),
                             "low": float(low), "high": float(high),
                             "sd": float(finite.std(ddof=1)) if finite.size > 1 else float("nan"),
                             "n_boot": int(n_boot), "seed": int(seed)})

    # global: pooled counts
    point = _scores(counts_u.sum(axis=0)[None])
    reps = _scores((weights @ flat).reshape(n_boot, 3, k))
    add("global", "all", {m: v[0] for m, v in point.items()}, reps)
    # user level: weighted means of per-user scores
    per_user = _scores(counts_u)
    user_point, user_reps = {}, {}
    for name, values in per_user.items():
        if name == "n":
            continue
        vals = values if values.ndim == 2 else values[:, None]
        present = np.isfinite(vals).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            user_point[name] = np.nansum(vals, axis=0) / present.sum(axis=0)
            user_reps[name] = (weights @ np.nan_to_num(vals)) / (weights @ present)
        if values.ndim == 1:
            user_point[name] = user_point[name][0]
            user_reps[name] = user_reps[name][:, 0]
    add("user", "all", user_point, user_reps)
    # traits
    for dim, index, codes in _trait_codes(prep, traits):
        onehot = np.zeros((n_users, len(index)))
        known = codes >= 0
        onehot[np.flatnonzero(known), codes[known]] = 1.0
        point_v = _scores(np.einsum("uv,uk->vk", onehot, flat).reshape(len(index), 3, k))
        reps_v = _scores(np.einsum("bu,uv,uk->bvk", weights, onehot, flat)
                         .reshape(n_boot, len(index), 3, k))
        for j, value in enumerate(index):
            if point_v["n"][j] == 0:
                continue
            add(f"trait:{dim}", str(value), {m: v[j] for m, v in point_v.items()},
                {m: v[:, j] for m, v in reps_v.items()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean_point = {m: np.nanmean(np.where(point_v["n"][(...,) + (None,) * (v.ndim - 1)]
                                                 > 0, v, np.nan), axis=0)
                          for m, v in point_v.items()}
            mean_reps = {m: np.nanmean(v, axis=1) for m, v in reps_v.items()}
        add(f"trait:{dim}", "mean", mean_point, mean_reps)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------- soft / LeWiDi
def _values(labels: tuple[str, ...], values: dict[str, float] | None) -> np.ndarray:
    if values is not None:
        return np.array([float(values[x]) for x in labels])
    try:
        return np.array([float(x) for x in labels])
    except ValueError:
        return np.arange(len(labels), dtype=float)


def soft_user_scores(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    labels: tuple[str, ...] | list[str],
    values: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Per-user soft accuracy and (expected) absolute error of per-(user, text) outputs [OURS].

    ``predictions``: long ``annotator_id, item_id, label, prob`` (a distribution over labels
    per pair; hard labels without ``prob`` count as prob 1). For pair i with gold label y_i and
    predicted distribution q_i: soft accuracy = q_i[y_i]; absolute error =
    sum_k q_ik |v_k - v_{y_i}| (v = numeric label values; ordinal outputs). Returns one row per
    user (``n, soft_accuracy, abs_error``); the user-level score is the unweighted mean of the
    rows. Missing/extra pairs raise :class:`~hlv_core.io.DataError`.
    """
    labels = tuple(str(x) for x in labels)
    pred = _standardise(predictions, "predictions")
    if "prob" not in pred.columns:
        pred["prob"] = 1.0
    pred["prob"] = pd.to_numeric(pred["prob"], errors="coerce")
    if pred["prob"].isna().any() or (pred["prob"] < 0).any() or (pred["prob"] > 1).any():
        raise DataError("predictions have probabilities outside [0, 1] or empty.",
                        source="predictions", column="prob")
    bad = ~pred["label"].isin(labels)
    if bad.any():
        raise DataError(f"predictions use label(s) {sorted(pred.loc[bad, 'label'].unique())[:5]}"
                        f" outside {list(labels)}.", source="predictions", column="label")
    true = _standardise(gold, "gold")
    q = (pred.pivot_table(index=_KEYS, columns="label", values="prob", aggfunc="sum")
         .reindex(columns=list(labels)).fillna(0.0))
    sums = q.sum(axis=1)
    off = (sums - 1.0).abs() > 1e-6
    if off.any():
        u, t = off[off].index[0]
        raise DataError(f"probabilities for ({u}, {t}) sum to {sums[(u, t)]:.6g}, not 1 "
                        f"({int(off.sum())} pair(s)).", source="predictions", column="prob",
                        fix="give a distribution over labels for every (user, text) pair.")
    _check_pairs(pd.DataFrame(q.index.to_frame(index=False)), true)
    rows = q.index.get_indexer(pd.MultiIndex.from_frame(true[_KEYS]))
    y = pd.Index(labels).get_indexer(true["label"])
    if (y < 0).any():
        raise DataError("gold uses labels outside the inventory.", source="gold", column="label")
    qm = q.to_numpy()[rows]
    v = _values(labels, values)
    soft_acc = qm[np.arange(len(y)), y]
    abs_err = (qm * np.abs(v[None, :] - v[y][:, None])).sum(axis=1)
    frame = pd.DataFrame({"annotator_id": true["annotator_id"].to_numpy(),
                          "soft_accuracy": soft_acc, "abs_error": abs_err})
    out = frame.groupby("annotator_id").agg(n=("soft_accuracy", "size"),
                                            soft_accuracy=("soft_accuracy", "mean"),
                                            abs_error=("abs_error", "mean"))
    return out


def lewidi_scores(
    predictions: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    labels: tuple[str, ...] | list[str] | None = None,
    values: dict[str, float] | None = None,
    scale: float | None = None,
    decimals: int | None = None,
) -> dict[str, float]:
    """LeWiDi 2025 Task B (perspectivist) scores, lower is better (spec soft_metrics.md 11).

    * error rate (MP): mean over texts of the share of the text's annotators whose label is
      mispredicted, ``(1/N) sum_i (1/a_i) sum_a [t_ia != p_ia]`` (= ``sum_a |t - p| / a`` for
      0/1 labels);
    * normalised absolute distance (CSC, Par): ``(1/N) sum_i (1/a_i) sum_a |v(t_ia) - v(p_ia)|
      / s`` with ``s = scale`` (default: number of labels: 6 for CSC 1-6, 11 for Par -5..5).

    ``decimals`` rounds each text's score and the mean like the official notebook (default: no
    rounding). Pair checks as :func:`evaluate`.
    """
    prep = _prepare(predictions, gold, labels)
    v = _values(prep.labels, values)
    s = float(scale) if scale is not None else float(len(prep.labels))
    wrong = (prep.y != prep.p).astype(float)
    dist = np.abs(v[prep.y] - v[prep.p]) / s
    n_per = np.bincount(prep.text_code, minlength=len(prep.texts)).astype(float)
    er = np.bincount(prep.text_code, weights=wrong, minlength=len(prep.texts)) / n_per
    nad = np.bincount(prep.text_code, weights=dist, minlength=len(prep.texts)) / n_per
    if decimals is not None:
        er, nad = np.round(er, decimals), np.round(nad, decimals)
    out = {"error_rate": float(er.mean()), "normalised_absolute_distance": float(nad.mean()),
           "scale": s, "n_texts": len(prep.texts)}
    if decimals is not None:
        out["error_rate"] = round(out["error_rate"], decimals)
        out["normalised_absolute_distance"] = round(out["normalised_absolute_distance"], decimals)
    return out


# ----------------------------------------------------------------------------------- baselines
def _argmax_labels(counts: pd.DataFrame, labels: tuple[str, ...]) -> pd.Series:
    """Majority label per row of a (rows x labels) count table; ties -> lowest inventory
    index (binding decision 3)."""
    table = counts.reindex(columns=list(labels), fill_value=0)
    return pd.Series(np.array(labels, dtype=object)[np.argmax(table.to_numpy(), axis=1)],
                     index=table.index)


def _counts(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return frame.groupby([*keys, "label"]).size().unstack("label", fill_value=0)


def _global_majority(splits: PerspectivistSplits) -> str:
    counts = splits.train["label"].value_counts().reindex(list(splits.labels), fill_value=0)
    return splits.labels[int(np.argmax(counts.to_numpy()))]


def _fill(test: pd.DataFrame, *choices: pd.Series) -> pd.Series:
    out = pd.Series(np.full(len(test), None, dtype=object), index=test.index)
    for choice in choices:
        out = out.where(out.notna(), choice)
    return out


def majority_baseline(splits: PerspectivistSplits) -> pd.DataFrame:
    """Majority vote of the training annotators on each test text; texts without training labels
    (every text in a strict split) get the majority label of the whole training split.

    Returns predictions ``annotator_id, item_id, label`` for every test pair."""
    test = splits.test[_KEYS]
    per_text = _argmax_labels(_counts(splits.train, ["item_id"]), splits.labels)
    label = _fill(test, test["item_id"].map(per_text),
                  pd.Series(_global_majority(splits), index=test.index))
    return test.assign(label=label.astype(str).to_numpy())


def trait_majority_baseline(splits: PerspectivistSplits, dimension: str) -> pd.DataFrame:
    """Per-trait-group majority (named task): each test user gets the majority label of the
    training annotators sharing their value of ``dimension`` on that text; fallbacks in order:
    the text's majority over all training annotators, the trait group's majority over all its
    training labels, the training majority."""
    if splits.traits is None or dimension not in splits.traits.columns:
        raise ValueError(f"trait {dimension!r} is not available (named splits with that "
                         "trait are needed).")
    column = splits.traits[dimension]
    known = column[~_is_unknown(column)].astype(str)
    train = splits.train.assign(value=splits.train["annotator_id"].map(known))
    test = splits.test[_KEYS].assign(value=splits.test["annotator_id"].map(known))
    train_known = train.dropna(subset=["value"])
    by_value_text = _argmax_labels(_counts(train_known, ["value", "item_id"]), splits.labels)
    by_text = _argmax_labels(_counts(train, ["item_id"]), splits.labels)
    by_value = _argmax_labels(_counts(train_known, ["value"]), splits.labels)
    keys = pd.MultiIndex.from_frame(test[["value", "item_id"]].astype(object))
    first = pd.Series(by_value_text.reindex(keys).to_numpy(), index=test.index)
    label = _fill(test, first, test["item_id"].map(by_text), test["value"].map(by_value),
                  pd.Series(_global_majority(splits), index=test.index))
    return test[_KEYS].assign(label=label.astype(str).to_numpy())


def user_majority_baseline(splits: PerspectivistSplits) -> pd.DataFrame:
    """Per-user majority of each test user's adaptation labels (unnamed task); users without
    adaptation labels get the training majority. Needs ``adaptation`` "train" or "test"."""
    if splits.adaptation_mode is False:
        raise ValueError("the per-user majority baseline needs adaptation labels "
                         "(adaptation='train' or 'test').")
    test = splits.test[_KEYS]
    per_user = _argmax_labels(_counts(splits.adaptation_labels(), ["annotator_id"]),
                              splits.labels)
    label = _fill(test, test["annotator_id"].map(per_user),
                  pd.Series(_global_majority(splits), index=test.index))
    return test.assign(label=label.astype(str).to_numpy())


def run_baselines(
    splits: PerspectivistSplits, *, dimensions: list[str] | None = None
) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """Every applicable baseline: ``({name: predictions}, {name: reason skipped})``.

    ``majority vote``; ``trait majority (<dimension>)`` for each trait dimension of a named
    split (``dimensions`` to restrict); ``user majority`` when adaptation labels exist."""
    models = {"majority vote": majority_baseline(splits)}
    skipped: dict[str, str] = {}
    if splits.traits is not None:
        for dim in dimensions if dimensions is not None else list(splits.traits.columns):
            models[f"trait majority ({dim})"] = trait_majority_baseline(splits, dim)
    else:
        skipped["trait majority"] = "unnamed split: no annotator traits."
    if splits.adaptation_mode is False:
        skipped["user majority"] = "needs adaptation labels (adaptation 'train' or 'test')."
    else:
        models["user majority"] = user_majority_baseline(splits)
    return models, skipped


def compare_models(
    models: dict[str, pd.DataFrame],
    gold: pd.DataFrame,
    *,
    traits: pd.DataFrame | None = None,
    labels: tuple[str, ...] | list[str] | None = None,
) -> pd.DataFrame:
    """``evaluate`` every model; the summaries stacked with a ``model`` column (tidy)."""
    frames = []
    for name, preds in models.items():
        summary = evaluate(preds, gold, traits=traits, labels=labels).summary()
        frames.append(summary.assign(model=name))
    if not frames:
        return pd.DataFrame(columns=["model", "level", "label", "metric", "value", "n_groups"])
    out = pd.concat(frames, ignore_index=True)
    return out[["model", "level", "label", "metric", "value", "n_groups"]]


def gold_for_pairs(predictions: pd.DataFrame, dataset: Dataset) -> pd.DataFrame:
    """The dataset's labels for the (user, text) pairs of ``predictions`` (evaluate a model on
    its own test pairs). Pairs the dataset has no label for raise a :class:`DataError` that names
    them."""
    pred = _standardise(predictions, "predictions")
    ann = _long_annotations(dataset)
    merged = pred[_KEYS].drop_duplicates().merge(ann, on=_KEYS, how="left", indicator=True)
    unknown = merged[merged["_merge"] == "left_only"]
    if len(unknown):
        raise DataError(
            f"{len(unknown)} predicted (user, text) pair(s) have no label in the dataset: "
            f"{_pairs_text(unknown)}.",
            source="predictions",
            column="annotator_id, item_id",
            fix="predict only pairs that the dataset's annotators labelled (check id formats).",
        )
    return merged[_SPLIT_COLUMNS].reset_index(drop=True)
