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
    """True when ``data`` is a list of cases -> readers -> blocks -> ints."""
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
    """One entry per non-empty line (condition names, risk categories)."""
    return [line.strip() for line in decode_text(source).splitlines() if line.strip()]


def read_selectors(
    source: Source,
    *,
    conditions: list[str] | None = None,
    risks: list[str] | None = None,
) -> Dataset:
    """Partial rankings with ties. ``conditions``: class names by id (default ``"0".."K-1"``);
    ``risks``: risk category per class id (stored in ``dataset.extra["risk"]``)."""
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
    ``dataset.extra["risk"]``."""
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
