"""A real chapkit model service (``scaled_mean/service.py``, two Python functions, run in the
peer's Python 3.13 environment) registered with chaplab's own service and evaluated there, its
faults reported as the job's error, and a second instance of it registered with chap-core 2.5.1
giving the same forecasts. A chapkit service registers with one orchestrator, hence two."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, JobFailedError
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from panels import launched_evaluation, loaded_panel

from .chapkit_services import PRINTING_MEAN, running, scaled_mean
from .model_service import chapkit_executable, free_port
from .peer_data import DATASET_NAME, observation_table, org_unit_geojson

JOB_LIMIT = 600
"""How long a test waits for a job that a stopped model service makes fail (it ends by itself:
three failed polls)."""


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """chaplab's own service on loopback, with a new database."""
    database = tmp_path_factory.mktemp("ours") / "chaplab.db"
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("CHAPLAB_MODEL_SERVICE_REQUEST_SECONDS", "10")
        app = create_app(database, workers=2, seed_demo=False)
        with BackgroundServer(app, "127.0.0.1") as server:
            yield server.url


@pytest.fixture(scope="module")
def our_client(ours: str) -> Iterator[ChapClient]:
    with ChapClient(ours) as client:
        yield client


def wide_table() -> pd.DataFrame:
    """The peer tests' observations as a wide frame (``time_period``, ``location``, features)."""
    return observation_table().rename(columns={"org_unit": "location", "period": "time_period"})


@pytest.fixture(scope="module")
def our_dataset(our_client: ChapClient) -> Dataset:
    """The peer tests' dataset on our service."""
    return our_client.create_dataset(DATASET_NAME, wide_table(), geojson=org_unit_geojson())


