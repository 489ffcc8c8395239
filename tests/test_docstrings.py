"""Every public name of a documented engine module has a numpydoc docstring with the sections a
notebook user needs: Parameters, Returns, References and a runnable Examples section.

One rule for every module in ``DOCUMENTED_MODULES`` (their ``__all__``; a name re-exported from
another module is checked where it is defined; constants are skipped):

- a function needs ``Parameters`` (unless it takes no argument), ``Returns`` (or ``Yields``),
  ``References`` and ``Examples`` with a doctest;
- a class needs ``Parameters`` or ``Attributes`` (unless its constructor takes no argument, or
  it is an exception), ``References`` and ``Examples`` with a doctest.

``References`` names the paper the method comes from, or for a file reader the format's
specification or documentation. ``NO_REFERENCE`` lists the plumbing exempt from it, each with
the reason: modules or names that implement no method of a paper and read no documented format
(storage, access rules, byte-level reading, messages, report assembly). Extend
``DOCUMENTED_MODULES`` when a module's docstrings are complete; the examples run under
``pytest --doctest-modules`` (``pyproject.toml``).

``FINISHED_CLASSES`` lists classes whose public methods (properties excluded) are complete too:
each needs ``Returns`` (or ``Yields``), ``Parameters`` when it takes arguments, and ``Examples``
(the class's own docstring carries the reference).
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

DOCUMENTED_MODULES = [
    "hlv_core.soft_metrics",
    "hlv_core.certainty",
    "hlv_core.aggregation",
    "hlv_core.agreement",
    "hlv_core._alpha",
    "hlv_core.balance",
    "hlv_core.perspectivist.evaluation",
    "hlv_core.perspectivist.splits",
    "hlv_core.perspectivist.baselines",
    "hlv_core.calibration",
    "hlv_core.ceiling",
    "hlv_core.pair_matrix",
    "hlv_core.levels",
    "hlv_core.samples",
    "hlv_core.figures",
    "hlv_core._plackett_luce",
    "hlv_core._compact_sampler",
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

# Plumbing without a paper or a documented format behind it: a module (every public name) or a
# single ``module.name``, each with the reason it needs no References section.
NO_REFERENCE = {
    "hlv_core.io._read": "byte-level reading: decoding, zip members, memory budgets",
    "hlv_core.io._json": "shared helpers of the JSON readers (keys, messages, frames)",
    "hlv_core.io.errors": "the error type and the import report",
    "hlv_core.io.limits": "size limits read from the environment",
    "hlv_core.io.spelling": "label spelling clean-up and its messages",
    "hlv_core.io.dataset.apply_label_rules": "label spelling clean-up",
    "hlv_core.io.dataset.respelling_note": "the import-report line of the spelling clean-up",
    "hlv_core.figures.plot_text": "drawing only: escaping for plotly",
    "hlv_core.figures.plot_texts": "drawing only: escaping for plotly",
    "hlv_core.figures.count_axis": "drawing only: axis ticks",
    "hlv_core.figures.bin_counts_max": "drawing only: the top of a histogram's axis",
    "hlv_core.figures.pair_heatmap": "drawing only (the values come from pair_matrix)",
    "hlv_core.figures.label_distribution_figure": "drawing only (counts come from the Dataset)",
    "hlv_core.figures.annotators_per_item_figure": "drawing only (counts come from the Dataset)",
    "hlv_core.figures.item_distribution_figure": "drawing only (shares come from the Dataset)",
    "hlv_core.io.dataset.echo": "a message helper",
    "hlv_core.io.dataset.is_missing_spelling": "label spelling clean-up",
    "hlv_core.report": "assembles results whose functions carry the references",
    "hlv_core.glossary": "texts; each term names its own paper and section",
    "hlv_core.library": "dataset storage",
    "hlv_core.review_store": "judgement storage",
    "hlv_core.verdict_store": "verdict storage",
    "hlv_core.review.Access": "access rules of the review workspace",
    "hlv_core.review.can_import": "access rules of the review workspace",
    "hlv_core.review.exportable_judgements": "access rules of the review workspace",
    "hlv_core.review.exportable_own_labels": "access rules of the review workspace",
    "hlv_core.review.own_judgements": "access rules of the review workspace",
    "hlv_core.review_cases.history_table": "a reviewer's history, for reading",
    "hlv_core.review_cases.output_letters": "display letters of the blinded outputs",
    "hlv_core.review_cases.readable_time": "time formatting",
    "hlv_core.lab.has_texts": "a data check",
    "hlv_core.lab.clear_feature_cache": "cache housekeeping",
    "hlv_core.lab.cap_notes": "messages about size caps",
    "hlv_core.progress": "progress and time-left display",
    "hlv_core.text": "control-character stripping for display",
    "hlv_core.scale.cluster": "Dask cluster connection and its errors",
}


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
    """A numpydoc section title: the name on its own line, underlined by as many dashes."""
    lines = doc.splitlines()
    return any(
        line.strip() == name and i + 1 < len(lines)
        and re.fullmatch(r"-+", lines[i + 1].strip()) is not None
        and len(lines[i + 1].strip()) == len(name)
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


CASES = [case for module in DOCUMENTED_MODULES for case in _public(module)]


def _methods(qualname: str):
    module_name, class_name = qualname.rsplit(".", 1)
    cls = getattr(importlib.import_module(module_name), class_name)
    for name, member in vars(cls).items():
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        yield f"{qualname}.{name}", member


METHODS = [case for qualname in FINISHED_CLASSES for case in _methods(qualname)]


def _needs_reference(qualname: str) -> bool:
    module_name = qualname.rsplit(".", 1)[0]
    return qualname not in NO_REFERENCE and module_name not in NO_REFERENCE


def _missing(obj, *, reference: bool = True) -> list[str]:
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
    if reference and not _section(doc, "References"):
        missing.append("References")
    if not _section(doc, "Examples") or ">>>" not in doc.split("Examples", 1)[-1]:
        missing.append("Examples with a doctest")
    return missing


@pytest.mark.parametrize(("qualname", "obj"), CASES, ids=[c[0] for c in CASES])
def test_public_name_has_numpydoc_sections(qualname, obj):
    missing = _missing(obj, reference=_needs_reference(qualname))
    assert not missing, f"{qualname}: docstring lacks {', '.join(missing)}"


@pytest.mark.parametrize(("qualname", "obj"), METHODS, ids=[c[0] for c in METHODS])
def test_public_method_has_numpydoc_sections(qualname, obj):
    missing = _missing(obj, reference=False)
    assert not missing, f"{qualname}: docstring lacks {', '.join(missing)}"


def test_checker_rejects_a_bare_docstring():
    def bare(x):
        """Only a summary."""

    assert _missing(bare) == ["Parameters", "Returns", "References", "Examples with a doctest"]
    assert _missing(bare, reference=False) == ["Parameters", "Returns", "Examples with a doctest"]
    # a title needs an underline of its own length
    assert not _section("References\n---\n", "References")


def test_every_exemption_is_documented_and_still_needed():
    listed = set(DOCUMENTED_MODULES)
    names = {qualname for qualname, _ in CASES}
    for key, reason in NO_REFERENCE.items():
        assert reason.strip(), key
        assert key in listed or key in names, f"{key} is not a documented module or name"
    # a name exempted one by one that has a reference since no longer needs the exemption
    stale = [q for q, obj in CASES if q in NO_REFERENCE
             and _section(inspect.getdoc(obj) or "", "References")]
    assert stale == []


def test_every_documented_module_declares_all():
    for module_name in DOCUMENTED_MODULES:
        assert hasattr(importlib.import_module(module_name), "__all__"), module_name


def test_every_documented_module_has_an_example():
    without = [name for name in DOCUMENTED_MODULES
               if ">>>" not in (importlib.import_module(name).__doc__ or "")
               and not any(">>>" in (inspect.getdoc(obj) or "") for _, obj in _public(name))]
    assert without == [], "documented modules without a single example"
