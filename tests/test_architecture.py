"""The shape of the code base: the engine never imports the UI, pages never import the command
line, and the engine's modules import each other without cycles."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_module(name: str) -> bool:
    path = ROOT / Path(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names, function-level imports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = {f"{module}.{alias.name}" for alias in node.names}
            submodules = {m for m in submodules if _is_module(m)}
            if submodules and len(submodules) == len(node.names):
                found.update(submodules)  # ``from . import x`` with x a submodule
            else:
                found.add(module)
    return found


def _engine_graph() -> nx.DiGraph:
    files = sorted((ROOT / "hlv_core").rglob("*.py"))
    modules = {_module_name(f): f for f in files}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(path):
            if target in modules and target != name:
                # importing a package's submodule also runs the package's __init__
                graph.add_edge(name, target)
    return graph


def test_engine_has_no_import_cycle():
    graph = _engine_graph()
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles in hlv_core: {cycles}"


def test_engine_never_imports_streamlit():
    for path in (ROOT / "hlv_core").rglob("*.py"):
        bad = {m for m in _imports(path) if m == "streamlit" or m.startswith("streamlit.")}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_pages_and_ui_never_import_the_command_line():
    files = [ROOT / "app.py", *(ROOT / "pages").rglob("*.py"), *(ROOT / "hlv_ui").glob("*.py")]
    for path in files:
        bad = {m for m in _imports(path) if m == "hlv_core.cli" or m.startswith("hlv_core.cli.")}
        assert not bad, f"{path.relative_to(ROOT)} imports the CLI: {bad}"


def test_the_cycle_detector_sees_a_cycle(tmp_path):
    """The check above can fail: a two-module cycle is found."""
    graph = nx.DiGraph([("hlv_core.a", "hlv_core.b"), ("hlv_core.b", "hlv_core.a")])
    assert list(nx.simple_cycles(graph))


def _private_module_violations(imports: dict[str, set[str]]) -> list[str]:
    """Where a module imports a private module (a module whose name starts with ``_``, e.g.
    ``hlv_core.io._read``) from outside that module's package. ``imports``: importer -> the
    modules it imports (:func:`_imports`)."""
    found = []
    for importer, targets in imports.items():
        for target in sorted(targets):
            parts = target.split(".")
            for i, part in enumerate(parts):
                if part.startswith("_") and not part.startswith("__") and _is_module(
                        ".".join(parts[: i + 1])):
                    package = ".".join(parts[:i])
                    if importer != package and not importer.startswith(package + "."):
                        found.append(f"{importer} imports {'.'.join(parts[: i + 1])}")
                    break
    return found


def test_private_modules_are_imported_only_inside_their_package():
    files = [*(ROOT / "hlv_core").rglob("*.py"), ROOT / "app.py", *(ROOT / "pages").rglob("*.py"),
             *(ROOT / "hlv_ui").glob("*.py")]
    assert _private_module_violations({_module_name(f): _imports(f) for f in files}) == []


def test_the_private_module_check_sees_a_violation():
    """The check above can fail: a page or a module of another package importing
    ``hlv_core.io._read`` is reported; ``hlv_core.io.loading`` may."""
    found = _private_module_violations({
        "pages.probe": {"hlv_core.io._read"},
        "hlv_core.lewidi": {"hlv_core.io._read"},
        "hlv_core.io.loading": {"hlv_core.io._read"},
    })
    assert found == ["pages.probe imports hlv_core.io._read",
                     "hlv_core.lewidi imports hlv_core.io._read"]


def test_the_dataset_is_built_whole():
    """No module mutates a frozen object after building it (``dataclasses.replace`` or the
    builders' ``name=`` argument instead)."""
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "hlv_core").rglob("*.py")
                 if "object.__setattr__" in path.read_text(encoding="utf-8")]
    assert offenders == []


def test_pages_show_tables_through_show_table():
    """Every table a page shows goes through hlv_ui.widgets.show_table (user strings visible):
    no ``<anything>.dataframe(...)`` / ``st.table(...)`` call in pages or hlv_ui but there."""
    offenders = [f"{path.relative_to(ROOT)}:{node.lineno}"
                 for path in [*(ROOT / "pages").rglob("*.py"), *(ROOT / "hlv_ui").glob("*.py")]
                 if path.name != "widgets.py"
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and (node.func.attr == "dataframe" or node.func.attr in {"table", "data_editor"}
                      and isinstance(node.func.value, ast.Name) and node.func.value.id == "st")]
    assert not offenders, offenders


