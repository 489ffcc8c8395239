"""The two detail views of the "Items and annotators" page: one item with every annotation, and
one annotator's profile (with an optional second annotator to compare with). Layout only: every
number comes from ``hlv_core.annotators`` / ``hlv_core.agreement``; user strings go through
``hlv_core.text.md`` (markdown) or the figure helpers (plotly)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from hlv_core.agreement import pair_disagreements
from hlv_core.annotators import AnnotatorProfile, ItemView
from hlv_core.io import Dataset
from hlv_core.text import md
from hlv_ui.explain import explain
from hlv_ui.links import explorer_params, share_url
from hlv_ui.widgets import download_table, fmt_num, show_table
from pages.explorer.figures import confusion_figure, label_share_figure, soft_label_figure

__all__ = ["annotator_section", "item_section", "share_box"]


def share_box(dataset: Dataset, **params: str | None) -> None:
    """The link to this view, with a copy button (``st.code``), and what the colleague needs."""
    from hlv_ui.state import LIBRARY_PREFIX, current_source, link_dataset_id

    url = share_url(explorer_params(**params, dataset=link_dataset_id() or str(dataset.name)))
    st.caption("Link to this view (copy it with the button on the right):")
    st.code(url, language=None)
    if (current_source() or "").startswith(LIBRARY_PREFIX):
        st.caption("The link opens this view on this dataset of the library: colleagues who can "
                   "use this app open the same data.")
    else:
        st.caption("The link opens this view on the dataset loaded in the app: a colleague "
                   "needs the same data (the same bundled sample, or the same file uploaded; "
                   "keep an upload in the library on the Overview to share it).")


def _back(go: Callable[..., None], key: str) -> None:
    st.button("All items and annotators", icon=":material/arrow_back:", on_click=go, key=key)


def item_section(dataset: Dataset, view: ItemView, *, go: Callable[..., None],
                 clickable: Callable[..., None]) -> None:
    """One item: its text, the soft label, agreement figures and every annotation."""
    _back(go, "explorer.item_back")
    st.subheader(f"Item {md(view.item_id)}")
    if view.text is not None:
        st.markdown("> " + md(view.text))
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Annotators", f"{view.n_annotators:,}")
    m2.metric("Majority label", md(view.majority) if view.majority else "none",  # markdown
              help="Ties go to the first label in the label order; multi-label: the labels "
              "more than half of the annotators chose.")
    m3.metric("Pair agreement", fmt_num(view.agreement, "undefined"),
              help="Share of the item's annotator pairs who gave the same answer.")
    m4.metric("Entropy (0 = unanimous)", fmt_num(view.entropy))
    explain("pair_agreement", "soft_label")
    left, right = st.columns([2, 3])
    with left:
        st.plotly_chart(soft_label_figure(view.soft_label, view.majority), width="stretch",
                        key="explorer.soft")
    with right:
        st.markdown(f"**Every annotation ({view.n_annotators})**")
        table = view.annotations.rename(columns={"agrees": "agrees with majority"})
        if dataset.annotator_ids_known:
            st.caption("Click a row to open that annotator's profile.")
            clickable(table, "annotator_id", "annotator", "explorer.item_annotations")
        else:
            show_table(table, hide_index=True)
        download_table(table, f"item_{view.item_id}_annotations.csv",
                       key="explorer.dl_item", label="Download this item's annotations (CSV)")
    share_box(dataset, item=view.item_id)


def annotator_section(dataset: Dataset, profile: AnnotatorProfile, *, other: str | None,
                      go: Callable[..., None], clickable: Callable[..., None]) -> None:
    """One annotator: agreement with the majority, mean pairwise alpha with its support, camp,
    traits, label use, confusion against the majority, the items where they differ, and a
    comparison with one other annotator."""
    p = profile
    _back(go, "explorer.annotator_back")
    st.subheader(f"Annotator {md(p.annotator_id)}")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Items labelled", f"{p.n_items:,}")
    m2.metric("Agrees with the majority", "n/a" if p.n_compared == 0 else
              f"{p.majority_agreement:.0%}",
              help=f"On {p.n_agree:,} of {p.n_compared:,} items with at least two annotators.")
    m3.metric("Mean pairwise α", fmt_num(p.mean_alpha, "undefined"),
              help=f"Support: {p.n_pairs_defined:,} pairs with a defined α, "
              f"{p.n_shared_total:,} shared items in all.")
    camp = "unknown" if p.camp is None else ("no edge" if p.camp < 0 else f"camp {p.camp}")
    m4.metric("Camp", camp, help="From the signed annotator graph (Annotator graph page, the "
              "paper's conventions).")
    st.caption(f"Agrees with the majority on {p.n_agree:,} of {p.n_compared:,} items; mean "
               f"pairwise α from {p.n_pairs_defined:,} pairs sharing {p.n_shared_total:,} "
               "items (support).")
    explain("majority_agreement", "pairwise_alpha", "camps", "support")
    if p.traits:
        st.markdown("**Traits**: " + "; ".join(f"{md(k)}: {md(v)}" for k, v in p.traits.items()))
    left, right = st.columns(2)
    with left:
        st.plotly_chart(label_share_figure(p.label_shares, p.annotator_id), width="stretch",
                        key="explorer.shares")
    with right:
        st.plotly_chart(confusion_figure(p.confusion, p.annotator_id), width="stretch",
                        key="explorer.confusion")
    st.markdown(f"**Items where they differ from the majority ({len(p.disagreements):,})**")
    st.caption("Click a row to open the item with every annotation.")
    clickable(p.disagreements, "item_id", "item", "explorer.ann_items")
    download_table(p.disagreements, f"annotator_{p.annotator_id}_vs_majority.csv",
                   key="explorer.dl_ann", label="Download their disagreements with the "
                   "majority (CSV)")
    other = _compare(dataset, p, other, clickable)
    share_box(dataset, annotator=p.annotator_id, other=other)


def _compare(dataset: Dataset, p: AnnotatorProfile, other: str | None,
             clickable: Callable[..., None]) -> str | None:
    """The pair section; returns the other annotator shown (None when there is none)."""
    st.markdown("**Compared with another annotator**")
    if p.pairs.empty:
        st.caption("No other annotator shares an item with this one.")
        return None
    others = p.pairs["other"].astype(str).tolist()
    index = others.index(other) if other in others else 0
    chosen = st.selectbox("Other annotator (most shared items first)", others, index=index,
                          key=f"explorer.other.{other}")
    if chosen != other:
        st.query_params["with"] = chosen
    row = p.pairs[p.pairs["other"].astype(str) == chosen].iloc[0]
    diff = pair_disagreements(dataset.annotations, p.annotator_id, chosen)
    st.markdown(f"**{md(p.annotator_id)}** and **{md(chosen)}** share {int(row['n_shared'])} "
                f"items; pairwise α = {fmt_num(row['alpha'], 'undefined')}; they disagree on "
                f"{len(diff)} items.")
    show = diff.rename(columns={"label_a": f"{p.annotator_id} answered",
                                "label_b": f"{chosen} answered"})
    if len(show):
        clickable(show, "item_id", "item", "explorer.pair_items")
    with st.expander("All pairs of this annotator"):
        show_table(p.pairs, hide_index=True,
                   column_config={"alpha": st.column_config.NumberColumn(format="%.3f")})
        download_table(p.pairs.assign(annotator_id=p.annotator_id),
                       f"annotator_{p.annotator_id}_pairs.csv", key="explorer.dl_pairs",
                       label="Download all pairs of this annotator (CSV)")
    return chosen
