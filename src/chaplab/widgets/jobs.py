"""Jobs in the background: one row per launched job, followed by an asyncio task.

Each row shows the job's name and id, a phase bar (queued, running, finished: the service
reports a status, not a percentage), the status (``FAILURE`` in red with the error text and a
"show logs" toggle), and a cancel button. The task makes one ``AsyncChapClient.wait_for_job``
call on the kernel's event loop, whose ``on_status`` callback moves the row to each new status,
so other cells keep running while jobs are followed. While a job runs, its log is read every
:data:`PROGRESS_SECONDS`; where it reports ``split k/n`` (as our service's evaluations do) the
bar shows how many splits are done.

Every row has the same columns: the name, kind and id take what is left (the name may wrap, the
id does not), the bar, the status and the buttons have fixed widths, so the bars line up
whatever the names.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import ipywidgets as widgets

from chaplab.client import ChapError, JobFailedError
from chaplab.vocabulary import (
    FAILURE,
    NON_TERMINAL_STATUSES,
    PENDING,
    REVOKED,
    SUCCESS,
    is_terminal_status,
)
from chaplab.widgets._markup import AMBER, GREEN, RED, message
from chaplab.widgets._tasks import TaskKeeper, on_kernel_loop
from chaplab.widgets.connection import describe_error
from chaplab.widgets.tables import UNCUT, uncut_button

_QUEUED = frozenset({PENDING, "QUEUED"})
_COLOURS = {SUCCESS: GREEN, FAILURE: RED, REVOKED: AMBER}
_BAR_STYLES = {SUCCESS: "success", FAILURE: "danger", REVOKED: "warning"}

OnSuccess = Callable[[Any], Awaitable[None]]


PROGRESS_SECONDS = 2.0
"""How often a running job's log is read for its progress."""
_SPLIT_PROGRESS = re.compile(r"\bsplit (\d+)/(\d+)\b")
_BAR_LABEL_PX = 110
"""Room for the bar's label up to "split 1000/1000" (our service bounds nSplits at 1000;
tests/browser/test_job_progress_in_jupyterlab.py measures it in the page)."""
_BAR_TRACK_PX = 160


def job_progress(logs: str) -> tuple[int, int] | None:
    """The last ``split k/n`` a job's log reports, as ``(k, n)``; None when it reports none."""
    found = _SPLIT_PROGRESS.findall(logs)
    if not found:
        return None
    done, total = (int(number) for number in found[-1])
    return (done, total) if total > 0 and done <= total else None


def readable_logs(logs: str) -> str:
    """Log text as lines: a JSON list of ``{"time", "line"}`` records (as our service sends)
    becomes one ``time  line`` per record; any other text is kept as it is."""
    try:
        records = json.loads(logs)
    except ValueError:
        return logs
    if not isinstance(records, list) or not all(
        isinstance(record, dict) and "line" in record for record in records
    ):
        return logs
    return "\n".join(
        f"{record['time']}  {record['line']}" if record.get("time") else str(record["line"])
        for record in records
    )


