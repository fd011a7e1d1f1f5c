"""dengue_taiwan: Taiwan's confirmed cases (a row per case, with its date of onset) counted by
county and ISO week, from the slice of the real table described in ``tests/dengue_slices.py``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from chaplab.client import ChapClient
from chaplab.datasets import dengue_taiwan, upload_dengue_taiwan
from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import org_unit_names

KAOHSIUNG, TAINAN, PINGTUNG = "64", "67", "10013"


def counted(observations: pd.DataFrame) -> dict[tuple[str, str], int]:
    """The place-weeks with cases."""
    rows = observations[observations["disease_cases"] > 0]
    return {
        (place, week): int(n)
        for place, week, n in zip(
            rows["location"], rows["time_period"], rows["disease_cases"], strict=True
        )
    }


def test_cases_are_counted_in_the_iso_week_of_their_onset(cache: Path) -> None:
    observations, _ = dengue_taiwan(cache=cache)
    assert counted(observations) == {
        (KAOHSIUNG, "1998W03"): 1,
        (KAOHSIUNG, "2002W31"): 2,  # one row of two cases
        (TAINAN, "2015W36"): 1,  # Sunday 2015-09-06 ends ISO week 36
        (TAINAN, "2015W37"): 1,  # Monday 2015-09-07 starts week 37
        (TAINAN, "2015W53"): 1,  # Thursday 2015-12-31: 2015 has 53 ISO weeks
        (TAINAN, "2024W36"): 1,
    }
    assert not observations["disease_cases"].isna().any()


def test_the_weeks_are_those_the_table_wholly_covers_for_every_county(cache: Path) -> None:
    observations, _ = dengue_taiwan(cache=cache)
    weeks = observations.groupby("location")["time_period"].agg(["first", "last", "size"])
    # from the first Monday of 1998 to the last Sunday before the last notification
    # (Tuesday 2024-09-10); Pingtung's only case (Friday 1998-01-02) is in 1998W01, which the
    # table covers from Thursday only: the county is there, with no case counted
    assert weeks.to_dict("index") == {
        place: {"first": "1998W02", "last": "2024W36", "size": 1392}
        for place in (PINGTUNG, KAOHSIUNG, TAINAN)
    }


def test_counties_have_their_codes_and_english_names(cache: Path) -> None:
    observations, geojson = dengue_taiwan(None, cache=cache)
    names = {f["id"]: f["properties"]["name"] for f in geojson["features"]}
    assert names == {
        KAOHSIUNG: "Kaohsiung City",
        "65": "New Taipei City",
        PINGTUNG: "Pingtung County",
        TAINAN: "Tainan City",
        "63": "Taipei City",
    }  # the case without a county of residence is left out
    assert [f["geometry"] for f in geojson["features"]] == [None] * 5
    labels = dict(zip(observations["location"], observations["org_unit_name"], strict=False))
    assert org_unit_names(geojson) == labels
    assert counted(observations)[("63", "1998W14")] == 1  # an imported case counts too


def test_counties_are_chosen_by_name(cache: Path) -> None:
    observations, _ = dengue_taiwan(["taipei city", "New Taipei City"], cache=cache)
    assert set(observations["location"]) == {"63", "65"}
    observations, _ = dengue_taiwan("Tainan City", cache=cache)
    assert set(observations["location"]) == {TAINAN}
    with pytest.raises(ArgumentError, match=r"counties: 'Tainan' .* did you mean 'Tainan City'"):
        dengue_taiwan("Tainan", cache=cache)
    with pytest.raises(ArgumentError, match="^counties: no county given; None keeps all of them$"):
        dengue_taiwan([], cache=cache)
    with pytest.raises(ArgumentTypeError, match="^counties must be a name or a list of names"):
        dengue_taiwan(67, cache=cache)  # type: ignore[arg-type]


def test_upload_stores_the_counties_and_their_weeks(cache: Path, client: ChapClient) -> None:
    dataset = upload_dengue_taiwan(client, cache=cache)
    assert dataset.name == "dengue Taiwan (Kaohsiung City, Pingtung County, Tainan City)"
    assert sorted(dataset.org_units) == sorted([KAOHSIUNG, PINGTUNG, TAINAN])
    stored = client.get_dataset(dataset.id)
    tainan = {
        o.period: o.value
        for o in stored.observations or []
        if o.feature_name == "disease_cases" and o.org_unit == TAINAN
    }
    assert len(tainan) == 1392
    assert (tainan["2015W53"], tainan["2016W01"]) == (1, 0)
