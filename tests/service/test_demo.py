"""The synthetic demo data: deterministic, complete, plausible and with valid polygons."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.service.demo import demo_dataset, generate_demo, weekly_demo_dataset


def test_monthly_demo_has_six_named_org_units_and_ten_years() -> None:
    demo = demo_dataset()
    panel = demo.panel
    assert panel.n_org_units == 6 and panel.period_type == "month"
    assert (panel.periods[0], panel.periods[-1], panel.n_periods) == ("201501", "202412", 120)
    assert set(panel.features) == {"rainfall", "mean_temperature", "population", "disease_cases"}
    assert "Bo" in demo.names.values()
    for values in panel.features.values():
        assert np.isfinite(values).all()
    cases = panel.features["disease_cases"]
    assert (cases >= 0).all() and np.array_equal(cases, np.round(cases))
    assert (panel.features["rainfall"] >= 0).all()
    assert 15 < panel.features["mean_temperature"].mean() < 35


def test_same_seed_same_data_and_another_seed_differs() -> None:
    first, again, other = demo_dataset(seed=3), demo_dataset(seed=3), demo_dataset(seed=4)
    for name, values in first.panel.features.items():
        np.testing.assert_array_equal(values, again.panel.features[name])
    assert not np.array_equal(
        first.panel.features["disease_cases"], other.panel.features["disease_cases"]
    )
    assert first.geojson == again.geojson


def test_cases_follow_the_rainy_season() -> None:
    panel = demo_dataset().panel
    months = panel.season_positions()
    cases = panel.features["disease_cases"].sum(axis=0)
    monthly = np.array([cases[months == m].mean() for m in range(12)])
    rain = panel.features["rainfall"].sum(axis=0)
    rainy_month = int(np.argmax([rain[months == m].mean() for m in range(12)]))
    assert monthly.max() > 2 * monthly.min()
    assert (int(np.argmax(monthly)) - rainy_month) % 12 in (0, 1, 2, 3)


def test_geojson_has_one_closed_counter_clockwise_polygon_per_org_unit() -> None:
    demo = demo_dataset()
    assert demo.geojson["type"] == "FeatureCollection"
    ids = [feature["properties"]["id"] for feature in demo.geojson["features"]]
    assert ids == demo.panel.org_units
    for feature in demo.geojson["features"]:
        assert feature["properties"]["name"]
        ring = np.array(feature["geometry"]["coordinates"][0])
        assert feature["geometry"]["type"] == "Polygon"
        assert np.array_equal(ring[0], ring[-1]) and len(ring) >= 4
        signed_area = 0.5 * np.sum(ring[:-1, 0] * ring[1:, 1] - ring[1:, 0] * ring[:-1, 1])
        assert signed_area > 0


def test_weekly_demo_spans_iso_weeks_of_ten_years() -> None:
    panel = weekly_demo_dataset().panel
    assert panel.period_type == "week"
    assert (panel.periods[0], panel.periods[-1]) == ("2015W01", "2024W52")
    assert "2015W53" in panel.periods and "2020W53" in panel.periods


def test_generator_scales_to_many_org_units() -> None:
    demo = generate_demo(n_org_units=120, n_years=2, seed=1)
    assert demo.panel.features["disease_cases"].shape == (120, 24)
    assert len(set(demo.panel.org_units)) == 120
    assert len(demo.geojson["features"]) == 120


@pytest.mark.parametrize(
    ("argument", "value"), [("n_org_units", 0), ("n_years", -1), ("period_type", "day")]
)
def test_bad_arguments_are_named(argument: str, value: object) -> None:
    with pytest.raises(ValueError, match=argument):
        generate_demo(**{argument: value})
