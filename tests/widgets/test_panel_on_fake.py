"""The panel on the in-memory fake service: what it lists, errors as readable messages, failing
and stopped jobs, the model form's round trip, the plain-text repr and "copy code"."""

from __future__ import annotations

import asyncio
import html
import json
import threading
from collections.abc import Iterable
from datetime import UTC, datetime

import httpx
import pytest
from IPython.core.interactiveshell import InteractiveShell

from chaplab.client import AsyncChapClient, ChapClient
from chaplab.widgets import ChapPanel, _preload, _render, results
from chaplab.widgets._render import Rendered
from chaplab.widgets.connection import as_async_client
from chaplab.widgets.results import ChartView
from client.fake_service import BASE_URL, EVALUATION, MODEL_SPEC, TEMPLATE, FakeService

from .helpers import MakePanel, panel_following_a_running_job

pytestmark = pytest.mark.anyio


async def test_lists_and_defaults_let_a_new_user_launch_at_once(make_panel: MakePanel) -> None:
    panel = await make_panel()
    assert panel.datasets.rows == [
        {
            "id": 1,
            "name": "demo",
            "type": "evaluation",
            "periods": 36,
            "span": "2021-01 – 2023-12",
            "org_units": 2,
            "created": datetime(2026, 1, 1, 10, 0, tzinfo=UTC),
        }
    ]
    assert panel.models.rows == [
        {
            "id": 5,
            "name": "naive_model:weekly",
            "template": "naive_model",
            "options": "n_lags=3",
            "service": None,
        }
    ]
    assert [row["name"] for row in panel.results.table.rows] == ["bt_naive"]
    assert panel.datasets.selected == (1,) and panel.models.selected == (5,)
    assert panel.launcher.name.value == "naive_model:weekly on demo"
    assert not panel.launcher.button.disabled
    assert "service chap-core 1.2.3" in panel.connection.summary.value
    assert "no API key" in panel.connection.summary.value


async def test_launched_job_succeeds_and_its_evaluation_is_shown(make_panel: MakePanel) -> None:
    panel = await make_panel()
    assert panel.results.image.layout.display == "none"  # nothing drawn yet: hidden
    panel.launcher.button.click()
    await panel.wait_idle()
    assert panel.results.image.layout.display == ""
    (row,) = panel.jobs.rows
    assert row.status == "SUCCESS" and row.bar.value == row.bar.max
    assert [item.name for item in panel.results.selected] == ["naive_model:weekly on demo"]
    assert set(panel.frame["quantile"]) == {0.1, 0.25, 0.5, 0.75, 0.9}
    assert set(panel.actuals["org_unit"]) == {"OU_A", "OU_B"}
    assert panel.results.shown_panels == ["OU_A", "OU_B"]
    assert bytes(panel.results.image.value).startswith(b"\x89PNG")
    # the used name is taken now: the next suggestion differs
    assert panel.launcher.name.value == "naive_model:weekly on demo-2"


