"""Imported by the job workers' fork server only (see ``job_runner``): it configures the ORM
and compiles a select, an insert and an update of every table once, for SQLite and PostgreSQL,
makes an engine once (parsing a database URL compiles SQLAlchemy's patterns, 8 ms) and runs a
tiny backtest once (the thread pools' lookup and numpy's first use: 4 ms).

SQLAlchemy works out much of what a statement needs (mapper configuration, each table's and
column's memoized properties, the ORM's compile state) on first use in a process. A worker is
forked from the fork server for every job, so without this each job paid that again: 100-200 ms
of a small evaluation's worker under load, more than the model's work. Forked workers inherit
what the fork server computed here.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import configure_mappers

from chaplab.service.db import make_engine
from chaplab.service.forecasting import TEMPLATES, Panel, run_backtest
from chaplab.service.tables import Base
from chaplab.vocabulary import BacktestPlan, period_range


def compile_every_table() -> None:
    """Configure the mappers and compile a select by primary key, an insert and an update of
    every mapped table for each dialect the service runs on."""
    configure_mappers()
    # the dialect classes have no annotations
    dialects = (sqlite.dialect(), postgresql.dialect())  # type: ignore[no-untyped-call]
    for dialect in dialects:
        for mapper in Base.registry.mappers:
            by_key = mapper.primary_key[0] == bindparam("key")
            for statement in (
                select(mapper.class_).where(by_key),
                insert(mapper.class_),
                update(mapper.class_).where(by_key),
            ):
                statement.compile(dialect=dialect)


def run_a_tiny_backtest() -> None:
    """A naive backtest of one place over two years: what every job's first backtest would
    otherwise do once per worker is done here, inherited by every worker."""
    periods = period_range("202001", "202112")
    cases = np.arange(len(periods), dtype=np.float64).reshape(1, -1)
    panel = Panel("month", periods, ["place"], {"disease_cases": cases})
    run_backtest(TEMPLATES["naive_model"], {}, panel, BacktestPlan(n_periods=2, n_splits=2), 10, 0)


compile_every_table()
make_engine("sqlite://").dispose()  # no connection is opened
run_a_tiny_backtest()
