"""A user script that calls every method of ``ChapClient`` and ``AsyncChapClient``.

It is never run: ``make test`` type-checks it (mypy --strict), so a method that type checkers
cannot see, a wrong argument type or a changed result type fails the build. ``assert_type``
states the result type a user relies on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, assert_type

import pandas as pd

from chaplab.client import (
    DEFAULT_QUANTILES,
    Alert,
    AlertLevel,
    AlertPolicy,
    AsyncChapClient,
    BacktestBatch,
    BacktestParameter,
    BacktestSpecification,
    BacktestSpecificationDetail,
    ChapClient,
    ConfiguredModelWithDataSource,
    CovariateName,
    DataImportReport,
    Dataset,
    DatasetDeletion,
    DataSourceKind,
    DebugEntry,
    Evaluation,
    EvaluationDetail,
    EvaluationEntry,
    EvaluationMetrics,
    EvaluationOverlap,
    FacetPlot,
    Health,
    Job,
    JobCancellation,
    JobResult,
    ListedPredictionEntry,
    Listing,
    MetricPlotCatalog,
    ModelRunner,
    ModelSpec,
    ModelTemplate,
    NewAlert,
    PercentileParams,
    Prediction,
    PredictionDetail,
    PredictionEntry,
    PredictionRequest,
    PredictionSetup,
    PredictionSetupDetail,
    QuantileTarget,
    Readiness,
    SeasonalParams,
    ServerPlot,
    SystemInfo,
    Thresholds,
    ThresholdStrategy,
    WeatherProvider,
)
from chaplab.tuning import Tuning

TARGETS = [QuantileTarget(quantile="0.5", data_element_id="de_median")]
LEVELS = [AlertLevel(name="a", threshold_params=SeasonalParams(), exceedance_threshold=0.8)]
ALERTS = [NewAlert(alert_policy_id=1, level="a", org_unit="OU", time_period="2023-01")]
GEOJSON = {"type": "FeatureCollection", "features": []}
PERCENTILE = PercentileParams(quantile=0.9)


def every_sync_method(client: ChapClient, frame: pd.DataFrame, request: PredictionRequest) -> None:
    """Each blocking method, with the result type it promises."""
    assert_type(client.system_info(), SystemInfo)
    assert_type(client.health(), Health)
    assert_type(client.create_debug_entry("note", {"k": 1}), DebugEntry)
    assert_type(client.get_debug_entry(1), DebugEntry)
    assert_type(client.list_datasets(), Listing[Dataset])
    assert_type(client.get_dataset(1), Dataset)
    assert_type(client.get_dataset("demo"), Dataset)  # a dataset's name where its id is asked
    assert_type(
        client.create_dataset("d", frame, geojson={"type": "x"}, type="evaluation"),
        Dataset,
    )
    assert_type(client.upload_dataset_csv("d", Path("data.csv"), geojson=b"{}"), Dataset)
    assert_type(client.make_dataset("d", frame), Job)
    assert_type(client.delete_dataset(1, force=True), DatasetDeletion)
    assert_type(client.dataset_csv(1), str)
    assert_type(client.dataset_frame(1), pd.DataFrame)
    assert_type(client.list_data_sources(), list[DataSourceKind])
    assert_type(client.list_model_templates(), list[ModelTemplate])
    assert_type(
        client.register_model_template("t", "a template", {}, required_covariates=["rain"]),
        ModelTemplate,
    )
    assert_type(client.list_models(), list[ModelSpec])
    assert_type(client.list_configured_models(), list[ModelSpec])
    assert_type(client.list_configured_models(include_archived=True), list[ModelSpec])
    assert_type(client.get_configured_model(1), ModelSpec)
    assert_type(client.create_configured_model("weekly", 1, {"window": 3}), ModelSpec)
    assert_type(client.create_configured_model("weekly", "naive_model"), ModelSpec)
    client.delete_configured_model(1)
    assert_type(
        client.list_configured_models_with_data_source(),
        list[ConfiguredModelWithDataSource],
    )
    assert_type(client.get_configured_model_with_data_source(1), ConfiguredModelWithDataSource)
    assert_type(
        client.create_configured_model_with_data_source_from_evaluation(1),
        ConfiguredModelWithDataSource,
    )
    assert_type(
        client.create_evaluation("e", "naive_model", 1, n_periods=3, n_splits=2, stride=1),
        Job,
    )
    assert_type(
        client.run_evaluation("e", "naive_model", 1, timeout=60.0, on_status=print),
        Evaluation,
    )
    assert_type(client.create_evaluation_row("e", "naive_model", 1, n_periods=3), Evaluation)
    assert_type(
        client.create_evaluation_with_data("e", "naive_model", frame, dry_run=True),
        DataImportReport,
    )
    assert_type(client.list_evaluations(), Listing[Evaluation])
    assert_type(client.get_evaluation(1), Evaluation)
    assert_type(client.get_evaluation_full(1, quantiles=[0.5]), EvaluationDetail)
    assert_type(client.job_evaluation_result("job-1"), EvaluationDetail)
    assert_type(client.update_evaluation(1, "renamed"), Evaluation)
    client.delete_evaluation(1)
    assert_type(client.delete_evaluations([1, 2]), list[int])
    assert_type(
        client.evaluation_entries(1, DEFAULT_QUANTILES, "202101", org_units=["O1"]),
        list[EvaluationEntry],
    )
    assert_type(client.evaluation_frame(1, org_units="O1"), pd.DataFrame)
    assert_type(client.actual_cases(1, org_units=["O1"]), pd.DataFrame)
    assert_type(client.evaluation_overlap(1, 2), EvaluationOverlap)
    assert_type(
        client.create_backtests("b", [1001, "persistence"], 1, 3, 7, 1, n_retrain=1), BacktestBatch
    )
    assert_type(
        client.run_backtests("b", ["naive_model"], 1, n_periods=3, timeout=60.0, on_status=print),
        BacktestSpecificationDetail,
    )
    assert_type(
        client.tune("naive_model", 1, {"distribution": ["poisson"]}, 3, 2, timeout=60.0),
        Tuning,
    )
    assert_type(
        client.list_backtest_specifications(1, 3, 7, 1, 1, "disease_cases"),
        list[BacktestSpecification],
    )
    assert_type(client.get_backtest_specification(1, True), BacktestSpecificationDetail)
    assert_type(
        client.wait_for_baselines(1, timeout=60.0, on_pending=print), BacktestSpecificationDetail
    )
    assert_type(client.compatible_evaluations(1), list[Evaluation])
    assert_type(client.metrics_csv(), str)
    assert_type(client.make_prediction(request), Job)
    assert_type(client.make_prediction_for_model("p", "naive_model", frame, n_periods=3), Job)
    assert_type(client.run_prediction("p", "naive_model", frame, 3, timeout=60.0), Prediction)
    assert_type(client.create_prediction_row("p", 1, 1), Prediction)
    assert_type(client.list_predictions(), Listing[Prediction])
    assert_type(client.get_prediction(1), Prediction)
    assert_type(client.job_prediction_result("job-1", quantiles=(0.1, 0.9)), PredictionDetail)
    client.delete_prediction(1)
    assert_type(client.prediction_entries(1), list[PredictionEntry])
    assert_type(client.prediction_frame(1, [0.5]), pd.DataFrame)
    assert_type(client.list_prediction_entries(prediction_id=1), list[ListedPredictionEntry])
    assert_type(client.job_status("job-1"), str)
    assert_type(client.list_jobs(), Listing[Job])
    assert_type(client.get_job("job-1"), Job)
    assert_type(client.job_logs("job-1"), str)
    assert_type(client.cancel_job("job-1"), JobCancellation)
    client.delete_job("job-1")
    assert_type(client.job_database_result("job-1"), JobResult)
    assert_type(client.job_created_id("job-1"), int)
    assert_type(client.job_created_id(client.get_job("job-1")), int)
    assert_type(client.wait_for_job("job-1", timeout=30.0, poll_interval=0.5), Job)
    assert_type(client.list_evaluation_plots(), list[str])
    assert_type(client.evaluation_plot("forecasts", 1), ServerPlot)
    assert_type(client.list_dataset_plots(), list[str])
    assert_type(client.dataset_plot("cases", 1), ServerPlot)
    assert_type(client.list_metric_plots(1), MetricPlotCatalog)
    assert_type(client.metric_plot("by_horizon", 1, "crps"), ServerPlot)
    assert_type(client.evaluation_metrics(1), EvaluationMetrics)
    assert_type(client.list_model_runners(), list[ModelRunner])
    assert_type(client.get_model_runner(1), ModelRunner)
    assert_type(client.register_model_runner("http://runner.test", {"name": "r"}), ModelRunner)
    assert_type(client.ping_model_runner(1), ModelRunner)
    client.remove_model_runner(1)
    assert_type(client.readiness(), Readiness)
    assert_type(client.probe(), Readiness)
    assert_type(
        client.register_template_from_service("chaplab-mean", role="comparison"),
        ModelTemplate,
    )
    client.delete_model_template(5, all_versions=True)
    assert_type(client.list_backtest_parameters(), list[BacktestParameter])
    assert_type(client.list_weather_providers(), list[WeatherProvider])
    assert_type(client.covariate_names(), list[CovariateName])
    assert_type(client.list_prediction_setups(), list[PredictionSetup])
    assert_type(
        client.create_prediction_setup(1, "s", quantile_targets=TARGETS),
        PredictionSetupDetail,
    )
    assert_type(client.get_prediction_setup(1), PredictionSetupDetail)
    assert_type(
        client.update_prediction_setup(1, name="s", schedule_enabled=False),
        PredictionSetup,
    )
    assert_type(
        client.run_prediction_setup(1, "run", frame, GEOJSON, n_periods=3),
        Job,
    )
    client.delete_prediction_setup(1)
    assert_type(client.list_threshold_strategies(), list[ThresholdStrategy])
    assert_type(
        client.compute_thresholds(1, ["2023-01"], PERCENTILE, ["OU_North"]),
        Thresholds,
    )
    assert_type(client.list_alert_policies(), list[AlertPolicy])
    assert_type(
        client.create_alert_policy("p", LEVELS),
        AlertPolicy,
    )
    assert_type(client.get_alert_policy(1), AlertPolicy)
    client.delete_alert_policy(1)
    assert_type(client.create_alert(1, "a", "OU_North", "2023-01"), Alert)
    assert_type(
        client.create_alerts(ALERTS),
        list[int],
    )
    assert_type(client.list_alerts(alert_policy_id=1, approved="pending"), list[Alert])
    assert_type(client.alert_review_queue(1), list[Alert])
    assert_type(client.get_alert(1), Alert)
    client.delete_alert(1)
    assert_type(client.approve_alert([1, 2], "ana"), list[Alert])
    assert_type(client.decline_alert(1, "ana"), list[Alert])
    assert_type(client.job_request("job-1"), dict[str, Any])
    assert_type(client.backtest_plot_facets("evaluation_plot", 1), dict[str, list[Any]])
    assert_type(client.backtest_subplot("evaluation_plot", 1, {"location": "OU_North"}), ServerPlot)
    assert_type(client.backtest_subplots("evaluation_plot", 1), list[FacetPlot])


async def every_async_method(
    client: AsyncChapClient, frame: pd.DataFrame, request: PredictionRequest
) -> None:
    """Each coroutine method, awaited, with the same result types."""
    assert_type(await client.system_info(), SystemInfo)
    assert_type(await client.health(), Health)
    assert_type(await client.create_debug_entry("note", {"k": 1}), DebugEntry)
    assert_type(await client.get_debug_entry(1), DebugEntry)
    assert_type(await client.list_datasets(), Listing[Dataset])
    assert_type(await client.get_dataset(1), Dataset)
    assert_type(
        await client.create_dataset("d", frame, geojson={"type": "x"}, type="evaluation"),
        Dataset,
    )
    assert_type(await client.upload_dataset_csv("d", Path("data.csv"), geojson=b"{}"), Dataset)
    assert_type(await client.make_dataset("d", frame), Job)
    assert_type(await client.delete_dataset(1), DatasetDeletion)
    assert_type(await client.dataset_csv(1), str)
    assert_type(await client.dataset_frame(1), pd.DataFrame)
    assert_type(await client.dataset_frame("demo"), pd.DataFrame)
    assert_type(await client.list_data_sources(), list[DataSourceKind])
    assert_type(await client.list_model_templates(), list[ModelTemplate])
    assert_type(
        await client.register_model_template("t", "a template", {}, required_covariates=["rain"]),
        ModelTemplate,
    )
    assert_type(await client.list_models(), list[ModelSpec])
    assert_type(await client.list_configured_models(), list[ModelSpec])
    assert_type(await client.list_configured_models(include_archived=True), list[ModelSpec])
    assert_type(await client.get_configured_model(1), ModelSpec)
    assert_type(await client.create_configured_model("weekly", 1, {"window": 3}), ModelSpec)
    await client.delete_configured_model(1)
    assert_type(
        await client.list_configured_models_with_data_source(),
        list[ConfiguredModelWithDataSource],
    )
    assert_type(
        await client.get_configured_model_with_data_source(1),
        ConfiguredModelWithDataSource,
    )
    assert_type(
        await client.create_configured_model_with_data_source_from_evaluation(1),
        ConfiguredModelWithDataSource,
    )
    assert_type(
        await client.create_evaluation("e", "naive_model", 1, n_periods=3, n_splits=2, stride=1),
        Job,
    )
    assert_type(
        await client.run_evaluation("e", "naive_model", 1, timeout=60.0, on_status=print),
        Evaluation,
    )
    assert_type(await client.create_evaluation_row("e", "naive_model", 1, n_periods=3), Evaluation)
    assert_type(
        await client.create_evaluation_with_data("e", "naive_model", frame, dry_run=True),
        DataImportReport,
    )
    assert_type(await client.list_evaluations(), Listing[Evaluation])
    assert_type(await client.get_evaluation(1), Evaluation)
    assert_type(await client.get_evaluation_full(1, quantiles=[0.5]), EvaluationDetail)
    assert_type(await client.job_evaluation_result("job-1"), EvaluationDetail)
    assert_type(await client.update_evaluation(1, "renamed"), Evaluation)
    await client.delete_evaluation(1)
    assert_type(await client.delete_evaluations([1, 2]), list[int])
    assert_type(
        await client.evaluation_entries(1, DEFAULT_QUANTILES, "202101", org_units=["O1"]),
        list[EvaluationEntry],
    )
    assert_type(await client.evaluation_frame(1, org_units="O1"), pd.DataFrame)
    assert_type(await client.actual_cases(1, org_units=["O1"]), pd.DataFrame)
    assert_type(await client.evaluation_overlap(1, 2), EvaluationOverlap)
    assert_type(await client.create_backtests("b", ["naive_model"], 1), BacktestBatch)
    assert_type(
        await client.run_backtests("b", ["naive_model"], 1, timeout=60.0, on_status=print),
        BacktestSpecificationDetail,
    )
    assert_type(await client.tune(1, "demo", None, baseline="persistence"), Tuning)
    assert_type(
        await client.list_backtest_specifications(dataset_id=1), list[BacktestSpecification]
    )
    assert_type(
        await client.get_backtest_specification(1, include_comparison_models=True),
        BacktestSpecificationDetail,
    )
    assert_type(await client.wait_for_baselines(1), BacktestSpecificationDetail)
    assert_type(await client.compatible_evaluations(1), list[Evaluation])
    assert_type(await client.metrics_csv(), str)
    assert_type(await client.make_prediction(request), Job)
    assert_type(await client.make_prediction_for_model("p", "naive_model", frame, n_periods=3), Job)
    assert_type(await client.run_prediction("p", "naive_model", frame, 3, timeout=60.0), Prediction)
    assert_type(await client.create_prediction_row("p", 1, 1), Prediction)
    assert_type(await client.list_predictions(), Listing[Prediction])
    assert_type(await client.get_prediction(1), Prediction)
    assert_type(await client.job_prediction_result("job-1", quantiles=(0.1, 0.9)), PredictionDetail)
    await client.delete_prediction(1)
    assert_type(await client.prediction_entries(1), list[PredictionEntry])
    assert_type(await client.prediction_frame(1, [0.5]), pd.DataFrame)
    assert_type(await client.list_prediction_entries(prediction_id=1), list[ListedPredictionEntry])
    assert_type(await client.job_status("job-1"), str)
    assert_type(await client.list_jobs(), Listing[Job])
    assert_type(await client.get_job("job-1"), Job)
    assert_type(await client.job_logs("job-1"), str)
    assert_type(await client.cancel_job("job-1"), JobCancellation)
    await client.delete_job("job-1")
    assert_type(await client.job_database_result("job-1"), JobResult)
    assert_type(await client.job_created_id("job-1"), int)
    assert_type(await client.wait_for_job("job-1", timeout=30.0, poll_interval=0.5), Job)
    assert_type(await client.list_evaluation_plots(), list[str])
    assert_type(await client.evaluation_plot("forecasts", 1), ServerPlot)
    assert_type(await client.list_dataset_plots(), list[str])
    assert_type(await client.dataset_plot("cases", 1), ServerPlot)
    assert_type(await client.list_metric_plots(1), MetricPlotCatalog)
    assert_type(await client.metric_plot("by_horizon", 1, "crps"), ServerPlot)
    assert_type(await client.evaluation_metrics(1), EvaluationMetrics)
    assert_type(await client.list_model_runners(), list[ModelRunner])
    assert_type(await client.get_model_runner(1), ModelRunner)
    assert_type(
        await client.register_model_runner("http://runner.test", {"name": "r"}),
        ModelRunner,
    )
    assert_type(await client.ping_model_runner(1), ModelRunner)
    await client.remove_model_runner(1)
    assert_type(await client.readiness(), Readiness)
    assert_type(await client.probe(), Readiness)
    assert_type(
        await client.register_template_from_service("chaplab-mean", role="comparison"),
        ModelTemplate,
    )
    await client.delete_model_template(5, all_versions=True)
    assert_type(await client.list_backtest_parameters(), list[BacktestParameter])
    assert_type(await client.list_weather_providers(), list[WeatherProvider])
    assert_type(await client.covariate_names(), list[CovariateName])
    assert_type(await client.list_prediction_setups(), list[PredictionSetup])
    assert_type(
        await client.create_prediction_setup(1, "s", quantile_targets=TARGETS),
        PredictionSetupDetail,
    )
    assert_type(await client.get_prediction_setup(1), PredictionSetupDetail)
    assert_type(
        await client.update_prediction_setup(1, name="s", schedule_enabled=False),
        PredictionSetup,
    )
    assert_type(
        await client.run_prediction_setup(1, "run", frame, GEOJSON, n_periods=3),
        Job,
    )
    await client.delete_prediction_setup(1)
    assert_type(await client.list_threshold_strategies(), list[ThresholdStrategy])
    assert_type(
        await client.compute_thresholds(1, ["2023-01"], PERCENTILE, ["OU_North"]),
        Thresholds,
    )
    assert_type(await client.list_alert_policies(), list[AlertPolicy])
    assert_type(
        await client.create_alert_policy("p", LEVELS),
        AlertPolicy,
    )
    assert_type(await client.get_alert_policy(1), AlertPolicy)
    await client.delete_alert_policy(1)
    assert_type(await client.create_alert(1, "a", "OU_North", "2023-01"), Alert)
    assert_type(
        await client.create_alerts(ALERTS),
        list[int],
    )
    assert_type(await client.list_alerts(alert_policy_id=1, approved="pending"), list[Alert])
    assert_type(await client.alert_review_queue(1), list[Alert])
    assert_type(await client.get_alert(1), Alert)
    await client.delete_alert(1)
    assert_type(await client.approve_alert([1, 2], "ana"), list[Alert])
    assert_type(await client.decline_alert(1, "ana"), list[Alert])
    assert_type(await client.job_request("job-1"), dict[str, Any])
    assert_type(await client.backtest_plot_facets("evaluation_plot", 1), dict[str, list[Any]])
    assert_type(
        await client.backtest_subplot("evaluation_plot", 1, {"location": "OU_North"}),
        ServerPlot,
    )
    assert_type(await client.backtest_subplots("evaluation_plot", 1), list[FacetPlot])


def the_clients_convert_and_close(client: ChapClient) -> None:
    """Conversion between the two kinds keeps the types."""
    with client as same:
        assert_type(same, ChapClient)
        assert_type(same.as_async(), AsyncChapClient)
        assert_type(same.as_async().as_sync(), ChapClient)
