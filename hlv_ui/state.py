"""One validated dataset in use per browser session, shared by every page, and the session's
list of datasets to choose from: the bundled samples plus the user's uploads.

Sources (the sidebar selector, :data:`SOURCE_KEY`): a sample key (``"case_review"``),
``"upload:<id>"`` for an upload kept in :data:`UPLOADS_KEY` (never written to disk: uploads live
in this browser tab and a reload clears them) or ``"library:<id>"`` for a dataset the user kept
in the dataset library (:mod:`hlv_core.library`, :mod:`hlv_ui.library_ui`). Switching is
explicit: picking a sample keeps the uploads in the list.

The source of the dataset in use is recorded with it (:data:`IN_USE_KEY`) and the sidebar sets
its selector to that source before drawing it on every run (:func:`sync_selector`): after a
click-through, a deep link or a page's own switch, the box names the dataset in use. Predictions added by the user stay attached to the dataset they were added
to (by content hash) when the user switches away and back."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from pathlib import PurePath

import pandas as pd
import streamlit as st

from hlv_core.io import DataError, Dataset
from hlv_core.text import md

DATASET_KEY = "hlv.dataset"
SOURCE_KEY = "app.source"  # the sidebar's dataset selectbox: a sample key or "upload:<id>"
PENDING_SOURCE_KEY = "hlv.pending_source"  # set by a page, applied before the selectbox is drawn
LINK_APPLIED_KEY = "hlv.link_applied"  # a ?dataset= link is applied once per session
UPLOADS_KEY = "hlv.uploads"  # OrderedDict upload id -> (raw size, Dataset named by the user)
DEFAULT_SAMPLE = "case_review"
PREDICTIONS_KEY = "hlv.predictions"  # predictions the user added to the dataset in use
PREDICTIONS_OWNER_KEY = "hlv.predictions_owner"  # content hash of their dataset
STASHED_PREDICTIONS_KEY = "hlv.predictions_by_dataset"  # content hash -> predictions
IN_USE_KEY = "hlv.in_use_source"  # the source whose dataset is in use (None: set by a test)
CLUSTER_KEY = "hlv.cluster_in_use"  # "cluster:<key>": a large dataset on a cluster is in use
UPLOAD_PREFIX = "upload:"
LIBRARY_PREFIX = "library:"
MAX_UPLOADED_DATASETS = 5
"""Uploaded datasets one session keeps selectable (the oldest not in use is dropped first)."""


def upload_source(upload_id: str) -> str:
    """The selector value of an upload."""
    return f"{UPLOAD_PREFIX}{upload_id}"


def uploads() -> OrderedDict:
    """The session's uploads: id -> (raw size in bytes, Dataset), oldest first."""
    return st.session_state.setdefault(UPLOADS_KEY, OrderedDict())


def source_options() -> list[str]:
    """Selector values: the uploads (newest first), the library's datasets (newest first),
    then the bundled samples."""
    from hlv_core.samples import SAMPLES

    from .cluster_ui import cluster_sources
    from .library_ui import library_sources

    return ([upload_source(k) for k in reversed(uploads())] + library_sources()
            + cluster_sources() + list(SAMPLES))


def source_label(source: str) -> str:
    """What the selector shows for ``source``: ``"Uploaded: <name>"``, ``"Library: <name>"``
    or the sample's title."""
    from hlv_core.samples import SAMPLES

    if source.startswith(LIBRARY_PREFIX):
        from .library_ui import library_label

        return library_label(source[len(LIBRARY_PREFIX):])
    if source.startswith("cluster:"):  # a large dataset on a Dask cluster (hlv_ui.cluster_ui)
        from .cluster_ui import cluster_label

        return cluster_label(source)
    if source.startswith(UPLOAD_PREFIX):
        entry = uploads().get(source[len(UPLOAD_PREFIX):])
        return f"Uploaded: {entry[1].name}" if entry else "Uploaded (no longer kept)"
    return SAMPLES[source]["title"] if source in SAMPLES else source


def default_upload_name(file_name: str) -> str:
    """``"my_annotations.csv"`` -> ``"my_annotations"``; a name an earlier upload of this
    session already has gets `` (2)``, `` (3)``, ..."""
    base = PurePath(file_name).stem.strip()[:80] or "upload"
    taken = {dataset.name for _, dataset in uploads().values()}
    name, n = base, 2
    while name in taken:
        name, n = f"{base} ({n})", n + 1
    return name


