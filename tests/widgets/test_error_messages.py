"""The panel says what went wrong in one sentence: 401 and 403 each get their own advice, other
refusals are the service's sentence, and an address that is no modeling service says so."""

from __future__ import annotations

import httpx
import pytest

from chaplab.client._errors import error_from_response
from chaplab.widgets.connection import describe_error


def answered(status: int, detail: str) -> BaseException:
    request = httpx.Request("GET", "http://chap.test/v1/crud/datasets")
    return error_from_response(httpx.Response(status, json={"detail": detail}, request=request))


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (
            401,
            "The service refused the API key (HTTP 401: Invalid API key): pass one as "
            "api_key=... to chaplab.connect() or the client, or set $CHAP_API_KEY.",
        ),
        (403, "The API key is not allowed to do this (HTTP 403: Invalid API key)."),
    ],
)
def test_refusals_are_told_apart(status: int, expected: str) -> None:
    assert describe_error(answered(status, "Invalid API key")).startswith(expected)


def test_the_services_refusal_is_said_as_its_sentence_without_the_status_code() -> None:
    assert describe_error(answered(422, "n_periods: must be at most 520")) == (
        "n_periods: must be at most 520."
    )
    assert describe_error(answered(409, "Dataset 3 is used by evaluation 4")) == (
        "Dataset 3 is used by evaluation 4."
    )


def test_an_address_that_is_no_modeling_service_is_one_sentence_in_the_panel() -> None:
    request = httpx.Request("GET", "http://127.0.0.1:8888/lab/system/info")
    page = "<!DOCTYPE html><html><head><title>JupyterLab</title></head><body>...</body></html>"
    error = error_from_response(
        httpx.Response(404, headers={"content-type": "text/html"}, text=page, request=request)
    )
    assert describe_error(error) == (
        "http://127.0.0.1:8888 is not a CHAP modeling service: it answered with the web page "
        "'JupyterLab', not the service's JSON; check the URL given to the client."
    )
