"""Charts as PNG and the metrics behind them."""

from __future__ import annotations

import io
import re

import httpx
import matplotlib.image
import numpy as np
import pytest

from chaplab.client import ChapClient, ConflictError, NotFoundError

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
    # three splits side by side per org unit: a wider picture than the single split's
    assert len(evaluated.evaluation.split_periods) == 3
    assert every.shape[1] > last.shape[1]


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


def test_weekly_charts_say_weeks_as_people_read_them(
    client: ChapClient, service_database: str, unique: str
) -> None:
    """The PNG charts of a weekly dataset and evaluation write ``2016-W52``, not the wire's
    ``2016W52``, in titles and ticks, as the frames and the client's charts do."""
    from matplotlib.text import Text
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from chaplab.service.domain import plots
    from chaplab.service.domain.evaluations import actual_cases
    from chaplab.service.tables import DatasetRow, EvaluationRow

    dataset = client.create_dataset(f"weekly {unique}", small_frame(2, period_type="week"))
    evaluation = client.run_evaluation(
        f"weekly {unique}", "naive_model", dataset.id, n_periods=2, n_splits=2, timeout=120
    )
    engine = create_engine(service_database)
    try:
        with Session(engine) as session:
            row = session.get(EvaluationRow, evaluation.id)
            actuals = actual_cases(session, evaluation.id).model_dump(by_alias=True)
            figures = [
                plots.last_split_chart(row, actuals),
                plots.forecasts_chart(row, actuals),
                plots.features_chart(session.get(DatasetRow, dataset.id)),
            ]
    finally:
        engine.dispose()
    texts = [" ".join(t.get_text() for t in figure.findobj(Text)) for figure in figures]
    assert "split 2016-W51" in texts[0] and "split 2016-W50" in texts[1]
    assert "2016-W" in texts[2]
    assert not any(re.search(r"\d{4}W\d{2}", text) for text in texts)
