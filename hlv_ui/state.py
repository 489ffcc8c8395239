"""One validated dataset per browser session, shared by every page."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from hlv_core.io import DataError, Dataset
from hlv_core.text import md

DATASET_KEY = "hlv.dataset"
SOURCE_KEY = "app.source"  # the sidebar's sample selectbox
DEFAULT_SAMPLE = "case_review"
PREDICTIONS_KEY = "hlv.predictions"  # extra predictions uploaded by the user (long DataFrame)


def get_dataset() -> Dataset | None:
    """The session's dataset, or None."""
    return st.session_state.get(DATASET_KEY)


def ensure_dataset() -> Dataset | None:
    """The session's dataset; on first use, the sample selected in the sidebar (default
    ``case_review``). Pages call this so each page also works when run on its own."""
    dataset = st.session_state.get(DATASET_KEY)
    if dataset is None:
        from hlv_core.samples import SAMPLES

        from .loading import load_sample_cached

        name = st.session_state.get(SOURCE_KEY, DEFAULT_SAMPLE)
        if name not in SAMPLES:
            name = DEFAULT_SAMPLE
        try:
            dataset = load_sample_cached(name)
        except DataError as error:
            show_data_error(error)
            return None
        set_dataset(dataset)
    return dataset


def set_dataset(dataset: Dataset) -> None:
    previous = st.session_state.get(DATASET_KEY)
    if previous is None or previous.content_hash != dataset.content_hash:
        st.session_state.pop(PREDICTIONS_KEY, None)
    st.session_state[DATASET_KEY] = dataset


def require_dataset(*, tasks: tuple[str, ...] | None = None, need_ids: bool = False) -> Dataset:
    """Return the current dataset or explain what is needed and stop the page."""
    dataset = ensure_dataset()
    if dataset is None:
        st.info("Choose a sample dataset or upload your own in the sidebar.")
        st.stop()
    if tasks is not None and dataset.task not in tasks:
        st.warning(
            f"This page needs a {' / '.join(tasks)} dataset; **{md(dataset.name)}** is "
            f"{dataset.task}. Pick another sample in the sidebar."
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
