"""Every public method of ``ChapClient`` against the server at ``CHAP_URL``: each one works, or
raises ``UnsupportedRouteError`` naming what to call instead. The outcome of every call is
recorded in ``tests/peer/outcomes/<server>.json``, from which ``docs/endpoints.md``'s server
columns are written (``python -m tests.peer.endpoint_table``).

The tests run in any order and share what fixtures made (an evaluation); the check that every
method was called runs after them (``conftest.py`` puts it last). They use ``naive_model``,
which chap-core 2.5.1 runs offline and the embedded service has too. A cancel is asked but never
relied on: the job may still finish.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import (
    AlertLevel,
    ConflictError,
    Dataset,
    Evaluation,
    JobFailedError,
    NewAlert,
    NotFoundError,
    SeasonalParams,
    ServerPlot,
    UnsupportedRouteError,
)
from chaplab.client._driver import operations
from chaplab.frames import frame_to_observations

from .peer_data import DATASET_NAME, FEATURES, org_unit_geojson
from .peer_requests import wait_for_pending_jobs

OUTCOMES = Path(__file__).with_name("outcomes")
MODEL = "naive_model"
RECORDED: dict[str, list[dict[str, str]]] = {}


@pytest.fixture(scope="module")
def server_label(peer_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """``<title> <version>`` of the server's OpenAPI document; the recorded outcomes are
    written under that name when the module's tests are done, only from a complete run: no
    test of the module failed and every method was called (a failed or partial run, ``-x``
    or ``-k``, leaves the file as it was)."""
    info = httpx.get(f"{peer_url}/openapi.json", timeout=30).json()["info"]
    label = f"{info['title']} {info['version']}"
    failed_before = request.session.testsfailed
    yield label
    if request.session.testsfailed == failed_before and set(operations()) <= set(RECORDED):
        write_outcomes(label, RECORDED)


def write_outcomes(label: str, recorded: dict[str, list[dict[str, str]]]) -> Path:
    """Write ``recorded`` to ``outcomes/<label>.json`` through a temporary file moved into
    place, so the file is either the one before or the whole new one."""
    OUTCOMES.mkdir(exist_ok=True)
    name = re.sub(r"[^a-z0-9.]+", "-", label.lower()).strip("-")
    document = {"server": label, "methods": dict(sorted(recorded.items()))}
    target = OUTCOMES / f"{name}.json"
    written = OUTCOMES / f".{name}.json.tmp"
    written.write_text(json.dumps(document, indent=1) + "\n")
    return written.replace(target)


@pytest.fixture
def client(peer_client: ChapClient, server_label: str) -> ChapClient:
    return peer_client


@pytest.fixture(scope="module")
def peer_dataset(peer_client: ChapClient, dataset_table: pd.DataFrame) -> Dataset:
    """The tests' dataset, found by name or stored with ``create_dataset``."""
    for dataset in peer_client.list_datasets():
        if dataset.name == DATASET_NAME:
            return dataset
    return peer_client.create_dataset(DATASET_NAME, wide(dataset_table), org_unit_geojson())


@pytest.fixture(scope="module")
def evaluation(peer_client: ChapClient, server_label: str, peer_dataset: Dataset) -> Evaluation:
    """A finished evaluation the tests share (made with ``run_evaluation``, recorded)."""
    found: Evaluation = attempt(
        "run_evaluation(name, model, dataset_id)",
        lambda: peer_client.run_evaluation("peer every b", MODEL, peer_dataset.id, 3, 2),
    )
    return found


def attempt(call: str, action: Callable[[], Any]) -> Any:
    """Run ``action`` (the client call written as ``call``); record that it worked, or that the
    server lacks its route (then the error names an alternative). Returns the result, or
    ``None`` when unsupported."""
    name = call.split("(")[0]
    try:
        result = action()
    except UnsupportedRouteError as error:
        assert error.operation == name and error.alternative and error.path in str(error)
        RECORDED.setdefault(name, []).append(
            {"call": call, "outcome": "unsupported", "alternative": error.alternative}
        )
        return None
    RECORDED.setdefault(name, []).append({"call": call, "outcome": "works"})
    return result


