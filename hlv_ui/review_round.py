"""The review round of the Case review page (Kurniawan et al., section 6): saving judgements
and the reviewer's own labels (kept in the session for a retry when the store fails), the save
status, and one case shown as two anonymous outputs with the four choice buttons."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core import review
from hlv_core.io import DataError, Dataset
from hlv_core.text import md, visible_frame
from hlv_ui.widgets import show_table

__all__ = ["CHOICE_TEXT", "KEY", "PENDING", "show_case", "show_output", "show_save_status"]

KEY = "review"
CHOICE_TEXT = {"A": "A is more accurate", "B": "B is more accurate",
               "both": "Both acceptable", "neither": "Neither acceptable"}
SHORTCUTS = {"A": "A", "B": "B", "both": "O", "neither": "N"}
PENDING = f"{KEY}.pending"  # a judgement the store could not save yet (kept for a retry)


def _save(store: review.ReviewStore, pending: dict) -> bool:
    """Write one judgement; on a database failure keep it in the session for a retry."""
    try:
        store.add(pending["reviewer"], pending["item_id"], pending["model_a"],
                  pending["model_b"], pending["choice"], comment=pending["comment"],
                  dataset=pending["dataset"])
    except DataError as error:  # disk full, read-only, locked, ...: nothing is lost
        st.session_state[PENDING] = {**pending, "error": str(error)}
        return False
    st.session_state.pop(PENDING, None)
    st.session_state[f"{KEY}.last"] = (pending["item_id"], pending["choice"])
    st.session_state[f"{KEY}.comment"] = ""
    st.session_state.pop(f"{KEY}.proposal", None)
    return True


def _record(store: review.ReviewStore, reviewer: str, choice: str) -> None:
    """Button callback: store the judgement of the current proposal, then move on."""
    proposal = st.session_state.get(f"{KEY}.proposal")
    if not proposal or proposal["reviewer"] != reviewer:
        return
    _save(store, {"reviewer": proposal["reviewer"], "item_id": proposal["item_id"],
           "model_a": proposal["model_a"], "model_b": proposal["model_b"], "choice": choice,
           "comment": st.session_state.get(f"{KEY}.comment", ""),
           "dataset": proposal["dataset"]})


def _retry(store: review.ReviewStore) -> None:
    pending = st.session_state.get(PENDING)
    if pending:
        _save(store, {k: v for k, v in pending.items() if k != "error"})


def _save_own_labels(store: review.ReviewStore, skip: bool) -> None:
    proposal = st.session_state.get(f"{KEY}.proposal")
    if not proposal:
        return
    if not skip:
        try:
            store.add_own_labels(proposal["reviewer"], proposal["item_id"],
                                 list(st.session_state.get(f"{KEY}.own_labels", [])),
                                 dataset=proposal["dataset"])
        except DataError as error:  # keep the selection; the reviewer can press again
            st.session_state[f"{KEY}.own_error"] = str(error)
            return
    st.session_state.pop(f"{KEY}.own_error", None)
    st.session_state[f"{KEY}.own_labels"] = []
    proposal["own_done"] = True


def show_output(frame: pd.DataFrame, title: str, threshold: float, max_labels: int) -> None:
    visible = visible_frame(review.visible_distribution(frame, threshold=threshold))
    st.markdown(f"#### {md(title)}")
    if visible.empty:
        st.write(f"No label above {threshold:g}.")
        return
    hidden = max(0, len(visible) - max_labels)
    show_table(
        visible.head(max_labels), hide_index=True, width="stretch",
        column_config={"probability": st.column_config.ProgressColumn(
            "probability", min_value=0.0, max_value=1.0, format="%.2f")},
    )
    if hidden:
        st.caption(f"{hidden} more labels above the threshold not shown.")


def show_save_status(store: review.ReviewStore) -> None:
    """The last save: an unsaved judgement with a retry button, unsaved own labels, or done."""
    pending = st.session_state.get(PENDING)
    if pending:
        st.error(f"**Your judgement was not saved** (case {md(pending['item_id'])}: "
                 f"{CHOICE_TEXT[pending['choice']]}). {md(pending['error'])} It is "
                 "kept in this browser session: press *Retry saving* when the problem "
                 "is fixed.", icon=":material/error:")
        st.button("Retry saving", key=f"{KEY}.retry", on_click=_retry, args=(store,),
                  type="primary", icon=":material/refresh:")
    own_error = st.session_state.get(f"{KEY}.own_error")
    if own_error:
        st.error(f"**Your labels were not saved.** {md(own_error)} Press the button "
                 "again to retry.", icon=":material/error:")
    last = st.session_state.get(f"{KEY}.last")
    if last and not pending:
        st.success(f"Saved: case {md(last[0])}: {CHOICE_TEXT[last[1]]}.")


def show_case(store: review.ReviewStore, reviewer: str, dataset: Dataset, proposal: dict,
              outputs: dict[str, pd.DataFrame], threshold: float, max_labels: int) -> None:
    """One proposal of ``reviewer``: the case text, the reviewer's own labels first (when asked), then outputs
    A and B side by side with the comment box and the four choice buttons."""
    item = proposal["item_id"]
    st.subheader(f"Case {md(item)}")
    text = None
    if "text" in dataset.items.columns:
        row = dataset.items.loc[dataset.items["item_id"] == item, "text"]
        text = None if row.empty or pd.isna(row.iloc[0]) else str(row.iloc[0])
    with st.container(border=True):
        st.markdown("  \n".join(md(line) for line in text.splitlines()) if text
                    else "*This dataset has no item text; judge from the case id.*")
    if not proposal["own_done"]:
        st.markdown("**Your own labels first.** Which labels apply to this case? "
                    "Nothing is shown about the models until you continue.")
        st.multiselect("Labels that apply", list(dataset.labels), key=f"{KEY}.own_labels")
        b1, b2 = st.columns(2)
        b1.button("Save my labels and show the outputs", type="primary",
                  key=f"{KEY}.own_save", on_click=_save_own_labels, args=(store, False))
        b2.button("Skip", key=f"{KEY}.own_skip", on_click=_save_own_labels,
                  args=(store, True))
    else:
        left, right = st.columns(2)
        with left:
            show_output(outputs[proposal["model_a"]].loc[item], "Output A", threshold,
                        max_labels)
        with right:
            show_output(outputs[proposal["model_b"]].loc[item], "Output B", threshold,
                        max_labels)
        st.text_area("Comment (optional)", key=f"{KEY}.comment", max_chars=5000)
        cols = st.columns(4)
        for col, choice in zip(cols, review.CHOICES, strict=True):
            col.button(CHOICE_TEXT[choice], key=f"{KEY}.choice.{choice}",
                       on_click=_record, args=(store, reviewer, choice), width="stretch",
                       shortcut=SHORTCUTS[choice],
                       type="primary" if choice in ("A", "B") else "secondary")
        st.caption("Keyboard: A, B, O (both), N (neither). Model names are hidden "
                   "and the left/right order is random.")
