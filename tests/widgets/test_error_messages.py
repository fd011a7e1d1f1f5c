"""The panel says what went wrong in one sentence: 401 and 403 each get their own advice."""

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
        (401, "The service refused the request (HTTP 401: Invalid API key). Check the API key"),
        (403, "The API key is not allowed to do this (HTTP 403: Invalid API key)."),
    ],
)
def test_refusals_are_told_apart(status: int, expected: str) -> None:
    assert describe_error(answered(status, "Invalid API key")).startswith(expected)
