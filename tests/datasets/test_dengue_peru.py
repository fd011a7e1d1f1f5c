"""dengue_peru: Peru's notified cases (a row per case, with its epidemiological week) counted by
district and ISO week, from the slice of the real table described in ``tests/dengue_slices.py``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from chaplab.client import ChapClient
from chaplab.datasets import dengue_peru, org_units_of, upload_dengue_peru
from chaplab.errors import ArgumentError
from chaplab.frames import frame_to_observations, org_unit_names
from chaplab.weeks import iso_week_of_epiweek

TUMBES = "tumbes.tumbes.tumbes"


def cases_of(observations: pd.DataFrame, org_unit: str) -> dict[str, int]:
    rows = observations[observations["location"] == org_unit]
    return dict(zip(rows["time_period"], rows["disease_cases"], strict=True))


def test_every_district_has_every_week_of_the_table_and_a_week_without_a_case_is_zero(
    cache: Path,
) -> None:
    observations, _ = dengue_peru("Tumbes", cache=cache)
    weeks = cases_of(observations, TUMBES)
    # the table's span, 2019-01 (a case in Loreto) to 2022-52, not the department's own cases
    assert list(weeks)[0] == "2019W01" and list(weeks)[-1] == "2022W52"
    assert len(weeks) == 209
    assert observations.groupby("location").size().tolist() == [209, 209]
    assert not observations["disease_cases"].isna().any()
    assert {week: n for week, n in weeks.items() if n} == {
        "2019W01": 1,  # filed under Loreto in the province of Tumbes: counted in its district
        "2019W10": 2,  # two cases of one week
        "2020W53": 1,  # epidemiological week 2020-53
        "2022W52": 1,
    }
    assert sum(weeks.values()) == 4 + 1


def test_an_epidemiological_week_is_labelled_with_the_iso_week_of_its_saturday(
    cache: Path,
) -> None:
    observations, _ = dengue_peru(None, cache=cache)
    nepena = {week: n for week, n in cases_of(observations, "ancash.santa.nepena").items() if n}
    assert nepena == {iso_week_of_epiweek(2021, 21): 1}
    assert iso_week_of_epiweek(2020, 53) == "2020W53"  # ends on Saturday 2021-01-02


def test_districts_are_named_as_people_write_them_with_their_province(cache: Path) -> None:
    observations, geojson = dengue_peru(None, cache=cache)
    names = {f["id"]: f["properties"]["name"] for f in geojson["features"]}
    assert names == {
        "ancash.santa.nepena": "Nepeña",  # NEPEѐA in the table
        "ayacucho.la_mar.santa_rosa": "Santa Rosa",
        "cajamarca.jaen.santa_rosa": "Santa Rosa",
        "lambayeque.ferrenafe.ferrenafe": "Ferreñafe",  # FERRE�AFE in the table
        "loreto.alto_amazonas.yurimaguas": "Yurimaguas",
        TUMBES: "Tumbes",
        "tumbes.zarumilla.zarumilla": "Zarumilla",
    }
    parents = {f["id"]: f["properties"]["parentName"] for f in geojson["features"]}
    assert parents["lambayeque.ferrenafe.ferrenafe"] == "Ferrenafe"  # the province, unaccented
    assert [f["geometry"] for f in geojson["features"]] == [None] * 7
    labels = dict(zip(observations["location"], observations["org_unit_name"], strict=False))
    assert labels["ayacucho.la_mar.santa_rosa"] == "Santa Rosa (La Mar)"
    assert labels["cajamarca.jaen.santa_rosa"] == "Santa Rosa (Jaen)"
    assert org_unit_names(geojson) == labels  # the frames label the uploaded GeoJSON the same
    assert org_units_of(geojson, "Zarumilla") == ["tumbes.zarumilla.zarumilla"]


def test_cases_without_a_place_are_left_out_and_no_other_is_lost(cache: Path) -> None:
    observations, _ = dengue_peru(None, cache=cache)
    assert observations["disease_cases"].sum() == 11  # twelve rows, one without a place
    assert observations["location"].nunique() == 7
    assert not observations["location"].str.contains("\\", regex=False).any()


def test_a_department_is_chosen_by_name_whatever_the_case_and_accents(cache: Path) -> None:
    observations, _ = dengue_peru("AYACUCHO", cache=cache)
    assert set(observations["location"]) == {"ayacucho.la_mar.santa_rosa"}
    assert observations["org_unit_name"].unique().tolist() == ["Santa Rosa"]
    with pytest.raises(ArgumentError, match=r"department: 'Tumbez' .* did you mean 'Tumbes'\?"):
        dengue_peru("Tumbez", cache=cache)


def test_the_weekly_frame_is_sent_whole_with_its_zeros(cache: Path) -> None:
    observations, _ = dengue_peru(cache=cache)
    sent = frame_to_observations(observations)
    assert len(sent) == 2 * 209
    assert {o["period"] for o in sent if o["orgUnit"] == TUMBES and o["value"] == 0} >= {
        "2019W02",
        "2022W51",
    }


def test_upload_stores_the_weeks_the_zeros_and_the_names(cache: Path, client: ChapClient) -> None:
    dataset = upload_dengue_peru(client, cache=cache)
    assert dataset.name == "dengue Peru (Tumbes)"
    assert dataset.org_units == [TUMBES, "tumbes.zarumilla.zarumilla"]
    stored = client.get_dataset(dataset.id)
    assert org_unit_names(stored.geojson) == {
        TUMBES: "Tumbes",
        "tumbes.zarumilla.zarumilla": "Zarumilla",
    }
    cases = {
        o.period: o.value
        for o in stored.observations or []
        if o.feature_name == "disease_cases" and o.org_unit == TUMBES
    }
    assert len(cases) == 209
    assert (cases["2019W10"], cases["2020W53"], cases["2019W11"]) == (2, 1, 0)