def wide(table: pd.DataFrame) -> pd.DataFrame:
    """The tests' observations as the client's wide frame (``time_period``, ``location``)."""
    return table.rename(columns={"period": "time_period", "org_unit": "location"})


def history(table: pd.DataFrame, periods: int) -> pd.DataFrame:
    """The first ``periods`` months of every org unit (a short history for quick jobs)."""
    frame = wide(table)
    kept = sorted(frame["time_period"].unique())[:periods]
    return frame[frame["time_period"].isin(kept)].reset_index(drop=True)


# -- system ------------------------------------------------------------------------------------


def test_system(client: ChapClient) -> None:
    assert attempt("health()", client.health).status in (None, "success", "healthy", "ok")
    info = attempt("system_info()", client.system_info)
    assert info.chap_core_version
    for name, check in (("readiness", client.readiness), ("probe", client.probe)):
        answer = attempt(f"{name}()", check)
        assert answer is None or (answer.ready and answer.checks), answer
    entry = attempt("create_debug_entry(message)", lambda: client.create_debug_entry("peer"))
    if entry is not None:
        read = attempt("get_debug_entry(entry_id)", lambda: client.get_debug_entry(entry.id))
        assert read.message == "peer"
    else:
        assert attempt("get_debug_entry(entry_id)", lambda: client.get_debug_entry(1)) is None


# -- datasets ----------------------------------------------------------------------------------


def test_datasets(client: ChapClient, peer_dataset: Dataset, dataset_table: pd.DataFrame) -> None:
    listed = attempt("list_datasets()", client.list_datasets)
    assert peer_dataset.id in [dataset.id for dataset in listed]
    dataset = attempt("get_dataset(dataset_id)", lambda: client.get_dataset(peer_dataset.id))
    assert len(dataset.observations or []) == len(dataset_table) * 4
    csv_text = attempt("dataset_csv(dataset_id)", lambda: client.dataset_csv(peer_dataset.id))
    assert "OU_North" in csv_text
    frame = attempt("dataset_frame(dataset_id)", lambda: client.dataset_frame(peer_dataset.id))
    assert len(frame) == len(dataset_table)
    assert {str(frame[feature].dtype) for feature in FEATURES} == {"float64"}
    again = client.run_prediction(  # the frame goes back as it came (chap-core adds parent)
        "peer round trip", MODEL, frame, 3, dataset.geojson
    )
    forecast = client.prediction_frame(again.id)
    named = set(zip(forecast["org_unit"], forecast["org_unit_name"], strict=True))
    assert named == {("OU_North", "North"), ("OU_South", "South")}
    client.delete_prediction(again.id)
    kinds = attempt("list_data_sources()", client.list_data_sources)
    assert isinstance(kinds, list)

    short = history(dataset_table, 24)
    created = attempt(
        "create_dataset(name, frame, geojson)",
        lambda: client.create_dataset("peer crud dataset", short, org_unit_geojson()),
    )
    assert created.id != peer_dataset.id and set(created.org_units) == {"OU_North", "OU_South"}
    assert set(created.covariates) == set(FEATURES) and created.type == "evaluation"
    job = attempt(
        "make_dataset(name, frame, geojson)",
        lambda: client.make_dataset("peer built dataset", short, org_unit_geojson()),
    )
    built = client.wait_for_job(job.id)
    assert built.result_id is not None
    uploaded = attempt(
        "upload_dataset_csv(name, csv, geojson)",
        lambda: client.upload_dataset_csv("peer csv dataset", short, org_unit_geojson()),
    )
    assert set(uploaded.org_units) == {"OU_North", "OU_South"}
    wait_for_pending_jobs(client)
    for dataset_id in (created.id, built.result_id, uploaded.id):
        attempt("delete_dataset(dataset_id)", lambda i=dataset_id: client.delete_dataset(i))
    remaining = {dataset.id for dataset in client.list_datasets()}
    assert not remaining & {created.id, built.result_id, uploaded.id}


# -- models ------------------------------------------------------------------------------------


