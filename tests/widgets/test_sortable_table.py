"""The sortable, selectable table built from widgets."""

from __future__ import annotations

from datetime import datetime

import ipywidgets as widgets
import pytest

from chaplab.widgets.tables import Column, SortableTable

ROWS = [
    {"id": 1, "name": "beta", "periods": 36},
    {"id": 2, "name": "Alpha", "periods": None},
    {"id": 3, "name": "gamma", "periods": 12},
]


def _table(**kwargs: object) -> SortableTable:
    table = SortableTable([Column("name", "name"), Column("periods", "periods")], **kwargs)
    table.set_rows(ROWS)
    return table


def _shown_names(table: SortableTable) -> list[str]:
    return [row["name"] for row in table.rows]


def test_header_click_sorts_and_a_second_click_reverses_with_missing_values_last() -> None:
    table = _table()
    table.header("periods").click()
    assert _shown_names(table) == ["gamma", "beta", "Alpha"]
    assert table.header("periods").description == "periods ▲"
    table.header("periods").click()
    assert _shown_names(table) == ["beta", "gamma", "Alpha"]
    assert table.header("periods").description == "periods ▼"
    table.header("name").click()
    assert _shown_names(table) == ["Alpha", "beta", "gamma"]
    assert table.header("periods").description == "periods"


def test_cells_show_the_values_in_the_sorted_order() -> None:
    table = _table()
    table.sort_by("name")
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    texts = [getattr(cell, "description", None) or cell.value for cell in grid.children[2:]]
    assert texts == ["Alpha", "–", "beta", "36", "gamma", "12"]


def test_single_selection_behaves_like_radio_buttons() -> None:
    table = _table()
    table.toggle(1).value = True
    table.toggle(3).value = True
    assert table.selected == (3,)
    assert table.toggle(1).value is False
    assert [row["name"] for row in table.selected_rows] == ["gamma"]
    table.toggle(3).value = False
    assert table.selected == ()


def test_two_row_selection_keeps_the_newest_two_and_survives_new_rows() -> None:
    table = _table(max_selected=2)
    for key in (1, 2, 3):
        table.toggle(key).value = True
    assert table.selected == (2, 3)
    table.set_rows([row for row in ROWS if row["id"] != 2])
    assert table.selected == (3,)
    assert table.toggle(3).value is True


def test_unknown_rows_and_columns_are_named_in_the_error() -> None:
    table = _table()
    with pytest.raises(KeyError, match="no row with id=9"):
        table.toggle(9)
    with pytest.raises(KeyError, match="no column 'size'"):
        table.sort_by("size")
    with pytest.raises(ValueError, match="max_selected"):
        SortableTable([Column("name", "name")], max_selected=0)


def test_an_empty_table_says_so() -> None:
    table = SortableTable([Column("name", "name")], empty_text="No datasets yet.")
    labels = [child.value for child in table.children if isinstance(child, widgets.Label)]
    assert labels == ["No datasets yet."]


def test_shown_rows_keep_their_widgets_and_removed_rows_close_theirs() -> None:
    table = _table()
    kept, removed = table.toggle(1), table.toggle(2)
    table.set_rows([{"id": 1, "name": "beta", "periods": 48}, ROWS[2], {"id": 4, "name": "delta"}])
    assert table.toggle(1) is kept and kept.comm is not None  # no new comm for a shown row
    assert removed.comm is None  # closed: no longer registered in the kernel
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    texts = [getattr(cell, "description", None) or cell.value for cell in grid.children[2:]]
    assert texts == ["beta", "48", "gamma", "12", "delta", "–"]


