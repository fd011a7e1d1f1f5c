"""docs/wire-contract.md: spelling on the wire, tolerance of unknown fields, and the answers to
unknown ids, upserts, the `default` name and option values that break a template's schema."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from chaplab import ChapClient

SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")
CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")


def assert_camel(record: dict[str, Any], where: str) -> None:
    snake = [key for key in record if SNAKE.match(key)]
    assert not snake, f"{where}: snake_case keys {snake}"
    assert all(CAMEL.match(key) for key in record), f"{where}: {sorted(record)}"


@pytest.fixture(scope="module")
def template(http: httpx.Client) -> dict[str, Any]:
    """A model template with at least one user option."""
    templates = http.get("/v1/crud/model-templates").json()
    return next(t for t in templates if t.get("userOptions"))


def test_stored_resources_are_camel_case(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    dataset = http.get("/v1/crud/datasets").json()[0]
    assert_camel(dataset, "dataset")
    assert {"firstPeriod", "lastPeriod", "orgUnits"} <= set(dataset)
    assert_camel(http.get("/v1/crud/model-templates").json()[0], "model template")
    spec = http.get("/v1/crud/configured-models").json()[0]
    assert_camel(spec, "model spec")
    assert "modelTemplateId" in spec
    assert_camel(finished_evaluation, "backtest")
    assert {"aggregateMetrics", "splitPeriods", "orgUnits"} <= set(finished_evaluation)


def test_aggregate_metric_keys_keep_snake_case(finished_evaluation: dict[str, Any]) -> None:
    keys = set(finished_evaluation["aggregateMetrics"])
    assert {"crps", "mae", "rmse"} <= keys
    assert any(key.startswith("coverage_") for key in keys)
    assert any(key.startswith("winkler_score_") for key in keys)


def test_entries_are_camel_case(http: httpx.Client, finished_evaluation: dict[str, Any]) -> None:
    entry = http.get(
        "/v1/analytics/evaluation-entry",
        params={"backtestId": finished_evaluation["id"], "quantiles": 0.5},
    ).json()[0]
    assert_camel(entry, "evaluation entry")
    assert {"orgUnit", "period", "quantile", "value", "splitPeriod"} <= set(entry)


def test_jobs_and_system_info_are_snake_case(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    for job in http.get("/v1/jobs").json():
        assert {"id", "status", "result", "start_time", "end_time"} <= set(job)
        assert not [key for key in job if not key.islower()], job
    info = http.get("/system/info").json()
    expected = {"chap_core_version", "python_version", "server_date", "server_time_zone_id"}
    assert expected <= set(info)
    assert not [key for key in info if not key.islower()], info


def test_unknown_job_id_is_404(http: httpx.Client) -> None:
    assert http.get("/v1/jobs/no-such-job-0000").status_code == 404


def test_client_wait_on_an_unknown_job_raises_not_found(base_url: str) -> None:
    from chaplab.client import NotFoundError

    with ChapClient(base_url) as client, pytest.raises(NotFoundError):
        client.wait_for_job("no-such-job-0000", timeout=5)


def test_create_backtest_with_an_unknown_dataset_is_404(http: httpx.Client) -> None:
    model_name = http.get("/v1/crud/configured-models").json()[0]["name"]
    response = http.post(
        "/v1/analytics/create-backtest",
        json={"name": "nowhere", "modelId": model_name, "datasetId": 987654},
    )
    assert response.status_code == 404, response.text


def test_create_backtest_with_an_unknown_model_name_is_404(
    http: httpx.Client, evaluation_dataset: dict[str, Any], unique: str
) -> None:
    response = http.post(
        "/v1/analytics/create-backtest",
        json={
            "name": "nobody",
            "modelId": f"no_such_model:{unique}",
            "datasetId": evaluation_dataset["id"],
        },
    )
    assert response.status_code == 404, response.text


def test_create_backtest_refuses_a_model_id_in_place_of_the_name(
    http: httpx.Client, evaluation_dataset: dict[str, Any], unique: str
) -> None:
    model_id = http.get("/v1/crud/configured-models").json()[0]["id"]
    jobs_before = len(http.get("/v1/jobs").json())
    response = http.post(
        "/v1/analytics/create-backtest",
        json={
            "name": f"by id {unique}",
            "modelId": str(model_id),
            "datasetId": evaluation_dataset["id"],
        },
    )
    assert 400 <= response.status_code < 500, response.text
    assert len(http.get("/v1/jobs").json()) == jobs_before


def test_unknown_model_template_id_is_404(http: httpx.Client, unique: str) -> None:
    response = http.post(
        "/v1/crud/configured-models", json={"name": f"x{unique}", "modelTemplateId": 987654}
    )
    assert response.status_code == 404, response.text


def test_configured_model_create_on_an_existing_name_is_an_upsert(
    http: httpx.Client, template: dict[str, Any], unique: str
) -> None:
    body = {"name": f"twice{unique}", "modelTemplateId": template["id"]}
    first = http.post("/v1/crud/configured-models", json=body)
    second = http.post("/v1/crud/configured-models", json=body)
    assert first.status_code < 300 and second.status_code < 300, second.text
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["name"] == first.json()["name"]
    names = [m["name"] for m in http.get("/v1/crud/configured-models").json()]
    assert names.count(first.json()["name"]) == 1


def test_default_name_maps_to_the_bare_template_name(
    http: httpx.Client, template: dict[str, Any]
) -> None:
    response = http.post(
        "/v1/crud/configured-models", json={"name": "default", "modelTemplateId": template["id"]}
    )
    assert response.status_code < 300, response.text
    assert response.json()["name"] == template["name"]
    listed = http.get("/v1/crud/configured-models").json()
    bare = [m for m in listed if m["name"] == template["name"]]
    assert [m["id"] for m in bare] == [response.json()["id"]]


def test_option_values_that_break_the_schema_are_422(
    http: httpx.Client, template: dict[str, Any], unique: str
) -> None:
    option = next(iter(template["userOptions"]))
    response = http.post(
        "/v1/crud/configured-models",
        json={
            "name": f"broken{unique}",
            "modelTemplateId": template["id"],
            "userOptionValues": {option: {"not": ["a", "valid", "value"]}},
        },
    )
    assert response.status_code == 422, response.text
    assert option in response.text
    names = [m["name"] for m in http.get("/v1/crud/configured-models").json()]
    assert f"{template['name']}:broken{unique}" not in names


def test_snake_case_input_is_accepted(
    http: httpx.Client, template: dict[str, Any], unique: str
) -> None:
    response = http.post(
        "/v1/crud/configured-models",
        json={"name": f"snake{unique}", "model_template_id": template["id"]},
    )
    assert response.status_code < 300, response.text
    assert response.json()["name"] == f"{template['name']}:snake{unique}"


def test_client_ignores_unknown_fields() -> None:
    extra = {"brandNewField": {"nested": [1, 2]}, "another_one": None}
    dataset = {
        "id": 1,
        "name": "d",
        "type": "evaluation",
        "firstPeriod": "202101",
        "lastPeriod": "202112",
        "orgUnits": ["OU_A"],
        **extra,
    }
    spec = {"id": 1001, "name": "naive_model", "modelTemplateId": 1, **extra}
    job = {"id": "j1", "status": "success", "result": "3", "surprise": True, **extra}
    evaluation = {"id": 3, "name": "bt", "aggregateMetrics": {"crps": 1.5}, **extra}
    entry = {
        "orgUnit": "OU_A",
        "period": "202101",
        "quantile": 0.5,
        "value": 2.0,
        "splitPeriod": "202012",
        **extra,
    }
    routes = {
        "/system/info": {"chap_core_version": "1", "unheard_of": 1},
        "/v1/crud/datasets": [dataset],
        "/v1/crud/datasets/1": dataset,
        "/v1/crud/configured-models": [spec],
        "/v1/crud/models": [spec],
        "/v1/jobs": [job],
        "/v1/crud/backtests": [evaluation],
        "/v1/crud/backtests/3/info": evaluation,
        "/v1/analytics/evaluation-entry": [entry],
    }

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path not in routes:  # /openapi.json: this server does not describe itself
            return httpx.Response(404, json={"detail": "Not Found"})
        return httpx.Response(200, json=routes[request.url.path])

    with ChapClient("http://chap.test", transport=httpx.MockTransport(handle)) as client:
        assert client.system_info().chap_core_version == "1"
        assert client.list_datasets()[0].org_units == ["OU_A"]
        assert client.get_dataset(1).first_period == "202101"
        assert client.list_configured_models()[0].model_template_id == 1
        assert client.list_models()[0].name == "naive_model"
        assert client.get_job("j1").result == "3"
        assert client.list_evaluations()[0].aggregate_metrics["crps"] == 1.5
        assert client.get_evaluation(3).name == "bt"
        assert client.evaluation_entries(3, quantiles=(0.5,))[0].split_period == "202012"


def test_client_falls_back_when_the_models_list_is_gone() -> None:
    spec = {"id": 1001, "name": "naive_model", "modelTemplateId": 1}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/crud/models":
            return httpx.Response(404, json={"detail": "Not Found"})
        return httpx.Response(200, json=[spec])

    with ChapClient("http://chap.test", transport=httpx.MockTransport(handle)) as client:
        assert [m.id for m in client.list_models()] == [1001]


def test_errors_are_problem_details(http: httpx.Client) -> None:
    response = http.get("/v1/crud/datasets/987654")
    assert response.status_code == 404
    assert response.headers["content-type"].split(";")[0] == "application/problem+json"
    body = response.json()
    assert body["status"] == 404 and isinstance(body["detail"], str)
    assert body["instance"] == "/v1/crud/datasets/987654"
    assert {"type", "title"} <= set(body)


def test_validation_errors_list_the_field_problems(
    http: httpx.Client, template: dict[str, Any], unique: str
) -> None:
    response = http.post("/v1/crud/configured-models", json={"name": f"half{unique}"})
    assert response.status_code == 422
    assert response.headers["content-type"].split(";")[0] == "application/problem+json"
    body = response.json()
    assert isinstance(body["errors"], list) and body["errors"]
    assert "modelTemplateId" in body["detail"] or "model_template_id" in body["detail"]


def test_client_raises_unprocessable_entity_for_broken_option_values(
    base_url: str, template: dict[str, Any], unique: str
) -> None:
    from chaplab.client import UnprocessableEntityError

    option = next(iter(template["userOptions"]))
    with ChapClient(base_url) as client, pytest.raises(UnprocessableEntityError) as raised:
        client.create_configured_model(f"cli{unique}", template["id"], {option: [[["no"]]]})
    assert raised.value.status_code == 422
    assert raised.value.errors


def test_periods_and_timestamps_have_the_documented_forms(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    from datetime import datetime

    period = re.compile(r"^\d{6}$|^\d{4}W\d{2}$")
    for dataset in http.get("/v1/crud/datasets").json():
        assert period.match(dataset["firstPeriod"]) and period.match(dataset["lastPeriod"])
        datetime.fromisoformat(dataset["created"])
    for split in finished_evaluation["splitPeriods"]:
        assert period.match(split), split
    for job in http.get("/v1/jobs").json():
        for stamp in (job["start_time"], job["end_time"]):
            assert stamp is None or datetime.fromisoformat(stamp)


def test_dataset_detail_observations_lie_inside_the_dataset(http: httpx.Client) -> None:
    listed = http.get("/v1/crud/datasets").json()[0]
    detail = http.get(f"/v1/crud/datasets/{listed['id']}").json()
    observations = detail["observations"]
    assert observations
    assert {o["orgUnit"] for o in observations} == set(listed["orgUnits"])
    periods = {o["period"] for o in observations}
    assert min(periods) == listed["firstPeriod"] and max(periods) == listed["lastPeriod"]
    assert {"featureName", "orgUnit", "period", "value"} <= set(observations[0])


def test_client_sorts_split_periods() -> None:
    evaluation = {
        "id": 3,
        "name": "bt",
        "aggregateMetrics": {},
        "splitPeriods": ["202309", "202307", "202308"],
    }

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[evaluation])

    with ChapClient("http://chap.test", transport=httpx.MockTransport(handle)) as client:
        assert list(client.list_evaluations()[0].split_periods) == ["202307", "202308", "202309"]


def test_client_base_url_with_a_trailing_slash() -> None:
    seen: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, json=[])

    with ChapClient("http://chap.test/", transport=httpx.MockTransport(handle)) as client:
        client.list_datasets()
    with ChapClient(
        "http://chap.test", proxy_prefix="/gw", transport=httpx.MockTransport(handle)
    ) as client:
        client.list_datasets()
    assert seen == ["/v1/crud/datasets", "/gw/v1/crud/datasets"]
