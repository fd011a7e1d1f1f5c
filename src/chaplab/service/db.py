"""The service's storage: typed SQLAlchemy 2.0 tables, the engine and the schema version.

Datasets and samples are stored compactly: one float64 blob per dataset feature
(``n_org_units x n_periods``) and one float32 blob of sorted samples per evaluation or
prediction. SQLite is the default (one file, WAL mode); any SQLAlchemy URL is accepted.

SQLite runs with ``synchronous=FULL``: every write is committed before its response is sent,
and FULL makes that commit survive a power cut too, not only a crash of the process. The
service writes rarely and in few, small transactions, so the extra fsync costs little.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Dialect,
    Engine,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    create_engine,
    event,
    func,
    inspect,
    select,
)
from sqlalchemy.engine import make_url
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 30_000


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


class SchemaVersion(Base):
    """One row: the version of the table layout this database holds."""

    __tablename__ = "schema_version"
    version: Mapped[int] = mapped_column(Integer, primary_key=True)


class DatasetRow(Base):
    """A dataset: org units x periods, one array per feature in :class:`DatasetFeatureRow`."""

    __tablename__ = "datasets"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    type: Mapped[str] = mapped_column(String(20))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    period_type: Mapped[str] = mapped_column(String(10))
    periods: Mapped[list[Any]]
    org_units: Mapped[list[Any]]
    geojson: Mapped[dict[str, Any] | None]
    data_sources: Mapped[list[Any]]
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


class ModelTemplateRow(Base):
    """A model template known to the service; its behaviour lives in the forecasting package."""

    __tablename__ = "model_templates"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    archived: Mapped[bool] = mapped_column(default=False)


class ConfiguredModelRow(Base):
    """A template with chosen option values, named ``{template}:{name}`` (or the bare template)."""

    __tablename__ = "configured_models"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(300), unique=True)
    model_template_id: Mapped[int] = mapped_column(ForeignKey("model_templates.id"))
    user_option_values: Mapped[dict[str, Any]]
    additional_continuous_covariates: Mapped[list[Any]]
    archived: Mapped[bool] = mapped_column(default=False)
    created: Mapped[datetime] = mapped_column(default=utc_now)
    template: Mapped[ModelTemplateRow] = relationship()


FIRST_CONFIGURED_MODEL_ID = 1001
"""Configured-model ids start here, apart from template ids, so that an id taken from
``/v1/crud/models`` is never mistaken for a valid ``modelTemplateId``."""


def next_configured_model_id(session: Session) -> int:
    """The id for a new configured model."""
    highest = session.scalar(select(func.max(ConfiguredModelRow.id)))
    return max(highest or 0, FIRST_CONFIGURED_MODEL_ID - 1) + 1


class ConfiguredModelWithDataSourceRow(Base):
    """A configured model bundled with the data sources and org units of its predictions."""

    __tablename__ = "configured_models_with_data_source"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(400))
    created: Mapped[datetime] = mapped_column(default=utc_now)
    configured_model_id: Mapped[int] = mapped_column(ForeignKey("configured_models.id"))
    period_type: Mapped[str] = mapped_column(String(10))
    start_period: Mapped[str | None] = mapped_column(String(10))
    org_units: Mapped[list[Any]]
    data_sources: Mapped[list[Any]]
    configured_model: Mapped[ConfiguredModelRow] = relationship()


class EvaluationRow(Base):
    """A finished rolling-origin evaluation with its sorted float32 samples.

    ``samples`` has shape ``(n_splits, n_org_units, n_periods, n_samples)``, sorted along the
    last axis so that any quantile is a cheap interpolation."""

    __tablename__ = "evaluations"
    id: Mapped[int] = mapped_column(primary_key=True)
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
    aggregate_metrics: Mapped[dict[str, Any]]
    samples: Mapped[bytes]
    dataset: Mapped[DatasetRow] = relationship()
    configured_model: Mapped[ConfiguredModelRow] = relationship()


class PredictionRow(Base):
    """A forward forecast: sorted float32 samples, shape ``(n_org_units, n_periods, n_samples)``."""

    __tablename__ = "predictions"
    id: Mapped[int] = mapped_column(primary_key=True)
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


PENDING, STARTED, SUCCESS, FAILURE, REVOKED = "PENDING", "STARTED", "SUCCESS", "FAILURE", "REVOKED"
ACTIVE_STATUSES = (PENDING, STARTED)


class JobRow(Base):
    """A background job; ``payload`` is the validated request it works on."""

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
    logs: Mapped[list[JobLogRow]] = relationship(
        cascade="all, delete-orphan", order_by="JobLogRow.id"
    )


class JobLogRow(Base):
    """One captured log line of a job."""

    __tablename__ = "job_logs"
    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    time: Mapped[datetime] = mapped_column(default=utc_now)
    line: Mapped[str] = mapped_column(Text)


class SchemaVersionError(RuntimeError):
    """The database holds another table layout than this version of chaplab can use."""


def database_url(database: str | Path | None, data_dir: Path | None = None) -> str:
    """A SQLAlchemy URL from a URL, a file path, or nothing (``chaplab.db`` in ``data_dir``)."""
    if database is None:
        folder = data_dir or Path.cwd()
        return f"sqlite:///{(folder / 'chaplab.db').resolve()}"
    text = str(database)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser().resolve()}"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL, FULL sync, a busy timeout and foreign keys."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
    )
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    """Per-connection settings; WAL only for a file this chaplab may write.

    ``journal_mode=WAL`` rewrites the file header, so it is set only after reading (which
    writes nothing) that the file is new or a chaplab database of a version this chaplab reads:
    a foreign file or another version stays byte for byte unchanged while it is refused."""
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    if _is_new_or_readable(cursor):
        cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def _is_new_or_readable(cursor: Any) -> bool:
    """Whether the SQLite file has no tables, or a schema version this chaplab reads or migrates."""
    listed = cursor.execute("SELECT name FROM sqlite_master WHERE type='table'")
    tables = {name for (name,) in listed}
    if not tables:
        return True
    if SchemaVersion.__tablename__ not in tables:
        return False
    (version,) = cursor.execute("SELECT max(version) FROM schema_version").fetchone()
    return version is not None and (version == SCHEMA_VERSION or version in MIGRATIONS)


def prepare_database(engine: Engine) -> bool:
    """Create the tables of a new database or check the version of an existing one.

    Returns True when the database was new (so the caller seeds it). An older layout is
    migrated when a migration exists, otherwise it and a newer layout are refused with
    :class:`SchemaVersionError`, before anything is written."""
    from chaplab.service import records  # noqa: F401  (its tables join Base.metadata)

    tables = set(inspect(engine).get_table_names())
    if not tables:
        Base.metadata.create_all(engine)
        with Session(engine) as session, session.begin():
            session.add(SchemaVersion(version=SCHEMA_VERSION))
        return True
    if SchemaVersion.__tablename__ not in tables:
        raise SchemaVersionError(
            f"the database at {engine.url.render_as_string(hide_password=True)} holds tables "
            f"({', '.join(sorted(tables)[:5])}) but no schema_version table: it is not a chaplab "
            "database; point --database at a new file"
        )
    with Session(engine) as session:
        found = session.scalar(select(SchemaVersion.version))
    if found is None:
        raise SchemaVersionError("the schema_version table is empty: the database is damaged")
    if found > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the database has schema version {found}, written by a newer chaplab; this "
            f"chaplab reads version {SCHEMA_VERSION}: upgrade chaplab"
        )
    while found < SCHEMA_VERSION:
        migration = MIGRATIONS.get(found)
        if migration is None:
            raise SchemaVersionError(
                f"the database has schema version {found}; this chaplab reads version "
                f"{SCHEMA_VERSION} and has no migration from {found}: export the data with "
                "the older chaplab or start with a new database file"
            )
        with Session(engine) as session, session.begin():
            migration(session)
            session.get_one(SchemaVersion, found).version = found + 1
        found += 1
    return False


def _add_further_tables(session: Session) -> None:
    """Version 1 -> 2: the tables of registered templates, model runners and debug entries."""
    from chaplab.service import records

    Base.metadata.create_all(
        session.connection(),
        tables=[
            records.RegisteredTemplateRow.__table__,
            records.ModelRunnerRow.__table__,
            records.DebugEntryRow.__table__,
        ],
    )


# Migrations by the version they start from; each moves the layout one version up.
MIGRATIONS: dict[int, Callable[[Session], None]] = {1: _add_further_tables}


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded rows usable after commit (answers are built after writing)."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work is committed on leaving the block, rolled back on an error."""
    with factory() as session, session.begin():
        yield session
