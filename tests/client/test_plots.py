"""Server-drawn plots: PNG charts, chap-core's Vega charts drawn in the kernel (specifications
captured from chap-core 2.5.1 in ``chap_core_charts/``), chart names and metrics."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import matplotlib.image
import pytest

from chaplab.client import (
    ChapClient,
    FacetPlot,
    PngImage,
    ServerPlot,
    UnsupportedRouteError,
)
from chaplab.client._plots import PNG_SIGNATURE

from .chap_core_mock import ChapCoreMock, backtest_read, without

CHARTS = Path(__file__).parent / "chap_core_charts"
NAMES = {"OU_North": "North", "OU_South": "South"}
SQUARES = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "id": org_unit,
            "properties": {"name": name},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[x, 0], [x + 1, 0], [x + 1, 1], [x, 1], [x, 0]]],
            },
        }
        for x, (org_unit, name) in enumerate(NAMES.items())
    ],
}
BACKTEST = backtest_read(12, "E naive", "naive_model")
NAMED_DATASET = {
    "id": 1,
    "name": "demo",
    "created": "2026-11-23T19:23:36Z",
    "observations": [],
    "geojson": json.dumps(SQUARES),
}
METRIC_MAP = "/v1/visualization/metric-plots/metric_map/12/crps"


def chart(name: str) -> bytes:
    """A chart chap-core 2.5.1 sent (``chap_core_charts/<name>``)."""
    data = (CHARTS / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


def vega_answer(name: str) -> httpx.Response:
    return httpx.Response(200, content=chart(name), headers={"content-type": "application/json"})


def colour_at(png: Path, x: float, y: float) -> tuple[float, ...]:
    """The colour of a saved PNG at a fraction ``x``, ``y`` of its width and height."""
    pixels = matplotlib.image.imread(png)
    return tuple(
        round(float(v), 2) for v in pixels[int(y * pixels.shape[0]), int(x * pixels.shape[1])]
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


def evaluation_12() -> dict[str, httpx.Response]:
    """chap-core's answers about evaluation 12 and its dataset, whose GeoJSON names places."""
    return {
        "GET /v1/crud/backtests/12": httpx.Response(200, json=BACKTEST),
        "GET /v1/crud/datasets/1": httpx.Response(200, json=NAMED_DATASET),
    }


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
            **evaluation_12(),
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


def test_a_chart_with_one_facet_dimension_has_one_value_keys(call: Callable[..., Any]) -> None:
    path = "/v1/visualization/backtest-plots/predicted_vs_actual/12/subplots"
    answer = json.loads((CHARTS / "predicted_vs_actual_subplots.json").read_text())
    mock = ChapCoreMock({f"GET {path}": httpx.Response(200, json=answer), **evaluation_12()})
    facets = call(mock.handler, "backtest_subplots", "predicted_vs_actual", 12)
    assert [facet.key for facet in facets] == [(1,), (2,)]
    for facet in facets:
        assert facet.plot.place_names == NAMES
        assert facet.plot.picture(".svg").startswith(b"<svg") and facet.plot.empty_message is None


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


def test_a_metric_chart_is_shown_as_a_picture_of_a_fixed_size(
    call: Callable[..., Any], tmp_path: Path
) -> None:
    path = "/v1/visualization/metric-plots/metric_by_horizon_mean/12/crps"
    mock = ChapCoreMock(
        {f"GET {path}": vega_answer("metric_by_horizon_mean.vg.json"), **evaluation_12()}
    )
    plot = call(mock.handler, "metric_plot", "metric_by_horizon_mean", 12, "crps")
    sent = json.loads(chart("metric_by_horizon_mean.vg.json"))
    assert plot.spec == sent and sent["autosize"]["type"] == "fit-x"
    bundle = plot._repr_mimebundle_()
    # a picture, never the specification whose container-sized layout crashed JupyterLab
    assert set(bundle) == {"image/svg+xml", "text/html", "text/plain"}
    assert bundle["image/svg+xml"].startswith("<svg") and "overflow-x:auto" in bundle["text/html"]
    live = plot.interactive()
    assert (
        live.mime_type == "application/vnd.vega.v5+json"
        and live._repr_mimebundle_()[live.mime_type] == live.spec
    )
    assert "containerSize" not in json.dumps(live.spec) and live.spec["autosize"] == {"type": "pad"}
    assert {"name": "width", "value": 640} in live.spec["signals"]
    saved = json.loads(plot.save(tmp_path / "chart.vg.json").read_text())
    assert saved == live.spec


