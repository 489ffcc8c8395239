"""The disagreement report: one self-contained HTML file about a dataset, for a dataset card or a
case file, built from the same engine functions the pages and the command line call.

Sections (each says why when it does not apply to the data): the dataset at a glance and its
import report (:meth:`Dataset.summary`, :attr:`Dataset.report`), the label distribution
(:meth:`Dataset.label_table`), Krippendorff's alpha with its bootstrap CI and kappas
(:func:`hlv_core.agreement.alpha_report`, :func:`~hlv_core.agreement.kappa_summary`), the pairwise
alpha heatmap of the most active annotators (:func:`~hlv_core.agreement.pairwise_alpha`,
:func:`hlv_core.pair_matrix.pairwise_matrix`), Basile's sigma, sigma_rnd and camps against the
annotators' traits (:mod:`hlv_core.balance`, under the paper's conventions and the sigma cost
guard), the most contested items with every annotation (:meth:`Dataset.item_table`), a
certainty summary (:func:`hlv_core.certainty.sweep`, Stutz et al., cheap settings) and, when
predictions are present, the soft vs hard table (:func:`hlv_core.scoring.score_models`,
Kurniawan et al.). Plain-words explanations come from :data:`hlv_core.glossary.TERMS`.

Offline and safe: no outside resource is referenced (plotly.js is inlined once in the head; a
Content-Security-Policy forbids every network request), and every user string (names, labels,
annotator ids, item texts) is HTML-escaped, control characters made visible; plotly labels are
escaped too, so ``<b>`` is shown as typed. Pure Python: no Streamlit.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from . import __version__, figures
from . import balance as bl
from . import certainty as ce
from .agreement import alpha_from_counts, alpha_report, kappa_summary, pairwise_alpha
from .annotators import item_overview
from .glossary import PAPERS, TERMS, metric_label
from .io import DataError, Dataset, item_level_predictions, model_matrices
from .levels import level_options
from .pair_matrix import check_pairs, most_active, pairwise_matrix
from .scoring import metric_ranks, metric_winners, score_models
from .text import visible_controls

__all__ = ["ReportSettings", "Section", "build_report", "esc", "html_table", "render_report",
           "report_sections", "signal_camp_rule"]

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class ReportSettings:
    """The report's knobs, stored in its last section.

    Defaults are cheap: the whole report on MD-Agreement (10,753 items, 819 annotators) takes a
    few seconds.

    Parameters
    ----------
    n_boot : int, default 1000
        Bootstrap replicates of alpha's CI.
    seed : int, default 0
        Seed of every random draw.
    top_items : int, default 15
        Contested items listed.
    heatmap_annotators : int, default 30
        Annotators in the heatmap (most active).
    pairs_min_shared : int, default 2
        Shared items for a pairwise alpha (the Agreement page's default).
    pairs_table_min_shared : int, default 20
        Shared items for a pair to be listed among the most disagreeing.
    sigma_repeats : int, default 10
        Random matrices A_rnd of sigma_rnd (Basile, section 3).
    max_pair_instances : int or None
        The sigma cost guard (:data:`hlv_core.balance.SIGMA_MAX_PAIR_INSTANCES`).
    certainty_samples : int, default 100
        Plausibility samples per item (Stutz et al.).
    score_boot : int, default 200
        Bootstrap resamples of the model scores.
    score_boot_max : int, default 2_000_000
        Skip the score bootstrap when items x models x resamples exceeds it.
    max_traits : int, default 6
        Annotator traits compared with the camps.
    max_trait_values : int, default 12
        Traits with more distinct values are skipped.
    max_annotations_per_item : int, default 40
        Annotations listed per contested item.
    signal_max_iter : int, default 10000
        Most EM iterations of Dawid-Skene and one-coin DS (SQUAREM-accelerated, so the fits
        reach their fixed point, as on the command line).
    signal_mace_restarts : int, default 0
        MACE restarts (0: no MACE).
    signal_top_errors : int, default 15
        Possible errors listed.
    signal_subset : tuple of (str, str), optional
        ``(column, value)`` of the items table: the subset of the annotator report's camp rule
        (rule (b) of :func:`hlv_core.competence.annotator_report`: own camp ahead of the
        majority on these items). None: the rule is off.
    signal_camps : str, optional
        Annotator trait whose groups are the camps of the camp rule (default: the camps of
        Basile's signed agreement graph). Needs ``signal_subset``.

    Examples
    --------
    >>> settings = ReportSettings(n_boot=50, sigma_repeats=2, certainty_samples=10)
    >>> settings.n_boot, settings.seed, ReportSettings().n_boot
    (50, 0, 1000)
    """

    n_boot: int = 1000
    seed: int = 0
    top_items: int = 15
    heatmap_annotators: int = 30
    pairs_min_shared: int = 2
    pairs_table_min_shared: int = 20
    sigma_repeats: int = 10
    max_pair_instances: int | None = bl.SIGMA_MAX_PAIR_INSTANCES
    certainty_samples: int = 100
    score_boot: int = 200
    score_boot_max: int = 2_000_000
    max_traits: int = 6
    max_trait_values: int = 12
    max_annotations_per_item: int = 40
    # signal or noise: EM iterations (DS, one-coin), MACE restarts, possible errors listed
    signal_max_iter: int = 10_000
    signal_mace_restarts: int = 0
    signal_top_errors: int = 15
    signal_subset: tuple[str, str] | None = None
    signal_camps: str | None = None


@dataclass
class Section:
    """One part of the report.

    Parameters
    ----------
    key : str
        Anchor of the section (``sec-<key>``).
    title : str
        Heading.
    body : str
        HTML in which every user string is escaped.
    applies : bool, default True
        False: ``body`` says why the analysis does not apply to this data.
    figures : int, default 0
        Plotly figures in ``body``.
    seconds : float, default 0.0
        Time it took.

    Examples
    --------
    >>> Section("notes", "Notes", "<p>Nothing to add.</p>").applies
    True
    """

    key: str
    title: str
    body: str
    applies: bool = True
    figures: int = 0
    seconds: float = 0.0


# ------------------------------------------------------------------------------- HTML helpers
def esc(value: object, limit: int | None = None) -> str:
    r"""A user string as HTML text.

    Control and bidi characters are shown as ``<U+XXXX>``
    (:func:`hlv_core.text.visible_controls`), markup characters escaped (``html.escape``,
    quotes included); text longer than ``limit`` characters is cut with an ellipsis.

    Parameters
    ----------
    value : object
        Any value.
    limit : int, optional
        Longest text kept.

    Returns
    -------
    str
        HTML-safe text.

    Examples
    --------
    >>> esc("<b>ann</b>\u202e")
    '&lt;b&gt;ann&lt;/b&gt;&lt;U+202E&gt;'
    >>> esc("abcdefgh", limit=4)
    'abcd …'
    """
    text = visible_controls(value)
    if limit is not None and len(text) > limit:
        text = text[:limit].rstrip() + " …"
    return html.escape(text, quote=True)


def _num(value: object, digits: int = 3) -> str:
    """A number for people: ints with thousands separators, floats with ``digits`` decimals,
    NaN / None as "undefined"."""
    if value is None:
        return "undefined"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return esc(value)
    if math.isnan(number):
        return "undefined"
    if math.isinf(number):
        return "∞" if number > 0 else "−∞"
    return f"{number:,.{digits}f}"


def _cell(value: object, limit: int) -> str:
    if isinstance(value, str):
        return esc(value, limit)
    if value is None or isinstance(value, bool | np.bool_ | int | np.integer | float
                                   | np.floating):
        return _num(value)
    return esc(value, limit)


def html_table(frame: pd.DataFrame, *, max_rows: int = 200, limit: int = 300,
               index: bool = False, caption: str = "") -> str:
    """A table as HTML: header and every cell escaped, numbers formatted.

    At most ``max_rows`` rows (the rest counted below it); text cells cut at ``limit``
    characters.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    max_rows : int, default 200
        Rows shown.
    limit : int, default 300
        Longest text cell.
    index : bool, default False
        Include the index as columns.
    caption : str, default ""
        Caption (HTML, not escaped: pass :func:`esc` output for user text).

    Returns
    -------
    str
        HTML.

    Examples
    --------
    >>> import pandas as pd
    >>> html_table(pd.DataFrame({"who": ["<i>a</i>"], "n": [1234]}))  # doctest: +NORMALIZE_WHITESPACE
    '<div class="table-wrap"><table><thead><tr><th>who</th><th>n</th></tr></thead><tbody><tr><td
    class="">&lt;i&gt;a&lt;/i&gt;</td><td class="num">1,234</td></tr></tbody></table></div>'
    """
    shown = frame.reset_index() if index else frame
    head = "".join(f"<th>{esc(c)}</th>" for c in shown.columns)
    rows = []
    for record in shown.head(max_rows).itertuples(index=False):
        cells = "".join(
            f'<td class="{"num" if isinstance(v, int | float | np.integer | np.floating) else ""}">'
            f"{_cell(v, limit)}</td>" for v in record)
        rows.append(f"<tr>{cells}</tr>")
    more = (f'<p class="note">{len(shown) - max_rows:,} more rows not shown.</p>'
            if len(shown) > max_rows else "")
    cap = f"<caption>{caption}</caption>" if caption else ""
    return (f'<div class="table-wrap"><table>{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>{more}")


def _facts(pairs: Sequence[tuple[str, str]]) -> str:
    """Headline numbers as cards: ``(label, value)``, both already HTML."""
    cards = "".join(f'<div class="fact"><div class="label">{label}</div>'
                    f'<div class="value">{value}</div></div>' for label, value in pairs)
    return f'<div class="facts">{cards}</div>'


def _explain(*keys: str) -> str:
    """Plain-words boxes from :data:`hlv_core.glossary.TERMS`: meaning, how to read it, an
    example; how it is computed one click deeper (``<details>``, no script needed)."""
    parts = []
    for key in keys:
        term = TERMS[key]
        parts.append(
            f'<div class="explain"><p><strong>{esc(term.title)}</strong>: {esc(term.meaning)} '
            f"{esc(term.reading)}</p><p class=\"example\">Example: {esc(term.example)}</p>"
            f"<details><summary>How it is computed</summary><p>{esc(term.technical)}</p>"
            "</details></div>")
    return "".join(parts)


def _p(text: str, cls: str = "") -> str:
    return f'<p class="{cls}">{text}</p>' if cls else f"<p>{text}</p>"


def _not_applicable(why: str, how: str = "") -> str:
    why = why[:1].upper() + why[1:]
    return (f'<p class="na"><strong>Not applicable to this dataset.</strong> {esc(why)}</p>'
            + (_p(esc(how), "note") if how else ""))


def _figure_html(fig, div_id: str) -> str:
    """A plotly figure as a ``<div>`` + inline script (plotly.js itself is in the head once).

    The template is set to plotly's own: inside the app the default template is Streamlit's,
    whose placeholder colours only Streamlit's front end fills in (offline they would be
    near-black), so the report looks the same from the app and from the CLI."""
    fig.update_layout(template="plotly")
    return fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id,
                       default_width="100%", default_height=f"{fig.layout.height or 420}px",
                       config={"displaylogo": False, "responsive": True})


# ------------------------------------------------------------------------------- sections
def _overview(dataset: Dataset, settings: ReportSettings) -> Section:
    summary = dataset.summary()
    per_item = summary["annotators_per_item"]
    facts = _facts([
        ("Items", _num(summary["n_items"])),
        ("Annotators", _num(summary["n_annotators"]) if summary["annotator_ids_known"]
         else "anonymous"),
        ("Annotations", _num(summary["n_annotations"])),
        ("Labels", _num(summary["n_labels"])),
        ("Mean normalised entropy", _num(summary["mean_entropy"])),
        ("Annotators per item", f"{_num(per_item['min'])} – {_num(per_item['max'])} "
                                f"(median {per_item['median']:g})"),
    ])
    body = facts + _p(
        f"Task <strong>{esc(dataset.task)}</strong>, level of measurement "
        f"<strong>{esc(dataset.level)}</strong>. "
        + ("Annotator identities are linked across items."
           if dataset.annotator_ids_known else
           "Annotator identities are <strong>not</strong> linked across items (label counts "
           "or per-case readers), so pairwise agreement, sigma and camps do not apply."))
    body += _explain("task", "level")
    body += "<h3>Import report</h3>" + _p(
        "What the loader read, kept and dropped, and why.", "note")
    body += html_table(dataset.report.to_frame(), limit=400)
    return Section("overview", "The dataset at a glance", body)


def _labels(dataset: Dataset, settings: ReportSettings) -> Section:
    table = dataset.label_table()
    shown = table.nlargest(30, "annotations") if len(table) > 30 else table
    entropy = dataset.entropy().to_numpy(dtype=float)
    body = _p("How often each label was given (inventory order; the order fixes every tie-break) "
              "and how divided the annotators are on each item.")
    body += ('<div class="two">'
             + _figure_html(figures.label_distribution_figure(
                 shown.assign(label=shown["label"].map(visible_controls)), "Annotations per label"),
                 "fig-labels")
             + _figure_html(figures.entropy_figure(entropy), "fig-entropy") + "</div>")
    if len(table) > 30:
        body += _p(f"The chart shows the 30 most used of {len(table):,} labels.", "note")
    body += html_table(table.assign(share=table["share"].map(lambda s: f"{s:.1%}")))
    body += _explain("soft_label")
    return Section("labels", "Label distribution", body, figures=2)


def _agreement(dataset: Dataset, settings: ReportSettings) -> Section:
    title = "Agreement: Krippendorff's alpha"
    if dataset.task == "ranking":
        return Section("agreement", title, _not_applicable(
            "ranking data has no single label per annotator and item, so alpha is not defined "
            "here.", "The certainty section below describes how much the readers agree."), False)
    if not dataset.annotator_ids_known:
        value = alpha_from_counts(dataset.counts_array(), level="nominal")
        body = _facts([("Krippendorff's α (nominal, from label counts)", _num(value))])
        body += _p("Annotator identities are not linked across items (counts only): only the "
                   "overall nominal α can be computed; its bootstrap CI, kappas and pairwise "
                   "agreement need annotator ids.", "note")
        return Section("agreement", title, body + _explain("alpha"))
    opts = level_options(dataset)
    level = opts.default
    rep = alpha_report(dataset.annotations, level=level, n_boot=settings.n_boot,
                       seed=settings.seed, values=opts.values(level), multilabel=opts.multilabel)
    ci = (f"[{rep.ci_low:.3f}, {rep.ci_high:.3f}]" if np.isfinite(rep.ci_low) else "undefined")
    facts = [(f"Krippendorff's α ({esc(level)})", _num(rep.alpha)),
             ("95% bootstrap CI (items)", ci),
             ("Pairable items", f"{_num(rep.n_pairable_items)} / {_num(rep.n_items)}"),
             ("Annotators", _num(rep.n_annotators))]
    notes = []
    if opts.multilabel == "set":
        notes.append("Multi-label data: each annotator's label set on an item is one nominal "
                     "value, so two annotators agree only when they chose exactly the same set "
                     "(kappas do not apply; the Agreement page has partial-credit measures).")
    else:
        kappas = kappa_summary(dataset.annotations)
        facts.append(("Fleiss' κ", _num(kappas["fleiss"])))
        if "cohen" in kappas:
            facts.append(("Cohen's κ", _num(kappas["cohen"])))
        elif "light" in kappas:
            facts.append(("Light's κ (mean pairwise Cohen's κ)", _num(kappas["light"])))
    cls = "reading good" if np.isfinite(rep.alpha) and rep.alpha > 0 else "reading warn"
    body = _facts(facts) + _p(esc(rep.explanation), cls)
    body += _p(f"CI: percentile bootstrap over items, {rep.n_boot:,} replicates, seed "
               f"{rep.seed}.", "note")
    body += "".join(_p(esc(n), "note") for n in notes)
    body += _explain("alpha", "kappa") if opts.multilabel != "set" else _explain("alpha")
    return Section("agreement", title, body)


def _without_linked_labels(dataset: Dataset, what: str) -> str:
    """Why ``what`` does not apply (rankings, or annotators not linked across items), or ""."""
    if dataset.task != "ranking" and dataset.annotator_ids_known:
        return ""
    return (f"{what} needs one label per (item, annotator) with annotator ids linked across "
            "items; this dataset has "
            + ("rankings." if dataset.task == "ranking" else "anonymous annotations."))


def _pairs(dataset: Dataset, settings: ReportSettings) -> Section:
    title = "Pairwise agreement of the most active annotators"
    missing = _without_linked_labels(dataset, "pairwise agreement")
    if missing:
        return Section("pairs", title, _not_applicable(missing), False)
    try:  # pairs estimated before any is built (a limit names its environment variable)
        check_pairs(dataset.annotations, source=dataset.name)
    except ValueError as error:
        return Section("pairs", title, _not_applicable(str(error)), False)
    opts = level_options(dataset)
    level = opts.default
    pairs = pairwise_alpha(dataset.annotations, level=level,
                           min_shared=settings.pairs_min_shared, values=opts.values(level),
                           multilabel=opts.multilabel)
    defined = pairs.dropna(subset=["alpha"])
    if defined.empty:
        return Section("pairs", title, _not_applicable(
            f"no annotator pair has a defined α: pairs share fewer than "
            f"{settings.pairs_min_shared} items, or their shared labels never vary."), False)
    with_alpha = pd.unique(defined[["annotator_a", "annotator_b"]].to_numpy().ravel())
    shown = most_active(dataset.annotations, settings.heatmap_annotators, among=with_alpha)
    pm = pairwise_matrix(defined, shown, value="alpha", order="cluster")
    overall = alpha_report(dataset.annotations, level=level, n_boot=0,
                           values=opts.values(level), multilabel=opts.multilabel).alpha
    n_annotators = dataset.annotations["annotator_id"].nunique()
    body = _p(
        f"Pairwise α ({esc(level)}) of the {len(shown):,} most active annotators"
        + (f" of {n_annotators:,}" if n_annotators > len(shown) else "")
        + f", ordered by hierarchical clustering so that annotators who agree sit together. "
        f"White = the overall α ({_num(overall)}); blue = the pair agrees more than the pool, "
        "red = less; grey = no defined α (too few shared items or no variation).")
    shown_ids = replace(pm, ids=[visible_controls(a) for a in pm.ids])
    body += _figure_html(figures.pair_heatmap(shown_ids, overall)[0], "fig-heatmap")
    body += _p(
        f"{len(pairs):,} pairs share at least one item; {len(defined):,} have a defined α; "
        f"{pairs.attrs.get('n_pairs_below_min_shared', 0):,} share fewer than "
        f"{settings.pairs_min_shared} items; {pairs.attrs.get('n_pairs_undefined', 0):,} are "
        "undefined (all shared values identical).", "note")
    support = max(settings.pairs_min_shared, settings.pairs_table_min_shared)
    worst = defined[defined["n_shared"] >= support].nsmallest(10, "alpha")
    body += f"<h3>Pairs that disagree most (sharing at least {support} items)</h3>"
    if worst.empty:
        body += _p(f"No pair with a defined α shares {support} items or more: pairwise α on "
                   "fewer items is too noisy to single a pair out.", "note")
    else:
        body += html_table(worst[["annotator_a", "annotator_b", "n_shared", "alpha"]].rename(
            columns={"annotator_a": "annotator A", "annotator_b": "annotator B",
                     "n_shared": "shared items", "alpha": "pairwise α"}))
    body += _explain("pairwise_alpha")
    return Section("pairs", title, body, figures=1)


def _sigma(dataset: Dataset, settings: ReportSettings) -> Section:
    title = "Systematic disagreement: sigma and camps"
    missing = _without_linked_labels(dataset, "sigma")
    if missing:
        return Section("sigma", title, _not_applicable(missing), False)
    cost = bl.estimate_sigma_cost(dataset.annotations)
    try:
        bl.check_sigma_cost(cost, settings.max_pair_instances, source=str(dataset.name))
        # sigma and sigma_rnd's repeats build the pair graph many times: the report's pair
        # limit (HLV_MAX_PAIRS), as the pairwise section, before any of it is built
        check_pairs(dataset.annotations, what="sigma and camps", source=str(dataset.name))
    except DataError as error:
        return Section("sigma", title, _not_applicable(
            f"the cost guard refused this data: {error}"), False)
    opts = level_options(dataset)
    values = opts.values("nominal")
    result = bl.sigma(dataset.annotations, level="nominal", min_shared=bl.PAPER_MIN_SHARED,
                      values=values, multilabel=opts.multilabel, max_pair_instances=None)
    rnd = bl.sigma_random(dataset.annotations, n_repeats=settings.sigma_repeats,
                          seed=settings.seed, level="nominal", min_shared=bl.PAPER_MIN_SHARED,
                          procedure="composed", values=values, multilabel=opts.multilabel,
                          max_pair_instances=None)
    partition = bl.camps(result)
    sizes = partition.camps.value_counts().sort_index()
    body = _facts([
        ("α (nominal)", _num(result.alpha)),
        ("σ", _num(result.sigma)),
        ("σ_rnd (shuffled annotators)", f"{_num(rnd.mean)} ± {_num(rnd.sd)}"),
        ("Triangles", f"{_num(result.n_triangles)} ({_num(result.n_balanced)} balanced)"),
        ("Edges", f"{_num(result.n_pos_edges)} + / {_num(result.n_neg_edges)} −"),
    ])
    if result.explanation:
        body += _p(esc(result.explanation), "reading warn")
    elif np.isfinite(result.sigma) and np.isfinite(rnd.mean):
        gap = result.sigma - rnd.mean
        reading = ("well above its random baseline: the disagreement is organised into camps "
                   "of annotators." if gap > 2 * max(rnd.sd, 0.01) else
                   "close to its random baseline: no clear camp structure beyond chance.")
        body += _p(f"σ = {_num(result.sigma)} is {reading}", "reading good")
    camp_text = ", ".join(f"{'no edge' if k < 0 else f'camp {k}'}: {v:,} annotators"
                          for k, v in sizes.items())
    body += _p(
        f"Camps ({esc(partition.method)}, "
        + ("exact: the graph is balanced" if partition.balanced else "approximate")
        + f"): {camp_text}; {partition.frustration:,} of {partition.n_edges:,} edges contradict "
        "the split (+ across camps or − within one).")
    body += _p(f"Conventions: {esc(bl.conventions_note('nominal', bl.PAPER_MIN_SHARED))}; "
               f"{rnd.n_defined} of {rnd.n_repeats} random matrices defined; seed "
               f"{settings.seed}. {result.n_dropped_min_shared:,} pairs dropped for sharing "
               f"too few items, {result.n_dropped_undefined:,} for an undefined α.", "note")
    body += "<h3>Camps against annotator traits</h3>" + _trait_tables(dataset, partition,
                                                                       settings)
    body += _explain("sigma", "camps")
    return Section("sigma", title, body)


def _trait_tables(dataset: Dataset, partition: bl.CampsResult, settings: ReportSettings) -> str:
    traits = [c for c in dataset.annotators.columns if c != "annotator_id"]
    if not traits:
        return _p("This dataset has no annotator traits (an annotators file with e.g. age, "
                  "gender, background) to compare the camps with.", "note")
    parts, skipped = [], []
    for trait in traits[: settings.max_traits]:
        n_values = dataset.annotators[trait].nunique(dropna=True)
        if n_values > settings.max_trait_values:
            skipped.append(f"{visible_controls(trait)} ({n_values} values)")
            continue
        table, v = bl.camp_trait_table(partition, dataset.annotators, trait)
        if table.empty:
            skipped.append(f"{visible_controls(trait)} (no annotator with a camp and a value)")
            continue
        table.columns = [str(c) for c in table.columns]
        parts.append(f"<h4>{esc(trait)}</h4>" + html_table(table, index=True) + _p(
            "Cramér's V = " + ("undefined (one camp or one value)" if math.isnan(v)
                               else f"{v:.2f}")
            + " (1: the camps are exactly the trait's groups; 0: unrelated).", "note"))
    if len(traits) > settings.max_traits:
        skipped.append(f"{len(traits) - settings.max_traits} more traits not shown")
    if skipped:
        parts.append(_p("Not compared: " + esc("; ".join(skipped)) + ".", "note"))
    return "".join(parts)


def _top_annotations(dataset: Dataset, item_ids: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Every annotation of the listed items joined with the annotators' traits, as
    :meth:`Dataset.item_annotations` gives them, in one pass over the table (per-item lookups
    take seconds each on half a million annotations)."""
    frame = dataset.annotations
    rows = frame[frame["item_id"].isin(list(item_ids))]
    rows = rows.astype({c: str for c in ("item_id", "annotator_id", "label")})
    if dataset.annotator_ids_known and len(dataset.annotators.columns) > 1:
        traits = dataset.annotators.astype({"annotator_id": str})
        rows = rows.merge(traits, on="annotator_id", how="left")
    return {str(item): part for item, part in rows.groupby("item_id", sort=False)}


def _annotation_list(dataset: Dataset, rows: pd.DataFrame, settings: ReportSettings) -> str:
    if dataset.task == "ranking":
        if "rank" in rows.columns:
            rows = rows.sort_values(["annotator_id", "rank"], na_position="last")
        lines = [(str(reader), " > ".join(visible_controls(x) for x in group["label"]))
                 for reader, group in rows.groupby("annotator_id", sort=False)]
        what = "readers' ranked answers"
    elif not dataset.annotator_ids_known:
        counts = rows["label"].value_counts()
        return _p("Label counts: " + esc(", ".join(f"{visible_controls(k)}: {v}"
                                                   for k, v in counts.items())))
    else:
        traits = [c for c in dataset.annotators.columns if c != "annotator_id"][:3]
        lines = []
        for annotator, group in rows.groupby("annotator_id", sort=True):
            labels = ", ".join(visible_controls(x) for x in group["label"])
            extra = [str(group[t].iloc[0]) for t in traits if pd.notna(group[t].iloc[0])]
            lines.append((str(annotator) + (f" ({', '.join(extra)})" if extra else ""), labels))
        what = "annotations"
    limit = settings.max_annotations_per_item
    items = "".join(f"<li><span class=\"who\">{esc(who, 80)}</span>: {esc(labels, 300)}</li>"
                    for who, labels in lines[:limit])
    more = f"<li>… and {len(lines) - limit:,} more</li>" if len(lines) > limit else ""
    return f'<p class="note">{len(lines):,} {what}:</p><ul class="annotations">{items}{more}</ul>'


def _items(dataset: Dataset, settings: ReportSettings) -> Section:
    table = item_overview(dataset)
    top = table.head(settings.top_items)
    judgements = dataset.judgements_array()
    annotations = _top_annotations(dataset, [str(i) for i in top["item_id"]])
    position = {item: i for i, item in enumerate(dataset.item_ids)}
    cards = []
    for row in top.itertuples(index=False):
        item = str(row.item_id)
        share = judgements[position[item]]
        order = np.argsort(-share, kind="stable")[:6]
        dist = " · ".join(f"{esc(dataset.labels[k])} {share[k]:.0%}" for k in order
                          if share[k] > 0)
        text = getattr(row, "text", None)
        cards.append(
            f'<div class="item"><h3>Item {esc(item)}</h3>'
            + (f'<blockquote>{esc(text, 800)}</blockquote>' if isinstance(text, str) and text
               else "")
            + _p(f"Majority <strong>{esc(row.majority)}</strong> "
                 f"({row.majority_share:.0%} of the judgements); normalised entropy "
                 f"{_num(row.entropy)}; {_num(row.n_annotators)} "
                 f"{'readers' if dataset.task == 'ranking' else 'annotators'}.")
            + _p(f"Judgement distribution: {dist}", "note")
            + _annotation_list(dataset, annotations.get(item, pd.DataFrame(
                columns=["item_id", "annotator_id", "label"])), settings) + "</div>")
    which = (f"All {len(table):,} items" if len(top) == len(table) else
             f"The {len(top):,} items of {len(table):,} with the highest normalised entropy")
    body = _p(f"{which}, most evenly split judgements first, with every annotation.")
    return Section("items", "Most contested items", body + "".join(cards))


def _certainty(dataset: Dataset, predictions: pd.DataFrame | None,
               settings: ReportSettings) -> Section:
    title = "Certainty of the ground truth"
    if dataset.task not in ("multiclass", "rating", "ranking"):
        return Section("certainty", title, _not_applicable(
            f"Stutz et al.'s certainty is defined for single-label and ranked data; this "
            f"dataset is {dataset.task}."), False)
    model = "prirn" if dataset.task == "ranking" else "dirichlet"
    prior = 0.01 if model == "prirn" else 0.1
    reliabilities = [1.0, 3.0, 10.0, math.inf] if model == "prirn" else [0.1, 1.0, 10.0,
                                                                          math.inf]
    ks = tuple(k for k in (1, 2, 3) if k < dataset.n_labels) or (1,)
    found, notes = model_matrices(predictions, dataset, complete=True)
    preds = {name: q for name, (_, q) in found.items()}
    result = ce.sweep(model, ce.model_data(dataset, model), reliabilities,
                      n_samples=settings.certainty_samples, seed=settings.seed, prior=prior,
                      n_classes=dataset.n_labels, ks=ks, predictions=preds,
                      risk=ce.risk_vector(dataset), item_ids=list(dataset.item_ids))
    cert = result.certainty[np.isfinite(result.certainty["reliability"])]
    wide = cert.pivot_table(index="reliability", columns="k", values="mean_certainty")
    wide.columns = [f"mean top-{k} certainty" for k in wide.columns]
    below = cert[cert["k"] == 1].set_index("reliability")["share_below_0.5"]
    wide["items with top-1 certainty < 0.5"] = below.reindex(wide.index).map(
        lambda s: f"{s:.1%}")
    wide.index = [f"{r:g}" for r in wide.index]
    wide.index.name = "reliability"
    model_name = ("PrIRN (Dirichlet on inverse-rank-normalised rankings, paper IRN)"
                  if model == "prirn" else "Dirichlet on the label counts")
    body = _p(f"Aggregation model: {model_name}, prior {prior:g} per class, "
              f"{settings.certainty_samples} plausibility samples per item, seed "
              f"{settings.seed}. The point estimate (reliability ∞) has certainty 1 by "
              "construction and is not listed.")
    body += html_table(wide, index=True)
    acc = result.accuracy
    if len(acc):
        top1 = acc[(acc["k"] == 1) & (
            (acc["metric"] == "deterministic_accuracy")
            | ((acc["metric"] == "ua_accuracy") & np.isfinite(acc["reliability"])))]
        top1 = top1.assign(column=[
            "accuracy against the point estimate (reliability ∞)"
            if m == "deterministic_accuracy" else f"UA accuracy, reliability {r:g}"
            for m, r in zip(top1["metric"], top1["reliability"], strict=True)])
        ua = top1.pivot_table(index="predictor", columns="column", values="mean", sort=False)
        ua.index.name = "model"
        body += "<h3>Models: uncertainty-adjusted top-1 accuracy</h3>" + html_table(
            ua, index=True)
    elif predictions is not None:
        body += _p("No model predicts every item, so UA accuracy is not computed.", "note")
    body += "".join(_p(esc(n), "note") for n in notes)
    body += _explain("certainty", "reliability", "ua_accuracy")
    return Section("certainty", title, body)


_GROUPS = {"hard": "hard (majority label)", "soft": "soft (distribution)",
           "lewidi": "LeWiDi (lower is better)"}


def _scores(dataset: Dataset, predictions: pd.DataFrame | None,
            settings: ReportSettings) -> Section:
    title = "Models: soft vs hard metrics"
    rows = item_level_predictions(predictions)
    how = ("Upload predictions on the Overview page or train models in the Training lab, then "
           "build the report again; on the command line: report DATA --predictions FILE.")
    if rows is None:
        why = ("the predictions are per annotator (perspectivist); the Perspectives page and "
               "the perspectives command score them." if predictions is not None
               and len(predictions) else "this dataset has no item-level model predictions.")
        return Section("scores", title, _not_applicable(why, how), False)
    if dataset.task == "ranking":
        return Section("scores", title, _not_applicable(
            "soft and hard metrics need multiclass, rating or multi-label annotations; for "
            "ranked data the certainty section gives the models' UA accuracy."), False)
    n_models = rows["model"].nunique()
    n_boot = (settings.score_boot
              if dataset.n_items * n_models * settings.score_boot <= settings.score_boot_max
              else 0)
    scores = score_models(dataset, rows, n_boot=n_boot, seed=settings.seed)
    models = list(pd.unique(scores["model"]))
    cells = [("undefined" if not np.isfinite(v) else
              f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if np.isfinite(lo) else f"{v:.3f}")
             for v, lo, hi in zip(scores["value"], scores["lower"], scores["upper"],
                                  strict=True)]
    wide = scores.assign(cell=cells).pivot(index="metric", columns="model", values="cell")
    order = list(pd.unique(scores["metric"]))
    wide = wide.reindex(order)[models]
    winners = metric_winners(metric_ranks(scores))
    wide.insert(0, "kind", [_GROUPS.get(g, g) for g in (
        scores.loc[scores["metric"] == m, "group"].iloc[0] for m in order)])
    wide["best"] = [winners.get(m, "") for m in order]
    wide.index = [metric_label(m) for m in order]
    wide.index.name = "metric"
    body = _p("Hard metrics compare each model's top label with the majority label; soft metrics "
              "compare its whole distribution with the annotators' (Kurniawan et al.). "
              "Higher is better except for the LeWiDi distances and cross-entropy.")
    body += html_table(wide, index=True)
    ci_note = (f"[95% percentile bootstrap CI over items, {n_boot} resamples, seed "
               f"{settings.seed}]" if n_boot else
               "no bootstrap CIs (the data is too large for the report's budget)")
    body += _p(f"Values {ci_note}.", "note")
    distinct = {w for w in winners.values if w}
    if len(distinct) > 1:
        body += _p("The choice of metric changes which model is best: "
                   + esc(", ".join(sorted(distinct))) + ".", "reading warn")
    for model, part in scores.groupby("model", sort=False):
        n, total = int(part["n_items"].iloc[0]), int(part["n_items_total"].iloc[0])
        if n != total:
            body += _p(f"Model {esc(model)} is scored on only {n:,} of {total:,} items.", "note")
    for row in scores[scores["value"].isna() & (scores["note"] != "")].itertuples():
        body += _p(f"{esc(metric_label(row.metric))} of {esc(row.model)} is undefined: "
                   f"{esc(row.note)}", "note")
    body += _explain("hard_metric", "soft_metric")
    return Section("scores", title, body)


def _human_pool(dataset: Dataset, predictions: pd.DataFrame | None,
                settings: ReportSettings) -> Section:
    """Models against the human pool: the alternative annotator test (Calderon et al., ACL
    2025), the human ceiling and calibration to humans (Baan et al., EMNLP 2022), through
    :mod:`hlv_core.judging` (the functions the page and ``judge`` command call)."""
    from . import judging

    title = "Models against the human pool"
    if predictions is None or not len(predictions):
        return Section("human_pool", title, _not_applicable(
            "this dataset has no model predictions.", "Load predictions and build the report "
            "again; on the command line: judge alt-test DATA PREDICTIONS."), False)
    if not dataset.annotator_ids_known:
        body = _p("The alternative annotator test and the human ceiling leave one annotator "
                  "out at a time; these data have vote counts only, so only calibration is "
                  "shown.", "note")
    else:
        results, notes = judging.run_alt_tests(dataset, predictions, epsilon=0.2)
        body = _p("Can a model replace one of the annotators? Each annotator is left out in "
                  "turn and competes with the model on agreeing with the others (Calderon et "
                  "al., ACL 2025, section 3; epsilon 0.2, q 0.05). A model passes when its "
                  "winning rate is at least 0.5; the constant majority label is the baseline.")
        body += html_table(judging.alt_test_summary(results))
        body += "".join(_p(esc(n), "note") for n in notes)
        item_models = list(pd.unique(item_level_predictions(predictions)["model"])) \
            if item_level_predictions(predictions) is not None else []
        try:
            res = judging.run_ceiling(dataset, predictions, str(item_models[0]),
                                      n_boot=settings.score_boot, seed=settings.seed)[0] \
                if item_models else None
        except ValueError as error:  # e.g. no annotator with enough items
            res = None
            body += _p(f"Human ceiling not available: {esc(error)}", "note")
        if res is not None:
            table = judging.ceiling_table(res)
            table["metric"] = table["metric"].map(metric_label)
            body += _p(f"Human ceiling: every annotator scored against the others, beside "
                       f"model {esc(item_models[0])} on the same targets (95% bootstrap CI, "
                       f"{res.n_boot} resamples, seed {res.seed}).")
            body += html_table(table)
            body += "".join(_p(esc(n), "note") for n in res.notes)
        body += _explain("alt_test", "winning_rate", "human_ceiling")
    if dataset.task in ("multiclass", "rating") and item_level_predictions(predictions) \
            is not None:
        body += _p("Calibration to the human label distribution (Baan et al., EMNLP 2022): "
                   "the oracle row predicts the human distribution itself and still has ECE "
                   "above 0 against the majority.")
        body += html_table(judging.run_calibration(dataset, predictions))
        body += _explain("dist_ce", "ece_majority")
    return Section("human_pool", title, body)


def _about(dataset: Dataset, settings: ReportSettings, generated: str,
           sections: Sequence[Section]) -> Section:
    timing = ", ".join(f"{s.title.split(':')[0].lower()} {s.seconds:.1f} s" for s in sections)
    papers = "".join(f"<li>{esc(p)}</li>" for p in PAPERS.values())
    frame = pd.DataFrame({"setting": list(settings.__dataclass_fields__),
                          "value": [str(getattr(settings, k))
                                    for k in settings.__dataclass_fields__]})
    body = _p(f"Generated by HLV Lens {esc(__version__)} on {esc(generated)} for dataset "
              f"<strong>{esc(dataset.name)}</strong> (content hash "
              f"{esc(dataset.content_hash)}). Every number comes from the engine functions the "
              "app's pages and the command line call; the same report is written by "
              "<code>python -m hlv_core report DATA -o report.html</code>.")
    body += html_table(frame) + _p(f"Time per section: {esc(timing)}.", "note")
    body += "<h3>Papers</h3><ul>" + papers + "</ul>"
    return Section("about", "Settings and sources", body)


# ------------------------------------------------------------------------------- assembly
def signal_camp_rule(dataset: Dataset, settings: ReportSettings, *, check_only: bool = False
                     ) -> tuple[list | None, pd.Series | None, str]:
    """The camp rule's inputs for the report's annotator verdicts: ``(subset, camps, said)``.

    Rule (b) of :func:`hlv_core.competence.annotator_report` (camps after Basile, "A measure
    of systematic disagreement", section 3; verdicts beside Dawid & Skene 1979) calls an
    annotator systematic when they agree with their own camp on a subset of items at least
    ``camp_gain`` more than with the majority. ``settings.signal_subset = (column, value)`` picks the items
    (:func:`hlv_core.competence.subset_items`); ``settings.signal_camps`` names an annotator
    trait whose groups are the camps (:func:`hlv_core.competence.trait_camps`), else the camps
    of the signed agreement graph (:func:`hlv_core.competence.sigma_camps`). Without a subset
    the rule is off: ``(None, None, said)``. ``said`` is plain text (escape it for HTML).

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset (its items table holds the subset's column, its annotators table the
        trait).
    settings : ReportSettings
        ``signal_subset`` and ``signal_camps``.
    check_only : bool, default False
        Refuse bad settings without building the signed graph (camps None).

    Returns
    -------
    tuple of (list or None, pandas.Series or None, str)
        The subset's item ids, the camp of every annotator, and what the report says.

    Raises
    ------
    ValueError
        Camps without a subset, a column or value the items table lacks, or an unknown trait,
        each naming the choices (checked before any fit, so the command line can refuse first).

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import build_dataset
    >>> rows = [(f"i{i}", a, "x" if (i + len(a)) % 2 else "y") for i in range(4) for a in "ab"]
    >>> dataset = build_dataset(pd.DataFrame(rows, columns=["item_id", "annotator_id", "label"]),
    ...                         source="toy.csv", format="canonical")
    >>> signal_camp_rule(dataset, ReportSettings())[2]
    'The camp rule (own camp ahead of the majority on a subset of items) needs a subset and is off here.'
    """
    from . import competence as comp

    subset_setting, trait = settings.signal_subset, settings.signal_camps
    if subset_setting is None:
        if trait is not None:
            raise ValueError("camps only enter the camp rule, which needs a subset of items: "
                             "give the subset too (report --subset COLUMN=VALUE).")
        return None, None, ("The camp rule (own camp ahead of the majority on a subset of "
                            "items) needs a subset and is off here.")
    column, value = subset_setting
    subset = comp.subset_items(dataset.items, column, value)
    if trait is not None:
        camps = comp.trait_camps(dataset.annotators, trait)
        source = f"the groups of the annotator trait {trait!r}"
    else:
        camps = None if check_only else comp.sigma_camps(
            dataset.annotations[["item_id", "annotator_id", "label"]])
        source = "Basile's signed agreement graph"
    said = (f"The camp rule is on: an annotator is also systematic when, on the {len(subset):,} "
            f"items where {column} = {value!r}, they agree with their own camp at least "
            f"{comp.REPORT_THRESHOLDS['camp_gain']} more than with the majority; camps from "
            f"{source} (camps as in Basile, \"A measure of systematic disagreement\", "
            "section 3).")
    return subset, camps, said


def _signal(dataset: Dataset, settings: ReportSettings) -> Section:
    """Possible errors (Weber-Genzel et al. 2024, VariErr NLI, section 5) and the annotator
    report (Dawid & Skene 1979; Hovy et al. 2013, MACE): the numbers of the Errors and
    perspectives page and of ``python -m hlv_core errors`` / ``competence --report``."""
    from . import competence as comp
    from . import errors as err

    title = "Possible errors and annotators: signal or noise"
    missing = _without_linked_labels(dataset, "this analysis")
    if missing:
        return Section("signal", title, _not_applicable(missing), False)
    annotations = dataset.annotations[["item_id", "annotator_id", "label"]]
    if annotations["label"].nunique() < 2:
        return Section("signal", title, _not_applicable(
            "every annotation has the same label: nothing can be a possible error."), False)
    subset, camps, camp_rule = signal_camp_rule(dataset, settings)
    report = comp.annotator_report(annotations, camps=camps, subset=subset, seed=settings.seed,
                                   max_iter=settings.signal_max_iter,
                                   mace_restarts=settings.signal_mace_restarts)
    scores = err.error_scores(annotations, method="ds_posterior", seed=settings.seed,
                              max_iter=settings.signal_max_iter)
    counts = report["kind"].value_counts()
    body = _facts([(kind.replace("_", " "), _num(int(counts.get(kind, 0))))
                   for kind in ("reliable", "unreliable", "systematic", "insufficient_data")])
    body += _p(f"Unreliable = one-coin Dawid-Skene skill below "
               f"{_num(report.attrs.get('skill_cut'))} (midway between chance and the median "
               "annotator): disagreement that looks random. Systematic = one confusion at least "
               f"{_num(comp.REPORT_THRESHOLDS['cell_ratio'], 1)}x as frequent as for the median "
               "annotator: a consistent reading, shown as a perspective, not as noise. "
               + esc(camp_rule)
               + ("" if subset is not None else
                  " Choose a subset on the Errors and perspectives page, or with "
                  "<code>report --subset COLUMN=VALUE</code> (and <code>--camps TRAIT</code> "
                  "for camps from a known trait)."))
    flagged = report[report["kind"].isin(["unreliable", "systematic"])].reset_index()
    if len(flagged):
        columns = ["annotator_id", "kind", "n_rows", "skill"]
        if subset is not None:
            columns += [c for c in ("camp", "camp_agreement_in", "majority_agreement_in")
                        if c in flagged]
        body += html_table(flagged[[*columns, "reason"]],
                           max_rows=50, caption="Annotators whose disagreement stands out")
    top = scores.head(settings.signal_top_errors)
    choosers = err.label_choosers(annotations, report)[["item_id", "label", "choosers"]]
    top = top.merge(choosers, on=["item_id", "label"], how="left")
    body += html_table(top[["rank", "item_id", "label", "score", "n_chose", "n_annotators",
                            "choosers"]],
                       caption=f"The {len(top)} highest-ranked possible errors (of "
                               f"{len(scores):,} labels; score = 1 - P(label present) under "
                               "Dawid-Skene), each with who chose it and their verdict. A score "
                               "and a rank for re-checking, not a verdict.")
    mace_note = (f"MACE {settings.signal_mace_restarts} restarts, seed {settings.seed}"
                 if settings.signal_mace_restarts else "MACE skipped (not used by the verdicts)")
    for note in dict.fromkeys([*report.attrs.get("notes", []), *scores.attrs.get("notes", [])]):
        body += _p(esc(note), "note")
    body += _p(f"EM (SQUAREM-accelerated, Varadhan and Roland 2008) to the fixed point, at most "
               f"{settings.signal_max_iter:,} iterations, as on the command line; {mace_note}.",
               "note")
    body += _explain("possible_error", "annotator_verdict")
    return Section("signal", title, body)


def report_sections(dataset: Dataset, predictions: pd.DataFrame | None = None, *,
                    settings: ReportSettings | None = None, progress: Progress | None = None,
                    generated: str | None = None) -> list[Section]:
    r"""Every section of the disagreement report, in order.

    The dataset at a glance, label distribution, agreement (Krippendorff's alpha with its
    bootstrap CI, kappas), pairwise agreement, Basile's sigma and camps, the most contested
    items, certainty (Stutz et al.), soft vs hard metrics (Kurniawan et al., with predictions),
    models against the human pool, possible errors and annotators, and the settings. An
    analysis that refuses the data (``DataError`` or ``ValueError`` from the engine) becomes a
    section saying why.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    predictions : pandas.DataFrame, optional
        Long predictions (``model, item_id, label, prob``...); None uses the dataset's bundled
        predictions.
    settings : ReportSettings, optional
        Knobs (default :class:`ReportSettings()`).
    progress : callable, optional
        ``progress(fraction, text)``, called before each section.
    generated : str, optional
        Timestamp shown (default now, UTC).

    Returns
    -------
    list of Section
        The sections.

    Examples
    --------
    Without predictions the model sections say why they do not apply:

    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> settings = ReportSettings(n_boot=50, sigma_repeats=2, certainty_samples=10)
    >>> sections = report_sections(dataset, settings=settings, generated="2026-01-01 00:00 UTC")
    >>> [s.key for s in sections if not s.applies]
    ['scores', 'human_pool']
    """
    settings = settings or ReportSettings()
    if predictions is None:
        predictions = dataset.predictions
    generated = generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    builders: list[tuple[str, str, Callable[[], Section]]] = [
        ("overview", "The dataset at a glance", lambda: _overview(dataset, settings)),
        ("labels", "Label distribution", lambda: _labels(dataset, settings)),
        ("agreement", "Agreement", lambda: _agreement(dataset, settings)),
        ("pairs", "Pairwise agreement", lambda: _pairs(dataset, settings)),
        ("sigma", "Sigma and camps", lambda: _sigma(dataset, settings)),
        ("items", "Most contested items", lambda: _items(dataset, settings)),
        ("certainty", "Certainty", lambda: _certainty(dataset, predictions, settings)),
        ("scores", "Soft vs hard metrics", lambda: _scores(dataset, predictions, settings)),
        ("human_pool", "Models against the human pool",
         lambda: _human_pool(dataset, predictions, settings)),
        ("signal", "Possible errors and annotators", lambda: _signal(dataset, settings)),
    ]
    sections: list[Section] = []
    for i, (key, name, build) in enumerate(builders):
        if progress is not None:
            progress(i / (len(builders) + 1), name)
        start = time.perf_counter()
        try:
            section = build()
        except (DataError, ValueError) as error:
            section = Section(key, name, _not_applicable(
                f"the analysis could not run on this data: {error}"), False)
        section.seconds = time.perf_counter() - start
        sections.append(section)
    sections.append(_about(dataset, settings, generated, sections))
    if progress is not None:
        progress(1.0, "done")
    return sections


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 margin:0 auto;max-width:1100px;padding:1.5rem 2rem;color:#1f2328;line-height:1.45}
h1{margin-bottom:.2rem}h2{border-bottom:2px solid #e6e6e6;padding-bottom:.3rem;margin-top:2.4rem}
.sub{color:#57606a;margin-top:0}nav ol{columns:2;padding-left:1.2rem}
.facts{display:flex;flex-wrap:wrap;gap:.8rem;margin:.8rem 0}
.fact{border:1px solid #d0d7de;border-radius:8px;padding:.5rem .8rem;min-width:9rem}
.fact .label{font-size:.8rem;color:#57606a}.fact .value{font-size:1.25rem;font-weight:600}
.table-wrap{overflow-x:auto;margin:.6rem 0}table{border-collapse:collapse;font-size:.88rem}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#57606a;font-size:.88rem}.na{background:#fff8c5;padding:.6rem .8rem;border-radius:6px}
.reading{padding:.6rem .8rem;border-radius:6px}.good{background:#ddf4ff}.warn{background:#fff1e5}
.explain{border-left:4px solid #8c959f;padding:.2rem .9rem;margin:.8rem 0;background:#f6f8fa}
.example{font-style:italic}.two{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
.item{border:1px solid #d0d7de;border-radius:8px;padding:.2rem 1rem;margin:1rem 0}
.item h3{margin:.6rem 0 .3rem}blockquote{margin:.4rem 0;padding:.4rem .8rem;background:#f6f8fa;
 white-space:pre-wrap}.annotations{columns:2;font-size:.88rem}.who{color:#57606a}
@media print{nav{display:none}.item{break-inside:avoid}}
@media (max-width:800px){.two{grid-template-columns:1fr}.annotations{columns:1}}
"""

#: No network access at all from the report: scripts and styles inline only, images as data.
_CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
        "style-src 'unsafe-inline'; img-src data: blob:; font-src data:")


def render_report(dataset: Dataset, sections: Sequence[Section]) -> str:
    r"""The sections as one self-contained HTML document.

    plotly.js is inlined once, in the head, when a section has a figure; a
    Content-Security-Policy forbids every network request.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset (its name, task and size head the page).
    sections : sequence of Section
        The sections, in order.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> page = render_report(dataset, [Section("notes", "Notes", "<p>Nothing to add.</p>")])
    >>> page.startswith("<!DOCTYPE html>"), "default-src 'none'" in page, 'id="sec-notes"' in page
    (True, True, True)
    """
    plotly_js = ""
    if any(s.figures for s in sections):
        from plotly.offline import get_plotlyjs

        plotly_js = f'<script id="plotly-js">{get_plotlyjs()}</script>'
    toc = "".join(f'<li><a href="#sec-{s.key}">{esc(s.title)}</a>'
                  + ("" if s.applies else " <span class=\"note\">(not applicable)</span>")
                  + "</li>" for s in sections)
    body = "".join(f'<section id="sec-{s.key}" class="{"" if s.applies else "not-applicable"}">'
                   f"<h2>{esc(s.title)}</h2>{s.body}</section>" for s in sections)
    name = esc(dataset.name)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Disagreement report: {name}</title><style>{_CSS}</style>{plotly_js}</head>"
        f"<body><header><h1>Disagreement report</h1><p class=\"sub\">Dataset <strong>{name}"
        f"</strong> · {esc(dataset.task)} · {dataset.n_items:,} items · "
        f"{len(dataset.annotations):,} annotations</p></header>"
        f"<nav><h2>Contents</h2><ol>{toc}</ol></nav>{body}"
        "<footer><p class=\"note\">Self-contained: this file makes no network request and "
        "works offline.</p></footer></body></html>\n")


def build_report(dataset: Dataset, predictions: pd.DataFrame | None = None, *,
                 settings: ReportSettings | None = None, progress: Progress | None = None,
                 generated: str | None = None) -> str:
    r"""The disagreement report of a dataset as one self-contained HTML string.

    :func:`report_sections` rendered by :func:`render_report`; every user string is
    HTML-escaped and the file makes no network request.

    Parameters
    ----------
    dataset : hlv_core.io.Dataset
        The dataset.
    predictions : pandas.DataFrame, optional
        Long predictions; None uses the dataset's bundled predictions.
    settings : ReportSettings, optional
        Knobs.
    progress : callable, optional
        ``progress(fraction, text)``.
    generated : str, optional
        Timestamp shown.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import pandas as pd
    >>> from hlv_core.io import load
    >>> rows = ("i1,a,pos i1,b,pos i1,c,neg i2,a,neg i2,b,neg i2,c,neg "
    ...         "i3,a,pos i3,b,neg i3,c,neg i3,d,neg")
    >>> dataset = load(("item_id,annotator_id,label\n" + "\n".join(rows.split())).encode(),
    ...                name="toy.csv")
    >>> settings = ReportSettings(n_boot=50, sigma_repeats=2, certainty_samples=10)
    >>> page = build_report(dataset, settings=settings, generated="2026-01-01 00:00 UTC")
    >>> "<h1>Disagreement report</h1>" in page, "Krippendorff" in page
    (True, True)
    """
    sections = report_sections(dataset, predictions, settings=settings, progress=progress,
                               generated=generated)
    return render_report(dataset, sections)