def test_model_catalog(client: ChapClient) -> None:
    templates = attempt("list_model_templates()", client.list_model_templates)
    assert templates
    registered = attempt(
        "register_model_template(name, description)",
        lambda: client.register_model_template("peer-template", "registered by the peer tests"),
    )
    assert registered is None or registered.name == "peer-template"
    models = attempt("list_models()", client.list_models)
    assert MODEL in [model.name for model in models]
    configured = attempt("list_configured_models()", client.list_configured_models)
    naive = next(model for model in configured if model.name == MODEL)
    assert (
        attempt(
            "get_configured_model(model_id)", lambda: client.get_configured_model(naive.id)
        ).name
        == MODEL
    )
    template = next(t for t in templates if t.name == MODEL)
    made = attempt(
        "create_configured_model(name, model_template_id)",
        lambda: client.create_configured_model("peer-every-method", template.id, {}),
    )
    attempt("delete_configured_model(model_id)", lambda: client.delete_configured_model(made.id))
    assert made.id not in [model.id for model in client.list_configured_models()]
    assert client.get_configured_model(made.id).archived


def test_templates_from_a_model_service(
    client: ChapClient, peer_url: str, request: pytest.FixtureRequest
) -> None:
    paths = httpx.get(f"{peer_url}/openapi.json", timeout=30).json()["paths"]
    offered = "/v1/crud/model-templates/from-service" in paths
    service_id = request.getfixturevalue("model_service") if offered else "chaplab-mean"
    template = attempt(
        "register_template_from_service(service_id)",
        lambda: client.register_template_from_service(service_id),
    )
    assert template is None or (template.name == service_id and template.uses_chapkit)
    if template is not None:
        attempt(
            "delete_model_template(model_template_id)",
            lambda: client.delete_model_template(template.id),
        )
        listed = {item.id: item for item in client.list_model_templates()}
        assert listed[template.id].archived
        return
    unknown = max(item.id for item in client.list_model_templates()) + 1000
    try:
        attempt(
            "delete_model_template(model_template_id)",
            lambda: client.delete_model_template(unknown),
        )
    except NotFoundError:  # the route is there, the template is not: the server's right answer
        RECORDED.setdefault("delete_model_template", []).append(
            {"call": "delete_model_template(model_template_id)", "outcome": "works"}
        )


# -- the backtest form's choices -----------------------------------------------------------------


def test_backtest_form(client: ChapClient) -> None:
    parameters = attempt("list_backtest_parameters()", client.list_backtest_parameters)
    assert parameters is None or {"nPeriods", "nSplits"} <= {p.name for p in parameters}
    providers = attempt("list_weather_providers()", client.list_weather_providers)
    assert providers is None or all(provider.id for provider in providers)
    names = attempt("covariate_names()", client.covariate_names)
    assert names is None or "disease_cases" in {name.name for name in names}


# -- evaluations -------------------------------------------------------------------------------


