"""Errors and perspectives: which disagreements are probably mistakes to re-check, which
annotators disagree at random, and which disagree systematically (a perspective, not noise).

Scores: Weber-Genzel et al. (2024), VariErr NLI, section 5; competence: Dawid & Skene (1979),
Hovy et al. (2013) MACE; camps: Basile's signed agreement graph."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import competence, errors
from hlv_core.glossary import paper_label
from hlv_core.io import DataError, load_table
from hlv_core.text import md
from hlv_core.verdict_store import VerdictStore
from hlv_ui.auth import auth_configured, current_identity, desk_name_form
from hlv_ui.explain import explain
from hlv_ui.links import explorer_link
from hlv_ui.state import require_dataset, show_data_error
from hlv_ui.widgets import SETTING, download_table, show_table
from pages.errors import views as V

st.title("Errors and perspectives")
st.caption(
    "Which disagreements are probably slips to re-check, and which are legitimate readings to "
    "keep? Every label some annotator chose gets a score: high = worth a second look. Every "
    "annotator gets a verdict: reliable, unreliable (random disagreement) or systematic (a "
    f"consistent perspective). Methods: {md(paper_label('varierr'))}, section 5; "
    f"{md(paper_label('dawid_skene'))}; {md(paper_label('mace'))}."
)
explain("possible_error", "annotator_verdict", "annotator_skill")

dataset = require_dataset(tasks=("multiclass", "multilabel", "rating"), need_ids=True)
DATASET_HASH = dataset.content_hash
problem = V.page_limits(dataset)
if problem:
    st.warning(problem, icon=":material/info:")
    st.stop()

# ----------------------------------------------------------------------------------- settings
with st.expander("Settings: scoring method, seed, iterations, verdict thresholds, extra files"):
    c1, c2, c3 = st.columns(3)
    methods = [m for m in V.METHOD_WORDS if m in errors.METHODS]
    method = c1.selectbox("Scoring method", methods, format_func=V.METHOD_WORDS.get,
                          key="errors.method", **SETTING)
    seed = int(c2.number_input("Seed (MACE)", 0, 2**31 - 1, 0, key="errors.seed",
                               **SETTING,
                               help="Same seed, same result; stored in every download."))
    max_iter = int(c3.number_input("Most EM iterations", 50, 10_000, 10_000, 50,
                                   key="errors.max_iter", **SETTING,
                                   help="Dawid-Skene stops earlier at its fixed point "
                                        "(SQUAREM-accelerated EM; the command line's default)."))
    rerank = st.toggle("Order by label count first", False, key="errors.rerank", **SETTING,
                       help="VariErr's '_rerank': fewer choosers first, the score second.")
    t = V.default_thresholds()
    d1, d2, d3, d4 = st.columns(4)
    t["min_rows"] = int(d1.number_input("Fewest labels for a verdict", 1, 10_000,
                                        t["min_rows"], key="errors.min_rows", **SETTING))
    t["unreliable_fraction"] = d2.slider(
        "Unreliable below (0 = chance, 1 = median skill)", 0.0, 1.0,
        t["unreliable_fraction"], 0.05, key="errors.unrel", **SETTING)
    t["cell_ratio"] = d3.number_input("Systematic: confusion x median", 1.0, 20.0,
                                      t["cell_ratio"], 0.5, key="errors.cell_ratio",
                                      **SETTING)
    t["camp_gain"] = d4.number_input("Systematic: camp gain on a subset", 0.0, 1.0,
                                     t["camp_gain"], 0.05, key="errors.camp_gain",
                                     **SETTING)
    subset_choices = competence.subset_columns(dataset.items)
    trait_choices = competence.subset_columns(dataset.annotators, key="annotator_id")
    subset: tuple[str, ...] = ()
    camps_from = None
    s1, s2, s3 = st.columns(3) if subset_choices or trait_choices else (None, None, None)
    if trait_choices:
        camps_from = s3.selectbox(
            "Camps from", list(trait_choices), index=None, key="errors.camps_from", **SETTING,
            placeholder="the signed agreement graph (Basile)",
            help="Who counts as an annotator's own camp: the groups of Basile's signed "
                 "agreement graph, or a known annotator trait (e.g. a demographic group).")
    if subset_choices:
        column = s1.selectbox("Subset for the camp rule: items where", list(subset_choices),
                              index=None, key="errors.subset_column", **SETTING,
                              placeholder="no subset (camp rule off)",
                              help="Systematic also when an annotator agrees with their own "
                                   "camp on these items more than with the majority (by the "
                                   "camp gain above).")
        if column is not None:
            value = s2.selectbox("equals", subset_choices[column], key="errors.subset_value",
                                 **SETTING)
            subset = tuple(competence.subset_items(dataset.items, column, value))
    st.caption("Optional files (CSV): explanations (`item_id, annotator_id, label, "
               "explanation`), peer validity judgments (VariErr `validity.csv`) and gold errors "
               "(`item_id, label, is_error`) to evaluate the ranking.")
    u1, u2, u3 = st.columns(3)
    up_expl = u1.file_uploader("Explanations", type=["csv", "tsv"], key="errors.up_expl")
    up_val = u2.file_uploader("Peer validity judgments", type=["csv", "tsv"], key="errors.up_val")
    up_gold = u3.file_uploader("Gold errors", type=["csv", "tsv"], key="errors.up_gold")


def _table(upload, need: tuple[str, ...] = ()):
    """The uploaded table, or None with one error naming the missing columns."""
    if upload is None:
        return None
    try:
        table = load_table(upload.getvalue(), name=upload.name)
        if missing := [c for c in need if c not in table.columns]:
            raise DataError(f"column(s) {', '.join(missing)} missing.", source=upload.name,
                            fix=f"use the columns {', '.join(need)}.")
        return table
    except DataError as error:
        show_data_error(error)
        return None


explanations = _table(up_expl, ("item_id", "annotator_id", "label", "explanation"))
validity = _table(up_val, ("item_id", "annotator_id", "label", "judge", "valid"))
gold = _table(up_gold)
if validity is not None:
    method = st.selectbox("Peer validity method (uses the uploaded judgments)",
                          [method, *errors.VALIDITY_METHODS], key="errors.peer_method",
                          **SETTING)

try:
    scores = V.compute_scores(dataset, method, rerank, seed, max_iter, validity)
    report, camp_note = V.compute_report(dataset, seed, max_iter, tuple(sorted(t.items())),
                                         subset, camps_from)
except (DataError, ValueError) as error:
    st.error(f"**This dataset cannot be analysed here.** {md(error)}", icon=":material/error:")
    st.stop()
fit_notes = list(dict.fromkeys([*scores.attrs.get("notes", []), *report.attrs.get("notes", [])]))
if fit_notes:  # e.g. an EM stopped at the cap set under Settings ("Most EM iterations")
    st.warning("\n\n".join(md(note) for note in fit_notes), icon=":material/warning:")

# ------------------------------------------------------------------------------- 1. ranking
st.subheader("1. Possible errors, ranked")
st.caption(f"{len(scores)} (item, label) pairs; method: {md(V.METHOD_WORDS.get(method, method))}"
           f"; seed {seed}. A score is a rank for re-checking, never a verdict. *choosers* "
           "shows who chose the label and whether they are reliable or systematic: a label "
           "chosen by a systematic annotator may be their perspective.")
choosers = V.compute_choosers(dataset, seed, max_iter, tuple(sorted(t.items())), subset,
                             camps_from)
try:
    store = VerdictStore()
    all_verdicts = store.verdicts(dataset=DATASET_HASH)
except DataError as error:
    store, all_verdicts = None, None
    st.error(f"**The verdict database cannot be used.** {md(error)}", icon=":material/error:")
table = V.ranking_table(scores, choosers,
                        all_verdicts if all_verdicts is not None else pd.DataFrame())
top_n = int(st.number_input("Rows shown", 10, max(10, len(table)), min(100, len(table)), 10,
                            key="errors.top_n", **SETTING))
show_table(table.head(top_n), hide_index=True, width="stretch",
           column_config={"score": st.column_config.NumberColumn(format="%.3f")})
download_table(lambda: table.assign(method=method, seed=seed), "possible_errors.csv",
               key="errors.dl_scores", label="Download the full ranking (CSV)")
if gold is not None:
    try:
        st.markdown("**Against the uploaded gold errors** (95% bootstrap CI over items, 200 "
                    f"draws, seed {seed}; P@k and R@k expected over tie orders)")
        ev = V.evaluation_table(scores, gold, seed)
        show_table(ev, hide_index=True, width="stretch")
        download_table(ev.assign(method=method, seed=seed), "error_ranking_evaluation.csv",
                       key="errors.dl_eval")
    except (DataError, ValueError) as error:
        show_data_error(DataError(str(error), source=up_gold.name))

# ------------------------------------------------------------------------- 2. one label
st.subheader("2. Look at one possible error")
choices = list(zip(table["item_id"].head(top_n), table["label"].head(top_n), strict=True))
pick = st.selectbox("Possible error", range(len(choices)), key="errors.pick", **SETTING,
                    format_func=lambda k: f"#{int(table['rank'].iloc[k])}: {choices[k][1]} on "
                                          f"{choices[k][0]}")
if pick is not None and choices:
    item_id, label = choices[pick]
    V.item_detail(dataset, scores, item_id, label, report, explanations)
    if store is not None:
        identity = current_identity()
        if identity is None and not auth_configured():
            st.caption("To record verdicts, enter your name once (desk mode: this server has "
                       "no login, so names are not verified).")
            identity = desk_name_form("errors")
        if identity is None and auth_configured():
            st.info("Sign in with an account that shares its e-mail to record verdicts.")
        if identity is not None:
            V.verdict_control(store, identity.name, DATASET_HASH, item_id, label)

# ------------------------------------------------------------------------- 3. annotators
st.subheader("3. Annotators: random disagreement or a perspective?")
camp_source = (f"the annotator trait *{md(camps_from)}*" if camps_from
               else "Basile's signed agreement graph")
st.caption(f"{V.kind_counts(report)}. Skill (x) against agreement with the annotator's own "
           f"camp (y, camps from {camp_source}). Click a point to open the annotator's "
           "profile. Thresholds are in the settings above.")
if camp_note:
    st.caption(md(camp_note))
clicked = V.annotator_map(report)
if clicked is not None:
    explorer_link(f"Open the profile of {md(clicked)}", annotator=clicked)
system = V.systematic_subset(report)
if len(system):
    st.markdown("**Systematic annotators: a perspective, with where it diverges.** Their "
                "disagreement concentrates on one confusion (true label -> their label); treat "
                "it as a reading to understand, not as noise to remove.")
    show_table(system, hide_index=True, width="stretch")
    download_table(system, "systematic_annotators.csv", key="errors.dl_system")
show_table(report.reset_index(), hide_index=True, width="stretch")
V.report_download(report, seed)
profile = st.selectbox("Open an annotator's profile", list(report.index), index=None,
                       key="errors.profile", **SETTING, placeholder="Choose an annotator")
if profile is not None:
    explorer_link(f"Open the profile of {md(profile)}", annotator=profile)
