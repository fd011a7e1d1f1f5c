"""Every table of the service, declared on one ``Base``: importing this module registers them all.

Datasets and samples are stored compactly: one float64 blob per dataset feature
(``n_org_units x n_periods``) and one float32 blob of sorted samples per evaluation or
prediction. Times are stored in UTC. The engine, the schema version and its migrations live in
:mod:`chaplab.service.db`.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Connection,
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    event,
    func,
    insert,
    select,
    true,
    update,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Mapper, Session, mapped_column, relationship

from chaplab.vocabulary import PENDING, STARTED, TARGET_COLUMN, BacktestPlan


def utc_now() -> datetime:
    """The current time in UTC, whole seconds, with its zone (sent as ``...Z``, ISO 8601)."""
    return datetime.now(UTC).replace(microsecond=0)


class UtcDateTime(TypeDecorator[datetime]):
    """A time stored as UTC without a zone (any backend's plain timestamp) and read back as an
    aware UTC datetime, so that every answer says its zone (``format: date-time`` requires one).
    An aware value is converted to UTC before it is stored; a naive one is taken as UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            return value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    type_annotation_map = {
        dict[str, Any]: JSON,
        list[Any]: JSON,
        bytes: LargeBinary,
        datetime: UtcDateTime,
    }


class IdCounterRow(Base):
    """The last id handed out in each table of public ids (see :class:`PublicId`)."""

    __tablename__ = "id_counters"
    table_name: Mapped[str] = mapped_column(String(100), primary_key=True)
    last_id: Mapped[int]


class PublicId:
    """A row whose id is public (in URLs, answers and job results): each table hands out ids in
    strictly increasing order and never one it handed out before, also after its newest row is
    deleted or the service restarts, on every backend (SQLite's own rule, the highest id + 1,
    would give a deleted row's id to the next row). The last id is kept in ``id_counters``,
    bumped in the inserting transaction, so an id is taken only by a committed row."""

    FIRST_ID: ClassVar[int] = 1
    id: Mapped[int] = mapped_column(primary_key=True)


def next_public_id(connection: Connection, row: type[PublicId]) -> int:
    """Take the next id of ``row``'s table: its counter, bumped in ``connection``'s
    transaction (every counter is made with the database, see :func:`count_public_ids`)."""
    counters = table_of(IdCounterRow)
    name = table_of(row).name
    bumped = connection.execute(
        update(counters).where(counters.c.table_name == name).values(last_id=counters.c.last_id + 1)
    )
    if bumped.rowcount != 1:
        raise RuntimeError(f"the database has no id counter of {name}: it is damaged")
    taken = connection.scalar(select(counters.c.last_id).where(counters.c.table_name == name))
    assert isinstance(taken, int)
    return taken


def count_public_ids(connection: Connection, present: set[str] | None = None) -> None:
    """Give every table of public ids that has no counter one (of those named ``present``, if
    given), starting after its highest stored id and before its first id, so that stored ids
    stay and new ones follow them."""
    counters = table_of(IdCounterRow)
    counted = set(connection.scalars(select(counters.c.table_name)))
    for row in public_id_rows():
        table = table_of(row)
        if table.name in counted or (present is not None and table.name not in present):
            continue
        highest = connection.scalar(select(func.max(table.c.id)))
        last = max(highest or 0, row.FIRST_ID - 1)
        connection.execute(insert(counters).values(table_name=table.name, last_id=last))


def public_id_rows() -> list[type[PublicId]]:
    """Every mapped row class with a public id."""
    return [
        mapper.class_ for mapper in Base.registry.mappers if issubclass(mapper.class_, PublicId)
    ]


def table_of(row: type[Any]) -> Table:
    """The table of a mapped row class (SQLAlchemy types it as any FROM clause)."""
    table = row.__table__
    assert isinstance(table, Table), f"{row.__name__} maps a table"
    return table


@event.listens_for(PublicId, "before_insert", propagate=True)
def _number_new_row(_mapper: Mapper[Any], connection: Connection, target: PublicId) -> None:
    if target.id is None:
        target.id = next_public_id(connection, type(target))


class SchemaVersion(Base):
    """One row: the version of the table layout this database holds."""

    __tablename__ = "schema_version"
    version: Mapped[int] = mapped_column(Integer, primary_key=True)


class DatasetRow(PublicId, Base):
    """A dataset: org units x periods, one array per feature in :class:`DatasetFeatureRow`.
    ``created_manually`` is false for the dataset of an evaluation or a prediction on data sent
    with it (chap-core 2.5.1's meaning), true for one stored as a dataset."""

    __tablename__ = "datasets"
    name: Mapped[str] = mapped_column(String(200))
    type: Mapped[str] = mapped_column(String(20))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    period_type: Mapped[str] = mapped_column(String(10))
    periods: Mapped[list[Any]]
    org_units: Mapped[list[Any]]
    geojson: Mapped[dict[str, Any] | None]
    data_sources: Mapped[list[Any]]
    created_manually: Mapped[bool] = mapped_column(server_default=true())
    features: Mapped[list[DatasetFeatureRow]] = relationship(
        back_populates="dataset", cascade="all, delete-orphan", order_by="DatasetFeatureRow.id"
    )


class DatasetFeatureRow(Base):
    """One feature of a dataset as float64 bytes, shape ``(n_org_units, n_periods)``."""

    __tablename__ = "dataset_features"
    id: Mapped[int] = mapped_column(primary_key=True)
    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    values: Mapped[bytes]
    dataset: Mapped[DatasetRow] = relationship(back_populates="features")


class ModelTemplateRow(PublicId, Base):
    """A model template known to the service; its behaviour lives in the forecasting package."""

    __tablename__ = "model_templates"
    name: Mapped[str] = mapped_column(String(200), unique=True)
    archived: Mapped[bool] = mapped_column(default=False)


class ConfiguredModelRow(PublicId, Base):
    """A template with chosen option values, named ``{template}:{name}`` (or the bare template).
    Its ids start at 1001, apart from template ids, so that an id taken from
    ``/v1/crud/models`` is never mistaken for a valid ``modelTemplateId``."""

    FIRST_ID = 1001

    __tablename__ = "configured_models"
    name: Mapped[str] = mapped_column(String(300), unique=True)
    model_template_id: Mapped[int] = mapped_column(ForeignKey("model_templates.id"))
    user_option_values: Mapped[dict[str, Any]]
    additional_continuous_covariates: Mapped[list[Any]]
    archived: Mapped[bool] = mapped_column(default=False)
    created: Mapped[datetime] = mapped_column(default=utc_now)
    template: Mapped[ModelTemplateRow] = relationship()


class ConfiguredModelWithDataSourceRow(PublicId, Base):
    """A configured model bundled with the data sources and org units of its predictions."""

    __tablename__ = "configured_models_with_data_source"
    name: Mapped[str] = mapped_column(String(400))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    configured_model_id: Mapped[int] = mapped_column(ForeignKey("configured_models.id"))
    period_type: Mapped[str] = mapped_column(String(10))
    start_period: Mapped[str | None] = mapped_column(String(10))
    org_units: Mapped[list[Any]]
    data_sources: Mapped[list[Any]]
    configured_model: Mapped[ConfiguredModelRow] = relationship()


class EvaluationRow(PublicId, Base):
    """A finished rolling-origin evaluation with its sorted float32 samples.

    ``samples`` has shape ``(n_splits, n_org_units, n_periods, n_samples)``, sorted along the
    last axis so that any quantile is a cheap interpolation. ``specification_id`` is the
    backtest specification it is filed under, set when it is stored (none for a row stored
    without splits). ``model_template_version`` is its template's version when it was stored
    (null for one stored before schema version 9), so a later version of the template shows."""

    __tablename__ = "evaluations"
    name: Mapped[str] = mapped_column(String(200))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id"))
    configured_model_id: Mapped[int] = mapped_column(ForeignKey("configured_models.id"))
    org_units: Mapped[list[Any]]
    split_periods: Mapped[list[Any]]
    periods: Mapped[list[Any]]  # per split, the forecast periods
    n_periods: Mapped[int]
    n_splits: Mapped[int]
    stride: Mapped[int]
    n_samples: Mapped[int]
    future_weather_provider: Mapped[str] = mapped_column(
        String(100), default="climatology", server_default="climatology"
    )
    aggregate_metrics: Mapped[dict[str, Any]]
    samples: Mapped[bytes]
    specification_id: Mapped[int | None] = mapped_column(
        ForeignKey("backtest_specifications.id", ondelete="SET NULL"), index=True
    )
    model_template_version: Mapped[str | None] = mapped_column(String(100))
    dataset: Mapped[DatasetRow] = relationship()
    configured_model: Mapped[ConfiguredModelRow] = relationship()
    specification: Mapped[BacktestSpecificationRow | None] = relationship()
    prediction_setup: Mapped[PredictionSetupRow | None] = relationship(viewonly=True)

    @property
    def prediction_setup_id(self) -> int | None:
        """The prediction setup made from this evaluation, if any (at most one)."""
        return self.prediction_setup.id if self.prediction_setup is not None else None


class PredictionRow(PublicId, Base):
    """A forward forecast: sorted float32 samples, shape ``(n_org_units, n_periods, n_samples)``,
    and the metadata its request sent (``metaData``, chap-core 2.5.1's free-form map)."""

    __tablename__ = "predictions"
    name: Mapped[str] = mapped_column(String(200))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id"))
    configured_model_with_data_source_id: Mapped[int] = mapped_column(
        ForeignKey("configured_models_with_data_source.id")
    )
    org_units: Mapped[list[Any]]
    periods: Mapped[list[Any]]
    n_periods: Mapped[int]
    n_samples: Mapped[int]
    samples: Mapped[bytes]
    meta_data: Mapped[dict[str, Any]] = mapped_column(default=dict, server_default="{}")


ACTIVE_STATUSES = (PENDING, STARTED)
"""The statuses a job row holds before it ends (queued, or running in a worker)."""


class JobRow(Base):
    """A background job; ``payload`` is what it works on, its type's payload model
    (``chaplab.service.job_types``) as JSON; a run of a prediction setup names the setup."""

    __tablename__ = "jobs"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    type: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(12), index=True)
    created: Mapped[datetime] = mapped_column(default=utc_now)
    start_time: Mapped[datetime | None]
    end_time: Mapped[datetime | None]
    result: Mapped[str | None] = mapped_column(String(40))
    error: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[dict[str, Any]]
    prediction_setup_id: Mapped[int | None] = mapped_column(index=True)
    logs: Mapped[list[JobLogRow]] = relationship(
        cascade="all, delete-orphan", order_by="JobLogRow.id"
    )
    request: Mapped[JobRequestRow | None] = relationship(cascade="all, delete-orphan")