def test_a_chart_saves_as_a_picture_or_its_specification(tmp_path: Path) -> None:
    plot = ServerPlot(chart("metric_by_horizon_mean.vg.json"), "application/json")
    assert plot.save_suffixes == (".png", ".svg", ".pdf", ".vg.json")
    assert plot.save(tmp_path / "c.png").read_bytes().startswith(PNG_SIGNATURE)
    assert plot.save(tmp_path / "c.svg").read_text().startswith("<svg")
    assert plot.save(tmp_path / "c.pdf").read_bytes().startswith(b"%PDF")
    for wrong in ("c.json", "c.vl.json", "c.jpg", "c"):
        with pytest.raises(
            ValueError,
            match=r"^path must end in one of \.png, \.svg, \.pdf, \.vg\.json for this chart .*got",
        ) as caught:
            plot.save(tmp_path / wrong)
        assert "\n" not in str(caught.value)
    png = ServerPlot(b"\x89PNG\r\n\x1a\nrest")
    with pytest.raises(
        ValueError, match=r"one of \.png for this chart \(image/png\), got 'c\.svg'"
    ):
        png.save(tmp_path / "c.svg")
    assert png.save(tmp_path / "c.png").read_bytes() == png.data
    with pytest.raises(ValueError, match="interactive\\(\\) needs a Vega or Vega-Lite"):
        png.interactive()


def test_a_vega_lite_chart_sized_by_its_container_gets_a_width(tmp_path: Path) -> None:
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": "container",
        "autosize": {"type": "fit", "contains": "padding"},
        "data": {
            "values": [{"location": "OU_North", "cases": 4}, {"location": "OU_South", "cases": 7}]
        },
        "mark": "bar",
        "encoding": {
            "x": {"field": "location", "type": "nominal"},
            "y": {"field": "cases", "type": "quantitative"},
        },
    }
    plot = ServerPlot(json.dumps(spec).encode(), "application/json", NAMES)
    assert plot.mime_type == "application/vnd.vegalite.v5+json" and plot.suffix == ".vl.json"
    assert plot.save_suffixes == (".png", ".svg", ".pdf", ".vg.json", ".vl.json")
    shown = plot.interactive().spec
    assert shown["width"] == 640 and shown["autosize"] == {"type": "pad"}
    assert [row["location"] for row in shown["data"]["values"]] == ["North", "South"]
    assert json.loads(plot.save(tmp_path / "c.vl.json").read_text()) == shown
    assert "marks" in json.loads(plot.save(tmp_path / "c.vg.json").read_text())
    svg = plot.picture(".svg").decode()
    assert ">North<" in svg and "OU_North" not in svg


def test_a_map_names_its_places_and_draws_each_polygon(
    call: Callable[..., Any], tmp_path: Path
) -> None:
    mock = ChapCoreMock({f"GET {METRIC_MAP}": vega_answer("metric_map.vg.json"), **evaluation_12()})
    plot = call(mock.handler, "metric_plot", "metric_map", 12, "crps")
    assert plot.place_names == NAMES and plot.empty_message is None
    shown = json.dumps(plot.interactive().spec)
    assert "OU_North" not in shown and '"org_unit": "North"' in shown
    # chap-core's polygons wind as GeoJSON does (counter-clockwise), which Vega reads as the
    # whole globe but the place: both squares would be one block of one colour
    picture = plot.save(tmp_path / "map.png")
    north, south = colour_at(picture, 0.25, 0.5), colour_at(picture, 0.6, 0.5)
    assert north != south and (1.0, 1.0, 1.0, 1.0) not in (north, south)


def test_a_map_without_polygons_says_it_is_empty() -> None:
    spec = json.loads(chart("metric_map.vg.json"))
    spec["data"][0]["values"] = []  # what chap-core sends for a dataset without polygons
    plot = ServerPlot(json.dumps(spec).encode(), "application/json")
    assert plot.empty_message is not None and plot.empty_message.startswith("This map is empty")
    bundle = plot._repr_mimebundle_()
    assert bundle["text/plain"] == plot.empty_message and "image/svg+xml" not in bundle
    bars = json.loads(chart("metric_by_horizon_mean.vg.json"))
    bars["data"][0]["values"] = []
    empty_bars = ServerPlot(json.dumps(bars).encode(), "application/json")
    assert (
        empty_bars.empty_message
        == "This chart is empty: the server sent it without any data to draw."
    )


def test_a_wide_grid_names_its_panels_and_fits_the_output(call: Callable[..., Any]) -> None:
    path = "/v1/visualization/backtest-plots/horizon_location_grid/12"
    answer = vega_answer("horizon_location_grid.vg.json.gz")
    mock = ChapCoreMock({f"GET {path}": answer, **evaluation_12()})
    plot = call(mock.handler, "evaluation_plot", "horizon_location_grid", 12)
    svg = plot.picture().decode()
    assert "North | horizon 1" in svg and "OU_North" not in svg
    html = plot._repr_mimebundle_()["text/html"]
    width = float(svg.split('width="', 1)[1].split('"', 1)[0])
    # as wide as the output, never wider than drawn, never shrunk below 60 %: then it scrolls
    assert f"width:100%;max-width:{width:.0f}px;min-width:{0.6 * width:.0f}px" in html
    assert html.startswith('<div style="max-width:100%;overflow-x:auto">')


