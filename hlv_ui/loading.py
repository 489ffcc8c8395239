"""Cached loaders for samples and uploads (parsing is cached on the upload's bytes)."""

from __future__ import annotations

import streamlit as st

from hlv_core import samples
from hlv_core.io import Dataset, load, load_predictions
from hlv_core.io.predictions import prediction_matrix  # noqa: F401  (re-export for pages)


@st.cache_data(show_spinner="Loading sample…", max_entries=16)
def load_sample_cached(name: str) -> Dataset:
    return samples.load_sample(name)


@st.cache_data(show_spinner="Reading your file…", max_entries=8, scope="session")
def parse_upload(raw: bytes, file_name: str, fmt: str, digest: str, **options) -> Dataset:
    """Parse uploaded bytes; ``digest`` (sha256 of the bytes) keys the cache. Session-scoped so
    confidential uploads are dropped when the browser session ends."""
    del digest
    return load(raw, format=fmt, name=file_name, **options)


@st.cache_data(show_spinner="Reading predictions…", max_entries=8, scope="session")
def parse_predictions(raw: bytes, file_name: str, _dataset: Dataset, dataset_hash: str):
    del dataset_hash
    return load_predictions(raw, _dataset, name=file_name)
