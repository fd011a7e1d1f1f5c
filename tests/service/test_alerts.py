"""Alert policies and alerts over loopback: a policy's levels and their checks, alerts recorded
in batches that are checked whole (nothing is stored when one alert is bad), the filters and
the review queue, approving and declining sets of alerts, what may be deleted, and every
answer in chap-core 2.5.1's published shape."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, inspect

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from wire_schemas import assert_matches_chap_core

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration
POLICIES = "/v1/crud/alert-policies"
ALERTS = "/v1/crud/alerts"
LADDER = [
    {"name": "monitor", "thresholdParams": {"type": "seasonal"}, "exceedanceThreshold": 0.5},
    {
        "name": "action",
        "thresholdParams": {"type": "percentile", "quantile": [0.9], "baselineYears": 3},
        "exceedanceThreshold": 0.8,
    },
]


@pytest.fixture(scope="module")
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=60) as plain:
        yield plain


@pytest.fixture(scope="module")
def prediction(session_client: ChapClient) -> dict[str, Any]:
    """A finished prediction of two org units for 2017-01 to 2017-03."""
    frame = small_frame(n_years=2)
    made = session_client.run_prediction(
        f"alerts {uuid.uuid4().hex[:8]}",
        "naive_model",
        frame,
        n_periods=3,
        geojson=geojson_for(sorted(set(frame.location))),
        timeout=120,
    )
    return {"id": made.id, "org_units": sorted(set(frame.location)), "periods": made.periods}


def call(http: httpx.Client, method: str, path: str, status: int = 200, **options: Any) -> Any:
    """The JSON answer, checked to have ``status`` and, when 200, 2.5.1's shape."""
    answer = http.request(method, path, **options)
    assert answer.status_code == status, answer.text
    if status == 200:
        assert_matches_chap_core(method, path, answer.json())
    return answer.json()


def refused(
    http: httpx.Client, method: str, path: str, field: str, status: int = 422, **options: Any
) -> str:
    """The problem's detail after checking that it names ``field`` and nothing was stored."""
    before = (http.get(POLICIES).json(), http.get(ALERTS).json())
    answer = http.request(method, path, **options)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    detail = str(answer.json()["detail"])
    assert field in detail, detail
    assert (http.get(POLICIES).json(), http.get(ALERTS).json()) == before
    return detail


def new_policy(http: httpx.Client, levels: list[dict[str, Any]] = LADDER) -> int:
    created = call(http, "POST", POLICIES, json={"name": "ladder", "levels": levels})
    return int(created["id"])


def test_a_policy_keeps_its_levels_in_order_with_the_defaults_filled_in(
    http: httpx.Client,
) -> None:
    policy_id = new_policy(http)
    policy = call(http, "GET", f"{POLICIES}/{policy_id}")
    assert policy["id"] == policy_id and policy["name"] == "ladder" and policy["created"]
    assert policy["levels"] == [
        {
            "name": "monitor",
            "thresholdParams": {"type": "seasonal", "stdMultiplier": 2.0},
            "exceedanceThreshold": 0.5,
        },
        {
            "name": "action",
            "thresholdParams": {"type": "percentile", "quantile": [0.9], "baselineYears": 3},
            "exceedanceThreshold": 0.8,
        },
    ]
    assert policy in call(http, "GET", POLICIES)
    refused(http, "GET", f"{POLICIES}/987654", "987654", status=404)


@pytest.mark.parametrize(
    ("levels", "field"),
    [
        ([LADDER[0], {**LADDER[1], "name": "monitor"}], "levels[1].name"),
        ([{**LADDER[0], "name": " monitor"}], "levels[0].name"),
        (
            [{**LADDER[0], "thresholdParams": {"type": "seasonal", "stdMultiplier": [1, 2]}}],
            "levels[0].thresholdParams",
        ),
        ([{**LADDER[0], "exceedanceThreshold": 1.5}], "exceedanceThreshold"),
        ([{**LADDER[0], "thresholdParams": {"type": "median"}}], "thresholdParams"),
        ([], "levels"),
    ],
)
def test_a_bad_policy_is_refused_naming_the_field(
    http: httpx.Client, levels: list[dict[str, Any]], field: str
) -> None:
    refused(http, "POST", POLICIES, field, json={"name": "bad", "levels": levels})


def test_a_policy_needs_a_name(http: httpx.Client) -> None:
    refused(http, "POST", POLICIES, "name", json={"name": "  ", "levels": LADDER})


