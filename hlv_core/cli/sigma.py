"""``python -m hlv_core sigma FILE... `` (alias ``balance``): Basile's sigma, sigma_rnd and camps.

Defaults are the paper's conventions (Basile; ``docs/conventions.md``, sigma ``min_shared``): nominal alpha,
``--min-shared 1`` (undefined pairwise alpha = no edge; both dropped counts printed) and the
composed sigma_rnd (10 matrices A_rnd, each 10 split-and-shuffle steps). ``--min-shared 2`` and
``--procedure one_step`` are the labelled deviations. Every output names its level and conventions.

One file: alpha, sigma, sigma_rnd (mean, sd, replicate values), dropped pairs and the camps;
optional ``--graphml OUT`` / ``--edges OUT`` exports. Several files (or dataset folders holding
``annotations.csv``): the alpha vs sigma comparison of paper Table 2, and with ``--plot OUT.html``
the alpha vs sigma scatter of paper Figure 2 (standalone HTML, plotly.js inline, works offline).

Example: ``python -m hlv_core sigma ../shared/data/hs_brexit ../shared/data/md_agreement
../shared/data/hs_brexit/annotations_offensive.csv --plot sigma.html``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import pandas as pd

from ..balance import (
    DEFAULT_STEPS,
    LEVELS,
    PAPER_MIN_SHARED,
    PROCEDURES,
    SIGMA_MAX_PAIR_INSTANCES,
    camps,
    check_sigma_cost,
    compare_datasets,
    conventions_note,
    estimate_sigma_cost,
    graphml_bytes,
    sigma,
    sigma_random,
)
from ..figures import comparison_figure
from ..io import FORMATS, DataError, Dataset, load
from ..levels import level_options
from ._output import write_json

__all__ = ["add_cli", "run_sigma"]


def _display_name(path: Path) -> str:
    """``hs_brexit`` for a folder; ``hs_brexit/offensive`` for ``hs_brexit/annotations_offensive.csv``
    (the label views of one dataset stay apart); the file name otherwise."""
    if path.is_dir():
        return path.resolve().name
    stem = path.stem
    if stem == "annotations" or stem.startswith("annotations_"):
        view = stem[len("annotations_"):] if stem != "annotations" else ""
        folder = path.resolve().parent.name
        return f"{folder}/{view}" if view else folder
    return path.name


def _load(path_text: str, fmt: str) -> Dataset:
    path = Path(path_text)
    name = _display_name(path) if path.exists() else path.name
    if path.is_dir():
        inner = path / "annotations.csv"
        if fmt == "auto":  # canonical folder: annotations + items + annotator traits + schema
            # a bad labels.csv / items.csv is an error (exit 2), never a silent load without it
            return dataclasses.replace(load(path), name=name)
        if not inner.exists():
            raise DataError(
                "folder without annotations.csv.", source=str(path),
                fix="pass the annotations file itself or a dataset folder with annotations.csv.",
            )
        return load(inner, format=fmt, name=name)
    if not path.exists():
        raise DataError("file not found.", source=str(path), fix="check the path.")
    return dataclasses.replace(load(path, format=fmt, name=path.name), name=name)


def _prepare(dataset: Dataset, level: str) -> tuple[str, dict[str, float] | None]:
    """``(multilabel mode, label values)`` for ``level`` from :func:`hlv_core.levels.level_options`
    (the Annotator graph page's controls): multi-label data is nominal only."""
    if not dataset.annotator_ids_known or dataset.task == "ranking":
        raise DataError(
            "sigma needs one label per (item, annotator) with annotator ids linked across items.",
            source=dataset.name,
            fix="use a dataset with annotator ids (not counts-only or ranking data).",
        )
    opts = level_options(dataset)
    if level not in opts.levels:
        raise DataError(
            "multi-label data is compared as label sets, which are nominal values.",
            source=dataset.name, fix="use --level nominal.",
        )
    return opts.multilabel, opts.values(level)


_show_progress = False


def _progress(text: str) -> None:
    """One progress line on stderr (stdout stays the result, for pipes and --json), shown on a
    terminal or with ``--progress``; a captured stderr keeps only the one error line."""
    if _show_progress:
        print(f"sigma: {text}", file=sys.stderr, flush=True)


def run_sigma(args: argparse.Namespace) -> int:
    """Handler of the ``sigma`` subcommand (errors go up to :func:`hlv_core.cli.main`)."""
    global _show_progress
    _show_progress = args.progress or sys.stderr.isatty()
    note = conventions_note(args.level, args.min_shared, args.procedure, args.steps)
    if len(args.files) > 1 or args.plot:
        datasets: dict[str, Dataset] = {}
        failed: list[dict] = []
        for path in args.files:
            try:
                dataset = _load(path, args.format)
            except DataError as error:  # one unreadable file must not stop the comparison
                failed.append({"dataset": Path(path).name, "note": "", "error": str(error)})
                continue
            name = dataset.name
            while name in datasets:
                name += "'"
            datasets[name] = dataset
        table = compare_datasets(
            datasets, level=args.level, min_shared=args.min_shared, n_repeats=args.repeats,
            seed=args.seed, procedure=args.procedure, n_steps=args.steps,
        )
        if failed:
            table = pd.concat([table, pd.DataFrame(failed)], ignore_index=True)
            table = table.fillna({"note": "", "error": ""})
        table["seed"] = args.seed
        if args.plot:
            comparison_figure(table, paper=args.paper, conventions=note).write_html(
                args.plot, include_plotlyjs=True, full_html=True
            )
        if args.json:
            write_json(table)
        else:
            shown = table.drop(columns=["note", "error", "level", "min_shared", "procedure"],
                               errors="ignore")
            print(shown.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
            print(f"conventions: {note}")
            for row in table.itertuples():
                if row.error or row.note:
                    print(f"{row.dataset}: {row.error or row.note}")
            if args.plot:
                print(f"scatter written to {args.plot}")
        # a file that could not be read or analysed is bad input: exit 2 like every command
        return 0 if (table["error"] == "").all() else 2
    dataset = _load(args.files[0], args.format)
    multilabel, values = _prepare(dataset, args.level)
    frame = dataset.annotations
    limit = None if args.max_pairs <= 0 else args.max_pairs
    cost = estimate_sigma_cost(frame)
    _progress(f"cost: {cost.describe()}; limit {'none' if limit is None else f'{limit:,}'} "
              "pair instances (--max-pairs).")
    check_sigma_cost(cost, limit, source=args.files[0])  # refuse before the heavy work
    _progress("computing alpha, pairwise alpha, the signed graph and its triangles ...")
    # the Dataset itself: its loader already refused several labels in one cell
    result = sigma(dataset, level=args.level, min_shared=args.min_shared, values=values,
                   multilabel=multilabel, max_pair_instances=None)
    _progress(f"sigma done; sigma_rnd: {args.repeats} shuffled matrices ...")
    rnd = sigma_random(
        dataset, n_repeats=args.repeats, seed=args.seed, level=args.level,
        min_shared=args.min_shared, procedure=args.procedure, n_steps=args.steps,
        values=values, multilabel=multilabel, max_pair_instances=None,
        progress=lambda done, total: _progress(f"sigma_rnd {done}/{total}"),
    )
    _progress("camps ...")
    partition = camps(result)
    summary = {"dataset": dataset.name, "conventions": note, **result.summary(), **rnd.summary()}
    summary.update(
        camps_method=partition.method, camps_frustration=partition.frustration,
        camps_sizes={str(k): int(v) for k, v in partition.camps.value_counts().sort_index().items()},
        multilabel_as_sets=multilabel == "set",
        sigma_rnd_se=None if rnd.n_defined < 2 else float(rnd.se),
    )
    if args.graphml:
        Path(args.graphml).write_bytes(graphml_bytes(result, partition))
        summary["graphml"] = args.graphml
    if args.edges:
        result.edges.to_csv(args.edges, index=False)
        summary["edges_csv"] = args.edges
    if args.json:
        write_json(summary)
    else:
        for key, value in summary.items():
            if isinstance(value, float):
                value = f"{value:.4f}"
            elif isinstance(value, list):
                value = ", ".join("nan" if v is None else f"{v:.3f}" for v in value)
            print(f"{key}: {value}")
    return 0


def add_cli(subparsers) -> None:
    """Register ``sigma`` (alias ``balance``) on the ``python -m hlv_core`` parser."""
    parser = subparsers.add_parser(
        "sigma", aliases=["balance"],
        help="systematicity sigma, sigma_rnd and annotator camps (several files: comparison)",
        description=__doc__,
    )
    parser.add_argument("files", nargs="+", help="annotation file(s) or dataset folder(s)")
    parser.add_argument("--format", default="auto", choices=list(FORMATS), help="input format")
    parser.add_argument("--level", default="nominal", choices=list(LEVELS),
                        help="level of measurement for every alpha (default nominal)")
    parser.add_argument("--min-shared", type=int, default=PAPER_MIN_SHARED,
                        help="pairs sharing fewer items get no edge (default 1, the paper's; "
                        "2 is a robust deviation from the paper)")
    parser.add_argument("--procedure", default="composed", choices=list(PROCEDURES),
                        help="sigma_rnd reading: 'composed' (default, the paper's: each A_rnd "
                        "composes --steps split-and-shuffle steps) or 'one_step' (deviation)")
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                        help="split-and-shuffle steps per A_rnd with --procedure composed (10)")
    parser.add_argument("--repeats", type=int, default=10,
                        help="sigma_rnd: number of matrices A_rnd (10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of sigma_rnd (0)")
    parser.add_argument("--progress", action="store_true",
                        help="print the cost estimate and progress on stderr (default: only on "
                        "a terminal)")
    parser.add_argument("--max-pairs", type=int, default=SIGMA_MAX_PAIR_INSTANCES,
                        help="refuse data with more (item, annotator pair) instances, an upper "
                        "bound on the overlapping pairs (default "
                        f"{SIGMA_MAX_PAIR_INSTANCES:,}; 0 = no limit); the cost is printed "
                        "on stderr first")
    parser.add_argument("--graphml", metavar="OUT", help="write the signed graph (one file only)")
    parser.add_argument("--edges", metavar="OUT", help="write the edges CSV (one file only)")
    parser.add_argument("--plot", metavar="OUT.html",
                        help="several files: write the alpha vs sigma scatter (paper Figure 2) as "
                        "standalone HTML with plotly.js inline")
    parser.add_argument("--paper", action="store_true",
                        help="with --plot: add the published values of Basile's Table 2")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=run_sigma)
