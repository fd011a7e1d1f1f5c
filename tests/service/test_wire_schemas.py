"""The 2.5.1 schema check itself: it accepts 2.5.1's own answers (as the peer gave them) and
fails, naming the place, on a wrong shape."""

from __future__ import annotations

import pytest

from wire_schemas import assert_matches_chap_core, route_template


def test_answers_copied_from_a_2_5_1_server_fit() -> None:
    assert_matches_chap_core(
        "GET", "/health/ready", {"status": "success", "checks": {"db": "ok", "redis": "ok"}}
    )
    assert_matches_chap_core("POST", "/v1/crud/prediction-setups", {"id": 1})
    assert_matches_chap_core("GET", "/v1/jobs/5f77/request", {"name": "K", "nPeriods": 3})


@pytest.mark.parametrize(
    "method, path, body, place",
    [
        ("GET", "/health/ready", {"status": "success", "checks": {"db": True}}, "checks/db"),
        ("GET", "/health/probe", {"checks": {}}, "'status' is a required property"),
        ("GET", "/v1/crud/prediction-setups", [{"id": "1"}], "0/id"),
        ("GET", "/v1/analytics/weather-providers", [{"id": "x", "displayName": "X"}], "leaks"),
    ],
)
def test_a_wrong_shape_fails_naming_where(method: str, path: str, body: object, place: str) -> None:
    with pytest.raises(AssertionError, match="does not fit") as failure:
        assert_matches_chap_core(method, path, body)
    assert place in str(failure.value)


def test_a_status_or_route_2_5_1_does_not_document_fails() -> None:
    with pytest.raises(AssertionError, match="documents no status 404"):
        assert_matches_chap_core("GET", "/v1/crud/prediction-setups", [], 404)
    with pytest.raises(AssertionError, match="serves no GET /v1/nothing"):
        assert_matches_chap_core("GET", "/v1/nothing", [])


def test_concrete_paths_find_their_template_literal_segments_first() -> None:
    assert route_template("GET", "/v1/crud/backtests/7") == "/v1/crud/backtests/{backtestId}"
    assert route_template("GET", "/v1/crud/backtests/7/info") == (
        "/v1/crud/backtests/{backtestId}/info"
    )
    assert route_template("GET", "/v1/analytics/actual-cases/3?isDatasetId=true") == (
        "/v1/analytics/actual-cases/{backtestId}"
    )
