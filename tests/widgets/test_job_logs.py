"""Job logs shown in a row: record lists become lines, other text stays as it is."""

from __future__ import annotations

import json

from chaplab.widgets.jobs import readable_logs


def test_a_json_list_of_records_becomes_one_line_per_record() -> None:
    logs = json.dumps([
        {"time": "2026-01-01T10:00:00", "line": "loading dataset 1"},
        {"line": "fitting"},
    ])
    assert readable_logs(logs) == "2026-01-01T10:00:00  loading dataset 1\nfitting"


def test_plain_text_and_other_json_are_kept() -> None:
    assert readable_logs("step 1\nstep 2") == "step 1\nstep 2"
    assert readable_logs('{"line": "x"}') == '{"line": "x"}'
    assert readable_logs("[1, 2]") == "[1, 2]"
