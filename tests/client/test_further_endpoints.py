"""The further endpoints' client methods on a mock transport: the requests they send and how
they read answers, on both drivers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import AsyncChapClient, ChapClient, ConflictError, PngImage

BASE_URL = "http://chap.test"
Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture(params=["sync", "async"])
def call(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """``call(handler, method_name, *args)``: run a client method on a mock transport."""
    runner = asyncio.Runner()

    def run(handler: Handler, name: str, *args: Any, **kwargs: Any) -> Any:
        if request.param == "sync":
            with ChapClient(
                BASE_URL, api_key="sk_test_0123456789abcdef", transport=httpx.MockTransport(handler)
            ) as client:
                return getattr(client, name)(*args, **kwargs)

        async def main() -> Any:
            async with AsyncChapClient(
                BASE_URL, api_key="sk_test_0123456789abcdef", transport=httpx.MockTransport(handler)
            ) as client:
                return await getattr(client, name)(*args, **kwargs)

        return runner.run(main())

    yield run
    runner.close()


def test_a_csv_upload_is_a_multipart_form(call: Callable[..., Any]) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": 7, "name": "up", "orgUnits": ["A"]})

    dataset = call(
        handler,
        "upload_dataset_csv",
        "up",
        "time_period,location,x\n202101,A,1\n",
        geojson={"type": "FeatureCollection", "features": []},
        type="prediction",
    )
    assert dataset.id == 7 and dataset.org_units == ["A"]
    request = seen[0]
    assert request.method == "POST" and request.url.path == "/v1/crud/datasets/csvFile"
    assert request.headers["X-API-Key"] == "sk_test_0123456789abcdef"
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    body = request.read()
    for part in (
        b'name="csvFile"; filename="data.csv"',
        b"202101,A,1",
        b'name="geojsonFile"',
        b'"FeatureCollection"',
        b'name="name"\r\n\r\nup',
        b'name="type"\r\n\r\nprediction',
    ):
        assert part in body


def test_several_evaluations_are_deleted_by_a_comma_list(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "DELETE" and request.url.params["ids"] == "3,5"
        return httpx.Response(200, json={"deletedIds": [3, 5]})

    assert call(handler, "delete_evaluations", [3, 5]) == [3, 5]


def test_a_chart_comes_back_as_a_png_image(call: Callable[..., Any]) -> None:
    png = b"\x89PNG\r\n\x1a\nrest"

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/visualization/metric-plots/by_horizon/4/crps"
        assert request.headers["Accept"] == "image/png"
        return httpx.Response(200, content=png, headers={"content-type": "image/png"})

    image = call(handler, "metric_plot", "by_horizon", 4, "crps")
    assert image == PngImage(png) and image._repr_png_() == png


@pytest.mark.parametrize("name", ["../etc", "a/b", "", "forecasts?x=1", "x%2F"])
def test_a_chart_name_that_is_not_a_plain_name_is_refused_before_sending(
    call: Callable[..., Any], name: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing is sent")

    with pytest.raises(ValueError, match="visualization_name"):
        call(handler, "evaluation_plot", name, 1)


def test_a_job_without_success_raises_a_conflict_with_the_reason(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.raw_path.startswith(b"/v1/jobs/j%2F1/evaluation_result?")
        return httpx.Response(
            409,
            json={
                "type": "urn:service:error:conflict",
                "title": "Conflict",
                "status": 409,
                "detail": "job j/1 did not succeed",
            },
            headers={"content-type": "application/problem+json"},
        )

    with pytest.raises(ConflictError, match="did not succeed"):
        call(handler, "job_evaluation_result", "j/1")


def test_a_runner_registration_sends_url_and_info(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.raw_path == b"/v2/services/$register"
        assert request.read() == b'{"url":"http://runner:1","info":{"name":"r"}}'
        return httpx.Response(200, json={"id": 1, "url": "http://runner:1", "status": "stale"})

    assert call(handler, "register_model_runner", "http://runner:1", {"name": "r"}).is_stale


def test_a_one_line_csv_string_is_taken_for_a_file_name_and_refused(
    call: Callable[..., Any],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing is sent")

    with pytest.raises(ValueError, match="pathlib.Path"):
        call(handler, "upload_dataset_csv", "up", "data.csv")
