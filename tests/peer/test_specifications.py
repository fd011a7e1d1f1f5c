"""A batch of what chap-core 2.5.1 runs offline (``naive_model``, a ``seasonal_median``
configuration and the ``global_median`` baseline) through the client's batch methods, and its
leaderboard read back: the comparisons the peer computes are the ones the embedded service
computes (``chaplab.service.comparisons``)."""

from __future__ import annotations

import pytest

from chaplab import ChapClient
from chaplab.client import BacktestSpecificationDetail, Dataset, ModelSpec
from chaplab.service.comparisons import compare_metrics

BASELINES = {"persistence", "seasonal_median", "global_median"}


@pytest.fixture(scope="module")
def leaderboard(
    peer_client: ChapClient,
    peer_dataset: Dataset,
    naive_model: ModelSpec,
    seasonal_median_configuration: ModelSpec,
) -> BacktestSpecificationDetail:
    models = [naive_model.id, seasonal_median_configuration.name, "global_median"]
    batch = peer_client.create_backtests("peer batch", models, peer_dataset.id, 3, 3)
    ids = [naive_model.id, seasonal_median_configuration.id]
    assert [job.configured_model_id for job in batch.jobs][:2] == ids
    for job in batch.jobs:
        peer_client.wait_for_job(job.job_id, timeout=600)
    detail = peer_client.run_backtests(
        "peer batch again", [naive_model], peer_dataset.id, 3, 3, timeout=600
    )
    assert detail.id == batch.specification_id
    return detail


def test_the_batch_files_under_one_specification_listed_with_its_filters(
    peer_client: ChapClient, peer_dataset: Dataset, leaderboard: BacktestSpecificationDetail
) -> None:
    listed = peer_client.list_backtest_specifications(
        dataset_id=peer_dataset.id, n_periods=3, n_splits=3
    )
    assert [specification.id for specification in listed] == [leaderboard.id]
    assert listed[0].org_unit_count == 2 and (listed[0].backtest_count or 0) >= 2
    assert peer_client.list_backtest_specifications(dataset_id=peer_dataset.id, n_splits=99) == []


def test_baselines_are_references_and_the_models_evaluations(
    leaderboard: BacktestSpecificationDetail, seasonal_median_configuration: ModelSpec
) -> None:
    names = {reference.configured_model.name for reference in leaderboard.baselines}
    assert names >= BASELINES
    # a configuration of a baseline's template is a reference too, never a leaderboard row
    assert seasonal_median_configuration.name in names
    # the rows are the evaluations of models; other tests' evaluations of the shared peer
    # dataset with the same settings (a model service's) may be rows too
    rows = {evaluation.model_id for evaluation in leaderboard.backtests}
    assert "naive_model" in rows
    assert rows.isdisjoint(names)
    assert {"peer batch/naive_model", "peer batch again/naive_model"} <= {
        evaluation.name for evaluation in leaderboard.backtests
    }
    assert {reference.status for reference in leaderboard.baselines} == {"done"}


def test_the_peers_comparisons_are_the_ones_the_embedded_service_computes(
    leaderboard: BacktestSpecificationDetail,
) -> None:
    references = {
        reference.configured_model.id: reference.aggregate_metrics
        for reference in leaderboard.baselines
        if reference.status == "done"
    }
    for evaluation in leaderboard.backtests:
        assert [c.configured_model_id for c in evaluation.comparisons] == list(references)
        for comparison in evaluation.comparisons:
            ours = compare_metrics(
                evaluation.aggregate_metrics, references[comparison.configured_model_id]
            )
            shared = set(ours) & set(comparison.values)
            assert {"crps", "mae", "coverage_10_90"} <= shared
            for metric in shared:
                assert comparison.values[metric] == pytest.approx(ours[metric]), metric
    kinds = {metric.id: metric.comparison_op for metric in leaderboard.metrics}
    assert kinds["crps"] == "skill_ratio" and kinds["coverage_10_90"] == "target_distance"
