"""Wire models of endemic thresholds in chap-core 2.5.1's shapes: the strategies
(``ThresholdStrategyInfo``), a request for threshold lines (``ThresholdRequest``, whose
``params.type`` selects the strategy) and its answer (``ThresholdResponse``: the resolved
parameters, the line values and one entry per requested period and location)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from chaplab.service.wire.common import Identifier, WireModel, WireRequest

MAX_LINES = 20
"""The most threshold lines one request asks for."""

MAX_THRESHOLD_PERIODS = 10_000
"""The most periods one request asks thresholds for."""

MAX_THRESHOLD_LOCATIONS = 10_000
"""The most locations one request names."""

Fraction = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Multiplier = Annotated[float, Field(ge=-1000.0, le=1000.0, allow_inf_nan=False)]


class SeasonalParams(WireRequest):
    """The seasonal mean + k standard deviations of the same month (or week) in earlier years."""

    type: Literal["seasonal"]
    std_multiplier: (
        Multiplier | Annotated[list[Multiplier], Field(min_length=1, max_length=MAX_LINES)]
    ) = Field(
        2.0,
        description="Number of standard deviations above the seasonal mean. "
        "A list produces one threshold line per entry.",
    )

    @property
    def lines(self) -> list[float]:
        """The line parameter as a list, one value per threshold line, in request order."""
        return line_values(self.std_multiplier)


class PercentileParams(WireRequest):
    """An upper quantile of the same month (or week) in the ``baseline_years`` years before."""

    type: Literal["percentile"]
    quantile: Fraction | Annotated[list[Fraction], Field(min_length=1, max_length=MAX_LINES)] = (
        Field(
            0.75,
            description="Percentile of historical same-season values, as a fraction in [0, 1]. "
            "A list produces one threshold line per entry.",
        )
    )
    baseline_years: int | None = Field(
        5,
        ge=1,
        le=1000,
        description="Number of years before the period's year to compute the baseline from. "
        "`null` uses every earlier year.",
    )

    @property
    def lines(self) -> list[float]:
        """The line parameter as a list, one value per threshold line, in request order."""
        return line_values(self.quantile)


ThresholdParams = Annotated[SeasonalParams | PercentileParams, Field(discriminator="type")]


def line_values(scalar_or_list: float | list[float]) -> list[float]:
    """A line parameter as the list of per-line values."""
    return list(scalar_or_list) if isinstance(scalar_or_list, list) else [scalar_or_list]


class ThresholdRequest(WireRequest):
    """Threshold lines of a dataset's ``disease_cases`` for the periods and locations asked."""

    dataset_id: int
    period_ids: list[str] = Field(max_length=MAX_THRESHOLD_PERIODS)
    locations: list[Identifier] | None = Field(None, max_length=MAX_THRESHOLD_LOCATIONS)
    params: ThresholdParams


class ThresholdEntry(WireModel):
    """One threshold per line for a single (period, location); null where none is computed."""

    period: str
    location: str
    values: list[float | None]


class ThresholdResponse(WireModel):
    """The resolved parameters, the line values in the order of every entry's ``values``, and
    one entry per requested (period, location)."""

    params: ThresholdParams
    lines: list[float]
    entries: list[ThresholdEntry]


class ThresholdStrategyInfo(WireModel):
    """A threshold strategy a request's ``params.type`` may select."""

    id: str
    display_name: str
    description: str = ""
