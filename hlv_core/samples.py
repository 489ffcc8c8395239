"""Bundled sample data: seeded generators for the synthetic samples and loaders for all samples.

``python -m hlv_core.samples`` rewrites ``sample_data/`` from the generators (deterministic for a
seed). The dermatology sample is the real CC BY 4.0 data of Stutz et al. (see its README); only its
model predictions are synthetic.

Synthetic samples:

* ``case_review`` (multiclass): short case summaries judged ``liable / not_liable / unclear`` by 12
  lawyers in two camps (claimant-side vs defence-side practice) that disagree systematically on
  "contested" cases; annotator traits ``group, gender, experience``; 3 models of different quality.
* ``legal_areas`` (multilabel): help-seeker problem texts tagged with areas of law by 6 lawyers
  (one or more labels each; the style of Kurniawan et al.'s TAG data); 3 models (sigmoid outputs).
* ``ratings`` (rating, ordinal 1-5): acceptability ratings of sentences by 10 raters with a
  lenient/strict bias by age group; 2 models.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from .io import Dataset, load, load_predictions

__all__ = [
    "SAMPLES",
    "SAMPLE_DIR",
    "comparison_datasets",
    "load_sample",
    "sample_path",
    "write_samples",
]

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"

SAMPLES: dict[str, dict[str, str]] = {
    "case_review": {"title": "Case review (multiclass, two camps)", "task": "multiclass"},
    "legal_areas": {"title": "Legal areas (multi-label)", "task": "multilabel"},
    "ratings": {"title": "Acceptability ratings (ordinal 1-5)", "task": "rating"},
    "dermatology": {"title": "Dermatology differential diagnoses (ranked, real)", "task": "ranking"},
}


def sample_path(name: str) -> Path:
    r"""The folder (or file) of a bundled sample.

    Unknown names raise ``KeyError`` listing the samples.

    Parameters
    ----------
    name : str
        A key of :data:`SAMPLES`.

    Returns
    -------
    pathlib.Path

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.1 (the dermatology data).
    .. [2] Kurniawan et al. (2025), arXiv:2502.01891. Section 5.1 (datasets of the kind the
       synthetic samples imitate).

    Examples
    --------
    >>> sample_path("case_review").name
    'case_review'
    """
    if name not in SAMPLES:
        raise KeyError(f"unknown sample {name!r}; choose one of {list(SAMPLES)}")
    return SAMPLE_DIR / name


def load_sample(name: str) -> Dataset:
    r"""Load a bundled sample, with its predictions, as a :class:`~hlv_core.io.Dataset`.

    The canonical samples through ``load(folder)``; dermatology (the real partial rankings of
    Stutz et al. 2023, section 3.1) from its selectors JSON with class names and risk groups.

    Parameters
    ----------
    name : str
        ``"case_review"``, ``"legal_areas"``, ``"ratings"`` or ``"dermatology"``.

    Returns
    -------
    hlv_core.io.Dataset

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.1 (the dermatology data).
    .. [2] Kurniawan et al. (2025), arXiv:2502.01891. Section 5.1 (datasets of the kind the
       synthetic samples imitate).

    Examples
    --------
    >>> dataset = load_sample("case_review")
    >>> dataset.task, dataset.labels
    ('multiclass', ('liable', 'not_liable', 'unclear'))
    """
    folder = sample_path(name)
    if name == "dermatology":
        dataset = load(
            folder / "dermatology_selectors.json",
            format="selectors",
            conditions=folder / "dermatology_conditions.txt",
            risks=folder / "dermatology_risks.txt",
        )
        preds = load_predictions(folder / "predictions.csv", dataset, name="predictions.csv")
        dataset = dataclasses.replace(dataset, predictions=preds, name=name)
    else:
        dataset = load(folder, name=name)
    dataset.report.source = f"sample_data/{name}"
    return dataset


def comparison_datasets(current: Dataset | None = None) -> dict[str, Dataset]:
    r"""The datasets of the alpha vs sigma comparison (Basile's Figure 2).

    .. math:: (\alpha, \sigma, \sigma_{\mathrm{rnd}}) \text{ per dataset}

    every bundled sample with annotator ids (rankings left out), plus ``current`` labelled
    ``"<name> (current)"``.

    Parameters
    ----------
    current : hlv_core.io.Dataset, optional

    Returns
    -------
    dict of str to hlv_core.io.Dataset

    References
    ----------
    .. [1] Basile. "A Measure of Systematic Disagreement". Sections 4.3-4.4, Table 2, Figure 2.

    Examples
    --------
    >>> list(comparison_datasets())
    ['case_review', 'legal_areas', 'ratings']
    """
    name = None if current is None else str(current.name)
    datasets: dict[str, Dataset] = {}
    for sample_name, info in SAMPLES.items():
        if info.get("task") == "ranking":
            continue
        sample = load_sample(sample_name)
        if sample.annotator_ids_known:
            datasets[f"{sample_name} (current)" if sample_name == name else sample_name] = sample
    if current is not None and name not in SAMPLES:
        datasets[f"{name} (current)"] = current
    return datasets


# --------------------------------------------------------------------------- generators
def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def _model_predictions(
    rng: np.random.Generator, P: np.ndarray, quality: float, temperature: float
) -> np.ndarray:
    """A model's distribution: log of the human distribution blurred with noise.
    ``quality`` in [0, 1] weights the human signal; ``temperature`` < 1 is over-confident."""
    logits = quality * np.log(P + 0.05) + (1 - quality) * rng.normal(0, 1.2, P.shape)
    return _softmax(logits / temperature)


_PARTIES = ["tenant", "employee", "driver", "shop owner", "patient", "contractor", "neighbour",
            "student", "landlord", "café owner"]
_EVENTS = [
    "withheld rent after repeated requests to fix the heating were ignored",
    "was dismissed two days after reporting a safety issue",
    "reversed into a parked car while the other car's hazard lights were off",
    "sold a used laptop that stopped working a week later",
    "was given the wrong dosage after a handwritten prescription was misread",
    "left a renovation unfinished after the client paid the second instalment",
    "cut back a tree that overhung the boundary without asking",
    "missed an exam after the university changed the room at short notice",
    "kept the deposit citing wear and tear documented only in photos",
    "served food labelled gluten-free that contained traces of wheat",
]
_DETAILS = ["Emails exist for part of the timeline.", "There were no witnesses.",
            "A written contract was signed but not dated.", "Both sides dispute the timeline.",
            "A similar incident happened a year earlier.", "The other party admits partial fault.",
            "Receipts were kept.", "Only a verbal agreement existed."]


def _case_review(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    n_items, labels = 240, ["liable", "not_liable", "unclear"]
    annotators = pd.DataFrame(
        {
            "annotator_id": [f"lawyer_{i:02d}" for i in range(1, 13)],
            "group": ["claimant-side"] * 6 + ["defence-side"] * 6,
            "gender": rng.choice(["female", "male", "nonbinary"], 12, p=[0.5, 0.45, 0.05]),
            "experience": rng.choice(["junior", "senior"], 12),
        }
    )
    # the text carries signal (so the training lab has something to learn): each event type
    # leans towards liable or not liable, some details raise "unclear" or contestedness
    event = rng.integers(0, len(_EVENTS), n_items)
    detail = rng.integers(0, len(_DETAILS), n_items)
    party = rng.integers(0, len(_PARTIES), n_items)
    lean = np.linspace(-0.9, 0.9, len(_EVENTS))[event]
    unclear_boost = np.isin(detail, [1, 3, 7]) * 1.2  # no witnesses, disputed, verbal only
    alpha = np.stack([2.0 + 2.5 * lean, 2.0 - 2.5 * lean, 0.6 + unclear_boost], axis=1)
    base = rng.gamma(np.clip(alpha, 0.2, None))
    base /= base.sum(axis=1, keepdims=True)
    contested = rng.random(n_items) < np.where(np.isin(detail, [3, 4]), 0.7, 0.25)
    camp = np.repeat([0, 1], 6)
    rows = []
    texts = [
        f"The {_PARTIES[p]} {_EVENTS[e]}. {_DETAILS[d]}"
        for p, e, d in zip(party, event, detail, strict=True)
    ]
    # (annotators x items) label probabilities: camps shift mass on contested items
    shift = np.zeros((2, n_items, 3))
    shift[0, contested] = [0.45, -0.35, -0.10]
    shift[1, contested] = [-0.35, 0.45, -0.10]
    probs = np.clip(base[None] + shift, 0.01, None)
    probs /= probs.sum(axis=-1, keepdims=True)
    coverage = rng.random((12, n_items)) < 0.55
    coverage[rng.integers(0, 6, n_items), np.arange(n_items)] = True  # >= 1 per camp
    coverage[rng.integers(6, 12, n_items), np.arange(n_items)] = True
    cum = probs[camp].cumsum(axis=-1)
    draws = (rng.random((12, n_items, 1)) > cum).sum(axis=-1)
    a_idx, i_idx = np.nonzero(coverage)
    for a, i in zip(a_idx, i_idx, strict=True):
        rows.append((f"case_{i + 1:03d}", annotators["annotator_id"][a], labels[draws[a, i]]))
    annotations = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    annotations = annotations.sort_values(["item_id", "annotator_id"]).reset_index(drop=True)
    items = pd.DataFrame(
        {
            "item_id": [f"case_{i + 1:03d}" for i in range(n_items)],
            "split": rng.choice(["train", "dev", "test"], n_items, p=[0.6, 0.2, 0.2]),
            "text": texts,
            "contested": np.where(contested, "yes", "no"),
        }
    )
    return {"annotations": annotations, "items": items, "annotators": annotators,
            "labels": pd.DataFrame({"label": labels})}


_AREAS = ["Employment", "Housing and tenancies", "Family", "Consumer", "Neighbourhood disputes",
          "Not a legal issue"]
_PROBLEMS = {
    0: ["my boss cut my hours after I asked for overtime pay", "I was let go without notice"],
    1: ["the landlord will not return my bond", "there is mould in the flat and no repairs"],
    2: ["my ex is not following the parenting arrangement", "we are separating and share a loan"],
    3: ["the phone I bought online never arrived", "a gym keeps charging me after I cancelled"],
    4: ["the neighbour's dog barks all night", "the fence between our houses is falling down"],
    5: ["I want advice on which suburb to move to", "how do I start learning to drive"],
}


def _legal_areas(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    n_items, k = 180, len(_AREAS)
    annot = [f"lawyer_{c}" for c in "ABCDEF"]
    primary = rng.integers(0, k, n_items)
    secondary = rng.integers(0, k - 1, n_items)
    has_secondary = rng.random(n_items) < 0.45
    texts = []
    for i in range(n_items):
        text = str(rng.choice(_PROBLEMS[int(primary[i])]))
        if has_secondary[i]:
            text += " and also " + str(rng.choice(_PROBLEMS[int(secondary[i])]))
        texts.append(text[0].upper() + text[1:] + ".")
    p_select = np.full((n_items, k), 0.04)
    p_select[np.arange(n_items), primary] = 0.9
    p_select[np.arange(n_items)[has_secondary], secondary[has_secondary]] = 0.55
    specialist = rng.integers(0, k - 1, len(annot))  # each lawyer over-selects a specialty
    rows = []
    for a, name in enumerate(annot):
        who = rng.random(n_items) < 0.8
        p = p_select.copy()
        p[:, specialist[a]] = np.minimum(p[:, specialist[a]] + 0.15, 0.95)
        chosen = rng.random((n_items, k)) < p
        none = ~chosen.any(axis=1)
        chosen[none, primary[none]] = True
        for i, j in zip(*np.nonzero(chosen & who[:, None]), strict=True):
            rows.append((f"req_{i + 1:03d}", name, _AREAS[j]))
    annotations = pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"])
    counts = annotations.groupby("item_id")["annotator_id"].nunique()
    keep = set(counts[counts >= 2].index)
    annotations = annotations[annotations["item_id"].isin(keep)].reset_index(drop=True)
    items = pd.DataFrame(
        {
            "item_id": [f"req_{i + 1:03d}" for i in range(n_items)],
            "split": rng.choice(["train", "dev", "test"], n_items, p=[0.6, 0.2, 0.2]),
            "text": texts,
        }
    )
    items = items[items["item_id"].isin(keep)]
    annotators = pd.DataFrame(
        {"annotator_id": annot, "specialty": [_AREAS[s] for s in specialist],
         "experience": rng.choice(["junior", "senior"], len(annot))}
    )
    return {"annotations": annotations, "items": items, "annotators": annotators,
            "labels": pd.DataFrame({"label": _AREAS})}


_SENTENCES = ["The committee have decided to postpone the vote.", "Me and him went to the shop.",
              "Less people attended than expected.", "She don't mind the noise.",
              "Whom should I say is calling?", "The data is clear on this point.",
              "Between you and I, it was a mistake.", "There's three options left.",
              "He could care less about the result.", "Neither of the answers are right."]


def _ratings(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    n_items, n_raters = 200, 10
    raters = pd.DataFrame(
        {
            "annotator_id": [f"rater_{i:02d}" for i in range(1, n_raters + 1)],
            "age_group": ["under_30"] * 5 + ["over_50"] * 5,
            "gender": rng.choice(["female", "male"], n_raters),
        }
    )
    quality = rng.normal(3.0, 1.0, n_items)
    colloquial = rng.random(n_items) < 0.4
    leniency = rng.normal(0, 0.3, n_raters) + np.where(np.arange(n_raters) < 5, 0.4, -0.4)
    mean = quality[None, :] + leniency[:, None] * colloquial[None, :] * 2
    scores = np.clip(np.rint(mean + rng.normal(0, 0.7, mean.shape)), 1, 5).astype(int)
    coverage = rng.random((n_raters, n_items)) < 0.6
    coverage[rng.integers(0, n_raters, n_items), np.arange(n_items)] = True
    coverage[(rng.integers(0, n_raters, n_items) + 3) % n_raters, np.arange(n_items)] = True
    r_idx, i_idx = np.nonzero(coverage)
    annotations = pd.DataFrame(
        {
            "item_id": [f"sent_{i + 1:03d}" for i in i_idx],
            "annotator_id": raters["annotator_id"].to_numpy()[r_idx],
            "label": scores[r_idx, i_idx].astype(str),
        }
    ).sort_values(["item_id", "annotator_id"]).reset_index(drop=True)
    texts = [f"{rng.choice(_SENTENCES)} (variant {i + 1})" for i in range(n_items)]
    items = pd.DataFrame(
        {
            "item_id": [f"sent_{i + 1:03d}" for i in range(n_items)],
            "split": rng.choice(["train", "dev", "test"], n_items, p=[0.6, 0.2, 0.2]),
            "text": texts,
            "register": np.where(colloquial, "colloquial", "formal"),
        }
    )
    return {"annotations": annotations, "items": items, "annotators": raters,
            "labels": pd.DataFrame({"label": ["1", "2", "3", "4", "5"],
                                    "value": [1, 2, 3, 4, 5]})}


def _predictions_for(
    rng: np.random.Generator, tables: dict[str, pd.DataFrame], models: dict[str, tuple],
    multilabel: bool,
) -> pd.DataFrame:
    ann = tables["annotations"]
    labels = tables["labels"]["label"].tolist()
    items = tables["items"]["item_id"].tolist()
    n_ann = ann.groupby("item_id")["annotator_id"].nunique().reindex(items).to_numpy()
    counts = (
        ann.groupby(["item_id", "label"]).size().unstack(fill_value=0)
        .reindex(index=items, columns=labels, fill_value=0).to_numpy()
    )
    P = counts / n_ann[:, None]
    frames = []
    for model, (quality, temperature) in models.items():
        if multilabel:
            clipped = np.clip(P, 0.03, 0.97)
            logit = quality * np.log(clipped / (1 - clipped)) + (1 - quality) * rng.normal(
                0, 2.0, P.shape
            )
            Q = 1.0 / (1.0 + np.exp(-logit / temperature))
        else:
            Q = _model_predictions(rng, P, quality, temperature)
        Q = np.round(Q, 6)
        if not multilabel:
            Q[:, -1] = np.round(1.0 - Q[:, :-1].sum(axis=1), 6)
            Q = np.clip(Q, 0, 1)
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "item_id": np.repeat(items, len(labels)),
                    "label": np.tile(labels, len(items)),
                    "prob": Q.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _dermatology_predictions(rng: np.random.Generator, folder: Path) -> pd.DataFrame:
    dataset = load(
        folder / "dermatology_selectors.json",
        format="selectors",
        conditions=folder / "dermatology_conditions.txt",
    )
    P = dataset.judgements_array()
    frames = []
    for model, (quality, temperature) in {
        "derm_model_a": (0.85, 0.8), "derm_model_b": (0.6, 1.0), "derm_model_c": (0.35, 1.2),
    }.items():
        logits = quality * np.log(P + 0.01) + (1 - quality) * rng.gumbel(0, 1.5, P.shape)
        Q = _softmax(logits / temperature)
        top = np.argsort(-Q, axis=1, kind="stable")[:, :10]
        probs = np.take_along_axis(Q, top, axis=1)
        probs = np.round(probs / probs.sum(axis=1, keepdims=True), 6)
        probs[:, -1] = np.round(1.0 - probs[:, :-1].sum(axis=1), 6)
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "item_id": np.repeat(dataset.item_ids.to_numpy(), 10),
                    "label": np.asarray(dataset.labels, dtype=object)[top.ravel()],
                    "prob": np.clip(probs.ravel(), 0, 1),
                    "rank": np.tile(np.arange(1, 11), len(P)),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def write_samples(seed: int = 20261123, root: Path = SAMPLE_DIR) -> None:
    r"""Regenerate every synthetic sample (and the dermatology predictions) under ``root``.

    Deterministic for a seed; the bundled files are this function's output for the default seed.

    Parameters
    ----------
    seed : int, default 20261123
    root : pathlib.Path
        Output folder (default: the bundled ``sample_data``).

    Returns
    -------
    None

    References
    ----------
    .. [1] Stutz, Cemgil, Roy et al. (2023). "Evaluating AI systems under uncertain ground truth:
       a case study in dermatology". arXiv:2307.02191. Section 3.1 (the dermatology data).
    .. [2] Kurniawan et al. (2025), arXiv:2502.01891. Section 5.1 (datasets of the kind the
       synthetic samples imitate).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_samples(root=pathlib.Path(folder))
    ...     print(sorted(p.name for p in pathlib.Path(folder).iterdir()))
    ['case_review', 'legal_areas', 'ratings']
    """
    rng = np.random.default_rng(seed)
    specs = {
        # "overconfident" wins the hard metrics, "calibrated" the soft ones: the choice of
        # metric changes the winner, which is what the soft-metrics page teaches.
        "case_review": (_case_review, {"calibrated": (0.8, 1.2), "overconfident": (0.95, 0.25),
                                       "weak": (0.35, 1.0)}, False),
        "legal_areas": (_legal_areas, {"calibrated": (0.85, 1.0), "overconfident": (0.97, 0.25),
                                       "weak": (0.3, 1.0)}, True),
        "ratings": (_ratings, {"calibrated": (0.8, 1.2), "overconfident": (0.95, 0.25),
                               "weak": (0.3, 1.0)}, False),
    }
    for name, (generator, models, multilabel) in specs.items():
        tables = generator(rng)
        tables["predictions"] = _predictions_for(rng, tables, models, multilabel)
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for table_name, frame in tables.items():
            frame.to_csv(folder / f"{table_name}.csv", index=False)
    derm = root / "dermatology"
    if (derm / "dermatology_selectors.json").exists():
        _dermatology_predictions(rng, derm).to_csv(derm / "predictions.csv", index=False)


if __name__ == "__main__":
    write_samples()
    for sample in SAMPLES:
        ds = load_sample(sample)
        print(sample, ds.task, ds.n_items, ds.n_annotators, len(ds.annotations))
