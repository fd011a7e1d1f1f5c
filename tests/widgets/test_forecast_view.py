"""The panel's forecast view on the embedded service, driven as a person would: pick a
configured model, press Forecast forward, and read the chart, the table, the map and the
outbreak-probability tiles; change the threshold strategy and the map's value."""

from __future__ import annotations

import html
import io
from types import SimpleNamespace

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from PIL import Image

import chaplab.frames
from chaplab.service.demo import generate_demo
from chaplab.widgets import ChapPanel
from chaplab.widgets.forecast import CELL, NO_MAP, TABS, TilesChart

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

NO_REQUESTS = SimpleNamespace(base_url="http://chap.test", proxy_prefix="", has_api_key=False)
"""A client for a view that sends nothing: its copied code only names the service."""


async def _forecast(panel: ChapPanel, model: str, n_periods: int = 3) -> None:
    """Select ``model``, set nPeriods and press Forecast forward, then wait for everything."""
    chosen = next(item for item in panel.model_list if item.name == model)
    panel.models.toggle(chosen.id).value = True
    panel.launcher.n_periods.value = n_periods
    panel.forecasts.button.click()
    await panel.wait_idle()


def _size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(png)).size


async def test_a_forecast_is_shown_as_chart_table_map_and_outbreak_tiles(
    panel: ChapPanel,
) -> None:
    await _forecast(panel, "naive_model")
    view = panel.forecasts
    (row,) = panel.jobs.rows
    assert (row.kind, row.status, row.error) == ("forecast", "SUCCESS", None)
    assert view.message.value == ""
    assert view.tabs in view.children
    assert [view.tabs.get_title(index) for index in range(4)] == list(TABS)
    dataset = panel.launcher.dataset
    last = chaplab.frames.parse_periods([dataset.last_period])[0]
    months = [last + 1, last + 2, last + 3]
    assert sorted(view.frame["period"].unique()) == months
    names = dict(
        zip(
            view.frame["org_unit"].astype(str), view.frame["org_unit_name"].astype(str), strict=True
        )
    )
    # the chart: the fan chart with its history, one panel per place
    assert sorted(view.shown_panels) == sorted(names.values())
    _size(bytes(view.image.value))
    # the table: every place and month, with the median, threshold and probability
    table = view.table.value
    for name in names.values():
        assert f"<td{CELL}>{name}</td>" in table
    for month in months:
        assert f"<td{CELL}>{chaplab.frames.period_label(month)}</td>" in table
    assert f'<th scope="col"{CELL}>threshold</th>' in table and "P(outbreak)" in table
    # the map: the demo's districts have polygons
    assert view.map_message.value == ""
    width, height = _size(bytes(view.map_image.value))
    assert width > 600 and height > 150
    # the tiles: a probability per place and month against the first strategy
    assert view.strategy.value == view.strategy.options[0][1]
    assert view.tiles_message.value == ""
    _size(bytes(view.tiles_image.value))
    outbreaks = view.outbreaks
    assert len(outbreaks) == len(names) * 3
    assert set(outbreaks["period"]) == set(months)
    assert outbreaks["probability"].between(0, 1).all()
    # whose forecast the probabilities are, first in the tiles' title
    assert view.name == "naive_model forecast from demo"
    figure = TilesChart(outbreaks, "Seasonal percentile (WHO)", view.name).draw()
    title = figure.axes[0].get_title(loc="left")
    assert title.startswith("Outbreak probability of the naive_model forecast from demo:")
    plt.close(figure)


async def test_forecasting_twice_adds_no_dataset_to_the_list(panel: ChapPanel) -> None:
    """Each forecast stores the rows it sent as a prediction dataset of its own; the panel's
    list shows the datasets a person stored, the same before and after two forecasts."""
    listed = [dataset.id for dataset in panel.dataset_list]
    await _forecast(panel, "naive_model", n_periods=2)
    first = panel.forecasts.prediction_id
    await _forecast(panel, "naive_model", n_periods=2)
    second = panel.forecasts.prediction_id
    assert first != second and [row.status for row in panel.jobs.rows] == ["SUCCESS"] * 2
    stored = {
        (await panel.client.get_prediction(prediction)).dataset_id for prediction in (first, second)
    }
    on_service = {dataset.id: dataset for dataset in await panel.client.list_datasets()}
    assert len(stored) == 2 and all(on_service[i].type == "prediction" for i in stored)
    await panel.refresh()
    assert [dataset.id for dataset in panel.dataset_list] == listed
    assert [row["id"] for row in panel.datasets.rows] == listed


