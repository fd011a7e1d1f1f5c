"""The request builder: keys are checked at construction and never shown whole, multipart
forms are built with the key header and the time limit of every other request."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import httpx
import pytest

from chaplab import connect
from chaplab._secrets import key_prefix
from chaplab.client import (
    AsyncChapClient,
    ChapClient,
    ChapDecodeError,
    ChapError,
)
from chaplab.client._plumbing import RequestBuilder

from .fake_service import DISCOVERY, KEY, FakeService


def close(client: ChapClient | AsyncChapClient) -> None:
    if isinstance(client, AsyncChapClient):
        asyncio.run(client.aclose())
    else:
        client.close()


@pytest.mark.parametrize("client_type", [ChapClient, AsyncChapClient])
@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (KEY + "\n", "surrounding whitespace"),
        (" " + KEY, "surrounding whitespace"),
        (KEY[:10] + "\r\n" + KEY[10:], "control"),
        (KEY[:10] + "\x00" + KEY[10:], "control"),
        (KEY[:10] + "\x7f" + KEY[10:], "control"),
        (KEY[:10] + "é" + KEY[10:], "non-ASCII"),
    ],
)
def test_a_key_that_cannot_be_a_header_is_refused_without_showing_it(
    client_type: type, key: str, reason: str
) -> None:
    with pytest.raises(ValueError, match="api_key") as caught:
        client_type("http://chap.test", api_key=key)
    assert reason in str(caught.value)
    assert KEY[7:10] not in str(caught.value)


def test_a_key_with_inner_spaces_is_accepted() -> None:
    with ChapClient(
        "http://chap.test", api_key="Bearer " + KEY, api_key_header="Authorization"
    ) as client:
        assert client.has_api_key


def test_connect_strips_the_key_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHAP_URL", "http://chap.test")
    monkeypatch.setenv("CHAP_API_KEY", f"  {KEY}\n")
    for async_ in (False, True):
        client = connect(async_=async_, check=False)  # chap.test resolves nowhere
        assert client._builder.build("GET", "/health").headers["X-API-Key"] == KEY
        close(client)
    monkeypatch.setenv("CHAP_API_KEY", " \n")
    client = connect(check=False)
    assert not client.has_api_key
    close(client)
    with pytest.raises(ValueError, match="api_key has surrounding whitespace"):
        connect(api_key=KEY + "\n", check=False)


def test_short_keys_show_at_most_half() -> None:
    assert key_prefix("abc123") == "abc"
    assert key_prefix("abcdefghijklm") == "abcdef"
    assert key_prefix(KEY) == "sk_test"


def test_the_client_shares_the_rule_without_importing_the_toolkit() -> None:
    code = "import sys, chaplab.client; print('chaplab.toolkit' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
    from chaplab.toolkit.keys import key_prefix as toolkit_key_prefix

    assert toolkit_key_prefix is key_prefix


def test_a_multipart_form_carries_the_key_header_and_the_time_limit() -> None:
    builder = RequestBuilder("http://chap.test", proxy_prefix="p", api_key=KEY, timeout=7.0)
    request = builder.build(
        "POST",
        "/v1/crud/datasets/csvFile",
        files={"csvFile": ("data.csv", b"a,b\n1,2\n", "text/csv")},
        data={"name": "d"},
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


def test_prefix_and_key_on_every_request(make_client: Any, fake: FakeService) -> None:
    fake.prefix, fake.api_key = "/api/apps/chap", KEY
    client = make_client(proxy_prefix="api/apps/chap/", api_key=KEY)
    client.list_datasets()
    client.evaluation_entries(1, quantiles=[0.5])
    client.create_configured_model("daily", 1)
    client.list_models()
    assert fake.paths() == [
        "GET /api/apps/chap/v1/crud/datasets",
        "GET /api/apps/chap/v1/analytics/evaluation-entry",
        "GET /api/apps/chap/v1/crud/model-templates",
        "GET /api/apps/chap/v1/crud/configured-models",
        "POST /api/apps/chap/v1/crud/configured-models",
        *(f"GET /api/apps/chap{path.split()[1]}" for path in DISCOVERY),
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


def test_truncated_json_is_a_decode_error(client: Any, fake: FakeService) -> None:
    fake.fail(
        "GET /v1/crud/datasets",
        httpx.Response(
            200, content=b'[{"id": 1, "name": "de', headers={"content-type": "application/json"}
        ),
    )
    with pytest.raises(
        ChapDecodeError, match="GET /v1/crud/datasets answered .*not valid JSON"
    ) as caught:
        client.list_datasets()
    assert caught.value.body.startswith('[{"id": 1')
    assert isinstance(caught.value, ChapError)


def test_wrong_shape_is_a_decode_error(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", httpx.Response(200, json={"id": "x"}))
    with pytest.raises(ChapDecodeError, match="unexpected shape"):
        client.list_datasets()


def test_a_body_that_cannot_be_json_is_refused_before_sending(
    client: Any, fake: FakeService
) -> None:
    sent = len(fake.paths())
    with pytest.raises(TypeError, match="cannot be written as JSON: Type is not JSON serializable"):
        client.create_configured_model("daily", 1, {"n_lags": object()})
    assert len(fake.paths()) == sent


def test_bad_ids_name_the_argument(client: Any) -> None:
    with pytest.raises(TypeError, match="dataset_id must be an int .* or a str .*, got float 1.5"):
        client.get_dataset(1.5)
    with pytest.raises(ValueError, match="n_splits"):
        client.create_evaluation("bt", "naive_model", 1, n_splits=0)
    with pytest.raises(ValueError, match="quantiles"):
        client.evaluation_entries(1, quantiles=[1.5])


def test_an_unreadable_answer_that_echoes_the_key_is_scrubbed(
    make_client: Any, fake: FakeService
) -> None:
    fake.fail("GET /v1/jobs/job-1", httpx.Response(200, json={"status": {"key": KEY}}))
    client = make_client(api_key=KEY)
    with pytest.raises(ChapDecodeError) as caught:
        client.job_status("job-1")
    assert KEY not in str(caught.value)
    assert "[redacted]" in str(caught.value)
