"""The app numbers its runs before drawing anything else (the browser tests' wait)."""

from __future__ import annotations


def test_the_app_draws_its_run_number_first(app):
    marker = app.main.children[0].children[0]  # the marker's container, then its html element
    assert 'data-hlv-run="1"' in marker.proto.body
