"""``--dask ADDRESS`` of the ``summary`` and ``agreement`` commands: the same JSON from the
distributed engine (:mod:`hlv_core.scale`) on a local cluster (``local``) or an existing
scheduler (``tcp://HOST:PORT``). The only command-line module that touches Dask."""

from __future__ import annotations

import argparse

from ._common import print_result

__all__ = ["DASK_HELP", "add_dask_argument", "run_dask_agreement", "run_dask_summary"]

DASK_HELP = ("run on Dask: 'local' starts a local cluster, tcp://HOST:PORT uses a running "
             "scheduler; FILE is then a folder of Parquet files, a glob of canonical CSVs or one "
             "file (docs/scaling.md)")


def add_dask_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dask", metavar="ADDRESS", default=None, help=DASK_HELP)


def _load(args: argparse.Namespace):
    from .. import scale

    if getattr(args, "format", "auto") not in ("auto", "canonical"):
        raise ValueError("--dask reads canonical long files (item_id, annotator_id, label); "
                         f"--format {args.format} is not supported with it.")
    if getattr(args, "task", None) is not None:
        raise ValueError(f"--task {args.task} is not supported with --dask (the task is inferred "
                         "from the labels, as in memory: rating for 3+ numeric labels, else "
                         "multiclass).")
    return scale


def run_dask_summary(args: argparse.Namespace) -> int:
    """``summary FILE --dask ADDRESS``: :func:`hlv_core.scale.summary` (and the import report)."""
    scale = _load(args)
    if getattr(args, "items", False):
        raise ValueError("--items lists every item: not available with --dask.")
    with scale.dask_client(args.dask):
        data = scale.load(args.file)
        result = scale.summary(data)
    if not args.json:
        result["labels"] = ", ".join(result["labels"][:20])
        result["label_counts"] = ", ".join(
            f"{k}={v}" for k, v in list(result["label_counts"].items())[:20])
    print_result(result, args.json)
    if not args.json:
        print("\nImport report")
        print(data.report.to_frame().to_string(index=False))
    return 0


def run_dask_agreement(args: argparse.Namespace) -> int:
    """``agreement FILE --dask ADDRESS``: alpha with its bootstrap CI and the kappas."""
    scale = _load(args)
    if args.pairs or args.multilabel:
        raise ValueError("--pairs and --multilabel are not available with --dask yet.")
    with scale.dask_client(args.dask):
        data = scale.load(args.file)
    print_result(scale.agreement_result(data, level=args.level, n_boot=args.n_boot,
                                        seed=args.seed), args.json)
    return 0