def alert(
    policy_id: int,
    prediction: dict[str, Any] | None,
    unit: str,
    period: str,
    level: str = "monitor",
) -> dict[str, Any]:
    return {
        "timePeriod": period,
        "orgUnit": unit,
        "alertPolicyId": policy_id,
        "level": level,
        "predictionId": None if prediction is None else prediction["id"],
    }


def test_alerts_are_recorded_pending_and_filtered(
    http: httpx.Client, prediction: dict[str, Any]
) -> None:
    policy_id = new_policy(http)
    first, second = prediction["org_units"]
    batch = [
        alert(policy_id, prediction, first, "2017-01"),
        alert(policy_id, prediction, second, "201702", "action"),
        alert(policy_id, None, first, "2017-01"),
    ]
    ids = call(http, "POST", ALERTS, json={"alerts": batch})["ids"]
    assert len(ids) == 3 and ids == sorted(ids)
    stored = call(http, "GET", f"{ALERTS}/{ids[1]}")
    assert stored == {
        "id": ids[1],
        "timePeriod": "201702",
        "orgUnit": second,
        "alertPolicyId": policy_id,
        "level": "action",
        "predictionId": prediction["id"],
        "created": stored["created"],
        "approved": "pending",
        "approvedBy": None,
        "approvedAt": None,
    }
    by_policy = call(http, "GET", ALERTS, params={"alertPolicyId": policy_id})
    assert [row["id"] for row in by_policy] == ids
    assert by_policy[0]["timePeriod"] == "201701"  # periods are stored in their canonical form
    of_prediction = call(
        http, "GET", ALERTS, params={"alertPolicyId": policy_id, "predictionId": prediction["id"]}
    )
    assert [row["id"] for row in of_prediction] == ids[:2]
    assert [
        row["id"]
        for row in call(http, "GET", ALERTS, params={"alertPolicyId": policy_id, "orgUnit": first})
    ] == [ids[0], ids[2]]
    queue = call(http, "GET", ALERTS, params={"approved": "pending"})
    assert set(ids) <= {row["id"] for row in queue}
    assert all(row["approved"] == "pending" for row in queue)
    refused(http, "GET", ALERTS, "approved", params={"approved": "maybe"})


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"level": "panic"}, "alerts[1].level"),
        ({"alertPolicyId": 987654}, "alerts[1].alertPolicyId"),
        ({"predictionId": 987654}, "alerts[1].predictionId"),
        ({"orgUnit": "elsewhere"}, "alerts[1].orgUnit"),
        ({"timePeriod": "2030-01"}, "alerts[1].timePeriod"),
        ({"timePeriod": "2017-13"}, "alerts[1].timePeriod"),
        ({"timePeriod": "2017-02"}, "alerts[1]"),  # the first alert's cell again
    ],
)
def test_a_batch_with_one_bad_alert_stores_nothing(
    http: httpx.Client, prediction: dict[str, Any], change: dict[str, Any], field: str
) -> None:
    policy_id = new_policy(http)
    unit = prediction["org_units"][0]
    good = alert(policy_id, prediction, unit, "2017-02")
    bad = {**alert(policy_id, prediction, unit, "2017-03"), **change}
    # the policy made for this test has no alert yet; the batch must leave it so
    refused(http, "POST", ALERTS, field, json={"alerts": [good, bad]})
    assert http.get(ALERTS, params={"alertPolicyId": policy_id}).json() == []


def test_a_prediction_raises_one_alert_per_org_unit_and_period(
    http: httpx.Client, prediction: dict[str, Any]
) -> None:
    policy_id = new_policy(http)
    unit = prediction["org_units"][1]
    call(http, "POST", ALERTS, json={"alerts": [alert(policy_id, prediction, unit, "201703")]})
    detail = refused(
        http,
        "POST",
        ALERTS,
        "alerts[0]",
        json={"alerts": [alert(policy_id, prediction, unit, "2017-03", "action")]},
    )
    assert "already has an alert" in detail


