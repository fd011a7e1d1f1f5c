"""Server-drawn plots: PNG charts and chart names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import (
    PngImage,
    ServerPlot,
)


def test_a_chart_comes_back_as_a_png_image(call: Callable[..., Any]) -> None:
    png = b"\x89PNG\r\n\x1a\nrest"

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/visualization/metric-plots/by_horizon/4/crps"
        assert request.headers["Accept"].startswith("image/png")
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


def test_a_vega_specification_is_shown_and_saved_as_one(
    call: Callable[..., Any], tmp_path: Any
) -> None:
    spec = {"$schema": "https://vega.github.io/schema/vega/v6.json", "marks": []}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=spec)

    plot = call(handler, "evaluation_plot", "evaluation_plot", 4)
    assert isinstance(plot, ServerPlot) and not plot.is_png and plot.spec == spec
    assert plot._repr_png_() is None
    bundle = plot._repr_mimebundle_()
    assert bundle["application/vnd.vega.v5+json"] == spec and "image/png" not in bundle
    with pytest.raises(ValueError, match=r"'\.vg\.json'"):
        plot.save(tmp_path / "chart.png")
    assert plot.save(tmp_path / "chart.vg.json").read_bytes() == plot.data


def test_a_vega_lite_specification_has_its_own_mime_type() -> None:
    spec = b'{"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "bar"}'
    plot = ServerPlot(spec, "application/json")
    assert plot.mime_type == "application/vnd.vegalite.v5+json" and plot.suffix == ".vl.json"
    png = PngImage(b"\x89PNG\r\n\x1a\nrest")
    assert png.mime_type == "image/png" and png.suffix == ".png"


def test_chart_lists_of_objects_give_their_ids(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/visualization/metric-plots/4":
            return httpx.Response(200, json=[{"id": "metric_map", "displayName": "Map"}])
        return httpx.Response(200, json=[{"id": "crps", "displayName": "CRPS"}])

    assert call(handler, "list_evaluation_plots") == ["crps"]
    catalog = call(handler, "list_metric_plots", 4)
    assert (catalog.visualizations, catalog.metrics) == (["metric_map"], ["crps"])


def test_metrics_of_a_server_that_lists_metric_kinds(call: Callable[..., Any]) -> None:
    csv_text = ("metric_id,location,time_period,horizon_distance,metric\n"
                "crps,A,2022-10,1,2.0\ncrps,A,2022-11,2,4.0\ncrps,B,2022-10,1,6.0\n")

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/v1/visualization/metrics/"):
            return httpx.Response(200, json=[{"id": "crps", "displayName": "CRPS"}])
        if request.url.path == "/v1/crud/backtests/4/info":
            return httpx.Response(200, json={"id": 4, "aggregateMetrics": {"crps": 4.0}})
        return httpx.Response(200, text=csv_text)

    metrics = call(handler, "evaluation_metrics", 4)
    assert (metrics.metric_names, metrics.aggregate) == (["crps"], {"crps": 4.0})
    assert metrics.by_org_unit == [{"org_unit": "A", "crps": 3.0}, {"org_unit": "B", "crps": 6.0}]
    assert metrics.by_horizon == [{"horizon": 1, "crps": 4.0}, {"horizon": 2, "crps": 4.0}]
