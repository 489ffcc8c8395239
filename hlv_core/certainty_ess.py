"""Effective sample size of the Plackett-Luce Gibbs sampler as the Certainty page and the
``certainty`` command report it (Stutz et al., appendix B: the PL posterior is sampled by MCMC,
so its samples are correlated; the ESS says how many independent draws they are worth).

New module (not part of :mod:`hlv_core.certainty`) only while that module is being split; it
belongs beside :class:`~hlv_core.certainty.SweepResult`.
"""

from __future__ import annotations

import numpy as np

from .certainty import SweepResult

__all__ = ["mean_ess"]


def mean_ess(result: SweepResult) -> list[float]:
    """Per reliability of ``result`` (in ``result.info`` order), the mean over cases of the
    sampler's ESS of the top class, ``mean_i ess_i`` (NaN cases ignored); NaN for samplers that
    draw independent samples (Dirichlet, PrIRN) and report no ESS."""
    out = []
    for info in result.info:
        ess = np.asarray(info.get("ess", []), dtype=float) if isinstance(info, dict) else []
        out.append(float(np.nanmean(ess)) if len(ess) and np.isfinite(ess).any() else np.nan)
    return out
