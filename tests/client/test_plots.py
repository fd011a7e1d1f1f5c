"""Server-drawn plots: PNG charts and chart names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import (
    FacetPlot,
    PngImage,
    ServerPlot,
    UnsupportedRouteError,
)

from .chap_core_mock import ChapCoreMock, without


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
    csv_text = (
        "metric_id,location,time_period,horizon_distance,metric\n"
        "crps,A,2022-10,1,2.0\ncrps,A,2022-11,2,4.0\ncrps,B,2022-10,1,6.0\n"
    )

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


VEGA = {"$schema": "https://vega.github.io/schema/vega/v6.json", "marks": []}
FACETS_PATH = "/v1/visualization/backtest-plots/evaluation_plot/12"


def test_a_faceted_chart_is_drawn_one_facet_or_every_facet(call: Callable[..., Any]) -> None:
    facets = {"split_period": ["2022-08-01", "2022-09-01"], "location": ["OU_North"]}
    mock = ChapCoreMock(
        {
            f"GET {FACETS_PATH}/facet-coords": httpx.Response(200, json=facets),
            f"POST {FACETS_PATH}/subplot": httpx.Response(200, json=VEGA),
            f"GET {FACETS_PATH}/subplots": httpx.Response(
                200,
                json=[
                    {"key": ["2022-08-01", "OU_North"], "spec": VEGA},
                    {"key": ["2022-09-01", "OU_North"], "spec": VEGA},
                ],
            ),
        }
    )
    assert call(mock.handler, "backtest_plot_facets", "evaluation_plot", 12) == facets
    one = call(mock.handler, "backtest_subplot", "evaluation_plot", 12, {"location": "OU_North"})
    assert mock.bodies[1] == {"location": "OU_North"}
    assert one.spec == VEGA and one.mime_type == "application/vnd.vega.v5+json"
    every = call(mock.handler, "backtest_subplots", "evaluation_plot", 12)
    assert [facet.key for facet in every] == [
        ("2022-08-01", "OU_North"),
        ("2022-09-01", "OU_North"),
    ]
    assert all(isinstance(f, FacetPlot) and f.plot.spec == VEGA for f in every)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("../x", 12, {"location": "a"}), "visualization_name must be a name"),
        (("evaluation_plot", "12", {"location": "a"}), "evaluation_id must be an int"),
        (("evaluation_plot", 12, {}), "coordinates must map facet dimensions"),
        (("evaluation_plot", 12, {"": "a"}), "coordinates must be a non-empty string"),
    ],
)
def test_a_bad_facet_request_is_refused_before_sending(
    call: Callable[..., Any], args: tuple[Any, ...], message: str
) -> None:
    mock = ChapCoreMock({})
    with pytest.raises((TypeError, ValueError), match=message):
        call(mock.handler, "backtest_subplot", *args)
    assert mock.seen == []


def test_a_server_without_facets_names_the_whole_chart(call: Callable[..., Any]) -> None:
    route = "GET /v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/subplots"
    mock = ChapCoreMock({}, openapi=without(route))
    with pytest.raises(UnsupportedRouteError, match=r"evaluation_plot\("):
        call(mock.handler, "backtest_subplots", "evaluation_plot", 12)
