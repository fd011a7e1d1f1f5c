"""Every client method against the fake service: wire spelling in, snake_case out, and the
exact requests on the wire (paths, query parameters, bodies)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from chaplab.client import (
    ConfiguredModelWithDataSource,
    Dataset,
    Evaluation,
    EvaluationEntry,
    Job,
    ModelSpec,
    ModelTemplate,
    PredictionEntry,
    PredictionRequest,
    SystemInfo,
)

from .fake_service import FakeService


def last_body(fake: FakeService) -> Any:
    return json.loads(fake.requests[-1].content)


def test_system_info_and_health(client: Any, fake: FakeService) -> None:
    info = client.system_info()
    assert isinstance(info, SystemInfo)
    assert info.chap_core_version == "1.2.3"
    assert info.server_time_zone_id == "Etc/UTC"
    assert info.model_extra == {"extra": 1}
    assert client.health().status == "success"
    assert fake.paths() == ["GET /system/info", "GET /health"]


def test_datasets(client: Any, fake: FakeService) -> None:
    [dataset] = client.list_datasets()
    assert isinstance(dataset, Dataset)
    assert (dataset.first_period, dataset.last_period, dataset.period_type) == (
        "202101", "202312", "month")
    assert dataset.org_units == ["OU_A", "OU_B"]
    assert dataset.data_sources[0].data_element_id == "DE_RAIN"
    assert dataset.model_extra == {"sourceSystem": "dhis2"}
    assert dataset.observations is None
    full = client.get_dataset(1)
    assert full.observations[0].feature_name == "disease_cases"
    assert full.observations[0].org_unit == "OU_A"
    assert fake.paths()[-1] == "GET /v1/crud/datasets/1"


def test_model_templates_and_models(client: Any, fake: FakeService) -> None:
    [template] = client.list_model_templates()
    assert isinstance(template, ModelTemplate)
    assert template.user_options["n_lags"]["default"] == 3
    assert template.required_covariates == ["rainfall", "mean_temperature"]
    [model] = client.list_models()
    assert isinstance(model, ModelSpec)
    assert (model.id, model.name, model.model_template_id) == (5, "naive_model:weekly", 1)
    assert client.list_configured_models() == [model]
    assert fake.paths() == ["GET /v1/crud/model-templates", "GET /v1/crud/models",
                            "GET /v1/crud/configured-models"]


def test_list_models_falls_back_when_the_route_is_gone(client: Any, fake: FakeService) -> None:
    fake.has_models_route = False
    [model] = client.list_models()
    assert model.name == "naive_model:weekly"
    assert fake.paths() == ["GET /v1/crud/models", "GET /v1/crud/configured-models"]


def test_model_spec_without_template_id(client: Any, fake: FakeService) -> None:
    nested = {k: v for k, v in fake.configured_models[0].items() if k != "modelTemplateId"}
    fake.configured_models[:] = [{**nested, "modelTemplate": {"id": 9, "name": "x"}},
                                 {**nested, "id": 8}]
    with_nested, bare = client.list_configured_models()
    assert with_nested.model_template_id == 9
    assert bare.model_template_id is None


def test_create_configured_model_returns_the_stored_name(client: Any, fake: FakeService) -> None:
    model = client.create_configured_model("weekly", 1, {"n_lags": 2})
    assert model.name == "naive_model:weekly"
    assert model.user_option_values == {"n_lags": 2}
    assert fake.paths()[-1] == "POST /v1/crud/configured-models"
    assert last_body(fake) == {"name": "weekly", "modelTemplateId": 1,
                               "userOptionValues": {"n_lags": 2},
                               "additionalContinuousCovariates": []}


def test_numpy_option_values_go_on_the_wire_as_plain_json(client: Any, fake: FakeService) -> None:
    client.create_configured_model(
        "weekly", 1, {"n_lags": np.int64(2), "lags": np.arange(3), "alpha": np.float32(0.5),
                      "trend": np.bool_(True), "missing": float("nan")},
    )
    assert fake.requests[-1].headers["content-type"] == "application/json"
    assert last_body(fake)["userOptionValues"] == {
        "n_lags": 2, "lags": [0, 1, 2], "alpha": 0.5, "trend": True, "missing": None,
    }


def test_a_body_that_cannot_be_json_is_refused_before_sending(
    client: Any, fake: FakeService
) -> None:
    sent = len(fake.paths())
    with pytest.raises(TypeError, match="cannot be written as JSON: Type is not JSON serializable"):
        client.create_configured_model("weekly", 1, {"n_lags": object()})
    assert len(fake.paths()) == sent


def test_configured_models_with_data_source(client: Any, fake: FakeService) -> None:
    [record] = client.list_configured_models_with_data_source()
    assert isinstance(record, ConfiguredModelWithDataSource)
    assert (record.period_type, record.org_units) == ("month", ["OU_A"])
    assert record.configured_model.name == "naive_model:weekly"
    assert client.get_configured_model_with_data_source(3) == record
    created = client.create_configured_model_with_data_source_from_evaluation(1)
    assert created.id == 4
    assert fake.paths() == [
        "GET /v1/crud/configured-models-with-data-source",
        "GET /v1/crud/configured-models-with-data-source/3",
        "POST /v1/crud/configured-models-with-data-source/from-backtest/1",
    ]


def test_evaluations(client: Any, fake: FakeService) -> None:
    [evaluation] = client.list_evaluations()
    assert isinstance(evaluation, Evaluation)
    assert evaluation.split_periods == ["202307", "202308", "202309"]
    assert evaluation.aggregate_metrics["crps"] == pytest.approx(2.13)
    assert (evaluation.dataset_id, evaluation.model_id) == (1, "naive_model:weekly")
    assert (evaluation.n_periods, evaluation.n_splits, evaluation.stride) == (3, 3, 1)
    assert evaluation.dataset.name == "demo"
    assert client.get_evaluation(1) == evaluation
    assert client.delete_evaluation(1) is None
    assert fake.paths()[-2:] == ["GET /v1/crud/backtests/1/info", "DELETE /v1/crud/backtests/1"]
    assert client.list_evaluations() == []


def test_split_periods_sort_chronologically_across_forms() -> None:
    evaluation = Evaluation.model_validate(
        {"id": 1, "splitPeriods": ["2021W10", "2021W5", "2020W52", "2021-W07"]})
    assert evaluation.split_periods == ["2020W52", "2021W5", "2021-W07", "2021W10"]


def test_create_evaluation_sends_the_model_name(client: Any, fake: FakeService) -> None:
    [model] = client.list_models()
    job = client.create_evaluation("bt", model, 1, n_periods=3, n_splits=2, stride=1)
    assert isinstance(job, Job)
    assert (job.status, job.name) == ("PENDING", "bt")
    assert job.id in fake.jobs
    assert last_body(fake) == {"name": "bt", "modelId": "naive_model:weekly", "datasetId": 1,
                               "nPeriods": 3, "nSplits": 2, "stride": 1}
    client.create_evaluation("bt2", "naive_model", 1)
    assert last_body(fake) == {"name": "bt2", "modelId": "naive_model", "datasetId": 1}


def test_create_evaluation_refuses_an_integer_model(client: Any, fake: FakeService) -> None:
    with pytest.raises(TypeError, match="NAME") as caught:
        client.create_evaluation("bt", 5, 1)
    assert "not a valid template id" in str(caught.value)
    assert fake.requests == []


def test_evaluation_entries_query_on_the_wire(client: Any, fake: FakeService) -> None:
    entries = client.evaluation_entries(1, quantiles=(0.1, 0.9), split_period="202306",
                                        org_units=["OU_A", "OU_B"])
    assert all(isinstance(entry, EvaluationEntry) for entry in entries)
    assert {(e.org_unit, e.quantile, e.split_period) for e in entries} == {
        ("OU_A", 0.1, "202306"), ("OU_A", 0.9, "202306"),
        ("OU_B", 0.1, "202306"), ("OU_B", 0.9, "202306")}
    params = fake.requests[-1].url.params
    assert fake.requests[-1].url.path == "/v1/analytics/evaluation-entry"
    assert params.multi_items() == [
        ("backtestId", "1"), ("quantiles", "0.1"), ("quantiles", "0.9"),
        ("splitPeriod", "202306"), ("orgUnits", "OU_A"), ("orgUnits", "OU_B")]


def test_evaluation_entries_default_quantiles(client: Any, fake: FakeService) -> None:
    client.evaluation_entries(1, org_units="OU_A")
    params = fake.requests[-1].url.params
    assert params.get_list("quantiles") == ["0.1", "0.25", "0.5", "0.75", "0.9"]
    assert params.get_list("orgUnits") == ["OU_A"]
    assert "splitPeriod" not in params


def test_predictions(client: Any, fake: FakeService) -> None:
    request = PredictionRequest(
        name="forecast", geojson={"type": "FeatureCollection", "features": []},
        provided_data=[{"feature_name": "rainfall", "org_unit": "OU_A", "period": "202101",
                        "value": 12.5}],
        configured_model_with_data_source_id=3, n_periods=3)
    job = client.make_prediction(request)
    assert (job.status, job.type) == ("PENDING", "create_prediction")
    body = last_body(fake)
    assert body["configuredModelWithDataSourceId"] == 3
    assert body["nPeriods"] == 3
    assert body["providedData"] == [{"featureName": "rainfall", "orgUnit": "OU_A",
                                     "period": "202101", "value": 12.5}]
    assert fake.paths()[-1] == "POST /v1/analytics/make-prediction-with-data-source"
    client.make_prediction({"name": "f2", "configuredModelWithDataSourceId": 3, "nPeriods": 2})
    assert last_body(fake)["name"] == "f2"
    entries = client.prediction_entries(7, quantiles=[0.5])
    assert entries == [PredictionEntry(org_unit="OU_A", period="202401", quantile=0.5, value=5.0)]
    assert fake.requests[-1].url.path == "/v1/analytics/prediction-entry/7"
    assert fake.requests[-1].url.params.get_list("quantiles") == ["0.5"]


def test_bad_prediction_request_names_the_field(client: Any) -> None:
    with pytest.raises(ValueError, match="n_periods|nPeriods"):
        client.make_prediction({"name": "f", "configuredModelWithDataSourceId": 3, "nPeriods": 0})


def test_jobs(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", result="12")
    assert client.job_status("j1") == "STARTED"
    [listed] = client.list_jobs()
    assert (listed.id, listed.status, listed.result) == ("j1", "STARTED", None)
    fake.clock.sleep(5)
    job = client.get_job("j1")
    assert (job.status, job.result, job.result_id) == ("SUCCESS", "12", 12)
    assert job.is_terminal and job.succeeded
    assert job.start_time.year == 2026
    assert fake.paths() == ["GET /v1/jobs/j1", "GET /v1/jobs", "GET /v1/jobs"]


def test_job_logs(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", logs="line 1\nline 2\n")
    assert client.job_logs("j1") == "line 1\nline 2\n"
    assert fake.paths() == ["GET /v1/jobs/j1/logs"]


def test_job_result_that_is_not_an_id() -> None:
    assert Job(id="x", result="done").result_id is None
    assert Job(id="x", result=None).result_id is None
    assert Job.model_validate({"id": "x", "result": 3}).result == "3"


@pytest.mark.parametrize("bad", [None, "", 3])
def test_bad_job_id_is_refused(client: Any, bad: Any) -> None:
    with pytest.raises(TypeError, match="job_id"):
        client.job_status(bad)


def test_bad_ids_name_the_argument(client: Any) -> None:
    with pytest.raises(TypeError, match="dataset_id"):
        client.get_dataset("1")
    with pytest.raises(ValueError, match="n_splits"):
        client.create_evaluation("bt", "naive_model", 1, n_splits=0)
    with pytest.raises(ValueError, match="quantiles"):
        client.evaluation_entries(1, quantiles=[1.5])


def test_cancel_and_delete_job(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 100)
    assert client.cancel_job("j1") is None
    assert client.job_status("j1") == "REVOKED"
    assert client.delete_job("j1") is None
    assert client.list_jobs() == []
    assert fake.paths()[:3] == ["POST /v1/jobs/j1/cancel", "GET /v1/jobs/j1", "DELETE /v1/jobs/j1"]


def test_job_ids_are_escaped_in_paths(client: Any, fake: FakeService) -> None:
    fake.add_job(id="a/b")
    client.job_status("a/b")
    assert fake.requests[-1].url.raw_path == b"/v1/jobs/a%2Fb"
