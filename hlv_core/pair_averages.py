"""Averages of pairwise agreement over annotator pairs: Light's kappa (Light 1971: the mean of
Cohen's kappa over every pair of annotators), the kappa summary the Agreement page and the
``agreement`` command show, and the multi-label pair mean for Marchal et al.'s measures (section
4; they are defined for two coders, so with more coders: every coder pair on the items both
labelled, then the mean over pairs, ``docs/conventions.md``).

These were computed inside pages/agreement.py and again inside
:func:`hlv_core.agreement.multilabel_agreement`; this module is their one home.
"""

from __future__ import annotations

import pandas as pd

from .agreement import (
    MULTILABEL_MEASURES,
    cohen_kappa,
    fleiss_kappa,
    pairwise_cohen_kappa,
)

__all__ = ["LIGHT_MAX_ANNOTATORS", "average_multilabel_pairs", "kappa_summary", "lights_kappa"]

#: Light's kappa loops over annotator pairs; above this many annotators it is not computed.
LIGHT_MAX_ANNOTATORS = 60
_COLUMNS = ["observed", "expected", "adjusted", "sd"]


def lights_kappa(annotations: pd.DataFrame, *, min_shared: int = 2) -> float:
    """Light's kappa: ``mean_{a<b} kappa_ab`` over the annotator pairs sharing at least
    ``min_shared`` items, ``kappa_ab`` = Cohen's kappa on the items both labelled
    (:func:`~hlv_core.agreement.pairwise_cohen_kappa`). NaN pairs (P_e = 1) are skipped by the
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


def average_multilabel_pairs(per_pair: pd.DataFrame) -> pd.DataFrame:
    """Mean over coder pairs of the per-pair multi-label table
    (:func:`~hlv_core.agreement.multilabel_agreement_pairs`).

    One pair: that pair's rows. Several: precision and recall are first averaged over both
    orientations of each pair (coder 1 as reference is arbitrary among many, so they coincide),
    then every column is the unweighted mean over pairs. Rows = measures in
    :data:`~hlv_core.agreement.MULTILABEL_MEASURES` order; columns ``observed, expected,
    adjusted, sd, n_pairs, n_items`` (``n_items`` summed over pairs)."""
    n_pairs = int(per_pair[["coder_1", "coder_2"]].drop_duplicates().shape[0])
    if n_pairs == 1:
        table = per_pair.set_index("measure")[_COLUMNS].copy()
        table["n_pairs"] = 1
        table["n_items"] = int(per_pair["n_items"].iloc[0])
    else:
        sym = per_pair.copy()
        pr = sym["measure"].isin(["boot_precision", "boot_recall"])
        both = sym[pr].groupby(["coder_1", "coder_2"])[_COLUMNS].transform("mean")
        sym.loc[pr, _COLUMNS] = both.to_numpy()
        grouped = sym.groupby("measure", sort=False)
        table = grouped[_COLUMNS].mean()
        table["n_pairs"] = grouped.size()
        table["n_items"] = grouped["n_items"].sum()
        table = table.loc[list(MULTILABEL_MEASURES)]
    table.index.name = "measure"
    table.attrs.update({"n_pairs": n_pairs, "labels": per_pair.attrs.get("labels", []),
                        "n_boot": per_pair.attrs.get("n_boot"), "seed": per_pair.attrs.get("seed")})
    return table


