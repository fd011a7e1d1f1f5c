"""The client behind a faulty network: a fault proxy between the client and a service.

Each test runs with both drivers (sync and async) against both a small toolkit service and the
embedded modeling service. Idempotent reads come through resets, gateway errors and bodies cut
short by retrying; a creating POST reaches the service at most once whatever happens; a slow
service raises the timeout error long before its answer would arrive; truncated JSON is an
error, never partial data.
"""

from __future__ import annotations

import itertools
import socket
import time
from collections.abc import Callable

import pytest

from chaplab.client import (
    ChapConnectionError,
    ChapDecodeError,
    ChapTimeoutError,
    RetryPolicy,
    ServerError,
)

from .drivers import DRIVERS, FAST_RETRIES, Caller
from .faultproxy import Answer, Delay, FaultProxy, Reset, Truncate

TEMPLATES = "/v1/crud/model-templates"
CONFIGURED = "/v1/crud/configured-models"
SLOW_ANSWER_SECONDS = 60.0
_names = itertools.count(1)

ProxyFactory = Callable[[str], FaultProxy]


@pytest.fixture(params=["mini", "modeling"])
def upstream(request: pytest.FixtureRequest) -> str:
    """The base URL of the service under test."""
    fixture = "mini_service" if request.param == "mini" else "modeling_service"
    return request.getfixturevalue(fixture).url


@pytest.fixture(params=DRIVERS)
def driver(request: pytest.FixtureRequest) -> str:
    return request.param


def unique_name() -> str:
    return f"fault_probe_{next(_names)}_{time.monotonic_ns()}"


