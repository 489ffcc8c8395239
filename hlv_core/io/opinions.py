"""DeepMind "opinions" arrays for ranked labels (Stutz et al.; ``uncertain_ground_truth/formats.py``).

Layout: a JSON list of cases; each case a readers x classes matrix (list of equal-length rows) of
non-negative integer confidences. ``0`` = class not ranked by that reader; a higher value = ranked
higher; equal non-zero values = a tie. An all-zero row is an empty reader (skipped, as upstream's
``convert_rankings_to_selectors`` skips readers that ranked nothing).

Canonical rows, exactly as :func:`hlv_core.io.rankings.read_selectors` builds them: ``item_id`` =
case index, ``annotator_id = "<case>#r<j>"`` with ``j`` the 1-based position among the case's
non-empty readers (readers are not linked across cases), ``label`` = condition name, ``rank`` =
dense rank of the confidence within the reader's row (1 = the highest value, ties share a rank),
so block ``b`` of the equivalent selectors ranking has rank ``b + 1``.

Detection rule (:func:`ranked_json_layout`): the nesting depth of the first non-empty entry
decides. Opinions are case -> reader row -> int (depth 3), selectors are case -> reader ->
block -> int (depth 4); every case of an opinions file must be a list of equal-length rows of
ints. A file whose cases are all empty is ambiguous and reported as selectors. ``format=``
always overrides the detection.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._read import Source, read_json
from .dataset import Dataset
from .errors import DataError, ImportReport
from .rankings import ranking_dataset

__all__ = ["looks_like_opinions", "ranked_json_layout", "read_opinions"]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ranked_json_layout(data) -> str | None:
    """Which ranked JSON layout a parsed document is: ``"opinions"``, ``"selectors"`` or None.

    The nesting depth of the first non-empty entry decides (module notes).

    Parameters
    ----------
    data : object
        A parsed JSON document.

    Returns
    -------
    str or None
        The layout.

    References
    ----------
    .. [1] D. Stutz, A. T. Cemgil, A. G. Roy et al., "Evaluating AI systems under uncertain
       ground truth: a case study in dermatology" (partial rankings of the dermatology data).

    Examples
    --------
    >>> ranked_json_layout([[[[2], [0, 1]]]]), ranked_json_layout([[[1, 0, 2], [0, 1, 2]]])
    ('selectors', 'opinions')
    """
    if not isinstance(data, list) or not data or not all(isinstance(c, list) for c in data):
        return None
    probe = next((entry for case in data for entry in case), None)
    if probe is None:  # every case empty: both layouts allow it
        return "selectors"
    if not isinstance(probe, list):
        return None
    if probe and all(_is_int(v) for v in probe):
        return "opinions" if looks_like_opinions(data) else None
    if all(isinstance(b, list) and all(_is_int(c) for c in b) for b in probe):
        return "selectors"
    return None


def looks_like_opinions(data) -> bool:
    """Whether a parsed document is an opinions file.

    Parameters
    ----------
    data : object
        A parsed JSON document.

    Returns
    -------
    bool
        True when ``data`` is a list of cases, each a list of equal-length rows of ints.

    References
    ----------
    .. [1] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> looks_like_opinions([[[1, 0, 2], [0, 1, 2]]]), looks_like_opinions([[[1, 0], [0, 1, 2]]])
    (True, False)
    """
    if not isinstance(data, list) or not data:
        return False
    width = None
    for case in data:
        if not isinstance(case, list):
            return False
        for row in case:
            if not isinstance(row, list) or not row or not all(_is_int(v) for v in row):
                return False
            if width is None:
                width = len(row)
            elif len(row) != width:
                return False
    return width is not None


def read_opinions(
    source: Source,
    *,
    conditions: list[str] | None = None,
    risks: list[str] | None = None,
) -> Dataset:
    """Partial rankings with ties from opinions arrays (Stutz et al.'s readers x classes confidences).

    Each reader's row becomes ranks: 0 = not ranked, a higher value ranks higher, equal
    non-zero values tie (module notes).

    Parameters
    ----------
    source : Source
        The JSON file.
    conditions : list of str, optional
        Class names by column (default ``"0".."K-1"``, K = row length).
    risks : list of str, optional
        Risk category per class (stored in ``dataset.extra["risk"]``).

    Returns
    -------
    Dataset
        The validated dataset (see :func:`hlv_core.io.load`).

    Raises
    ------
    DataError
        Naming the file, record and fix for every problem.

    References
    ----------
    .. [1] D. Stutz, A. T. Cemgil, A. G. Roy et al., "Evaluating AI systems under uncertain
       ground truth: a case study in dermatology" (partial rankings of the dermatology data).

    Examples
    --------
    >>> import json
    >>> from hlv_core.io import as_source
    >>> data = [[[2, 0, 1], [1, 1, 0]]]  # one case, two readers, classes a, b, c
    >>> dataset = read_opinions(as_source(json.dumps(data).encode(), "opinions.json"),
    ...                         conditions=["a", "b", "c"])
    >>> dataset.annotations.to_numpy().tolist()
    [['0', '0#r1', 'a', 1], ['0', '0#r1', 'c', 2], ['0', '0#r2', 'a', 1], ['0', '0#r2', 'b', 1]]
    """
    data = read_json(source)
    _validate(data, source)
    width = next(len(row) for case in data for row in case)
    n_rows = [len(case) for case in data]
    matrix = (
        np.asarray([row for case in data for row in case], dtype=np.int64)
        if sum(n_rows)
        else np.zeros((0, width), dtype=np.int64)
    )
    case_of_row = np.repeat(np.arange(len(data)), n_rows)
    negative = np.argwhere(matrix < 0)
    if negative.size:
        r, k = negative[0]
        raise DataError(
            f"negative confidence {matrix[r, k]} for class {k}.",
            source=source.name,
            row=int(case_of_row[r]) + 1,
            column=f"reader {_reader_in_case(case_of_row, r) + 1}, class {k}",
            fix="confidences are integers >= 0 (0 = not ranked, higher = ranked higher).",
        )
    nonempty = (matrix > 0).any(axis=1)
    # 1-based position among the case's non-empty readers
    reader_no = pd.Series(nonempty.astype(np.int64)).groupby(case_of_row).cumsum().to_numpy()
    rows, cols = np.nonzero(matrix > 0)  # row-major: readers in file order, classes ascending
    values = matrix[rows, cols]
    rank = (
        pd.Series(values).groupby(rows).rank(method="dense", ascending=False).to_numpy(np.int64)
    )
    names = _names(conditions, width, source)
    case_arr = case_of_row[rows]
    annotations = pd.DataFrame(
        {
            "item_id": case_arr.astype(str),
            "annotator_id": case_arr.astype(str).astype(object)
            + "#r"
            + reader_no[rows].astype(str).astype(object),
            "label": np.asarray(names, dtype=object)[cols],
            "rank": rank,
        }
    )
    report = ImportReport(source.name, "opinions", rows_read=len(data))
    report.note(
        f"{len(data)} cases, {int(nonempty.sum())} readers' rankings, {width} classes; rank 1 = "
        "the reader's highest confidence, equal confidences are ties, 0 = not ranked."
    )
    report.drop("empty readers (all-zero rows)", int((~nonempty).sum()))
    has_ranking = np.zeros(len(data), dtype=bool)
    has_ranking[case_of_row[nonempty]] = True
    report.drop("cases without any ranking", int((~has_ranking).sum()))
    if not has_ranking.any():
        raise DataError(
            "no reader ranked any class (every confidence is 0).",
            source=source.name,
            fix="write positive confidences for the ranked classes.",
        )
    item_ids = np.flatnonzero(has_ranking).astype(str).tolist()
    return ranking_dataset(annotations, source=source, format_name="opinions", report=report,
                           item_ids=item_ids, names=names, risks=risks, n_cases=len(data))


def _reader_in_case(case_of_row: np.ndarray, r: int) -> int:
    return int(r - np.flatnonzero(case_of_row == case_of_row[r])[0])


def _validate(data, source: Source) -> None:
    """Structure check with the first offending case / reader named."""
    if not isinstance(data, list) or not data:
        raise DataError(
            "not an opinions file: expected a non-empty JSON list of cases.",
            source=source.name,
            fix="use the layout [[[5, 0, 3, 5], [1, 2, 0, 0]], ...] (case > reader row > "
            "confidence per class).",
        )
    width = None
    for c, case in enumerate(data):
        if not isinstance(case, list):
            raise DataError(
                f"case {c + 1} is a {type(case).__name__}, not a list of reader rows.",
                source=source.name,
                row=c + 1,
                fix="each case is a readers x classes matrix (a list of rows of integers).",
            )
        for r, row in enumerate(case):
            ok = isinstance(row, list) and row and all(_is_int(v) for v in row)
            if not ok:
                hint = (
                    " It looks like a selectors ranking (blocks of class ids); choose the "
                    "selectors format."
                    if isinstance(row, list) and row and all(isinstance(b, list) for b in row)
                    else ""
                )
                raise DataError(
                    f"reader {r + 1} is not a non-empty list of integer confidences.{hint}",
                    source=source.name,
                    row=c + 1,
                    column=f"reader {r + 1}",
                    fix="write one integer per class (0 = not ranked, higher = ranked higher).",
                )
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise DataError(
                    f"reader {r + 1} has {len(row)} confidences, earlier rows have {width}.",
                    source=source.name,
                    row=c + 1,
                    column=f"reader {r + 1}",
                    fix="every row needs one value per class (same number of classes "
                    "throughout the file).",
                )
    if width is None:
        raise DataError(
            "no case has any reader row.",
            source=source.name,
            fix="add readers' confidence rows to the cases.",
        )


def _names(conditions: list[str] | None, width: int, source: Source) -> list[str]:
    if conditions is None:
        return [str(i) for i in range(width)]
    if len(conditions) != width:
        raise DataError(
            f"the conditions list has {len(conditions)} names but the rows have {width} "
            "classes.",
            source=source.name,
            fix="pass the matching conditions file (one name per line, line i = column i).",
        )
    if len(set(conditions)) != len(conditions):
        raise DataError(
            "the conditions list has duplicate names.",
            source="conditions",
            fix="one distinct name per line.",
        )
    return list(conditions)