def test_evaluations(
    client: ChapClient, peer_dataset: Dataset, dataset_table: pd.DataFrame, evaluation: Evaluation
) -> None:
    job = attempt(
        "create_evaluation(name, model, dataset_id)",
        lambda: client.create_evaluation("peer every a", MODEL, peer_dataset.id, 3, 2),
    )
    finished = client.wait_for_job(job.id)
    assert finished.result_id is not None  # the result, read right after SUCCESS
    detail = attempt("job_evaluation_result(job_id)", lambda: client.job_evaluation_result(job.id))
    assert detail.id == finished.result_id and detail.forecasts
    second = evaluation
    row = attempt(
        "create_evaluation_row(name, model, dataset_id)",
        lambda: client.create_evaluation_row("peer row", MODEL, peer_dataset.id),
    )
    dry = attempt(
        "create_evaluation_with_data(name, model, frame, geojson, dry_run=True)",
        lambda: client.create_evaluation_with_data(
            "peer dry run", MODEL, wide(dataset_table), org_unit_geojson(), 3, 2, dry_run=True
        ),
    )
    assert (dry.dry_run, dry.id, dry.imported_count, dry.rejected) == (True, None, 2, [])
    outside = {**org_unit_geojson(), "features": org_unit_geojson()["features"][:1]}
    partial = client.create_evaluation_with_data(
        "peer dry run", MODEL, wide(dataset_table), outside, 3, 2, dry_run=True
    )
    assert partial.imported_count == 1 and {r.org_unit for r in partial.rejected} == {"OU_South"}
    report = attempt(
        "create_evaluation_with_data(name, model, frame, geojson, dry_run=False)",
        lambda: client.create_evaluation_with_data(
            "peer with data", MODEL, wide(dataset_table), org_unit_geojson(), 3, 2
        ),
    )
    assert (report.dry_run, report.imported_count, report.rejected) == (False, 2, [])
    with_data = client.wait_for_job(report.id)
    assert with_data.result_id is not None

    listed = attempt("list_evaluations()", client.list_evaluations)
    assert second.id in [item.id for item in listed]
    got = attempt("get_evaluation(evaluation_id)", lambda: client.get_evaluation(second.id))
    assert got.split_periods == second.split_periods
    full = attempt(
        "get_evaluation_full(evaluation_id)", lambda: client.get_evaluation_full(second.id)
    )
    assert full.forecasts
    entries = attempt(
        "evaluation_entries(evaluation_id)", lambda: client.evaluation_entries(second.id)
    )
    frame = attempt("evaluation_frame(evaluation_id)", lambda: client.evaluation_frame(second.id))
    assert len(frame) == len(entries) > 0
    actual = attempt("actual_cases(evaluation_id)", lambda: client.actual_cases(second.id))
    assert set(actual["org_unit"]) == {"OU_North", "OU_South"}
    overlap = attempt(
        "evaluation_overlap(first_id, second_id)",
        lambda: client.evaluation_overlap(finished.result_id or 0, second.id),
    )
    assert set(overlap.org_units) == {"OU_North", "OU_South"}
    compatible = attempt(
        "compatible_evaluations(evaluation_id)", lambda: client.compatible_evaluations(second.id)
    )
    assert isinstance(compatible, list)
    assert attempt("metrics_csv(evaluation_id)", lambda: client.metrics_csv(second.id)).strip()
    every = attempt("metrics_csv()", client.metrics_csv)
    assert every is None or every.strip()
    renamed = attempt(
        "update_evaluation(evaluation_id, name)",
        lambda: client.update_evaluation(second.id, "peer every renamed"),
    )
    assert renamed.name == "peer every renamed"

    wait_for_pending_jobs(client)
    doomed = [finished.result_id, with_data.result_id] + ([row.id] if row is not None else [])
    first_doomed, *rest = [value for value in doomed if value is not None]
    attempt("delete_evaluation(evaluation_id)", lambda: client.delete_evaluation(first_doomed))
    assert (
        attempt("delete_evaluations(evaluation_ids)", lambda: client.delete_evaluations(rest))
        == rest
    )


# -- predictions -------------------------------------------------------------------------------


