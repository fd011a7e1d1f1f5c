"""chaplab: work with a disease-forecasting modeling service from a notebook.

The top-level names are imported lazily so that ``import chaplab`` stays fast;
pandas, matplotlib and the service are only loaded when first used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "backtest": "chaplab.backtesting",
    "BacktestError": "chaplab.backtesting",
    "tune": "chaplab.tuning",
    "Tuning": "chaplab.tuning",
    "ChapClient": "chaplab.client",
    "AsyncChapClient": "chaplab.client",
    "ChapError": "chaplab.client",
    "JobFailedError": "chaplab.client",
    "UnsupportedRouteError": "chaplab.client",
    "connect": "chaplab._connect",
}

__all__ = [*_LAZY, "__version__"]

if TYPE_CHECKING:
    from chaplab._connect import connect as connect
    from chaplab.backtesting import BacktestError as BacktestError
    from chaplab.backtesting import backtest as backtest
    from chaplab.client import AsyncChapClient as AsyncChapClient
    from chaplab.client import ChapClient as ChapClient
    from chaplab.client import ChapError as ChapError
    from chaplab.client import JobFailedError as JobFailedError
    from chaplab.client import UnsupportedRouteError as UnsupportedRouteError
    from chaplab.tuning import Tuning as Tuning
    from chaplab.tuning import tune as tune


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chaplab' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
