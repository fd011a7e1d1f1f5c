"""Error responses become the right exceptions; idempotent requests are retried, POSTs are not;
the proxy prefix and the key header go on every request; the key never leaks."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import (
    AuthenticationError,
    ChapClient,
    ChapConnectionError,
    ChapDecodeError,
    ChapError,
    ChapHTTPError,
    ChapTimeoutError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RetryPolicy,
    ServerError,
    UnprocessableEntityError,
)
from chaplab.client._steps import parse_retry_after

from .fake_service import FakeService

KEY = "sk_test_0123456789abcdefghij"


def test_prefix_and_key_on_every_request(make_client: Any, fake: FakeService) -> None:
    fake.prefix, fake.api_key = "/api/apps/chap", KEY
    client = make_client(proxy_prefix="api/apps/chap/", api_key=KEY)
    client.list_datasets()
    client.evaluation_entries(1, quantiles=[0.5])
    client.create_configured_model("weekly", 1)
    client.list_models()
    assert fake.paths() == [
        "GET /api/apps/chap/v1/crud/datasets",
        "GET /api/apps/chap/v1/analytics/evaluation-entry",
        "POST /api/apps/chap/v1/crud/configured-models",
        "GET /api/apps/chap/v1/crud/models",
    ]
    assert all(r.headers["X-API-Key"] == KEY for r in fake.requests)


def test_custom_key_header_and_gateway_auth(make_client: Any, fake: FakeService) -> None:
    fake.api_key, fake.key_header = KEY, "X-Chap-Key"
    client = make_client(api_key=KEY, api_key_header="X-Chap-Key", auth=("gw", "secret"))
    client.list_datasets()
    request = fake.requests[-1]
    assert request.headers["X-Chap-Key"] == KEY
    assert request.headers["Authorization"].startswith("Basic ")


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
        client.create_configured_model("weekly", 1, {"n_lags": "three"})
    error = caught.value
    assert error.errors == [{"loc": ["body", "userOptionValues", "n_lags"],
                             "msg": "Input should be a valid integer", "type": "int_type"}]
    assert "userOptionValues.n_lags: Input should be a valid integer" in str(error)


@pytest.mark.parametrize(("status", "error_class"), [
    (403, PermissionDeniedError), (409, ConflictError), (500, ServerError), (418, ChapHTTPError),
])
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
        "Internal server error - ValueError: boom")


def test_problem_details_422_with_errors(client: Any, fake: FakeService) -> None:
    problem = {"type": "about:blank", "title": "Unprocessable Entity", "status": 422,
               "detail": "Request validation failed", "instance": "/v1/crud/configured-models",
               "errors": [{"loc": ["body", "name"], "msg": "Field required", "type": "missing"}]}
    fake.fail("POST /v1/crud/configured-models", httpx.Response(
        422, json=problem, headers={"content-type": "application/problem+json"}))
    with pytest.raises(UnprocessableEntityError) as caught:
        client.create_configured_model("weekly", 1)
    assert caught.value.errors[0]["loc"] == ["body", "name"]
    assert caught.value.problem == problem
    assert str(caught.value).endswith("Request validation failed - name: Field required")


def test_dropped_connection_then_500_then_success_is_retried(
    client: Any, fake: FakeService
) -> None:
    fake.fail("GET /v1/crud/datasets", 500)
    fake.fail("GET /v1/crud/datasets", httpx.RemoteProtocolError, 503)
    with pytest.raises(ServerError):
        client.list_datasets()  # a 500 is not a retry status
    [dataset] = client.list_datasets()  # dropped connection, then 503, then success
    assert dataset.id == 1
    assert fake.paths().count("GET /v1/crud/datasets") == 4
    assert fake.clock.sleeps == [0.25, 0.5]


def test_retry_statuses_are_configurable(make_client: Any, fake: FakeService) -> None:
    client = make_client(retry=RetryPolicy(jitter=False, retry_statuses=(500, 503)))
    fake.fail("GET /v1/crud/datasets", 500)
    assert client.list_datasets()[0].id == 1
    assert fake.paths() == ["GET /v1/crud/datasets"] * 2


def test_retries_are_bounded(make_client: Any, fake: FakeService) -> None:
    client = make_client(retry=RetryPolicy(max_retries=2, jitter=False))
    fake.fail("GET /v1/crud/datasets", 503, 503, 503)
    with pytest.raises(ServerError):
        client.list_datasets()
    fake.fail("GET /v1/jobs", httpx.ReadError, httpx.ReadError, httpx.ReadError)
    with pytest.raises(ChapConnectionError, match="GET /v1/jobs could not reach .* after 2 retr"):
        client.list_jobs()
    assert fake.paths() == ["GET /v1/crud/datasets"] * 3 + ["GET /v1/jobs"] * 3


def test_429_honours_retry_after(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/backtests", httpx.Response(429, headers={"Retry-After": "3"}))
    assert client.list_evaluations()[0].id == 1
    assert fake.clock.sleeps == [3.0]
    assert fake.paths() == ["GET /v1/crud/backtests"] * 2


def test_post_is_not_retried_after_it_may_have_arrived(client: Any, fake: FakeService) -> None:
    fake.fail("POST /v1/analytics/create-backtest", httpx.RemoteProtocolError)
    with pytest.raises(ChapConnectionError, match="POST /v1/analytics/create-backtest"):
        client.create_evaluation("bt", "naive_model", 1)
    fake.fail("POST /v1/analytics/create-backtest", 503)
    with pytest.raises(ServerError):
        client.create_evaluation("bt", "naive_model", 1)
    assert fake.paths() == ["POST /v1/analytics/create-backtest"] * 2
    assert fake.jobs == {}


def test_post_is_retried_when_the_connection_never_opened(client: Any, fake: FakeService) -> None:
    fake.fail("POST /v1/analytics/create-backtest", httpx.ConnectError)
    job = client.create_evaluation("bt", "naive_model", 1)
    assert list(fake.jobs) == [job.id]
    assert fake.paths() == ["POST /v1/analytics/create-backtest"] * 2


def test_timeouts_become_chap_timeout_errors(make_client: Any, fake: FakeService) -> None:
    client = make_client(retry=RetryPolicy(max_retries=0))
    fake.fail("GET /system/info", httpx.ReadTimeout)
    with pytest.raises(ChapTimeoutError, match="GET /system/info timed out"):
        client.system_info()


def test_truncated_json_is_a_decode_error(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", httpx.Response(
        200, content=b'[{"id": 1, "name": "de', headers={"content-type": "application/json"}))
    with pytest.raises(ChapDecodeError, match="GET /v1/crud/datasets answered .*not valid JSON"
                       ) as caught:
        client.list_datasets()
    assert caught.value.body.startswith('[{"id": 1')
    assert isinstance(caught.value, ChapError)


def test_wrong_shape_is_a_decode_error(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", httpx.Response(200, json={"id": "x"}))
    with pytest.raises(ChapDecodeError, match="unexpected shape"):
        client.list_datasets()


def test_key_never_in_repr_errors_or_logs(
    make_client: Any, fake: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    client = make_client(api_key=KEY, retry=RetryPolicy(max_retries=1, jitter=False))
    fake.fail("GET /v1/crud/datasets", 503, httpx.ConnectError)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ChapConnectionError) as caught:
        client.list_datasets()
    assert "sk_test" in repr(client) and KEY not in repr(client)
    assert KEY[7:] not in str(caught.value)
    assert "retry 1/1" in caplog.text
    assert KEY[7:] not in caplog.text


def test_retry_after_forms() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert RetryPolicy().delay(1, httpx.Response(429, headers={"Retry-After": "9999"})) == 60.0


def test_constructor_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="base_url"):
        ChapClient("localhost:8000")
    with pytest.raises(ValueError, match="api_key"):
        ChapClient("http://x", api_key="")
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)


# -- no exception text holds the key -------------------------------------------------------

Handler = Callable[[httpx.Request, FakeService], httpx.Response]


def route_through(monkeypatch: pytest.MonkeyPatch, fake: FakeService, handler: Handler) -> None:
    """Clients built after this call send their requests to ``handler(request, fake)``."""
    transport = httpx.MockTransport(lambda request: handler(request, fake))
    monkeypatch.setattr(fake, "transport", lambda: transport)


def test_transport_error_text_is_scrubbed_of_the_key(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def quote_the_key(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        key = request.headers["X-Chap-Key"]
        raise httpx.ReadError(f"connection broke while sending {key!r} ({key})", request=request)

    route_through(monkeypatch, fake, quote_the_key)
    client = make_client(api_key=KEY, api_key_header="X-Chap-Key")
    with pytest.raises(ChapConnectionError, match="could not reach .* after 3 retries") as caught:
        client.list_datasets()
    assert KEY[7:] not in str(caught.value)
    assert "sending '[redacted]' ([redacted])" in str(caught.value)

def test_gateway_credentials_are_scrubbed_too(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def quote_the_credentials(request: httpx.Request, fake: FakeService) -> httpx.Response:
        raise httpx.ReadError(request.headers["Authorization"], request=request)

    route_through(monkeypatch, fake, quote_the_credentials)
    client = make_client(auth=("gw", "pa55word"))
    with pytest.raises(ChapConnectionError) as caught:
        client.list_datasets()
    assert str(caught.value).endswith(": [redacted]")

def test_a_request_that_cannot_be_formed_is_not_retried(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse_the_header(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        value = request.headers["X-API-Key"].encode()
        raise httpx.LocalProtocolError(f"Illegal header value {value!r}", request=request)

    route_through(monkeypatch, fake, refuse_the_header)
    client = make_client(api_key=KEY)
    with pytest.raises(ChapConnectionError) as caught:
        client.list_datasets()
    message = str(caught.value)
    assert message == (
        "GET /v1/crud/datasets: the request could not be formed: "
        "Illegal header value b'[redacted]'"
    )
    assert fake.paths() == ["GET /v1/crud/datasets"]

def test_an_error_body_that_echoes_the_key_is_scrubbed(
    make_client: Any, fake: FakeService
) -> None:
    fake.fail("GET /v1/crud/datasets", httpx.Response(401, json={"detail": f"bad key {KEY}"}))
    client = make_client(api_key=KEY)
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    assert caught.value.message == "bad key [redacted]"
    assert KEY not in str(caught.value)

def test_an_unreadable_answer_that_echoes_the_key_is_scrubbed(
    make_client: Any, fake: FakeService
) -> None:
    fake.fail("GET /v1/jobs/job-1", httpx.Response(200, json={"status": {"key": KEY}}))
    client = make_client(api_key=KEY)
    with pytest.raises(ChapDecodeError) as caught:
        client.job_status("job-1")
    assert KEY not in str(caught.value)
    assert "[redacted]" in str(caught.value)


# -- 403 -------------------------------------------------------------------------------------


def test_403_is_caught_as_an_authentication_error(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", 403)
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    assert isinstance(caught.value, PermissionDeniedError)
    assert caught.value.status_code == 403


# -- a retried DELETE ------------------------------------------------------------------------


def arrive_then_drop(request_line: str) -> Handler:
    """A handler that lets the first ``request_line`` request arrive, then drops its answer."""
    dropped: list[httpx.Request] = []

    def handler(request: httpx.Request, fake: FakeService) -> httpx.Response:
        response = fake(request)
        if f"{request.method} {request.url.path}" == request_line and not dropped:
            dropped.append(request)
            raise httpx.RemoteProtocolError("server disconnected", request=request)
        return response

    return handler

def test_a_retried_delete_that_finds_the_evaluation_gone_succeeds(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    route_through(monkeypatch, fake, arrive_then_drop("DELETE /v1/crud/backtests/1"))
    client = make_client()
    assert client.delete_evaluation(1) is None
    assert 1 not in fake.evaluations
    assert fake.paths() == ["DELETE /v1/crud/backtests/1"] * 2
    with pytest.raises(NotFoundError):
        client.delete_evaluation(1)  # a 404 to a first attempt is still an error

def test_a_retried_delete_that_finds_the_job_gone_succeeds(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.add_job(id="job-1")
    route_through(monkeypatch, fake, arrive_then_drop("DELETE /v1/jobs/job-1"))
    client = make_client()
    client.delete_job("job-1")
    assert fake.jobs == {}
    assert fake.paths() == ["DELETE /v1/jobs/job-1"] * 2

@pytest.mark.parametrize("first", [httpx.ConnectError, 503])
def test_a_404_after_a_request_that_never_arrived_is_not_found(
    client: Any, fake: FakeService, first: Any
) -> None:
    fake.fail("DELETE /v1/crud/backtests/99", first)
    with pytest.raises(NotFoundError):
        client.delete_evaluation(99)
    assert fake.paths() == ["DELETE /v1/crud/backtests/99"] * 2

def test_a_bulk_delete_keeps_its_404(client: Any, fake: FakeService) -> None:
    fake.fail("DELETE /v1/crud/backtests", httpx.ReadError)
    with pytest.raises(NotFoundError):
        client.delete_evaluations([1, 2])  # some ids may be unknown: nothing was deleted
    assert fake.paths() == ["DELETE /v1/crud/backtests"] * 2
