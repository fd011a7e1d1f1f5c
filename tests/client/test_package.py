"""The package's shape: light import, same API on both drivers, conversions between them."""

from __future__ import annotations

import inspect
import subprocess
import sys

import httpx

from chaplab.client import AsyncChapClient, ChapClient, RetryPolicy
from chaplab.client._driver import operations


def test_import_does_not_load_pandas() -> None:
    code = "import sys, chaplab.client; print('pandas' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_both_drivers_have_every_operation_with_its_signature() -> None:
    for name, entry in operations().items():
        function = entry.function
        sync_method, async_method = getattr(ChapClient, name), getattr(AsyncChapClient, name)
        assert inspect.iscoroutinefunction(async_method)
        assert not inspect.iscoroutinefunction(sync_method)
        assert inspect.signature(sync_method) == inspect.signature(async_method)
        assert sync_method.__doc__ == function.__doc__
        assert "Operation[" not in str(inspect.signature(sync_method))


def test_conversion_between_drivers_keeps_settings() -> None:
    auth = httpx.BasicAuth("gw", "secret")
    retry = RetryPolicy(max_retries=5)
    request_headers: list[httpx.Headers] = []

    def record(request: httpx.Request) -> httpx.Response:
        request_headers.append(request.headers)
        return httpx.Response(200, json=[])

    with ChapClient("http://x", proxy_prefix="/p", api_key="sk_test_123456789", auth=auth,
                    retry=retry) as client:
        converted = client.as_async(transport=httpx.MockTransport(record))
        back = converted.as_sync(transport=httpx.MockTransport(record))
    for other in (converted, back):
        assert (other.base_url, other.proxy_prefix, other.has_api_key) == ("http://x", "/p", True)
        assert other._retry is retry
    with back:
        assert back.list_datasets() == []
    assert request_headers[0]["X-API-Key"] == "sk_test_123456789"
    assert request_headers[0]["Authorization"].startswith("Basic ")
