"""Names where ids are asked, on chap-core 2.5.1: a dataset's name for ``dataset_id`` and a
template's name for ``model_template_id``, found in 2.5.1's own lists."""

from __future__ import annotations

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, NameResolutionError

from .peer_data import DATASET_NAME
from .peer_requests import upload_dataset


def test_a_dataset_is_read_by_its_name(peer_client: ChapClient, peer_dataset: Dataset) -> None:
    assert peer_client.get_dataset(DATASET_NAME).id == peer_dataset.id
    assert peer_client.dataset_csv(DATASET_NAME) == peer_client.dataset_csv(peer_dataset.id)
    with pytest.raises(NameResolutionError) as refused:
        peer_client.dataset_frame("chaplab peer test")
    # the closest name first; other tests' datasets ("chaplab peer tests, points") may follow
    assert str(refused.value).startswith(
        "dataset_id: no dataset named 'chaplab peer test'; did you mean 'chaplab peer tests'"
    )


def test_a_name_two_datasets_share_lists_both(
    peer_client: ChapClient, peer_http: httpx.Client, dataset_table: pd.DataFrame
) -> None:
    name = "chaplab peer tests, twin"
    twins = [upload_dataset(peer_client, peer_http, name, dataset_table) for _ in range(2)]
    try:
        created = {dataset.id: dataset.created for dataset in peer_client.list_datasets()}
        shown = [
            f"id {twin.id}"
            if created[twin.id] is None
            else f"id {twin.id}, created {created[twin.id]:%Y-%m-%d %H:%M}"
            for twin in sorted(twins, key=lambda twin: twin.id)
        ]
        with pytest.raises(NameResolutionError) as refused:
            peer_client.get_dataset(name)
        assert str(refused.value) == (
            f"dataset_id: 2 datasets are named {name!r} ({'; '.join(shown)}); "
            "pass the id of the one you mean"
        )
        assert refused.value.ids == sorted(twin.id for twin in twins)
    finally:
        for twin in twins:
            peer_client.delete_dataset(twin.id)


def test_a_template_is_named_when_configuring_a_model(peer_client: ChapClient) -> None:
    template = next(t for t in peer_client.list_model_templates() if t.name == "global_median")
    configuration = peer_client.create_configured_model(
        "chaplab-peer-tests-by-name", "global_median", {}
    )
    try:
        assert configuration.model_template_id == template.id
    finally:
        peer_client.delete_configured_model(configuration.id)
    with pytest.raises(NameResolutionError, match="did you mean 'global_median'"):
        peer_client.create_configured_model("chaplab-peer-tests-by-name", "global_medain", {})
