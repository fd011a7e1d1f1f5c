"""Alert policies and alerts on a mock chap-core 2.5.1 (both drivers): policies stored and read
back with their levels, alerts recorded, filtered, queued for review, approved or declined in
2.5.1's shape (each body checked against its request schema), bad arguments refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import AlertLevel, ConflictError, PercentileParams, SeasonalParams

from .chap_core_mock import ChapCoreMock

POLICY = {
    "id": 1,
    "name": "malaria",
    "created": "2026-11-23T21:39:46Z",
    "levels": [
        {
            "name": "monitor",
            "thresholdParams": {"type": "seasonal", "stdMultiplier": 1.0},
            "exceedanceThreshold": 0.5,
        },
        {
            "name": "alert",
            "thresholdParams": {"type": "percentile", "quantile": 0.9, "baselineYears": 5},
            "exceedanceThreshold": 0.8,
        },
    ],
}


def alert(alert_id: int, approved: str = "pending", by: str | None = None) -> dict[str, Any]:
    return {
        "id": alert_id,
        "timePeriod": "202301",
        "orgUnit": "OU_North",
        "alertPolicyId": 1,
        "level": "alert",
        "predictionId": None,
        "created": "2026-11-23T21:39:46Z",
        "approved": approved,
        "approvedBy": by,
        "approvedAt": None if by is None else "2026-11-23T21:40:00Z",
    }


def test_a_policy_is_stored_with_its_levels_and_read_back(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "POST /v1/crud/alert-policies": httpx.Response(200, json={"id": 1}),
            "GET /v1/crud/alert-policies/1": httpx.Response(200, json=POLICY),
        }
    )
    levels = [
        AlertLevel(
            name="monitor",
            threshold_params=SeasonalParams(std_multiplier=1),
            exceedance_threshold=0.5,
        ),
        {
            "name": "alert",
            "threshold_params": {"type": "percentile", "quantile": 0.9},
            "exceedance_threshold": 0.8,
        },
    ]
    policy = call(mock.handler, "create_alert_policy", "malaria", levels)
    assert mock.bodies[0] == {
        "name": "malaria",
        "levels": [
            {
                "name": "monitor",
                "thresholdParams": {"type": "seasonal", "stdMultiplier": 1.0},
                "exceedanceThreshold": 0.5,
            },
            {
                "name": "alert",
                "thresholdParams": {"type": "percentile", "quantile": 0.9, "baselineYears": 5},
                "exceedanceThreshold": 0.8,
            },
        ],
    }
    assert policy.id == 1
    assert policy.levels[1].threshold_params == PercentileParams(quantile=0.9)


def test_one_alert_is_recorded_and_returned_as_stored(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "POST /v1/crud/alerts": httpx.Response(200, json={"ids": [4]}),
            "GET /v1/crud/alerts/4": httpx.Response(200, json=alert(4)),
        }
    )
    recorded = call(mock.handler, "create_alert", 1, "alert", "OU_North", "202301")
    assert mock.bodies[0] == {
        "alerts": [
            {"timePeriod": "202301", "orgUnit": "OU_North", "alertPolicyId": 1, "level": "alert"}
        ]
    }
    assert (recorded.id, recorded.approved) == (4, "pending")


def test_the_review_queue_is_the_pending_alerts(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock({"GET /v1/crud/alerts": httpx.Response(200, json=[alert(4)])})
    [queued] = call(mock.handler, "alert_review_queue", 1)
    assert dict(mock.seen[0].url.params) == {"alertPolicyId": "1", "approved": "pending"}
    assert queued.id == 4
    call(mock.handler, "list_alerts", None, 9, "OU_South", "declined")
    assert dict(mock.seen[1].url.params) == {
        "predictionId": "9",
        "orgUnit": "OU_South",
        "approved": "declined",
    }


@pytest.mark.parametrize(
    ("method", "decision"), [("approve_alert", "approved"), ("decline_alert", "declined")]
)
def test_a_reviewer_approves_or_declines_one_alert_or_several(
    call: Callable[..., Any], method: str, decision: str
) -> None:
    mock = ChapCoreMock(
        {
            "POST /v1/crud/alerts/$approve": lambda request: httpx.Response(
                200, json=[alert(i, decision, "ana") for i in (4, 5)]
            )
        }
    )
    reviewed = call(mock.handler, method, [4, 5], "ana")
    assert mock.bodies[0] == {"alertIds": [4, 5], "approved": decision, "approvedBy": "ana"}
    assert {(a.approved, a.approved_by) for a in reviewed} == {(decision, "ana")}
    call(mock.handler, method, 4, "ana")
    assert mock.bodies[1]["alertIds"] == [4]


def test_an_approved_alert_cannot_be_deleted(call: Callable[..., Any]) -> None:
    detail = {"detail": "Alert 1 is approved for dissemination and cannot be deleted"}
    mock = ChapCoreMock({"DELETE /v1/crud/alerts/1": httpx.Response(409, json=detail)})
    with pytest.raises(ConflictError, match="approved for dissemination"):
        call(mock.handler, "delete_alert", 1)


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        ("create_alert_policy", ("p", []), "levels must be a non-empty list"),
        (
            "create_alert_policy",
            ("p", [{"name": "x", "exceedance_threshold": 0.5}]),
            "levels: .* is not an alert level",
        ),
        (
            "create_alert_policy",
            (
                "p",
                [
                    {
                        "name": "x",
                        "threshold_params": {"type": "seasonal"},
                        "exceedance_threshold": 1.5,
                    }
                ],
            ),
            "levels",
        ),
        (
            "create_alert_policy",
            (
                "p",
                [
                    {
                        "name": "x",
                        "threshold_params": {"type": "percentile", "baseline_year": 3},
                        "exceedance_threshold": 0.5,
                    }
                ],
            ),
            r"levels\[0\].threshold_params: the 'percentile' strategy takes no 'baseline_year'",
        ),
        ("create_alert", (1, "", "OU_North", "202301"), "level must be a non-empty string"),
        ("create_alerts", ([],), "alerts must hold at least one alert"),
        ("create_alerts", ([{"level": "x"}],), "alerts: .* is not an alert"),
        ("list_alerts", (None, None, None, "maybe"), "approved must be one of"),
        ("approve_alert", ([], "ana"), "alert_ids must be an alert id"),
        ("decline_alert", (4, " "), "approved_by must be a non-empty string"),
        ("get_alert_policy", ("1",), "alert_policy_id must be an int"),
    ],
)
def test_bad_arguments_are_refused_before_sending(
    call: Callable[..., Any], method: str, args: tuple[Any, ...], message: str
) -> None:
    mock = ChapCoreMock({})
    with pytest.raises((TypeError, ValueError), match=message):
        call(mock.handler, method, *args)
    assert mock.seen == []
