"""The command line imports only the module of the command it runs: ``--help`` lists every
command with the same text as the fully wired parser, each command's own parser is the same, and
a run leaves the other commands' engine modules unimported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hlv_core.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _choices(parser):
    return parser._subparsers._group_actions[0].choices


def test_placeholder_help_equals_the_fully_wired_help():
    full = build_parser()
    assert build_parser(None).format_help() == full.format_help()
    listed = {name for name, *_ in COMMANDS} | {a for *_, aliases in COMMANDS for a in aliases}
    assert listed == set(_choices(full))


@pytest.mark.parametrize("module", sorted({module for _, module, *_ in COMMANDS}))
def test_each_command_parser_is_the_one_add_cli_builds(module):
    full, lazy = build_parser(), build_parser(module)
    assert lazy.format_help() == full.format_help()
    for name, owner, *_ in COMMANDS:
        if owner == module:
            assert _choices(lazy)[name].format_help() == _choices(full)[name].format_help()


def _modules_after(argv: list[str]) -> tuple[int, set[str], str]:
    code = (
        "import contextlib, io, json, sys\n"
        "from hlv_core.cli import main\n"
        "out = io.StringIO()\n"
        "try:\n"
        "    with contextlib.redirect_stdout(out):\n"
        f"        rc = main({argv!r})\n"
        "except SystemExit as stop:\n"
        "    rc = stop.code\n"
        "print(json.dumps([rc, sorted(sys.modules), out.getvalue()]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    rc, modules, out = json.loads(done.stdout.splitlines()[-1])
    return rc, set(modules), out


def test_help_imports_no_engine():
    rc, modules, out = _modules_after(["--help"])
    assert rc == 0 and "certainty" in out and "errors" in out
    assert not {"pandas", "scipy", "numpy", "hlv_core.io"} & modules


def test_a_command_imports_only_its_own_module():
    from hlv_core.samples import sample_path

    rc, modules, out = _modules_after(["summary", str(sample_path("ratings"))])
    assert rc == 0 and "n_items: 200" in out
    commands = {m for m in modules if m.startswith("hlv_core.cli.") and
                not m.startswith("hlv_core.cli._")}
    assert commands == {"hlv_core.cli.summary"}
    assert not {"hlv_core.judge", "hlv_core.certainty", "scipy.stats"} & modules


def test_errors_and_exit_codes_unchanged(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["no-such-command"])
    assert stop.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,annotator_id,label\n1,a,x\n1,a,x\n")
    assert main(["balance", str(bad)]) == 2
    assert "row 3" in capsys.readouterr().err
