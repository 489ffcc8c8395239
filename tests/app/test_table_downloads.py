"""Every table a page shows comes with a CSV download (Streamlit 1.67 download_button; the
bytes themselves are tested in layer 1 through ``hlv_ui.widgets.csv_bytes``). These are the
tables that had none: alpha's value shares (Krippendorff 2011, section 3), the PERSEVAL split
sizes (Lo, Casola et al., section 3.2), the certainty case view (Stutz et al., Figure 5), the
annotators the human ceiling leaves unscored (Kurniawan et al. metrics), an annotator's pairs,
a label's verdicts (Weber-Genzel et al., section 5) and an uploaded predictions file's
report."""

from __future__ import annotations

import pytest

from hlv_core.samples import load_sample

from .conftest import open_page


def _download_keys(at) -> set[str]:
    return {str(d.key) for d in at.download_button}


def test_alpha_value_shares_table_has_a_download(app):
    at = open_page(app, "agreement", "case_review")
    assert "agreement.dl_shares" in _download_keys(at)


def test_perseval_split_sizes_table_has_a_download(app):
    at = open_page(app, "perspectives", "case_review")
    assert "perspectives.dl_sizes" in _download_keys(at)


@pytest.mark.parametrize("sample", ["case_review", "dermatology"])
def test_certainty_case_view_tables_have_downloads(app, sample):
    at = open_page(app, "certainty", sample)
    at.session_state["certainty.tab"] = "Case view"
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    keys = _download_keys(at)
    assert "certainty.dl_case_given" in keys
    if sample == "case_review":  # the sample ships model predictions: the coverage table
        assert "certainty.dl_case_coverage" in keys


def test_unscored_annotators_of_the_human_ceiling_have_a_download(app):
    ann = load_sample("case_review").annotations
    few = ann["annotator_id"].iloc[0]
    keep = (ann["annotator_id"] != few) | ann["item_id"].isin(ann["item_id"].unique()[:5])
    raw = ann[keep][["item_id", "annotator_id", "label"]].to_csv(index=False).encode()
    app.file_uploader(key="home.upload").set_value(("few.csv", raw, "text/csv")).run()
    assert not app.exception, [e.value for e in app.exception]
    at = open_page(app, "soft_metrics")
    at.session_state["soft_metrics.tab"] = "Against the human pool"
    at.session_state["soft_metrics.ceil_boot"] = 0
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "soft_metrics.dl.ceiling_unscored" in _download_keys(at)


def test_an_annotators_pairs_table_has_a_download(app):
    app.query_params.update({"annotator": "lawyer_01"})
    at = open_page(app, "explorer", "case_review")
    assert "explorer.dl_pairs" in _download_keys(at)


def test_predictions_report_has_a_download(app):
    dataset = load_sample("case_review")
    rows = ["item_id,label,prob,model"]
    for item in dataset.item_ids[:20]:
        rows += [f"{item},liable,0.5,m", f"{item},not_liable,0.3,m", f"{item},unclear,0.2,m"]
    app.file_uploader(key="home.predictions").set_value(
        ("p.csv", "\n".join(rows).encode(), "text/csv")).run()
    assert not app.exception, [e.value for e in app.exception]
    assert "home.dl.pred_report.0" in _download_keys(app)


def test_verdicts_on_a_label_have_a_download(app, tmp_path, monkeypatch):
    monkeypatch.setenv("HLV_VERDICT_DB", str(tmp_path / "verdicts.sqlite3"))
    at = open_page(app, "errors", "case_review")
    at.text_input(key="errors.desk_name").set_value("Rita")
    [b for b in at.button if "Start" in str(b.label)][0].click().run()
    [b for b in at.button if "Save verdict" in str(b.label)][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "errors.dl_verdicts" in _download_keys(at)


def test_training_methods_table_has_a_download(app):
    """The table of what each training method trains on (Kurniawan et al., section 4)."""
    at = open_page(app, "training_lab", "case_review")
    assert "lab.dl_methods" in _download_keys(at)


def test_item_drilldown_tables_have_downloads(app):
    """The item's annotations and every method's targets (Kurniawan et al., section 4)."""
    at = open_page(app, "soft_metrics", "case_review")
    at.session_state["soft_metrics.tab"] = "Items"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    keys = _download_keys(at)
    assert {"soft_metrics.item_dl_annotations", "soft_metrics.item_dl_targets"} <= keys, keys


def test_certainty_model_ranks_table_has_a_download(app):
    """Rank of each model per reliability (Stutz et al., Figure 6)."""
    at = open_page(app, "certainty", "case_review")
    at.session_state["certainty.tab"] = "Model accuracy"
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.dataframe) >= 1
    assert "certainty.dl_ranks" in _download_keys(at)


def test_glossary_name_tables_have_downloads(app):
    at = open_page(app, "glossary")
    assert {"glossary.dl_metrics", "glossary.dl_methods"} <= _download_keys(at)
