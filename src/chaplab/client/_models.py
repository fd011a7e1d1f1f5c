"""Typed views of the modeling service's resources (pydantic v2).

Attributes are snake_case; stored resources are camelCase on the wire (alias generator, and
either spelling is accepted on input). Job descriptions and system info are snake_case on the
wire. Every model keeps fields it does not know (``model_extra``) and never fails on them, and
reads an explicit ``null`` in a list or dict field as empty (``NullableList``, ``NullableDict``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from chaplab import vocabulary

Item = TypeVar("Item")


def _empty_if_none(empty: Callable[[], Any]) -> BeforeValidator:
    """Read ``None`` as ``empty()``: servers send ``null`` for an empty collection, and one such
    field must not fail a whole list call."""
    return BeforeValidator(lambda value: empty() if value is None else value)


NullableList = Annotated[list[Item], _empty_if_none(list)]
"""A list field that reads ``null`` as ``[]``."""
NullableDict = Annotated[dict[str, Item], _empty_if_none(dict)]
"""A dict field (string keys) that reads ``null`` as ``{}``."""


def period_sort_key(period: str) -> tuple[int, int, int, str]:
    """Chronological sort key of a period string (``202101``, ``2021-01``, ``2021W05``, ...).

    A server string that is no period does not fail the model that holds it: it sorts after
    the periods, by its text.
    """
    try:
        kind, ordinal = vocabulary.period_sort_key(period)
    except ValueError:
        return (1, 0, 0, period)
    return (0, kind, ordinal, period)


class WireModel(BaseModel):
    """A stored resource: camelCase on the wire, snake_case in Python, extra fields kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict in wire spelling (camelCase), leaving out unset optional fields."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class SnakeModel(BaseModel):
    """A snake_case payload (jobs, system info, health), extra fields kept."""

    model_config = ConfigDict(extra="allow")


class DataSource(WireModel):
    """Which data element feeds a covariate."""

    covariate: str
    data_element_id: str | None = None


class Observation(WireModel):
    """One observed value of a feature, for an org unit and a period."""

    feature_name: str
    org_unit: str
    period: str
    value: float | None = None


class Dataset(WireModel):
    """A stored dataset; ``observations`` is filled by ``get_dataset`` only."""

    id: int
    name: str | None = None
    type: str | None = None
    created: datetime | None = None
    first_period: str | None = None
    last_period: str | None = None
    period_type: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    covariates: NullableList[str] = Field(default_factory=list)
    data_sources: NullableList[DataSource] = Field(default_factory=list)
    observations: list[Observation] | None = None


class ModelTemplate(WireModel):
    """A model template; ``user_options`` maps option names to their JSON-schema properties."""

    id: int
    name: str
    display_name: str | None = None
    description: str | None = None
    author: str | None = None
    supported_period_type: str | None = None
    target: Any = None
    required_covariates: NullableList[str] = Field(default_factory=list)
    user_options: NullableDict[Any] = Field(default_factory=dict)
    hpo_search_space: Any = None
    allow_free_additional_continuous_covariates: bool | None = None
    requires_geo: bool | None = None
    version: str | None = None
    archived: bool | None = None


