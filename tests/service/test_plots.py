"""Charts as PNG and the metrics behind them."""

from __future__ import annotations

import io
import re

import httpx
import matplotlib.dates as mdates
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from chaplab.client import ChapClient, ConflictError, NotFoundError
from chaplab.plotting import time_axis
from readability import labelled_axes, read_periods, shown_labels, tick_labels, time_label_problems

from .helpers import Evaluated, small_frame

pytestmark = pytest.mark.integration
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _pixels(data: bytes) -> np.ndarray:
    assert data.startswith(PNG_SIGNATURE)
    return matplotlib.image.imread(io.BytesIO(data), format="png")


def _drawn(data: bytes) -> bool:
    """Whether the image is more than a blank canvas."""
    return float(_pixels(data)[..., :3].std()) > 0.01


def test_evaluation_charts_are_png_images(client: ChapClient, evaluated: Evaluated) -> None:
    names = client.list_evaluation_plots()
    assert names == ["forecasts", "last_split"]
    for name in names:
        image = client.evaluation_plot(name, evaluated.evaluation.id)
        assert image._repr_png_() == image.data and _drawn(image.data)


def test_the_forecasts_chart_shows_every_split_and_last_split_only_one(
    client: ChapClient, evaluated: Evaluated
) -> None:
    every = _pixels(client.evaluation_plot("forecasts", evaluated.evaluation.id).data)
    last = _pixels(client.evaluation_plot("last_split", evaluated.evaluation.id).data)
    # each org unit's three splits on rows of their own: a taller picture than the last split's
    assert len(evaluated.evaluation.split_periods) == 3
    assert every.shape[0] > last.shape[0]


def test_dataset_charts_are_png_images(client: ChapClient, evaluated: Evaluated, tmp_path) -> None:
    names = client.list_dataset_plots()
    assert names == ["features", "coverage"]
    for name in names:
        saved = client.dataset_plot(name, evaluated.dataset.id).save(tmp_path / f"{name}.png")
        assert _drawn(saved.read_bytes())


def test_metric_charts_are_png_images(client: ChapClient, evaluated: Evaluated) -> None:
    catalog = client.list_metric_plots(evaluated.evaluation.id)
    assert catalog.visualizations == ["by_org_unit", "by_horizon"]
    assert set(catalog.metrics) == set(evaluated.evaluation.aggregate_metrics)
    for name in catalog.visualizations:
        assert _drawn(client.metric_plot(name, evaluated.evaluation.id, "crps").data)


def test_metrics_are_broken_down_by_org_unit_and_horizon(
    client: ChapClient, evaluated: Evaluated
) -> None:
    metrics = client.evaluation_metrics(evaluated.evaluation.id)
    assert [row["orgUnit"] for row in metrics.by_org_unit] == evaluated.evaluation.org_units
    assert [row["horizon"] for row in metrics.by_horizon] == [1, 2]
    aggregate = evaluated.evaluation.aggregate_metrics
    assert metrics.aggregate["crps"] == pytest.approx(aggregate["crps"])
    # every (org unit, horizon) cell counts the same, so each breakdown's mean is the aggregate
    for rows in (metrics.by_org_unit, metrics.by_horizon):
        assert np.mean([row["mae"] for row in rows]) == pytest.approx(aggregate["mae"], rel=1e-5)


def test_unknown_chart_names_list_the_known_ones(
    client: ChapClient, evaluated: Evaluated, service_url: str
) -> None:
    with pytest.raises(NotFoundError, match="known: forecasts, last_split"):
        client.evaluation_plot("nope", evaluated.evaluation.id)
    with pytest.raises(NotFoundError, match="known: features, coverage"):
        client.dataset_plot("nope", evaluated.dataset.id)
    with pytest.raises(NotFoundError, match="metric_id: no metric named 'nope'.*crps"):
        client.metric_plot("by_horizon", evaluated.evaluation.id, "nope")
    with pytest.raises(NotFoundError, match="backtest"):
        client.evaluation_plot("forecasts", 987654)
    with pytest.raises(NotFoundError):
        client.evaluation_metrics(987654)
    with pytest.raises(NotFoundError):
        client.list_metric_plots(987654)


def test_a_chart_name_with_path_characters_is_refused(
    client: ChapClient, evaluated: Evaluated, service_url: str
) -> None:
    with pytest.raises(ValueError, match="visualization_name"):
        client.evaluation_plot("../forecasts", evaluated.evaluation.id)
    for raw in ("..%2Fforecasts", "..%5Cforecasts", "forecasts%00", "..", "%2E%2E"):
        answer = httpx.get(
            f"{service_url}/v1/visualization/backtest-plots/{raw}/{evaluated.evaluation.id}"
        )
        assert answer.status_code == 404, raw
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert not answer.content.startswith(PNG_SIGNATURE)