@pytest.fixture(scope="module")
def on_ours(ours: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The scaled-mean service registered with chaplab's service; its id."""
    log = tmp_path_factory.mktemp("scaled-mean-ours") / "service.log"
    with scaled_mean(ours, "scaled-mean", log):
        yield "scaled-mean"


def means_before(split_period: pd.Period | None, scale: float) -> dict[str, float]:
    """Each org unit's mean of the dataset's cases before ``split_period`` (all: None)."""
    table = observation_table()
    if split_period is not None:
        table = table[table.period < split_period.strftime("%Y%m")]
    return (table.groupby("org_unit").disease_cases.mean() * scale).to_dict()


def test_a_chapkit_service_is_stored_configured_evaluated_and_forecast_on_our_service(
    our_client: ChapClient, our_dataset: Dataset, on_ours: str
) -> None:
    template = our_client.register_template_from_service(on_ours)
    assert (template.display_name, template.author, template.supported_period_type) == (
        "Scaled mean",
        "The chaplab tests",
        "month",
    )
    assert set(template.user_options) == {"scale", "training_seconds"}
    assert (template.author_assessed_status, template.health_status) == ("yellow", "live")
    model = our_client.create_configured_model("double", template.id, {"scale": 2.0})
    evaluation = our_client.run_evaluation("scaled mean", model.name, our_dataset.id, 3, 3)
    frame = our_client.evaluation_frame(evaluation.id, quantiles=[0.5])
    assert frame.split_period.nunique() == 3
    expected = means_before(frame.split_period.min(), 2.0)  # trained once, as chap-core does
    assert np.allclose(frame.value, [expected[place] for place in frame.org_unit])
    prediction = our_client.run_prediction(
        "scaled mean forecast", model.name, wide_table(), n_periods=2
    )
    forecast = our_client.prediction_frame(prediction.id, quantiles=[0.5])
    expected = means_before(None, 2.0)
    assert np.allclose(forecast.value, [expected[place] for place in forecast.org_unit])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_panel_evaluates_and_forecasts_a_chapkit_services_model(
    ours: str, our_client: ChapClient, our_dataset: Dataset, on_ours: str
) -> None:
    template = our_client.register_template_from_service(on_ours)
    model = our_client.create_configured_model("panel", template.id, {"scale": 3.0})
    async with loaded_panel(ours) as panel:
        labels = {value: label for label, value in panel.model_form.template.options}
        assert (
            labels[template.id] == f"{on_ours} (Scaled mean, by The chaplab tests; assessed yellow)"
        )
        panel.datasets.select(our_dataset.id)
        panel.models.select(model.id)
        evaluation_job = await launched_evaluation(
            panel, "scaled mean from the panel", n_splits=2, n_periods=2
        )
        assert len(panel.jobs.rows) == 1
        assert (evaluation_job.status, evaluation_job.error) == ("SUCCESS", None)
        frame = panel.frame
        assert frame.split_period.nunique() == 2
        median = frame[frame["quantile"] == 0.5]
        expected = means_before(median.split_period.min(), 3.0)
        assert np.allclose(median.value, [expected[place] for place in median.org_unit])
        assert bytes(panel.results.image.value).startswith(b"\x89PNG")

        panel.forecasts.button.click()
        await panel.wait_idle()
        forecast_job = next(row for row in panel.jobs.rows if row.kind == "forecast")
        assert (forecast_job.status, forecast_job.error) == ("SUCCESS", None)
        forecast = panel.forecasts.frame
        forecast = forecast[forecast["quantile"] == 0.5]
        expected = means_before(None, 3.0)
        assert np.allclose(forecast.value, [expected[place] for place in forecast.org_unit])
        assert bytes(panel.forecasts.image.value).startswith(b"\x89PNG")


def test_what_a_model_prints_reaches_the_jobs_log(
    our_client: ChapClient, ours: str, our_dataset: Dataset, tmp_path: Path
) -> None:
    """An MLproject run by ``chapkit run``: chapkit keeps its scripts' stdout and stderr."""
    port = free_port()
    command = [
        str(chapkit_executable()),
        "run",
        str(PRINTING_MEAN),
        "--port",
        str(port),
        "--register-url",
        f"{ours}/v2/services/$register",
        "--advertise-host",
        "127.0.0.1",
        "--keepalive-interval",
        "5",
        "--database",  # chapkit's in-memory store fails jobs run side by side
        str(tmp_path / "printing-mean.db"),
    ]
    with running(command, {}, ours, "printing-mean", port, tmp_path / "service.log"):
        template = our_client.register_template_from_service("printing-mean")
        model = our_client.create_configured_model("logged", template.id, {})
        job = our_client.create_evaluation("logged", model.name, our_dataset.id, 2, 2)
        our_client.wait_for_job(job.id)
    logs = our_client.job_logs(job.id)
    assert re.search(r"printing-mean train, split 1/2 \(\d{6}\) stdout: training on \d+ rows", logs)
    assert re.search(r"printing-mean train, split 1/2 \(\d{6}\) stderr: a warning on", logs)
    assert re.search(
        r"printing-mean predict, split 2/2 \(\d{6}\) stdout: predicted 4 rows", logs
    ), [line for line in logs.splitlines() if "predict" in line]


def failure(client: ChapClient, model: str, dataset: Dataset, n_periods: int) -> JobFailedError:
    """The error of an evaluation of ``model`` that fails (in two splits)."""
    job = client.create_evaluation("fails", model, dataset.id, n_periods, 2)
    with pytest.raises(JobFailedError) as raised:
        client.wait_for_job(job.id, timeout=JOB_LIMIT)
    return raised.value


def test_a_model_that_fails_fails_the_job_in_one_sentence_naming_the_service_and_step(
    our_client: ChapClient,
    our_dataset: Dataset,
    on_ours: str,
    peer_client: ChapClient,
    peer_url: str,
    peer_dataset: Dataset,
    tmp_path: Path,
) -> None:
    """The message is the model's exception with the service and the step, on both servers;
    the traceback stays in the error's details and the job's log."""
    template = our_client.register_template_from_service(on_ours)
    model = our_client.create_configured_model("negative", template.id, {"scale": -1.0})
    ours = failure(our_client, model.name, our_dataset, 2)
    assert re.fullmatch(
        r"model service 'scaled-mean' at http://127\.0\.0\.1:\d+, train, split 1/2 \(\d{6}\): "
        r"ValueError: scale must not be negative, got -1\.0",
        str(ours),
    )
    assert "fails" not in [evaluation.name for evaluation in our_client.list_evaluations()]
    with scaled_mean(peer_url, "scaled-mean-failing", tmp_path / "service.log") as service:
        theirs = peer_client.register_template_from_service("scaled-mean-failing")
        negative = peer_client.create_configured_model("negative", theirs.id, {"scale": -1.0})
        positive = peer_client.create_configured_model("positive", theirs.id, {"scale": 1.0})
        train = failure(peer_client, negative.name, peer_dataset, 2)
        predict = failure(peer_client, positive.name, peer_dataset, 24)  # at most 12
    where = f"model service 'scaled-mean-failing' at {service.url}"
    assert str(train) == f"{where}, train: ValueError: scale must not be negative, got -1.0"
    assert str(predict) == (
        f"{where}, predict: ValueError: prediction_periods (24, from run_info) exceeds the "
        "maximum allowed value (12)"
    )
    for failed in (ours, train, predict):
        assert "Traceback" in failed.details and "Traceback" not in str(failed)
    assert "Traceback" in peer_client.job_logs(predict.job_id)


def running_jobs(url: str) -> list[str]:
    """The jobs the model service at ``url`` runs now."""
    jobs = httpx.get(f"{url}/api/v1/jobs", timeout=30).json()
    return [job["id"] for job in jobs if job["status"] == "running"]


def test_a_service_that_stops_mid_job_fails_the_job(
    our_client: ChapClient, ours: str, our_dataset: Dataset, tmp_path: Path
) -> None:
    with scaled_mean(ours, "scaled-mean-stopping", tmp_path / "service.log") as service:
        template = our_client.register_template_from_service("scaled-mean-stopping")
        model = our_client.create_configured_model(
            "slow", template.id, {"scale": 1.0, "training_seconds": 60.0}
        )
        job = our_client.create_evaluation("stopped", model.name, our_dataset.id, 2, 2)
        deadline = time.monotonic() + JOB_LIMIT
        while not running_jobs(service.url):  # until it trains
            assert time.monotonic() < deadline, "the model service never began training"
            time.sleep(0.2)
        os.killpg(service.process.pid, signal.SIGKILL)
        service.process.wait(timeout=30)
    with pytest.raises(JobFailedError) as raised:
        our_client.wait_for_job(job.id, timeout=JOB_LIMIT)
    error = str(raised.value.error)
    assert "model service 'scaled-mean-stopping'" in error and "could not be reached" in error


def test_the_same_model_forecasts_the_same_on_chap_core_and_on_ours(
    our_client: ChapClient,
    our_dataset: Dataset,
    on_ours: str,
    peer_client: ChapClient,
    peer_url: str,
    peer_dataset: Dataset,
    tmp_path: Path,
) -> None:
    with scaled_mean(peer_url, "scaled-mean-peer", tmp_path / "service.log"):
        theirs = peer_client.register_template_from_service("scaled-mean-peer")
        their_model = peer_client.create_configured_model("triple", theirs.id, {"scale": 3.0})
        their_evaluation = peer_client.run_evaluation(
            "scaled mean on chap-core", their_model.name, peer_dataset.id, 3, 3, timeout=600
        )
    template = our_client.register_template_from_service(on_ours)
    our_model = our_client.create_configured_model("triple", template.id, {"scale": 3.0})
    our_evaluation = our_client.run_evaluation(
        "scaled mean on ours", our_model.name, our_dataset.id, 3, 3
    )
    columns = ["org_unit", "split_period", "period", "quantile", "value"]
    on_chap_core = peer_client.evaluation_frame(their_evaluation.id)[columns]
    on_ours_frame = our_client.evaluation_frame(our_evaluation.id)[columns]
    assert len(on_ours_frame) == len(on_chap_core) > 0
    pd.testing.assert_frame_equal(
        on_ours_frame.astype({"org_unit": str}).reset_index(drop=True),
        on_chap_core.astype({"org_unit": str}).reset_index(drop=True),
        check_exact=False,
        rtol=1e-6,
    )