def test_predictions(
    client: ChapClient, peer_dataset: Dataset, dataset_table: pd.DataFrame, evaluation: Evaluation
) -> None:
    data = wide(dataset_table)
    job = attempt(
        "make_prediction_for_model(name, model, frame, n_periods, geojson)",
        lambda: client.make_prediction_for_model(
            "peer every forecast a", MODEL, data, 3, org_unit_geojson()
        ),
    )
    client.wait_for_job(job.id)
    detail = attempt("job_prediction_result(job_id)", lambda: client.job_prediction_result(job.id))
    prediction = attempt(
        "run_prediction(name, model, frame, n_periods, geojson)",
        lambda: client.run_prediction("peer every forecast b", MODEL, data, 3, org_unit_geojson()),
    )
    frame = client.prediction_frame(prediction.id)
    assert sorted(frame["period"].astype(str).unique()) == ["2023-01", "2023-02", "2023-03"]
    setups = attempt(
        "list_configured_models_with_data_source()",
        client.list_configured_models_with_data_source,
    )
    assert setups is None or isinstance(setups, list)
    made = attempt(
        "create_configured_model_with_data_source_from_evaluation(evaluation_id)",
        lambda: client.create_configured_model_with_data_source_from_evaluation(evaluation.id),
    )
    record_id = made.id if made is not None else 1
    attempt(
        "get_configured_model_with_data_source(configured_model_with_data_source_id)",
        lambda: client.get_configured_model_with_data_source(record_id),
    )
    submitted = attempt(
        "make_prediction(request)",
        lambda: client.make_prediction(
            {
                "name": "peer with data source",
                "configuredModelWithDataSourceId": record_id,
                "nPeriods": 3,
                "geojson": org_unit_geojson(),
                "providedData": frame_to_observations(data),
            }
        ),
    )
    if submitted is not None:
        client.wait_for_job(submitted.id)
    row = attempt(
        "create_prediction_row(name, dataset_id, configured_model_with_data_source_id)",
        lambda: client.create_prediction_row("peer prediction row", peer_dataset.id, record_id),
    )
    listed = attempt("list_predictions()", client.list_predictions)
    assert prediction.id in [item.id for item in listed]
    assert (
        attempt("get_prediction(prediction_id)", lambda: client.get_prediction(prediction.id)).id
        == prediction.id
    )
    entries = attempt(
        "prediction_entries(prediction_id)", lambda: client.prediction_entries(prediction.id)
    )
    as_frame = attempt(
        "prediction_frame(prediction_id)", lambda: client.prediction_frame(prediction.id)
    )
    assert len(entries) == len(as_frame) > 0
    one = attempt(
        "list_prediction_entries(prediction_id)",
        lambda: client.list_prediction_entries(prediction.id),
    )
    assert {entry.prediction_id for entry in one} == {prediction.id}
    every = attempt("list_prediction_entries()", client.list_prediction_entries)
    assert every is None or prediction.id in {entry.prediction_id for entry in every}
    doomed = [detail.id, prediction.id] + ([row.id] if row is not None else [])
    for prediction_id in doomed:
        attempt(
            "delete_prediction(prediction_id)", lambda i=prediction_id: client.delete_prediction(i)
        )
    assert not {item.id for item in client.list_predictions()} & set(doomed)


# -- prediction setups --------------------------------------------------------------------------


def test_prediction_setups(
    client: ChapClient, dataset_table: pd.DataFrame, evaluation: Evaluation
) -> None:
    listed = attempt("list_prediction_setups()", client.list_prediction_setups)
    assert listed is None or isinstance(listed, list)
    setup = attempt(
        "create_prediction_setup(evaluation_id, name)",
        lambda: client.create_prediction_setup(evaluation.id, "peer every setup"),
    )
    assert setup is None or setup.backtest_id == evaluation.id
    setup_id = setup.id if setup is not None else 1
    read = attempt("get_prediction_setup(setup_id)", lambda: client.get_prediction_setup(setup_id))
    assert read is None or read.name == "peer every setup"
    renamed = attempt(
        "update_prediction_setup(setup_id, name=)",
        lambda: client.update_prediction_setup(setup_id, name="peer every setup renamed"),
    )
    assert renamed is None or renamed.name == "peer every setup renamed"
    job = attempt(
        "run_prediction_setup(setup_id, name, observations, geojson)",
        lambda: client.run_prediction_setup(
            setup_id, "peer every setup run", wide(dataset_table), org_unit_geojson()
        ),
    )
    if job is not None:
        done = client.wait_for_job(job.id)
        history = client.get_prediction_setup(setup_id).predictions
        assert done.result_id in [prediction.id for prediction in history]
    attempt("delete_prediction_setup(setup_id)", lambda: client.delete_prediction_setup(setup_id))
    if setup is not None:
        assert setup_id not in [item.id for item in client.list_prediction_setups()]


# -- thresholds and alerts -----------------------------------------------------------------------


