"""Models from model services: a template stored from a registered service, configured,
evaluated and used for a forecast on it, and every way a model service can fail a job.

The model service is the stand-in of ``model_service_stand_in.py`` (real chapkit services run in
tests/peer). The service under test is this module's own, started with short limits on the
model service's answers and jobs, which its workers read when they start."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from multiprocessing import forkserver
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest

from chaplab.client import (
    ChapClient,
    ConflictError,
    Dataset,
    JobFailedError,
    NotFoundError,
    UnprocessableEntityError,
)
from chaplab.service import create_app, job_runner
from chaplab.toolkit import BackgroundServer

from .helpers import geojson_for, small_frame
from .model_service_stand_in import StandIn, registered_stand_in

pytestmark = pytest.mark.integration

REQUEST_SECONDS = 10
JOB_SECONDS = 4
JOB_LIMIT = 120
"""How long a test waits for a job: a job facing a failing model service ends by itself (the
limits above bound each step); on a loaded machine that can take long. Well below pytest's
timeout, so a job that never ends fails its test with a JobTimeoutError naming the job."""


@pytest.fixture(scope="module")
def own_service(
    new_database_url: Callable[[str], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    # the workers' fork server starts before these settings are set, as when an earlier service
    # in the same process started it: the workers still use this service's settings
    job_runner.worker_context()
    forkserver.ensure_running()
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("CHAPLAB_MODEL_SERVICE_REQUEST_SECONDS", str(REQUEST_SECONDS))
        environment.setenv("CHAPLAB_MODEL_SERVICE_JOB_SECONDS", str(JOB_SECONDS))
        app = create_app(new_database_url("model_services"), workers=2, seed_demo=False)
        with BackgroundServer(app, "127.0.0.1") as server:
            yield server.url


@pytest.fixture(scope="module")
def chap(own_service: str) -> Iterator[ChapClient]:
    with ChapClient(own_service) as client:
        yield client


@pytest.fixture(scope="module")
def dataset(chap: ChapClient) -> Dataset:
    frame = small_frame(n_years=2)
    return chap.create_dataset("places", frame, geojson=geojson_for(sorted(set(frame.location))))


@pytest.fixture
def stand_in(own_service: str, unique: str) -> Iterator[tuple[StandIn, str]]:
    """A registered stand-in of its own (id ``scaled-mean-<unique>``) and its URL."""
    model = StandIn(f"scaled-mean-{unique}")
    with registered_stand_in(own_service, model) as url:
        yield model, url


def configured(chap: ChapClient, service_id: str, options: dict[str, Any] | None = None) -> str:
    """The configured model ``<service>:<options>`` of the service's template; its name."""
    template = chap.register_template_from_service(service_id)
    return chap.create_configured_model("scaled", template.id, options or {}).name


def test_a_services_template_is_stored_once_retired_and_shown_again(
    chap: ChapClient, own_service: str, stand_in: tuple[StandIn, str]
) -> None:
    model, url = stand_in
    listed = {template.name: template for template in chap.list_model_templates()}
    stored = listed[model.service_id]  # stored when it registered, as 2.5.1 does
    template = chap.register_template_from_service(model.service_id, role="comparison")
    assert template.id == stored.id and template.role == "comparison"
    assert template == {t.id: t for t in chap.list_model_templates()}[template.id]
    assert (template.display_name, template.author, template.supported_period_type) == (
        "Scaled mean",
        "The chaplab tests",
        "month",
    )
    assert template.uses_chapkit and template.version == "1.0.0"
    assert set(template.user_options) == {"scale"}  # the run's own options are not the user's
    assert (template.author_assessed_status, template.health_status) == ("yellow", "live")
    assert (template.min_prediction_periods, template.max_prediction_periods) == (1, 6)
    assert template.source_digest == model.revision
    name = chap.create_configured_model("twice", template.id, {"scale": 2.0}).name
    chap.delete_model_template(template.id)
    assert {t.id: t for t in chap.list_model_templates()}[template.id].archived
    assert name not in [m.name for m in chap.list_configured_models()]
    assert not chap.register_template_from_service(model.service_id).archived


def test_a_model_whose_service_is_no_longer_registered_is_marked(
    chap: ChapClient, stand_in: tuple[StandIn, str]
) -> None:
    model, _ = stand_in
    name = configured(chap, model.service_id)
    assert not {m.name: m for m in chap.list_configured_models()}[name].service_missing
    chap.remove_model_runner(model.service_id)
    gone = {m.name: m for m in chap.list_configured_models()}[name]
    assert (gone.uses_chapkit, gone.health_status, gone.service_missing) == (True, None, True)


