"""Serve the two functions that ``chaplab.backtest`` evaluates as a chapkit model service.

chapkit's ``FunctionalModelRunner`` awaits ``on_train(config, data, geo)`` and
``on_predict(config, model, historic, future, geo)`` with its own ``DataFrame`` and a
geojson-pydantic ``FeatureCollection``; ``chaplab.backtest`` calls the same functions, sync or
async, with pandas frames and a GeoJSON dict. :func:`chapkit_functions` wraps a pair for chapkit
(frames converted both ways, a sync function run in a worker thread so chapkit's event loop keeps
answering), and :func:`chapkit_runner` builds the runner from them.

chapkit needs Python 3.13: this module imports it only inside :func:`chapkit_runner` and when a
wrapped ``predict`` answers, so it imports anywhere chaplab does. A notebook on another Python
runs the service script in a Python that has chapkit (:func:`chapkit_python`) with
:func:`start_chapkit_service`, which registers it with the server the notebook talks to, or,
on a machine without one, says so in one line and lets the notebook go on.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import os
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

CHAPKIT_PYTHON_VARIABLE = "CHAPLAB_CHAPKIT_PYTHON"
"""Environment variable: the Python (3.13, with chapkit) that runs model services; set but
empty, none (a machine without chapkit)."""
PEER_CACHE_VARIABLE = "CHAPLAB_PEER_CACHE"
"""Environment variable: where ``make test-peer`` installs chap-core 2.5.1, whose environment
holds chapkit (by default ``~/.cache/chaplab/peer-2.5.1``)."""
REGISTRATION_SECONDS = 90.0
NO_CHAPKIT = (
    "not started: this machine has no Python with chapkit (chapkit needs Python 3.13; set "
    f"{CHAPKIT_PYTHON_VARIABLE} to one, or `make test-peer` installs one), so the model is not "
    "served here"
)
"""What :func:`start_chapkit_service` prints where no Python with chapkit is found."""

TrainFunction = Callable[[Any, Any, Any], Awaitable[Any]]
PredictFunction = Callable[[Any, Any, Any, Any, Any], Awaitable[Any]]


def chapkit_functions(
    train: Callable[..., Any], predict: Callable[..., Any]
) -> tuple[TrainFunction, PredictFunction]:
    """``(on_train, on_predict)`` with chapkit's signatures, calling ``train`` and ``predict``
    as ``chaplab.backtest`` does: pandas frames in, ``config`` as chapkit gives it, ``geo`` as a
    GeoJSON dict (or None); ``predict``'s pandas answer goes back as chapkit's ``DataFrame``."""

    async def on_train(config: Any, data: Any, geo: Any = None) -> Any:
        return await _call(train, config, _pandas(data), _geojson(geo))

    async def on_predict(
        config: Any, model: Any, historic: Any, future: Any, geo: Any = None
    ) -> Any:
        answer = await _call(
            predict, config, model, _pandas(historic), _pandas(future), _geojson(geo)
        )
        from chapkit.data import DataFrame

        return DataFrame.from_pandas(answer)

    on_train.__qualname__ = on_train.__name__ = f"on_train({_name(train)})"
    on_predict.__qualname__ = on_predict.__name__ = f"on_predict({_name(predict)})"
    return on_train, on_predict


def chapkit_runner(train: Callable[..., Any], predict: Callable[..., Any]) -> Any:
    """chapkit's ``FunctionalModelRunner`` serving ``train`` and ``predict`` (needs chapkit)."""
    from chapkit.ml import FunctionalModelRunner

    on_train, on_predict = chapkit_functions(train, predict)
    return FunctionalModelRunner(on_train=on_train, on_predict=on_predict)


async def _call(function: Callable[..., Any], *args: Any) -> Any:
    """Await an async function; run a sync one in a worker thread."""
    if inspect.iscoroutinefunction(function):
        return await function(*args)
    answer = await asyncio.to_thread(function, *args)
    return await answer if inspect.isawaitable(answer) else answer


def _pandas(frame: Any) -> Any:
    """chapkit's DataFrame as a pandas DataFrame (a pandas frame as it is)."""
    return frame.to_pandas() if hasattr(frame, "to_pandas") else frame