REQUEST_BODY = "chaplab.request_body"
"""The key of ``Session.info`` holding the JSON object body of the request a session serves."""


def finished_line(result_id: object) -> str:
    """The last log line of a job that created a row (its result)."""
    return f"finished: created row {result_id}"


class JobLogRow(Base):
    """One captured log line of a job."""

    __tablename__ = "job_logs"
    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    time: Mapped[datetime] = mapped_column(default=utc_now)
    line: Mapped[str] = mapped_column(Text)


class RegisteredTemplateRow(Base):
    """The description of a template registered through ``POST /v1/crud/models``; the template
    itself is a :class:`ModelTemplateRow` with the same id."""

    __tablename__ = "registered_templates"
    id: Mapped[int] = mapped_column(
        ForeignKey("model_templates.id", ondelete="CASCADE"), primary_key=True
    )
    display_name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(200))
    supported_period_type: Mapped[str] = mapped_column(String(10))
    target: Mapped[str] = mapped_column(String(200))
    required_covariates: Mapped[list[Any]]
    config_schema: Mapped[dict[str, Any]]
    created: Mapped[datetime] = mapped_column(default=utc_now)


class ModelRunnerRow(Base):
    """A registered model service (a chapkit service): its own id, where it answers, what it
    says about itself, and until when it stays registered without another ping."""

    __tablename__ = "model_runners"
    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    url: Mapped[str] = mapped_column(String(2000))
    info: Mapped[dict[str, Any]]
    registered_at: Mapped[datetime] = mapped_column(default=utc_now)
    last_updated: Mapped[datetime] = mapped_column(default=utc_now)
    last_ping_at: Mapped[datetime] = mapped_column(default=utc_now)
    expires_at: Mapped[datetime]


