"""The review round of the Case review page (Kurniawan et al., section 6), one case per screen:
the reviewer's own labels (asked once per case), every anonymous model output of the case side
by side, one question per model pair, one save for the whole case (kept in the session for a
retry when the store fails), undo of the last saved case, and the session progress."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import review
from hlv_core.io import DataError, Dataset
from hlv_core.text import md, visible_frame
from hlv_ui.widgets import show_table

__all__ = ["KEY", "PENDING", "choice_text", "current_proposal", "pair_key", "show_case",
           "show_output", "show_progress", "show_save_status"]

KEY = "review"
PENDING = f"{KEY}.pending"  # a case the store could not save yet (kept for a retry)
LAST = f"{KEY}.last"  # the case saved last in this session (what Undo takes back)
DONE = f"{KEY}.session_done"  # cases saved in this browser session
OWN_SEEN = f"{KEY}.own_seen"  # cases whose own labels were given or skipped this session
RADIO_MAX = 8  # single-label tasks with more labels pick their own label from a selectbox


def pair_key(k: int) -> str:
    """Widget key of the k-th pair question on the case screen."""
    return f"{KEY}.pair.{k}"


def choice_text(choice: str, left: str = "A", right: str = "B") -> str:
    """A choice in words for the outputs named ``left`` and ``right``."""
    return {"A": f"{left} is more accurate", "B": f"{right} is more accurate",
            "both": "Both acceptable", "neither": "Neither acceptable"}[choice]


def current_proposal(store: review.ReviewStore, reviewer: str, dataset_hash: str,
                     items: list[str], models: list[str], entropy, *, seed: int,
                     own_first: bool, max_pairs: int, n_mine: int) -> dict | None:
    """The case on screen: kept while it fits the reviewer, dataset and chosen models, else the
    next one from :func:`hlv_core.review.next_case`; own labels are skipped when already given
    (stored, or given / skipped in this session)."""
    proposal = st.session_state.get(f"{KEY}.proposal")
    if (proposal is not None and proposal["reviewer"] == reviewer
            and proposal["dataset"] == dataset_hash and set(proposal["models"]) <= set(models)
            and len(proposal["pairs"]) <= max_pairs):
        proposal["own_done"] = proposal["own_done"] or not own_first
        return proposal
    judged = store.judgements(dataset=dataset_hash)
    nxt = review.next_case(judged, reviewer, items, models, entropy=entropy,
                           seed=seed * 1_000_003 + n_mine, max_pairs=max_pairs)
    if nxt is None:
        proposal = None
    else:
        given = set(store.own_labels(dataset=dataset_hash, reviewer=reviewer)["item_id"])
        given |= st.session_state.get(OWN_SEEN, set())
        proposal = {"item_id": nxt.item_id, "models": list(nxt.models),
                    "pairs": [list(p) for p in nxt.pairs], "reviewer": reviewer,
                    "dataset": dataset_hash, "remaining": nxt.remaining_cases,
                    "total": nxt.total_cases,
                    "own_done": not own_first or nxt.item_id in given}
        for k in range(len(nxt.pairs)):
            st.session_state.pop(pair_key(k), None)
    st.session_state[f"{KEY}.proposal"] = proposal
    return proposal


# ------------------------------------------------------------------ callbacks


def _save(store: review.ReviewStore, case: dict) -> bool:
    """Write one case's judgements; on a database failure keep them in the session."""
    try:
        batch = store.add_case(case["reviewer"], case["item_id"],
                               [tuple(j) for j in case["judgements"]],
                               comment=case["comment"], dataset=case["dataset"])
    except DataError as error:  # disk full, read-only, locked, ...: nothing is lost
        st.session_state[PENDING] = {**case, "error": str(error)}
        return False
    st.session_state.pop(PENDING, None)
    st.session_state.pop(f"{KEY}.undone", None)
    st.session_state[LAST] = {**case, "batch": batch}
    st.session_state[DONE] = st.session_state.get(DONE, 0) + 1
    st.session_state[f"{KEY}.comment"] = ""
    for k in range(len(case["judgements"])):
        st.session_state.pop(pair_key(k), None)
    st.session_state.pop(f"{KEY}.proposal", None)
    return True


def _record(store: review.ReviewStore, reviewer: str) -> None:
    """Save button: store every answered pair of the case on screen, then move on."""
    proposal = st.session_state.get(f"{KEY}.proposal")
    if not proposal or proposal["reviewer"] != reviewer:
        return
    choices = [st.session_state.get(pair_key(k)) for k in range(len(proposal["pairs"]))]
    if None in choices:
        return
    _save(store, {"reviewer": reviewer, "item_id": proposal["item_id"],
                  "models": proposal["models"], "pairs": proposal["pairs"],
                  "judgements": [[a, b, c] for (a, b), c in zip(proposal["pairs"], choices,
                                                                 strict=True)],
                  "comment": st.session_state.get(f"{KEY}.comment", ""),
                  "dataset": proposal["dataset"]})


