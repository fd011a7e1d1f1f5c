"""What both drivers share: reprs without secrets, and conversion between the two kinds."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from chaplab._secrets import key_prefix
from chaplab.client import (
    AsyncChapClient,
    ChapClient,
    RetryPolicy,
)

from .fake_service import KEY


def close(client: ChapClient | AsyncChapClient) -> None:
    if isinstance(client, AsyncChapClient):
        asyncio.run(client.aclose())
    else:
        client.close()


@pytest.mark.parametrize("key", ["abc123", "abcdefghijklm", KEY])
def test_repr_shows_at_most_the_loggable_prefix_of_a_key(make_client: Any, key: str) -> None:
    shown = repr(make_client(api_key=key))
    assert f"api_key='{key_prefix(key)}...'" in shown
    assert key not in shown


@pytest.mark.parametrize("client_type", [ChapClient, AsyncChapClient])
def test_repr_and_url_errors_hide_user_and_password(client_type: type) -> None:
    client = client_type("http://gw:pa55word@chap.test/base", api_key=KEY)
    assert repr(client) == f"{client_type.__name__}('http://chap.test/base', api_key='sk_test...')"
    close(client)
    with pytest.raises(ValueError, match="base_url") as caught:
        client_type("ftp://gw:pa55word@chap.test")
    assert "pa55word" not in str(caught.value)


def test_conversion_between_drivers_keeps_settings() -> None:
    auth = httpx.BasicAuth("gw", "secret")
    retry = RetryPolicy(max_retries=5)
    request_headers: list[httpx.Headers] = []

    def record(request: httpx.Request) -> httpx.Response:
        request_headers.append(request.headers)
        return httpx.Response(200, json=[])

    with ChapClient(
        "http://x", proxy_prefix="/p", api_key="sk_test_123456789", auth=auth, retry=retry
    ) as client:
        converted = client.as_async(transport=httpx.MockTransport(record))
        back = converted.as_sync(transport=httpx.MockTransport(record))
    for other in (converted, back):
        assert (other.base_url, other.proxy_prefix, other.has_api_key) == ("http://x", "/p", True)
        assert other._retry is retry
    with back:
        assert back.list_datasets() == []
    assert request_headers[0]["X-API-Key"] == "sk_test_123456789"
    assert request_headers[0]["Authorization"].startswith("Basic ")


def test_constructor_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="base_url"):
        ChapClient("localhost:8000")
    with pytest.raises(ValueError, match="api_key"):
        ChapClient("http://x", api_key="")
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
