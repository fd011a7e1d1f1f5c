"""Typed views of the further endpoints' payloads: full evaluations and predictions, overlaps,
imports, metrics breakdowns, job results, model runners, debug entries, data-source kinds and
chart images. Same conventions as ``_models``: snake_case attributes, extra fields kept, a
``null`` list or dict read as empty."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import Field

from chaplab.client._models import (
    Dataset,
    Evaluation,
    EvaluationEntry,
    NullableDict,
    NullableList,
    PredictionEntry,
    SnakeModel,
    WireModel,
)


class EvaluationDetail(Evaluation):
    """An evaluation with its configuration and predicted entries (``/full``)."""

    configuration: NullableDict[Any] = Field(default_factory=dict)
    quantiles: NullableList[float] = Field(default_factory=list)
    forecasts: NullableList[EvaluationEntry] = Field(default_factory=list)


class Prediction(WireModel):
    """A stored prediction."""

    id: int
    name: str | None = None
    created: datetime | None = None
    dataset_id: int | None = None
    configured_model_with_data_source_id: int | None = None
    model_id: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)
    n_periods: int | None = None


class PredictionDetail(Prediction):
    """A prediction with its dataset and forecast entries."""

    dataset: Dataset | None = None
    quantiles: NullableList[float] = Field(default_factory=list)
    forecasts: NullableList[PredictionEntry] = Field(default_factory=list)


class ListedPredictionEntry(PredictionEntry):
    """A prediction entry from the list of all entries, naming its prediction."""

    prediction_id: int


class DeletedIds(WireModel):
    deleted_ids: NullableList[int] = Field(default_factory=list)


class EvaluationOverlap(WireModel):
    """What two evaluations share."""

    backtest_ids: NullableList[int] = Field(default_factory=list)
    same_dataset: bool | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    split_periods: NullableList[str] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)


class RejectedOrgUnit(WireModel):
    org_unit: str
    reason: str


class DataImportReport(WireModel):
    """Which org units of inline data were imported and why the others were rejected; ``id`` is
    the evaluation job's id (``None`` for a dry run)."""

    dry_run: bool = False
    id: str | None = None
    dataset_id: int | None = None
    imported_org_units: NullableList[str] = Field(default_factory=list)
    rejected: NullableList[RejectedOrgUnit] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)


class EvaluationMetrics(WireModel):
    """Aggregate metrics and their breakdown: ``by_org_unit`` rows have ``org_unit`` and one key
    per metric, ``by_horizon`` rows ``horizon`` (1 = the period after the split) likewise."""

    backtest_id: int
    metric_names: NullableList[str] = Field(default_factory=list)
    aggregate: NullableDict[float | None] = Field(default_factory=dict)
    by_org_unit: NullableList[dict[str, Any]] = Field(default_factory=list)
    by_horizon: NullableList[dict[str, Any]] = Field(default_factory=list)


class MetricPlotCatalog(SnakeModel):
    """The metric chart names and the metric ids they can draw."""

    visualizations: NullableList[str] = Field(default_factory=list)
    metrics: NullableList[str] = Field(default_factory=list)


class JobResult(WireModel):
    """The row a successful job created: ``result_type`` is ``backtest``, ``prediction`` or
    ``dataset``; ``row`` is its wire form."""

    job_id: str
    result_type: str
    id: int
    row: NullableDict[Any] = Field(default_factory=dict)


class ModelRunner(SnakeModel):
    """An external model runner of the registry (``/v2/services``)."""

    id: int
    url: str
    info: NullableDict[Any] = Field(default_factory=dict)
    registered_at: datetime | None = None
    last_ping_at: datetime | None = None
    ping_count: int | None = None
    status: str | None = None
    stale_after_seconds: float | None = None

    @property
    def is_stale(self) -> bool:
        """True when the runner has not pinged within the service's limit."""
        return self.status == "stale"


class DebugEntry(WireModel):
    id: int
    message: str | None = None
    details: NullableDict[Any] = Field(default_factory=dict)
    created: datetime | None = None


class DataSourceKind(WireModel):
    """A kind of data the service's models read."""

    name: str
    display_name: str | None = None
    description: str | None = None
    period_types: NullableList[str] = Field(default_factory=list)
    used_by: NullableList[str] = Field(default_factory=list)
    role: str | None = None


@dataclass(frozen=True)
class PngImage:
    """A chart rendered by the service; shown inline by Jupyter, or saved with ``save``."""

    data: bytes

    def _repr_png_(self) -> bytes:
        return self.data

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the PNG to ``path`` and return it."""
        target = Path(path)
        target.write_bytes(self.data)
        return target
