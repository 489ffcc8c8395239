"""Every file, zip and upload is read through the engine's one bounded reader
(``hlv_core.io``: ``as_source`` / ``load_table`` / ``read_json`` / ``open_zip`` +
``read_member``), so one set of limits and one kind of error holds at every door.

A static check: the source of the app, the pages, ``hlv_ui`` and ``hlv_core`` (CLI included) is
parsed and every call that reads bytes without that bound (pandas / pyarrow / numpy readers,
``json.load``, ``zipfile.ZipFile``, ``tarfile`` / ``gzip`` openers, the builtin ``open``,
``Path.read_bytes`` / ``read_text``, a handle's ``.read()`` without a size) fails the test,
except in the bounded reader's own module and the few reviewed places listed below with the
reason. A new unbounded read anywhere makes this test fail.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from .conftest import ROOT

#: The bounded reader itself.
READER = "hlv_core/io/_read.py"

#: ``(file, call as written) -> (how many, why it is allowed)``: reviewed reads that are not
#: user input or are bounded otherwise. A new occurrence, even in one of these files, fails.
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("hlv_core/library.py", "pd.read_parquet"): (
        1, "the library's own content-addressed objects, written by the app and hashed again "
        "before reading (kept datasets passed the bounded reader when uploaded)"),
    ("hlv_core/library.py", "path.read_bytes"): (
        1, "the library's own object files (see above)"),
    ("hlv_core/library.py", "open"): (1, "writes an object file (mode 'wb'), reads nothing"),
    ("hlv_core/lewidi.py", "zipfile.ZipFile"): (
        1, "writes the demo res.zip (mode 'w'), reads nothing"),
    ("pages/graph/figures.py", "<expr>.read_text"): (
        2, "vis-network's script and style from the installed pyvis package's own files"),
    ("hlv_core/scale/reading.py", "pq.read_table"): (
        2, "the distributed reader: one Parquet partition per task by design, for data past "
        "one machine's memory (docs/scaling.md); the second reads one list-typed column of such "
        "a partition, only to name the row it refuses"),
}

#: Readers that take a path or buffer and read it whole.
_MODULE_READERS = {
    ("pd", "pandas"): {"read_csv", "read_json", "read_parquet", "read_table", "read_excel",
                       "read_feather", "read_pickle", "read_fwf", "read_orc", "read_stata",
                       "read_sas", "read_spss", "read_xml", "read_html", "read_hdf"},
    ("pq", "pacsv", "pa", "pyarrow", "pyarrow.parquet", "pyarrow.csv", "ds"): {
        "read_table", "read_csv", "read_pandas", "ParquetFile", "dataset", "open_csv"},
    ("np", "numpy"): {"load", "loadtxt", "genfromtxt", "fromfile"},
    ("json",): {"load"},
    ("zipfile",): {"ZipFile"},
    ("tarfile", "gzip", "bz2", "lzma"): {"open", "TarFile", "GzipFile", "BZ2File", "LZMAFile"},
    ("pickle",): {"load", "loads"},
    ("dd", "dask.dataframe"): {"read_csv", "read_parquet", "read_json", "read_table"},
}


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def unbounded_reads(source: str) -> list[tuple[int, str]]:
    """``(line, call)`` for every call in ``source`` that reads without the bound."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = _dotted(func)
        if isinstance(func, ast.Attribute) and name is None:
            name = f"<expr>.{func.attr}"  # Path(p).read_bytes(), open(p).read(), ...
        if name is None:
            continue
        head, _, attr = name.rpartition(".")
        hit = name == "open" or any(head in modules and attr in calls
                                    for modules, calls in _MODULE_READERS.items())
        hit |= attr in ("read_bytes", "read_text") and bool(head)
        hit |= attr == "read" and bool(head) and not node.args and not node.keywords
        if hit:
            found.append((node.lineno, name))
    return found


def _scanned() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in ("pages", "hlv_ui", "hlv_core"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [f for f in files if f.relative_to(ROOT).as_posix() != READER]


def test_the_scanner_sees_each_kind_of_unbounded_read():
    code = (
        "import io, json, zipfile\nimport pandas as pd\nimport numpy as np\n"
        "a = pd.read_csv(io.BytesIO(raw))\nb = json.load(f)\nc = zipfile.ZipFile(p)\n"
        "d = open(p).read()\ne = Path(p).read_bytes()\nf = np.load(p)\n"
        "g = upload.read()\nh = handle.read(1024)\ni = read_table(source)\n"
        "j = json.loads(text)\nk = pq.read_table(path)\n"
    )
    assert sorted(name for _, name in unbounded_reads(code)) == sorted([
        "pd.read_csv", "json.load", "zipfile.ZipFile", "open", "<expr>.read",
        "<expr>.read_bytes", "np.load", "upload.read", "pq.read_table"])


def test_no_unbounded_read_outside_the_bounded_reader():
    seen: Counter = Counter()
    offending = []
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        for line, name in unbounded_reads(path.read_text(encoding="utf-8")):
            if (rel, name) in ALLOWED:
                seen[(rel, name)] += 1
                continue
            offending.append(f"{rel}:{line}: {name}(...)")
    assert not offending, (
        "read bytes through hlv_core.io (as_source, load_table, read_json, open_zip + "
        "read_member) so the size limits and errors hold:\n" + "\n".join(offending))
    over = {k: n for k, n in seen.items() if n > ALLOWED[k][0]}
    assert not over, f"more reads than reviewed in {over}; route the new one through hlv_core.io"


@pytest.mark.parametrize("key", sorted(ALLOWED))
def test_each_allowance_is_still_needed(key):
    rel, name = key
    names = [n for _, n in unbounded_reads((ROOT / rel).read_text(encoding="utf-8"))]
    assert name in names, f"{key} no longer occurs: remove it from ALLOWED"


def test_the_perspectives_upload_is_read_by_the_bounded_reader(monkeypatch):
    from hlv_core.io import DataError
    from pages.perspectives.cached import parse_upload

    parse_upload = parse_upload.__wrapped__  # the function under the session cache
    frame = parse_upload(b"annotator_id;item_id;label\nu1;i1;a\n", "bounded-1")
    assert list(frame.columns) == ["annotator_id", "item_id", "label"]
    monkeypatch.setenv("HLV_MAX_FILE_MB", "0.00001")
    with pytest.raises(DataError, match="HLV_MAX_FILE_MB"):
        parse_upload(b"annotator_id,item_id,label\n" + b"u1,i1,a\n" * 10, "bounded-2")
    monkeypatch.delenv("HLV_MAX_FILE_MB")
    with pytest.raises(DataError, match="not UTF-8"):
        parse_upload(b"annotator_id,item_id,label\nu1,i1,\xff\n", "bounded-3")
