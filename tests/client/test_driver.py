"""What both drivers share: reprs without secrets, and conversion between the two kinds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from chaplab._secrets import key_prefix
from chaplab.client import AsyncChapClient, ChapClient

KEY = "sk_test_0123456789abcdefghij"


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
