"""chaplab.datasets' weekly dengue on chap-core 2.5.1: stored with every week, the weeks without
a case as 0, and the places' names, from slices of the real tables
(``tests/dengue_slices.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chaplab import ChapClient
from chaplab.client import Dataset
from chaplab.datasets import upload_dengue_peru, upload_dengue_taiwan
from chaplab.frames import org_unit_names
from dengue_slices import slice_cache


def stored_cases(client: ChapClient, dataset: Dataset, org_unit: str) -> dict[str, float]:
    stored = client.get_dataset(dataset.id)
    return {
        o.period: o.value
        for o in stored.observations or []
        if o.feature_name == "disease_cases" and o.org_unit == org_unit and o.value is not None
    }


@pytest.fixture
def uploaded(peer_client: ChapClient, tmp_path: Path) -> Iterator[Callable[..., Dataset]]:
    """Uploads with the slices as the wheel's tables, deleted after the test."""
    datasets: list[Dataset] = []

    def upload(function: Callable[..., Dataset], *selection: object) -> Dataset:
        name = f"chaplab peer tests, {function.__name__}"
        dataset = function(peer_client, *selection, name=name, cache=slice_cache(tmp_path))
        datasets.append(dataset)
        return dataset

    yield upload
    for dataset in datasets:
        peer_client.delete_dataset(dataset.id)


def test_peru_is_stored_by_iso_week_with_its_zeros_and_names(
    peer_client: ChapClient, uploaded: Callable[..., Dataset]
) -> None:
    dataset = uploaded(upload_dengue_peru, "Tumbes")
    assert sorted(dataset.org_units) == ["tumbes.tumbes.tumbes", "tumbes.zarumilla.zarumilla"]
    assert org_unit_names(peer_client.get_dataset(dataset.id).geojson) == {
        "tumbes.tumbes.tumbes": "Tumbes",
        "tumbes.zarumilla.zarumilla": "Zarumilla",
    }
    cases = stored_cases(peer_client, dataset, "tumbes.tumbes.tumbes")
    assert len(cases) == 209  # 2019W01..2022W52, 0 where no case
    assert {week: n for week, n in cases.items() if n} == {
        "2019W01": 1,
        "2019W10": 2,
        "2020W53": 1,
        "2022W52": 1,
    }


def test_taiwan_is_stored_by_iso_week_of_onset(
    peer_client: ChapClient, uploaded: Callable[..., Dataset]
) -> None:
    dataset = uploaded(upload_dengue_taiwan, None)
    assert len(dataset.org_units) == 5
    assert org_unit_names(peer_client.get_dataset(dataset.id).geojson)["67"] == "Tainan City"
    tainan = stored_cases(peer_client, dataset, "67")
    assert len(tainan) == 1392  # 1998W02..2024W36
    assert {week: n for week, n in tainan.items() if n} == {
        "2015W36": 1,
        "2015W37": 1,
        "2015W53": 1,
        "2024W36": 1,
    }