async def test_a_row_shows_the_job_running_before_it_succeeds(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await panel_following_a_running_job(fake, make_panel)
    (row,) = panel.jobs.rows
    assert (row.status, row.bar.description, row.bar.value) == ("STARTED", "running", 2)
    assert ">STARTED<" in row.status_label.value
    fake.jobs[row.job_id].finish_at = fake.clock.now
    await panel.wait_idle()
    assert (row.status, row.bar.description) == ("SUCCESS", "finished")
    assert [item.name for item in panel.results.selected] == [row.name]
    # one wait: the status route is followed, and the finished job read from the list once
    assert fake.paths().count("GET /v1/jobs") == 1


async def test_an_invalid_launch_disables_the_button_and_says_why(make_panel: MakePanel) -> None:
    panel = await make_panel()
    panel.launcher.name.value = "bt_naive"
    assert panel.launcher.button.disabled
    assert "already used" in panel.launcher.problem.value
    panel.launcher.name.value = "fresh"
    assert not panel.launcher.button.disabled
    panel.datasets.toggle(1).value = False
    assert "select a dataset" in panel.launcher.problem.value


async def test_a_refused_launch_says_why_once_and_waits_for_other_settings(
    fake: FakeService, make_panel: MakePanel
) -> None:
    reason = "the dataset has 36 periods, the backtest needs 52"

    def refusing(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/analytics/create-backtest":
            body = json.loads(request.content)
            if body["nSplits"] > 20:  # the service's rule, which the panel does not copy
                return httpx.Response(422, json={"detail": f"nSplits: {reason}"})
        return fake(request)

    panel = await make_panel(handler=refusing)
    launcher = panel.launcher
    launcher.n_splits.value = 25  # fits the 36 periods, but the service wants more history
    assert not launcher.button.disabled  # the panel does not guess the service's answer
    launcher.button.click()
    await panel.wait_idle()
    assert html.unescape(launcher.problem.value).count(reason) == 1
    assert launcher.button.disabled and not panel.jobs.rows
    launcher.n_splits.value = 3
    assert launcher.problem.value == "" and not launcher.button.disabled
    launcher.n_splits.value = 25  # the refused settings again: refused without asking
    assert launcher.button.disabled and reason in html.unescape(launcher.problem.value)
    launcher.n_splits.value = 3
    launcher.button.click()
    await panel.wait_idle()
    assert panel.jobs.rows[0].status == "SUCCESS"


async def test_missing_key_shows_a_readable_message(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.api_key = "sk_test_0123456789abcdef"
    panel = await make_panel()
    assert "HTTP 401" in panel.connection.error_text
    assert "Missing authentication header: X-API-Key" in panel.connection.error_text
    assert "Traceback" not in panel.connection.message.value
    # no stale "connecting…" beside the error, and no empty chart (a broken-image icon)
    assert "not connected" in panel.connection.summary.value
    assert "connecting" not in panel.connection.summary.value
    assert panel.results.image.layout.display == "none"
    # said once: the lists say they could not be loaded, the launcher asks to select nothing
    assert "refused the API key" in panel.connection.error_text
    assert "$CHAP_API_KEY" in panel.connection.error_text
    for table in (panel.datasets, panel.models, panel.results.table):
        assert table._empty.value == "could not be loaded: see the message at the top"
    for form in (panel.launcher, panel.compare):
        assert form.problem.value == "" and form.button.disabled
    assert repr(panel) == (
        "ChapPanel(http://chap.test, not loaded; jobs: 0 running; problem: "
        f"{panel.connection.error_text})"
    )


async def test_a_key_is_reported_in_use_but_never_shown(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.api_key = "sk_test_0123456789abcdef"
    panel = await make_panel(api_key="sk_test_0123456789abcdef")
    assert panel.connection.error_text == ""
    assert "API key in use" in panel.connection.summary.value
    assert "sk_test" not in panel.connection.summary.value + repr(panel) + panel.code.code
    assert "getpass" in panel.code.code


async def test_unreachable_service_shows_a_readable_message(make_panel: MakePanel) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    panel = await make_panel(handler=refuse)
    assert panel.connection.error_text.startswith("Cannot reach the service")
    assert "connection refused" in panel.connection.error_text
    assert panel.datasets.rows == []


async def test_refresh_after_an_error_clears_the_message(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.fail("GET /system/info", 401)
    panel = await make_panel()
    assert "HTTP 401" in panel.connection.error_text
    await panel.refresh()
    assert panel.connection.error_text == ""
    assert len(panel.datasets.rows) == 1
    assert panel.results.table._empty.value == "No finished evaluations yet."
    assert not panel.launcher.button.disabled


async def test_failing_job_is_shown_failed_with_its_error_and_logs(
    fake: FakeService, make_panel: MakePanel
) -> None:
    def failing_backtests(request: httpx.Request) -> httpx.Response:
        response = fake(request)
        if request.url.path == "/v1/analytics/create-backtest":
            job = fake.jobs[response.json()["id"]]
            job.final_status = "FAILURE"
            job.error = (
                "Training job 01M9 ended with status 'failed': ValueError: not enough history. "
                'Stacktrace: Traceback (most recent call last):\n  File "model.py", line 9'
            )
            job.logs = "loading dataset 1\nfitting naive_model\nValueError: not enough history"
        return response

    panel = await make_panel(handler=failing_backtests)
    panel.launcher.button.click()
    await panel.wait_idle()
    (row,) = panel.jobs.rows
    assert row.status == "FAILURE"
    assert "color:#b00020" in row.status_label.value
    assert row.error == "model service, train: ValueError: not enough history"
    assert "Traceback" not in row.error_label.value
    assert row.logs_toggle.layout.display == "" and row.logs.layout.display == "none"
    row.logs_toggle.value = True
    assert row.logs.layout.display == "" and "fitting naive_model" in row.logs.value
    assert 'File "model.py", line 9' in row.logs.value
    assert "1 failed" in repr(panel)


async def test_closing_the_panel_stops_following_running_jobs(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await panel_following_a_running_job(fake, make_panel)
    assert "jobs: 1 running" in repr(panel)
    panel.close()
    await panel.wait_idle()
    (row,) = panel.jobs.rows
    assert row.status == "STARTED" and not row.followed  # the service's last status, kept
    assert "stopped following" in row.error_label.value
    assert panel.comm is None and panel.launcher.button.comm is None  # widgets closed
    assert panel.datasets.toggle(1).comm is None


async def test_cancel_from_the_row_cancels_the_job_on_the_service(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await panel_following_a_running_job(fake, make_panel)
    (row,) = panel.jobs.rows
    assert not row.cancel_button.disabled
    row.cancel_button.click()
    await panel.wait_idle()
    assert f"POST /v1/jobs/{row.job_id}/cancel" in fake.paths()
    assert row.status == "REVOKED" and "cancelled" in row.error_label.value
    assert row.cancel_button.disabled
    assert "jobs: 0 running" in repr(panel)


async def test_new_model_form_validates_then_creates_the_renamed_model(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    form = panel.model_form
    # the template's name, as the tables write it; its display name and description under it
    assert form.template.label == "naive_model"
    assert "Naive model: Repeats." in form.about.value
    n_lags = form.options.fields["n_lags"].input
    assert n_lags.value == 3
    assert form.button.disabled  # no name yet
    form.name.value = "biweekly"
    assert not form.button.disabled
    form.button.click()
    await panel.wait_idle()
    assert "created naive_model:biweekly" in form.message.value
    assert panel.models.selected == (6,)
    assert panel.models.selected_rows[0]["name"] == "naive_model:biweekly"
    assert panel.launcher.model.name == "naive_model:biweekly"


async def test_model_form_sends_nothing_while_options_break_the_schema(
    fake: FakeService, make_panel: MakePanel
) -> None:
    options = {
        "region_code": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "Two letters."},
        "family": {"type": "string", "enum": ["poisson", "negbin"], "default": "poisson"},
    }

    def templates_with_options(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/crud/model-templates":
            return httpx.Response(200, json=[{**TEMPLATE, "userOptions": options}])
        return fake(request)

    panel = await make_panel(handler=templates_with_options)
    form = panel.model_form
    form.name.value = "regional"
    code = form.options.fields["region_code"]
    assert form.button.disabled and "a value is required" in code.problem.value
    code.input.value = "norway"
    assert form.button.disabled and "does not match" in code.problem.value
    await panel.create_model()
    assert "region_code: 'norway' does not match" in html.unescape(form.message.value)
    assert "POST /v1/crud/configured-models" not in fake.paths()
    code.input.value = "NO"
    assert not form.button.disabled


async def test_pressing_another_evaluation_shows_it_instead_of_adding_it(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    panel.launcher.button.click()
    await panel.wait_idle()
    assert [item.id for item in panel.results.selected] == [2]  # the one just made
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    assert [item.id for item in panel.results.selected] == [1]
    assert panel.results.table.selected == (1,)
    assert panel.results.metrics.value == ""  # one evaluation: its chart, no comparison table
    assert "fan_chart(" in panel.code.code and "compare_chart" not in panel.code.code
    assert "vs" not in repr(panel)


async def test_compare_with_draws_both_and_one_click_goes_back(make_panel: MakePanel) -> None:
    panel = await make_panel()
    panel.launcher.button.click()
    await panel.wait_idle()
    results = panel.results
    assert results.compare_with.options == (
        ("nothing (one evaluation)", "nothing (one evaluation)"),
        ("bt_naive (#1)", 1),
    )
    assert results.alone_button.layout.display == "none"
    results.compare_with.value = 1
    await results.settled()
    assert [item.id for item in results.selected] == [2, 1]
    assert "<caption>aggregate metrics</caption>" in results.metrics.value
    assert '<th scope="row">CRPS</th>' in results.metrics.value
    assert results.shown_panels[:2] == ["OU_A", "OU_B"]
    assert "compare_chart(frame, frame_b" in panel.code.code
    assert "vs bt_naive" in repr(panel)
    # the metrics table sits under the chart, not beside it (out of sight in a narrow output)
    children = list(results.children)
    assert children.index(results.metrics) == children.index(results.image) + 1
    assert results.alone_button.layout.display == ""
    results.alone_button.click()
    await results.settled()
    assert [item.id for item in results.selected] == [2]
    assert results.metrics.value == "" and results.alone_button.layout.display == "none"
    assert "compare_chart" not in panel.code.code


async def test_evaluations_that_share_no_places_are_not_offered_and_a_sentence_says_so(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.evaluations[2] = {**EVALUATION, "id": 2, "name": "elsewhere", "orgUnits": ["OU_Z"]}
    panel = await make_panel()
    results = panel.results
    results.table.select(1)
    await results.settled()
    assert results.compare_with.disabled
    assert results.compare_with.options == (
        ("nothing (one evaluation)", "nothing (one evaluation)"),
    )
    note = html.unescape(results.compare_note.value)
    assert "No other evaluation shares places and split periods with bt_naive (#1)" in note
    with pytest.raises(ValueError, match="cannot be compared with the one shown"):
        results.compare(2)
    results.table.select(2)
    await results.settled()
    assert [item.id for item in results.selected] == [2]
    assert "ChartProcessError" not in results.message.value and results.message.value == ""


async def test_metrics_read_one_way_and_rows_say_how_evaluations_were_made(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.evaluations[2] = {
        **EVALUATION,
        "id": 2,
        "name": "bt_big",
        "aggregateMetrics": {"crps": 1790.4, "mae": 777.0},
    }
    panel = await make_panel()
    rows = {row["name"]: row for row in panel.results.table.rows}
    assert (
        rows["bt_naive"]["n_periods"],
        rows["bt_naive"]["n_splits"],
        rows["bt_naive"]["stride"],
    ) == (3, 3, 1)
    assert rows["bt_naive"]["created"] == datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
    assert [
        panel.results.table.header(key).description
        for key in ("created", "n_periods", "n_splits", "stride", "crps", "coverage_10_90")
    ] == ["created", "periods", "splits", "step", "CRPS", "10\u201390 % coverage"]
    panel.results.table.select(1)
    panel.results.compare(2)
    await panel.results.settled()
    metrics = panel.results.metrics.value
    assert "<td>2.13</td><td>1,790</td>" in metrics
    assert "<td>777</td>" in metrics and "e+0" not in metrics
    assert '<th scope="row">MAE</th>' in metrics  # metrics by their names, not their keys


def test_metric_keys_read_as_names() -> None:
    from chaplab.widgets.results import metric_title

    assert [
        metric_title(key)
        for key in ("crps", "coverage_10_90", "winkler_score_25_75", "mean_absolute_error")
    ] == ["CRPS", "10\u201390 % coverage", "Winkler score 25\u201375 %", "mean absolute error"]


async def test_deleting_an_evaluation_asks_then_removes_it(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await make_panel()
    table = panel.results.table
    table.delete_button(1).click()
    assert "Delete evaluation bt_naive (id 1)?" in table.confirmation.question.value
    assert "DELETE /v1/crud/backtests/1" not in fake.paths()
    table.confirmation.yes.click()
    await panel.wait_idle()
    assert "DELETE /v1/crud/backtests/1" in fake.paths()
    assert table.rows == [] and table.confirmation.layout.display == "none"


async def test_org_unit_and_split_redraw_only_the_image(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    requests_before = len(fake.requests)
    # one split at a time by default (the last, at the slider's right end), all splits at its
    # left end; the split periods written as the charts write them, the server's as values
    assert panel.results.split.value == "last split"
    assert panel.results.split.options == (
        ("all splits", "all splits"),
        ("2023-07", "202307"),
        ("2023-08", "202308"),
        ("last (2023-09)", "last split"),
    )
    assert panel.results.split.index == len(panel.results.split.options) - 1
    panel.results.org_unit.value = "OU_B"
    await panel.results.settled()
    assert panel.results.shown_panels == ["OU_B"]
    for split in ("202307", "202308", "last split", "202307"):
        panel.results.split.value = split
    await panel.results.settled()
    assert len(fake.requests) == requests_before
    assert 'org_units="OU_B", split_period="202307"' in panel.code.code


async def test_changing_quantiles_reloads_the_frame(make_panel: MakePanel) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    panel.results.quantiles.value = (0.05, 0.5, 0.95)
    await panel.results.settled()
    assert set(panel.frame["quantile"]) == {0.05, 0.5, 0.95}
    assert "quantiles=[0.05, 0.5, 0.95]" in panel.code.code


async def test_a_sync_client_is_turned_into_an_async_one_with_its_settings(
    fake: FakeService,
) -> None:
    sync = ChapClient(
        BASE_URL, proxy_prefix="/chap", api_key="sk_test_0123456789abcdef", auth=("user", "pw")
    )
    async_client = as_async_client(sync)
    assert isinstance(async_client, AsyncChapClient)
    assert (async_client.base_url, async_client.proxy_prefix) == (BASE_URL, "/chap")
    assert repr(async_client) == repr(sync).replace("ChapClient", "AsyncChapClient")
    assert async_client.has_api_key
    await async_client.aclose()
    sync.close()
    with pytest.raises(TypeError, match="AsyncChapClient or a ChapClient"):
        ChapPanel("http://chap.test")  # type: ignore[arg-type]


async def test_a_refused_launch_is_explained_in_the_launcher(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.fail("POST /v1/analytics/create-backtest", 404)
    panel = await make_panel()
    name = panel.launcher.name.value
    panel.launcher.button.click()
    await panel.wait_idle()
    problem = html.unescape(panel.launcher.problem.value)
    assert "fault 404." in problem and "HTTP" not in problem  # the sentence, not the status
    assert panel.jobs.rows == []
    assert name not in panel.launcher.taken_names


async def test_a_double_click_launches_two_differently_named_jobs(make_panel: MakePanel) -> None:
    panel = await make_panel()
    panel.launcher.button.click()
    panel.launcher.button.click()
    await panel.wait_idle()
    assert sorted(row.name for row in panel.jobs.rows) == [
        "naive_model:weekly on demo",
        "naive_model:weekly on demo-2",
    ]
    assert all(row.status == "SUCCESS" for row in panel.jobs.rows)


async def test_plain_text_output_is_the_whole_repr(make_panel: MakePanel) -> None:
    panel = await make_panel()
    panel.launcher.button.click()
    assert "jobs: 1 running" in repr(panel)  # counted from the click on
    await panel.wait_idle()
    bundle = panel._repr_mimebundle_()
    assert bundle["text/plain"] == repr(panel)
    assert bundle["text/plain"].endswith("jobs: 0 running; showing naive_model:weekly on demo)")
    assert "application/vnd.jupyter.widget-view+json" in bundle


async def test_dragging_the_split_slider_redraws_once_it_settles(
    make_panel: MakePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    drawn: list[str | None] = []
    render = results.render_chart

    async def counting_render(chart: ChartView) -> Rendered:
        drawn.append(chart.split_period)
        return await render(chart)

    monkeypatch.setattr(results, "render_chart", counting_render)
    for split in ("202307", "202308", "last split", "202308"):
        panel.results.split.value = split
    await panel.results.settled()
    assert drawn == ["202308"]
    panel.results.split.value = "all splits"
    await panel.results.settled()
    # "all splits" asks the chart for every split (small multiples); None would be the last only
    assert drawn == ["202308", "all"]
    every = panel.results._view(panel.results.selected).draw()
    frame = panel.results.frames[panel.results.selected[0].record_key]
    panels = frame["org_unit"].nunique() * frame["split_period"].nunique()
    assert panels > frame["org_unit"].nunique()
    assert len([axes for axes in every.axes if axes.has_data()]) == panels


async def test_the_repr_says_loading_until_the_first_load_is_done(
    fake: FakeService, make_panel: MakePanel
) -> None:
    client = AsyncChapClient(BASE_URL, transport=httpx.MockTransport(fake))
    panel = ChapPanel(client)
    assert repr(panel) == "ChapPanel(http://chap.test, loading; jobs: 0 running)"
    await panel.ready()
    assert repr(panel) == (
        "ChapPanel(http://chap.test, service chap-core 1.2.3, 1 dataset, 1 configured model, "
        "1 evaluation; jobs: 0 running)"
    )
    panel.close()
    await client.aclose()


async def test_losing_the_service_while_following_shows_error_in_the_row(
    fake: FakeService, make_panel: MakePanel
) -> None:
    fake.fail("GET /v1/jobs/job-1", httpx.ConnectError)
    panel = await make_panel()
    panel.launcher.button.click()
    await panel.wait_idle()
    (row,) = panel.jobs.rows
    assert row.status == "PENDING" and not row.followed  # as launched: no status was read
    error = html.unescape(row.error_label.value)
    assert "Cannot reach the service" in error and "its last status was PENDING" in error
    assert "color:#b00020" in row.status_label.value
    assert "1 no longer followed" in repr(panel)


async def test_slow_imports_happen_in_a_worker_thread_before_the_form_is_built(
    make_panel: MakePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    imports: list[tuple[int, tuple[str, ...]]] = []

    def recording(names: Iterable[str]) -> list[str]:
        imports.append((threading.get_ident(), tuple(names)))
        return []

    monkeypatch.setattr(_preload, "import_modules", recording)
    panel = await make_panel()
    ((thread, names),) = imports
    assert thread != threading.get_ident()
    assert "jsonschema" in names
    assert panel.model_form.templates  # built once the imports were done


async def test_charts_are_sent_one_at_a_time_skipping_superseded_ones(
    make_panel: MakePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    release = asyncio.Event()
    sent: list[str | None] = []  # the org unit of each chart sent to the process
    send = _render.CHART_PROCESS.send

    async def held_send(chart: results.ChartView) -> Rendered:
        sent.append(chart.org_unit)
        await release.wait()
        return await send(chart)

    monkeypatch.setattr(_render.CHART_PROCESS, "send", held_send)
    panel.results.org_unit.value = "OU_A"
    while not sent:  # OU_A has been sent and is being drawn
        await asyncio.sleep(0.01)
    panel.results.org_unit.value = "OU_B"  # waits for its turn ...
    await asyncio.sleep(0)
    panel.results.org_unit.value = "all org units"  # ... and is superseded before it
    await asyncio.sleep(0)
    release.set()
    await panel.results.settled()
    assert sent == ["OU_A", None]
    assert panel.results.shown_panels == ["OU_A", "OU_B"]


async def test_models_listed_like_chap_core_show_their_template_and_hide_archived_ones(
    fake: FakeService, make_panel: MakePanel
) -> None:
    """chap-core 2.5.1's model list has no ``modelTemplateId`` and includes archived models."""
    listed = {key: value for key, value in MODEL_SPEC.items() if key != "modelTemplateId"}
    fake.configured_models = [
        {**listed, "id": 1, "name": "naive_model", "userOptionValues": {}},
        {**listed, "id": 6, "name": "naive_model:deleted", "archived": True},
        listed,
        {**listed, "id": 7, "name": "elsewhere:model"},
    ]
    panel = await make_panel()
    assert [(row["name"], row["template"]) for row in panel.models.rows] == [
        ("naive_model", "naive_model"),
        ("naive_model:weekly", "naive_model"),
        ("elsewhere:model", None),
    ]
    assert [model.id for model in panel.model_list] == [1, 5, 7]


async def test_an_evaluation_the_service_does_not_list_is_shown_once_launched(
    fake: FakeService, make_panel: MakePanel
) -> None:
    """chap-core 2.5.1 leaves evaluations of its baseline models out of its list: the panel
    reads the one it launched by id and keeps it listed after a refresh."""
    shown_before = set(fake.evaluations)

    def listing_only_the_first(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == "/v1/crud/backtests":
            first = [fake.evaluations[key] for key in sorted(shown_before)]
            return httpx.Response(200, json=first)
        return fake(request)

    panel = await make_panel(listing_only_the_first)
    panel.launcher.button.click()
    await panel.wait_idle()
    (launched,) = panel.results.selected
    assert launched.id not in shown_before
    assert launched.name == "naive_model:weekly on demo"
    assert bytes(panel.results.image.value).startswith(b"\x89PNG")
    await panel.refresh()
    assert [row["name"] for row in panel.results.table.rows] == [
        "bt_naive",
        "naive_model:weekly on demo",
    ]
    del fake.evaluations[launched.id]  # deleted elsewhere: no longer kept after a refresh
    await panel.refresh()
    assert [row["name"] for row in panel.results.table.rows] == ["bt_naive"]


async def test_a_model_declaring_a_covariate_the_dataset_lacks_is_warned_about_and_launched(
    fake: FakeService, make_panel: MakePanel
) -> None:
    """chap-core 2.5.1's naive_model declares covariates it runs without: the panel warns and
    lets the service decide."""
    fake.datasets[0] = {**fake.datasets[0], "covariates": ["disease_cases", "population"]}
    panel = await make_panel()
    launcher = panel.launcher
    assert not launcher.button.disabled and launcher.problem.value == ""
    assert (
        "naive_model:weekly declares rainfall, which dataset demo (#1) does not have: the "
        "service may refuse the evaluation or run it without it"
        in html.unescape(launcher.warning.value)
    )
    assert panel.launch() is not None
    await panel.wait_idle()
    assert "POST /v1/analytics/create-backtest" in fake.paths()
    assert [row.name for row in panel.jobs.rows] == ["naive_model:weekly on demo"]


async def test_a_typed_name_is_not_called_already_used_right_after_its_launch(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    launcher = panel.launcher
    launcher.name.value = "short try"
    launcher.button.click()
    await panel.wait_idle()
    assert panel.jobs.rows[0].name == "short try"
    assert launcher.name.value == "short try-2" and launcher.problem.value == ""
    assert not launcher.button.disabled
    launcher.name.value = "short try"  # typed again by hand: that one is said to be used
    assert "'short try' is already used" in html.unescape(launcher.problem.value)


async def test_each_copy_code_sits_in_the_view_it_reproduces(make_panel: MakePanel) -> None:
    panel = await make_panel()
    children = list(panel.children)
    assert children.index(panel.code) == children.index(panel.results) + 1  # the evaluations'
    assert panel.forecasts.code is not panel.code  # the forecast has its own, under its tabs


async def test_the_lists_are_read_again_when_a_job_of_the_panel_ends(
    fake: FakeService, make_panel: MakePanel
) -> None:
    """A job may add a dataset (a forecast) or an evaluation: the lists show it without
    Refresh; the model form being typed in is left alone."""
    panel = await make_panel()
    panel.model_form.name.value = "being typed"
    fake.datasets.append({**fake.datasets[0], "id": 7, "name": "made by the job"})
    panel.launcher.button.click()
    await panel.wait_idle()
    assert "made by the job" in {row["name"] for row in panel.datasets.rows}
    assert panel.model_form.name.value == "being typed"


async def test_the_lists_are_read_again_after_a_failed_job_too(
    fake: FakeService, make_panel: MakePanel
) -> None:
    def failing_backtests(request: httpx.Request) -> httpx.Response:
        response = fake(request)
        if request.url.path == "/v1/analytics/create-backtest":
            fake.jobs[response.json()["id"]].final_status = "FAILURE"
        return response

    panel = await make_panel(handler=failing_backtests)
    fake.datasets.append({**fake.datasets[0], "id": 7, "name": "added meanwhile"})
    panel.launcher.button.click()
    await panel.wait_idle()
    assert panel.jobs.rows[0].status == "FAILURE"
    assert "added meanwhile" in {row["name"] for row in panel.datasets.rows}


async def test_the_lists_are_read_again_when_the_panel_is_shown_again(
    fake: FakeService, make_panel: MakePanel
) -> None:
    panel = await make_panel()
    panel.views.views = 1  # the browser rendered the panel's first view
    await panel.wait_idle()
    fake.datasets.append({**fake.datasets[0], "id": 7, "name": "made meanwhile"})
    assert "made meanwhile" not in {row["name"] for row in panel.datasets.rows}
    panel.views.views = 2  # shown again, in a later cell
    await panel.wait_idle()
    assert "made meanwhile" in {row["name"] for row in panel.datasets.rows}
    assert "render" in panel.views._esm and "views" in panel.views._esm


async def test_the_lists_say_loading_until_the_first_load_ends(fake: FakeService) -> None:
    client = AsyncChapClient(BASE_URL, transport=httpx.MockTransport(fake))
    panel = ChapPanel(client)
    said = [table._empty.value for table in (panel.datasets, panel.models, panel.results.table)]
    assert said == ["loading…"] * 3  # not "nothing to show yet" while nothing was read
    await panel.ready()
    assert panel.results.table._empty.value == "No finished evaluations yet."
    assert len(panel.datasets.rows) == 1
    panel.close()
    await client.aclose()


async def test_an_evaluation_stored_again_under_a_shown_id_is_drawn_afresh(
    fake: FakeService, make_panel: MakePanel
) -> None:
    """A server that gives a deleted evaluation's id to the next one (chap-core 2.5.1's SQLite
    does): the panel reads the new evaluation's entries, not the frame it kept of the old."""
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    entries = "GET /v1/analytics/evaluation-entry"
    assert fake.paths().count(entries) == 1
    fake.evaluations[1] = {**fake.evaluations[1], "created": "2026-01-03T08:00:00"}
    await panel.refresh()
    assert panel.results.table.selected == (1,)  # still selected: the id is the same
    await panel.results.settled()
    assert fake.paths().count(entries) == 2
    assert panel.results.frame is not None


async def test_an_action_started_in_a_cell_shows_nothing_and_can_be_awaited(
    make_panel: MakePanel,
) -> None:
    """``panel.launch()`` (or ``refresh()``, ``add_forecasts(...)``) ending a cell printed the
    task, ``<Task pending name='Task-60' coro=...>``; the panel shows the action's progress."""
    panel = await make_panel()
    formatter = InteractiveShell.instance().display_formatter
    for started in (panel.refresh(), panel.launch(), panel.forecast()):
        assert started is not None
        assert formatter.format(started) == ({}, {})
        await started
        assert started.done()
    await panel.wait_idle()
    assert [row.name for row in panel.jobs.rows][-1].startswith("naive_model")


async def test_a_model_whose_service_is_gone_is_marked_and_not_launched(
    fake: FakeService, make_panel: MakePanel
) -> None:
    """A configured model a model service runs, whose service is not registered now (the
    server says ``healthStatus`` null): the table says so, and the launcher refuses it before
    launch, saying why."""
    service = {"usesChapkit": True, "modelTemplateId": 1}
    fake.configured_models += [
        {**MODEL_SPEC, **service, "id": 6, "name": "scaled:gone", "healthStatus": None},
        {**MODEL_SPEC, **service, "id": 7, "name": "scaled:here", "healthStatus": "live"},
    ]
    panel = await make_panel()
    states = {row["name"]: row["service"] for row in panel.models.rows}
    assert states == {
        "naive_model:weekly": None,
        "scaled:gone": "not registered",
        "scaled:here": "registered",
    }
    panel.models.select(6)
    assert panel.launcher.button.disabled
    assert (
        "scaled:gone runs on a model service that is not registered now: start the service "
        "(it registers itself) and refresh, or choose another model"
    ) in panel.launcher.problem.value
    assert panel.forecast() is None  # forecast forward refuses it too
    assert "scaled:gone runs on a model service" in panel.forecasts.message.value
    panel.models.select(7)
    assert not panel.launcher.button.disabled


async def test_a_click_handed_to_a_kernel_subshell_runs_on_the_panels_loop(
    make_panel: MakePanel,
) -> None:
    """JupyterLab 4.4 and later hand widget messages to a kernel subshell (ipykernel 7): a thread
    with an event loop of its own. A click arriving there launches on the panel's loop and
    thread, where ``wait_idle`` follows it, as a click on the kernel's own thread does."""
    panel = await make_panel()

    async def subshell() -> None:  # the subshell's loop: the click, and the loop ends
        panel.launcher.button.click()

    clicker = threading.Thread(target=asyncio.run, args=(subshell(),))
    clicker.start()
    clicker.join()
    for _ in range(100):  # the click is scheduled on this loop
        if panel.jobs.rows:
            break
        await asyncio.sleep(0.01)
    await panel.wait_idle()
    assert [row.name for row in panel.jobs.rows][-1].startswith("naive_model")
    assert panel.jobs.rows[-1].finished
