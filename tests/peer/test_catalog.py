"""The lists a user browses on a chap-core server: datasets, model templates, configured models
and data sources, and a model configured from a template."""

from __future__ import annotations

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, ModelSpec, NotFoundError
from chaplab.frames import format_period

from .peer_data import DATASET_NAME, OFFLINE_MODELS, ORG_UNITS, monthly_periods
from .peer_requests import upload_dataset


def test_the_uploaded_dataset_is_listed_with_its_org_units_periods_and_covariates(
    peer_client: ChapClient, peer_dataset: Dataset
) -> None:
    listed = {dataset.id: dataset for dataset in peer_client.list_datasets()}
    dataset = listed[peer_dataset.id]
    assert dataset.name == DATASET_NAME
    assert sorted(dataset.org_units) == sorted(ORG_UNITS)
    assert (dataset.first_period, dataset.last_period) == (
        monthly_periods()[0],
        monthly_periods()[-1],
    )
    assert dataset.period_type == "month"
    assert {"disease_cases", "rainfall", "mean_temperature"} <= set(dataset.covariates)
    assert peer_client.get_dataset(peer_dataset.id).name == DATASET_NAME


def test_the_dataset_comes_back_with_the_uploaded_case_counts(
    peer_client: ChapClient, peer_dataset: Dataset, dataset_table: pd.DataFrame
) -> None:
    stored = peer_client.dataset_frame(peer_dataset.id)
    stored_cases = {
        (row.location, format_period(row.time_period)): row.disease_cases
        for row in stored.itertuples(index=False)
    }
    uploaded_cases = {
        (row.org_unit, row.period): row.disease_cases
        for row in dataset_table.itertuples(index=False)
    }
    assert stored_cases == uploaded_cases
    csv_header = peer_client.dataset_csv(peer_dataset.id).splitlines()[0].split(",")
    assert {"time_period", "location", "disease_cases"} <= set(csv_header)


def test_model_templates_say_which_covariates_naive_model_needs(peer_client: ChapClient) -> None:
    templates = {template.name: template for template in peer_client.list_model_templates()}
    assert set(OFFLINE_MODELS) <= set(templates)
    assert set(templates["naive_model"].required_covariates) == {"rainfall", "mean_temperature"}
    assert templates["seasonal_median"].required_covariates == []


def test_the_models_chap_core_runs_offline_are_configured(peer_client: ChapClient) -> None:
    configured = {model.name: model for model in peer_client.list_configured_models()}
    assert set(OFFLINE_MODELS) <= set(configured)
    naive = peer_client.get_configured_model(configured["naive_model"].id)
    assert naive.name == "naive_model"
    assert {model.name for model in peer_client.list_models()} >= set(OFFLINE_MODELS)


def test_a_seasonal_median_configuration_is_listed_and_found_by_id(
    peer_client: ChapClient, seasonal_median_configuration: ModelSpec
) -> None:
    assert seasonal_median_configuration.name.endswith("chaplab-peer-tests")
    listed = {model.id: model for model in peer_client.list_configured_models()}
    assert listed[seasonal_median_configuration.id].name == seasonal_median_configuration.name
    fetched = peer_client.get_configured_model(seasonal_median_configuration.id)
    assert fetched.name == seasonal_median_configuration.name


def test_data_sources_name_the_features_they_supply(peer_client: ChapClient) -> None:
    sources = peer_client.list_data_sources()
    assert sources
    assert all(source.name for source in sources)
    assert "mean_2m_air_temperature" in {source.name for source in sources}


def test_a_deleted_dataset_is_gone(
    peer_client: ChapClient, peer_http: httpx.Client, dataset_table: pd.DataFrame
) -> None:
    dataset = upload_dataset(peer_client, peer_http, "chaplab peer tests, to delete", dataset_table)
    peer_client.delete_dataset(dataset.id)
    assert dataset.id not in {listed.id for listed in peer_client.list_datasets()}
    with pytest.raises(NotFoundError):
        peer_client.get_dataset(dataset.id)


def test_a_deleted_configuration_is_archived(peer_client: ChapClient) -> None:
    """chap-core keeps a deleted configured model, archived (evaluations may refer to it)."""
    template = next(t for t in peer_client.list_model_templates() if t.name == "global_median")
    configuration = peer_client.create_configured_model(
        "chaplab-peer-tests-deleted", template.id, {}
    )
    assert configuration.archived is False
    peer_client.delete_configured_model(configuration.id)
    assert peer_client.get_configured_model(configuration.id).archived is True
