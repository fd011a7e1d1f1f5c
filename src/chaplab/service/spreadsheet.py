"""CSV in and out, safe to open in a spreadsheet program.

Reading (``POST /v1/crud/datasets/csvFile``): UTF-8 text with the columns ``time_period``,
``location`` and one column per feature; strict checks name the line and column of every
problem. A text cell that starts like a spreadsheet formula (``=``, ``+``, ``-``, ``@``, tab or
carriage return) is **refused** on upload.

Writing (dataset rows, metrics): such text cells are **neutralised** with a leading apostrophe
(``'=SUM(A1)``), so a spreadsheet shows them as text instead of evaluating them. Numbers are
written as numbers (a negative number is not a formula).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import Response

from chaplab import vocabulary as period_math
from chaplab.service.errors import FieldProblem
from chaplab.service.text import control_character_problem
from chaplab.service.wire.common import Observation
from chaplab.service.wire.observations import ObservationColumns

TIME_PERIOD, LOCATION = "time_period", "location"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def looks_like_formula(text: str) -> bool:
    return text.startswith(FORMULA_STARTS)


def neutralised(cell: Any) -> Any:
    """A text cell that a spreadsheet would evaluate, prefixed with ``'``; others unchanged."""
    if isinstance(cell, str) and looks_like_formula(cell):
        return "'" + cell
    if isinstance(cell, float) and math.isnan(cell):
        return ""
    return cell


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV text (``\\r\\n`` line ends, RFC 4180) with neutralised text cells."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([neutralised(name) for name in header])
    writer.writerows([neutralised(cell) for cell in row] for row in rows)
    return buffer.getvalue()


def csv_response(header: Sequence[str], rows: Iterable[Sequence[Any]], filename: str) -> Response:
    return Response(
        csv_text(header, rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@dataclass(frozen=True)
class ParsedCsv:
    observations: ObservationColumns
    features: list[str]
    rows: int


def parse_dataset_csv(content: bytes, field: str) -> ParsedCsv:
    """Observations from a dataset CSV; FieldProblem naming ``field``, the line and the column."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FieldProblem(field, f"is not UTF-8 text (byte {error.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        lines = list(reader)
    except csv.Error as error:
        raise FieldProblem(field, f"line {reader.line_num}: not valid CSV ({error})") from None
    header = [name.strip() for name in lines[0]] if lines else []
    features = _checked_header(header, field)
    observations: list[Observation] = []
    seen: dict[tuple[str, str], int] = {}
    period_type: str | None = None
    data_lines = [
        (number, cells)
        for number, cells in enumerate(lines[1:], start=2)
        if any(c.strip() for c in cells)
    ]
    if not data_lines:
        raise FieldProblem(field, "has a header but no data rows")
    for number, cells in data_lines:
        where = f"{field} line {number}"
        if len(cells) != len(header):
            raise FieldProblem(where, f"has {len(cells)} cells, the header has {len(header)}")
        row = dict(zip(header, cells, strict=True))
        location, raw_period = row[LOCATION].strip(), row[TIME_PERIOD].strip()
        for column, value in ((LOCATION, location), (TIME_PERIOD, raw_period)):
            if not value:
                raise FieldProblem(f"{where}, column {column}", "is empty")
            problem = control_character_problem(value)
            if problem is not None:
                raise FieldProblem(f"{where}, column {column}", problem)
            if looks_like_formula(value):
                raise FieldProblem(
                    f"{where}, column {column}", f"{value[:20]!r} looks like a spreadsheet formula"
                )
        try:
            kind, _ = period_math.parse_period(raw_period)
            period = period_math.canonical_period(raw_period)
        except ValueError as error:
            raise FieldProblem(f"{where}, column {TIME_PERIOD}", str(error)) from None
        if period_type is not None and kind != period_type:
            raise FieldProblem(
                f"{where}, column {TIME_PERIOD}",
                f"{raw_period!r} is {kind}ly, earlier rows are {period_type}ly",
            )
        period_type = kind
        earlier = seen.setdefault((location, period), number)
        if earlier != number:
            raise FieldProblem(
                where, f"repeats location {location!r} and period {period} of line {earlier}"
            )
        for name in features:
            observations.append(
                Observation(
                    feature_name=name,
                    org_unit=location,
                    period=period,
                    value=_number(row[name], f"{where}, column {name}"),
                )
            )
    return ParsedCsv(ObservationColumns.of(observations), features, len(data_lines))


def _checked_header(header: list[str], field: str) -> list[str]:
    if not header or not any(header):
        raise FieldProblem(
            field, f"is empty; expected a header with {TIME_PERIOD}, {LOCATION} and feature columns"
        )
    for required in (TIME_PERIOD, LOCATION):
        if required not in header:
            raise FieldProblem(
                f"{field} header", f"lacks the column {required!r} (it has {', '.join(header)})"
            )
    if "" in header:
        raise FieldProblem(f"{field} header", f"column {header.index('') + 1} has no name")
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise FieldProblem(f"{field} header", f"repeats the column {repeated[0]!r}")
    features = [name for name in header if name not in (TIME_PERIOD, LOCATION)]
    if not features:
        raise FieldProblem(
            f"{field} header", "has no feature column besides time_period and location"
        )
    for name in features:
        problem = control_character_problem(name)
        if problem is not None:
            raise FieldProblem(f"{field} header", f"column {name!r} {problem}")
    formula = next((name for name in features if looks_like_formula(name)), None)
    if formula is not None:
        raise FieldProblem(
            f"{field} header", f"column {formula!r} looks like a spreadsheet formula"
        )
    return features


def _number(text: str, where: str) -> float | None:
    """A cell as a finite number; an empty cell is a missing value."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        value = float(stripped)
    except ValueError:
        raise FieldProblem(where, f"{stripped[:20]!r} is not a number") from None
    if not math.isfinite(value):
        raise FieldProblem(where, f"{stripped!r} is not a finite number")
    return value