def dataset_for_source(source: str) -> Dataset:
    """The dataset a selector value stands for (a sample is loaded, an upload looked up)."""
    if source.startswith(UPLOAD_PREFIX):
        entry = uploads().get(source[len(UPLOAD_PREFIX):])
        if entry is None:
            raise DataError("this upload is no longer kept in the session.",
                            source="<upload>", fix="upload the file again.")
        return entry[1]
    if source.startswith(LIBRARY_PREFIX):
        from .library_ui import load_kept

        return load_kept(source[len(LIBRARY_PREFIX):])
    from hlv_core.samples import SAMPLES

    from .loading import load_sample_cached

    return load_sample_cached(source if source in SAMPLES else DEFAULT_SAMPLE)


def add_upload(upload_id: str, dataset: Dataset, size: int, name: str) -> Dataset:
    """Keep an uploaded dataset under ``name`` (replacing an earlier parse of the same file), make
    it the dataset in use and ask the sidebar to select it. Returns the named dataset."""
    from .loading import SESSION_UPLOAD_CAP_MB

    store = uploads()
    named = rename_dataset(dataset, name)
    store.pop(upload_id, None)
    current = get_dataset()
    cap = SESSION_UPLOAD_CAP_MB * 1_000_000
    while store and (len(store) >= MAX_UPLOADED_DATASETS
                     or sum(s for s, _ in store.values()) + size > cap):
        victim = next((k for k, (_, d) in store.items() if d is not current), None)
        if victim is None:
            break
        _, dropped = store.pop(victim)
        st.session_state.get(STASHED_PREDICTIONS_KEY, {}).pop(dropped.content_hash, None)
    store[upload_id] = (size, named)
    set_dataset(named, source=upload_source(upload_id))
    st.session_state[PENDING_SOURCE_KEY] = upload_source(upload_id)
    return named


def rename_upload(upload_id: str, name: str) -> None:
    """Give a kept upload another display name (the dataset in use follows). Call it from a
    widget callback: it re-sets the sidebar selector so the browser shows the new name."""
    store = uploads()
    if upload_id not in store or not name.strip():
        return
    size, dataset = store[upload_id]
    renamed = rename_dataset(dataset, name.strip())
    store[upload_id] = (size, renamed)
    if get_dataset() is dataset:
        st.session_state[DATASET_KEY] = renamed
    if st.session_state.get(SOURCE_KEY) == upload_source(upload_id):
        # the browser keeps the selected option's old label unless the value is set again
        st.session_state[SOURCE_KEY] = upload_source(upload_id)


def rename_dataset(dataset: Dataset, name: str) -> Dataset:
    """``dataset`` under another name; computed views (content hash, codes) are carried over."""
    if dataset.name == name:
        return dataset
    renamed = dataclasses.replace(dataset, name=name)
    fields = {f.name for f in dataclasses.fields(Dataset)}
    renamed.__dict__.update({k: v for k, v in dataset.__dict__.items() if k not in fields})
    return renamed


def use_source(source: str) -> None:
    """Make the dataset of ``source`` the one in use (sidebar ``on_change``)."""
    if source.startswith("cluster:"):  # a large dataset on a cluster (hlv_ui.cluster_ui)
        st.session_state[CLUSTER_KEY] = source
        return
    st.session_state.pop(CLUSTER_KEY, None)
    try:
        set_dataset(dataset_for_source(source), source=source)
    except DataError as error:
        show_data_error(error)


def apply_dataset_link() -> None:
    """A shared link (``?dataset=<sample key or library id>``, e.g. from Items and annotators)
    opened in a new session selects that bundled sample or kept library dataset before anything
    is loaded; later runs never override the user's choice, and an upload's name is only
    informative (session uploads are not shared)."""
    from hlv_core.samples import SAMPLES

    from .library_ui import library_sources

    if DATASET_KEY in st.session_state or st.session_state.get(LINK_APPLIED_KEY):
        return
    st.session_state[LINK_APPLIED_KEY] = True
    linked = st.query_params.get("dataset")
    if linked in SAMPLES:
        st.session_state[SOURCE_KEY] = linked
    elif linked and f"{LIBRARY_PREFIX}{linked}" in library_sources():
        st.session_state[SOURCE_KEY] = f"{LIBRARY_PREFIX}{linked}"


