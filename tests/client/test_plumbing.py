"""The request builder: keys are checked at construction and never shown whole, multipart
forms are built with the key header and the time limit of every other request."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from chaplab import connect
from chaplab._secrets import key_prefix
from chaplab.client import AsyncChapClient, ChapClient
from chaplab.client._plumbing import RequestBuilder

KEY = "sk_test_0123456789abcdefghij"


def close(client: ChapClient | AsyncChapClient) -> None:
    if isinstance(client, AsyncChapClient):
        asyncio.run(client.aclose())
    else:
        client.close()


@pytest.mark.parametrize("client_type", [ChapClient, AsyncChapClient])
@pytest.mark.parametrize(("key", "reason"), [
    (KEY + "\n", "surrounding whitespace"),
    (" " + KEY, "surrounding whitespace"),
    (KEY[:10] + "\r\n" + KEY[10:], "control"),
    (KEY[:10] + "\x00" + KEY[10:], "control"),
    (KEY[:10] + "\x7f" + KEY[10:], "control"),
    (KEY[:10] + "é" + KEY[10:], "non-ASCII"),
])
def test_a_key_that_cannot_be_a_header_is_refused_without_showing_it(
    client_type: type, key: str, reason: str
) -> None:
    with pytest.raises(ValueError, match="api_key") as caught:
        client_type("http://chap.test", api_key=key)
    assert reason in str(caught.value)
    assert KEY[7:10] not in str(caught.value)

def test_a_key_with_inner_spaces_is_accepted() -> None:
    with ChapClient("http://chap.test", api_key="Bearer " + KEY,
                    api_key_header="Authorization") as client:
        assert client.has_api_key

def test_connect_strips_the_key_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHAP_URL", "http://chap.test")
    monkeypatch.setenv("CHAP_API_KEY", f"  {KEY}\n")
    for async_ in (False, True):
        client = connect(async_=async_)
        assert client._builder.build("GET", "/health").headers["X-API-Key"] == KEY
        close(client)
    monkeypatch.setenv("CHAP_API_KEY", " \n")
    client = connect()
    assert not client.has_api_key
    close(client)
    with pytest.raises(ValueError, match="api_key has surrounding whitespace"):
        connect(api_key=KEY + "\n")

def test_short_keys_show_at_most_half() -> None:
    assert key_prefix("abc123") == "abc"
    assert key_prefix("abcdefghijklm") == "abcdef"
    assert key_prefix(KEY) == "sk_test"

def test_the_client_shares_the_rule_without_importing_the_toolkit() -> None:
    code = "import sys, chaplab.client; print('chaplab.toolkit' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"
    from chaplab.toolkit.keys import key_prefix as toolkit_key_prefix

    assert toolkit_key_prefix is key_prefix


def test_a_multipart_form_carries_the_key_header_and_the_time_limit() -> None:
    builder = RequestBuilder("http://chap.test", proxy_prefix="p", api_key=KEY, timeout=7.0)
    request = builder.build(
        "POST", "/v1/crud/datasets/csvFile",
        files={"csvFile": ("data.csv", b"a,b\n1,2\n", "text/csv")}, data={"name": "d"},
    )
    assert request.url == "http://chap.test/p/v1/crud/datasets/csvFile"
    assert request.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert request.headers["X-API-Key"] == KEY
    assert request.extensions["timeout"]["read"] == 7.0
    body = request.read()
    assert b'name="csvFile"; filename="data.csv"' in body and b'name="name"' in body


def test_a_request_has_a_json_body_or_a_form_not_both() -> None:
    builder = RequestBuilder("http://chap.test")
    with pytest.raises(ValueError, match="JSON body or a multipart form"):
        builder.build("POST", "/x", json={"a": 1}, data={"b": "2"})
