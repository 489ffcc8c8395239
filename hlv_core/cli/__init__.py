"""Command line: ``python -m hlv_core SUBCOMMAND ...`` runs the analyses on files and prints a
table or JSON (for pipelines and for people without the UI). One module per command, each with
``add_cli(subparsers)``; shared arguments in ``_common``, the JSON writer and the error line in
``_output``."""

from __future__ import annotations

import argparse
import sys

from ..io import DataError
from . import (
    agreement,
    certainty,
    competence,
    errors,
    explore,
    judge,
    lab,
    lewidi,
    metrics,
    perspectives,
    report,
    review,
    sigma,
    summary,
)
from ._output import ControlFreeStream, error_line

__all__ = ["build_parser", "error_line", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hlv_core", description="HLV Lens analyses on the command line."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    summary.add_cli(sub)
    metrics.add_cli(sub)
    agreement.add_cli(sub)
    sigma.add_cli(sub)
    certainty.add_cli(sub)
    perspectives.add_cli(sub)
    review.add_cli(sub)
    lab.add_cli(sub)
    lewidi.add_cli(sub)
    report.add_cli(sub)
    explore.add_cli(sub)
    judge.add_cli(sub)
    competence.add_cli(sub)
    errors.add_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand: THE error contract of the command line.

    Bad input reaches here as a :class:`~hlv_core.io.DataError` (loaders convert parser failures
    into it), a ``ValueError`` (an option value the engine refuses) or an ``OSError`` (a path
    that cannot be read or written, a read-only database): it is printed as one line on stderr
    (:func:`~hlv_core.cli._output.error_line`) and the exit status is 2. Commands never catch
    these themselves. Other exceptions are bugs and propagate."""
    parser = build_parser()
    args = parser.parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ControlFreeStream(stdout), ControlFreeStream(stderr)
    try:
        return int(args.handler(args) or 0)
    except (DataError, ValueError, OSError) as error:
        print(error_line(error), file=sys.stderr)
        return 2
    finally:
        sys.stdout, sys.stderr = stdout, stderr
