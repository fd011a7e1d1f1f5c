"""Retries: idempotent requests are retried, POSTs only when they never left; transport
errors become connection errors scrubbed of credentials; a retried DELETE that finds the
resource gone succeeds."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from chaplab.client import (
    ChapConnectionError,
    ChapTimeoutError,
    NotFoundError,
    RetryPolicy,
    ServerError,
)
from chaplab.client._steps import parse_retry_after

from .fake_service import DISCOVERY, KEY, FakeService, Handler, route_through


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
    sent = [path for path in fake.paths() if path not in DISCOVERY]
    assert sent == ["GET /v1/crud/backtests"] * 2


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
        "GET /v1/crud/datasets: the request could not be formed: Illegal header value b'[redacted]'"
    )
    assert fake.paths() == ["GET /v1/crud/datasets"]


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
