"""Writing a hub's format: chaplab frames -> a round's model-output rows checked against the
hub's tasks.json, written as its file, and read back equal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from chaplab import vocabulary
from chaplab.errors import ArgumentError
from chaplab.frames import parse_periods, with_horizon
from chaplab.hubs import read_forecasts, to_model_output, write_model_output

INC = "wk inc flu hosp"
LEVELS = [0.01, 0.025, *np.round(np.arange(0.05, 0.951, 0.05), 2), 0.975, 0.99]
ROUND = "2022-12-17"


def week(label: str) -> pd.Period:
    """The ISO week ``label`` as frames hold it."""
    return parse_periods([label])[0]


def chaplab_frame(
    splits: tuple[str, ...] = ("2022W50",), n_periods: int = 4, levels: list[float] = LEVELS
) -> pd.DataFrame:
    """An evaluation frame as chaplab's service answers it: two places, the hub's weeks."""
    rows = []
    for split in splits:
        for org_unit in ("13", "48"):
            for step in range(n_periods):
                period = vocabulary.shift_period(split, step)
                for level in levels:
                    value = 100.0 + 10 * step + 200 * level + (5 if org_unit == "48" else 0)
                    rows.append((org_unit, split, period, level, value))
    frame = pd.DataFrame(rows, columns=["org_unit", "split_period", "period", "quantile", "value"])
    frame["org_unit"] = frame["org_unit"].astype("category")
    frame["split_period"] = parse_periods(frame["split_period"])
    frame["period"] = parse_periods(frame["period"])
    return with_horizon(frame)


@pytest.mark.parametrize("hub_kind", ["hub", "parquet_hub"])
def test_written_rows_read_back_equal(hub_kind: str, request: pytest.FixtureRequest) -> None:
    hub: Path = request.getfixturevalue(hub_kind)
    frame = chaplab_frame(splits=("2022W46", "2022W50"))
    rows = to_model_output(frame, hub, round_id=ROUND, target=INC, model="chaplab-x", partial=True)
    assert list(rows.columns) == [
        "reference_date", "target", "horizon", "location", "target_end_date", "output_type",
        "output_type_id", "value",
    ]  # fmt: skip
    assert set(rows["reference_date"]) == {ROUND}
    assert sorted(rows["horizon"].unique()) == [0, 1, 2, 3]
    assert sorted(rows["target_end_date"].unique()) == [
        "2022-12-17", "2022-12-24", "2022-12-31", "2023-01-07"
    ]  # fmt: skip
    path = write_model_output(rows, hub, model="chaplab-x")
    suffix = "parquet" if hub_kind == "parquet_hub" else "csv"
    assert path.endswith(f"model-output/chaplab-x/{ROUND}-chaplab-x.{suffix}")
    back = read_forecasts(hub, target=INC, models=["chaplab-x"]).quantiles
    expected = frame[frame["split_period"] == week("2022W50")]
    columns = ["org_unit", "split_period", "period", "horizon", "quantile", "value"]
    pd.testing.assert_frame_equal(
        back[columns].astype({"org_unit": str}),
        expected[columns].astype({"org_unit": str}).reset_index(drop=True),
    )
    assert set(back["org_unit_name"]) == {"Georgia", "Texas"}


def test_a_hub_models_forecasts_read_write_and_read_again_unchanged(hub: Path) -> None:
    frame = read_forecasts(hub, target=INC, models=["PSI-DICE"]).quantiles
    for round_id in ("2022-10-22", "2023-01-14"):
        rows = to_model_output(frame, hub, round_id=round_id, target=INC, partial=True)
        write_model_output(rows, hub, model="copy-dice")
    back = read_forecasts(hub, target=INC, models=["copy-dice"]).quantiles
    original = frame[frame["split_period"].isin(back["split_period"].unique())]
    pd.testing.assert_frame_equal(
        back.drop(columns="model"),
        original.drop(columns="model").reset_index(drop=True),
        check_categorical=False,
    )


def test_a_forecast_frame_without_splits_starts_in_the_rounds_first_week(hub: Path) -> None:
    forecast = chaplab_frame().drop(columns="split_period")
    rows = to_model_output(forecast, hub, round_id=ROUND, target=INC, partial=True)
    assert sorted(rows["horizon"].unique()) == [0, 1, 2, 3]
    with pytest.raises(ArgumentError, match="starts in 2022W50, but round 2022-11-19's first"):
        to_model_output(forecast, hub, round_id="2022-11-19", target=INC, partial=True)


@pytest.mark.parametrize(
    ("change", "arguments", "message"),
    [
        (None, {"round_id": "2022-12-18"}, "round_id '2022-12-18' is not a round of the hub"),
        (None, {"round_id": "2022-12-24"}, r"frame has no split 2022W51 \(the first forecast week"),
        (None, {"target": "wk flu hosp rate category"}, "takes 'pmf' output, not quantiles"),
        (None, {"partial": False}, "requires 'sample' output too"),
        ("levels", {}, "quantile levels 0.333 are not output type ids the hub accepts"),
        ("fewer levels", {}, "quantile levels 0.01, 0.99 are required by the hub"),
        ("location", {}, "location: the hub does not accept 'BR-AC'"),
        ("horizon", {}, "horizon: the hub does not accept '4'"),
        ("negative", {}, "value: the hub takes values of at least 0"),
        ("missing", {}, r"value: 1 values are missing \(NaN\)"),
        ("models", {}, "frame holds forecasts of 2 models"),
        ("columns", {}, r"frame lacks column\(s\) \['quantile'\]"),
    ],
)
def test_what_the_hub_refuses_is_named(
    hub: Path, change: str | None, arguments: dict[str, object], message: str
) -> None:
    frame = chaplab_frame(splits=("2022W50",), n_periods=5 if change == "horizon" else 4)
    if change == "levels":
        frame = chaplab_frame(levels=[*LEVELS, 0.333])
    elif change == "fewer levels":
        frame = chaplab_frame(levels=LEVELS[1:-1])
    elif change == "location":
        frame["org_unit"] = frame["org_unit"].cat.rename_categories({"13": "BR-AC"})
    elif change == "negative":
        frame.loc[0, "value"] = -1.0
    elif change == "missing":
        frame.loc[3, "value"] = np.nan
    elif change == "models":
        frame = pd.concat([frame.assign(model="a"), frame.assign(model="b")])
    elif change == "columns":
        frame = frame.drop(columns="quantile")
    with pytest.raises(ArgumentError, match=message):
        to_model_output(
            frame, hub, **{"round_id": ROUND, "target": INC, "partial": True, **arguments}
        )


def test_writing_never_replaces_a_file_unasked_and_checks_the_model_id(hub: Path) -> None:
    rows = to_model_output(chaplab_frame(), hub, round_id=ROUND, target=INC, partial=True)
    with pytest.raises(ArgumentError, match="model 'chaplab' is not a hub model id"):
        write_model_output(rows, hub, model="chaplab")
    with pytest.raises(ArgumentError, match="file_format 'json' is not one the hub accepts"):
        write_model_output(rows, hub, model="chaplab-x", file_format="json")
    path = Path(write_model_output(rows, hub, model="chaplab-x"))
    written = path.read_bytes()
    changed = rows.assign(value=rows["value"] + 1)
    with pytest.raises(ArgumentError, match="exists; pass overwrite=True"):
        write_model_output(changed, hub, model="chaplab-x")
    assert path.read_bytes() == written
    write_model_output(changed, hub, model="chaplab-x", overwrite=True)
    assert path.read_bytes() != written
