"""Outbreak thresholds (the endemic channel): lines computed per period and org unit from a
dataset's past cases, by one of the server's strategies (seasonal mean + k standard deviations,
or a seasonal percentile)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field, PrivateAttr, TypeAdapter, ValidationError

from chaplab.client._capabilities import Route, RouteCache
from chaplab.client._datasets import OrgUnitNames
from chaplab.client._errors import ArgumentError, ArgumentTypeError
from chaplab.client._plumbing import (
    DATASETS,
    RequestBuilder,
    Resource,
    org_unit_params,
    require_name,
)
from chaplab.client._steps import Operation, RetryPolicy
from chaplab.client._wire import NullableList, WireModel

if TYPE_CHECKING:
    import pandas as pd

# -- wire models -----------------------------------------------------------------------------


class SeasonalParams(WireModel):
    """Threshold lines at the same-season mean + ``std_multiplier`` standard deviations (one
    line per multiplier when several are given)."""

    type: Literal["seasonal"] = "seasonal"
    std_multiplier: float | list[float] = 2.0
    line_parameter: ClassVar[str] = "std_multiplier"


class PercentileParams(WireModel):
    """Threshold lines at a ``quantile`` of the same-season values of the last
    ``baseline_years`` complete years (the WHO endemic channel; one line per quantile)."""

    type: Literal["percentile"] = "percentile"
    quantile: float | list[float] = 0.75
    baseline_years: int | None = 5
    line_parameter: ClassVar[str] = "quantile"


ThresholdParams = Annotated[SeasonalParams | PercentileParams, Field(discriminator="type")]
"""A strategy and its parameters, told apart by ``type``."""

_PARAMS: TypeAdapter[SeasonalParams | PercentileParams] = TypeAdapter(ThresholdParams)


class ThresholdStrategy(WireModel):
    """A threshold strategy the server computes (``id``: ``seasonal``, ``percentile``, ...)."""

    id: str
    display_name: str
    description: str = ""


class ThresholdEntry(WireModel):
    """The threshold lines of one period and org unit (``location``), in the order of
    ``Thresholds.lines``; ``None`` where the history is too short."""

    period: str
    location: str
    values: NullableList[float | None] = Field(default_factory=list)


class Thresholds(WireModel):
    """Threshold lines for every period and org unit asked for, with the parameters the server
    used (defaults filled in); ``lines`` are the multipliers or quantiles, one per line.
    :meth:`frame` gives them as a table named by place."""

    params: ThresholdParams
    lines: NullableList[float] = Field(default_factory=list)
    entries: NullableList[ThresholdEntry] = Field(default_factory=list)
    _place_names: dict[str, str] = PrivateAttr(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """One row per org unit, period and line: ``org_unit``, ``org_unit_name`` (the names
        of the dataset's GeoJSON, when it has them), ``period``, ``line`` (the multiplier or
        quantile) and ``threshold`` (NaN where the history is too short)."""
        import pandas as pd

        from chaplab.frames import parse_periods, with_org_unit_names

        rows = [
            (entry.location, entry.period, line, value)
            for entry in self.entries
            for line, value in zip(self.lines, entry.values, strict=False)
        ]
        table = pd.DataFrame(rows, columns=["org_unit", "period", "line", "threshold"])
        table["period"] = parse_periods(table["period"]) if rows else table["period"]
        table = table.astype({"line": float, "threshold": float})
        return with_org_unit_names(table, self._place_names) if self._place_names else table


# -- operations ------------------------------------------------------------------------------

_NO_THRESHOLDS = (
    "nothing on this server: compute thresholds from dataset_frame(dataset_id) "
    "(e.g. the same-month mean + 2 standard deviations of disease_cases)"
)
STRATEGIES = Route(
    "list_threshold_strategies", "GET", "/v1/analytics/thresholds/strategies", _NO_THRESHOLDS
)
COMPUTE = Route("compute_thresholds", "POST", "/v1/analytics/thresholds", _NO_THRESHOLDS)


class ThresholdsResource(Resource):
    """``/v1/analytics/thresholds`` and its strategies."""

    def __init__(
        self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache, names: OrgUnitNames
    ) -> None:
        super().__init__(builder, retry, routes)
        self._place_names = names

    def list_threshold_strategies(self) -> Operation[list[ThresholdStrategy]]:
        """The strategies ``compute_thresholds`` can use."""
        return (yield from self._call_route(list[ThresholdStrategy], STRATEGIES))

    def compute_thresholds(
        self,
        dataset_id: int | str,
        periods: Sequence[str],
        params: SeasonalParams | PercentileParams | Mapping[str, Any] | None = None,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[Thresholds]:
        """Threshold lines of a dataset's ``disease_cases`` for each of ``periods`` (future
        periods too) and each org unit (or only ``org_units``). ``params`` chooses the
        strategy: ``SeasonalParams(std_multiplier=[1, 2])``, ``PercentileParams(quantile=0.75)``
        or the same as a dict with ``type``; the default is ``SeasonalParams()``.
        ``dataset_id`` is the dataset's id or its name."""
        body: dict[str, Any] = {
            "periodIds": period_ids("periods", periods),
            "params": threshold_params("params", params).to_wire(),
        }
        if org_units is not None:
            body["locations"] = [unit for _, unit in org_unit_params(org_units)]
        route = COMPUTE
        yield from self._offered(route)  # before a dataset's name is looked up
        body["datasetId"] = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        thresholds = yield from self._call_route(Thresholds, route, json=body)
        names = yield from self._place_names.of_dataset(body["datasetId"])
        thresholds._place_names = names or {}  # for frame(): places by name
        return thresholds


def period_ids(field: str, periods: Sequence[str]) -> list[str]:
    """A non-empty list of period strings, checked."""
    values = [periods] if isinstance(periods, str) else list(periods)
    if not values:
        raise ArgumentError(f"{field} must name at least one period")
    return [require_name(field, value) for value in values]


def threshold_params(
    field: str, params: SeasonalParams | PercentileParams | Mapping[str, Any] | None
) -> SeasonalParams | PercentileParams:
    """``params`` as a strategy model (a dict needs ``type``); ``SeasonalParams()`` for
    ``None``."""
    if params is None:
        return SeasonalParams()
    if isinstance(params, (SeasonalParams, PercentileParams)):
        return known_parameters(field, params)
    if not isinstance(params, Mapping):
        raise ArgumentTypeError(
            f"{field} must be SeasonalParams, PercentileParams or a dict with 'type', "
            f"got {type(params).__name__}"
        )
    try:
        return known_parameters(field, _PARAMS.validate_python(dict(params)))
    except ValidationError as error:
        raise ArgumentError(f"{field} is not a threshold strategy's parameters: {error}") from None


def known_parameters(
    field: str, params: SeasonalParams | PercentileParams
) -> SeasonalParams | PercentileParams:
    """``params`` if it holds only parameters of its strategy. chap-core 2.5.1 ignores any
    other (``{"type": "seasonal", "lines": [1.0]}`` is answered with its default line, 2
    standard deviations), so one is refused, with the line parameter it probably stands for:
    an answer's ``lines`` echo the strategy's line parameter, they are not one."""
    extra = params.model_extra or {}
    if not extra:
        return params
    taken = ", ".join(name for name in type(params).model_fields if name != "type")
    hint = (
        f"; ask for lines as {params.line_parameter}={extra['lines']!r}" if "lines" in extra else ""
    )
    raise ArgumentError(
        f"{field}: the {params.type!r} strategy takes no {', '.join(map(repr, sorted(extra)))} "
        f"(only {taken}), which chap-core 2.5.1 ignores, computing its defaults instead{hint}"
    )
