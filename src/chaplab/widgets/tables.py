"""A sortable, selectable table built from plain ipywidgets (ipywidgets has no data grid).

The header cells are buttons that sort (a second click reverses the order); the first cell
of each row is a toggle button labelled with the row's name, so a row is selected by pressing
its name, and screen readers announce a labelled, pressed button. The other cells are labels.
A table given ``on_delete`` ends each row with a delete button, which asks for confirmation
under the table before anything is deleted.

Cells never cut their text: every column is as wide as its widest cell where the output has
room; where it has not, the columns given a ``max_width`` wrap further, down to their longest
word, and buttons do not shrink.

A table shows ``PAGE_SIZE`` rows at a time, with **previous** and **next** under it (each
disabled at its end) and "rows 21-40 of 312" between them. Sorting orders every row, then the
page is cut; a sort goes back to the first page, new rows (a refresh) keep the page, clamped
to the last one when rows went. Selections and the delete question belong to rows, not to
pages: a row selected on page 1 stays selected on page 3, and the pager says how many selected
rows are on other pages.

A row gets its widgets when it is first shown and keeps them for as long as its key is in the
table: changed rows get new texts, removed rows' widgets are closed. Creating a widget opens a
comm to the front end, so making every row's widgets (hundreds) or rebuilding them on each
change would hold up the kernel's event loop.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import ipywidgets as widgets
import traitlets
from ipywidgets.widgets.widget_bool import ToggleButtonStyle
from ipywidgets.widgets.widget_string import HTMLStyle, LabelStyle

from chaplab.frames import format_number
from chaplab.widgets._closing import close_all
from chaplab.widgets._markup import message
from chaplab.widgets._tasks import on_kernel_loop

Row = Mapping[str, Any]
OnDelete = Callable[[Row], object]

PAGE_SIZE = 20
"""Rows a table shows at a time."""

LOADING_TEXT = "loading…"
"""What a table says while its rows are being read for the first time."""

UNCUT = {"flex": "0 0 auto", "width": "auto", "min_width": "max-content"}
"""Layout of a button whose label must never be cut: it keeps its own width."""

COLUMN_TRACK = "minmax(min-content, max-content)"
"""A table column's width: its widest text where the output has room; where it has not, the
columns that wrap (those with a ``max_width``) give way, down to their longest word, so the
table stays inside the output however wide its ids and numbers grow (with ``max-content``
alone, the evaluations table had no room for three-digit ids in a 1024 px window)."""


def uncut_button(
    description: str,
    icon: str = "",
    tooltip: str | None = None,
    *,
    hidden: bool = False,
    **traits: Any,
) -> widgets.Button:
    """A button whose label is never cut (:data:`UNCUT`), hidden (``display: none``) until
    shown when ``hidden``; ``traits`` are its others (``button_style``, ``disabled``)."""
    layout = widgets.Layout(**UNCUT, **({"display": "none"} if hidden else {}))
    if tooltip is not None:
        traits["tooltip"] = tooltip
    return widgets.Button(description=description, icon=icon, layout=layout, **traits)


def fit_choices(
    dropdown: widgets.Dropdown | widgets.SelectMultiple, description_width: str, minimum: str
) -> None:
    """Widen ``dropdown`` to its longest choice, never narrower than ``minimum`` nor wider than
    its container, so that no choice is cut (a dropdown keeps its width whatever it offers)."""
    labels = [
        str(option[0] if isinstance(option, tuple) else option) for option in dropdown.options
    ]
    longest = max((len(label) for label in labels), default=0)
    dropdown.layout.width = f"max({minimum}, calc({description_width} + {longest + 4}ch))"
    dropdown.layout.max_width = "100%"


WRAP_CLASS = "chaplab-wrap"
"""The class of a button whose label wraps onto more lines (ipywidgets keeps a button's label
on one line and cuts it): used with a ``max_width``, so a long name makes a row taller, not the
table wider. A word longer than the width is broken where it reaches the edge rather than cut
(two names cut to "compare models/seaso…" read the same) or let run past the button."""
_WRAP_STYLE = (
    f"<style>.{WRAP_CLASS} {{ white-space: normal !important; overflow-wrap: break-word; "
    "height: auto !important; "
    "min-height: var(--jp-widgets-inline-height); line-height: 1.25 !important; "
    "padding-top: 2px !important; padding-bottom: 2px !important; }}</style>"
)
BREAKS_AFTER = "_:/-"
"""Characters a long name in a table cell may break after (``regression_model:`` /
``quickstart``), besides its spaces."""


@dataclass(frozen=True)
class Column:
    """One column: ``key`` in the row dicts, ``title`` in the header; a column with a
    ``max_width`` (CSS, such as ``"320px"``) wraps longer texts onto more lines instead of
    widening the table."""

    key: str
    title: str
    max_width: str | None = None


def columns(*keys: str) -> tuple[Column, ...]:
    """Columns titled by their keys, an underscore read as a space (``org_units``: "org units")."""
    return tuple(Column(key, key.replace("_", " ")) for key in keys)


def format_cell(value: Any) -> str:
    """The text of a cell: numbers as :func:`chaplab.frames.format_number` writes them
    (``1,790`` beside ``777``), times to the minute, lists joined, nothing as a dash."""
    if _is_missing(value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, (list, tuple)):
        return ", ".join(format_cell(item) for item in value)
    return str(value)


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _sort_key(value: Any) -> Any:
    """Text case-insensitively, lists by length, everything else by its natural order."""
    if isinstance(value, str):
        return value.casefold()
    if isinstance(value, (list, tuple)):
        return len(value)
    return value


def sorted_rows(rows: Sequence[Row], column: str, *, descending: bool) -> list[Row]:
    """``rows`` sorted by ``column``; rows missing the value come last either way."""
    present = [row for row in rows if not _is_missing(row.get(column))]
    missing = [row for row in rows if _is_missing(row.get(column))]
    present.sort(key=lambda row: _sort_key(row[column]), reverse=descending)
    return present + missing


class Pager(widgets.HBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """**previous**, "rows 21-40 of 312" and **next**: which ``PAGE_SIZE`` rows of ``total``
    are shown. ``on_change`` is called (on the event loop, from a click) after the page
    changed."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__(layout=widgets.Layout(align_items="center", grid_gap="0 8px"))
        self.page = 0
        self.total = 0
        self._on_change = on_change
        self.previous = uncut_button("previous", "chevron-left", f"the previous {PAGE_SIZE} rows")
        self.next = uncut_button("next", "chevron-right", f"the next {PAGE_SIZE} rows")
        self.label = widgets.Label(layout=widgets.Layout(**UNCUT))
        self.previous.on_click(on_kernel_loop(lambda _: self.go(self.page - 1)))
        self.next.on_click(on_kernel_loop(lambda _: self.go(self.page + 1)))
        self.children = [self.previous, self.label, self.next]

    @property
    def pages(self) -> int:
        """How many pages ``total`` rows fill (one when there are none)."""
        return max(1, math.ceil(self.total / PAGE_SIZE))

    @property
    def start(self) -> int:
        """The index of the page's first row."""
        return self.page * PAGE_SIZE

    @property
    def stop(self) -> int:
        """One past the index of the page's last row."""
        return min(self.start + PAGE_SIZE, self.total)

    def set_total(self, total: int, elsewhere: int = 0) -> None:
        """Show ``total`` rows, the page kept (the last one if it no longer has rows);
        ``elsewhere`` selected rows are on other pages."""
        self.count(total)
        self.show(elsewhere)

    def count(self, total: int) -> None:
        """Hold ``total`` rows, the page kept (the last one if it no longer has rows), without
        showing it yet (the label is written once, by :meth:`show`)."""
        self.total = total
        self.page = min(self.page, self.pages - 1)

    def go(self, page: int) -> None:
        """Show page ``page`` (counted from 0), clamped to the pages there are."""
        page = max(0, min(page, self.pages - 1))
        if page != self.page:
            self.page = page
            self._on_change()

    def show(self, elsewhere: int = 0) -> None:
        """Write the label and enable the buttons for the page shown."""
        if not self.total:
            text = "no rows"
        elif self.stop == self.start + 1:
            text = f"row {self.stop} of {self.total}"
        else:
            text = f"rows {self.start + 1}-{self.stop} of {self.total}"
        if elsewhere:
            where = "row on another page" if elsewhere == 1 else "rows on other pages"
            text += f" ({elsewhere} selected {where})"
        self.label.value = text
        self.previous.disabled = self.page == 0
        self.next.disabled = self.page >= self.pages - 1


