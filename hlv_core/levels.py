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
    """What :func:`level_options` returns.

    ``levels``: the levels a user may choose, in :data:`LEVELS` order; ``default``: the one chosen
    when the user says nothing; ``multilabel``: the ``multilabel=`` argument of the alpha functions
    (``"set"`` for multi-label data, ``"error"`` otherwise)."""

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
    """Levels of measurement for alpha and sigma on ``dataset``.

    Single-label data: every level of :data:`LEVELS`, default = the dataset's declared level
    (ordinal for ratings, nominal otherwise; ``docs/conventions.md``: the level is always
    explicit, never silently interval). Multi-label data: nominal only, label sets compared as
    whole values (``multilabel="set"``)."""
    if dataset.task == "multilabel":
        return LevelOptions(levels=("nominal",), default="nominal", multilabel="set",
                            dataset=dataset)
    default = dataset.level if dataset.level in LEVELS else "nominal"
    return LevelOptions(levels=tuple(LEVELS), default=default, multilabel="error",
                        dataset=dataset)