def test_pages_stay_thin():
    """Pages hold widgets, layout, caching and figures only: each at most 250 lines, on
    average under 220 (figure and layout helpers live in hlv_ui/)."""
    lengths = {path.parent.name: len(path.read_text(encoding="utf-8").splitlines())
               for path in (ROOT / "pages").rglob("page.py")}
    assert lengths and max(lengths.values()) <= 250, lengths
    assert sum(lengths.values()) / len(lengths) < 220, lengths


#: The modules that may import Dask: the distributed engine, the command line's --dask glue and
#: the dashboard's cluster glue (each imports Dask only inside the functions that run on it).
DASK_MODULES = ("hlv_core.scale", "hlv_core.cli._dask", "hlv_ui.cluster_ui")


def _dask_importers(imports: dict[str, set[str]]) -> list[str]:
    """Modules outside :data:`DASK_MODULES` that import ``dask`` or ``distributed`` (or the
    distributed engine ``hlv_core.scale``, which would run Dask on import)."""
    found = []
    for importer, targets in imports.items():
        if importer.startswith(DASK_MODULES[0] + ".") or importer in DASK_MODULES:
            continue
        for target in targets:
            root = target.split(".")[0]
            if root in ("dask", "distributed") or target == DASK_MODULES[0] \
                    or target.startswith(DASK_MODULES[0] + "."):
                found.append(f"{importer} imports {target}")
    return sorted(found)


def test_dask_is_imported_only_by_the_distributed_engine():
    files = [*(ROOT / "hlv_core").rglob("*.py"), *(ROOT / "hlv_ui").rglob("*.py"),
             *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]
    assert _dask_importers({_module_name(f): _imports(f) for f in files}) == []


def test_the_dask_check_sees_a_violation():
    found = _dask_importers({
        "hlv_core.agreement": {"dask.dataframe"},
        "hlv_core.cli.summary": {"hlv_core.cli._dask"},
        "pages.probe": {"hlv_core.scale.reduce"},
        "hlv_core.scale.reduce": {"dask"},
        "hlv_core.cli._dask": {"hlv_core.scale"},
        "hlv_ui.cluster_ui": {"distributed", "hlv_core.scale"},
        "hlv_ui.state": {"distributed"},
    })
    assert found == ["hlv_core.agreement imports dask.dataframe",
                     "hlv_ui.state imports distributed",
                     "pages.probe imports hlv_core.scale.reduce"]


def _jit_importers(imports: dict[str, set[str]]) -> list[str]:
    """Where a module other than ``hlv_core._kernels`` imports numba or llvmlite, or a module
    other than ``hlv_core._compiled`` imports ``hlv_core._kernels`` (the compiled kernels are
    reached through ``hlv_core._compiled.kernels()`` only, at call time)."""
    found = []
    for importer, targets in sorted(imports.items()):
        for target in sorted(targets):
            jit = target.split(".")[0] in ("numba", "llvmlite")
            if (jit and importer != "hlv_core._kernels") or (
                    target == "hlv_core._kernels" and importer != "hlv_core._compiled"):
                found.append(f"{importer} imports {target}")
    return found


def test_numba_is_imported_only_by_the_kernels_module():
    files = [*(ROOT / "hlv_core").rglob("*.py"), *(ROOT / "hlv_ui").rglob("*.py"),
             *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]
    assert _jit_importers({_module_name(f): _imports(f) for f in files}) == []


def test_the_numba_check_sees_a_violation():
    found = _jit_importers({
        "hlv_core._kernels": {"numba", "numba.core", "llvmlite"},
        "hlv_core._compiled": {"hlv_core._kernels"},
        "hlv_core.balance": {"hlv_core._kernels", "hlv_core._compiled"},
        "pages.probe": {"numba"},
    })
    assert found == ["hlv_core.balance imports hlv_core._kernels", "pages.probe imports numba"]


# ----------------------------------------------------------------------------- screens

#: At most this many shared UI modules in hlv_ui/ (``__init__`` not counted): a module that one
#: screen uses lives in that screen's folder.
MAX_SHARED_UI_MODULES = 14

#: Module names a screen folder may hold: the page script, and modules named by what they hold
#: (``views``: sections and tabs drawn with streamlit; ``figures``: plotly figures and display
#: tables, no streamlit; ``cached``: the screen's cached engine calls; ``state``: the screen's
#: session or browser state), alone or after a topic (``judge_views``).
SCREEN_MODULE_KINDS = ("views", "figures", "cached", "state")


def _screens() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "pages").glob("*/page.py"))


