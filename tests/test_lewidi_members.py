"""Codabench ``res.zip`` scored file by file (``lewidi.score_members``): one bad file leaves
the others scored and is listed with its reason; default system names come from the zip's
folder when the file is just ``res.zip``. Real LeWiDi 2025 gold (CSC, Paraphrase)."""

from __future__ import annotations

import io
import zipfile

import pytest

from hlv_core import lewidi

from .test_lewidi import construct, gold_json, gold_path, ref_score


def zip_bytes(entries: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def real_layout_zip(folder: str, *, bad: bool, seed: int = 0) -> tuple[bytes, dict[str, str]]:
    """A res.zip as teams upload it: the TSVs of CSC and Paraphrase in one folder, a README;
    with ``bad``, the Paraphrase Task A file has a row with the wrong number of bins."""
    csc, par = gold_json("CSC"), gold_json("Paraphrase")
    entries = {
        f"{folder}/csc_test_soft.tsv": construct(csc, "CSC", "soft", "noisy", seed),
        f"{folder}/csc_test_pe.tsv": construct(csc, "CSC", "pe", "noisy", seed),
        f"{folder}/par_test_soft.tsv": construct(par, "Paraphrase", "soft", "noisy", seed),
        f"{folder}/README.md": "our system",
    }
    if bad:
        lines = entries[f"{folder}/par_test_soft.tsv"].splitlines()
        item = lines[3].split("\t")[0]
        lines[3] = f"{item}\t[0.5, 0.5]"
        entries[f"{folder}/par_test_soft.tsv"] = "\n".join(lines) + "\n"
    return zip_bytes(entries), entries


@pytest.fixture(scope="module")
def golds():
    return [lewidi.load_gold(gold_path("CSC")), lewidi.load_gold(gold_path("Paraphrase"))]


def test_one_bad_file_leaves_the_others_scored(golds):
    raw, entries = real_layout_zip("team_alpha", bad=True)
    results, refused = lewidi.score_members(golds, raw, name="res.zip")
    assert sorted((r.dataset, r.task) for r in results) == [("CSC", "pe"), ("CSC", "soft")]
    for r in results:
        tsv = entries[f"team_alpha/csc_test_{r.task}.tsv"]
        assert abs(r.score - ref_score(gold_json("CSC"), "CSC", r.task, tsv)) <= 1e-5 + 1e-12
    by_file = {x.file.rsplit("/", 1)[-1]: x for x in refused}
    assert set(by_file) == {"par_test_soft.tsv", "README.md"}
    assert by_file["par_test_soft.tsv"].status == "refused"
    assert "row 4" in by_file["par_test_soft.tsv"].reason  # names the row and the fix
    assert "How to fix" in by_file["par_test_soft.tsv"].reason
    assert by_file["README.md"].status == "ignored"
    # the all-or-nothing scorer refuses the same zip as a whole
    with pytest.raises(lewidi.DataError):
        lewidi.score_results(golds, raw, name="res.zip")


def test_a_good_zip_scores_like_score_results(golds):
    raw, _ = real_layout_zip("team_alpha", bad=False)
    results, refused = lewidi.score_members(golds, raw, name="res.zip")
    reference = lewidi.score_results(golds, raw, name="res.zip")
    assert [(r.dataset, r.task, r.score) for r in results] == [
        (r.dataset, r.task, r.score) for r in reference]
    assert [x.status for x in refused] == ["ignored"]


def test_files_without_gold_and_duplicates_are_listed(golds):
    csc = gold_json("CSC")
    raw = zip_bytes({"mp_test_soft.tsv": "x\t[0.5, 0.5]\n",
                     "csc_test_soft.tsv": construct(csc, "CSC", "soft", "perfect"),
                     "copy/csc_test_soft.tsv": construct(csc, "CSC", "soft", "uniform")})
    results, refused = lewidi.score_members(golds, raw, name="res.zip")
    assert [(r.dataset, r.task) for r in results] == [("CSC", "soft")]
    assert sorted(x.status for x in refused) == ["refused", "skipped"]
    assert any("already scores CSC test Task soft" in x.reason for x in refused)


def test_a_bad_plain_tsv_is_one_refusal(golds):
    results, refused = lewidi.score_members(golds, b"not a submission\n",
                                            name="csc_test_soft.tsv")
    assert results == [] and [x.status for x in refused] == ["refused"]


@pytest.mark.parametrize(("name", "entries", "expected"), [
    ("res.zip", {"team_alpha_run1/csc_test_soft.tsv": "x"}, "team_alpha_run1"),
    ("res.zip", {"res/csc_test_soft.tsv": "x"}, "res"),
    ("res.zip", {"csc_test_soft.tsv": "x"}, "res"),
    ("res.zip", {"a/csc_test_soft.tsv": "x", "b/csc_test_pe.tsv": "x"}, "res"),
    ("run2_bert.zip", {"res/csc_test_soft.tsv": "x"}, "run2_bert"),
    ("csc_test_soft.tsv", None, "csc_test_soft"),
])
def test_default_system_names(name, entries, expected):
    raw = zip_bytes(entries) if entries is not None else b"x\t[1]\n"
    assert lewidi.default_system_name(name, raw) == expected
