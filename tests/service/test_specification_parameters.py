"""A stored specification's parameters, as its wire models repeat them, name every field of
SpecificationFields (a field added there reaches the models by itself); a leaderboard row gets
those it has a field for."""

from __future__ import annotations

from chaplab.service.domain.specifications import _parameters
from chaplab.service.tables import BacktestSpecificationRow
from chaplab.service.wire.specifications import LeaderboardBacktestRead, SpecificationFields


def test_parameters_name_every_backtest_parameter() -> None:
    row = BacktestSpecificationRow(
        n_periods=3,
        n_splits=7,
        stride=1,
        n_retrain=1,
        future_weather_provider="climatology",
        target_column="disease_cases",
    )
    parameters = _parameters(row)
    assert set(parameters) == set(SpecificationFields.model_fields)
    assert parameters["n_splits"] == 7 and parameters["target_column"] == "disease_cases"
    leaderboard = _parameters(row, LeaderboardBacktestRead)
    assert set(leaderboard) == set(SpecificationFields.model_fields) - {"target_column"}
