"""A large dataset registered in the server's secrets, in a real browser: picked in the
sidebar, its Overview computed on a local Dask cluster (progress, then the numbers of the
in-memory engine), and another page saying it needs the rows in memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from hlv_core.io import load

from .conftest import running_app, wait_for_app

TITLE = "Cluster: Big crowd"


@pytest.fixture(scope="module")
def cluster_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(4)
    item = np.repeat(np.arange(300), 4)
    frame = pd.DataFrame({"item_id": [f"it{i}" for i in item],
                          "annotator_id": [f"an{a}" for a in rng.integers(0, 40, len(item))],
                          "label": rng.choice(["yes", "no", "maybe"], len(item))})
    frame = frame.drop_duplicates(["item_id", "annotator_id"]).sample(frac=1.0, random_state=4)
    for j, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(folder / f"part-{j}.parquet", index=False)
    frame.to_csv(folder.parent / "whole.csv", index=False)
    secrets = folder.parent / "secrets.toml"
    secrets.write_text("[hlv_lens.large_datasets.big]\n"
                       f'path = "{folder}"\nscheduler = "local"\ntitle = "Big crowd"\n')
    with running_app({}, "cluster_server.log", (f"--secrets.files={secrets}",)) as url:
        yield url, load(folder.parent / "whole.csv").summary()


def test_a_cluster_dataset_overview_in_the_browser(page: Page, cluster_server, artifacts):
    url, expected = cluster_server
    page.goto(url)
    wait_for_app(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=TITLE, exact=True).click()
    main = page.get_by_test_id("stMain")
    compute = main.get_by_role("button", name="Compute the overview on the cluster")
    expect(compute).to_be_visible()
    wait_for_app(page)  # the pick's run drew the button: let it finish first
    compute.click()
    items = main.get_by_test_id("stMetric").filter(has_text="Items")
    expect(items.get_by_test_id("stMetricValue")).to_have_text(f"{expected['n_items']:,}")
    expect(main.get_by_text(expected["content_hash"], exact=False)).to_be_visible()
    expect(sidebar.get_by_text("In use: Big crowd", exact=False)).to_be_visible()
    wait_for_app(page)
    page.screenshot(path=str(artifacts / "cluster_overview.png"), full_page=True)
    page.get_by_test_id("stSidebarNavLink").get_by_text("Items and annotators",
                                                         exact=True).click()
    expect(main.get_by_text("needs the whole annotation table", exact=False)).to_be_visible()
