"""Every public name of a finished engine module has a numpydoc docstring with the sections a
notebook user needs: Parameters, Returns and a runnable Examples section.

Rules: a function needs ``Parameters`` (unless it takes no argument), ``Returns`` (or
``Yields``) and ``Examples``; a class needs ``Parameters`` or ``Attributes`` (unless its
constructor takes no argument) and ``Examples``; constants are skipped. Names re-exported from
another module are checked where they are defined. Extend ``FINISHED`` when a module's
docstrings are complete; the examples themselves run under ``pytest --doctest-modules``.

``FINISHED_CLASSES`` lists classes whose public methods (properties excluded) are complete
too: each needs ``Returns`` (or ``Yields``), ``Parameters`` when it takes arguments, and
``Examples``.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

FINISHED = [
    "hlv_core.lewidi",
    "hlv_core.scoring",
    "hlv_core.review",
    "hlv_core.review_cases",
    "hlv_core.review_store",
    "hlv_core.verdict_store",
    "hlv_core.judge",
    "hlv_core.judging",
    "hlv_core.competence",
    "hlv_core.errors",
    "hlv_core.annotators",
    "hlv_core.targets",
    "hlv_core.lab",
    "hlv_core._linear",
    "hlv_core._multilabel",
    "hlv_core.simulate",
    "hlv_core.text",
    "hlv_core.glossary",
    "hlv_core.report",
    "hlv_core.progress",
    "hlv_core.library",
    "hlv_core.io.loading",
    "hlv_core.io.errors",
    "hlv_core.io.dataset",
    "hlv_core.io.predictions",
    "hlv_core.io.spelling",
    "hlv_core.io.limits",
    "hlv_core.io.lewidi_submission",
    "hlv_core.io._read",
    "hlv_core.io.chaosnli",
    "hlv_core.io.json_formats",
    "hlv_core.io.labelstudio",
    "hlv_core.io.prodigy",
    "hlv_core.io.cifar10h",
    "hlv_core.io.lewidi_json",
    "hlv_core.io.opinions",
    "hlv_core.io.rankings",
    "hlv_core.io.tabular",
    "hlv_core.io._json",
    "hlv_core.scale",
    "hlv_core.scale.analyses",
    "hlv_core.scale.cluster",
    "hlv_core.scale.competence",
    "hlv_core.scale.pairs",
    "hlv_core.scale.reading",
    "hlv_core.scale.reduce",
]


FINISHED_CLASSES = [
    "hlv_core.io.dataset.Dataset",
    "hlv_core.review_store.ReviewStore",
    "hlv_core.verdict_store.VerdictStore",
    "hlv_core.library.Library",
    "hlv_core.progress.ProgressClock",
    "hlv_core.lewidi.ScoreResult",
    "hlv_core.judge.AltTestResult",
    "hlv_core.scale.pairs.ScaledSigma",
    "hlv_core.scale.reduce.ReducedDataset",
]


def _section(doc: str, name: str) -> bool:
    lines = doc.splitlines()
    return any(
        line.strip() == name and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        for i, line in enumerate(lines)
    )


def _takes_arguments(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return True
    return any(p.name not in ("self", "cls") for p in params)


def _public(module_name: str):
    module = importlib.import_module(module_name)
    for name in module.__all__:
        obj = getattr(module, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", module_name) != module_name:
            continue
        yield f"{module_name}.{name}", obj


CASES = [case for module in FINISHED for case in _public(module)]


def _methods(qualname: str):
    module_name, class_name = qualname.rsplit(".", 1)
    cls = getattr(importlib.import_module(module_name), class_name)
    for name, member in vars(cls).items():
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        yield f"{qualname}.{name}", member


METHODS = [case for qualname in FINISHED_CLASSES for case in _methods(qualname)]


def _missing(obj) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    missing = []
    if not doc.strip():
        return ["a docstring"]
    if inspect.isclass(obj):
        exception = issubclass(obj, BaseException)
        if not exception and _takes_arguments(obj) and not (
            _section(doc, "Parameters") or _section(doc, "Attributes")
        ):
            missing.append("Parameters or Attributes")
    else:
        if _takes_arguments(obj) and not _section(doc, "Parameters"):
            missing.append("Parameters")
        if not (_section(doc, "Returns") or _section(doc, "Yields")):
            missing.append("Returns")
    if not _section(doc, "Examples") or ">>>" not in doc.split("Examples", 1)[-1]:
        missing.append("Examples with a doctest")
    return missing


@pytest.mark.parametrize(("qualname", "obj"), CASES, ids=[c[0] for c in CASES])
def test_public_name_has_numpydoc_sections(qualname, obj):
    missing = _missing(obj)
    assert not missing, f"{qualname}: docstring lacks {', '.join(missing)}"


@pytest.mark.parametrize(("qualname", "obj"), METHODS, ids=[c[0] for c in METHODS])
def test_public_method_has_numpydoc_sections(qualname, obj):
    missing = _missing(obj)
    assert not missing, f"{qualname}: docstring lacks {', '.join(missing)}"


def test_checker_rejects_a_bare_docstring():
    def bare(x):
        """Only a summary."""

    assert _missing(bare) == ["Parameters", "Returns", "Examples with a doctest"]


def test_every_finished_module_declares_all():
    for module_name in FINISHED:
        assert hasattr(importlib.import_module(module_name), "__all__"), module_name
