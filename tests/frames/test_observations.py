from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from chaplab.frames import frame_to_observations


def test_wide_observations_become_wire_observations_without_nan() -> None:
    frame = pd.DataFrame(
        {
            "time_period": ["2021-01", "2021-02"],
            "location": ["OU_A", "OU_A"],
            "rainfall": [12.5, np.nan],
            "disease_cases": [3, 4],
        }
    )
    assert frame_to_observations(frame) == [
        {"featureName": "rainfall", "orgUnit": "OU_A", "period": "202101", "value": 12.5},
        {"featureName": "disease_cases", "orgUnit": "OU_A", "period": "202101", "value": 3.0},
        {"featureName": "disease_cases", "orgUnit": "OU_A", "period": "202102", "value": 4.0},
    ]


def test_period_and_org_unit_spellings_and_period_dtype_are_accepted() -> None:
    frame = pd.DataFrame(
        {
            "period": pd.period_range("2021-01-04", periods=2, freq="W-SUN"),
            "org_unit": pd.Categorical(["B", "B"]),
            "rainfall": [1.0, 2.0],
        }
    ).set_index(["org_unit", "period"])
    observations = frame_to_observations(frame)
    assert [o["period"] for o in observations] == ["2021W01", "2021W02"]
    assert {o["orgUnit"] for o in observations} == {"B"}


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"location": ["A"], "x": [1.0]}), "'time_period'"),
        (pd.DataFrame({"time_period": ["202101"], "x": [1.0]}), "'location'"),
        (pd.DataFrame({"time_period": ["Jan"], "location": ["A"], "x": [1.0]}), "'Jan'"),
        (pd.DataFrame({"time_period": ["202101"], "location": ["A"], "x": ["lots"]}), "'x'"),
        (pd.DataFrame({"time_period": ["202101"], "location": ["A"]}), "feature column"),
    ],
)
def test_bad_observation_frames_get_errors_naming_the_column(
    frame: pd.DataFrame, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        frame_to_observations(frame)


def test_label_columns_of_a_dataset_frame_are_not_sent() -> None:
    frame = pd.DataFrame(
        {
            "time_period": ["2021-01", "2021-01"],
            "location": ["OU_A", "OU_B"],
            "org_unit_name": ["North", "South"],
            "parent": ["-", "OU_Country"],  # chap-core 2.5.1's dataset frames carry it
            "disease_cases": [3.0, 4.0],
        }
    )
    assert frame_to_observations(frame) == [
        {"featureName": "disease_cases", "orgUnit": "OU_A", "period": "202101", "value": 3.0},
        {"featureName": "disease_cases", "orgUnit": "OU_B", "period": "202101", "value": 4.0},
    ]


def test_a_text_feature_column_is_named_with_what_to_do() -> None:
    frame = pd.DataFrame(
        {"time_period": ["202101"], "location": ["A"], "region": ["east"], "x": [1.0]}
    )
    with pytest.raises(ValueError, match=r"'region' holds non-numeric .* drop it or convert"):
        frame_to_observations(frame)
