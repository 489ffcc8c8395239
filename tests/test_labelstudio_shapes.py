"""Label Studio exports and ChaosNLI records whose parts have another JSON type than the
export's: one DataError naming the task, or a note, never a TypeError or a label read letter
by letter (the Label Studio JSON export: tasks with annotations[] of result[] objects)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlv_core.io import DataError, load

GOOD = Path(__file__).parent / "data" / "good"


def _task(annotations) -> dict:
    return {"id": 1, "data": {"text": "t"}, "annotations": annotations}


def _choice(annotator: int, choices) -> dict:
    return {"completed_by": annotator,
            "result": [{"from_name": "s", "type": "choices", "value": {"choices": choices}}]}


@pytest.mark.parametrize(("task", "column"), [
    (_task(5), "annotations"),                                     # TypeError before
    (_task(["not an annotation", _choice(1, ["a"])]), "annotations"),  # skipped before
    (_task([{"completed_by": 1, "result": 7}, _choice(2, ["a"])]), "result"),
    (_task([{"completed_by": 1, "result": ["x"]}, _choice(2, ["a"])]), "result"),
    (_task([_choice(1, None), _choice(2, ["a"])]), "value.choices"),  # TypeError before
    (_task([_choice(1, "pos"), _choice(2, ["a"])]), "value.choices"),  # 'p', 'o', 's' before
])
def test_a_part_of_another_type_is_refused_naming_the_task(task, column):
    second = _task([_choice(1, ["a"]), _choice(2, ["b"])])
    second["id"] = 2
    raw = json.dumps([task, second]).encode()
    with pytest.raises(DataError) as info:
        load(raw, name="export.json", format="labelstudio")
    assert (info.value.source, info.value.row, info.value.column) == ("export.json", 1, column)


def test_the_real_shaped_export_still_loads():
    dataset = load(GOOD / "labelstudio_export.json", control="sentiment")
    assert dataset.report.format == "labelstudio" and dataset.n_items > 0


def test_chaosnli_label_dist_of_non_numbers_is_noted_not_a_crash():
    lines = [json.loads(x) for x in (GOOD / "chaosnli_mini.jsonl").read_text().splitlines()
             if x.strip()]
    lines[0]["label_dist"] = [{}, 0.7, 0.1]  # TypeError before
    raw = "\n".join(json.dumps(x) for x in lines).encode()
    dataset = load(raw, name="chaos.jsonl")
    first = dataset.counts_array()[list(dataset.item_ids).index(lines[0]["uid"])]
    # the record's label_counter {"e": 20, "n": 70, "c": 10}, unchanged
    assert dict(zip(dataset.labels, first.tolist(), strict=True)) == {"e": 20, "n": 70, "c": 10}
    assert any(n.startswith("label_dist holds values that are not numbers")
               for n in dataset.report.notes)
