"""Talking to a model service (a chapkit service registered at ``/v2/services``) over its REST
API, with httpx and pydantic models of our own: chapkit needs Python 3.13, chaplab runs on 3.11.

A forecast on a service is: store the configured model's options as a config
(``POST /api/v1/configs``), train on the history (``POST /api/v1/ml/$train``), predict the
future periods (``POST /api/v1/ml/$predict``), each a job of the service polled at
``/api/v1/jobs/{id}``, then read the predicted samples from the prediction's artifact
(``/api/v1/artifacts/{id}``), as chap-core 2.5.1's ``chapkit_rest_api_wrapper`` does. Every
failure is a :class:`ModelServiceError` naming the service (id and URL), the step and what the
service answered; what the model printed reaches the job's log."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, TypeVar

import httpcore  # noqa: F401 - imported here so the workers' fork server preloads it (below)
import httpx
import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from chaplab.climatology import future_values
from chaplab.service.forecasting import Panel
from chaplab.vocabulary import canonical_period, season_position

RESERVED_OPTIONS = ("prediction_periods", "additional_continuous_covariates")
"""Options of a chapkit config that the service fills from the run itself, not user options."""
REQUEST_SECONDS = 30.0
"""How long one request to a model service may take (connecting, sending, answering)."""
JOB_SECONDS = 3600.0
"""How long one train or predict job of a model service may run before the forecast fails."""
POLL_SECONDS = (0.02, 0.5)
"""The shortest and the longest wait between two polls of a job."""
POLL_FRACTION = 0.2
"""Between these, each wait is this fraction of the time since the job was submitted: a job
that ends is noticed at most a fifth of its time late (a short one at once), and a long one
is asked about a few times a second, not hammered."""
MAX_POLL_ERRORS = 3
"""Failed polls of a job in a row after which the service counts as gone."""

Log = Callable[[str], None]


class ModelServiceError(RuntimeError):
    """A model service failed a step: its id and URL, the step and what it answered."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


AnswerT = TypeVar("AnswerT", bound=BaseModel)


class ConfigOut(_Answer):
    id: str
    data: dict[str, Any]


class Submitted(_Answer):
    job_id: str
    artifact_id: str


class JobRecord(_Answer):
    id: str
    status: str
    error: str | None = None


class Artifact(_Answer):
    id: str
    data: dict[str, Any]


class Table(_Answer):
    """A data frame as chapkit sends it: column names and rows."""

    columns: list[str]
    data: list[list[Any]]


def user_options(config_schema: dict[str, Any]) -> dict[str, Any]:
    """The user options of a chapkit config schema: its properties (or those of
    ``$defs.ModelConfiguration``, as older services nest them) without the reserved ones."""
    definitions = config_schema.get("$defs", {})
    source = definitions.get("ModelConfiguration", config_schema)
    properties = source.get("properties", {}) if isinstance(source, dict) else {}
    return {
        name: value
        for name, value in properties.items()
        if name not in RESERVED_OPTIONS and isinstance(value, dict)
    }


def dashed_period(period: str) -> str:
    """A canonical period as chap-core sends it to a model service: ``2024-07``, ``2024-W05``."""
    return f"{period[:4]}-{period[4:]}"


