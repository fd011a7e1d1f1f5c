"""The benchmark runner's table, JSON and exit status (no figure is measured here)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from benchmarks.results import Result, at_most, faster, within
from benchmarks.runner import main, report, run_figures, write_docs

MACHINE = {
    "date": "2026-01-01T00:00:00+00:00",
    "cpu": "Test CPU",
    "cores": 2,
    "memory_gib": 4.0,
    "os": "Linux",
    "python": "3.11.7",
    "load_average_at_start": [0.1, 0.1, 0.1],
    "libraries": {"numpy": "2.0"},
}


def test_targets_compare_measured_with_baseline() -> None:
    assert at_most("fast", 0.5, 1.0, "s").passed
    assert not at_most("slow", 1.5, 1.0, "s").passed
    speed_up = faster("speed", 1.0, 6.0, 5, "s", "naive")
    assert speed_up.passed and speed_up.ratio == pytest.approx(6.0)
    assert not faster("speed", 1.0, 4.0, 5, "s", "naive").passed
    assert within("near", 1.4, 1.0, 1.5, "s", "floor").passed
    assert not within("far", 1.6, 1.0, 1.5, "s", "floor").passed


def test_report_prints_table_writes_json_and_exits_one_naming_the_miss(tmp_path: Path) -> None:
    rows = [at_most("7 fan chart", 0.4, 1.0, "s"), at_most("8 import chaplab", 0.5, 0.3, "s")]
    out = io.StringIO()
    status = report(rows, MACHINE, tmp_path / "latest.json", out)
    text = out.getvalue()
    assert status == 1
    assert "7 fan chart" in text and "pass" in text
    assert "FAIL 8 import chaplab" in text
    written = json.loads((tmp_path / "latest.json").read_text())
    assert written["passed"] is False
    assert [row["figure"] for row in written["results"]] == ["7 fan chart", "8 import chaplab"]
    assert written["results"][1]["ratio"] == pytest.approx(0.5 / 0.3)
    assert written["machine"]["cpu"] == "Test CPU"


def test_all_targets_holding_exit_zero(tmp_path: Path) -> None:
    out = io.StringIO()
    assert report([at_most("7 fan chart", 0.4, 1.0, "s")], MACHINE, tmp_path / "r.json", out) == 0
    assert json.loads((tmp_path / "r.json").read_text())["passed"] is True


def test_a_figure_that_raises_becomes_a_failed_row() -> None:
    def broken() -> list[Result]:
        raise RuntimeError("service did not start")

    figures = {"ok": lambda: [at_most("ok", 1.0, 2.0, "s")], "broken": broken}
    rows = run_figures(figures, io.StringIO())
    assert [row.passed for row in rows] == [True, False]
    assert "service did not start" in rows[1].note


def test_docs_table_is_replaced_between_markers(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text(
        "# Title\n<!-- benchmark table start -->\nold\n<!-- benchmark table end -->\nend\n"
    )
    write_docs([at_most("7 fan chart", 0.4, 1.0, "s")], MACHINE, docs)
    text = docs.read_text()
    assert "old" not in text and "| 7 fan chart | 0.4 s | <= 1 s |" in text
    assert "Test CPU" in text and text.startswith("# Title") and text.endswith("end\n")


def test_unknown_figure_name_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-figure"]) == 2
    assert "unknown figure 'no-such-figure'" in capsys.readouterr().err