async def test_another_strategy_recomputes_the_probabilities_and_the_map_shows_them(
    panel: ChapPanel,
) -> None:
    await _forecast(panel, "naive_model", n_periods=2)
    view = panel.forecasts
    strategies = [value for _, value in view.strategy.options]
    assert {"seasonal", "percentile"} <= set(strategies)
    first = view.outbreaks
    other = next(value for value in strategies if value != view.strategy.value)
    view.strategy.value = other
    await panel.wait_idle()
    assert view.tiles_message.value == ""
    assert not view.outbreaks["threshold"].equals(first["threshold"])
    median_map = bytes(view.map_image.value)
    view.map_value.value = "outbreak probability"
    await panel.wait_idle()
    assert view.map_message.value == ""
    assert bytes(view.map_image.value) != median_map
    _size(bytes(view.map_image.value))


async def test_a_dataset_without_polygons_gets_a_sentence_instead_of_a_map(
    panel: ChapPanel, unique: str
) -> None:
    """Features without geometry (RFC 7946's unlocated features, which chap-core 2.5.1 and
    chaplab's service accept): the forecast is shown, the map is a sentence."""
    demo = generate_demo(n_org_units=3, n_years=4)
    table = demo.panel
    observations = pd.DataFrame(
        {
            "time_period": [period for _ in table.org_units for period in table.periods],
            "location": [unit for unit in table.org_units for _ in table.periods],
            **{feature: values.reshape(-1) for feature, values in table.features.items()},
        }
    )
    unlocated = {
        **demo.geojson,
        "features": [{**feature, "geometry": None} for feature in demo.geojson["features"]],
    }
    job = await panel.client.make_dataset(f"no polygons {unique}", observations, geojson=unlocated)
    dataset_id = (await panel.client.wait_for_job(job.id)).result_id
    await panel.refresh()
    panel.datasets.toggle(dataset_id).value = True
    await _forecast(panel, "naive_model", n_periods=2)
    view = panel.forecasts
    assert view.message.value == "" and view.history.dataset_id == dataset_id
    assert html.unescape(view.map_message.value).endswith(f"{NO_MAP}</div>")
    assert view.map_image.value == b""
    view.map_value.value = "outbreak probability"
    await panel.wait_idle()
    assert view.map_image.value == b""
    assert bytes(view.tiles_image.value).startswith(b"\x89PNG")  # tiles need no polygons


async def test_the_forecast_table_of_a_country_pages_twenty_rows_at_a_time() -> None:
    from chaplab.widgets._tasks import TaskKeeper
    from chaplab.widgets.forecast import ForecastView, forecast_table_rows

    places = [f"OU_{number:03d}" for number in range(30)]
    frame = pd.DataFrame(
        [
            (place, pd.Period("2024-01", "M") + month, q, 10.0 * q)
            for place in places
            for month in range(3)
            for q in (0.1, 0.5, 0.9)
        ],
        columns=["org_unit", "period", "quantile", "value"],
    )
    view = ForecastView(client=NO_REQUESTS, keeper=TaskKeeper(on_error=print))
    view.show_table(forecast_table_rows(frame, None))
    pager = view.table_pager
    assert pager.label.value == "rows 1-20 of 90" and pager.previous.disabled
    assert view.table.value.count("<tr>") == 21  # the header and 20 rows
    assert f"<td{CELL}>OU_006</td>" in view.table.value
    assert f"<td{CELL}>OU_007</td>" not in view.table.value
    pager.next.click()
    assert pager.label.value == "rows 21-40 of 90"
    assert f"<td{CELL}>OU_007</td>" in view.table.value
    view.show_table(forecast_table_rows(frame, None))  # new thresholds: the page stays
    assert pager.label.value == "rows 21-40 of 90"
    for _ in range(4):
        pager.next.click()
    assert pager.label.value == "rows 81-90 of 90" and pager.next.disabled
    assert f"<td{CELL}>OU_029</td>" in view.table.value


