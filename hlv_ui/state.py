"""One validated dataset in use per browser session, shared by every page, and the session's
list of datasets to choose from: the bundled samples plus the user's uploads.

Sources (the sidebar selector, :data:`SOURCE_KEY`): a sample key (``"case_review"``) or
``"upload:<id>"`` for an upload kept in :data:`UPLOADS_KEY` (never written to disk: uploads live
in this browser tab and a reload clears them). Switching is explicit: picking a sample keeps the
uploads in the list. Predictions added by the user stay attached to the dataset they were added
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
UPLOAD_PREFIX = "upload:"
MAX_UPLOADED_DATASETS = 5
"""Uploaded datasets one session keeps selectable (the oldest not in use is dropped first)."""


def upload_source(upload_id: str) -> str:
    """The selector value of an upload."""
    return f"{UPLOAD_PREFIX}{upload_id}"


def uploads() -> OrderedDict:
    """The session's uploads: id -> (raw size in bytes, Dataset), oldest first."""
    return st.session_state.setdefault(UPLOADS_KEY, OrderedDict())


def source_options() -> list[str]:
    """Selector values: the uploads (newest first), then the bundled samples."""
    from hlv_core.samples import SAMPLES

    return [upload_source(k) for k in reversed(uploads())] + list(SAMPLES)


def source_label(source: str) -> str:
    """What the selector shows for ``source``: ``"Uploaded: <name>"`` or the sample's title."""
    from hlv_core.samples import SAMPLES

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
    set_dataset(named)
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
    try:
        set_dataset(dataset_for_source(source))
    except DataError as error:
        show_data_error(error)


def apply_dataset_link() -> None:
    """A shared link (``?dataset=<sample key>``, e.g. from Items and annotators) opened in a new
    session selects that bundled sample before anything is loaded; later runs never override the
    user's choice, and an upload's name is only informative (uploads are not shared)."""
    from hlv_core.samples import SAMPLES

    if DATASET_KEY in st.session_state or st.session_state.get(LINK_APPLIED_KEY):
        return
    st.session_state[LINK_APPLIED_KEY] = True
    linked = st.query_params.get("dataset")
    if linked in SAMPLES:
        st.session_state[SOURCE_KEY] = linked


def current_source() -> str | None:
    """The selector value whose dataset is in use, or None (e.g. a dataset set by a test)."""
    dataset = get_dataset()
    for upload_id, (_, kept) in uploads().items():
        if kept is dataset:
            return upload_source(upload_id)
    source = st.session_state.get(SOURCE_KEY)
    return source if source is not None and not source.startswith(UPLOAD_PREFIX) else None


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
            except DataError:
                if not str(source).startswith(UPLOAD_PREFIX):
                    raise
                dataset = dataset_for_source(DEFAULT_SAMPLE)  # an upload no longer kept
        except DataError as error:
            show_data_error(error)
            return None
        set_dataset(dataset)
    return dataset


def set_dataset(dataset: Dataset) -> None:
    """Make ``dataset`` the one in use. The predictions the user added to the previous dataset
    are put aside under its content hash and come back when it is used again."""
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