def test_a_version_is_written_once_with_its_revision(
    chap: ChapClient, own_service: str, stand_in: tuple[StandIn, str]
) -> None:
    model, url = stand_in
    model.revision = "fedcba9876543210fedcba9876543210fedcba98"
    info = model.info()
    httpx.post(f"{own_service}/v2/services/$register", json={"url": url, "info": info})
    with pytest.raises(ConflictError, match="write-once"):
        chap.register_template_from_service(model.service_id)
    model.version = "1.1.0"
    httpx.post(f"{own_service}/v2/services/$register", json={"url": url, "info": model.info()})
    assert chap.register_template_from_service(model.service_id).version == "1.1.0"
    with pytest.raises(NotFoundError):
        chap.register_template_from_service("no-such-service")


def test_a_service_without_a_revision_or_with_a_builtin_name_is_refused(
    chap: ChapClient, own_service: str, unique: str
) -> None:
    unrevised = StandIn(f"unrevised-{unique}", revision=None)
    with (
        registered_stand_in(own_service, unrevised),
        pytest.raises(ConflictError, match="GIT_REVISION"),
    ):
        chap.register_template_from_service(unrevised.service_id)
    with (
        registered_stand_in(own_service, StandIn("naive_model")),
        pytest.raises(ConflictError, match="built-in"),
    ):
        chap.register_template_from_service("naive_model")


def expected_means(frame: pd.DataFrame, before: str, scale: float) -> dict[str, float]:
    """Each place's mean of disease_cases before ``before`` (a canonical period), times scale."""
    history = frame[frame.time_period.astype(str) < before]
    return {
        place: scale * value
        for place, value in history.groupby("location").disease_cases.mean().items()
    }


def test_an_evaluation_runs_every_split_on_the_service_with_the_models_options(
    chap: ChapClient, dataset: Dataset, stand_in: tuple[StandIn, str]
) -> None:
    model, url = stand_in
    name = configured(chap, model.service_id, {"scale": 2.0})
    evaluation = chap.run_evaluation("on the service", name, dataset.id, 2, 3, timeout=JOB_LIMIT)
    assert [data["scale"] for data in model.sent_configs] == [2.0]
    frame = chap.evaluation_frame(evaluation.id, quantiles=[0.5])
    data = small_frame(n_years=2)
    assert frame.split_period.nunique() == 3
    first = frame.split_period.min().strftime("%Y%m")
    means = expected_means(data, first, 2.0)  # trained once, before the first split (as 2.5.1)
    # the two samples are 1 and the mean: their median is halfway
    assert np.allclose(frame.value, [(1 + means[place]) / 2 for place in frame.org_unit])
    assert len(model.jobs) == 4  # one train job, a predict job per split
    deadline = time.monotonic() + JOB_LIMIT
    while model.configs:  # the config is removed after the evaluation, in the background
        assert time.monotonic() < deadline, "the evaluation's config was never removed"
        time.sleep(0.05)


def test_the_services_output_reaches_the_jobs_log(
    chap: ChapClient, dataset: Dataset, stand_in: tuple[StandIn, str]
) -> None:
    model, _ = stand_in
    name = configured(chap, model.service_id)
    job = chap.create_evaluation("logged", name, dataset.id, 2, 2)
    chap.wait_for_job(job.id, timeout=JOB_LIMIT)
    logs = chap.job_logs(job.id)
    assert f"{model.service_id} train, split 1/2" in logs and "stdout: trained on" in logs


def test_a_forecast_runs_on_the_service(chap: ChapClient, stand_in: tuple[StandIn, str]) -> None:
    model, _ = stand_in
    name = configured(chap, model.service_id, {"scale": 3.0})
    data = small_frame(n_years=2)
    prediction = chap.run_prediction(
        "forecast on the service", name, data, n_periods=2, timeout=JOB_LIMIT
    )
    frame = chap.prediction_frame(prediction.id, quantiles=[0.5])
    means = expected_means(data, "999999", 3.0)
    assert np.allclose(frame.value, [(1 + means[place]) / 2 for place in frame.org_unit])
    assert len(frame) == 2 * len(means)


def test_a_setup_promoted_from_an_evaluation_on_the_service_says_a_service_runs_its_model(
    chap: ChapClient, own_service: str, dataset: Dataset, stand_in: tuple[StandIn, str]
) -> None:
    model, _ = stand_in
    name = configured(chap, model.service_id)
    evaluation = chap.run_evaluation("to promote", name, dataset.id, 2, 2, timeout=JOB_LIMIT)
    setup = chap.create_prediction_setup(evaluation.id, "served setup")
    data = small_frame(n_years=2)
    job = chap.run_prediction_setup(
        setup.id, "served run", data, geojson_for(sorted(set(data.location))), n_periods=2
    )
    chap.wait_for_job(job.id, timeout=JOB_LIMIT)
    answer = httpx.get(f"{own_service}/v1/crud/prediction-setups/{setup.id}").json()
    [prediction] = answer["predictions"]
    assert prediction["configuredModel"]["usesChapkit"] is True


