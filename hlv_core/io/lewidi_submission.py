"""LeWiDi shared-task submission files as prediction inputs (the organisers' formats;
``docs/conventions.md``, LeWiDi scoring).

* 2023 (SemEval Task 11): ``<Dataset>_results.tsv``, no header, one line per test item in the
  order of the dataset's test split (``items.split == "test"``, dataset item order; all items
  when the dataset has no split column): ``hard_label<TAB>p0<TAB>p1`` (probabilities of the
  labels ``0`` and ``1``).
* 2025 (3rd edition): ``<ds>_test_soft.tsv`` lines ``<item id><TAB><list>`` with the list the
  probabilities in label-inventory order (VariErrNLI: one ``[p0, p1]`` pair per label; the
  label's probability is ``p1``), and ``<ds>_test_pe.tsv`` lines ``<item id><TAB><list>`` with
  one predicted label per annotator of the item, in the order the item's annotators appear in
  the dataset annotations. Multi-label (VariErrNLI) Task B uses the official **per-label**
  layout (the organisers' scorer): one 0/1 vector over the item's annotators per label, labels in
  inventory order, ``[[c_a1..c_an], [e_a1..e_an], [n_a1..n_an]]``; a per-annotator 0/1 layout is
  refused with that explanation (never transposed). Lists of label names per annotator
  (``[["neutral"], ["entailment", "neutral"]]``) stay accepted: strings are unambiguous.

:func:`parse_submission_lines` (the line parser) is shared with the scorer
:mod:`hlv_core.lewidi`.

Lists are JSON or Python literals. The result is the canonical long predictions table of
:func:`hlv_core.io.load_predictions`: ``model, item_id, label, prob`` (+ ``annotator_id`` with
``prob = 1.0`` for the perspectivist ``pe`` files).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath
from typing import IO

import numpy as np
import pandas as pd

from ._read import Source, as_source, decode_text, parse_json
from .dataset import Dataset
from .errors import DataError, ImportReport
from .spelling import normalise_spelling, respell_unique

__all__ = ["load_lewidi_submission", "parse_submission_lines", "sniff_lewidi_submission"]

SUM_TOLERANCE = 1e-6
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_LINE_2023 = re.compile(rf"^\s*{_NUMBER}\t{_NUMBER}\t{_NUMBER}\s*$")
_LINE_2025 = re.compile(r"^[^\t\[\]]+\t\s*\[.*\]\s*$")


def sniff_lewidi_submission(first_line: str) -> str | None:
    r"""The edition of a headerless LeWiDi submission file, from its first line.

    Parameters
    ----------
    first_line : str
        The file's first line.

    Returns
    -------
    str or None
        ``"2023"`` (three tab-separated numbers ``hard_label<TAB>p0<TAB>p1``), ``"2025"``
        (``<item id><TAB>[...]``) or None (not a submission line).

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> sniff_lewidi_submission("1\t0.3\t0.7"), sniff_lewidi_submission("i1\t[0.3, 0.7]")
    ('2023', '2025')
    >>> sniff_lewidi_submission("item_id,label") is None
    True
    """
    if _LINE_2023.match(first_line):
        return "2023"
    if _LINE_2025.match(first_line):
        return "2025"
    return None


def load_lewidi_submission(
    raw_or_path: str | Path | bytes | IO[bytes],
    dataset: Dataset,
    *,
    name: str | None = None,
    edition: str = "auto",
    kind: str | None = None,
    model: str | None = None,
    tolerance: float = SUM_TOLERANCE,
    report: ImportReport | None = None,
) -> pd.DataFrame:
    r"""Read a LeWiDi 2023 or 2025 submission TSV as predictions for ``dataset``.

    Parameters
    ----------
    raw_or_path : path, bytes or binary file-like
        The submission file.
    dataset : Dataset
        The annotations the predictions refer to (ids, labels, test split, annotator order).
    name : str, optional
        File name used in messages and to guess ``kind`` (``*_soft.tsv`` / ``*_pe.tsv``).
    edition : {"auto", "2023", "2025"}
        ``"auto"`` reads it from the first line (three tab-separated numbers = 2023,
        ``id<TAB>[...]`` = 2025).
    kind : {"soft", "pe"} or None
        2025 only. None: from the file name, else ``"pe"`` when every list entry is an integer
        or a string and ``"soft"`` when any entry is a float.
    model : str, optional
        Model name of the rows (default: the file name without extension).
    tolerance : float
        Allowed deviation from 1 of a multiclass probability row (and of a ``[p0, p1]`` pair).
    report : ImportReport, optional
        Gets a note when item ids were respelled (look-alike spellings made one, as the
        dataset loader does).

    Returns
    -------
    pandas.DataFrame
        ``model, item_id, label, prob`` (+ ``annotator_id`` for ``pe``).

    Raises
    ------
    DataError
        Naming the file, the line and the fix: wrong line count (2023), unknown or repeated
        items, lists of the wrong length, unknown labels, probabilities outside [0, 1] or not
        summing to 1 for single-label data.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of
       the Learning with Disagreements shared task" (submission format); E. Leonardelli et al.
       (2023), "SemEval-2023 Task 11: Learning with Disagreements (LeWiDi)" (results files).

    Examples
    --------
    A Task A (soft) MP line per item, labels 0 and 1:

    >>> from hlv_core.io import load
    >>> dataset = load(b"item_id,annotator_id,label\ni1,a,0\ni1,b,1\ni2,a,1\n", name="mp.csv")
    >>> load_lewidi_submission(b"i1\t[0.3, 0.7]\ni2\t[0.1, 0.9]\n", dataset,
    ...                        name="mp_test_soft.tsv")
              model item_id label  prob
    0  mp_test_soft      i1     0   0.3
    1  mp_test_soft      i1     1   0.7
    2  mp_test_soft      i2     0   0.1
    3  mp_test_soft      i2     1   0.9
    """
    source = as_source(raw_or_path, name)
    if edition not in ("auto", "2023", "2025"):
        raise DataError(
            f"unknown LeWiDi edition {edition!r}.", source=source.name,
            fix="use 'auto', '2023' or '2025'.",
        )
    if kind not in (None, "soft", "pe"):
        raise DataError(
            f"unknown submission kind {kind!r}.", source=source.name,
            fix="use 'soft', 'pe' or None (guess from the file name).",
        )
    lines = decode_text(source).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            raise DataError(
                "empty line inside the submission.", source=source.name, row=number,
                fix="remove empty lines (one line per item).",
            )
    if edition == "auto":
        edition = sniff_lewidi_submission(lines[0]) or ""
        if not edition:
            raise DataError(
                f"not a LeWiDi submission line: {lines[0][:80]!r}.",
                source=source.name,
                row=1,
                fix="2023 lines are 'hard_label<TAB>p0<TAB>p1', 2025 lines are "
                "'<item id><TAB>[...]' (no header row).",
            )
    model_name = model or PurePosixPath(Path(source.name).name).stem
    if dataset.task == "ranking":
        raise DataError(
            "LeWiDi submissions hold label probabilities or annotator labels, not rankings.",
            source=source.name,
            fix="load ranked predictions with load_predictions (item_id, label, rank).",
        )
    if edition == "2023":
        if kind == "pe":
            raise DataError(
                "LeWiDi 2023 had no perspectivist (pe) submissions.", source=source.name,
                fix="use kind='soft' or None for a *_results.tsv file.",
            )
        frame = _read_2023(lines, dataset, source, tolerance)
    else:
        frame = _read_2025(lines, dataset, source, kind, tolerance, report)
    frame.insert(0, "model", model_name)
    return frame.reset_index(drop=True)


# ---------------------------------------------------------------------------------------- 2023
def _read_2023(lines: list[str], dataset: Dataset, source: Source, tolerance: float):
    if set(dataset.labels) != {"0", "1"}:
        raise DataError(
            f"a LeWiDi 2023 results file gives probabilities of the labels 0 and 1, but the "
            f"dataset's labels are {list(dataset.labels)}.",
            source=source.name,
            fix="load the binary view of the dataset (labels 0/1), e.g. the LeWiDi 2023 JSON.",
        )
    items = dataset.items
    if "split" in items.columns and (items["split"] == "test").any():
        test_ids = items.loc[items["split"] == "test", "item_id"].astype(str).to_numpy()
        where = "test split items"
    else:
        test_ids = items["item_id"].astype(str).to_numpy()
        where = "items (the dataset has no test split, so all items in order)"
    if len(lines) != len(test_ids):
        raise DataError(
            f"the file has {len(lines)} lines but the dataset has {len(test_ids)} {where}.",
            source=source.name,
            row=min(len(lines), len(test_ids)) + 1,
            fix="write exactly one line per test item, in the order of the test file, and "
            "load the matching dataset (with its test split).",
        )
    values = np.empty((len(lines), 2))
    for number, line in enumerate(lines, 1):
        fields = line.strip().split("\t")
        if len(fields) != 3:
            raise DataError(
                f"expected 3 tab-separated fields (hard_label, p0, p1), found {len(fields)}.",
                source=source.name,
                row=number,
                fix="write 'hard_label<TAB>p0<TAB>p1' on every line.",
            )
        if _match_scalar(fields[0], ("0", "1")) is None:
            raise DataError(
                f"hard label {fields[0]!r} is not 0 or 1.",
                source=source.name,
                row=number,
                column="hard_label",
                fix="the first field is the predicted hard label, 0 or 1.",
            )
        for j, text in enumerate(fields[1:]):
            values[number - 1, j] = _probability(text, source, number, f"p{j}")
    _check_sums(values.sum(axis=1), test_ids, source, tolerance, rows=np.arange(len(lines)) + 1)
    return pd.DataFrame(
        {
            "item_id": np.repeat(test_ids, 2),
            "label": np.tile(np.array(["0", "1"], dtype=object), len(test_ids)),
            "prob": values.ravel(),
        }
    )


# ---------------------------------------------------------------------------------------- 2025
def parse_submission_lines(
    lines: list[str], source: Source, known: set[str] | None = None,
    notes: list[str] | None = None,
) -> list[tuple[int, str, list]]:
    r"""Parse the ``<item id><TAB><list>`` lines of a LeWiDi 2025 submission.

    Lists are read as JSON or Python literals. Item ids take their one spelling
    (:func:`hlv_core.io.spelling.normalise_spelling`: NFC, invisible format characters removed,
    whitespace runs one space), as the dataset loader and the gold reader do, so an id that
    differs from the gold only in such spelling is the same item.

    Parameters
    ----------
    lines : list of str
        The file's lines (no header).
    source : Source
        The file (its name is used in messages).
    known : set of str, optional
        Valid item ids.
    notes : list of str, optional
        Receives the import-report line naming what was respelled.

    Returns
    -------
    list of (int, str, list)
        ``(line number, item id, parsed list)`` per line.

    Raises
    ------
    DataError
        (file, line, fix) for a line without a tab or a list, a list that does not parse, an
        item id not in ``known`` (when given), a repeated item id and two spellings of one
        item id.

    References
    ----------
    .. [1] E. Leonardelli et al. (2025), "LeWiDi-2025 at NLPerspectives: the third edition of the
       Learning with Disagreements shared task", evaluation notebook
       ``Evaluation_LeWiDi_2025_Metrics.ipynb`` (the organisers' scoring code).

    Examples
    --------
    >>> from hlv_core.io import Source
    >>> parse_submission_lines(["i1\t[0.3, 0.7]", "i2\t[1, 0]"], Source(b"", "mp_test_soft.tsv"))
    [(1, 'i1', [0.3, 0.7]), (2, 'i2', [1, 0])]
    """
    heads: list[tuple[int, str, str]] = []
    for number, line in enumerate(lines, 1):
        item, sep, rest = line.partition("\t")
        if not sep or not rest.strip():
            raise DataError(
                "expected '<item id><TAB><list>'.",
                source=source.name,
                row=number,
                fix="write the item id, a tab, then a JSON list (no header row).",
            )
        heads.append((number, item.strip(), rest))
    raw_ids = [item for _, item, _ in heads]
    numbers = [number for number, _, _ in heads]
    seen: dict[str, int] = {}
    for number, item in zip(numbers, raw_ids, strict=True):
        if item in seen:
            raise DataError(
                f"item {item!r} appears twice (first on line {seen[item]}).",
                source=source.name,
                row=number,
                column="item id",
                fix="keep one line per item.",
            )
        seen[item] = number
    ids, note = respell_unique(raw_ids, what="item id", source=source.name, rows=numbers,
                               column="item id")
    if note is not None and notes is not None:
        notes.append(note)
    parsed: list[tuple[int, str, list]] = []
    for (number, _, rest), item in zip(heads, ids, strict=True):
        if known is not None and item not in known:
            raise DataError(
                f"item {item!r} is not in the dataset.",
                source=source.name,
                row=number,
                column="item id",
                fix="predict only items of the loaded dataset (load the matching test file).",
            )
        parsed.append((number, item, _parse_list(rest, source, number)))
    return parsed


def _read_2025(lines, dataset: Dataset, source: Source, kind: str | None, tolerance: float,
               report: ImportReport | None = None):
    notes: list[str] = []
    parsed = parse_submission_lines(lines, source, set(map(str, dataset.item_ids)), notes)
    for note in notes:
        if report is not None:
            report.note(note)
    if kind is None:
        kind = _guess_kind(source.name, parsed)
    if kind == "soft":
        return _soft_2025(parsed, dataset, source, tolerance)
    return _pe_2025(parsed, dataset, source)


def _guess_kind(file_name: str, parsed) -> str:
    stem = PurePosixPath(Path(file_name).name).stem.lower()
    if stem.endswith("_soft") or "_soft_" in stem:
        return "soft"
    if stem.endswith("_pe") or "_pe_" in stem:
        return "pe"

    def leaves(value):
        if isinstance(value, list):
            for v in value:
                yield from leaves(v)
        else:
            yield value

    has_float = any(isinstance(v, float) for _, _, values in parsed for v in leaves(values))
    return "soft" if has_float else "pe"


def _soft_2025(parsed, dataset: Dataset, source: Source, tolerance: float) -> pd.DataFrame:
    k = dataset.n_labels
    multilabel = dataset.task == "multilabel"
    probs = np.empty((len(parsed), k))
    for r, (number, item, values) in enumerate(parsed):
        if len(values) != k:
            raise DataError(
                f"item {item!r}: {len(values)} probabilities for {k} labels.",
                source=source.name,
                row=number,
                fix=f"write one probability per label in the order {list(dataset.labels)}"
                + (" (a [p0, p1] pair per label)" if multilabel else "")
                + ". For a per-annotator file pass kind='pe'.",
            )
        for j, value in enumerate(values):
            column = f"label {dataset.labels[j]!r}"
            if multilabel and isinstance(value, list):
                if len(value) != 2:
                    raise DataError(
                        f"item {item!r}: {column} has {len(value)} values, expected [p0, p1].",
                        source=source.name, row=number, column=column,
                        fix="write each label's binary distribution as [p(absent), p(present)].",
                    )
                pair = [_probability(v, source, number, column) for v in value]
                if abs(sum(pair) - 1.0) > tolerance:
                    raise DataError(
                        f"item {item!r}: {column} pair {value} sums to {sum(pair):.6g}, not 1.",
                        source=source.name, row=number, column=column,
                        fix="each [p0, p1] pair is a binary distribution; normalise it.",
                    )
                probs[r, j] = pair[1]
            else:
                probs[r, j] = _probability(value, source, number, column)
    items = np.array([item for _, item, _ in parsed], dtype=object)
    if not multilabel:
        _check_sums(probs.sum(axis=1), items, source, tolerance,
                    rows=np.array([n for n, _, _ in parsed]))
    return pd.DataFrame(
        {
            "item_id": np.repeat(items, k),
            "label": np.tile(np.array(dataset.labels, dtype=object), len(items)),
            "prob": probs.ravel(),
        }
    )


def _pe_2025(parsed, dataset: Dataset, source: Source) -> pd.DataFrame:
    ann = dataset.annotations
    order = ann.drop_duplicates(["item_id", "annotator_id"])  # first appearance per item
    annotators_of = order.groupby("item_id", sort=False)["annotator_id"].agg(list).to_dict()
    labels = tuple(dataset.labels)
    multilabel = dataset.task == "multilabel"
    out_items, out_annotators, out_labels = [], [], []
    for number, item, values in parsed:
        annotators = annotators_of.get(item, [])
        if multilabel and _is_per_label_layout(values, labels):
            chosen_of = _per_label_choices(values, labels, annotators, item, source, number)
            for annotator, chosen in zip(annotators, chosen_of, strict=True):
                out_items += [item] * len(chosen)
                out_annotators += [annotator] * len(chosen)
                out_labels += chosen
            continue
        if len(values) != len(annotators):
            raise DataError(
                f"item {item!r}: {len(values)} predictions for {len(annotators)} annotators.",
                source=source.name,
                row=number,
                fix="write one label per annotator of the item, in the order of the dataset "
                "annotations. For a probability file pass kind='soft'.",
            )
        for a, (annotator, value) in enumerate(zip(annotators, values, strict=True)):
            column = f"annotator {a + 1} ({annotator})"
            if multilabel:
                chosen = _multilabel_choice(value, labels, source, number, column, item,
                                            len(annotators))
            else:
                match = _match_scalar(value, labels)
                if match is None:
                    raise DataError(
                        f"item {item!r}: {value!r} is not a label of the dataset {list(labels)}.",
                        source=source.name, row=number, column=column,
                        fix="write one dataset label per annotator.",
                    )
                chosen = [match]
            out_items += [item] * len(chosen)
            out_annotators += [annotator] * len(chosen)
            out_labels += chosen
    return pd.DataFrame(
        {
            "item_id": np.asarray(out_items, dtype=object),
            "label": np.asarray(out_labels, dtype=object),
            "prob": np.ones(len(out_items)),
            "annotator_id": np.asarray(out_annotators, dtype=object),
        }
    )


# ------------------------------------------------------------------------------------- helpers
def _parse_list(text: str, source: Source, number: int) -> list:
    text = text.strip()
    try:
        value = parse_json(text, source.name, line=number)
    except DataError as error:
        if not getattr(error, "syntax", False) or len(text) > 1_000_000:
            raise
        try:  # a Python list repr ['a', 'b'] / (1, 2)
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
            value = None
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list):
        raise DataError(
            f"{text[:60]!r} is not a list.",
            source=source.name,
            row=number,
            fix="write a JSON list after the tab, e.g. [0.25, 0.75].",
        )
    return [list(v) if isinstance(v, tuple) else v for v in value]


def _probability(value, source: Source, number: int, column: str) -> float:
    try:
        prob = float(value) if not isinstance(value, (bool, list, dict)) else float("nan")
    except (TypeError, ValueError):
        prob = float("nan")
    if not (0.0 <= prob <= 1.0):
        raise DataError(
            f"probability {value!r} is not a number in [0, 1].",
            source=source.name,
            row=number,
            column=column,
            fix="write probabilities between 0 and 1 (no NaN).",
        )
    return prob


def _check_sums(sums: np.ndarray, items, source: Source, tolerance: float, rows) -> None:
    off = np.abs(sums - 1.0) > tolerance
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise DataError(
            f"probabilities of item {items[i]!r} sum to {sums[i]:.6g}, not 1 "
            f"({int(off.sum())} line(s) affected); single-label predictions are distributions.",
            source=source.name,
            row=int(rows[i]),
            fix="normalise each line's probabilities to sum to 1.",
        )


def _match_scalar(value, labels) -> str | None:
    """Dataset label for a list entry: the same string, or the same number (1 == "1.0")."""
    if isinstance(value, (bool, list, dict)) or value is None:
        return None
    text = normalise_spelling(str(value))
    if text in labels:
        return text
    try:
        number = float(text)
    except ValueError:
        return None
    for label in labels:
        try:
            if float(label) == number:
                return label
        except ValueError:
            continue
    return None


def _is_binary_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v in (0, 1)


def _is_per_label_layout(values: list, labels) -> bool:
    """The official VariErrNLI Task B layout: one numeric vector per label."""
    return len(values) == len(labels) and all(
        isinstance(v, list) and all(_is_binary_number(x) for x in v) for v in values
    )


def _per_label_choices(values, labels, annotators, item, source: Source, number: int):
    """Per-label 0/1 vectors over the annotators -> the labels each annotator chose."""
    lengths = {len(v) for v in values}
    if lengths != {len(annotators)}:
        raise DataError(
            f"item {item!r}: per-label vectors of length {sorted(lengths)} for "
            f"{len(annotators)} annotators.",
            source=source.name, row=number,
            fix="write one 0/1 vector per label (in the order "
            f"{list(labels)}) with one entry per annotator of the item (each annotator once, "
            "even when the 'annotators' string repeats an id).",
        )
    matrix = np.asarray(values, dtype=float)  # (labels, annotators)
    return [[lab for lab, v in zip(labels, column, strict=True) if v == 1] for column in matrix.T]


def _multilabel_choice(value, labels, source: Source, number: int, column: str, item: str = "",
                       n_annotators: int = 0) -> list[str]:
    """A multi-label annotator prediction given by label names (one or a list)."""
    items = value if isinstance(value, list) else [value]
    if items and all(_is_binary_number(v) for v in items):
        raise DataError(
            f"item {item!r}: a 0/1 vector per annotator ({column}), but the official VariErrNLI "
            f"Task B layout is per label: {len(labels)} vectors (one per label "
            f"{list(labels)}), each with one 0/1 entry per annotator ({n_annotators} here).",
            source=source.name, row=number, column=column,
            fix="transpose each line to [[c_a1..c_an], [e_a1..e_an], [n_a1..n_an]] (the "
            "organisers' layout), or write label names per annotator.",
        )
    chosen = []
    for v in items:
        match = _match_scalar(v, labels)
        if match is None:
            raise DataError(
                f"{v!r} is not a label of the dataset {list(labels)}.",
                source=source.name, row=number, column=column,
                fix="write the annotator's labels as a list of label names, or the whole line "
                "in the official per-label 0/1 layout.",
            )
        chosen.append(match)
    return chosen