def test_place_names_are_read_once_per_dataset() -> None:
    """The evaluation is read at each call (its id may name another one by then), its
    dataset's GeoJSON once."""
    mock = ChapCoreMock({f"GET {METRIC_MAP}": vega_answer("metric_map.vg.json"), **evaluation_12()})
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        first = client.metric_plot("metric_map", 12, "crps")
        second = client.metric_plot("metric_map", 12, "crps")
    assert first.place_names == second.place_names == NAMES
    paths = [request.url.path for request in mock.seen]
    assert paths.count(METRIC_MAP) == paths.count("/v1/crud/backtests/12") == 2
    assert paths.count("/v1/crud/datasets/1") == 1


def test_a_dataset_without_geojson_keeps_the_ids(call: Callable[..., Any]) -> None:
    unnamed = {**NAMED_DATASET, "geojson": None}
    mock = ChapCoreMock(
        {
            f"GET {METRIC_MAP}": vega_answer("metric_map.vg.json"),
            "GET /v1/crud/backtests/12": httpx.Response(200, json=BACKTEST),
            "GET /v1/crud/datasets/1": httpx.Response(200, json=unnamed),
        }
    )
    plot = call(mock.handler, "metric_plot", "metric_map", 12, "crps")
    assert plot.place_names == {} and '"org_unit": "OU_North"' in json.dumps(
        plot.interactive().spec
    )


def texts_of(svg: bytes) -> set[str]:
    """The words a drawn chart writes."""
    return set(re.findall(r">([^<>]+)</text>", svg.decode()))


def weekly_evaluation_24() -> dict[str, httpx.Response]:
    """chap-core's answers about evaluation 24: two weekly splits across the end of 2020, a year
    of 53 ISO weeks (its charts captured from chap-core 2.5.1)."""
    weekly = {**BACKTEST, "id": 24, "splitPeriods": ["2021W01", "2020W53"]}
    return {
        "GET /v1/crud/backtests/24": httpx.Response(200, json=weekly),
        "GET /v1/crud/datasets/1": httpx.Response(200, json=NAMED_DATASET),
        "GET /v1/visualization/backtest-plots/evaluation_plot/24": vega_answer(
            "weekly_evaluation_plot.vg.json.gz"
        ),
        "GET /v1/visualization/metric-plots/metric_by_time_period_mean/24/crps": vega_answer(
            "weekly_metric_by_time_period_mean.vg.json"
        ),
    }


def test_chap_cores_weekly_split_headers_name_the_splits_as_the_frames_do(
    call: Callable[..., Any],
) -> None:
    """chap-core heads split 2020W53 by 2020-12-21, the Monday of the week before it (the last
    week its model saw), and split 2021W01 by 2020-12-28; shown, they are the splits' weeks."""
    mock = ChapCoreMock(weekly_evaluation_24())
    plot = call(mock.handler, "evaluation_plot", "evaluation_plot", 24)
    sent = texts_of(ServerPlot(plot.data, plot.media_type).picture(".svg"))
    assert {"2020-12-21", "2020-12-28"} <= sent
    shown = texts_of(plot.picture(".svg"))
    assert {"2020-W53", "2021-W01", "North", "South"} <= shown
    assert not shown & {"2020-12-21", "2020-12-28"}
    assert {"2019", "2020", "2021"} <= shown  # the time axis keeps its dates


def test_chap_cores_weekly_metric_labels_read_as_weeks(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(weekly_evaluation_24())
    plot = call(mock.handler, "metric_plot", "metric_by_time_period_mean", 24, "crps")
    assert "2020W53" in plot.data.decode()
    shown = texts_of(plot.picture(".svg"))
    assert {"2020-W53", "2021-W01", "2021-W02", "2021-W03"} <= shown
    assert not any(re.fullmatch(r"\d{4}W\d{2}", text) for text in shown)


def test_a_monthly_split_header_and_month_read_as_the_frames_say_them(
    call: Callable[..., Any],
) -> None:
    """chap-core heads split 2022-09 by 2022-08-01 (the month before it) and writes its metric
    months as the wire does, 202209."""
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": [{"split_period": "2022-08-01", "time_period": "202209", "crps": 2}]},
        "facet": {"column": {"field": "split_period", "type": "ordinal"}},
        "spec": {
            "mark": "point",
            "encoding": {
                "x": {"field": "time_period", "type": "ordinal"},
                "y": {"field": "crps", "type": "quantitative"},
            },
        },
    }
    monthly = {**BACKTEST, "splitPeriods": ["202209"]}
    mock = ChapCoreMock(
        {
            "GET /v1/crud/backtests/12": httpx.Response(200, json=monthly),
            "GET /v1/crud/datasets/1": httpx.Response(200, json=NAMED_DATASET),
            f"GET {FACETS_PATH}": httpx.Response(200, json=spec),
        }
    )
    plot = call(mock.handler, "evaluation_plot", "evaluation_plot", 12)
    shown = texts_of(plot.picture(".svg"))
    assert "2022-09" in shown and not shown & {"2022-08-01", "202209"}
