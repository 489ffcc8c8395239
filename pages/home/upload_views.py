"""The Overview's "Load your own data" panel: an annotations upload becomes a named dataset of
this session (listed in the sidebar as "Uploaded: <name>", the name editable here) and the
dataset in use; uploaded predictions are attached to the dataset in use.

Uploads live in this browser tab only (session state, never written to disk): a reload clears
them, and the panel says so, unless the user presses "Keep in the library" under the upload
(:mod:`hlv_ui.library_ui`): then it is stored in the dataset library and listed as "Library:
<name>"."""

from __future__ import annotations

import hashlib

import streamlit as st

from hlv_core.io import FORMATS, LEVELS, TASKS, DataError, route_companions
from hlv_core.io.errors import ImportReport
from hlv_core.text import md
from hlv_ui.library_ui import keep_upload, where_kept_note
from hlv_ui.loading import parse_predictions, parse_upload
from hlv_ui.state import (
    LIBRARY_PREFIX,
    SOURCE_KEY,
    add_predictions,
    add_upload,
    current_source,
    default_upload_name,
    ensure_dataset,
    get_dataset,
    rename_upload,
    renamed_note,
    show_data_error,
    upload_source,
    uploads,
    use_source,
)
from hlv_ui.widgets import KEPT

__all__ = ["MAX_UPLOAD_MB", "PREDICTION_REPORTS_KEY", "upload_panel"]

MAX_UPLOAD_MB = 200
MAX_NAME_CHARS = 80
PREDICTION_REPORTS_KEY = "hlv.prediction_reports"  # dataset content hash -> [ImportReport]
_ATTACHED_KEY = "home.predictions_attached"  # predictions digest -> {dataset content hash}

# workbooks are accepted by the uploader only to be answered "export as CSV" by the loader
_ANNOTATION_TYPES = ["csv", "tsv", "txt", "parquet", "zip", "json", "jsonl", "npy",
                     "xlsx", "xls", "xlsm", "ods"]
_PREDICTION_TYPES = ["csv", "tsv", "parquet", "xlsx", "xls", "xlsm", "ods"]


_SPREADSHEETS = (".xlsx", ".xls", ".xlsm", ".ods")


def companion_options(files) -> dict[str, bytes] | None:
    """Map companion uploads to loader options by file name; None (after showing the error)
    when one is a spreadsheet, which the loader cannot read: nothing is loaded without it."""
    for file in files:
        if file.name.lower().endswith(_SPREADSHEETS):
            show_data_error(DataError(
                "this companion file is a spreadsheet workbook, not a CSV table.",
                source=file.name, fix="open it in your spreadsheet program, export the sheet as "
                "CSV (File > Save as / Download > CSV) and upload the CSV file instead."))
            return None
    try:
        options, unnamed = route_companions((file.name, file.getvalue()) for file in files)
    except DataError as error:  # two files say what the same table is: neither wins
        show_data_error(error)
        return None
    for name in unnamed:
        st.warning(f"Ignored companion file '{md(name)}': its name does not say what it "
                   "is (annotators, items, labels, meta, conditions or risks).")
    return options


def upload_panel() -> None:
    """The expander with the format options and the annotations, companion and predictions
    uploaders."""
    with st.expander("Load your own data", expanded=False, icon=":material/upload_file:"):
        st.caption(
            "Canonical long CSV: `item_id, annotator_id, label` (one row per single label, "
            "optional `rank`); or a zip with annotations.csv + items.csv + annotators.csv + "
            "labels.csv; or any format below. Spreadsheets: export the sheet as CSV first."
        )
        st.caption(
            ":material/info: Uploads live in this browser tab: they stay selectable in the "
            "sidebar ('Uploaded: ...') while you switch datasets, and a reload of the page "
            "clears them (nothing is written to disk) unless you press **Keep in the "
            "library** under the upload. " + where_kept_note()
        )
        fmt_col, task_col, level_col = st.columns([3, 1, 1])
        fmt = fmt_col.selectbox("Format", list(FORMATS),
                                format_func=lambda k: f"{k}: {FORMATS[k]}", key="home.format",
                                persist_state=KEPT)
        task_choice = task_col.selectbox(
            "Task", ["auto", *TASKS], key="home.task", persist_state=KEPT,
            help="auto: ranking when there is a rank column, multi-label when many (item, "
            "annotator) cells hold several labels (a few such cells are reported as an error: "
            "choose multilabel here if they are meant), rating when every label is a number "
            "(more than two values), multiclass otherwise.")
        level_choice = level_col.selectbox(
            "Level of measurement", ["auto", *LEVELS], key="home.level", persist_state=KEPT,
            help="auto: ordinal for ratings, nominal otherwise. Interval/ratio need numeric "
            "labels.")
        upload = st.file_uploader(f"Annotations (max {MAX_UPLOAD_MB} MB)",
                                  type=_ANNOTATION_TYPES, key="home.upload")
        companions = st.file_uploader(
            "Companion files (optional): annotators.csv (traits), items.csv (texts, splits), "
            "labels.csv (label order), *_annotators_meta.json (LeWiDi 2025), conditions / "
            "risks .txt (selectors)",
            type=["csv", "tsv", "json", "txt", "xlsx", "xls", "xlsm", "ods"],
            accept_multiple_files=True,
            key="home.companions")
        options = companion_options(companions or []) if upload is not None else None
        if options is not None:
            if task_choice != "auto":
                options["task"] = task_choice
            if level_choice != "auto":
                options["level"] = level_choice
            _annotations_upload(upload, fmt, options)
        pred_upload = st.file_uploader(
            "Predictions (item_id, label, prob[, model]; or one column per label): added to "
            "the dataset in use", type=_PREDICTION_TYPES, key="home.predictions")
        if pred_upload is not None:
            _predictions_upload(pred_upload)


