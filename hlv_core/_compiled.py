"""The switch between the compiled kernels (:mod:`hlv_core._kernels`, numba) and the numpy
reference paths of sigma's pair statistics and triangle count.

This module never imports numba: :func:`kernels` imports :mod:`hlv_core._kernels` at call time
(the first call also compiles or loads the cached machine code), so importing ``hlv_core``, the
CLI or a page stays as fast as before. Where numba is not installed the numpy reference runs
(same integers, tested); :func:`reference_only` forces it (the tests' oracle, the benchmarks'
reference).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["kernels", "reference_only"]

_FORCE_REFERENCE = False


def kernels():
    """The module :mod:`hlv_core._kernels`, or None where numba is missing or the numpy
    reference is forced (:func:`reference_only`).

    Returns
    -------
    module or None
    """
    if _FORCE_REFERENCE:
        return None
    try:
        from hlv_core import _kernels
    except ImportError:
        return None
    return _kernels


@contextmanager
def reference_only() -> Iterator[None]:
    """Run the numpy reference paths inside the ``with`` block (not thread-safe: for tests and
    benchmarks).

    Yields
    ------
    None
    """
    global _FORCE_REFERENCE
    before = _FORCE_REFERENCE
    _FORCE_REFERENCE = True
    try:
        yield
    finally:
        _FORCE_REFERENCE = before