def test_a_horizon_beyond_the_services_bounds_is_refused_at_submission(
    chap: ChapClient, dataset: Dataset, stand_in: tuple[StandIn, str]
) -> None:
    model, _ = stand_in  # it forecasts 1 to 6 periods at a time
    n_periods = 7
    name = configured(chap, model.service_id)
    jobs = {job.id for job in chap.list_jobs()}
    with pytest.raises(UnprocessableEntityError) as evaluation:
        chap.create_evaluation("too far", name, dataset.id, n_periods, 2)
    with pytest.raises(UnprocessableEntityError) as prediction:
        chap.make_prediction_for_model("too far", name, small_frame(n_years=2), n_periods)
    for refused in (evaluation, prediction):  # the client names the field as its argument
        assert (
            f"n_periods: model {model.service_id!r} forecasts from 1 to 6 periods at a time, "
            f"n_periods is {n_periods}"
        ) in str(refused.value)
    assert {job.id for job in chap.list_jobs()} == jobs  # nothing queued
    assert model.jobs == {} and model.sent_configs == []  # nor sent to the service


def failure(chap: ChapClient, name: str, dataset: Dataset) -> str:
    """The message of the error of an evaluation of ``name`` that fails (one sentence, the
    traceback in its details); checks nothing was stored."""
    before = {evaluation.id for evaluation in chap.list_evaluations()}
    job = chap.create_evaluation(f"fails {name}", name, dataset.id, 2, 3)
    with pytest.raises(JobFailedError) as raised:
        chap.wait_for_job(job.id, timeout=JOB_LIMIT)
    assert {evaluation.id for evaluation in chap.list_evaluations()} == before
    message = str(raised.value)
    assert "\n" not in message and str(raised.value.error) in raised.value.details
    return message


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("error", "answered 500 to POST /api/v1/ml/$train (train, split"),
        ("fail", "train, split"),
        ("malformed", "predicted malformed samples (predict, split"),
        ("hold", f"did not finish within {JOB_SECONDS} s"),
    ],
)
def test_a_service_that_fails_fails_the_job_naming_it_the_step_and_its_answer(
    chap: ChapClient,
    dataset: Dataset,
    stand_in: tuple[StandIn, str],
    mode: str,
    expected: str,
) -> None:
    model, url = stand_in
    name = configured(chap, model.service_id)
    model.mode = mode  # type: ignore[assignment]
    error = failure(chap, name, dataset)
    assert f"model service {model.service_id!r} at {url}" in error and expected in error
    if mode == "fail":
        assert re.fullmatch(
            re.escape(f"model service {model.service_id!r} at {url}, train, split 1/3 (")
            + r"\d{6}\): ValueError: the stand-in's model broke",
            error,
        )
    if mode == "hold":
        assert model.cancelled  # the jobs it gave up on are cancelled on the service


def test_a_service_that_is_down_or_gone_mid_job_fails_the_job_in_bounded_time(
    chap: ChapClient, own_service: str, dataset: Dataset, unique: str
) -> None:
    model = StandIn(f"vanishing-{unique}", mode="hold")
    with registered_stand_in(own_service, model) as url:
        name = configured(chap, model.service_id)
        job = chap.create_evaluation("vanishes", name, dataset.id, 2, 2)
        assert model.submitted.wait(JOB_LIMIT)
    with pytest.raises(JobFailedError) as raised:  # the stand-in stopped mid-job
        chap.wait_for_job(job.id, timeout=JOB_LIMIT)
    assert f"model service {model.service_id!r} at {url} could not be reached" in str(
        raised.value.error
    )
    error = failure(chap, name, dataset)  # still registered, nothing answers at its URL
    assert "could not be reached (storing the configuration" in error


def test_a_cancelled_job_cancels_the_services_jobs(
    chap: ChapClient, dataset: Dataset, stand_in: tuple[StandIn, str]
) -> None:
    model, _ = stand_in
    name = configured(chap, model.service_id)
    model.mode = "hold"
    job = chap.create_evaluation("cancelled", name, dataset.id, 2, 2)
    assert model.submitted.wait(JOB_LIMIT)  # its train job runs on the service
    chap.cancel_job(job.id)
    deadline = time.monotonic() + JOB_LIMIT
    while not model.cancelled:
        assert time.monotonic() < deadline, "the service's job was never cancelled"
        time.sleep(0.1)
    assert set(model.cancelled) == {
        job_id for job_id, record in model.jobs.items() if record["status"] == "canceled"
    }
    assert model.cancelled
