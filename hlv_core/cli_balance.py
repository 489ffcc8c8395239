"""``python -m hlv_core sigma FILE... `` (alias ``balance``): Basile's sigma, sigma_rnd and camps.

One file: alpha, sigma, sigma_rnd (mean, sd, replicate values), dropped pairs and the camps;
optional ``--graphml OUT`` / ``--edges OUT`` exports. Several files (or dataset folders holding
``annotations.csv``): the alpha vs sigma comparison of paper Table 2, and with ``--plot OUT.html``
the alpha vs sigma scatter of paper Figure 2 (standalone HTML, plotly.js inline, works offline).

Example: ``python -m hlv_core sigma ../shared/data/hs_brexit ../shared/data/md_agreement
../shared/data/hs_brexit/annotations_offensive.csv --plot sigma.html``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from .balance import LEVELS, camps, compare_datasets, graphml_bytes, sigma, sigma_random
from .io import FORMATS, DataError, Dataset, load

__all__ = ["PAPER_TABLE2", "add_cli", "comparison_figure", "run_sigma"]

#: Basile, "A Measure of Systematic Disagreement" (seed 004), Table 2: dataset -> (alpha, sigma,
#: sigma_rnd). Published values, drawn as reference points only.
PAPER_TABLE2: dict[str, tuple[float, float, float]] = {
    "Paraphrase": (0.155, 1.000, 0.350), "BREXIT-hs": (0.347, 1.000, 0.500),
    "VF-asymmetry": (0.344, 1.000, 0.550), "CSC": (0.121, 0.494, 0.120),
    "BREXIT-of": (0.364, 0.800, 0.470), "ConvAbuse": (0.578, 0.714, 0.386),
    "jobQ3MT+-Q3": (0.276, 0.392, 0.159), "jobQ3MT+-Q2": (0.353, 0.427, 0.201),
    "MD-Agreement": (0.359, 0.494, 0.283), "jobQ3MT+-Q1": (0.247, 0.339, 0.154),
    "PD-NR": (0.085, 0.416, 0.264), "VF-dermo": (0.072, 0.600, 0.450),
    "BREXIT-st": (0.294, 0.600, 0.480), "TAS-hs": (0.397, 0.558, 0.452),
    "DICES": (0.210, 0.601, 0.518), "MultiPICO": (0.264, 0.496, 0.439),
    "Frame": (0.250, 0.558, 0.505), "MHS": (0.516, 0.677, 0.637), "TAS-of": (0.469, 0.451, 0.421),
    "PD-DO": (0.040, 0.384, 0.377), "VF-border": (0.112, 0.500, 0.510),
    "PD-DN": (0.076, 0.376, 0.423), "BREXIT-ag": (0.299, 0.500, 0.580),
    "VF-color": (0.146, 0.400, 0.500), "PD-PR": (-0.048, 0.532, 0.645),
    "VariErrNLI": (0.344, 0.000, 0.550),
}


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
        if fmt == "auto":  # canonical folder: annotations + items + annotator traits
            try:
                dataset = load(path)
            except DataError:
                if not inner.exists():
                    raise
            else:
                object.__setattr__(dataset, "name", name)
                return dataset
        if not inner.exists():
            raise DataError(
                "folder without annotations.csv.", source=str(path),
                fix="pass the annotations file itself or a dataset folder with annotations.csv.",
            )
        return load(inner, format=fmt, name=name)
    if not path.exists():
        raise DataError("file not found.", source=str(path), fix="check the path.")
    dataset = load(path, format=fmt, name=path.name)
    object.__setattr__(dataset, "name", name)
    return dataset


def _label_positions(x, y) -> list[str]:
    """Greedy label placement: a point whose label would collide with a placed neighbour's
    (close in alpha and sigma) gets the next free position."""
    choices = ["top center", "bottom center", "middle right", "middle left", "top right",
               "bottom left"]
    placed: list[tuple[float, float, str]] = []
    out = []
    for xi, yi in zip(x, y, strict=True):
        near = {pos for (xj, yj, pos) in placed if abs(xi - xj) < 0.08 and abs(yi - yj) < 0.08}
        pos = next((c for c in choices if c not in near), "top center")
        placed.append((xi, yi, pos))
        out.append(pos)
    return out


def comparison_figure(table: pd.DataFrame, *, paper: bool = False):
    """Paper Figure 2: alpha (x) vs sigma (y), one labelled point per dataset, with sigma_rnd
    (hollow marker, joined to sigma by a dotted line) so the gap sigma - sigma_rnd is visible.

    ``table``: output of :func:`hlv_core.balance.compare_datasets` (rows with an error or an
    undefined sigma are left out of the plot). ``paper=True`` adds the published values of
    :data:`PAPER_TABLE2` as small grey reference points."""
    import plotly.graph_objects as go

    ok = table[table["alpha"].notna() & table["sigma"].notna()]
    fig = go.Figure()
    if paper:
        names = list(PAPER_TABLE2)
        fig.add_trace(go.Scatter(
            x=[PAPER_TABLE2[k][0] for k in names], y=[PAPER_TABLE2[k][1] for k in names],
            mode="markers", name="σ in the paper (Table 2)", text=names,
            marker={"size": 7, "color": "#c7c7c7", "symbol": "diamond"},
            customdata=[PAPER_TABLE2[k][2] for k in names],
            hovertemplate="paper: %{text}<br>α = %{x:.3f}<br>σ = %{y:.3f}"
            "<br>σ_rnd = %{customdata:.3f}<extra></extra>",
        ))
    xs, ys = [], []
    for row in ok.itertuples():
        if pd.notna(row.sigma_rnd):
            xs += [row.alpha, row.alpha, None]
            ys += [row.sigma, row.sigma_rnd, None]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line={"color": "#9e9e9e", "dash": "dot"},
                             hoverinfo="skip", showlegend=False))
    rnd = ok[ok["sigma_rnd"].notna()]
    fig.add_trace(go.Scatter(
        x=rnd["alpha"], y=rnd["sigma_rnd"], mode="markers", name="σ_rnd (shuffled)",
        marker={"symbol": "circle-open", "size": 10, "color": "#7f7f7f", "line": {"width": 2}},
        text=rnd["dataset"], hovertemplate="%{text}<br>α = %{x:.3f}<br>σ_rnd = %{y:.3f}"
        "<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=ok["alpha"], y=ok["sigma"], mode="markers+text", name="σ",
        marker={"size": 12, "color": "#1f77b4"}, text=ok["dataset"],
        textposition=_label_positions(ok["alpha"].to_numpy(float), ok["sigma"].to_numpy(float)),
        customdata=ok[["sigma_rnd", "n_annotators", "n_triangles"]].to_numpy(dtype=float),
        hovertemplate="%{text}<br>α = %{x:.3f}<br>σ = %{y:.3f}<br>σ_rnd = %{customdata[0]:.3f}"
        "<br>annotators: %{customdata[1]:.0f}<br>triangles: %{customdata[2]:.0f}<extra></extra>",
    ))
    fig.update_layout(
        title="Agreement (α) and systematicity (σ) by dataset (Basile, Figure 2)",
        xaxis_title="Krippendorff's α", yaxis_title="σ (share of balanced triangles)",
        yaxis_range=[-0.05, 1.1], height=520, legend={"orientation": "h", "y": -0.15},
        margin={"t": 60},
    )
    return fig


def _prepare(dataset: Dataset) -> tuple[object, str]:
    if not dataset.annotator_ids_known or dataset.task == "ranking":
        raise DataError(
            "sigma needs one label per (item, annotator) with annotator ids linked across items.",
            source=dataset.name,
            fix="use a dataset with annotator ids (not counts-only or ranking data).",
        )
    return dataset.annotations, ("set" if dataset.task == "multilabel" else "error")


def run_sigma(args: argparse.Namespace) -> int:
    """Handler of the ``sigma`` subcommand."""
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
            seed=args.seed,
        )
        if failed:
            table = pd.concat([table, pd.DataFrame(failed)], ignore_index=True)
            table = table.fillna({"note": "", "error": ""})
        table["seed"] = args.seed
        if args.plot:
            comparison_figure(table, paper=args.paper).write_html(
                args.plot, include_plotlyjs=True, full_html=True
            )
        if args.json:
            print(table.to_json(orient="records", indent=2))
        else:
            shown = table.drop(columns=["note", "error"])
            print(shown.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
            for row in table.itertuples():
                if row.error or row.note:
                    print(f"{row.dataset}: {row.error or row.note}")
            if args.plot:
                print(f"scatter written to {args.plot}")
        return 0 if (table["error"] == "").all() else 1
    dataset = _load(args.files[0], args.format)
    frame, multilabel = _prepare(dataset)
    result = sigma(frame, level=args.level, min_shared=args.min_shared, multilabel=multilabel)
    rnd = sigma_random(
        frame, n_repeats=args.repeats, seed=args.seed, level=args.level,
        min_shared=args.min_shared, multilabel=multilabel,
    )
    partition = camps(result)
    summary = {"dataset": dataset.name, **result.summary(), **rnd.summary()}
    summary.update(
        camps_method=partition.method, camps_frustration=partition.frustration,
        camps_sizes={str(k): int(v) for k, v in partition.camps.value_counts().sort_index().items()},
        multilabel_as_sets=multilabel == "set",
    )
    if args.graphml:
        Path(args.graphml).write_bytes(graphml_bytes(result, partition))
        summary["graphml"] = args.graphml
    if args.edges:
        result.edges.to_csv(args.edges, index=False)
        summary["edges_csv"] = args.edges
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
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
    parser.add_argument("--min-shared", type=int, default=2,
                        help="pairs sharing fewer items get no edge (default 2)")
    parser.add_argument("--repeats", type=int, default=10, help="sigma_rnd replicates (10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of sigma_rnd (0)")
    parser.add_argument("--graphml", metavar="OUT", help="write the signed graph (one file only)")
    parser.add_argument("--edges", metavar="OUT", help="write the edges CSV (one file only)")
    parser.add_argument("--plot", metavar="OUT.html",
                        help="several files: write the alpha vs sigma scatter (paper Figure 2) as "
                        "standalone HTML with plotly.js inline")
    parser.add_argument("--paper", action="store_true",
                        help="with --plot: add the published values of Basile's Table 2")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=run_sigma)
