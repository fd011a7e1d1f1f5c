"""Server-drawn plots: PNG charts and chart names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import (
    PngImage,
)


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
