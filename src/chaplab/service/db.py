"""The service's database: the engine, sessions, the schema version and its migrations.

The tables are declared in :mod:`chaplab.service.tables`. SQLite is the default (one file, WAL
mode); PostgreSQL is tested too (``make test-postgres``), and any SQLAlchemy URL is accepted.

SQLite runs with ``synchronous=FULL``: every write is committed before its response is sent,
and FULL makes that commit survive a power cut too, not only a crash of the process. The
service writes rarely and in few, small transactions, so the extra fsync costs little.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Engine,
    MetaData,
    Table,
    create_engine,
    event,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.job_types import (
    EvaluationPayload,
    JobPayload,
    PredictionPayload,
)
from chaplab.service.tables import (
    AlertPolicyRow,
    AlertRow,
    BacktestSpecificationRow,
    Base,
    DatasetRow,
    DebugEntryRow,
    EvaluationRow,
    IdCounterRow,
    JobRequestRow,
    JobRow,
    ModelRunnerRow,
    PredictionRow,
    PredictionSetupForecastRow,
    PredictionSetupRow,
    PublicId,
    RegisteredTemplateRow,
    SchemaVersion,
    ServiceTemplateRow,
    SpecificationRunRow,
    count_public_ids,
    find_or_add_specification,
    table_of,
)
from chaplab.vocabulary import CLIMATOLOGY_WEATHER, BacktestPlan, JobType

SCHEMA_VERSION = 11
BUSY_TIMEOUT_MS = 30_000


class SchemaVersionError(RuntimeError):
    """The database holds another table layout than this version of chaplab can use."""


def database_url(database: str | os.PathLike[str] | None, data_dir: Path | None = None) -> str:
    """A SQLAlchemy URL from a URL, a file path, or nothing (``chaplab.db`` in ``data_dir``)."""
    if database is None:
        folder = data_dir or Path.cwd()
        return f"sqlite:///{(folder / 'chaplab.db').resolve()}"
    text = os.fspath(database)
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
    tables = set(inspect(engine).get_table_names())
    if not tables:
        Base.metadata.create_all(engine)
        with Session(engine) as session, session.begin():
            session.add(SchemaVersion(version=SCHEMA_VERSION))
            count_public_ids(session.connection())
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
            _count_ids_of_present_tables(session)
            migration(session)
            _count_ids_of_present_tables(session)
            session.get_one(SchemaVersion, found).version = found + 1
        found += 1
    return False


def _column_names(session: Session, table: str) -> set[str]:
    """The columns ``table`` has in the database (not in its model)."""
    return {column["name"] for column in inspect(session.connection()).get_columns(table)}


def _add_column(session: Session, table: str, column: str, definition: str) -> bool:
    """Add ``column`` (SQL type and constraints: ``definition``) to ``table`` unless the table
    has it already; whether it was added."""
    if column in _column_names(session, table):
        return False
    session.connection().exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
    return True


def _add_further_tables(session: Session) -> None:
    """Version 1 -> 2: the tables of registered templates, model runners and debug entries."""
    Base.metadata.create_all(
        session.connection(),
        tables=[
            table_of(RegisteredTemplateRow),
            table_of(ModelRunnerRow),
            table_of(DebugEntryRow),
        ],
    )


def _add_specification_tables(session: Session) -> None:
    """Version 2 -> 3: backtest specifications and the runs of their batches."""
    Base.metadata.create_all(
        session.connection(),
        tables=[table_of(BacktestSpecificationRow), table_of(SpecificationRunRow)],
    )


def _add_version_4_tables(session: Session) -> None:
    """Version 3 -> 4: prediction setups with their forecast history, jobs' requests, alert
    policies and alerts; evaluations say their future-weather provider (the earlier ones all
    used climatology)."""
    _add_column(
        session,
        "evaluations",
        "future_weather_provider",
        "VARCHAR(100) DEFAULT 'climatology' NOT NULL",
    )
    Base.metadata.create_all(
        session.connection(),
        tables=[
            table_of(PredictionSetupRow),
            table_of(PredictionSetupForecastRow),
            table_of(JobRequestRow),
            table_of(AlertPolicyRow),
            table_of(AlertRow),
        ],
    )


def _name_splits_by_their_first_forecast_period(session: Session) -> None:
    """Version 4 -> 5: every stored evaluation names each split by the first period of its
    forecast window (as chap-core 2.5.1 does), no longer by the last period the model saw.

    Only the labels change: the forecast periods, samples and metrics stay as they are, and a
    row without splits (stored without running) is left alone."""
    evaluations = table_of(EvaluationRow)
    stored = session.execute(
        select(evaluations.c.id, evaluations.c.split_periods, evaluations.c.periods)
    ).all()
    for row_id, split_periods, periods in stored:
        renamed = [
            window[0] if window else label
            for label, window in zip(split_periods, periods, strict=True)
        ]
        if renamed != split_periods:
            session.execute(
                update(evaluations).where(evaluations.c.id == row_id).values(split_periods=renamed)
            )


def _register_services_by_their_own_id(session: Session) -> None:
    """Version 5 -> 6: model services are registered under their own id (text) and expire
    (``model_runners`` gains text ids, ``last_updated`` and ``expires_at``), and the templates
    stored from them keep their versions (``service_template_versions``).

    A runner registered before keeps its number, as text, and counts as expired since its
    last ping: a service that pings it is told it is unknown and registers again under its
    own id, as servicekit does."""
    connection = session.connection()
    if "expires_at" not in _column_names(session, "model_runners"):
        old = Table("model_runners", MetaData(), autoload_with=connection)
        runners = [
            {
                "id": str(row.id),
                "url": row.url,
                "info": row.info,
                "registered_at": row.registered_at,
                "last_updated": row.last_ping_at,
                "last_ping_at": row.last_ping_at,
                "expires_at": row.last_ping_at,
            }
            for row in connection.execute(select(old))
        ]
        old.drop(connection)
        Base.metadata.create_all(connection, tables=[table_of(ModelRunnerRow)])
        if runners:
            connection.execute(insert(table_of(ModelRunnerRow)), runners)
    Base.metadata.create_all(connection, tables=[table_of(ServiceTemplateRow)])


def _file_evaluations_under_their_specifications(session: Session) -> None:
    """Version 6 -> 7: an evaluation names the backtest specification it is filed under
    (``evaluations.specification_id``), set when it is stored, so that reading it never writes.

    A stored evaluation is filed under the specification of the run that produced it, else (one
    on inline data, the demo's) under that of its dataset and parameters, created when there is
    none, as reading it filed it before; a row without splits has none. (Jobs a version-6
    service left queued are failed as interrupted when the service starts, so none runs with a
    payload that names no specification.)"""
    if _add_column(
        session,
        "evaluations",
        "specification_id",
        "INTEGER REFERENCES backtest_specifications (id) ON DELETE SET NULL",
    ):
        session.connection().exec_driver_sql(
            "CREATE INDEX ix_evaluations_specification_id ON evaluations (specification_id)"
        )
    evaluations = table_of(EvaluationRow)
    unfiled = session.execute(
        select(
            evaluations.c.id,
            evaluations.c.dataset_id,
            evaluations.c.n_periods,
            evaluations.c.n_splits,
            evaluations.c.stride,
            evaluations.c.future_weather_provider,
        ).where(evaluations.c.specification_id.is_(None), evaluations.c.n_splits > 0)
    ).all()
    for row in unfiled:
        plan = BacktestPlan(n_periods=row.n_periods, n_splits=row.n_splits, stride=row.stride)
        filed = session.scalar(
            select(SpecificationRunRow.specification_id)
            .join(JobRow, JobRow.id == SpecificationRunRow.job_id)
            .where(JobRow.type == JobType.CREATE_BACKTEST, JobRow.result == str(row.id))
            .limit(1)
        )
        if filed is None:
            dataset = session.get_one(DatasetRow, row.dataset_id)
            filed = find_or_add_specification(
                session, dataset, plan, row.future_weather_provider
            ).id
        session.execute(
            update(evaluations).where(evaluations.c.id == row.id).values(specification_id=filed)
        )


def _count_ids_of_present_tables(session: Session) -> None:
    """Before and after every migration: the id counters exist (a step may add rows with
    public ids), one for each table of public ids the database has by then."""
    connection = session.connection()
    Base.metadata.create_all(connection, tables=[table_of(IdCounterRow)])
    count_public_ids(connection, present=set(inspect(connection).get_table_names()))


ROWS_JOBS_CREATED_IN_VERSION_7: dict[str, type[PublicId]] = {
    "create_backtest": EvaluationRow,
    "make_prediction": PredictionRow,
    "create_dataset": DatasetRow,
}
"""The job types of schema version 7 and the table of the row each one's result names."""


def _never_reuse_ids(session: Session) -> None:
    """Version 7 -> 8: ids of public rows are never handed out again (``id_counters``): every
    table of public ids counts on from its highest stored id, or from the highest id a job's
    result names in it, when a job created a row that has been deleted since, so that a job's
    result keeps naming the row the job created."""
    jobs = table_of(JobRow)
    counters = table_of(IdCounterRow)
    named = session.execute(
        select(jobs.c.type, jobs.c.result).where(
            jobs.c.type.in_(ROWS_JOBS_CREATED_IN_VERSION_7), jobs.c.result.is_not(None)
        )
    ).all()
    highest: dict[str, int] = {}
    for job_type, result in named:
        if str(result).isdigit():
            table = table_of(ROWS_JOBS_CREATED_IN_VERSION_7[job_type]).name
            highest[table] = max(highest.get(table, 0), int(result))
    for table, last_id in highest.items():
        session.execute(
            update(counters)
            .where(counters.c.table_name == table, counters.c.last_id < last_id)
            .values(last_id=last_id)
        )


def _say_where_datasets_and_evaluations_come_from(session: Session) -> None:
    """Version 8 -> 9: a dataset says whether it was stored as a dataset or came with the data
    of an evaluation or prediction (``datasets.created_manually``, chap-core 2.5.1's
    ``createdManually``), and an evaluation its template's version when it was stored
    (``evaluations.model_template_version``: null for the stored ones, whose version then was
    not recorded).

    A stored prediction's dataset came with its data, and so did the dataset a job names in its
    payload when the job's request sent the data (an evaluation on inline data); every other
    dataset was stored as one."""
    _add_column(session, "datasets", "created_manually", "BOOLEAN DEFAULT TRUE NOT NULL")
    _add_column(session, "evaluations", "model_template_version", "VARCHAR(100)")
    datasets, predictions = table_of(DatasetRow), table_of(PredictionRow)
    with_data = set(session.scalars(select(predictions.c.dataset_id)))
    requests = session.execute(
        select(table_of(JobRow).c.payload, table_of(JobRequestRow).c.body).join(
            table_of(JobRequestRow), table_of(JobRequestRow).c.job_id == table_of(JobRow).c.id
        )
    ).all()
    for payload, body in requests:
        dataset_id = payload.get("dataset_id") if isinstance(payload, dict) else None
        sent_data = isinstance(body, dict) and ("providedData" in body or "provided_data" in body)
        if sent_data and isinstance(dataset_id, int):
            with_data.add(dataset_id)
    if with_data:
        session.execute(
            update(datasets).where(datasets.c.id.in_(with_data)).values(created_manually=False)
        )


def _keep_metadata_with_predictions(session: Session) -> None:
    """Version 9 -> 10: a prediction keeps the metadata its request sent
    (``predictions.meta_data``, chap-core 2.5.1's ``metaData``); the stored ones had none."""
    _add_column(session, "predictions", "meta_data", "JSON DEFAULT '{}' NOT NULL")


def _type_jobs_as_chap_core_does(session: Session) -> None:
    """Version 10 -> 11: a job's type is chap-core 2.5.1's name for it, its payload the model of
    its type (``chaplab.service.job_types``: an evaluation's settings are one ``plan``), and a
    run of a prediction setup names the setup in a column of its own
    (``jobs.prediction_setup_id``), by which deleting the setup finds its runs.

    ``make_prediction`` becomes ``create_prediction``; a ``create_backtest`` job whose request
    sent the data becomes ``create_backtest_from_data``, and a baseline's run the service queued
    on a specification by itself (named ``baseline``) ``run_baseline``. An evaluation's plan
    trains as often as its specification says (once for a job older than specifications)."""
    if _add_column(session, "jobs", "prediction_setup_id", "INTEGER"):
        session.connection().exec_driver_sql(
            "CREATE INDEX ix_jobs_prediction_setup_id ON jobs (prediction_setup_id)"
        )
    jobs, runs = table_of(JobRow), table_of(SpecificationRunRow)
    specifications, requests = table_of(BacktestSpecificationRow), table_of(JobRequestRow)
    sent_data = {
        job_id
        for job_id, body in session.execute(select(requests.c.job_id, requests.c.body))
        if isinstance(body, dict) and ("providedData" in body or "provided_data" in body)
    }
    queued_baselines = set(
        session.scalars(
            select(runs.c.job_id)
            .join(jobs, jobs.c.id == runs.c.job_id)
            .where(runs.c.reference.is_(True), jobs.c.name == "baseline")  # as version 9 named it
        )
    )
    retrains = dict(session.execute(select(specifications.c.id, specifications.c.n_retrain)).all())
    stored = session.execute(select(jobs.c.id, jobs.c.type, jobs.c.payload)).all()
    for job_id, old_type, old in stored:
        setup_id = None
        if old_type == "create_backtest" and "plan" not in old:
            new_type = (
                JobType.CREATE_BACKTEST_FROM_DATA
                if job_id in sent_data
                else JobType.RUN_BASELINE
                if job_id in queued_baselines
                else JobType.CREATE_BACKTEST
            )
            specification_id = old.get("specification_id")
            payload: JobPayload = EvaluationPayload(
                name=old["name"],
                lane=old.get("lane"),
                configured_model_id=old["configured_model_id"],
                dataset_id=old["dataset_id"],
                specification_id=specification_id,
                plan=BacktestPlan(
                    n_periods=old["n_periods"],
                    n_splits=old["n_splits"],
                    stride=old["stride"],
                    n_retrain=retrains.get(specification_id, 1),
                ),
                future_weather_provider=old.get("future_weather_provider", CLIMATOLOGY_WEATHER),
            )
        elif old_type == "make_prediction":
            new_type, setup_id = JobType.CREATE_PREDICTION, old.get("prediction_setup_id")
            payload = PredictionPayload(
                name=old["name"],
                lane=old.get("lane"),
                configured_model_with_data_source_id=old["configured_model_with_data_source_id"],
                n_periods=old["n_periods"],
                dataset=old["dataset"],
                meta_data=old.get("meta_data", {}),
            )
        else:  # a dataset's payload is the same in both versions
            continue
        session.execute(
            update(jobs)
            .where(jobs.c.id == job_id)
            .values(
                type=new_type,
                payload=payload.model_dump(mode="json", exclude_none=True),
                prediction_setup_id=setup_id,
            )
        )


# Migrations by the version they start from; each moves the layout one version up.
MIGRATIONS: dict[int, Callable[[Session], None]] = {
    1: _add_further_tables,
    2: _add_specification_tables,
    3: _add_version_4_tables,
    4: _name_splits_by_their_first_forecast_period,
    5: _register_services_by_their_own_id,
    6: _file_evaluations_under_their_specifications,
    7: _never_reuse_ids,
    8: _say_where_datasets_and_evaluations_come_from,
    9: _keep_metadata_with_predictions,
    10: _type_jobs_as_chap_core_does,
}


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded rows usable after commit (answers are built after writing)."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work is committed on leaving the block, rolled back on an error."""
    with factory() as session, session.begin():
        yield session