def _retry(store: review.ReviewStore) -> None:
    pending = st.session_state.get(PENDING)
    if pending:
        _save(store, {k: v for k, v in pending.items() if k != "error"})


def _undo(store: review.ReviewStore) -> None:
    """Undo button: withdraw the case saved last (store-level, audited) and show it again
    with the previous answers filled in."""
    last = st.session_state.pop(LAST, None)
    if not last:
        return
    try:
        rows = store.undo_last(last["reviewer"], dataset=last["dataset"], batch=last["batch"])
    except DataError as error:
        st.session_state[LAST] = last
        st.session_state[f"{KEY}.undo_error"] = str(error)
        return
    st.session_state.pop(f"{KEY}.undo_error", None)
    if rows.empty:  # no longer the reviewer's last judgement (e.g. saved in another tab)
        st.session_state[f"{KEY}.undone"] = (last["item_id"], False)
        return
    st.session_state[DONE] = max(0, st.session_state.get(DONE, 0) - 1)
    st.session_state[f"{KEY}.undone"] = (last["item_id"], True)
    st.session_state[f"{KEY}.proposal"] = {
        "item_id": last["item_id"], "models": last["models"], "pairs": last["pairs"],
        "reviewer": last["reviewer"], "dataset": last["dataset"], "own_done": True,
        "remaining": None, "total": None}
    for k, (_, _, choice) in enumerate(last["judgements"]):
        st.session_state[pair_key(k)] = choice
    st.session_state[f"{KEY}.comment"] = last["comment"]


def _save_own_labels(store: review.ReviewStore, skip: bool, multilabel: bool) -> None:
    proposal = st.session_state.get(f"{KEY}.proposal")
    if not proposal:
        return
    if not skip:
        value = st.session_state.get(f"{KEY}.own_labels")
        labels = list(value or []) if multilabel else ([] if value is None else [value])
        try:
            store.add_own_labels(proposal["reviewer"], proposal["item_id"], labels,
                                 dataset=proposal["dataset"])
        except DataError as error:  # keep the selection; the reviewer can press again
            st.session_state[f"{KEY}.own_error"] = str(error)
            return
    st.session_state.pop(f"{KEY}.own_error", None)
    st.session_state.pop(f"{KEY}.own_labels", None)
    st.session_state.setdefault(OWN_SEEN, set()).add(proposal["item_id"])
    proposal["own_done"] = True


# ------------------------------------------------------------------ rendering


def show_progress(target: int, n_mine: int, n_all: int, n_reviewers: int,
                  proposal: dict | None) -> None:
    """Session progress against the target ("5 of 20 cases"), big and first, then the totals."""
    done = int(st.session_state.get(DONE, 0))
    c1, c2, c3, c4 = st.columns([1.3, 1, 1, 1])
    c1.metric("Cases this session", f"{done} of {target}",
              help="Cases you saved in this browser session, against your session target "
                   "(set in the setup).")
    c2.metric("Your judgements", f"{n_mine:,}", help="Model pairs you judged on this dataset.")
    c3.metric("All judgements", f"{n_all:,}", help="Every reviewer's, on this dataset.")
    c4.metric("Reviewers", f"{n_reviewers:,}")
    st.progress(min(1.0, done / target), text=f"**{done} of {target} cases** judged this "
                "session (session target)")
    if done >= target:
        st.success(f"Session target reached: {done} cases judged. Thank you! Keep going, or "
                   "raise the target in the setup.", icon=":material/flag:")
    if proposal is not None and proposal.get("remaining") is not None:
        left = proposal["remaining"]
        st.caption(f"Overall, {proposal['total'] - left:,} of {proposal['total']:,} cases of "
                   f"this dataset have every model pair judged by you ({left:,} to go).")


def show_output(frame: pd.Series, title: str, labels: list[str], hidden: int) -> None:
    """One anonymous output: the case's ``labels`` (the same rows, in inventory order, for
    every output of the case; :func:`hlv_core.review.case_labels`) with probability bars."""
    st.markdown(f"#### {md(title)}")
    if not labels:
        st.write("No label above the threshold.")
        return
    shown = visible_frame(pd.DataFrame({"label": labels,
                                        "probability": frame.reindex(labels).to_numpy()}))
    show_table(
        shown, hide_index=True, width="stretch",
        column_config={"probability": st.column_config.ProgressColumn(
            "probability", min_value=0.0, max_value=1.0, format="%.2f")},
    )
    if hidden:
        st.caption(f"{hidden} more labels above the threshold not shown.")


