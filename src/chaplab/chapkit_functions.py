"""Serve the two functions that ``chaplab.backtest`` evaluates as a chapkit model service.

chapkit's ``FunctionalModelRunner`` awaits ``on_train(config, data, geo)`` and
``on_predict(config, model, historic, future, geo)`` with its own ``DataFrame`` and a
geojson-pydantic ``FeatureCollection``; ``chaplab.backtest`` calls the same functions, sync or
async, with pandas frames and a GeoJSON dict. :func:`chapkit_functions` wraps a pair for chapkit
(frames converted both ways, a sync function run in a worker thread so chapkit's event loop keeps
answering), and :func:`chapkit_runner` builds the runner from them.

chapkit needs Python 3.13: this module imports it only inside :func:`chapkit_runner` and when a
wrapped ``predict`` answers, so it imports anywhere chaplab does.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

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
