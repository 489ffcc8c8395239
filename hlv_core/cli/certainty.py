"""``python -m hlv_core certainty FILE [--model M] [--reliability R ...] [--samples S] [--seed N]
[--prior A] [--predictions P] [--ao-depth D] [--method compact|dense] [--irn paper|released]
[--conditions F] [--risks F] [--tables DIR] [--json]``.

The class inventory follows the data's conventions: a ``<name>_selectors.json`` (or a folder
holding one) is read with its ``<name>_conditions.txt`` / ``<name>_risks.txt`` companions when
``--conditions`` / ``--risks`` are not given (dermatology: 419 classes, not the 418 of the
largest ranked id + 1). PrIRN names its IRN variant: ``--irn paper`` (default, the paper's tie
split) or ``--irn released`` (DeepMind's released code: tied classes are not split).

Samples plausibilities at each reliability (``inf`` = point estimate) and prints the mean top-1/2/3
annotation certainty per reliability, and with ``--predictions`` the UA top-k accuracy of every
model (Stutz et al.). Summaries come from the compact sampler (only the top
classes of every sample are drawn; ``--method dense`` samples the full (N, S, K) array instead).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from ..aggregation import DEFAULT_PRIOR, default_prior
from ..certainty import (
    MODELS,
    PL_MAX_RELIABILITY,
    model_data,
    pl_reliability_allowed,
    sweep,
)
from ..io import FORMATS, DataError, load, load_predictions, model_matrices
from ._output import write_csv, write_json

__all__ = ["add_cli", "run_certainty"]


def _parse_reliability(text: str) -> float:
    if text.lower() in ("inf", "infinity"):
        return math.inf
    try:
        value = float(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from error
    if not value > 0:
        raise argparse.ArgumentTypeError("reliability must be > 0 or 'inf'")
    return value


IRN_VARIANTS = {"paper": True, "released": False}  # --irn -> tie_split
IRN_TITLES = {"paper": "paper IRN (a tied block's weight 1/b split among its classes)",
              "released": "released-code IRN (each tied class gets the full 1/b)"}


def _companions(path: Path, conditions: Path | None, risks: Path | None):
    """Resolve a selectors folder to its file, and find the class-name / risk companions the
    data ships beside it (``X_selectors.json`` -> ``X_conditions.txt``, ``X_risks.txt``)."""
    if path.is_dir():
        found = sorted(path.glob("*_selectors.json"))
        if not found:  # a canonical dataset folder (annotations.csv, ...): load(folder)
            return path, conditions, risks
        if len(found) != 1:
            raise DataError(
                f"folder holds {len(found)} '*_selectors.json' files; expected one.",
                source=str(path), fix="pass the annotations file itself.",
            )
        path = found[0]
    if path.name.endswith("_selectors.json"):
        prefix = path.name[: -len("_selectors.json")]
        if conditions is None and (path.parent / f"{prefix}_conditions.txt").is_file():
            conditions = path.parent / f"{prefix}_conditions.txt"
        if risks is None and (path.parent / f"{prefix}_risks.txt").is_file():
            risks = path.parent / f"{prefix}_risks.txt"
    return path, conditions, risks


def run_certainty(args: argparse.Namespace) -> int:
    """Handler of the ``certainty`` subcommand (errors go up to :func:`hlv_core.cli.main`)."""
    options = {}
    path, conditions, risks = _companions(Path(args.file), args.conditions, args.risks)
    if conditions:
        options["conditions"] = str(conditions)
    if risks:
        options["risks"] = str(risks)
    dataset = load(path, format=args.format, **options)
    model = args.model or ("pl" if dataset.task == "ranking" else "dirichlet")
    data = model_data(dataset, model)
    if args.prior is None:
        args.prior = default_prior(model)  # the one default, set in the engine
    preds = {}
    if args.predictions:
        # the Certainty page's door: every model that predicts every item (UA accuracy needs
        # one prediction per case); a model left out is an error here, a caption on the page
        found, notes = model_matrices(load_predictions(args.predictions, dataset), dataset,
                                      complete=True)
        if notes:
            raise DataError("; ".join(notes), source=str(args.predictions),
                            fix="predict every item with every model.")
        preds = {name: q for name, (_, q) in found.items()}
    reliabilities = args.reliability or ([1, 3, 10, math.inf] if model != "dirichlet"
                                         else [0.1, 1, 10, math.inf])
    refused = [r for r in reliabilities if not pl_reliability_allowed(model, r)]
    if refused:
        raise DataError(
            f"Plackett-Luce runs at integer reliabilities 1..{PL_MAX_RELIABILITY} and inf; got "
            + ", ".join(map(str, refused)) + ".", source=str(args.file),
            fix="choose reliabilities such as 1 3 10 inf.",
        )
    irn = args.irn if model == "prirn" else None
    extra = {"tie_split": IRN_VARIANTS[irn]} if irn else {}
    result = sweep(model, data, reliabilities, n_samples=args.samples, seed=args.seed,
                   prior=args.prior, n_classes=dataset.n_labels, predictions=preds,
                   burn_in=args.burn_in, ao_depth=args.ao_depth,  # no printed number uses risk
                   method=args.method, item_ids=list(map(str, dataset.item_ids)), **extra)
    cert = result.certainty.pivot_table(index="reliability", columns="k",
                                        values="mean_certainty")
    cert.columns = [f"certainty_top{k}" for k in cert.columns]
    top1 = result.certainty[result.certainty["k"] == 1].set_index("reliability")
    for column in ("median", "share_below_0.5"):  # the Certainty page's histogram statistics
        if column in top1.columns:
            cert[f"top1_{column}"] = top1[column].reindex(cert.index)
    if args.tables is not None:
        written = _write_tables(result, Path(args.tables))
    if args.json:
        payload = {
            "file": str(args.file), "model": model, "samples": args.samples, "seed": args.seed,
            "prior": args.prior, "method": args.method, "n_classes": dataset.n_labels,
            "conditions": None if conditions is None else str(conditions),
            "irn_variant": irn,
            "certainty": result.certainty,
            "accuracy": result.accuracy,
        }
        write_json(payload)
        return 0
    print(f"{dataset.name}: {dataset.n_items} items, {dataset.n_labels} classes"
          + (f" (names from {conditions.name})" if conditions else "")
          + f"; model={model}, samples={args.samples}, seed={args.seed}, prior={args.prior}")
    if irn:
        other = "released" if irn == "paper" else "paper"
        print(f"IRN variant: {irn} = {IRN_TITLES[irn]}"
              + (" [default]" if irn == "paper" else "") + f"; the other: --irn {other}")
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print("Mean annotation certainty (top-k set) by reliability:")
        print(cert.round(4).to_string())
        if not result.accuracy.empty:
            print("\nUA accuracy (mean and sd over samples):")
            print(result.accuracy.round(4).to_string(index=False))
    if args.tables is not None:
        print(f"\nTables written to {args.tables}: " + ", ".join(written))
    return 0


#: The sweep's tables and their file names under ``--tables`` (Stutz et al.: Figure 6's curves,
#: Figure 7's per-case and per-draw values).
TABLE_FILES = {"certainty": "certainty.csv", "accuracy": "accuracy.csv",
               "per_case": "per_case.csv", "per_sample": "accuracy_per_draw.csv",
               "per_case_accuracy": "accuracy_per_case.csv"}


def _write_tables(result, folder: Path) -> list[str]:
    """Write every table of the sweep as CSV into ``folder`` (text cells a spreadsheet would
    run as formulas neutralised)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DataError(f"cannot create the tables folder: {error.strerror}.",
                        source=str(folder), fix="give a folder you can write to.") from None
    written = []
    for attribute, name in TABLE_FILES.items():
        write_csv(getattr(result, attribute), folder / name)
        written.append(name)
    return written


