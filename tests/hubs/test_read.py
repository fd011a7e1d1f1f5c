"""Reading a hub: forecasts as chaplab frames, target data as actual cases, what is kept apart
and what is refused. On chaplab's copy of the hubverse's example hub, never on ../shared."""

from __future__ import annotations

import csv
import datetime
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from chaplab.errors import ArgumentError
from chaplab.frames import parse_periods
from chaplab.hubs import example_hub, read_forecasts, read_target_data
from chaplab.quantiles import quantiles_from_sorted

INC = "wk inc flu hosp"
CATEGORY = "wk flu hosp rate category"
MODELS = ["Flusight-baseline", "MOBS-GLEAM_FLUH", "PSI-DICE"]
STATES = {"01": "Alabama", "13": "Georgia", "42": "Pennsylvania", "47": "Tennessee", "48": "Texas"}


def week(label: str) -> pd.Period:
    """The ISO week ``label`` as frames hold it."""
    return parse_periods([label])[0]


def hub_rows(hub: Path, model: str, round_id: str) -> pd.DataFrame:
    """One model-output file as the hub wrote it, read with the csv module."""
    with (hub / "model-output" / model / f"{round_id}-{model}.csv").open(newline="") as file:
        return pd.DataFrame(list(csv.DictReader(file)))


def test_quantile_output_becomes_an_evaluation_frame_with_names_and_iso_weeks() -> None:
    forecasts = read_forecasts(example_hub(), target=INC)
    frame = forecasts.quantiles
    assert list(frame.columns) == [
        "model", "org_unit", "org_unit_name", "split_period", "period", "horizon", "quantile",
        "value",
    ]  # fmt: skip
    assert sorted(frame["model"].unique()) == MODELS
    assert dict(zip(frame["org_unit"], frame["org_unit_name"], strict=True)) == STATES
    splits = sorted(str(p) for p in frame["split_period"].unique())
    assert [s.split("/")[1] for s in splits] == [
        "2022-10-23",
        "2022-11-20",
        "2022-12-18",
        "2023-01-15",
    ]
    assert sorted(frame["horizon"].unique()) == [1, 2, 3, 4]
    assert frame["quantile"].nunique() == 23
    # one value from the file: PSI-DICE, Texas, round 2022-12-17, horizon 3 (the week ending
    # 2023-01-07, ISO week 2023W01), level 0.5
    rows = hub_rows(example_hub(), "PSI-DICE", "2022-12-17")
    wanted = rows[
        (rows.location == "48") & (rows.horizon == "3") & (rows.output_type == "quantile")
        & (rows.output_type_id == "0.5")
    ]  # fmt: skip
    mine = frame[
        (frame.model == "PSI-DICE") & (frame.org_unit == "48") & (frame.horizon == 4)
        & (frame["quantile"] == 0.5) & (frame.split_period == week("2022W50"))
    ]  # fmt: skip
    assert mine["period"].iloc[0] == week("2023W01")
    assert mine["value"].iloc[0] == float(wanted["value"].iloc[0])


def test_the_total_is_kept_apart_from_the_places() -> None:
    places = read_forecasts(example_hub(), target=INC).quantiles
    assert "US" not in set(places["org_unit"])
    total = read_forecasts(example_hub(), target=INC, locations=["US"]).quantiles
    assert set(total["org_unit"]) == {"US"}
    with pytest.raises(ArgumentError, match="'US' is the total of the other locations"):
        read_forecasts(example_hub(), target=INC, locations=["US", "48"])
    actuals = read_target_data(example_hub(), target=INC)
    assert set(actuals["org_unit"]) == set(STATES)
    us = read_target_data(example_hub(), target=INC, locations="US")
    assert set(us["org_unit"]) == {"US"}


def test_models_rounds_and_locations_choose_rows() -> None:
    forecasts = read_forecasts(
        example_hub(),
        target=INC,
        models=["PSI-DICE"],
        rounds=["2022-11-19", datetime.date(2023, 1, 14)],
        locations=["13"],
    )
    frame = forecasts.quantiles
    assert set(frame["model"]) == {"PSI-DICE"}
    assert set(frame["org_unit"]) == {"13"}
    assert frame["split_period"].nunique() == 2
    assert len(frame) == 2 * 4 * 23


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"models": ["chaplab-naive"]}, "models: 'chaplab-naive' has no output in the hub"),
        ({"rounds": ["2022-10-23"]}, "rounds '2022-10-23' is not a round of the hub"),
        ({"locations": ["99"]}, "locations: '99' is not a location of the hub's target"),
        ({"target": "cases"}, "target 'cases' is not a target of the hub"),
        ({"target": None}, "target: the hub has 3 targets"),
    ],
)
def test_what_the_hub_lacks_is_refused_by_name(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        read_forecasts(example_hub(), **{"target": INC, **arguments})


def test_cdf_output_is_refused_with_a_sentence_naming_it() -> None:
    with pytest.raises(ArgumentError, match="has only 'cdf' output, which chaplab does not read"):
        read_forecasts(example_hub(), target="wk flu hosp rate")


def test_medians_and_means_are_read_as_points() -> None:
    points = read_forecasts(example_hub(), target=INC, models=["PSI-DICE"]).points
    assert set(points["output_type"]) == {"median", "mean"}
    rows = hub_rows(example_hub(), "PSI-DICE", "2022-10-22")
    wanted = rows[(rows.output_type == "mean") & (rows.location == "01") & (rows.horizon == "2")]
    mine = points[
        (points.output_type == "mean") & (points.org_unit == "01") & (points.horizon == 3)
        & (points.split_period == week("2022W42"))
    ]  # fmt: skip
    assert mine["value"].iloc[0] == float(wanted["value"].iloc[0])


def test_samples_become_quantiles_by_the_services_interpolation() -> None:
    forecasts = read_forecasts(example_hub(), target=INC, models=["MOBS-GLEAM_FLUH"])
    rows = hub_rows(example_hub(), "MOBS-GLEAM_FLUH", "2022-11-19")
    samples = rows[(rows.output_type == "sample") & (rows.location == "42") & (rows.horizon == "1")]
    assert len(samples) == 100
    levels = np.sort(forecasts.quantiles["quantile"].unique())
    expected = quantiles_from_sorted(np.sort(samples["value"].astype(float).to_numpy()), levels)
    frame = forecasts.samples
    mine = frame[
        (frame.org_unit == "42") & (frame.horizon == 2)
        & (frame.split_period == week("2022W46"))
    ]  # fmt: skip
    np.testing.assert_array_equal(mine["quantile"].to_numpy(), levels)
    np.testing.assert_array_equal(mine["value"].to_numpy(), expected)


def test_pmf_output_has_ordered_categories_and_the_observed_category() -> None:
    pmf = read_forecasts(example_hub(), target=CATEGORY).pmf
    assert list(pmf["category"].cat.categories) == ["low", "moderate", "high", "very high"]
    assert pmf["category"].cat.ordered
    sums = pmf.groupby(["model", "org_unit", "split_period", "period"], observed=True)[
        "probability"
    ].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-6)
    observed = read_target_data(example_hub(), target=CATEGORY)
    assert list(observed.columns) == ["org_unit", "org_unit_name", "period", "category"]
    # Texas, week ending 2022-12-03: 2,139 admissions, above threshold_2 (1,495): high
    texas = observed[(observed.org_unit == "48") & (observed.period == week("2022W48"))]
    assert texas["category"].iloc[0] == "high"


