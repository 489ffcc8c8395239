"""The LeWiDi scorer (hlv_core.lewidi): hand-computed lines for every dataset and task, the real
2025 gold files with constructed submissions in the official layouts, checked against an
independent plain re-implementation of the organisers' formulas, every refusal, res.zip, 2023,
the bootstrap, the CLI and the ``metrics`` refusal of Task B files."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.stats import wasserstein_distance

from hlv_core import lewidi
from hlv_core.cli import main
from hlv_core.io import DataError, load, load_lewidi_submission

from .conftest import ROOT, shared_path

PREFIX = {"CSC": "csc", "MP": "mp", "Paraphrase": "par", "VariErrNLI": "ven"}
VEN_LABELS = ("contradiction", "entailment", "neutral")
SCALE = {"CSC": 6, "Paraphrase": 11}


# ------------------------------------------------------------------ independent reference
def ref_targets(gold: dict, dataset: str, task: str) -> dict:
    """Targets written plainly from the gold JSON, as the organisers describe them."""
    out = {}
    for key, rec in gold.items():
        if task == "soft":
            if dataset == "VariErrNLI":
                out[key] = [list(rec["soft_label"][lab].values()) for lab in VEN_LABELS]
            else:
                out[key] = list(rec["soft_label"].values())
        elif dataset == "VariErrNLI":
            out[key] = [[1 if lab in v.split(",") else 0 for v in rec["annotations"].values()]
                        for lab in VEN_LABELS]
        else:
            out[key] = [int(v) for v in rec["annotations"].values()]
    return out


def ref_score(gold: dict, dataset: str, task: str, tsv: str) -> float:
    """The organisers' formulas written out with plain loops, Python's round and scipy."""
    preds = {}
    for line in tsv.splitlines():
        key, values = line.split("\t")
        preds[key] = json.loads(values)
    targets = ref_targets(gold, dataset, task)
    keys = list(gold)
    if task == "soft":
        if dataset == "MP":
            d = [round(sum(abs(p - t) for p, t in zip(preds[k], targets[k], strict=True)), 5)
                 for k in keys]
            return round(sum(d) / len(d), 5)
        if dataset == "VariErrNLI":
            per_item = []
            for k in keys:
                per_label = [round(sum(abs(p - t) for p, t in zip(pp, tt, strict=True)), 5)
                             for pp, tt in zip(preds[k], targets[k], strict=True)]
                per_item.append(round(sum(per_label) / len(per_label), 5))
            return round(sum(per_item) / len(per_item), 5)
        d = []
        for k in keys:
            bins = list(range(len(targets[k])))
            d.append(wasserstein_distance(bins, bins, targets[k], preds[k]))  # normalises
        return round(sum(d) / len(d), 5)
    if dataset == "MP":
        return float(np.mean([round(sum(abs(t - p) for t, p in zip(targets[k], preds[k],
                                                                    strict=True))
                                    / len(targets[k]), 5) for k in keys]))
    if dataset == "VariErrNLI":
        per_item = []
        for k in keys:
            per_label = [round(sum(abs(t - p) for t, p in zip(tt, pp, strict=True)) / len(tt), 5)
                         for tt, pp in zip(targets[k], preds[k], strict=True)]
            per_item.append(np.mean(per_label))
        return float(np.mean(per_item))
    s = SCALE[dataset]
    return float(np.mean([sum(abs(t - p) for t, p in zip(targets[k], preds[k], strict=True))
                          / len(targets[k]) / s for k in keys]))


# -------------------------------------------------------------- constructed submissions
def construct(gold: dict, dataset: str, task: str, kind: str, seed: int = 0) -> str:
    """A submission TSV in the official layout: perfect, uniform, most-frequent or noisy."""
    rng = np.random.default_rng(seed)
    targets = ref_targets(gold, dataset, task)
    lines = []
    for key, target in targets.items():
        if task == "soft":
            t = np.array(target, dtype=float)
            if kind == "perfect":
                q = t
            elif kind == "uniform":
                q = np.full_like(t, 1.0 / t.shape[-1])
            elif kind == "most-frequent":
                q = np.zeros_like(t)
                idx = t.argmax(axis=-1)
                if t.ndim == 1:
                    q[idx] = 1.0
                else:
                    q[np.arange(len(t)), idx] = 1.0
            else:  # noisy: gold mixed with Dirichlet noise, written with 6 decimals
                noise = rng.dirichlet(np.ones(t.shape[-1]), size=t.shape[:-1] or None)
                q = 0.6 * t / t.sum(axis=-1, keepdims=True) + 0.4 * noise
                q = np.round(q, 6)
            value = q.tolist()
        else:
            t = np.array(target)
            if dataset in ("MP", "VariErrNLI"):
                choices = np.array([0, 1])
            else:
                choices = np.arange(1, 7) if dataset == "CSC" else np.arange(-5, 6)
            if kind == "perfect":
                p = t
            elif kind == "uniform":
                p = rng.choice(choices, size=t.shape)
            elif kind == "most-frequent":
                if t.ndim == 2:  # per label: the majority of the annotators
                    p = np.repeat((t.mean(axis=1) > 0.5).astype(int)[:, None], t.shape[1], 1)
                else:
                    vals, counts = np.unique(t, return_counts=True)
                    p = np.full_like(t, vals[counts.argmax()])
            else:  # noisy: 25% of the labels replaced at random
                p = np.where(rng.random(t.shape) < 0.25, rng.choice(choices, size=t.shape), t)
            value = p.astype(int).tolist()
        lines.append(f"{key}\t{json.dumps(value)}")
    return "\n".join(lines) + "\n"


def gold_path(dataset: str, split: str = "test") -> Path:
    return shared_path("data", "lewidi2025", dataset, f"{dataset}_{split}.json")


def gold_json(dataset: str, split: str = "test") -> dict:
    return json.loads(gold_path(dataset, split).read_text())


PAIRS = [(ds, task) for ds in PREFIX for task in ("soft", "pe")]
KINDS = ["perfect", "uniform", "most-frequent", "noisy"]


@pytest.mark.parametrize(("dataset", "task"), [
    pytest.param(ds, task, marks=pytest.mark.slow) if ds == "MP" else (ds, task)
    for ds, task in PAIRS])
def test_real_gold_constructed_submissions_match_the_independent_formulas(dataset, task):
    gold = gold_json(dataset)
    loaded = lewidi.load_gold(gold_path(dataset))
    assert loaded.dataset == dataset and loaded.n_items == len(gold)
    scores = {}
    for kind in KINDS:
        tsv = construct(gold, dataset, task, kind)
        name = f"{PREFIX[dataset]}_test_{task}.tsv"
        got = lewidi.score(loaded, tsv.encode(), name=name)
        expected = ref_score(gold, dataset, task, tsv)
        assert got["dataset"] == dataset and got["task"] == task
        assert got["n_items"] == len(gold)
        assert abs(got["score"] - expected) <= 1e-5 + 1e-12, (kind, got["score"], expected)
        items = lewidi.score_items(loaded, tsv.encode(), name=name)
        assert len(items) == len(gold) and list(items["item_id"]) == list(gold)
        scores[kind] = got["score"]
    assert scores["perfect"] == 0.0
    assert 0 < scores["noisy"] < scores["uniform"] or task == "pe"
    assert scores["noisy"] > 0 and scores["uniform"] > 0


def test_csc_gold_soft_labels_not_summing_to_one_are_renormalised_with_a_warning():
    gold = gold_json("CSC")
    sums = np.array([sum(r["soft_label"].values()) for r in gold.values()])
    n_off = int((np.abs(sums - 1) > 1e-6).sum())
    assert n_off > 0
    tsv = construct(gold, "CSC", "soft", "uniform")
    got = lewidi.score(gold_path("CSC"), tsv.encode(), name="csc_test_soft.tsv")
    assert any(f"{n_off} gold soft_label(s)" in w and "renormalised" in w
               for w in got["warnings"])
    # renormalising both marginals: a perfect prediction of an off-sum label scores 0
    perfect = construct(gold, "CSC", "soft", "perfect")
    assert lewidi.score(gold_path("CSC"), perfect.encode(),
                        name="csc_test_soft.tsv")["score"] == 0.0


# ----------------------------------------------------------------- hand-computed lines
TOY_2025 = {
    "MP": {
        "a": {"annotators": "Ann1,Ann2,Ann3,Ann4,Ann5",
              "annotations": {"Ann1": "0", "Ann2": "0", "Ann3": "1", "Ann4": "1", "Ann5": "0"},
              "soft_label": {"0.0": 0.6, "1.0": 0.4}, "split": "test"},
        "b": {"annotators": "Ann1,Ann2",
              "annotations": {"Ann1": "1", "Ann2": "1"},
              "soft_label": {"0.0": 0.0, "1.0": 1.0}, "split": "test"},
    },
    "CSC": {
        "a": {"annotators": "A,B,C,D,E,F",
              "annotations": {"A": "1", "B": "1", "C": "1", "D": "1", "E": "1", "F": "4"},
              "soft_label": {str(k): v for k, v in zip(range(1, 7),
                                                       [0.83, 0, 0, 0.17, 0, 0], strict=True)},
              "split": "test"},
    },
    "Paraphrase": {
        "a": {"annotators": "A,B,C,D",
              "annotations": {"A": "5", "B": "-4", "C": "5", "D": "5"},
              "soft_label": {str(k): (0.25 if k == -4 else 0.75 if k == 5 else 0.0)
                             for k in range(-5, 6)}, "split": "test"},
    },
    "VariErrNLI": {
        "a": {"annotators": "Ann1,Ann2,Ann2,Ann3,Ann4",
              "annotations": {"Ann1": "contradiction", "Ann2": "contradiction,neutral",
                              "Ann3": "neutral", "Ann4": "entailment"},
              "soft_label": {"contradiction": {"0": 0.5, "1": 0.5},
                             "entailment": {"0": 0.75, "1": 0.25},
                             "neutral": {"0": 0.5, "1": 0.5}}, "split": "test"},
        "b": {"annotators": "Ann1,Ann2,Ann3",
              "annotations": {"Ann1": "neutral", "Ann2": "entailment", "Ann3": "neutral"},
              "soft_label": {"contradiction": {"0": 1.0, "1": 0.0},
                             "entailment": {"0": 0.667, "1": 0.333},
                             "neutral": {"0": 0.333, "1": 0.667}}, "split": "test"},
    },
}
HAND = [
    # MP soft: a |0.5-0.6|+|0.5-0.4| = 0.2; b |0.3-0|+|0.7-1| = 0.6; mean 0.4
    ("MP", "soft", "a\t[0.5, 0.5]\nb\t[0.3, 0.7]\n", 0.4),
    # MP pe: a targets 0,0,1,1,0 vs 0,1,1,1,1 -> 2 errors / 5 = 0.4; b 1,1 vs 1,0 -> 0.5
    ("MP", "pe", "a\t[0, 1, 1, 1, 1]\nb\t[1, 0]\n", 0.45),
    # CSC soft: CDFs gold .83 .83 .83 1 1 1, pred .5 .5 .5 .5 1 1 -> |.33|*3 + .5 = 1.49
    ("CSC", "soft", "a\t[0.5, 0, 0, 0, 0.5, 0]\n", 1.49),
    # CSC pe: 1,1,1,1,1,4 vs 2,1,1,1,1,1 -> (1 + 3) / 6 annotators / 6 = 1/9
    ("CSC", "pe", "a\t[2, 1, 1, 1, 1, 1]\n", round(4 / 6 / 6, 12)),
    # Paraphrase soft: gold mass .25 at -4, .75 at 5; pred all at 5 -> .25 * 9 bins = 2.25
    ("Paraphrase", "soft", "a\t[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]\n", 2.25),
    # Paraphrase pe: 5,-4,5,5 vs 5,5,4,5 -> (9 + 1) / 4 / 11
    ("Paraphrase", "pe", "a\t[5, 5, 4, 5]\n", 10 / 4 / 11),
    # VariErrNLI soft: a labels |.8-.5|*2=.6, |.75-.75|*2=0, |.4-.5|*2=.2 -> .26667;
    # b .2*2=.4, |.5-.667|*2=.334, |.5-.333|*2=.334 -> mean 1.068/3 = .356; overall .311335
    # -> rounded .31134 (each step rounded to 5 decimals)
    ("VariErrNLI", "soft",
     "a\t[[0.2, 0.8], [0.75, 0.25], [0.6, 0.4]]\nb\t[[0.8, 0.2], [0.5, 0.5], [0.5, 0.5]]\n",
     round((round(0.8 / 3, 5) + round(1.068 / 3, 5)) / 2, 5)),
    # VariErrNLI pe (per label over the 4 annotators Ann1..Ann4): a targets c=[1,1,0,0]
    # e=[0,0,0,1] n=[0,1,1,0]; pred c=[1,1,0,0] (0) e=[0,0,0,0] (1/4) n=[0,1,1,1] (1/4)
    # -> 1/6; b (3 annotators) targets c=[0,0,0] e=[0,1,0] n=[1,0,1]; pred all correct but
    # n=[1,1,1] (1/3) -> 1/9; mean (1/6 + 1/9) / 2
    ("VariErrNLI", "pe",
     "a\t[[1, 1, 0, 0], [0, 0, 0, 0], [0, 1, 1, 1]]\nb\t[[0, 0, 0], [0, 1, 0], [1, 1, 1]]\n",
     ((0 + 0.25 + 0.25) / 3 + (0 + 0 + round(1 / 3, 5)) / 3) / 2),
]


@pytest.mark.parametrize(("dataset", "task", "tsv", "expected"), HAND)
def test_hand_computed_lines(dataset, task, tsv, expected):
    got = lewidi.score(TOY_2025[dataset], tsv.encode(), task, name="sub.tsv")
    assert got["dataset"] == dataset and got["task"] == task
    assert got["score"] == pytest.approx(expected, abs=1e-12)
    assert got["score"] == pytest.approx(ref_score(TOY_2025[dataset], dataset, task, tsv),
                                         abs=1e-12)


def test_spec_layout_examples_load_the_right_way_round():
    """The spec's VariErrNLI examples; reading Task B per annotator (transposed) would give
    another number on a 3-annotator item, so this fails on transposition."""
    gold = {"x": {"text": {"context": "c", "statement": "s"}, "annotators": "Ann1,Ann2,Ann3",
                  "annotations": {"Ann1": "contradiction", "Ann2": "contradiction,neutral",
                                  "Ann3": "entailment"},
                  "soft_label": {"contradiction": {"0": 0.333, "1": 0.667},
                                 "entailment": {"0": 0.667, "1": 0.333},
                                 "neutral": {"0": 0.667, "1": 0.333}}}}
    soft = "x\t[[0.805, 0.195], [0.73, 0.27], [0.38, 0.62]]\n"
    got = lewidi.score(gold, soft.encode(), name="ven_test_soft.tsv")
    per_label = [round(2 * abs(0.195 - 0.667), 5), round(2 * abs(0.27 - 0.333), 5),
                 round(2 * abs(0.62 - 0.333), 5)]
    assert got["score"] == round(round(sum(per_label) / 3, 5), 5)
    # per label over annotators: c = [1, 1, 0], e = [0, 0, 1], n = [0, 1, 0]
    pe = "x\t[[1, 1, 0], [0, 0, 1], [0, 1, 0]]\n"
    assert lewidi.score(gold, pe.encode(), name="ven_test_pe.tsv")["score"] == 0.0
    transposed = "x\t[[1, 0, 0], [1, 0, 1], [0, 1, 0]]\n"  # per annotator: wrong way round
    # c: [1,0,0] vs [1,1,0] one error of 3; e: [1,0,1] vs [0,0,1] one of 3; n: none
    assert lewidi.score(gold, transposed.encode(), name="ven_test_pe.tsv")["score"] == (
        pytest.approx(2 * round(1 / 3, 5) / 3, abs=1e-12))
    # the dataset loader reads the same layout the same way
    ds = load(io.BytesIO(json.dumps(gold).encode()), name="VariErrNLI_test.json")
    preds = load_lewidi_submission(pe.encode(), ds, name="ven_test_pe.tsv")
    chosen = preds.groupby("annotator_id")["label"].agg(lambda s: sorted(s)).to_dict()
    assert chosen == {"Ann1": ["contradiction"], "Ann2": ["contradiction", "neutral"],
                      "Ann3": ["entailment"]}
    # the other spec examples: MP, CSC and Paraphrase Task B lines
    mp = {"i": {"annotations": {f"A{j}": v for j, v in enumerate("00110")},
                "soft_label": {"0": 0.6, "1": 0.4}}}
    assert lewidi.score(mp, b"i\t[0, 0, 1, 1, 0]\n", "pe")["score"] == 0.0
    csc = TOY_2025["CSC"]
    assert lewidi.score(csc, b"a\t[1, 1, 1, 1, 1, 4]\n", "pe")["score"] == 0.0
    par = TOY_2025["Paraphrase"]
    assert lewidi.score(par, b"a\t[5, -4, 5, 5]\n", "pe")["score"] == 0.0


def test_dataset_loader_reads_an_official_varierrnli_task_b_file_the_right_way_round():
    gold = gold_json("VariErrNLI")
    ds = load(gold_path("VariErrNLI"))
    tsv = construct(gold, "VariErrNLI", "pe", "perfect")
    preds = load_lewidi_submission(tsv.encode(), ds, name="ven_test_pe.tsv")
    got = preds.groupby(["item_id", "annotator_id"])["label"].agg(lambda x: ",".join(sorted(x)))
    expected = {(k, a): ",".join(sorted(v.split(",")))
                for k, r in gold.items() for a, v in r["annotations"].items()}
    assert got.to_dict() == expected


def test_per_annotator_varierrnli_layout_is_refused_by_the_loader():
    ds = load(shared_path("data", "lewidi2025", "VariErrNLI", "VariErrNLI_test.json"))
    gold = gold_json("VariErrNLI")
    key, rec = next((k, r) for k, r in gold.items() if len(r["annotations"]) == 4)
    per_annotator = [[int(lab in v.split(",")) for lab in VEN_LABELS]
                     for v in rec["annotations"].values()]
    with pytest.raises(DataError, match="per label"):
        load_lewidi_submission(f"{key}\t{json.dumps(per_annotator)}\n".encode(), ds,
                               name="ven_test_pe.tsv")


# --------------------------------------------------------------------------- rounding
def test_round_half_equals_python_round_also_next_to_half_way_points():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.random(20000) * 3,
                        np.round(rng.random(20000), 6),  # 6 decimals: many end in 5
                        (np.arange(20000) + 0.5) / 1e5,
                        np.nextafter((np.arange(2000) + 0.5) / 1e5, 1),
                        np.nextafter((np.arange(2000) + 0.5) / 1e5, 0)])
    expected = np.array([round(v, 5) for v in x.tolist()])
    np.testing.assert_array_equal(lewidi.round_half(x), expected)
    assert (np.round(x, 5) != expected).any()  # numpy alone would differ somewhere


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
       st.integers(min_value=0, max_value=8))
def test_round_half_property(x, decimals):
    assert lewidi.round_half(np.array([x]), decimals)[0] == round(x, decimals)


def test_wasserstein_equals_the_optimal_transport_linear_program():
    """The organisers call ot.emd2 (an LP); solve the same LP with scipy on real CSC and
    Paraphrase items (gold vs a constructed prediction, both renormalised)."""
    rng = np.random.default_rng(8)
    for dataset in ("CSC", "Paraphrase"):
        gold = lewidi.load_gold(gold_path(dataset))
        rows = rng.choice(gold.n_items, 15, replace=False)
        T = gold.soft[rows]
        P = rng.dirichlet(np.full(T.shape[1], 0.5), size=len(rows))
        ours = lewidi.wasserstein_items(P, T)
        K = T.shape[1]
        cost = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).ravel()
        a_eq = np.vstack([np.kron(np.eye(K), np.ones(K)), np.kron(np.ones(K), np.eye(K))])
        for i in range(len(rows)):
            p, t = P[i] / P[i].sum(), T[i] / T[i].sum()
            lp = linprog(cost, A_eq=a_eq, b_eq=np.concatenate([t, p]), bounds=(0, None),
                         method="highs")
            assert lp.status == 0 and ours[i] == pytest.approx(lp.fun, abs=1e-9)


# --------------------------------------------------------------------------- refusals
def _refused(gold, tsv: str, name: str, task=None) -> DataError:
    with pytest.raises(DataError) as err:
        lewidi.score(gold, tsv.encode(), task, name=name)
    assert "\n" not in str(err.value) and err.value.fix
    return err.value


def test_refusals_name_the_cause():
    mp, csc, ven = TOY_2025["MP"], TOY_2025["CSC"], TOY_2025["VariErrNLI"]
    assert "partial file: 1 of 2" in _refused(mp, "a\t[0.5, 0.5]\n", "mp_test_soft.tsv").problem
    err = _refused(mp, "a\t[0.5, 0.5]\nb\t[0.5, 0.5]\nzz\t[0.5, 0.5]\n", "mp_test_soft.tsv")
    assert "'zz' is not in the gold" in err.problem and err.row == 3
    err = _refused(mp, "a\t[0.5, 0.5]\na\t[0.5, 0.5]\n", "mp_test_soft.tsv")
    assert "appears twice" in err.problem and err.row == 2
    err = _refused(csc, "a\t[0, 0.5, 0, 0, 0.5, 0, 0]\n", "csc_test_soft.tsv")
    assert "bins 0..6" in err.problem and "drop the probability of bin 0" in err.problem
    err = _refused(mp, "a\t[0, 1, 1, 1, 1]\nb\t[1, 1]\n", "mp_test_soft.tsv")
    assert "Task B" in err.problem
    err = _refused(TOY_2025["Paraphrase"], "a\t[0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n",
                   "par_test_pe.tsv")
    assert "11 predictions for 4 annotators" in err.problem and "Task A" in err.problem
    err = _refused(ven, "a\t[[1,1,0,0,0],[0,0,0,0,1],[0,1,0,1,0]]\nb\t[[0,0,0],[0,1,0],[1,0,1]]\n",
                   "ven_test_pe.tsv")
    assert "'annotators' string" in err.problem and "repeats" in err.problem
    per_annotator = "a\t[[1,0,0],[1,0,1],[0,0,1],[0,1,0]]\nb\t[[0,0,1],[0,1,0],[0,0,1]]\n"
    err = _refused(ven, per_annotator, "ven_test_pe.tsv")
    assert "transposed" in err.problem and err.row == 1
    assert "neither _soft nor _pe" in _refused(mp, "a\t[0.5, 0.5]\n", "preds.tsv").problem
    err = _refused(mp, 'a\t[0.5, "0.5"]\nb\t[0.5, 0.5]\n', "mp_test_soft.tsv")
    assert "not a finite number" in err.problem and err.row == 1
    err = _refused(mp, "a\t[50, 50]\nb\t[0, 100]\n", "mp_test_soft.tsv")
    assert "outside [0, 1]" in err.problem
    err = _refused(csc, "a\t[0.5, 0, 0, 0, 0.5, 0]\n", "mp_test_soft.tsv")
    assert "says MP" in err.problem
    assert "not a LeWiDi submission" in _refused(mp, "id,label\n", "mp_test_soft.tsv").problem
    with pytest.raises(DataError, match="no 'soft_label'"):
        lewidi.load_gold({"a": {"annotations": {"A": "1"}}})
    with pytest.raises(DataError, match="not a readable zip"):
        lewidi.score(mp, b"PK\x03\x04broken", name="res.zip")


GOLD_2023 = {"1": {"annotators": "A,B", "annotations": "0,1", "hard_label": "1",
                   "soft_label": {"0": 0.5, "1": 0.5}},
             "2": {"annotators": "A,B", "annotations": "1,1", "hard_label": "1",
                   "soft_label": {"0": 0.0, "1": 1.0}}}


@pytest.mark.parametrize(("gold", "tsv", "name", "fragment"), [
    ("MP", "", "mp_test_soft.tsv", "empty"),
    ("MP", "a\t[0.5, 0.5]\n\nb\t[0.5, 0.5]\n", "mp_test_soft.tsv", "empty line"),
    ("MP", "a\t[0, 1, 1, 1, NaN]\nb\t[1, 1]\n", "mp_test_pe.tsv", "not a finite number"),
    ("MP", 'a\t[0, 1, 1, 1, "1"]\nb\t[1, 1]\n', "mp_test_pe.tsv", "not a finite number"),
    ("MP", "a\t[0.5, 0.5\nb\t[0.5, 0.5]\n", "mp_test_soft.tsv", "is not a list"),
    ("MP", "a\t[[0.5, 0.5]]\nb\t[0.5, 0.5]\n", "mp_test_soft.tsv", "nested lists"),
    ("VariErrNLI", "a\t[0.5, 0.25, 0.5]\nb\t[0, 0.333, 0.667]\n", "ven_test_soft.tsv",
     "one probability per label"),
    ("VariErrNLI", "a\t[0, 1, 1, 0]\nb\t[0, 1, 0]\n", "ven_test_pe.tsv", "a flat list"),
    ("Paraphrase", "a\t[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n", "par_test_soft.tsv",
     "all probabilities are 0"),
    ("2023", "1\t0.5\t0.5\n2\t0\t1\n", "HS-Brexit_results.tsv", "hard label '2'"),
    ("2023", "1\t0.5\t0.5\n0\t1\n", "HS-Brexit_results.tsv", "3 tab-separated fields"),
    ("2023", "1\t0.5\t1.5\n0\t0\t1\n", "HS-Brexit_results.tsv", "outside [0, 1]"),
    ("MP", "1\t0.5\t0.5\n", "mp_results.tsv", "gold is LeWiDi 2025"),
])
def test_more_refusals(gold, tsv, name, fragment):
    gold = GOLD_2023 if gold == "2023" else TOY_2025[gold]
    assert fragment in str(_refused(gold, tsv, name))


def test_zip_and_gold_folder_ambiguities_are_refused(tmp_path):
    mp = TOY_2025["MP"]
    two = _zip({"mp_test_soft.tsv": "a\t[0.5, 0.5]\nb\t[0.5, 0.5]\n",
                "res/mp_test_soft.tsv": "a\t[0.5, 0.5]\nb\t[0.5, 0.5]\n"})
    with pytest.raises(DataError, match="two files score MP"):
        lewidi.score(mp, two, name="res.zip")
    other = _zip({"csc_test_soft.tsv": "a\t[1, 0, 0, 0, 0, 0]\n"})
    with pytest.raises(DataError, match="no TSV in the zip matches"):
        lewidi.score(mp, other, name="res.zip")
    for split in ("dev", "train"):
        records = {k: dict(v, split=split) for k, v in mp.items()}
        (tmp_path / f"MP_{split}.json").write_text(json.dumps(records))
    with pytest.raises(DataError, match="2 gold files fit"):
        lewidi.score(tmp_path, b"a\t[0.5, 0.5]\nb\t[0.5, 0.5]\n", name="mp_soft.tsv")
    got = lewidi.score(tmp_path, b"a\t[0.5, 0.5]\nb\t[0.5, 0.5]\n", name="mp_dev_soft.tsv")
    # item a: |.5 - .6| + |.5 - .4| = .2; item b: |.5 - 0| + |.5 - 1| = 1; mean .6
    assert got["split"] == "dev" and got["score"] == 0.6


@pytest.mark.parametrize(("name", "dataset", "task"), [
    ("csc_test_soft.tsv", "CSC", "soft"), ("mp_test_pe (1).tsv", "MP", "pe"),
    ("teamX_ven_test_pe.tsv", "VariErrNLI", "pe"), ("VariErrNLI_test_soft.tsv", "VariErrNLI",
                                                     "soft"),
    ("par.soft.tsv", "Paraphrase", "soft"), ("HS-Brexit_results.tsv", "HS-Brexit", None),
    ("softbank_mp_test_pe.tsv", "MP", "pe"), ("predictions.tsv", None, None),
])
def test_dataset_and_task_from_file_names(name, dataset, task):
    assert lewidi._dataset_from_name(name) == dataset
    assert lewidi.task_from_name(name) == task


def test_2023_hard_labels_written_as_floats_are_compared_as_numbers_with_a_warning():
    got = lewidi.score(GOLD_2023, b"1.0\t0.5\t0.5\n1\t0\t1\n", "hard",
                       name="HS-Brexit_results.tsv")
    assert got["score"] == 1.0 and any("compared as numbers" in w for w in got["warnings"])


def test_varierrnli_repeated_annotators_on_the_real_gold_are_refused_with_the_cause():
    gold = gold_json("VariErrNLI")
    lines = []
    for key, rec in gold.items():
        listed = rec["annotators"].split(",")  # built from the repeated string: too long
        lines.append(f"{key}\t{json.dumps([[0] * len(listed)] * 3)}")
    err = _refused(gold, "\n".join(lines) + "\n", "ven_test_pe.tsv")
    assert "repeats ids" in err.problem


# ----------------------------------------------------------------------------- res.zip
def _zip(entries: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.slow
def test_res_zip_scores_every_tsv_and_ignores_macosx():
    folder = shared_path("data", "lewidi2025")
    entries = {}
    for dataset in PREFIX:
        gold = gold_json(dataset)
        for task in ("soft", "pe"):
            entries[f"{PREFIX[dataset]}_test_{task}.tsv"] = construct(gold, dataset, task,
                                                                      "noisy")
    entries["__MACOSX/._mp_test_soft.tsv"] = "\x00\x05junk"
    entries["._ven_test_pe.tsv"] = "junk"
    rows = lewidi.score(folder, _zip(entries), name="res.zip")
    assert isinstance(rows, list) and len(rows) == 8
    assert {(r["dataset"], r["task"]) for r in rows} == set(PAIRS)
    for row in rows:
        expected = ref_score(gold_json(row["dataset"]), row["dataset"], row["task"],
                             entries[f"{PREFIX[row['dataset']]}_test_{row['task']}.tsv"])
        assert abs(row["score"] - expected) <= 1e-5 + 1e-12
    # one gold only: the other datasets are skipped and named
    results = lewidi.score_results(gold_path("MP"), _zip(entries), name="res.zip")
    assert sorted((r.dataset, r.task) for r in results) == [("MP", "pe"), ("MP", "soft")]
    assert len(results.skipped) == 6
    with pytest.raises(DataError, match="no .tsv"):
        lewidi.score(folder, _zip({"__MACOSX/._x.tsv": "x"}), name="res.zip")


# ------------------------------------------------------------------------------- 2023
def gold_2023(folder: str, annotations: str = "annotations.csv") -> dict:
    """A LeWiDi 2023 test JSON rebuilt from the shared long files (binary labels)."""
    base = shared_path("data", folder)
    items = pd.read_csv(base / "items.csv", dtype=str, keep_default_na=False)
    items = items[items["split"] == "test"]
    ann = pd.read_csv(base / annotations, dtype=str, keep_default_na=False)
    ann = ann[ann["item_id"].isin(set(items["item_id"]))]
    per_item = ann.assign(one=ann["label"] == "1").groupby("item_id", sort=False).agg(
        annotators=("annotator_id", ",".join), annotations=("label", ",".join),
        p1=("one", "mean"))
    per_item = per_item.reindex(items["item_id"])
    return {key: {"annotators": row.annotators, "annotations": row.annotations,
                  "hard_label": hard, "soft_label": {"0": 1 - row.p1, "1": row.p1},
                  "split": "test"}
            for key, hard, row in zip(items["lewidi_key"], items["hard_label"],
                                      per_item.itertuples(), strict=True)}


@pytest.mark.parametrize(("folder", "name", "annotations"), [
    ("hs_brexit", "HS-Brexit", "annotations.csv"), ("armis", "ArMIS", "annotations.csv"),
    ("convabuse", "ConvAbuse", "annotations_binary.csv"),
    ("md_agreement", "MD-Agreement", "annotations.csv"),
])
def test_lewidi2023_cross_entropy_and_micro_f1_on_the_real_test_splits(folder, name,
                                                                       annotations):
    gold = gold_2023(folder, annotations)
    rng = np.random.default_rng(3)
    p1 = np.clip(np.array([g["soft_label"]["1"] for g in gold.values()])
                 + rng.normal(0, 0.2, len(gold)), 0, 1)
    hard = (p1 > 0.5).astype(int)
    tsv = "".join(f"{h}\t{1 - p}\t{p}\n" for h, p in zip(hard, p1, strict=True))
    golds = lewidi.load_gold(json.dumps(gold).encode(), name=f"{name}_test.json")
    assert golds.edition == "2023" and golds.dataset == name
    soft = lewidi.score(golds, tsv.encode(), name=f"{name}_results.tsv")
    hard_row = lewidi.score(golds, tsv.encode(), "hard", name=f"{name}_results.tsv")
    # plain re-implementation of the starting kit
    targets = np.array([[g["soft_label"]["0"], g["soft_label"]["1"]] for g in gold.values()])
    preds = np.clip(np.column_stack([1 - p1, p1]), 1e-12, 1 - 1e-12)
    ce = -np.sum(targets * np.log(preds + 1e-9)) / len(gold)
    truth = [str(g["hard_label"]) for g in gold.values()]
    f1 = np.mean([t == str(h) for t, h in zip(truth, hard, strict=True)])
    assert soft["metric"] == "cross_entropy" and abs(soft["score"] - ce) < 1e-12
    assert hard_row["metric"] == "micro_f1" and abs(hard_row["score"] - f1) < 1e-12
    assert soft["micro_f1"] == hard_row["score"] and hard_row["higher_is_better"]
    with pytest.raises(DataError, match="partial file"):
        lewidi.score(golds, "".join(tsv.splitlines(True)[:-1]).encode(), name="x_results.tsv")


def test_lewidi2023_hand_computed():
    gold = {"1": {"annotators": "A,B", "annotations": "0,1", "hard_label": "1",
                  "soft_label": {"0": 0.5, "1": 0.5}},
            "2": {"annotators": "A,B", "annotations": "1,1", "hard_label": "1",
                  "soft_label": {"0": 0.0, "1": 1.0}}}
    tsv = b"1\t0.5\t0.5\n0\t0.0\t1.0\n"
    got = lewidi.score(gold, tsv, name="HS-Brexit_results.tsv")
    # item 1: -(.5 ln(.5+1e-9) * 2); item 2: -ln(1 - 1e-12 + 1e-9)
    expected = (-math.log(0.5 + 1e-9) - math.log(1 - 1e-12 + 1e-9)) / 2
    assert got["score"] == pytest.approx(expected, abs=1e-15)
    assert got["micro_f1"] == 0.5
    with pytest.raises(DataError, match="LeWiDi 2025 submission"):
        lewidi.score(gold, b"1\t[0.5, 0.5]\n", "soft")


# ----------------------------------------------------------------------------- bootstrap
def test_resampled_means_equal_a_plain_loop_with_the_same_draws():
    x = np.random.default_rng(0).random((57, 3))
    fast = lewidi._resample_means(x, 40, seed=5, chunk=7)
    rng = np.random.default_rng(5)
    slow = []
    for size in (7, 7, 7, 7, 7, 5):
        draws = rng.integers(0, 57, size=(size, 57))
        slow.extend(x[d].mean(axis=0) for d in draws)
    np.testing.assert_allclose(fast, np.array(slow), rtol=1e-12)
    # the gather path (one or two columns) sees the same resamples as the weights path
    for k in range(3):
        np.testing.assert_allclose(lewidi._resample_means(x[:, [k]], 40, seed=5, chunk=7)[:, 0],
                                   fast[:, k], rtol=1e-12)
    # leaderboard CIs equal bootstrap_ci of each system alone
    b = lewidi._resample_means(x, 300, seed=9)
    ci = lewidi.bootstrap_ci(x[:, 1], n_boot=300, seed=9)
    assert np.quantile(b[:, 1], 0.025) == pytest.approx(ci["lower"], rel=1e-12)


def test_bootstrap_ci_and_paired_test():
    rng = np.random.default_rng(2)
    a = rng.random(300)
    ci = lewidi.bootstrap_ci(a, n_boot=500, seed=1)
    assert ci["lower"] < a.mean() < ci["upper"] and ci["seed"] == 1
    assert ci == lewidi.bootstrap_ci(a, n_boot=500, seed=1)
    assert ci != lewidi.bootstrap_ci(a, n_boot=500, seed=2)
    same = lewidi.paired_bootstrap(a, a, n_boot=200)
    assert same["diff"] == 0 and same["p_value"] == 1.0
    worse = lewidi.paired_bootstrap(a, a + 0.05 + rng.normal(0, 0.01, 300), n_boot=500)
    assert worse["diff"] > 0 and worse["p_value"] < 0.01 and worse["lower"] > 0
    close = lewidi.paired_bootstrap(a, a + rng.normal(0, 0.3, 300), n_boot=500)
    assert close["p_value"] > 0.01
    with pytest.raises(ValueError):
        lewidi.paired_bootstrap(a, a[:-1])


def test_leaderboard_ranks_with_cis_and_neighbour_tests():
    gold = gold_json("Paraphrase")
    systems = []
    for kind in ("uniform", "perfect", "noisy"):
        tsv = construct(gold, "Paraphrase", "soft", kind)
        systems.append((kind, lewidi.score_results(gold_path("Paraphrase"), tsv.encode(),
                                                   name="par_test_soft.tsv")))
    board, tests = lewidi.leaderboard(systems, n_boot=300, seed=4)
    assert board["system"].tolist() == ["perfect", "noisy", "uniform"]
    assert board["rank"].tolist() == [1, 2, 3]
    assert (board["ci_lower"] <= board["mean"]).all() and (board["mean"] <= board["ci_upper"]).all()
    assert len(tests) == 2 and (tests["diff"] > 0).all()
    assert tests.iloc[0]["p_value"] < 0.05
    diffs = lewidi.item_differences(systems[1][1][0], systems[0][1][0])
    assert len(diffs) == 50 and diffs["diff"].abs().is_monotonic_decreasing


# ----------------------------------------------------------------------------------- CLI
class _Out:
    def __init__(self, returncode: int, out: str, err: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, out, err


def _cli(capsys, *args: str) -> _Out:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return _Out(code, captured.out, captured.err)


@pytest.mark.slow
def test_module_entry_point_runs_the_lewidi_command(tmp_path):
    gold_file = tmp_path / "MP_test.json"
    gold_file.write_text(json.dumps(TOY_2025["MP"]))
    sub = tmp_path / "mp_test_soft.tsv"
    sub.write_text("a\t[0.5, 0.5]\n")
    out = subprocess.run([sys.executable, "-m", "hlv_core", "lewidi", str(gold_file), str(sub)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2 and "partial file" in out.stderr


def test_cli_json_zip_and_refusals(tmp_path, capsys):
    gold = TOY_2025["MP"]
    gold_file = tmp_path / "MP_test.json"
    gold_file.write_text(json.dumps(gold))
    sub = tmp_path / "mp_test_soft.tsv"
    sub.write_text("a\t[0.5, 0.5]\nb\t[0.3, 0.7]\n")
    out = _cli(capsys, "lewidi", str(gold_file), str(sub), "--json")
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert {k: row[k] for k in ("dataset", "task", "metric", "n_items")} == {
        "dataset": "MP", "task": "soft", "metric": "average_manhattan", "n_items": 2}
    assert row["score"] == 0.4
    pe = tmp_path / "mp_test_pe.tsv"
    pe.write_text("a\t[0, 1, 1, 1, 1]\nb\t[1, 0]\n")
    res = tmp_path / "res.zip"
    res.write_bytes(_zip({"mp_test_soft.tsv": sub.read_text(), "mp_test_pe.tsv": pe.read_text(),
                          "__MACOSX/._mp_test_pe.tsv": "junk"}))
    out = _cli(capsys, "lewidi", str(gold_file), str(res), "--json", "--bootstrap", "50")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["task"], r["score"]) for r in rows] == [("soft", 0.4), ("pe", 0.45)]
    assert all(r["ci_lower"] <= r["ci_upper"] for r in rows)
    partial = tmp_path / "mp_test_soft_partial.tsv"
    partial.write_text("a\t[0.5, 0.5]\n")
    out = _cli(capsys, "lewidi", str(gold_file), str(partial))
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "partial file" in out.stderr
    out = _cli(capsys, "lewidi", str(gold_file), str(sub), str(sub), "--bootstrap", "50")
    assert out.returncode == 0 and "Paired bootstrap" in out.stdout


def test_metrics_command_points_a_res_zip_to_lewidi(tmp_path, capsys):
    gold = {k: dict(v, text={"post": "p", "reply": "r"}) for k, v in TOY_2025["MP"].items()}
    gold_file = tmp_path / "MP_test.json"
    gold_file.write_text(json.dumps(gold))
    res = tmp_path / "res.zip"
    res.write_bytes(_zip({"mp_test_soft.tsv": "a\t[0.5, 0.5]\nb\t[0.3, 0.7]\n"}))
    out = _cli(capsys, "metrics", str(gold_file), str(res))
    assert out.returncode == 2 and "lewidi" in out.stderr and "UTF-8" not in out.stderr


def test_metrics_command_refuses_a_task_b_file_and_points_to_lewidi(tmp_path, capsys):
    gold = {k: dict(v, text={"post": "p", "reply": "r"}) for k, v in TOY_2025["MP"].items()}
    gold_file = tmp_path / "MP_test.json"
    gold_file.write_text(json.dumps(gold))
    sub = tmp_path / "mp_test_pe.tsv"
    sub.write_text("a\t[0, 1, 1, 1, 1]\nb\t[1, 0]\n")
    out = _cli(capsys, "metrics", str(gold_file), str(sub))
    assert out.returncode == 2 and out.stdout == ""
    assert "lewidi" in out.stderr and len(out.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------- one distance implementation
def test_the_soft_metric_path_uses_the_scorers_distances():
    """One Manhattan and one Wasserstein implementation: the soft-metric path
    (``soft_metrics.lewidi_*``, ``per_item``) gives the scorer's per-item numbers, also on
    predictions whose rows do not sum exactly to 1 (within the soft-metric tolerance)."""
    from hlv_core import soft_metrics

    rng = np.random.default_rng(3)
    T = rng.dirichlet(np.ones(5), 40)
    P = rng.dirichlet(np.ones(5), 40) * (1 + rng.uniform(-9e-7, 9e-7, (40, 1)))
    assert not np.allclose(P.sum(axis=1), 1, atol=1e-9, rtol=0)  # unnormalised rows
    frame = soft_metrics.per_item(T, P, ordinal_values=np.arange(5))
    np.testing.assert_array_equal(frame["manhattan"], lewidi.manhattan_distance(P, T))
    np.testing.assert_array_equal(frame["wasserstein"], lewidi.wasserstein_distance(P, T))
    np.testing.assert_array_equal(frame["wasserstein"], lewidi.wasserstein_items(P, T))
    assert soft_metrics.lewidi_manhattan(T, P, decimals=None) == pytest.approx(
        lewidi.manhattan_items(P, T).mean(), abs=1e-5)
    assert soft_metrics.lewidi_wasserstein(T, P, decimals=None) == \
        lewidi.wasserstein_distance(P, T).mean()