def show_save_status(store: review.ReviewStore) -> None:
    """The last save: an unsaved case with a retry button, unsaved own labels, an undo
    result, or the saved case with its Undo button."""
    pending = st.session_state.get(PENDING)
    if pending:
        st.error(f"**Your judgements of case {md(pending['item_id'])} were not saved.** "
                 f"{md(pending['error'])} They are kept in this browser session: press "
                 "*Retry saving* when the problem is fixed.", icon=":material/error:")
        st.button("Retry saving", key=f"{KEY}.retry", on_click=_retry, args=(store,),
                  type="primary", icon=":material/refresh:")
    for key, what in (("own_error", "Your labels were not saved."),
                      ("undo_error", "The undo failed.")):
        if st.session_state.get(f"{KEY}.{key}"):
            st.error(f"**{what}** {md(st.session_state[f'{KEY}.{key}'])} Press the button "
                     "again to retry.", icon=":material/error:")
    undone = st.session_state.get(f"{KEY}.undone")
    if undone:
        st.info(f"Undone: your judgements of case {md(undone[0])} are withdrawn (the review "
                "database keeps them marked as withdrawn). Judge the case again below."
                if undone[1] else f"Nothing undone: case {md(undone[0])} is no longer your "
                "last judgement.", icon=":material/undo:")
    last = st.session_state.get(LAST)
    if last and not pending:
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.success(f"Saved: case {md(last['item_id'])}, {len(last['judgements'])} model "
                     "pair(s) judged.", icon=":material/check:")
        right.button("Undo last judgement", key=f"{KEY}.undo", on_click=_undo, args=(store,),
                     icon=":material/undo:", width="stretch")


def _case_text(dataset: Dataset, item: str) -> str | None:
    if "text" not in dataset.items.columns:
        return None
    row = dataset.items.loc[dataset.items["item_id"] == item, "text"]
    return None if row.empty or pd.isna(row.iloc[0]) else str(row.iloc[0])


def _own_labels(store: review.ReviewStore, dataset: Dataset) -> None:
    multilabel = dataset.task == "multilabel"
    st.markdown("**Your own view first.** Nothing is shown about the models until you "
                "continue; you are asked once per case.")
    if multilabel:
        st.multiselect("Labels that apply", list(dataset.labels), key=f"{KEY}.own_labels")
    elif len(dataset.labels) <= RADIO_MAX:  # one label: a radio, nothing preselected
        st.radio("The label that applies", list(dataset.labels), index=None, format_func=md,
                 key=f"{KEY}.own_labels", horizontal=True)  # radio options render markdown
    else:  # too many for a radio (e.g. hundreds of diagnoses): a searchable single choice
        st.selectbox("The label that applies", list(dataset.labels), index=None,
                     key=f"{KEY}.own_labels", placeholder="Type to search the labels")
    chosen = st.session_state.get(f"{KEY}.own_labels")
    b1, b2 = st.columns(2)
    b1.button("Save my labels and show the outputs" if multilabel else
              "Save my label and show the outputs", type="primary", key=f"{KEY}.own_save",
              on_click=_save_own_labels, args=(store, False, multilabel),
              disabled=not multilabel and chosen is None)
    b2.button("Skip", key=f"{KEY}.own_skip", on_click=_save_own_labels,
              args=(store, True, multilabel))


def show_case(store: review.ReviewStore, reviewer: str, dataset: Dataset, proposal: dict,
              outputs: dict[str, pd.DataFrame], threshold: float, max_labels: int) -> None:
    """One case: its text, the reviewer's own labels first (when asked), then every anonymous
    output side by side and one question per model pair, saved together."""
    item = proposal["item_id"]
    st.subheader(f"Case {md(item)}")
    text = _case_text(dataset, item)
    with st.container(border=True):
        st.markdown("  \n".join(md(line) for line in text.splitlines()) if text
                    else "*This dataset has no item text; judge from the case id.*")
    if not proposal["own_done"]:
        _own_labels(store, dataset)
        return
    letters = dict(zip(proposal["models"], review.output_letters(len(proposal["models"])),
                       strict=True))
    per_row = min(3, len(letters))
    case = pd.DataFrame([outputs[model].loc[item] for model in proposal["models"]])
    rows = review.case_labels(case, threshold=threshold, max_labels=max_labels)
    hidden = len(review.case_labels(case, threshold=threshold)) - len(rows)
    for start in range(0, len(letters), per_row):
        for col, model in zip(st.columns(per_row), proposal["models"][start:start + per_row],
                              strict=False):
            with col:
                show_output(outputs[model].loc[item], f"Output {letters[model]}", rows, hidden)
    st.markdown("**Which output matches how people would label this case better?** "
                "Answer every pair, then save the case.")
    for k, (a, b) in enumerate(proposal["pairs"]):
        left, right = letters[a], letters[b]
        st.radio(f"Output {left} or output {right}?", review.CHOICES, index=None,
                 key=pair_key(k), horizontal=True,
                 format_func=lambda c, left=left, right=right: choice_text(c, left, right))
    answered = sum(st.session_state.get(pair_key(k)) is not None
                   for k in range(len(proposal["pairs"])))
    st.text_area("Comment on this case (optional)", key=f"{KEY}.comment", max_chars=5000)
    st.button("Save judgements for this case", key=f"{KEY}.save", type="primary",
              on_click=_record, args=(store, reviewer), icon=":material/save:",
              disabled=answered < len(proposal["pairs"]))
    st.caption(f"{answered} of {len(proposal['pairs'])} pairs answered. Model names are hidden "
               "and the order of the outputs is random.")