@dataclass
class ModelService:
    """One model service's REST API; ``transport`` replaces the network in unit tests."""

    service_id: str
    url: str
    request_seconds: float = REQUEST_SECONDS
    job_seconds: float = JOB_SECONDS
    transport: httpx.BaseTransport | None = None

    def __post_init__(self) -> None:
        # A job's worker makes one of these, and httpx's first client in a process costs it
        # 50-100 ms of CPU (far more at nice 10 on a busy machine): it imports httpcore (this
        # module does that once in the fork server the workers come from) and loads the
        # certificate bundle, which a plain-HTTP service (on loopback, usually) never uses.
        self._http = httpx.Client(
            base_url=self.url,
            timeout=self.request_seconds,
            transport=self.transport,
            verify=self.url.startswith("https:"),
        )
        self._running: set[str] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._reading_output: list[threading.Thread] = []

    def close(self) -> None:
        self._http.close()

    def describe(self) -> str:
        return f"model service {self.service_id!r} at {self.url}"

    # -- requests ----------------------------------------------------------------------------

    def _call(self, step: str, method: str, path: str, **kwargs: Any) -> Any:
        """The JSON answer of one request; ModelServiceError naming the step otherwise."""
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TimeoutException:
            raise ModelServiceError(
                f"{self.describe()} did not answer {method} {path} within "
                f"{self.request_seconds:g} s ({step})"
            ) from None
        except httpx.HTTPError as error:
            raise ModelServiceError(
                f"{self.describe()} could not be reached ({step}, {method} {path}): {error}"
            ) from None
        if response.status_code >= 400:
            raise ModelServiceError(
                f"{self.describe()} answered {response.status_code} to {method} {path} "
                f"({step}): {_error_text(response)}"
            )
        try:
            return response.json() if response.content else None
        except ValueError:
            raise ModelServiceError(
                f"{self.describe()} answered {method} {path} ({step}) with something that is "
                f"not JSON: {response.text[:200]!r}"
            ) from None

    def _parse(self, model: type[AnswerT], answer: Any, step: str) -> AnswerT:
        try:
            return model.model_validate(answer)
        except ValidationError as error:
            raise ModelServiceError(
                f"{self.describe()} answered {step} with an unexpected shape: "
                f"{error.errors()[0]['msg']} at {error.errors()[0]['loc']}"
            ) from None

    def info(self) -> dict[str, Any]:
        """``GET /api/v1/info``: what the service says about itself."""
        answer = self._call("reading its info", "GET", "/api/v1/info")
        if not isinstance(answer, dict):
            raise ModelServiceError(f"{self.describe()} answered its info with {answer!r}")
        return answer

    def config_schema(self) -> dict[str, Any]:
        """``GET /api/v1/configs/$schema``: the JSON schema of its configuration."""
        answer = self._call("reading its config schema", "GET", "/api/v1/configs/$schema")
        if not isinstance(answer, dict):
            raise ModelServiceError(f"{self.describe()} answered its config schema with {answer!r}")
        return answer

    def create_config(
        self, name: str, options: dict[str, Any], additional_covariates: Sequence[str]
    ) -> str:
        """Store a configured model's options (and its additional covariates) as a config;
        its id. A service that stores other values than it was sent would run another model,
        so that is an error naming the options."""
        sent = {**options, "additional_continuous_covariates": list(additional_covariates)}
        step = "storing the configuration"
        body = {"name": name, "data": sent}
        stored = self._parse(
            ConfigOut, self._call(step, "POST", "/api/v1/configs", json=body), step
        )
        changed = [key for key, value in sent.items() if stored.data.get(key) != value]
        if changed:
            raise ModelServiceError(
                f"{self.describe()} stored other values than it was sent for "
                + ", ".join(
                    f"{key} (sent {sent[key]!r}, stored {stored.data.get(key)!r})"
                    for key in changed
                )
            )
        return stored.id

    def delete_config(self, config_id: str) -> None:
        """Remove a config the forecast stored, in a thread of its own: the job's result does
        not wait for it (chapkit deletes the artifacts of the config's runs with it, 30-150 ms
        on a busy machine). The thread is not a daemon, so a worker process that ends waits
        for it; a failure is no reason to fail the job."""

        def delete() -> None:
            with suppress(httpx.HTTPError):
                self._http.delete(f"/api/v1/configs/{config_id}", timeout=5.0)

        threading.Thread(target=delete, name="chaplab-delete-config").start()

    def cancel_running(self) -> None:
        """Cancel every job of this service that a forecast here waits on (``DELETE
        /api/v1/jobs/{id}``), as when the job waiting on them is cancelled, and submit no
        more."""
        with self._lock:
            self._stopped.set()
            running = list(self._running)
        for job_id in running:
            self._cancel(job_id)

    def _cancel(self, job_id: str) -> None:
        """``DELETE /api/v1/jobs/{id}``; a service that does not answer is not waited for."""
        with suppress(httpx.HTTPError):
            self._http.delete(f"/api/v1/jobs/{job_id}", timeout=5.0)

    # -- jobs --------------------------------------------------------------------------------

    def run_job(self, step: str, path: str, body: dict[str, Any], log: Log) -> str:
        """Submit a train or predict job, wait for it to complete; the id of the job's artifact.
        What the model printed goes to ``log``: before the error of a job that did not
        complete, else read in the background (a backtest's predictions need not wait for the
        training's output), by the time :meth:`wait_for_output` returns."""
        self._check_not_stopped(step)
        submitted = self._parse(Submitted, self._call(step, "POST", path, json=body), step)
        with self._tracked(submitted.job_id):
            try:
                self._check_not_stopped(step)
                record = self._wait(submitted.job_id, step)
            except BaseException:  # given up on, or the job cancelled: the service stops it
                self._cancel(submitted.job_id)
                raise
        if record.status != "completed":
            self._log_output(submitted.artifact_id, step, log)
            raise ModelServiceError(
                f"{self.describe()}: its {step} job {record.id} ended {record.status}: "
                f"{record.error or 'no error given'}"
            )
        reading = threading.Thread(
            target=self._log_output,
            args=(submitted.artifact_id, step, log),
            name="chaplab-model-output",
        )
        with self._lock:
            self._reading_output.append(reading)
        reading.start()
        return submitted.artifact_id

    def wait_for_output(self) -> None:
        """Wait until what the model printed in the jobs that completed is in the log (before
        the config, whose runs' artifacts keep it, is deleted)."""
        with self._lock:
            reading, self._reading_output = self._reading_output, []
        for thread in reading:
            thread.join()

    def _check_not_stopped(self, step: str) -> None:
        if self._stopped.is_set():
            raise ModelServiceError(f"{self.describe()}: {step} not run, the forecast was stopped")

    @contextmanager
    def _tracked(self, job_id: str) -> Iterator[None]:
        with self._lock:
            self._running.add(job_id)
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(job_id)

    def _wait(self, job_id: str, step: str) -> JobRecord:
        submitted = time.monotonic()
        deadline = submitted + self.job_seconds
        errors = 0
        while True:
            try:
                record = self._parse(
                    JobRecord, self._call(step, "GET", f"/api/v1/jobs/{job_id}"), step
                )
            except ModelServiceError:
                errors += 1
                if errors >= MAX_POLL_ERRORS:
                    raise
            else:
                errors = 0
                if record.status in ("completed", "failed", "canceled"):
                    return record
            now = time.monotonic()
            pause = min(max(POLL_FRACTION * (now - submitted), POLL_SECONDS[0]), POLL_SECONDS[1])
            if now + pause > deadline:
                raise ModelServiceError(
                    f"{self.describe()}: its {step} job {job_id} did not finish within "
                    f"{self.job_seconds:g} s"
                )
            time.sleep(pause)

    def _log_output(self, artifact_id: str, step: str, log: Log) -> None:
        """The model's stdout and stderr of a run, line by line, as the service kept them on
        the run's artifact and the artifacts under it (chapkit 2.4 keeps a prediction's on
        its workspace, a child of the prediction's artifact)."""
        path = f"/api/v1/artifacts/{artifact_id}"
        try:
            answer = self._http.get(f"{path}/$tree")
            if not answer.is_success:  # a service without artifact trees
                answer = self._http.get(path)
            nodes = [answer.json()] if answer.is_success else []
        except (httpx.HTTPError, ValueError):
            return
        while nodes:
            node = nodes.pop(0)
            if not isinstance(node, dict):
                continue
            data = node.get("data")
            metadata = data.get("metadata") if isinstance(data, dict) else None
            for stream in ("stdout", "stderr"):
                text = metadata.get(stream) if isinstance(metadata, dict) else None
                for line in (text if isinstance(text, str) else "").splitlines():
                    log(f"{self.service_id} {step} {stream}: {line}")
            children = node.get("children")
            nodes.extend(children if isinstance(children, list) else [])

    def predicted_table(self, artifact_id: str, step: str) -> Table:
        """The predicted samples a predict job stored on its artifact."""
        artifact = self._parse(
            Artifact, self._call(step, "GET", f"/api/v1/artifacts/{artifact_id}"), step
        )
        content = artifact.data.get("content")
        return self._parse(Table, content, f"{step} (its predictions)")

    # -- a forecast --------------------------------------------------------------------------

    def train(
        self,
        config_id: str,
        history: Panel,
        n_periods: int,
        features: Sequence[str],
        step: str,
        log: Log,
    ) -> str:
        """Train the config on ``history`` (its ``features``: the target, then covariates) for
        a horizon of ``n_periods``; the id of the trained model's artifact."""
        return self.run_job(
            f"train, {step}",
            "/api/v1/ml/$train",
            {
                "config_id": config_id,
                "data": history_table(history, features),
                "run_info": _run_info(n_periods),
            },
            log,
        )

    def predict(
        self,
        trained: str,
        history: Panel,
        n_periods: int,
        features: Sequence[str],
        step: str,
        log: Log,
        future: Panel | None = None,
    ) -> np.ndarray:
        """Predict the ``n_periods`` after ``history`` with the trained model ``trained``:
        samples of shape (org units, periods, samples), sorted along the samples. ``future``
        holds the covariates of those periods (None: each org unit's climatology)."""
        predicted = self.run_job(
            f"predict, {step}",
            "/api/v1/ml/$predict",
            {
                "artifact_id": trained,
                "historic": history_table(history, features),
                "future": future_covariates(history, n_periods, features[1:], future),
                "run_info": _run_info(n_periods),
            },
            log,
        )
        table = self.predicted_table(predicted, f"predict, {step}")
        try:
            return samples_of(table, history.org_units, history.periods_after(n_periods))
        except ValueError as error:
            raise ModelServiceError(
                f"{self.describe()} predicted malformed samples (predict, {step}): {error}"
            ) from None