def _geojson(geo: Any) -> Any:
    """A geojson-pydantic FeatureCollection as the GeoJSON dict ``chaplab.backtest`` passes."""
    return geo.model_dump(mode="json", exclude_none=True) if hasattr(geo, "model_dump") else geo


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", None) or type(function).__name__


def chapkit_python() -> Path | None:
    """The Python that runs chapkit model services: ``$CHAPLAB_CHAPKIT_PYTHON`` when it is set
    (set but empty: none), else the environment ``make test-peer`` installs beside chap-core
    (``$CHAPLAB_PEER_CACHE/venv``); None when that Python is missing or cannot import
    chapkit."""
    chosen = os.environ.get(CHAPKIT_PYTHON_VARIABLE)
    if chosen is not None:
        python = Path(chosen.strip()).expanduser() if chosen.strip() else None
    else:
        cache = os.environ.get(PEER_CACHE_VARIABLE) or str(
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
            / "chaplab"
            / "peer-2.5.1"
        )
        python = Path(cache).expanduser() / "venv" / "bin" / "python"
    if python is None or not python.is_file():
        return None
    try:
        found = subprocess.run(
            [str(python), "-c", "import chapkit"], capture_output=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return python if found.returncode == 0 else None


class _ModelRunners(Protocol):
    """What :func:`start_chapkit_service` needs of a client (``ChapClient``)."""

    @property
    def base_url(self) -> str: ...

    def list_model_runners(self) -> Any: ...


@dataclass
class ChapkitService:
    """A chapkit model service running in a process of its own, registered with a server."""

    service_id: str
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        """Stop the service (the server forgets it when its keep-alive pings stop)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_chapkit_service(
    script: str | os.PathLike[str],
    service_id: str,
    client: _ModelRunners,
    *,
    timeout: float = REGISTRATION_SECONDS,
) -> ChapkitService | None:
    """Run the chapkit service ``script`` (which calls ``MLServiceBuilder(...).with_registration``
    and serves on ``$SERVICEKIT_PORT``) in :func:`chapkit_python`, registering with the server
    ``client`` talks to, and wait until the server lists ``service_id`` there.

    The script runs in its own folder with chaplab's source importable (before ``PYTHONPATH``),
    on a free loopback port, and reports the SHA-1 of its folder's Python files as its source
    revision (``GIT_REVISION``: chap-core keeps a service's template only with one); its output
    goes to ``service.log`` beside it. Where no Python with chapkit is found, prints
    :data:`NO_CHAPKIT` in one line and returns None, so a notebook goes on; a service that stops
    or does not register within ``timeout`` seconds is a RuntimeError with its log.
    """
    python = chapkit_python()
    if python is None:
        print(NO_CHAPKIT)
        return None
    path = Path(script).resolve()
    port = _free_port()
    log = path.with_name("service.log")
    environment = {
        **os.environ,
        "SERVICEKIT_ORCHESTRATOR_URL": f"{client.base_url}/v2/services/$register",
        "SERVICEKIT_HOST": "127.0.0.1",
        "SERVICEKIT_PORT": str(port),
        "GIT_REVISION": _revision(path.parent),
        "PYTHONPATH": os.pathsep.join(
            [
                str(Path(__file__).resolve().parents[1]),
                *filter(None, [os.environ.get("PYTHONPATH")]),
            ]
        ),
    }
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(python), path.name],
            cwd=path.parent,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    service = ChapkitService(service_id, f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + timeout
    while not any(
        runner.id == service_id and str(runner.url).endswith(f":{port}")
        for runner in client.list_model_runners()
    ):
        if process.poll() is not None or time.monotonic() > deadline:
            service.stop()
            raise RuntimeError(f"the service did not register:\n{log.read_text()}")
        time.sleep(0.5)
    return service


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _revision(folder: Path) -> str:
    """The SHA-1 of the folder's Python files, names and contents: a commit-like revision that
    changes with the code."""
    digest = hashlib.sha1()
    for file in sorted(folder.glob("*.py")):
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()
