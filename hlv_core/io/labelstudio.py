"""Label Studio JSON exports (choices, span / box labels, ratings; optional model predictions) into
a :class:`~hlv_core.io.Dataset` (conventions of every JSON reader: :mod:`hlv_core.io._json`).
"""

from __future__ import annotations

import dataclasses
import json

import pandas as pd

from ._json import (
    is_scalar,
    items_frame,
    label_text,
    source_name,
)
from ._read import Source, read_json
from .dataset import Dataset, build_dataset, echo, order_labels
from .errors import DataError, ImportReport

__all__ = ["read_labelstudio"]


# --------------------------------------------------------------------------- Label Studio
def _check_task_shape(raw: dict, number: int, name: str) -> None:
    """The parts of one exported task the reader walks have the export's types: ``annotations``
    / ``completions`` / ``predictions`` lists of objects, each ``result`` a list of objects, and
    ``value.choices`` / ``value.<x>labels`` lists. Anything else is refused naming the task
    (a string of choices would otherwise be read letter by letter, an entry of another type
    skipped without a word)."""

    def refuse(column: str, found) -> None:
        raise DataError(
            f"task {number}: {column} is {type(found).__name__} {echo(found, 40)}, not the "
            "Label Studio export's type.",
            source=name,
            row=number,
            column=column,
            fix="export the project from Label Studio as 'JSON' (not edited by hand).",
        )

    for block in ("annotations", "completions", "predictions"):
        entries = raw.get(block)
        if entries is None:
            continue
        if not isinstance(entries, list):
            refuse(block, entries)
        for entry in entries:
            if not isinstance(entry, dict):
                refuse(block, entry)
            results = entry.get("result")
            if results is None:
                continue
            if not isinstance(results, list):
                refuse("result", results)
            for result in results:
                if not isinstance(result, dict):
                    refuse("result", result)
                value = result.get("value")
                if not isinstance(value, dict):
                    continue
                for key, listed in value.items():
                    if (key == "choices" or key.endswith("labels")) and not isinstance(
                            listed, list):
                        refuse(f"value.{key}", listed)


def _ls_values(result: dict) -> tuple[str | None, list[str]]:
    """(kind, labels) of one Label Studio result: choices, *labels (spans/boxes) or rating."""
    value = result.get("value")
    if not isinstance(value, dict):
        return None, []
    if "choices" in value:
        return "choices", [label_text(v) for v in value["choices"]]
    if "rating" in value:
        return "rating", [label_text(value["rating"])]
    for key, labels in value.items():
        if key.endswith("labels") and isinstance(labels, list):
            return "labels", [label_text(v) for v in labels]
    return None, []


def _ls_annotator(completed_by) -> str | None:
    if isinstance(completed_by, dict):
        for key in ("id", "email", "username"):
            if completed_by.get(key) not in (None, ""):
                return str(completed_by[key])
        return None
    if completed_by in (None, ""):
        return None
    return str(completed_by)