def test_numbers_read_one_way_and_times_to_the_minute() -> None:
    table = SortableTable(
        [Column("name", "name"), Column("crps", "crps"), Column("created", "created")]
    )
    table.set_rows(
        [
            {"id": 1, "name": "big", "crps": 1790.4, "created": datetime(2026, 11, 23, 9, 5, 42)},
            {"id": 2, "name": "small", "crps": 777.0, "created": None},
            {"id": 3, "name": "share", "crps": 0.8254, "created": None},
        ]
    )
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    texts = [getattr(cell, "description", None) or cell.value for cell in grid.children[3:]]
    assert texts == ["big", "1,790", "2026-11-23 09:05", "small", "777", "–", "share", "0.825", "–"]


def test_delete_asks_first_and_keep_deletes_nothing() -> None:
    deleted: list[object] = []
    table = _table(on_delete=lambda row: deleted.append(row["id"]), noun="dataset")
    table.delete_button(3).click()
    assert table.confirmation.layout.display == ""
    assert table.confirmation.question.value == "Delete dataset gamma (id 3)?"
    assert deleted == []
    table.confirmation.no.click()
    assert table.confirmation.layout.display == "none" and deleted == []
    table.delete_button(1).click()
    table.confirmation.yes.click()
    assert deleted == [1]
    assert table.confirmation.yes.disabled  # one delete per confirmation
    table.confirmation.show_problem("dataset 1 is used by 2 evaluations")
    assert "used by 2 evaluations" in table.confirmation.problem.value
    assert not table.confirmation.yes.disabled
    table.set_rows([row for row in ROWS if row["id"] != 1])  # gone: the question goes too
    assert table.confirmation.layout.display == "none"


def test_a_table_without_on_delete_has_no_delete_buttons() -> None:
    table = _table()
    with pytest.raises(KeyError, match="no delete buttons"):
        table.delete_button(1)
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    assert len(grid.children) == 2 + 2 * len(ROWS)


def test_a_column_with_a_max_width_wraps_its_text_instead_of_widening_the_table() -> None:
    table = SortableTable([Column("name", "name"), Column("options", "options", "320px")])
    table.set_rows([{"id": 1, "name": "m", "options": "n_lags=3, <x>"}])
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    cell = grid.children[-1]
    assert isinstance(cell, widgets.HTML)
    assert "max-width:320px;white-space:normal;overflow-wrap:break-word" in cell.value
    assert "&lt;x&gt;" in cell.value
    assert "n_<wbr>lags" in cell.value  # a long name may break after its underscore
    table.set_rows([{"id": 1, "name": "m", "options": "defaults"}])
    assert grid.children[-1] is cell and ">defaults</div>" in cell.value


def _numbered(count: int) -> list[dict[str, object]]:
    return [
        {"id": number, "name": f"row {number:02d}", "periods": number}
        for number in range(1, count + 1)
    ]


def _grid_names(table: SortableTable) -> list[str]:
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    return [cell.description for cell in grid.children if isinstance(cell, widgets.ToggleButton)]


def test_a_long_table_shows_twenty_rows_a_page_with_previous_and_next() -> None:
    table = SortableTable([Column("name", "name"), Column("periods", "periods")])
    table.set_rows(_numbered(45))
    pager = table.pager
    assert pager in table.children
    assert pager.label.value == "rows 1-20 of 45"
    assert _grid_names(table) == [f"row {n:02d}" for n in range(1, 21)]
    assert pager.previous.disabled and not pager.next.disabled
    pager.next.click()
    assert pager.label.value == "rows 21-40 of 45"
    assert _grid_names(table) == [f"row {n:02d}" for n in range(21, 41)]
    assert not pager.previous.disabled and not pager.next.disabled
    pager.next.click()
    assert pager.label.value == "rows 41-45 of 45"
    assert _grid_names(table) == [f"row {n:02d}" for n in range(41, 46)]
    assert pager.next.disabled and not pager.previous.disabled
    pager.next.click()  # a click on the disabled button's last state changes nothing
    assert table.page == 2
    pager.previous.click()
    assert pager.label.value == "rows 21-40 of 45"