def _screen_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) >= 2 and parts[0] == "pages" else None


def _screen_violations(imports: dict[str, set[str]]) -> list[str]:
    """Imports that break the screen rules: a screen module importing another screen's module,
    ``hlv_ui`` or the engine importing a screen, the engine importing ``hlv_ui``."""
    found = []
    for importer, targets in imports.items():
        mine = _screen_of(importer)
        for target in sorted(targets):
            theirs = _screen_of(target)
            top = importer.split(".")[0]
            if theirs is not None and top in ("hlv_ui", "hlv_core", "app"):
                found.append(f"{importer} imports the screen module {target}")
            elif theirs is not None and mine is not None and theirs != mine:
                found.append(f"{importer} imports another screen's module {target}")
            elif top == "hlv_core" and (target == "hlv_ui" or target.startswith("hlv_ui.")):
                found.append(f"{importer} imports the UI module {target}")
    return found


def _ui_and_screen_imports() -> dict[str, set[str]]:
    files = [*(ROOT / "hlv_core").rglob("*.py"), *(ROOT / "hlv_ui").rglob("*.py"),
             *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]
    return {_module_name(f): _imports(f) for f in files}


def test_screens_import_the_engine_and_hlv_ui_never_another_screen():
    assert _screen_violations(_ui_and_screen_imports()) == []


def test_the_screen_check_sees_violations():
    found = _screen_violations({
        "pages.agreement.page": {"pages.agreement.views", "hlv_ui.state", "hlv_core.agreement"},
        "pages.graph.views": {"pages.agreement.views"},
        "hlv_ui.widgets": {"pages.home.figures"},
        "hlv_core.report": {"hlv_ui.palette"},
    })
    assert found == ["pages.graph.views imports another screen's module pages.agreement.views",
                     "hlv_ui.widgets imports the screen module pages.home.figures",
                     "hlv_core.report imports the UI module hlv_ui.palette"]


def test_hlv_ui_holds_only_shared_modules():
    """hlv_ui/ stays small, and each of its modules is shared: used by the entry point, by
    another hlv_ui module or by at least two screens."""
    modules = sorted(p.stem for p in (ROOT / "hlv_ui").glob("*.py") if p.stem != "__init__")
    assert len(modules) <= MAX_SHARED_UI_MODULES, modules
    imports = _ui_and_screen_imports()
    for name in modules:
        module = f"hlv_ui.{name}"
        users = {importer for importer, targets in imports.items()
                 if module in targets and importer != module}
        screens = {_screen_of(u) for u in users} - {None}
        shared = any(u == "app" or u.startswith("hlv_ui") for u in users) or len(screens) >= 2
        assert shared, f"{module} is used by {sorted(users)} only: move it into that screen"


def test_every_screen_is_a_folder_in_the_navigation():
    """Each screen is ``pages/<screen>/page.py``, listed in app.py's navigation. ``pages/``
    itself holds only one entry stub per page address (``pages/<url_path>.py``: Streamlit's old
    ``pages/`` mode, the mode of a fresh server, lists them, so a first request for a link finds
    its page; the stub hands over to app.py's navigation and does nothing else)."""
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    from hlv_ui.login_flow import APP_PATHS

    stubs = sorted(p.stem for p in (ROOT / "pages").glob("*.py") if p.name != "__init__.py")
    assert stubs == sorted(APP_PATHS)
    for stub in stubs:
        code = (ROOT / "pages" / f"{stub}.py").read_text(encoding="utf-8")
        assert code.rstrip().endswith("from hlv_ui.login_flow import entry_point_only\n\n"
                                      "entry_point_only()"), stub
    screens = _screens()
    assert len(screens) >= 12
    for folder in screens:
        assert f'"pages/{folder.name}/page.py"' in app, folder.name
        assert (folder / "__init__.py").exists(), folder.name


def test_screen_modules_follow_the_suffix_vocabulary():
    for folder in _screens():
        for path in folder.glob("*.py"):
            stem = path.stem
            if stem in ("page", "__init__", *SCREEN_MODULE_KINDS):
                continue
            assert any(stem.endswith(f"_{kind}") for kind in SCREEN_MODULE_KINDS), \
                f"{path.relative_to(ROOT)}: name it after one of {SCREEN_MODULE_KINDS}"


def test_figure_modules_draw_without_streamlit():
    for path in (ROOT / "pages").rglob("*figures.py"):
        bad = {m for m in _imports(path) if m == "streamlit" or m.startswith("streamlit.")}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}: widgets go into a views module"