def closed_port() -> int:
    """A loopback port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stored_names(upstream: str, driver: str) -> list[str]:
    return [model.name for model in Caller(driver, upstream)("list_configured_models")]


# -- idempotent reads ----------------------------------------------------------------------


def test_read_comes_through_resets_before_forwarding(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    expected = Caller(driver, upstream)("list_model_templates")
    proxy = proxy_for(upstream)
    proxy.add(Reset(before_forwarding=True), method="GET", path=TEMPLATES, times=2)

    assert Caller(driver, proxy.url)("list_model_templates") == expected
    assert proxy.count("GET", TEMPLATES, forwarded=False) == 3
    assert proxy.count("GET", TEMPLATES) == 1


def test_read_comes_through_resets_after_the_service_answered(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    expected = Caller(driver, upstream)("list_model_templates")
    proxy = proxy_for(upstream)
    proxy.add(Reset(before_forwarding=False), method="GET", path=TEMPLATES, times=2)

    assert Caller(driver, proxy.url)("list_model_templates") == expected
    assert proxy.count("GET", TEMPLATES) == 3


def test_read_honours_retry_after_of_gateway_errors(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    expected = Caller(driver, upstream)("list_model_templates")
    proxy = proxy_for(upstream)
    proxy.add(Answer(503, retry_after="1"), method="GET", path=TEMPLATES)
    proxy.add(Answer(502, retry_after="2"), method="GET", path=TEMPLATES)
    caller = Caller(driver, proxy.url)

    assert caller("list_model_templates") == expected
    assert caller.pauses == [1.0, 2.0]
    assert proxy.count("GET", TEMPLATES, forwarded=False) == 3


def test_gateway_errors_that_persist_surface_as_server_error(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Answer(503, retry_after="0"), method="GET", path=TEMPLATES, times=None)

    with pytest.raises(ServerError) as caught:
        Caller(driver, proxy.url)("list_model_templates")
    assert caught.value.status_code == 503
    assert proxy.count("GET", TEMPLATES, forwarded=False) == FAST_RETRIES.max_retries + 1


def test_read_comes_through_a_body_cut_short(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    expected = Caller(driver, upstream)("list_model_templates")
    proxy = proxy_for(upstream)
    proxy.add(Truncate(keep_bytes=100), method="GET", path=TEMPLATES)

    assert Caller(driver, proxy.url)("list_model_templates") == expected
    assert proxy.count("GET", TEMPLATES) == 2


def test_bodies_always_cut_short_raise_a_connection_error(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Truncate(keep_bytes=100), method="GET", path=TEMPLATES, times=None)

    with pytest.raises(ChapConnectionError):
        Caller(driver, proxy.url)("list_model_templates")
    assert proxy.count("GET", TEMPLATES) == FAST_RETRIES.max_retries + 1


@pytest.mark.parametrize("keep_bytes", [0, 1, 100, 1000])
def test_truncated_json_is_a_decode_error_not_partial_data(
    upstream: str, driver: str, proxy_for: ProxyFactory, keep_bytes: int
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Truncate(keep_bytes=keep_bytes, honest_length=True), method="GET", path=TEMPLATES)

    with pytest.raises(ChapDecodeError) as caught:
        Caller(driver, proxy.url)("list_model_templates")
    assert len(caught.value.body) == keep_bytes
    assert caught.value.method == "GET"


# -- creating requests ---------------------------------------------------------------------


def test_creating_post_reset_after_forwarding_is_not_sent_again(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Reset(before_forwarding=False), method="POST", path=CONFIGURED)
    name = unique_name()

    with pytest.raises(ChapConnectionError):
        Caller(driver, proxy.url)("create_configured_model", name, 1)
    assert proxy.count("POST", CONFIGURED, forwarded=False) == 1
    assert sum(stored.endswith(f":{name}") for stored in stored_names(upstream, driver)) == 1


def test_creating_post_reset_before_forwarding_is_not_sent_again(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Reset(before_forwarding=True), method="POST", path=CONFIGURED)
    name = unique_name()

    with pytest.raises(ChapConnectionError):
        Caller(driver, proxy.url)("create_configured_model", name, 1)
    assert proxy.count("POST", CONFIGURED, forwarded=False) == 1
    assert not any(stored.endswith(f":{name}") for stored in stored_names(upstream, driver))


def test_creating_post_answered_by_a_gateway_error_is_not_sent_again(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Answer(503, retry_after="0"), method="POST", path=CONFIGURED)

    with pytest.raises(ServerError):
        Caller(driver, proxy.url)("create_configured_model", unique_name(), 1)
    assert proxy.count("POST", CONFIGURED, forwarded=False) == 1


def test_slow_creating_post_times_out_once(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Delay(SLOW_ANSWER_SECONDS), method="POST", path=CONFIGURED)
    name = unique_name()

    with pytest.raises(ChapTimeoutError):
        Caller(driver, proxy.url, timeout=0.5)("create_configured_model", name, 1)
    assert proxy.count_eventually("POST", CONFIGURED, 1, forwarded=False) == 1
    assert sum(stored.endswith(f":{name}") for stored in stored_names(upstream, driver)) == 1


def test_creating_post_is_retried_when_the_connection_cannot_open(driver: str) -> None:
    """A refused connection means nothing was sent: a POST is retried too, and a connection
    error naming the host is raised once the retries run out."""
    caller = Caller(driver, f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(ChapConnectionError) as caught:
        caller("create_configured_model", unique_name(), 1)
    assert "127.0.0.1" in str(caught.value)
    assert len(caller.pauses) == FAST_RETRIES.max_retries


# -- time limits ---------------------------------------------------------------------------


def test_slow_reads_raise_the_timeout_error_long_before_the_answer(
    upstream: str, driver: str, proxy_for: ProxyFactory
) -> None:
    proxy = proxy_for(upstream)
    proxy.add(Delay(SLOW_ANSWER_SECONDS), method="GET", path=TEMPLATES, times=None)
    retry = RetryPolicy(max_retries=2, backoff=0.0, jitter=False)
    started = time.monotonic()

    with pytest.raises(ChapTimeoutError):
        Caller(driver, proxy.url, timeout=0.3, retry=retry)("list_model_templates")
    assert time.monotonic() - started < SLOW_ANSWER_SECONDS
    expected = retry.max_retries + 1
    assert proxy.count_eventually("GET", TEMPLATES, expected) == expected


# -- waiting on a job ----------------------------------------------------------------------


def test_waiting_on_a_job_comes_through_faults(
    mini_service: object, driver: str, proxy_for: ProxyFactory
) -> None:
    upstream = mini_service.url  # type: ignore[attr-defined]
    proxy = proxy_for(upstream)
    caller = Caller(driver, proxy.url)
    job = caller("create_evaluation", "probe", "template_1:probe", 1)
    status_path = f"/v1/jobs/{job.id}"
    proxy.add(Answer(503, retry_after="0"), method="GET", path=status_path)
    proxy.add(Reset(before_forwarding=False), method="GET", path=status_path)
    proxy.add(Truncate(keep_bytes=3), method="GET", path="/v1/jobs")

    done = caller("wait_for_job", job.id, timeout=30)
    assert done.status == "SUCCESS"
    assert done.result == job.id.split("-")[1]