def test_new_rows_keep_the_page_and_fewer_rows_clamp_it_to_the_last() -> None:
    table = SortableTable([Column("name", "name")])
    table.set_rows(_numbered(45))
    table.go_to_page(2)
    table.set_rows(_numbered(50))
    assert table.pager.label.value == "rows 41-50 of 50"
    table.set_rows(_numbered(40))  # page 3 has no rows left: page 2, its last
    assert table.pager.label.value == "rows 21-40 of 40"
    assert table.pager.next.disabled
    table.set_rows(_numbered(3))
    assert table.pager.label.value == "rows 1-3 of 3"
    assert table.pager.previous.disabled and table.pager.next.disabled


def test_only_the_shown_rows_have_widgets() -> None:
    table = SortableTable([Column("name", "name")])
    table.set_rows(_numbered(300))
    assert len(table._toggles) == 20  # made on the loop: 20 rows' comms, not 300
    table.go_to_page(14)
    assert table.pager.label.value == "rows 281-300 of 300"
    assert len(table._toggles) == 40


def test_a_sort_orders_every_row_and_shows_the_first_page() -> None:
    table = SortableTable([Column("name", "name"), Column("periods", "periods")])
    table.set_rows(_numbered(45))
    table.go_to_page(1)
    table.header("periods").click()
    table.header("periods").click()  # descending: the largest first, over all pages
    assert table.page == 0
    assert _grid_names(table)[:2] == ["row 45", "row 44"]
    table.go_to_page(2)
    assert _grid_names(table) == [f"row {n:02d}" for n in range(5, 0, -1)]


def test_selections_stay_across_pages_and_the_pager_counts_those_not_shown() -> None:
    table = SortableTable([Column("name", "name")], max_selected=2)
    table.set_rows(_numbered(45))
    table.toggle(3).value = True
    written: list[str] = []
    table.pager.label.observe(lambda change: written.append(change["new"]), names="value")
    table.pager.next.click()
    assert table.pager.label.value == "rows 21-40 of 45 (1 selected row on another page)"
    assert written == [table.pager.label.value]  # written once, never a shorter text first
    table.toggle(25).value = True
    assert table.selected == (3, 25)
    assert [row["id"] for row in table.selected_rows] == [3, 25]
    table.pager.next.click()
    assert table.pager.label.value == "rows 41-45 of 45 (2 selected rows on other pages)"
    table.pager.previous.click()
    table.pager.previous.click()
    assert table.toggle(3).value is True and table.toggle(3).button_style == "info"
    table.show_row(44)
    assert table.page == 2


def test_a_delete_asked_on_a_later_page_names_that_row() -> None:
    deleted: list[object] = []
    table = SortableTable(
        [Column("name", "name")], on_delete=lambda row: deleted.append(row["id"]), noun="dataset"
    )
    table.set_rows(_numbered(41))
    table.go_to_page(2)
    table.delete_button(41).click()
    assert table.confirmation.question.value == "Delete dataset row 41 (id 41)?"
    table.confirmation.yes.click()
    assert deleted == [41]
    table.set_rows(_numbered(40))
    assert table.page == 1 and table.pager.label.value == "rows 21-40 of 40"
    assert table.confirmation.layout.display == "none"


def test_ids_are_shown_as_ids_and_counts_as_numbers() -> None:
    table = SortableTable([Column("name", "name"), Column("id", "id"), Column("rows", "rows")])
    table.set_rows([{"id": 1001, "name": "model", "rows": 1001}])
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    texts = [getattr(cell, "description", None) or cell.value for cell in grid.children[3:]]
    assert texts == ["model", "1001", "1,001"]


def test_a_table_says_it_is_loading_until_its_rows_or_a_reason_arrive() -> None:
    loading = SortableTable([Column("name", "Name")], empty_text="No datasets yet.")
    loading.show_loading()
    assert loading._empty.value == "loading…"
    loading.set_rows([])
    assert loading._empty.value == "No datasets yet."  # loaded: empty for real
    loading.show_loading()
    loading.set_unavailable("could not be loaded")
    assert loading._empty.value == "could not be loaded"
