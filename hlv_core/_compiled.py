"""The switch between the compiled kernels (:mod:`hlv_core._kernels`, numba) and the numpy
reference paths of sigma's pair statistics and triangle count (and pandas' hash of a big string
dictionary, the content hash's).

This module never imports numba: :func:`kernels` imports :mod:`hlv_core._kernels` at call time
(the first call also compiles or loads the cached machine code), so importing ``hlv_core``, the
CLI or a page stays as fast as before. Where numba is not installed the numpy reference runs
(same integers, tested); :func:`reference_only` forces it (the tests' oracle, the benchmarks'
reference).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["MIN_COMPILED_WORK", "kernels", "reference_only"]

_FORCE_REFERENCE = False

#: Below this much work (annotations, edges) the numpy path runs: it takes well under a second
#: there, while a process's first kernel call costs ~0.8 s (importing numba, loading the cached
#: machine code) and the first on a machine ~18 s (compiling). Every bundled sample and the usual
#: page stays on numpy; a big crowd file goes to the kernels.
MIN_COMPILED_WORK = 1_000_000


def kernels(work: int | None = None):
    """The module :mod:`hlv_core._kernels`, or None where numba is missing, the numpy
    reference is forced (:func:`reference_only`) or ``work`` is below
    :data:`MIN_COMPILED_WORK`.

    Parameters
    ----------
    work : int, optional
        Size of the task (annotations, edges, strings); None: any size.

    Returns
    -------
    module or None
    """
    if _FORCE_REFERENCE or (work is not None and work < MIN_COMPILED_WORK):
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
