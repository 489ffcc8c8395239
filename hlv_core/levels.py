"""Levels of measurement a dataset admits (Krippendorff 2011, section 3; Basile, section 3 uses
the same alpha): one answer for the Agreement page, the Annotator graph page and the
``agreement`` / ``sigma`` commands, which each carried their own copy.

:func:`level_options` says which levels can be chosen, which one is the default, how multi-label
cells enter alpha (``"set"``: an annotator's label set on an item is one nominal value) and maps
labels to numbers for a chosen level (:meth:`LevelOptions.values`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .io import LEVELS, Dataset

__all__ = ["LEVELS", "LevelOptions", "level_options"]


@dataclass(frozen=True)
class LevelOptions:
    r"""What :func:`level_options` returns.

    .. math:: \delta_{ck} \in \{[c \ne k],\; \text{ordinal},\; (v_c - v_k)^2,\;
       ((v_c - v_k)/(v_c + v_k))^2\}

    the difference functions of the levels of measurement of Krippendorff (2011).

    Attributes
    ----------
    levels : tuple of str
        The levels a user may choose.
    default : str
        The level used when the user says nothing.
    multilabel : {"set", "error"}
        The ``multilabel=`` argument of the alpha functions.
    dataset : hlv_core.io.Dataset
        The dataset they are for.

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> options = level_options(load_sample("ratings"))
    >>> options.levels, options.default
    (('nominal', 'ordinal', 'interval', 'ratio'), 'ordinal')
    """

    levels: tuple[str, ...]
    default: str
    multilabel: str
    dataset: Dataset

    def resolve(self, level: str | None) -> str:
        """``level`` if it is one of :attr:`levels`, :attr:`default` when None; a
        ``ValueError`` naming the allowed levels otherwise."""
        if level is None:
            return self.default
        if level not in self.levels:
            raise ValueError(
                f"level {level!r} is not available for this {self.dataset.task} dataset; "
                f"choose one of {list(self.levels)}."
            )
        return level

    def values(self, level: str) -> dict[str, float] | None:
        """Label -> number for ``level`` (None for nominal); :meth:`Dataset.numeric_label_map`,
        which raises a :class:`~hlv_core.io.DataError` for interval/ratio on non-numeric labels."""
        return self.dataset.numeric_label_map(self.resolve(level))


def level_options(dataset: Dataset) -> LevelOptions:
    r"""Levels of measurement for alpha and sigma on a dataset.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} \text{ with the level's difference function } \delta_{ck}

    Krippendorff (2011): single-label data may use every level, default the dataset's declared
    level (ordinal for ratings, nominal otherwise; never silently interval); multi-label data:
    nominal only, label sets compared as whole values (``multilabel="set"``).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset

    Returns
    -------
    LevelOptions

    References
    ----------
    .. [1] Krippendorff (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for
       Communication, University of Pennsylvania. Sections on the coincidence matrix and the
       difference functions; the worked example with 4 observers, 12 units and missing values.

    Examples
    --------
    >>> from hlv_core.samples import load_sample
    >>> options = level_options(load_sample("legal_areas"))
    >>> options.levels, options.multilabel
    (('nominal',), 'set')
    """
    if dataset.task == "multilabel":
        return LevelOptions(levels=("nominal",), default="nominal", multilabel="set",
                            dataset=dataset)
    default = dataset.level if dataset.level in LEVELS else "nominal"
    return LevelOptions(levels=tuple(LEVELS), default=default, multilabel="error",
                        dataset=dataset)
