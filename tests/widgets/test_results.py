"""The results' chart of a country: "all org units" draws the places with the most cases and
says how many of how many; one chosen place draws that place."""

from __future__ import annotations

import html

import httpx
import pytest

from client.fake_service import EVALUATION, FakeService

from .helpers import MakePanel

pytestmark = pytest.mark.anyio

PLACES = [f"OU_{number:02d}" for number in range(30)]
CASES = {place: ((7 * number) % 30) * 10 + 1 for number, place in enumerate(PLACES)}
"""Cases per place, in no alphabetical order: OU_17 has the most (291), OU_00 the fewest."""
TOP_12 = sorted(PLACES, key=lambda place: -CASES[place])[:12]


def country(fake: FakeService) -> httpx.MockTransport:
    """The fake service with one evaluation of 30 places, each with its own number of cases."""
    fake.evaluations[1] = {**EVALUATION, "orgUnits": PLACES}

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v1/analytics/evaluation-entry":
            fake.requests.append(request)
            quantiles = request.url.params.get_list("quantiles")
            return httpx.Response(
                200,
                json=[
                    {
                        "orgUnit": place,
                        "period": split,  # each split's first forecast period
                        "quantile": float(q),
                        "value": CASES[place] * float(q),
                        "splitPeriod": split,
                    }
                    for split in EVALUATION["splitPeriods"]
                    for place in PLACES
                    for q in quantiles
                ],
            )
        if path.startswith("/v1/analytics/actual"):
            fake.requests.append(request)
            return httpx.Response(
                200,
                json={
                    "featureId": "disease_cases",
                    "data": [
                        {"pe": period, "ou": place, "value": CASES[place] / 2}
                        for place in PLACES
                        for period in ("202305", "202306")
                    ],
                },
            )
        return fake(request)

    return handler  # type: ignore[return-value]


async def test_all_org_units_draws_the_twelve_places_with_most_cases_and_says_so(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await make_panel(handler=country(fake))
    results = panel.results
    results.table.toggle(1).value = True
    await results.settled()
    assert results.org_unit.value == "all org units"
    assert results.shown_panels == TOP_12  # most first, not OU_00 to OU_11
    assert TOP_12[0] == "OU_17" and "OU_00" not in results.shown_panels
    note = html.unescape(results.chart_note.value)  # the chart's title says "12 of 30 ..."
    assert "pick an org unit to draw any of the other 18 places" in note
    assert "most cases" not in note  # said once, by the title
    assert "top=12" in panel.code.code  # "copy code" draws the same chart

    results.org_unit_search.value = "ou_0"  # the search still narrows the picker
    assert [unit for _, unit in results.org_unit.options[1:]] == PLACES[:10]
    results.org_unit.value = "OU_04"
    await results.settled()
    assert results.shown_panels == ["OU_04"]  # one chosen place: that place, no note
    assert results.chart_note.value == ""
    assert "top=" not in panel.code.code and 'org_units="OU_04"' in panel.code.code

    results.org_unit.value = "all org units"
    results.split.value = "all splits"  # three splits each: four places fill twelve panels
    await results.settled()
    assert "any of the other 26 places" in html.unescape(results.chart_note.value)
    assert [title.split(",")[0] for title in results.shown_panels] == [
        place for place in TOP_12[:4] for _ in range(3)
    ]