class ServiceTemplateRow(Base):
    """A version of a model template stored from a model service (``from-service`` or its
    registration): what the service said about itself and its options then, and the source
    revision it reported. A version is written once; the newest one describes the template."""

    __tablename__ = "service_template_versions"
    __table_args__ = (UniqueConstraint("template_id", "version"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    template_id: Mapped[int] = mapped_column(
        ForeignKey("model_templates.id", ondelete="CASCADE"), index=True
    )
    version: Mapped[str] = mapped_column(String(100))
    source_digest: Mapped[str] = mapped_column(String(200))
    service_id: Mapped[str] = mapped_column(String(200))
    info: Mapped[dict[str, Any]]
    user_options: Mapped[dict[str, Any]]
    role: Mapped[str | None] = mapped_column(String(20))
    created: Mapped[datetime] = mapped_column(default=utc_now)


class DebugEntryRow(PublicId, Base):
    """A note stored by a client to check that writes reach the database and read back."""

    __tablename__ = "debug_entries"
    message: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, Any]]
    created: Mapped[datetime] = mapped_column(default=utc_now)


class BacktestSpecificationRow(PublicId, Base):
    """A dataset and the backtest parameters that make the evaluations under it comparable.

    One row per distinct (dataset, target, parameters); ``org_units`` are those the evaluations
    run over, fixed when the specification is first resolved."""

    __tablename__ = "backtest_specifications"
    __table_args__ = (
        UniqueConstraint(
            "dataset_id",
            "target_column",
            "n_periods",
            "n_splits",
            "stride",
            "n_retrain",
            "future_weather_provider",
        ),
    )
    created: Mapped[datetime] = mapped_column(default=utc_now)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    target_column: Mapped[str] = mapped_column(String(200))
    n_periods: Mapped[int]
    n_splits: Mapped[int]
    stride: Mapped[int]
    n_retrain: Mapped[int]
    future_weather_provider: Mapped[str] = mapped_column(String(100))
    org_units: Mapped[list[Any]]
    dataset: Mapped[DatasetRow] = relationship()

    @property
    def plan(self) -> BacktestPlan:
        """The backtest plan of the evaluations filed under this specification."""
        return BacktestPlan(
            n_periods=self.n_periods,
            n_splits=self.n_splits,
            stride=self.stride,
            n_retrain=self.n_retrain,
        )


