"""Prediction setups on a mock chap-core 2.5.1 (both drivers): requests in 2.5.1's shape (each
body checked against its published schema), answers read, a setup's forecast history, bad
arguments refused before sending, and a server without setups named with the alternative."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab.client import PredictionSetupDetail, QuantileTarget, UnsupportedRouteError

from .chap_core_mock import ChapCoreMock, without

TEMPLATE = {"name": "naive_model", "version": "1", "id": 1}
CONFIGURED = {
    "id": 1,
    "name": "naive_model",
    "configurationDigest": "79b9",
    "userOptionValues": {},
    "additionalContinuousCovariates": [],
    "modelTemplate": TEMPLATE,
}
SETUP = {
    "id": 3,
    "name": "weekly forecast",
    "created": "2026-11-23T21:43:02.379839Z",
    "backtestId": 12,
    "configuredModel": CONFIGURED,
    "startPeriod": "202301",
    "orgUnits": ["OU_North", "OU_South"],
    "covariateSources": [],
    "periodType": "month",
    "scheduleCronExpression": None,
    "scheduleEnabled": False,
    "quantileTargets": [{"quantile": "0.5", "dataElementId": "de_median"}],
    "alertPolicy": None,
}
PREDICTION = {
    "id": 8,
    "name": "from setup",
    "datasetId": 6,
    "modelId": "naive_model",
    "nPeriods": 3,
    "created": "2026-11-23T21:43:03Z",
    "predictionSetupId": 3,
    "configuredModel": None,
    "dataset": {"id": 6, "name": "from setup", "type": "prediction"},
}
GEOJSON = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "id": "OU_North",
            "properties": {"id": "OU_North"},
            "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
        }
    ],
}


def test_a_setup_is_made_from_an_evaluation_and_read_back_with_its_forecast_history(
    call: Callable[..., Any],
) -> None:
    mock = ChapCoreMock(
        {
            "POST /v1/crud/prediction-setups": httpx.Response(200, json={"id": 3}),
            "GET /v1/crud/prediction-setups/3": httpx.Response(
                200, json={**SETUP, "predictions": [PREDICTION]}
            ),
        }
    )
    setup = call(
        mock.handler,
        "create_prediction_setup",
        12,
        "weekly forecast",
        quantile_targets=[QuantileTarget(quantile="0.5", data_element_id="de_median")],
    )
    assert mock.bodies[0] == {
        "backtestId": 12,
        "name": "weekly forecast",
        "scheduleEnabled": False,
        "quantileTargets": [{"quantile": "0.5", "dataElementId": "de_median"}],
    }
    assert isinstance(setup, PredictionSetupDetail)
    assert (setup.id, setup.backtest_id, setup.configured_model.name) == (3, 12, "naive_model")
    assert [(p.id, p.prediction_setup_id) for p in setup.predictions] == [(8, 3)]


def test_a_setup_runs_on_a_wide_frame_and_answers_with_its_job(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "POST /v1/crud/prediction-setups/3/run": httpx.Response(200, json={"id": "job-1"}),
        }
    )
    frame = pd.DataFrame(
        {
            "time_period": ["2023-01", "2023-01"],
            "location": ["OU_North", "OU_South"],
            "disease_cases": [40.0, 60.0],
        }
    )
    job = call(mock.handler, "run_prediction_setup", 3, "fresh", frame, GEOJSON, n_periods=2)
    assert (job.id, job.status) == ("job-1", "PENDING")
    body = mock.bodies[0]
    assert (body["name"], body["nPeriods"], body["geojson"]) == ("fresh", 2, GEOJSON)
    assert sorted((o["orgUnit"], o["featureName"], o["value"]) for o in body["providedData"]) == [
        ("OU_North", "disease_cases", 40.0),
        ("OU_South", "disease_cases", 60.0),
    ]


def test_observations_may_also_be_given_as_a_list(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "POST /v1/crud/prediction-setups/3/run": httpx.Response(200, json={"id": "job-2"}),
        }
    )
    observations = [
        {"period": "202301", "orgUnit": "OU_North", "featureName": "rainfall", "value": 12.5}
    ]
    call(mock.handler, "run_prediction_setup", 3, "fresh", observations, GEOJSON)
    assert mock.bodies[0]["providedData"] == observations
    assert mock.bodies[0]["nPeriods"] == 3


def test_an_update_sends_only_the_fields_given(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "PATCH /v1/crud/prediction-setups/3": httpx.Response(
                200, json={**SETUP, "name": "renamed", "scheduleEnabled": True}
            ),
        }
    )
    updated = call(mock.handler, "update_prediction_setup", 3, "renamed", "0 6 * * 1", True)
    assert mock.bodies[0] == {
        "name": "renamed",
        "scheduleCronExpression": "0 6 * * 1",
        "scheduleEnabled": True,
    }
    assert (updated.name, updated.schedule_enabled) == ("renamed", True)


def test_setups_are_listed_and_deleted(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "GET /v1/crud/prediction-setups": httpx.Response(200, json=[SETUP]),
            "DELETE /v1/crud/prediction-setups/3": httpx.Response(200, json={"message": "deleted"}),
        }
    )
    [listed] = call(mock.handler, "list_prediction_setups")
    assert listed.quantile_targets[0].data_element_id == "de_median"
    assert call(mock.handler, "delete_prediction_setup", 3) is None
    assert [r.method for r in mock.seen] == ["GET", "DELETE"]


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "message"),
    [
        ("create_prediction_setup", ("12", "x"), {}, "evaluation_id must be an int"),
        ("create_prediction_setup", (12, " "), {}, "name must be a non-empty string"),
        (
            "create_prediction_setup",
            (12, "x"),
            {"quantile_targets": [{"quantile": "0.5"}]},
            "quantile_targets",
        ),
        ("update_prediction_setup", (3,), {}, "at least one field"),
        (
            "update_prediction_setup",
            (3,),
            {"schedule_enabled": "yes"},
            "schedule_enabled must be a bool",
        ),
        ("run_prediction_setup", (3, "x", [], GEOJSON), {}, "observations must hold"),
        ("run_prediction_setup", (3, "x", [{"period": "202301"}], GEOJSON), {}, "observations"),
        ("run_prediction_setup", (3, "x", [], None), {}, "geojson must be"),
        ("get_prediction_setup", (-1,), {}, "setup_id must be >= 0"),
    ],
)
def test_bad_arguments_are_refused_before_sending_naming_the_argument(
    call: Callable[..., Any],
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    message: str,
) -> None:
    mock = ChapCoreMock({})
    with pytest.raises((TypeError, ValueError), match=message):
        call(mock.handler, method, *args, **kwargs)
    assert mock.seen == []


def test_a_server_without_setups_names_the_alternative(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock({}, openapi=without("GET /v1/crud/prediction-setups"))
    with pytest.raises(UnsupportedRouteError, match="run_prediction") as caught:
        call(mock.handler, "list_prediction_setups")
    assert caught.value.operation == "list_prediction_setups"
    assert mock.seen == []
