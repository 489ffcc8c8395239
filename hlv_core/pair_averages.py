"""Averages of pairwise agreement over annotator pairs: Light's kappa (Light 1971: the mean of
Cohen's kappa over every pair of annotators), the kappa summary the Agreement page and the
``agreement`` command show, and the multi-label pair mean for Marchal et al.'s measures (section
4; defined for two coders, so with more coders: the mean over coder pairs,
``docs/conventions.md``).

The functions live in :mod:`hlv_core.agreement` (the public door of agreement; the multi-label
mean in its private helper ``_multilabel``); this module keeps their first import path.
"""

from __future__ import annotations

from .agreement import (
    LIGHT_MAX_ANNOTATORS,
    average_multilabel_pairs,
    kappa_summary,
    lights_kappa,
)

__all__ = ["LIGHT_MAX_ANNOTATORS", "average_multilabel_pairs", "kappa_summary", "lights_kappa"]
