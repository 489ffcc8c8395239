"""Perspectives: PERSEVAL evaluation (Lo, Casola et al.). Does a model serve every kind of user?

Build a user-disjoint split, compare the baselines (and uploaded per-(user, text) predictions)
globally, per user, per text and per trait value with bootstrap CIs over users."""

from __future__ import annotations

import hashlib
import io

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hlv_core import perspectivist as P
from hlv_core.io import DataError, Dataset
from hlv_core.perspectivist import (
    headline_label,
    headline_table,
    item_predictions_per_user,
    worst_groups,
)
from hlv_core.text import md
from hlv_ui.perspectives_figures import group_histogram, trait_figure
from hlv_ui.state import frame_hash, get_predictions, require_dataset, show_data_error
from hlv_ui.widgets import download_table, lazy_tabs, show_table

st.title("Perspectives")
st.caption(
    "PERSEVAL (Lo, Casola, Sezerer, Basile et al., EMNLP 2025): an instance is a (user, text) "
    "pair; the users a model is tested on never annotated its training data. Scores are given "
    "globally, per user, per text and per trait value, so you can see whether a model serves "
    "some kinds of users worse than others."
)

dataset = require_dataset(tasks=("multiclass", "rating"), need_ids=True)

ADAPTATION = {"none": False, "train": "train", "test": "test"}


@st.cache_data(show_spinner="Building the split…", max_entries=16)
def split_cached(_dataset: Dataset, dataset_hash: str, traits_hash: str, share: float, adaptation: str,
                 extended: bool, seed: int, reserve: str, adaptation_share: float,
                 baseline: bool, stratify: str | None = None) -> P.PerspectivistSplits:
    del dataset_hash, traits_hash  # cache key only
    return P.make_splits(
        _dataset, test_user_share=share, adaptation=ADAPTATION[adaptation], extended=extended,
        seed=seed, baseline=baseline, adaptation_share=adaptation_share,
        train_only_text_share=reserve if reserve == "auto" else float(reserve),
        stratify=stratify,
    )


@st.cache_data(show_spinner="Running the baselines…", max_entries=16)
def baselines_cached(_splits: P.PerspectivistSplits, split_key: str):
    del split_key
    return P.run_baselines(_splits)


@st.cache_data(show_spinner="Scoring…", max_entries=64)
def evaluate_cached(_preds: pd.DataFrame, _gold: pd.DataFrame, _traits, labels: tuple,
                    key: str) -> P.PerspectivistReport:
    del key
    return P.evaluate(_preds, _gold, traits=_traits, labels=labels)


@st.cache_data(show_spinner="Bootstrapping over users…", max_entries=32)
def bootstrap_cached(_preds: pd.DataFrame, _gold: pd.DataFrame, _traits, labels: tuple,
                     key: str, n_boot: int, seed: int) -> pd.DataFrame:
    del key
    return P.bootstrap_users(_preds, _gold, traits=_traits, labels=labels, n_boot=n_boot,
                             seed=seed)