def test_thresholds_and_alerts(client: ChapClient, peer_dataset: Dataset) -> None:
    strategies = attempt("list_threshold_strategies()", client.list_threshold_strategies)
    assert strategies is None or "seasonal" in {strategy.id for strategy in strategies}
    thresholds = attempt(
        "compute_thresholds(dataset_id, periods)",
        lambda: client.compute_thresholds(peer_dataset.id, ["2023-01"]),
    )
    assert thresholds is None or {e.location for e in thresholds.entries} == {
        "OU_North",
        "OU_South",
    }
    levels = [AlertLevel(name="alert", threshold_params=SeasonalParams(), exceedance_threshold=0.8)]
    policy = attempt(
        "create_alert_policy(name, levels)",
        lambda: client.create_alert_policy("peer every policy", levels),
    )
    policy_id = policy.id if policy is not None else 1
    policies = attempt("list_alert_policies()", client.list_alert_policies)
    assert policies is None or policy_id in [item.id for item in policies]
    read = attempt("get_alert_policy(alert_policy_id)", lambda: client.get_alert_policy(policy_id))
    assert read is None or [level.name for level in read.levels] == ["alert"]
    alert = attempt(
        "create_alert(alert_policy_id, level, org_unit, time_period)",
        lambda: client.create_alert(policy_id, "alert", "OU_North", "202301"),
    )
    alert_id = alert.id if alert is not None else 1
    ids = attempt(
        "create_alerts(alerts)",
        lambda: client.create_alerts(
            [
                NewAlert(
                    alert_policy_id=policy_id,
                    level="alert",
                    org_unit="OU_South",
                    time_period="202301",
                )
            ]
        ),
    )
    other_id = ids[0] if ids else 2
    queue = attempt("alert_review_queue()", lambda: client.alert_review_queue(policy_id))
    assert queue is None or {alert_id, other_id} <= {item.id for item in queue}
    got = attempt("get_alert(alert_id)", lambda: client.get_alert(alert_id))
    assert got is None or got.approved == "pending"
    approved = attempt(
        "approve_alert(alert_ids, approved_by)",
        lambda: client.approve_alert(alert_id, "peer tests"),
    )
    assert approved is None or [item.approved for item in approved] == ["approved"]
    declined = attempt(
        "decline_alert(alert_ids, approved_by)",
        lambda: client.decline_alert(other_id, "peer tests"),
    )
    assert declined is None or [item.approved for item in declined] == ["declined"]
    listed = attempt(
        "list_alerts(alert_policy_id=)", lambda: client.list_alerts(alert_policy_id=policy_id)
    )
    assert listed is None or {item.id for item in listed} == {alert_id, other_id}
    attempt("delete_alert(alert_id)", lambda: client.delete_alert(other_id))
    if policy is not None:
        with pytest.raises(ConflictError):  # an approved alert stays on record, and its policy
            client.delete_alert(alert_id)
        with pytest.raises(ConflictError):
            client.delete_alert_policy(policy_id)
        unused = client.create_alert_policy("peer every unused policy", levels)
        policy_id = unused.id
    attempt("delete_alert_policy(alert_policy_id)", lambda: client.delete_alert_policy(policy_id))


# -- backtest specifications ------------------------------------------------------------------


def test_specifications(client: ChapClient, peer_dataset: Dataset) -> None:
    batch = attempt(
        "create_backtests(name, models, dataset_id)",
        lambda: client.create_backtests("peer every batch", [MODEL], peer_dataset.id, 3, 2),
    )
    ended = [client.wait_for_job(job.job_id) for job in batch.jobs]
    created = attempt("job_created_id(job)", lambda: client.job_created_id(ended[0]))
    assert created in [evaluation.id for evaluation in client.list_evaluations()]
    waited = attempt(
        "wait_for_baselines(specification_id)",
        lambda: client.wait_for_baselines(batch.specification_id, timeout=600),
    )
    assert all(ref.status != "pending" for ref in waited.baselines)
    detail = attempt(
        "run_backtests(name, models, dataset_id)",
        lambda: client.run_backtests("peer every run", [MODEL], peer_dataset.id, 3, 2, timeout=600),
    )
    assert detail.id == batch.specification_id
    listed = attempt(
        "list_backtest_specifications(dataset_id=)",
        lambda: client.list_backtest_specifications(dataset_id=peer_dataset.id),
    )
    assert batch.specification_id in [specification.id for specification in listed]
    read = attempt(
        "get_backtest_specification(specification_id)",
        lambda: client.get_backtest_specification(batch.specification_id),
    )
    assert {evaluation.model_id for evaluation in read.backtests} == {MODEL}
    tuned = attempt(
        "tune(template, dataset_id)",
        lambda: client.tune(MODEL, peer_dataset.id, None, 3, 2, timeout=600),
    )
    assert tuned.best in set(tuned.configurations["configuration"])


