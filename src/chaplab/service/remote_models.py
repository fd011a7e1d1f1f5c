"""Configured models whose template runs on a model service: their backtests and forecasts,
made by the service (see :mod:`chaplab.service.model_services`) and stored as the worker stores
a built-in model's.

A backtest stores the configured model's options on the service as a config, then trains and
predicts every split there, :data:`SPLITS_AT_ONCE` splits at a time (a chapkit service may still
run them one after another). The samples it answers are handed to
:func:`chaplab.service.forecasting.run_backtest` as the template's forecasts, so truth, scores
and storage are those of every other model. A failed split cancels the others; a cancelled job
(its worker is sent SIGTERM) cancels the service's jobs it waits on."""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from chaplab.service.forecasting import ModelTemplateSpec, Panel
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.service.forecasting.weather import WeatherProvider
from chaplab.service.model_services import (
    JOB_SECONDS,
    REQUEST_SECONDS,
    Log,
    ModelService,
    ModelServiceError,
)
from chaplab.service.registered_templates import newest_service_version, template_spec
from chaplab.service.tables import ConfiguredModelRow, ModelRunnerRow, utc_now
from chaplab.vocabulary import split_windows

SPLITS_AT_ONCE = 4
"""How many splits of a backtest are sent to a model service at the same time."""
REQUEST_SECONDS_VARIABLE = "CHAPLAB_MODEL_SERVICE_REQUEST_SECONDS"
JOB_SECONDS_VARIABLE = "CHAPLAB_MODEL_SERVICE_JOB_SECONDS"


def _seconds(variable: str, default: float) -> float:
    """A positive number of seconds from the environment, else ``default``."""
    try:
        value = float(os.environ.get(variable, ""))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass
class RemoteModel:
    """A configured model and the model service that runs its template."""

    name: str
    template: ModelTemplateSpec
    options: dict[str, Any]
    additional_covariates: list[str]
    service: ModelService

    @property
    def covariates(self) -> list[str]:
        """What the model reads besides its target: its own covariates, then additional ones."""
        return self.template.covariates(self.options, self.additional_covariates)

    @contextmanager
    def config(self) -> Iterator[str]:
        """The configured model's options stored on the service for the block; removed after."""
        config_id = self.service.create_config(
            f"{self.name}-{uuid.uuid4().hex[:8]}", self.options, self.additional_covariates
        )
        try:
            yield config_id
        finally:
            self.service.delete_config(config_id)

    def backtest_template(
        self,
        panel: Panel,
        n_periods: int,
        n_splits: int,
        stride: int,
        weather: WeatherProvider,
        log: Log,
    ) -> tuple[ModelTemplateSpec, int]:
        """Train and predict every split on the service; a template whose forecast of a split
        is the samples the service predicted for it, and their number per cell."""
        windows = split_windows(panel.periods, n_periods, n_splits, stride)
        log(
            f"{n_splits} splits go to {self.service.describe()}, "
            f"{min(SPLITS_AT_ONCE, n_splits)} at a time"
        )
        forecasts: dict[int, np.ndarray] = {}
        with self.config() as config_id, cancelled_with_the_job(self.service):
            pool = ThreadPoolExecutor(min(SPLITS_AT_ONCE, n_splits), "chaplab-split")
            try:
                futures = {
                    pool.submit(
                        self.service.forecast,
                        config_id,
                        panel.head(window.history_end),
                        n_periods,
                        self.covariates,
                        self.template.target,
                        f"split {k + 1}/{n_splits} ({window.split_period})",
                        log,
                        weather.future(panel, window.history_end, n_periods),
                    ): window.history_end
                    for k, window in enumerate(windows)
                }
                done, _ = wait(futures, return_when=FIRST_EXCEPTION)
                for future in done:
                    if future.exception() is not None:
                        self.service.cancel_running()
                        raise future.exception()  # type: ignore[misc]
                forecasts = {history: future.result() for future, history in futures.items()}
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        counts = {samples.shape[-1] for samples in forecasts.values()}
        if len(counts) != 1:
            raise ModelServiceError(
                f"{self.service.describe()} predicted different numbers of samples per split "
                f"({sorted(counts)}); every split needs the same"
            )

        def predicted(task: ForecastTask) -> np.ndarray:
            return forecasts[task.history.n_periods]

        return dataclasses.replace(self.template, forecaster=predicted), counts.pop()

    def forecast(self, panel: Panel, n_periods: int, log: Log) -> np.ndarray:
        """Train on all of ``panel`` and predict the ``n_periods`` after it on the service."""
        log(f"forecasting on {self.service.describe()}")
        with self.config() as config_id, cancelled_with_the_job(self.service):
            return self.service.forecast(
                config_id,
                panel,
                n_periods,
                self.covariates,
                self.template.target,
                "forecast",
                log,
            )


def remote_model(session: Session, model: ConfiguredModelRow) -> RemoteModel | None:
    """The configured model as run by its template's model service; None for a template
    this service runs itself. ModelServiceError when that service is not registered now."""
    version = newest_service_version(session, model.template.id)
    if version is None:
        return None
    service = session.get(ModelRunnerRow, version.service_id)
    if service is None or service.expires_at <= utc_now():
        raise ModelServiceError(
            f"model service {version.service_id!r}, which runs {model.template.name!r}, is not "
            "registered now: start it (it registers itself) and run the job again"
        )
    return RemoteModel(
        name=model.name,
        template=template_spec(model.template),
        options=dict(model.user_option_values),
        additional_covariates=list(model.additional_continuous_covariates),
        service=ModelService(
            service.id,
            service.url,
            request_seconds=_seconds(REQUEST_SECONDS_VARIABLE, REQUEST_SECONDS),
            job_seconds=_seconds(JOB_SECONDS_VARIABLE, JOB_SECONDS),
        ),
    )


@contextmanager
def cancelled_with_the_job(service: ModelService) -> Iterator[None]:
    """While the block runs, a SIGTERM (how the job runner cancels a job) first cancels the
    service's jobs this process waits on. Only the main thread can handle signals; elsewhere
    the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def cancel(signum: int, frame: FrameType | None) -> None:
        service.cancel_running()
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, cancel)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
