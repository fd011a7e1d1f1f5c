"""Spec section 2: the resources and their fields, checked on the wire and through the client."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from chaplab import ChapClient

from .helpers import job_record, square_feature_collection, wait_until_terminal

METRIC_FAMILIES = ("crps", "mae", "rmse", "coverage_", "winkler_score_")


@pytest.fixture(scope="module")
def client(base_url: str) -> Any:
    with ChapClient(base_url) as chap:
        yield chap


@pytest.fixture(scope="module")
def templates(http: httpx.Client) -> list[dict[str, Any]]:
    return http.get("/v1/crud/model-templates").json()


@pytest.fixture(scope="module")
def prediction_job(http: httpx.Client, finished_evaluation: dict[str, Any]) -> dict[str, Any]:
    """A prediction job run by this module, forward from the evaluation's model with data."""
    with_data = http.post(
        f"/v1/crud/configured-models-with-data-source/from-backtest/{finished_evaluation['id']}"
    )
    assert with_data.status_code < 300, with_data.text
    dataset = http.get(f"/v1/crud/datasets/{finished_evaluation['datasetId']}").json()
    observations = dataset["observations"]
    org_units = sorted({observation["orgUnit"] for observation in observations})
    created = http.post(
        "/v1/analytics/make-prediction-with-data-source",
        json={
            "name": "acceptance prediction",
            "geojson": square_feature_collection(org_units),
            "providedData": observations,
            "dataSources": [],
            "configuredModelWithDataSourceId": with_data.json()["id"],
            "nPeriods": 2,
        },
    )
    assert created.status_code < 300, created.text
    job_id = created.json()["id"]
    assert wait_until_terminal(http, job_id) == "SUCCESS", job_record(http, job_id)
    return job_record(http, job_id)


# --- configured models and model specs ---------------------------------------------------


def test_configured_model_create_prefixes_the_template_name(
    http: httpx.Client, templates: list[dict[str, Any]], unique: str
) -> None:
    template = templates[0]
    supplied = f"acc{unique}"
    response = http.post(
        "/v1/crud/configured-models", json={"name": supplied, "modelTemplateId": template["id"]}
    )
    assert response.status_code < 300, response.text
    stored = response.json()["name"]
    assert stored == f"{template['name']}:{supplied}"
    assert stored != supplied
    listed = [m["name"] for m in http.get("/v1/crud/configured-models").json()]
    assert stored in listed and supplied not in listed


def test_configured_model_create_answers_id_name_and_template_id(
    http: httpx.Client, templates: list[dict[str, Any]], unique: str
) -> None:
    template = templates[-1]
    response = http.post(
        "/v1/crud/configured-models",
        json={"name": f"ids{unique}", "modelTemplateId": template["id"]},
    )
    body = response.json()
    assert isinstance(body["id"], int)
    assert body["modelTemplateId"] == template["id"]
    assert body["name"].endswith(f":ids{unique}")


def test_client_create_configured_model_returns_the_prefixed_name(
    client: Any, templates: list[dict[str, Any]], unique: str
) -> None:
    template = templates[0]
    model = client.create_configured_model(f"cli{unique}", template["id"])
    assert model.name == f"{template['name']}:cli{unique}"
    assert model.model_template_id == template["id"]
    assert isinstance(model.id, int)


def test_model_list_ids_are_not_valid_model_template_ids(
    http: httpx.Client, templates: list[dict[str, Any]], unique: str
) -> None:
    template_ids = {t["id"] for t in templates}
    model_ids = [m["id"] for m in http.get("/v1/crud/models").json()]
    assert model_ids
    assert not template_ids & set(model_ids)
    response = http.post(
        "/v1/crud/configured-models", json={"name": f"bad{unique}", "modelTemplateId": model_ids[0]}
    )
    assert response.status_code == 404, response.text


def test_models_and_configured_models_agree_on_a_fresh_instance(start_service: Any) -> None:
    fresh = start_service()
    models = httpx.get(f"{fresh}/v1/crud/models").json()
    configured = httpx.get(f"{fresh}/v1/crud/configured-models").json()
    assert models
    assert models == configured


def test_model_spec_fields(
    client: Any, http: httpx.Client, templates: list[dict[str, Any]]
) -> None:
    template_ids = {t["id"] for t in templates}
    for raw in http.get("/v1/crud/configured-models").json():
        assert isinstance(raw["id"], int)
        assert isinstance(raw["name"], str)
        assert raw["modelTemplateId"] in template_ids
    for spec in client.list_models() + client.list_configured_models():
        assert isinstance(spec.id, int)
        assert isinstance(spec.name, str)
        assert spec.model_template_id in template_ids


# --- datasets --------------------------------------------------------------------------


