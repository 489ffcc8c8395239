"""Loaders for samples and uploads.

Samples: ``st.cache_data`` (small, shared). Uploads: parsed once per content hash and kept in
this browser session's state (:func:`parse_upload`, :func:`parse_predictions`), never pickled:
``st.cache_data`` pickles a returned frame into its cache and unpickles a fresh copy on every
hit, so a large upload cost several full copies of memory. A session keeps at most
:data:`SESSION_UPLOADS` parsed uploads whose raw size adds up to at most
:data:`SESSION_UPLOAD_CAP_MB` (least recently used dropped first); confidential uploads are
dropped when the browser session ends."""

from __future__ import annotations

import os
from collections import OrderedDict

import pandas as pd
import streamlit as st

from hlv_core import samples
from hlv_core.io import DataError, Dataset, load, load_predictions
from hlv_core.io.errors import ImportReport

from .cache import cached, content_key

SESSION_UPLOADS = 3
"""Parsed uploads (datasets and prediction files together) kept per browser session."""

SESSION_UPLOAD_CAP_MB = int(os.environ.get("HLV_SESSION_UPLOAD_MB", "400"))
"""Largest total raw size (MB) of the uploads one session keeps parsed
(env ``HLV_SESSION_UPLOAD_MB``)."""

_CACHE_KEY = "hlv.upload_cache"


@cached(show_spinner="Loading sample…", max_entries=16)
def load_sample_cached(name: str) -> Dataset:
    return samples.load_sample(name)


def _session_cache() -> OrderedDict:
    return st.session_state.setdefault(_CACHE_KEY, OrderedDict())


def _cached(key: tuple, size: int, file_name: str, build):
    """The session's parsed object for ``key`` (moved to most recent), else ``build()`` kept
    under the session's bounds."""
    cache = _session_cache()
    if key in cache:
        cache.move_to_end(key)
        return cache[key][1]
    cap = SESSION_UPLOAD_CAP_MB * 1_000_000
    if size > cap:
        raise DataError(
            f"this upload ({size / 1e6:,.0f} MB) is larger than one session may keep "
            f"({SESSION_UPLOAD_CAP_MB} MB).", source=file_name,
            fix="upload a smaller file (e.g. a subset of items), or ask the operator to raise "
                "HLV_SESSION_UPLOAD_MB.")
    while cache and (len(cache) >= SESSION_UPLOADS
                     or sum(s for s, _ in cache.values()) + size > cap):
        cache.popitem(last=False)
    with st.spinner(f"Reading {file_name}…"):
        value = build()
    cache[key] = (size, value)
    return value


def parse_upload(raw: bytes, file_name: str, fmt: str, digest: str, **options) -> Dataset:
    """Parse uploaded bytes once per ``digest`` (sha256 of the bytes and options) and
    session; see the module doc for the bounds."""
    return _cached(("dataset", digest, file_name, fmt), len(raw), file_name,
                   lambda: load(raw, format=fmt, name=file_name, **options))


def parse_predictions(raw: bytes, file_name: str, dataset: Dataset
                      ) -> tuple[pd.DataFrame, ImportReport]:
    """Validate uploaded predictions against the dataset once per (content, dataset); returns
    the canonical predictions and their import report (notes, e.g. rows renormalised)."""
    import hashlib

    digest = hashlib.sha256(raw).hexdigest()

    def build() -> tuple[pd.DataFrame, ImportReport]:
        report = ImportReport(file_name, "predictions")
        return load_predictions(raw, dataset, name=file_name, report=report), report

    return _cached(content_key("predictions", digest, file_name, dataset), len(raw), file_name,
                   build)