# -- jobs --------------------------------------------------------------------------------------


def test_jobs(client: ChapClient, peer_dataset: Dataset) -> None:
    job = client.create_evaluation("peer every job", MODEL, peer_dataset.id, 3, 2)
    status = attempt("job_status(job_id)", lambda: client.job_status(job.id))
    assert status in ("PENDING", "STARTED", "SUCCESS", "RUNNING")
    ended = attempt("wait_for_job(job_id)", lambda: client.wait_for_job(job.id))
    assert ended.succeeded and ended.result_id is not None  # the result, right after SUCCESS
    check_cancel(client, peer_dataset, queued=True)
    check_cancel(client, peer_dataset, queued=False)
    listed = attempt("list_jobs()", client.list_jobs)
    assert job.id in [item.id for item in listed]
    assert attempt("get_job(job_id)", lambda: client.get_job(job.id)).id == job.id
    assert isinstance(attempt("job_logs(job_id)", lambda: client.job_logs(job.id)), str)
    sent = attempt("job_request(job_id)", lambda: client.job_request(job.id))
    assert sent is None or {key: sent[key] for key in ("name", "datasetId", "nPeriods")} == {
        "name": "peer every job",
        "datasetId": peer_dataset.id,
        "nPeriods": 3,
    }

    done = client.run_evaluation("peer every result", MODEL, peer_dataset.id, 3, 2)
    [finished] = [
        item for item in client.list_jobs() if item.result_id == done.id and item.succeeded
    ][-1:]
    result = attempt("job_database_result(job_id)", lambda: client.job_database_result(finished.id))
    assert (result.id, result.result_type) == (done.id, "backtest")
    wait_for_pending_jobs(client)
    attempt("delete_job(job_id)", lambda: client.delete_job(finished.id))
    assert finished.id not in [item.id for item in client.list_jobs()]
    client.delete_evaluation(done.id)


def check_cancel(client: ChapClient, peer_dataset: Dataset, queued: bool) -> None:
    """Cancel a job that waits behind others (``queued``) or one that has started, and hold the
    answer to what the job then does: reported cancelled, it ends ``REVOKED`` and stores
    nothing; otherwise it may run on, and its end is what ``wait_for_job`` reports. A queued job
    is revoked on every server."""
    ahead = [
        client.create_evaluation(f"peer ahead {i}", MODEL, peer_dataset.id, 3, 2)
        for i in range(3 if queued else 0)
    ]
    job = client.create_evaluation("peer cancelled", MODEL, peer_dataset.id, 3, 12)
    wanted = "PENDING" if queued else "STARTED"
    status = client.job_status(job.id)
    while not queued and status == "PENDING":
        time.sleep(0.05)
        status = client.job_status(job.id)
    assert status == wanted, f"the job to cancel is {status}, not {wanted}"
    kind = "queued" if queued else "running"
    cancellation = attempt(f"cancel_job(job_id) of a {kind} job", lambda: client.cancel_job(job.id))
    assert cancellation.job_id == job.id
    if queued:
        assert cancellation.cancelled or cancellation.may_still_run, cancellation
    try:
        ended = client.wait_for_job(job.id)
    except JobFailedError as error:
        assert not queued or error.status == "REVOKED", error
        assert error.status == "REVOKED" or not cancellation.cancelled, (error, cancellation)
    else:
        assert not queued and not cancellation.cancelled, cancellation
        assert ended.result_id is not None  # it ran on, as the answer warned
        warned = "may still run" if cancellation.may_still_run else "not cancelled"
        assert warned in repr(cancellation), cancellation
        client.delete_evaluation(ended.result_id)
    for other in ahead:
        client.wait_for_job(other.id)