def find_specification(
    session: Session,
    dataset: DatasetRow,
    plan: BacktestPlan,
    future_weather_provider: str,
    target_column: str = TARGET_COLUMN,
) -> BacktestSpecificationRow | None:
    """The specification on ``dataset`` of ``plan``, the future weather and the target."""
    return session.scalar(
        select(BacktestSpecificationRow).filter_by(
            dataset_id=dataset.id,
            target_column=target_column,
            future_weather_provider=future_weather_provider,
            **asdict(plan),
        )
    )


def find_or_add_specification(
    session: Session,
    dataset: DatasetRow,
    plan: BacktestPlan,
    future_weather_provider: str,
    target_column: str = TARGET_COLUMN,
) -> BacktestSpecificationRow:
    """:func:`find_specification`, or a new one over the dataset's org units, added and flushed.
    Nothing is committed: a caller that may race another writer commits and retries (see
    ``domain.specifications.resolve_specification``)."""
    found = find_specification(session, dataset, plan, future_weather_provider, target_column)
    if found is not None:
        return found
    row = BacktestSpecificationRow(
        dataset_id=dataset.id,
        target_column=target_column,
        future_weather_provider=future_weather_provider,
        org_units=list(dataset.org_units),
        **asdict(plan),
    )
    session.add(row)
    session.flush()
    return row


