"""DeepMind "selectors" partial rankings (Stutz et al.; ``uncertain_ground_truth/formats.py``).

Layout: a JSON list of cases; each case a list of readers' partial rankings; each ranking a list
of blocks in rank order; each block a list of tied class ids. Classes not mentioned are unranked.
Canonical rows: ``item_id = case index``, ``annotator_id = "<case>#r<j>"`` (readers are not linked
across cases), ``label`` = condition name, ``rank`` = block position (1-based).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._read import Source, decode_text, read_json
from .dataset import Dataset, build_dataset
from .errors import DataError, ImportReport

__all__ = ["looks_like_selectors", "ranking_dataset", "read_lines", "read_selectors"]


def looks_like_selectors(data) -> bool:
    """Whether a parsed document is a selectors file (cases -> readers -> blocks -> ints).

    Parameters
    ----------
    data : object
        A parsed JSON document.

    Returns
    -------
    bool
        True for the selectors layout (the first five cases are checked).

    References
    ----------
    .. [1] D. Stutz, A. T. Cemgil, A. G. Roy et al., "Evaluating AI systems under uncertain
       ground truth: a case study in dermatology" (partial rankings of the dermatology data).

    Examples
    --------
    >>> looks_like_selectors([[[[2], [0, 1]], [[1]]]]), looks_like_selectors([[1, 2]])
    (True, False)
    """
    if not isinstance(data, list) or not data:
        return False
    for case in data[:5]:
        if not isinstance(case, list):
            return False
        for reader in case:
            if not isinstance(reader, list):
                return False
            for block in reader:
                if not isinstance(block, list) or not all(isinstance(c, int) for c in block):
                    return False
    return True


def read_lines(source: Source) -> list[str]:
    r"""One entry per non-empty line of a text file (condition names, risk categories).

    Parameters
    ----------
    source : Source
        The text file.

    Returns
    -------
    list of str
        Stripped non-empty lines.

    Raises
    ------
    DataError
        Not UTF-8 or empty.

    References
    ----------
    .. [1] D. Stutz et al., "Evaluating AI systems under uncertain ground truth: a case study in
       dermatology", section 3.1 (differential diagnoses as partial rankings).

    Examples
    --------
    >>> from hlv_core.io import as_source
    >>> read_lines(as_source(b"flu\n\n cold \n", "conditions.txt"))
    ['flu', 'cold']
    """
    return [line.strip() for line in decode_text(source).splitlines() if line.strip()]


def read_selectors(
    source: Source,
    *,
    conditions: list[str] | None = None,
    risks: list[str] | None = None,
) -> Dataset:
    """Partial rankings with ties from a selectors file (Stutz et al.'s dermatology layout).

    Case -> reader -> blocks of class ids, best block first; every class of block ``b`` gets
    rank ``b + 1``; readers are anonymous per case (``<case>#r<j>``).

    Parameters
    ----------
    source : Source
        The JSON file.
    conditions : list of str, optional
        Class names by id (default ``"0".."K-1"``).
    risks : list of str, optional
        Risk category per class id (stored in ``dataset.extra["risk"]``).

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
    >>> data = [[[[2], [0, 1]], [[1]]]]  # reader 1: covid > flu = cold; reader 2: cold
    >>> dataset = read_selectors(as_source(json.dumps(data).encode(), "selectors.json"),
    ...                          conditions=["flu", "cold", "covid"])
    >>> dataset.task, dataset.annotations.to_numpy().tolist()
    ('ranking', [['0', '0#r1', 'covid', 1], ['0', '0#r1', 'flu', 2], ['0', '0#r1', 'cold', 2], ['0', '0#r2', 'cold', 1]])
    """
    data = read_json(source)
    if not looks_like_selectors(data):
        raise DataError(
            "not a selectors file: expected a list of cases, each a list of readers' rankings, "
            "each a list of blocks of integer class ids.",
            source=source.name,
            fix='use the layout [[[[342], [120, 83]], ...], ...] (case > reader > block > id).',
        )
    case_idx, reader_idx, rank, cls = [], [], [], []
    for c, case in enumerate(data):
        for r, reader in enumerate(case):
            seen: set[int] = set()
            for b, block in enumerate(reader):
                for class_id in block:
                    if class_id < 0:
                        raise DataError(
                            f"negative class id {class_id}.",
                            source=source.name,
                            row=c + 1,
                            column=f"reader {r + 1}, block {b + 1}",
                            fix="class ids are 0-based indices into the condition list.",
                        )
                    if class_id in seen:
                        raise DataError(
                            f"class id {class_id} appears twice in one reader's ranking.",
                            source=source.name,
                            row=c + 1,
                            column=f"reader {r + 1}",
                            fix="list each class once per ranking.",
                        )
                    seen.add(class_id)
                    case_idx.append(c)
                    reader_idx.append(r)
                    rank.append(b + 1)
                    cls.append(class_id)
    cls_arr = np.asarray(cls, dtype=np.int64)
    n_classes = int(cls_arr.max()) + 1 if cls_arr.size else 0
    if conditions is not None:
        if n_classes > len(conditions):
            raise DataError(
                f"class id {n_classes - 1} has no name: the conditions list has only "
                f"{len(conditions)} entries.",
                source=source.name,
                fix="pass the matching conditions file (one name per line, line i = class i).",
            )
        names = list(conditions)
        if len(set(names)) != len(names):
            raise DataError(
                "the conditions list has duplicate names.",
                source="conditions",
                fix="one distinct name per line.",
            )
    else:
        names = [str(i) for i in range(n_classes)]
    case_arr = np.asarray(case_idx)
    annotations = pd.DataFrame(
        {
            "item_id": case_arr.astype(str),
            "annotator_id": pd.Series(case_arr.astype(str)).to_numpy()
            + "#r"
            + (np.asarray(reader_idx) + 1).astype(str),
            "label": np.asarray(names, dtype=object)[cls_arr],
            "rank": np.asarray(rank, dtype=np.int64),
        }
    )
    report = ImportReport(source.name, "selectors", rows_read=len(data))
    report.note(
        f"{len(data)} cases, {sum(len(c) for c in data)} readers' rankings, "
        f"{len(names)} classes; rank = block position, equal ranks are ties."
    )
    empty_cases = [i for i, case in enumerate(data) if not case]
    if empty_cases:
        report.drop("cases without any ranking", len(empty_cases))
    item_ids = [str(i) for i in range(len(data)) if data[i]]
    return ranking_dataset(annotations, source=source, format_name="selectors", report=report,
                           item_ids=item_ids, names=names, risks=risks, n_cases=len(data))


def ranking_dataset(
    annotations: pd.DataFrame,
    *,
    source: Source,
    format_name: str,
    report: ImportReport,
    item_ids: list[str],
    names: list[str],
    risks: list[str] | None,
    n_cases: int,
) -> Dataset:
    """Assemble a ranking :class:`Dataset` from canonical rows (shared by the selectors and
    opinions readers): readers are anonymous per case; ``risks`` (one per class) go to
    ``dataset.extra["risk"]``.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Canonical rows ``item_id, annotator_id, label, rank``.
    source : Source
        The file (for messages).
    format_name : str
        ``"selectors"`` or ``"opinions"``.
    report : ImportReport
        The reader's report.
    item_ids : list of str
        Every case id (cases without rankings included).
    names : list of str
        Class names (the label inventory, in order).
    risks : list of str or None
        One risk category per class.
    n_cases : int
        Cases in the file.

    Returns
    -------
    Dataset
        Task ``ranking``, ``annotator_ids_known=False``.

    Raises
    ------
    DataError
        ``risks`` not one per class, or invalid rows.

    References
    ----------
    .. [1] D. Stutz et al., "Evaluating AI systems under uncertain ground truth: a case study in
       dermatology", section 3.1 (differential diagnoses as partial rankings).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import ImportReport, as_source
    >>> rows = pd.DataFrame({"item_id": ["0", "0", "0"], "annotator_id": ["0#r1", "0#r1", "0#r2"],
    ...                      "label": ["covid", "flu", "flu"], "rank": [1, 2, 1]})
    >>> dataset = ranking_dataset(rows, source=as_source(b"[]", "x.json"), format_name="selectors",
    ...                           report=ImportReport("x.json", "selectors"), item_ids=["0"],
    ...                           names=["flu", "cold", "covid"], risks=["low", "low", "high"],
    ...                           n_cases=1)
    >>> dataset.task, dataset.labels, dataset.extra["risk"]["covid"]
    ('ranking', ('flu', 'cold', 'covid'), 'high')
    """
    extra: dict = {"n_cases_in_file": n_cases}
    if risks is not None:
        if len(risks) != len(names):
            raise DataError(
                f"{len(risks)} risk categories for {len(names)} conditions.",
                source="risks",
                fix="one risk category per condition line.",
            )
        extra["risk"] = dict(zip(names, risks, strict=True))
    return build_dataset(
        annotations,
        source=source.name,
        format=format_name,
        report=report,
        items=pd.DataFrame({"item_id": item_ids}),
        labels=names,
        task="ranking",
        level="nominal",
        annotator_ids_known=False,
        name=format_name,
        extra=extra,
    )
