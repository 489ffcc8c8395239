"""Perspectivist evaluation (PERSEVAL, Lo, Casola et al.): user-disjoint splits and per-(user, text) metrics.

Source: Lo, Casola, Sezerer, Basile et al., "PERSEVAL" (EMNLP 2025), sections 3 and 5; our
choices are in ``docs/conventions.md`` (PERSEVAL). LeWiDi 2025 perspectivist scores: the
organisers' Task B definitions (``docs/conventions.md``, LeWiDi scoring).

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

The package: :mod:`.splits` (traits, splits), :mod:`.evaluation` (metrics, bootstrap, comparison,
headline table), :mod:`.baselines` (baselines, item-level predictions per user).
"""

from __future__ import annotations

from .baselines import (
    item_predictions_per_user,
    majority_baseline,
    run_baselines,
    trait_majority_baseline,
    user_majority_baseline,
)
from .evaluation import (
    METRICS,
    PerspectivistReport,
    bootstrap_users,
    compare_models,
    evaluate,
    gold_for_pairs,
    headline_label,
    headline_table,
    lewidi_scores,
    soft_user_scores,
    trait_gaps,
    worst_groups,
)
from .splits import (
    ADAPTATION_MODES,
    UNKNOWN_TRAIT_VALUES,
    PerspectivistSplits,
    make_splits,
    trait_table,
)

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
    "headline_label",
    "headline_table",
    "item_predictions_per_user",
    "worst_groups",
]
