"""chap-core 2.5.1's facet routes for the evaluation charts our service draws: the facet
dimensions and their values (``facet-coords``), one facet as a Vega spec (``subplot``, what
DHIS2's Modeling App draws for the split period and org unit its user picks) and every facet
as ``{key, spec}`` (``subplots``). A facet's data are the evaluation's own forecasts and the
observed cases; ``ChapClient``'s facet methods work on our service as on chap-core."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import ChapClient

from .helpers import Evaluated

pytestmark = pytest.mark.integration

CHARTS = "/v1/visualization/backtest-plots"


@pytest.fixture(scope="module")
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=120) as plain:
        yield plain


def dataset(spec: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The rows of the compiled Vega spec's dataset ``name``."""
    rows: list[dict[str, Any]] = next(d for d in spec["data"] if d["name"] == name)["values"]
    return rows


def test_each_chart_names_its_facets_and_their_values(
    http: httpx.Client, evaluated: Evaluated
) -> None:
    evaluation = evaluated.evaluation
    forecasts = http.get(f"{CHARTS}/forecasts/{evaluation.id}/facet-coords")
    assert forecasts.status_code == 200, forecasts.text
    assert forecasts.json() == {
        "split_period": evaluation.split_periods,
        "location": evaluation.org_units,
    }
    last = http.get(f"{CHARTS}/last_split/{evaluation.id}/facet-coords").json()
    assert last == {"location": evaluation.org_units}


def test_a_facet_is_a_vega_fan_chart_of_its_split_and_org_unit(
    client: ChapClient, http: httpx.Client, evaluated: Evaluated
) -> None:
    evaluation = evaluated.evaluation
    split, unit = evaluation.split_periods[1], evaluation.org_units[1]
    answer = http.post(
        f"{CHARTS}/forecasts/{evaluation.id}/subplot",
        json={"split_period": split, "location": unit},
    )
    assert answer.status_code == 200, answer.text
    spec = answer.json()
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega/")
    assert any(signal["name"] == "width" for signal in spec["signals"])  # the container's
    forecast = dataset(spec, "forecast")
    entries = client.evaluation_entries(evaluation.id, [0.1, 0.5, 0.9], split, unit)
    assert {(row["split_period"], row["location"]) for row in forecast} == {(split, unit)}
    assert len(forecast) == evaluation.n_periods
    by_period = {(e.period, e.quantile): e.value for e in entries}
    for row in forecast:
        period = row["period"].replace("-", "")
        for level, field in ((0.1, "q10"), (0.5, "q50"), (0.9, "q90")):
            assert row[field] == pytest.approx(by_period[(period, level)], rel=1e-5)
    cases = http.get(f"/v1/analytics/actualCases/{evaluation.id}", params={"orgUnits": unit})
    actual = {case["pe"]: case["value"] for case in cases.json()["data"]}
    observed = dataset(spec, "observed")
    assert observed and {row["location"] for row in observed} == {unit}
    for row in observed:
        assert row["observed"] == pytest.approx(actual[row["period"].replace("-", "")])
    a_period = split[:4] + "-" + split[4:]  # a split period also spelled as people read it
    same = http.post(f"{CHARTS}/forecasts/{evaluation.id}/subplot", json={"split_period": a_period})
    assert same.status_code == 200
    assert {row["location"] for row in dataset(same.json(), "forecast")} == set(
        evaluation.org_units
    )


def test_every_facet_comes_with_its_key(http: httpx.Client, evaluated: Evaluated) -> None:
    evaluation = evaluated.evaluation
    every = http.get(f"{CHARTS}/forecasts/{evaluation.id}/subplots")
    assert every.status_code == 200, every.text
    keys = [facet["key"] for facet in every.json()]
    assert keys == [[s, u] for s in evaluation.split_periods for u in evaluation.org_units]
    for facet in every.json():
        rows = dataset(facet["spec"], "forecast")
        assert {(row["split_period"], row["location"]) for row in rows} == {tuple(facet["key"])}
    last = http.get(f"{CHARTS}/last_split/{evaluation.id}/subplots").json()
    assert [facet["key"] for facet in last] == evaluation.org_units
    for facet in last:
        rows = dataset(facet["spec"], "forecast")
        assert {row["split_period"] for row in rows} == {evaluation.split_periods[-1]}


def test_a_facet_asked_wrongly_is_refused_saying_why(
    client: ChapClient, http: httpx.Client, evaluated: Evaluated
) -> None:
    evaluation = evaluated.evaluation
    path = f"{CHARTS}/forecasts/{evaluation.id}/subplot"
    typo = http.post(path, json={"locaton": evaluation.org_units[0]})
    assert typo.status_code == 422
    assert "locaton: is not a facet of this chart; did you mean 'location'?" in typo.text
    absent = http.post(path, json={"split_period": "199901"})
    assert absent.status_code == 422 and "split_period: has no facet '199901'" in absent.text
    assert http.get(f"{CHARTS}/nothing/{evaluation.id}/facet-coords").status_code == 404
    assert http.get(f"{CHARTS}/forecasts/987654/subplots").status_code == 404
    row_only = client.create_evaluation_row("no forecasts", "naive_model", evaluated.dataset.id)
    empty = http.get(f"{CHARTS}/forecasts/{row_only.id}/facet-coords")
    assert empty.status_code == 409 and "nothing to draw" in empty.text


def test_the_client_draws_facets_of_our_service(client: ChapClient, evaluated: Evaluated) -> None:
    evaluation = evaluated.evaluation
    facets = client.backtest_plot_facets("forecasts", evaluation.id)
    assert facets["location"] == evaluation.org_units
    chosen = {"split_period": facets["split_period"][0], "location": facets["location"][0]}
    plot = client.backtest_subplot("forecasts", evaluation.id, chosen)
    assert not plot.is_png and plot.picture(".png").startswith(b"\x89PNG")
    every = client.backtest_subplots("last_split", evaluation.id)
    assert [facet.key for facet in every] == [(unit,) for unit in evaluation.org_units]