def test_screens_cache_through_the_content_keyed_helper():
    """Every cached computation of the UI goes through ``hlv_ui.cache.cached`` (keyed on the
    content of datasets, tables and arrays by construction): no ``st.cache_data`` elsewhere,
    no argument left out of the key by a leading underscore, and no memo key built by hand
    (a tuple holding a ``.content_hash``: ``hlv_ui.cache.content_key`` builds those)."""
    offenders = []
    for path in [*(ROOT / "pages").rglob("*.py"), *(ROOT / "hlv_ui").glob("*.py"), ROOT / "app.py"]:
        if path.name == "cache.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "cache_data":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} uses st.cache_data")
            if isinstance(node, ast.Tuple) and any(
                    isinstance(e, ast.Attribute) and e.attr == "content_hash" for e in node.elts):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} builds a key by hand")
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", None) == "cached"
                    or getattr(d, "id", None) == "cached" for d in node.decorator_list):
                hidden = [a.arg for a in node.args.args if a.arg.startswith("_")]
                if hidden:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
                                     f"leaves {hidden} out of the key")
    assert offenders == []


# ----------------------------------------------------------------------------- references

#: Names of the files of the shared specification folder (outside the repository): code, docs
#: and benchmarks name the paper and its section instead, and never a tracker's issue number.
_SPEC_FILES = ("agreement_balance_perspectivist", "certainty", "formats", "lewidi",
               "model_vs_humans", "signal_noise", "soft_metrics", "streamlit_and_testing")
_OUTSIDE_REFERENCE = re.compile(
    r"\bissues? ?#?\d+|\bspec(?:ification)? (?:sections?|sec\.?) ?\d|\bspec \d+\.\d"
    r"|\b(?:" + "|".join(_SPEC_FILES) + r")\.md\b", re.IGNORECASE)


def _outside_references(name: str, text: str) -> list[str]:
    return [f"{name}:{i}: {line.strip()[:80]}" for i, line in enumerate(text.splitlines(), 1)
            if _OUTSIDE_REFERENCE.search(line)]


def test_no_reference_to_issue_numbers_or_spec_files():
    """Comments, docs, tests and benchmarks point to papers and sections, not to issue numbers
    or the shared folder's spec files (the engine's docstrings are checked with their
    reference sections; here its comments)."""
    found = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if (not path.is_file() or path.suffix not in {".py", ".md", ".sh", ".txt", ".toml"}
                or rel.parts[0] in {".venv", ".git", "sample_data"} or path == Path(__file__)):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if rel.parts[0] == "hlv_core":
            text = "\n".join(line if line.lstrip().startswith("#") else ""
                             for line in text.splitlines())
        found += _outside_references(str(rel), text)
    assert found == []


def test_the_reference_check_sees_references():
    text = ("ok: Kurniawan et al., section 3.1\n# issue 19 item 2\nsee soft_metrics.md\n"
            "spec section 5\n(spec 6.1)\n")
    assert [r.split(":")[1] for r in _outside_references("x", text)] == ["2", "3", "4", "5"]


# ----------------------------------------------------------------------------- test names

#: Test files named after what they test rather than one module (a page, a capability, a data
#: corpus); every other ``tests/test_<name>.py`` names an existing module of the engine.
TESTS_NAMED_OTHERWISE = {
    "architecture", "bad_input_corpus", "bigfile", "e2e_waits", "requirements",
    "reproduction", "samples_", "scale", "security",
    # cross-cutting checks over the whole package, not one module's tests
    "bounded_reads", "docstrings", "doctest_safeguards", "formula_table", "hostile_probe",
    "public_api", "runtime_only",
}


def test_test_files_are_named_after_existing_modules():
    """``tests/test_<module>.py`` or ``tests/test_<module>_<aspect>.py`` with ``<module>`` a
    module of the engine or of hlv_ui (private ones without their underscore)."""
    engine = {p.stem.lstrip("_") for p in [*(ROOT / "hlv_core").rglob("*.py"),
                                            *(ROOT / "hlv_ui").glob("*.py")]} | {
        p.name for p in (ROOT / "hlv_core").iterdir() if p.is_dir()}
    orphans = []
    for path in (ROOT / "tests").glob("test_*.py"):
        name = path.stem[len("test_"):]
        if name in TESTS_NAMED_OTHERWISE or name in engine:
            continue
        if any(name.startswith(f"{module}_") for module in engine):
            continue  # test_<module>_<aspect>.py
        orphans.append(path.name)
    assert sorted(orphans) == []