def test_the_forecast_table_writes_its_case_numbers_with_one_precision() -> None:
    from chaplab.widgets.forecast import forecast_table_rows

    values = {("Bo", 0.1): 53.8, ("Bo", 0.5): 191.2, ("Bo", 0.9): 458.4}
    values |= {("Kenema", 0.1): 90.7, ("Kenema", 0.5): 316.0, ("Kenema", 0.9): 1005.3}
    frame = pd.DataFrame(
        [(place, pd.Period("2025-01", "M"), q, value) for (place, q), value in values.items()],
        columns=["org_unit", "period", "quantile", "value"],
    )
    outbreaks = pd.DataFrame(
        {
            "org_unit": ["Bo", "Kenema"],
            "period": [pd.Period("2025-01", "M")] * 2,
            "threshold": [145.5, 292.0],
            "probability": [0.63, 0.54],
        }
    )
    _, rows = forecast_table_rows(frame, outbreaks)
    cells = [
        [html.unescape(cell.split(">", 1)[1]) for cell in row.split("</td>")[:-1]] for row in rows
    ]
    assert cells == [
        ["Bo", "2025-01", "191", "54 \u2013 458", "146", "63%"],  # not "53.8 – 458"
        ["Kenema", "2025-01", "316", "91 \u2013 1,005", "292", "54%"],
    ]


async def test_a_forecast_of_a_country_draws_the_twelve_places_with_most_cases() -> None:
    from chaplab.widgets._tasks import TaskKeeper
    from chaplab.widgets.forecast import ForecastView, History

    places = [f"OU_{number:02d}" for number in range(30)]
    cases = {place: ((7 * number) % 30) * 10 + 1 for number, place in enumerate(places)}
    start = pd.Period("2024-01", "M")
    frame = pd.DataFrame(
        [
            (place, start + month, q, cases[place] * q * 2)
            for place in places
            for month in range(3)
            for q in (0.1, 0.5, 0.9)
        ],
        columns=["org_unit", "period", "quantile", "value"],
    )
    actuals = pd.DataFrame(
        [(place, start - back, float(cases[place])) for place in places for back in (1, 2)],
        columns=["org_unit", "period", "value"],
    )
    view = ForecastView(client=NO_REQUESTS, keeper=TaskKeeper(on_error=print))
    await view.show("a country", 1, frame, History(1, pd.DataFrame(), None, actuals))
    most = sorted(places, key=lambda place: -cases[place])[:12]
    assert sorted(view.shown_panels) == sorted(most) and view.shown_panels[0] == most[0]
    assert "any of the other 18 places" in html.unescape(view.chart_note.value)

    five = frame[frame["org_unit"].isin(places[:5])]
    await view.show("five places", 2, five, History(1, pd.DataFrame(), None, actuals))
    assert sorted(view.shown_panels) == places[:5] and view.chart_note.value == ""


async def test_the_forecasts_copy_code_reproduces_the_forecast_not_another_view(
    panel: ChapPanel,
) -> None:
    """ "copy code" under the forecast copies the forecast's code (it copied the evaluations'
    comparison before): pasted into a cell, it reads this forecast and draws its chart."""
    import matplotlib.pyplot as plt

    from chaplab.widgets._render import png_bytes

    await _forecast(panel, "naive_model")
    view = panel.forecasts
    assert view.code in view.children and view.code is not panel.code
    code = view.code.code
    assert view.code.copy_button.code == code
    assert f"client.prediction_frame({view.prediction_id})" in code
    assert "evaluation_frame" not in code and "compare_chart" not in code
    namespace: dict[str, object] = {}
    exec(code, namespace)  # what a person pastes into a cell
    pd.testing.assert_frame_equal(namespace["frame"], view.frame)
    figure = namespace["figure"]
    assert [axes.get_title() for axes in figure.axes if axes.get_title()] == view.shown_panels
    pasted = png_bytes(figure)
    plt.close(figure)
    namespace["client"].close()
    assert pasted == bytes(view.image.value), "the pasted chart is the forecast view's"
