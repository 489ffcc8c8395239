"""Calibration to the human label distribution (Baan, Aziz, Plank & Fernandez, EMNLP 2022).

Oracle: plain per-item loops written from the paper's definitions (TVD, scipy entropy, Python's
stable ``sorted`` for ranks, the bin loop of ECE, sklearn macro F1), run on ChaosNLI with the
three RoBERTa runs at T = 1 and T = 2 and the oracle Q = H.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from sklearn.metrics import f1_score

from hlv_core import calibration as cal
from tests.conftest import shared_path

LABELS = ["entailment", "neutral", "contradiction"]


def _chaos():
    folder = shared_path("data", "chaosnli_calibration")
    items = pd.read_csv(folder / "items.csv", dtype={"item_id": str})
    counts = pd.read_csv(folder / "label_counts.csv", dtype={"item_id": str})
    preds = pd.read_csv(folder / "predictions.csv", dtype={"item_id": str})
    return items, counts, preds


def _source(source: str):
    """(C, original 5-vote counts, {model: logits}) in the reference's item order: test half
    first, then dev, by the line in the prediction file."""
    items, counts, preds = _chaos()
    items = items[(items["source"] == source) & items["split"].notna()].copy()
    items["half"] = items["split"].map({"test": 0, "dev": 1})
    items = items.sort_values(["half", "pred_index"])
    ids = items["item_id"].tolist()
    C = counts.pivot(index="item_id", columns="label", values="count").loc[ids, LABELS]
    orig = np.array([[votes.split(";").count(lab) for lab in LABELS]
                     for votes in items["original_labels"]])
    logits = {}
    for model, rows in preds.groupby("model"):
        logits[model] = rows.pivot(index="item_id", columns="label",
                                   values="logit").loc[ids, LABELS].to_numpy()
    return C.to_numpy(), orig, logits


# ----------------------------------------------------------------------------- oracle
def _rank(row):
    return sorted(range(len(row)), key=lambda k: row[k])  # stable: ties keep index order


def _oracle_ece(C, Q, n_bins=10, labels=None, k=None):
    y = np.argmax(C if labels is None else labels, axis=1)
    conf = Q.max(axis=1) if k is None else Q[:, k]
    pred = np.argmax(Q, axis=1) if k is None else np.full(len(C), k)
    stats_ = []
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    for a, b in zip(edges[:-1], edges[1:], strict=True):  # bins (a, b]
        idx = np.where((conf > a) & (conf <= b))[0]
        if idx.size:
            stats_.append((np.mean(conf[idx]), np.mean(y[idx] == pred[idx]), len(idx)))
    s = np.array(stats_)
    return np.average(np.abs(s[:, 0] - s[:, 1]), weights=s[:, 2])


def _oracle(C, Q):
    H = C / C.sum(axis=1, keepdims=True)
    out = {"dist_ce": np.mean([0.5 * sum(abs(q - h) for q, h in zip(Q[i], H[i], strict=True))
                               for i in range(len(C))])}
    ents = stats.entropy(Q, axis=1) - stats.entropy(H, axis=1)  # scipy, normalising rows
    out["ent_ce"] = np.mean(np.abs(ents))
    out["ent_ce_signed"] = np.mean(ents)
    ranks_q = [_rank(list(Q[i])) for i in range(len(C))]
    ranks_c = [_rank(list(C[i])) for i in range(len(C))]
    out["rank_cs"] = np.mean([a == b for a, b in zip(ranks_q, ranks_c, strict=True)])
    for kk in (1, 2, 3):
        out[f"top{kk}"] = np.mean([a[-kk] == b[-kk]
                                   for a, b in zip(ranks_q, ranks_c, strict=True)])
    out["ece"] = _oracle_ece(C, Q)
    for k in range(C.shape[1]):
        out[f"classwise_ece_{k}"] = _oracle_ece(C, Q, k=k)
    out["f1_macro"] = f1_score(np.argmax(C, axis=1), np.argmax(Q, axis=1), average="macro")
    return out


def _close(a, b, tol=1e-9):
    assert a == pytest.approx(b, abs=tol, rel=tol)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["snli", "mnli"])
def test_chaosnli_equals_the_oracle(source):
    C, orig, logits = _source(source)
    models = {f"{m}_T{T}": cal.temperature_scale(z, T) for m, z in logits.items()
              for T in (1, 2)}
    models["oracle"] = cal.human_distribution(C)
    for name, Q in models.items():
        got = cal.evaluate_calibration(C, Q)
        want = _oracle(C, Q)
        for key, value in want.items():
            _close(got[key], value)
        for n_bins in (10, 15):
            for labels in (None, orig):
                _close(cal.ece(C, Q, n_bins=n_bins, labels=labels),
                       _oracle_ece(C, Q, n_bins=n_bins, labels=labels))
            for k in range(3):
                _close(cal.classwise_ece(C, Q, k, n_bins=n_bins),
                       _oracle_ece(C, Q, n_bins=n_bins, k=k))
        _close(cal.human_topk_accuracy(C, Q, 2), want["top2"])
        _close(cal.rank_cs(C, Q), want["rank_cs"])
        _close(cal.dist_ce(C, Q), want["dist_ce"])
        _close(cal.ent_ce(C, Q, signed=True), want["ent_ce_signed"])
        if name == "oracle":
            assert got["dist_ce"] == 0 and got["ent_ce"] < 1e-12 and got["rank_cs"] == 1
            assert got["top1"] == 1 and got["ece"] > 0.05  # the paper's point


def test_rank_convention_on_ties():
    C = np.array([[5, 5, 0], [0, 3, 3]])
    # stable ascending sort: the top of a tie is the highest index
    Q = np.array([[0.1, 0.6, 0.3], [0.1, 0.3, 0.6]])
    assert cal.human_topk_accuracy(C, Q, 1) == 1.0
    # ECE uses argmax: the majority of a tie is the lowest index
    assert cal.reliability_table(C, Q)["accuracy"].sum() == 0.0


def test_subsample_votes_order_and_human_classifiers():
    C, _, logits = _source("snli")
    S = cal.subsample_votes(C, 20, np.random.default_rng(1))
    assert S.shape == (5, C.shape[0], 3) and (S.sum(axis=0) == C).all()
    # the reference: item by item, shuffle the positions of the class-by-class vote list
    rng = np.random.default_rng(1)
    ref = []
    for row in C:
        votes = np.repeat(np.arange(3), row)
        pos = np.arange(votes.size)
        rng.shuffle(pos)
        ref.append([np.bincount(votes[pos[j:j + 20]], minlength=3) for j in range(0, 100, 20)])
    ref = np.array(ref).swapaxes(0, 1)
    assert (ref == S).all()
    H1, H2 = S[0] / 20, S[1] / 20
    for Hs, Rs in ((H1, ref[0] / 20), (H2, ref[1] / 20)):
        assert abs(cal.ece(C, Hs) - _oracle_ece(C, Rs)) <= 1e-12
        tvd = np.mean([0.5 * np.abs(Rs[i] - C[i] / 100).sum() for i in range(len(C))])
        assert abs(cal.dist_ce(C, Hs) - tvd) <= 1e-12
    Q = cal.temperature_scale(logits["roberta-base_seed0"], 1)
    eces = cal.ece_against_samples(S, Q)
    assert eces.shape == (5,) and np.isfinite(eces).all()
    # a legacy RandomState gives the same stream as its own shuffles
    legacy = cal.subsample_votes(C[:20], 20, np.random.RandomState(0))
    assert (legacy.sum(axis=0) == C[:20]).all()


def test_bad_input_is_refused():
    C = np.array([[3, 1], [2, 2]])
    with pytest.raises(ValueError, match="sum to"):
        cal.dist_ce(C, np.array([[0.5, 0.4], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="no human vote"):
        cal.dist_ce(np.array([[0, 0], [1, 1]]), np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="shape"):
        cal.ece(C, np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="divisible"):
        cal.subsample_votes(np.array([[3, 4]]), 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="same number"):
        cal.subsample_votes(np.array([[2, 2], [1, 2]]), 2, np.random.default_rng(0))


def test_temperature_and_fit():
    z = np.array([[2.0, 0.0, -1.0], [0.5, 0.4, 0.1]])
    assert np.allclose(cal.temperature_scale(z, 2.0), special.softmax(z / 2, axis=1))
    C = np.array([[40, 40, 20], [30, 40, 30]])
    fit = cal.fit_temperature(z, C)
    assert 0.05 < fit["temperature"] < 20 and fit["target"] == "soft"
    nll = [-(cal.human_distribution(C) * np.log(cal.temperature_scale(z, t))).sum(1).mean()
           for t in (fit["temperature"] * 0.9, fit["temperature"] * 1.1)]
    assert min(nll) >= fit["nll"] - 1e-9
    table = cal.calibration_table(C, {"m": cal.temperature_scale(z)})
    assert table.loc["oracle (Q = human distribution)", "dist_ce"] == 0.0


@pytest.mark.slow
def test_page_door_equals_logits_at_t2():
    from hlv_core.io import load, load_predictions
    from hlv_core.judging import run_calibration

    folder = shared_path("data", "chaosnli_calibration")
    dataset = load(folder)
    preds = load_predictions(folder / "predictions.csv", dataset)
    table = run_calibration(dataset, preds, temperature=2.0, label_order=LABELS,
                            subset={"source": "snli"}).set_index("model")
    C, _, logits = _source("snli")
    for model, z in logits.items():
        want = cal.evaluate_calibration(C, cal.temperature_scale(z, 2.0))
        for key, value in want.items():
            assert table.at[model, key] == pytest.approx(value, abs=1e-9)


def test_glossary_examples_are_the_engine():
    assert cal.dist_ce([[1, 1]], [[0.8, 0.2]]) == pytest.approx(0.3)
    assert round(cal.ent_ce([[1, 1]], [[0.99, 0.01]]), 2) == 0.64
    assert cal.ece(np.tile([3, 2], (10, 1)), np.tile([0.6, 0.4], (10, 1))) == pytest.approx(0.4)
    assert cal.ece([[1, 1]], [[0.5, 0.5]]) == pytest.approx(0.5)  # the oracle is punished


def test_reference_notebook_bonus_numbers():
    """The authors' notebook (analysis.ipynb, "Bonus figure") prints, for H1, H2 (first two
    blocks of 20 votes, default_rng(1)), RoBERTa seed 0 and RoBERTa-TS (T = 2) against the
    remaining 60 votes: ECE [0.142 0.142 0.151 0.042], DistCE [0.092 0.094 0.261 0.219]."""
    C, _, logits = _source("snli")
    S = cal.subsample_votes(C, 20, np.random.default_rng(1))
    rest = S[2] + S[3] + S[4]
    z = logits["roberta-base_seed0"]
    models = [S[0] / 20, S[1] / 20, cal.temperature_scale(z, 1), cal.temperature_scale(z, 2)]
    assert [round(cal.ece(rest, Q), 3) for Q in models] == [0.142, 0.142, 0.151, 0.042]
    assert [round(cal.dist_ce(rest, Q), 3) for Q in models] == [0.092, 0.094, 0.261, 0.219]