def read_labelstudio(
    source: Source,
    *,
    task: str | None = None,
    level: str | None = None,
    control: str | None = None,
) -> Dataset:
    """Label Studio JSON export: a list of tasks ``{id, data{...}, annotations[{completed_by,
    was_cancelled, result[{from_name, type, value{choices|labels|rating}}]}], predictions[
    {model_version, score, result}]}``.

    One row per chosen option (``choices``), per distinct span/box label (``*labels``; the set of
    labels an annotator used on the task) or per rating. When the export has several control
    tags (``from_name``), ``control=`` picks one; otherwise a :class:`DataError` lists them.
    Cancelled annotations, annotations without a result for the control, and earlier
    annotations superseded by a later one of the same annotator on the same task are dropped
    and reported. ``data`` fields become items columns (``text`` kept; without one, the first
    text field is used). ``predictions`` become ``dataset.predictions`` with ``model =
    model_version`` (``"labelstudio"`` when absent); a predicted choice gets probability 1
    (split evenly when a multiclass prediction lists several), the model's overall ``score`` is
    kept in ``extra["prediction_scores"]``.

    Parameters
    ----------
    source : Source
        The Label Studio JSON export.
    task, level : str, optional
        Override the inferred task and level of measurement.
    control : str, optional
        The control tag (``from_name``) to read when the export has several.

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
    .. [1] Label Studio documentation, "Export annotations and data" (the JSON export format).
    .. [2] T. Bray (ed.) (2017), "The JavaScript Object Notation (JSON) Data Interchange Format",
       RFC 8259, IETF.

    Examples
    --------
    >>> import json
    >>> from hlv_core.io import as_source
    >>> def answer(who, choice):
    ...     return {"completed_by": who, "result": [{"from_name": "sentiment", "type": "choices",
    ...                                             "value": {"choices": [choice]}}]}
    >>> export = [{"id": 1, "data": {"text": "great"},
    ...            "annotations": [answer(1, "pos"), answer(2, "neg")]}]
    >>> dataset = read_labelstudio(as_source(json.dumps(export).encode(), "export.json"))
    >>> dataset.annotations.to_numpy().tolist(), dataset.items["text"].tolist()
    ([['1', '1', 'pos'], ['1', '2', 'neg']], ['great'])
    """
    data = read_json(source)
    if not isinstance(data, list) or not data:
        raise DataError(
            "not a Label Studio export: expected a JSON list of tasks.",
            source=source.name,
            fix="export the project from Label Studio as 'JSON' (not JSON-MIN or CSV).",
        )
    report = ImportReport(source.name, "labelstudio", rows_read=len(data))
    controls: dict[str, str] = {}
    tasks: list[tuple[int, str, dict]] = []
    seen_ids: dict[str, int] = {}
    for number, raw in enumerate(data, 1):
        if not isinstance(raw, dict) or "data" not in raw:
            raise DataError(
                "task is not an object with a 'data' field.",
                source=source.name,
                row=number,
                column="data",
                fix="export the project from Label Studio as 'JSON'.",
            )
        item_id = str(raw.get("id", number))
        if item_id in seen_ids:
            raise DataError(
                f"task id {item_id!r} appears twice (first as task {seen_ids[item_id]}).",
                source=source.name,
                row=number,
                column="id",
                fix="export each task once.",
            )
        seen_ids[item_id] = number
        _check_task_shape(raw, number, source.name)
        tasks.append((number, item_id, raw))
        for block in ("annotations", "completions", "predictions"):
            for entry in raw.get(block) or []:
                for result in (entry or {}).get("result") or []:
                    kind, _ = _ls_values(result) if isinstance(result, dict) else (None, [])
                    if kind is not None:
                        controls.setdefault(str(result.get("from_name", "")), kind)
    if not controls:
        raise DataError(
            "no choices, labels or rating results found in any annotation.",
            source=source.name,
            column="result",
            fix="export a project whose labelling config has Choices, Labels or Rating tags.",
        )
    if control is None:
        if len(controls) > 1:
            raise DataError(
                f"the export has {len(controls)} control tags {sorted(controls)}; choose one.",
                source=source.name,
                column="from_name",
                fix="pass control=<name> (the format option 'control' in the app).",
            )
        control = next(iter(controls))
    elif control not in controls:
        raise DataError(
            f"control tag {control!r} is not in the export (found {sorted(controls)}).",
            source=source.name,
            column="from_name",
            fix=f"use one of {sorted(controls)}.",
        )
    kind = controls[control]
    rows: list[tuple[str, str, str]] = []
    item_rows: list[dict] = []
    pred_rows: list[tuple[str, str, str, int]] = []
    scores: list[dict] = []
    cancelled = no_result = superseded = 0
    multi_choice = False
    text_source_field = None
    for number, item_id, raw in tasks:
        fields = raw["data"] if isinstance(raw["data"], dict) else {"text": raw["data"]}
        row: dict = {"item_id": item_id}
        for key, value in fields.items():
            column = "item_data_id" if key in ("item_id", "id") else key
            row[column] = value if is_scalar(value) else json.dumps(value, ensure_ascii=False)
        if "text" not in row:
            first_text = next((k for k, v in fields.items() if isinstance(v, str)), None)
            if first_text is not None:
                row["text"] = fields[first_text]
                text_source_field = first_text
        item_rows.append(row)
        latest: dict[str, list[str]] = {}
        for entry in (raw.get("annotations") or []) + (raw.get("completions") or []):
            if not isinstance(entry, dict):
                continue
            if entry.get("was_cancelled"):
                cancelled += 1
                continue
            annotator = _ls_annotator(entry.get("completed_by"))
            if annotator is None:
                raise DataError(
                    f"task {item_id!r}: an annotation has no 'completed_by'.",
                    source=source.name,
                    row=number,
                    column="completed_by",
                    fix="export with annotator information (Label Studio includes completed_by "
                    "by default).",
                )
            labels: list[str] = []
            for result in entry.get("result") or []:
                if isinstance(result, dict) and str(result.get("from_name", "")) == control:
                    labels.extend(x for x in _ls_values(result)[1] if x not in (None, ""))
            if not labels:
                no_result += 1
                continue
            if annotator in latest:
                superseded += 1
            latest[annotator] = list(dict.fromkeys(labels))
        for annotator, labels in latest.items():
            rows.extend((item_id, annotator, lab) for lab in labels)
            multi_choice = multi_choice or len(labels) > 1
        for entry in raw.get("predictions") or []:
            if not isinstance(entry, dict):
                continue
            model = str(entry.get("model_version") or "labelstudio")
            labels = []
            for result in entry.get("result") or []:
                if isinstance(result, dict) and str(result.get("from_name", "")) == control:
                    labels.extend(x for x in _ls_values(result)[1] if x not in (None, ""))
            labels = list(dict.fromkeys(labels))
            pred_rows.extend((model, item_id, lab, len(labels)) for lab in labels)
            if "score" in entry:
                scores.append({"model": model, "item_id": item_id, "score": entry["score"]})
    if cancelled:
        report.drop("cancelled (skipped) annotations", cancelled)
    if no_result:
        report.drop(f"annotations without a result for control {control!r}", no_result)
    if superseded:
        report.drop("earlier annotation of the same annotator on the same task", superseded)
    if text_source_field is not None:
        report.note(f"no 'text' data field: the field {text_source_field!r} is shown as text.")
    if not rows:
        raise DataError(
            f"no annotation has a result for control {control!r}.",
            source=source.name,
            column="result",
            fix="export a project with completed annotations.",
        )
    long = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    report.rows_read = len(long)
    if kind == "labels":
        report.note("span/region labels reduced to the set of labels each annotator used per task.")
    if task is None and kind == "rating":
        task = "rating"
    pred_labels = {r[2] for r in pred_rows}
    inventory = order_labels(list(set(long["label"]) | pred_labels))
    dataset = build_dataset(
        long,
        source=source.name,
        format="labelstudio",
        report=report,
        items=items_frame(item_rows),
        labels=inventory,
        task=task,
        multilabel_evidence="Label Studio results with several choices in one annotation"
        if multi_choice else None,
        level=level,
        name=source_name(source),
    )
    dataset.report.note(f"labels from control tag {control!r} ({kind}).")
    if pred_rows:
        preds = pd.DataFrame(pred_rows, columns=["model", "item_id", "label", "n"])
        multiple = dataset.task in ("multiclass", "rating")
        preds["prob"] = 1.0 / preds["n"] if multiple else 1.0
        if multiple and (preds["n"] > 1).any():
            report.note(
                "multiclass predictions listing several choices split their probability evenly."
            )
        known = preds["item_id"].isin(set(dataset.item_ids))
        if (~known).any():
            report.drop("predictions for tasks without annotations", int((~known).sum()))
        preds = preds[known]
        dup = preds.duplicated(["model", "item_id", "label"], keep="first")
        if dup.any():
            report.drop("repeated predictions (same model, task and label)", int(dup.sum()))
        preds = preds[~dup][["model", "item_id", "label", "prob"]].reset_index(drop=True)
        if not preds.empty:
            dataset = dataclasses.replace(dataset, predictions=preds)
            report.note(f"predictions loaded for {preds['model'].nunique()} model(s).")
    if scores:
        dataset.extra["prediction_scores"] = pd.DataFrame(scores)
    return dataset
