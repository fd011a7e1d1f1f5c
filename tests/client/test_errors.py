"""Error responses become the right exceptions, with readable messages and no credentials."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from chaplab.client import (
    AuthenticationError,
    ChapHTTPError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ServerError,
    UnprocessableEntityError,
)

from .fake_service import KEY, FakeService


def test_401_problem_details(make_client: Any, fake: FakeService) -> None:
    fake.api_key = KEY
    client = make_client(api_key="sk_test_wrong_key_0000000000")
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    error = caught.value
    assert error.status_code == 401
    assert error.message == "Invalid API key"
    assert error.problem["type"] == "urn:service:error:unauthorized"
    assert error.problem["instance"] == "/v1/crud/datasets"
    assert '"title": "Unauthorized"' in error.body
    assert str(error) == "GET /v1/crud/datasets failed with HTTP 401: Invalid API key"
    assert "wrong_key" not in str(error) and "wrong_key" not in repr(client)


def test_401_missing_key(client: Any, fake: FakeService) -> None:
    fake.api_key = KEY
    with pytest.raises(AuthenticationError, match="Missing authentication header: X-API-Key"):
        client.list_jobs()


def test_404_detail_body(client: Any) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.get_dataset(99)
    assert caught.value.message == "Dataset 99 not found"
    assert caught.value.body == '{"detail":"Dataset 99 not found"}'
    assert "GET /v1/crud/datasets/99" in str(caught.value)


def test_422_field_problems(client: Any) -> None:
    with pytest.raises(UnprocessableEntityError) as caught:
        client.create_configured_model("daily", 1, {"n_lags": "three"})
    error = caught.value
    assert error.errors == [
        {
            "loc": ["body", "userOptionValues", "n_lags"],
            "msg": "Input should be a valid integer",
            "type": "int_type",
        }
    ]
    assert "user_option_values.n_lags: Input should be a valid integer" in str(error)


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (403, PermissionDeniedError),
        (409, ConflictError),
        (500, ServerError),
        (418, ChapHTTPError),
    ],
)
def test_status_classes(client: Any, fake: FakeService, status: int, error_class: type) -> None:
    fake.fail("GET /v1/crud/model-templates", status)
    with pytest.raises(error_class) as caught:
        client.list_model_templates()
    assert caught.value.status_code == status


def test_500_text_names_the_server_error(client: Any, fake: FakeService) -> None:
    fake.fail("POST /v1/analytics/create-backtest", 500)
    with pytest.raises(ServerError) as caught:
        client.create_evaluation("bt", "naive_model", 1)
    assert str(caught.value) == (
        "POST /v1/analytics/create-backtest failed with HTTP 500: "
        "Internal server error - ValueError: boom"
    )


def test_problem_details_422_with_errors(client: Any, fake: FakeService) -> None:
    problem = {
        "type": "about:blank",
        "title": "Unprocessable Entity",
        "status": 422,
        "detail": "Request validation failed",
        "instance": "/v1/crud/configured-models",
        "errors": [{"loc": ["body", "name"], "msg": "Field required", "type": "missing"}],
    }
    fake.fail(
        "POST /v1/crud/configured-models",
        httpx.Response(422, json=problem, headers={"content-type": "application/problem+json"}),
    )
    with pytest.raises(UnprocessableEntityError) as caught:
        client.create_configured_model("daily", 1)
    assert caught.value.errors[0]["loc"] == ["body", "name"]
    assert caught.value.problem == problem
    assert str(caught.value).endswith("Request validation failed - name: Field required")


def test_an_error_body_that_echoes_the_key_is_scrubbed(make_client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", httpx.Response(401, json={"detail": f"bad key {KEY}"}))
    client = make_client(api_key=KEY)
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    assert caught.value.message == "bad key [redacted]"
    assert KEY not in str(caught.value)


def test_403_is_caught_as_an_authentication_error(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", 403)
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    assert isinstance(caught.value, PermissionDeniedError)
    assert caught.value.status_code == 403