class JobLine(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """The line of one job on the board: what it is, how far it got, and how it ended."""

    def __init__(self, job_id: str, name: str, kind: str) -> None:
        super().__init__(layout=widgets.Layout(border_bottom="1px solid #ddd", padding="2px 0"))
        self.job_id = job_id
        self.name = name
        self.kind = kind
        self.status = PENDING
        self.followed = True
        self.error: str | None = None
        bar_width = f"{_BAR_LABEL_PX + _BAR_TRACK_PX}px"
        self.bar = widgets.IntProgress(
            value=0,
            min=0,
            max=3,
            description="queued",
            style={"description_width": f"{_BAR_LABEL_PX}px"},
            layout=widgets.Layout(flex=f"0 0 {bar_width}", width=bar_width),
        )
        self.status_label = widgets.HTML()
        self.cancel_button = uncut_button("Cancel", "stop", f"cancel job {job_id}")
        self.logs_toggle = widgets.ToggleButton(
            description="show logs",
            icon="file-text",
            layout=widgets.Layout(display="none", **UNCUT),
        )
        self.error_label = widgets.HTML()
        self.logs = widgets.Textarea(
            disabled=True, layout=widgets.Layout(display="none", width="100%", height="12em")
        )
        self.logs_toggle.observe(on_kernel_loop(self._toggle_logs), names="value")
        title = widgets.HTML(
            f"<b>{html.escape(name)}</b> <small>{html.escape(kind)} · "
            f'<span style="white-space:nowrap">job {html.escape(job_id)}</span></small>'
        )
        title.layout = widgets.Layout(flex="1 1 0%", min_width="0")
        self.status_label.layout = widgets.Layout(flex="0 0 90px", width="90px")
        buttons = widgets.HBox(
            [self.cancel_button, self.logs_toggle],
            layout=widgets.Layout(flex="0 0 240px", width="240px"),
        )
        self.children = [
            widgets.HBox(
                [title, self.bar, self.status_label, buttons],
                layout=widgets.Layout(align_items="center", width="100%"),
            ),
            self.error_label,
            self.logs,
        ]
        self.show_status(PENDING)

    @property
    def finished(self) -> bool:
        """True once the job reached a terminal status, or the panel stopped following it."""
        return is_terminal_status(self.status) or not self.followed

    def show_status(self, status: str) -> None:
        """Move the phase bar and the status text to ``status``."""
        self.status = status
        if status in _QUEUED:
            self.bar.max, self.bar.value, self.bar.description = 3, 1, "queued"
        elif status in NON_TERMINAL_STATUSES:
            if not self.bar.description.startswith("split"):  # progress, once known, stays
                self.bar.max, self.bar.value, self.bar.description = 3, 2, "running"
        else:
            self.bar.value, self.bar.description = self.bar.max, "finished"
        self.bar.bar_style = _BAR_STYLES.get(status, "info" if not self.finished else "")
        colour = _COLOURS.get(status, "inherit")
        self.status_label.value = f'<b style="color:{colour}">{html.escape(status)}</b>'
        if self.finished:
            self.cancel_button.disabled = True

    def show_progress(self, done: int, total: int) -> None:
        """Show that ``done`` of ``total`` splits are done (while the job runs)."""
        if self.finished:
            return
        self.bar.max, self.bar.value = total, done
        self.bar.description = f"split {done}/{total}"

    def show_failure(self, status: str, error: str | None, logs: str | None) -> None:
        """Show a job that ended without success: ``error``, the sentence saying why, and
        under "show logs" the ``logs`` (and the error's traceback)."""
        default = "the job was cancelled" if status == REVOKED else f"the job ended with {status}"
        self.error = error or default
        self.show_status(status)
        self.error_label.value = message(self.error, _COLOURS.get(status, RED))
        if logs:
            self.logs.value = readable_logs(logs)
            self.logs_toggle.layout.display = ""

    def show_exception(self, error: BaseException) -> None:
        """Show why following the job stopped: a failed job, or an error reaching the service."""
        if isinstance(error, JobFailedError):
            logs = error.logs and readable_logs(error.logs)
            said = [text.strip() for text in (error.error, logs) if text and text.strip()]
            kept = [text for text in said if text != error.reason]
            self.show_failure(error.status, error.reason, "\n\n".join(kept) or None)
        else:
            self.stop_following(describe_error(error))

    def stop_following(self, reason: str) -> None:
        """The panel no longer follows the job (``reason``: the service could not be reached,
        the panel was closed). The status stays the last one the service said (the statuses
        are the service's, never invented here), marked in red with the reason: the job may
        still be running on the service."""
        self.followed = False
        self.error = reason
        self.bar.bar_style, self.bar.description = "danger", "not followed"
        self.status_label.value = (
            f'<b style="color:{RED}" title="the last status seen">{html.escape(self.status)}</b>'
        )
        self.error_label.value = message(
            f"{reason}; its last status was {self.status}, and it may still be running on "
            "the service",
            RED,
        )

    def _toggle_logs(self, change: dict[str, Any]) -> None:
        self.logs.layout.display = "" if change["new"] else "none"
        self.logs_toggle.description = "hide logs" if change["new"] else "show logs"


class JobBoard(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """The rows of every job launched from the panel, each followed by its own task."""

    def __init__(
        self,
        client: Any,
        keeper: TaskKeeper,
        on_success: OnSuccess,
        on_end: Callable[[], object] | None = None,
    ) -> None:
        """``on_success`` receives each job that succeeded; ``on_end`` is called when any job
        ended (succeeded, failed or was cancelled on the service), after ``on_success``."""
        super().__init__()
        self._client = client
        self._keeper = keeper
        self._on_success = on_success
        self._on_end = on_end
        self.rows: list[JobLine] = []
        self._header = widgets.HTML("<b>Jobs</b>")
        self._empty = widgets.Label("No jobs launched from this panel yet.")
        self.children = [self._header, self._empty]

    @property
    def running(self) -> int:
        """How many jobs are still being followed."""
        return sum(not row.finished for row in self.rows)

    def track(
        self, job_id: str, name: str, kind: str = "evaluation", on_success: OnSuccess | None = None
    ) -> JobLine:
        """Add a row for ``job_id`` and follow the job in a background task; a successful job
        goes to ``on_success`` (by default the board's)."""
        row = JobLine(job_id, name, kind)
        row.cancel_button.on_click(
            on_kernel_loop(
                lambda _: self._keeper.spawn(self.cancel(row), on_error=row.show_exception)
            )
        )
        self.rows.insert(0, row)
        self.children = [self._header, *self.rows]
        self._keeper.spawn(
            self._follow(row, on_success or self._on_success), on_error=row.show_exception
        )
        return row

    async def cancel(self, row: JobLine) -> None:
        """Ask the service to cancel the job; the row's task then sees it end."""
        row.cancel_button.disabled = True
        await self._client.cancel_job(row.job_id)

    async def _follow(self, row: JobLine, on_success: OnSuccess) -> None:
        """Wait for the job, showing each new status (and its progress) in its row; then hand
        it on."""
        progress = asyncio.ensure_future(self._watch_progress(row))
        try:
            job = await self._client.wait_for_job(row.job_id, on_status=row.show_status)
        except asyncio.CancelledError:
            if not row.finished:
                row.stop_following("the panel stopped following this job")
            raise
        except JobFailedError:
            self._ended()
            raise
        finally:
            progress.cancel()
        try:
            await on_success(job)
        finally:
            self._ended()

    def _ended(self) -> None:
        if self._on_end is not None:
            self._on_end()

    async def _watch_progress(self, row: JobLine) -> None:
        """Read a running job's log every :data:`PROGRESS_SECONDS` and show its progress; a log
        that cannot be read this time (or says nothing of splits) leaves the phase bar."""
        while not row.finished:
            await asyncio.sleep(PROGRESS_SECONDS)
            if row.status in _QUEUED or row.finished:
                continue
            try:
                logs = await self._client.job_logs(row.job_id)
            except ChapError:
                continue
            found = job_progress(readable_logs(logs))
            if found is not None:
                row.show_progress(*found)
