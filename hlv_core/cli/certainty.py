"""``python -m hlv_core certainty FILE [--model M] [--reliability R ...] [--samples S] [--seed N]
[--prior A] [--predictions P] [--ao-depth D] [--method compact|dense] [--conditions F] [--risks F]
[--json]``.

Samples plausibilities at each reliability (``inf`` = point estimate) and prints the mean top-1/2/3
annotation certainty per reliability, and with ``--predictions`` the UA top-k accuracy of every
model (seed 001; spec ``certainty.md``). Summaries come from the compact sampler (only the top
classes of every sample are drawn; ``--method dense`` samples the full (N, S, K) array instead).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pandas as pd

from ..certainty import MODELS, model_data, risk_vector, sweep
from ..io import FORMATS, DataError, load, load_predictions, prediction_matrix
from . import options_as_data_errors

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


def run_certainty(args: argparse.Namespace) -> int:
    """Handler of the ``certainty`` subcommand."""
    return options_as_data_errors(_run, args)


def _run(args: argparse.Namespace) -> int:
    options = {}
    if args.conditions:
        options["conditions"] = str(args.conditions)
    if args.risks:
        options["risks"] = str(args.risks)
    dataset = load(args.file, format=args.format, **options)
    model = args.model or ("pl" if dataset.task == "ranking" else "dirichlet")
    data = model_data(dataset, model)
    if args.prior is None:
        args.prior = 0.01 if model == "prirn" else 0.1
    preds = {}
    if args.predictions:
        frame = load_predictions(args.predictions, dataset)
        for name in frame["model"].unique():
            ids, q = prediction_matrix(frame, dataset, name)
            if len(ids) != dataset.n_items:
                raise DataError(f"model {name!r} predicts {len(ids)} of {dataset.n_items} "
                                "items; UA accuracy needs every item.",
                                source=str(args.predictions), fix="predict every item.")
            preds[str(name)] = q
    reliabilities = args.reliability or ([1, 3, 10, math.inf] if model != "dirichlet"
                                         else [0.1, 1, 10, math.inf])
    result = sweep(model, data, reliabilities, n_samples=args.samples, seed=args.seed,
                   prior=args.prior, n_classes=dataset.n_labels, predictions=preds,
                   risk=risk_vector(dataset), burn_in=args.burn_in, ao_depth=args.ao_depth,
                   method=args.method)
    cert = result.certainty.pivot_table(index="reliability", columns="k",
                                        values="mean_certainty")
    cert.columns = [f"certainty_top{k}" for k in cert.columns]
    if args.json:
        payload = {
            "file": str(args.file), "model": model, "samples": args.samples, "seed": args.seed,
            "prior": args.prior, "method": args.method,
            "certainty": json.loads(result.certainty.to_json(orient="records")),
            "accuracy": json.loads(result.accuracy.to_json(orient="records")),
        }
        print(json.dumps(payload, indent=2))
        return 0
    print(f"{dataset.name}: {dataset.n_items} items, {dataset.n_labels} classes; model={model}, "
          f"samples={args.samples}, seed={args.seed}, prior={args.prior}")
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print("Mean annotation certainty (top-k set) by reliability:")
        print(cert.round(4).to_string())
        if not result.accuracy.empty:
            print("\nUA accuracy (mean and sd over samples):")
            print(result.accuracy.round(4).to_string(index=False))
    return 0


def add_cli(subparsers) -> argparse.ArgumentParser:
    """Register ``certainty`` on an argparse subparsers object."""
    p = subparsers.add_parser("certainty", help="annotation certainty and UA accuracy (seed 001)",
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
                   help="Dirichlet pseudo-count a0 (default 0.01 for prirn as in the reference "
                   "notebook colab_ua_accuracy.ipynb, 0.1 for dirichlet)")
    p.add_argument("--burn-in", type=int, default=100, help="PL Gibbs burn-in iterations")
    p.add_argument("--predictions", type=Path, default=None)
    p.add_argument("--ao-depth", type=int, default=None,
                   help="also UA average overlap at this depth (with --predictions)")
    p.add_argument("--method", choices=["compact", "dense"], default="compact",
                   help="compact: draw only the top classes of each sample (default)")
    p.add_argument("--conditions", type=Path, default=None, help="class names (selectors)")
    p.add_argument("--risks", type=Path, default=None, help="risk group per class (selectors)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_certainty)
    return p
