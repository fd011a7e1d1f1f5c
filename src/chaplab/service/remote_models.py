"""Configured models whose template runs on a model service: their backtests and forecasts,
made by the service (see :mod:`chaplab.service.model_services`) and stored as the worker stores
a built-in model's.

A backtest stores the configured model's options on the service as a config, then trains and
predicts there as chap-core 2.5.1 does (trained once by default, every split predicted from the
history before it), :data:`SPLITS_AT_ONCE` requests at a time (a chapkit service may still run
them one after another). The samples it answers are handed to
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
from chaplab.service.tables import (
    ConfiguredModelRow,
    ModelRunnerRow,
    utc_now,
)
from chaplab.vocabulary import BacktestPlan

SPLITS_AT_ONCE = 4
"""How many requests of a backtest a model service gets at the same time, unless
``$CHAPLAB_MODEL_SERVICE_SPLITS_AT_ONCE`` says otherwise."""
SPLITS_AT_ONCE_VARIABLE = "CHAPLAB_MODEL_SERVICE_SPLITS_AT_ONCE"
REQUEST_SECONDS_VARIABLE = "CHAPLAB_MODEL_SERVICE_REQUEST_SECONDS"
JOB_SECONDS_VARIABLE = "CHAPLAB_MODEL_SERVICE_JOB_SECONDS"


def _positive(variable: str, default: float) -> float:
    """A positive number (of seconds, or of requests) from the environment, else
    ``default``."""
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
        """The configured model's options stored on the service for the block; removed after
        (in the background, see :meth:`ModelService.delete_config`) once what the model printed
        in its runs is in the job's log."""
        config_id = self.service.create_config(
            f"{self.name}-{uuid.uuid4().hex[:8]}", self.options, self.additional_covariates
        )
        try:
            yield config_id
        finally:
            self.service.wait_for_output()
            self.service.delete_config(config_id)

    @property
    def features(self) -> list[str]:
        """The columns a train or predict request carries: the target, then the covariates."""
        return [self.template.target, *self.covariates]

    def backtest_template(
        self,
        panel: Panel,
        plan: BacktestPlan,
        weather: WeatherProvider,
        log: Log,
    ) -> tuple[ModelTemplateSpec, int]:
        """Every split of ``plan`` forecast on the service as chap-core 2.5.1 backtests: the
        model is trained at the plan's ``n_retrain`` evenly spaced splits (the first on the
        history before it) and each split is predicted by the latest one, from the history
        before the split. A template whose forecast of a split is what the service predicted,
        and the samples per cell."""
        windows = plan.split_windows(panel.periods)
        retrain_at = plan.retrain_splits()
        n_splits, n_periods = plan.n_splits, plan.n_periods
        at_once = min(max(1, int(_positive(SPLITS_AT_ONCE_VARIABLE, SPLITS_AT_ONCE))), n_splits)
        log(
            f"{n_splits} splits go to {self.service.describe()}, {at_once} at a time; "
            f"trained at split {', '.join(str(k + 1) for k in retrain_at)}"
        )
        features = self.features

        def split(k: int) -> str:
            return f"split {k + 1}/{n_splits} ({windows[k].split_period})"

        with (
            self.config() as config_id,
            cancelled_with_the_job(self.service),
            ThreadPoolExecutor(at_once, "chaplab-split") as pool,
        ):
            trained = self._all(
                pool,
                {
                    k: (
                        self.service.train,
                        config_id,
                        panel.head(windows[k].history_end),
                        n_periods,
                        features,
                        split(k),
                        log,
                    )
                    for k in retrain_at
                },
            )
            predicted = self._all(
                pool,
                {
                    k: (
                        self.service.predict,
                        trained[plan.training_of(k)],
                        panel.head(window.history_end),
                        n_periods,
                        features,
                        split(k),
                        log,
                        weather.future(panel, window.history_end, n_periods),
                    )
                    for k, window in enumerate(windows)
                },
            )
        counts = {samples.shape[-1] for samples in predicted.values()}
        if len(counts) != 1:
            raise ModelServiceError(
                f"{self.service.describe()} predicted different numbers of samples per split "
                f"({sorted(counts)}); every split needs the same"
            )
        by_history: dict[int, np.ndarray] = {
            windows[k].history_end: samples for k, samples in predicted.items()
        }

        def forecast(task: ForecastTask) -> np.ndarray:
            return by_history[task.history.n_periods]

        return dataclasses.replace(self.template, forecaster=forecast), counts.pop()

    def _all(self, pool: ThreadPoolExecutor, calls: dict[int, tuple[Any, ...]]) -> dict[int, Any]:
        """Each call ``(function, *arguments)`` run in ``pool``; their results by key. The first
        to fail, or the job's cancellation, cancels the service's jobs the others wait on, and
        is raised."""
        futures = {key: pool.submit(*call) for key, call in calls.items()}
        try:
            done, _ = wait(futures.values(), return_when=FIRST_EXCEPTION)
            failed = next((future for future in done if future.exception() is not None), None)
            if failed is not None:
                raise failed.exception()  # type: ignore[misc]
        except BaseException:  # a split failed, or the job was cancelled (SystemExit)
            self.service.cancel_running()
            for future in futures.values():
                future.cancel()
            wait(futures.values())
            raise
        return {key: future.result() for key, future in futures.items()}

    def forecast(self, panel: Panel, n_periods: int, log: Log) -> np.ndarray:
        """Train on all of ``panel`` and predict the ``n_periods`` after it on the service."""
        log(f"forecasting on {self.service.describe()}")
        with self.config() as config_id, cancelled_with_the_job(self.service):
            trained = self.service.train(
                config_id, panel, n_periods, self.features, "forecast", log
            )
            return self.service.predict(trained, panel, n_periods, self.features, "forecast", log)


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
            request_seconds=_positive(REQUEST_SECONDS_VARIABLE, REQUEST_SECONDS),
            job_seconds=_positive(JOB_SECONDS_VARIABLE, JOB_SECONDS),
        ),
    )


@contextmanager
def cancelled_with_the_job(service: ModelService) -> Iterator[None]:
    """While the block runs, a SIGTERM (how the job runner cancels a job) raises SystemExit in
    the main thread, and the code it interrupts cancels the service's jobs this process waits
    on as it unwinds (:meth:`RemoteModel._all`, :meth:`ModelService.run_job`). The handler
    itself takes no lock and makes no request: it runs between any two statements of the main
    thread, also while that thread holds the service's lock, which it would wait for forever.
    Only the main thread can handle signals; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