def _run_info(n_periods: int) -> dict[str, Any]:
    """What a train or predict request says about the run (chap-core's ``RunInfo``)."""
    return {"prediction_periods": n_periods, "additional_continuous_covariates": []}


def _error_text(response: httpx.Response) -> str:
    """An error answer in one line: its problem details' title and detail, or its text."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or "(no body)"
    if isinstance(body, dict):
        parts = [str(body[key]) for key in ("title", "detail", "errors") if body.get(key)]
        if parts:
            return "; ".join(parts)[:1000]
    return str(body)[:500]


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def history_table(history: Panel, features: Sequence[str]) -> dict[str, Any]:
    """``history`` as chapkit's frame: ``time_period``, ``location`` and ``features``, one
    row per period and org unit (missing values as null)."""
    columns = [history.feature(name) for name in features]
    rows = [
        [dashed_period(period), org_unit, *(_json_number(values[i, t]) for values in columns)]
        for i, org_unit in enumerate(history.org_units)
        for t, period in enumerate(history.periods)
    ]
    return {"columns": ["time_period", "location", *features], "data": rows}


def future_covariates(
    history: Panel, n_periods: int, covariates: Sequence[str], future: Panel | None
) -> dict[str, Any]:
    """The ``n_periods`` after ``history`` with their covariates: from ``future``, or each
    org unit's mean of that month or week over the history (climatology), gaps filled so."""
    periods = history.periods_after(n_periods)
    positions = np.array([season_position(period) for period in periods])
    columns = [
        future_values(
            history.feature(name),
            history.season_positions(),
            history.season_length,
            positions,
            future.feature(name)[:, :n_periods] if future is not None else None,
        )
        for name in covariates
    ]
    rows = [
        [dashed_period(period), org_unit, *(_json_number(values[i, t]) for values in columns)]
        for i, org_unit in enumerate(history.org_units)
        for t, period in enumerate(periods)
    ]
    return {"columns": ["time_period", "location", *covariates], "data": rows}


