"""The dataset library in the app (engine: :mod:`hlv_core.library`): the sidebar's
"Library: <name>" entries, the Overview's "Keep in the library" button under an upload and the
"Dataset library" panel (open, rename, delete, quotas).

Who sees what: in team mode the library lives on the server and every signed-in member sees
and opens every kept dataset; the owner and admins rename and delete. In desk mode it lives in
the user's data folder on this computer. Nothing is kept unless the user presses "Keep"."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hlv_core.io import DataError, Dataset
from hlv_core.library import Library, LibraryEntry, LibraryError, default_library_dir
from hlv_core.review import Access
from hlv_core.text import md

from .auth import auth_configured, current_identity
from .cache import cached
from .widgets import KEPT, SETTING, show_table

__all__ = [
    "access",
    "get_library",
    "keep_upload",
    "library_label",
    "library_panel",
    "library_sources",
    "load_kept",
    "where_kept_note",
]

_DESK_OWNER = "desk user"


@st.cache_resource(show_spinner=False, max_entries=4)
def _library(root: str) -> Library:
    return Library(root)


def get_library() -> Library | None:
    """The library in its folder (:func:`hlv_core.library.default_library_dir`, read from the
    environment), or None when it cannot be used (unwritable folder)."""
    try:
        return _library(str(default_library_dir()))
    except LibraryError:
        return None


@cached(ttl=2, show_spinner=False, max_entries=4)
def _entries(root: str) -> list[LibraryEntry]:
    return _library(root).entries()


def entries() -> list[LibraryEntry]:
    """The catalogue, newest first (read at most every 2 s; refreshed after own changes)."""
    library = get_library()
    if library is None:
        return []
    try:
        return _entries(str(library.root))
    except LibraryError:
        return []


def _refresh() -> None:
    _entries.clear()


def library_sources() -> list[str]:
    """Selector values of the kept datasets (``"library:<id>"``), newest first."""
    return [f"library:{entry.id}" for entry in entries()]


def library_label(dataset_id: str) -> str:
    """``"Library: <name>"`` (what the sidebar shows for a kept dataset)."""
    for entry in entries():
        if entry.id == dataset_id:
            return f"Library: {entry.name}"
    return "Library (deleted)"


@st.cache_resource(show_spinner="Opening the kept dataset…", max_entries=8)
def _load(root: str, entry: LibraryEntry) -> Dataset:
    """Keyed on the whole catalogue row: the dataset is read from ``entry.address`` under
    ``entry.name``, so new files or a rename load again."""
    return _library(root).load(entry.id)


def load_kept(dataset_id: str) -> Dataset:
    """The kept dataset ``dataset_id`` (:class:`hlv_core.io.DataError` when it is gone)."""
    library = get_library()
    if library is None:
        raise LibraryError("the dataset library cannot be used.", source="<library>",
                           fix="ask the operator to check HLV_LIBRARY_DIR.")
    entry = library.get(dataset_id)
    return _load(str(library.root), entry)


def access() -> Access:
    """Who keeps, renames and deletes: the signed-in member (team mode), else the desk user
    (administers their own library)."""
    identity = current_identity()
    if identity is not None:
        return identity.access
    return Access(_DESK_OWNER, True)


def where_kept_note() -> str:
    """One sentence: where kept datasets live and who can see them."""
    if auth_configured():
        return ("Kept datasets are stored on this HLV Lens server, beside the review "
                "database: every signed-in member of the team sees and opens them; only the "
                "owner and admins rename or delete them.")
    library = get_library()
    where = f" (`{md(library.root)}`)" if library is not None else ""
    return ("Kept datasets are stored in your HLV Lens data folder on this computer"
            f"{where}: anyone using this app on this computer can open them.")


def keep_upload(dataset: Dataset, source_file: str, key: str) -> None:
    """The "Keep in the library" button under an upload; once kept, the library entry
    becomes the dataset in use (so links and a reload reach it)."""
    from .state import LIBRARY_PREFIX, SOURCE_KEY, set_dataset

    def keep() -> None:
        library = get_library()
        if library is None:
            st.session_state[f"{key}.error"] = "The dataset library cannot be used here."
            return
        try:
            entry = library.keep(dataset, owner=access().user, source_file=source_file)
        except DataError as error:
            st.session_state[f"{key}.error"] = str(error)
            return
        _refresh()
        st.session_state.pop(f"{key}.error", None)
        kept = load_kept(entry.id)
        set_dataset(kept, source=f"{LIBRARY_PREFIX}{entry.id}")
        st.session_state[SOURCE_KEY] = f"{LIBRARY_PREFIX}{entry.id}"

    st.button("Keep in the library", key=key, icon=":material/bookmark_add:", on_click=keep,
              help="Store this dataset so that a reload keeps it and colleagues' links open "
                   "it. " + where_kept_note())
    if st.session_state.get(f"{key}.error"):
        st.error(f"**Not kept.** {md(st.session_state[f'{key}.error'])}",
                 icon=":material/error:")


def _mb(size: int) -> str:
    return f"{size / 1e6:,.2f} MB" if size < 1e7 else f"{size / 1e6:,.0f} MB"


def library_panel() -> None:
    """The Overview's "Dataset library" expander: every kept dataset, open / rename / delete
    (owner or admin), and the quotas."""
    from .state import LIBRARY_PREFIX, SOURCE_KEY, current_source, use_source

    library = get_library()
    kept = entries()
    with st.expander(f"Dataset library ({len(kept)} kept)", icon=":material/folder_shared:",
                     expanded=False):
        st.caption(where_kept_note())
        if library is None:
            st.warning("The dataset library cannot be used: the folder is not writable.")
            return
        who = access()
        st.caption(f"You keep {_mb(library.used(who.user))} of {_mb(library.user_quota)}; "
                   f"the library holds {_mb(library.used())} of {_mb(library.total_quota)}.")
        if not kept:
            st.info("Nothing kept yet: upload a file above and press **Keep in the library**.")
            return
        table = pd.DataFrame([{"name": e.name, "owner": e.owner, "kept": e.created[:16]
                               .replace("T", " "), "size (MB)": round(e.size / 1e6, 2),
                               "source file": e.source_file, "id": e.id} for e in kept])
        show_table(table, hide_index=True, width="stretch", key="library.table")
        by_id = {e.id: e for e in kept}
        chosen = st.selectbox("Kept dataset", list(by_id), key="library.chosen", **SETTING,
                              format_func=lambda i: f"{by_id[i].name} ({by_id[i].owner})")
        entry = by_id[chosen]
        source = f"{LIBRARY_PREFIX}{entry.id}"

        def open_entry() -> None:
            use_source(source)
            st.session_state[SOURCE_KEY] = source

        cols = st.columns([1, 2, 1], vertical_alignment="bottom")
        if current_source() == source:
            cols[0].success("In use", icon=":material/check:")
        else:
            cols[0].button("Open", key="library.open", icon=":material/open_in_browser:",
                           on_click=open_entry)
        may_change = who.is_admin or who.user == entry.owner
        if not may_change:
            cols[1].caption(f"Only {md(entry.owner)} or an admin may rename or delete it.")
            return
        name_key = f"library.name.{entry.id}"

        def rename() -> None:
            try:
                library.rename(entry.id, st.session_state[name_key], who)
            except DataError as error:
                st.session_state["library.error"] = str(error)
            _refresh()
            if current_source() == source:  # the dataset in use follows its new name
                open_entry()

        cols[1].text_input("Name", value=entry.name, key=name_key, persist_state=KEPT,
                           max_chars=200,
                           on_change=rename)
        confirm = cols[2].checkbox("Really delete", key=f"library.confirm.{entry.id}")

        def delete() -> None:
            try:
                library.delete(entry.id, who)
            except DataError as error:
                st.session_state["library.error"] = str(error)
            _refresh()

        cols[2].button("Delete", key="library.delete", icon=":material/delete:",
                       disabled=not confirm, on_click=delete,
                       help="Removes the stored files and the catalogue entry for everybody.")
        if st.session_state.get("library.error"):
            st.error(md(st.session_state.pop("library.error")), icon=":material/error:")