def test_reviewers_approve_and_decline_sets_of_alerts(http: httpx.Client) -> None:
    policy_id = new_policy(http)
    batch = [alert(policy_id, None, "A", period) for period in ("202401", "202402", "202403")]
    ids = call(http, "POST", ALERTS, json={"alerts": batch})["ids"]
    approved = call(
        http,
        "POST",
        ALERTS + "/$approve",
        json={"alertIds": ids[:2], "approved": "approved", "approvedBy": "ana"},
    )
    assert [row["id"] for row in approved] == ids[:2]
    assert all(
        row["approved"] == "approved" and row["approvedBy"] == "ana" and row["approvedAt"]
        for row in approved
    )
    declined = call(
        http,
        "POST",
        ALERTS + "/$approve",
        json={"alertIds": [ids[2]], "approved": "declined", "approvedBy": "ben"},
    )
    assert declined[0]["approved"] == "declined" and declined[0]["approvedBy"] == "ben"
    queue = {row["id"] for row in call(http, "GET", ALERTS, params={"approved": "pending"})}
    assert not queue & set(ids)
    assert [
        row["id"]
        for row in call(
            http, "GET", ALERTS, params={"alertPolicyId": policy_id, "approved": "approved"}
        )
    ] == ids[:2]
    # an unknown id among them: 404 naming it, and no alert changes
    refused(
        http,
        "POST",
        ALERTS + "/$approve",
        "alertIds[1]",
        status=404,
        json={"alertIds": [ids[2], 987654], "approved": "approved", "approvedBy": "ana"},
    )
    refused(
        http,
        "POST",
        ALERTS + "/$approve",
        "approvedBy",
        json={"alertIds": [ids[2]], "approved": "approved", "approvedBy": ""},
    )
    back = call(
        http,
        "POST",
        ALERTS + "/$approve",
        json={"alertIds": [ids[2]], "approved": "pending", "approvedBy": "ana"},
    )
    assert back[0]["approved"] == "pending"
    assert back[0]["approvedBy"] is None and back[0]["approvedAt"] is None


def test_an_approved_alert_and_a_policy_with_alerts_stay_on_record(http: httpx.Client) -> None:
    policy_id = new_policy(http)
    ids = call(
        http,
        "POST",
        ALERTS,
        json={
            "alerts": [alert(policy_id, None, "A", "202401"), alert(policy_id, None, "A", "202402")]
        },
    )["ids"]
    call(
        http,
        "POST",
        ALERTS + "/$approve",
        json={"alertIds": [ids[0]], "approved": "approved", "approvedBy": "ana"},
    )
    refused(http, "DELETE", f"{ALERTS}/{ids[0]}", "approved", status=409)
    refused(http, "DELETE", f"{POLICIES}/{policy_id}", "alerts", status=409)
    assert call(http, "DELETE", f"{ALERTS}/{ids[1]}") == {"message": "deleted"}
    refused(http, "GET", f"{ALERTS}/{ids[1]}", str(ids[1]), status=404)
    unused = new_policy(http)
    assert call(http, "DELETE", f"{POLICIES}/{unused}") == {"message": "deleted"}
    refused(http, "DELETE", f"{POLICIES}/{unused}", str(unused), status=404)


def test_a_deleted_prediction_leaves_its_alerts_unlinked(
    http: httpx.Client, session_client: ChapClient
) -> None:
    frame = small_frame(n_years=2)
    made = session_client.run_prediction(
        f"alerts {uuid.uuid4().hex[:8]}",
        "naive_model",
        frame,
        n_periods=1,
        geojson=geojson_for(sorted(set(frame.location))),
        timeout=120,
    )
    policy_id = new_policy(http)
    unit = sorted(set(frame.location))[0]
    ids = call(
        http,
        "POST",
        ALERTS,
        json={"alerts": [alert(policy_id, {"id": made.id}, unit, made.periods[0])]},
    )["ids"]
    session_client.delete_prediction(made.id)
    assert call(http, "GET", f"{ALERTS}/{ids[0]}")["predictionId"] is None


def test_a_version_3_database_gains_the_alert_tables(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("alerts_v3")
    create_app(database, seed_demo=False)
    engine = create_engine(database)
    with engine.begin() as connection:
        for table in (
            "alerts",
            "alert_policies",
            "prediction_setup_forecasts",
            "prediction_setups",
            "job_requests",
        ):
            connection.exec_driver_sql(f"DROP TABLE {table}")
        connection.exec_driver_sql("UPDATE schema_version SET version = 3")
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        httpx.Client(base_url=server.url) as http,
    ):
        policy_id = new_policy(http)
        assert call(http, "POST", ALERTS, json={"alerts": [alert(policy_id, None, "A", "202401")]})
    assert {"alerts", "alert_policies"} <= set(inspect(engine).get_table_names())
    engine.dispose()
