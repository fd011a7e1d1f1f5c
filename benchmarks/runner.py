"""Run figures, print the table, write it as JSON (and optionally into docs/benchmarks.md).

Exit status: 0 when every target holds, 1 when one fails (the failures are printed by name),
2 for an unknown figure name.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import TextIO

from benchmarks.machine import describe_machine
from benchmarks.results import Result, failed
from benchmarks.service import stop_shared_services

Figure = Callable[[], list[Result]]

ROOT = Path(__file__).resolve().parent.parent
RESULTS_PATH = ROOT / "benchmarks" / "results" / "latest.json"
DOCS_PATH = ROOT / "docs" / "benchmarks.md"
TABLE_START = "<!-- benchmark table start -->"
TABLE_END = "<!-- benchmark table end -->"

FIGURES: dict[str, str] = {
    "frames": "benchmarks.frames",
    "serving": "benchmarks.serving",
    "evaluation": "benchmarks.evaluation",
    "polling": "benchmarks.polling",
    "load": "benchmarks.load",
    "kernel": "benchmarks.kernel",
    "fanchart": "benchmarks.fanchart",
    "startup": "benchmarks.startup",
    "scoring": "benchmarks.scoring",
    "forecast_maps": "benchmarks.forecast_maps",
    "country_scale": "benchmarks.country_scale",
    "backtest_functions": "benchmarks.backtest_functions",
    "model_services": "benchmarks.model_services",
    "small_jobs": "benchmarks.small_jobs",
    "hubs": "benchmarks.hubs",
    "tuning": "benchmarks.tuning",
    "country_upload": "benchmarks.country_upload",
    "lists": "benchmarks.lists",
}
"""Figure name -> module with ``run()``, in the issues' order (1 to 8 of issue 10, 9 of issue 19,
then 10 of issue 20, 11 of issue 21, 12 of issue 36, 13 of issue 32, 14 of issue 35, then 15, a
forecast hub, 16, tuning at scale, and 17 and 18 of issue 47)."""

COLUMNS = ("figure", "measured", "target", "baseline", "ratio", "result")


def load_figures(names: Sequence[str]) -> dict[str, Figure]:
    """``run`` of each named figure module."""
    return {name: import_module(FIGURES[name]).run for name in names}


def run_figures(figures: Mapping[str, Figure], log: TextIO) -> list[Result]:
    """Every figure's rows; a figure that raises becomes one failed row naming the error."""
    rows: list[Result] = []
    try:
        _run_each(figures, rows, log)
    finally:
        stop_shared_services()
    return rows


def _run_each(figures: Mapping[str, Figure], rows: list[Result], log: TextIO) -> None:
    for name, figure in figures.items():
        print(f"running {name} ...", file=log, flush=True)
        start = time.perf_counter()
        try:
            rows.extend(figure())
        except Exception as error:  # a broken figure is a failed target, not a crashed run
            rows.append(failed(name, error))
        print(f"  {name} took {time.perf_counter() - start:.1f} s", file=log, flush=True)


def format_number(value: float | None, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    text = f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{text} {unit}".strip()


def table_cells(row: Result) -> tuple[str, ...]:
    verdict = {True: "pass", False: "FAIL", None: "-"}[row.passed]
    baseline = format_number(row.baseline, row.unit)
    if row.baseline_label and row.baseline is not None:
        baseline = f"{baseline} ({row.baseline_label})"
    return (
        row.figure,
        format_number(row.measured, row.unit),
        row.target,
        baseline,
        format_number(row.ratio),
        verdict,
    )


def text_table(rows: Sequence[Result]) -> str:
    cells = [COLUMNS, *(table_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        for line in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(rows: Sequence[Result]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " | note |", "|" + "---|" * (len(COLUMNS) + 1)]
    for row in rows:
        cells = [cell.replace("|", "\\|") for cell in (*table_cells(row), row.note)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine_lines(machine: Mapping[str, object]) -> str:
    libraries = machine.get("libraries") or {}
    assert isinstance(libraries, Mapping)
    return "\n".join(
        [
            f"- date: {machine['date']}",
            f"- CPU: {machine['cpu']}, {machine['cores']} cores, "
            f"{machine['memory_gib']} GiB memory",
            f"- OS: {machine['os']}; Python {machine['python']}",
            f"- load average at start: {machine['load_average_at_start']}",
            "- libraries: " + ", ".join(f"{name} {version}" for name, version in libraries.items()),
        ]
    )


def write_json(rows: Sequence[Result], machine: Mapping[str, object], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "machine": dict(machine),
        "passed": all(row.passed is not False for row in rows),
        "results": [row.as_dict() for row in rows],
    }
    path.write_text(json.dumps(payload, indent=2, allow_nan=True) + "\n", encoding="utf-8")


def write_docs(rows: Sequence[Result], machine: Mapping[str, object], path: Path) -> None:
    """Replace the table between the markers of ``path`` with this run's table and machine."""
    text = path.read_text(encoding="utf-8")
    if TABLE_START not in text or TABLE_END not in text:
        raise ValueError(f"{path}: the markers {TABLE_START} and {TABLE_END} are missing")
    before, rest = text.split(TABLE_START, 1)
    after = rest.split(TABLE_END, 1)[1]
    block = f"{TABLE_START}\n{machine_lines(machine)}\n\n{markdown_table(rows)}\n{TABLE_END}"
    path.write_text(before + block + after, encoding="utf-8")


def failures(rows: Sequence[Result]) -> list[Result]:
    return [row for row in rows if row.passed is False]


def report(
    rows: Sequence[Result],
    machine: Mapping[str, object],
    results_path: Path,
    out: TextIO,
    docs_path: Path | None = None,
) -> int:
    """Print the table, write the JSON (and the docs); the exit status of the run."""
    print(text_table(rows), file=out)
    write_json(rows, machine, results_path)
    print(f"\nwritten to {results_path}", file=out)
    if docs_path is not None:
        write_docs(rows, machine, docs_path)
        print(f"table written into {docs_path}", file=out)
    missed = failures(rows)
    if missed:
        print(f"\n{len(missed)} target(s) missed:", file=out)
        for row in missed:
            detail = f" ({row.note})" if row.note else ""
            print(
                f"  FAIL {row.figure}: {format_number(row.measured, row.unit)}, target "
                f"{row.target}{detail}",
                file=out,
            )
        return 1
    print("\nall targets hold", file=out)
    return 0


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="Run chaplab's benchmark figures."
    )
    parser.add_argument(
        "figures",
        nargs="*",
        metavar="figure",
        help=f"figures to run (default: all): {', '.join(FIGURES)}",
    )
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help=f"also write the table into {DOCS_PATH.relative_to(ROOT)}",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    unknown = [name for name in arguments.figures if name not in FIGURES]
    if unknown:
        print(f"unknown figure {unknown[0]!r}: choose from {', '.join(FIGURES)}", file=sys.stderr)
        return 2
    names = arguments.figures or list(FIGURES)
    machine = describe_machine()
    rows = run_figures(load_figures(names), sys.stderr)
    docs = DOCS_PATH if arguments.write_docs else None
    return report(rows, machine, RESULTS_PATH, sys.stdout, docs)
