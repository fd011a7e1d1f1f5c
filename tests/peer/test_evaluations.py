"""An evaluation (backtest) on a chap-core server, as a user runs and reads it: the job, the
forecast quantiles as a frame, what really happened, fan and comparison charts, metrics."""

from __future__ import annotations

import asyncio
import io

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import ChapHTTPError, Dataset, Evaluation, ModelSpec, NotFoundError
from chaplab.plotting import compare_chart, fan_chart, metrics_frame

from .peer_data import ORG_UNITS
from .peer_requests import wait_for_pending_jobs

QUANTILES = [0.1, 0.25, 0.5, 0.75, 0.9]


def test_a_finished_evaluation_is_listed_with_its_dataset_and_splits(
    peer_client: ChapClient, naive_evaluation: Evaluation, peer_dataset: Dataset
) -> None:
    listed = {evaluation.id: evaluation for evaluation in peer_client.list_evaluations()}
    evaluation = listed[naive_evaluation.id]
    assert evaluation.name == "peer naive"
    assert evaluation.dataset_id == peer_dataset.id
    assert len(evaluation.split_periods) == 2
    assert sorted(evaluation.org_units) == sorted(ORG_UNITS)
    assert evaluation.aggregate_metrics["crps"] >= 0


def test_the_evaluation_frame_has_ordered_quantiles_per_org_unit_split_and_period(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    frame = peer_client.evaluation_frame(naive_evaluation.id)
    assert list(frame.columns) == [
        "org_unit",
        "org_unit_name",
        "split_period",
        "period",
        "horizon",
        "quantile",
        "value",
    ]
    assert sorted(frame["quantile"].unique()) == QUANTILES
    assert set(frame["org_unit"]) == set(ORG_UNITS)
    forecasts = frame.groupby(["org_unit", "split_period", "period"])
    assert forecasts.ngroups == len(ORG_UNITS) * 2 * 3
    # chap-core names a split by its first forecast period: horizon 1
    for (_, split_period), split in frame.groupby(["org_unit", "split_period"], observed=True):
        assert sorted(split["period"].unique()) == [split_period + step for step in range(3)]
        assert sorted(split["horizon"].unique()) == [1, 2, 3]
    for _, forecast in forecasts:
        values = forecast.sort_values("quantile")["value"]
        assert values.is_monotonic_increasing
    entries = peer_client.evaluation_entries(naive_evaluation.id)
    assert len(entries) == len(frame)


def test_actual_cases_are_the_uploaded_disease_cases(
    peer_client: ChapClient, naive_evaluation: Evaluation, dataset_table: pd.DataFrame
) -> None:
    actuals = peer_client.actual_cases(naive_evaluation.id)
    got = {
        (row.org_unit, f"{row.period.year}{row.period.month:02d}"): row.value
        for row in actuals.itertuples(index=False)
    }
    uploaded = {
        (row.org_unit, row.period): row.disease_cases
        for row in dataset_table.itertuples(index=False)
    }
    assert got == uploaded


def test_the_fan_chart_draws_a_panel_per_org_unit_with_bands_and_actuals(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    frame = peer_client.evaluation_frame(naive_evaluation.id)
    actuals = peer_client.actual_cases(naive_evaluation.id)
    figure = fan_chart(frame, actuals=actuals)
    try:
        # panels titled with the places' names, which the frames carry from the GeoJSON
        assert [axes.get_title() for axes in figure.axes] == sorted(ORG_UNITS.values())
        for axes in figure.axes:
            assert axes.collections, "no quantile band drawn"
            assert axes.lines, "neither median nor actual cases drawn"
        png = io.BytesIO()
        figure.savefig(png, format="png")
        assert png.getvalue().startswith(b"\x89PNG")
    finally:
        plt.close(figure)


def test_a_seasonal_median_configuration_is_evaluated_and_compared_with_naive_model(
    peer_client: ChapClient,
    naive_evaluation: Evaluation,
    configuration_evaluation: Evaluation,
    seasonal_median_configuration: ModelSpec,
) -> None:
    assert configuration_evaluation.split_periods == naive_evaluation.split_periods
    table = metrics_frame([naive_evaluation, configuration_evaluation])
    assert list(table["name"]) == ["peer naive", "peer seasonal median"]
    assert table["crps"].notna().all()
    figure = compare_chart(
        peer_client.evaluation_frame(naive_evaluation.id),
        peer_client.evaluation_frame(configuration_evaluation.id),
        actuals=peer_client.actual_cases(naive_evaluation.id),
        labels=("naive_model", seasonal_median_configuration.name),
    )
    try:
        assert len(figure.axes) == len(ORG_UNITS)
    finally:
        plt.close(figure)
    overlap = peer_client.evaluation_overlap(naive_evaluation.id, configuration_evaluation.id)
    assert sorted(overlap.org_units) == sorted(ORG_UNITS)
    assert sorted(overlap.split_periods) == sorted(naive_evaluation.split_periods)


def test_an_evaluation_job_is_followed_to_success_and_gives_its_evaluation(
    peer_client: ChapClient, peer_dataset: Dataset
) -> None:
    job = peer_client.create_evaluation(
        "peer global median", "global_median", peer_dataset.id, n_periods=2, n_splits=2
    )
    statuses: list[str] = []
    finished = peer_client.wait_for_job(job.id, on_status=statuses.append)
    assert finished.status == "SUCCESS"
    assert statuses[-1] == "SUCCESS"
    assert peer_client.job_status(job.id) == "SUCCESS"
    assert job.id in {listed.id for listed in peer_client.list_jobs()}
    assert peer_client.get_job(job.id).name == "peer global median"
    assert "backtest" in peer_client.job_logs(job.id).lower()
    evaluation = peer_client.job_evaluation_result(job.id)
    assert evaluation.name == "peer global median"
    assert evaluation.n_periods == 2


def test_the_full_evaluation_and_metrics_csv_cover_every_org_unit(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    full = peer_client.get_evaluation_full(naive_evaluation.id)
    assert full.id == naive_evaluation.id
    assert full.name == naive_evaluation.name
    metrics = pd.read_csv(io.StringIO(peer_client.metrics_csv(naive_evaluation.id)))
    assert set(metrics["location"]) == set(ORG_UNITS)
    assert "crps" in set(metrics["metric_id"])


def test_renaming_then_deleting_an_evaluation(
    peer_client: ChapClient, peer_dataset: Dataset
) -> None:
    evaluation = peer_client.run_evaluation(
        "peer to rename", "persistence", peer_dataset.id, n_periods=2, n_splits=1
    )
    renamed = peer_client.update_evaluation(evaluation.id, "peer renamed")
    assert renamed.name == "peer renamed"
    assert peer_client.get_evaluation(evaluation.id).name == "peer renamed"
    wait_for_pending_jobs(peer_client)
    peer_client.delete_evaluation(evaluation.id)
    assert evaluation.id not in {listed.id for listed in peer_client.list_evaluations()}
    with pytest.raises(NotFoundError):
        peer_client.get_evaluation(evaluation.id)


def test_a_finished_job_cannot_be_cancelled_and_a_deleted_job_is_gone(
    peer_client: ChapClient, peer_dataset: Dataset
) -> None:
    job = peer_client.create_evaluation(
        "peer job to delete", "persistence", peer_dataset.id, n_periods=2, n_splits=2
    )
    assert peer_client.wait_for_job(job.id).status == "SUCCESS"
    with pytest.raises(ChapHTTPError, match="already finished"):
        peer_client.cancel_job(job.id)
    peer_client.delete_job(job.id)
    assert job.id not in {listed.id for listed in peer_client.list_jobs()}
    with pytest.raises(NotFoundError):
        peer_client.get_job(job.id)


def test_the_async_client_sees_the_same_evaluations(
    peer_client: ChapClient, naive_evaluation: Evaluation, async_runner: asyncio.Runner
) -> None:
    async def listed_ids() -> set[int]:
        async_client = peer_client.as_async()
        try:
            return {evaluation.id for evaluation in await async_client.list_evaluations()}
        finally:
            await async_client.aclose()

    assert naive_evaluation.id in async_runner.run(listed_ids())