# -- server-drawn plots ------------------------------------------------------------------------


def test_plots(client: ChapClient, peer_dataset: Dataset, evaluation: Evaluation) -> None:
    """Every chart the server lists: each evaluation plot whole, by facet and one facet of
    it; each dataset plot; each metric plot with each metric."""
    names = attempt("list_evaluation_plots()", client.list_evaluation_plots)
    assert names
    for name in names:
        check_evaluation_plot(client, name, evaluation.id)
    dataset_names = attempt("list_dataset_plots()", client.list_dataset_plots)
    assert dataset_names
    for name in dataset_names:
        drawn = attempt(
            f"dataset_plot({name!r}, dataset_id)",
            lambda n=name: client.dataset_plot(n, peer_dataset.id),
        )
        assert drawn.data, name
    catalog = attempt(
        "list_metric_plots(evaluation_id)", lambda: client.list_metric_plots(evaluation.id)
    )
    assert catalog.visualizations and catalog.metrics
    for visualization in catalog.visualizations:
        for metric in catalog.metrics:
            chart = attempt(
                f"metric_plot({visualization!r}, evaluation_id, {metric!r})",
                lambda v=visualization, m=metric: client.metric_plot(v, evaluation.id, m),
            )
            assert chart.data, (visualization, metric)
    metrics = attempt(
        "evaluation_metrics(evaluation_id)", lambda: client.evaluation_metrics(evaluation.id)
    )
    assert metrics.aggregate and metrics.by_org_unit and metrics.by_horizon


def check_evaluation_plot(client: ChapClient, name: str, evaluation_id: int) -> None:
    """``name`` drawn whole, its facets (none, one or two dimensions), one facet of it and
    every facet."""
    plot = attempt(
        f"evaluation_plot({name!r}, evaluation_id)",
        lambda: client.evaluation_plot(name, evaluation_id),
    )
    assert isinstance(plot, ServerPlot) and plot.mime_type != "application/json" and plot.data
    facets = attempt(
        f"backtest_plot_facets({name!r}, evaluation_id)",
        lambda: client.backtest_plot_facets(name, evaluation_id),
    )
    if facets is not None:
        assert all(facets.values()), facets
        coordinates = {dimension: values[0] for dimension, values in facets.items()}
    else:
        coordinates = {"location": "OU_North"}
    if coordinates:  # a chart without facets (sample_bias_by_horizon) has none to choose
        facet = attempt(
            f"backtest_subplot({name!r}, evaluation_id, {sorted(coordinates)})",
            lambda: client.backtest_subplot(name, evaluation_id, coordinates),
        )
        assert facet is None or facet.spec
    every = attempt(
        f"backtest_subplots({name!r}, evaluation_id)",
        lambda: client.backtest_subplots(name, evaluation_id),
    )
    if every is not None:
        assert len(every) == math.prod(len(v) for v in (facets or {}).values())
        assert [len(item.key) for item in every] == [len(facets or {})] * len(every)


# -- model runners -----------------------------------------------------------------------------


def test_model_runners(client: ChapClient) -> None:
    info = {
        "id": "peer-runner",
        "display_name": "Peer runner",
        "model_metadata": {"author": "x"},
        "period_type": "monthly",
    }
    runner = attempt(
        "register_model_runner(url, info)",
        lambda: client.register_model_runner("http://127.0.0.1:9/", info),
    )
    listed = attempt("list_model_runners()", client.list_model_runners)
    assert runner.id in [item.id for item in listed]
    assert (
        attempt("get_model_runner(runner_id)", lambda: client.get_model_runner(runner.id)).url
        == runner.url
    )
    assert (
        attempt("ping_model_runner(runner_id)", lambda: client.ping_model_runner(runner.id)).id
        == runner.id
    )
    attempt("remove_model_runner(runner_id)", lambda: client.remove_model_runner(runner.id))
    assert runner.id not in [item.id for item in client.list_model_runners()]


def test_every_method_was_called() -> None:
    assert set(operations()) - set(RECORDED) == set()
