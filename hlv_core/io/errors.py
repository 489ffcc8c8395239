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
    """Bad input: the one exception type of every loader, page and command.

    A ``ValueError`` whose message names the file, the row and the column, and how to fix it:
    ``file '<source>', row <row>, column '<column>': <problem> How to fix: <fix>``. Echoed
    texts are clipped so a huge header cannot fill the screen.

    Parameters
    ----------
    problem : str
        What is wrong.
    source : str, default "<input>"
        File name (or ``"<upload>"``) the problem was found in.
    row : int, optional
        1-based line number in the file (header = line 1) or record number for JSON.
    column : str, optional
        Column / field name.
    fix : str, default ""
        One sentence telling the user what to change.

    Attributes
    ----------
    problem, source, row, column, fix
        As given (clipped).

    Examples
    --------
    >>> error = DataError("label 'x' is not in the schema.", source="a.csv", row=4,
    ...                   column="label", fix="add it to labels.csv.")
    >>> print(error)
    file 'a.csv', row 4, column 'label': label 'x' is not in the schema. How to fix: add it to labels.csv.
    >>> isinstance(error, ValueError), error.row
    (True, 4)
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

    def __reduce__(self):
        """Pickle by its fields (a worker process's error reaches the caller unchanged)."""
        return (_rebuild_data_error, (type(self), self.problem, self.source, self.row,
                                      self.column, self.fix))


def _rebuild_data_error(kind, problem, source, row, column, fix) -> DataError:
    return kind(problem, source=source, row=row, column=column, fix=fix)


@dataclass
class ImportReport:
    """What a loader read, kept and dropped (and why); shown in the UI and downloadable.

    ``drop(reason, count)`` records dropped rows (counts accumulate), ``note(text)`` a note,
    ``to_frame()`` the tidy ``field, value`` table.

    Parameters
    ----------
    source : str
        File name.
    format : str
        Format key (:data:`~hlv_core.io.FORMATS`).
    rows_read, rows_kept : int, default 0
        Rows in the file and rows kept.
    dropped : dict of str to int
        Rows dropped per reason.
    notes : list of str
        Everything else the loader changed or noticed (e.g. merged spellings).
    n_items, n_annotators : int, default 0
        Counts of the built dataset.
    labels : tuple of str
        The label inventory.
    annotators_per_item : dict of str to float
        ``min``, ``median``, ``max``.

    Examples
    --------
    >>> report = ImportReport("a.csv", "canonical", rows_read=5, rows_kept=4)
    >>> report.drop("empty label", 1)
    >>> report.to_frame().tail(1)
                      field value
    7  dropped: empty label     1
    """

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
    #: The load options the format did not read (also said in ``notes``).
    ignored_options: list[str] = field(default_factory=list)

    def drop(self, reason: str, count: int) -> None:
        """Record ``count`` rows dropped for ``reason`` (counts accumulate)."""
        if count:
            self.dropped[reason] = self.dropped.get(reason, 0) + int(count)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def ignore_options(self, names: list[str]) -> None:
        """Record load options this format does not read, in ``ignored_options`` and as one
        note (a generic caller may pass every option; none is dropped without a word)."""
        if names:
            self.ignored_options.extend(names)
            self.note(f"options {sorted(names)} do not apply to {self.format} and were "
                      "ignored.")

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
