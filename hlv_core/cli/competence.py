"""``python -m hlv_core competence DATA [--model ds|one-coin|mace] [--json] [--report]``.

Annotator competence by Dawid-Skene (Dawid & Skene 1979), one-coin Dawid-Skene or MACE (Hovy et
al. 2013), fitted by :mod:`hlv_core.competence` (EM to a fixed point; MACE seeded). Prints one
row per annotator (rows, accuracy / skill / competence) and the fit's iterations, convergence and
log-likelihood; ``--items`` adds the hard label and posterior per item. The DS models' EM is
accelerated by SQUAREM (Varadhan & Roland 2008; ``--plain-em`` for plain iterations: the same
fixed point, more iterations). ``--report`` prints the annotator report (verdicts reliable /
unreliable / systematic / insufficient data, camps from Basile's sigma graph, or from an
annotator trait with ``--camps TRAIT``); ``--subset COLUMN=VALUE`` (an items-table column, e.g.
``topic=T1``) adds rule (b): systematic when an annotator agrees with their own camp on those
items more than with the majority.

Example: ``python -m hlv_core competence ../shared/data/hs_brexit --model one-coin``.
"""

from __future__ import annotations

import argparse
import warnings

import pandas as pd

from .. import competence as comp
from ._common import (
    add_dataset_arguments,
    column_value,
    load_from_args,
    print_result,
    require_linked_annotators,
)
from ._output import write_json

__all__ = ["add_cli", "run_competence"]

MODELS = ("ds", "one-coin", "mace")


def add_cli(sub) -> None:
    p = sub.add_parser("competence", help="annotator competence: Dawid-Skene, one-coin DS, MACE",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dataset_arguments(p)
    p.add_argument("--model", default="ds", choices=MODELS, help="competence model (default ds)")
    p.add_argument("--max-iter", type=int, default=10_000, help="most EM iterations (DS models)")
    p.add_argument("--tol", type=float, default=1e-10, help="fixed-point tolerance (DS models)")
    p.add_argument("--plain-em", action="store_true",
                   help="plain EM iterations instead of SQUAREM's accelerated ones (DS models: "
                        "the same fixed point, more iterations)")
    p.add_argument("--seed", type=int, default=0, help="MACE seed (default 0)")
    p.add_argument("--restarts", type=int, default=10, help="MACE restarts (default 10)")
    p.add_argument("--items", action="store_true", help="also print each item's label/posterior")
    p.add_argument("--report", action="store_true",
                   help="print the annotator report with verdicts instead")
    p.add_argument("--camps", default=None, metavar="TRAIT",
                   help="with --report: camps from this annotator trait (e.g. group) instead "
                        "of Basile's signed agreement graph")
    p.add_argument("--subset", default=None, metavar="COLUMN=VALUE",
                   help="with --report: the items of rule (b), e.g. topic=T1 (an items-table "
                        "column)")
    p.set_defaults(handler=run_competence)


def fit(annotations: pd.DataFrame, model: str, *, max_iter: int = 10_000, tol: float = 1e-10,
        seed: int = 0, restarts: int = 10, accelerate: bool = True) -> comp.CompetenceResult:
    """The one call the CLI and the page make to fit a competence model."""
    if model == "ds":
        return comp.dawid_skene(annotations, max_iter=max_iter, tol=tol, accelerate=accelerate)
    if model == "one-coin":
        return comp.one_coin_dawid_skene(annotations, max_iter=max_iter, tol=tol,
                                         accelerate=accelerate)
    if model == "mace":
        return comp.mace(annotations, seed=seed, n_restarts=restarts)
    raise ValueError(f"--model {model}: choose one of {', '.join(MODELS)}")


def annotator_table(res: comp.CompetenceResult) -> pd.DataFrame:
    out = pd.DataFrame({"annotator_id": res.n_rows.index, "n_rows": res.n_rows.to_numpy()})
    for name in ("accuracy", "skill", "competence"):
        series = getattr(res, name)
        if series is not None:
            out[name] = series.to_numpy()
    return out


def run_competence(args) -> int:
    dataset = load_from_args(args)
    require_linked_annotators(dataset, "competence (Dawid-Skene, one-coin, MACE)")
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    if (args.subset or args.camps) and not args.report:
        raise ValueError("--subset and --camps set the report's rule (b); add --report.")
    if args.report:
        subset = None
        if args.subset:
            subset = comp.subset_items(dataset.items, *column_value(args.subset, "topic=T1"))
        camps = (comp.trait_camps(dataset.annotators, args.camps) if args.camps
                 else comp.sigma_camps(annotations))
        with warnings.catch_warnings():  # a fit stopped at the cap is said in the notes
            warnings.simplefilter("ignore", RuntimeWarning)
            rep = comp.annotator_report(annotations, camps=camps, subset=subset, seed=args.seed,
                                        mace_restarts=args.restarts, traits=dataset.annotators,
                                        max_iter=args.max_iter, tol=args.tol)
        notes = list(rep.attrs.get("notes", []))
        rep = rep.reset_index()
        if args.json:
            write_json({"thresholds": comp.REPORT_THRESHOLDS, "subset": args.subset,
                        "camps": args.camps or "signed agreement graph",
                        "skill_cut": rep.attrs.get("skill_cut"), "notes": notes,
                        "annotators": rep})
        else:
            for note in notes:
                print(f"warning: {note}")
            print_result(rep, False)
        return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        res = fit(annotations, args.model, max_iter=args.max_iter, tol=args.tol,
                  seed=args.seed, restarts=args.restarts, accelerate=not args.plain_em)
    table = annotator_table(res)
    head = {"model": res.model, "n_items": len(res.posteriors), "n_annotators": len(table),
            "labels": list(res.label_order), "n_iter": res.n_iter, "converged": res.converged,
            "loglik": res.loglik}
    if res.model != "mace":
        head["em"] = "plain" if args.plain_em else "SQUAREM"
    if res.model == "mace":
        head.update(seed=args.seed, restarts=args.restarts, best_restart=res.best_restart)
    notes = [str(w.message) for w in caught]
    items = None
    if args.items:
        items = res.posteriors.add_prefix("p_").reset_index()
        items.insert(1, "label", res.labels.to_numpy())
    if args.json:
        payload = {**head, "priors": res.priors, "warnings": notes, "annotators": table}
        if items is not None:
            payload["items"] = items
        write_json(payload)
        return 0
    print_result(head, False)
    for note in notes:
        print(f"warning: {note}")
    print()
    print_result(table, False)
    if items is not None:
        print()
        print_result(items, False)
    return 0
