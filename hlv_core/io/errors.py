"""The one exception type for bad input, and the import report every loader returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["DataError", "ImportReport"]


#: Longest text a message echoes from one field (a 4 KiB header must not fill the screen).
MAX_ECHO = 400


def _clip(text: str, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "… (truncated)"


class DataError(ValueError):
    """Bad input. The message names the file, the row and the column, and how to fix it.

    Attributes
    ----------
    source : str
        File name (or ``"<upload>"``) the problem was found in.
    row : int or None
        1-based line number in the file (header = line 1) or record number for JSON.
    column : str or None
        Column / field name.
    fix : str
        One sentence telling the user what to change.
    """

    def __init__(
        self,
        problem: str,
        *,
        source: str = "<input>",
        row: int | None = None,
        column: str | None = None,
        fix: str = "",
    ) -> None:
        problem = _clip(problem, 2 * MAX_ECHO)
        source = _clip(source, MAX_ECHO // 2)
        column = None if column is None else _clip(column, MAX_ECHO // 4)
        fix = _clip(fix, MAX_ECHO)
        self.problem = problem
        self.source = source
        self.row = row
        self.column = column
        self.fix = fix
        where = [f"file '{source}'"]
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column '{column}'")
        message = f"{', '.join(where)}: {problem}"
        if fix:
            message += f" How to fix: {fix}"
        super().__init__(message)


@dataclass
class ImportReport:
    """What a loader read, kept and dropped (and why). Shown in the UI and downloadable."""

    source: str
    format: str
    rows_read: int = 0
    rows_kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    n_items: int = 0
    n_annotators: int = 0
    labels: tuple[str, ...] = ()
    annotators_per_item: dict[str, float] = field(default_factory=dict)

    def drop(self, reason: str, count: int) -> None:
        """Record ``count`` rows dropped for ``reason`` (counts accumulate)."""
        if count:
            self.dropped[reason] = self.dropped.get(reason, 0) + int(count)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def to_frame(self) -> pd.DataFrame:
        """Tidy two-column table (``field, value``) for display and CSV download."""
        rows: list[tuple[str, str]] = [
            ("source", self.source),
            ("format", self.format),
            ("rows read", str(self.rows_read)),
            ("rows kept", str(self.rows_kept)),
            ("items", str(self.n_items)),
            ("annotators", str(self.n_annotators)),
            ("labels (inventory order)", ", ".join(self.labels)),
        ]
        for key, value in self.annotators_per_item.items():
            rows.append((f"annotators per item ({key})", f"{value:g}"))
        for reason, count in self.dropped.items():
            rows.append((f"dropped: {reason}", str(count)))
        for i, text in enumerate(self.notes, 1):
            rows.append((f"note {i}", text))
        return pd.DataFrame(rows, columns=["field", "value"])
