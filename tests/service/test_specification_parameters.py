"""A stored specification's parameters, as its wire models repeat them, name every field of
BacktestParameters: a field added there must be added to the dict the models are built from."""

from __future__ import annotations

from chaplab.service.domain.specifications import _Parameters
from chaplab.service.wire.specifications import BacktestParameters


def test_parameters_name_every_backtest_parameter() -> None:
    assert set(_Parameters.__required_keys__) == set(BacktestParameters.model_fields)
