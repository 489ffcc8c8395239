"""Models against the human pool: alt-test, human ceiling, calibration, each against a
straightforward reference run in the same process (results asserted equal).

Run: ``python bench/bench_judge.py`` (needs ``../shared/data``). Prints best-of-N wall-clock
times (and the CPU time of the vectorised run) and the ratio.

* alt-test on md_agreement (hard-label model, epsilon 0.2): ``hlv_core.judge.alt_test`` vs the
  paper's procedure written with dictionaries and loops (Calderon et al., section 3), one scipy
  ``ttest_1samp`` per annotator and a loop BY step-up;
* human ceiling on md_agreement with 1,000 bootstrap replicates: ``human_ceiling`` vs a loop
  over annotators calling ``soft_metrics.evaluate`` / ``hard_prfs`` / ``soft_prfs`` for the
  point values and ``soft_metrics.bootstrap_ci`` (1,000 replicates) per annotator (point values
  asserted equal; CI endpoints depend on the random stream and are not compared);
* calibration on 3,000 items (synthetic counts of 100 votes, 3 classes):
  ``evaluate_calibration`` vs per-item loops (TVD, scipy entropy, stable sorted ranks, the bin
  loop of ECE, sklearn macro F1).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import f1_score

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import best_of  # noqa: E402

from hlv_core import calibration as cal  # noqa: E402
from hlv_core import judge  # noqa: E402
from hlv_core import soft_metrics as sm  # noqa: E402
from hlv_core.io import load  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


# ------------------------------------------------------------------------------ alt-test
def alt_test_loops(humans: dict, model: dict, epsilon: float, q: float = 0.05):
    per_item: dict = {}
    for h, anns in humans.items():
        for i in anns:
            per_item.setdefault(i, []).append(h)
    p_values, rhos = {}, {}
    for h, anns in humans.items():
        d, wf = [], []
        for i, y in anns.items():
            if i not in model or len(per_item[i]) < 2:
                continue
            others = [humans[o][i] for o in per_item[i] if o != h]
            s_h = sum(r == y for r in others) / len(others)
            s_f = sum(r == model[i] for r in others) / len(others)
            wf.append(int(s_f >= s_h))
            d.append(int(s_h >= s_f) - wf[-1])
        if len(d) < 30:
            continue
        with np.errstate(all="ignore"):
            p_values[h] = float(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        rhos[h] = float(np.mean(wf))
    names = list(p_values)
    m = len(names)
    c = sum(1.0 / k for k in range(1, m + 1))
    order = sorted(names, key=lambda h: (np.isnan(p_values[h]), p_values[h]))
    k = 0
    for rank, h in enumerate(order, start=1):
        if p_values[h] <= rank * q / (m * c):
            k = rank
    return k / m, float(np.mean(list(rhos.values()))), p_values


def bench_alt_test() -> None:
    dataset = load(DATA / "md_agreement")
    items = pd.read_csv(DATA / "md_agreement" / "items.csv", dtype=str)
    model = dict(zip(items["item_id"], items["hard_label"], strict=True))
    frame = dataset.annotations.astype(str)
    humans: dict = {}
    for i, a, y in frame.itertuples(index=False):
        humans.setdefault(a, {})[i] = y
    res = judge.alt_test(dataset, model, epsilon=0.2)
    ref = alt_test_loops(humans, model, 0.2)
    assert res.winning_rate == ref[0] and abs(res.rho - ref[1]) <= 1e-12
    got = res.per_annotator.set_index("annotator")["p_value"]
    for h, p in ref[2].items():
        assert (np.isnan(p) and np.isnan(got[h])) or abs(got[h] - p) <= 1e-9 * max(p, 1e-300)
    fast = best_of(lambda: judge.alt_test(dataset, model, epsilon=0.2), 3)
    cpu = _cpu(lambda: judge.alt_test(dataset, model, epsilon=0.2))
    slow = best_of(lambda: alt_test_loops(humans, model, 0.2), 1)
    print(f"alt-test md_agreement ({len(frame):,} annotations, {res.n_tested} tested): "
          f"vectorised {fast * 1e3:.0f} ms (CPU {cpu * 1e3:.0f} ms), loops {slow * 1e3:.0f} ms, "
          f"{slow / fast:.1f}x")


# ------------------------------------------------------------------------------ ceiling
def ceiling_loops(dataset, n_boot: int):
    frame = dataset.annotations.astype(str)
    labels = list(dataset.labels)
    sets: dict = {}
    for i, a, y in frame.itertuples(index=False):
        sets.setdefault(i, {})[a] = y
    items_of: dict = {}
    for i, anns in sets.items():
        for a in anns:
            items_of.setdefault(a, []).append(i)
    out = {}
    for a, its in items_of.items():
        P, Q = [], []
        for i in its:
            others = [y for o, y in sets[i].items() if o != a]
            if len(others) < 2:
                continue
            P.append([others.count(lab) / len(others) for lab in labels])
            Q.append([float(sets[i][a] == lab) for lab in labels])
        if len(P) < 30:
            continue
        P, Q = np.array(P), np.array(Q)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = sm.evaluate(P, Q)
            values["hard_macro_recall"] = sm.hard_prfs(P, Q)["macro_recall"]
            values["soft_macro_precision"] = sm.soft_prfs(P, Q)["macro_precision"]
            if n_boot:
                sm.bootstrap_ci(P, Q, n_boot=n_boot, seed=0)
        out[a] = values
    return out


def bench_ceiling() -> None:
    dataset = load(DATA / "md_agreement")
    res = judge.human_ceiling(dataset, n_boot=1000)
    ref = ceiling_loops(dataset, 0)
    table = res.per_annotator.set_index(["annotator", "metric"])["value"]
    for a, values in ref.items():
        for metric, value in values.items():
            got = table[(a, metric)]
            assert (np.isnan(value) and np.isnan(got)) or abs(got - value) <= 1e-9, (a, metric)
    fast = best_of(lambda: judge.human_ceiling(dataset, n_boot=1000), 2)
    cpu = _cpu(lambda: judge.human_ceiling(dataset, n_boot=1000))
    slow = best_of(lambda: ceiling_loops(dataset, 1000), 1)
    print(f"human ceiling md_agreement, 1,000 replicates ({len(ref)} annotators scored): "
          f"vectorised {fast:.2f} s (CPU {cpu:.2f} s), loop over annotators with "
          f"bootstrap_ci {slow:.2f} s, {slow / fast:.1f}x")


# --------------------------------------------------------------------------- calibration
def calibration_loops(C, Q):
    H = C / C.sum(axis=1, keepdims=True)
    n = len(C)
    out = {"dist_ce": np.mean([0.5 * sum(abs(Q[i] - H[i])) for i in range(n)])}
    ents = [stats.entropy(Q[i]) - stats.entropy(H[i]) for i in range(n)]
    out["ent_ce"] = np.mean(np.abs(ents))
    rq = [sorted(range(3), key=lambda k, i=i: Q[i][k]) for i in range(n)]
    rc = [sorted(range(3), key=lambda k, i=i: C[i][k]) for i in range(n)]
    out["rank_cs"] = np.mean([a == b for a, b in zip(rq, rc, strict=True)])
    out["top1"] = np.mean([a[-1] == b[-1] for a, b in zip(rq, rc, strict=True)])
    conf, pred, y = Q.max(axis=1), Q.argmax(axis=1), C.argmax(axis=1)
    rows = []
    edges = np.linspace(0, 1, 11)
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        idx = [i for i in range(n) if a < conf[i] <= b]
        if idx:
            rows.append((np.mean(conf[idx]), np.mean(y[idx] == pred[idx]), len(idx)))
    s = np.array(rows)
    out["ece"] = np.average(np.abs(s[:, 0] - s[:, 1]), weights=s[:, 2])
    out["f1_macro"] = f1_score(y, pred, average="macro")
    return out


def bench_calibration() -> None:
    rng = np.random.default_rng(0)
    C = rng.multinomial(100, [0.5, 0.3, 0.2], size=3000)
    Q = cal.temperature_scale(rng.normal(size=(3000, 3)) * 2)
    got = cal.evaluate_calibration(C, Q)
    for key, value in calibration_loops(C, Q).items():
        assert abs(got[key] - value) <= 1e-9, key
    fast = best_of(lambda: cal.evaluate_calibration(C, Q), 5)
    cpu = _cpu(lambda: cal.evaluate_calibration(C, Q))
    slow = best_of(lambda: calibration_loops(C, Q), 1)
    print(f"evaluate_calibration, 3,000 items: vectorised {fast * 1e3:.1f} ms (CPU "
          f"{cpu * 1e3:.1f} ms), per-item loops {slow * 1e3:.0f} ms, {slow / fast:.0f}x")


if __name__ == "__main__":
    bench_alt_test()
    bench_ceiling()
    bench_calibration()