class ModelSpec(WireModel):
    """A configured model (``GET /v1/crud/models`` and ``/v1/crud/configured-models``).

    ``id`` is the configured model's id, never a template id. ``model_template_id`` is optional
    because some servers leave it out; it is taken from a nested ``modelTemplate`` when given.
    """

    id: int
    name: str
    display_name: str | None = None
    model_template_id: int | None = None
    supported_period_type: str | None = None
    user_option_values: NullableDict[Any] = Field(default_factory=dict)
    additional_continuous_covariates: NullableList[str] = Field(default_factory=list)
    covariates: NullableList[Any] = Field(default_factory=list)
    target: Any = None
    archived: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _template_id_from_nested(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("modelTemplateId", data.get("model_template_id")) is None:
            nested = data.get("modelTemplate", data.get("model_template"))
            if isinstance(nested, dict) and isinstance(nested.get("id"), int):
                return {**data, "modelTemplateId": nested["id"]}
        return data


class ConfiguredModelWithDataSource(WireModel):
    """A configured model bundled with the data sources used for predictions."""

    id: int
    name: str | None = None
    created: datetime | None = None
    configured_model: ModelSpec | None = None
    period_type: str | None = None
    start_period: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    data_sources: NullableList[DataSource] = Field(default_factory=list)


class Evaluation(WireModel):
    """A stored evaluation (a backtest); ``split_periods`` are sorted chronologically."""

    id: int
    name: str | None = None
    created: datetime | None = None
    dataset_id: int | None = None
    model_id: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    split_periods: NullableList[str] = Field(default_factory=list)
    max_horizon_distance: int | None = None
    n_periods: int | None = None
    n_splits: int | None = None
    stride: int | None = None
    aggregate_metrics: NullableDict[float] = Field(default_factory=dict)
    configured_model: ModelSpec | None = None
    dataset: Dataset | None = None

    @field_validator("split_periods", mode="after")
    @classmethod
    def _chronological(cls, value: list[str]) -> list[str]:
        return sorted(value, key=period_sort_key)

    @field_validator("aggregate_metrics", mode="before")
    @classmethod
    def _missing_metric_is_nan(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: math.nan if metric is None else metric for key, metric in value.items()}
        return value


class EvaluationEntry(WireModel):
    """One forecast quantile of an evaluation, for an org unit, a period and a split period."""

    org_unit: str
    period: str
    quantile: float
    value: float
    split_period: str | None = None


class PredictionEntry(WireModel):
    """One forecast quantile of a prediction, for an org unit and a period."""

    org_unit: str
    period: str
    quantile: float
    value: float


class PredictionRequest(WireModel):
    """The body of ``POST /v1/analytics/make-prediction-with-data-source``."""

    name: str
    geojson: dict[str, Any] | None = None
    provided_data: NullableList[Observation] = Field(default_factory=list)
    data_sources: NullableList[DataSource] = Field(default_factory=list)
    data_to_be_fetched: NullableList[Any] = Field(default_factory=list)
    configured_model_with_data_source_id: int
    n_periods: int = Field(gt=0)


class JobRef(WireModel):
    """The reference returned when work is submitted: the job's id."""

    id: str

    @field_validator("id", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value


class Job(SnakeModel):
    """A job as described by ``GET /v1/jobs`` (snake_case on the wire).

    ``status`` is upper-cased. ``result`` is the text the server gives (for evaluation and
    prediction jobs the created row's id); ``result_id`` is that id as an int, when it is one.
    """

    id: str
    type: str | None = None
    name: str | None = None
    status: str = "PENDING"
    start_time: datetime | None = None
    end_time: datetime | None = None
    result: str | None = None
    error: str | None = None

    @field_validator("id", "result", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("status", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return vocabulary.normalize_status(value) if isinstance(value, str) else value

    @property
    def result_id(self) -> int | None:
        """The result as an integer id, or ``None`` when there is none or it is not an integer."""
        if self.result is None:
            return None
        try:
            return int(self.result.strip())
        except ValueError:
            return None

    @property
    def is_terminal(self) -> bool:
        """True once the job has stopped (successfully or not)."""
        return vocabulary.is_terminal_status(self.status)

    @property
    def succeeded(self) -> bool:
        """True when the job ended with ``SUCCESS``."""
        return self.status == vocabulary.SUCCESS


class SystemInfo(SnakeModel):
    """``GET /system/info``: service version, server time and more."""

    chap_core_version: str | None = None
    python_version: str | None = None
    server_date: str | None = None
    server_time_zone_id: str | None = None


class Health(SnakeModel):
    """``GET /health``: the liveness answer (``status`` when the server gives one)."""

    status: str | None = None