def samples_of(table: Table, org_units: Sequence[str], periods: Sequence[str]) -> np.ndarray:
    """The ``sample_*`` columns of a predicted table as an array (org units, periods,
    samples), sorted along the samples; ValueError naming what is missing or not a number.
    Rows before the first forecast period are left out, as chap-core does."""
    names = table.columns
    sample_columns = [i for i, name in enumerate(names) if name.startswith("sample_")]
    if "time_period" not in names or "location" not in names or not sample_columns:
        raise ValueError(
            f"expected the columns time_period, location and sample_0, ...; got {names[:10]}"
        )
    period_at, location_at = names.index("time_period"), names.index("location")
    wanted_periods = {period: t for t, period in enumerate(periods)}
    wanted_places = {org_unit: i for i, org_unit in enumerate(org_units)}
    samples = np.full((len(org_units), len(periods), len(sample_columns)), np.nan)
    filled = np.zeros((len(org_units), len(periods)), dtype=bool)
    for row in table.data:
        if len(row) != len(names):
            raise ValueError(f"a row has {len(row)} values for {len(names)} columns")
        try:
            period = canonical_period(str(row[period_at]))
        except ValueError as error:
            raise ValueError(f"time_period: {error}") from None
        t = wanted_periods.get(period)
        i = wanted_places.get(str(row[location_at]))
        if t is None or i is None:
            continue
        try:
            samples[i, t] = [float(row[column]) for column in sample_columns]
        except (TypeError, ValueError):
            raise ValueError(
                f"the samples of {row[location_at]} in {row[period_at]} are not all numbers"
            ) from None
        filled[i, t] = True
    if not filled.all():
        i, t = np.argwhere(~filled)[0]
        raise ValueError(
            f"no samples for {int((~filled).sum())} of {filled.size} org unit and period "
            f"cells, the first {org_units[i]} in {periods[t]}"
        )
    if not np.isfinite(samples).all():
        raise ValueError("some samples are NaN or infinite")
    return np.sort(samples, axis=-1)