def _annotations_upload(upload, fmt: str, options: dict) -> None:
    """Parse, keep and select an annotations upload (once per content and options)."""
    raw = upload.getvalue()
    upload_id = hashlib.sha256(raw).hexdigest()[:16]  # same file, other options: same entry
    digest = hashlib.sha256(
        raw + fmt.encode() + b"".join(
            k.encode() + hashlib.sha256(v if isinstance(v, bytes) else str(v).encode()).digest()
            for k, v in sorted(options.items()))
    ).hexdigest()
    try:
        loaded = parse_upload(raw, upload.name, fmt, digest, **options)
    except DataError as error:
        show_data_error(error)
        return
    if st.session_state.get("home.loaded_digest") != digest:
        st.session_state["home.loaded_digest"] = digest
        kept = uploads().get(upload_id)
        name = kept[1].name if kept else default_upload_name(upload.name)
        add_upload(upload_id, loaded, len(raw), name)
        st.rerun()  # the sidebar, drawn before this page, now names the upload
    kept = uploads().get(upload_id)
    if kept is None:  # dropped to keep the session's memory bounded
        st.info(f"**{md(upload.name)}** is no longer kept in this session (too many or too "
                "large uploads); remove it and upload it again to use it.")
        return
    report = kept[1].report
    if report.ignored_options:  # a companion file the format does not read
        st.warning(f"{md(upload.name)}: options {md(str(report.ignored_options))} do not apply "
                   f"to {md(report.format)} and were ignored. The companion files that each "
                   "format reads are listed under the uploader.", icon=":material/warning:")
    source = upload_source(upload_id)
    in_use = get_dataset()
    name_col, state_col = st.columns([2, 3], vertical_alignment="bottom")
    name_col.text_input(
        "Name of this upload", value=kept[1].name, key=f"home.upload_name.{upload_id}",
        persist_state=KEPT,
        max_chars=MAX_NAME_CHARS,
        on_change=lambda: rename_upload(
            upload_id, st.session_state[f"home.upload_name.{upload_id}"]),
        help="Shown in the sidebar as 'Uploaded: <name>' and used in download file names.")
    if current_source() == source:
        state_col.success(f"Loaded **{md(upload.name)}** as **{md(kept[1].name)}** (in use): "
                          f"{kept[1].n_items:,} items, {len(kept[1].annotations):,} annotations.")
        keep_upload(kept[1], upload.name, key=f"home.keep.{upload_id}")
    elif in_use is not None and (current_source() or "").startswith(LIBRARY_PREFIX) and (
            in_use.content_hash == kept[1].content_hash):
        state_col.success(f"**{md(upload.name)}** is kept in the library as "
                          f"**{md(in_use.name)}** (in use; the sidebar lists it as 'Library: "
                          f"{md(in_use.name)}').", icon=":material/bookmark_added:")
    else:
        state_col.info(f"**{md(upload.name)}** is kept as 'Uploaded: {md(kept[1].name)}'; the "
                       "dataset in use is the one named in the sidebar.")
        state_col.button(f"Use {md(kept[1].name)}", key="home.use_upload",
                         on_click=_select, args=(source,))


def _select(source: str) -> None:
    """Button callback (runs before the sidebar is drawn): select ``source``."""
    use_source(source)
    st.session_state[SOURCE_KEY] = source


def _predictions_upload(pred_upload) -> None:
    """Validate uploaded predictions against the dataset in use and attach them to it. A file
    already attached to another dataset is not silently added to this one."""
    current = ensure_dataset()
    if current is None:
        return
    raw = pred_upload.getvalue()
    digest = hashlib.sha256(raw).hexdigest()
    attached = st.session_state.setdefault(_ATTACHED_KEY, {})
    owners = attached.setdefault(digest, set())
    if owners and current.content_hash not in owners:
        st.info(f"**{md(pred_upload.name)}** was added to another dataset of this session; it "
                f"stays with that dataset. Add it to **{md(current.name)}** too?")
        if not st.button("Add these predictions to the dataset in use", key="home.attach_preds"):
            return
    try:
        preds, report = parse_predictions(raw, pred_upload.name, current)
    except DataError as error:
        show_data_error(error)
        return
    renamed = add_predictions(preds)
    if current.content_hash not in owners:
        owners.add(current.content_hash)
        reports = st.session_state.setdefault(PREDICTION_REPORTS_KEY, {})
        reports.setdefault(current.content_hash, []).append(report)
    if renamed:
        st.warning(renamed_note(renamed))
    for note in report.notes:
        st.info(f"{md(pred_upload.name)}: {md(note)}", icon=":material/info:")
    st.success(f"Predictions of {preds['model'].nunique()} model(s) added to "
               f"**{md(current.name)}**.")


def prediction_reports(content_hash: str) -> list[ImportReport]:
    """Import reports of the prediction files added to the dataset with ``content_hash``."""
    return st.session_state.get(PREDICTION_REPORTS_KEY, {}).get(content_hash, [])