def test_target_data_is_an_actuals_frame_on_iso_weeks() -> None:
    actuals = read_target_data(example_hub(), target=INC)
    assert list(actuals.columns) == ["org_unit", "org_unit_name", "period", "value"]
    texas = actuals[(actuals.org_unit == "48") & (actuals.period == week("2022W48"))]
    assert texas["value"].iloc[0] == 2139.0
    # one row per place and week, none lost: the file's rows of the five states
    with (example_hub() / "target-data/time-series.csv").open(newline="") as file:
        rows = [r for r in csv.DictReader(file) if r["target"] == INC and r["location"] in STATES]
    assert len(actuals) == len(rows)
    assert not actuals.duplicated(["org_unit", "period"]).any()


def test_parquet_model_output_reads_as_csv_does(parquet_hub: Path) -> None:
    from_csv = read_forecasts(example_hub(), target=INC)
    from_parquet = read_forecasts(parquet_hub, target=INC)
    pd.testing.assert_frame_equal(from_csv.quantiles, from_parquet.quantiles)
    pd.testing.assert_frame_equal(from_csv.samples, from_parquet.samples)


def test_nowcast_rows_are_kept_apart(hub: Path) -> None:
    # with the first forecast week one after the reference week, horizon 0 rows are nowcasts
    forecasts = read_forecasts(hub, target=INC, models=["PSI-DICE"], first_forecast_horizon=1)
    assert sorted(forecasts.quantiles["horizon"].unique()) == [1, 2, 3]
    nowcasts = forecasts.nowcasts
    assert set(nowcasts["horizon"]) == {0}
    assert set(nowcasts["output_type"]) == {"quantile", "sample", "median", "mean"}
    assert (nowcasts["target_end_date"] == nowcasts["reference_date"]).all()
    assert len(nowcasts) == 4 * 5 * (23 + 100 + 2)


def test_a_hub_whose_dates_are_not_saturdays_is_refused(hub: Path) -> None:
    series = hub / "target-data/time-series.csv"
    text = series.read_text().replace(
        "2022-10-22,wk inc flu hosp,48", "2022-10-23,wk inc flu hosp,48"
    )
    series.write_text(text)
    with pytest.raises(ArgumentError, match="2022-10-23 is a Sunday"):
        read_target_data(hub, target=INC)


def test_a_folder_that_is_no_hub_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="is not a forecast hub"):
        read_forecasts(tmp_path, target=INC)
    shutil.copytree(example_hub() / "hub-config", tmp_path / "hub-config")
    with pytest.raises(ArgumentError, match="models: 'PSI-DICE' has no output in the hub"):
        read_forecasts(tmp_path, target=INC, models=["PSI-DICE"])


def test_a_task_id_chaplab_has_no_column_for_is_refused(hub: Path) -> None:
    import json

    path = hub / "hub-config/tasks.json"
    tasks = json.loads(path.read_text())
    for model_task in tasks["rounds"][0]["model_tasks"]:
        model_task["task_ids"]["age_group"] = {"required": None, "optional": ["0-17", "18+"]}
    path.write_text(json.dumps(tasks))
    with pytest.raises(ArgumentError, match="has the task ids 'age_group' besides round"):
        read_forecasts(hub, target=INC)


def test_a_hubdata_connection_and_a_relative_path_read_as_the_folder_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hubdata

    expected = read_forecasts(example_hub(), target=INC, models=["PSI-DICE"]).quantiles
    connection = hubdata.connect_hub(example_hub())
    from_connection = read_forecasts(connection, target=INC, models=["PSI-DICE"]).quantiles
    pd.testing.assert_frame_equal(from_connection, expected)
    monkeypatch.chdir(example_hub().parent)
    relative = read_forecasts(example_hub().name, target=INC, models=["PSI-DICE"]).quantiles
    pd.testing.assert_frame_equal(relative, expected)
