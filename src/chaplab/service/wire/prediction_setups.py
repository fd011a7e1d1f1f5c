"""Wire models of prediction setups in chap-core 2.5.1's shapes: an evaluation promoted to a
repeatable forecast (``PredictionSetupCreate``, ``PredictionSetupUpdate``), read with or without
its forecast history (``PredictionSetupRead``, ``PredictionSetupReadWithPredictions``), and a
run on fresh observations (``RunPredictionSetupRequest``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field

from chaplab.service.text import printable
from chaplab.service.wire.alerts import AlertPolicyRead
from chaplab.service.wire.common import (
    DataSource,
    Horizon,
    Identifier,
    Name,
    WireModel,
    WireRequest,
)
from chaplab.service.wire.models import ConfiguredModelRead
from chaplab.service.wire.observations import ObservationColumns
from chaplab.service.wire.predictions import PredictionInfo


def quantile_text(text: str) -> str:
    """A quantile level written as a number strictly between 0 and 1 (``"0.9"``)."""
    try:
        level = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number (write a quantile level like '0.9')") from None
    if not 0 < level < 1:
        raise ValueError(f"{text!r} is not strictly between 0 and 1")
    return text


class QuantileTarget(WireRequest):
    """Where a quantile of each forecast goes: the data element receiving it."""

    quantile: Annotated[str, AfterValidator(quantile_text)]
    data_element_id: Identifier


CronExpression = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable)]


class PredictionSetupCreate(WireRequest):
    backtest_id: int
    name: Name
    alert_policy_id: int | None = None
    schedule_cron_expression: CronExpression | None = None
    schedule_enabled: bool = False
    quantile_targets: list[QuantileTarget] = []


class PredictionSetupUpdate(WireRequest):
    """The editable fields; a field left out (or null) stays as it is, others are refused."""

    model_config = ConfigDict(extra="forbid")
    name: Name | None = None
    schedule_cron_expression: CronExpression | None = None
    schedule_enabled: bool | None = None
    quantile_targets: list[QuantileTarget] | None = None
    alert_policy_id: int | None = None


class RunPredictionSetupRequest(WireRequest):
    """Fresh observations to forecast ``nPeriods`` periods after, with the org units' polygons."""

    model_config = ConfigDict(extra="forbid")
    name: Name
    geojson: dict[str, Any]
    provided_data: ObservationColumns
    type: str | None = None
    n_periods: Horizon = 3


class PredictionSetupRead(WireModel):
    id: int
    name: str
    created: datetime
    backtest_id: int
    configured_model: ConfiguredModelRead
    start_period: str | None
    org_units: list[str]
    covariate_sources: list[DataSource]
    period_type: str | None
    schedule_cron_expression: str | None
    schedule_enabled: bool
    quantile_targets: list[QuantileTarget]
    alert_policy: AlertPolicyRead | None = None


class PredictionSetupReadWithPredictions(PredictionSetupRead):
    """A setup with every forecast its runs made, oldest first."""

    predictions: list[PredictionInfo] = Field(
        default=[], description="its runs' forecasts, in 2.5.1's ``PredictionInfo`` shape"
    )
