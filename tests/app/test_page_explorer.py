"""Items and annotators page (AppTest): the landing tables, deep links ``?item=`` /
``?annotator=`` (``&with=``), the shareable link, unknown ids, data without annotator ids."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from hlv_core import annotators
from hlv_core.samples import load_sample

from .conftest import open_page


def _deep_link(at: AppTest, sample: str | None = None, **params: str) -> AppTest:
    at.query_params.clear()
    at.query_params.update(params)
    return open_page(at, "explorer", sample)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_landing_lists_items_with_per_item_agreement(app):
    at = open_page(app, "explorer")
    table = at.dataframe[0].value
    data = load_sample("case_review")
    assert len(table) == data.n_items
    expected = annotators.item_agreement(data)
    got = table.set_index("item_id")["pair_agreement"]
    assert got.to_dict() == pytest.approx(expected.to_dict())
    at.text_input(key="explorer.item_query").set_value("case_01").run()
    assert set(at.dataframe[0].value["item_id"]) == {f"case_01{i}" for i in range(10)}


def test_annotator_table_search_and_trait_filter(app):
    at = open_page(app, "explorer")
    at.session_state["explorer.tab"] = "Annotators"
    at.run()
    table = at.dataframe[0].value
    assert {"majority_agreement", "mean_alpha", "n_pairs_defined", "camp"} <= set(table.columns)
    assert len(table) == 12
    at.text_input(key="explorer.ann_query").set_value("_1").run()
    assert set(at.dataframe[0].value["annotator_id"]) == {"lawyer_10", "lawyer_11", "lawyer_12"}
    at.text_input(key="explorer.ann_query").set_value("").run()
    at.selectbox(key="explorer.trait").set_value("group").run()
    at.multiselect(key="explorer.trait_values").set_value(["claimant-side"]).run()
    assert set(at.dataframe[0].value["group"]) == {"claimant-side"}


def test_item_deep_link_shows_every_annotation(app):
    data = load_sample("case_review")
    item = data.item_table()["item_id"].iloc[0]  # the most contested item
    at = _deep_link(app, item=item)
    view = annotators.item_view(data, item)
    metrics = _metrics(at)
    assert metrics["Annotators"] == str(view.n_annotators)
    assert metrics["Majority label"] == view.majority
    assert metrics["Pair agreement"] == f"{view.agreement:.3f}"
    table = at.dataframe[0].value
    assert sorted(table["annotator_id"]) == sorted(data.item_annotations(item)["annotator_id"])
    assert {"answer", "agrees with majority", "group"} <= set(table.columns)
    assert any(view.text[:30] in m.value for m in at.markdown)
    assert at.code[0].value.endswith(f"/explorer?item={item}&dataset=case_review")
    # the soft label is drawn on a categorical axis
    spec = at.get("plotly_chart")[0].proto.spec
    assert '"type":"category"' in spec.replace(" ", "")
    at.button(key="explorer.item_back").click().run()
    assert dict(at.query_params) == {}
    assert len(at.dataframe[0].value) == data.n_items


def test_annotator_deep_link_shows_the_profile(app):
    data = load_sample("case_review")
    at = _deep_link(app, annotator="lawyer_01")
    profile = annotators.annotator_profile(
        data, "lawyer_01", pairs=annotators.annotator_pairs(data),
        camps=annotators.annotator_camps(data))
    metrics = _metrics(at)
    assert metrics["Items labelled"] == str(profile.n_items)
    assert metrics["Agrees with the majority"] == f"{profile.majority_agreement:.0%}"
    assert metrics["Mean pairwise α"] == f"{profile.mean_alpha:.3f}"
    assert metrics["Camp"] == f"camp {profile.camp}"
    captions = " ".join(c.value for c in at.caption)
    assert (f"from {profile.n_pairs_defined} pairs sharing {profile.n_shared_total:,} items"
            in captions)
    assert "group: claimant-side" in " ".join(m.value for m in at.markdown)
    # the items where they differ from the majority, then the pair with the most shared items
    assert len(at.dataframe[0].value) == profile.n_compared - profile.n_agree
    assert at.selectbox[0].value == profile.pairs["other"].iloc[0]
    # the link names the pair shown
    assert at.code[0].value.endswith(
        f"annotator=lawyer_01&with={profile.pairs['other'].iloc[0]}&dataset=case_review")


def test_pair_deep_link(app):
    from hlv_core.agreement import pair_disagreements

    data = load_sample("case_review")
    at = _deep_link(app, annotator="lawyer_01", **{"with": "lawyer_09"})
    n = len(pair_disagreements(data.annotations, "lawyer_01", "lawyer_09"))
    text = " ".join(m.value for m in at.markdown)
    assert f"they disagree on {n} items" in text
    assert "**lawyer\\_09**" in text or "**lawyer_09**" in text
    assert at.code[0].value.endswith("annotator=lawyer_01&with=lawyer_09&dataset=case_review")
    other = next(s for s in at.selectbox if s.label.startswith("Other annotator"))
    other.set_value("lawyer_02").run()
    assert at.query_params["with"] == "lawyer_02"


def test_unknown_ids_are_named_escaped(app):
    at = _deep_link(app, annotator="<b>nobody</b>", dataset="some_other_data")
    warning = at.warning[0].value
    assert "\\<b\\>nobody\\</b\\>" in warning and "**some_other_data**" in warning
    at = _deep_link(app, item="*no-such-item*")
    assert "\\*no-such-item\\*" in at.warning[0].value


def test_multilabel_profile_and_item(app):
    at = _deep_link(app, "legal_areas", annotator="lawyer_A")
    assert not at.exception
    assert _metrics(at)["Items labelled"] == "141"
    item = load_sample("legal_areas").item_ids[0]
    at = _deep_link(app, item=item)
    assert _metrics(at)["Annotators"] == "6"


def test_data_without_annotator_ids(app):
    at = _deep_link(app, "dermatology", item="1700")
    assert _metrics(at)["Annotators"] == "10"
    assert " > " in " ".join(at.dataframe[0].value["answer"])
    at = _deep_link(app, annotator="0#r1")
    assert "no annotator identities" in at.warning[0].value


def test_real_data_md_agreement(app, data_dir):
    """MD-Agreement (10,753 items, 819 annotators): both tables, a profile and an item."""
    raw = (data_dir / "md_agreement" / "annotations.csv").read_bytes()
    app.file_uploader(key="home.upload").set_value(("md.csv", raw, "text/csv")).run()
    assert not app.exception
    at = open_page(app, "explorer")
    assert len(at.dataframe[0].value) == 10753
    at.session_state["explorer.tab"] = "Annotators"
    at.run()
    table = at.dataframe[0].value
    assert len(table) == 819 and table["camp"].isin([-1, 0, 1]).all()
    who = table.sort_values("n_items")["annotator_id"].iloc[-1]
    at = _deep_link(at, annotator=who)
    assert _metrics(at)["Items labelled"] == f"{table.set_index('annotator_id').loc[who, 'n_items']:,}"
    item = at.dataframe[0].value["item_id"].iloc[0]
    at = _deep_link(at, item=item)
    assert _metrics(at)["Annotators"] == "5"


@pytest.mark.parametrize("name", ["hs_brexit", "varierrnli", "paraphrase", "cifar10h"])
def test_real_uploads_open_items_and_annotators(app, name):
    """Real data of every kind (multiclass with traits, multi-label, rating, counts only): the
    landing tables, the most contested item and the most active annotator open."""
    from .test_pages_on_real_data import _zip_of

    app.file_uploader(key="home.upload").set_value((f"{name}.zip", _zip_of(name),
                                                    "application/zip")).run()
    assert not app.exception
    data = app.session_state["hlv.dataset"]
    at = open_page(app, "explorer")
    item = at.dataframe[0].value["item_id"].iloc[0]
    at.session_state["explorer.tab"] = "Annotators"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at = _deep_link(at, item=str(item))
    assert _metrics(at)["Annotators"] == str(annotators.item_view(data, item).n_annotators)
    if data.annotator_ids_known:
        who = data.annotations["annotator_id"].value_counts().index[0]
        at = _deep_link(at, annotator=str(who))
        mine = data.annotations.loc[data.annotations["annotator_id"] == who, "item_id"]
        assert _metrics(at)["Items labelled"] == f"{mine.nunique():,}"
    assert not at.exception, [e.value for e in at.exception]


def test_majority_label_metric_is_escaped(app):
    """st.metric values render markdown: a label from the data is shown as typed."""
    raw = (b"item_id,annotator_id,label\ni1,a,**x**\ni1,b,**x**\ni1,c,y\n"
           b"i2,a,y\ni2,b,**x**\ni2,c,y\n")
    app.file_uploader(key="home.upload").set_value(("m.csv", raw, "text/csv")).run()
    assert not app.exception, [e.value for e in app.exception]
    at = _deep_link(app, item="i1")
    majority = next(m for m in at.metric if m.label == "Majority label")
    assert majority.value == "\\*\\*x\\*\\*", majority.value
