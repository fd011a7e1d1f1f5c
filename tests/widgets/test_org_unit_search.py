"""The results' org-unit picker: a search box narrows hundreds of places to a few."""

from __future__ import annotations

import pytest

from .helpers import MakePanel

pytestmark = pytest.mark.anyio

ALL = ("all org units", "all org units")


async def test_typing_narrows_the_org_units_offered_and_keeps_the_chosen_one(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    results = panel.results
    every = list(results.org_unit.options)
    assert len(every) == 3 and every[0] == ALL
    (label_a, unit_a), (label_b, unit_b) = every[1:]
    results.org_unit_search.value = f"  {label_b.upper()} "  # case and spaces do not matter
    assert list(results.org_unit.options) == [ALL, (label_b, unit_b)]
    results.org_unit.value = unit_b
    await results.settled()
    assert results.shown_panels == [label_b]
    assert results.org_unit_note.value == ""
    results.org_unit_search.value = "no place is called this"
    assert list(results.org_unit.options) == [ALL, (label_b, unit_b)]  # the chosen one stays
    assert results.org_unit.value == unit_b
    assert "no org unit matches &#x27;no place is called this&#x27;" in results.org_unit_note.value
    results.org_unit_search.value = unit_a  # ids are found too
    assert results.org_unit_note.value == ""
    assert list(results.org_unit.options) == [ALL, *sorted([(label_a, unit_a), (label_b, unit_b)])]
    results.org_unit_search.value = ""
    assert list(results.org_unit.options) == every
