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
    table = SortableTable([Column("name", "name"), Column("crps", "crps"),
                           Column("created", "created")])
    table.set_rows([
        {"id": 1, "name": "big", "crps": 1790.4, "created": datetime(2026, 11, 23, 9, 5, 42)},
        {"id": 2, "name": "small", "crps": 777.0, "created": None},
        {"id": 3, "name": "share", "crps": 0.8254, "created": None},
    ])
    grid = next(child for child in table.children if isinstance(child, widgets.GridBox))
    texts = [getattr(cell, "description", None) or cell.value for cell in grid.children[3:]]
    assert texts == ["big", "1,790", "2026-11-23 09:05", "small", "777", "–",
                     "share", "0.825", "–"]


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
    assert "max-width:320px;white-space:normal" in cell.value and "&lt;x&gt;" in cell.value
    table.set_rows([{"id": 1, "name": "m", "options": "defaults"}])
    assert grid.children[-1] is cell and ">defaults</div>" in cell.value
