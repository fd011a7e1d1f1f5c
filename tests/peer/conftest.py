"""Fixtures for the tests against a real chap-core (the peer) at ``CHAP_URL``.

``make test-peer`` starts a chap-core on loopback with an empty database and sets ``CHAP_URL``;
these tests fail, never skip, when it is not there. They upload their own small dataset (two org
units, four years of monthly cases and climate), and use the models chap-core runs offline:
``naive_model``, the baselines ``seasonal_median``, ``global_median`` and ``persistence``, and a
configuration of ``seasonal_median``. Fixtures find what an earlier run left on a long-lived peer
before creating it again.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, Evaluation, ModelSpec
from chaplab.widgets import ChapPanel
from panels import loaded_panel

from .model_service import registered_model_service
from .peer_data import CONFIGURATION_NAME, DATASET_NAME, observation_table
from .peer_requests import make_prediction, upload_dataset


@pytest.fixture(scope="session")
def peer_url() -> str:
    """``CHAP_URL``, checked to answer ``/health``."""
    url = os.environ.get("CHAP_URL", "").rstrip("/")
    if not url:
        pytest.fail("CHAP_URL is not set: run these tests with `make test-peer`", pytrace=False)
    try:
        httpx.get(f"{url}/health", timeout=10).raise_for_status()
    except httpx.HTTPError as error:
        pytest.fail(
            f"the chap-core at CHAP_URL={url} does not answer /health: {error}", pytrace=False
        )
    return url


@pytest.fixture(scope="session")
def peer_client(peer_url: str) -> Iterator[ChapClient]:
    """A ``ChapClient`` of the peer."""
    with ChapClient(peer_url) as client:
        yield client


@pytest.fixture(scope="session")
def peer_http(peer_url: str) -> Iterator[httpx.Client]:
    """Plain HTTP to the peer, for requests the client does not make yet."""
    with httpx.Client(base_url=peer_url, timeout=60) as http:
        yield http


@pytest.fixture(scope="session")
def dataset_table() -> pd.DataFrame:
    """The observations of the uploaded dataset (see ``observation_table``)."""
    return observation_table()


@pytest.fixture(scope="session")
def peer_dataset(
    peer_client: ChapClient, peer_http: httpx.Client, dataset_table: pd.DataFrame
) -> Dataset:
    """The tests' dataset on the peer, uploaded when absent."""
    for dataset in peer_client.list_datasets():
        if dataset.name == DATASET_NAME:
            return dataset
    return upload_dataset(peer_client, peer_http, DATASET_NAME, dataset_table)


@pytest.fixture(scope="session")
def naive_prediction_job(
    peer_client: ChapClient, peer_http: httpx.Client, dataset_table: pd.DataFrame
) -> str:
    """The finished job of a forward prediction of ``naive_model``, three months after the data."""
    return make_prediction(
        peer_client, peer_http, "peer naive forecast", "naive_model", dataset_table, n_periods=3
    )


@pytest.fixture(scope="session")
def models_by_name(peer_client: ChapClient) -> dict[str, ModelSpec]:
    """The peer's configured models at the start of the session, by name."""
    return {model.name: model for model in peer_client.list_configured_models()}


@pytest.fixture(scope="session")
def naive_model(models_by_name: dict[str, ModelSpec]) -> ModelSpec:
    """The configured model ``naive_model`` (it needs rainfall and mean_temperature)."""
    return models_by_name["naive_model"]


@pytest.fixture(scope="session")
def seasonal_median_configuration(peer_client: ChapClient) -> ModelSpec:
    """A configuration of the ``seasonal_median`` template, created when absent. chap-core 2.5.1
    prefixes a configuration's name with its template's (``seasonal_median:<name>``)."""
    wanted = {CONFIGURATION_NAME, f"seasonal_median:{CONFIGURATION_NAME}"}
    for model in peer_client.list_configured_models():
        if model.name in wanted and not model.archived:
            return model
    template = next(t for t in peer_client.list_model_templates() if t.name == "seasonal_median")
    return peer_client.create_configured_model(CONFIGURATION_NAME, template.id, {})


@pytest.fixture(scope="session")
def naive_evaluation(
    peer_client: ChapClient, naive_model: ModelSpec, peer_dataset: Dataset
) -> Evaluation:
    """A finished evaluation (backtest) of ``naive_model``: two splits of three months."""
    return peer_client.run_evaluation(
        "peer naive", naive_model.name, peer_dataset.id, n_periods=3, n_splits=2
    )


@pytest.fixture(scope="session")
def configuration_evaluation(
    peer_client: ChapClient, seasonal_median_configuration: ModelSpec, peer_dataset: Dataset
) -> Evaluation:
    """A finished evaluation of the ``seasonal_median`` configuration, shaped like
    ``naive_evaluation``."""
    return peer_client.run_evaluation(
        "peer seasonal median",
        seasonal_median_configuration,
        peer_dataset.id,
        n_periods=3,
        n_splits=2,
    )


@pytest.fixture(scope="session")
def model_service(
    peer_client: ChapClient, peer_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The runner id of a chapkit model service registered with the peer (see
    ``model_service.py``), running until the session ends."""
    log = tmp_path_factory.mktemp("model-service") / "chapkit.log"
    with registered_model_service(peer_client, peer_url, log) as service_id:
        yield service_id


@pytest.fixture
async def panel(peer_url: str, peer_dataset: Dataset) -> AsyncIterator[ChapPanel]:
    """A loaded panel on the peer, which holds the tests' dataset by then."""
    async with loaded_panel(peer_url) as chap_panel:
        yield chap_panel


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The check that every client method was called (``test_every_method_was_called``) runs
    after the tests that call them, whatever order pytest-randomly gives the others."""
    last = [item for item in items if item.name == "test_every_method_was_called"]
    items[:] = [item for item in items if item not in last] + last
