"""HLV Lens engine: analyses of human label variation on numpy, pandas and scipy.

The names below are the public engine, in the style of ``sklearn.metrics``: import what you need
from the package itself and find the formula, its paper and a worked example in each docstring.

>>> from hlv_core import krippendorff_alpha, soft_accuracy
>>> callable(krippendorff_alpha) and callable(soft_accuracy)
True

Groups (one module per concept; each module also stays importable by name):

* data: :func:`load`, :class:`Dataset`, :class:`DataError`, :func:`load_predictions`,
  :func:`load_sample` (``hlv_core.io``, ``hlv_core.samples``);
* soft and hard metrics (Kurniawan et al. 2025): ``hard_*``, ``soft_*``, :func:`po_jsd`,
  :func:`entropy_correlation`, :func:`score_models` (``hlv_core.soft_metrics``,
  ``hlv_core.scoring``); the LeWiDi scorer: :func:`score_lewidi`, :func:`load_lewidi_gold`
  (``hlv_core.lewidi``);
* agreement (Krippendorff; Marchal et al. 2022): :func:`krippendorff_alpha`,
  :func:`pairwise_alpha`, the kappas, :func:`multilabel_agreement` (``hlv_core.agreement``);
* balance (Basile, "A Measure of Systematic Disagreement"): :func:`sigma`,
  :func:`sigma_random`, :func:`camps` (``hlv_core.balance``);
* certainty (Stutz et al. 2023): :func:`irn`, :func:`sample_plausibilities`,
  :func:`annotation_certainty`, :func:`ua_accuracy`, :func:`average_overlap`
  (``hlv_core.certainty``);
* models against humans: :func:`alt_test`, :func:`human_ceiling`, :func:`dist_ce`,
  :func:`ent_ce`, :func:`rank_cs` (``hlv_core.judge``, ``hlv_core.ceiling``,
  ``hlv_core.calibration``);
* signal or noise: :func:`dawid_skene`, :func:`mace`, :func:`error_scores`
  (``hlv_core.competence``, ``hlv_core.errors``);
* perspectives (PERSEVAL): :func:`make_splits`, :func:`evaluate_perspectives`
  (``hlv_core.perspectivist``);
* meta-evaluation and review: :func:`rank_centrality`, :class:`ReviewStore`
  (``hlv_core.review``); training methods: :data:`METHODS`, :func:`run_lab` (on several
  processes: :func:`run_lab_pool`); the HTML disagreement report: :func:`build_report`.

Importing ``hlv_core`` is cheap: each name loads its module on first use (PEP 562), so numpy,
pandas and scipy are imported only when a function is asked for, and Dask only by
``hlv_core.scale`` (the scale-out engine, loaded on first access and not part of ``*``).
No module imports streamlit.
"""

import sys

__version__ = "0.1.0"

# Public name -> (module, attribute). Ambiguous engine names get a concept prefix here only
# (``evaluate`` exists for soft metrics and for perspectives).
_NAMES: dict[str, tuple[str, str]] = {}


def _add(module: str, *names: str, **renamed: str) -> None:
    for name in names:
        _NAMES[name] = (module, name)
    for public, attribute in renamed.items():
        _NAMES[public] = (module, attribute)


_add("io", "load", "Dataset", "DataError", "ImportReport", "load_predictions",
     "load_lewidi_submission", "prediction_matrix", "FORMATS")
_add("samples", "load_sample", "SAMPLES")
_add("soft_metrics", "hard_accuracy", "hard_micro_f1", "hard_macro_f1", "soft_accuracy",
     "soft_micro_f1", "soft_macro_f1", "po_jsd", "entropy_correlation", "normalised_entropy",
     "per_item", evaluate_soft="evaluate")
_add("scoring", "score_models", "score_model")
_add("lewidi", score_lewidi="score", load_lewidi_gold="load_gold")
_add("agreement", "krippendorff_alpha", "pairwise_alpha", "alpha_report", "bootstrap_alpha",
     "cohen_kappa", "fleiss_kappa", "pairwise_cohen_kappa", "kappa_summary",
     "multilabel_agreement", "AlphaResult")
_add("pair_matrix", "pairwise_matrix", "PairMatrix")
_add("levels", "level_options")
_add("balance", "sigma", "sigma_random", "camps", "count_triangles", "SigmaResult",
     "RandomSigmaResult")
_add("annotators", "annotator_table", "item_agreement", "annotator_profile")
_add("aggregation", "irn", "sample_plausibilities", "point_estimate")
_add("certainty", "pl_log_likelihood", "annotation_certainty", "ua_accuracy",
     "average_overlap", "sweep")
_add("calibration", "dist_ce", "ent_ce", "rank_cs", "ece", "human_topk_accuracy",
     "evaluate_calibration")
_add("ceiling", "human_ceiling")
_add("judge", "alt_test")
_add("competence", "dawid_skene", "one_coin_dawid_skene", "mace", "annotator_report")
_add("errors", "error_scores", "evaluate_error_ranking")
_add("perspectivist", "make_splits", "PerspectivistReport", "run_baselines",
     evaluate_perspectives="evaluate")
_add("review", "rank_centrality", "ReviewStore")
_add("training", "METHODS", "run_lab", "method_targets")
_add("lab_pool", "run_lab_pool")
_add("figures", "comparison_figure")
_add("report", "build_report")

# Concept modules reachable as attributes (``hlv_core.agreement``) without an explicit import.
_MODULES = (
    "io", "samples", "soft_metrics", "scoring", "lewidi", "simulate", "training", "targets",
    "lab", "lab_pool", "agreement", "pair_matrix", "levels", "balance", "annotators", "aggregation",
    "certainty", "calibration", "ceiling", "judge", "judging", "competence", "errors",
    "perspectivist", "review", "review_store", "verdict_store", "library", "glossary",
    "figures", "report", "text", "progress",
)
# Loaded on attribute access only, never by ``from hlv_core import *`` (it imports Dask).
_LAZY_ONLY = ("scale",)

__all__ = sorted(_NAMES) + list(_MODULES)


def _module(name: str):
    # ``__import__`` rather than ``importlib``: importing importlib alone costs more than this file
    __import__(f"{__name__}.{name}")
    return sys.modules[f"{__name__}.{name}"]


def __getattr__(name: str) -> object:
    if name in _NAMES:
        module, attribute = _NAMES[name]
        value = getattr(_module(module), attribute)
    elif name in _MODULES or name in _LAZY_ONLY:
        value = _module(name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_LAZY_ONLY))

