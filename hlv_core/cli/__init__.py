"""Command line: ``python -m hlv_core SUBCOMMAND ...`` runs the analyses on files and prints a
table or JSON (for pipelines and for people without the UI). One module per command, each with
``add_cli(subparsers)``; shared arguments in ``_common``, the JSON writer and the error line in
``_output``.

A run imports only the module of the command it runs (and so only that command's engine
modules): every other command is wired as a placeholder with its one-line help, so ``--help``
still lists them all without importing scipy.stats, scipy.cluster or the other engines.
:func:`build_parser` without a command wires every module fully."""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["COMMANDS", "build_parser", "error_line", "main"]

# (command, module in this package, one-line help, aliases), in the order --help lists them.
# The help must equal the one the module's ``add_cli`` gives (tests/test_cli_lazy.py checks).
COMMANDS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("summary", "summary", "overview of a dataset", ()),
    ("metrics", "metrics", "hard and soft metrics of model predictions against human judgements "
     "(Kurniawan et al.)", ()),
    ("agreement", "agreement", "Krippendorff's alpha (overall, pairs), kappas, multi-label "
     "agreement", ()),
    ("sigma", "sigma", "systematicity sigma, sigma_rnd and annotator camps (several files: "
     "comparison)", ("balance",)),
    ("certainty", "certainty", "annotation certainty and UA accuracy (Stutz et al.)", ()),
    ("perspectives", "perspectives", "PERSEVAL split + baselines (+ predictions): "
     "per-user/text/trait metrics", ()),
    ("split", "perspectives", "write a PERSEVAL user-disjoint split as CSV", ()),
    ("review", "review", "expert pairwise judgements: export, import, rank (Kurniawan et al. "
     "sec. 6)", ()),
    ("lab", "lab", "train a fast linear text model with each HLV training method (Kurniawan et "
     "al.)", ()),
    ("lewidi", "lewidi", "official LeWiDi 2023/2025 score of a submission TSV or res.zip", ()),
    ("report", "report", "self-contained HTML disagreement report of a dataset (works offline)",
     ()),
    ("item", "explore", "items with per-item agreement, or one item", ()),
    ("annotator", "explore", "annotators against the majority and each other, or one profile",
     ()),
    ("judge", "judge", "models against the human pool: alt-test, human ceiling, calibration", ()),
    ("competence", "competence", "annotator competence: Dawid-Skene, one-coin DS, MACE", ()),
    ("errors", "errors", "rank possible annotation errors per (item, label)", ()),
)

_ALL = object()


def _command_module(argv: list[str]) -> str | None:
    """The module of the command ``argv`` names (its first token not starting with ``-``), or
    None when it names none (``--help``, a typo: argparse then answers as before)."""
    token = next((a for a in argv if not a.startswith("-")), None)
    for name, module, _help, aliases in COMMANDS:
        if token == name or token in aliases:
            return module
    return None


def build_parser(command: str | None | object = _ALL) -> argparse.ArgumentParser:
    """The ``python -m hlv_core`` parser.

    Parameters
    ----------
    command : str or None, optional
        Wire only the commands of this module of :mod:`hlv_core.cli` (``"certainty"``,
        ``"explore"``, ...) fully and give every other command a placeholder with its help;
        None: placeholders only (enough for ``--help``). Left out: every command wired (imports
        every command module and its engine modules)."""
    parser = argparse.ArgumentParser(
        prog="python -m hlv_core", description="HLV Lens analyses on the command line."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    wired: set[str] = set()
    for name, module, help_, aliases in COMMANDS:
        if module in wired:
            continue
        if command is _ALL or module == command:
            importlib.import_module(f"{__name__}.{module}").add_cli(sub)
            wired.add(module)
        else:
            sub.add_parser(name, help=help_, aliases=list(aliases))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand: THE error contract of the command line.

    Bad input reaches here as a :class:`~hlv_core.io.DataError` (loaders convert parser failures
    into it), a ``ValueError`` (an option value the engine refuses) or an ``OSError`` (a path
    that cannot be read or written, a read-only database): it is printed as one line on stderr
    (:func:`~hlv_core.cli._output.error_line`) and the exit status is 2. Commands never catch
    these themselves. Other exceptions are bugs and propagate."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_module(argv))
    args = parser.parse_args(argv)
    from ..io import DataError
    from ._output import ControlFreeStream, error_line

    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ControlFreeStream(stdout), ControlFreeStream(stderr)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # the reader left (``... | head``): stop quietly, as Unix tools do
        _silence(stdout)
        return 141  # 128 + SIGPIPE, the status of a tool the pipe's end stopped
    except (DataError, ValueError, OSError) as error:
        print(error_line(error), file=sys.stderr)
        return 2
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _silence(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that the interpreter's final flush of
    a closed pipe raises nothing more."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (AttributeError, OSError, ValueError):  # a captured stream has no descriptor
        pass


def __getattr__(name: str):
    # ``error_line`` stays importable from here without loading pandas for ``--help``.
    if name == "error_line":
        from ._output import error_line

        return error_line
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