class SpecificationRunRow(Base):
    """One configured model's evaluation job under a specification.

    ``reference`` marks a baseline's run (the reference the others are compared with). The
    evaluation is the job's result once it succeeds; a run without a job was not applicable to
    the specification's data, ``message`` says why."""

    __tablename__ = "specification_runs"
    id: Mapped[int] = mapped_column(primary_key=True)
    created: Mapped[datetime] = mapped_column(default=utc_now)
    specification_id: Mapped[int] = mapped_column(
        ForeignKey("backtest_specifications.id", ondelete="CASCADE"), index=True
    )
    configured_model_id: Mapped[int] = mapped_column(ForeignKey("configured_models.id"))
    reference: Mapped[bool]
    job_id: Mapped[str | None] = mapped_column(String(36))
    message: Mapped[str | None] = mapped_column(Text)
    configured_model: Mapped[ConfiguredModelRow] = relationship()


class PredictionSetupRow(PublicId, Base):
    """An evaluation promoted to a repeatable forecast: it keeps the evaluation's configured
    model, org units, period type and data sources, so that each run forecasts the same way on
    fresh observations. Deleting the evaluation deletes its setups."""

    __tablename__ = "prediction_setups"
    name: Mapped[str] = mapped_column(String(200))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    evaluation_id: Mapped[int] = mapped_column(
        ForeignKey("evaluations.id", ondelete="CASCADE"), index=True
    )
    configured_model_id: Mapped[int] = mapped_column(ForeignKey("configured_models.id"))
    period_type: Mapped[str] = mapped_column(String(10))
    start_period: Mapped[str | None] = mapped_column(String(10))
    org_units: Mapped[list[Any]]
    covariate_sources: Mapped[list[Any]]
    schedule_cron_expression: Mapped[str | None] = mapped_column(String(200))
    schedule_enabled: Mapped[bool] = mapped_column(default=False)
    quantile_targets: Mapped[list[Any]]
    alert_policy_id: Mapped[int | None]
    configured_model: Mapped[ConfiguredModelRow] = relationship()


class PredictionSetupForecastRow(Base):
    """One forecast of a setup's history: the prediction a run of the setup created."""

    __tablename__ = "prediction_setup_forecasts"
    prediction_id: Mapped[int] = mapped_column(
        ForeignKey("predictions.id", ondelete="CASCADE"), primary_key=True
    )
    prediction_setup_id: Mapped[int] = mapped_column(
        ForeignKey("prediction_setups.id", ondelete="CASCADE"), index=True
    )


class JobRequestRow(Base):
    """The request body a job was queued with, as it was sent; deleted with its job."""

    __tablename__ = "job_requests"
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    body: Mapped[dict[str, Any]]


class AlertPolicyRow(PublicId, Base):
    """A named ladder of alert levels, least to most severe; ``levels`` holds them in the wire
    spelling (name, thresholdParams, exceedanceThreshold). A policy is never edited: an alert's
    level name must keep meaning what it meant."""

    __tablename__ = "alert_policies"
    name: Mapped[str] = mapped_column(String(200))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    levels: Mapped[list[Any]]


class AlertRow(PublicId, Base):
    """An alert raised for an org unit and period at a level of a policy, and where it stands
    in the release gate (``approved``: pending, approved or declined). A prediction raises at
    most one alert per org unit and period; a deleted prediction leaves its alerts unlinked."""

    __tablename__ = "alerts"
    __table_args__ = (UniqueConstraint("prediction_id", "org_unit", "time_period"),)
    created: Mapped[datetime] = mapped_column(default=utc_now)
    time_period: Mapped[str] = mapped_column(String(10))
    org_unit: Mapped[str] = mapped_column(String(200))
    alert_policy_id: Mapped[int] = mapped_column(
        ForeignKey("alert_policies.id", ondelete="RESTRICT"), index=True
    )
    level: Mapped[str] = mapped_column(String(200))
    prediction_id: Mapped[int | None] = mapped_column(
        ForeignKey("predictions.id", ondelete="SET NULL")
    )
    approved: Mapped[str] = mapped_column(String(20), default="pending", index=True)
    approved_by: Mapped[str | None] = mapped_column(String(200))
    approved_at: Mapped[datetime | None]
