"""The panel's tables page: 45 datasets read 20 at a time, a delete on the last page and a
refresh keep the reader where they were."""

from __future__ import annotations

import httpx
import pytest

from chaplab.widgets.tables import SortableTable
from client.fake_service import DATASET, FakeService

from .helpers import MakePanel

pytestmark = pytest.mark.anyio


def with_datasets(fake: FakeService, count: int) -> httpx.MockTransport:
    """The fake service listing ``count`` datasets, which it deletes when asked."""
    fake.datasets = [
        {**DATASET, "id": number, "name": f"district set {number:02d}"}
        for number in range(1, count + 1)
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "DELETE" and path.startswith("/v1/crud/datasets/"):
            fake.requests.append(request)
            number = int(path.rsplit("/", 1)[1])
            fake.datasets = [item for item in fake.datasets if item["id"] != number]
            return httpx.Response(200, json={"message": "deleted"})
        return fake(request)

    return handler  # type: ignore[return-value]


def _names(table: SortableTable) -> list[str]:
    return [row["name"] for row in table.shown_rows]


async def test_45_datasets_page_twenty_at_a_time(fake: FakeService, make_panel: MakePanel) -> None:
    panel = await make_panel(handler=with_datasets(fake, 45))
    table, pager = panel.datasets, panel.datasets.pager
    assert pager.label.value == "rows 1-20 of 45"
    assert _names(table) == [f"district set {n:02d}" for n in range(1, 21)]
    assert pager.previous.disabled and not pager.next.disabled
    pager.next.click()
    assert pager.label.value == "rows 21-40 of 45 (1 selected row on another page)"
    assert _names(table)[0] == "district set 21"
    pager.next.click()
    assert pager.label.value.startswith("rows 41-45 of 45")
    assert _names(table) == [f"district set {n:02d}" for n in range(41, 46)]
    assert pager.next.disabled and not pager.previous.disabled
    # selecting on page 3 chooses the launcher's dataset like a row on page 1 would
    table.toggle(44).value = True
    assert panel.launcher.dataset.id == 44 and pager.label.value == "rows 41-45 of 45"


async def test_a_refresh_keeps_the_page(fake: FakeService, make_panel: MakePanel) -> None:
    panel = await make_panel(handler=with_datasets(fake, 45))
    panel.datasets.go_to_page(1)
    fake.datasets.append({**DATASET, "id": 46, "name": "district set 46"})
    await panel.refresh()
    assert panel.datasets.pager.label.value.startswith("rows 21-40 of 46")
    assert _names(panel.datasets)[0] == "district set 21"


async def test_deleting_the_last_row_of_page_3_goes_back_to_page_2(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await make_panel(handler=with_datasets(fake, 41))
    table = panel.datasets
    table.pager.next.click()
    table.pager.next.click()
    assert table.pager.label.value.startswith("row 41 of 41")
    table.delete_button(41).click()
    assert table.confirmation.question.value == "Delete dataset district set 41 (id 41)?"
    table.confirmation.yes.click()
    await panel.wait_idle()
    assert "DELETE /v1/crud/datasets/41" in fake.paths()
    assert table.pager.label.value.startswith("rows 21-40 of 40")
    assert table.page == 1 and table.pager.next.disabled
    assert table.confirmation.layout.display == "none"
