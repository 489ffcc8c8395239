"""Training lab: train a fast linear text model with each of Kurniawan et al.'s 14 HLV training methods
and compare them with the hard and soft metrics, as deltas against MV.

Kurniawan et al., "Training and Evaluating with Human Label Variation" (arXiv 2502.01891),
sections 4 (methods) and 5 (evaluation protocol, Figures 2-4). The targets of every method come from :mod:`hlv_core.training`; the model
and losses from :mod:`hlv_core._linear`; the metrics from :func:`hlv_core.soft_metrics.evaluate`.

Protocol (paper section 5.1, adapted to a linear model):

* **Split**: the dataset's own ``items.split`` (``train`` / ``dev`` / ``test``; ``validation``
  and ``val`` count as dev). Without a dev split, ``dev_share`` (10%) of the training items is
  held out (``split_seed``). Without a split column: ``n_folds``-fold cross-validation (paper:
  10-fold; default here 5), 10% of each training portion as dev, and the concatenated test
  predictions are evaluated (paper: "we evaluate the concatenated test predictions"). Unlike
  the paper the final fold model is not retrained on train + dev.
* **Features**: TF-IDF word 1-2-grams and character 2-5-grams (``char_wb``), sublinear tf,
  each block L2-normalised, fitted on the training texts of the fold only; cached in the
  process on the texts' content, so seeds, methods and later runs on the same split reuse it.
* **L2 strength** ``lambda = g / n_train`` for ``g`` in ``l2_grid`` (the scikit-learn
  ``C = 1 / g`` convention; default ``C`` in {10, 1, 0.1}), fitted from strong to weak with warm
  starts; the one with the best **geometric mean of the dev metrics** is kept. As in the paper
  (section 5.1 and footnote 13) hard and soft macro F1 are left out of the mean and entropy
  correlation enters as ``(r + 1) / 2``; undefined (NaN) metrics are skipped.
* **Seeds**: each seed re-draws the initial weights. The convex methods
  (:data:`CONVEX_METHODS`: ReL, MV, AR, ARh, AL, SL, SLMV; cross-entropy of a linear model plus
  an L2 penalty, strictly convex in the weights) reach the same optimum whatever the seed (up to
  the optimiser tolerance; tested), so by default (``convex_once``) they are trained once per
  fold, from the first seed, and that fit is every seed's result (``fits["fitted_seed"]`` says
  which seed trained it; the protocol text says so). The non-convex ones (JSD, SmF1, SMF1,
  LA-min, LA-max, AE, AEh) are trained once per seed.
* **Iteration cap**: every fit reports why it stopped (``fits["stop"]``, ``path_stops``);
  :func:`cap_notes` words the fits stopped by the cap, which the page and the CLI show.
* **Deltas**: for every metric, ``value - mean over seeds of MV's value`` (paper section 5.2).
  MV is always trained (added when not requested) because it is the reference.

SLMV has two heads. Row ``SLMV`` scores the hard (MV) head, as the released
code of Kurniawan et al. does (both heads write the same prediction slot and the hard head runs last); row ``SLMV-soft`` scores the soft head of the same fit
(same L2 chosen on the hard head's dev score), which is what the paper reports ("We predict only
the soft labels for evaluation", section 4). Both rows carry a note saying so.

Skips (one row with ``metric = "skipped"`` and the reason in ``note``): AR, ARh, AE, AEh need
annotator identities; AL needs single-label data (the reference raises for multilabel).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import sparse

from . import _linear
from . import soft_metrics as sm
from .io import DataError, Dataset
from .targets import METHODS, method_targets

__all__ = [
    "summary_table",
    "DEFAULT_L2_GRID",
    "LabResult",
    "METRICS",
    "PAPER_METRICS",
    "SELECTION_METRICS",
    "SLMV_SOFT",
    "has_texts",
    "lab_folds",
    "predictions_as_models",
    "compute_deltas",
    "mean_rank",
    "run_lab",
    "run_lab_full",
    "selection_score",
    "summarise",
    "skip_reason",
    "text_features",
    "clear_feature_cache",
    "cap_notes",
    "CONVEX_METHODS",
]

#: ``lambda = g / n_train`` for each g (scikit-learn ``C = 1/g``): C = 10, 1, 0.1.
DEFAULT_L2_GRID: tuple[float, ...] = (0.1, 1.0, 10.0)

#: Every metric a lab run reports (:func:`hlv_core.soft_metrics.evaluate`'s names, in its order)
#: by ``multilabel``: multi-label data has no accuracy (section 5: micro F1 takes its place).
METRICS: dict[bool, tuple[str, ...]] = {
    False: ("hard_accuracy", "hard_micro_f1", "hard_macro_f1", "soft_accuracy", "soft_micro_f1",
            "soft_macro_f1", "po_jsd", "entropy_correlation"),
    True: ("hard_micro_f1", "hard_macro_f1", "soft_micro_f1", "soft_macro_f1", "po_jsd",
           "entropy_correlation"),
}

#: The paper's six metrics (section 5, Figures 2-4) by ``multilabel``.
PAPER_METRICS: dict[bool, tuple[str, ...]] = {
    False: ("hard_accuracy", "hard_macro_f1", "soft_accuracy", "soft_macro_f1", "po_jsd",
            "entropy_correlation"),
    True: ("hard_micro_f1", "hard_macro_f1", "soft_micro_f1", "soft_macro_f1", "po_jsd",
           "entropy_correlation"),
}

#: Metrics of the dev geometric mean (macro F1s excluded, paper section 5.1).
SELECTION_METRICS: dict[bool, tuple[str, ...]] = {
    False: ("hard_accuracy", "soft_accuracy", "po_jsd", "entropy_correlation"),
    True: ("hard_micro_f1", "soft_micro_f1", "po_jsd", "entropy_correlation"),
}

_SPLIT_ALIASES = {
    "train": "train", "training": "train", "dev": "dev", "development": "dev",
    "validation": "dev", "valid": "dev", "val": "dev", "test": "test",
}

#: Methods whose objective is convex in the parameters (cross-entropy of a linear model, or of
#: SLMV's two heads sharing ``W0``, plus an L2 penalty): the optimum does not depend on the seed,
#: which only draws the starting point (Kurniawan et al., section 4, with a linear model)
CONVEX_METHODS: frozenset[str] = frozenset({"ReL", "MV", "AR", "ARh", "AL", "SL", "SLMV"})

_LOSS_OF = {"JSD": "jsd", "SmF1": "soft_micro_f1", "SMF1": "soft_macro_f1",
            "LA-min": "la_min", "LA-max": "la_max"}


# ----------------------------------------------------------------------------- helpers
def has_texts(dataset: Dataset) -> bool:
    """Whether the dataset's items carry texts the lab can train on.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Any dataset.

    Returns
    -------
    bool
        True when ``dataset.items`` has a ``text`` column with at least one non-empty text.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"i{i:02d}" for i in range(40)]
    >>> word = np.where(np.arange(40) % 2 == 0, "good", "bad")  # the text decides the label...
    >>> other = np.where(word == "good", "bad", "good")
    >>> labels = np.where(rng.random((40, 3)) < 0.2, other[:, None], word[:, None])  # ...mostly
    >>> annotations = pd.DataFrame({"item_id": np.repeat(ids, 3),
    ...                             "annotator_id": np.tile(["a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel()})
    >>> items = pd.DataFrame({"item_id": ids, "text": [f"a {w} film" for w in word],
    ...                       "split": ["train"] * 24 + ["dev"] * 8 + ["test"] * 8})
    >>> dataset = build_dataset(annotations, items=items, source="films", format="long")
    >>> has_texts(dataset)
    True
    """
    if "text" not in dataset.items.columns:
        return False
    texts = dataset.items["text"].astype("string").fillna("").str.strip()
    return bool((texts != "").any())


def skip_reason(dataset: Dataset, method: str) -> str | None:
    """Why a training method cannot run on a dataset (None when it can).

    AR, ARh, AE and AEh need annotator identities; AL needs single-label data (Kurniawan et
    al., section 4, Table 3).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    method : str
        One of :data:`hlv_core.targets.METHODS`.

    Returns
    -------
    str or None
        The reason in words.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 4, Table 3.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"i{i:02d}" for i in range(40)]
    >>> word = np.where(np.arange(40) % 2 == 0, "good", "bad")  # the text decides the label...
    >>> other = np.where(word == "good", "bad", "good")
    >>> labels = np.where(rng.random((40, 3)) < 0.2, other[:, None], word[:, None])  # ...mostly
    >>> annotations = pd.DataFrame({"item_id": np.repeat(ids, 3),
    ...                             "annotator_id": np.tile(["a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel()})
    >>> items = pd.DataFrame({"item_id": ids, "text": [f"a {w} film" for w in word],
    ...                       "split": ["train"] * 24 + ["dev"] * 8 + ["test"] * 8})
    >>> dataset = build_dataset(annotations, items=items, source="films", format="long")
    >>> skip_reason(dataset, "AL") is None
    True
    """
    if method in ("AR", "ARh", "AE", "AEh") and not dataset.annotator_ids_known:
        return (f"{method} needs annotator identities linked across items; this dataset has "
                "anonymous annotations.")
    if method == "AL" and dataset.task == "multilabel":
        return "AL is defined for single-label data only (the reference code raises for multilabel)."
    return None


def selection_score(metrics: dict[str, float], *, multilabel: bool = False) -> float:
    """Geometric mean of the dev metrics that picks the L2 strength (Kurniawan et al., section 5.1).

    ``exp(mean_m log v_m)`` over :data:`SELECTION_METRICS` (macro F1s left out, as the
    paper's footnote 13), entropy correlation entering as ``(r + 1) / 2``; values clipped at
    1e-12; NaN metrics skipped; NaN when none is defined.

    Parameters
    ----------
    metrics : dict of str to float
        Dev metrics by name.
    multilabel : bool, default False
        Use the multi-label selection metrics (micro F1 for accuracy).

    Returns
    -------
    float
        The score.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 5.1 and footnote 13.

    Examples
    --------
    (0.8 * 0.7 * 0.9 * 0.6) ** (1/4), with entropy correlation 0.2 -> 0.6:

    >>> dev = {"hard_accuracy": 0.8, "soft_accuracy": 0.7, "po_jsd": 0.9,
    ...        "entropy_correlation": 0.2}
    >>> round(selection_score(dev), 6)
    0.741559
    """
    values = []
    for name in SELECTION_METRICS[multilabel]:
        v = metrics.get(name, math.nan)
        if v is None or not np.isfinite(v):
            continue
        if name == "entropy_correlation":
            v = (v + 1.0) / 2.0
        values.append(max(float(v), 1e-12))
    if not values:
        return math.nan
    return float(np.exp(np.mean(np.log(values))))


#: TF-IDF matrices computed this process, keyed on the texts' content (see :func:`text_features`)
_FEATURE_CACHE: OrderedDict[str, sparse.csr_matrix] = OrderedDict()
_FEATURE_CACHE_MAX = 4  # md_agreement's matrix is ~42 MB (3.5M stored values)
_FEATURE_LOCK = threading.Lock()
_MAX_WORD, _MAX_CHAR = 20_000, 30_000  # vocabulary sizes of :func:`text_features`


def _texts_key(train_texts: Sequence[str], texts: Sequence[str], max_word: int,
               max_char: int) -> str:
    """BLAKE2b digest of both text lists (each text length-prefixed, so no two different lists
    share a key) and the vocabulary sizes."""
    h = hashlib.blake2b(digest_size=20)
    h.update(f"tfidf-v1|{max_word}|{max_char}|".encode())
    for part in (train_texts, texts):
        encoded = [str(t).encode("utf-8", "surrogatepass") for t in part]
        h.update(np.array([len(e) for e in encoded], dtype=np.int64).tobytes())
        h.update(b"".join(encoded))
        h.update(b"|")
    return h.hexdigest()


def clear_feature_cache() -> None:
    """Forget every TF-IDF matrix :func:`text_features` cached in this process.

    Returns
    -------
    None
        Nothing; the cache is empty afterwards.

    Examples
    --------
    >>> X = text_features(["a good film", "a bad film"], ["good"])
    >>> clear_feature_cache()
    """
    with _FEATURE_LOCK:
        _FEATURE_CACHE.clear()


def text_features(train_texts: Sequence[str], texts: Sequence[str], *,
                  max_word: int = _MAX_WORD, max_char: int = _MAX_CHAR) -> sparse.csr_matrix:
    """TF-IDF features of texts, fitted on the training texts (the lab's text representation).

    Word 1-2-grams + ``char_wb`` 2-5-grams (sublinear tf, L2 rows per block), vocabulary and
    idf fitted on ``train_texts``; returns the features of ``texts``. The result is cached in
    this process on the content of both text lists (a hash, not the object identity; the last
    four distinct inputs), so a second run, seed or method on the same split does not
    recompute it. Each call returns its own copy.

    Parameters
    ----------
    train_texts : sequence of str
        Texts the vocabulary and idf are fitted on.
    texts : sequence of str
        Texts to featurise.
    max_word : int, default 20000
        Largest word vocabulary.
    max_char : int, default 30000
        Largest character vocabulary.

    Returns
    -------
    scipy.sparse.csr_matrix
        (len(texts), n_features).

    Raises
    ------
    hlv_core.io.DataError
        The training texts give no features.

    References
    ----------
    .. [1] G. Salton and C. Buckley (1988), "Term-weighting approaches in automatic text
       retrieval", Information Processing & Management 24(5) (tf-idf weights).

    Examples
    --------
    >>> X = text_features(["a good film", "a bad film"], ["good good", "bad"])
    >>> X.shape
    (2, 48)
    """
    train_texts = [str(t) for t in train_texts]
    texts = [str(t) for t in texts]
    key = _texts_key(train_texts, texts, max_word, max_char)
    with _FEATURE_LOCK:
        cached = _FEATURE_CACHE.get(key)
        if cached is not None:
            _FEATURE_CACHE.move_to_end(key)
            return cached.copy()
    feats = _tfidf(train_texts, texts, max_word, max_char)
    with _FEATURE_LOCK:
        _FEATURE_CACHE[key] = feats
        while len(_FEATURE_CACHE) > _FEATURE_CACHE_MAX:
            _FEATURE_CACHE.popitem(last=False)
    return feats.copy()


def _tfidf(train_texts: list[str], texts: list[str], max_word: int,
           max_char: int) -> sparse.csr_matrix:
    from sklearn.feature_extraction.text import TfidfVectorizer

    min_df = 2 if len(train_texts) >= 100 else 1
    blocks = []
    for kwargs in ({"analyzer": "word", "ngram_range": (1, 2), "max_features": max_word,
                    "token_pattern": r"(?u)\b\w+\b"},
                   {"analyzer": "char_wb", "ngram_range": (2, 5), "max_features": max_char}):
        vec = TfidfVectorizer(lowercase=True, sublinear_tf=True, min_df=min_df, dtype=np.float64,
                              **kwargs)
        try:
            vec.fit(train_texts)
        except ValueError:  # empty vocabulary (e.g. only punctuation): skip this block
            continue
        blocks.append(vec.transform(texts))
    if not blocks:
        raise DataError("the training texts give no word or character features.",
                        column="text", fix="check that items.text holds the item texts.")
    return sparse.hstack(blocks, format="csr")


def lab_folds(dataset: Dataset, *, n_folds: int = 5, dev_share: float = 0.1,
              split_seed: int = 0) -> tuple[list[dict[str, np.ndarray]], str]:
    """Train / dev / test item positions of every fold and a description of the protocol.

    The dataset's own ``items.split`` (``train`` / ``dev`` / ``test``; ``validation`` and
    ``val`` count as dev); without a dev split, ``dev_share`` of the training items is held out.
    Without a split column: ``n_folds``-fold cross-validation with ``dev_share`` of each
    training portion as dev (Kurniawan et al., section 5.1). Items without annotations are left
    out.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    n_folds : int, default 5
        Folds of the cross-validation (>= 2).
    dev_share : float, default 0.1
        Share of training items held out as dev.
    split_seed : int, default 0
        Seed of the random split.

    Returns
    -------
    folds : list of dict
        One ``{"train", "dev", "test"}`` dict of positions into ``dataset.item_ids`` per fold.
    protocol : str
        The protocol in words.

    Raises
    ------
    ValueError
        ``n_folds < 2``.
    hlv_core.io.DataError
        Fewer annotated items than folds.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 5.1.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"i{i:02d}" for i in range(40)]
    >>> word = np.where(np.arange(40) % 2 == 0, "good", "bad")  # the text decides the label...
    >>> other = np.where(word == "good", "bad", "good")
    >>> labels = np.where(rng.random((40, 3)) < 0.2, other[:, None], word[:, None])  # ...mostly
    >>> annotations = pd.DataFrame({"item_id": np.repeat(ids, 3),
    ...                             "annotator_id": np.tile(["a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel()})
    >>> items = pd.DataFrame({"item_id": ids, "text": [f"a {w} film" for w in word],
    ...                       "split": ["train"] * 24 + ["dev"] * 8 + ["test"] * 8})
    >>> dataset = build_dataset(annotations, items=items, source="films", format="long")
    >>> folds, protocol = lab_folds(dataset)
    >>> protocol, {part: len(pos) for part, pos in folds[0].items()}
    ('dataset split', {'train': 24, 'dev': 8, 'test': 8})
    """
    rng = np.random.default_rng(split_seed)
    annotated = dataset.annotators_per_item_array() > 0
    if "split" in dataset.items.columns:
        split = (dataset.items["split"].astype("string").fillna("").str.strip().str.lower()
                 .map(lambda s: _SPLIT_ALIASES.get(s, "")).to_numpy())
        split = np.where(annotated, split, "")
        train = np.flatnonzero(split == "train")
        dev = np.flatnonzero(split == "dev")
        test = np.flatnonzero(split == "test")
        if len(train) and len(test):
            note = "dataset split"
            if len(dev) == 0:
                perm = rng.permutation(train)
                n_dev = max(1, int(round(dev_share * len(train)))) if len(train) > 1 else 0
                dev, train = np.sort(perm[:n_dev]), np.sort(perm[n_dev:])
                note += f" (no dev split: {n_dev} training items held out as dev)"
            return [{"train": train, "dev": dev, "test": test}], note
    items = np.flatnonzero(annotated)
    if n_folds < 2:
        raise ValueError("n_folds must be at least 2.")
    if len(items) < n_folds:
        raise DataError(f"{len(items)} annotated items are too few for {n_folds}-fold "
                        "cross-validation.", fix="add items or lower n_folds.")
    perm = rng.permutation(items)
    parts = np.array_split(perm, n_folds)
    folds = []
    for f in range(n_folds):
        rest = rng.permutation(np.concatenate([parts[g] for g in range(n_folds) if g != f]))
        n_dev = max(1, int(round(dev_share * len(rest))))
        folds.append({"train": np.sort(rest[n_dev:]), "dev": np.sort(rest[:n_dev]),
                      "test": np.sort(parts[f])})
    return folds, f"{n_folds}-fold cross-validation (no train/test split in the data)"


def _subset(dataset: Dataset, positions: np.ndarray) -> Dataset:
    """The dataset restricted to the items at ``positions`` (labels and annotators kept)."""
    ids = dataset.item_ids.to_numpy()[positions]
    items = dataset.items.iloc[positions].reset_index(drop=True)
    ann = dataset.annotations[dataset.annotations["item_id"].isin(set(ids))]
    return replace(dataset, annotations=ann.reset_index(drop=True), items=items,
                   predictions=None)


@dataclass
class LabResult:
    """Everything one lab run produced (:func:`run_lab_full`).

    Attributes
    ----------
    results : pandas.DataFrame
        The :func:`run_lab` table.
    predictions : pandas.DataFrame
        Test predictions, long: ``method, seed, item_id, label, prob``.
    fits : pandas.DataFrame
        One row per (method, seed, fold): the chosen ``l2``, its ``dev_score``, ``seconds``
        (0 for a reused fit), ``fitted_seed`` (the seed whose fit it is: the first seed for a
        convex method trained once),
        optimiser ``n_iter``, ``converged`` and ``stop`` (gradient / stalled / cap);
        ``path_iters``, ``path_stops`` and ``path_converged`` over every L2 fit; ``maxiter``
        the iteration cap (:func:`cap_notes` words the capped fits).
    protocol : str
        The protocol in words.
    timings : dict of str to float
        Seconds per method (AE and AEh share one model).

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", sections 4-5 (training methods and their evaluation).

    Examples
    --------
    >>> import pandas as pd
    >>> predictions = pd.DataFrame({"method": "SL", "seed": [0, 0], "item_id": "i1",
    ...                             "label": ["bad", "good"], "prob": [0.2, 0.8]})
    >>> lab = LabResult(results=pd.DataFrame(), predictions=predictions, fits=pd.DataFrame(),
    ...                 protocol="dataset split")
    >>> lab.models()["model"].unique().tolist()
    ['lab SL']
    """

    results: pd.DataFrame
    predictions: pd.DataFrame
    fits: pd.DataFrame
    protocol: str
    timings: dict[str, float] = field(default_factory=dict)

    def models(self, prefix: str = "lab ") -> pd.DataFrame:
        return predictions_as_models(self.predictions, prefix=prefix)


def predictions_as_models(predictions: pd.DataFrame, *, prefix: str = "lab ") -> pd.DataFrame:
    """Each method's test predictions averaged over seeds, as a predictions table.

    As the paper averages its runs before the meta-evaluation (Kurniawan et al., section 6.1);
    model name ``prefix + method`` (the format of uploaded predictions).

    Parameters
    ----------
    predictions : pandas.DataFrame
        Long ``method, seed, item_id, label, prob`` (:attr:`LabResult.predictions`).
    prefix : str, default "lab "
        Prefix of the model names.

    Returns
    -------
    pandas.DataFrame
        Long ``model, item_id, label, prob``.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", sections 4-5 (training methods and their evaluation).

    Examples
    --------
    >>> import pandas as pd
    >>> predictions = pd.DataFrame({"method": "SL", "seed": [0, 0, 1, 1], "item_id": "i1",
    ...                             "label": ["bad", "good"] * 2, "prob": [0.2, 0.8, 0.4, 0.6]})
    >>> predictions_as_models(predictions).round(3)
        model item_id label  prob
    0  lab SL      i1   bad   0.3
    1  lab SL      i1  good   0.7
    """
    if predictions.empty:
        return pd.DataFrame(columns=["model", "item_id", "label", "prob"])
    mean = (predictions.groupby(["method", "item_id", "label"], sort=False)["prob"].mean()
            .reset_index())
    mean.insert(0, "model", prefix + mean.pop("method").astype(str))
    return mean


# ----------------------------------------------------------------------------- training
class _Trainer:
    """Fits one method on one fold's training data for a grid of L2 strengths."""

    def __init__(self, sub: Dataset, X: sparse.csr_matrix, *, rank: int, maxiter: int,
                 tol: float = 1e-5, stall_tol: float | None = None):
        self.sub, self.X = sub, X
        self.ml = sub.task == "multilabel"
        self.labels = list(sub.labels)
        self.position = pd.Index(sub.item_ids)
        self.rank, self.maxiter, self.tol, self.stall_tol = rank, maxiter, tol, stall_tol
        self._targets: dict[str, pd.DataFrame] = {}

    def targets(self, method: str) -> pd.DataFrame:
        key = {"AEh": "AE", "LA-max": "LA-min", "JSD": "SL", "SmF1": "SL", "SMF1": "SL"}.get(
            method, method)
        if key not in self._targets:
            self._targets[key] = method_targets(self.sub, key)
        return self._targets[key]

    def fit(self, method: str, l2: float, seed: int, init):
        frame = self.targets(method)
        rows = self.position.get_indexer(frame["item_id"].to_numpy(dtype=object))
        T = frame[self.labels].to_numpy(dtype=float)
        common = {"multilabel": self.ml, "l2": l2, "seed": seed, "init": init,
                  "maxiter": self.maxiter, "tol": self.tol, "stall_tol": self.stall_tol}
        if method == "SLMV":
            soft = frame["head"].to_numpy() == "soft"
            order_s = np.argsort(rows[soft], kind="stable")
            order_h = np.argsort(rows[~soft], kind="stable")
            return _linear.fit_multitask(self.X, T[soft][order_s], T[~soft][order_h], **common)
        if method in ("AE", "AEh"):
            head_codes, head_names = pd.factorize(frame["head"].to_numpy(dtype=object))
            return _linear.fit_ensemble(self.X, T, rows, head_codes, len(head_names),
                                        rank=self.rank, **common)
        loss = _LOSS_OF.get(method, "ce")
        weights = frame["weight"].to_numpy(dtype=float) if loss == "ce" else None
        return _linear.fit_linear(self.X, T, loss=loss, rows=rows, weights=weights, **common)


#: method name of SLMV scored on its soft head (the head the paper reports)
SLMV_SOFT = "SLMV-soft"
SLMV_NOTES = {
    "SLMV": "hard (MV) head, as the released code; the paper reports the soft head (SLMV-soft)",
    SLMV_SOFT: "soft head of the SLMV fit: the head the paper reports (section 4: 'We predict "
    "only the soft labels for evaluation')",
}


def slmv_soft_proba(fit, X) -> np.ndarray:
    """(N, K) soft-head probabilities of an SLMV fit: softmax (multilabel: sigmoid) of
    ``X (W0 + Ws) + bs`` (``_linear.predict_proba`` returns the hard head)."""
    p = fit.params
    Z = np.asarray(sparse.csr_matrix(X) @ (p["W0"] + p["Ws"])) + p["bs"]
    return _linear._probs(Z, fit.multilabel)


def _evaluate(P: np.ndarray, Q: np.ndarray, multilabel: bool) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sm.evaluate(P, Q, multilabel=multilabel)


def run_lab_full(
    dataset: Dataset,
    *,
    methods: Sequence[str] | None = None,
    seeds: Sequence[int] = (0,),
    progress: Callable[[float, str], None] | None = None,
    metrics: Sequence[str] | None = None,
    l2_grid: Sequence[float] = DEFAULT_L2_GRID,
    n_folds: int = 5,
    dev_share: float = 0.1,
    split_seed: int = 0,
    rank: int = 8,
    maxiter: int = 300,
    tol: float = 1e-5,
    stall_tol: float | None = 1e-4,
    reference: bool = True,
    convex_once: bool = True,
) -> LabResult:
    """Run the training lab and keep everything (Kurniawan et al., sections 4-5, with a linear text model).

    Each method's targets (:mod:`hlv_core.targets`) train a linear model on TF-IDF features
    (:func:`text_features`); the L2 strength ``lambda = g / n_train`` (``g`` in ``l2_grid``) is
    chosen on the dev :func:`selection_score`; test predictions are scored with
    :func:`hlv_core.soft_metrics.evaluate`; deltas are against the mean over seeds of MV. MV
    is always trained (added when not requested) because it is the reference. See the module
    notes for the protocol.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations whose items have texts.
    methods : sequence of str, optional
        Methods of :data:`hlv_core.targets.METHODS` (default all 14).
    seeds : sequence of int, default (0,)
        Seeds of the initial weights.
    progress : callable, optional
        ``progress(fraction, message)``, called before every fit.
    metrics : sequence of str, optional
        Subset of :func:`hlv_core.soft_metrics.evaluate`'s names (default all).
    l2_grid : sequence of float, default :data:`DEFAULT_L2_GRID`
        The g values.
    n_folds : int, default 5
        Folds when the data has no split.
    dev_share : float, default 0.1
        Share of training items held out as dev.
    split_seed : int, default 0
        Seed of the split.
    rank : int, default 8
        AE/AEh encoder rank.
    maxiter : int, default 300
        L-BFGS iteration cap per fit.
    tol : float, default 1e-5
        Projected gradient tolerance per fit.
    stall_tol : float or None, default 1e-4
        A fit also converges when its objective fell by less than this (relative) over 10
        iterations (None: gradient test only).
    reference : bool, default True
        Add MV when not requested (False: deltas NaN unless MV was requested).
    convex_once : bool, default True
        Train the :data:`CONVEX_METHODS` once per fold (from the first seed) and report that
        fit for every seed: their optimum does not depend on the seed. False: one fit per seed.

    Returns
    -------
    LabResult
        Results, test predictions, fits, protocol and timings.

    Raises
    ------
    hlv_core.io.DataError
        Ranking data, or items without texts.
    ValueError
        Unknown methods, no seed or a bad L2 grid.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", sections 4 (methods) and 5 (protocol, Figures 2-4).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"i{i:02d}" for i in range(40)]
    >>> word = np.where(np.arange(40) % 2 == 0, "good", "bad")  # the text decides the label...
    >>> other = np.where(word == "good", "bad", "good")
    >>> labels = np.where(rng.random((40, 3)) < 0.2, other[:, None], word[:, None])  # ...mostly
    >>> annotations = pd.DataFrame({"item_id": np.repeat(ids, 3),
    ...                             "annotator_id": np.tile(["a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel()})
    >>> items = pd.DataFrame({"item_id": ids, "text": [f"a {w} film" for w in word],
    ...                       "split": ["train"] * 24 + ["dev"] * 8 + ["test"] * 8})
    >>> dataset = build_dataset(annotations, items=items, source="films", format="long")
    >>> lab = run_lab_full(dataset, methods=["SL"])
    >>> lab.fits[["method", "seed", "fold"]].to_numpy().tolist()
    [['MV', 0, 0], ['SL', 0, 0]]
    """
    _check_lab_dataset(dataset)
    requested = list(METHODS) if methods is None else list(dict.fromkeys(methods))
    unknown = [m for m in requested if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(METHODS)}.")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("give at least one seed.")
    if not l2_grid or any(g <= 0 for g in l2_grid):
        raise ValueError("l2_grid must hold positive numbers.")
    ml = dataset.task == "multilabel"
    notes: dict[str, str] = {}
    if "MV" not in requested and reference:
        requested.insert(0, "MV")
        notes["MV"] = "added as the reference of the deltas"
    skipped = {m: r for m in requested if (r := skip_reason(dataset, m)) is not None}
    notes["SLMV"] = SLMV_NOTES["SLMV"]
    notes[SLMV_SOFT] = SLMV_NOTES[SLMV_SOFT]
    to_run = [m for m in METHODS if m in requested and m not in skipped]

    folds, protocol = lab_folds(dataset, n_folds=n_folds, dev_share=dev_share,
                                split_seed=split_seed)
    protocol += _convex_once_note(seeds, convex_once)
    texts = dataset.items["text"].astype("string").fillna("").to_numpy(dtype=object)
    P_all = dataset.judgements_array()
    item_ids = dataset.item_ids.to_numpy()
    labels = list(dataset.labels)
    total = max(1, len(to_run) * len(seeds) * len(folds))
    done = 0
    timings = {m: 0.0 for m in to_run}
    fit_rows: list[dict] = []
    preds: dict[tuple[str, int], list[tuple[np.ndarray, np.ndarray]]] = {}

    def _record(method, seed, fitted_seed, best, path_fits, seconds):
        """Test predictions and the fits row of one (method, seed) of the current fold."""
        score, lam, fit = best
        Q_te = _linear.predict_proba(fit, X_te, hard_ensemble=method == "AEh")
        timings[method] += seconds
        preds.setdefault((method, seed), []).append((fold["test"], Q_te))
        if method == "SLMV":  # the paper's head, from the same fit
            preds.setdefault((SLMV_SOFT, seed), []).append(
                (fold["test"], slmv_soft_proba(fit, X_te)))
        fit_rows.append({"method": method, "seed": seed, "fold": f, "l2": lam,
                         "dev_score": score, "seconds": seconds, "fitted_seed": fitted_seed,
                         "n_iter": fit.info.get("n_iter"),
                         "converged": fit.info.get("converged"),
                         "stop": fit.info.get("stop"),
                         "path_iters": "/".join(str(i.get("n_iter")) for i in path_fits),
                         "path_stops": "/".join(str(i.get("stop")) for i in path_fits),
                         "path_converged": all(i.get("converged") for i in path_fits),
                         "maxiter": maxiter})

    for f, fold in enumerate(folds if to_run else []):
        feats = text_features(texts[fold["train"]], texts)
        X_tr, X_dev, X_te = feats[fold["train"]], feats[fold["dev"]], feats[fold["test"]]
        P_dev = P_all[fold["dev"]]
        trainer = _Trainer(_subset(dataset, fold["train"]), X_tr, rank=rank, maxiter=maxiter,
                           tol=tol, stall_tol=stall_tol)
        n_train = len(fold["train"])
        grid = sorted((g / n_train for g in l2_grid), reverse=True)
        trained_once: dict[str, tuple] = {}  # convex method -> (best, path_fits, seed)
        for seed in seeds:
            ensemble_cache: dict[float, object] = {}
            for method in to_run:
                if progress is not None:
                    progress(done / total, f"{method}, seed {seed}"
                             + (f", fold {f + 1}/{len(folds)}" if len(folds) > 1 else ""))
                start = time.perf_counter()
                if method in trained_once:  # convex: the first seed's fit is every seed's
                    best, path_fits, fitted_seed = trained_once[method]
                    _record(method, seed, fitted_seed, best, path_fits, 0.0)
                    done += 1
                    continue
                best = (-math.inf, None, None)
                init = None
                # warm starts along the path: strong -> weak penalty for the single-head
                # models; weak -> strong for the low-rank ensemble, whose strong-penalty
                # solution is the saddle at U = V = 0 that a warm start would never leave
                path = grid[::-1] if method in ("AE", "AEh") else grid
                lams = path if len(fold["dev"]) else [grid[len(grid) // 2]]
                path_fits = []
                for step, lam in enumerate(lams):
                    if progress is not None and step:  # within a method: one call per L2 fit
                        progress((done + step / len(lams)) / total,
                                 f"{method}, seed {seed}, L2 {step + 1}/{len(lams)}")
                    if method in ("AE", "AEh") and lam in ensemble_cache:
                        fit = ensemble_cache[lam]
                    else:
                        fit = trainer.fit(method, lam, seed, init)
                        if method in ("AE", "AEh"):
                            ensemble_cache[lam] = fit
                    init = fit.theta()
                    path_fits.append(fit.info)
                    if not len(fold["dev"]):
                        best = (math.nan, lam, fit)
                        break
                    Q_dev = _linear.predict_proba(fit, X_dev, hard_ensemble=method == "AEh")
                    score = selection_score(_evaluate(P_dev, Q_dev, ml), multilabel=ml)
                    if best[2] is None or (np.isfinite(score) and score > best[0]):
                        best = (score, lam, fit)
                if convex_once and method in CONVEX_METHODS:
                    trained_once[method] = (best, path_fits, seed)
                _record(method, seed, seed, best, path_fits, time.perf_counter() - start)
                done += 1
    if progress is not None:
        progress(1.0, "done")

    # evaluation on the (concatenated) test predictions
    rows: list[dict] = []
    pred_frames = []
    for (method, seed), parts in preds.items():
        pos = np.concatenate([p for p, _ in parts])
        Q = np.vstack([q for _, q in parts])
        result = _evaluate(P_all[pos], Q, ml)
        for metric, value in result.items():
            if metrics is None or metric in metrics:
                note = notes.get(method, "")
                if not np.isfinite(value):  # every undefined value carries its reason
                    note = "; ".join(x for x in (note, _nan_reason(metric, P_all[pos], Q, ml))
                                     if x)
                rows.append({"method": method, "seed": seed, "metric": metric,
                             "value": float(value), "note": note})
        pred_frames.append(pd.DataFrame({
            "method": method, "seed": seed,
            "item_id": np.repeat(item_ids[pos], len(labels)),
            "label": np.tile(labels, len(pos)), "prob": Q.ravel()}))
    results = pd.DataFrame(rows, columns=["method", "seed", "metric", "value", "note"])
    results.insert(4, "delta_vs_mv", math.nan)
    results = compute_deltas(results)
    if skipped:
        skip_rows = pd.DataFrame([{"method": m, "seed": math.nan, "metric": "skipped",
                                   "value": math.nan, "delta_vs_mv": math.nan, "note": r}
                                  for m, r in skipped.items()])
        results = pd.concat([results, skip_rows], ignore_index=True) if len(results) \
            else skip_rows
    results = _in_method_order(results, ["method", "seed"])
    predictions = (pd.concat(pred_frames, ignore_index=True) if pred_frames else
                   pd.DataFrame(columns=["method", "seed", "item_id", "label", "prob"]))
    return LabResult(results, predictions, pd.DataFrame(fit_rows), protocol, timings)


def _check_lab_dataset(dataset: Dataset) -> None:
    """Raise the lab's DataError for data it cannot train on (task, texts)."""
    if dataset.task not in ("multiclass", "multilabel", "rating"):
        raise DataError(f"the training lab needs multiclass, rating or multilabel data; "
                        f"'{dataset.name}' is {dataset.task}.",
                        fix="choose a dataset with one label (or label set) per annotation.")
    if not has_texts(dataset):
        raise DataError(f"the training lab trains a text classifier, but the items of "
                        f"'{dataset.name}' carry no texts.", column="text",
                        fix="add a 'text' column to the items table.")


def _convex_once_note(seeds: Sequence[int], convex_once: bool) -> str:
    """The protocol's sentence on the convex methods trained once (empty for one seed)."""
    if not (convex_once and len(seeds) > 1):
        return ""
    return ("; the convex methods (" + ", ".join(m for m in METHODS if m in CONVEX_METHODS)
            + f") trained once, from seed {seeds[0]}, and shared by every seed (their "
            "optimum does not depend on the seed)")


def _in_method_order(table: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """``table`` sorted (stable) by ``by``, the ``method`` column in :data:`METHODS` order
    (SLMV-soft right after SLMV)."""
    order = {m: i for i, m in enumerate(METHODS)}
    order[SLMV_SOFT] = order["SLMV"] + 0.5
    return table.sort_values(by, key=lambda s: s.map(order) if s.name == "method" else s,
                             kind="stable", ignore_index=True)


def _prime_features(entries: dict[str, sparse.csr_matrix]) -> None:
    """Put matrices computed by another process into this process's feature cache."""
    with _FEATURE_LOCK:
        for key, feats in entries.items():
            _FEATURE_CACHE[key] = feats
        while len(_FEATURE_CACHE) > _FEATURE_CACHE_MAX:
            _FEATURE_CACHE.popitem(last=False)


def _fold_features(dataset: Dataset,
                   folds: list[dict[str, np.ndarray]]) -> dict[str, sparse.csr_matrix]:
    """Every fold's TF-IDF matrix as :func:`run_lab_full` computes it, under its cache key
    (for :func:`_prime_features` in another process)."""
    texts = dataset.items["text"].astype("string").fillna("").to_numpy(dtype=object)
    out = {}
    for fold in folds:
        train = [str(t) for t in texts[fold["train"]]]
        key = _texts_key(train, [str(t) for t in texts], _MAX_WORD, _MAX_CHAR)
        out[key] = text_features(train, texts)
    return out


def cap_notes(fits: pd.DataFrame) -> list[str]:
    """One sentence per method whose fits stopped at the L-BFGS iteration cap instead of converging.

    Any fit along the L2 path counts, and the sentence says when the chosen fit is one of them.

    Parameters
    ----------
    fits : pandas.DataFrame
        :attr:`LabResult.fits`.

    Returns
    -------
    list of str
        Empty when every fit converged.

    Examples
    --------
    >>> import pandas as pd
    >>> fits = pd.DataFrame({"method": ["SMF1"], "seed": [0], "fold": [0], "stop": ["cap"],
    ...                      "path_stops": ["gradient/cap/cap"], "maxiter": [300]})
    >>> cap_notes(fits)[0][:60]
    'SMF1 stopped at the iteration cap (300 L-BFGS iterations) be'
    """
    if fits.empty or "path_stops" not in fits.columns:
        return []
    stops = fits["path_stops"].astype(str).str.split("/")
    n_capped = stops.map(lambda parts: parts.count("cap"))
    capped = fits[n_capped > 0].assign(n_capped=n_capped[n_capped > 0],
                                       n_path=stops[n_capped > 0].map(len))
    notes = []
    for method, group in capped.groupby("method", sort=False):
        cap = int(group["maxiter"].iloc[0]) if "maxiter" in group.columns else None
        folds = fits["fold"].nunique() > 1
        parts = [f"seed {int(r.seed)}" + (f" fold {int(r.fold) + 1}" if folds else "")
                 + f": {int(r.n_capped)} of {int(r.n_path)} L2 fits"
                 + (" (including the chosen one)" if r.stop == "cap" else "")
                 for r in group.itertuples()]
        notes.append(f"{method} stopped at the iteration cap"
                     + (f" ({cap} L-BFGS iterations)" if cap else "")
                     + " before converging -- " + "; ".join(parts)
                     + ". Its scores are those of the unfinished fit.")
    return notes


def _nan_reason(metric: str, P: np.ndarray, Q: np.ndarray, multilabel: bool) -> str:
    """Why ``metric`` is undefined on (P, Q): the matching :func:`soft_metrics.undefined_notes`."""
    from . import soft_metrics as sm

    notes = sm.undefined_notes(P, Q, multilabel=multilabel)
    named = [n for n in notes if metric.replace("_", " ") in n.lower()]
    return " ".join(named or notes) or f"{metric} is undefined (0/0) on these test items."


def compute_deltas(results: pd.DataFrame) -> pd.DataFrame:
    """(Re)compute the deltas against MV (Kurniawan et al., section 5.2).

    ``delta_vs_mv = value - mean over seeds of MV's value`` per metric; NaN when MV has no
    finite value for the metric. Skipped rows are left alone.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`run_lab` rows (``method, seed, metric, value``), e.g. several runs combined.

    Returns
    -------
    pandas.DataFrame
        A copy with ``delta_vs_mv`` filled.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 5.2.

    Examples
    --------
    MV's mean hard accuracy over two seeds is 0.81:

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "method": ["MV", "MV", "MV", "MV", "SL", "SL", "SL", "SL", "AR"],
    ...     "seed": [0, 0, 1, 1, 0, 0, 1, 1, 0],
    ...     "metric": ["hard_accuracy", "po_jsd"] * 4 + ["skipped"],
    ...     "value": [0.80, 0.70, 0.82, 0.72, 0.79, 0.78, 0.81, 0.80, float("nan")],
    ...     "delta_vs_mv": float("nan"),
    ...     "note": [""] * 8 + ["AR needs annotator identities"]})
    >>> deltas = compute_deltas(results)
    >>> deltas[deltas.metric == "hard_accuracy"]["delta_vs_mv"].round(3).tolist()
    [-0.01, 0.01, -0.02, 0.0]
    """
    out = results.copy()
    ran = out["metric"] != "skipped"
    mv_mean = out[ran & (out["method"] == "MV")].groupby("metric")["value"].mean()
    out.loc[ran, "delta_vs_mv"] = out.loc[ran, "value"] - out.loc[ran, "metric"].map(mv_mean)
    return out


def _t_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    from scipy import stats

    v = values[np.isfinite(values)]
    if len(v) == 0:
        return math.nan, math.nan, math.nan
    mean = float(v.mean())
    if len(v) < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + confidence / 2, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))
    return mean, mean - half, mean + half


def summarise(results: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Mean over seeds with a Student-t interval, per method and metric (Kurniawan et al., section 5.2).

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`run_lab` rows (with ``delta_vs_mv``).
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    pandas.DataFrame
        ``method, metric, n_seeds, mean, ci_low, ci_high, delta, delta_low, delta_high`` (NaN
        intervals with a single seed); methods in paper order; skipped methods left out.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating
       with human label variation: an empirical study", sections 4-5 (training methods and their evaluation).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "method": ["MV", "MV", "MV", "MV", "SL", "SL", "SL", "SL", "AR"],
    ...     "seed": [0, 0, 1, 1, 0, 0, 1, 1, 0],
    ...     "metric": ["hard_accuracy", "po_jsd"] * 4 + ["skipped"],
    ...     "value": [0.80, 0.70, 0.82, 0.72, 0.79, 0.78, 0.81, 0.80, float("nan")],
    ...     "delta_vs_mv": float("nan"),
    ...     "note": [""] * 8 + ["AR needs annotator identities"]})
    >>> table = summarise(compute_deltas(results))
    >>> table[table.method == "SL"][["metric", "n_seeds", "mean", "delta"]].round(3)
              metric  n_seeds  mean  delta
    2  hard_accuracy        2  0.80  -0.01
    3         po_jsd        2  0.79   0.08
    """
    ran = results[results["metric"] != "skipped"]
    rows = []
    for (method, metric), group in ran.groupby(["method", "metric"], sort=False):
        mean, lo, hi = _t_interval(group["value"].to_numpy(dtype=float), confidence)
        dmean, dlo, dhi = _t_interval(group["delta_vs_mv"].to_numpy(dtype=float), confidence)
        rows.append({"method": method, "metric": metric, "n_seeds": int(group["seed"].nunique()),
                     "mean": mean, "ci_low": lo, "ci_high": hi,
                     "delta": dmean, "delta_low": dlo, "delta_high": dhi})
    return pd.DataFrame(rows, columns=["method", "metric", "n_seeds", "mean", "ci_low", "ci_high",
                                       "delta", "delta_low", "delta_high"])


def mean_rank(results: pd.DataFrame, *, metrics: Sequence[str] | None = None) -> pd.Series:
    """Mean over metrics of each method's rank (the order of Kurniawan et al.'s delta plots, Figures 2-4).

    Each method is ranked by its mean value over seeds (1 = best; higher values are better for
    every metric; ties share the average rank; NaN values are not ranked).

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`run_lab` rows.
    metrics : sequence of str, optional
        Metrics to average over (default all).

    Returns
    -------
    pandas.Series
        ``mean_rank`` per method, sorted ascending.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 5.2, Figures 2-4.

    Examples
    --------
    MV wins on hard accuracy, SL on PO-JSD:

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "method": ["MV", "MV", "MV", "MV", "SL", "SL", "SL", "SL", "AR"],
    ...     "seed": [0, 0, 1, 1, 0, 0, 1, 1, 0],
    ...     "metric": ["hard_accuracy", "po_jsd"] * 4 + ["skipped"],
    ...     "value": [0.80, 0.70, 0.82, 0.72, 0.79, 0.78, 0.81, 0.80, float("nan")],
    ...     "delta_vs_mv": float("nan"),
    ...     "note": [""] * 8 + ["AR needs annotator identities"]})
    >>> mean_rank(results).to_dict()
    {'MV': 1.5, 'SL': 1.5}
    """
    ran = results[results["metric"] != "skipped"]
    if metrics is not None:
        ran = ran[ran["metric"].isin(metrics)]
    wide = ran.groupby(["method", "metric"])["value"].mean().unstack("metric")
    ranks = wide.rank(axis=0, ascending=False, method="average")
    return ranks.mean(axis=1).sort_values(kind="stable").rename("mean_rank")


def run_lab(
    dataset: Dataset,
    *,
    methods: Sequence[str] | None = None,
    seeds: Sequence[int] = (0,),
    progress: Callable[[float, str], None] | None = None,
    **options,
) -> pd.DataFrame:
    """Train the linear text model with each HLV training method and score it on test items (Kurniawan et al., sections 4-5).

    ``progress(fraction, message)`` is called before every fit. The test predictions
    (``method, seed, item_id, label, prob``) are in ``result.attrs["predictions"]``;
    :func:`run_lab_full` returns them with the chosen L2 strengths and timings.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        Multiclass, rating or multilabel annotations whose items have texts.
    methods : sequence of str, optional
        Methods of :data:`hlv_core.targets.METHODS` (default all 14).
    seeds : sequence of int, default (0,)
        Seeds.
    progress : callable, optional
        Progress callback.
    **options
        See :func:`run_lab_full`.

    Returns
    -------
    pandas.DataFrame
        ``method, seed, metric, value, delta_vs_mv, note`` (metric names as
        :func:`hlv_core.soft_metrics.evaluate`; ``delta_vs_mv`` = value minus the mean over
        seeds of MV's value), plus one row per skipped method with ``metric = "skipped"`` and
        the reason in ``note``.

    Raises
    ------
    hlv_core.io.DataError
        Ranking data, or items without texts.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", sections 4 (methods) and 5 (protocol, Figures 2-4).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"i{i:02d}" for i in range(40)]
    >>> word = np.where(np.arange(40) % 2 == 0, "good", "bad")  # the text decides the label...
    >>> other = np.where(word == "good", "bad", "good")
    >>> labels = np.where(rng.random((40, 3)) < 0.2, other[:, None], word[:, None])  # ...mostly
    >>> annotations = pd.DataFrame({"item_id": np.repeat(ids, 3),
    ...                             "annotator_id": np.tile(["a1", "a2", "a3"], 40),
    ...                             "label": labels.ravel()})
    >>> items = pd.DataFrame({"item_id": ids, "text": [f"a {w} film" for w in word],
    ...                       "split": ["train"] * 24 + ["dev"] * 8 + ["test"] * 8})
    >>> dataset = build_dataset(annotations, items=items, source="films", format="long")
    >>> results = run_lab(dataset, methods=["SL"])
    >>> sorted(set(results["method"])), results["metric"].nunique()
    (['MV', 'SL'], 8)
    >>> float(results[results.method == "MV"]["delta_vs_mv"].abs().max())
    0.0
    """
    lab = run_lab_full(dataset, methods=methods, seeds=seeds, progress=progress, **options)
    out = lab.results
    out.attrs["predictions"] = lab.predictions
    out.attrs["protocol"] = lab.protocol
    return out


def summary_table(results: pd.DataFrame) -> pd.DataFrame:
    """Wide table of lab results: one row per method in Kurniawan et al.'s order.

    ``<metric>`` = mean over seeds and ``<metric> delta`` = mean delta vs MV; skipped methods
    keep their reason in ``note``. The Training lab page and the ``lab`` command show it.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`run_lab` rows.

    Returns
    -------
    pandas.DataFrame
        Indexed by method.

    References
    ----------
    .. [1] K. Kurniawan, M. Mistica, T. Baldwin and J. H. Lau, "Training and evaluating with
       human label variation: an empirical study", section 5.2 (Figures 2-4).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "method": ["MV", "MV", "MV", "MV", "SL", "SL", "SL", "SL", "AR"],
    ...     "seed": [0, 0, 1, 1, 0, 0, 1, 1, 0],
    ...     "metric": ["hard_accuracy", "po_jsd"] * 4 + ["skipped"],
    ...     "value": [0.80, 0.70, 0.82, 0.72, 0.79, 0.78, 0.81, 0.80, float("nan")],
    ...     "delta_vs_mv": float("nan"),
    ...     "note": [""] * 8 + ["AR needs annotator identities"]})
    >>> table = summary_table(compute_deltas(results))
    >>> table[["hard_accuracy", "po_jsd delta"]].round(3).rename_axis(index=None, columns=None)
        hard_accuracy  po_jsd delta
    MV           0.81          0.00
    AR            NaN           NaN
    SL           0.80          0.08
    >>> table.loc["AR", "note"]
    'AR needs annotator identities'
    """
    ran = results[results["metric"] != "skipped"]
    mean = ran.groupby(["method", "metric"], sort=False)[["value", "delta_vs_mv"]].mean()
    wide = mean["value"].unstack("metric")
    delta = mean["delta_vs_mv"].unstack("metric").add_suffix(" delta")
    out = wide.join(delta)
    cols = [c for m in wide.columns for c in (m, f"{m} delta")]
    out = out[cols]
    skipped = results[results["metric"] == "skipped"].set_index("method")["note"]
    out = out.reindex([m for m in METHODS if m in out.index or m in skipped.index])
    out["note"] = skipped.reindex(out.index).fillna("")
    return out
