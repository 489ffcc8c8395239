"""``python -m hlv_core errors DATA [--method M|all] [--gold errors.csv] [--validity FILE]``.

Possible annotation errors (Weber-Genzel et al. 2024, VariErr NLI, section 5): every (item, label)
chosen by at least one annotator gets a score (higher = more likely an error) by
:func:`hlv_core.errors.error_scores`. Without ``--gold`` the top of the ranking is printed
(``--top N``); ``--choosers`` adds who chose each label and the verdict the annotator report
(``competence --report``) gives them, as the errors page shows it. With ``--gold`` (a table ``item_id, label, is_error``) the ranking is evaluated:
AP, P@50, P@100, R@100 with bootstrap CIs (``--boot``, ``--seed``); ``--method all`` prints one
row per method (the VariErr comparison table). ``--validity`` adds the peer-judgment heuristics
(self judgments are refused: they define VariErr's gold).

Example: ``python -m hlv_core errors ../shared/data/varierrnli --method all
--gold ../shared/data/varierrnli/errors.csv --validity ../shared/data/varierrnli/validity.csv``.
"""

from __future__ import annotations

import argparse

import pandas as pd

from .. import competence
from .. import errors as err
from ..io import load_table
from ._common import add_dataset_arguments, load_from_args, print_result, require_linked_annotators
from ._output import write_json

__all__ = ["add_cli", "run_errors", "method_table"]


def add_cli(sub) -> None:
    p = sub.add_parser("errors", help="rank possible annotation errors per (item, label)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dataset_arguments(p)
    p.add_argument("--method", default="ds_posterior", choices=list(err.METHODS) + ["all"],
                   help="scoring method (default ds_posterior); 'all' with --gold compares all")
    p.add_argument("--rerank", action="store_true",
                   help="order by label count first, the method's score second")
    p.add_argument("--gold", default=None, help="gold errors table: item_id, label, is_error")
    p.add_argument("--validity", default=None,
                   help="peer validity judgments (VariErr validity.csv) for the peer_* methods")
    p.add_argument("--choosers", action="store_true",
                   help="add who chose each label with their annotator verdict (reliable, "
                        "unreliable, systematic; fits the annotator report, MACE skipped)")
    p.add_argument("--top", type=int, default=50, help="rows of the ranking to print (default 50)")
    p.add_argument("--boot", type=int, default=1000, help="bootstrap draws for the CIs")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of MACE")
    p.set_defaults(handler=run_errors)


def method_table(annotations: pd.DataFrame, gold: pd.DataFrame, *, methods=None,
                 validity: pd.DataFrame | None = None, n_boot: int = 1000, seed: int = 0,
                 rerank: bool = False) -> pd.DataFrame:
    """One row per method: AP, P@50, P@100, R@100 (in points) with bootstrap CIs."""
    if methods is None:
        methods = [m for m in err.METHODS
                   if validity is not None or m not in err.VALIDITY_METHODS]
    rows = []
    for m in methods:
        scores = err.error_scores(annotations, method=m, validity=validity, seed=seed,
                                  rerank_by_count=rerank)
        ev = err.evaluate_error_ranking(scores, gold, n_boot=n_boot, seed=seed).loc["all"]
        row = {"method": m + ("_rerank" if rerank else ""), "n_ranked": int(ev["n_ranked"]),
               "n_missing": int(ev["n_missing"])}
        for key in ("ap", "p@50", "p@100", "r@100"):
            row[key] = 100 * ev[key]
            row[f"{key}_lo"] = 100 * ev[f"{key}_lo"]
            row[f"{key}_hi"] = 100 * ev[f"{key}_hi"]
        rows.append(row)
    return pd.DataFrame(rows)


def run_errors(args) -> int:
    dataset = load_from_args(args)
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    validity = load_table(args.validity) if args.validity else None
    if args.top < 1 or args.boot < 0:
        raise ValueError("--top must be >= 1 and --boot >= 0")
    count_methods = None  # anonymous annotations: only the methods that read label counts
    if not dataset.annotator_ids_known or dataset.task == "ranking":
        if dataset.task == "ranking":
            require_linked_annotators(dataset, "the possible-error ranking")
        if args.choosers:
            require_linked_annotators(dataset, "--choosers (the annotator verdicts)")
        if args.method == "all":
            count_methods = list(err.COUNT_METHODS)
        elif args.method not in err.COUNT_METHODS:
            require_linked_annotators(
                dataset, f"method {args.method!r}",
                fix=f"on label counts use --method {' / '.join(err.COUNT_METHODS)}, which read "
                    "only how many annotators chose each label.")
    if args.gold is None:
        if args.method == "all":
            raise ValueError("--method all compares methods against --gold; give --gold FILE "
                             "or one method")
        scores = err.error_scores(annotations, method=args.method, validity=validity,
                                  rerank_by_count=args.rerank, seed=args.seed)
        top = scores.head(args.top)
        notes = list(scores.attrs.get("notes", []))
        if args.choosers:
            report = competence.annotator_report(annotations, seed=args.seed, mace_restarts=0)
            notes += [n for n in report.attrs.get("notes", []) if n not in notes]
            top = top.merge(err.label_choosers(annotations, report)[
                ["item_id", "label", "choosers"]], on=["item_id", "label"], how="left")
        if args.json:
            write_json({"method": args.method, "n_units": len(scores), "notes": notes,
                        "ranking": top})
        else:
            print(f"method: {args.method}; {len(scores)} (item, label) pairs; "
                  "a score is a rank, not a verdict")
            for note in notes:
                print(f"warning: {note}")
            print_result(top, False)
        return 0
    gold = load_table(args.gold)
    methods = count_methods if args.method == "all" else [args.method]
    table = method_table(annotations, gold, methods=methods, validity=validity,
                         n_boot=args.boot, seed=args.seed, rerank=args.rerank)
    count_note = ("anonymous annotations (label counts): only the methods that read label "
                  "counts are compared")
    if args.json:
        write_json({"gold": args.gold, "boot": args.boot, "seed": args.seed, "methods": table,
                    "notes": [count_note] if count_methods is not None else []})
        return 0
    print(f"gold: {args.gold}; AP, P@k, R@k in points; 95% bootstrap CI over items "
          f"({args.boot} draws, seed {args.seed}); P@k/R@k expected over tie orders")
    if count_methods is not None:
        print(f"note: {count_note}")
    shown = table[["method", "n_ranked"]].copy()
    for key in ("ap", "p@50", "p@100", "r@100"):
        shown[key.upper()] = [f"{v:.1f} [{lo:.1f}, {hi:.1f}]" for v, lo, hi in
                              zip(table[key], table[f"{key}_lo"], table[f"{key}_hi"],
                                  strict=True)]
    print_result(shown, False)
    return 0