def test_an_evaluation_without_forecasts_has_nothing_to_draw(
    client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    row = client.create_evaluation_row(f"empty {unique}", "naive_model", evaluated.dataset.id)
    with pytest.raises(ConflictError, match="nothing to draw"):
        client.evaluation_plot("forecasts", row.id)
    assert client.evaluation_metrics(row.id).by_org_unit == []


def test_the_service_and_the_client_count_horizons_alike(
    client: ChapClient, evaluated: Evaluated
) -> None:
    """The service's metrics per horizon are the client's scores per horizon: horizon 1 is the
    split period on both sides (the service from its sample layout, the client from the
    periods)."""
    from chaplab.scoring import score, summarise

    evaluation = evaluated.evaluation
    frame = client.evaluation_frame(evaluation.id, quantiles=(0.1, 0.5, 0.9))
    first = frame[frame["period"] == frame["split_period"]]
    assert not first.empty and set(first["horizon"]) == {1}
    scores = score({"naive": frame}, client.actual_cases(evaluation.id), unmatched="drop")
    by_horizon = summarise(scores, by="horizon").set_index("horizon")["ae_median"]
    served = {
        row["horizon"]: row["mae"] for row in client.evaluation_metrics(evaluation.id).by_horizon
    }
    assert sorted(served) == by_horizon.index.tolist() == [1, 2]
    for horizon, mae in served.items():
        assert by_horizon[horizon] == pytest.approx(mae, rel=1e-5)


PLACES = {"O6uvpzGd5pu": "Bo", "fdc6uOvgoji": "Bombali"}  # small_frame's org units, named


def _drawn_charts(service_database: str, dataset_id: int, evaluation_id: int) -> dict[str, Figure]:
    """Every server chart of the dataset and its evaluation, as the routes draw them."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from chaplab.service.domain import plots
    from chaplab.service.domain.evaluations import actual_cases
    from chaplab.service.tables import DatasetRow, EvaluationRow

    engine = create_engine(service_database)
    try:
        with Session(engine) as session:
            row = session.get(EvaluationRow, evaluation_id)
            dataset = session.get(DatasetRow, dataset_id)
            assert row is not None and dataset is not None
            actuals = actual_cases(session, evaluation_id).model_dump(by_alias=True)
            charts = {
                "last_split": plots.last_split_chart(row, actuals),
                "forecasts": plots.forecasts_chart(row, actuals),
                "by_org_unit": plots.by_org_unit_chart(row, "crps"),
                **{name: draw(dataset) for name, draw in plots.DATASET_PLOTS.items()},
            }
            for figure in charts.values():
                figure.draw_without_rendering()
            return charts
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def weekly_charts(session_client: ChapClient, service_database: str) -> dict[str, Figure]:
    """The charts of a weekly dataset whose GeoJSON names its places, and of its evaluation."""
    frame = small_frame(2, period_type="week")
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "id": unit, "properties": {"name": name}, "geometry": None}
            for unit, name in PLACES.items()
        ],
    }
    dataset = session_client.create_dataset("weekly named", frame, geojson=geojson)
    evaluation = session_client.run_evaluation(
        "weekly named", "naive_model", dataset.id, n_periods=2, n_splits=2, timeout=120
    )
    return _drawn_charts(service_database, dataset.id, evaluation.id)


def _texts(figure: Figure) -> str:
    return " ".join(text.get_text() for text in figure.findobj(Text) if text.get_visible())


def test_weekly_charts_say_weeks_as_people_read_them(weekly_charts: dict[str, Figure]) -> None:
    """The PNG charts of a weekly dataset and evaluation write ``2016-W52``, not the wire's
    ``2016W52``, in titles, and their time axes ``W52`` over ``2016``, as the frames and the
    client's charts do."""
    assert "split 2016-W51, the last of 2 splits" in _texts(weekly_charts["last_split"])
    assert "split 2016-W50" in _texts(weekly_charts["forecasts"])
    for name in ("last_split", "forecasts", "features"):
        for ax in labelled_axes(weekly_charts[name]):
            assert all(
                re.fullmatch(r"\d{4}-W\d{2}", week) for week in read_periods(shown_labels(ax))
            )
    assert not any(re.search(r"\d{4}W\d{2}", _texts(figure)) for figure in weekly_charts.values())


def test_server_charts_name_places_as_the_dataset_s_geojson_does(
    weekly_charts: dict[str, Figure],
) -> None:
    """Panel titles, legends and axes say Bo and Bombali, the names of the dataset's GeoJSON,
    not the ids O6uvpzGd5pu and fdc6uOvgoji."""
    for name, figure in weekly_charts.items():
        texts = _texts(figure)
        assert "Bo" in texts and "Bombali" in texts, name
        assert not any(unit in texts for unit in PLACES), (name, texts)


def test_the_features_chart_has_the_charts_time_axis(
    weekly_charts: dict[str, Figure], evaluated: Evaluated, service_database: str
) -> None:
    """The features chart's time axis is every chart's (``chaplab.plotting.time_axis``): the
    same ticks and labels as that axis of the same width over the same periods, level and
    apart (it labelled every len // 8-th period, turned 30 degrees), weekly and monthly."""
    monthly = _drawn_charts(service_database, evaluated.dataset.id, evaluated.evaluation.id)
    for figure in (weekly_charts["features"], monthly["features"]):
        ax = labelled_axes(figure)[-1]
        labels = tick_labels(ax)
        low, high = ax.get_xlim()
        periods = pd.period_range(
            pd.Timestamp(mdates.num2date(low)).tz_localize(None).ceil("D"),
            pd.Timestamp(mdates.num2date(high)).tz_localize(None),
            freq=ax.xaxis.get_major_formatter().frequency,
        )
        same = plt.figure(figsize=figure.get_size_inches(), dpi=figure.dpi)
        alone = same.add_axes(ax.get_position().bounds)
        alone.tick_params(labelsize=ax.xaxis.get_ticklabels()[0].get_fontsize())
        time_axis(alone, periods)
        same.draw_without_rendering()
        assert [label.text for label in labels] == shown_labels(alone)
        assert len(labels) >= 4
        assert all(text.get_rotation() == 0 for text in ax.get_xticklabels())
        assert time_label_problems(figure, [ax]) == []
