"""Tables of the further endpoints: registered model templates, external model runners and debug
entries. They share the ``Base`` of :mod:`chaplab.service.db`, so a new database gets them with
the others (this module is imported by the routes before the database is prepared)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chaplab.service.db import Base, utc_now


class RegisteredTemplateRow(Base):
    """The description of a template registered through ``POST /v1/crud/models``; the template
    itself is a :class:`~chaplab.service.db.ModelTemplateRow` with the same id."""

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
    """An external model runner: where it answers, what it says about itself, when it last
    pinged."""

    __tablename__ = "model_runners"
    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(String(2000), unique=True)
    info: Mapped[dict[str, Any]]
    registered_at: Mapped[datetime] = mapped_column(default=utc_now)
    last_ping_at: Mapped[datetime] = mapped_column(default=utc_now)
    ping_count: Mapped[int] = mapped_column(default=0)


class DebugEntryRow(Base):
    """A note stored by a client to check that writes reach the database and read back."""

    __tablename__ = "debug_entries"
    id: Mapped[int] = mapped_column(primary_key=True)
    message: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, Any]]
    created: Mapped[datetime] = mapped_column(default=utc_now)