def current_source() -> str | None:
    """The selector value whose dataset is in use, or None (e.g. a dataset set by a test)."""
    if st.session_state.get(CLUSTER_KEY):  # a large dataset on a cluster (hlv_ui.cluster_ui)
        return st.session_state[CLUSTER_KEY]
    dataset = get_dataset()
    if dataset is None:
        return None
    for upload_id, (_, kept) in uploads().items():
        if kept is dataset:
            return upload_source(upload_id)
    in_use = st.session_state.get(IN_USE_KEY)
    if in_use is not None:
        return in_use
    source = st.session_state.get(SOURCE_KEY)
    return source if source is not None and not source.startswith(UPLOAD_PREFIX) else None


def sync_selector(options: list[str]) -> None:
    """Before the sidebar draws its selector: make the selector's value the source of the
    dataset in use (Streamlit can hand a page a widget value that no longer matches what the
    last callback chose, e.g. on the first pick after a page load, and a click-through or a
    page's switch never touches the widget). An unknown value falls back to the default."""
    if PENDING_SOURCE_KEY in st.session_state:  # a page asked to select a new upload
        st.session_state[SOURCE_KEY] = st.session_state.pop(PENDING_SOURCE_KEY)
    in_use = current_source()
    if in_use in options:
        st.session_state[SOURCE_KEY] = in_use
    elif st.session_state.get(SOURCE_KEY) not in options:
        st.session_state[SOURCE_KEY] = DEFAULT_SAMPLE
        if get_dataset() is not None and in_use is not None:  # e.g. a deleted library entry
            use_source(DEFAULT_SAMPLE)


def link_dataset_id() -> str | None:
    """What a shared link names as ``dataset=``: a kept library dataset's id, a sample's key,
    else the dataset's name (informative only)."""
    source = current_source()
    if source is not None and source.startswith(LIBRARY_PREFIX):
        return source[len(LIBRARY_PREFIX):]
    dataset = get_dataset()
    return None if dataset is None else str(dataset.name)


def sync_dataset_param() -> None:
    """Keep ``?dataset=<id>`` in the address while a library dataset or a bundled sample other
    than the default is in use, so a reload (a new session), a bookmark or a shared link opens
    it again, with the settings the address carries beside it; drop a library id or a sample
    key that is no longer in use. (A session's upload cannot be opened by a link: an upload's
    name in an explorer link stays, informative only.)"""
    from hlv_core.samples import SAMPLES

    source = current_source()
    linked = st.query_params.get("dataset")
    wanted = None
    if source is not None and source.startswith(LIBRARY_PREFIX):
        wanted = source[len(LIBRARY_PREFIX):]
    elif source in SAMPLES and source != DEFAULT_SAMPLE:
        wanted = source
    if wanted is not None:
        if linked != wanted:
            st.query_params["dataset"] = wanted
    elif linked is not None and (linked in SAMPLES or (
            len(linked) == 12 and set(linked) <= set("0123456789abcdef"))):
        del st.query_params["dataset"]


def get_dataset() -> Dataset | None:
    """The session's dataset, or None."""
    return st.session_state.get(DATASET_KEY)


def ensure_dataset() -> Dataset | None:
    """The session's dataset; on first use, the one selected in the sidebar (default the
    ``case_review`` sample). Pages call this so each page also works when run on its own."""
    dataset = st.session_state.get(DATASET_KEY)
    if dataset is None:
        source = st.session_state.get(SOURCE_KEY, DEFAULT_SAMPLE)
        try:
            try:
                dataset = dataset_for_source(source)
            except DataError as error:
                if not str(source).startswith((UPLOAD_PREFIX, LIBRARY_PREFIX)):
                    raise
                if str(source).startswith(LIBRARY_PREFIX):
                    show_data_error(error)
                source = DEFAULT_SAMPLE  # an upload no longer kept, a deleted library entry
                dataset = dataset_for_source(DEFAULT_SAMPLE)
        except DataError as error:
            show_data_error(error)
            return None
        set_dataset(dataset, source=source)
    return dataset