def add_cli(subparsers) -> argparse.ArgumentParser:
    """Register ``certainty`` on an argparse subparsers object."""
    p = subparsers.add_parser("certainty", help="annotation certainty and UA accuracy (Stutz et al.)",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path)
    p.add_argument("--format", default="auto", choices=list(FORMATS))
    p.add_argument("--model", choices=list(MODELS), default=None,
                   help="default: pl for ranked data, dirichlet otherwise")
    p.add_argument("--reliability", type=_parse_reliability, nargs="+", default=None,
                   help="one or more reliabilities; 'inf' = point estimate")
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--prior", type=float, default=None,
                   help="Dirichlet pseudo-count a0 (default: the engine's "
                   f"{DEFAULT_PRIOR['prirn']} for prirn as in the reference notebook "
                   f"colab_ua_accuracy.ipynb, {DEFAULT_PRIOR['dirichlet']} for dirichlet)")
    p.add_argument("--burn-in", type=int, default=100, help="PL Gibbs burn-in iterations")
    p.add_argument("--predictions", type=Path, default=None)
    p.add_argument("--ao-depth", type=int, default=None,
                   help="also UA average overlap at this depth (with --predictions)")
    p.add_argument("--method", choices=["compact", "dense"], default="compact",
                   help="compact: draw only the top classes of each sample (default)")
    p.add_argument("--irn", choices=list(IRN_VARIANTS), default="paper",
                   help="PrIRN's IRN variant: 'paper' (default: tied classes share their "
                   "block's weight) or 'released' (DeepMind's released code: no split)")
    p.add_argument("--conditions", type=Path, default=None,
                   help="class names (selectors); default: X_conditions.txt beside "
                   "X_selectors.json when present")
    p.add_argument("--risks", type=Path, default=None,
                   help="risk group per class (selectors); default: X_risks.txt beside "
                   "X_selectors.json when present")
    p.add_argument("--tables", type=Path, default=None, metavar="DIR",
                   help="also write every table as CSV into DIR: certainty, accuracy, per case, "
                   "and the UA metrics per draw and per case (Stutz et al., Figure 7)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_certainty)
    return p