@st.cache_data(show_spinner=False, max_entries=16)
def per_user_cached(_preds: pd.DataFrame | None, _test: pd.DataFrame, labels: tuple, key: str
                    ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Item-level models as per-(user, text) predictions on the test pairs."""
    del key
    return item_predictions_per_user(_preds, _test, labels)


@st.cache_data(show_spinner="Reading predictions…", max_entries=8, scope="session")
def parse_upload(raw: bytes, digest: str) -> pd.DataFrame:
    del digest
    try:
        frame = pd.read_csv(io.BytesIO(raw), dtype=str, sep=None, engine="python")
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"could not read the CSV ({exc}).", source="predictions upload",
                        fix="upload a CSV with columns annotator_id, item_id, label.") from exc
    return frame


# ------------------------------------------------------------------------------- split controls
st.subheader("1. Split")
has_traits = P.trait_table(dataset.annotators).shape[1] > 0
cols = st.columns(4)
share = cols[0].slider("Test-user share", 0.05, 0.5, 0.2, 0.05, key="perspectives.share",
                       help="Share of annotators that become test users (PERSEVAL: 20%).")
adaptation = cols[1].radio(
    "Adaptation", list(ADAPTATION), index=0 if has_traits else 2, key="perspectives.adaptation",
    horizontal=True,
    help="A few labels of each test user: none; added to training ('train'); or a separate "
    "adaptation split used after training ('test').")
extended = cols[2].toggle(
    "Extended training set", value=False, key="perspectives.extended",
    help="Keep test texts in training when other (training) annotators labelled them. Off: "
    "every label of a test text is removed from training (strict).")
seed = int(cols[3].number_input("Seed", 0, 2**31 - 1, 0, key="perspectives.seed"))
more = st.expander("More split settings")
with more:
    trait_columns = list(P.trait_table(dataset.annotators).columns)
    stratify_choice = st.selectbox(
        "Stratify test users by trait", ["(no stratification)", *trait_columns],
        index=1 if trait_columns else 0, key="perspectives.stratify",
        help="Draw test users within every value of this trait, so each group is represented "
        "among the test users (the reference stratifies HS-Brexit by group).")
    stratify = None if stratify_choice == "(no stratification)" else stratify_choice
    c1, c2, c3 = st.columns(3)
    adaptation_share = c1.slider(
        "Adaptation share", 0.01, 0.3, 0.05, 0.01, key="perspectives.adapt_share",
        help="Share of the test users' annotations whose texts become adaptation texts "
        "(PERSEVAL: 5%). Test users left without an adaptation label are dropped.")
    reserve = c2.selectbox(
        "Texts reserved for training", ["auto", "0", "0.2", "0.5", "0.7"],
        key="perspectives.reserve",
        help="Share of texts only training annotators keep (needed for dense data where every "
        "annotator labels every text). 'auto': the smallest share keeping test instances "
        "≤ 20% of training + test.")
    baseline = c3.checkbox(
        "Allow unnamed without adaptation (baseline)", value=False,
        key="perspectives.baseline",
        help="PERSEVAL refuses the unnamed task without adaptation: the model knows nothing "
        "about the test users. Tick to build a user-agnostic baseline split anyway.")
# traits decide named vs unnamed (content_hash covers them too; kept as an explicit key)
traits_hash = frame_hash(dataset.annotators)
try:
    splits = split_cached(dataset, dataset.content_hash, traits_hash, share, adaptation, extended, seed,
                          reserve, adaptation_share, baseline, stratify)
except DataError as error:
    show_data_error(error)
    st.stop()
split_key = f"{dataset.content_hash}|{traits_hash}|{share}|{adaptation}|{extended}|{seed}|{reserve}|" \
            f"{adaptation_share}|{baseline}|{stratify}"
sizes = splits.sizes()
m = st.columns(4)
m[0].metric("Task", "named" if splits.named else "unnamed")
for col, row in zip(m[1:], sizes.itertuples(index=False), strict=True):
    col.metric(f"{row.split.capitalize()} instances", f"{row.instances:,}",
               help=f"{row.users:,} users · {row.texts:,} texts")
show_table(sizes, hide_index=True, width="stretch")
for note in splits.notes:
    st.info(md(note))
st.caption(
    f"Seed {seed} · reserve {splits.train_only_text_share:g} · "
    f"{'extended' if splits.extended else 'strict'} · adaptation {adaptation}. "
    "The test split is the same for every adaptation mode and training variant."
)
d1, d2 = st.columns(2)
with d1:
    download_table(lambda: splits.table().assign(seed=seed), f"perseval_split_seed{seed}.csv", key="perspectives.dl_split",
                   label="Download split (CSV)")
with d2:
    download_table(splits.test[["annotator_id", "item_id"]], f"perseval_test_pairs_seed{seed}.csv",
                   key="perspectives.dl_pairs", label="Download test pairs to predict (CSV)")

# ------------------------------------------------------------------------------- models
st.subheader("2. Models")
models, skipped = baselines_cached(splits, split_key)
models = dict(models)
gold_sets: dict[str, pd.DataFrame] = {name: splits.test for name in models}
# score cache keys: baselines are fixed by the split; other models by their contents
keys = {name: f"{split_key}|baseline|{name}" for name in models}
for name, reason in skipped.items():
    st.caption(f"Baseline *{md(name)}* skipped: {md(reason)}")

# item-level model predictions of the dataset, applied to every test user of a text
dataset_preds = get_predictions()
preds_hash = frame_hash(dataset_preds)
item_models, item_notes = per_user_cached(dataset_preds, splits.test, tuple(dataset.labels),
                                         f"{split_key}|{preds_hash}")
for note in item_notes:
    st.caption(md(note))
models.update(item_models)
gold_sets.update({name: splits.test for name in item_models})
keys.update({name: f"{split_key}|{preds_hash}|{name}" for name in item_models})

upload = st.file_uploader(
    "Upload per-(user, text) predictions (CSV: annotator_id or user_id, item_id or text_id, "
    "label)", type=["csv", "tsv", "txt"], key="perspectives.upload")
upload_mode = st.radio(
    "Score uploaded predictions on", ["this split's test set", "the pairs in the file"],
    key="perspectives.upload_mode", horizontal=True,
    help="This split: the file must predict exactly the test pairs above (missing or extra "
    "pairs are an error). Pairs in the file: gold labels come from the dataset.")
if upload is not None:
    raw = upload.getvalue()
    try:
        frame = parse_upload(raw, hashlib.sha256(raw).hexdigest())
        if upload_mode == "the pairs in the file":
            gold = P.gold_for_pairs(frame, dataset)
        else:
            gold = splits.test
        P.evaluate(frame, gold, labels=dataset.labels)  # validates pairs and labels
        name = f"upload: {upload.name}"
        models[name] = frame
        gold_sets[name] = gold
        keys[name] = f"{split_key}|{frame_hash(frame)}|{frame_hash(gold)}"
    except DataError as error:
        show_data_error(error)

traits = splits.traits
labels = tuple(dataset.labels)
head_label = headline_label(labels)
positive = None if head_label == "macro" else head_label


def content_key(name: str) -> str:
    """Cache key of one model's scores: the contents of its predictions and gold, never its
    name alone (a model re-trained or re-uploaded under the same name must give new numbers)."""
    return keys[name]


def report_for(name: str) -> P.PerspectivistReport:
    return evaluate_cached(models[name], gold_sets[name], traits, labels, content_key(name))


@st.cache_data(show_spinner=False, max_entries=16)
def comparison_cached(names: tuple[str, ...], score_keys: tuple[str, ...]) -> pd.DataFrame:
    """The headline table of every model (one summary per model, from the cached reports)."""
    del score_keys
    return headline_table(pd.concat([report_for(n).summary().assign(model=n) for n in names],
                                    ignore_index=True), labels)


@st.cache_data(show_spinner=False, max_entries=32)
def lewidi_cached(_preds: pd.DataFrame, _gold: pd.DataFrame, labels: tuple, key: str) -> dict:
    del key
    return P.lewidi_scores(_preds, _gold, labels=labels)


comparison = comparison_cached(tuple(models), tuple(keys[n] for n in models))
st.markdown(
    f"**Comparison.** Headline F1 is the {'positive class ' + repr(positive) if positive else 'macro average'}"
    " (PERSEVAL reports the positive class for binary tasks, macro for multi-class). "
    "User- and text-level scores are unweighted means over users / texts where the class "
    "occurs."
)
show_table(comparison.style.format(precision=3), hide_index=True, width="stretch")
download_table(comparison.assign(seed=seed), "perseval_comparison.csv",
               key="perspectives.dl_comparison")
fig = go.Figure()
for level in ("global", "user", "text"):
    fig.add_bar(name=level, x=comparison["model"], y=comparison[f"{level} F1 ({head_label})"])
fig.update_layout(barmode="group", yaxis_title=f"F1 ({head_label})", height=360,
                  margin={"t": 30})
st.plotly_chart(fig, width="stretch", key="perspectives.cmp_chart")

# ------------------------------------------------------------------------------- details
st.subheader("3. One model in detail")
chosen = st.selectbox("Model", list(models), key="perspectives.model")
report = report_for(chosen)
summary = report.summary()
glob = summary[summary["level"] == "global"].pivot_table(
    index="label", columns="metric", values="value", sort=False)
glob = glob.reindex(columns=["precision", "recall", "f1", "accuracy"])
st.markdown("**Global metrics** (all test instances pooled; zero_division = 0)")
show_table(glob.style.format(precision=3, na_rep="–"), width="stretch")
c1, c2 = st.columns(2)
with c1:
    download_table(glob.reset_index().assign(model=chosen, seed=seed),
                   "perseval_global.csv", key="perspectives.dl_global")
with c2:
    download_table(summary.assign(model=chosen, seed=seed), "perseval_summary.csv",
                   key="perspectives.dl_summary", label="Download full summary (CSV)")
try:
    lewidi = lewidi_cached(models[chosen], gold_sets[chosen], labels, content_key(chosen))
    st.caption(
        f"LeWiDi 2025 perspectivist scores (lower is better): error rate "
        f"{lewidi['error_rate']:.4f}; normalised absolute distance "
        f"{lewidi['normalised_absolute_distance']:.4f} (scale {lewidi['scale']:g} labels)."
    )
except DataError as error:
    show_data_error(error)

metric_options = {f"F1 ({head_label})": f"f1:{head_label}", "accuracy": "accuracy"}
if head_label != "macro":
    metric_options["macro F1"] = "f1:macro"
metric_name = st.radio("Per-group metric", list(metric_options), horizontal=True,
                       key="perspectives.metric")
column = metric_options[metric_name]

def user_tab() -> None:
    per_user = report.per_user[["n", column]].rename(columns={column: metric_name})
    defined = per_user.dropna()
    st.caption(f"{len(defined)} of {len(per_user)} users have a defined {metric_name} "
               "(the class occurs in their gold labels or predictions).")
    fig = group_histogram(defined, metric_name, "Distribution over test users")
    st.plotly_chart(fig, width="stretch", key="perspectives.user_hist")
    worst = worst_groups(report.per_user, column).rename(columns={column: metric_name})
    if traits is not None:
        worst = worst.join(traits, how="left")
    st.markdown("**Worst-served users**")
    show_table(worst.style.format(precision=3, subset=[metric_name]), width="stretch")
    download_table(report.per_user.reset_index().assign(model=chosen, seed=seed),
                   "perseval_per_user.csv", key="perspectives.dl_user")


def text_tab() -> None:
    per_text = report.per_text[["n", column]].rename(columns={column: metric_name})
    defined_t = per_text.dropna()
    fig = group_histogram(defined_t, metric_name, "Distribution over test texts")
    st.plotly_chart(fig, width="stretch", key="perspectives.text_hist")
    hardest = worst_groups(report.per_text, column).rename(columns={column: metric_name})
    if "text" in dataset.items.columns:
        texts = dataset.items.set_index("item_id")["text"].astype(str).str.slice(0, 160)
        hardest = hardest.join(texts, how="left")
    st.markdown("**Hardest texts**")
    show_table(hardest, width="stretch")
    download_table(report.per_text.reset_index().assign(model=chosen, seed=seed),
                   "perseval_per_text.csv", key="perspectives.dl_text")


def trait_tab() -> None:
    if report.per_trait.empty:
        st.info("No trait-level scores: this split is unnamed (the dataset has no annotator "
                "traits) or no test user has a known trait value.")
        return
    dims = list(dict.fromkeys(report.per_trait.index.get_level_values("dimension")))
    b1, b2, b3 = st.columns(3)
    dim = b1.selectbox("Trait", dims, key="perspectives.dim")
    n_boot = int(b2.number_input("Bootstrap replicates", 100, 5000, 500, 100,
                                 key="perspectives.n_boot"))
    boot_seed = int(b3.number_input("Bootstrap seed", 0, 2**31 - 1, seed,
                                    key="perspectives.boot_seed"))
    boot = bootstrap_cached(models[chosen], gold_sets[chosen], traits, labels,
                            content_key(chosen), n_boot, boot_seed)
    metric_key, label_key = (("accuracy", "macro") if column == "accuracy"
                             else ("f1", column.split(":", 1)[1]))
    sel = boot[(boot["level"] == f"trait:{dim}") & (boot["metric"] == metric_key)
               & (boot["label"] == label_key) & (boot["group"] != "mean")]
    counts = report.per_trait.loc[dim, ["n_users", "n"]]
    sel = sel.merge(counts, left_on="group", right_index=True, how="left")
    fig = trait_figure(sel, metric_name, dim, boot_seed)
    st.plotly_chart(fig, width="stretch", key="perspectives.trait_bars")
    st.caption("Trait values 'UNK', 'DATA_EXPIRED' and missing are skipped; numeric traits "
               "with many values (e.g. age) are grouped into quartiles. A value with few "
               "users has a wide interval: do not read a gap there as under-service.")
    gaps = report.trait_gaps(metric=metric_key, label=label_key)
    st.markdown("**Best- vs worst-served trait value per dimension**")
    show_table(gaps.style.format(precision=3, subset=["best", "worst", "gap"]),
                 hide_index=True, width="stretch")
    e1, e2, e3 = st.columns(3)
    with e1:
        download_table(report.per_trait.reset_index().assign(model=chosen, seed=seed),
                       "perseval_per_trait.csv", key="perspectives.dl_trait")
    with e2:
        download_table(gaps.assign(model=chosen, metric=metric_name),
                       "perseval_trait_gaps.csv", key="perspectives.dl_gaps")
    with e3:
        download_table(boot.assign(model=chosen), "perseval_bootstrap.csv",
                       key="perspectives.dl_boot")


TABS = {"Per user": user_tab, "Per text": text_tab, "Per trait": trait_tab}
for name, tab in lazy_tabs(list(TABS), key="perspectives.tab").items():  # only the open tab runs
    if tab.open:
        with tab:
            TABS[name]()