def set_dataset(dataset: Dataset, *, source: str | None = None) -> None:
    """Make ``dataset`` the one in use (``source``: its selector value, None when it has
    none). The predictions the user added to the previous dataset are put aside under its
    content hash and come back when it is used again."""
    if not str(source).startswith("cluster:"):  # an in-memory dataset chosen: not the cluster's
        st.session_state.pop(CLUSTER_KEY, None)
    st.session_state[IN_USE_KEY] = source
    previous = st.session_state.get(DATASET_KEY)
    owner = st.session_state.get(PREDICTIONS_OWNER_KEY)
    if owner is None and previous is not None:
        owner = previous.content_hash
    if owner != dataset.content_hash:
        stash = st.session_state.setdefault(STASHED_PREDICTIONS_KEY, {})
        added = st.session_state.pop(PREDICTIONS_KEY, None)
        if owner is not None and added is not None:
            stash[owner] = added
        restored = stash.pop(dataset.content_hash, None)
        if restored is not None:
            st.session_state[PREDICTIONS_KEY] = restored
        st.session_state[PREDICTIONS_OWNER_KEY] = dataset.content_hash
    st.session_state[DATASET_KEY] = dataset


def require_dataset(*, tasks: tuple[str, ...] | None = None, need_ids: bool = False) -> Dataset:
    """Return the current dataset or explain what is needed and stop the page."""
    from .cluster_ui import refuse_on_cluster

    refuse_on_cluster()  # a large dataset on a cluster: this page needs the rows in memory
    dataset = ensure_dataset()
    if dataset is None:
        st.info("Choose a dataset in the sidebar or upload your own on the Overview page.")
        st.stop()
    if tasks is not None and dataset.task not in tasks:
        st.warning(
            f"This page needs a {' / '.join(tasks)} dataset; **{md(dataset.name)}** is "
            f"{dataset.task}. Pick another dataset in the sidebar."
        )
        st.stop()
    if need_ids and not dataset.annotator_ids_known:
        st.warning(
            "This page needs annotator identities linked across items; this dataset has "
            "anonymous annotations (counts or per-case readers)."
        )
        st.stop()
    return dataset


def get_predictions() -> pd.DataFrame | None:
    """Bundled predictions of the dataset plus any the user uploaded (long DataFrame with
    columns model, item_id, label, prob[, annotator_id, rank])."""
    dataset = get_dataset()
    frames = []
    if dataset is not None and dataset.predictions is not None:
        frames.append(dataset.predictions)
    extra = st.session_state.get(PREDICTIONS_KEY)
    if extra is not None:
        frames.append(extra)
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True)


def add_predictions(frame: pd.DataFrame) -> dict[str, str]:
    """Append uploaded predictions. A model of an earlier upload with the same name is
    replaced; a model named like one of the dataset's bundled models is renamed
    ``"<name> (uploaded)"`` (never summed with it). Returns ``{old name: new name}`` of the
    renamed models so the page can say so."""
    dataset = get_dataset()
    bundled = set() if dataset is None or dataset.predictions is None else set(
        dataset.predictions["model"].astype(str))
    renamed: dict[str, str] = {}
    for name in pd.unique(frame["model"].astype(str)):
        if name in bundled:
            new, n = f"{name} (uploaded)", 2
            while new in bundled:
                new, n = f"{name} (uploaded {n})", n + 1
            renamed[name] = new
    if renamed:
        frame = frame.assign(model=frame["model"].astype(str).replace(renamed))
    current = st.session_state.get(PREDICTIONS_KEY)
    if current is not None:
        current = current[~current["model"].isin(set(frame["model"]))]
        frame = pd.concat([current, frame], ignore_index=True)
    st.session_state[PREDICTIONS_KEY] = frame
    if dataset is not None:
        st.session_state[PREDICTIONS_OWNER_KEY] = dataset.content_hash
    return renamed


def renamed_note(renamed: dict[str, str]) -> str:
    """One sentence for the page about models renamed by :func:`add_predictions`."""
    return " ".join(
        f"Model '{md(old)}' has the name of a bundled model, so the upload is shown as "
        f"'{md(new)}' (the two are never merged)." for old, new in renamed.items()
    )


def show_data_error(error: DataError) -> None:
    """Show a loader error as a readable message (never a traceback)."""
    st.error(f"**Could not use this file.** {md(error)}", icon=":material/error:")


def frame_hash(frame: pd.DataFrame | None) -> str:
    """Short content hash of a table (a cache key for unhashable DataFrame arguments)."""
    if frame is None or frame.empty:
        return "none"
    digest = hashlib.sha256(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    digest.update("\x1f".join(map(str, frame.columns)).encode())
    return digest.hexdigest()[:16]