def test_dataset_fields_on_the_wire(http: httpx.Client) -> None:
    datasets = http.get("/v1/crud/datasets").json()
    assert {d["type"] for d in datasets} <= {"evaluation", "prediction"}
    for dataset in datasets:
        assert isinstance(dataset["id"], int)
        assert isinstance(dataset["firstPeriod"], str)
        assert isinstance(dataset["lastPeriod"], str)
        assert dataset["firstPeriod"] <= dataset["lastPeriod"]
        assert isinstance(dataset["orgUnits"], list) and dataset["orgUnits"]


def test_dataset_fields_through_the_client(client: Any, http: httpx.Client) -> None:
    raw = http.get("/v1/crud/datasets").json()
    datasets = client.list_datasets()
    assert [d.id for d in datasets] == [d["id"] for d in raw]
    for dataset, wire in zip(datasets, raw, strict=True):
        assert dataset.type == wire["type"]
        assert dataset.first_period == wire["firstPeriod"]
        assert dataset.last_period == wire["lastPeriod"]
        assert list(dataset.org_units) == wire["orgUnits"]
    one = client.get_dataset(raw[0]["id"])
    assert one.id == raw[0]["id"] and one.type in ("evaluation", "prediction")


# --- evaluations --------------------------------------------------------------------------


def test_evaluation_fields_and_aggregate_metric_names(finished_evaluation: dict[str, Any]) -> None:
    assert isinstance(finished_evaluation["id"], int)
    assert finished_evaluation["name"] == "acceptance shared"
    metrics = finished_evaluation["aggregateMetrics"]
    for family in METRIC_FAMILIES:
        matching = [name for name in metrics if name == family or name.startswith(family)]
        assert matching, f"no aggregate metric named like {family!r} in {sorted(metrics)}"
    assert all(isinstance(value, int | float) for value in metrics.values())


def test_evaluation_fields_through_the_client(
    client: Any, finished_evaluation: dict[str, Any]
) -> None:
    evaluation = client.get_evaluation(finished_evaluation["id"])
    assert evaluation.id == finished_evaluation["id"]
    assert evaluation.name == finished_evaluation["name"]
    assert dict(evaluation.aggregate_metrics) == finished_evaluation["aggregateMetrics"]


def test_evaluation_entry_fields(http: httpx.Client, finished_evaluation: dict[str, Any]) -> None:
    entries = http.get(
        "/v1/analytics/evaluation-entry",
        params=[("backtestId", finished_evaluation["id"]), ("quantiles", 0.5)],
    ).json()
    assert entries
    for entry in entries:
        assert isinstance(entry["orgUnit"], str)
        assert isinstance(entry["period"], str)
        assert entry["quantile"] == 0.5
        assert isinstance(entry["value"], int | float)
        assert isinstance(entry["splitPeriod"], str)


def test_evaluation_entry_fields_through_the_client(
    client: Any, finished_evaluation: dict[str, Any]
) -> None:
    entries = client.evaluation_entries(finished_evaluation["id"], quantiles=(0.1, 0.9))
    assert entries
    assert {entry.quantile for entry in entries} == {0.1, 0.9}
    first = entries[0]
    assert isinstance(first.org_unit, str) and isinstance(first.period, str)
    assert isinstance(first.value, float) and isinstance(first.split_period, str)


# --- jobs -----------------------------------------------------------------------------------


def test_prediction_job_result_is_the_text_of_the_prediction_id(
    http: httpx.Client, prediction_job: dict[str, Any]
) -> None:
    assert isinstance(prediction_job["id"], str)
    assert prediction_job["status"].upper() == "SUCCESS"
    result = prediction_job["result"]
    assert isinstance(result, str) and result.isdigit()
    prediction = http.get(f"/v1/crud/predictions/{int(result)}")
    assert prediction.status_code == 200, prediction.text
    assert prediction.json()["id"] == int(result)
    entries = http.get(f"/v1/analytics/prediction-entry/{int(result)}")
    assert entries.status_code == 200, entries.text


def test_prediction_job_through_the_client(client: Any, prediction_job: dict[str, Any]) -> None:
    job = client.get_job(prediction_job["id"])
    assert job.id == prediction_job["id"]
    assert job.status == "SUCCESS"
    assert job.result == prediction_job["result"]
    assert isinstance(job.result, str)


def test_configured_model_with_data_source_fields(
    client: Any, http: httpx.Client, prediction_job: dict[str, Any]
) -> None:
    records = http.get("/v1/crud/configured-models-with-data-source").json()
    assert records
    record = records[0]
    assert isinstance(record["id"], int) and isinstance(record["name"], str)
    assert isinstance(record["periodType"], str) and isinstance(record["orgUnits"], list)
    one = client.get_configured_model_with_data_source(record["id"])
    assert one.id == record["id"] and one.name == record["name"]
    assert one.period_type == record["periodType"]
    assert list(one.org_units) == record["orgUnits"]
