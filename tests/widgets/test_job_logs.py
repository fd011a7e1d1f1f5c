"""Job logs shown in a row: record lists become lines, other text stays as it is; the splits a
running job reports become its progress bar."""

from __future__ import annotations

import asyncio
import json

import pytest

from chaplab.widgets import jobs
from chaplab.widgets.jobs import job_progress, readable_logs
from client.fake_service import FakeService

from .helpers import MakePanel, panel_following_a_running_job


def test_a_json_list_of_records_becomes_one_line_per_record() -> None:
    logs = json.dumps(
        [
            {"time": "2026-01-01T10:00:00", "line": "loading dataset 1"},
            {"line": "fitting"},
        ]
    )
    assert readable_logs(logs) == "2026-01-01T10:00:00  loading dataset 1\nfitting"


def test_plain_text_and_other_json_are_kept() -> None:
    assert readable_logs("step 1\nstep 2") == "step 1\nstep 2"
    assert readable_logs('{"line": "x"}') == '{"line": "x"}'
    assert readable_logs("[1, 2]") == "[1, 2]"


def test_progress_is_the_last_split_the_log_reports() -> None:
    logs = readable_logs(
        json.dumps(
            [
                {"time": "t", "line": "evaluating naive_model on dataset 'demo' (6 org units)"},
                {"time": "t", "line": " 12% split 1/7: trained up to 202403"},
                {"time": "t", "line": " 25% split 2/7: trained up to 202404"},
            ]
        )
    )
    assert job_progress(logs) == (2, 7)
    assert job_progress("fitting the model") is None
    assert job_progress("split 9/7") is None  # not a progress


@pytest.mark.anyio
async def test_a_running_job_row_shows_its_splits_as_a_progress_bar(
    fake: FakeService, make_panel: MakePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "PROGRESS_SECONDS", 0.01)
    panel = await panel_following_a_running_job(fake, make_panel)
    (row,) = panel.jobs.rows
    job = fake.jobs[row.job_id]
    job.logs = json.dumps([{"time": "t", "line": " 50% split 2/4: trained up to 202307"}])
    while row.bar.description != "split 2/4":
        await asyncio.sleep(0.01)
    assert (row.bar.value, row.bar.max) == (2, 4)
    job.finish_at = fake.clock.now
    await panel.wait_idle()
    assert row.status == "SUCCESS" and row.bar.value == row.bar.max == 4
    assert row.bar.description == "finished"
