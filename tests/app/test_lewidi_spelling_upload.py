"""LeWiDi page: a gold whose item ids are in NFD form and a submission with a zero-width space
and a doubled space in its ids score exactly as the clean pair, and the page says what was
respelled; a submission naming one item in two spellings is refused with both named."""

from __future__ import annotations

import json

from ..test_lewidi_spelling import CLEAN_SCORE, NFC, NFD, ZW, mp_gold
from .conftest import open_page


def _upload(at, gold: dict, tsv: str):
    at.file_uploader(key="lewidi.gold").set_value(
        [("mp_test.json", json.dumps(gold, ensure_ascii=False).encode(), "application/json")])
    at.file_uploader(key="lewidi.subs").set_value(
        [("mp_test_soft.tsv", tsv.encode(), "text/tab-separated-values")])
    at.number_input(key="lewidi.n_boot").set_value(100)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_respelled_ids_score_the_same_and_are_reported(app):
    at = open_page(app, "lewidi")
    _upload(at, mp_gold(a=NFD), f"{NFC}{ZW}\t[0.3, 0.7]\nb  one\t[0.1, 0.9]\n")
    board = at.dataframe[-1].value if "score" not in at.dataframe[0].value.columns \
        else at.dataframe[0].value
    assert abs(float(board["score"].iloc[0]) - CLEAN_SCORE) < 1e-9
    shown = " ".join(str(x.value) for x in [*at.caption, *at.warning, *at.info, *at.markdown])
    assert "look-alike spellings of item id" in shown


def test_two_spellings_of_one_item_are_refused(app):
    at = open_page(app, "lewidi")
    _upload(at, mp_gold(), f"{NFC}\t[0.3, 0.7]\n{NFD}\t[0.1, 0.9]\n")
    reasons = [r for frame in at.dataframe if "reason" in frame.value.columns
               for r in frame.value["reason"]]
    assert any("spelled two ways" in r and "row 2" in r for r in reasons), reasons