class SortableTable(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Rows of dicts shown under sortable headers; ``selected`` holds the selected rows' keys.

    ``max_selected`` rows can be selected at once; selecting one more drops the oldest, so a
    single-selection table behaves like radio buttons and a two-row table like a comparison.
    With ``on_delete``, each row has a delete button; confirming under the table hands the
    row to ``on_delete`` (``noun`` names what a row is in the question). ``PAGE_SIZE`` rows
    show at a time (``pager``)."""

    selected = traitlets.Tuple(help="keys of the selected rows, oldest selection first")
    children: tuple[widgets.Widget, ...]  # VBox's trait, declared for the type checker

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        key: str = "id",
        max_selected: int = 1,
        caption: str = "",
        empty_text: str = "nothing to show yet",
        on_delete: OnDelete | None = None,
        noun: str = "row",
    ) -> None:
        if not columns:
            raise ValueError("SortableTable: columns must name at least one column")
        if max_selected < 1:
            raise ValueError(f"SortableTable: max_selected must be at least 1, got {max_selected}")
        super().__init__()
        self.columns = list(columns)
        self.key = key
        self.max_selected = max_selected
        self.sort_column: str | None = None
        self.sort_descending = False
        self._rows: list[Row] = []
        self._by_key: dict[Any, Row] = {}
        self._toggles: dict[Any, widgets.ToggleButton] = {}
        self._cells: dict[Any, list[widgets.Widget]] = {}
        self._syncing = False
        self._on_delete = on_delete
        self.noun = noun
        self._caption = widgets.HTML(f"{_WRAP_STYLE}<b>{html.escape(caption)}</b>")
        self.empty_text = empty_text
        self._empty = widgets.Label(empty_text)
        self._headers = [self._header_button(column) for column in self.columns]
        self._deletes: dict[Any, widgets.Button] = {}
        self._looks = RowLooks(self.columns[0])
        self._corner: list[widgets.Widget] | None = None
        self.confirmation = DeleteConfirmation(self._confirmed)
        self.pager = Pager(self._show_page)
        width = len(self.columns) + (on_delete is not None)
        self._grid = widgets.GridBox(
            layout=widgets.Layout(
                grid_template_columns=f"repeat({width}, {COLUMN_TRACK})",
                justify_content="flex-start",  # columns as wide as their texts, not the output's
                grid_gap="2px 8px",
                align_items="center",
            )
        )
        self.observe(on_kernel_loop(self._show_selection), names="selected")
        self._layout_children()

    @property
    def rows(self) -> list[Row]:
        """Every row (of every page), in the order they are shown."""
        return list(self._rows)

    @property
    def shown_rows(self) -> list[Row]:
        """The rows of the page shown."""
        return self._rows[self.pager.start : self.pager.stop]

    @property
    def page(self) -> int:
        """The page shown, counted from 0."""
        return self.pager.page

    @property
    def selected_rows(self) -> list[Row]:
        """The selected rows, oldest selection first (on any page)."""
        return [self._by_key[key] for key in self.selected if key in self._by_key]

    def toggle(self, key: Any) -> widgets.ToggleButton:
        """The toggle button that selects the row with ``key`` (on any page)."""
        if key not in self._by_key:
            raise KeyError(f"no row with {self.key}={key!r}; rows: {list(self._by_key)}")
        self._cells_of(self._by_key[key])
        return self._toggles[key]

    def go_to_page(self, page: int) -> None:
        """Show page ``page`` (counted from 0; clamped to the pages there are)."""
        self.pager.go(page)

    def show_row(self, key: Any) -> None:
        """Show the page that holds the row with ``key``."""
        self.toggle(key)
        index = next(i for i, row in enumerate(self._rows) if row[self.key] == key)
        self.pager.go(index // PAGE_SIZE)

    def delete_button(self, key: Any) -> widgets.Button:
        """The button that asks to delete the row with ``key`` (tables given ``on_delete``)."""
        self.toggle(key)
        try:
            return self._deletes[key]
        except KeyError:
            raise KeyError("this table has no delete buttons (no on_delete)") from None

    def header(self, column_key: str) -> widgets.Button:
        """The header button that sorts by ``column_key``."""
        for column, button in zip(self.columns, self._headers, strict=True):
            if column.key == column_key:
                return button
        raise KeyError(f"no column {column_key!r}; columns: {[c.key for c in self.columns]}")

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Show ``rows`` (kept in the current sort order, on the same page as far as there are
        rows); selections of rows still present stay. Rows already shown keep their widgets,
        with their texts updated."""
        self._empty.value = self.empty_text
        self._rows = list(rows)
        self._by_key = {row[self.key]: row for row in self._rows}
        keys = self._by_key.keys()
        for key in [key for key in self._cells if key not in keys]:
            del self._toggles[key]
            self._deletes.pop(key, None)
            close_all(self._cells.pop(key))
        if self.confirmation.row is not None and self.confirmation.row[self.key] not in keys:
            self.confirmation.dismiss()
        for row in self._rows:
            cells = self._cells.get(row[self.key])
            if cells is not None:
                self._show_texts(cells, row)
        self.selected = tuple(key for key in self.selected if key in keys)
        self._apply_sort()

    def show_loading(self) -> None:
        """Say the rows are being loaded, until they are shown (:meth:`set_rows`) or could not
        be loaded (:meth:`set_unavailable`): before its first load a panel's list must not
        read as empty."""
        if not self._rows:
            self._empty.value = LOADING_TEXT

    def set_unavailable(self, reason: str) -> None:
        """No rows, and ``reason`` (why they could not be loaded) where the table would say
        it is empty: an empty list and one that failed to load must not read alike."""
        self.set_rows([])
        self._empty.value = reason

    def select(self, *keys: Any) -> None:
        """Select the rows with ``keys`` (and no others)."""
        for key in keys:
            self.toggle(key)
        self.selected = tuple(keys)[-self.max_selected :]

    def sort_by(self, column_key: str, *, descending: bool = False) -> None:
        """Sort the rows by one column and show the first page."""
        self.header(column_key)
        self.sort_column = column_key
        self.sort_descending = descending
        self.pager.page = 0
        self._apply_sort()

    def _header_button(self, column: Column) -> widgets.Button:
        button = widgets.Button(
            description=column.title,
            tooltip=f"sort by {column.title}",
            layout=_button_layout(column, padding="0 6px"),
        )
        if column.max_width is not None:
            button.add_class(WRAP_CLASS)

        def clicked(_: widgets.Button) -> None:
            again = self.sort_column == column.key
            self.sort_by(column.key, descending=again and not self.sort_descending)

        button.on_click(on_kernel_loop(clicked))
        return button

    def _texts(self, row: Row) -> list[str]:
        """The cells' texts; the key column (an id) as the id is written, ``1001`` and never
        the count ``1,001``."""
        return [
            str(row.get(column.key)) if column.key == self.key else format_cell(row.get(column.key))
            for column in self.columns
        ]

    def _cells_of(self, row: Row) -> list[widgets.Widget]:
        """The widgets of ``row``, made when it is first needed."""
        cells = self._cells.get(row[self.key])
        if cells is None:
            cells = self._cells[row[self.key]] = self._row_cells(row)
        return cells

    def _row_cells(self, row: Row) -> list[widgets.Widget]:
        key = row[self.key]
        name, *others = self._texts(row)
        toggle = widgets.ToggleButton(
            description=name,
            tooltip=f"select {name}",
            value=key in self.selected,
            button_style="info" if key in self.selected else "",
            layout=self._looks.toggle_layout,
            style=self._looks.toggle_style,
        )
        if self.columns[0].max_width is not None:
            toggle.add_class(WRAP_CLASS)
        toggle.observe(
            on_kernel_loop(lambda change: self._toggled(key, change["new"])), names="value"
        )
        self._toggles[key] = toggle
        cells: list[widgets.Widget] = [
            toggle,
            *(
                self._looks.cell(column, text)
                for column, text in zip(self.columns[1:], others, strict=True)
            ),
        ]
        if self._on_delete is not None:
            delete = widgets.Button(
                icon="trash",
                tooltip=f"delete {name}",
                layout=self._looks.delete_layout,
                style=self._looks.delete_style,
            )
            delete.on_click(on_kernel_loop(lambda _: self._ask_to_delete(key)))
            self._deletes[key] = delete
            cells.append(delete)
        return cells

    def _show_texts(self, cells: list[widgets.Widget], row: Row) -> None:
        """Update a shown row's cells (a trait set to its own value sends nothing)."""
        (name, *others), (toggle, *labels) = self._texts(row), cells
        toggle.description, toggle.tooltip = name, f"select {name}"
        for column, label, text in zip(self.columns[1:], labels, others, strict=False):
            label.value = _cell_value(column, text)  # (the delete button has no text)
        if row[self.key] in self._deletes:
            self._deletes[row[self.key]].tooltip = f"delete {name}"

    def _ask_to_delete(self, key: Any) -> None:
        row = self._by_key[key]
        self.confirmation.ask(
            row, f"{self.noun} {format_cell(row.get(self.columns[0].key))} (id {key})"
        )

    def _confirmed(self, row: Row) -> None:
        if self._on_delete is not None:
            self._on_delete(row)

    def _toggled(self, key: Any, pressed: bool) -> None:
        if self._syncing:
            return
        kept = [selected for selected in self.selected if selected != key]
        if pressed:
            kept.append(key)
        self.selected = tuple(kept[-self.max_selected :])

    def _show_selection(self, _: Any = None) -> None:
        self._syncing = True
        try:
            for key, toggle in self._toggles.items():
                toggle.value = key in self.selected
                toggle.button_style = "info" if key in self.selected else ""
        finally:
            self._syncing = False
        self._show_pager()

    def _show_pager(self) -> None:
        shown = {row[self.key] for row in self.shown_rows}
        self.pager.set_total(len(self._rows), sum(key not in shown for key in self.selected))

    def _apply_sort(self) -> None:
        if self.sort_column is not None:
            self._rows = sorted_rows(self._rows, self.sort_column, descending=self.sort_descending)
        for column, button in zip(self.columns, self._headers, strict=True):
            sorted_here = column.key == self.sort_column
            arrow = (" ▼" if self.sort_descending else " ▲") if sorted_here else ""
            button.description = column.title + arrow
        self._show_page()

    def _show_page(self) -> None:
        """Show the rows of the pager's page (clamped to the rows there are)."""
        self.pager.count(len(self._rows))
        cells = [cell for row in self.shown_rows for cell in self._cells_of(row)]
        if self._corner is None:
            self._corner = [widgets.Label("")] if self._on_delete is not None else []
        self._grid.children = [*self._headers, *self._corner, *cells]
        self._show_pager()  # (a row's toggle is made showing whether it is selected)
        self._layout_children()

    def _layout_children(self) -> None:
        body: list[widgets.Widget] = [self._grid, self.pager] if self._rows else [self._empty]
        children = (self._caption, *body, self.confirmation)  # the caption holds the style
        if tuple(self.children) != children:
            self.children = children


def _button_layout(column: Column, **more: str) -> widgets.Layout:
    """A header or name button: its own width, or up to the column's ``max_width``, wrapped."""
    if column.max_width is None:
        return widgets.Layout(**UNCUT, **more)
    return widgets.Layout(flex="0 0 auto", width="auto", max_width=column.max_width, **more)


class RowLooks:
    """The layouts and styles every row of a table shares. A widget given none makes its own
    two (a layout and a style, each a widget of its own): sharing them makes a row's widgets a
    third as many, and a list of new evaluations appears without holding up the kernel."""

    def __init__(self, name_column: Column) -> None:
        self.toggle_layout = _button_layout(name_column)
        self.toggle_style = ToggleButtonStyle()
        self.delete_layout = widgets.Layout(width="36px")
        self.delete_style = widgets.ButtonStyle()
        self.cell_layout = widgets.Layout()
        self.label_style = LabelStyle()
        self.html_style = HTMLStyle()

    def cell(self, column: Column, text: str) -> widgets.Widget:
        """A label, or for a column with a ``max_width`` an HTML cell that wraps."""
        if column.max_width is None:
            return widgets.Label(text, layout=self.cell_layout, style=self.label_style)
        return widgets.HTML(
            _cell_value(column, text), layout=self.cell_layout, style=self.html_style
        )


def _cell_value(column: Column, text: str) -> str:
    """A wrapping cell's HTML: lines break at spaces and after ``BREAKS_AFTER`` (a model name
    such as ``regression_model:quickstart``, one word, ran into the next column), and a part
    longer than the column's ``max_width`` where it reaches the edge."""
    if column.max_width is None:
        return text
    breakable = "".join(
        f"{html.escape(character)}<wbr>" if character in BREAKS_AFTER else html.escape(character)
        for character in text
    )
    return (
        f'<div style="max-width:{column.max_width};white-space:normal;'
        f'overflow-wrap:break-word;line-height:1.3">{breakable}</div>'
    )


class DeleteConfirmation(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """ "Delete …?" with **Delete** and **Keep** under a table: nothing is deleted before a
    person confirms; a problem deleting stays here, in red, under the question (the whole
    width, not squeezed beside it), until the next question."""

    def __init__(self, on_confirm: OnDelete) -> None:
        super().__init__(layout=widgets.Layout(display="none"))
        self._on_confirm = on_confirm
        self.row: Row | None = None
        self.question = widgets.HTML()
        self.yes = uncut_button("Delete", "trash", button_style="danger")
        self.no = uncut_button("Keep")
        self.problem = widgets.HTML()
        self.yes.on_click(on_kernel_loop(lambda _: self._confirm()))
        self.no.on_click(on_kernel_loop(lambda _: self.dismiss()))
        self.children = [
            widgets.HBox(
                [self.question, self.yes, self.no],
                layout=widgets.Layout(align_items="center", grid_gap="0 8px"),
            ),
            self.problem,
        ]

    def ask(self, row: Row, what: str) -> None:
        """Ask whether to delete ``what`` (the text naming ``row``)."""
        self.row = row
        self.question.value = f"Delete {html.escape(what)}?"
        self.problem.value = ""
        self.yes.disabled = False
        self.layout.display = ""

    def dismiss(self) -> None:
        """Hide the question; nothing is deleted."""
        self.row = None
        self.problem.value = ""
        self.layout.display = "none"

    def show_problem(self, text: str) -> None:
        """Say why the delete did not happen (the question stays, to try again or keep)."""
        self.yes.disabled = False
        self.problem.value = message(text, alert=True)

    def _confirm(self) -> None:
        if self.row is not None:
            self.yes.disabled = True  # one delete per confirmation
            self._on_confirm(self.row)
