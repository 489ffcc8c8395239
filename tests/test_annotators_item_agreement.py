"""Per-item agreement in the item table (engine + CLI), checked by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hlv_core.cli import main
from hlv_core.io import load
from hlv_core.samples import sample_path


def _csv(rows: list[tuple[str, str, str]]) -> bytes:
    return ("item_id,annotator_id,label\n" + "".join(",".join(r) + "\n" for r in rows)).encode()


def test_pair_agreement_by_hand():
    rows = [("a", f"r{i}", "yes") for i in range(3)] + [("a", "r3", "no"), ("a", "r4", "no")]
    rows += [("b", f"r{i}", "yes") for i in range(4)]  # everyone agrees
    rows += [("c", "r0", "no")]  # one annotator: no pair
    table = load(_csv(rows), name="t.csv").item_table().set_index("item_id")
    # 3 yes / 2 no: 3 + 1 agreeing pairs of 10
    assert table.loc["a", "pair_agreement"] == pytest.approx(0.4)
    assert table.loc["a", "majority_share"] == pytest.approx(0.6)
    assert table.loc["b", "pair_agreement"] == pytest.approx(1.0)
    assert table.loc["b", "entropy"] == pytest.approx(0.0)
    assert np.isnan(table.loc["c", "pair_agreement"])


def test_pair_agreement_multilabel_averages_the_labels_someone_ticked():
    rows = [("a", "r0", "x"), ("a", "r0", "y"), ("a", "r1", "x"), ("a", "r2", "x"),
            ("b", "r0", "z"), ("b", "r1", "z"), ("b", "r2", "x"), ("b", "r2", "y")]
    dataset = load(_csv(rows), name="m.csv", task="multilabel")
    table = dataset.item_table().set_index("item_id")
    # a: x ticked by all 3 (3 of 3 pairs agree), y by 1 of 3 (1 of 3 pairs: r1-r2 say no)
    assert table.loc["a", "pair_agreement"] == pytest.approx((1 + 1 / 3) / 2)
    # b: x, y each ticked by 1 of 3 (1/3), z by 2 of 3 (1/3)
    assert table.loc["b", "pair_agreement"] == pytest.approx(1 / 3)


def test_pair_agreement_is_not_defined_for_rankings():
    raw = b"item_id,annotator_id,label,rank\n1,a,x,1\n1,a,y,2\n1,b,y,1\n1,b,x,2\n"
    dataset = load(raw, name="r.csv")
    assert dataset.task == "ranking"
    assert np.isnan(dataset.item_table()["pair_agreement"]).all()


def test_cli_summary_items(capsys):
    assert main(["summary", str(sample_path("case_review")), "--items", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 240
    assert {"majority_share", "pair_agreement", "entropy"} <= set(rows[0])
    entropies = [round(r["entropy"], 12) for r in rows]  # float noise is a tie
    assert entropies == sorted(entropies, reverse=True)


def test_tied_contested_items_more_annotators_first_then_id():
    rows = [("b", "a1", "x"), ("b", "a2", "y"),                       # 1-1 split, 2 people
            ("a", "a1", "x"), ("a", "a2", "y"),                       # 1-1 split, 2 people
            ("c", "a1", "x"), ("c", "a2", "y"), ("c", "a3", "x"), ("c", "a4", "y"),  # 2-2
            ("d", "a1", "x"), ("d", "a2", "x")]                       # unanimous
    table = load(_csv(rows), name="t.csv").item_table()
    assert table["item_id"].tolist() == ["c", "a", "b", "d"]
