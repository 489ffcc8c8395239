"""The bad-input corpus through the Overview upload: every file gives one st.error
with the loader's message (never a traceback), or loads with a success message."""

from __future__ import annotations

import re

import pytest

from tests.test_bad_input_corpus import ALL_CASES

UPLOADABLE = [c for c in ALL_CASES if not c.patches
              and set(c.options) <= {"format", "task"}]


@pytest.mark.slow
def test_every_corpus_file_through_the_overview_upload(app):
    seen = 0
    for case in UPLOADABLE:
        app.selectbox(key="home.format").set_value(case.options.get("format", "auto"))
        app.selectbox(key="home.task").set_value(case.options.get("task", "auto"))
        app.file_uploader(key="home.upload").set_value(
            (upload_name(case), case.raw(), "application/octet-stream")).run()
        assert not app.exception, (case.name, [e.value for e in app.exception])
        errors = [e.value for e in app.error]
        if case.expects_error:
            assert len(errors) == 1 and "How to fix" in errors[0], (case.name, errors)
            shown = re.sub(r"\\(.)", r"\1", errors[0])  # the page escapes markdown characters
            assert all(word in shown for word in case.words), (case.name, errors)
        else:
            assert not errors, (case.name, errors)
            assert any(upload_name(case) in s.value for s in app.success), case.name
        seen += 1
    assert seen == len(UPLOADABLE) >= 55


def upload_name(case) -> str:
    """The file name the user uploads (a corpus file's own name, else the case name)."""
    return case.data if isinstance(case.data, str) else case.name
