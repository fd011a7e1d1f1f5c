"""Spec section 4: every endpoint of the main table with its request and response, the toolkit
paths of the service, and the client's `{proxy_prefix}`."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx
import pytest

from chaplab import ChapClient
from chaplab.vocabulary import next_period

from .helpers import NON_TERMINAL, job_record, wait_until_terminal


def test_system_info_is_an_object_with_version_and_time_zone(http: httpx.Client) -> None:
    response = http.get("/system/info")
    assert response.status_code == 200
    info = response.json()
    assert isinstance(info, dict)
    assert isinstance(info["chap_core_version"], str)
    assert isinstance(info["server_time_zone_id"], str)


def test_system_info_is_the_connectivity_probe(base_url: str) -> None:
    requested: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        requested.append(request.url.path)
        return httpx.Response(200, json={"chap_core_version": "9.9", "server_time_zone_id": "UTC"})

    with ChapClient("http://chap.test", transport=httpx.MockTransport(handle)) as client:
        assert client.system_info().chap_core_version == "9.9"
    assert requested == ["/system/info"]
    with ChapClient(base_url) as client:
        assert (
            client.system_info().chap_core_version
            == httpx.get(f"{base_url}/system/info").json()["chap_core_version"]
        )


def test_system_info_on_an_unreachable_service_raises_a_connection_error() -> None:
    from chaplab.client import ChapConnectionError, RetryPolicy

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    unreachable = f"http://127.0.0.1:{free_port}"
    with (
        ChapClient(unreachable, retry=RetryPolicy(max_retries=0)) as client,
        pytest.raises(ChapConnectionError),
    ):
        client.system_info()


def test_datasets_list_and_one_dataset(http: httpx.Client) -> None:
    datasets = http.get("/v1/crud/datasets").json()
    assert isinstance(datasets, list) and datasets
    for listed in datasets:
        one = http.get(f"/v1/crud/datasets/{listed['id']}")
        assert one.status_code == 200
        assert one.json()["id"] == listed["id"]
        assert one.json()["type"] == listed["type"]


def test_model_templates_list(http: httpx.Client) -> None:
    templates = http.get("/v1/crud/model-templates").json()
    assert isinstance(templates, list) and templates
    assert all(isinstance(t["id"], int) and isinstance(t["name"], str) for t in templates)
    assert len({t["id"] for t in templates}) == len(templates)


def test_models_list_is_an_array_of_model_specs(http: httpx.Client) -> None:
    models = http.get("/v1/crud/models").json()
    assert isinstance(models, list) and models
    assert all({"id", "name", "modelTemplateId"} <= set(m) for m in models)


def test_configured_models_with_data_source_from_backtest(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    response = http.post(
        f"/v1/crud/configured-models-with-data-source/from-backtest/{finished_evaluation['id']}"
    )
    assert response.status_code < 300, response.text
    created = response.json()
    assert isinstance(created["id"], int) and isinstance(created["name"], str)
    listed = http.get("/v1/crud/configured-models-with-data-source").json()
    assert created["id"] in [record["id"] for record in listed]
    one = http.get(f"/v1/crud/configured-models-with-data-source/{created['id']}")
    assert one.status_code == 200
    assert one.json()["id"] == created["id"] and one.json()["name"] == created["name"]
    dataset = http.get(f"/v1/crud/datasets/{finished_evaluation['datasetId']}").json()
    assert sorted(one.json()["orgUnits"]) == sorted(dataset["orgUnits"])
    assert one.json()["periodType"] == dataset["periodType"]
    assert one.json()["configuredModel"]["name"] == finished_evaluation["modelId"]


def test_client_creates_a_model_with_data_source_from_an_evaluation(
    base_url: str, finished_evaluation: dict[str, Any]
) -> None:
    with ChapClient(base_url) as client:
        record = client.create_configured_model_with_data_source_from_evaluation(
            finished_evaluation["id"]
        )
        listed = client.list_configured_models_with_data_source()
    assert record.id in [r.id for r in listed]


def test_backtest_records_its_request(
    http: httpx.Client, finished_evaluation: dict[str, Any], evaluation_dataset: dict[str, Any]
) -> None:
    model_name = http.get("/v1/crud/configured-models").json()[0]["name"]
    assert finished_evaluation["modelId"] == model_name
    assert finished_evaluation["datasetId"] == evaluation_dataset["id"]
    assert finished_evaluation["nPeriods"] == 2 and finished_evaluation["nSplits"] == 2
    assert len(finished_evaluation["splitPeriods"]) == 2
    entries = http.get(
        "/v1/analytics/evaluation-entry",
        params={"backtestId": finished_evaluation["id"], "quantiles": 0.5},
    ).json()
    org_unit = finished_evaluation["orgUnits"][0]
    for split in finished_evaluation["splitPeriods"]:
        periods = [
            e["period"] for e in entries if (e["splitPeriod"], e["orgUnit"]) == (split, org_unit)
        ]
        # a split is named by its first forecast period, as chap-core names it
        assert sorted(periods) == [split, next_period(split)], (split, periods)


def test_backtest_info_equals_its_list_entry(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    listed = http.get("/v1/crud/backtests").json()
    entry = next(e for e in listed if e["id"] == finished_evaluation["id"])
    assert http.get(f"/v1/crud/backtests/{entry['id']}/info").json() == entry


def test_create_backtest_answers_a_job_and_delete_removes_the_evaluation(
    base_url: str, http: httpx.Client, evaluation_dataset: dict[str, Any], unique: str
) -> None:
    with ChapClient(base_url) as client:
        spec = client.list_configured_models()[0]
        job = client.create_evaluation(
            f"doomed {unique}", spec, evaluation_dataset["id"], n_periods=1, n_splits=1
        )
        assert isinstance(job.id, str) and job.id
        finished = client.wait_for_job(job.id, timeout=120)
        evaluation_id = int(finished.result)
        assert evaluation_id in [e.id for e in client.list_evaluations()]
    assert job_record(http, job.id)["status"] == "SUCCESS"
    stored = http.get(f"/v1/crud/backtests/{evaluation_id}/info").json()
    assert stored["name"] == f"doomed {unique}"
    assert http.delete(f"/v1/crud/backtests/{evaluation_id}").status_code < 300
    assert evaluation_id not in [e["id"] for e in http.get("/v1/crud/backtests").json()]


def test_create_backtest_sends_the_model_name_not_its_id() -> None:
    bodies: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"id": "job-1"})

    class Named:
        name = "naive_model:weekly"

    with ChapClient("http://chap.test", transport=httpx.MockTransport(handle)) as client:
        client.create_evaluation("bt", "naive_model", 1)
        client.create_evaluation("bt", Named(), 1)
        with pytest.raises((TypeError, ValueError)):
            client.create_evaluation("bt", 1001, 1)
    assert [body["modelId"] for body in bodies] == ["naive_model", "naive_model:weekly"]
    assert all(body["datasetId"] == 1 and body["name"] == "bt" for body in bodies)


def test_evaluation_entries_for_repeated_quantiles(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    response = http.get(
        "/v1/analytics/evaluation-entry",
        params=[
            ("backtestId", finished_evaluation["id"]),
            ("quantiles", 0.1),
            ("quantiles", 0.5),
            ("quantiles", 0.9),
        ],
    )
    assert response.status_code == 200
    entries = response.json()
    assert {entry["quantile"] for entry in entries} == {0.1, 0.5, 0.9}
    cells = {(e["orgUnit"], e["splitPeriod"], e["period"]) for e in entries}
    assert len(entries) == 3 * len(cells)
    assert {e["orgUnit"] for e in entries} == set(finished_evaluation["orgUnits"])
    assert {e["splitPeriod"] for e in entries} == set(finished_evaluation["splitPeriods"])


def test_evaluation_entries_filter_by_split_period_and_org_units(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    split = finished_evaluation["splitPeriods"][0]
    org_unit = finished_evaluation["orgUnits"][0]
    entries = http.get(
        "/v1/analytics/evaluation-entry",
        params=[
            ("backtestId", finished_evaluation["id"]),
            ("quantiles", 0.5),
            ("splitPeriod", split),
            ("orgUnits", org_unit),
        ],
    ).json()
    assert entries
    assert {(e["orgUnit"], e["splitPeriod"]) for e in entries} == {(org_unit, split)}


def test_evaluation_entries_for_any_quantile_in_order(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    entries = http.get(
        "/v1/analytics/evaluation-entry",
        params=[
            ("backtestId", finished_evaluation["id"]),
            ("quantiles", 0.05),
            ("quantiles", 0.33),
            ("quantiles", 0.95),
        ],
    ).json()
    assert {entry["quantile"] for entry in entries} == {0.05, 0.33, 0.95}
    by_cell: dict[tuple[str, str, str], dict[float, float]] = {}
    for e in entries:
        cell = (e["orgUnit"], e["splitPeriod"], e["period"])
        by_cell.setdefault(cell, {})[e["quantile"]] = e["value"]
    for cell, values in by_cell.items():
        assert values[0.05] <= values[0.33] <= values[0.95], cell


def test_client_evaluation_frame_is_tidy(
    base_url: str, finished_evaluation: dict[str, Any]
) -> None:
    import pandas as pd

    with ChapClient(base_url) as client:
        frame = client.evaluation_frame(finished_evaluation["id"], quantiles=(0.1, 0.5, 0.9))
    assert list(frame.columns)[:7] == [
        "org_unit",
        "org_unit_name",
        "split_period",
        "period",
        "horizon",
        "quantile",
        "value",
    ]
    # 1 at each split's first forecast period, the split period
    assert (frame.loc[frame["period"] == frame["split_period"], "horizon"] == 1).all()
    assert sorted(frame["horizon"].unique()) == [1, 2]
    assert isinstance(frame["org_unit"].dtype, pd.CategoricalDtype)
    assert isinstance(frame["period"].dtype, pd.PeriodDtype)
    assert isinstance(frame["split_period"].dtype, pd.PeriodDtype)
    assert set(frame["quantile"]) == {0.1, 0.5, 0.9}


def test_async_client_on_the_service(base_url: str, finished_evaluation: dict[str, Any]) -> None:
    import asyncio

    from chaplab import AsyncChapClient

    async def scenario() -> tuple[list[Any], list[Any], Any]:
        async with AsyncChapClient(base_url) as client:
            jobs = await client.list_jobs()
            status = await client.job_status(jobs[0].id)
            return await client.list_datasets(), await client.list_evaluations(), status

    datasets, evaluations, status = asyncio.run(scenario())
    assert datasets and finished_evaluation["id"] in [e.id for e in evaluations]
    assert status == status.upper()


def test_evaluation_entries_need_a_backtest_id(http: httpx.Client) -> None:
    response = http.get("/v1/analytics/evaluation-entry", params={"quantiles": 0.5})
    assert 400 <= response.status_code < 500


def test_job_status_is_a_bare_json_string(
    http: httpx.Client, finished_evaluation: dict[str, Any]
) -> None:
    job_id = next(j["id"] for j in http.get("/v1/jobs").json() if j["result"] is not None)
    response = http.get(f"/v1/jobs/{job_id}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.text.strip() == '"SUCCESS"'
    assert response.json() == "SUCCESS"


def test_job_list_holds_every_job_with_id_status_and_result(
    http: httpx.Client, evaluation_dataset: dict[str, Any], unique: str
) -> None:
    model_name = http.get("/v1/crud/configured-models").json()[0]["name"]
    created = http.post(
        "/v1/analytics/create-backtest",
        json={
            "name": f"listed {unique}",
            "modelId": model_name,
            "datasetId": evaluation_dataset["id"],
            "nSplits": 1,
            "nPeriods": 1,
        },
    ).json()
    jobs = http.get("/v1/jobs").json()
    assert isinstance(jobs, list)
    assert created["id"] in [job["id"] for job in jobs]
    for job in jobs:
        assert isinstance(job["id"], str)
        assert isinstance(job["status"], str)
        assert "result" in job
        assert job["result"] is None or isinstance(job["result"], str)
    assert wait_until_terminal(http, created["id"]) not in NON_TERMINAL


# --- toolkit paths ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/docs", "/redoc", "/openapi.json", "/health"])
def test_toolkit_paths_answer(http: httpx.Client, path: str) -> None:
    assert http.get(path).status_code == 200


def test_openapi_lists_the_main_paths(http: httpx.Client) -> None:
    paths = http.get("/openapi.json").json()["paths"]
    for path in (
        "/system/info",
        "/v1/crud/datasets",
        "/v1/crud/configured-models",
        "/v1/analytics/create-backtest",
        "/v1/analytics/evaluation-entry",
        "/v1/jobs",
    ):
        assert path in paths, path


# --- the proxy prefix -----------------------------------------------------------------------


def test_client_prepends_the_proxy_prefix_to_every_path() -> None:
    prefix = "/api/routes/chap/run"
    seen: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        path = request.url.path.removeprefix(prefix)
        if path == "/system/info":
            return httpx.Response(200, json={"chap_core_version": "1"})
        if path.startswith("/v1/jobs/"):
            return httpx.Response(200, json="SUCCESS")
        if path == "/v1/jobs":
            return httpx.Response(200, json=[{"id": "j", "status": "SUCCESS", "result": "1"}])
        return httpx.Response(200, json=[])

    with ChapClient(
        "http://gateway.test", proxy_prefix=prefix, transport=httpx.MockTransport(handle)
    ) as client:
        client.system_info()
        client.list_datasets()
        client.list_configured_models()
        client.list_evaluations()
        client.job_status("j")
        client.get_job("j")
    assert seen
    assert all(path.startswith(prefix + "/") for path in seen), seen
    assert f"{prefix}/system/info" in seen and f"{prefix}/v1/jobs/j" in seen


def test_client_with_a_prefix_reaches_a_service_mounted_under_it(base_url: str) -> None:
    prefix = "/gateway/chap"

    def forward(request: httpx.Request) -> httpx.Response:
        assert request.url.path.startswith(prefix + "/")
        target = base_url + request.url.raw_path.decode()[len(prefix) :]
        answer = httpx.request(request.method, target, headers={"accept": "application/json"})
        return httpx.Response(
            answer.status_code,
            content=answer.content,
            headers={"content-type": answer.headers["content-type"]},
        )

    with ChapClient(
        "http://gw.test", proxy_prefix=prefix, transport=httpx.MockTransport(forward)
    ) as client:
        assert client.list_datasets()
        assert client.system_info().chap_core_version
