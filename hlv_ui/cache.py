"""One cache for every screen's computations, keyed on content by construction.

``@cached(...)`` is ``st.cache_data`` with one rule added: a :class:`~hlv_core.io.Dataset`
argument is keyed on its ``content_hash``, a DataFrame argument (model predictions, a traits or
validity table) on the hash of its cells and columns (:func:`hlv_ui.state.frame_hash`) and a
numpy array on all its elements, wherever they sit in the arguments (also inside tuples, lists
and dicts). So a cached function takes the dataset
and the predictions as plain arguments next to its parameters, and two datasets with equal
content share an entry while a changed cell makes a new one; there is no hand-built key to
forget. Objects of any other type are keyed the way ``st.cache_data`` keys them (their value)::

    @cached(show_spinner="Computing α…", max_entries=16)
    def compute_alpha(dataset: Dataset, level: str, n_boot: int, seed: int) -> AlphaResult:
        return agreement.alpha_report(dataset.annotations, level=level, n_boot=n_boot, seed=seed)

A long computation with a progress bar runs outside the cache (what a cached function draws is
replayed from the cache on later runs, so its bar would reappear finished) and memoises in the
session under :func:`content_key`, built by the same rules: no screen writes a key by hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from hlv_core.io import Dataset
from hlv_ui.state import frame_hash

__all__ = ["CONTENT_KEYS", "cached", "content_key"]


def _dataset_key(dataset: Dataset) -> str:
    return dataset.content_hash


def _array_key(array: np.ndarray) -> str:
    """Every element (``st.cache_data`` alone samples the elements of a large array)."""
    digest = hashlib.sha256(f"{array.dtype.str}|{array.shape}".encode())
    if array.dtype == object:
        digest.update(pd.util.hash_array(array.ravel()).tobytes())
    else:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:16]


def _series_key(series: pd.Series) -> str:
    return frame_hash(series.to_frame())


#: How ``st.cache_data`` keys the arguments it would otherwise key by identity or by a sample.
CONTENT_KEYS: dict[type, Callable[[Any], str]] = {
    Dataset: _dataset_key, pd.DataFrame: frame_hash, pd.Series: _series_key,
    np.ndarray: _array_key}


def cached(func: Callable | None = None, *, show_spinner: bool | str = False,
           max_entries: int | None = None, ttl: float | None = None,
           scope: str = "global") -> Callable:
    """``st.cache_data`` keyed on the content of datasets and tables (see the module docstring).

    Parameters
    ----------
    func : callable, optional
        The function to cache (``@cached`` without arguments).
    show_spinner, max_entries, ttl, scope
        As in ``st.cache_data``.
    """
    decorate = st.cache_data(show_spinner=show_spinner, max_entries=max_entries, ttl=ttl,
                             scope=scope, hash_funcs=CONTENT_KEYS)
    return decorate if func is None else decorate(func)


def content_key(*args: Any) -> tuple:
    """A session-state memo key for ``args``, built by the rules of :func:`cached`.

    For computations that keep a progress bar (or Streamlit's Stop) in the script thread and so
    memoise in ``st.session_state`` instead of going through :func:`cached`: a dataset, table or
    array becomes its content key (:data:`CONTENT_KEYS`), also inside tuples, lists and dicts;
    any other value stays as it is and must be hashable.

    Parameters
    ----------
    *args
        The dataset and every parameter the result depends on.

    Returns
    -------
    tuple
        One entry per argument; the first is ``dataset.content_hash`` when the dataset comes
        first.
    """
    return tuple(_content(arg) for arg in args)


def _content(value: Any) -> Any:
    for kind, key in CONTENT_KEYS.items():
        if isinstance(value, kind):
            return key(value)
    if isinstance(value, (tuple, list)):
        return tuple(_content(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _content(v)) for k, v in value.items())
    return value
