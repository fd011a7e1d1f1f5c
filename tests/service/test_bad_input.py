"""Bad input gets a 4xx problem-details answer naming the field and the reason, and changes
nothing. Driven through ChapClient; the few requests the client checks itself before sending
(unparseable periods, non-numeric values) go through plain HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from chaplab.client import ChapClient, NotFoundError, UnprocessableEntityError

from .helpers import observations, small_frame

pytestmark = pytest.mark.integration


@pytest.fixture
def unchanged(client: ChapClient) -> Iterator[None]:
    """The test must leave datasets, models, evaluations and jobs as they were."""

    def snapshot() -> tuple:
        return (
            len(client.list_datasets()),
            len(client.list_configured_models()),
            len(client.list_evaluations()),
            len(client.list_jobs()),
        )

    before = snapshot()
    yield
    assert snapshot() == before


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=30) as plain:
        yield plain


def demo_dataset_id(client: ChapClient) -> int:
    return next(d.id for d in client.list_datasets() if d.name == "demo")


def field_names(error: UnprocessableEntityError) -> str:
    return " ".join(
        str(problem.get("field", problem.get("loc"))) for problem in error.errors
    ) + str(error)


@pytest.mark.usefixtures("unchanged")
class TestRefusedWithoutChange:
    def test_unknown_dataset_is_404(self, client: ChapClient) -> None:
        with pytest.raises(NotFoundError, match="dataset_id"):
            client.create_evaluation("x", "naive_model", 999_999)
        with pytest.raises(NotFoundError):
            client.get_dataset(999_999)

    def test_unknown_evaluation_job_and_bundle_are_404(self, client: ChapClient) -> None:
        with pytest.raises(NotFoundError):
            client.get_evaluation(999_999)
        with pytest.raises(NotFoundError):
            client.evaluation_entries(999_999, [0.5])
        with pytest.raises(NotFoundError):
            client.job_status("no-such-job")
        with pytest.raises(NotFoundError):
            client.get_configured_model_with_data_source(999_999)
        with pytest.raises(NotFoundError):
            client.create_configured_model_with_data_source_from_evaluation(999_999)

    def test_unknown_model_name_is_404_and_called_a_name(self, client: ChapClient) -> None:
        with pytest.raises(NotFoundError, match="model: ") as refused:
            client.create_evaluation("x", "naive_model:no-such-name", demo_dataset_id(client))
        assert "no configured model named 'naive_model:no-such-name'" in str(refused.value)
        assert "with id" not in str(refused.value)  # a name was given, not an id
        with pytest.raises(NotFoundError) as batch:
            client.create_backtests("x", ["naive_model", "no-such-model"], demo_dataset_id(client))
        assert "no configured model named 'no-such-model'" in str(batch.value)

    def test_an_id_where_a_name_is_wanted_is_refused(self, client: ChapClient) -> None:
        model = client.list_models()[0]
        with pytest.raises(UnprocessableEntityError, match="model: ") as refused:
            client.create_evaluation("x", str(model.id), demo_dataset_id(client))
        assert "NAME" in str(refused.value)
        with pytest.raises(NotFoundError, match="model_template_id"):
            client.create_configured_model("wrong-id", model.id)

    def test_option_values_breaking_the_schema_are_422(self, client: ChapClient) -> None:
        template = next(t for t in client.list_model_templates() if t.name == "seasonal_naive")
        with pytest.raises(UnprocessableEntityError, match="n_seasons") as refused:
            client.create_configured_model("too-many", template.id, {"n_seasons": 99})
        assert "n_seasons" in field_names(refused.value)

    @pytest.mark.parametrize("level", [0.0, 1.0])
    def test_quantiles_outside_the_open_unit_interval_are_422(
        self, client: ChapClient, level: float
    ) -> None:
        evaluation = client.list_evaluations()[0]
        with pytest.raises(UnprocessableEntityError, match="quantiles"):
            client.evaluation_entries(evaluation.id, [0.5, level])

    def test_unknown_org_unit_and_bad_split_period_are_422(
        self, client: ChapClient, http: httpx.Client
    ) -> None:
        evaluation = client.list_evaluations()[0]
        query = {"backtestId": evaluation.id, "quantiles": 0.5}
        for field, refused in (("orgUnits", "nowhere"), ("splitPeriod", "2021-13")):
            answer = http.get("/v1/analytics/evaluation-entry", params={**query, field: refused})
            assert answer.status_code == 422 and field in answer.text, answer.text
        # the client refuses both before sending
        with pytest.raises(ValueError, match="org_units"):
            client.evaluation_entries(evaluation.id, [0.5], org_units=["nowhere"])
        with pytest.raises(ValueError, match="split_period"):
            client.evaluation_entries(evaluation.id, [0.5], split_period="2021-13")

    def test_more_history_than_the_dataset_has_is_422(self, client: ChapClient) -> None:
        with pytest.raises(UnprocessableEntityError, match="n_splits: ") as refused:
            client.create_evaluation(
                "x", "seasonal_naive", demo_dataset_id(client), n_periods=12, n_splits=200
            )
        assert "periods" in str(refused.value)

    def test_malformed_geojson_is_422(self, client: ChapClient) -> None:
        frame = small_frame(n_years=1)
        for geojson, field in [
            ({"type": "Feature"}, "geojson"),
            (
                {
                    "type": "FeatureCollection",
                    "features": [
                        {
                            "type": "Feature",
                            "properties": {"id": "A"},
                            "geometry": {"type": "Point", "coordinates": [0, 0]},
                        }
                    ],
                },
                "geometry",
            ),
            ({"type": "FeatureCollection", "features": []}, "no feature for the org units"),
        ]:
            with pytest.raises(UnprocessableEntityError, match=field):
                client.create_dataset("bad geojson", frame, geojson=geojson)

    def test_an_unclosed_polygon_is_422_naming_the_ring(self, client: ChapClient) -> None:
        frame = small_frame(n_years=1)
        org_unit = str(frame["location"].iloc[0])
        open_ring = [[0, 0], [1, 0], [1, 1], [0, 1]]
        geojson = {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {"id": org_unit},
                    "geometry": {"type": "Polygon", "coordinates": [open_ring]},
                }
            ],
        }
        with pytest.raises(UnprocessableEntityError, match="not closed") as refused:
            client.create_dataset("open ring", frame, geojson=geojson)
        assert "geojson.features[0].geometry.coordinates[0]" in str(refused.value)

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"name": "x", "modelTemplateId": "one"}, "modelTemplateId"),
            ({"name": "x", "modelTemplateId": 1.5}, "modelTemplateId"),
            ({"name": 7, "modelTemplateId": 1}, "name"),
        ],
    )
    def test_a_value_chap_core_would_not_convert_is_refused(
        self, http: httpx.Client, body: dict, field: str
    ) -> None:
        """Values are converted as chap-core 2.5.1's pydantic models convert them (tested in
        ``test_strict_requests.py``); what they do not convert is a 422 naming the field."""
        answer = http.post("/v1/crud/configured-models", json=body)
        assert answer.status_code == 422, answer.text
        assert any(problem["loc"][-1] == field for problem in answer.json()["errors"])

    def test_a_count_that_is_no_number_is_refused(
        self, client: ChapClient, http: httpx.Client
    ) -> None:
        body = {
            "name": "x",
            "modelId": "naive_model",
            "datasetId": demo_dataset_id(client),
            "nSplits": "seven",
        }
        answer = http.post("/v1/analytics/create-backtest", json=body)
        assert answer.status_code == 422, answer.text
        assert any(problem["loc"][-1] == "nSplits" for problem in answer.json()["errors"])

    def test_more_quantile_levels_than_the_limit_are_422(self, http: httpx.Client) -> None:
        from chaplab.service.routes.dependencies import MAX_QUANTILE_LEVELS

        evaluation_id = http.get("/v1/crud/backtests").json()[0]["id"]
        levels = [("quantiles", 0.5)] * (MAX_QUANTILE_LEVELS + 1)
        answer = http.get(
            "/v1/analytics/evaluation-entry", params=[("backtestId", evaluation_id), *levels]
        )
        assert answer.status_code == 422
        assert "quantiles" in answer.json()["detail"]
        every_percentile = [("quantiles", level / 100) for level in range(1, 100)]
        answered = http.get(
            "/v1/analytics/evaluation-entry",
            params=[("backtestId", evaluation_id), *every_percentile],
        )
        assert answered.status_code == 200
        assert {entry["quantile"] for entry in answered.json()} == {q for _, q in every_percentile}

    def test_periods_that_do_not_parse_are_422(self, http: httpx.Client) -> None:
        body = {
            "name": "bad period",
            "observations": [
                {"featureName": "disease_cases", "orgUnit": "A", "period": "2021-13", "value": 1.0}
            ],
        }
        answer = http.post("/v1/crud/datasets", json=body)
        assert answer.status_code == 422
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert "observations[0].period" in answer.json()["detail"]
        mixed = {
            "name": "mixed",
            "observations": [
                {"featureName": "disease_cases", "orgUnit": "A", "period": "202101", "value": 1.0},
                {"featureName": "disease_cases", "orgUnit": "A", "period": "2021W02", "value": 1.0},
            ],
        }
        assert "one period type" in http.post("/v1/crud/datasets", json=mixed).json()["detail"]

    def test_non_numeric_values_are_422(self, http: httpx.Client) -> None:
        body = {
            "name": "text",
            "observations": [
                {"featureName": "rainfall", "orgUnit": "A", "period": "202101", "value": "lots"}
            ],
        }
        answer = http.post("/v1/crud/datasets", json=body)
        assert answer.status_code == 422
        assert any(problem["loc"][-1] == "value" for problem in answer.json()["errors"])


def test_missing_values_of_a_required_covariate_refuse_a_prediction(
    client: ChapClient, http: httpx.Client, unique: str
) -> None:
    dataset = client.create_dataset(f"complete {unique}", small_frame(n_years=3))
    evaluation = client.run_evaluation(
        f"regression {unique}", "regression_model", dataset.id, 1, 1, timeout=120
    )
    bundle = client.create_configured_model_with_data_source_from_evaluation(evaluation.id)
    frame = small_frame(n_years=3)
    frame.loc[5, "rainfall"] = np.nan
    body = {
        "name": "gap",
        "providedData": observations(frame),
        "configuredModelWithDataSourceId": bundle.id,
        "nPeriods": 2,
    }
    jobs_before = len(client.list_jobs())
    answer = http.post("/v1/analytics/make-prediction-with-data-source", json=body)
    assert answer.status_code == 422
    assert "rainfall" in answer.json()["detail"] and "providedData" in answer.json()["detail"]
    assert len(client.list_jobs()) == jobs_before


def test_missing_covariate_values_refuse_an_evaluation(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=3)
    frame.loc[7, "mean_temperature"] = np.nan
    dataset = client.create_dataset(f"gappy {unique}", frame)
    jobs_before = len(client.list_jobs())
    with pytest.raises(UnprocessableEntityError, match="mean_temperature"):
        client.create_evaluation("gappy", "regression_model", dataset.id, n_periods=2, n_splits=2)
    assert len(client.list_jobs()) == jobs_before


def test_nothing_a_fuzzed_request_sends_is_a_500(http: httpx.Client) -> None:
    bodies = [
        None,
        [],
        {"name": 1},
        {"name": "x", "observations": [{}]},
        {"name": "x", "observations": "x"},
    ]
    for path in [
        "/v1/crud/datasets",
        "/v1/analytics/create-backtest",
        "/v1/crud/configured-models",
        "/v1/analytics/make-prediction-with-data-source",
        "/v1/analytics/make-dataset",
    ]:
        for body in bodies:
            answer = http.post(path, json=body)
            assert 400 <= answer.status_code < 500, (path, body, answer.text)
