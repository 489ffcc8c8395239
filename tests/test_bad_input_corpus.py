"""The bad-input corpus: every file through ``load()``, every CLI command and the
Overview upload, each answered with one clear error or the right numbers.

Each case is classified as

* ``clear``: a :class:`DataError` whose message names the file, says "How to fix", is one line
  and short, and contains the expected words; or a dataset whose numbers pass the case's check;
* ``wrong``: loaded, but the check of the numbers fails (a silent wrong number), or an error
  without the expected words / a fix;
* ``crash``: any other exception (a traceback for the user).

Run ``python tests/test_bad_input_corpus.py`` for the counts (size, clear, wrong, crash).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import pytest

if __name__ == "__main__":  # run as a script from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hlv_core import agreement
from hlv_core.io import DataError, limit, load

BAD = Path(__file__).parent / "data" / "bad"
MAX_MESSAGE = 1500


# --------------------------------------------------------------------------- generated inputs
def _zip(members: dict[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _text(name: str) -> str:
    return (BAD / name).read_text()


def _xlsx() -> bytes:
    return _zip({"[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>",
                 "xl/worksheets/sheet1.xml": "<worksheet/>"})


def _two_annotations() -> bytes:
    clean = _text("spelling_clean.csv")
    return _zip({"batch1/annotations.csv": clean, "batch2/annotations.csv": clean})


def _many_members() -> bytes:
    members: dict[str, bytes | str] = {"annotations.csv": _text("spelling_clean.csv")}
    members.update({f"junk/{i}.txt": "" for i in range(limit("zip_members") + 1)})
    return _zip(members)


def _inflating_zip() -> bytes:
    return _zip({"annotations.csv": _text("spelling_clean.csv") + "\n" * (3 << 20)})


def _lying_zip() -> bytes:
    """The central directory claims a tiny size; the member inflates to 3 MiB of newlines."""
    raw = bytearray(_inflating_zip())
    true_size = len(_text("spelling_clean.csv")) + (3 << 20)
    fake = (100).to_bytes(4, "little")
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = raw.find(signature)
        assert int.from_bytes(raw[at + offset: at + offset + 4], "little") == true_size
        raw[at + offset: at + offset + 4] = fake
    return bytes(raw)


def _schema_zip(labels: str, annotations: str | None = None) -> bytes:
    return _zip({"annotations.csv": annotations or _text("spelling_clean.csv"),
                 "labels.csv": labels})


def _parquet(frame_dict: dict) -> bytes:
    import pandas as pd

    buffer = io.BytesIO()
    pd.DataFrame(frame_dict).to_parquet(buffer)
    return buffer.getvalue()


def _parquet_label_sets() -> bytes:
    return _parquet({"item_id": ["i1", "i1", "i2", "i2", "i3", "i3"],
                     "annotator_id": ["a", "b", "a", "b", "a", "b"],
                     "label": [["x", "y"], ["x"], ["y"], ["x", "y"], ["z"], ["x", "z"]]})


def _parquet_list_id() -> bytes:
    return _parquet({"item_id": [["i1"], ["i1"]], "annotator_id": ["a", "b"],
                     "label": ["x", "y"]})


def _two_formats() -> bytes:
    clean = _text("spelling_clean.csv")
    return _zip({"annotations.csv": clean, "annotations.tsv": clean.replace(",", "\t")})


def _companion_elsewhere() -> bytes:
    return _zip({"study/annotations.csv": _text("spelling_clean.csv"),
                 "pilot/labels.csv": "label\n5\n4\n3\n2\n1\n"})


def _schemas_disagree() -> bytes:
    return _zip({"annotations.csv": _text("spelling_clean.csv"),
                 "labels.csv": "label\n1\n2\n3\n4\n5\n",
                 "schema.json": '{"labels": ["5", "4", "3", "2", "1"]}'})


def _schema_repeated_key() -> bytes:
    return _zip({"annotations.csv": _text("spelling_clean.csv"),
                 "schema.json": '{"labels": ["1", "2", "3", "4", "5"],\n'
                                ' "labels": ["5", "4", "3", "2", "1"]}'})


def _nbsp_ids() -> bytes:
    return ("item_id,annotator_id,label\ni 1,a,x\ni\u00a01,b,y\ni 2,a,x\ni  2,b,x\n"
            ).encode()


def _lewidi_two_spellings() -> bytes:
    record = {"annotators": "Ann1,Ann2", "annotations": {"Ann1": "0", "Ann2": "1"},
              "soft_label": {"0.0": 0.5, "1.0": 0.5}, "split": "test", "text": "t"}
    text = json.dumps({"caf\u00e9": record, "cafe\u0301": {**record, "annotators": "Ann3",
                                                              "annotations": {"Ann3": "1"}}},
                      ensure_ascii=False, indent=1)
    return text.encode()


def _npz() -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, counts=np.ones((3, 2), dtype=int))
    return buffer.getvalue()


def _pickled_npy() -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.array([[1, 2], [3, 4]], dtype=object), allow_pickle=True)
    return buffer.getvalue()


# --------------------------------------------------------------------------- checks of numbers
def _alphas(ds) -> tuple[float, float, float]:
    ann = ds.annotations
    return (agreement.krippendorff_alpha(ann, level="nominal"),
            agreement.krippendorff_alpha(ann, level="ordinal"),
            agreement.fleiss_kappa(ann))


def _same_numbers_as_clean(ds) -> bool:
    clean = load(BAD / "spelling_clean.csv")
    same = all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(_alphas(ds), _alphas(clean),
                                                                   strict=True))
    merged_note = any("same number" in n for n in ds.report.notes)
    return same and ds.labels == clean.labels and merged_note


def _notes(ds) -> str:
    return " ".join(ds.report.notes)


@dataclass
class Case:
    """One corpus input: ``data`` (file name in tests/data/bad or a bytes factory), the upload
    name, ``load`` options, and either the words the error must contain or a check."""

    name: str
    data: str | Callable[[], bytes]
    words: tuple[str, ...] = ()
    check: Callable | None = None
    options: dict = field(default_factory=dict)
    patches: dict = field(default_factory=dict)  # environment variables (limits) to set
    item: str = ""

    def raw(self) -> bytes:
        return (BAD / self.data).read_bytes() if isinstance(self.data, str) else self.data()

    @property
    def expects_error(self) -> bool:
        return self.check is None


CASES: list[Case] = [
    # item 1: spellings of one number are one class in every view
    Case("spelling_3_and_3.0.csv", "spelling_3_and_3.0.csv", check=_same_numbers_as_clean,
         item="1"),
    Case("spelling_1_01_1.0.csv", "spelling_1_01_1.0.csv", check=_same_numbers_as_clean,
         item="1"),
    Case("schema_two_spellings.zip", lambda: _schema_zip("label\n1\n2\n3\n3.0\n4\n5\n"),
         words=("'3'", "'3.0'", "same number"), item="1"),
    Case("schema_spelling_wins.zip",
         lambda: _schema_zip("label\n1.0\n2.0\n3.0\n4.0\n5.0\n"),
         check=lambda ds: ds.labels == ("1.0", "2.0", "3.0", "4.0", "5.0"), item="1"),
    Case("case_variants.csv", "case_variants.csv",
         check=lambda ds: "'Hate'" in _notes(ds) and "'hate'" in _notes(ds)
         and ds.labels == ("Hate", "hate", "none"), item="1"),
    Case("whitespace_labels.csv", "whitespace_labels.csv",
         check=lambda ds: ds.labels == ("no", "yes") and "whitespace" in _notes(ds), item="1"),
    Case("rating_1e999.csv", "rating_1e999.csv", words=("'1e999'", "infinite"), item="1"),
    Case("rating_5000_digits.csv", "rating_5000_digits.csv", words=("infinite",), item="1"),
    # item 2: multi-label only from evidence
    Case("one_conflicting_cell.csv", "one_conflicting_cell.csv",
         words=("('i2', 'a2')", "multilabel"), item="2"),
    Case("one_conflicting_cell.csv (task=multilabel)", "one_conflicting_cell.csv",
         options={"task": "multilabel"}, check=lambda ds: ds.task == "multilabel", item="2"),
    Case("multilabel_many_cells.csv", "multilabel_many_cells.csv",
         check=lambda ds: ds.task == "multilabel" and "task inferred as multilabel" in _notes(ds),
         item="2"),
    # item 3: one list of missing-value spellings, one treatment
    Case("missing_hash_na.csv", "missing_hash_na.csv", words=("'#N/A'", "missing"), item="3"),
    Case("missing_minus_nan.csv", "missing_minus_nan.csv", words=("'-nan'",), item="3"),
    Case("missing_NA.csv", "missing_NA.csv", words=("'NA': 2 row(s)",), item="3"),
    Case("missing_slash_na.csv", "missing_slash_na.csv", words=("'N/A'", "'n/a'"), item="3"),
    Case("missing_null_None.csv", "missing_null_None.csv", words=("'null'", "'None'"),
         item="3"),
    Case("nan_string_label.csv", "nan_string_label.csv", words=("'NaN'",), item="3"),
    Case("empty_label.csv", "empty_label.csv", words=("empty label",), item="3"),
    Case("NA_listed_in_schema.zip",
         lambda: _schema_zip("label\nNA\nyes\n",
                             "item_id,annotator_id,label\ni1,a1,NA\ni1,a2,yes\ni2,a1,yes\n"
                             "i2,a2,yes\n"),
         check=lambda ds: ds.labels == ("NA", "yes") and len(ds.annotations) == 4, item="3"),
    Case("wide_missing_spellings.csv", "wide_missing_spellings.csv",
         check=lambda ds: len(ds.annotations) == 10 and "'#N/A': 1" in _notes(ds), item="3"),
    # zips
    Case("two_annotations.zip", _two_annotations,
         words=("batch1/annotations.csv", "batch2/annotations.csv"), item="4"),
    Case("too_many_members.zip", _many_members, words=("members",), item="zip"),
    Case("inflates_too_much.zip", _inflating_zip, words=("inflate",),
         patches={"HLV_MAX_INFLATED_MB": "1"}, item="zip"),
    Case("lying_sizes.zip", _lying_zip, words=("corrupted",), item="zip"),
    # crashes to end
    Case("deep_nesting.json", "deep_nesting.json", words=("nested too deeply",), item="crash"),
    Case("deep_nesting.jsonl", "deep_nesting.jsonl", words=("nested too deeply",),
         item="crash"),
    Case("number_5000_digits.json", "number_5000_digits.json", words=("too long",),
         item="crash"),
    # misleading messages
    Case("workbook.xlsx", _xlsx, words=("export the sheet as CSV",), item="message"),
    Case("workbook_renamed.zip", _xlsx, words=("spreadsheet",), item="message"),
    Case("excel_workbook.xls", "excel_workbook.xls", words=("spreadsheet",), item="message"),
    Case("lewidi2025_1e999.json", "lewidi2025_1e999.json", options={"format": "lewidi2025"},
         words=("too large",), item="message"),
    Case("lewidi2025_json_nan.json", "lewidi2025_json_nan.json",
         options={"format": "lewidi2025"}, words=("NaN label",), item="message"),
    Case("id_rater_answer.csv", "id_rater_answer.csv",
         words=("'id' -> item_id", "'rater' -> annotator_id", "'answer' -> label"),
         item="message"),
    Case("long_header.csv", "long_header.csv", words=("more)",), item="message"),
    # round two, class 1: look-alike spellings are one value (reported), a decimal comma refused
    Case("lookalike_nfc_nfd_labels.csv", "lookalike_nfc_nfd_labels.csv",
         check=lambda ds: ds.labels == ("caf\u00e9", "th\u00e9")
         and "4 row(s)" in _notes(ds) and "NFD" in _notes(ds), item="r2-1"),
    Case("lookalike_invisible_ids.csv", "lookalike_invisible_ids.csv",
         check=lambda ds: list(ds.annotator_ids) == ["ann 1", "ann2", "ann 3"]
         and "U+200B" in _notes(ds) and "repeated or special spaces" in _notes(ds),
         item="r2-1"),
    Case("rating_decimal_comma.csv", "rating_decimal_comma.csv",
         words=("'1,5'", "decimal comma", "row 12", "1.5"), item="r2-1"),
    # class 2: inputs that say two things are refused naming both
    Case("repeated_label_column.csv", "repeated_label_column.csv",
         words=("'label' twice", "column 3", "column 4"), item="r2-2"),
    Case("wide_annotator_twice.csv", "wide_annotator_twice.csv",
         words=("'ann1' twice", "column 2", "column 4"), item="r2-2"),
    Case("two_formats.zip", _two_formats, words=("annotations.csv", "annotations.tsv"),
         item="r2-2"),
    Case("companion_elsewhere.zip", _companion_elsewhere,
         words=("pilot/labels.csv", "study/annotations.csv"), item="r2-2"),
    Case("schemas_disagree.zip", _schemas_disagree, words=("schema.json", "labels.csv"),
         item="r2-2"),
    Case("schema_repeated_key.zip", _schema_repeated_key,
         words=('"labels" appears twice', "lines 1 and 2"), item="r2-2"),
    Case("lewidi2025_repeated_item.json", "lewidi2025_repeated_item.json",
         words=('"7" appears twice', "lines 2 and 24"), item="r2-2"),
    # class 3: Parquet list columns are label sets, or refused
    Case("label_sets.parquet", _parquet_label_sets,
         check=lambda ds: ds.task == "multilabel" and ds.labels == ("x", "y", "z")
         and len(ds.annotations) == 9, item="r2-3"),
    Case("list_item_id.parquet", _parquet_list_id, words=("'item_id' holds lists",),
         item="r2-3"),
    # the blind re-probe (tests/test_hostile_probe.py): classes found at other doors
    Case("lookalike_nbsp_item_ids.csv", _nbsp_ids,
         check=lambda ds: list(ds.item_ids) == ["i 1", "i 2"] and "U+" not in _notes(ds)
         and "repeated or special spaces" in _notes(ds), item="r3-1"),
    Case("lewidi2025_two_spellings.json", _lewidi_two_spellings,
         options={"format": "lewidi2025"},
         words=("spelled two ways", "row 15", "cafe\\u0301"), item="r3-2"),
    Case("npz_renamed.npy", _npz, options={"format": "counts"},
         words=("not a NumPy .npy array", "zip archive"), item="r3-4"),
    Case("pickled_objects.npy", _pickled_npy, options={"format": "counts"},
         words=("allow_pickle",), item="r3-4"),
]


def _existing_bad_files() -> list[Case]:
    """Every earlier corpus file of test_io_bad_inputs (each expects a clear error)."""
    from tests.test_io_bad_inputs import BAD_LOADS

    seen = {c.data for c in CASES if isinstance(c.data, str)}
    out = []
    for name, fmt, _row, _column, words in BAD_LOADS:
        if fmt == "auto" and name not in seen:
            out.append(Case(name, name, words=tuple(words), item="earlier"))
            seen.add(name)
    for name in ("bom.csv", "html_annotator.csv", "numeric_labels.csv"):
        out.append(Case(name, name, check=lambda ds: len(ds.annotations) > 0, item="earlier"))
    return out


ALL_CASES = CASES + _existing_bad_files()


# --------------------------------------------------------------------------- classification
def _clear_message(message: str, case: Case) -> bool:
    return ("How to fix:" in message and "\n" not in message and len(message) <= MAX_MESSAGE
            and all(w in message for w in case.words))


def _load_case(case: Case):
    options = dict(case.options)
    fmt = options.pop("format", "auto")
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.dict(os.environ, case.patches))
        return load(case.raw(), format=fmt, name=case.name, **options)


def classify_load(case: Case) -> str:
    """``clear``, ``wrong`` or ``crash`` for ``load()`` on the case."""
    try:
        dataset = _load_case(case)
    except DataError as error:
        return "clear" if case.expects_error and _clear_message(str(error), case) else "wrong"
    except Exception:
        return "crash"
    if case.expects_error:
        return "wrong"
    try:
        return "clear" if case.check(dataset) else "wrong"
    except Exception:
        return "crash"


COMMANDS = ("summary", "agreement", "sigma", "certainty", "perspectives", "lab", "metrics")


def run_cli(command: str, path: Path) -> tuple[int | None, str]:
    """``main([command, path])`` in-process; returns (exit code or None on a crash, stderr)."""
    from hlv_core.cli import main

    argv = [command, str(path)] + ([str(BAD / "predictions_unknown_item.csv")]
                                   if command == "metrics" else [])
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    except Exception:
        return None, err.getvalue()
    return code, err.getvalue()


def classify_cli(case: Case, folder: Path) -> str:
    """Every command on an input that must be refused: exit 2 and one clear line."""
    if case.patches or case.options or not case.expects_error:
        return "skipped"
    path = folder / case.name
    path.write_bytes(case.raw())
    results = []
    for command in COMMANDS:
        code, err = run_cli(command, path)
        if code is None:
            results.append("crash")
        else:
            line = err.strip()
            ok = code == 2 and line.startswith("error: ") and "\n" not in line
            results.append("clear" if ok and "How to fix" in line else "wrong")
    return "crash" if "crash" in results else "wrong" if "wrong" in results else "clear"


def corpus_counts(folder: Path) -> tuple[dict[str, int], dict[str, str]]:
    """Size of the corpus and how ``load()`` and the CLI answered it (+ the verdict per case)."""
    counts = {"size": len(ALL_CASES), "clear": 0, "wrong": 0, "crash": 0}
    verdicts: dict[str, str] = {}
    for case in ALL_CASES:
        found = {classify_load(case), classify_cli(case, folder)} - {"skipped"}
        verdict = "crash" if "crash" in found else "wrong" if "wrong" in found else "clear"
        counts[verdict] += 1
        verdicts[case.name] = verdict
    return counts, verdicts


# --------------------------------------------------------------------------- tests
@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.name)
def test_load_answers_clearly(case):
    assert classify_load(case) == "clear"


@pytest.mark.slow
def test_corpus_counts(tmp_path, capsys):
    """load() and all seven CLI commands (in-process main) on the whole corpus."""
    counts, verdicts = corpus_counts(tmp_path)
    with capsys.disabled():
        print(f"\nbad-input corpus: {counts}")
    assert counts["wrong"] == 0 and counts["crash"] == 0, {
        name: v for name, v in verdicts.items() if v != "clear"}
    assert counts["clear"] == counts["size"] >= 60


def test_zip_limits_are_checked_before_inflating(monkeypatch):
    """The member count and the declared sizes are checked from the central directory alone."""
    many, big = _many_members(), _inflating_zip()
    opened = []
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open",
                        lambda self, *a, **k: opened.append(a) or real_open(self, *a, **k))
    with pytest.raises(DataError, match="members"):
        load(many, name="many.zip")
    monkeypatch.setenv("HLV_MAX_INFLATED_MB", "1")
    with pytest.raises(DataError, match="would inflate.*HLV_MAX_INFLATED_MB"):
        load(big, name="big.zip")
    assert opened == []


def test_zip_reading_stops_at_the_budget(monkeypatch):
    """Sizes in a zip header can lie: inflating stops once the budget is spent."""
    monkeypatch.setenv("HLV_MAX_INFLATED_MB", "1")
    from hlv_core.io import _read

    real_check = _read.check_limit

    def declared_sizes_pass(key, amount, *, what, **kw):  # as if the header had lied
        if not what.startswith("the zip would inflate"):
            real_check(key, amount, what=what, **kw)

    monkeypatch.setattr(_read, "check_limit", declared_sizes_pass)
    with pytest.raises(DataError, match="inflates to more than"):
        load(_inflating_zip(), name="big.zip")


def test_load_turns_stray_parser_errors_into_data_errors(monkeypatch):
    """A RecursionError / ValueError escaping any reader becomes one DataError inside load."""
    from hlv_core.io import loading

    def boom(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(loading, "read_canonical", boom)
    with pytest.raises(DataError, match="nested too deeply"):
        load(BAD / "spelling_clean.csv")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        counts, verdicts = corpus_counts(Path(tmp))
        for name, verdict in verdicts.items():
            if verdict != "clear":
                print(f"{verdict}: {name}")
        print(counts)


def test_metrics_table_states_partial_coverage(tmp_path, capsys):
    """Scores on 6 of 8 items say so in the CLI table output."""
    from hlv_core.cli import main

    ann = BAD / "spelling_clean.csv"
    ds = load(ann)
    rows = []
    for item in list(ds.item_ids)[:6]:
        rows += [f"m,{item},{lab},{1.0 if lab == '3' else 0.0}" for lab in ds.labels]
    preds = tmp_path / "preds.csv"
    preds.write_text("model,item_id,label,prob\n" + "\n".join(rows) + "\n")
    assert main(["metrics", str(ann), str(preds)]) == 0
    out = capsys.readouterr().out
    assert "only 6 of 8" in out
    assert main(["metrics", str(ann), str(preds), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {(r["n_items"], r["n_items_total"]) for r in records} == {(6, 8)}
    # item 11: the undefined entropy correlation (constant predictions) says why
    undefined = [r for r in records if r["value"] is None]
    assert undefined and all("constant" in r["note"] for r in undefined)
    assert all(r["note"] == "" for r in records if r["value"] is not None)
